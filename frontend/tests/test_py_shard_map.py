"""xcs.shard_map against numpy on 1-D and 2-D meshes of simulated devices: an MLP, elementwise
code, a matmul under user constraints (the plan honours them), tuple outputs, caching, the
auto-shard report (`.plan()`), and clear errors in the package's hierarchy at the user's line."""

import numpy as np
import pytest

import xcs
import xcs.numpy as xnp

# A cost model in which communication is cheap next to compute: auto-shard splits the work.
CHEAP_COMM = dict(alpha=1e-9, bandwidth=1e12, peak_flops=1e6)
MESH_2D = xcs.Mesh((2, 4), ("dp", "tp"))


def _line_of(text):
    """The line of this file holding `text` (where an error must point)."""
    with open(__file__) as f:
        return next(i for i, line in enumerate(f, start=1) if text in line)


def _only(report):
    """The plan of the one function of an auto-shard report (keyed by function symbol)."""
    (plan,) = report.values()
    return plan


def _normal(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _mlp(x, w1, b1, w2):
    return xcs.nn.relu(x @ w1 + b1) @ w2


def _mlp_ref(x, w1, b1, w2):
    return np.maximum(x @ w1 + b1, 0) @ w2


def test_mlp_on_a_2d_mesh_equals_numpy_and_splits_the_work(rng):
    x, w1, b1, w2 = _normal(rng, 16, 32), _normal(rng, 32, 64), _normal(rng, 64), _normal(rng, 64, 8)
    f = xcs.shard_map(_mlp, mesh=MESH_2D, in_specs=(xcs.P("dp", None), None, None, None), cost_model=CHEAP_COMM)
    np.testing.assert_allclose(f(x, w1, b1, w2), _mlp_ref(x, w1, b1, w2), rtol=1e-4, atol=1e-4)
    plan = _only(f.plan())
    assert plan["mesh"] == {"shape": [2, 4], "axes": ["dp", "tp"]} and plan["optimal"] is True
    args = {a["name"]: a["sharding"] for a in plan["arguments"]}
    assert args["x"] == ["dp", None]  # the constraint holds
    # with cheap communication the weights are split too (8-way compute): something uses tp
    assert any("tp" in (a or []) for a in args.values())
    text = f.lower(x, w1, b1, w2).compile().as_text()
    assert "shard.spmd_grid = @mesh" in text and "tensor<8x32xf32>" in text  # x's local block


def test_mlp_with_the_default_cost_model(rng):
    x, w1, b1, w2 = _normal(rng, 8, 16), _normal(rng, 16, 32), _normal(rng, 32), _normal(rng, 32, 4)
    f = xcs.shard_map(_mlp, mesh=xcs.Mesh((2,), ("dp",)))
    np.testing.assert_allclose(f(x, w1, b1, w2), _mlp_ref(x, w1, b1, w2), rtol=1e-4, atol=1e-4)
    assert set(f.plan()) == {"_mlp"}


@pytest.mark.parametrize("auto", [True, False])
def test_elementwise_on_a_1d_mesh(rng, auto):
    mesh = xcs.Mesh(4, "x")

    def f(a, b, c):
        return xnp.exp(a) * b + xnp.maximum(c, 0.5) - 1.0  # c broadcasts along rows

    g = xcs.shard_map(f, mesh=mesh, in_specs=(xcs.P("x"), xcs.P(None, "x"), None), out_specs=xcs.P("x"),
                      auto_sharding=auto, cost_model=CHEAP_COMM if auto else None)
    a, b, c = _normal(rng, 8, 12), _normal(rng, 8, 12), _normal(rng, 12)
    np.testing.assert_allclose(g(a, b, c), np.exp(a) * b + np.maximum(c, 0.5) - 1.0, rtol=1e-5, atol=1e-5)
    if auto:
        plan = _only(g.plan())
        assert [a["sharding"] for a in plan["arguments"][:2]] == [["x", None], [None, "x"]]
        assert plan["results"][0]["required"] == ["x", None]
    else:
        assert g.plan() is None


def test_matmul_with_constraints_follows_them(rng):
    # x fixed split along K (tp), the result wanted split by rows (tp): as the auto-shard lit
    # test test/Transforms/auto-shard/constraints.mlir, the plan resolves the pending K sum
    # by one reduce_scatter onto rows.
    x, w = _normal(rng, 16, 1024), _normal(rng, 1024, 256)
    cost = dict(alpha=[20e-6, 5e-6], bandwidth=[12.5e9, 100e9], peak_flops=1e9)
    f = xcs.shard_map(lambda x, w: x @ w, mesh=MESH_2D, in_specs=(xcs.P(None, "tp"), None), out_specs=xcs.P("tp"),
                      cost_model=cost)
    np.testing.assert_allclose(f(x, w), x @ w, rtol=1e-4, atol=1e-3)
    plan = _only(f.plan(x, w))
    assert plan["arguments"][0]["sharding"] == [None, "tp"]
    assert plan["results"][0]["required"] == ["tp", None]
    assert plan["results"][0]["final"] == ["tp", None]
    kinds = [c["kind"] for op in plan["ops"] for c in op["collectives"]]
    assert "reduce_scatter" in kinds
    assert "shard.reduce_scatter" in f.lower(x, w).compile().as_text()
    assert f.cache_info().misses == 1  # plan(x, w) reused the call's compiled entry


def test_tuple_outputs_and_int_dtypes(rng):
    a = rng.integers(-50, 50, (16, 4)).astype(np.int32)
    b = rng.integers(-50, 50, (16, 4)).astype(np.int32)
    f = xcs.shard_map(lambda a, b: (a + b, (a * b).sum(axis=1)), mesh=MESH_2D,
                      in_specs=(xcs.P("tp"), None), out_specs=(xcs.P(None, "dp"), None), cost_model=CHEAP_COMM)
    s, p = f(a, b)
    np.testing.assert_array_equal(s, a + b)
    np.testing.assert_array_equal(p, (a * b).sum(axis=1))
    plan = _only(f.plan())
    assert plan["arguments"][0]["sharding"] == ["tp", None]
    assert [r["required"] for r in plan["results"]] == [[None, "dp"], None]


def test_two_axes_on_one_dim_without_auto_sharding(rng):
    a = rng.integers(-50, 50, (16, 4)).astype(np.int32)
    b = rng.integers(-50, 50, (16, 4)).astype(np.int32)
    specs = dict(in_specs=(xcs.P(("dp", "tp")), None), out_specs=(xcs.P(("dp", "tp")), None))
    f = xcs.shard_map(lambda a, b: (a + b, (a * b).sum(axis=1)), mesh=MESH_2D, auto_sharding=False, **specs)
    s, p = f(a, b)
    np.testing.assert_array_equal(s, a + b)
    np.testing.assert_array_equal(p, (a * b).sum(axis=1))
    assert "tensor<2x4xi32> {shard.split_axes = #shard<axisarray[[0, 1]]>" in f.lower(a, b).compile().as_text()
    # auto-shard's cost model splits a dim over one axis at most: a clear error, not its own
    with pytest.raises(xcs.TraceError, match="one axis at most"):
        xcs.shard_map(lambda a, b: a + b, mesh=MESH_2D, **specs)(a, b)


def test_cache_and_retrace(rng):
    traces = []

    def f(x):
        traces.append(1)
        return xnp.tanh(x) * 2.0

    g = xcs.shard_map(f, mesh=xcs.Mesh(2, "dp"), in_specs=(xcs.P("dp"),))
    x = _normal(rng, 4, 6)
    np.testing.assert_allclose(g(x), np.tanh(x) * 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g(x + 1), np.tanh(x + 1) * 2, rtol=1e-5, atol=1e-6)
    assert g.cache_info() == (1, 1, 1, 1) and len(traces) == 1
    np.testing.assert_allclose(g(x[:2]), np.tanh(x[:2]) * 2, rtol=1e-5, atol=1e-6)  # new shape: retraced
    assert g.cache_info().misses == 2 and len(traces) == 2


def test_lowered_text_has_the_annotations_and_the_plan(rng):
    x = _normal(rng, 8, 8)
    f = xcs.shard_map(lambda x: x + 1.0, mesh=MESH_2D, in_specs=(xcs.P("dp", "tp"),), out_specs=xcs.P(None, "dp"))
    lowered = f.lower(x)
    text = lowered.as_text(debug_info=True)
    assert 'shard.grid @mesh(shape = 2x4) {xcs.axes = ["dp", "tp"]}' in text
    assert "shard.sharding @mesh split_axes = [[0], [1]]" in text
    assert "annotate_for_users" in text and "test_py_shard_map.py" in text
    plan = lowered.plan()
    assert _only(plan)["results"][0]["required"] == [None, "dp"]
    assert plan == f.plan(x)  # deterministic: planning alone and compiling agree
    # cost-annotate after the whole pipeline prices the per-device program: the add writes its
    # 4x2 f32 block of the 8x8 result (32 bytes)
    (per_device,) = lowered.cost()["children"].values()
    assert int(per_device["memory_write"]) == 8 * 4


def test_a_spec_that_does_not_divide_is_a_located_error():
    f = xcs.shard_map(lambda x: x * 2.0, mesh=MESH_2D, in_specs=(xcs.P("tp"),))
    with pytest.raises(xcs.TraceError) as e:
        f(np.ones((6, 3), np.float32))  # 6 rows over 4 devices
    assert "splits dim 0 of size 6 over 'tp' (4), 4 parts, which does not divide it" in e.value.message
    assert e.value.file == __file__ and e.value.line == _line_of("f(np.ones((6, 3), np.float32))")
    out = xcs.shard_map(lambda x: x.sum(axis=0), mesh=MESH_2D, out_specs=xcs.P("tp"))
    with pytest.raises(xcs.TraceError, match="out_specs splits dim 0 of size 3"):
        out(np.ones((4, 3), np.float32))
    manual = xcs.shard_map(lambda x: x, mesh=MESH_2D, in_specs=(xcs.P(("dp", "tp")),), auto_sharding=False)
    with pytest.raises(xcs.TraceError, match=r"over 'dp' \(2\) x 'tp' \(4\), 8 parts, which does not divide it"):
        manual(np.ones((12, 3), np.float32))


@pytest.mark.parametrize("specs, message", [
    ((xcs.P("zz"),), "names the mesh axis 'zz', which the mesh does not have"),
    ((xcs.P("dp", "dp"),), "uses the mesh axis 'dp' twice"),
    ((xcs.P(None, None, "dp"),), "has 3 entries but the array has rank 2"),
    ((None, None), "in_specs has 2 entries but there are 1 values"),
    ((xcs.P(3),), "is not a mesh axis name"),
])
def test_bad_specs(specs, message):
    f = xcs.shard_map(lambda x: x, mesh=MESH_2D, in_specs=specs)
    with pytest.raises(xcs.TraceError, match=message):
        f(np.ones((8, 8), np.float32))


def test_other_errors_are_in_the_hierarchy():
    with pytest.raises(xcs.TraceError, match="positive sizes"):
        xcs.Mesh((2, 0), ("a", "b"))
    with pytest.raises(xcs.TraceError, match="is not an identifier or is repeated"):
        xcs.Mesh((2, 2), ("a", "a"))
    with pytest.raises(xcs.TraceError, match="no option 'bogus'"):
        xcs.shard_map(lambda x: x, mesh=MESH_2D, cost_model=dict(bogus=1))
    with pytest.raises(xcs.TraceError, match="must be an xcs.Mesh"):
        xcs.shard_map(lambda x: x, mesh=(2, 4))
    with pytest.raises(xcs.TraceError, match="arrays only"):
        xcs.shard_map(lambda s: xcs.llm(s, model="m", provider="echo"), mesh=MESH_2D)("hi")
    with pytest.raises(xcs.TraceError, match="needs the arguments"):
        xcs.shard_map(lambda x: x, mesh=MESH_2D).plan()


def test_an_infeasible_memory_limit_names_the_function():
    def big(x):
        return x * 3.0
    f = xcs.shard_map(big, mesh=MESH_2D, in_specs=(xcs.P(),), cost_model=dict(memory_limit="64"))
    with pytest.raises(xcs.CompileError) as e:
        f(np.ones((16, 16), np.float32))
    assert "no plan fits in memory-limit=64 bytes" in e.value.message
    assert e.value.file == __file__ and e.value.line == _line_of("def big(x):")


def test_vmap_and_jitted_functions_inside_are_traced_through(rng):
    inner = xcs.jit(lambda r, w: xcs.nn.relu(r @ w))
    per_row = xcs.vmap(inner, in_axes=(0, None))  # an xcs.vmap region, lowered by vmap-batch
    f = xcs.shard_map(lambda x, w: xcs.nn.softmax(per_row(x, w), axis=-1), mesh=xcs.Mesh((2, 2), ("dp", "tp")),
                      in_specs=(xcs.P("dp"), None), cost_model=CHEAP_COMM)
    x, w = _normal(rng, 8, 6), _normal(rng, 6, 4)
    h = np.maximum(x @ w, 0)
    e = np.exp(h - h.max(-1, keepdims=True))
    np.testing.assert_allclose(f(x, w), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(f(x.tolist(), w), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)  # lists: arrays
    assert _only(f.plan())["arguments"][0] == {"name": "x", "sharding": ["dp", None]}


def test_the_example_runs(capsys):
    import pathlib
    import runpy
    runpy.run_path(str(pathlib.Path(__file__).parents[2] / "examples" / "shard_map.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "x: ['dp', None]" in out and "shard.spmd_grid = @mesh" in out
