"""plots_cpu.py - the cpu plot: the receive cost per packet on the
receiving cores, the kernel part (the link's NAPI threads) and the app
part (the receive loop's useful time) stacked, whiskers over the total's
min-max, all CPUs' cost (generator included) as a circle, against the
cycles a core has per packet at 10 and 100 GbE.
"""

from . import emulated, summary as S
from .plots import footer, marks, plain_ticks, short
from .table import letters


def _budgets(results, sizes):
    """{size: budget object} of the first run of each frame size."""
    out = {}
    for r in results.get("runs", []):
        z = r.get("frame_bytes")
        if z in sizes and r.get("budget") and z not in out:
            out[z] = r["budget"]
    return out


def draw(Figure, results, drawn, sizes, ent, axes_for_bars, xpos, err):
    """The cpu figure (see the top of the file)."""
    tags = letters(results.get("summary") or
                   S.summarize(results.get("runs", [])))
    fig, panels = axes_for_bars(
        Figure, drawn, sizes, "Receive cost per packet on the receiving"
        " cores, against the line-rate budget",
        "CPU cycles per packet (TSC-equivalent, log scale)")
    first = {"kernel": True, "app": True, "sys": True}
    for ax, group in panels:
        ax.set_yscale("log")
        plain_ticks(ax.yaxis)
        lows = _bars(ax, group, sizes, ent, tags, xpos, err, first)
        # The budget is the host's clock at line rate: not the emulator's.
        if not group[0]["emulated"]:
            lows += _budget_lines(ax, results, group, sizes, xpos)
        if lows:
            ax.set_ylim(bottom=min(lows) / 3)
    fig.legend(loc="lower center", bbox_to_anchor=(0.5, 0.095), ncol=5,
               fontsize=10, frameon=False)
    note = ("Bars: the path's cost on the receiving cores = the link's NAPI"
            " threads (kernel: driver, XDP, GRO, IP, UDP; Soft-RoCE: also"
            " rxe's transport) + the receive loop's useful time (app; no"
            " idle polling), x TSC rate / packets; medians of the trials,"
            " whiskers: min-max of the total; ~x: not distinguishable from"
            " row x.\nCircle: all CPUs' busy time, pathlab-gen included."
            " Budget: cycles per packet at line rate, (frame + 20 B) x 8"
            " bit-times at the TSC rate.")
    if any(s["emulated"] for s in drawn):
        note += (" Right panel: the guest's CPU time under TCG, %s: no"
                 " budget there." % emulated.MARK)
    footer(fig, results, note)
    return fig


def _bars(ax, drawn, sizes, ent, tags, xpos, err, first):
    """The stacked bars and circles of one panel; the lowest values."""
    lows = []
    for si, size in enumerate(sizes):
        for n, s in enumerate(drawn, 1):
            e = ent.get((s["key"], size))
            if not e:
                continue
            f = e["figures"]
            x = xpos(si, n, drawn)
            k = (f.get("receive_kernel") or {}).get("median") or 0
            a = (f.get("receive_app") or {}).get("median") or 0
            tot = f.get("receive_cycles") or {"median": 0, "min": 0,
                                               "max": 0, "n": 0}
            lows += [v for v in (k, a, tot["min"]) if v > 0]
            ax.bar(x, k, 0.8, color="#333333", hatch="\\\\",
                   edgecolor="#222222",
                   label="kernel: NAPI thread (receiving core)"
                   if first["kernel"] else None)
            ax.bar(x, a, 0.8, bottom=k, color="#a8a8a8", hatch="//",
                   edgecolor="#222222", yerr=err(tot) if tot["n"] > 1
                   else None, capsize=4,
                   label="app: receive loop, useful time"
                   if first["app"] else None)
            first["kernel"] = first["app"] = False
            if tot["n"]:
                ax.annotate((short(tot["median"]) + " "
                             + marks(e, "receive_cycles", tags)).strip(),
                            (x, max(tot["max"], k + a)), xytext=(0, 4),
                            textcoords="offset points", ha="center",
                            va="bottom", fontsize=9)
            sysf = f.get("system_cycles")
            if sysf:
                lows.append(sysf["min"])
                ax.errorbar(x, sysf["median"], yerr=err(sysf)
                            if sysf["n"] > 1 else None, fmt="o",
                            markersize=11, markerfacecolor="#ffffff",
                            markeredgecolor="#000000", markeredgewidth=2,
                            ecolor="#000000", capsize=3,
                            label="all CPUs, generator included"
                            if first["sys"] else None)
                first["sys"] = False
                ax.annotate(short(sysf["median"]), (x, sysf["median"]),
                            xytext=(10, 0), textcoords="offset points",
                            va="center", fontsize=9,
                            bbox={"boxstyle": "square,pad=0.1",
                                  "fc": "#ffffff", "ec": "none"})
    return lows


def _budget_lines(ax, results, drawn, sizes, xpos):
    """The 10 and 100 GbE budget lines of each size; their values."""
    lows = []
    for si, size in enumerate(sizes):
        b = _budgets(results, sizes).get(size)
        if not b:
            continue
        x0, x1 = xpos(si, 0.5, drawn), xpos(si, len(drawn) + 0.5, drawn)
        for key, style, colour, name in (
                ("cycles_10g", "--", "#D55E00", "10 GbE"),
                ("cycles_100g", ":", "#0072B2", "100 GbE")):
            v = b.get(key)
            if not v:
                continue
            lows.append(v)
            ax.hlines(v, x0, x1, linestyles=style, colors=colour,
                      linewidth=2.5, label="%s budget" % name
                      if si == 0 else None)
            ax.text(x1, v, " %s: %s" % (name, short(v)), color=colour,
                    va="center", fontsize=9)
    return lows
