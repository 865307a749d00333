"""The comparison table: medians with ranges, the rows that cannot be
told apart, references, busy rows, and one line per run."""

import unittest

from plabtest import results, run

from plab import table
from plab.summary import summarize


def three(path, mode, kpps, **kw):
    """Three trials of one row at the rates KPPS."""
    return [run(path=path, mode=mode, pps=v * 1000.0, trial=t, **kw)
            for t, v in enumerate(kpps)]


class Table(unittest.TestCase):
    def lines(self, runs):
        r = results(runs)
        r["summary"] = summarize(runs)
        return table.comparison(r)

    def test_spread_and_marks(self):
        text = "\n".join(self.lines(
            three("socket", "recvmmsg", (100, 110, 105))
            + three("afxdp", "copy", (300, 320, 310))
            + three("dpdk", "af_xdp", (90, 200, 120))))
        self.assertIn("median (min-max) of up to 3 trials", text)
        rows = {l.split()[1]: l for l in text.splitlines()
                if l.startswith("  ") and l.split()[0] in "abc"}
        self.assertIn("105.0 (100.0-110.0) ~c", rows["socket"])
        self.assertIn("310.0 (300.0-320.0)", rows["afxdp"])
        self.assertNotIn("~", rows["afxdp"].split("310.0")[1][:20])
        self.assertIn("120.0 (90.0-200.0) ~a", rows["dpdk"])
        self.assertIn("~x: not distinguishable from row x", text)
        self.assertIn("budget 64 B at 2.30 GHz: 10 GbE 154.6", text)

    def test_reference_line(self):
        text = "\n".join(self.lines(
            three("socket", "recvmmsg", (100, 110, 105))
            + three("socket", "recvmmsg", (50, 52, 51),
                    reference="sockperf", tool="sockperf")))
        self.assertIn("sockperf (vs socket recvmmsg)", text)
        self.assertIn("socket recvmmsg / sockperf at 64 B: kpps 2.06 (ranges"
                      " separate)", text)

    def test_also_compared(self):
        runs = three("dpdk", "af_xdp", (100, 110, 105)) + \
            three("afxdp", "copy", (300, 320, 310))
        for t, v in enumerate((200, 210, 205)):
            runs.append(run(path="dpdk", mode="af_xdp", reference="testpmd",
                            tool="dpdk-testpmd", pps=v * 1000.0, trial=t,
                            also_compared_with=[{"path": "afxdp",
                                                 "mode": "copy"}]))
        text = "\n".join(self.lines(runs))
        self.assertIn("dpdk af_xdp / testpmd at 64 B: kpps 0.51", text)
        self.assertIn("afxdp copy / testpmd at 64 B: kpps 1.51 (ranges"
                      " separate)", text)

    def test_busy_and_rtt(self):
        busy = {"loadavg_start": 5.0, "loadavg_end": 1.0,
                "steal_share": 0.0, "cpus": 2}
        runs = three("socket", "recvmmsg", (1, 2, 3))
        runs[1].update(busy=busy, machine_busy=True,
                       machine_busy_why="load average 5.00 at the start,"
                       " over 2 CPUs")
        runs.append(run(workload="rtt", rtt_ns={"p50": 40000, "p99": 90000,
                                                "p999": 99000}))
        text = "\n".join(self.lines(runs))
        self.assertIn("socket recvmmsg (busy)", text)
        self.assertIn("busy: socket recvmmsg, 64 B: 1 of 3 trials (load"
                      " average 5.00 at the start", text)
        self.assertTrue(any(l.startswith("rtt rows: p50/p99/p99.9 are whole"
                                         " round trips")
                            for l in text.splitlines()))
        self.assertIn("40.0", text)

    def test_runs_table(self):
        runs = three("socket", "recvmmsg", (100, 110, 105))
        lines = table.runs_table(results(runs))
        self.assertEqual(len(lines), 4)
        self.assertTrue(lines[0].startswith("path"))
        self.assertEqual([l.split()[7] for l in lines[1:]], ["0", "1", "2"])


class Header(unittest.TestCase):
    def test_background(self):
        from plab import markdown
        h = {"date": "d", "cpu_model": "m", "cpus": 2, "kernel": "k",
             "virtualization": "none", "loadavg_start": 0.2,
             "loadavg_end": 1.7}
        self.assertNotIn("no traffic", markdown.header(h, 64, []))
        h.update(background_cpus_start=0.01, background_cpus_end=0.03)
        text = markdown.header(h, 64, [])
        self.assertIn("load average 0.2 at the start, 1.7 at the end", text)
        self.assertIn("with no traffic, 0.01 and 0.03 CPUs busy", text)


if __name__ == "__main__":
    unittest.main()
