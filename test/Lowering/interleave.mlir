// GELU erf form and pow are long dependency chains: their elementwise loops carry
// `llvm.loop.interleave.count` 2, so the vectorizer interleaves two vector iterations (LLVM's
// own choices are 1 and 4); other elementwise loops carry no such hint.
// --O0 shows the request as emitted; at O3 the vectorizer consumes it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 --O0 -o %t/o0.ll && FileCheck %s < %t/o0.ll
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 -o %t/o3.ll && FileCheck %s --check-prefix=O3 < %t/o3.ll

// CHECK-LABEL: define {{.*}} @xcs.f.gelu_erf.k1.gelu(
// CHECK: br label %{{.*}}, !llvm.loop ![[L:[0-9]+]]
// CHECK-LABEL: define {{.*}} @xcs.f.gelu_tanh.k1.gelu(
// CHECK-NOT: !llvm.loop
// CHECK: ret i32
// CHECK-LABEL: define {{.*}} @xcs.f.pow.k1.pow(
// CHECK: br label %{{.*}}, !llvm.loop ![[P:[0-9]+]]
// CHECK: ![[L]] = distinct !{![[L]], ![[IC:[0-9]+]]}
// CHECK: ![[IC]] = !{!"llvm.loop.interleave.count", i32 2}
// CHECK: ![[P]] = distinct !{![[P]], ![[IC]]}
// O3: llvm.loop.isvectorized
// O3-NOT: llvm.loop.interleave.count

func.func @gelu_erf(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.gelu %x {approximate = "none"} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @gelu_tanh(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.gelu %x {approximate = "tanh"} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

func.func @pow(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.pow %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}
