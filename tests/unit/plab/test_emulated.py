"""Rows on an emulated CPU (the Soft-RoCE VM under TCG): how the VM ran in
every table, their own group and panel, never compared with host rows;
under KVM beside the others as software RDMA."""

import os
import unittest

from plabtest import Scratch, results, run

from plab import emulated, plots, table
from plab.summary import summarize

TCG = {"accel": "tcg", "cpus": 2, "kernel": "6.1.0-57-amd64"}


def verbs(mode, kpps, vm=TCG, trial=0, **kw):
    """A verbs run made in the VM (VM None: one made before the VM said
    how it ran)."""
    kw.setdefault("tool", "pathlab-rx-verbs")
    r = run(path="verbs", mode=mode, env="vm-softroce", pps=kpps * 1000.0,
            trial=trial, **kw)
    if vm is not None:
        emulated.run_fields(r, vm)
    return r


def host(kpps, trial=0):
    """A socket run on the host."""
    return run(pps=kpps * 1000.0, trial=trial)


class Emulated(unittest.TestCase):
    def test_fields(self):
        r = verbs("rc", 10)
        self.assertEqual(r["vm"], TCG)
        self.assertIs(r["comparable_with_host"], False)
        k = verbs("rc", 10, vm=dict(TCG, accel="kvm"))
        self.assertIs(k["comparable_with_host"], True)
        old = verbs("rc", 10, vm=None)
        self.assertFalse(emulated.comparable(old))
        self.assertEqual(emulated.how(old), "accel not recorded")
        self.assertTrue(emulated.comparable(host(100)))
        # What the VM measured itself stays under how it ran.
        r = run(path="verbs", vm={"rx_cpu_ksoftirqd_s": 0.5})
        emulated.run_fields(r, TCG)
        self.assertEqual(r["vm"]["rx_cpu_ksoftirqd_s"], 0.5)
        self.assertEqual(r["vm"]["accel"], "tcg")

    def test_table_groups(self):
        # Overlapping ranges across the groups are no overlap.
        runs = [host(v, t) for t, v in enumerate((10, 12, 11))] + \
            [verbs("rc", v, trial=t) for t, v in enumerate((10, 13, 11))]
        r = results(runs)
        r["summary"] = summarize(runs)
        for e in r["summary"]:
            self.assertEqual(e["not_distinguishable"], {})
        self.assertEqual([e["comparable_with_host"] for e in r["summary"]],
                         [True, False])
        self.assertEqual(r["summary"][1]["vm"], TCG)
        lines = table.comparison(r)
        self.assertTrue(lines[0].startswith("verbs rows: Soft-RoCE in a"
                                            " qemu guest under TCG with 2"
                                            " vCPUs"), lines[0])
        text = "\n".join(lines)
        mark = [i for i, l in enumerate(lines) if emulated.MARK in l
                and l.startswith("  --")]
        self.assertEqual(len(mark), 1)
        self.assertIn("socket recvmmsg", lines[mark[0] - 1])
        self.assertIn("verbs rc", lines[mark[0] + 1])
        self.assertIn("vm-softroce (tcg, 2 vCPUs)", text)
        self.assertIn("vm-softroce (tcg, 2 vCPUs)",
                      "\n".join(table.runs_table(r)))

    def test_kvm_beside(self):
        runs = [host(10), verbs("rc", 10, vm=dict(TCG, accel="kvm"))]
        r = results(runs)
        lines = table.comparison(r)
        self.assertIn("software RDMA", lines[0])
        self.assertFalse(any(l.startswith("  --") for l in lines))
        s = plots.series(r)
        self.assertEqual([x["emulated"] for x in s], [False, False])
        self.assertIn("software RDMA", s[1]["tic"])

    def test_reference_ratio(self):
        runs = [verbs("rc", v, trial=t) for t, v in enumerate((10, 11))]
        runs += [verbs("rc", v, trial=t, reference="ib_send_bw",
                       tool="ib_send_bw", receive_cycles_per_packet=None,
                       cycles_per_packet=None)
                 for t, v in enumerate((20, 22))]
        text = "\n".join(table.comparison(results(runs)))
        self.assertIn("verbs rc / ib_send_bw at 64 B: kpps 0.50 (ranges"
                      " separate) (same VM: the figure to read)", text)

    def test_plot_panels(self):
        runs = [host(100), verbs("rc", 10)]
        r = results(runs)
        s = plots.series(r)
        self.assertEqual([x["emulated"] for x in s], [False, True])
        if plots.mpl() is None:
            self.skipTest("no matplotlib")
        from plab import plots_draw
        fig = plots_draw.rate(plots.mpl(), r)
        self.assertEqual(len(fig.axes), 2)
        titles = [a.get_title() for a in fig.axes]
        self.assertIn(emulated.MARK, titles[1])
        fig = plots_draw.cpu(plots.mpl(), r)
        self.assertEqual(len(fig.axes), 2)
        # No budget in the emulated panel.
        self.assertFalse(fig.axes[1].collections and any(
            "GbE" in t.get_text() for t in fig.axes[1].texts))
        with Scratch() as d:
            self.assertEqual(plots.write(r, d), 0)
            self.assertTrue(os.path.isfile(os.path.join(d, "cpu.svg")))


if __name__ == "__main__":
    unittest.main()
