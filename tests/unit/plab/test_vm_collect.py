"""compare counts the verbs rows' failures as the harness
(labs/lib/rdma-vm-compare.sh) does: a run it said FAILED, which left
NAME.error, is failed, even where a perftest server printed its result
line before its client failed; runs that passed or were skipped are not."""

import os
import unittest

import plabtest

from plab import engine, paths, run as R, stats, vm

SRV = """ #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 18      1000          20.10          300.00       40.00               45.00        5.00            90.00                  200.00
"""


class Ctx:
    """What Verbs.collect reads of a compare's context."""

    def __init__(self, raw):
        self.raw = raw
        self.ledger = engine.Ledger(raw)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Collect(unittest.TestCase):
    def collect(self, raw, files, rc):
        row = paths.first("verbs")
        specs = [R.Spec(row, "ud", 64, "rtt", "none", 0, 0),
                 R.Spec(row, "ud", 64, "rtt", "none", 0, 0,
                        reference="ib_send_lat"),
                 R.Spec(row, "rc_write_imm", 64, "rtt", "none", 0, 0),
                 R.Spec(row, "rc", 64, "rtt", "none", 0, 0,
                        reference="ib_send_lat")]
        write(os.path.join(raw, "verbs-vm.json"),
              '{"accel": "tcg", "cpus": 2, "kernel": "6.1"}')
        for name, text in files.items():
            write(os.path.join(raw, name), text)
        v = vm.Verbs.__new__(vm.Verbs)
        v.ctx, v.where, v.specs = Ctx(raw), "vm", specs
        v.busy = stats.Busy(2)
        v.collect(rc, os.path.join(raw, "verbs-vm.log"), len(specs))
        return v.ctx.ledger

    def test_harness_failures_are_failures(self):
        why = "sender exit 124 (still running after its 60 s limit: " \
            "stopped by timeout): sent 812 of 1000"
        with plabtest.Scratch() as raw:
            led = self.collect(raw, {
                # ours failed: the harness's reason is the error
                "verbs-ud-64-rtt.error": why + "\n",
                # perftest's server printed its line, its client failed
                "ib_send_lat-verbs-ud-64-rtt.srv": SRV,
                "ib_send_lat-verbs-ud-64-rtt.error":
                    "ib_send_lat exit 1: ...\n",
                "verbs-rc_write_imm-64-rtt.skipped": "no reflect mode\n",
                "ib_send_lat-verbs-rc-64-rtt.srv": SRV,
            }, 1)
        self.assertEqual(sorted(f["name"] for f in led.failures),
                         ["ib_send_lat-verbs-ud-64-rtt", "verbs-ud-64-rtt"])
        self.assertEqual(led.skipped, 1)
        self.assertEqual([r["reference"] for r in led.runs],
                         ["ib_send_lat"])
        self.assertEqual(led.runs[0]["mode"], "rc")
        ours = [f for f in led.failures if f["name"] == "verbs-ud-64-rtt"]
        self.assertEqual(ours[0]["error"], why)

    def test_no_word_from_the_harness(self):
        with plabtest.Scratch() as raw:
            led = self.collect(raw, {
                "ib_send_lat-verbs-ud-64-rtt.srv": SRV,
                "verbs-rc_write_imm-64-rtt.skipped": "no reflect mode\n",
                "ib_send_lat-verbs-rc-64-rtt.srv": SRV,
            }, 1)
        self.assertEqual([f["name"] for f in led.failures],
                         ["verbs-ud-64-rtt"])
        self.assertIn("no result from the harness (exit 1)",
                      led.failures[0]["error"])


if __name__ == "__main__":
    unittest.main()
