"""vm.py - the verbs rows of a compare, all by labs/lib/rdma-vm-compare.sh:
in one boot of the Soft-RoCE VM, or directly on this host's RDMA devices,
or (two hosts) the receiver here and pathlab-tx-verbs on the sender. The
engine writes the order of the runs into a plan file (the same interleaved
rounds as the other paths, perftest's rows beside ours with --references);
the harness runs it and prints one line per run as it finishes, which is
shown as it comes (the VM's console is followed line by line).
"""

import os
import re
import subprocess

import json

from . import emulated, engine, paths, references, sender, stats, verbs_host
from .util import LIB, ROOT, cmd, say, tail, track

RATE_LATENCY_VM = 2000  # under TCG 10 kpps saturates the guest's sender
# The most packets a run in the VM sends: Soft-RoCE under TCG moves a few
# thousand messages a second (2-10 kpps, less on a loaded host), so the
# host's counts would take minutes a run. A default compare took 14 min
# for its 46 verbs runs at 20,000/4,000 on a loaded 2-vCPU machine; these
# keep it to a few minutes. --count still sets throughput's.
VM_COUNTS = {"throughput": 5000, "latency": 2000, "visibility": 1000,
             "rtt": 1000}
RUN_LINE = re.compile(r"^(verbs|ref) ")


def vm_cpus():
    """The VM's vCPUs as labs/rdma-vm gives them (RDMA_VM_CPUS, 2)."""
    v = os.environ.get("RDMA_VM_CPUS", "2")
    return int(v) if v.isdigit() else 2


def where(want):
    """Where the verbs rows run for --verbs-on WANT: ("host", note) or
    ("vm", "")."""
    return verbs_host.where(want)


