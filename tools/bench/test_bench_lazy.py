"""unittest checks of bench_lazy.py: a quick run writes every figure (positive numbers), the
memory figure splits into the object and its metadata, and the twenty-op workload computes
what numpy computes (lazily and through xcs.jit). No time is asserted. Run:
    python3 -m unittest tools/bench/test_bench_lazy.py      (~5 s; needs the xcs package)
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_lazy as bl  # noqa: E402


class BenchLazyTest(unittest.TestCase):
    def test_quick_run_writes_every_figure(self):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "lazy.json"
            run = subprocess.run([sys.executable, str(HERE / "bench_lazy.py"), "--quick", "--json", str(out)],
                                 capture_output=True, text=True, timeout=600)
            self.assertEqual(run.returncode, 0, run.stderr)
            figures = json.loads(out.read_text())
        for key in ("intercept_operator_us", "intercept_ufunc_us", "intercept_function_us", "intercept_xnp_us",
                    "intercept_method_us", "intercept_operator_numpy_us", "intercept_new_signature_us",
                    "memory_bytes_per_node", "build_100_s", "build_1000_s", "plan_1000_s", "build_ratio",
                    "cached_materialize_us", "cached_jit_call_us", "cached_numpy_us"):
            self.assertGreater(figures[key], 0, key)
        self.assertAlmostEqual(figures["memory_bytes_per_node"],
                               figures["memory_object_bytes"] + figures["memory_metadata_bytes"])
        for word in ("intercept", "memory", "build", "cached", "goal"):
            self.assertIn(word, run.stdout)

    def test_twenty_ops_agree_with_numpy(self):
        import xcs
        from xcs import lazy
        rng = np.random.default_rng(3)
        a, w = rng.standard_normal((8, 8)).astype(np.float32), rng.standard_normal((8, 8)).astype(np.float32)
        expected = bl.twenty_ops(a, w)
        np.testing.assert_allclose(bl.twenty_ops(lazy.asarray(a), lazy.asarray(w)).numpy(), expected, rtol=1e-4)
        np.testing.assert_allclose(xcs.jit(bl.twenty_ops)(a, w), expected, rtol=1e-4)


if __name__ == "__main__":
    unittest.main()
