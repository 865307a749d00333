"""table.py - the tables of a results.json: the comparison (one line per
row and workload and frame size, each figure as median (min-max) of its
trials, marked where rows cannot be told apart), one line per run (every
trial, as runs.txt), and the cycle budget per frame size.
"""

from . import emulated, summary as S
from .paths import WORKLOADS
from .text import columns, fixed, grouped, safe, us

# The columns of each workload's section: (header, figure, format).
COLS = {
    "throughput": [("kpps", "kpps", lambda v: fixed(v, 1)),
                   ("lost %", "loss", lambda v: fixed(100 * v, 1)),
                   ("recv cyc/pkt", "receive_cycles", grouped),
                   ("kernel", "receive_kernel", grouped),
                   ("app", "receive_app", grouped),
                   ("core cyc/pkt", "core_cycles", grouped),
                   ("sys+gen cyc/pkt", "system_cycles", grouped),
                   ("syscalls/pkt", "syscalls", lambda v: fixed(v, 3))],
    "latency": [("p50 us", "latency_p50_ns", us),
                ("p99 us", "latency_p99_ns", us),
                ("p99.9 us", "latency_p999_ns", us),
                ("lost %", "loss", lambda v: fixed(100 * v, 1))],
    "visibility": [("tcpdump saw", "tcpdump_seen", grouped),
                   ("lost %", "loss", lambda v: fixed(100 * v, 1))],
    "rtt": [("p50 us", "rtt_p50_ns", us), ("p99 us", "rtt_p99_ns", us),
            ("p99.9 us", "rtt_p999_ns", us)],
}
TITLES = {
    "throughput": "throughput: as fast as the sender goes",
    "latency": "latency: one-way, paced, the sender's stamp to the"
               " receiving application",
    "visibility": "visibility: paced, tcpdump on the receiving interface",
    "rtt": "rtt: whole round trips on the sender's clock",
}


def cell(fig, fmt):
    """A figure's cell: the median, and (min-max) when it has a spread."""
    if not fig:
        return "-"
    m = fmt(fig["median"])
    if fig["n"] > 1:
        lo, hi = fmt(fig["min"]), fmt(fig["max"])
        m += " (%s)" % lo if lo == hi else " (%s-%s)" % (lo, hi)
    return m


def letters(entries):
    """{row label: letter}, a letter per row in table order."""
    out = {}
    for e in entries:
        if e["row"] not in out:
            n = len(out)
            out[e["row"]] = (chr(ord("a") + n) if n < 26
                             else "r%d" % n)
    return out


def unattr_cell(e):
    """The unattributed lost packets over the trials: '0', or min..max."""
    f = e["figures"].get("unattributed")
    if not f:
        return "-"
    lo, hi = fixed(f["min"], 0), fixed(f["max"], 0)
    return lo if lo == hi else "%s..%s" % (lo, hi)


def section(entries, workload, size, tags):
    """The lines of one (workload, size) section: the host's rows, then
    those on an emulated CPU under a line that says so."""
    cols = COLS.get(workload, [])
    n = max(e["trials"] for e in entries)
    head = ["", "row", "env", "n"] + [c[0] for c in cols]
    if workload == "throughput":
        head.append("unattr")
    rows = [head]
    host, emu = emulated.split(entries)
    entries = host + emu
    for e in entries:
        r = [tags[e["row"]], safe(e["row"], 56), emulated.env_text(e, 16),
             str(e["trials"])]
        for _, name, fmt in cols:
            c = cell(e["figures"].get(name), fmt)
            nd = e.get("not_distinguishable", {}).get(name)
            if nd and len(nd) == len(entries) - 1 and len(nd) > 2:
                c += " ~all"
            elif nd:
                c += " ~" + ",".join(tags[x] for x in nd)
            r.append(c)
        if workload == "throughput":
            r.append(unattr_cell(e))
        if e.get("contended"):
            r[1] += " (contended)"
        elif e.get("machine_busy"):
            r[1] += " (busy)"
        rows.append(r)
    right = [False, False, False, True] + [True] * (len(head) - 4)
    lines = ["%s; %s B frames; median (min-max) of up to %d trial%s"
             % (TITLES.get(workload, workload), size, n,
                "" if n == 1 else "s")]
    body = ["  " + l for l in columns(rows, right)]
    if emu:
        body.insert(1 + len(host), "  -- rows below: %s (Soft-RoCE VM:"
                    " %s) --" % (emulated.MARK, emulated.how(emu[0])))
    return lines + body


