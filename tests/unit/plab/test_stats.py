"""Statistics: medians, spreads, overlaps, ratios, busy runs."""

import unittest

from plabtest import run

from plab import stats, summary


class Median(unittest.TestCase):
    def test_odd_even_none(self):
        self.assertEqual(stats.median([3, 1, 2]), 2)
        self.assertEqual(stats.median([4, 1, 3, 2]), 2.5)
        self.assertIsNone(stats.median([]))
        self.assertEqual(stats.median([None, 5]), 5)

    def test_spread(self):
        self.assertEqual(stats.spread([5, 1, 9]),
                         {"median": 5, "min": 1, "max": 9, "n": 3})
        self.assertIsNone(stats.spread([None]))


class Overlap(unittest.TestCase):
    def sp(self, lo, hi, n=3):
        return {"median": (lo + hi) / 2, "min": lo, "max": hi, "n": n}

    def test_overlap(self):
        self.assertTrue(stats.overlap(self.sp(1, 5), self.sp(4, 9)))
        self.assertTrue(stats.overlap(self.sp(1, 5), self.sp(5, 9)))
        self.assertFalse(stats.overlap(self.sp(1, 5), self.sp(6, 9)))

    def test_separate_needs_trials(self):
        self.assertTrue(stats.separate(self.sp(1, 2), self.sp(3, 4)))
        self.assertFalse(stats.separate(self.sp(1, 2, 1), self.sp(3, 4)))

    def test_ratio(self):
        self.assertEqual(stats.ratio({"median": 6}, {"median": 3}), 2)
        self.assertIsNone(stats.ratio({"median": 6}, {"median": 0}))


class Figures(unittest.TestCase):
    def test_latency_only_with_samples(self):
        r = run(workload="latency", latency_ns={"count": 0, "p50": 5})
        self.assertIsNone(stats.figure(r, "latency_p50_ns"))
        r["latency_ns"]["count"] = 10
        self.assertEqual(stats.figure(r, "latency_p50_ns"), 5)

    def test_kpps_loss(self):
        r = run(pps=250000.0, sent=1000, lost=250)
        self.assertEqual(stats.figure(r, "kpps"), 250)
        self.assertEqual(stats.figure(r, "loss"), 0.25)


class Busy(unittest.TestCase):
    def test_load_steal_contended(self):
        r = run(busy={"loadavg_start": 3.5, "loadavg_end": 0.5,
                      "steal_share": 0.2, "cpus": 2})
        stats.mark(r)
        self.assertTrue(r["machine_busy"])
        self.assertIn("load average 3.50 at the start, over 2 CPUs",
                      r["machine_busy_why"])
        self.assertIn("steal 20 %", r["machine_busy_why"])
        q = stats.mark(run(busy={"loadavg_start": 1, "loadavg_end": 1.9,
                                 "steal_share": 0.05, "cpus": 2}))
        self.assertFalse(q["machine_busy"])
        self.assertNotIn("machine_busy_why", q)
        c = stats.mark(run(contended=True))
        self.assertTrue(c["machine_busy"])
        self.assertIn("contended", c["machine_busy_why"])


class Background(unittest.TestCase):
    def test_busy_share(self):
        # user nice system idle iowait irq softirq steal
        a = [100, 0, 50, 800, 50, 0, 0, 0]
        b = [150, 0, 100, 1700, 50, 0, 0, 0]
        self.assertAlmostEqual(stats.busy_share(a, b), 0.1)
        self.assertEqual(stats.busy_share(a, a), 0.0)

    def test_background_cpus(self):
        v = stats.background_cpus(0.05)
        self.assertGreaterEqual(v, 0.0)
        self.assertLessEqual(v, float(__import__("os").cpu_count()))


class Summary(unittest.TestCase):
    def runs(self):
        out = []
        for t, (a, b, c) in enumerate([(100, 300, 120), (110, 320, 90),
                                       (105, 310, 200)]):
            out.append(run(pps=a * 1000.0, trial=t))
            out.append(run(path="afxdp", mode="copy", pps=b * 1000.0,
                           trial=t))
            out.append(run(path="dpdk", mode="af_xdp", pps=c * 1000.0,
                           trial=t))
        return out

    def test_medians_and_overlaps(self):
        s = summary.summarize(self.runs())
        by = {e["row"]: e for e in s}
        sock = by["socket recvmmsg"]
        self.assertEqual(sock["trials"], 3)
        self.assertEqual(sock["figures"]["kpps"],
                         {"median": 105, "min": 100, "max": 110, "n": 3})
        # socket 100-110 and dpdk 90-200 overlap; afxdp 300-320 neither.
        self.assertEqual(sock["not_distinguishable"].get("kpps"),
                         ["dpdk af_xdp"])
        self.assertNotIn("kpps", by["afxdp copy"]["not_distinguishable"])
        self.assertEqual(by["dpdk af_xdp"]["not_distinguishable"]["kpps"],
                         ["socket recvmmsg"])

    def test_single_trial_is_never_marked(self):
        s = summary.summarize([run(), run(path="afxdp", mode="copy")])
        self.assertTrue(all(not e["not_distinguishable"] for e in s))

    def test_reference_ratio(self):
        runs = self.runs()
        for t, v in enumerate((50, 52, 51)):
            runs.append(run(reference="sockperf", tool="sockperf",
                            pps=v * 1000.0, trial=t))
        s = summary.summarize(runs)
        ref = [e for e in s if e.get("reference")][0]
        self.assertEqual(ref["row"], "sockperf (vs socket recvmmsg)")
        self.assertEqual(ref["ours"], "socket recvmmsg")
        self.assertAlmostEqual(ref["vs_ours"]["kpps"]["ratio"], 105 / 51)
        self.assertTrue(ref["vs_ours"]["kpps"]["separate"])

    def test_placement_is_its_own_row(self):
        a = run(placement={"napi": "other-core", "label": "NAPI elsewhere"})
        s = summary.summarize([run(), a])
        self.assertEqual(len(s), 2)
        self.assertIn("socket recvmmsg [NAPI elsewhere]",
                      [e["row"] for e in s])


if __name__ == "__main__":
    unittest.main()
