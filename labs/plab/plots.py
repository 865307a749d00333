"""plots.py - the plots of a results.json, drawn with matplotlib as SVG and
PNG: rate (grouped bars), latency (percentile curves) and cpu (receive
cost against the line-rate budget). Each bar or curve is a row's median;
the whiskers or the band are its min-max over the trials, and a row whose
range overlaps another's on the figure is marked with that row's letter
(the table's letters). Every string from results.json is drawn as plain
text: no mathtext (text.parse_math off), no TeX, escaped in the SVG.

  python3 labs/plab plots RESULTS_JSON OUTDIR
Status: 0 done (a plot without data is a warning), 1 failed, 77
matplotlib is missing.
"""

import os

from . import emulated, summary as S
from .table import letters
from .text import safe
from .util import say

NAMES = ("rate", "latency", "cpu")
# Path ids: names, short names and Okabe-Ito colours (safe for the common
# colour-vision deficiencies; hatches and names carry it too).
PATH_NAME = dict(S.PATH_NAMES)
PATH_SHORT = {"socket": "Kernel", "verbs": "RDMA"}
PATH_COLOUR = {"socket": "#0072B2", "xdp": "#E69F00", "afxdp": "#009E73",
               "dpdk": "#CC79A7", "verbs": "#D55E00"}
ENV_NAME = {"veth": "veth pair (no NIC)", "veth-vm": "veth in a VM",
            "veth-napi": "veth pair, NAPI on the receiving core",
            "veth-napi-vm": "veth in a VM, NAPI on the receiving core",
            "nic": "a real NIC", "vm-softroce": "Soft-RoCE in a VM"}
GPU_NAME = {"sim": "emulated GPU", "cuda": "CUDA GPU"}
HATCHES = ("", "//", "xx", "..", "\\\\", "++")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p")
NOTE_FONT = 9


def warn(msg):
    """Say a plot problem on stderr (plots never stop compare)."""
    say("pathlab: plots: " + msg, err=True)


