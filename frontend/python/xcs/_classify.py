"""`xcs.analyze_operations(fn)`: seed 000's `OperationSummary`, computed by the `classify` pass.

The function is not called: it becomes IR — a `func.func` with its marker (`xcs.mark`) or its
`__module__` (`xcs.module`), argument types from its annotations, and one call per dotted
name its source calls or reads (aliases of modules resolved: `jnp.dot` is `jax.numpy.dot`),
each to a private declaration named by it. `classify` applies the seed's priorities (markers,
module, names with module-aware keyword matching, types) and Python reads its attributes.
"""

import ast
import dataclasses
import inspect
import re
import textwrap
import types

from ._core import mlir_string
from ._native import Program

_TENSOR_HINTS = ("array", "tensor", "ndarray", "jax")


@dataclasses.dataclass
class OperationSummary:
    """Seed 000 §3.1: the names classified as tensor and as orchestration operations."""

    tensor_ops: set
    orchestration_ops: set
    kind: str = "none"
    source: str = "analysis"

    @property
    def has_tensor_ops(self):
        return bool(self.tensor_ops)

    @property
    def has_orchestration_ops(self):
        return bool(self.orchestration_ops)

    @property
    def only_tensor_ops(self):
        return self.has_tensor_ops and not self.has_orchestration_ops

    @property
    def only_orchestration_ops(self):
        return self.has_orchestration_ops and not self.has_tensor_ops

    @property
    def is_hybrid(self):
        return self.has_tensor_ops and self.has_orchestration_ops


class _Names(ast.NodeVisitor):
    """The dotted names of calls and attribute reads (seed 000 §4.3's `_OperationVisitor`)."""

    def __init__(self, globals_):
        self.globals = globals_
        self.names = []

    def _dotted(self, node):
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Call):
            node = node.func
            return self._dotted(node)
        if not isinstance(node, ast.Name):
            return None
        head = node.id
        obj = self.globals.get(head)
        if isinstance(obj, types.ModuleType):
            head = obj.__name__  # module-aware: the alias's real module
        elif obj is not None and not parts and getattr(obj, "__module__", None) and callable(obj):
            mod = obj.__module__
            if mod not in ("builtins", "__main__") and not mod.startswith("xcs"):
                head = f"{mod}.{getattr(obj, '__qualname__', head)}"
        return ".".join([head] + parts[::-1])

    def _record(self, node):
        name = self._dotted(node)
        if name and name not in self.names:
            self.names.append(name)

    def visit_Call(self, node):
        self._record(node.func)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        self._record(node)
        self.generic_visit(node)


# registered dialects: a dotted name starting with one is prefixed (`py.`) to stay an
# unregistered op; so are names without a dot (an op name needs a dialect)
_REGISTERED = ("builtin", "func", "cf", "tensor", "xcs", "shard", "cost", "test", "llvm")
_PREFIX = "py."
# xcs's own modules, for the pass's tables (after the `py.` prefix)
_OPTIONS = ("tensor-prefixes=py.xcs.numpy.,py.xcs.nn. orchestration-prefixes=py.xcs.llm,py.xcs.providers.")


def _op_name(name):
    head = name.split(".", 1)[0]
    return _PREFIX + name if "." not in name or head in _REGISTERED else name


def _unop(name):
    name = name[len(_PREFIX):] if name.startswith(_PREFIX) else name
    return name.rstrip(".")


def _module_ir(fn):
    """The IR `classify` judges `fn` by (and the name of its function)."""
    name = "fn"
    attrs = {}
    if hasattr(fn, "_xcs_is_tensor") or hasattr(fn, "_xcs_is_orchestration"):
        t, o = bool(getattr(fn, "_xcs_is_tensor", False)), bool(getattr(fn, "_xcs_is_orchestration", False))
        attrs["xcs.mark"] = mlir_string("hybrid" if t and o else "tensor" if t else "orchestration" if o else "hybrid")
        if hasattr(fn, "_xcs_pytree_safe"):
            attrs["xcs.pytree_safe"] = "true" if fn._xcs_pytree_safe else "false"
        return f"func.func @{name}() attributes {{{', '.join(f'{k} = {v}' for k, v in attrs.items())}}} {{\n  return\n}}\n"
    module = getattr(fn, "__module__", None)
    if module:
        attrs["xcs.module"] = mlir_string(module + ".")  # the seed matches `module.` prefixes
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError, IndentationError):
        # seed 000 §7.1, §7.2: no source, or not parsable: an unknown declaration (hybrid)
        return f"func.func private @{name}()\n"
    visitor = _Names(getattr(fn, "__globals__", {}))
    body = tree.body[0] if tree.body else tree
    visitor.visit(body)
    args = []
    try:
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            hint = "" if p.annotation is inspect.Parameter.empty else repr(p.annotation).lower()
            args.append("tensor<?xf32>" if any(h in hint for h in _TENSOR_HINTS) else "!xcs.any")
    except (TypeError, ValueError):
        pass
    # each name the source calls or reads: an unregistered op of that name, which the pass
    # matches by name (module-aware, then keywords; no match: no signal)
    calls = "".join(f"  {mlir_string(_op_name(n))}() : () -> ()\n" for n in visitor.names)
    attr_text = f" attributes {{{', '.join(f'{k} = {v}' for k, v in attrs.items())}}}" if attrs else ""
    arg_text = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
    return f"func.func @{name}({arg_text}){attr_text} {{\n{calls}  return\n}}\n"


_ATTR = re.compile(r'(xcs\.(?:class|class_source|tensor_ops|orchestration_ops)) = (\[[^\]]*\]|"[^"]*")')


def analyze_operations(fn):
    """Seed 000's `analyze_operations`: an `OperationSummary` of `fn` from the `classify` pass."""
    fn = getattr(fn, "__wrapped__", fn) if not hasattr(fn, "_xcs_is_tensor") else fn
    program = Program.parse(_module_ir(fn), "<analyze_operations>", allow_unregistered=True)
    program.run_pipeline(f"builtin.module(classify{{{_OPTIONS}}})")
    text = program.text()
    head = next((line for line in text.splitlines() if line.lstrip().startswith("func.func") and "@fn(" in line), "")
    found = dict(_ATTR.findall(head))

    def names(key):
        raw = found.get(key, "[]")
        return {_unop(n.lstrip("@")) for n in re.findall(r'"((?:[^"\\]|\\.)*)"', raw)}
    kind = found.get("xcs.class", '"none"').strip('"')
    source = found.get("xcs.class_source", '"analysis"').strip('"')
    return OperationSummary(names("xcs.tensor_ops"), names("xcs.orchestration_ops"), kind, source)
