"""unittest checks of bench_shard_upstream.py: the cost model's collective prices, that both
generated programs of every workload are accepted by their tools (XCS's shard-partition and
MLIR 22's sharding-propagation + shard-partition), that pricing upstream's output counts the
FLOPs of the same ops as XCS's, and the K-split case where XCS's reduce_scatter beats
upstream's plan. Skipped without target/debug/xcs-opt or mlir-opt. Run:
    python3 -m pytest -q tools/bench/test_bench_shard_upstream.py      (~3 s)
"""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_shard_upstream as bu  # noqa: E402

XCS_OPT = Path(__file__).resolve().parents[2] / "target" / "debug" / "xcs-opt"
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
    def rows(self):
        with tempfile.TemporaryDirectory() as d:
            mesh = bu.Mesh()
            return {w.name: bu.compare(w, mesh, str(XCS_OPT), Path(d)) for w in bu.workloads(8, 16, 32, 64)}

    def test_every_workload_runs_through_both_partitioners_with_equal_compute(self):
        rows = self.rows()
        self.assertEqual(set(rows), {"mlp", "ksplit", "dp", "ew", "mlp2d"})
        for name, r in rows.items():
            self.assertGreater(r["xcs"]["compute_s"], 0, name)
            # the same ops on the same number of devices: the same FLOPs
            self.assertAlmostEqual(r["xcs"]["compute_s"], r["upstream"]["compute_s"], msg=name)
        self.assertEqual(rows["mlp"]["xcs"]["collectives"], ["all_reduce[0] tensor<8x16xf32>"])
        self.assertEqual(rows["dp"]["upstream"]["collectives"], [])
        self.assertEqual(rows["mlp2d"]["xcs"]["collectives"], ["all_reduce[1] tensor<4x16xf32>"])

    def test_a_k_split_wanted_by_rows_is_one_reduce_scatter_in_xcs(self):
        r = self.rows()["ksplit"]
        self.assertEqual([c.split("[")[0] for c in r["xcs"]["collectives"]], ["reduce_scatter"])
        self.assertNotIn("reduce_scatter", " ".join(r["upstream"]["collectives"]))
        self.assertGreater(r["ratio_upstream_over_xcs"], 1.0)


if __name__ == "__main__":
    unittest.main()
