"""Calls into orchestration modules without a marker (`_intercept.py`): fake `openai` and
`anthropic` packages written to a temporary directory (never the network) are called from
`@xcs.jit` functions; the calls must become external declarations that `classify` puts on the
orchestration side and that call the fake functions back with concrete values."""

import importlib
import sys
import textwrap

import numpy as np
import pytest

import xcs

_OPENAI = '''
"""A stand-in for the openai package: module-level namespaces and a client class."""
import types

calls = []


def _create(*args, **kwargs):
    calls.append((args, kwargs))
    content = kwargs["messages"][-1]["content"]
    return {"model": kwargs.get("model"), "text": f"answer to {content}", "n": kwargs.get("n")}


chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=_create))


def embed(text) -> str:
    calls.append(((text,), {}))
    return f"embedding of {text}"


def total(values):
    calls.append(((values,), {}))
    return float(values.sum())


class OpenAI:
    def __init__(self, api_key=None):
        self.api_key = api_key
        self.chat = types.SimpleNamespace(completions=types.SimpleNamespace(create=self._create))

    def _create(self, **kwargs):
        calls.append(((self.api_key,), kwargs))
        return "client " + self.api_key + ": " + kwargs["messages"][-1]["content"]
'''

_ANTHROPIC = '''
"""A stand-in for the anthropic package: a client whose `messages.create` answers."""
calls = []


class _Messages:
    def create(self, *, model, max_tokens, messages) -> str:
        calls.append((model, max_tokens, messages))
        return f"{model}/{max_tokens}: {messages[0]['content'].upper()}"


class Anthropic:
    def __init__(self):
        self.messages = _Messages()
'''

_APP = '''
"""A user's module importing the fakes at its top: globals, a nested jit, a helper."""
import openai
from openai import total
import xcs

import mylib_helpers


def summarize(text):
    return openai.embed(xcs.format("summary: {}", text))


@xcs.jit
def inner(q):
    return summarize(q)


@xcs.jit
def pipeline(x, q):
    return mylib_helpers.scale(x), inner(q), total(x)
'''

_HELPERS = '''
"""A module classify knows nothing of: traced through."""
import xcs.numpy as xnp


def scale(x):
    return xnp.tanh(x) * 2.0
'''


_FAKES = ("openai", "anthropic", "mylib_helpers", "app")


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    """Imports the fake packages from `tmp_path` (and removes them afterwards)."""
    for name, text in {"openai": _OPENAI, "anthropic": _ANTHROPIC, "mylib_helpers": _HELPERS, "app": _APP}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in _FAKES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    mods = [importlib.import_module(n) for n in _FAKES]
    yield mods
    for name in _FAKES:
        sys.modules.pop(name, None)


def _classes(lowered):
    """name -> (class, source) of each function in the `classify` report of a traced module."""
    return {f["name"]: (f["class"], f["source"]) for f in lowered.classify()["functions"]}


def test_module_call_is_an_external_declaration(fakes):
    openai = fakes[0]

    @xcs.jit
    def ask(question):
        prompt = xcs.format("Q: {}", question)
        return openai.chat.completions.create(model="gpt-4o", n=2,
                                              messages=[{"role": "user", "content": prompt}])

    text = ask.lower("why").as_text()
    decl = [line for line in text.splitlines() if "func.func private @openai.chat.completions.create" in line]
    assert len(decl) == 1, text
    assert "(!xcs.str, !xcs.str, !xcs.str) -> !xcs.any" in decl[0]  # model, role, content
    assert 'xcs.module = "openai"' in decl[0]
    assert "n=2" in decl[0]  # a non-string constant stays in the call convention (xcs.call)
    assert "call @openai.chat.completions.create(" in text
    assert "create(model=$0, n=2, messages=[{'role': $1, 'content': $2}])" in decl[0]
    assert not openai.calls  # nothing was called while tracing
    classes = _classes(ask.lower("why"))
    assert classes["@openai.chat.completions.create"] == ("orchestration", "module")  # by its xcs.module
    assert [c for name, c in classes.items() if name.endswith(".ask")] == [("orchestration", "analysis")]
    out = ask("why")
    assert out == {"model": "gpt-4o", "text": "answer to Q: why", "n": 2}
    assert openai.calls == [((), {"model": "gpt-4o", "n": 2, "messages": [{"role": "user", "content": "Q: why"}]})]
    assert ask("how")["text"] == "answer to Q: how"
    assert ask.cache_info().traces == 3  # lower() twice, the first call once; "how" hit


def test_instance_methods_and_annotated_result(fakes):
    openai, anthropic, _, _ = fakes
    client = anthropic.Anthropic()

    @xcs.jit
    def ask(q):
        answer = client.messages.create(model="claude", max_tokens=64, messages=[{"role": "user", "content": q}])
        return xcs.llm(xcs.format("{}!", answer), provider="echo")  # `-> str`: a traced string

    text = ask.lower("hi").as_text()
    assert "func.func private @anthropic.Anthropic.messages.create(!xcs.str, !xcs.str, !xcs.str) -> !xcs.str" in text
    assert 'xcs.module = "anthropic"' in text
    assert _classes(ask.lower("hi"))["@anthropic.Anthropic.messages.create"] == ("orchestration", "module")
    assert ask("hi") == "claude/64: HI!"
    assert anthropic.calls == [("claude", 64, [{"role": "user", "content": "hi"}])]


