// Math the GPU has no approximation of calls libdevice (the CUDA toolkit's
// nvvm/libdevice/libdevice.10.bc): the .ll as emitted declares __nv_sin,
// __nv_exp and __nv_fmodf (a float remainder is C's exact fmod, not NVPTX's
// frem); the PTX has them linked and inlined, the architecture and
// flush-to-zero questions (__nvvm_reflect) answered, and declares nothing
// external. f32 sine is computed in double and rounded once, as the
// interpreter does.
// REQUIRES: libdevice
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null 2>&1 | FileCheck %s --check-prefix=STDERR
// RUN: FileCheck %s --check-prefix=LL --input-file %t/k0_loop.ll
// RUN: FileCheck %s --check-prefix=LL64 --input-file %t/k1_loop.ll
// RUN: FileCheck %s --input-file %t/k0_loop.sm_90.ptx
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx
// RUN: FileCheck %s --check-prefix=PTX64 --input-file %t/k1_loop.sm_90.ptx

// STDERR: kiln-opt: cuda: 2 kernels, 0 cuBLASLt matmuls, 0 ops the cuda back end cannot compile yet

// LL-DAG: declare double @__nv_sin(double)
// LL-DAG: declare float @__nv_fmodf(float, float)
// LL64: declare double @__nv_exp(double)

// CHECK-NOT: .extern
// CHECK-NOT: __nv
// CHECK: .visible .entry k0_loop(
// CHECK: cvt.f64.f32
// CHECK-NOT: frem
// CHECK-NOT: __nvvm_reflect
// CHECK-NOT: __nv_

// PTX64-NOT: .extern
// PTX64: .visible .entry k1_loop(
// PTX64: st.global.v2.f64
// PTX64-NOT: __nv
func.func @main(%x: tensor<1024xf32>, %y: tensor<1024xf32>, %d: tensor<1024xf64>) -> (tensor<1024xf32>, tensor<1024xf64>) {
  %0 = stablehlo.sine %x : tensor<1024xf32>
  %1 = stablehlo.remainder %0, %y : tensor<1024xf32>
  %2 = stablehlo.exponential %d : tensor<1024xf64>
  return %1, %2 : tensor<1024xf32>, tensor<1024xf64>
}
