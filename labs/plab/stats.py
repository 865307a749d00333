"""stats.py - the numbers compare computes once, in one place: each
figure of a run, the median and min-max of the trials of one row, which
rows cannot be told apart on a figure (their min-max ranges overlap),
ratios ours/reference, and whether the machine was busy during a run.
"""

import os
import time


def median(xs):
    """The median of the numbers XS (None for none)."""
    v = sorted(x for x in xs if x is not None)
    if not v:
        return None
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def spread(xs):
    """{median, min, max, n} of the numbers XS; None values are left out."""
    v = [x for x in xs if x is not None]
    if not v:
        return None
    return {"median": median(v), "min": min(v), "max": max(v), "n": len(v)}


def _get(run, *keys):
    """run[k1][k2]..., None where any is missing."""
    for k in keys:
        if not isinstance(run, dict):
            return None
        run = run.get(k)
    return run


def _lat(pct):
    """The one-way latency percentile PCT of a run that has samples."""
    def get(r):
        if (_get(r, "latency_ns", "count") or 0) > 0:
            return _get(r, "latency_ns", pct)
        return None
    return get


def _per_kpps(r):
    """Received packets per second, in thousands."""
    return None if r.get("pps") is None else r["pps"] / 1000


def _loss(r):
    """The share of the sent packets that was lost."""
    if not r.get("sent"):
        return None
    return (r.get("lost") or 0) / r["sent"]


def core_cycles(r):
    """The receiving core's cycles per packet, idle polling included: a
    reference tool's as the harness measured it; ours from the report,
    the whole receiver process and the NAPI threads x TSC / received."""
    if r.get("core_cycles_per_packet") is not None:
        return r["core_cycles_per_packet"]
    hz = _get(r, "budget", "clock_hz")
    rx = _get(r, "cpu", "rx_run_s")
    if not hz or rx is None or not r.get("received"):
        return None
    napi = sum(n.get("run_s") or 0 for n in r.get("napi") or [])
    return (rx + napi) * hz / r["received"]


# The figures of a run: name -> (what it is, how to read it from a run).
# The table, the plots, the figure and docs read these names.
FIGURES = {
    "kpps": ("received, thousand packets per second", _per_kpps),
    "gbps": ("received, Gbit/s", lambda r: r.get("gbps")),
    "loss": ("share of the sent packets lost", _loss),
    "unattributed": ("lost packets no counter explains",
                     lambda r: r.get("unattributed")),
    "latency_p50_ns": ("one-way latency p50, ns", _lat("p50")),
    "latency_p99_ns": ("one-way latency p99, ns", _lat("p99")),
    "latency_p999_ns": ("one-way latency p99.9, ns", _lat("p999")),
    "rtt_p50_ns": ("round trip p50, ns",
                   lambda r: _get(r, "rtt_ns", "p50")),
    "rtt_p99_ns": ("round trip p99, ns",
                   lambda r: _get(r, "rtt_ns", "p99")),
    "rtt_p999_ns": ("round trip p99.9, ns",
                    lambda r: _get(r, "rtt_ns", "p999")),
    "receive_cycles": ("receive cycles per packet on the receiving cores",
                       lambda r: _get(r, "receive_cycles_per_packet",
                                      "total")),
    "receive_kernel": ("of which the kernel (NAPI threads)",
                       lambda r: _get(r, "receive_cycles_per_packet",
                                      "kernel")),
    "receive_app": ("of which the receive loop",
                    lambda r: _get(r, "receive_cycles_per_packet", "app")),
    "core_cycles": ("cycles per packet of the receiving process and the"
                    " NAPI threads, idle polling included", core_cycles),
    "system_cycles": ("all CPUs' cycles per packet, generator included",
                      lambda r: _get(r, "cycles_per_packet", "system")),
    "syscalls": ("system calls per packet",
                 lambda r: r.get("syscalls_per_packet")),
    "tcpdump_seen": ("packets tcpdump captured",
                     lambda r: r.get("tcpdump_seen")),
}

