// Row ops with a large f32 output (32 MiB or more, rows a whole number of 64-byte lines) write it
// once with streaming stores: 16-lane `!nontemporal` stores aligned to 64 bytes, and a fence
// before the kernel returns; softmax keeps exp(x - max) in a stack row, not in the output. A
// small output keeps ordinary stores (the next op finds it in the cache). The results of both
// ops match numpy's float64 ones.
// RUN: rm -rf %t && mkdir -p %t/out
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 --O0 -o %t/o0.ll && FileCheck %s < %t/o0.ll
// RUN: %python -c "import numpy as n; r = n.random.default_rng(7); n.save('%t/x.npy', r.uniform(-4, 4, (2048, 4096)).astype(n.float32)); n.save('%t/g.npy', r.uniform(0.5, 2, 4096).astype(n.float32)); n.save('%t/b.npy', r.uniform(-1, 1, 4096).astype(n.float32))"
// RUN: xcs-run %s --entry big_softmax --input x=%t/x.npy --output-dir %t/out > /dev/null
// RUN: xcs-run %s --entry big_layer_norm --input x=%t/x.npy --input g=%t/g.npy --input b=%t/b.npy --output-dir %t/out > /dev/null
// RUN: %python -c "import numpy as n, sys; d = sys.argv[1]; x = n.load(d + '/x.npy').astype(n.float64); g = n.load(d + '/g.npy'); b = n.load(d + '/b.npy'); e = n.exp(x - x.max(1, keepdims=True)); n.testing.assert_allclose(n.load(d + '/out/s.npy'), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-9); m = x.mean(1, keepdims=True); v = ((x - m) ** 2).mean(1, keepdims=True); n.testing.assert_allclose(n.load(d + '/out/l.npy'), (x - m) / n.sqrt(v + 1e-5) * g + b, rtol=1e-4, atol=1e-5)" %t

// CHECK-LABEL: define {{.*}} @xcs.f.big_softmax.k{{[0-9]+}}.softmax(
// CHECK: alloca float, i64 4096
// CHECK: store <16 x float> {{.*}}, align 64, !nontemporal ![[NT:[0-9]+]]
// CHECK: fence seq_cst
// CHECK: ret i32
func.func @big_softmax(%x: tensor<2048x4096xf32> {xcs.name = "x"}) -> (tensor<2048x4096xf32> {xcs.name = "s"}) {
  %0 = tensor.softmax %x {axis = 1 : i64} : tensor<2048x4096xf32>
  return %0 : tensor<2048x4096xf32>
}

// CHECK-LABEL: define {{.*}} @xcs.f.big_layer_norm.k{{[0-9]+}}.layer_norm(
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

// CHECK: ![[NT]] = !{i32 1}
