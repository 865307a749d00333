"""The merge of a receiver's and the generator's JSON into one run."""

import json
import os
import subprocess
import sys
import unittest

from plabtest import ROOT, Scratch

from plab import merge

RX = {"tool": "pathlab-rx-socket", "path": "socket", "received": 990,
      "end_markers_lost": 1, "sent": 999,
      "drops": {"rx_udp_rcvbuf_errors": 8}}
GEN = {"tool": "pathlab-gen", "sent": 1000,
       "drops": {"tx_udp_sndbuf_errors": 2}}


class Merge(unittest.TestCase):
    def test_sender_knows_sent(self):
        r = merge.merge(RX, GEN)
        self.assertEqual(r["sent"], 1000)
        self.assertEqual(r["sent_source"], "generator")
        self.assertEqual(r["lost"], 10)
        self.assertEqual(r["drops"], {"rx_udp_rcvbuf_errors": 8,
                                      "tx_udp_sndbuf_errors": 2})
        # lost 10 + 1 end marker lost - 10 counted = 1, not clamped
        self.assertEqual(r["unattributed"], 1)
        self.assertEqual(r["gen"], GEN)
        self.assertEqual(r["tool"], "pathlab-rx-socket")
        self.assertNotIn("tcpdump_seen", r)

    def test_no_marker_seen(self):
        # Every marker was dropped (xsk_rx_dropped counted the 3 with the
        # datagrams): the receiver never saw one and cannot say so.
        rx = {"received": 69747, "end_markers": 0, "end_markers_lost": 0,
              "drops": {"xsk_rx_dropped": 109960}}
        gen = {"sent": 300000, "end_markers_sent": 3,
               "drops": {"tx_link_dropped": 120296}}
        self.assertEqual(merge.merge(rx, gen)["unattributed"], 0)
        # One that stopped on its --count before the markers came lost
        # none of them.
        self.assertEqual(merge.merge(
            {"received": 1000, "end_markers": 0, "end_markers_lost": 0},
            {"sent": 1000, "end_markers_sent": 3})["unattributed"], 0)
        # A receiver that saw its marker keeps its own count.
        rx.update(end_markers=1, end_markers_lost=1,
                  drops={"xsk_rx_dropped": 109958})
        self.assertEqual(merge.merge(rx, gen)["unattributed"], 0)

    def test_negative_unattributed_kept(self):
        r = merge.merge({"received": 1000, "drops": {"x": 3}}, {"sent": 1000})
        self.assertEqual(r["lost"], 0)
        self.assertEqual(r["unattributed"], -3)

    def test_shared_counter_summed(self):
        r = merge.merge({"received": 0, "drops": {"x": 1}},
                        {"sent": 5, "drops": {"x": 4}})
        self.assertEqual(r["drops"], {"x": 5})

    def test_tcpdump_env_note_rtt(self):
        g = dict(GEN, rtt={"samples": 900, "min_ns": 1, "mean_ns": 2,
                           "p50_ns": 3, "p99_ns": 4, "p999_ns": 5,
                           "max_ns": 6, "warmup": 100, "timeouts": 0})
        r = merge.merge(RX, g, tcpdump=990, tcpdump_dropped=0,
                        env_note="in a VM")
        self.assertEqual(r["tcpdump_seen"], 990)
        self.assertEqual(r["tcpdump_dropped"], 0)
        self.assertEqual(r["env_note"], "in a VM")
        self.assertEqual(r["rtt_ns"]["kind"], "round_trip")
        self.assertEqual((r["rtt_ns"]["count"], r["rtt_ns"]["p99"],
                          r["rtt_ns"]["warmup"]), (900, 4, 100))

    def test_command(self):
        with Scratch() as d:
            rx, gen = os.path.join(d, "rx.json"), os.path.join(d, "gen.json")
            for path, obj in ((rx, RX), (gen, GEN)):
                with open(path, "w") as f:
                    json.dump(obj, f)
            out = subprocess.run(
                [sys.executable, os.path.join(ROOT, "labs", "plab"), "merge",
                 rx, gen, "--tcpdump", "7"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual(json.loads(out.stdout)["tcpdump_seen"], 7)
            with open(gen, "w") as f:
                f.write("[1]")
            bad = subprocess.run(
                [sys.executable, os.path.join(ROOT, "labs", "plab"), "merge",
                 rx, gen], capture_output=True, text=True)
            self.assertEqual(bad.returncode, 1)
            self.assertIn("gen.json: not a JSON object", bad.stderr)


if __name__ == "__main__":
    unittest.main()
