"""Orchestration: xcs.llm/xcs.format and providers (timeouts), marked orchestration calls as
external declarations called back, vmap against loops, parallel_map ordering and errors,
and seed 000's analyze_operations cases."""

import threading
import time

import numpy as np
import pytest

import xcs


def test_llm_and_format_in_jit():
    @xcs.jit
    def summarize(x, question):
        total = x.sum()
        return xcs.llm(xcs.format("total {} for {}", total, question), model="m", provider="echo"), total * 2

    x = np.arange(4, dtype=np.float32)
    text, doubled = summarize(x, "q1")
    assert text == f"total {np.float32(x.sum())} for q1"
    np.testing.assert_allclose(doubled, x.sum() * 2)
    ir = summarize.lower(x, "q").as_text()
    assert "xcs.llm" in ir and "xcs.format" in ir and "!xcs.str" in ir


def test_classify_report_of_a_traced_function():
    @xcs.jit
    def hybrid(x, q):
        return xcs.llm(xcs.format("{}", x.sum()), provider="echo"), x * 2

    report = hybrid.lower(np.ones(3, np.float32), "q").classify()
    (entry,) = [f for f in report["functions"] if f["name"].endswith("hybrid")]
    assert entry["class"] == "hybrid"


def test_registered_provider_and_timeout():
    xcs.providers.register("upper", lambda model, prompt: f"{model}:{prompt.upper()}")
    f = xcs.jit(lambda q: xcs.llm(q, model="m1", provider="upper"))
    assert f("hi") == "m1:HI"
    assert xcs.llm("direct", model="m2", provider="upper") == "m2:DIRECT"

    xcs.providers.register("slow", lambda model, prompt: (time.sleep(5), prompt)[1], timeout=0.2)
    t0 = time.monotonic()
    with pytest.raises(xcs.RunError, match="timed out"):
        xcs.jit(lambda q: xcs.llm(q, provider="slow"))("x")
    assert time.monotonic() - t0 < 4  # bounded by the timeout, not the provider


def test_failing_provider_is_a_run_error():
    def broken(model, prompt):
        raise ValueError("quota exceeded")
    xcs.providers.register("broken", broken)
    with pytest.raises(xcs.RunError, match="quota exceeded"):
        xcs.jit(lambda q: xcs.llm(q, provider="broken"))("x")


def test_orchestration_call_is_an_external_declaration():
    seen = []

    @xcs.mark_orchestration(returns=str)
    def search(query):
        seen.append(query)
        return f"results for {query}"

    @xcs.jit
    def agent(q):
        return xcs.llm(search(q), provider="echo")

    text = agent.lower("cats").as_text()
    assert "func.func private @" in text and "search" in text and "xcs.module" in text
    assert agent("cats") == "results for cats" and seen == ["cats"]


def test_library_callable_with_a_declared_name():
    class Completions:  # stands in for a client library's bound method (no network)
        def create(self, prompt):
            return f"completion of {prompt}"

    create = xcs.mark_orchestration(Completions().create, returns=str, name="openai.chat.completions.create")
    f = xcs.jit(lambda q: create(q))
    text = f.lower("x").as_text()
    assert "func.func private @openai.chat.completions.create(!xcs.str) -> !xcs.str" in text
    assert f("hello") == "completion of hello"
    # classify treats the openai. prefix as orchestration
    p = xcs.Program.parse(text)
    p.run_pipeline("builtin.module(classify)")
    assert 'xcs.class = "orchestration"' in p.text()


def test_opaque_results_are_any():
    @xcs.mark_orchestration
    def fetch(q):
        return {"q": q}

    @xcs.jit
    def f(q):
        return fetch(q)

    assert "!xcs.any" in f.lower("x").as_text()
    assert f("x") == {"q": "x"}


