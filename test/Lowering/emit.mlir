// xcs-translate's outputs: LLVM IR, assembly and object files export every public function
// with a body (xcs_<name> and xcs_<name>_packed) and nothing else; errors are located.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-translate %s --emit=llvm-ir -o %t/m.ll && FileCheck %s --check-prefix=IR < %t/m.ll
// RUN: xcs-translate %s --emit=asm -o %t/m.s && FileCheck %s --check-prefix=ASM < %t/m.s
// RUN: xcs-translate %s --emit=obj -o %t/m.o && llvm-nm %t/m.o | FileCheck %s --check-prefix=OBJ
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 -o %t/m1.ll && FileCheck %s --check-prefix=SERIAL < %t/m1.ll
// RUN: xcs-translate %s --emit=llvm-ir --threads 2 -o %t/m2.ll && FileCheck %s --check-prefix=PARALLEL < %t/m2.ll
// RUN: not xcs-translate %s --emit=dll -o %t/x 2>&1 | FileCheck %s --check-prefix=BADEMIT
// RUN: not xcs-translate %s --mcpu=foobar -o %t/x 2>&1 | FileCheck %s --check-prefix=BADCPU
// RUN: xcs-translate %s --mcpu=native --emit=asm -o %t/native.s && FileCheck %s --check-prefix=ASM < %t/native.s
// RUN: not xcs-translate %S/Inputs/unsupported.mlir -o %t/x 2>&1 | FileCheck %s --check-prefix=NOLOWER

// IR-DAG: define {{.*}}i32 @xcs_scale(ptr
// IR-DAG: define {{.*}}i32 @xcs_scale_packed(ptr
// IR-NOT: define {{.*}}@xcs_hidden
// ASM: xcs_scale:
// OBJ: T xcs_scale
// OBJ: T xcs_scale_packed
// With one thread the runtime's parallel loop is never declared nor called. The positive
// matches split the file, so the -NOTs between and after them cover all of it (a -NOT alone
// also passes on an empty or truncated file).
// SERIAL: ModuleID
// SERIAL-NOT: xcs_rt_parallel_for
// SERIAL: define {{.*}}i32 @xcs_scale(ptr
// SERIAL-NOT: xcs_rt_parallel_for
// SERIAL: define {{.*}}i32 @xcs_scale_packed(ptr
// SERIAL-NOT: xcs_rt_parallel_for
// PARALLEL: call i32 @xcs_rt_parallel_for
// BADEMIT: invalid value 'dll' for '--emit <emit>'
// BADCPU: invalid value 'foobar' for '--mcpu <CPU>': 'foobar' is not a CPU LLVM knows for x86_64
// BADCPU-NOT: LLVM ERROR
// NOLOWER: unsupported.mlir:4:8: error: 'xcs.vmap' op is not supported by the LLVM backend

func.func @scale(%x: tensor<?x?xf32>, %s: tensor<f32>) -> tensor<?x?xf32> {
  %y = tensor.mul %x, %s : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func private @hidden(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
