"""summary.py - results.json's "summary": one object per row (path, mode,
GPU kind, reference tool, placement) and workload and frame size, with
each figure as the median and min-max of its trials, the rows it cannot
be told apart from on that figure, and for a reference tool's row the
ratio ours/reference and whether the ranges separate.
"""

from . import emulated, stats
from .paths import WORKLOADS

# The figures of each workload the summary keeps, and among them (first
# in each tuple) the ones rows are compared on: marked "not
# distinguishable" where ranges overlap, with ratios against references.
WORKLOAD_FIGURES = {
    "throughput": ("kpps", "receive_cycles", "core_cycles", "system_cycles",
                   "receive_kernel", "receive_app", "syscalls"),
    "latency": ("latency_p50_ns", "latency_p99_ns", "latency_p999_ns"),
    "visibility": ("tcpdump_seen",),
    "rtt": ("rtt_p50_ns", "rtt_p99_ns", "rtt_p999_ns"),
}
COMPARED = {"throughput": 4, "latency": 3, "visibility": 0, "rtt": 3}


def compared(workload):
    """The figures rows of WORKLOAD are compared on."""
    return WORKLOAD_FIGURES.get(workload, ())[:COMPARED.get(workload, 0)]
# Figures every row of every workload keeps in the summary.
ALWAYS = ("kpps", "gbps", "loss", "unattributed", "receive_cycles",
          "system_cycles")
PATH_NAMES = {"socket": "Kernel stack", "xdp": "XDP", "afxdp": "AF_XDP",
              "dpdk": "DPDK", "verbs": "RDMA verbs"}
PATH_ORDER = ("socket", "xdp", "afxdp", "dpdk", "verbs")


def placement_label(run):
    """The placement's short label (issue 23's run.placement), or ""."""
    p = run.get("placement")
    return p.get("label", "") if isinstance(p, dict) else ""


def row_key(run):
    """The row a run belongs to: (path, mode, gpu, reference, placement)."""
    return (run.get("path", "?"), run.get("mode", "?"),
            run.get("gpu") or "none", run.get("reference") or "",
            placement_label(run))


def row_label(key):
    """A row's name in words: 'socket recvmmsg', 'sockperf (socket
    recvmmsg)', '... +gpu sim', '... [placement]'."""
    path, mode, gpu, ref, place = key
    s = "%s %s" % (path, mode)
    if gpu != "none":
        s += " +gpu " + gpu
    if ref:
        s = "%s (vs %s)" % (ref, s)
    if place:
        s += " [%s]" % place
    return s


def row_sort(key):
    """Order rows as the figure does: path order, modes in the path
    table's order, each row's GPU variant and reference tools after it."""
    from . import paths
    path, mode = key[0], key[1]
    rank = PATH_ORDER.index(path) if path in PATH_ORDER else len(PATH_ORDER)
    modes = [r.mode for r in paths.rows_of(path)]
    m = modes.index(mode) if mode in modes else len(modes)
    return (rank, m, mode, key[3] != "", key[4], key[3], key[2] != "none",
            key[2])


def group(runs):
    """{(workload, frame_bytes): {row_key: [runs]}}, in first-seen order."""
    out = {}
    for r in runs:
        cell = (r.get("workload", "?"), r.get("frame_bytes"))
        out.setdefault(cell, {}).setdefault(row_key(r), []).append(r)
    return out


def figures_of(runs, workload):
    """{figure: spread} of RUNS for the figures of WORKLOAD (and ALWAYS)."""
    names = list(ALWAYS) + [f for f in WORKLOAD_FIGURES.get(workload, ())
                            if f not in ALWAYS]
    out = {}
    for name in names:
        s = stats.spread([stats.figure(r, name) for r in runs])
        if s is not None:
            out[name] = s
    return out


