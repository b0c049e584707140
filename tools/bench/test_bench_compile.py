"""unittest checks of bench_compile.py's harness (no timing, no LLVM, no jax): the parsers of
xcs-run's `bench:`/`phase:` lines and of the workers' result lines, the medians over fresh
processes, the ratios and the table, the goal lines, and the xcs-run path end to end through a
fake xcs-run written in Python (including a failing one). Run:
    python3 -m pytest -q tools/bench/test_bench_compile.py      (~2 s)
"""

import argparse
import os
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_compile as bc  # noqa: E402

XCS_RUN_OUT = """bench: entry=main backend=llvm threads=2 calls=5 min_ms=1.000000 median_ms=2.000000 compile_ms=100.000000 first_call_ms=5.000000
"""
PHASES = """phase: name=lower wall_ms=1.000 cpu_ms=0.500
phase: name=optimize wall_ms=60.000 cpu_ms=30.000
phase: name=codegen wall_ms=39.000 cpu_ms=19.500
phase: name=total wall_ms=100.000 cpu_ms=50.000 ir_bytes=1234 ir_functions=5
"""

# A fake xcs-run: checks the flags the harness passes, prints the lines above (or fails).
FAKE = r'''#!{python}
import os, sys
a = sys.argv[1:]
assert "--time-phases" in a and "--bench" in a and a[a.index("--entry") + 1] == "main", a
assert a.count("--input") == int(os.environ.get("FAKE_INPUTS", "1")), a
if os.environ.get("FAKE_FAIL"):
    print("error: the module does not verify", file=sys.stderr); sys.exit(1)
sys.stdout.write({bench!r}); sys.stderr.write({phases!r})
'''


class Parsers(unittest.TestCase):
    def test_xcs_run_lines(self):
        r = bc.parse_xcs_run(XCS_RUN_OUT + PHASES)
        self.assertAlmostEqual(r["compile_s"], 0.1)
        self.assertAlmostEqual(r["steady_s"], 0.002)
        self.assertAlmostEqual(r["first_run_s"], 0.005)
        self.assertAlmostEqual(r["first_call_s"], 0.105)
        self.assertEqual(list(r["phases"]), ["lower", "optimize", "codegen"])
        self.assertAlmostEqual(r["phases"]["optimize"]["cpu_s"], 0.03)
        self.assertAlmostEqual(r["compile_cpu_s"], 0.05)  # the total line, not the sum

    def test_xcs_run_without_phases_or_compile(self):
        r = bc.parse_xcs_run(XCS_RUN_OUT)
        self.assertNotIn("phases", r)
        self.assertNotIn("compile_cpu_s", r)
        # the interpreter's bench line has no compile time: not a JIT figure
        self.assertIsNone(bc.parse_xcs_run("bench: entry=main backend=interp threads=1 calls=1 min_ms=1 median_ms=1\n"))
        self.assertIsNone(bc.parse_xcs_run("y: tensor<2xf32>\n"))

    def test_worker_line(self):
        self.assertEqual(bc.parse_worker('noise\nRESULT {"first_call_s": 0.5}\n'), {"first_call_s": 0.5})
        self.assertIsNone(bc.parse_worker("Traceback ...\n"))


class Aggregation(unittest.TestCase):
    def test_median_rows(self):
        rows = [{"compile_s": x, "phases": {"opt": {"wall_s": x, "cpu_s": x / 2}}} for x in (3.0, 1.0, 2.0)]
        rows[1]["steady_s"] = 7.0  # a figure only one process has
        m = bc.median_rows(rows)
        self.assertEqual(m["procs"], 3)
        self.assertEqual(m["compile_s"], 2.0)
        self.assertEqual(m["steady_s"], 7.0)
        self.assertEqual(m["phases"]["opt"], {"wall_s": 2.0, "cpu_s": 1.0})
        self.assertEqual(bc.median_rows([]), {})

    def test_ratio_and_goal(self):
        self.assertAlmostEqual(bc.ratio(1.0, 4.0), 0.25)
        self.assertIsNone(bc.ratio(None, 1.0))
        self.assertIsNone(bc.ratio(1.0, 0.0))
        results = {"A": {"xcs-run": {"compile_s": 0.1, "compile_cpu_s": 0.05}, "jax": {"compile_s": 0.2, "compile_cpu_s": 0.1}},
                   "B": {"xcs-run": {"compile_s": 0.3}, "jax": {"compile_s": 0.2}},
                   "C": {"xcs-run": {"error": "exit 1"}, "jax": {"compile_s": 0.2}},
                   "D": {"xcs.jit": {"compile_s": 0.1, "compile_cpu_s": 0.3}, "jax": {"compile_s": 0.2, "compile_cpu_s": 0.2}}}
        goals = bc.goal_lines(results)
        self.assertEqual(len(goals), 3)
        self.assertIn("xcs-run/jax = 0.50 wall PASS, 0.50 cpu PASS", goals[0])
        self.assertIn("1.50 wall MISS, - cpu -", goals[1])  # no CPU figures: no CPU verdict
        self.assertIn("D          compile xcs.jit/jax = 0.50 wall PASS, 1.50 cpu MISS", goals[2])

    def test_table(self):
        results = {"W2-256": {"xcs-run": bc.parse_xcs_run(XCS_RUN_OUT + PHASES),
                              "xcs.jit": {"error": "exit 1: boom"},
                              "jax": {"compile_s": 0.05, "compile_cpu_s": 0.025, "first_call_s": 0.07,
                                      "first_call_cpu_s": 0.03, "steady_s": 0.001}}}
        t = bc.fmt_table(results)
        row = next(ln for ln in t.splitlines() if ln.startswith("W2-256") and "xcs-run" in ln)
        self.assertIn("100.0", row)
        self.assertIn("2.00", row)  # compile ratio 0.1 / 0.05
        self.assertIn("(2.00)", row)  # CPU ratio 0.05 / 0.025
        self.assertIn("1.50", row)  # first call 0.105 / 0.07
        self.assertIn("error: exit 1: boom", t)
        self.assertIn("optimize 30.0", t)


