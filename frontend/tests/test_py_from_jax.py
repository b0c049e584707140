"""`xcs.from_jax` against JAX: real model pieces (MLP, multi-head attention, layernorm + exact
GELU, softmax cross-entropy, a scan RNN, a cond, a small GPT-2 block) are exported by JAX as
StableHLO, converted by `convert-stablehlo-to-tensor`, compiled by XCS (the LLVM JIT and the
reference interpreter, in-process and through `xcs-run`) and compared with `jax.jit`'s outputs
on the same inputs."""

import os
import subprocess

import numpy as np
import pytest

import xcs

jax = pytest.importorskip("jax")
jnp = jax.numpy
lax = jax.lax

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
XCS_BIN = os.environ.get("XCS_BIN_DIR", os.path.join(REPO, "target", "debug"))


def close(got, want, rtol=2e-4):
    """Equal within `rtol` of the reference's largest magnitude (float32 sums differ in order)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
    scale = max(float(np.max(np.abs(want))) if want.size else 0.0, 1.0)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0, atol=rtol * scale)


def check(f, *args):
    """Runs `f` through XCS's JIT and interpreter and jax.jit on `args`; compares every output."""
    want = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    for backend in ("jit", "interp"):
        g = xcs.from_jax(f, *args, backend=backend)
        got = jax.tree_util.tree_leaves(g(*args))
        assert len(got) == len(want)
        for a, b in zip(got, want):
            close(a, b)


def normal(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def mlp(x, w1, b1, w2, b2):
    return jax.nn.relu(x @ w1 + b1) @ w2 + b2


def test_mlp(rng):
    check(mlp, normal(rng, 8, 32), normal(rng, 32, 64, scale=0.2), normal(rng, 64), normal(rng, 64, 10, scale=0.2), normal(rng, 10))


def attention(x, wq, wk, wv, wo, heads=4):
    b, t, d = x.shape
    split = lambda y: y.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)
    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(d // heads).astype(x.dtype)
    o = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)
    return o.transpose(0, 2, 1, 3).reshape(b, t, d) @ wo


def test_multi_head_attention(rng):
    ws = [normal(rng, 32, 32, scale=0.2) for _ in range(4)]
    check(attention, normal(rng, 2, 8, 32), *ws)


def layernorm_gelu(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = x.var(-1, keepdims=True)  # chlo.square
    return jax.nn.gelu((x - m) * lax.rsqrt(v + 1e-5) * g + b, approximate=False)


def test_layernorm_gelu_exact(rng):
    check(layernorm_gelu, normal(rng, 6, 16, scale=3.0), normal(rng, 16), normal(rng, 16))


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, labels[:, None], axis=-1).mean()


def test_softmax_cross_entropy(rng):
    check(cross_entropy, normal(rng, 16, 10, scale=2.0), rng.integers(0, 10, 16).astype(np.int32))


def rnn(h, xs, w, u):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u)
        return h, h
    return lax.scan(step, h, xs)


def test_scan_rnn(rng):
    check(rnn, normal(rng, 2, 16), normal(rng, 12, 2, 8), normal(rng, 16, 16, scale=0.3), normal(rng, 8, 16, scale=0.3))


def branchy(p, x):
    return lax.cond(p.sum() > 0, lambda x: jnp.sin(x) * 2, lambda x: jnp.exp(-x * x), x)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cond(rng, sign):
    check(branchy, np.full((3,), sign, np.float32), normal(rng, 4, 5))


