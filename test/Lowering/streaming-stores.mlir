// Large f32 outputs (32 MiB or more) are written once with streaming stores: 16-lane
// `!nontemporal` stores aligned to 64 bytes, and a fence before the kernel returns. Row ops
// (rows a whole number of 64-byte lines): softmax keeps exp(x - max) in a stack row, not in the
// output, and both prefetch the next row while they compute this one; softmax's special rows
// (a NaN, +inf, -inf entries, all -inf) give numpy's NaN rows and zeros. The flat elementwise loop computes each whole aligned block of 64 elements into stack
// scratch and streams it out; a short block (the tail of 8388616 elements) uses ordinary stores.
// Small outputs keep ordinary stores (the next op finds them in the cache). The results match
// numpy's.
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 --O0 -o %t/o0.ll && FileCheck %s < %t/o0.ll
// RUN: %python -c "import numpy as n; r = n.random.default_rng(7); n.save('%t/x.npy', r.uniform(-4, 4, (2048, 4096)).astype(n.float32)); n.save('%t/g.npy', r.uniform(0.5, 2, 4096).astype(n.float32)); n.save('%t/b.npy', r.uniform(-1, 1, 4096).astype(n.float32)); n.save('%t/v.npy', r.uniform(-1, 1, 8388616).astype(n.float32)); s = n.load('%t/x.npy'); s[3, 5] = n.nan; s[4, 7] = n.inf; s[5] = -n.inf; s[6, ::3] = -n.inf; n.save('%t/xs.npy', s)"
// RUN: xcs-run %s --entry big_softmax --input x=%t/xs.npy --output-dir %t/out > /dev/null
// RUN: xcs-run %s --entry big_layer_norm --input x=%t/x.npy --input g=%t/g.npy --input b=%t/b.npy --output-dir %t/out > /dev/null
// RUN: xcs-run %s --entry big_chain --input v=%t/v.npy --output-dir %t/out > /dev/null
// RUN: %python -c "import numpy as n, sys; d = sys.argv[1]; v = n.load(d + '/v.npy'); n.testing.assert_allclose(n.load(d + '/out/c.npy'), v * v + v, rtol=1e-6)" %t
// RUN: %python -c "import numpy as n, sys; d = sys.argv[1]; x = n.load(d + '/x.npy').astype(n.float64); g = n.load(d + '/g.npy'); b = n.load(d + '/b.npy'); xs = n.load(d + '/xs.npy').astype(n.float64); n.seterr(invalid='ignore'); e = n.exp(xs - xs.max(1, keepdims=True)); n.testing.assert_allclose(n.load(d + '/out/s.npy'), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-9); m = x.mean(1, keepdims=True); v = ((x - m) ** 2).mean(1, keepdims=True); n.testing.assert_allclose(n.load(d + '/out/l.npy'), (x - m) / n.sqrt(v + 1e-5) * g + b, rtol=1e-4, atol=1e-5)" %t

// CHECK-LABEL: define {{.*}} @xcs.f.big_softmax.k{{[0-9]+}}.softmax(
// CHECK: alloca float, i64 4096
// CHECK: call void @llvm.prefetch.p0(
// CHECK: store <16 x float> {{.*}}, align 64, !nontemporal ![[NT:[0-9]+]]
// CHECK: fence seq_cst
// CHECK: ret i32
func.func @big_softmax(%x: tensor<2048x4096xf32> {xcs.name = "x"}) -> (tensor<2048x4096xf32> {xcs.name = "s"}) {
  %0 = tensor.softmax %x {axis = 1 : i64} : tensor<2048x4096xf32>
  return %0 : tensor<2048x4096xf32>
}

// CHECK-LABEL: define {{.*}} @xcs.f.big_layer_norm.k{{[0-9]+}}.layer_norm(
// CHECK: call void @llvm.prefetch.p0(
// CHECK: store <16 x float> {{.*}}, align 64, !nontemporal ![[NT]]
// CHECK: fence seq_cst
// CHECK: ret i32
func.func @big_layer_norm(%x: tensor<2048x4096xf32> {xcs.name = "x"}, %g: tensor<4096xf32> {xcs.name = "g"},
                          %b: tensor<4096xf32> {xcs.name = "b"}) -> (tensor<2048x4096xf32> {xcs.name = "l"}) {
  %0 = tensor.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2048x4096xf32>, tensor<4096xf32>, tensor<4096xf32>) -> tensor<2048x4096xf32>
  return %0 : tensor<2048x4096xf32>
}

// CHECK-LABEL: define {{.*}} @xcs.f.small_softmax.k{{[0-9]+}}.softmax(
// CHECK-NOT: nontemporal
// CHECK-NOT: fence
// CHECK: ret i32
func.func @small_softmax(%x: tensor<64x4096xf32> {xcs.name = "x"}) -> (tensor<64x4096xf32> {xcs.name = "s"}) {
  %0 = tensor.softmax %x {axis = 1 : i64} : tensor<64x4096xf32>
  return %0 : tensor<64x4096xf32>
}

// CHECK-LABEL: define {{.*}} @xcs.f.big_chain.k{{[0-9]+}}.
// CHECK: alloca float, i64 64
// CHECK: store <16 x float> {{.*}}, align 64, !nontemporal ![[NT]]
// CHECK: fence seq_cst
// CHECK: ret i32
func.func @big_chain(%v: tensor<8388616xf32> {xcs.name = "v"}) -> (tensor<8388616xf32> {xcs.name = "c"}) {
  %0 = tensor.mul %v, %v : tensor<8388616xf32>
  %1 = tensor.add %0, %v : tensor<8388616xf32>
  return %1 : tensor<8388616xf32>
}

// CHECK-LABEL: define {{.*}} @xcs.f.small_add.k{{[0-9]+}}.
// CHECK-NOT: nontemporal
// CHECK-NOT: fence
// CHECK: ret i32
func.func @small_add(%v: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = tensor.add %v, %v : tensor<1024xf32>
  return %0 : tensor<1024xf32>
}

// CHECK: ![[NT]] = !{i32 1}
