"""run.py - one run of one path: the receiver in the rx namespace (or, on
two hosts, here on the real interface), pathlab-gen in the tx namespace
(or on the sender), tcpdump beside the receiver in visibility runs, and
the merge of the two JSON files into the run object. Raw files go to
OUT/raw/NAME.*; a run that fails raises RunFail with the reason, which
the engine puts on screen and into NAME.error.
"""

import json
import os
import re
import signal

from . import lab, merge, placement, sender, stats
from .util import bkg, tail, wait_until

READY_S = 10
DRAIN_S = 15
RATES = {"latency": 10000, "visibility": 20000}


class RunFail(Exception):
    """A run that failed: the message says why (with the tools' last
    words)."""


class RunSkip(Exception):
    """A run this path cannot do here (the receiver exited 77, or the
    workload needs what the path has not)."""


class Spec:
    """What to run: a path row, a mode, frame size, workload, GPU kind,
    trial and round; name is the raw files' base name."""

    def __init__(self, row, mode, size, workload, gpu, trial, rnd,
                 reference=None, variant=None):
        self.row, self.mode, self.size = row, mode, size
        self.workload, self.gpu = workload, gpu
        self.trial, self.round, self.reference = trial, rnd, reference
        self.variant = variant
        n = "%s-%s-%d-%s" % (row.id, mode, size, workload)
        if gpu != "none":
            n += "-gpu-" + gpu
        if variant is not None and variant.name:
            n += "-" + variant.name
        if reference:
            n = "%s-%s" % (reference, n)
        if trial:
            n += "-t%d" % trial
        self.name = n

    def title(self):
        """The run in words, for the progress line."""
        s = "%s %s%s %d B %s" % (self.row.id, self.mode,
                                 "" if self.gpu == "none" else
                                 " +gpu " + self.gpu, self.size,
                                 self.workload)
        if self.variant is not None and self.variant.name:
            s += " [%s]" % self.variant.name
        if self.reference:
            s = "%s (vs %s)" % (self.reference, s)
        return s


def load(ctx, wl):
    """(count, rate) of workload WL: rate 0 is as fast as it goes."""
    return ctx.o.counts[wl], RATES.get(wl, 0)


