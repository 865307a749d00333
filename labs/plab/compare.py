"""compare.py - `pathlab compare`: every built path over the same
workloads, in interleaved trials, into results.json with the comparison
table, the plots and the interactive figure.

labs/pathlab checks for root, starts its watchdog (labs/lib/proc.sh: it
undoes what the journal lists if compare is killed) and execs this. On
any exit, Ctrl-C and SIGTERM included, compare ends what it started, takes
down the lab it built, gives the user who ran sudo what it created, then
stops the watchdog.
"""

import os
import shutil
import signal

from . import (engine, lab, options, outdir, paths, placement, references,
               run as R, sender, stats, table, tradeoffs, usage, vm)
from .util import (JOURNAL, ROOT, Fail, Usage, defer, end_tracked, say)


class Ctx:
    """What every run of one compare shares."""

    def __init__(self, o, build):
        self.o, self.build = o, build
        self.hosts = o.hosts
        self.rx_if, self.env = lab.RX_IF, ""
        self.rx_cpu, self.tx_cpu = 0, 0
        self.raw = ""
        self.tradeoffs = None
        self.ledger = None
        self.refs = None
        self.placer = None  # placement.Placer on the lab, else None

    def base(self, spec):
        """The raw files' base path of SPEC."""
        return os.path.join(self.raw, spec.name)

    def run_one(self, spec):
        """Run SPEC: one of our receivers, or a reference tool, with the
        kernel's receive work placed as it asks (placement.py)."""
        p = placement.of(spec)
        if self.placer and p:
            if p not in spec.row.placements:
                raise R.RunSkip("%s %s: placement %s is not one of its own"
                                " (%s)" % (spec.row.id, spec.mode, p,
                                           ", ".join(spec.row.placements)))
            self.placer.ensure(p)
        if spec.reference:
            return self.refs.run(self, spec)
        return R.one(self, spec)

    def after_failure(self):
        """A failed run's processes are ended before the next run."""
        end_tracked()


def built(build):
    """A test: is path P built in BUILD?"""
    return lambda p: paths.built(p, build)


def select(o, build):
    """Check the selected paths can run; without --paths every built one
    (a fresh clone builds first, so this comes after the build)."""
    if not o.explicit and not o.paths:
        o.paths = [p for p in paths.ids() if paths.built(p, build)]
        if not o.lab():
            from . import hosts
            hosts.check_paths(o, built(build))
    sel = []
    for p in o.paths:
        if not paths.built(p, build):
            raise Usage(paths.not_built_msg(p).replace("pathlab: ", "", 1))
        if paths.first(p).runner == "vm":
            o.verbs_where = "peer" if not o.lab() else None
            if o.lab():
                o.verbs_where, o.verbs_note = vm.where(o.verbs_on)
            if o.verbs_where == "vm" and not shutil.which(
                    "qemu-system-x86_64"):
                if o.explicit:
                    raise Usage("path %s runs in the Soft-RoCE VM, which"
                                " needs qemu-system-x86" % p)
                say("pathlab: skipping path %s (the Soft-RoCE VM needs"
                    " qemu-system-x86)" % p)
                continue
        sel.append(p)
    if not sel:
        raise Usage("no path to compare is built")
    o.paths = sel


def prepare_hosts(ctx):
    """Two hosts: point the runs at the real interface, check the sender,
    set its neighbour entry."""
    from . import hosts
    o, h = ctx.o, ctx.hosts
    h.rx_if = ctx.rx_if = o.iface or h.rx_netdev
    if ctx.rx_if:
        ctx.env = hosts.env_label(o, ctx.rx_if)
        h.hw_stamps = hosts.hw_stamps_ok(ctx.rx_if)
    else:
        ctx.env = "nic"
        o.workloads = [w for w in o.workloads if w != "visibility"]
        say("pathlab: %s has no kernel interface: no visibility runs" % o.pci)
    sender.plan(o, h, None)
    say("pathlab: hardware RX stamps: %s" % (
        "yes, socket latency runs use them" if h.hw_stamps
        else "no (software stamps)"))
    if h.kind != "ns":
        say("pathlab: one-way latency compares two hosts' clocks: meaningless"
            " unless they are synchronised (see the guide)")
    q = "/sys/class/net/%s/queues" % (ctx.rx_if or "none")
    n = len([d for d in os.listdir(q) if d.startswith("rx-")]) \
        if os.path.isdir(q) else 0
    if n > 1:
        say("pathlab: note: %s has %d RX queues; AF_XDP and DPDK's af_xdp"
            " vdev use queue 0: ethtool -L %s combined 1, or ethtool -N %s"
            " flow-type udp4 dst-port %d action 0"
            % (ctx.rx_if, n, ctx.rx_if, ctx.rx_if, lab.UDP_PORT))
    sender.probe(o, h)
    sender.neigh_up(o, h)


def rows_of(o):
    """The (row, mode) pairs of the selected paths that run here."""
    out = []
    for p in o.paths:
        if paths.first(p).runner != "netns":
            continue
        for mode in sender.modes(o, p):
            row = paths.first(p) if mode == "pci" else \
                [r for r in paths.rows_of(p) if r.mode == mode][0]
            out.append((row, mode))
    return out