class Selection(unittest.TestCase):
    def test_only_and_modules(self):
        self.assertEqual([w.name for w in bc.select("W3, mlp-small")], ["W3", "mlp-small"])
        self.assertEqual(len(bc.select(None)), len(bc.WORKLOADS))
        with self.assertRaises(SystemExit):
            bc.select("W9")
        for w in bc.WORKLOADS:
            if w.mlir:
                self.assertTrue((bc.NATIVE / w.mlir).exists(), w.mlir)
        with tempfile.TemporaryDirectory() as d:
            p = bc.module_path(bc.by_name("mlp-small"), Path(d))
            text = p.read_text()
            for name, shape in bc.by_name("mlp-small").args:
                self.assertIn(f"%{name}: tensor<{'x'.join(map(str, shape))}xf32>", text)

    def test_functions_cover_every_workload(self):
        import numpy as np

        class NN:  # numpy stand-ins for the nn functions the workloads use
            relu = staticmethod(lambda x: np.maximum(x, 0))
            sigmoid = staticmethod(lambda x: 1 / (1 + np.exp(-x)))
            softmax = staticmethod(lambda x, axis=-1: np.exp(x) / np.exp(x).sum(axis, keepdims=True))
            gelu = staticmethod(lambda x, approximate=True: x)

        fs = bc.functions(np, NN)
        self.assertEqual(set(fs), {w.name for w in bc.WORKLOADS})
        small = bc.by_name("mlp-small")
        out = fs["mlp-small"](*bc.inputs(small))
        self.assertEqual(out.shape, (32, 10))
        np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-5)
        x, g, b = (np.float32([[1, 2, 3, 6]]), np.float32([1, 1, 1, 1]), np.float32([0, 0, 0, 0]))
        y = bc.layer_norm(np, NN, x, g, b)  # NN has no layer_norm: the jax.numpy formula
        np.testing.assert_allclose([y.mean(), y.std()], [0.0, 1.0], atol=1e-3)


class FakeXcsRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.fake = Path(self.tmp.name) / "xcs-run"
        self.fake.write_text(FAKE.format(python=sys.executable, bench=XCS_RUN_OUT, phases=PHASES))
        self.fake.chmod(self.fake.stat().st_mode | stat.S_IEXEC)
        self.args = argparse.Namespace(xcs_run=str(self.fake), pipeline=bc.DEFAULT_PIPELINE, threads=2, runs=3,
                                       procs=2, timeout=60.0)
        self.peers = {"xcs-run": True, "xcs.jit": False, "jax": False}

    def tearDown(self):
        self.tmp.cleanup()
        os.environ.pop("FAKE_FAIL", None)
        os.environ.pop("FAKE_INPUTS", None)

    def test_medians_of_fresh_processes(self):
        os.environ["FAKE_INPUTS"] = "2"
        r = bc.measure(bc.by_name("W2-256"), self.args, self.peers, Path(self.tmp.name))
        self.assertEqual(r["xcs-run"]["procs"], 2)
        self.assertAlmostEqual(r["xcs-run"]["compile_s"], 0.1)
        self.assertIn("optimize", r["xcs-run"]["phases"])

    def test_failure_is_reported(self):
        os.environ["FAKE_FAIL"] = "1"
        r = bc.measure(bc.by_name("W1"), self.args, self.peers, Path(self.tmp.name))
        self.assertIn("does not verify", r["xcs-run"]["error"])

    def test_main_exit_codes(self):
        os.environ["FAKE_INPUTS"] = "4"
        out = Path(self.tmp.name) / "r.json"
        argv = ["--xcs-run", str(self.fake), "--only", "mlp-small", "--procs", "1", "--skip-python", "--skip-jax",
                "--json", str(out)]
        self.assertEqual(bc.main(argv), 0)
        self.assertTrue(out.exists())
        os.environ["FAKE_FAIL"] = "1"
        self.assertEqual(bc.main(argv), 1)
        self.assertEqual(bc.main(["--xcs-run", str(self.fake) + ".missing", "--skip-python", "--skip-jax"]), 2)


if __name__ == "__main__":
    unittest.main()