def ratio_text(vs):
    """'kpps 1.85 (ranges separate), ...' of a {figure: {ratio,
    separate}} object."""
    def word(v):
        if v.get("trials", 2) < 2:
            return "one trial: no spread to judge by"
        return "ranges separate" if v["separate"] else "not distinguishable"
    return ", ".join("%s %.2f (%s)" % (name, v["ratio"], word(v))
                     for name, v in vs.items() if v["ratio"] is not None)


def reference_lines(entries):
    """One line per reference row and row it is compared with: the ratio
    ours/reference on the medians, and whether the ranges separate."""
    out = []
    for e in emulated.split(entries)[0] + emulated.split(entries)[1]:
        pairs = [(e.get("ours"), e.get("vs_ours") or {})] + [
            (a["row"], a["vs"]) for a in e.get("vs_also", [])]
        for row, vs in pairs:
            text = ratio_text(vs)
            if row and text:
                out.append("  %s / %s at %s B: %s%s" % (
                    safe(row, 56), safe(e["reference"]), e["frame_bytes"],
                    text, "" if emulated.comparable(e) else
                    " (same VM: the figure to read)"))
    return out


def busy_lines(entries):
    """Why rows were measured on a busy machine: one line when every row
    was, else one per busy row (its first reason)."""
    busy = [e for e in entries if e.get("machine_busy")]
    if not busy:
        return []
    if len(busy) == len(entries) and len(entries) > 1:
        n = sum(e["machine_busy"] for e in busy)
        t = sum(e["trials"] for e in busy)
        return ["  busy: %d of %d runs of this section, every row (e.g. %s)"
                % (n, t, safe(busy[0]["machine_busy_why"][0], 200))]
    return ["  busy: %s, %s B: %d of %d trials (%s)" % (
        safe(e["row"], 56), e["frame_bytes"], e["machine_busy"], e["trials"],
        safe(e["machine_busy_why"][0], 200)) for e in busy]


def comparison(results):
    """The comparison table of RESULTS (a results.json object), lines."""
    entries = results.get("summary") or S.summarize(results.get("runs", []))
    tags = letters(entries)
    lines = []
    vm = next((e for e in entries if emulated.in_vm(e)), None)
    if vm is not None:
        lines.append(emulated.meaning(dict(emulated.vm_of(vm) or {},
                                           accel=emulated.accel(vm))))
    cells = []
    for e in entries:
        c = (e["workload"], e["frame_bytes"])
        if c not in cells:
            cells.append(c)
    for wl, size in cells:
        es = [e for e in entries
              if e["workload"] == wl and e["frame_bytes"] == size]
        lines += section(es, wl, size, tags) + reference_lines(es)
        lines += busy_lines(es) + [""]
    if any(e.get("not_distinguishable") for e in entries):
        lines.append("~x: not distinguishable from row x on that figure"
                     " (~all: from every other row); their min-max ranges"
                     " overlap: a difference inside run-to-run noise is no"
                     " difference")
    if any(e["workload"] == "rtt" for e in entries):
        lines.append("rtt rows: p50/p99/p99.9 are whole round trips on the"
                     " sender's clock (sockperf and perftest print half of"
                     " one); latency rows: one-way")
    if any(e.get("machine_busy") for e in entries):
        lines.append("(busy): some trials ran while the machine was busy"
                     " (load above the CPU count, hypervisor steal above"
                     " 10 %, or a contended receiver): their figures"
                     " include other work")
    if any(e.get("contended") for e in entries):
        lines.append("(contended): in some trials the receiver or veth's"
                     " NAPI thread waited for a CPU more than 10 % of the"
                     " run (schedstat run_delay): two of them took turns on"
                     " one core, and its latency and cost include the wait;"
                     " [...] names where NAPI ran (compare --napi)")
    if any(not e.get("reference") and "receive_app" in e["figures"]
           and "receive_cycles" not in e["figures"] for e in entries):
        lines.append("recv cyc/pkt, kernel '-': the kernel's receive work"
                     " ran where no per-thread account sees it (in softirq"
                     " on the sending CPUs: more than one queue); the"
                     " loop's own part is under app; compare sys+gen, which"
                     " counts every CPU")
    if any(e.get("reference") for e in entries):
        lines.append("core cyc/pkt: the receiving process and the NAPI"
                     " threads, idle polling included, x TSC / received"
                     " (ours: the receiver's whole run; a reference tool:"
                     " its traffic and drain, measured by compare); recv"
                     " cyc/pkt leaves a busy poller's empty polls out")
    return lines + budgets(results.get("runs", []))


