"""drops.py - the kernel's other early drop points, as reference rows of
the xdp drop row (compare --paths xdp --references): the same decision,
drop the UDP datagrams to the lab's port, taken at later hooks of the
receive path, each counted by the kernel's own exact counter:

  xdp-skb   our XDP program attached in generic (skb) mode
            (pathlab-rx-xsk --action drop --attach skb): it runs after the
            kernel has built an skb. Counted by the program's per-CPU
            counters, which the receiver reports ("received" in its JSON)
  tc-drop   af-xdp/tc_drop.bpf.c (BUILD/af-xdp/tc_drop.bpf.o) as a tc
            clsact ingress filter, direct action, on the lab's rx
            interface in the rx namespace, added before the run and
            removed after. Counted by the clsact qdisc's drops: the kernel
            counts every TC_ACT_SHOT of its filters there, and this
            program is its only filter
  nft-raw   netfilter's earliest IP hook, prerouting at raw priority (where
            iptables -t raw -A PREROUTING ... -j DROP sits): a table of our
            own in the rx namespace whose one rule drops UDP to the lab's
            port, removed after. Counted by that rule's counter

The harness measures them as every reference (harness.py): pathlab-gen
without end markers, the receiving process and the lab's NAPI threads over
the traffic, all CPUs' busy time. tc-drop and nft-raw have no receiving
process: their core figure is the NAPI threads' alone (the drop runs
there), as the xdp drop row's is mostly (its receiver only reads the
counters every millisecond).
"""

import json
import os
import signal

from . import harness, lab
from .run import RunFail, RunSkip, where
from .util import bkg, cmd, tail, wait_until

TC_OBJ = "af-xdp/tc_drop.bpf.o"
NFT_TABLE = "pathlab_drop"
# The reference rows of the xdp drop row and the command each needs.
TOOLS = {"xdp-skb": None, "tc-drop": "tc", "nft-raw": "nft"}


def in_rx(argv, fail=True, **kw):
    """Run ARGV in the lab's rx namespace; its result."""
    r = cmd(lab.in_ns("rx", argv), fail=False, **kw)
    if fail and r.ret != 0:
        raise RunFail("%s failed: %s" % (" ".join(argv[:3]),
                                         (r.stderr or r.stdout).strip()))
    return r


def measured(ctx, spec, base, pid, count):
    """Feed the lab's count of throughput packets with PID (None: no
    process) as the receiver; (generator object, harness measures, what
    COUNT() rose by over the traffic)."""
    n0 = count()
    win = harness.Window(pid)
    g = harness.gen(ctx, spec, base, ctx.o.counts["throughput"])
    m = win.end(drain=0.3)
    return g, m, count() - n0


def finish(ctx, spec, tool, g, m, received):
    """The run object (never more than was sent: a frame of the lab's
    own, such as a stray ARP, is not the lab port's)."""
    r = harness.testpmd_run(ctx, spec, g, min(received, g["sent"]), m)
    r["tool"] = tool
    return r


def xdp_skb(ctx, spec, base):
    """pathlab-rx-xsk --action drop --attach skb, without count or idle
    timeout, stopped with SIGINT (it writes its JSON)."""
    argv = [os.path.join(ctx.build, spec.row.binary)] + spec.row.args + [
        "--attach", "skb", "--iface", ctx.rx_if, "--cpu", str(ctx.rx_cpu),
        "--env", ctx.env, "--ready", base + ".ready", "--json",
        base + ".rx.json", "--quiet"]
    with bkg(where(ctx, argv), stdout=base + ".rx.out",
             stderr=base + ".rx.err") as rx:
        if not wait_until(10, lambda: os.path.exists(base + ".ready"), 0.05,
                          rx.proc) or not rx.running():
            raise RunFail("pathlab-rx-xsk --attach skb did not start\n"
                          + tail(base + ".rx.err", label="rx"))
        g, m, _ = measured(ctx, spec, base, rx.pid, lambda: 0)
        if rx.stop(signal.SIGINT, 5) != 0:
            raise RunFail("pathlab-rx-xsk --attach skb failed\n"
                          + tail(base + ".rx.err", label="rx"))
    try:
        with open(base + ".rx.json") as f:
            got = json.load(f)["received"]
    except (OSError, ValueError, KeyError) as e:
        raise RunFail("pathlab-rx-xsk wrote no count: %s" % e)
    return finish(ctx, spec, "pathlab-rx-xsk --action drop --attach skb", g,
                  m, got)


def clsact_drops(dev):
    """The drops of DEV's clsact qdisc in the rx namespace."""
    r = in_rx(["tc", "-s", "-j", "qdisc", "show", "dev", dev])
    for q in json.loads(r.stdout or "[]"):
        if q.get("kind") == "clsact":
            return q.get("drops", 0)
    raise RunFail("no clsact qdisc on %s" % dev)


def tc_drop(ctx, spec, base):
    """The tc program on the rx interface's clsact ingress; removed after."""
    obj = os.path.join(ctx.build, TC_OBJ)
    if not os.path.exists(obj):
        raise RunSkip("%s is not built" % TC_OBJ)
    dev = ctx.rx_if
    in_rx(["tc", "qdisc", "del", "dev", dev, "clsact"], fail=False)
    in_rx(["tc", "qdisc", "add", "dev", dev, "clsact"])
    try:
        in_rx(["tc", "filter", "add", "dev", dev, "ingress", "bpf", "da",
               "obj", obj, "sec", "tc"])
        g, m, n = measured(ctx, spec, base, None,
                           lambda: clsact_drops(dev))
    finally:
        in_rx(["tc", "qdisc", "del", "dev", dev, "clsact"], fail=False)
    return finish(ctx, spec, "tc clsact ingress bpf da (tc_drop.bpf.o)", g,
                  m, n)


def nft_script():
    """Our table: at prerouting, raw priority, drop UDP to the lab port."""
    return ("table inet {t}\ndelete table inet {t}\ntable inet {t} {{\n"
            "\tchain prerouting {{\n\t\ttype filter hook prerouting priority"
            " raw; policy accept;\n\t\tudp dport {p} counter drop\n\t}}\n"
            "}}\n").format(t=NFT_TABLE, p=lab.UDP_PORT)


def nft_count():
    """The packets our rule has dropped."""
    r = in_rx(["nft", "-j", "list", "table", "inet", NFT_TABLE])
    for item in json.loads(r.stdout).get("nftables", []):
        for e in (item.get("rule") or {}).get("expr", []):
            if "counter" in e:
                return e["counter"]["packets"]
    raise RunFail("no counter in nft table %s" % NFT_TABLE)


def nft_raw(ctx, spec, base):
    """Our nftables table in the rx namespace; removed after."""
    in_rx(["nft", "-f", "-"], stdin=nft_script())
    try:
        g, m, n = measured(ctx, spec, base, None, nft_count)
    finally:
        in_rx(["nft", "delete", "table", "inet", NFT_TABLE], fail=False)
    return finish(ctx, spec, "nft prerouting raw drop", g, m, n)


RUN = {"xdp-skb": xdp_skb, "tc-drop": tc_drop, "nft-raw": nft_raw}
