"""unittest checks of bench_native.py without the LLVM backend or jax: the `bench:` line parser
(with the per-call times), the probe's "no LLVM backend" message, the xcs-run path (timing,
--output-dir check, a wrong result caught, fresh buffers) through a fake xcs-run written in Python,
the goals and speedup spreads, repeats (the median repeat, a claim needing two that pass), machine probes, the peers' environments (retained allocations, OpenBLAS variants),
the choice of numpy's fastest BLAS variant, and one real numpy worker. Run:
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
want_buf = os.environ.get("FAKE_BUFFERS")
if want_buf is not None:
    got = a[a.index("--bench-buffers") + 1] if "--bench-buffers" in a else "retained"
    if got != want_buf:
        print(f"error: buffers {got!r}, expected {want_buf!r}", file=sys.stderr); sys.exit(4)
want = os.environ.get("FAKE_PIPELINE")
if want is not None:
    got = a[a.index("--pass-pipeline") + 1] if "--pass-pipeline" in a else ""
    if got != want:
        print(f"error: pipeline {got!r}, expected {want!r}", file=sys.stderr); sys.exit(3)
if out:
    r = np.load(ins["a"]) @ np.load(ins["b"]) + float(os.environ.get("FAKE_WRONG", "0"))
    os.makedirs(out, exist_ok=True); np.save(os.path.join(out, "c.npy"), r)
print("bench: entry=main backend=llvm threads=1 calls=3 min_ms=0.500000 median_ms=0.750000 compile_ms=12.5 times_ms=0.5,0.75,1.0 cpu_ms=0.25,0.4,0.5")
'''


class ParseBench(unittest.TestCase):
    def test_llvm_line(self):
        r = bn.parse_bench("bench: entry=main backend=llvm threads=2 calls=10 min_ms=1.5 median_ms=2.0 compile_ms=41.2\n")
        self.assertAlmostEqual(r["min_s"], 1.5e-3)
        self.assertAlmostEqual(r["median_s"], 2.0e-3)
        self.assertAlmostEqual(r["compile_s"], 41.2e-3)

    def test_times_give_the_spread(self):
        r = bn.parse_bench("bench: entry=main backend=llvm threads=1 calls=5 min_ms=1 median_ms=3 "
                           "compile_ms=9 times_ms=1,2,3,4,10 buffers=fresh\n")
        self.assertAlmostEqual(r["median_s"], 3e-3)
        self.assertAlmostEqual(r["q1_s"], 2e-3)
        self.assertAlmostEqual(r["q3_s"], 4e-3)
        self.assertAlmostEqual(r["max_s"], 10e-3)
        self.assertEqual(r["calls"], 5)

    def test_cpu_clock(self):
        r = bn.parse_bench("bench: min_ms=1 median_ms=2 times_ms=1,2,3 cpu_ms=0.5,0.75,1\n")
        rows = [dict(r, workload="W4", impl="xcs", threads=1), {"workload": "W4", "impl": "jax", "threads": 1,
                "median_s": 5e-3}]
        bn.use_clock(rows, "cpu")
        self.assertAlmostEqual(rows[0]["median_s"], 0.75e-3)
        self.assertAlmostEqual(rows[0]["wall"]["median_s"], 2e-3)
        self.assertIn("no CPU times", rows[1]["error"])
        self.assertNotIn("median_s", rows[1])
        bn.use_clock(rows, "cpu")  # a second call changes nothing
        self.assertAlmostEqual(rows[0]["median_s"], 0.75e-3)
        self.assertAlmostEqual(rows[0]["wall"]["median_s"], 2e-3)

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

    def run_with_env(self, env: dict, args=None, buffers="retained"):
        old = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            return bn.run_xcs(str(self.exe), self.w, 1, args or self.args, check_it=True, buffers=buffers)
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

    def test_fresh_buffers_are_asked_for(self):
        r = self.run_with_env({"FAKE_BUFFERS": "fresh"}, None, "fresh")
        self.assertNotIn("error", r)
        self.assertEqual(r["impl"], "xcs-fresh")
        self.assertAlmostEqual(r["median_s"], 0.75e-3)
        r = self.run_with_env({"FAKE_BUFFERS": "fresh"})
        self.assertIn("buffers", r.get("error", "") + r.get("stderr", ""))

    def test_goals(self):
        rows = [{"workload": "W2-256", "impl": "xcs", "threads": 1, "min_s": 1.0, "median_s": 1.0},
                {"workload": "W2-256", "impl": "numpy", "threads": 1, "min_s": 0.7, "median_s": 0.9}]
        goals = bn.evaluate([self.w], rows, {}, True)
        self.assertEqual([g["status"] for g in goals], ["MISS"])
        rows[1]["median_s"] = 1.1
        rows[0].pop("status")
        goals = bn.evaluate([self.w], rows, {}, True)
        self.assertEqual([g["status"] for g in goals], ["PASS"])
        self.assertIn("xcs/numpy >= 1.0", bn.fmt_table([self.w], rows, [1]))


class Ratios(unittest.TestCase):
    W4 = next(w for w in bn.workloads() if w.name == "W4")
    ROOFS = {"stream": {1: {"triad_GBps": 10.0, "copy_GBps": 10.0, "n": 1}}}

    def rows(self, xcs_med, xla_med):
        return [{"workload": "W4", "impl": "xcs", "threads": 1, "median_s": xcs_med, "q1_s": xcs_med * 0.9,
                 "q3_s": xcs_med * 1.2},
                {"workload": "W4", "impl": "jax", "threads": 1, "median_s": xla_med, "q1_s": xla_med,
                 "q3_s": xla_med * 1.1}]

    def test_speedup_spread(self):
        rows = self.rows(1.0, 2.0)
        bn.evaluate([self.W4], rows, {}, True)
        self.assertAlmostEqual(rows[0]["vs_xla"], 2.0)
        lo, hi = rows[0]["vs_xla_range"]
        self.assertAlmostEqual(lo, 2.0 / 1.2)
        self.assertAlmostEqual(hi, 2.2 / 0.9)

    def test_memory_bound_goal_passes_near_the_triad_time(self):
        triad = self.W4.nbytes / 10e9  # the triad time of W4's bytes at 10 GB/s
        rows = self.rows(triad * 1.05, triad * 1.2)  # 1.14x XLA but within 10% of the triad time
        goals = bn.evaluate([self.W4], rows, self.ROOFS, True)
        self.assertEqual([g["status"] for g in goals], ["PASS"])
        self.assertAlmostEqual(rows[0]["vs_triad_time"], 1.05)
        self.assertIn("triad time", bn.fmt_roofline([self.W4], rows, [1]))
        rows = self.rows(triad * 1.5, triad * 1.8)  # 1.2x XLA and 1.5x the triad time
        goals = bn.evaluate([self.W4], rows, self.ROOFS, True)
        self.assertEqual([g["status"] for g in goals], ["MISS"])
        rows = self.rows(triad * 1.5, triad * 2.4)  # 1.6x XLA
        goals = bn.evaluate([self.W4], rows, self.ROOFS, True)
        self.assertEqual([g["status"] for g in goals], ["PASS"])


class Repeats(unittest.TestCase):
    W4 = next(w for w in bn.workloads() if w.name == "W4")

    @staticmethod
    def run_of(xcs_med, xla_med, gbps):
        rows = [{"workload": "W4", "impl": "xcs", "threads": 1, "median_s": xcs_med},
                {"workload": "W4", "impl": "jax", "threads": 1, "median_s": xla_med}]
        roofs = {"stream": {1: {"triad_GBps": gbps, "copy_GBps": gbps, "n": 1}}}
        return rows, roofs

    def combine(self, runs):
        reps = [self.run_of(*r) for r in runs]
        per_repeat = [bn.evaluate([self.W4], rows, {}, True) for rows, _ in reps]
        rows = bn.median_rows([rows for rows, _ in reps])
        goals = bn.evaluate([self.W4], rows, {}, True)
        bn.agree(goals, rows, per_repeat)
        return rows, goals, bn.median_roofs([roofs for _, roofs in reps])

    def test_one_slow_window_does_not_fail_the_claim(self):
        # xcs 2x XLA twice; a slow window in the middle repeat makes it 0.5x there
        rows, goals, roofs = self.combine([(1.0, 2.0, 10.0), (4.0, 2.0, 30.0), (1.1, 2.1, 20.0)])
        xcs = next(r for r in rows if r["impl"] == "xcs")
        self.assertAlmostEqual(xcs["median_s"], 1.1)  # the repeat with the median median
        self.assertEqual(xcs["repeat_medians_s"], [1.0, 4.0, 1.1])
        self.assertEqual(goals[0]["status"], "PASS")
        self.assertEqual([h["status"] for h in goals[0]["repeats"]], ["PASS", "MISS", "PASS"])
        self.assertEqual(xcs["status"], "PASS 2/3")
        self.assertEqual(roofs["stream"][1]["triad_GBps"], 20.0)
        table = bn.fmt_table([self.W4], rows, [1])
        self.assertIn("repeats ms", table)
        self.assertIn("1000.000-4000.000", table)

    def test_a_goal_passed_once_is_no_claim(self):
        rows, goals, _ = self.combine([(1.0, 2.0, 10.0), (4.0, 2.0, 10.0), (4.0, 2.1, 10.0)])
        self.assertEqual(goals[0]["status"], "MISS")
        rows, goals, _ = self.combine([(1.0, 2.0, 10.0), (4.0, 2.0, 10.0)])  # two repeats: both must pass
        self.assertEqual(goals[0]["status"], "MISS")

    def test_the_chosen_row_is_not_changed_in_its_repeat(self):
        reps = [self.run_of(1.0, 2.0, 10.0)[0], self.run_of(3.0, 2.0, 10.0)[0]]
        bn.median_rows(reps)
        self.assertNotIn("repeat_medians_s", reps[0][0])


class MachineProbe(unittest.TestCase):
    W4 = Repeats.W4

    def test_a_row_measured_in_a_slow_window_is_flagged_in_its_goal(self):
        rows = [{"workload": "W4", "impl": "xcs", "threads": 2, "median_s": 2.0, "machine": 0.51},
                {"workload": "W4", "impl": "jax", "threads": 2, "median_s": 2.5, "machine": 0.98}]
        goals = bn.evaluate([self.W4], rows, {}, True)
        self.assertEqual(goals[0]["status"], "MISS")
        self.assertAlmostEqual(goals[0]["machine"], 0.51)
        self.assertTrue(bn.slow_machine(goals[0]))
        self.assertFalse(bn.slow_machine(rows[1]))
        self.assertFalse(bn.slow_machine({"machine": None}))

    def test_no_probe_without_the_peak(self):
        args = argparse.Namespace(skip_probe=False, cache="/nonexistent", timeout=10)
        self.assertIsNone(bn.machine_probe(args, {})(2))
        args.skip_probe = True
        self.assertIsNone(bn.machine_probe(args, {"fma": {2: {"gflops": 1.0}}})(2))

    def test_probe_measures_a_fraction_of_the_peak(self):
        with tempfile.TemporaryDirectory() as d:
            args = argparse.Namespace(skip_probe=False, cache=d, timeout=60)
            try:
                probe = bn.machine_probe(args, {"fma": {1: {"gflops": 1.0}}})
            except RuntimeError as e:  # no compiler with OpenMP and AVX2 here
                self.skipTest(str(e))
            got = probe(1)
            self.assertIsNotNone(got)
            self.assertGreater(got, 1.0)  # GFLOP/s over a peak of 1 GFLOP/s
            self.assertIsNone(probe(2))  # no peak measured at 2 threads
            # with a triad roof far above any machine the memory probe gives the lower fraction
            probe = bn.machine_probe(args, {"fma": {1: {"gflops": 1.0}},
                                            "stream_64MB": {1: {"triad_GBps": 1e9, "copy_GBps": 1e9, "n": 1}}})
            self.assertLess(probe(1), 1e-3)


class Peers(unittest.TestCase):
    def test_retained_allocations(self):
        env, desc = bn.alloc_env("retained", "/some/libjemalloc.so.2")
        self.assertTrue(env["LD_PRELOAD"].startswith("/some/libjemalloc.so.2"))
        self.assertEqual(env["MALLOC_CONF"], "dirty_decay_ms:-1,muzzy_decay_ms:-1")
        env, desc = bn.alloc_env("retained", None)
        self.assertIn("glibc.malloc.mmap_max=0", env["GLIBC_TUNABLES"])
        self.assertIn("jemalloc not found", desc)
        self.assertEqual(bn.alloc_env("default", "/x.so")[0], {})

    def test_openblas_variants(self):
        v = bn.openblas_variants("none;CORETYPE=Haswell,L2_SIZE=1048576")
        self.assertEqual([label for label, _ in v], ["none", "CORETYPE=Haswell,L2_SIZE=1048576"])
        self.assertIsNone(v[0][1]["OPENBLAS_CORETYPE"])
        self.assertEqual(v[1][1]["OPENBLAS_CORETYPE"], "Haswell")
        self.assertEqual(v[1][1]["OPENBLAS_L2_SIZE"], "1048576")
        auto = bn.openblas_variants("auto")
        self.assertEqual(auto[0][0], "none")
        env = bn.peer_env("numpy", 1, {"OPENBLAS_CORETYPE": None, "OPENBLAS_L2_SIZE": "4"})
        self.assertNotIn("OPENBLAS_CORETYPE", env)
        self.assertEqual((env["OPENBLAS_L2_SIZE"], env["OPENBLAS_NUM_THREADS"]), ("4", "1"))

    def test_fastest_variant_counts(self):
        rows = [{"workload": "W2-256", "impl": "numpy", "threads": 1, "median_s": 2.0, "blas_variant": "none",
                 "blas": "openblas kernel SkylakeX", "check": {"ok": True, "rel_err": 0.0}},
                {"workload": "W2-256", "impl": "numpy", "threads": 1, "median_s": 1.0,
                 "blas_variant": "CORETYPE=Haswell", "blas": "openblas kernel Haswell"},
                {"workload": "W2-256", "impl": "jax", "threads": 1, "median_s": 3.0}]
        out = bn.best_numpy_rows(rows)
        best = next(r for r in out if r["impl"] == "numpy")
        self.assertEqual(best["blas_variant"], "CORETYPE=Haswell")
        self.assertTrue(best["check"]["ok"])  # the check made under the first variant is kept
        self.assertEqual(len(best["variants"]), 2)
        self.assertEqual(len(out), 2)
        self.assertIn("[CORETYPE=Haswell] Haswell 1000.000 ms", bn.fmt_blas(out))

    def test_numpy_worker_runs_with_retained_allocations(self):
        with tempfile.TemporaryDirectory() as d:
            args = argparse.Namespace(cache=d, runs=3, timeout=120, only="W2-256", peer_alloc="retained",
                                      jemalloc_path=bn.find_jemalloc())
            bn.ensure_inputs(Path(d), {"a256", "b256"})
            version, rows = bn.run_peer("numpy", 1, args, check_it=True,
                                        variant=("none", {"OPENBLAS_CORETYPE": None}))
        self.assertEqual([r["workload"] for r in rows], ["W2-256"])
        r = rows[0]
        self.assertTrue(r["check"]["ok"], r)
        self.assertEqual(r["calls"], 3)
        self.assertEqual(r["cpu"]["calls"], 3)
        self.assertLessEqual(r["min_s"], r["median_s"])
        self.assertLessEqual(r["median_s"], r["max_s"])
        self.assertEqual(r["blas_variant"], "none")
        self.assertTrue(r["blas"])


if __name__ == "__main__":
    unittest.main()
