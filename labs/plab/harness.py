"""harness.py - what compare measures itself, the same way for every tool:
over the traffic of a run, all CPUs' busy time from /proc/stat (elapsed -
idle - iowait - steal, summed over the CPUs) and the CPU time of the
receiving process and of the lab's NAPI threads (schedstat, ns). A busy
poller's idle spinning is in its process time: the "core" figure of a
reference row is compared with our receivers' own core figure (their
whole process, idle polls included), never with their useful-time-only
receive cost. Also: the run objects of the reference tools' outputs.
"""

import glob
import json
import os
import re
import time

from . import lab, merge, stats
from .run import RunFail, gen_lab

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid):
    """CPU seconds all threads of PID have run (0 once it is gone)."""
    total = 0
    for f in glob.glob("/proc/%d/task/*/schedstat" % pid):
        try:
            with open(f) as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


def cpu_busy():
    """(busy, steal) CPU seconds of all CPUs so far."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4] - v[7]) / CLK_TCK, v[7] / CLK_TCK


class Window:
    """The CPU a receiver PID, the lab's NAPI threads and all CPUs spend
    from now to end(). PID None: no receiving process (a drop in the
    kernel), whose CPU is 0."""

    def __init__(self, pid):
        self.pid = pid
        self.napi = lab.napi_pids()
        self.t0 = time.monotonic()
        self.busy0, self.steal0 = cpu_busy()
        self.rx0 = proc_cpu_s(pid) if pid is not None else 0.0
        self.napi0 = sum(proc_cpu_s(p) for p in self.napi)

    def end(self, drain=0.0):
        """Wait DRAIN s (the rings empty), then read: the measures."""
        time.sleep(drain)
        busy, steal = cpu_busy()
        if self.pid is None:
            rx_s = 0.0
        else:
            rx = proc_cpu_s(self.pid)
            rx_s = rx - self.rx0 if rx > 0 else None
        return {"wall_s": time.monotonic() - self.t0,
                "busy_s": busy - self.busy0, "steal_s": steal - self.steal0,
                "rx_s": rx_s,
                "napi_s": sum(proc_cpu_s(p) for p in self.napi) - self.napi0,
                "source": "the receiving process (schedstat) and the lab's"
                          " NAPI threads, from the traffic's start to the"
                          " drain's end; all CPUs from /proc/stat"}


def tsc_hz(ctx):
    """The TSC rate, as pathlab measures it (pathlab-budget)."""
    if getattr(ctx, "tsc_hz", None) is None:
        from .util import cmd
        r = cmd([os.path.join(ctx.build, "common", "pathlab-budget"),
                 "--json", "--rate", "10G", "--size", "64"])
        ctx.tsc_hz = json.loads(r.stdout)["clock_hz"]
    return ctx.tsc_hz


def per_packet(ctx, seconds, received):
    """SECONDS of CPU as TSC cycles per packet received (None if none)."""
    if seconds is None or not received:
        return None
    return seconds * tsc_hz(ctx) / received


def gen(ctx, spec, base, count):
    """pathlab-gen without end markers (a reference tool would count them
    as packets): the generator object."""
    gen_lab(ctx, spec, base, count, 0, ["--no-end"])
    return merge.read_json(base + ".gen.json")


def common(ctx, spec, tool, received, m):
    """The fields every reference run has."""
    core = None if m["rx_s"] is None else m["rx_s"] + m["napi_s"]
    return {"tool": tool, "reference": spec.reference, "path": spec.row.id,
            "mode": spec.mode, "gpu": "none", "workload": spec.workload,
            "env": ctx.env, "frame_bytes": spec.size,
            "payload_bytes": spec.size - 46, "received": received,
            "harness": m,
            "core_cycles_per_packet": per_packet(ctx, core, received),
            "cycles_per_packet": {"system": per_packet(ctx, m["busy_s"],
                                                       received)}}


def sockperf_run(ctx, spec, client_out, received, m, mode):
    """A sockperf row from its client's listing and server's total."""
    r = common(ctx, spec, "sockperf", received, m)
    sent = re.search(r"Total of (\d+) messages sent in ([0-9.]+) sec",
                     client_out)
    if mode == "tp":
        if not sent:
            raise RunFail("sockperf tp printed no total")
        n, secs = int(sent.group(1)), float(sent.group(2))
        r.update(sent=n, lost=max(n - received, 0),
                 pps=received / secs if secs > 0 else None,
                 gen={"tool": "sockperf tp", "sent": n, "duration_s": secs})
        k = per_packet(ctx, m["napi_s"], received)
        a = per_packet(ctx, m["rx_s"], received)
        if k is not None and a is not None:
            r["receive_cycles_per_packet"] = {
                "total": k + a, "kernel": k, "app": a,
                "kernel_source": "napi_threads",
                "app_source": "process_run_time"}
        return r
    pct = {}
    for name, key in (("p50", "50.000"), ("p99", "99.000"),
                      ("p999", "99.900")):
        g = re.search(r"---> percentile %s = +([0-9.]+)" % re.escape(key),
                      re.sub(r"\x1b\[[0-9;]*m", "", client_out))
        pct[name] = float(g.group(1)) * 1000 if g else None
    if pct["p50"] is None:
        raise RunFail("sockperf pp printed no percentiles")
    r["rtt_ns"] = dict(pct, kind="round_trip", clock="sockperf's",
                       note="sockperf pp --full-rtt: whole round trips")
    r["gen"] = {"tool": "sockperf pp"}
    return r


def testpmd_run(ctx, spec, g, received, m):
    """A testpmd row: its count, pathlab-gen's sent and sending time."""
    r = common(ctx, spec, "dpdk-testpmd", received, m)
    secs = g.get("duration_s") or 0
    r.update(sent=g.get("sent"), lost=max((g.get("sent") or 0) - received, 0),
             pps=received / secs if secs > 0 else None, gen=g)
    return r


