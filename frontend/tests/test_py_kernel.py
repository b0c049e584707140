"""Seed 002 from Python: `@xcs.kernel` signatures and traced bodies, workloads of launches over
`parallel_for` grids (batched multi-head attention, tiled matmul) equal to numpy, the ahead-of-time
and run-time compile cache, the binding, bounds and overlapping-write errors, the legacy
`xcs.task`, and the workload's IR text read back by the native parser and `xcs-opt`."""

import os
import subprocess
import warnings

import numpy as np
import pytest

import xcs
import xcs.numpy as xnp
from xcs import AxisVar, Constexpr, In, InOut, Out, Tensor

# the workload engine (the whole xcs.workload through the LLVM backend), the grid engine (kernels
# compiled one by one, the grid walked from Python), and the reference interpreter
ENGINES = ["workload", "grid"]
ALL_ENGINES = ENGINES + ["interpreter"]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@xcs.kernel
def attention(b: AxisVar, h: AxisVar, q: In[Tensor], k: In[Tensor], v: In[Tensor], o: Out[Tensor], *,
              scale: Constexpr[float] = 1.0):
    s = (q @ k.T) * scale
    p = xnp.exp(s - s.max(axis=-1, keepdims=True))
    o[...] = (p / p.sum(axis=-1, keepdims=True)) @ v


@xcs.kernel
def matmul_tile(i: AxisVar, j: AxisVar, a: In[Tensor], b: In[Tensor], c: Out[Tensor]):
    c[...] = a @ b


@xcs.kernel
def matmul_acc(i: AxisVar, j: AxisVar, a: In[Tensor], b: In[Tensor], c: InOut[Tensor]):
    c[...] = c + a @ b


@xcs.kernel
def scale_rows(i: AxisVar, x: In[Tensor], y: Out[Tensor], *, factor: Constexpr[int | float] = 2, negate: Constexpr[bool] = False):
    y[...] = -x * factor if negate else x * factor


def numpy_attention(q, k, v, scale):
    s = q @ np.swapaxes(k, -1, -2) * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def attention_workload(q, k, v, style="subscript"):
    B, H, S, D = q.shape
    with xcs.workload("mha") as w:
        Q, K, V = w.input("Q", q), w.input("K", k), w.input("V", v)
        O = w.output("O", q.shape, q.dtype)
        with xcs.parallel_for(B) as b:
            with xcs.parallel_for(H) as h:
                if style == "subscript":
                    attention[b, h](q=Q[b][h], k=K[b][h], v=V[b][h], o=O[b][h], scale=D ** -0.5)
                elif style == "at":
                    attention.at(b=b, h=h)(q=Q[b, h], k=K[b, h], v=V[b, h], o=O[b, h], scale=D ** -0.5)
                else:
                    attention(b, h, q=Q[b, h], k=K[b, h], v=V[b, h], o=O[b, h], scale=D ** -0.5)
    return w


# ---------------------------------------------------------------- signatures

def test_signature_from_annotations():
    sig = attention.signature
    assert [(p.name, p.kind) for p in sig.params] == [
        ("b", "axis"), ("h", "axis"), ("q", "in"), ("k", "in"), ("v", "in"), ("o", "out"), ("scale", "constexpr")]
    assert [p.name for p in sig.axes] == ["b", "h"] and [p.name for p in sig.tensors] == ["q", "k", "v", "o"]
    assert sig.constexprs[0].default == 1.0 and sig.by_name["o"].writes and not sig.by_name["q"].writes
    assert repr(sig) == ("(b: AxisVar, h: AxisVar, q: In[Tensor], k: In[Tensor], v: In[Tensor], o: Out[Tensor], "
                         "scale: Constexpr[float] = 1.0)")
    assert matmul_acc.signature.by_name["c"].kind == "inout" and matmul_acc.signature.by_name["c"].reads
    assert isinstance(attention, xcs.KernelRef) and attention.symbol == "attention"
    assert scale_rows.signature.by_name["factor"].annotation == Constexpr[int | float]


