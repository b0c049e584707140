"""Orchestration in traced code: host values (`!xcs.str`, `!xcs.any`), `xcs.llm` and
`xcs.format` (the `xcs` dialect's ops), the seed's markers (`@xcs.mark_tensor`,
`@xcs.mark_orchestration`, ...), and calls that are not traced: they become external
`func.func private @<qualified name>` declarations with `xcs.module`, called back into Python
with concrete values when the interpreter runs the function.
"""

import functools
import re

import numpy as np

from . import _core, providers
from ._core import Array, mlir_string, user_error


class HostValue:
    """A traced host value: a string (`!xcs.str`) or any Python object (`!xcs.any`)."""

    def __init__(self, tracer, name, type_):
        self.tracer, self.name, self.type = tracer, name, type_

    def __repr__(self):
        return f"xcs.HostValue({self.type})"

    def __format__(self, spec):
        raise user_error("a traced string has no value while tracing: use xcs.format(template, ...) "
                         "instead of an f-string or str.format")

    __str__ = __format__

    def __add__(self, other):
        return format("{}{}", self, other)

    def __radd__(self, other):
        return format("{}{}", other, self)


class Box:
    """An opaque Python object travelling through the interpreter as `!xcs.any`."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def unbox(v):
    return v.value if isinstance(v, Box) else v


def host_argument(tracer, value, where):
    tracer.host = True
    type_ = "!xcs.str" if isinstance(value, str) else "!xcs.any"
    name = f"%arg{len(tracer.args)}"
    tracer.args.append((name, type_, where))
    return HostValue(tracer, name, type_)


def _tracer_of(*xs):
    for x in xs:
        if isinstance(x, (Array, HostValue)):
            return x.tracer
    return _core.active_tracer()


def _as_host_str(tracer, x):
    if isinstance(x, HostValue) and x.type == "!xcs.str":
        return x
    if isinstance(x, str):
        (name,) = tracer.emit("xcs.str_const", [], ["!xcs.str"], {"value": mlir_string(x)})
        return HostValue(tracer, name, "!xcs.str")
    raise user_error(f"expected a string, got {type(x).__name__}")


def llm(prompt, model="default", provider="echo"):
    """A language-model call (`xcs.llm`): the provider's answer to `prompt`. Traced, it is
    an op; on a concrete string it calls the provider now."""
    tracer = _tracer_of(prompt)
    if tracer is None:
        return providers.call(provider, model, prompt)
    tracer.host = True
    p = _as_host_str(tracer, prompt)
    (name,) = tracer.emit("xcs.llm", [p], ["!xcs.str"], {"model": mlir_string(model), "provider": mlir_string(provider)})
    return HostValue(tracer, name, "!xcs.str")


def _host_operands(tracer, args, other):
    """The operands of a host op: traced values as they are, strings as `!xcs.str` constants,
    anything else as `other(a)` gives it."""
    return [a if isinstance(a, (Array, HostValue)) else _as_host_str(tracer, a) if isinstance(a, str) else other(a)
            for a in args]


def format(template, *args):
    """`template` with each `{}` replaced by the next argument (`xcs.format`; tensors print as
    numpy prints them)."""
    tracer = _tracer_of(*args)
    if tracer is None:
        return template.format(*[str(a) for a in args])
    tracer.host = True

    def constant(a):
        from . import numpy as xnp
        return xnp.constant(np.asarray(a), tracer=tracer)

    ops = _host_operands(tracer, args, constant)
    (name,) = tracer.emit("xcs.format", ops, ["!xcs.str"], {"template": mlir_string(template)})
    return HostValue(tracer, name, "!xcs.str")


# ---------------------------------------------------------------- markers (seed 000 §4.1)

def _traced_call(fn, returns, name=None):
    """Wraps `fn`: called with traced values it becomes an external call; else it runs."""
    @functools.wraps(fn)
    def call(*args):
        tracer = _tracer_of(*args)
        if tracer is None or not any(isinstance(a, (Array, HostValue)) for a in args):
            return fn(*args)
        return external_call(tracer, fn, args, returns, name)
    return call


def _mark(fn, tensor, orchestration, returns=None, name=None):
    wrapped = _traced_call(fn, returns, name) if orchestration and not tensor else fn
    for f in {id(fn): fn, id(wrapped): wrapped}.values():
        try:
            f._xcs_is_tensor = tensor
            f._xcs_is_orchestration = orchestration
            f._xcs_returns = returns
        except AttributeError:  # a bound method or builtin: the wrapper carries the marks
            pass
    return wrapped


def mark_tensor(fn):
    """Marks `fn` tensor-only (seed 000: `_xcs_is_tensor = True`); it is traced through."""
    return _mark(fn, True, False)


def mark_orchestration(fn=None, *, returns=None, name=None):
    """Marks `fn` orchestration-only. Inside traced code a call of it is not traced: it becomes
    an external declaration called back with concrete values (result type from `returns`:
    `str` gives `!xcs.str`, anything else `!xcs.any`). `name` overrides the declaration's
    symbol (default `module.qualname`), e.g. for a library callable:
    `create = xcs.mark_orchestration(client.chat.completions.create, returns=str,
    name="openai.chat.completions.create")`."""
    if fn is None:
        return lambda f: _mark(f, False, True, returns, name)
    return _mark(fn, False, True, returns, name)


def mark_hybrid(fn):
    """Marks `fn` as both tensor and orchestration (seed 000)."""
    return _mark(fn, True, True)


def mark_pytree_safe(safe=True):
    """Sets `_xcs_pytree_safe` (seed 000 §4.1): whether the outputs are valid pytrees."""
    def deco(fn):
        fn._xcs_pytree_safe = bool(safe)
        return fn
    return deco


def qualified_name(fn):
    """`module.qualname` of a callable (`openai.chat.completions.create` style), as a symbol."""
    from ._jit import symbol_name
    module = getattr(fn, "__module__", None) or ""
    name = symbol_name(fn)
    return f"{module}.{name}" if module and not name.startswith(module + ".") else name


def external_call(tracer, fn, args, returns=None, name=None):
    """Emits `func.call @<qualified name>(args)` and its private declaration."""
    tracer.host = True

    def other(a):
        raise user_error(f"an external call takes traced values and strings, not {type(a).__name__} "
                         "(close over it instead)")

    ops = _host_operands(tracer, args, other)
    rtype = "!xcs.str" if returns is str else "!xcs.any"
    return declare_call(tracer, name or qualified_name(fn), getattr(fn, "__module__", None) or "", ops, rtype, fn)


def declare_call(tracer, sym, module, ops, rtype, fn, attrs=None):
    """Emits `func.call @sym(ops) -> rtype` and `func.func private @sym` (with `xcs.module =
    module` and `attrs`); `fn(*concrete operands)` is called back at run time."""
    tracer.host = True
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.$]*", sym):
        raise user_error(f"{sym!r} is not a valid symbol name for an external declaration")
    extra = "".join(f", {k} = {v}" for k, v in (attrs or {}).items())
    attr_text = f" attributes {{xcs.module = {mlir_string(module)}{extra}}}"
    decl = f"func.func private @{sym}({', '.join(o.type for o in ops)}) -> {rtype}{attr_text}"
    old = tracer.decls.get(sym)
    if old is not None and old != decl:
        raise user_error(f"@{sym} is called with different argument types in one function")
    tracer.decls[sym] = decl
    tracer.externals[sym] = fn
    (name,) = tracer.emit("func.call", [], [rtype], None)
    # the generic emitter has no callee syntax: rewrite its line as a call
    line = tracer.lines.pop()
    loc = line[line.rindex(" loc("):]
    tracer.lines.append(f"{name} = func.call @{sym}({', '.join(o.name for o in ops)}) : "
                        f"({', '.join(o.type for o in ops)}) -> {rtype}{loc}")
    return HostValue(tracer, name, rtype)


# ---------------------------------------------------------------- running

def _external(fn):
    def call(*args):
        out = fn(*[unbox(a) for a in args])
        return (out if isinstance(out, str) else Box(out),)
    return call


def interpret(program, traced, dynamic):
    """Runs a traced host function on the reference interpreter (providers and externals
    called back into Python)."""
    args = [a if isinstance(a, (str, np.ndarray)) else Box(a) for a in dynamic]
    externals = {k: _external(f) for k, f in traced.externals.items()}
    outs = program.interpret(traced.name, args, providers.bound_providers(), externals)
    return tuple(unbox(o) for o in outs)