def gpt2_block(x, p, heads=4):
    def ln(y, g, b):
        m = y.mean(-1, keepdims=True)
        v = ((y - m) ** 2).mean(-1, keepdims=True)
        return (y - m) / jnp.sqrt(v + 1e-5) * g + b
    b, t, d = x.shape
    h = ln(x, p["ln1_g"], p["ln1_b"])
    qkv = h @ p["w_qkv"] + p["b_qkv"]
    q, k, v = jnp.split(qkv, 3, axis=-1)
    split = lambda y: y.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)
    q, k, v = split(q), split(k), split(v)
    s = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(d // heads))
    causal = jnp.tril(jnp.ones((t, t), bool))
    s = jnp.where(causal, s, jnp.finfo(s.dtype).min)
    a = (jax.nn.softmax(s, axis=-1) @ v).transpose(0, 2, 1, 3).reshape(b, t, d)
    x = x + a @ p["w_o"] + p["b_o"]
    h = ln(x, p["ln2_g"], p["ln2_b"])
    return x + jax.nn.gelu(h @ p["w_fc"] + p["b_fc"]) @ p["w_proj"] + p["b_proj"]


def gpt2_params(rng, d=32):
    return {
        "ln1_g": 1 + normal(rng, d, scale=0.1), "ln1_b": normal(rng, d, scale=0.1),
        "w_qkv": normal(rng, d, 3 * d, scale=0.1), "b_qkv": normal(rng, 3 * d, scale=0.1),
        "w_o": normal(rng, d, d, scale=0.1), "b_o": normal(rng, d, scale=0.1),
        "ln2_g": 1 + normal(rng, d, scale=0.1), "ln2_b": normal(rng, d, scale=0.1),
        "w_fc": normal(rng, d, 4 * d, scale=0.1), "b_fc": normal(rng, 4 * d, scale=0.1),
        "w_proj": normal(rng, 4 * d, d, scale=0.1), "b_proj": normal(rng, d, scale=0.1),
    }


def test_gpt2_block(rng):
    check(gpt2_block, normal(rng, 2, 8, 32), gpt2_params(rng))


def test_xcs_run_both_backends(rng, tmp_path):
    """The exported module through the command-line tools: xcs-opt converts, xcs-run runs it
    on the JIT and on the interpreter (`--backend=interp`)."""
    if not os.path.exists(os.path.join(XCS_BIN, "xcs-run")):
        pytest.skip(f"xcs-run not built in {XCS_BIN}")
    h, xs, w, u = normal(rng, 2, 16), normal(rng, 6, 2, 8), normal(rng, 16, 16, scale=0.3), normal(rng, 8, 16, scale=0.3)
    text, _ = xcs._jax.stablehlo_text(rnn, h, xs, w, u)
    src = tmp_path / "rnn.mlir"
    src.write_text(text)
    out = tmp_path / "rnn.xcs.mlir"
    subprocess.run([os.path.join(XCS_BIN, "xcs-opt"), str(src), "-p", xcs._jax.JAX_PIPELINE, "-o", str(out)], check=True)
    inputs = []
    for i, a in enumerate([h, xs, w, u]):
        np.save(tmp_path / f"in{i}.npy", a)
        inputs += ["--input", f"{i}={tmp_path / f'in{i}.npy'}"]
    want = jax.jit(rnn)(h, xs, w, u)
    for backend in ("llvm", "interp"):
        res = tmp_path / backend
        subprocess.run([os.path.join(XCS_BIN, "xcs-run"), str(out), "--entry", "main", f"--backend={backend}", "-o", str(res)] + inputs, check=True)
        for j, ref in enumerate(want):
            close(np.load(res / f"result{j}.npy"), ref)


def test_uncovered_op_is_a_located_error(rng):
    """jnp.argmax reduces values and indices together: not covered, an error at JAX's line."""
    with pytest.raises(xcs.CompileError) as e:
        xcs.from_jax(lambda x: jnp.argmax(x, axis=-1), normal(rng, 3, 4))
    assert "reduce of several inputs" in str(e.value)
    assert e.value.file is not None and e.value.file.endswith("test_py_from_jax.py")


def test_wrong_signature_is_an_error(rng):
    g = xcs.from_jax(mlp, normal(rng, 8, 32), normal(rng, 32, 64), normal(rng, 64), normal(rng, 64, 10), normal(rng, 10))
    with pytest.raises(xcs.RunError, match="shape"):
        g(normal(rng, 4, 32), normal(rng, 32, 64), normal(rng, 64), normal(rng, 64, 10), normal(rng, 10))


SHARDED_EXPORT = r'''
import sys, numpy as np, jax, jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
out = sys.argv[1]
if sys.argv[2] == "gspmd":
    jax.config.update("jax_use_shardy_partitioner", False)
mesh = Mesh(np.array(jax.devices()).reshape(2, 2), ("dp", "tp"))
rng = np.random.default_rng(0)
x = jax.device_put(rng.standard_normal((8, 16)).astype(np.float32), NamedSharding(mesh, P("dp", None)))
w = jax.device_put(rng.standard_normal((16, 32)).astype(np.float32) * 0.2, NamedSharding(mesh, P(None, "tp")))
def f(x, w):
    y = jax.lax.with_sharding_constraint(x @ w, NamedSharding(mesh, P("dp", "tp")))
    return jnp.tanh(y).sum(axis=1)
text = jax.jit(f).lower(x, w).compiler_ir("stablehlo").operation.get_asm(print_generic_op_form=True)
open(out + "/m.mlir", "w").write(text)
np.save(out + "/x.npy", np.asarray(x)); np.save(out + "/w.npy", np.asarray(w))
np.save(out + "/want.npy", np.asarray(jax.jit(f)(x, w)))
'''


@pytest.mark.parametrize("partitioner", ["shardy", "gspmd"])
def test_sharded_export_runs_on_its_mesh(tmp_path, partitioner):
    """A program JAX shards on a 2x2 mesh (Shardy's sdy.mesh and sdy.sharding, or GSPMD's
    mhlo.sharding strings and custom_call @Sharding): the conversion makes shard.grid and
    shard.shard annotations, shard-partition splits it, and xcs-run runs it on 4 simulated
    devices (and on one) with JAX's results."""
    import sys
    if not os.path.exists(os.path.join(XCS_BIN, "xcs-run")):
        pytest.skip(f"xcs-run not built in {XCS_BIN}")
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu")
    subprocess.run([sys.executable, "-c", SHARDED_EXPORT, str(tmp_path), partitioner], check=True, env=env)
    opt, run = os.path.join(XCS_BIN, "xcs-opt"), os.path.join(XCS_BIN, "xcs-run")
    one = tmp_path / "one.mlir"
    subprocess.run([opt, str(tmp_path / "m.mlir"), "-p", "builtin.module(convert-stablehlo-to-tensor,inline,symbol-dce)", "-o", str(one)], check=True)
    text = one.read_text()
    assert "shard.grid @mesh(shape = 2x2)" in text
    assert "mhlo.sharding" not in text and "custom_call" not in text
    assert text.count("shard.shard ") >= 3, text  # the two arguments and the constraint
    part = tmp_path / "part.mlir"
    subprocess.run([opt, str(one), "-p", "builtin.module(shard-partition)", "-o", str(part)], check=True)
    inputs = ["--input", f"0={tmp_path / 'x.npy'}", "--input", f"1={tmp_path / 'w.npy'}"]
    want = np.load(tmp_path / "want.npy")
    for module, devices in ((one, []), (part, ["--devices=2x2"])):
        res = tmp_path / f"out{len(devices)}"
        subprocess.run([run, str(module), "--entry", "main", "-o", str(res)] + devices + inputs, check=True)
        close(np.load(res / "result0.npy"), want)
