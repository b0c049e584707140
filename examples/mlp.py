"""A 2-layer MLP with xcs.jit: traced into the tensor dialect, optimized (inline, cse, fuse),
compiled through LLVM and called with numpy arrays; checked against numpy.
Run: python3 examples/mlp.py"""

import numpy as np

import xcs
import xcs.numpy as xnp


def dense(x, w, b):
    return x @ w + b


@xcs.jit
def mlp(x, w1, b1, w2, b2):
    h = xcs.nn.gelu(dense(x, w1, b1))
    return xcs.nn.softmax(dense(h, w2, b2), axis=-1)


rng = np.random.default_rng(0)
x = rng.standard_normal((8, 16), dtype=np.float32)
w1, b1 = rng.standard_normal((16, 32), dtype=np.float32) * 0.1, np.zeros(32, np.float32)
w2, b2 = rng.standard_normal((32, 4), dtype=np.float32) * 0.1, np.zeros(4, np.float32)

print("== the traced IR (xcs.jit(mlp).lower(...).as_text())")
print(mlp.lower(x, w1, b1, w2, b2).as_text())
probs = mlp(x, w1, b1, w2, b2)
h = x @ w1 + b1
h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h ** 3)))
logits = h @ w2 + b2
want = np.exp(logits - logits.max(-1, keepdims=True))
want /= want.sum(-1, keepdims=True)
assert np.allclose(probs, want, rtol=1e-4, atol=1e-6), "the compiled MLP differs from numpy"
mlp(x, w1, b1, w2, b2)
print("== probs[0] =", probs[0], "(equal to numpy's; cache:", mlp.cache_info(), ")")
print("== cost-annotate:", mlp.lower(x, w1, b1, w2, b2).cost()["flops"], "FLOPs")
print("== row sums with xcs.vmap:", xcs.vmap(lambda r: xnp.sum(r))(probs))
