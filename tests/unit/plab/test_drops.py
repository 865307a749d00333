"""The kernel's other drop points as reference rows of XDP drop: which
rows get them, how their counters are read, and that a reference row
stands beside our row whatever placement ours reports."""

import json
import unittest
from unittest import mock

from plabtest import results, run

from plab import drops, engine, options, paths, references, table
from plab.run import RunFail
from plab.summary import summarize


class Refs(unittest.TestCase):
    def refs(self, argv, have=True):
        o = options.parse(argv)
        with mock.patch("shutil.which", lambda c: "/bin/" + c if have
                        else None):
            return references.References(o)

    def test_xdp_drop_gets_the_drop_points(self):
        r = self.refs(["--references"])
        xdp = paths.first("xdp")
        self.assertEqual(r.of(xdp, "drop", "throughput"),
                         ["xdp-skb", "tc-drop", "nft-raw"])
        self.assertEqual(r.of(xdp, "drop", "latency"), [])
        self.assertEqual(r.of(paths.first("afxdp"), "copy", "throughput"),
                         [])

    def test_missing_tools_and_other_labs(self):
        # xdp-skb is our own receiver: it needs no tool of its own.
        self.assertEqual(self.refs(["--references"], have=False).of(
            paths.first("xdp"), "drop", "throughput"), ["xdp-skb"])
        self.assertEqual(self.refs(["--references", "--queues", "2"]).of(
            paths.first("xdp"), "drop", "throughput"), [])

    def test_plan_puts_them_after_xdp_drop(self):
        r = self.refs(["--references"])
        specs = engine.plan([(paths.first("xdp"), "drop")], [64],
                            ["throughput"], ["none"], {"throughput": 2},
                            r.of)
        self.assertEqual([s.name for s in specs], [
            "xdp-drop-64-throughput",
            "xdp-skb-xdp-drop-64-throughput",
            "tc-drop-xdp-drop-64-throughput",
            "nft-raw-xdp-drop-64-throughput",
            "xdp-drop-64-throughput-t1",
            "xdp-skb-xdp-drop-64-throughput-t1",
            "tc-drop-xdp-drop-64-throughput-t1",
            "nft-raw-xdp-drop-64-throughput-t1"])


class Counters(unittest.TestCase):
    def answer(self, text):
        return mock.Mock(ret=0, stdout=text, stderr="")

    def test_clsact_drops(self):
        qdiscs = [{"kind": "noqueue", "drops": 5},
                  {"kind": "clsact", "packets": 12, "drops": 7}]
        with mock.patch.object(drops, "in_rx",
                               return_value=self.answer(json.dumps(qdiscs))):
            self.assertEqual(drops.clsact_drops("pl-rx0"), 7)
        with mock.patch.object(drops, "in_rx",
                               return_value=self.answer("[]")):
            with self.assertRaises(RunFail):
                drops.clsact_drops("pl-rx0")

    def test_nft_rule_and_count(self):
        s = drops.nft_script()
        self.assertIn("hook prerouting priority raw", s)
        self.assertIn("udp dport 9000 counter drop", s)
        self.assertIn("delete table inet %s" % drops.NFT_TABLE, s)
        listing = {"nftables": [
            {"metainfo": {}}, {"table": {"name": drops.NFT_TABLE}},
            {"rule": {"expr": [{"match": {}}, {"counter": {
                "packets": 41, "bytes": 1886}}, {"drop": None}]}}]}
        with mock.patch.object(drops, "in_rx", return_value=self.answer(
                json.dumps(listing))):
            self.assertEqual(drops.nft_count(), 41)

    def test_never_more_than_sent(self):
        ctx = mock.Mock(env="veth-napi", tsc_hz=1e9)
        spec = mock.Mock(reference="tc-drop", mode="drop",
                         workload="throughput", size=64)
        spec.row.id = "xdp"
        m = {"rx_s": 0.0, "napi_s": 0.5, "busy_s": 1.0}
        r = drops.finish(ctx, spec, "tc", {"sent": 100, "duration_s": 1.0},
                         m, 103)
        self.assertEqual((r["received"], r["lost"], r["pps"]),
                         (100, 0, 100.0))
        self.assertEqual(r["core_cycles_per_packet"], 0.5e9 / 100)
        self.assertEqual((r["path"], r["reference"], r["tool"]),
                         ("xdp", "tc-drop", "tc"))


class Beside(unittest.TestCase):
    def test_reference_beside_a_placed_row(self):
        place = {"napi": "rx-core", "label": "NAPI on rx core"}
        runs = [run(path="xdp", mode="drop", pps=v * 1000.0, trial=t,
                    placement=place) for t, v in enumerate((300, 310, 305))]
        runs += [run(path="xdp", mode="drop", reference="tc-drop",
                     tool="tc", pps=v * 1000.0, trial=t)
                 for t, v in enumerate((100, 102, 101))]
        r = results(runs)
        r["summary"] = summarize(runs)
        text = "\n".join(table.comparison(r))
        self.assertIn("xdp drop [NAPI on rx core] / tc-drop at 64 B: kpps"
                      " 3.02 (ranges separate)", text)
        # Our row first, its reference after it.
        self.assertEqual([e["row"] for e in r["summary"]],
                         ["xdp drop [NAPI on rx core]",
                          "tc-drop (vs xdp drop)"])

    def test_no_guess_between_two_placements(self):
        runs = []
        for label in ("NAPI on rx core", "NAPI on cpu 0"):
            runs += [run(path="xdp", mode="drop", trial=t,
                         placement={"label": label}) for t in range(2)]
        runs += [run(path="xdp", mode="drop", reference="tc-drop",
                     tool="tc", trial=t) for t in range(2)]
        ref = [e for e in summarize(runs) if e.get("reference")][0]
        self.assertNotIn("ours", ref)


if __name__ == "__main__":
    unittest.main()
