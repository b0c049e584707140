// f32 pow on an AVX-512 target goes through a scalar/vector function pair: the loop vectorizer
// calls the 16-lane form (vgetmantps, vgetexpps, a 32-entry ln table read by vpermi2ps/vpermt2ps,
// vreduceps for the parity of y, vrangeps, vscalefps, vfpclassps), which is inlined into
// the vector loop and dropped; the scalar form stays for the remainder. Without AVX-512 the
// scalar code is inline and no pair is made. Independent of the host CPU (--mcpu, --mattr).
// RUN: rm -rf %t && mkdir -p %t
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 --mcpu=skylake-avx512 --mattr=+avx512f,+avx512dq -o %t/z.ll && FileCheck %s --check-prefix=IR < %t/z.ll
// RUN: xcs-translate %s --emit=asm --threads 1 --mcpu=skylake-avx512 --mattr=+avx512f,+avx512dq -o %t/z.s && FileCheck %s --check-prefix=ASM < %t/z.s
// RUN: FileCheck %s --check-prefix=NODIV < %t/z.s
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 --mcpu=x86-64-v3 -o %t/v3.ll && FileCheck %s --check-prefix=V3 < %t/v3.ll
// RUN: xcs-translate %s --emit=llvm-ir --threads 1 --mcpu=skylake-avx512 --mattr=+avx512f,+avx512dq --O0 -o %t/o0.ll && FileCheck %s --check-prefix=O0 < %t/o0.ll
// RUN: not xcs-translate %s --mattr=avx512f -o %t/x 2>&1 | FileCheck %s --check-prefix=BADATTR

// IR-NOT: xcs.math.pow.v16f32
// IR: define internal {{.*}}float @xcs.math.pow.f32(float
// IR: @llvm.x86.avx512.mask.getmant.ps.512
// IR: @llvm.x86.avx512.vpermi2var.ps.512
// IR: @llvm.x86.avx512.mask.reduce.ps.512
// IR-NOT: llvm.compiler.used
// ASM-DAG: vgetmantps
// ASM-DAG: vgetexpps
// ASM-DAG: vscalefps
// ASM-DAG: vfpclassps
// ASM-DAG: vperm{{[it]}}2ps
// ASM-DAG: vreduceps
// ASM-DAG: vrangeps
// NODIV-NOT: {{vdivps|vrndscaleps}}
// V3-NOT: xcs.math
// V3-NOT: llvm.x86.avx512
// V3: define {{.*}}i32 @xcs_pow(
// BADATTR: invalid value 'avx512f' for '--mattr <FEATURES>': 'avx512f' is not a feature: write +name or -name
// O0: @llvm.compiler.used = appending global [1 x ptr] [ptr @xcs.math.pow.v16f32]
// O0: define internal <16 x float> @xcs.math.pow.v16f32(
// O0: call float @xcs.math.pow.f32(float
// O0: "vector-function-abi-variant"="_ZGV_LLVM_N16vv_xcs.math.pow.f32(xcs.math.pow.v16f32)"

func.func @pow(%x: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
  %r = tensor.pow %x, %y : tensor<1000xf32>
  return %r : tensor<1000xf32>
}
