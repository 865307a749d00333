"""paths.py - the receive paths and modes the lab knows: labs/lib/paths.tsv,
the one table labs/lib/paths.sh reads too. One Row per (path, mode).
"""

import os

from .util import LIB

FIELDS = ("id", "mode", "binary", "args", "latency_args", "runner", "hint",
          "gpu", "queues", "reflect", "placements")
GEN_BIN = "common/pathlab-gen"
WORKLOADS = ("throughput", "latency", "visibility", "rtt")


class Row:
    """One (path, mode) of the table."""

    def __init__(self, fields):
        vals = dict(zip(FIELDS, ("" if v == "-" else v for v in fields)))
        self.id = vals["id"]
        self.mode = vals["mode"]
        self.binary = vals["binary"]
        self.args = vals["args"].split()
        self.latency_args = vals["latency_args"].split()
        self.runner = vals["runner"]
        self.hint = vals["hint"]
        self.has_gpu = vals["gpu"] == "yes"
        self.has_queues = vals["queues"] == "yes"
        self.has_reflect = vals["reflect"] == "yes"
        # Where the kernel's receive work may run (placement.py), the
        # default first; [] for a path off the lab's veth.
        self.placements = [p for p in vals.get("placements", "").split(",")
                           if p]

    def __repr__(self):
        return "%s/%s" % (self.id, self.mode)


def load(path=None):
    """The table's rows, in order."""
    rows = []
    with open(path or os.path.join(LIB, "paths.tsv")) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                rows.append(Row(line.split("\t")))
    return rows


TABLE = load()


def ids():
    """The path ids, in table order."""
    out = []
    for r in TABLE:
        if r.id not in out:
            out.append(r.id)
    return out


def rows_of(path):
    """The rows (modes) of PATH."""
    return [r for r in TABLE if r.id == path]


def first(path):
    """The first row of PATH (what `pathlab rx PATH` runs)."""
    return rows_of(path)[0]


def binary(path, build):
    """The receiver of PATH, in the build directory BUILD."""
    return os.path.join(build, first(path).binary)


def built(path, build):
    """True if the receiver of PATH is built."""
    return os.access(binary(path, build), os.X_OK)


def not_built_msg(path):
    """The message for a path that is not built."""
    return "pathlab: path %s is not built (%s)" % (path, first(path).hint)
