"""plots_draw.py - the three plots of plots.py, each a function of the
matplotlib Figure class and a results.json object that returns the
figure, or None when the results have no runs for it.
"""

from . import emulated, summary as S
from .plots import entries_of, footer, marks, plain_ticks, series, short
from .table import letters
from .text import safe

NINES = [(0.30103, "p50", "p50"), (1, "p90", "p90"), (2, "p99", "p99"),
         (3, "p999", "p99.9"), (4, "p9999", "p99.99"), (5, "max", "max")]


def _bars(results, workload, *figures):
    """(series drawn, sizes, entries) of WORKLOAD's rows with one of
    FIGURES."""
    ent = entries_of(results, workload)
    ent = {k: e for k, e in ent.items()
           if any(f in e["figures"] for f in figures)}
    sizes = sorted({k[1] for k in ent}, key=lambda s: s or 0)
    drawn = [s for s in series(results)
             if any((s["key"], z) in ent for z in sizes)]
    return drawn, sizes, ent


def _axes_for_bars(Figure, drawn, sizes, title, ylabel):
    """A figure and its panels of bars, x ticks set: [(axes, series)].
    Rows on an emulated CPU (emulated.py) get a panel of their own, with
    its own scale, to the right of the host's: their figures are not on
    the host's clock."""
    host = [s for s in drawn if not s["emulated"]]
    emu = [s for s in drawn if s["emulated"]]
    groups = [g for g in (host, emu) if g]
    nb = len(drawn) * len(sizes)
    width = min(max(12.8, 2 + 0.9 * (nb + len(sizes) * len(groups))), 24)
    fig = Figure(figsize=(width, 7.2))
    fig.suptitle(title, fontsize=17, y=0.985)
    weight = [max(len(g) * len(sizes) + len(sizes), 4) for g in groups]
    gap = 0.07
    room = 0.90 - gap * (len(groups) - 1)
    left, out = 0.07, []
    for g, wt in zip(groups, weight):
        w = room * wt / sum(weight)
        ax = fig.add_axes([left, 0.26, w, 0.60])
        left += w + gap
        ax.set_ylabel(ylabel if g is host or not host else
                      ylabel.split(" (")[0] + " (emulated)")
        if g is emu:
            ax.set_title("Soft-RoCE VM (%s): %s" % (
                g[0]["vm"], emulated.MARK), fontsize=10,
                color="#8B0000", pad=26)
        _ticks(ax, g, sizes, nb)
        out.append((ax, g))
    return fig, out


def _ticks(ax, drawn, sizes, nb):
    """The x ticks and frame-size labels of one panel."""
    ticks, labels = [], []
    for si, size in enumerate(sizes):
        for n, s in enumerate(drawn, 1):
            ticks.append(si * (len(drawn) + 1) + n)
            labels.append("(%s) %s" % (s["letter"], s["tic"]))
        mid = si * (len(drawn) + 1) + (len(drawn) + 1) / 2
        ax.text(mid, 1.01, "%s-byte frames" % safe(size, 8),
                transform=ax.get_xaxis_transform(), ha="center",
                va="bottom", fontsize=12)
    ax.set_xticks(ticks)
    ax.set_xticklabels(labels, fontsize=8 if nb > 12 else 10)
    ax.set_xlim(0, len(sizes) * (len(drawn) + 1))
    ax.grid(axis="y", linestyle=":", color="#b0b0b0")


def _x(si, n, drawn):
    """The x position of series number N (1-based) in size cluster SI."""
    return si * (len(drawn) + 1) + n


def _err(f):
    """matplotlib's yerr of spread F: [[below], [above]]."""
    return [[f["median"] - f["min"]], [f["max"] - f["median"]]]


def rate(Figure, results):
    """Receive rate by path and frame size: bars of the median kpps."""
    drawn, sizes, ent = _bars(results, "throughput", "kpps")
    if not drawn:
        return None
    tags = letters(results.get("summary") or
                   S.summarize(results.get("runs", [])))
    fig, panels = _axes_for_bars(
        Figure, drawn, sizes, "Receive rate by path and frame size",
        "received, thousand packets per second (kpps)")
    for ax, group in panels:
        _rate_panel(ax, group, sizes, ent, tags)
    footer(fig, results, "Throughput workload. Bars: the median of the"
           " trials; whiskers: min-max. ~x: not distinguishable from row x"
           " (their ranges overlap). Rate from the first to the last packet"
           " received; loss = sent - received." + (
               " White bars: reference tools (ours/ref: the ratio of the"
               " medians)." if any(s["ref"] for s in drawn) else ""))
    return fig


