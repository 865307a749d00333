"""text.py - how values become text in tables: numbers with a fixed
number of decimals, and strings from results.json made safe to print.
A string from a results file is data: control characters (a newline, a
terminal's escape sequences) are shown as escapes, and a very long one is
cut, so that it can neither break a table's layout nor talk to the
terminal.
"""

MAX_CELL = 48


def safe(s, limit=MAX_CELL):
    """S (any value) as printable one-line text, at most LIMIT characters."""
    if s is None:
        return "-"
    s = str(s)
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20 or o == 0x7f or 0x80 <= o < 0xa0 or ch in "\u2028\u2029":
            out.append("\\x%02x" % o if o < 0x100 else "\\u%04x" % o)
        else:
            out.append(ch)
    s = "".join(out)
    if limit and len(s) > limit:
        s = s[:limit - 1] + "\u2026"
    return s


def md(s, limit=MAX_CELL):
    """S as Markdown text: safe() and then every character Markdown or
    the HTML inside it would read as markup escaped (an underscore only
    where it could open emphasis: af_xdp stays af_xdp)."""
    out = []
    t = safe(s, limit)
    for i, ch in enumerate(t):
        if ch in "\\`*[]<>|&$#!{}~":
            out.append("\\" + ch if ch not in "<>&" else
                       {"<": "&lt;", ">": "&gt;", "&": "&amp;"}[ch])
        elif ch == "_" and not (0 < i < len(t) - 1 and t[i - 1].isalnum()
                                and t[i + 1].isalnum()):
            out.append("\\_")
        else:
            out.append(ch)
    return "".join(out)


def fixed(v, d):
    """Number V with D decimals ('-' for none), thousands not grouped."""
    if v is None or isinstance(v, bool):
        return "-"
    if not isinstance(v, (int, float)):
        return safe(v)
    return "%.*f" % (d, v)


def grouped(v, d=0):
    """Number V with D decimals and thousands grouped by commas."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
        return fixed(v, d)
    return "{:,.{d}f}".format(v, d=d)


def us(ns, d=1):
    """Nanoseconds as microseconds with D decimals."""
    return fixed(None if ns is None else ns / 1000, d)


def pad(cells, widths, right):
    """One line of CELLS padded to WIDTHS; RIGHT[i] aligns cell i right."""
    out = []
    for i, c in enumerate(cells):
        out.append(c.rjust(widths[i]) if right[i] else c.ljust(widths[i]))
    return "  ".join(out).rstrip()


def columns(rows, right):
    """Lines of ROWS (lists of text, the first the header) in columns."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [pad(r, widths, right) for r in rows]