def test_vmap_equals_loop(rng):
    def f(x, w):
        return xcs.nn.relu(x @ w).sum(axis=-1)

    x, w = rng.standard_normal((6, 3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    want = np.stack([np.maximum(x[i] @ w, 0).sum(-1) for i in range(6)])
    np.testing.assert_allclose(xcs.vmap(f, in_axes=(0, None))(x, w), want, rtol=1e-5)
    # in_axes on another axis, out_axes=1
    xt = np.swapaxes(x, 0, 1)
    got = xcs.vmap(f, in_axes=(1, None), out_axes=1)(xt, w)
    np.testing.assert_allclose(got, want.T, rtol=1e-5)


def test_vmap_nested_and_inside_jit(rng):
    x = rng.standard_normal((4, 3, 5))
    g = xcs.vmap(xcs.vmap(lambda a: a * 2 + a.sum()))
    want = np.stack([np.stack([x[i, j] * 2 + x[i, j].sum() for j in range(3)]) for i in range(4)])
    np.testing.assert_allclose(g(x), want)
    h = xcs.jit(lambda x: xcs.vmap(lambda r: r.max())(x) + 1)
    np.testing.assert_allclose(h(x[0]), x[0].max(axis=1) + 1)
    assert "xcs.vmap" in h.lower(x[0]).as_text()
    assert "xcs.vmap" not in h.lower(x[0]).compile().as_text()  # vmap-batch lowered it


def test_vmap_over_prompts_keeps_order():
    def ask(q):
        return xcs.llm(xcs.format("Q: {}", q), provider="echo")

    prompts = [f"p{i}" for i in range(20)]
    v = xcs.vmap(ask, max_concurrency=4)
    assert v.dispatch((prompts,)) == "parallel"
    assert v(prompts) == [f"Q: {p}" for p in prompts]


def test_parallel_map_order_concurrency_and_errors():
    active, peak, lock = [0], [0], threading.Lock()

    def work(i):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.01 * (10 - i % 10))
        with lock:
            active[0] -= 1
        if i in (3, 7):
            raise ValueError(f"bad {i}")
        return i * i

    with pytest.raises(xcs.RunError) as e:
        xcs.parallel_map(work, list(range(12)), max_concurrency=4)
    assert e.value.indices == [3, 7]
    assert [r for i, r in enumerate(e.value.results) if i not in (3, 7)] == [i * i for i in range(12) if i not in (3, 7)]
    assert peak[0] <= 4
    assert xcs.parallel_map(lambda a, b: a + b, [1, 2, 3], 10, in_axes=(0, None)) == [11, 12, 13]


# ---------------------------------------------------------------- seed 000's cases

import numpy  # noqa: E402  (module-aware resolution of the aliases below)
import numpy as jnp  # noqa: E402


def compute_loss(x, y):
    return jnp.mean((x - y) ** 2)


def call_llm_helper(prompt):
    return client.chat.completions.create(prompt)  # noqa: F821


def mixed(text):
    emb = numpy.array([1.0])
    return llm_call(text), emb  # noqa: F821


def plain(a, b):
    return a + b


def uses_model(model):
    return model.call(router.tool())  # noqa: F821


def annotated(x: np.ndarray):
    return x


def test_seed_markers_override_heuristics():
    @xcs.mark_tensor
    def t(x):
        return openai_chat(x)  # noqa: F821

    @xcs.mark_orchestration
    def o(x):
        return jnp.sum(x)

    @xcs.mark_hybrid
    def h(x):
        return x

    assert xcs.analyze_operations(t).only_tensor_ops
    assert xcs.analyze_operations(o).only_orchestration_ops
    assert xcs.analyze_operations(h).is_hybrid

    @xcs.mark_pytree_safe(False)
    def p(x):
        return x
    assert p._xcs_pytree_safe is False


def test_seed_heuristics():
    s = xcs.analyze_operations(compute_loss)
    assert s.only_tensor_ops and "numpy.mean" in s.tensor_ops  # jnp alias resolved to its module
    s = xcs.analyze_operations(call_llm_helper)
    assert s.only_orchestration_ops
    assert xcs.analyze_operations(mixed).is_hybrid
    s = xcs.analyze_operations(plain)  # §7.3: no indicators, empty sets
    assert s.tensor_ops == set() and s.orchestration_ops == set()
    assert not (s.only_tensor_ops or s.only_orchestration_ops or s.is_hybrid)
    s = xcs.analyze_operations(uses_model)  # excluded keywords: model, call, router, tool
    assert not s.tensor_ops and not s.orchestration_ops
    assert xcs.analyze_operations(annotated).only_tensor_ops  # §4.4 annotations


def test_seed_module_detection_and_no_source():
    assert xcs.analyze_operations(numpy.sum).only_tensor_ops  # __module__ numpy.*
    s = xcs.analyze_operations(len)  # §7.1: no source -> hybrid, "unknown"
    assert s.is_hybrid and s.tensor_ops == {"unknown"} and s.orchestration_ops == {"unknown"}
    ns = {}
    exec("def dyn(x):\n    return x\n", ns)  # no source file
    assert xcs.analyze_operations(ns["dyn"]).is_hybrid


def test_one_host_function_on_many_threads():
    """A jitted hybrid function (run by the interpreter) called from parallel_map's threads:
    they run at once (no deadlock between the GIL and the program), results in order."""
    xcs.providers.register("slow_echo", lambda model, prompt: (time.sleep(0.02), prompt)[1], timeout=10.0)

    @xcs.jit
    def label(x, name):
        return xcs.llm(xcs.format("{}: {}", name, x.max()), provider="slow_echo")

    xs = [np.full(3, float(i), np.float32) for i in range(16)]
    names = [f"item{i}" for i in range(16)]
    t0 = time.monotonic()
    out = xcs.parallel_map(label, xs, names, max_concurrency=8)
    assert out == [f"item{i}: {float(i)}" for i in range(16)]
    assert label.cache_info().traces == 1
    del t0
