"""Checks of the benchmark generator (stdlib unittest; also runs under pytest): exact op counts,
determinism, the flavors' op names, and, when LLVM 22's mlir-opt is installed, that the
upstream flavor parses and verifies there with the same op count."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_module  # noqa: E402

MLIR_OPT = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
OP_LINE = re.compile(r'^\s*(?:%[\w#]+(?::\d+)? = )?"([\w.]+)"\(')


def generate(*args: str) -> str:
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "m.mlir"
        assert gen_module.main([*args, "-o", str(out)]) == 0
        return out.read_text()


def op_names(text: str) -> list[str]:
    return [m.group(1) for line in text.splitlines() if (m := OP_LINE.match(line))]


class GenModuleTest(unittest.TestCase):
    def test_exact_op_count(self):
        for ops, extra in [(3, []), (50, []), (1234, ["--seed", "7"]),
                           (3000, ["--funcs", "10", "--dup", "0.3", "--spread", "0.1"])]:
            names = op_names(generate("--ops", str(ops), *extra))
            self.assertEqual(names[0], "builtin.module")
            self.assertEqual(len(names) - 1, ops, (ops, extra))

    def test_deterministic(self):
        self.assertEqual(generate("--ops", "800", "--seed", "3"),
                         generate("--ops", "800", "--seed", "3"))
        self.assertNotEqual(generate("--ops", "800", "--seed", "3"),
                            generate("--ops", "800", "--seed", "4"))

    def test_flavors_use_their_namespaces(self):
        up = set(op_names(generate("--ops", "3000")))
        self.assertTrue({"func.func", "func.call", "func.return", "arith.addf", "xt.matmul",
                         "xt.fused", "xt.split"} <= up, up)
        self.assertFalse(any(n.startswith(("tensor.", "test.")) for n in up), up)
        xcs = set(op_names(generate("--ops", "3000", "--flavor", "xcs")))
        self.assertIn("tensor.matmul", xcs)
        self.assertFalse(any(n.startswith(("arith.", "math.")) for n in xcs), xcs)
        test = set(op_names(generate("--ops", "3000", "--flavor", "test")))
        self.assertTrue({"test.pure", "test.constant"} <= test, test)

    def test_dup_repeats_ops(self):
        def repeated(text: str) -> int:
            bodies = [re.sub(r"^\s*%[\w]+(?::\d+)? = ", "", l) for l in text.splitlines()
                      if OP_LINE.match(l) and '"func.' not in l]
            return len(bodies) - len(set(bodies))
        plain = repeated(generate("--ops", "5000", "--funcs", "10"))
        dup = repeated(generate("--ops", "5000", "--funcs", "10", "--dup", "0.3"))
        self.assertGreater(dup, plain + 500)

    @unittest.skipUnless(shutil.which(MLIR_OPT) or os.access(MLIR_OPT, os.X_OK),
                         "LLVM 22 mlir-opt not installed")
    def test_mlir_opt_accepts_upstream_flavor(self):
        for args in [["--ops", "4000", "--seed", "2"], ["--ops", "4000", "--seed", "5", "--dup", "0.2"]]:
            with tempfile.TemporaryDirectory() as d:
                f = Path(d) / "m.mlir"
                gen_module.main([*args, "-o", str(f)])
                r = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect", str(f),
                                    "--pass-pipeline=builtin.module(print-op-stats)",
                                    "-o", os.devnull], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr[:2000])
                total = sum(int(m.group(1)) for m in re.finditer(r",\s*(\d+)\s*$", r.stderr, re.M))
                self.assertEqual(total, 4001)


if __name__ == "__main__":
    unittest.main()
