"""The order of a compare's runs: rounds, each running every row in turn
(A B C, A B C ...), a row's GPU variant and reference tools beside it."""

import unittest

import plabtest  # noqa: F401 (sets the path)

from plab import engine, paths


def rows(*ids):
    """(row, mode) of the first mode of each path id."""
    return [(paths.first(p), paths.first(p).mode) for p in ids]


class Plan(unittest.TestCase):
    def order(self, specs):
        return [(s.round, s.workload, s.size, s.row.id, s.gpu,
                 s.reference or "") for s in specs]

    def test_rounds_interleave(self):
        specs = engine.plan(rows("socket", "afxdp", "dpdk"), [64],
                            ["throughput", "rtt"], ["none"],
                            {"throughput": 3, "rtt": 1})
        got = [(r, w, p) for r, w, _, p, _, _ in self.order(specs)]
        abc = ["socket", "afxdp", "dpdk"]
        want = [(0, "throughput", p) for p in abc] + \
            [(0, "rtt", p) for p in abc] + \
            [(1, "throughput", p) for p in abc] + \
            [(2, "throughput", p) for p in abc]
        self.assertEqual(got, want)

    def test_sizes_inside_a_round(self):
        specs = engine.plan(rows("socket", "xdp"), [64, 1024],
                            ["latency"], ["none"], {"latency": 2})
        self.assertEqual([(s.round, s.size, s.row.id) for s in specs],
                         [(0, 64, "socket"), (0, 64, "xdp"),
                          (0, 1024, "socket"), (0, 1024, "xdp"),
                          (1, 64, "socket"), (1, 64, "xdp"),
                          (1, 1024, "socket"), (1, 1024, "xdp")])

    def test_gpu_and_references_beside_their_row(self):
        def refs(row, mode, wl):
            return ["sockperf"] if row.id == "socket" else []
        specs = engine.plan(rows("socket", "xdp", "afxdp"), [64],
                            ["throughput"], ["none", "sim"],
                            {"throughput": 1}, refs)
        self.assertEqual([(p, g, r) for _, _, _, p, g, r in
                          self.order(specs)],
                         [("socket", "none", ""), ("socket", "sim", ""),
                          ("socket", "none", "sockperf"),
                          ("xdp", "none", ""),  # xdp drop: no GPU variant
                          ("afxdp", "none", ""), ("afxdp", "sim", "")])

    def test_names_and_trials(self):
        specs = engine.plan(rows("socket"), [64], ["throughput"], ["none"],
                            {"throughput": 3},
                            lambda r, m, w: ["sockperf"])
        self.assertEqual([s.name for s in specs], [
            "socket-recvmmsg-64-throughput",
            "sockperf-socket-recvmmsg-64-throughput",
            "socket-recvmmsg-64-throughput-t1",
            "sockperf-socket-recvmmsg-64-throughput-t1",
            "socket-recvmmsg-64-throughput-t2",
            "sockperf-socket-recvmmsg-64-throughput-t2"])
        self.assertEqual([s.trial for s in specs], [0, 0, 1, 1, 2, 2])


class Variants(unittest.TestCase):
    def test_each_row_once_per_variant_and_set_up_in_turn(self):
        log = []

        def setup(name):
            def up(ctx):
                log.append("up " + name)
                return lambda: log.append("down " + name)
            return up
        vs = [engine.Variant("a", ["--x"], setup("a")),
              engine.Variant("b", ["--y"], setup("b"))]
        specs = engine.plan(rows("socket"), [64], ["throughput"], ["none"],
                            {"throughput": 2}, None, vs)
        self.assertEqual([s.name for s in specs], [
            "socket-recvmmsg-64-throughput-a",
            "socket-recvmmsg-64-throughput-b",
            "socket-recvmmsg-64-throughput-a-t1",
            "socket-recvmmsg-64-throughput-b-t1"])
        cur = (None, None)
        for s in specs:
            cur = engine.switch(cur, s, None)
        engine.switch(cur, None, None)
        self.assertEqual(log, ["up a", "down a", "up b", "down b", "up a",
                               "down a", "up b", "down b"])


class Options(unittest.TestCase):
    def test_trials(self):
        from plab import options
        o = options.parse([])
        self.assertEqual(o.trials, {"throughput": 3, "latency": 3,
                                    "visibility": 1, "rtt": 1})
        self.assertEqual(options.parse(["--quick"]).trials["throughput"], 1)
        o = options.parse(["--trials", "5", "--trials", "rtt=2"])
        self.assertEqual((o.trials["latency"], o.trials["rtt"],
                          o.trials["visibility"]), (5, 2, 1))
        self.assertEqual(options.parse(["--quick", "--trials=2"]).trials[
            "throughput"], 2)
        for bad in (["--trials", "0"], ["--trials", "x=2"], ["--trials"],
                    ["--bogus"], ["--sizes", "63"], ["--paths", ""],
                    ["--napi", "rx-core", "--queues", "2"]):
            with self.assertRaises(options.Usage, msg=bad):
                options.parse(bad)


if __name__ == "__main__":
    unittest.main()