# The figure that says a row is better when it is larger (a rate); for
# the others smaller is better. Only used to word ratios.
LARGER_IS_BETTER = {"kpps", "gbps", "tcpdump_seen"}


def figure(run, name):
    """Figure NAME of RUN, or None when the run lacks it."""
    v = FIGURES[name][1](run)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) \
        else None


def overlap(a, b):
    """True if spreads A and B ({min, max}) overlap: not distinguishable."""
    return a["min"] <= b["max"] and b["min"] <= a["max"]


def separate(a, b):
    """True if A and B were measured more than once each and their
    min-max ranges do not overlap."""
    return a["n"] > 1 and b["n"] > 1 and not overlap(a, b)


def ratio(a, b):
    """The ratio of the medians A / B, None when B's is 0 or missing."""
    if not a or not b or not b["median"]:
        return None
    return a["median"] / b["median"]


def cpu_ticks():
    """(total, steal) jiffies of all CPUs, from /proc/stat's cpu line."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is in user)
    return sum(v[:8]), (v[7] if len(v) > 7 else 0)


def busy_share(before, after):
    """The share of all CPUs' time that was busy between two /proc/stat
    cpu lines (lists of jiffies: user nice system idle iowait ...)."""
    d = [b - a for a, b in zip(before, after)]
    total = sum(d[:8])
    idle = d[3] + (d[4] if len(d) > 4 else 0)
    return (total - idle) / total if total > 0 else 0.0


def background_cpus(seconds=2.0):
    """How many CPUs other work keeps busy: the busy share of every CPU
    over SECONDS while the lab sends nothing, times the CPU count. The
    1-minute load average cannot tell this right after the lab's own
    runs, which it still counts for a minute or more."""
    def line():
        with open("/proc/stat") as f:
            return [int(x) for x in f.readline().split()[1:]]
    before = line()
    time.sleep(seconds)
    return round(busy_share(before, line()) * (os.cpu_count() or 1), 3)


def loadavg():
    """The 1-minute load average."""
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class Busy:
    """Was the machine busy during one run? The 1-minute load average at
    its start and end, against the CPU count, and the hypervisor's steal
    over it (/proc/stat)."""

    STEAL_LIMIT = 0.10

    def __init__(self, cpus):
        self.cpus = cpus
        self.load_start = loadavg()
        self.ticks = cpu_ticks()

    def finish(self, run):
        """Add busy, machine_busy and machine_busy_why to RUN."""
        load_end = loadavg()
        t0, s0 = self.ticks
        t1, s1 = cpu_ticks()
        steal = (s1 - s0) / (t1 - t0) if t1 > t0 else 0.0
        run["busy"] = {"loadavg_start": self.load_start,
                       "loadavg_end": load_end,
                       "steal_share": round(steal, 4), "cpus": self.cpus}
        mark(run)
        return run


def busy_why(run):
    """Why RUN was measured on a busy machine, in words; "" if it was not.
    Reads busy (load, steal) and, where present, contended (the receiver's
    or NAPI thread's wait for a CPU)."""
    why = []
    b = run.get("busy") or {}
    cpus = b.get("cpus") or 0
    la = [(w, b.get("loadavg_" + w)) for w in ("start", "end")]
    over = [(w, v) for w, v in la if cpus and v is not None and v > cpus]
    if over:
        why.append("load average %s, over %d CPUs" % (" and ".join(
            "%.2f at the %s" % (v, w) for w, v in over), cpus))
    steal = b.get("steal_share")
    if steal is not None and steal > Busy.STEAL_LIMIT:
        why.append("hypervisor steal %.0f %% of the run" % (100 * steal))
    if run.get("contended") is True:
        why.append("the receiver or its NAPI thread waited for a CPU"
                   " (contended)")
    return "; ".join(why)


def mark(run):
    """Set RUN's machine_busy and machine_busy_why from what it holds."""
    why = busy_why(run)
    run["machine_busy"] = bool(why)
    if why:
        run["machine_busy_why"] = why
    else:
        run.pop("machine_busy_why", None)
    return run
