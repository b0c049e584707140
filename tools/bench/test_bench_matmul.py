"""Checks of bench_matmul.py: it builds its driver, runs odd shapes (edge tiles, batches) at 1 and 2
threads, under each microkernel the CPU runs (XCS_MATMUL_ISA), and the library's results equal
OpenBLAS's (part of `make test-python`, ~5 s)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).parent


class BenchMatmulTest(unittest.TestCase):
    def test_odd_shapes_agree_with_openblas(self):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "m.json"
            r = subprocess.run(
                [sys.executable, str(HERE / "bench_matmul.py"), "--shapes", "3x17x9x33,64x300x70",
                 "--threads", "1,2", "--runs", "3", "--openblas", "none", "--json", str(out)],
                capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = json.loads(out.read_text())
        self.assertEqual([(x["shape"], x["threads"]) for x in rows],
                         [("3x17x9x33", 1), ("3x17x9x33", 2), ("64x300x70", 1), ("64x300x70", 2)])
        for x in rows:
            self.assertLess(x["maxdiff"], 1e-4, x)
            self.assertGreater(x["ratio"], 0.0)
            self.assertEqual(x["clock"], "thread-cpu" if x["threads"] == 1 else "wall")

    def test_every_microkernel_agrees_with_openblas(self):
        # XCS_MATMUL_ISA picks a lesser microkernel than the CPU's best (each has its own tile
        # shape, packing and edge handling); the library reports the one it ran.
        sys.path.insert(0, str(HERE))
        import bench_native

        flags = bench_native.cpu_flags()
        for isa in ("avx2", "generic"):
            if isa == "avx2" and not {"avx2", "fma"} <= flags:
                continue
            with self.subTest(isa=isa), tempfile.TemporaryDirectory() as d:
                out = Path(d) / "m.json"
                r = subprocess.run(
                    [sys.executable, str(HERE / "bench_matmul.py"), "--shapes", "3x17x9x33,100x300x70",
                     "--threads", "1,2", "--runs", "3", "--openblas", "none", "--json", str(out)],
                    capture_output=True, text=True, timeout=300, env=dict(os.environ, XCS_MATMUL_ISA=isa))
                self.assertEqual(r.returncode, 0, r.stderr)
                rows = json.loads(out.read_text())
                self.assertEqual(len(rows), 4)
                for x in rows:
                    self.assertEqual(x["isa"], isa, x)
                    self.assertLess(x["maxdiff"], 1e-4, x)

    def test_bad_shape_is_an_error(self):
        r = subprocess.run([sys.executable, str(HERE / "bench_matmul.py"), "--shapes", "4x0x4"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertIn("expected MxKxN", r.stderr)


if __name__ == "__main__":
    unittest.main()