def mpl():
    """matplotlib's Figure class, set up to draw text as text; None (and a
    warning) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        from matplotlib.figure import Figure
    except ImportError:
        warn("matplotlib is not installed (Debian: python3-matplotlib):"
             " no plots")
        return None
    matplotlib.rcParams.update({
        "text.parse_math": False, "text.usetex": False,
        "svg.fonttype": "none", "svg.hashsalt": "pathlab",
        "font.family": "DejaVu Sans", "font.size": 11,
        "axes.spines.top": False, "axes.spines.right": False})
    return Figure


def series(results):
    """The rows to draw, in figure order: [{key, label, title, tic, colour,
    hatch, marker, letter}]."""
    runs = results.get("runs", [])
    keys = sorted({S.row_key(r) for r in runs}, key=S.row_sort)
    emu = {S.row_key(r) for r in runs if not emulated.comparable(r)}
    soft = {S.row_key(r) for r in runs if emulated.in_vm(r)} - emu
    how = {S.row_key(r): emulated.how(r) for r in runs}
    tags = letters(results.get("summary") or S.summarize(runs))
    rank = {}
    out = []
    for n, k in enumerate(keys):
        path, mode, gpu, ref, place = k
        i = rank[path] = rank.get(path, -1) + 1
        name = safe(PATH_NAME.get(path, path), 24)
        title = "%s %s" % (name, safe(mode, 24))
        tic = "%s\n%s" % (safe(PATH_SHORT.get(path, PATH_NAME.get(
            path, path)), 24), safe(mode, 16))
        if gpu != "none":
            title += " + " + safe(GPU_NAME.get(gpu, gpu), 20)
            tic += "\n+ GPU " + safe(gpu, 10)
        if ref:
            title = "%s (reference for %s)" % (safe(ref, 20), title)
            tic = "%s\nref: %s" % (safe(ref, 16), tic.split("\n")[0])
        if place:
            title += " [%s]" % safe(place, 40)
            tic += "\n" + safe(place, 18)
        if k in soft:
            title += " (%s)" % emulated.SOFTWARE
            tic += "\n" + emulated.SOFTWARE
        label = S.row_label(k)
        out.append({"key": k, "label": label, "title": title, "tic": tic,
                    "letter": tags.get(label, "?"),
                    "colour": PATH_COLOUR.get(path, "#444444"),
                    "hatch": HATCHES[i % len(HATCHES)],
                    "marker": MARKERS[n % len(MARKERS)], "ref": bool(ref),
                    "emulated": k in emu, "vm": how.get(k, "")})
    return out


def environment(results):
    """Where and how the runs were made: the footnote of every plot."""
    h = results.get("host") or {}
    runs = results.get("runs", [])
    envs = sorted({safe(ENV_NAME.get(r.get("env"), r.get("env")), 60)
                   + (" (%s)" % emulated.how(r) if emulated.in_vm(r) else "")
                   for r in runs if r.get("env")})
    gpus = sorted({safe(GPU_NAME.get(r.get("gpu"), r.get("gpu")), 30)
                   for r in runs if (r.get("gpu") or "none") != "none"})
    s = "Measured on " + ", ".join(envs)
    if gpus:
        s += ", " + ", ".join(gpus)
    s += " | %s, %s CPUs" % (safe(h.get("cpu_model") or "unknown CPU", 60),
                             safe(h.get("cpus", "?"), 6))
    if (h.get("virtualization") or "none") != "none":
        s += " (%s)" % safe(h["virtualization"], 20)
    s += " | Linux %s" % safe(h.get("kernel", "?"), 40)
    date = safe(h.get("date") or "", 30).replace("T", " ").replace("Z",
                                                                 " UTC")
    s += " | %s | pathlab compare" % date
    if results.get("trials"):
        s += " | %s trials" % safe(results["trials"], 4)
    return s


def entries_of(results, workload):
    """{(row_key, frame_bytes): summary entry} of WORKLOAD."""
    out = {}
    for e in results.get("summary") or S.summarize(results.get("runs", [])):
        if e["workload"] == workload:
            key = (e["path"], e["mode"], e["gpu"], e.get("reference", ""),
                   e.get("placement", ""))
            out[(key, e["frame_bytes"])] = e
    return out


def marks(entry, fig, tags):
    """'~b,c' for the rows ENTRY cannot be told apart from on FIG."""
    nd = (entry.get("not_distinguishable") or {}).get(fig)
    return ("~" + ",".join(tags.get(x, "?") for x in nd)) if nd else ""


def short(v):
    """A count with k/M suffix, 2-3 significant digits."""
    if v is None:
        return "-"
    if v >= 1e6:
        return "%gM" % (round(v / 1e5) / 10)
    if v >= 1e4:
        return "%dk" % round(v / 1e3)
    if v >= 1e3:
        return "%gk" % (round(v / 1e2) / 10)
    if v >= 10:
        return "%d" % round(v)
    return "%g" % (round(v * 10) / 10)


def plain_ticks(axis):
    """Write a log AXIS's ticks plainly (1k, 10k, ...): its default labels
    are mathtext, which plots leave off."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    axis.set_major_formatter(FuncFormatter(lambda v, _: short(v)))
    axis.set_minor_formatter(NullFormatter())


def footer(fig, results, note):
    """The note and the environment line at the bottom of FIG."""
    fig.text(0.01, 0.012, environment(results), fontsize=NOTE_FONT,
             color="#333333", ha="left", va="bottom")
    fig.text(0.01, 0.045, note, fontsize=NOTE_FONT, color="#333333",
             ha="left", va="bottom", wrap=True)


def save(fig, out, name):
    """Write FIG as OUT/NAME.svg and .png (via .tmp files); the names."""
    done = []
    for fmt in ("svg", "png"):
        path = os.path.join(out, "%s.%s" % (name, fmt))
        with open(path + ".tmp", "wb") as f:
            fig.savefig(f, format=fmt, dpi=100, facecolor="#ffffff",
                        metadata={"Date": None} if fmt == "svg" else None)
        os.replace(path + ".tmp", path)
        done.append(os.path.basename(path))
    return done


def write(results, out):
    """Draw every plot of RESULTS that has data into OUT; the status."""
    from . import plots_draw
    Figure = mpl()
    if Figure is None:
        return 77
    os.makedirs(out, exist_ok=True)
    written, rc = [], 0
    for name in NAMES:
        try:
            fig = getattr(plots_draw, name)(Figure, results)
            if fig is None:
                warn("no runs for the %s plot" % name)
                continue
            written += save(fig, out, name)
        except Exception as e:  # a plot must never stop compare
            warn("%s failed: %s" % (name, e))
            rc = 1
    if written:
        say("pathlab: plots: %s in %s" % (" ".join(written), out))
    return rc