def budgets(runs):
    """One line per frame size: the cycles a core has per packet."""
    seen = {}
    for r in runs:
        if r.get("budget") and r.get("frame_bytes") not in seen:
            seen[r["frame_bytes"]] = r["budget"]
    out = []
    for size in sorted(seen, key=lambda s: s or 0):
        b = seen[size]
        out.append("budget %s B at %s GHz: 10 GbE %s cycles/pkt, 100 GbE %s"
                   " cycles/pkt" % (size, fixed((b.get("clock_hz") or 0)
                                                / 1e9, 2),
                                    fixed(b.get("cycles_10g"), 1),
                                    fixed(b.get("cycles_100g"), 1)))
    return out


RUN_HEAD = ["path", "mode", "gpu", "env", "frame B", "q", "workload",
            "trial", "sent", "received", "lost", "unattr", "kpps", "Gbit/s",
            "p50 us", "p99 us", "p99.9 us", "recv cyc/pkt", "kernel", "app",
            "sys+gen cyc/pkt", "syscalls/pkt", "copies/pkt", "Udp InDgrams",
            "link rx", "tcpdump seen", "busy", "placement", "rx wait %",
            "napi wait %"]


def run_row(r):
    """The cells of one run."""
    lat = r.get("workload") == "latency" and \
        (r.get("latency_ns") or {}).get("count", 1) > 0
    pct = r.get("rtt_ns") or (r.get("latency_ns") if lat else None) or {}
    rc = r.get("receive_cycles_per_packet") or {}
    name = r.get("path", "?") if not r.get("reference") else \
        "%s:%s" % (r["reference"], r.get("path", "?"))
    return [safe(name), safe(r.get("mode")), safe(r.get("gpu") or "none"),
            emulated.env_text(r), fixed(r.get("frame_bytes"), 0),
            fixed(r.get("queue_count") or 1, 0), safe(r.get("workload")),
            fixed(r.get("trial"), 0), fixed(r.get("sent"), 0),
            fixed(r.get("received"), 0), fixed(r.get("lost"), 0),
            fixed(r.get("unattributed"), 0),
            fixed(None if r.get("pps") is None else r["pps"] / 1000, 1),
            fixed(r.get("gbps"), 3), us(pct.get("p50")), us(pct.get("p99")),
            us(pct.get("p999")), fixed(rc.get("total"), 0),
            fixed(rc.get("kernel"), 0), fixed(rc.get("app"), 0),
            fixed((r.get("cycles_per_packet") or {}).get("system"), 0),
            fixed(r.get("syscalls_per_packet"), 3),
            fixed(r.get("copies_per_packet"), 2),
            fixed(r.get("kernel_udp_in_datagrams"), 0),
            fixed(r.get("link_rx_packets"), 0),
            fixed(r.get("tcpdump_seen"), 0)
            if r.get("workload") == "visibility" else "-",
            "busy" if r.get("machine_busy") else "-",
            safe((r.get("placement") or {}).get("label") or "-"),
            pct_cell((r.get("run_delay") or {}).get("receiver_share")),
            pct_cell((r.get("run_delay") or {}).get("napi_share"))]


def pct_cell(share):
    """A share as a percentage with one decimal, '-' when absent."""
    return "-" if share is None else "%.1f" % (100 * share)


def runs_table(results):
    """One line per run (every trial), lines."""
    runs = sorted(results.get("runs", []), key=lambda r: (
        WORKLOADS.index(r["workload"]) if r.get("workload") in WORKLOADS
        else 9, r.get("frame_bytes") or 0, S.row_sort(S.row_key(r)),
        r.get("trial") or 0))
    right = [i in (4, 5) or i >= 7 for i in range(len(RUN_HEAD))]
    return columns([RUN_HEAD] + [run_row(r) for r in runs], right)