def test_signature_errors():
    with pytest.raises(xcs.TraceError, match="parameter 'x' needs an annotation"):
        @xcs.kernel
        def no_annotation(x, y: Out[Tensor]):
            y[...] = x
    with pytest.raises(xcs.TraceError, match="only Constexpr parameters may"):
        @xcs.kernel
        def tensor_default(x: In[Tensor] = None, y: Out[Tensor] = None):
            pass
    with pytest.raises(xcs.TraceError, match="has no Out or InOut parameter"):
        @xcs.kernel
        def reads_only(x: In[Tensor]):
            pass
    with pytest.raises(xcs.BindingError, match="constexpr 'n' is Constexpr\\[int\\], but it is given 'a'"):
        @xcs.kernel
        def bad_default(y: Out[Tensor], n: Constexpr[int] = "a"):
            pass
    with pytest.raises(TypeError, match="Constexpr"):
        Constexpr[str]
    with pytest.raises(TypeError, match="xcs.Tensor"):
        In[int]


def test_kernel_lower_and_item_assignment():
    @xcs.kernel
    def pieces(x: In[Tensor], y: Out[Tensor], z: InOut[Tensor]):
        y[...] = 0.0
        y[0:2] = x[0:2] * 2.0
        y[3] = x[3] + 1.0
        y[..., 2:] = y[..., 2:] - 5.0
        z[1, :] = z[1, :] + x[1]

    text = pieces.lower(x=((4, 3), np.float32), y=np.zeros((4, 3), np.float32), z=((4, 3), np.float32))
    assert text.startswith("module {\n  xcs.kernel @")
    assert 'arg_kinds = ["in", "out", "inout"]' in text and "xcs.yield" in text
    assert "tensor.concat" in text  # partial writes are slices and concatenations

    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with xcs.workload() as w:
        X = w.input("X", x)
        Y, Z = w.output("Y", (4, 3)), w.output("Z", (4, 3))
        pieces(x=X, y=Y, z=Z)
    z = np.full((4, 3), 7.0, np.float32)  # where Z is written (outputs start as zeros)
    out = w.compile().execute(Z=z)
    assert out["Z"] is z
    z = np.zeros((4, 3), np.float32)
    want_y = np.zeros((4, 3), np.float32)
    want_y[0:2] = x[0:2] * 2
    want_y[3] = x[3] + 1
    want_y[..., 2:] -= 5
    want_z = z.copy()
    want_z[1, :] += x[1]
    np.testing.assert_allclose(out["Y"], want_y)
    np.testing.assert_allclose(out["Z"], want_z)


def test_kernel_body_errors():
    @xcs.kernel
    def forgets(x: In[Tensor], y: Out[Tensor]):
        pass

    with pytest.raises(xcs.TraceError, match="never writes its Out parameter 'y'"):
        forgets.lower(x=((2,), np.float32), y=((2,), np.float32))

    @xcs.kernel
    def returns(x: In[Tensor], y: Out[Tensor]):
        y[...] = x
        return x

    with pytest.raises(xcs.TraceError, match="a kernel returns nothing"):
        returns.lower(x=((2,), np.float32), y=((2,), np.float32))

    @xcs.kernel
    def loops_over_axis(i: AxisVar, x: In[Tensor], y: Out[Tensor]):
        for _ in range(i):  # Python control flow on a run-time index
            y[...] = x

    with pytest.raises(xcs.TraceError, match="axis parameter 'i' has no Python value while the kernel is traced"):
        loops_over_axis.lower(x=((2,), np.float32), y=((2,), np.float32))

    @xcs.kernel
    def assigns_at_axis(i: AxisVar, x: In[Tensor], y: Out[Tensor]):
        y[i] = x[0]

    with pytest.raises(xcs.TraceError, match="takes ints, unit-step slices and '...', not KernelAxis"):
        assigns_at_axis.lower(x=((2,), np.float32), y=((2,), np.float32))

    @xcs.kernel
    def strided(x: In[Tensor], y: Out[Tensor]):
        y[::2] = x[::2]

    with pytest.raises(xcs.TraceError, match="only unit-step slices can be assigned"):
        strided.lower(x=((4,), np.float32), y=((4,), np.float32))


# ---------------------------------------------------------------- workloads equal numpy

