"""plabtest.py - what the unit tests of labs/plab share: the package on
the path, made-up runs, and a scratch folder."""

import copy
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "labs"))
SAMPLE = os.path.join(ROOT, "tests", "figure", "sample-results.json")

BASE_RUN = {
    "tool": "pathlab-rx-socket", "path": "socket", "mode": "recvmmsg",
    "gpu": "none", "workload": "throughput", "env": "veth-napi",
    "frame_bytes": 64, "sent": 1000, "received": 1000, "lost": 0,
    "unattributed": 0, "pps": 100000.0, "gbps": 0.05,
    "receive_cycles_per_packet": {"total": 3000, "kernel": 1000,
                                  "app": 2000},
    "cycles_per_packet": {"system": 9000}, "syscalls_per_packet": 0.02,
    "copies_per_packet": 1,
    "budget": {"clock_hz": 2.3e9, "cycles_10g": 154.6,
               "cycles_100g": 15.46},
}


def run(**kw):
    """A made-up run: BASE_RUN with the fields given."""
    r = copy.deepcopy(BASE_RUN)
    r.update(kw)
    return r


def results(runs, **kw):
    """A made-up results.json object around RUNS."""
    r = {"pathlab": 1, "host": {"hostname": "h", "kernel": "6.1",
                                "cpu_model": "Test CPU", "cpus": 2,
                                "date": "2026-01-01T00:00:00Z",
                                "virtualization": "none"},
         "runs": runs}
    r.update(kw)
    return r


class Scratch:
    """A scratch folder, removed at the end of the with block."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="plab-test.")
        return self.path

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
