"""options.py - the options of `pathlab compare`, checked before anything
runs or is installed: a wrong one is a usage error (exit 2) that names it.
"""

import re

from . import paths, placement
from .engine import Variant
from .util import Usage

GPUS = ("none", "sim", "cuda")
VERBS_ON = ("host", "vm", "auto")
# Packets per workload: default, and with --quick. Three trials of each
# throughput and latency run: 100,000 (a quarter of a second at the rates
# veth gives here) and 10,000 paced at 10 kpps, and 5,000 round trips,
# keep a default compare of every path near 15 minutes on a loaded 2-vCPU
# machine.
COUNTS = {"throughput": 100000, "latency": 10000, "visibility": 5000,
          "rtt": 5000}
QUICK = {"throughput": 20000, "latency": 2000, "visibility": 1000,
         "rtt": 1000}
# Trials per workload by default (--quick: one of each).
TRIALS = {"throughput": 3, "latency": 3, "visibility": 1, "rtt": 1}
# Options that take a value; the rest are flags.
VALUED = {"--paths", "--sizes", "--count", "--gpu", "--out", "--verbs-on",
          "--queues", "--workloads", "--trials", "--iface", "--pci",
          "--rx-addr", "--sender", "--sender-gen", "--sender-verbs",
          "--sender-if", "--sender-cpu", "--napi"}
FLAGS = {"--quick", "--tradeoffs", "--references", "--sender-print",
         "--check", "-h", "--help"}


class Options:
    """The checked options of one compare."""

    def __init__(self):
        self.paths = []
        self.explicit = False
        self.sizes = [64, 1024]
        self.gpu = "none"
        self.out = ""
        self.quick = False
        self.tradeoffs = False
        self.references = False
        self.verbs_on = "auto"
        self.queues = 1
        self.workloads = list(paths.WORKLOADS)
        self.counts = dict(COUNTS)
        self.count_given = False
        self.trials = dict(TRIALS)
        self.help = False
        # Two hosts (hosts.py): None where not given.
        self.iface = self.pci = self.rx_addr = None
        self.sender = None
        self.sender_gen = self.sender_verbs = None
        self.sender_if = self.sender_cpu = None
        self.sender_print = self.check_only = False
        self.hosts = None
        # Per-run settings beyond path and mode (engine.Variant); [None]:
        # none. A placement option fills it.
        self.variants = [None]

    def lab(self):
        """True when compare runs on the lab topology (no --iface/--pci)."""
        return not self.iface and not self.pci

    def gpus(self):
        """The GPU kinds to run: none, and --gpu's when it is not none."""
        return ["none"] + ([self.gpu] if self.gpu != "none" else [])


def split(v):
    """A comma list as a list (empty items kept, to be refused)."""
    return v.split(",") if v != "" else []


def _trials(o, v):
    """--trials N (throughput and latency) or WORKLOAD=N,..."""
    for item in split(v):
        wl, _, n = item.rpartition("=")
        if not re.fullmatch(r"[1-9][0-9]?", n):
            raise Usage("--trials '%s': a count 1..99, or WORKLOAD=N,..."
                        % v)
        if not wl:
            o.trials["throughput"] = o.trials["latency"] = int(n)
        elif wl in paths.WORKLOADS:
            o.trials[wl] = int(n)
        else:
            raise Usage("--trials '%s': unknown workload '%s' (known: %s)"
                        % (v, wl, " ".join(paths.WORKLOADS)))
    o.trials_given = True


