"""Kernel workloads (seed 002) as IR text, shared by the workload tests
(test/interp/test_workloads.py) and the workload benchmark (bench_workload_ir.py): a batched
multi-head attention over a (batch, heads) grid, the same attention as one function of batched
tensor ops, and a tiled matmul over a grid of C's blocks."""

import numpy as np


def attention_program(B, H, S, D):
    t4 = f"tensor<{B}x{H}x{S}x{D}xf32>"
    t2 = f"tensor<{S}x{D}xf32>"
    scale = float(1.0 / np.sqrt(D))
    return f"""
xcs.kernel @attn {{function_type = (index, index, {t2}, {t2}, {t2}, {t2}) -> (), arg_kinds = ["axis", "axis", "in", "in", "in", "out"], arg_names = ["b", "h", "q", "k", "v", "o"]}} {{
^bb0(%b: index, %h: index, %q: {t2}, %k: {t2}, %v: {t2}, %o: {t2}):
  %kt = tensor.transpose %k {{perm = array<i64: 1, 0>}} : (tensor<{S}x{D}xf32>) -> tensor<{D}x{S}xf32>
  %s = tensor.matmul %q, %kt : (tensor<{S}x{D}xf32>, tensor<{D}x{S}xf32>) -> tensor<{S}x{S}xf32>
  %c = tensor.constant {{value = dense<{scale!r}> : tensor<f32>}} : tensor<f32>
  %ss = tensor.mul %s, %c : (tensor<{S}x{S}xf32>, tensor<f32>) -> tensor<{S}x{S}xf32>
  %p = tensor.softmax %ss {{axis = -1 : i64}} : tensor<{S}x{S}xf32>
  %r = tensor.matmul %p, %v : (tensor<{S}x{S}xf32>, tensor<{S}x{D}xf32>) -> tensor<{S}x{D}xf32>
  xcs.yield %r : tensor<{S}x{D}xf32>
}}
func.func @main(%Q: {t4} {{xcs.name = "Q"}}, %K: {t4} {{xcs.name = "K"}}, %V: {t4} {{xcs.name = "V"}}) -> ({t4} {{xcs.name = "O"}}) {{
  %O = xcs.workload %Q, %K, %V : ({t4}, {t4}, {t4}) -> {t4} {{
  ^bb0(%q: {t4}, %k: {t4}, %v: {t4}, %o: {t4}):
    xcs.parallel_for {{extent = {B} : i64}} : () -> () {{
    ^bb0(%b: index):
      xcs.parallel_for {{extent = {H} : i64}} : () -> () {{
      ^bb0(%h: index):
        xcs.launch @attn[%b, %h](%q[%b, %h], %k[%b, %h], %v[%b, %h], %o[%b, %h]) : {t4}, {t4}, {t4}, {t4}
      }}
    }}
  }}
  return %O : {t4}
}}
"""


def attention_function_program(B, H, S, D):
    """The attention of `attention_program` as one function of batched tensor ops (no
    workload): the same computation as one `xcs.jit` function would trace."""
    t4, ts, tk = f"tensor<{B}x{H}x{S}x{D}xf32>", f"tensor<{B}x{H}x{S}x{S}xf32>", f"tensor<{B}x{H}x{D}x{S}xf32>"
    scale = float(1.0 / np.sqrt(D))
    return f"""
func.func @main(%Q: {t4}, %K: {t4}, %V: {t4}) -> {t4} {{
  %kt = tensor.transpose %K {{perm = array<i64: 0, 1, 3, 2>}} : ({t4}) -> {tk}
  %s = tensor.matmul %Q, %kt : ({t4}, {tk}) -> {ts}
  %c = tensor.constant {{value = dense<{scale!r}> : tensor<f32>}} : tensor<f32>
  %ss = tensor.mul %s, %c : ({ts}, tensor<f32>) -> {ts}
  %p = tensor.softmax %ss {{axis = -1 : i64}} : {ts}
  %r = tensor.matmul %p, %V : ({ts}, {t4}) -> {t4}
  return %r : {t4}
}}
"""


def attention_numpy(Q, K, V):
    d = Q.shape[-1]
    s = (Q.astype(np.float64) @ np.swapaxes(K, -1, -2).astype(np.float64)) / np.sqrt(d)
    s = s - s.max(-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(-1, keepdims=True)
    return p @ V.astype(np.float64)


def tiled_matmul_program(M, K, N, TM, TN):
    ta, tb, tc = f"tensor<{M}x{K}xf32>", f"tensor<{K}x{N}xf32>", f"tensor<{M}x{N}xf32>"
    tile_a, tile_b, tile_c = f"tensor<{TM}x{K}xf32>", f"tensor<{K}x{TN}xf32>", f"tensor<{TM}x{TN}xf32>"
    return f"""
xcs.kernel @block {{function_type = (index, index, {tile_a}, {tile_b}, {tile_c}) -> (), arg_kinds = ["axis", "axis", "in", "in", "out"], arg_names = ["i", "j", "a", "b", "c"]}} {{
^bb0(%i: index, %j: index, %a: {tile_a}, %b: {tile_b}, %c: {tile_c}):
  %r = tensor.matmul %a, %b : ({tile_a}, {tile_b}) -> {tile_c}
  xcs.yield %r : {tile_c}
}}
func.func @main(%A: {ta} {{xcs.name = "A"}}, %B: {tb} {{xcs.name = "B"}}) -> ({tc} {{xcs.name = "C"}}) {{
  %C = xcs.workload %A, %B : ({ta}, {tb}) -> {tc} {{
  ^bb0(%a: {ta}, %b: {tb}, %c: {tc}):
    xcs.parallel_for {{extent = {M // TM} : i64}} : () -> () {{
    ^bb0(%i: index):
      xcs.parallel_for {{extent = {N // TN} : i64}} : () -> () {{
      ^bb0(%j: index):
        xcs.launch @block[%i, %j](%a[{TM}*%i:{TM}*%i + {TM}], %b[:, {TN}*%j:{TN}*%j + {TN}], %c[{TM}*%i:{TM}*%i + {TM}, {TN}*%j:{TN}*%j + {TN}]) : {ta}, {tb}, {tc}
      }}
    }}
  }}
  return %C : {tc}
}}
"""