def workload_args(ctx, spec, count):
    """(receiver args, generator args) that WORKLOAD and --queues ask of
    the path; RunSkip when it cannot."""
    rx, gen = [], []
    r, gpu = spec.row, spec.gpu
    plus = "" if gpu == "none" else " +gpu " + gpu
    if spec.workload == "rtt":
        if not r.has_reflect or gpu != "none":
            raise RunSkip("%s %s%s: no reflect mode, so no round trip"
                          % (r.id, spec.mode, plus))
        rx.append("--reflect")
        gen += ["--pingpong", "--warmup", str(min(count // 10, 100))]
    q = ctx.o.queues
    if q > 1:
        if not r.has_queues or gpu != "none":
            raise RunSkip("%s %s%s: receives on one queue only"
                          % (r.id, spec.mode, plus))
        rx += ["--queues", str(q)]
        if spec.workload != "rtt":
            gen += ["--threads", str(min(os.cpu_count() or 1, q)),
                    "--flows", str(4 * q)]
    return rx, gen


def rx_argv(ctx, spec, count, extra):
    """The receiver's command line."""
    r = spec.row
    a = [os.path.join(ctx.build, r.binary)]
    a += ["--pci", ctx.o.pci] if spec.mode == "pci" else list(r.args)
    if spec.workload == "latency" and spec.gpu == "none":
        a += r.latency_args
        if ctx.hosts and ctx.hosts.hw_stamps and r.id == "socket":
            a.append("--hw-stamps")
    if spec.gpu != "none":
        a += ["--gpu", spec.gpu]
    if spec.variant is not None:
        a += spec.variant.rx_args
    if ctx.o.lab():
        a += placement.rx_args(placement.of(spec))
    a += ["--count", str(count), "--idle-timeout", "1000"]
    if spec.mode != "pci":
        a += ["--iface", ctx.rx_if]
    a += ["--workload", spec.workload, "--cpu", str(ctx.rx_cpu), "--env",
          ctx.env, "--ready", ctx.base(spec) + ".ready", "--json",
          ctx.base(spec) + ".rx.json", "--quiet"]
    return a + extra


def where(ctx, argv):
    """ARGV where the receivers run: the lab's rx namespace, or here."""
    return lab.in_ns("rx", argv) if ctx.o.lab() else argv


def tcpdump_start(ctx, base):
    """tcpdump counting the lab's data datagrams on the receiving link,
    once it listens. udp[10] is the pathlab header's flags byte; 0x20 marks
    the end-of-train markers, which are not data. A short snapshot and a
    large buffer keep its ring from overflowing."""
    p = bkg(where(ctx, ["tcpdump", "-i", ctx.rx_if, "-n", "-p",
                        "--immediate-mode", "-s", "128", "-B", "16384", "-w",
                        "/dev/null", "udp dst port %d and udp[10] & 0x20 = 0"
                        % lab.UDP_PORT]), stderr=base + ".tcpdump.err")

    def listening():
        with open(base + ".tcpdump.err", errors="replace") as f:
            return "listening on" in f.read()
    if not wait_until(READY_S, listening, 0.1, p.proc):
        p.stop()
        raise RunFail("tcpdump did not start listening\n"
                      + tail(base + ".tcpdump.err", label="tcpdump"))
    return p


def tcpdump_stop(p, base):
    """Stop tcpdump (SIGINT); (captured, dropped by its ring)."""
    if p.stop(signal.SIGINT, 5) is None or p.running():
        raise RunFail("tcpdump did not stop on SIGINT")
    with open(base + ".tcpdump.err", errors="replace") as f:
        text = f.read()
    seen = re.search(r"^(\d+) packets? captured", text, re.M)
    drop = re.search(r"^(\d+) packets? dropped by kernel", text, re.M)
    if not seen:
        raise RunFail("no capture count from tcpdump\n"
                      + tail(base + ".tcpdump.err", label="tcpdump"))
    return int(seen.group(1)), int(drop.group(1)) if drop else None


def wait_ready(rx, base):
    """Wait for the receiver's ready file; RunSkip on its exit 77."""
    if wait_until(READY_S, lambda: os.path.exists(base + ".ready"), 0.1,
                  rx.proc) and os.path.exists(base + ".ready"):
        return
    if not rx.running():
        rc = rx.proc.returncode
        if rc == 77:
            raise RunSkip(tail(base + ".rx.err", 1, "rx").split(": ", 1)[-1])
        raise RunFail("the receiver ended before it was ready (exit %d)\n%s"
                      % (rc, tail(base + ".rx.err", label="rx")))
    raise RunFail("the receiver was not ready after %d s\n%s"
                  % (READY_S, tail(base + ".rx.err", label="rx")))


def gen_lab(ctx, spec, base, count, rate, extra):
    """The generator in the tx namespace, bounded by its count."""
    a = [os.path.join(ctx.build, "common", "pathlab-gen"), "--dst",
         lab.RX_ADDR, "--port", str(lab.UDP_PORT), "--size", str(spec.size),
         "--count", str(count), "--iface", lab.TX_IF, "--cpu",
         str(ctx.tx_cpu), "--json", base + ".gen.json", "--quiet"]
    if rate:
        a += ["--rate", str(rate)]
    limit = 30 + count // (rate or 10000)
    with bkg(lab.in_ns("tx", a + extra), stdout=base + ".gen.out",
             stderr=base + ".gen.err") as g:
        rc = g.wait(limit)
        if rc is None:
            raise RunFail("the generator ran longer than %d s\n%s"
                          % (limit, tail(base + ".gen.err", label="gen")))
    if rc != 0 or merge_json(base + ".gen.json") is None:
        raise RunFail("the generator failed (exit %d)\n%s"
                      % (rc, tail(base + ".gen.err", label="gen")))


def merge_json(path):
    """The JSON object in PATH, or None."""
    try:
        return merge.read_json(path)
    except ValueError:
        return None


def rx_finish(rx, base):
    """Wait for the receiver after the generator; SIGTERM it after
    DRAIN_S (it then writes its JSON); check that it succeeded."""
    if rx.wait(DRAIN_S) is None:
        rx.proc.send_signal(signal.SIGTERM)
        if rx.wait(5) is None:
            rx.proc.kill()
            raise RunFail("the receiver did not end on SIGTERM\n"
                          + tail(base + ".rx.err", label="rx"))
    if rx.proc.returncode != 0:
        raise RunFail("the receiver failed (exit %d)\n%s"
                      % (rx.proc.returncode, tail(base + ".rx.err",
                                                  label="rx")))
    if merge_json(base + ".rx.json") is None:
        raise RunFail("the receiver wrote no run JSON\n"
                      + tail(base + ".rx.err", label="rx"))


def one(ctx, spec):
    """Run SPEC; the run object (also in NAME.run.json)."""
    base = ctx.base(spec)
    for f in os.listdir(ctx.raw):
        if f.startswith(spec.name + "."):
            os.unlink(os.path.join(ctx.raw, f))
    count, rate = load(ctx, spec.workload)
    try:
        wrx, wgen = workload_args(ctx, spec, count)
    except RunSkip as e:
        with open(base + ".rx.err", "w") as f:
            f.write(str(e) + "\n")
        raise
    busy = stats.Busy(os.cpu_count() or 1)
    td = tcpdump_start(ctx, base) if spec.workload == "visibility" else None
    try:
        with bkg(where(ctx, rx_argv(ctx, spec, count, wrx)),
                 stdout=base + ".rx.out", stderr=base + ".rx.err") as rx:
            wait_ready(rx, base)
            if ctx.tradeoffs and spec.workload == "visibility":
                ctx.tradeoffs.start(base, rx.pid)
            if ctx.o.lab():
                gen_lab(ctx, spec, base, count, rate, wgen)
            else:
                sender.gen(ctx.o, ctx.hosts, base, spec.size, count, rate,
                           rx, wgen)
            rx_finish(rx, base)
        seen = tcpdump_stop(td, base) if td else (None, None)
    finally:
        if td and td.running():
            td.stop()
    run = merge.merge(merge.read_json(base + ".rx.json"),
                      merge.read_json(base + ".gen.json"), *seen)
    if not ctx.o.lab():
        sender.finish_run(ctx.o, ctx.hosts, run, base)
    if ctx.tradeoffs and spec.workload == "visibility":
        run["tradeoffs"] = ctx.tradeoffs.stop(base)
    run["trial"], run["round"] = spec.trial, spec.round
    busy.finish(run)
    with open(base + ".run.json", "w") as f:
        json.dump(run, f, indent=2)
    return run