def _take(o, opt, val):
    """Take one option OPT with value VAL."""
    setters = {
        "--paths": lambda: (setattr(o, "paths", split(val)),
                            setattr(o, "explicit", True)),
        "--sizes": lambda: setattr(o, "sizes_text", split(val)),
        "--count": lambda: setattr(o, "count_text", val),
        "--gpu": lambda: setattr(o, "gpu", val),
        "--out": lambda: setattr(o, "out", val),
        "--quick": lambda: setattr(o, "quick", True),
        "--tradeoffs": lambda: setattr(o, "tradeoffs", True),
        "--references": lambda: setattr(o, "references", True),
        "--verbs-on": lambda: setattr(o, "verbs_on", val),
        "--queues": lambda: setattr(o, "queues_text", val),
        "--workloads": lambda: setattr(o, "workloads", split(val)),
        "--trials": lambda: _trials(o, val),
        "--iface": lambda: setattr(o, "iface", val),
        "--pci": lambda: setattr(o, "pci", val),
        "--rx-addr": lambda: setattr(o, "rx_addr", val),
        "--sender": lambda: setattr(o, "sender", val),
        "--sender-gen": lambda: setattr(o, "sender_gen", val),
        "--sender-verbs": lambda: setattr(o, "sender_verbs", val),
        "--sender-if": lambda: setattr(o, "sender_if", val),
        "--sender-cpu": lambda: setattr(o, "sender_cpu", val),
        "--sender-print": lambda: setattr(o, "sender_print", True),
        "--check": lambda: setattr(o, "check_only", True),
        "--napi": lambda: setattr(o, "napi_text", val),
        "-h": lambda: setattr(o, "help", True),
        "--help": lambda: setattr(o, "help", True),
    }
    setters[opt]()


def parse(argv):
    """The Options of ARGV; Usage (exit 2) on the first wrong one."""
    o = Options()
    o.trials_given = False
    i = 0
    while i < len(argv):
        opt, val = argv[i], None
        if opt.startswith("--") and "=" in opt:
            opt, val = opt.split("=", 1)
        if opt not in VALUED and opt not in FLAGS:
            raise Usage("compare: unknown option '%s'" % opt)
        if opt in VALUED and val is None:
            if i + 1 >= len(argv):
                raise Usage("%s needs a value" % opt)
            i += 1
            val = argv[i]
        _take(o, opt, val)
        i += 1
    if o.help:
        return o
    check(o)
    return o


def check(o):
    """Check the options taken; Usage naming the first wrong one."""
    if o.tradeoffs:
        o.workloads = ["visibility"]
    if o.quick:
        o.counts = dict(QUICK)
        if not o.trials_given:
            o.trials = {w: 1 for w in paths.WORKLOADS}
    count = getattr(o, "count_text", None)
    if count is not None:
        if not re.fullmatch(r"[1-9][0-9]{0,9}", count):
            raise Usage("--count '%s': a positive number" % count)
        o.counts["throughput"] = int(count)
        o.count_given = True
    q = getattr(o, "queues_text", "1")
    if not re.fullmatch(r"[0-9]{1,2}", q) or not 1 <= int(q) <= 16:
        raise Usage("--queues '%s': 1..16" % q)
    o.queues = int(q)
    if not o.workloads:
        raise Usage("--workloads is empty")
    for w in o.workloads:
        if w not in paths.WORKLOADS:
            raise Usage("unknown workload '%s' (known: %s)"
                        % (w, " ".join(paths.WORKLOADS)))
    if o.gpu not in GPUS:
        raise Usage("--gpu '%s': one of %s" % (o.gpu, " ".join(GPUS)))
    if o.verbs_on not in VERBS_ON:
        raise Usage("--verbs-on '%s': one of host, vm or auto" % o.verbs_on)
    sizes = getattr(o, "sizes_text", None)
    if sizes is not None:
        if not sizes:
            raise Usage("--sizes is empty")
        o.sizes = []
        for s in sizes:
            if not re.fullmatch(r"[0-9]{1,5}", s) or not 64 <= int(s) <= 1518:
                raise Usage("frame size '%s': 64..1518 (Ethernet incl. FCS)"
                            % s)
            o.sizes.append(int(s))
    napi = getattr(o, "napi_text", None)
    if napi is not None:
        if not o.lab():
            raise Usage("--napi places the lab's veth work; on a NIC, set"
                        " its IRQ affinity and busy polling yourself")
        if o.queues != 1:
            raise Usage("--napi places the NAPI thread of the one-queue lab;"
                        " with --queues %d veth's NAPI runs in softirq"
                        % o.queues)
        o.variants = [Variant("napi-" + p, placement=p)
                      for p in placement.parse(napi)]
    for p in o.paths:
        if p not in paths.ids():
            raise Usage("unknown path '%s' (known: %s)"
                        % (p, " ".join(paths.ids())))
    if o.explicit and not o.paths:
        raise Usage("--paths is empty")