def finish(ctx, spec, base, run):
    """Trial, round, the machine's load; write NAME.run.json."""
    run["trial"], run["round"] = spec.trial, spec.round
    stats.Busy(os.cpu_count() or 1).finish(run)
    with open(base + ".run.json", "w") as f:
        json.dump(run, f, indent=2)
    return run


def load_run(ctx, spec, base):
    """Our verbs run from the harness's files: the receiver's and the
    sender's JSON merged here with what the harness noted (tcpdump's
    counts, the env note), into NAME.run.json; with its trial and round.
    None when the harness left no run."""
    try:
        extra = merge.read_json(base + ".merge.json")
        run = merge.merge(merge.read_json(base + ".rx.json"),
                          merge.read_json(base + ".gen.json"),
                          extra.get("tcpdump"), extra.get("tcpdump_dropped"),
                          extra.get("env_note"))
    except ValueError:
        return None
    if extra.get("vm_rx_cpu"):
        # The receive vCPU's ksoftirqd and softirq time (the guest).
        run["vm"] = dict(run.get("vm") or {}, **extra["vm_rx_cpu"])
    if not ctx.o.lab():
        from .sender import finish_run
        finish_run(ctx.o, ctx.hosts, run, base)
    run["trial"], run["round"] = spec.trial, spec.round
    with open(base + ".run.json", "w") as f:
        json.dump(run, f, indent=2)
    return run


def perftest_run(ctx, spec, base):
    """A perftest row from its server's result line (NAME.srv): message
    rate (ib_send_bw) or round trips (ib_send_lat prints half of one:
    doubled, so that both rows are whole round trips)."""
    try:
        with open(base + ".srv", errors="replace") as f:
            lines = [l.split() for l in f if re.match(r"\s*\d+\s", l)]
    except OSError:
        return None
    if not lines or len(lines[-1]) < 5:
        return None
    w = lines[-1]
    r = {"tool": spec.reference, "reference": spec.reference,
         "path": "verbs", "mode": spec.mode, "gpu": "none",
         "workload": spec.workload, "frame_bytes": spec.size,
         "payload_bytes": spec.size - 46, "env": "vm-softroce",
         "trial": spec.trial, "round": spec.round,
         "gen": {"tool": spec.reference + " (its own client)"}}
    if spec.workload == "throughput":
        r["pps"] = float(w[4]) * 1e6
        r["sent"] = r["received"] = int(w[1])
    else:
        half = [float(w[i]) * 1000 if len(w) > i else None
                for i in (4, 7, 8)]
        r["rtt_ns"] = {"kind": "round_trip", "p50": 2 * half[0],
                       "p99": None if half[1] is None else 2 * half[1],
                       "p999": None if half[2] is None else 2 * half[2],
                       "note": "ib_send_lat prints half the round trip"
                               " (t_typical, 99%, 99.9%): doubled here"}
    return r