def test_client_made_inside_and_tensor_operands(fakes):
    openai = fakes[0]

    @xcs.jit
    def f(x, q):
        client = openai.OpenAI(api_key="k1")  # constructed while tracing (concrete arguments)
        a = client.chat.completions.create(messages=[{"content": q}])
        return a, openai.total(x * 2), openai.embed(q)

    x = np.arange(3, dtype=np.float32)
    text = f.lower(x, "q").as_text()
    assert "@openai.OpenAI.chat.completions.create" in text
    assert "func.func private @openai.total(tensor<3xf32>) -> !xcs.any" in text
    assert "func.func private @openai.embed(!xcs.str) -> !xcs.str" in text
    a, t, e = f(x, "hello")
    assert (a, t, e) == ("client k1: hello", 6.0, "embedding of hello")


def test_different_constants_get_their_own_declarations(fakes):
    openai = fakes[0]

    @xcs.jit
    def two(q):
        a = openai.chat.completions.create(n=1, messages=[{"content": q}])
        b = openai.chat.completions.create(n=3, messages=[{"content": q}])
        c = openai.chat.completions.create(n=1, messages=[{"content": q}])
        return a, b, c

    text = two.lower("q").as_text()
    assert "private @openai.chat.completions.create(" in text and "private @openai.chat.completions.create$1(" in text
    assert "create$2" not in text  # the third call reuses the first declaration
    a, b, c = two("q")
    assert (a["n"], b["n"], c["n"]) == (1, 3, 1)


def test_helpers_are_traced_through_and_rebound(fakes):
    openai, _, helpers, _ = fakes

    def describe(v):  # a Python helper reaching openai: rebound too
        return openai.embed(xcs.format("{}", v.sum()))

    @xcs.jit
    def f(x):
        y = helpers.scale(x)  # a module classify does not know: traced into tensor ops
        return y, describe(y)

    x = np.linspace(-1, 1, 4).astype(np.float32)
    text = f.lower(x).as_text()
    assert "tensor.tanh" in text or "tanh" in text
    assert "mylib_helpers" not in text  # not an external call
    assert "@openai.embed" in text
    y, e = f(x)
    np.testing.assert_allclose(y, np.tanh(x) * 2, rtol=1e-6)
    assert e.startswith("embedding of ")
    assert describe is not None and openai.embed.__module__ == "openai"  # the originals are untouched


def test_functions_without_orchestration_are_not_copied(fakes):
    from xcs._intercept import rebind

    def plain(x):
        return np.tanh(x)

    assert rebind(plain) is plain


def test_opaque_result_is_a_located_trace_error(fakes):
    openai = fakes[0]

    @xcs.jit
    def f(q):
        r = openai.chat.completions.create(messages=[{"content": q}])
        return r.choices  # the line the error names

    with pytest.raises(xcs.TraceError, match="no value while tracing") as info:
        f("q")
    assert info.value.file == __file__
    assert info.value.line == f.fun.__code__.co_firstlineno + 3


def test_failing_callee_is_a_run_error(fakes):
    openai = fakes[0]

    @xcs.jit
    def f(q):
        return openai.chat.completions.create(messages=[])  # the fake reads messages[-1]

    with pytest.raises(xcs.RunError, match="IndexError"):
        f("q")


def test_orchestration_class_from_traced_values_is_a_run_time_call(fakes):
    openai = fakes[0]

    @xcs.jit
    def f(q):
        return openai.OpenAI(api_key=q)  # a traced argument: constructed at run time

    assert "@openai.OpenAI(!xcs.str) -> !xcs.any" in f.lower("k").as_text()
    assert f("k2").api_key == "k2"


def test_module_globals_and_a_nested_jit(fakes):
    openai, app = fakes[0], fakes[3]
    x = np.array([0.5, -0.5], np.float32)
    text = app.pipeline.lower(x, "doc").as_text()
    assert "func.func private @openai.embed(!xcs.str) -> !xcs.str" in text
    assert "func.func private @openai.total(tensor<2xf32>) -> !xcs.any" in text  # imported by name
    y, s, t = app.pipeline(x, "doc")
    np.testing.assert_allclose(y, np.tanh(x) * 2, rtol=1e-6)
    assert s == "embedding of summary: doc" and t == 0.0
    assert app.summarize.__globals__["openai"] is openai  # the module's own globals are untouched
    assert app.inner("d2") == "embedding of summary: d2"  # the nested jit on its own


def test_calls_that_cannot_be_intercepted_are_located_trace_errors(fakes):
    openai = fakes[0]

    @xcs.jit
    def not_callable(q):
        return openai.chat(q)  # a namespace, not a function

    @xcs.jit
    def in_a_set(q):
        return openai.total({q})

    for f, message in ((not_callable, "openai.chat .* is not callable"), (in_a_set, "inside a set")):
        with pytest.raises(xcs.TraceError, match=message) as info:
            f("q")
        assert (info.value.file, info.value.line) == (__file__, f.fun.__code__.co_firstlineno + 2)
    assert not openai.calls


def test_recursive_helpers_and_bound_methods(fakes):
    openai = fakes[0]

    def countdown(q, n):  # calls itself: the copy calls the copy
        return openai.embed(q) if n == 0 else countdown(xcs.format("{}.", q), n - 1)

    class Agent:
        def __init__(self, suffix):
            self.suffix = suffix

        def run(self, q):
            return countdown(xcs.format("{}{}", q, self.suffix), 2)

    f = xcs.jit(Agent("!").run)
    assert f("go") == "embedding of go!.."
    assert "@openai.embed" in f.lower("x").as_text()