def _rate_panel(ax, drawn, sizes, ent, tags):
    """The bars of one rate panel."""
    values = [e["figures"]["kpps"] for (k, _), e in ent.items()
              if any(s["key"] == k for s in drawn)]
    lo = min(f["min"] for f in values)
    hi = max(f["max"] for f in values)
    if lo > 0 and hi > 30 * lo:
        ax.set_yscale("log")
        plain_ticks(ax.yaxis)
        ax.set_ylabel(ax.get_ylabel() + ", log scale")
    for si, size in enumerate(sizes):
        for n, s in enumerate(drawn, 1):
            e = ent.get((s["key"], size))
            if not e:
                continue
            f = e["figures"]["kpps"]
            x = _x(si, n, drawn)
            ax.bar(x, f["median"], 0.8, color="#ffffff" if s["ref"]
                   else s["colour"], edgecolor=s["colour"] if s["ref"]
                   else "#222222", hatch=s["hatch"] or ("//" if s["ref"]
                                                        else ""),
                   yerr=_err(f) if f["n"] > 1 else None, capsize=4)
            text = short(f["median"]) + "\n" + marks(e, "kpps", tags)
            loss = (e["figures"].get("loss") or {}).get("median") or 0
            if loss >= 0.005:
                text += "\n%d%% lost" % round(100 * loss)
            r = ((e.get("vs_ours") or {}).get("kpps") or {}).get("ratio")
            if r is not None:
                text += "\nours/ref %.2f" % r
            ax.annotate(text.rstrip("\n").replace("\n\n", "\n"),
                        (x, f["max"]), xytext=(0, 4),
                        textcoords="offset points", ha="center",
                        va="bottom", fontsize=9)


def _lat_runs(results):
    """{(row_key, size): [latency_ns of runs with samples]} and the rows
    whose latency runs had no samples."""
    have, missing = {}, set()
    for r in results.get("runs", []):
        if r.get("workload") != "latency" or not (r.get("received") or 0):
            continue
        lat = r.get("latency_ns") or {}
        k = (S.row_key(r), r.get("frame_bytes"))
        if (lat.get("count") or 0) > 0:
            have.setdefault(k, []).append(lat)
        else:
            missing.add(S.row_key(r))
    return have, missing - {k for k, _ in have}


def latency(Figure, results):
    """Latency percentiles by path: one panel per frame size."""
    have, missing = _lat_runs(results)
    if not have:
        return None
    sizes = sorted({z for _, z in have}, key=lambda s: s or 0)
    drawn = [s for s in series(results)
             if any((s["key"], z) in have for z in sizes)]
    ent = entries_of(results, "latency")
    tags = letters(results.get("summary") or
                   S.summarize(results.get("runs", [])))
    fig = Figure(figsize=(12.8, 7.2))
    fig.suptitle("Latency percentiles by path", fontsize=17)
    pw = (0.90 - 0.06 * (len(sizes) - 1)) / len(sizes)
    handles = []
    for p, size in enumerate(sizes):
        ax = fig.add_axes([0.07 + p * (pw + 0.06), 0.46, pw, 0.40])
        ax.set_title("%s-byte frames" % safe(size, 8), fontsize=13)
        ax.set_xscale("log")
        plain_ticks(ax.xaxis)
        ax.set_xlabel("latency, microseconds (log scale)")
        ax.set_yticks([y for y, _, _ in NINES])
        ax.set_yticklabels([t for _, _, t in NINES])
        ax.set_ylim(0, 5.3)
        ax.grid(linestyle=":", color="#b0b0b0")
        if p == 0:
            ax.set_ylabel("percentile")
        for s in drawn:
            lats = have.get((s["key"], size))
            if not lats:
                continue
            ys, med, lo, hi = [], [], [], []
            for y, k, _ in NINES:
                v = [l[k] / 1000 for l in lats if l.get(k) is not None]
                if v:
                    ys.append(y)
                    med.append(S.stats.median(v))
                    lo.append(min(v))
                    hi.append(max(v))
            line, = ax.plot(med, ys, marker=s["marker"], color=s["colour"],
                            linewidth=2.5, markersize=7,
                            linestyle="--" if s["ref"] else "-")
            if len(lats) > 1:
                ax.fill_betweenx(ys, lo, hi, color=s["colour"], alpha=0.15)
            e = ent.get((s["key"], size))
            m = marks(e, "latency_p99_ns", tags) if e else ""
            if m and len(med) > 2:
                ax.annotate(m, (med[2], ys[2]), xytext=(6, -4),
                            textcoords="offset points", fontsize=9)
            label = "(%s) %s" % (s["letter"], s["title"])
            if all(h[1] != label for h in handles):
                handles.append((line, label))
    fig.legend([h[0] for h in handles], [h[1] for h in handles],
               loc="lower center", bbox_to_anchor=(0.5, 0.13), ncol=3,
               fontsize=10, frameon=False)
    kinds = sorted({safe(l.get("kind") or "one-way", 20)
                    for v in have.values() for l in v})
    note = ("Latency workload, %s: the sender's TX stamp to the receiving"
            " application (CLOCK_MONOTONIC, one host); log-linear histogram,"
            " at most 1%% error. Curves: each percentile's median over the"
            " trials; band: min-max; ~x at p99: not distinguishable from row"
            " x." % " and ".join(kinds))
    if missing:
        names = [s["title"] for s in series(results) if s["key"] in missing]
        note += ("\nNo latency samples (nothing reaches user space): %s."
                 % ", ".join(names))
    footer(fig, results, note)
    return fig


def cpu(Figure, results):
    """Receive cost per packet on the receiving cores, stacked kernel and
    app, against the line-rate budget; all CPUs' cost as a circle."""
    drawn, sizes, ent = _bars(results, "throughput", "receive_cycles",
                              "system_cycles")
    if not drawn:
        return None
    from .plots_cpu import draw
    return draw(Figure, results, drawn, sizes, ent, _axes_for_bars, _x,
                _err)
