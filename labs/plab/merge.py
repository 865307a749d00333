"""merge.py - one run object from a receiver's JSON and the generator's.

The receiver's object wins everywhere except what only the sender knows:
how many datagrams left (sent), the drops counted on the sending side and
what follows from both. unattributed is not clamped: a negative value
means a drop counter counted something that was not lost, a bug to see.
End-of-train markers are UDP datagrams too: when one is dropped a drop
counter counts it although no data datagram was lost, so the markers the
receiver knows it missed (end_markers_lost) are added back, or all the
generator sent (end_markers_sent) when the receiver saw none (the run's
end_markers_lost then says so, with end_markers_lost_source "generator"). With the rtt
workload the generator's round trips (pathlab-gen --pingpong) become
rtt_ns, beside the receiver's one-way latency_ns.

As a command (for the shell that runs the VM's rows and the tests):
  python3 labs/plab merge RX.json GEN.json [--tcpdump N]
          [--tcpdump-dropped N] [--env-note TEXT] > RUN.json
  python3 labs/plab merge RX.json GEN.json --accounting
          one line for pathlab run: every sent packet, where it went
"""

import json
import sys


def total(counts):
    """The sum of an object's numeric values (0 for none)."""
    return sum(v for v in (counts or {}).values()
               if isinstance(v, (int, float)) and not isinstance(v, bool))


def union(a, b):
    """Two {counter: count} objects in one; a shared key is summed."""
    out = dict(a or {})
    for k, v in (b or {}).items():
        out[k] = out.get(k, 0) + v
    return out


def rtt_of(g):
    """The generator's round trips as the run's rtt_ns object."""
    r = g["rtt"]
    return {
        "kind": "round_trip",
        "clock": "CLOCK_MONOTONIC of the sender",
        "count": r.get("samples"), "min": r.get("min_ns"),
        "mean": r.get("mean_ns"), "p50": r.get("p50_ns"),
        "p99": r.get("p99_ns"), "p999": r.get("p999_ns"),
        "max": r.get("max_ns"), "warmup": r.get("warmup"),
        "timeouts": r.get("timeouts"),
        "note": "the whole round trip; sockperf and perftest print half"
                " of it",
    }


def merge(rx, gen, tcpdump=None, tcpdump_dropped=None, env_note=None):
    """The run object of receiver object RX and generator object GEN."""
    sent = gen.get("sent") or 0
    lost = max(sent - (rx.get("received") or 0), 0)
    drops = union(rx.get("drops"), gen.get("drops"))
    run = dict(rx)
    markers_lost = rx.get("end_markers_lost") or 0
    if not rx.get("end_markers") and gen.get("end_markers_sent") and lost:
        # The receiver saw no marker and did not get all it was sent, so
        # it did not stop on its --count: it ended on a timeout or a
        # signal, after the sender had sent them all, and every marker was
        # dropped on the way, where a drop counter counted it with the
        # datagrams. (A receiver that stopped on its count before the
        # markers came lost none: they arrived after its counters were
        # read.)
        markers_lost = gen["end_markers_sent"]
        run["end_markers_lost_source"] = "generator"
    run.update({
        "sent": sent,
        "sent_source": "generator",
        "lost": lost,
        "drops": drops,
        "end_markers_lost": markers_lost,
        "unattributed": lost + markers_lost - total(drops),
        "gen": gen,
    })
    if tcpdump is not None:
        run["tcpdump_seen"] = tcpdump
    if tcpdump_dropped is not None:
        run["tcpdump_dropped"] = tcpdump_dropped
    if env_note is not None:
        run["env_note"] = env_note
    if gen.get("rtt"):
        run["rtt_ns"] = rtt_of(gen)
    return run


def accounting(run):
    """Where every packet of a merged run went, as one line of text."""
    def n(v):
        return "{:,}".format(v)
    parts = ["%s %s" % (k, n(v)) for k, v in sorted(run["drops"].items())
             if v]
    line = "pathlab run: both ends: sent %s, received %s, lost %s" % (
        n(run["sent"]), n(run.get("received") or 0), n(run["lost"]))
    if run["lost"] or parts:
        line += " = " + (" + ".join(parts) if parts else "no drop counter")
    line += "; unattributed %s" % n(run["unattributed"])
    bad = run["gen"].get("bad_sent") or 0
    if bad and run["unattributed"]:
        line += " (the sender also sent %s malformed frames, which the " \
            "kernel's drop counters count with the datagrams)" % n(bad)
    elif run["unattributed"]:
        line += " (lost where neither end has a counter)" \
            if run["unattributed"] > 0 else \
            " (the drop counters counted more than was lost)"
    return line


def read_json(path):
    """The object in file PATH; ValueError naming the file if it is not."""
    try:
        with open(path) as f:
            obj = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError("%s: %s" % (path, e))
    if not isinstance(obj, dict):
        raise ValueError("%s: not a JSON object" % path)
    return obj


def main(argv):
    """The command: merge two files, print the run object."""
    import argparse
    ap = argparse.ArgumentParser(prog="plab merge")
    ap.add_argument("rx")
    ap.add_argument("gen")
    ap.add_argument("--tcpdump", type=int)
    ap.add_argument("--tcpdump-dropped", type=int)
    ap.add_argument("--env-note")
    ap.add_argument("--accounting", action="store_true")
    a = ap.parse_args(argv)
    try:
        run = merge(read_json(a.rx), read_json(a.gen), a.tcpdump,
                    a.tcpdump_dropped, a.env_note)
    except ValueError as e:
        print("plab merge: %s" % e, file=sys.stderr)
        return 1
    print(accounting(run) if a.accounting else json.dumps(run, indent=2))
    return 0
