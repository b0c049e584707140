"""unittest checks of bench_shard.py: the `bench:` line parser, and that the programs it
generates, partitioned by the real xcs-opt (shard-partition), compute their single-device twins
(tiny sizes, run by the real xcs-run with --devices on the JIT; skipped when target/debug's
xcs-run and xcs-opt are not built). Run:
    python3 -m unittest tools/bench/test_bench_shard.py      (~3 s; needs numpy)
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_shard as bs  # noqa: E402

XCS_RUN = Path(__file__).resolve().parents[2] / "target" / "debug" / "xcs-run"
XCS_OPT = XCS_RUN.with_name("xcs-opt")


class BenchShardTest(unittest.TestCase):
    def test_parse_bench_reads_the_median(self):
        line = "bench: ranks=4 entry=part backend=llvm threads=1 calls=5 min_ms=1.5 median_ms=2.25"
        self.assertAlmostEqual(bs.parse_bench("noise\n" + line + "\n"), 2.25e-3)
        with self.assertRaises(RuntimeError):
            bs.parse_bench("no such line")

    def test_mpirun_prefix_oversubscribes(self):
        self.assertEqual(bs.mpirun_prefix(4)[:4], ["mpirun", "-np", "4", "--oversubscribe"])

    @unittest.skipUnless(XCS_RUN.exists() and XCS_OPT.exists(), "xcs-run or xcs-opt is not built")
    def test_partitioned_programs_compute_the_single_device_result(self):
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            for kind in ("mlp", "rows"):
                for n in (1, 2, 4):
                    mlir = d / f"{kind}{n}.mlir"
                    text = bs.partition(str(XCS_OPT), bs.write(d / f"{kind}{n}-in.mlir", bs.program(kind, n, 8, 16, 32)), mlir)
                    self.assertIn("shard.spmd_grid = @grid", text)
                    if n > 1:
                        want = "shard.all_reduce" if kind == "mlp" else "func.func @part(%arg0: tensor<" + str(8 // n) + "x16xf32>"
                        self.assertIn(want, text)
                    ref, out = d / f"{kind}{n}-ref", d / f"{kind}{n}-out"
                    bs.measure(str(XCS_RUN), mlir, "full", "single", 1, 1, 1, ref)
                    bs.measure(str(XCS_RUN), mlir, "part", "devices", n, 1, 1, out)
                    self.assertLess(bs.check(ref, out), 1e-5, f"{kind} on {n} devices")


if __name__ == "__main__":
    unittest.main()