class Verbs:
    """The verbs rows of one compare."""

    def __init__(self, ctx):
        self.ctx = ctx
        o = ctx.o
        self.where = getattr(o, "verbs_where", None) or "vm"
        rows = [(r, r.mode) for r in paths.rows_of("verbs")]
        # In the VM perftest's rows come without --references: beside
        # software RDMA (emulated under TCG) the ratio ours/perftest in
        # the same VM is the figure to read (emulated.py).
        refs = references.verbs_refs if o.references or \
            self.where == "vm" else None
        self.specs = engine.plan(rows, o.sizes, o.workloads, o.gpus(),
                                 o.trials, refs)

    def count(self):
        """How many runs the plan holds."""
        return len(self.specs)

    def write_plan(self, path):
        """The plan file: one run a line, in order."""
        with open(path, "w") as f:
            for s in self.specs:
                f.write("%s %s %d %s %s %d\n" % (
                    s.reference or "-", s.mode, s.size, s.workload, s.gpu,
                    s.trial))

    def argv(self, plan):
        """The harness's command line (and the log's name)."""
        o, ctx = self.ctx.o, self.ctx
        c = dict(o.counts)
        if self.where == "vm":
            for w, n in VM_COUNTS.items():
                if not (w == "throughput" and o.count_given):
                    c[w] = min(c[w], n)
        rate_lat = RATE_LATENCY_VM if self.where == "vm" else 10000
        a = [os.path.join(LIB, "rdma-vm-compare.sh"), "--build", ctx.build,
             "--out", ctx.raw, "--plan", plan,
             "--counts", "%d,%d,%d,%d" % (c["throughput"], c["latency"],
                                          c["visibility"], c["rtt"]),
             "--rates", "0,%d,20000,0" % rate_lat,
             "--queues", str(o.queues)]
        if self.where == "host":
            return ["bash"] + a[:1] + ["--direct"] + a[1:] + [
                "--cpus", "%d,%d" % (ctx.rx_cpu, ctx.tx_cpu)]
        if self.where == "peer":
            h = ctx.hosts
            peer = ["--peer", o.iface, "--tx-bin", sender.txv(o),
                    "--sender-label", sender.label(o)]
            peer += (["--tx-print", str(sender.print_wait())] if
                     h.kind == "print" else
                     ["--tx-via", " ".join(h.transport)])
            return ["bash"] + a[:1] + peer + a[1:] + [
                "--cpus", "%d,%s" % (ctx.rx_cpu, o.sender_cpu or "")]
        return ["setpriv", "--pdeathsig", "TERM",
                os.path.join(ROOT, "labs", "rdma-vm"), "run", "--timeout",
                "1800", "--share", os.path.dirname(ctx.raw), "--share",
                ctx.build, "--", "bash"] + a

    def vm_info(self):
        """How the VM ran (the guest's OUT/verbs-vm.json), or, before it
        has, how it will (labs/rdma-vm accel); {} outside the VM."""
        if self.where != "vm":
            return {}
        try:
            with open(os.path.join(self.ctx.raw, "verbs-vm.json")) as f:
                v = json.load(f)
            if isinstance(v, dict):
                return v
        except (OSError, ValueError):
            pass
        r = cmd([os.path.join(ROOT, "labs", "rdma-vm"), "accel"],
                fail=False)
        a = r.stdout.strip()
        return {"accel": a} if a in ("tcg", "kvm") else {}

    def run(self, done, total):
        """Run the verbs rows; one progress line per run as it ends."""
        ctx = self.ctx
        plan = os.path.join(ctx.raw, "verbs-plan.txt")
        self.write_plan(plan)
        log = os.path.join(ctx.raw, "verbs-%s.log" % self.where)
        if self.where == "vm":
            say("pathlab: " + emulated.meaning(dict(self.vm_info(),
                                                       cpus=vm_cpus())))
        say("pathlab: verbs: %d runs %s; each line as it ends (log: %s)" % (
            len(self.specs), {"vm": "in the Soft-RoCE VM (one boot)",
                              "host": getattr(ctx.o, "verbs_note", "") or
                              "direct on this host",
                              "peer": "on two hosts"}[self.where], log))
        i = done
        self.busy = stats.Busy(os.cpu_count() or 1)
        with open(log, "w") as f:
            p = track(subprocess.Popen(
                self.argv(plan), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                bufsize=1, errors="replace"))
            for line in p.stdout:
                f.write(line)
                f.flush()
                line = line.rstrip("\n")
                if RUN_LINE.match(line):
                    i += 1
                    say("[%d/%d] %s" % (i, total, line))
                elif line.startswith("sender$ ") or "run this on the" \
                        " sender" in line:
                    say(line)
            rc = p.wait()
        if rc != 0 and i - done < len(self.specs):
            say("pathlab: verbs: the harness exited %d after %d of %d runs;"
                " its last words:\n%s" % (rc, i - done, len(self.specs),
                                         tail(log, 12, "verbs")), err=True)
        self.collect(rc, log, i - done)

    def collect(self, rc, log, shown):
        """Keep the runs the harness wrote; count its failures once. A run
        the harness said FAILED (NAME.error) is failed here too, whatever
        else it left (a perftest server's result line beside a failed
        client), so that both count the same runs."""
        ctx = self.ctx
        failed = 0
        vm = self.vm_info()
        for s in self.specs:
            base = os.path.join(ctx.raw, s.name)
            err = base + ".error"
            harness_failed = os.path.exists(err)
            if not harness_failed and (os.path.exists(base + ".merge.json")
                                       or s.reference):
                run = references.load_verbs_run(ctx, s, base)
                if run is not None:
                    if self.where == "vm":
                        emulated.run_fields(run, vm)
                    # The machine over the whole boot: the VM's runs
                    # cannot be told apart from the host.
                    self.busy.finish(run)
                    run["busy"]["window"] = "the verbs rows' whole run" \
                        " (one VM boot)" if self.where == "vm" else \
                        "the verbs rows' whole run"
                    ctx.ledger.ok(run)
                    continue
            if not harness_failed and os.path.exists(base + ".skipped"):
                ctx.ledger.skipped += 1
                continue
            failed += 1
            why = "no result from the harness (exit %d); see %s" % (rc, log)
            if harness_failed:
                with open(err, errors="replace") as f:
                    why = f.read()
            ctx.ledger.fail(s.name, engine.spec_what(s), why)
        if rc != 0 and failed == 0:
            ctx.ledger.fail("verbs-harness", {"path": "verbs"},
                            "the verbs harness exited %d after %d runs; see"
                            " %s" % (rc, shown, log))
