"""engine.py - the trials of a compare: the plan (every row of every path
in each round, interleaved: A B C, A B C ...), the loop that runs it with
a progress line per run as it finishes, the failures (each on screen, in
raw/NAME.error and in results.json, counted once), and results.json.

A variant is a per-run setting beyond path and mode: receiver flags and
a change to the topology made before its runs and undone after them
(Variant.setup returns the undo). An option that places work (where
veth's NAPI runs, busy polling) sets Options.variants to a list of them:
each row then runs once per variant, side by side in every round, the
variant's name in its raw files and progress line; a run that reports
run.placement becomes a row of its own in the summary and the tables.
"""

import json
import os

from . import emulated, run as R, stats, summary
from .util import say


class Variant:
    """A per-run setting: NAME (in raw file names; "" for none), receiver
    flags RX_ARGS, and SETUP(ctx), which changes the topology and returns
    a function that undoes it (or None)."""

    def __init__(self, name="", rx_args=(), setup=None, placement=None):
        self.name, self.rx_args, self.setup = name, list(rx_args), setup
        # Where the kernel's receive work runs (placement.py), or None:
        # the row's default.
        self.placement = placement


def plan(rows, sizes, workloads, gpus, trials, references=None,
         variants=(None,)):
    """The runs in order: round r runs every workload that has more than r
    trials; within it each (workload, size) runs every row in turn, a
    row's GPU variant and its reference tools right after it. ROWS are
    (paths.Row, mode) pairs; REFERENCES(row, mode, workload) gives the
    reference tools of a row."""
    out = []
    rounds = max(trials.get(w, 1) for w in workloads)
    for r in range(rounds):
        for wl in workloads:
            if r >= trials.get(wl, 1):
                continue
            for size in sizes:
                for row, mode in rows:
                    for v in variants:
                        for gpu in gpus:
                            if gpu != "none" and not row.has_gpu:
                                continue
                            out.append(R.Spec(row, mode, size, wl, gpu, r,
                                              r, variant=v))
                        for ref in (references(row, mode, wl)
                                    if references else ()):
                            out.append(R.Spec(row, mode, size, wl, "none",
                                              r, r, reference=ref,
                                              variant=v))
    return out


def summary_line(run):
    """A one-line account of a run for the progress output."""
    def v(k):
        return "-" if run.get(k) is None else run[k]
    s = "%s kpps, received %s/%s, lost %s" % (
        "-" if run.get("pps") is None else round(run["pps"] / 1000, 1),
        v("received"), v("sent"), v("lost"))
    if run.get("unattributed") is not None:
        s += ", unattributed %s" % run["unattributed"]
    lat = run.get("latency_ns") or {}
    if run.get("workload") == "latency" and lat.get("count"):
        s += ", p50 %.1f us" % (lat["p50"] / 1000)
    if run.get("workload") == "visibility":
        s += ", tcpdump saw %s" % run.get("tcpdump_seen")
    rtt = run.get("rtt_ns")
    if rtt and rtt.get("p50") is not None:
        s += ", round trip p50 %.1f us p99 %.1f us" % (rtt["p50"] / 1000,
                                                      rtt["p99"] / 1000)
    if (run.get("queue_count") or 1) > 1:
        s += ", queues " + "+".join(str(q.get("received"))
                                    for q in run.get("queues", []))
    if run.get("machine_busy"):
        s += " [busy: %s]" % run.get("machine_busy_why")
    return s


class Ledger:
    """The runs that succeeded, were skipped and failed, counted once."""

    def __init__(self, raw):
        self.raw, self.runs, self.failures, self.skipped = raw, [], [], 0

    def ok(self, run):
        """Keep a run that succeeded."""
        self.runs.append(run)

    def fail(self, name, what, error):
        """A failed run: its error on screen and in raw/NAME.error."""
        path = os.path.join(self.raw, name + ".error")
        with open(path, "w") as f:
            f.write(error.rstrip("\n") + "\n")
        first, _, rest = error.partition("\n")
        say("  FAILED: %s" % first, err=True)
        if rest.strip():
            say(rest.rstrip("\n"), err=True)
        self.failures.append(dict(what, name=name, error=error.strip(),
                                  error_file=os.path.relpath(
                                      path, os.path.dirname(self.raw))))


def switch(current, spec, ctx):
    """Set up SPEC's variant when it is not the CURRENT one (undoing that
    one's change first); the (variant, undo) now in force."""
    v, undo = current
    if spec is not None and spec.variant is v:
        return current
    if undo:
        undo()
    v = spec.variant if spec is not None else None
    return v, (v.setup(ctx) if v is not None and v.setup else None)


def run_all(ctx, specs, total, first=0):
    """Run SPECS, one progress line each; ctx.ledger keeps the outcome."""
    led = ctx.ledger
    current = (None, None)
    for i, spec in enumerate(specs, first + 1):
        current = switch(current, spec, ctx)
        tri = ctx.o.trials.get(spec.workload, 1)
        head = "[%d/%d] %s%s ..." % (i, total, spec.title(),
                                     " trial %d/%d" % (spec.trial + 1, tri)
                                     if tri > 1 else "")
        say(head, end="")
        try:
            r = ctx.run_one(spec)
        except R.RunSkip as e:
            led.skipped += 1
            say(" skipped: %s" % e)
            continue
        except R.RunFail as e:
            say(" FAILED")
            led.fail(spec.name, spec_what(spec), str(e))
            ctx.after_failure()
            continue
        led.ok(r)
        say(" " + summary_line(r))
    switch(current, None, ctx)


def spec_what(spec):
    """The fields that name a run in results.json's failures."""
    w = {"path": spec.row.id, "mode": spec.mode, "frame_bytes": spec.size,
         "workload": spec.workload, "gpu": spec.gpu, "trial": spec.trial}
    if spec.reference:
        w["reference"] = spec.reference
    return w


def assemble(ctx, host):
    """results.json's object: host, trials, runs, summary, failures."""
    runs = ctx.ledger.runs
    for r in runs:
        r.setdefault("comparable_with_host", emulated.comparable(r))
    host["tsc_hz"] = next((r["budget"]["clock_hz"] for r in runs
                           if (r.get("budget") or {}).get("clock_hz")), None)
    host["loadavg_end"] = stats.loadavg()
    trials = {w: ctx.o.trials.get(w, 1) for w in ctx.o.workloads}
    return {"pathlab": 1, "host": host,
            "trials": max(trials.values()), "trials_by_workload": trials,
            "runs": runs, "summary": summary.summarize(runs),
            "failures": ctx.ledger.failures}


def write_json(path, obj):
    """Write OBJ as JSON to PATH (through a .tmp file)."""
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)