def _entry(key, workload, size, runs):
    """The summary object of one row in one (workload, size) cell."""
    path, mode, gpu, ref, place = key
    e = {"path": path, "mode": mode, "gpu": gpu, "workload": workload,
         "frame_bytes": size, "row": row_label(key),
         "env": runs[0].get("env"), "trials": len(runs),
         "figures": figures_of(runs, workload)}
    if ref:
        e["reference"] = ref
        e["tool"] = runs[0].get("tool")
    if place:
        e["placement"] = place
    e["comparable_with_host"] = all(emulated.comparable(r) for r in runs)
    vm = emulated.vm_of(runs[0])
    if vm:
        e["vm"] = {k: vm[k] for k in ("accel", "cpus", "kernel") if k in vm}
    busy = [r for r in runs if r.get("machine_busy")]
    e["machine_busy"] = len(busy)
    e["contended"] = sum(1 for r in runs if r.get("contended") is True)
    if busy:
        e["machine_busy_why"] = sorted({r.get("machine_busy_why", "")
                                        for r in busy})
    return e


def _mark_overlaps(entries, workload):
    """Give each entry not_distinguishable: {figure: [rows]} for the
    figures of WORKLOAD where its range overlaps another row's. Rows on an
    emulated CPU are compared among themselves only: an overlap with a
    host row would be a coincidence of two different clocks."""
    names = compared(workload)
    for e in entries:
        nd = {}
        for name in names:
            a = e["figures"].get(name)
            if not a or a["n"] < 2:
                continue
            for o in entries:
                b = o["figures"].get(name)
                if o is e or not b or b["n"] < 2 or \
                        emulated.comparable(o) != emulated.comparable(e):
                    continue
                if stats.overlap(a, b):
                    nd.setdefault(name, []).append(o["row"])
        e["not_distinguishable"] = nd


def _vs(o, e, workload):
    """{figure: {ratio, separate}} of our row O against reference row E."""
    vs = {}
    for name in compared(workload):
        a, b = o["figures"].get(name), e["figures"].get(name)
        if a and b:
            vs[name] = {"ratio": stats.ratio(a, b),
                        "separate": stats.separate(a, b),
                        "trials": min(a["n"], b["n"])}
    return vs


def _mark_references(entries, workload, also):
    """Give each reference row ours (the row it stands beside) and vs_ours:
    {figure: {ratio, separate}}, ratio = ours / reference on the medians;
    vs_also the same for the other rows it is compared with (ALSO:
    {row label: [(path, mode)]})."""
    ours = {(e["path"], e["mode"], e["gpu"], e.get("placement", "")): e
            for e in entries if not e.get("reference")}
    # A reference tool reports no placement of its own: it stands beside
    # our row of its path and mode when that row has only one.
    only = {}
    for k, e in ours.items():
        only.setdefault(k[:3], []).append(e)
    for k, es in only.items():
        ours.setdefault(k + ("",), es[0] if len(es) == 1 else None)
    for e in entries:
        if not e.get("reference"):
            continue
        place = e.get("placement", "")
        o = ours.get((e["path"], e["mode"], e["gpu"], place))
        if o is not None:
            e["ours"] = o["row"]
            e["vs_ours"] = _vs(o, e, workload)
        for path, mode in also.get(e["row"], []):
            o = ours.get((path, mode, e["gpu"], place))
            if o is not None:
                e.setdefault("vs_also", []).append(
                    {"row": o["row"], "vs": _vs(o, e, workload)})


def summarize(runs):
    """results.json's summary list from its runs."""
    out = []
    cells = group(runs)
    also = {}
    for r in runs:
        for a in r.get("also_compared_with") or []:
            pair = (a.get("path"), a.get("mode"))
            lst = also.setdefault(row_label(row_key(r)), [])
            if pair not in lst:
                lst.append(pair)
    for (workload, size) in sorted(cells, key=cell_sort):
        rows = cells[(workload, size)]
        entries = [_entry(k, workload, size, rows[k])
                   for k in sorted(rows, key=row_sort)]
        _mark_overlaps(entries, workload)
        _mark_references(entries, workload, also)
        out += entries
    return out


def cell_sort(cell):
    """Order (workload, size) cells: workloads as tables show them, then
    frame size."""
    wl, size = cell
    rank = WORKLOADS.index(wl) if wl in WORKLOADS else len(WORKLOADS)
    return (rank, size or 0)
