"""Orchestration values: `xcs.str_const`, `xcs.format` (tensors print exactly as numpy's
`str()`), `xcs.llm` with the built-in `echo` provider, and maps over strings. Exact strings."""

import numpy as np

from harness import FLOATS, INTS, NP, Arg, Case, Gen, Run, check, to_elem, ttype

STR = "!xcs.str"


def fmt_case(tag, arr, elem, shape_t=None):
    t = shape_t or ttype(arr.shape, elem)
    line = f'%r = xcs.format %a0 {{template = "{{}}"}} : ({t}) -> {STR}'
    exp = str(arr[()] if arr.ndim == 0 else arr)
    return Case(tag, [Arg(arr, elem, t)], [line], STR, exp, "str")


def test_format_prints_tensors_as_numpy(stats):
    """xcs.format of every numpy element type and many value families against `str(array)`."""
    g = Gen(30)
    cases = []
    for elem in [e for e in FLOATS if e != "bf16"] + ["i1"] + INTS:
        fams = {"uniform": lambda s: g.values(s, elem)}
        if elem in FLOATS:
            fams.update({
                "integral": lambda s: to_elem(np.round(g.rng.uniform(-50, 50, s)), elem),
                "large": lambda s: to_elem(g.rng.uniform(-1, 1, s) * 10.0 ** g.rng.integers(2, 9, s), elem),
                "tiny": lambda s: to_elem(g.rng.uniform(-1, 1, s) * 1e-6, elem),
                "mixed": lambda s: to_elem(g.rng.uniform(-1, 1, s) * 10.0 ** g.rng.integers(-6, 6, s), elem),
                "specials": lambda s: to_elem(g.rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.25, 1e-3],
                                                           s), elem),
                "tenths": lambda s: to_elem(np.round(g.rng.uniform(-9, 9, s), 1), elem),
            })
        for fam, make in fams.items():
            for shape in [(), (5,), (3, 4), (2, 2, 3), (0,), (2, 0), (1200,), (40, 40), (3, 1, 1)]:
                if len(shape) > 0 and np.prod(shape) > 100 and fam not in ("uniform", "mixed"):
                    continue
                arr = np.asarray(make(shape), dtype=NP[elem])
                cases.append(fmt_case(f"format {elem} {fam} {shape}", arr, elem))
    stats("xcs.format", check(cases, "format"))


def test_format_templates_and_constants(stats):
    """`{}`, `{N}`, braces, several operands of several types, string constants."""
    cases = []
    x = np.array([1.5, -2.0, 3.25], dtype=np.float32)
    t = ttype(x.shape, "f32")
    ops = [
        '%c = xcs.str_const {value = "näme"} : !xcs.str',
        f'%r = xcs.format %a0, %c, %a1 {{template = "{{1}}: {{}} {{{{literal}}}} {{2}}/{{0}}"}} : ({t}, {STR}, {STR}) -> {STR}',
    ]
    cases.append(Case("format template", [Arg(x, "f32", t), Arg("wörld", "str", STR)], ops, STR,
                      f"näme: {x} {{literal}} wörld/{x}", "str"))
    cases.append(Case("str_const", [], ['%r = xcs.str_const {value = "tab\\09quote\\22 end"} : !xcs.str'], STR,
                      'tab\tquote" end', "str"))
    cases.append(Case("format no operands", [], [f'%r = xcs.format {{template = "{{{{}}}}"}} : {STR}'], STR,
                      "{}", "str"))
    stats("xcs.format", check(cases, "format_templates"))


def test_llm_echo(tmp_path, stats):
    """The echo provider returns the prompt; a prompt built from a string input and a tensor."""
    prog = """
func.func @main(%q: !xcs.str {xcs.name = "question"}, %x: tensor<2x2xi64> {xcs.name = "x"}) -> (!xcs.str {xcs.name = "answer"}) {
  %p = xcs.format %q, %x {template = "Q: {} with {}?"} : (!xcs.str, tensor<2x2xi64>) -> !xcs.str
  %a = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
  %r = xcs.format %a {template = "A: {}"} : !xcs.str
  return %r : !xcs.str
}
"""
    x = np.array([[1, -2], [30, 4]], dtype=np.int64)
    exp = f"A: Q: what is ∑ with {x}?"
    for i, spec in enumerate(["str:what is ∑", '"what is \\E2\\88\\91"', None]):
        q = ("what is ∑", "str") if spec is None else spec  # None: a 0-d unicode .npy
        r = Run(tmp_path / str(i), prog, inputs={"question": q, "x": (x, "i64")})
        assert r.text("answer") == exp
    stats("xcs.llm", 3)


def test_provider_flag_replaces_every_provider(tmp_path, stats):
    prog = """
func.func @main(%q: !xcs.str) -> !xcs.str {
  %a = xcs.llm %q {model = "gpt-x", provider = "openai"} : !xcs.str
  return %a : !xcs.str
}
"""
    r = Run(tmp_path / "a", prog, inputs={"arg0": "str:hello"})
    assert r.proc.returncode == 1
    assert "'xcs.llm' op unknown provider 'openai' (registered: echo)" in r.proc.stderr
    r = Run(tmp_path / "b", prog, inputs={"arg0": "str:hello"}, extra=["--provider", "echo"])
    assert r.text("result0") == "hello"
    stats("xcs.llm", 1)


def test_vmap_over_prompts(tmp_path, stats):
    """A map over a batch of strings (a `<U` array): format, LLM call, stacked back."""
    prog = """
func.func @main(%b: tensor<?x!xcs.str>, %w: tensor<?xf32>) -> tensor<?x!xcs.str> {
  %r = xcs.vmap %b, %w {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>} : (tensor<?x!xcs.str>, tensor<?xf32>) -> tensor<?x!xcs.str> {
  ^bb0(%q: !xcs.str, %v: tensor<f32>):
    %p = xcs.format %q, %v {template = "{} ({})"} : (!xcs.str, tensor<f32>) -> !xcs.str
    %a = xcs.llm %p {model = "m", provider = "echo"} : !xcs.str
    xcs.yield %a : !xcs.str
  }
  return %r : tensor<?x!xcs.str>
}
"""
    qs = np.array(["alpha", "béta", "", "a much longer question"])
    w = np.array([0.5, -1.25, 1e-7, 3.0], dtype=np.float32)
    np.save(tmp_path / "qs.npy", qs)
    r = Run(tmp_path, prog, inputs={"arg0": str(tmp_path / "qs.npy"), "arg1": (w, "f32")})
    got = np.load(r.out / "result0.npy")
    assert got.dtype.kind == "U"
    assert got.tolist() == [f"{q} ({str(v)})" for q, v in zip(qs, w)]
    stats("xcs.vmap", 1)
