#!/usr/bin/env python3
"""Writes the StableHLO suite (the seven JAX programs of frontend/tests/test_py_from_jax.py: MLP,
multi-head attention, layernorm + exact GELU, softmax cross-entropy, a scan RNN, a cond (both
branches), a GPT-2 block) as JAX exports them, with their inputs and JAX's outputs, so that the
MLIR backend's differential test (mlir-bridge/tests/differential.rs) runs them without JAX:
`NAME.mlir` (generic form, JAX's locations), `NAME.in<i>.npy`, `NAME.out<j>.npy`.

Regenerate (jax 0.10.x): python3 test/Interop/Inputs/jax/export_suite.py
"""
import os
import pathlib
import sys

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[3] / "frontend" / "tests"))
import test_py_from_jax as suite  # noqa: E402


def programs(rng):
    n = suite.normal
    ws = [n(rng, 32, 32, scale=0.2) for _ in range(4)]
    return {
        "mlp": (suite.mlp, (n(rng, 8, 32), n(rng, 32, 64, scale=0.2), n(rng, 64), n(rng, 64, 10, scale=0.2), n(rng, 10))),
        "attention": (suite.attention, (n(rng, 2, 8, 32), *ws)),
        "layernorm_gelu": (suite.layernorm_gelu, (n(rng, 6, 16, scale=3.0), n(rng, 16), n(rng, 16))),
        "cross_entropy": (suite.cross_entropy, (n(rng, 16, 10, scale=2.0), rng.integers(0, 10, 16).astype(np.int32))),
        "scan_rnn": (suite.rnn, (n(rng, 2, 16), n(rng, 12, 2, 8), n(rng, 16, 16, scale=0.3), n(rng, 8, 16, scale=0.3))),
        "cond_true": (suite.branchy, (np.full((3,), 1.0, np.float32), n(rng, 4, 5))),
        "cond_false": (suite.branchy, (np.full((3,), -1.0, np.float32), n(rng, 4, 5))),
        "gpt2_block": (suite.gpt2_block, (n(rng, 2, 8, 32), suite.gpt2_params(rng))),
    }


def main():
    assert jax.__version__.startswith("0.10."), f"the suite is pinned to jax 0.10.x, not {jax.__version__}"
    rng = np.random.default_rng(21)
    for name, (f, args) in programs(rng).items():
        lowered = jax.jit(f).lower(*args)
        text = lowered.compiler_ir("stablehlo").operation.get_asm(print_generic_op_form=True, enable_debug_info=True)
        # JAX's locations name this machine's paths: keep the file's name only.
        text = text.replace(str(HERE.parents[3] / "frontend" / "tests") + "/", "").replace(str(HERE) + "/", "")
        (HERE / f"{name}.mlir").write_text(f"// {name}: exported by jax {jax.__version__} ({pathlib.Path(__file__).name})\n" + text)
        for i, a in enumerate(jax.tree_util.tree_leaves(args)):
            np.save(HERE / f"{name}.in{i}.npy", np.asarray(a))
        for j, r in enumerate(jax.tree_util.tree_leaves(jax.jit(f)(*args))):
            np.save(HERE / f"{name}.out{j}.npy", np.asarray(r))
        print(name)


if __name__ == "__main__":
    main()
