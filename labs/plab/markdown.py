"""markdown.py - the Markdown summary of a results.json for the README and
the slides: one row per path, mode and placement at one frame size, throughput and
latency runs side by side, and the visibility run's tcpdump count. With
several trials a figure is the median with (min-max) beside it. Numbers
are printed as jq prints them, so the generated blocks of the documents
stay the same whichever tool wrote them.
"""

import math

from . import emulated, stats
from .summary import placement_label
from .text import md


def jqnum(v):
    """A number as jq's tostring writes it."""
    if isinstance(v, bool) or v is None:
        return str(v).lower() if v is not None else "null"
    if isinstance(v, int):
        return str(v)
    if v == int(v) and abs(v) < 1e17:
        return str(int(v))
    return repr(v)


def fmt(v, d):
    """V rounded to D decimals as jq's fmt($d) does; an en dash for none."""
    if v is None:
        return "\u2013"
    x = v * 10 ** d
    x = math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)
    return jqnum(x / 10 ** d if d else x)


def _all(runs, get):
    """Figure GET of each run of RUNS, None left out."""
    return [v for v in (get(r) for r in runs) if v is not None]


def cell(runs, get, d, scale=1.0):
    """The first run's figure, or with several trials the median with
    (min-max) beside it."""
    vals = [v / scale for v in _all(runs, get)]
    if not vals:
        return "\u2013"
    if len(runs) < 2:
        return fmt(vals[0], d)
    s = stats.spread(vals)
    med = fmt(s["median"], d)
    lo, hi = fmt(s["min"], d), fmt(s["max"], d)
    return med if lo == hi else "%s (%s-%s)" % (med, lo, hi)


def _g(*keys):
    """A getter of run[k1][k2]..."""
    def get(r):
        for k in keys:
            r = r.get(k) if isinstance(r, dict) else None
        return r
    return get


def _lat_cell(lat):
    """'p50 / p99' in µs of the latency runs that have samples."""
    with_samples = [r for r in lat if (_g("latency_ns", "count")(r) or 0)
                    > 0]
    if not with_samples:
        return "\u2013"
    return "%s / %s" % (cell(with_samples, _g("latency_ns", "p50"), 1, 1000),
                        cell(with_samples, _g("latency_ns", "p99"), 1, 1000))


def header(h, size, runs):
    """The where-and-when paragraph above the table."""
    s = "Measured %s on %s, %s CPUs, kernel %s, virtualization: %s" % (
        md(h.get("date") or "?", 40), md(h.get("cpu_model") or "?", 80),
        jqnum(h.get("cpus")) if h.get("cpus") is not None else "?",
        md(h.get("kernel") or "?", 60),
        md(h.get("virtualization") or "?", 30))
    if h.get("loadavg_start") is not None:
        end = h.get("loadavg_end")
        s += "; load average %s at the start, %s at the end" % (
            jqnum(h["loadavg_start"]), "?" if end is None else jqnum(end))
    bg = [h.get("background_cpus_" + w) for w in ("start", "end")]
    if None not in bg:
        s += ("; with no traffic, %s and %s CPUs busy before the first run"
              " and after the last (the load average at the end still"
              " counts the lab's own last runs)" % tuple(jqnum(b) for b in bg))
    envs = sorted({md(emulated.env_text(r, 40), 80) for r in runs
                   if r.get("env") is not None})
    return s + "; %d-byte frames; env: %s." % (size, ", ".join(envs))


def where_cell(place, rs):
    """Where NAPI ran for the runs RS (their placement label), and how
    many of them were contended."""
    n = sum(1 for r in rs if r.get("contended") is True)
    if not place:
        return "–"
    return md(place, 60) + (" (contended %d of %d)" % (n, len(rs))
                            if n else "")


def row(key, rs):
    """One table row of the runs RS of row KEY."""
    path, mode, gpu, place = key
    t = [r for r in rs if r.get("workload") == "throughput"]
    lat = [r for r in rs if r.get("workload") == "latency"]
    v = [r for r in rs if r.get("workload") == "visibility"]
    name = md(path, 40) + (" +gpu " + md(gpu, 20) if gpu != "none"
                             else "")
    return "| %s | %s | %s | %s | %s (%s) | %s | %s: %s + %s | %s | %s |" \
        " %s | %s of %s | %s of %s |" % (
            name, md(mode, 40), where_cell(place, rs),
            cell(t, _g("pps"), 0, 1000),
            cell(t, _g("lost"), 0), cell(t, _g("unattributed"), 0),
            _lat_cell(lat),
            cell(t, _g("receive_cycles_per_packet", "total"), 0),
            cell(t, _g("receive_cycles_per_packet", "kernel"), 0),
            cell(t, _g("receive_cycles_per_packet", "app"), 0),
            cell(t, _g("cycles_per_packet", "system"), 0),
            cell(t, _g("syscalls_per_packet"), 3),
            cell(t, _g("copies_per_packet"), 0),
            cell(t, _g("kernel_udp_in_datagrams"), 0),
            cell(t, _g("sent"), 0), cell(v, _g("tcpdump_seen"), 0),
            cell(v, _g("sent"), 0))


def summary(results, size):
    """The summary block at SIZE-byte frames, as text."""
    runs = [r for r in results.get("runs", [])
            if r.get("frame_bytes") == size and not r.get("reference")]
    keys = []
    def key(r):
        return (r.get("path"), r.get("mode"), r.get("gpu") or "none",
                placement_label(r))
    for r in runs:
        if key(r) not in keys:
            keys.append(key(r))
    lines = [header(results.get("host") or {}, size, runs), "",
             "| path | mode | where NAPI ran | rate, kpps | lost"
             " (unattributed) | one-way p50 / p99, µs | receive cycles/pkt:"
             " kernel + app | system-wide incl. generator | syscalls/pkt |"
             " copies/pkt | Udp InDatagrams | tcpdump saw |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def of(k):
        return [r for r in runs if key(r) == k]
    host, emu = emulated.split(keys, lambda k: of(k)[0])
    for k in host:
        lines.append(row(k, of(k)))
    if emu:
        lines.append("| *%s (Soft-RoCE VM: %s); read them against perftest"
                     " in the same VM* ||||||||||||" % (
                         emulated.MARK, md(emulated.how(of(emu[0])[0]),
                                           60)))
    for k in emu:
        lines.append(row(k, of(k)))
    b = (runs[0].get("budget") if runs else None) or {}
    hz = b.get("clock_hz")
    lines += ["", "Budget at %d B: %s cycles per packet at 10 GbE, %s at 100"
              " GbE (TSC %s GHz)." % (size, fmt(b.get("cycles_10g"), 1),
                                      fmt(b.get("cycles_100g"), 1),
                                      fmt(None if hz is None else hz / 1e9,
                                          2))]
    return "\n".join(lines)