@pytest.mark.parametrize("engine", ALL_ENGINES)
@pytest.mark.parametrize("style", ["subscript", "at", "call"])
def test_attention_workload_equals_numpy(rng, style, engine):
    B, H, S, D = 2, 3, 16, 8
    q, k, v = (rng.standard_normal((B, H, S, D)).astype(np.float32) for _ in range(3))
    w = attention_workload(q, k, v, style)
    assert len(w.launches()) == 1 and w.kernels() == [attention]
    program = w.compile(target="native", engine=engine)
    assert program.engine == engine and w.compile().engine == "workload"
    out = program.execute()
    assert set(out) == {"O"}
    np.testing.assert_allclose(out["O"], numpy_attention(q, k, v, D ** -0.5), rtol=2e-5, atol=2e-6)
    # new inputs, same specialization: no compile
    q2 = rng.standard_normal(q.shape).astype(np.float32)
    np.testing.assert_allclose(program.execute(Q=q2)["O"], numpy_attention(q2, k, v, D ** -0.5), rtol=2e-5, atol=2e-6)
    assert program.cache_info()["jit"] == 0 and program.cache_info()["aot"] == (engine != "interpreter")


@pytest.mark.parametrize("engine", ENGINES)
def test_attention_threads_agree(rng, engine):
    q, k, v = (rng.standard_normal((2, 4, 8, 4)).astype(np.float32) for _ in range(3))
    w = attention_workload(q, k, v)
    one = w.compile(threads=1, engine=engine).execute()["O"]
    two = w.compile(threads=2, engine=engine).execute()["O"]
    np.testing.assert_array_equal(one, two)


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_tiled_matmul_workload_equals_numpy(rng, engine):
    M, N, K, T = 8, 12, 8, 4
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    with xcs.workload() as w:
        A, Bm = w.input("A", a), w.input("B", b)
        C = w.output("C", (M, N), np.float32)
        with xcs.parallel_for(M // T) as i:
            with xcs.parallel_for(N // T) as j:
                matmul_tile[i, j](a=A[i * T:(i + 1) * T, :], b=Bm[:, j * T:(j + 1) * T],
                                  c=C[i * T:(i + 1) * T, j * T:(j + 1) * T])
    np.testing.assert_allclose(w.compile(engine=engine).execute()["C"], a @ b, rtol=1e-5, atol=1e-5)
    assert "%C[4*%i:4*%i + 4, 4*%j:4*%j + 4]" in w.lower()


@pytest.mark.parametrize("engine", ENGINES)
def test_tiled_matmul_accumulates_inout_in_program_order(rng, engine):
    M, N, K, T = 8, 8, 12, 4
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    with xcs.workload() as w:
        A, Bm = w.input("A", a), w.input("B", b)
        C = w.output("C", (M, N), np.float32)
        with xcs.parallel_for(M // T) as i:
            with xcs.parallel_for(N // T) as j:
                for kk in range(K // T):  # launches of one iteration run in order
                    matmul_acc.at(i=i, j=j)(a=A[i * T:(i + 1) * T, kk * T:(kk + 1) * T],
                                            b=Bm[kk * T:(kk + 1) * T, j * T:(j + 1) * T],
                                            c=C[i * T:(i + 1) * T, j * T:(j + 1) * T])
    program = w.compile(engine=engine)
    np.testing.assert_allclose(program.execute()["C"], a @ b, rtol=1e-5, atol=1e-5)
    assert program.cache_info()["aot"] == 1  # one specialization for the three launches


@pytest.mark.parametrize("engine", ENGINES)
def test_constexprs_specialize_and_jit_cache(rng, engine):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    with xcs.workload() as w:
        X = w.input("X", x)
        Y, Z = w.output("Y", (4, 6)), w.output("Z", (4, 6))
        with xcs.parallel_for(4) as i:
            scale_rows[i](x=X[i], y=Y[i])
            scale_rows[i](x=X[i], y=Z[i], factor=0.5, negate=True)
    program = w.compile(engine=engine)
    out = program.execute()
    np.testing.assert_allclose(out["Y"], x * 2)
    np.testing.assert_allclose(out["Z"], -x * 0.5)
    assert program.cache_info()["aot"] == 2 and program.cache_info()["jit"] == 0
    text = w.lower()
    assert "xcs.kernel @scale_rows " in text and "xcs.kernel @scale_rows_1 " in text
    assert "constexprs = {factor = 5.0e-1 : f64, negate = true}" in text or "negate = true" in text
    # other shapes and dtypes at execute: compiled at run time, then cached
    x64 = rng.standard_normal((4, 10))
    out = program.execute(X=x64, Y=np.zeros((4, 10)), Z=np.zeros((4, 10)))
    np.testing.assert_allclose(out["Y"], x64 * 2)
    assert out["Y"].dtype == np.float64 and program.cache_info()["jit"] == 2
    program.execute(X=x64 + 1, Y=np.zeros((4, 10)), Z=np.zeros((4, 10)))
    assert program.cache_info()["jit"] == 2


@xcs.kernel
def square(i: AxisVar, j: AxisVar, x: In[Tensor], y: Out[Tensor]):
    y[...] = x * x


@xcs.kernel
def total(i: AxisVar, x: In[Tensor], s: Out[Tensor]):
    s[...] = x.sum()


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_scalar_views_and_statements_after_an_inner_loop(rng, engine):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    with xcs.workload() as w:
        X = w.input("X", x)
        Y, S = w.output("Y", (3, 4)), w.output("S", (3,))
        with xcs.parallel_for(3) as i:
            with xcs.parallel_for(4) as j:
                square[i, j](x=X[i, j], y=Y[i, j])  # 0-d views
            total[i](x=Y[i], s=S[i])  # after the inner loop, in iteration i: reads what it wrote
    out = w.compile(threads=2, engine=engine).execute()
    np.testing.assert_allclose(out["Y"], x * x, rtol=1e-6)
    np.testing.assert_allclose(out["S"], (x * x).sum(1), rtol=1e-5)


def test_input_from_shape_and_dtype(rng):
    with xcs.workload() as w:
        X = w.input("X", (3, 5), np.float64)
        Y = w.output("Y", (3, 5), np.float64)
        with xcs.parallel_for(3) as i:
            scale_rows[i](x=X[i], y=Y[i], factor=3)
    program = w.compile()
    with pytest.raises(xcs.RunError, match="input 'X' has no default array"):
        program.execute()
    x = rng.standard_normal((3, 5))
    np.testing.assert_allclose(program.execute(X=x)["Y"], 3 * x)
    with pytest.raises(xcs.RunError, match="no tensor 'W'"):
        program.execute(X=x, W=x)


def test_engines_agree_with_the_interpreter(rng):
    """The compiled engines equal the reference interpreter on one workload mixing kernels,
    constexprs, an InOut accumulation in program order and a top-level launch."""
    M, K, N, T = 8, 8, 4, 4
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    with xcs.workload("mix") as w:
        A, Bm = w.input("A", a), w.input("B", b)
        C, D = w.output("C", (M, N)), w.output("D", (M, N))
        with xcs.parallel_for(M // T) as i:
            with xcs.parallel_for(1) as j:
                for kk in range(K // T):
                    matmul_acc[i, j](a=A[i * T:(i + 1) * T, kk * T:(kk + 1) * T], b=Bm[kk * T:(kk + 1) * T],
                                     c=C[i * T:(i + 1) * T])
        with xcs.parallel_for(M) as r:  # after the first loop: reads all of C
            scale_rows[r](x=C[r], y=D[r], factor=0.5, negate=True)
    want = w.compile(engine="interpreter").execute()
    np.testing.assert_allclose(want["C"], a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(want["D"], -0.5 * (a @ b), rtol=1e-5, atol=1e-5)
    for engine in ENGINES:
        got = w.compile(engine=engine).execute()
        for name in ("C", "D"):
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6, err_msg=f"{engine} {name}")


# ---------------------------------------------------------------- errors

def test_binding_errors_name_the_parameter():
    q = np.zeros((2, 4, 8), np.float32)
    with xcs.workload() as w:
        Q = w.input("Q", q)
        O = w.output("O", q.shape)
        with xcs.parallel_for(2) as b:
            with xcs.parallel_for(4) as h:
                with pytest.raises(xcs.BindingError, match="tensor parameter\\(s\\) v, o not bound"):
                    attention[b, h](q=Q[b, h], k=Q[b, h])
                with pytest.raises(xcs.BindingError, match="has no parameter 'w'"):
                    attention[b, h](q=Q[b, h], k=Q[b, h], v=Q[b, h], o=O[b, h], w=Q[b, h])
                with pytest.raises(xcs.BindingError, match="'v' must be bound to a workload tensor or a view"):
                    attention[b, h](q=Q[b, h], k=Q[b, h], v=q[0, 0], o=O[b, h])
                with pytest.raises(xcs.BindingError, match="constexpr 'scale' is Constexpr\\[float\\], but it is given 'x'"):
                    attention[b, h](q=Q[b, h], k=Q[b, h], v=Q[b, h], o=O[b, h], scale="x")
                with pytest.raises(xcs.BindingError, match="out parameter 'o' is bound to input 'Q'"):
                    attention[b, h](q=O[b, h], k=O[b, h], v=O[b, h], o=Q[b, h])
                with pytest.raises(xcs.BindingError, match="axis parameter\\(s\\) h not given"):
                    attention[b](q=Q[b, h], k=Q[b, h], v=Q[b, h], o=O[b, h])
                with pytest.raises(xcs.BindingError, match="axis parameter 'h' must be bound to the axis variable"):
                    attention.at(b=b, h=3)(q=Q[b, h], k=Q[b, h], v=Q[b, h], o=O[b, h])
                with pytest.raises(xcs.BindingError, match="tensors are bound by keyword"):
                    attention(b, h, Q[b, h])
                with pytest.raises(xcs.BindingError, match="'o' and parameter 'q' are both bound to 'O'"):
                    attention[b, h](q=O[b, h], k=Q[b, h], v=Q[b, h], o=O[b, h])
            with xcs.parallel_for(4) as h2:
                pass
            with pytest.raises(xcs.BindingError, match="uses axis variable\\(s\\) h2 of a parallel_for that does not "
                                                       "enclose the launch"):
                scale_rows[b](x=Q[b, h2], y=O[b, 0])
    assert w.launches() == []  # nothing was recorded by the failed launches
    with pytest.raises(xcs.BindingError, match="launched outside a workload"):
        attention[0, 0](q=Q, k=Q, v=Q, o=O)


def test_view_errors():
    with xcs.workload() as w:
        A = w.input("A", (8, 8), np.float32)
        with xcs.parallel_for(4) as i:
            with pytest.raises(xcs.TraceError, match="index i \\+ 1 of dim 0 of A\\[0:4, :\\] \\(size 4\\) takes values 1..4 over the axes' ranges, out of bounds 0..3"):
                A[0:4][i + 1]
            with pytest.raises(xcs.TraceError, match="does not have a constant size"):
                A[i:2 * i]
            with pytest.raises(xcs.TraceError, match="out of bounds 0..7"):
                A[3 * i:3 * i + 3]
            with pytest.raises(xcs.TraceError, match="can only be multiplied by an integer"):
                A[i * i]
            with pytest.raises(xcs.TraceError, match="no value while the workload is built"):
                range(i)
            assert repr(A[2 * i:2 * i + 2, 1]) == "A[2*i:2*i + 2, 1]"
            assert A[2 * i:2 * i + 2].shape == (2, 8)
            assert repr(A[4:8][i][2:6]) == "A[i + 4, 2:6]" and A[4:8, 2:][0:2, i:i + 2].shape == (2, 2)
            with pytest.raises(xcs.TraceError, match="takes values 3..6 over the axes' ranges, out of bounds 0..3"):
                A[4:8][i + 3:i + 4]
    with pytest.raises(xcs.TraceError, match="outside a workload"):
        with xcs.parallel_for(2):
            pass


def test_overlapping_parallel_writes_are_compile_errors():
    with xcs.workload() as w:
        X = w.input("X", np.zeros((4, 6), np.float32))
        Y = w.output("Y", (4, 6))
        with xcs.parallel_for(2) as i:
            scale_rows[i](x=X[0], y=Y[0])  # every iteration writes row 0
    with pytest.raises(xcs.CompileError, match="parallel iterations write overlapping parts of 'Y'") as e:
        w.compile()
    assert e.value.file == __file__ and "i=0" in e.value.message and "i=1" in e.value.message

    @xcs.kernel
    def halves(i: AxisVar, x: In[Tensor], y: Out[Tensor]):
        y[...] = x

    with xcs.workload() as w:
        X = w.input("X", np.zeros((8,), np.float32))
        Y = w.output("Y", (8,))
        with xcs.parallel_for(3) as i:
            halves[i](x=X[2 * i:2 * i + 4], y=Y[2 * i:2 * i + 4])  # windows overlap by 2
    with pytest.raises(xcs.CompileError, match="overlapping parts of 'Y'"):
        w.compile()

    @xcs.kernel
    def halves2(i: AxisVar, j: AxisVar, x: In[Tensor], y: Out[Tensor]):
        y[...] = x

    with xcs.workload() as w:  # two launches of one loop: iteration i's second write hits i+1's first
        X = w.input("X", np.zeros((8,), np.float32))
        Y = w.output("Y", (8,))
        with xcs.parallel_for(4) as i:
            halves[i](x=X[2 * i:2 * i + 2], y=Y[2 * i:2 * i + 2])
            with xcs.parallel_for(1) as j:
                halves2[i, j](x=X[0:2], y=Y[2 * i + 2 * j:2 * i + 2 * j + 2])
    w.compile()  # same iteration writes the same part: in order, allowed

    with xcs.workload() as w:
        X = w.input("X", np.zeros((10,), np.float32))
        Y = w.output("Y", (10,))
        with xcs.parallel_for(4) as i:
            halves[i](x=X[2 * i:2 * i + 2], y=Y[2 * i:2 * i + 2])
            halves[i](x=X[0:2], y=Y[2 * i + 2:2 * i + 4])
    with pytest.raises(xcs.CompileError, match="overlapping parts of 'Y'"):
        w.compile()


@xcs.kernel
def read_neighbour(i: AxisVar, x: In[Tensor], y: Out[Tensor]):
    y[...] = x


@xcs.kernel
def column_sums(j: AxisVar, x: In[Tensor], s: Out[Tensor]):
    s[...] = x.sum(axis=0)


@xcs.kernel
def bump(i: AxisVar, y: InOut[Tensor]):
    y[...] = y + 1


def test_reads_racing_with_parallel_writes_are_compile_errors():
    """An iteration reading what another iteration of a common parallel_for writes is a race;
    reading what the same iteration wrote (before or after, or its own InOut region) is not."""
    with xcs.workload() as w:  # iteration i reads row i+1 of Y while iteration i+1 writes it
        X = w.input("X", np.zeros((4, 3), np.float32))
        Y, Z = w.output("Y", (4, 3)), w.output("Z", (3, 3))
        with xcs.parallel_for(3) as i:
            scale_rows[i](x=X[i], y=Y[i])
            read_neighbour[i](x=Y[i + 1], y=Z[i])
    with pytest.raises(xcs.CompileError, match="parallel iterations read and write overlapping parts of 'Y'") as e:
        w.compile()
    msg = e.value.message
    assert "scale_rows (out parameter 'y'" in msg and "read_neighbour (in parameter 'x'" in msg
    assert "writes Y[1, 0:3]" in msg and "reads Y[1, 0:3]" in msg and e.value.file == __file__

    with xcs.workload() as w:  # an InOut reading a neighbour's InOut region (write/write too)
        Y = w.output("Y", (7,))
        with xcs.parallel_for(3) as i:
            bump[i](y=Y[2 * i:2 * i + 3])
    with pytest.raises(xcs.CompileError, match="overlapping parts of 'Y'"):
        w.compile()

    with xcs.workload() as w:  # a whole-tensor read in a parallel loop that writes rows of it
        X = w.input("X", np.zeros((3, 3), np.float32))
        Y, Z = w.output("Y", (3, 3)), w.output("Z", (3, 3, 3))
        with xcs.parallel_for(3) as i:
            scale_rows[i](x=X[i], y=Y[i])
            read_neighbour[i](x=Y, y=Z[i])
    with pytest.raises(xcs.CompileError, match="read and write overlapping parts of 'Y'"):
        w.compile()


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_reads_of_the_iterations_own_writes_are_allowed(rng, engine):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    with xcs.workload() as w:
        X = w.input("X", x)
        Y, Z, A = w.output("Y", (3, 4)), w.output("Z", (3, 4)), w.output("A", (3, 4))
        with xcs.parallel_for(3) as i:
            scale_rows[i](x=X[i], y=Y[i])
            read_neighbour[i](x=Y[i], y=Z[i])  # its own row, written just before: ordered
            bump[i](y=A[i])  # its own InOut region
            bump[i](y=A[i])
    out = w.compile(engine=engine).execute()
    np.testing.assert_allclose(out["Z"], 2 * x, rtol=1e-6)
    np.testing.assert_allclose(out["A"], np.full((3, 4), 2.0, np.float32))
    with xcs.workload() as w:  # reads after the loop (not in it) of everything the loop wrote
        X = w.input("X", x)
        Y, Z = w.output("Y", (3, 4)), w.output("Z", (4,))
        with xcs.parallel_for(3) as i:
            scale_rows[i](x=X[i], y=Y[i])
        with xcs.parallel_for(1) as j:
            column_sums[j](x=Y, s=Z)
    out = w.compile(engine=engine).execute()
    np.testing.assert_allclose(out["Z"], (2 * x).sum(0), rtol=1e-5)


@xcs.kernel
def offset_by_axes(b: AxisVar, h: AxisVar, q: In[Tensor], table: In[Tensor], o: Out[Tensor], *,
                   step: Constexpr[int] = 10):
    o[...] = q[:, None] * b + h * step + table[b] + table[h + 1][0]


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_kernel_body_reads_its_axis_variables(rng, engine):
    """Axis parameters are index scalars in the body (tensor.from_index of the kernel's
    `index` arguments): arithmetic (as Python ints: q's dtype is kept) and indexing."""
    B, H = 3, 2
    q = rng.standard_normal((B, H, 4)).astype(np.float32)
    table = rng.standard_normal((B, 5)).astype(np.float32)
    with xcs.workload() as w:
        Q, T = w.input("Q", q), w.input("T", table)
        O = w.output("O", (B, H, 4, 5))
        with xcs.parallel_for(B) as b:
            with xcs.parallel_for(H) as h:
                offset_by_axes[b, h](q=Q[b, h], table=T, o=O[b, h], step=100)
    text = w.lower()
    assert "tensor.from_index %b_axis : (index) -> tensor<i64>" in text
    assert "tensor<4x1xf64>" not in text  # the axes computed as Python ints: no float64 promotion
    ref = np.zeros((B, H, 4, 5), np.float32)
    for i in range(B):
        for j in range(H):
            ref[i, j] = q[i, j][:, None] * i + j * 100 + table[i] + table[j + 1][0]
    out = w.compile(threads=2, engine=engine).execute()
    np.testing.assert_allclose(out["O"], ref, rtol=1e-6)


@xcs.kernel
def copy_row(x: In[Tensor], y: Out[Tensor]):
    y[...] = x


@xcs.kernel
def split_halves(x: In[Tensor], lo: Out[Tensor], hi: Out[Tensor]):
    lo[...] = x[:2]
    hi[...] = -x[2:]


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_views_without_axis_parameters_and_two_written_views(rng, engine):
    """A kernel need not take the axis variables its views use; one launch may write two
    views of one output when they are disjoint at every grid point."""
    x = rng.standard_normal((3, 4)).astype(np.float32)
    with xcs.workload() as w:
        X = w.input("X", x)
        Y, Z = w.output("Y", (3, 4)), w.output("Z", (3, 4))
        with xcs.parallel_for(3) as r:
            copy_row(x=X[r], y=Y[r])
            split_halves(x=X[r], lo=Z[r, 0:2], hi=Z[r, 2:4])
    assert "xcs.launch @copy_row[](%X[%r], %Y[%r])" in w.lower()
    out = w.compile(engine=engine).execute()
    np.testing.assert_allclose(out["Y"], x)
    np.testing.assert_allclose(out["Z"], np.concatenate([x[:, :2], -x[:, 2:]], axis=1))
    with xcs.workload() as w:
        X = w.input("X", x)
        Z = w.output("Z", (3, 4))
        with xcs.parallel_for(3) as r:
            split_halves(x=X[r], lo=Z[r, 0:2], hi=Z[r, 1:3])
    with pytest.raises(xcs.CompileError, match="overlapping parts of 'Z'"):
        w.compile(engine=engine)


def test_legacy_task_warns_and_launches(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    with xcs.workload() as w:
        X = w.input("X", x)
        Y = w.output("Y", (3, 4))
        with xcs.parallel_for(3) as i:
            with pytest.warns(DeprecationWarning, match="deprecated"):
                xcs.task("scale_rows", [i], [X[i], Y[i]], factor=4)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                with pytest.raises(xcs.BindingError, match="no kernel named 'nope'"):
                    xcs.task("nope", [i], [X[i], Y[i]])
    np.testing.assert_allclose(w.compile().execute()["Y"], 4 * x)


# ---------------------------------------------------------------- IR text

def test_workload_ir_parses_and_verifies(rng, tmp_path):
    q, k, v = (rng.standard_normal((2, 2, 4, 4)).astype(np.float32) for _ in range(3))
    text = attention_workload(q, k, v).lower()
    program = xcs.Program.parse(text)
    printed = program.text()
    assert "xcs.launch @attention[%" in printed and "xcs.workload" in printed
    opt = os.path.join(REPO, "target", "debug", "xcs-opt")
    if os.path.exists(opt):
        path = tmp_path / "mha.mlir"
        path.write_text(text)
        r = subprocess.run([opt, str(path)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert "xcs.workload" in r.stdout