def compare(o, build):
    """The whole compare after the options: its exit status."""
    d = outdir.OutDir(o.out, ROOT)
    ctx = Ctx(o, build)
    ctx.env = lab.env_label(o.queues)
    ctx.rx_cpu = lab.rx_cpu()
    if not o.lab():
        prepare_hosts(ctx)
    d.create()
    defer(d.chown)
    ctx.raw = d.raw
    ctx.ledger = engine.Ledger(d.raw)
    ctx.refs = references.References(o) if o.references else None
    if o.queues != 1:
        os.environ["PATHLAB_QUEUES"] = str(o.queues)
    rows = rows_of(o)
    if o.lab() and rows:
        the_lab = lab.Lab()
        defer(the_lab.down)
        the_lab.up()
        if o.queues == 1:
            # Many queues: veth's NAPI runs in softirq, no thread to place.
            ctx.placer = placement.Placer()
            defer(ctx.placer.restore)
    if o.tradeoffs:
        ctx.tradeoffs = tradeoffs.Evidence(not o.lab(), ctx.rx_if)
        defer(ctx.tradeoffs.nf_remove)
    host = lab.host_info()
    host["background_cpus_start"] = stats.background_cpus()
    specs = engine.plan(rows, o.sizes, o.workloads, o.gpus(), o.trials,
                        ctx.refs.of if ctx.refs else None, o.variants)
    vms = vm.Verbs(ctx) if "verbs" in o.paths else None
    total = len(specs) + (vms.count() if vms else 0)
    say("pathlab: compare %s at %s B into %s" % (
        " ".join(o.paths), " ".join(map(str, o.sizes)), d.path))
    say("pathlab: trials: %s; paths interleaved within each round" % ", ".join(
        "%s %d" % (w, o.trials[w]) for w in o.workloads))
    engine.run_all(ctx, specs, total)
    if vms:
        vms.run(len(specs), total)
    end_tracked()
    return report(ctx, d, host, total)


def report(ctx, d, host, total):
    """results.json, the tables, plots and figure; the exit status."""
    led = ctx.ledger
    if led.runs:
        host["background_cpus_end"] = stats.background_cpus()
        res = engine.assemble(ctx, host)
        engine.write_json(os.path.join(d.path, "results.json"), res)
        lines = table.comparison(res)
        with open(os.path.join(d.path, "table.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(d.path, "runs.txt"), "w") as f:
            f.write("\n".join(table.runs_table(res)) + "\n")
        say("")
        say("\n".join(lines))
        say("")
        from . import figure, plots
        if os.environ.get("PATHLAB_NO_PLOTS") != "1":
            plots.write(res, d.path)
            figure.write(res, d.path)
        say("pathlab: results in %s (every run: runs.txt)"
            % os.path.join(d.path, "results.json"))
        if ctx.o.tradeoffs:
            tradeoffs.report(ctx.o, ctx.build, res, d.path)
    n = len(led.failures)
    if n:
        say("pathlab: compare: %d of %d runs failed: %s (each one's error is"
            " in %s/NAME.error)" % (n, total, ", ".join(
                f["name"] for f in led.failures), led.raw), err=True)
        return 1
    return 0


def on_signal(signum, frame):
    """SIGTERM, SIGHUP: end as Ctrl-C does, with the shell's status."""
    raise SystemExit(128 + signum)


def cleanup():
    """Undo everything, once, whatever ended compare."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    end_tracked()
    defer.run_all()
    lab.dpdk_sweep()
    stop_watchdog()


def stop_watchdog():
    """compare ended normally: stop the watchdog labs/pathlab started
    (PL_WATCHDOG) and remove the journal it watched."""
    w = os.environ.get("PL_WATCHDOG", "")
    if w.isdigit():
        try:
            os.kill(int(w), signal.SIGKILL)
        except OSError:
            pass
    if JOURNAL.path:
        for p in (JOURNAL.path,):
            try:
                os.unlink(p)
            except OSError:
                pass
        for d in (os.path.dirname(JOURNAL.path),
                  os.path.dirname(os.path.dirname(JOURNAL.path))):
            try:
                os.rmdir(d)  # only when empty: others may use them
            except OSError:
                pass


def main(argv):
    """pathlab compare ARGV: the exit status."""
    o = options.parse(argv)
    if o.help:
        print(usage.text())
        return 0
    build = os.environ.get("PATHLAB_BUILD") or os.path.join(ROOT, "build")
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    try:
        from . import hosts
        h = hosts.check(o, built(build))
        if h is not None:
            defer(sender.cleanup, o, h)
        if o.check_only:
            sender.plan(o, h, built(build))
            if h is not None:
                sender.probe(o, h)
            return 0
        if os.environ.get("PATHLAB_NO_BUILD") != "1" and (
                lab.lib_run("deps.sh", "deps_ensure") != 0
                or lab.lib_run("deps.sh", "build_ensure") != 0):
            return 1
        select(o, build)
        if not os.access(os.path.join(build, paths.GEN_BIN), os.X_OK):
            raise Fail("%s is not built" % paths.GEN_BIN)
        return compare(o, build)
    except KeyboardInterrupt:
        say("\npathlab: compare: interrupted (Ctrl-C): cleaning up", err=True)
        return 130
    except SystemExit as e:
        if isinstance(e.code, int) and e.code > 128:
            say("\npathlab: compare: stopped by signal %d: cleaning up"
                % (e.code - 128), err=True)
        raise
    finally:
        cleanup()
