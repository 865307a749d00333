"""references.py - reference tools as rows of the same compare, in the
same interleaved trials, on the same cores: sockperf (the socket path;
its server counts only its own client's messages, so sockperf tp feeds
it, and sockperf pp times round trips), dpdk-testpmd rxonly on net_af_xdp
and net_af_packet, fed by pathlab-gen (the DPDK rows; the net_af_xdp one
is compared with AF_XDP too), the kernel's later drop points beside XDP
drop (generic XDP, a tc BPF drop, netfilter's raw drop: drops.py), and in
the VM perftest's ib_send_bw and
ib_send_lat (the verbs rows; see vm.py and rdma-vm-compare.sh).

A reference run carries reference (the tool's row), tool (its command)
and path/mode of the row it is compared with. Its CPU cost is measured
by the harness the same way for every tool (harness.py): the receiving
process and the lab's NAPI threads over the traffic (core_cycles, idle
polling included, as our receivers' core figure), all CPUs' busy time
(system).
"""

import os
import re
import shutil
import signal

from . import drops, harness, lab, placement
from .run import RunFail, RunSkip, where
from .util import bkg, cmd, tail, wait_until

# Host rows: (path, mode, workload) -> reference tools.
HOST = {("socket", "recvmmsg", "throughput"): ["sockperf"],
        ("socket", "recvmmsg", "rtt"): ["sockperf"],
        ("dpdk", "af_xdp", "throughput"): ["testpmd"],
        ("dpdk", "af_packet", "throughput"): ["testpmd"],
        ("xdp", "drop", "throughput"): ["xdp-skb", "tc-drop", "nft-raw"]}
# The other rows a reference is also compared with.
ALSO = {("testpmd", "dpdk", "af_xdp"): [("afxdp", "copy")]}
TOOLS = dict({"sockperf": "sockperf", "testpmd": "dpdk-testpmd"},
             **drops.TOOLS)
VDEV = {"af_xdp": "net_af_xdp0,iface=%s,start_queue=0,queue_count=1",
        "af_packet": "net_af_packet0,iface=%s,framecnt=4096"}
PAYLOAD_OVERHEAD = 46  # Ethernet 14 + IPv4 20 + UDP 8 + FCS 4


def testpmd_vdev(spec, rx_if):
    """testpmd's vdev for SPEC on RX_IF: net_af_xdp busy polls only in the
    busy-poll placement, as our receiver does (the PMD's busy_budget,
    on by default, is otherwise turned off)."""
    v = VDEV[spec.mode] % rx_if
    if spec.mode == "af_xdp":
        v += ",busy_budget=%d" % (32 if placement.of(spec) == "busy-poll"
                                  else 0)
    return v


def verbs_refs(row, mode, wl):
    """The perftest rows of verbs MODE for workload WL."""
    if mode not in ("ud", "rc") or not shutil.which("ib_send_bw"):
        return []
    return {"throughput": ["ib_send_bw"], "rtt": ["ib_send_lat"]}.get(wl, [])


class References:
    """The host's reference rows of one compare."""

    def __init__(self, o):
        self.o = o
        self.missing = sorted(t for t, c in TOOLS.items()
                              if c and not shutil.which(c))

    def of(self, row, mode, wl):
        """The reference tools of ROW in MODE for workload WL."""
        if self.o.queues != 1 or not self.o.lab():
            return []
        return [t for t in HOST.get((row.id, mode, wl), [])
                if t not in self.missing]

    def run(self, ctx, spec):
        """Run reference SPEC; the run object (also NAME.run.json)."""
        base = ctx.base(spec)
        for f in os.listdir(ctx.raw):
            if f.startswith(spec.name + "."):
                os.unlink(os.path.join(ctx.raw, f))
        if spec.reference == "sockperf":
            r = sockperf(ctx, spec, base)
        elif spec.reference in drops.RUN:
            r = drops.RUN[spec.reference](ctx, spec, base)
        else:
            r = testpmd(ctx, spec, base)
        also = ALSO.get((spec.reference, spec.row.id, spec.mode))
        if also:
            r["also_compared_with"] = [{"path": p, "mode": m}
                                       for p, m in also]
        return harness.finish(ctx, spec, base, r)


def payload(size):
    """The UDP payload of an Ethernet frame of SIZE bytes."""
    return max(size - PAYLOAD_OVERHEAD, 18)


