"""unittest checks of bench_shard_upstream.py: the cost model's collective prices, that both
generated programs of every workload are accepted by their tools (XCS's auto-shard +
shard-partition and MLIR 22's sharding-propagation + shard-partition), that XCS's program holds
only the user's constraints (the plan is auto-shard's), that auto-shard's total_time_s equals
the repriced SPMD program (whose collectives are the report's one for one) and is never above
upstream's (the optimum under the same constraints), that pricing upstream's output counts the FLOPs of the same ops as XCS's, the
K-split case where XCS's reduce_scatter beats upstream's plan, and that the `ew` plan follows
the model (latency-bound small sizes: upstream's one gather; default sizes: two cheaper
collectives). Uses $XCS_OPT, else target/debug/xcs-opt, else target/release/xcs-opt; skipped
without one or without mlir-opt. Run:
    python3 -m pytest -q tools/bench/test_bench_shard_upstream.py      (~5 s)
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_shard_upstream as bu  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def find_xcs_opt() -> Path:
    if os.environ.get("XCS_OPT"):
        return Path(os.environ["XCS_OPT"])
    debug = ROOT / "target" / "debug" / "xcs-opt"
    return debug if debug.exists() else ROOT / "target" / "release" / "xcs-opt"


XCS_OPT = find_xcs_opt()
TOOLS = XCS_OPT.exists() and Path(bu.MLIR_OPT).exists()


class PricingTest(unittest.TestCase):
    def test_collectives_are_priced_by_table_3_1(self):
        mesh = bu.Mesh(shape=(4,), alpha=(1e-5,), bandwidth=(1e9,))
        text = (
            "%a = shard.all_reduce %x on @mesh grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>\n"
            "%b = shard.all_gather %x on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x16xf32> -> tensor<8x16xf32>\n"
            "%c = shard.all_slice %x on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>\n"
        )
        got = bu.collectives(text, mesh)
        self.assertEqual([c.kind for c in got], ["all_reduce", "all_gather", "all_slice"])
        s = 8 * 16 * 4
        self.assertAlmostEqual(got[0].time_s, 1e-5 + 2 * 3 / 4 * s / 1e9)
        self.assertAlmostEqual(got[1].time_s, 1e-5 + 3 / 4 * (4 * 2 * 16 * 4) / 1e9)
        self.assertEqual(got[2].time_s, 0.0)

    def test_a_collective_over_two_axes_is_the_cheapest_chain_of_single_axis_steps(self):
        mesh = bu.Mesh(shape=(2, 4), alpha=(1e-5, 1e-6), bandwidth=(1e9, 1e10))
        s = 1024.0
        gather_a_then_b = (1e-5 + 1 * s / 1e9) + (1e-6 + 3 * (2 * s) / 1e10)
        gather_b_then_a = (1e-6 + 3 * s / 1e10) + (1e-5 + 1 * (4 * s) / 1e9)
        self.assertAlmostEqual(bu.collective_time("all_gather", [0, 1], s, mesh), min(gather_a_then_b, gather_b_then_a))
        reduce = (1e-5 + 2 * 1 / 2 * s / 1e9) + (1e-6 + 2 * 3 / 4 * s / 1e10)
        self.assertAlmostEqual(bu.collective_time("all_reduce", [1, 0], s, mesh), reduce)


@unittest.skipUnless(TOOLS, "xcs-opt or mlir-opt is missing")
class CompareTest(unittest.TestCase):
    rows_by_size: dict = {}

    def rows(self, sizes=(8, 16, 32, 64)):
        if sizes not in self.rows_by_size:
            with tempfile.TemporaryDirectory() as d:
                mesh = bu.Mesh()
                self.rows_by_size[sizes] = {w.name: bu.compare(w, mesh, str(XCS_OPT), Path(d))
                                            for w in bu.workloads(*sizes)}
        return self.rows_by_size[sizes]

    def test_xcs_program_holds_only_the_constraints_upstream_gets(self):
        for w in bu.workloads(8, 16, 32, 64):
            text = bu.xcs_program(w, "4")
            given = sum(1 for _, _, s in w.args if s is not None)
            self.assertEqual(text.count("shard.shard "), given + 1, w.name)
            self.assertEqual(text.count("annotate_for_users"), 1, w.name)
            self.assertEqual(bu.upstream_program(w, "4").count("shard.shard "), given + 1, w.name)

    def test_every_workload_runs_through_both_partitioners_with_equal_compute(self):
        rows = self.rows()
        self.assertEqual(set(rows), {"mlp", "ksplit", "dp", "ew", "mlp2d"})
        for name, r in rows.items():
            self.assertGreater(r["xcs"]["compute_s"], 0, name)
            # the same ops on the same number of devices: the same FLOPs
            self.assertAlmostEqual(r["xcs"]["compute_s"], r["upstream"]["compute_s"], msg=name)
        self.assertEqual(rows["mlp"]["xcs"]["collectives"], ["all_reduce[0] tensor<8x16xf32>"])
        self.assertEqual(rows["dp"]["upstream"]["collectives"], [])
        self.assertEqual(rows["dp"]["xcs"]["collectives"], [])
        self.assertEqual(rows["mlp2d"]["xcs"]["collectives"], ["all_reduce[1] tensor<4x16xf32>"])

    def test_auto_shards_total_is_the_repriced_program_and_at_most_upstreams(self):
        for sizes in ((8, 16, 32, 64), (256, 1024, 4096, 8192)):
            for name, r in self.rows(sizes).items():
                x = r["xcs"]
                self.assertTrue(x["plan_optimal"], name)
                self.assertAlmostEqual(x["plan_total_s"], x["total_s"], delta=1e-9 * x["total_s"], msg=name)
                self.assertTrue(x["plan_agrees"], name)
                # the partitioned program emits the report's collectives one for one
                emitted = [c.split("[")[0] for c in x["collectives"]]
                self.assertEqual(sorted(x["plan_collectives"]), sorted(emitted), name)
                # upstream's plan satisfies the same constraints: the optimum cannot be worse
                self.assertLessEqual(x["total_s"], r["upstream"]["total_s"] * (1 + 1e-9), name)

    def test_a_k_split_wanted_by_rows_is_one_reduce_scatter_in_xcs(self):
        r = self.rows()["ksplit"]
        self.assertEqual([c.split("[")[0] for c in r["xcs"]["collectives"]], ["reduce_scatter"])
        self.assertNotIn("reduce_scatter", " ".join(r["upstream"]["collectives"]))
        self.assertGreater(r["ratio_upstream_over_xcs"], 1.0)

    def test_the_ew_plan_follows_the_model(self):
        # tiny tensors: latency dominates, one gather of W (upstream's plan) is the optimum
        small = self.rows()["ew"]
        self.assertEqual(small["xcs"]["collectives"], small["upstream"]["collectives"])
        # default sizes: gathering tanh(x) and moving y (smaller than W) is cheaper
        big = self.rows((256, 1024, 4096, 8192))["ew"]
        self.assertEqual([c.split("[")[0] for c in big["xcs"]["collectives"]], ["all_gather", "all_to_all"])
        self.assertGreater(big["ratio_upstream_over_xcs"], 2.0)


if __name__ == "__main__":
    unittest.main()
