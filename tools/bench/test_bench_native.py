"""unittest checks of bench_native.py without the LLVM backend or jax: the `bench:` line parser,
the probe's "no LLVM backend" message, and the xcs-run path (timing, --output-dir check, a wrong
result caught) through a fake xcs-run written in Python. Run:
    python3 -m unittest tools/bench/test_bench_native.py      (~2 s; needs numpy)
"""

import argparse
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_native as bn  # noqa: E402

# A fake xcs-run: the LLVM CLI's flags; computes a@b (W2) with numpy, + WRONG (env) when set.
FAKE = r'''#!{python}
import os, sys, numpy as np
a = sys.argv[1:]
if os.environ.get("FAKE_NO_LLVM"):
    print("error: unexpected argument '--bench' found", file=sys.stderr); sys.exit(2)
ins, out = {}, None
for i, x in enumerate(a):
    if x == "--input":
        k, v = a[i + 1].split("=", 1); ins[k] = v
    if x == "--output-dir":
        out = a[i + 1]
want = os.environ.get("FAKE_PIPELINE")
if want is not None:
    got = a[a.index("--pass-pipeline") + 1] if "--pass-pipeline" in a else ""
    if got != want:
        print(f"error: pipeline {got!r}, expected {want!r}", file=sys.stderr); sys.exit(3)
if out:
    r = np.load(ins["a"]) @ np.load(ins["b"]) + float(os.environ.get("FAKE_WRONG", "0"))
    os.makedirs(out, exist_ok=True); np.save(os.path.join(out, "c.npy"), r)
print("bench: entry=main backend=llvm threads=1 calls=3 min_ms=0.500000 median_ms=0.750000 compile_ms=12.5")
'''


class ParseBench(unittest.TestCase):
    def test_llvm_line(self):
        r = bn.parse_bench("bench: entry=main backend=llvm threads=2 calls=10 min_ms=1.5 median_ms=2.0 compile_ms=41.2\n")
        self.assertAlmostEqual(r["min_s"], 1.5e-3)
        self.assertAlmostEqual(r["median_s"], 2.0e-3)
        self.assertAlmostEqual(r["compile_s"], 41.2e-3)

    def test_units_and_no_median(self):
        r = bn.parse_bench("some output\nbench: min: 250 us\n")
        self.assertAlmostEqual(r["min_s"], 250e-6)
        self.assertAlmostEqual(r["median_s"], 250e-6)

    def test_no_line(self):
        self.assertIsNone(bn.parse_bench("y: tensor<8xf32>\n[1. 2.]\n"))


class FakeXcsRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = Path(cls.tmp.name)
        cls.exe = d / "xcs-run"
        cls.exe.write_text(FAKE.replace("{python}", sys.executable))
        cls.exe.chmod(cls.exe.stat().st_mode | stat.S_IEXEC)
        cls.args = argparse.Namespace(cache=str(d / "cache"), runs=3, timeout=60,
                                      pipeline=bn.DEFAULT_PIPELINE)
        cls.w = next(w for w in bn.workloads() if w.name == "W2-256")
        bn.ensure_inputs(Path(cls.args.cache), {k for _, k in cls.w.args})

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def setUp(self):
        os.environ.pop("FAKE_WRONG", None)
        os.environ.pop("FAKE_NO_LLVM", None)

    def test_probe_ok(self):
        self.assertIsNone(bn.probe_xcs(str(self.exe)))

    def test_probe_no_llvm(self):
        os.environ["FAKE_NO_LLVM"] = "1"
        msg = bn.probe_xcs(str(self.exe))
        self.assertIn("xcs-run has no LLVM backend: xcs rows skipped", msg)

    def test_probe_missing(self):
        self.assertIn("not found", bn.probe_xcs(str(Path(self.tmp.name) / "nope")))

    def test_run_and_check(self):
        r = bn.run_xcs(str(self.exe), self.w, 1, self.args, check_it=True)
        self.assertAlmostEqual(r["min_s"], 0.5e-3)
        self.assertTrue(r["check"]["ok"], r)

    def run_with_env(self, env: dict, args=None):
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return bn.run_xcs(str(self.exe), self.w, 1, args or self.args, check_it=True)
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    def test_wrong_result_fails_check(self):
        r = self.run_with_env({"FAKE_WRONG": "0.5"})
        self.assertFalse(r["check"]["ok"])

    def test_pipeline_is_passed(self):
        r = self.run_with_env({"FAKE_PIPELINE": "builtin.module(func.func(fuse))"})
        self.assertNotIn("error", r)
        r = self.run_with_env({"FAKE_PIPELINE": "other"})
        self.assertIn("pipeline", r.get("error", "") + r.get("stderr", ""))
        no_pipeline = argparse.Namespace(**{**vars(self.args), "pipeline": ""})
        r = self.run_with_env({"FAKE_PIPELINE": ""}, no_pipeline)
        self.assertNotIn("error", r)

    def test_goals(self):
        rows = [{"workload": "W2-256", "impl": "xcs", "threads": 1, "min_s": 1.0, "median_s": 1.0},
                {"workload": "W2-256", "impl": "numpy", "threads": 1, "min_s": 0.7, "median_s": 0.7}]
        goals = bn.evaluate([self.w], rows, {}, True)
        self.assertEqual([g["status"] for g in goals], ["MISS"])
        rows[1]["min_s"] = 0.9
        rows[0].pop("status")
        goals = bn.evaluate([self.w], rows, {}, True)
        self.assertEqual([g["status"] for g in goals], ["PASS"])
        self.assertIn("xcs/numpy >= 0.8", bn.fmt_table([self.w], rows, [1]))


if __name__ == "__main__":
    unittest.main()