def sockperf_ready():
    """True once sockperf's server has bound the lab's port."""
    r = cmd(["ss", "-N", lab.ns_name("rx"), "-Hunl",
             "sport = :%d" % lab.UDP_PORT], fail=False)
    return bool(r.stdout.strip())


def sockperf(ctx, spec, base):
    """sockperf sr on the receive core; sockperf tp (throughput) or pp
    --full-rtt (rtt) on the sender's, one second each."""
    srv = ["taskset", "-c", str(ctx.rx_cpu), "sockperf", "sr", "-i",
           lab.RX_ADDR, "-p", str(lab.UDP_PORT)]
    mode = "tp" if spec.workload == "throughput" else "pp"
    cli = ["taskset", "-c", str(ctx.tx_cpu), "sockperf", mode, "-i",
           lab.RX_ADDR, "-p", str(lab.UDP_PORT), "-m",
           str(payload(spec.size)), "-t", "1"]
    cli += ["--mps", "max"] if mode == "tp" else ["--full-rtt"]
    with bkg(where(ctx, srv), stdout=base + ".rx.out",
             stderr=base + ".rx.out.err") as rx:
        if not wait_until(10, sockperf_ready, 0.05, rx.proc):
            raise RunFail("sockperf sr did not bind the port\n"
                          + tail(base + ".rx.out", label="sockperf sr"))
        win = harness.Window(rx.pid)
        c = cmd(lab.in_ns("tx", cli), fail=False, timeout=60)
        with open(base + ".gen.out", "w") as f:
            f.write(c.stdout + c.stderr)
        if c.ret != 0:
            raise RunFail("sockperf %s failed (exit %d)\n%s" % (
                mode, c.ret, tail(base + ".gen.out", label="sockperf")))
        m = win.end(drain=0.2)
        rx.stop(signal.SIGINT, 5)
    out = open(base + ".rx.out", errors="replace").read()
    got = re.search(r"Total (\d+) messages received and handled", out)
    received = int(got.group(1)) if got else 0 if \
        "No messages were received" in out else None
    if received is None:
        raise RunFail("sockperf sr printed no total\n"
                      + tail(base + ".rx.out", label="sockperf sr"))
    return harness.sockperf_run(ctx, spec, c.stdout, received, m, mode)


def testpmd(ctx, spec, base):
    """dpdk-testpmd rxonly on the same virtual device, fed by pathlab-gen
    with the count of our throughput runs, stopped with SIGINT; its
    accumulated RX-packets."""
    prefix = "pltpmd-%d" % os.getpid()
    argv = [shutil.which("dpdk-testpmd"), "-l", "%d,%d" % (
        ctx.tx_cpu, ctx.rx_cpu), "--no-huge", "-m", "512", "--no-pci",
        "--no-shconf", "--file-prefix", prefix,
        "--vdev=" + testpmd_vdev(spec, ctx.rx_if), "--",
        "--forward-mode=rxonly", "--total-num-mbufs=16384", "--rxd=4096",
        "--stats-period=1"]
    count = ctx.o.counts["throughput"]
    try:
        with bkg(where(ctx, argv), stdout=base + ".rx.out",
                 stderr=base + ".rx.out") as rx:
            def ready():
                with open(base + ".rx.out", errors="replace") as f:
                    return "Port statistics" in f.read()
            if not wait_until(20, ready, 0.05, rx.proc):
                raise RunFail("dpdk-testpmd did not start\n"
                              + tail(base + ".rx.out", label="testpmd"))
            win = harness.Window(rx.pid)
            g = harness.gen(ctx, spec, base, count)
            m = win.end(drain=0.3)
            rx.stop(signal.SIGINT, 10)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    out = open(base + ".rx.out", errors="replace").read()
    acc = out.split("Accumulated forward statistics", 1)
    got = re.search(r"RX-packets: *(\d+)", acc[1]) if len(acc) > 1 else None
    if not got:
        raise RunFail("dpdk-testpmd printed no accumulated statistics\n"
                      + tail(base + ".rx.out", label="testpmd"))
    # Never more than was sent (a stray frame of the lab's own).
    return harness.testpmd_run(ctx, spec, g, min(int(got.group(1)),
                                                 g["sent"]), m)


def load_verbs_run(ctx, spec, base):
    """A verbs run the harness left: ours (NAME.run.json), or perftest's
    raw output turned into a run; None when it has none."""
    if spec.reference:
        return harness.perftest_run(ctx, spec, base)
    return harness.load_run(ctx, spec, base)


__all__ = ["References", "verbs_refs", "load_verbs_run", "RunSkip"]
