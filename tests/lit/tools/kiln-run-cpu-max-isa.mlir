// --cpu_max_isa in KILN_FLAGS caps the instructions of the cpu back end's
// code below what the host has: the JIT's kernels (seen in the dumped
// assembly), the routines' vector tiers and oneDNN. Results do not change.
// REQUIRES: avx2
// RUN: rm -rf %t.avx2 %t.sse
// RUN: env KILN_FLAGS=--cpu_max_isa=avx2 kiln run %s --input-literal 'dense<3.0> : tensor<64xf32>' --dump-dir %t.avx2 | FileCheck %s --check-prefix=RESULT
// RUN: FileCheck %s --check-prefix=AVX2 --implicit-check-not=zmm < %t.avx2/main.s
// AVX2: ymm
// RUN: env KILN_FLAGS=--cpu_max_isa=sse4.2 kiln run %s --input-literal 'dense<3.0> : tensor<64xf32>' --dump-dir %t.sse | FileCheck %s --check-prefix=RESULT
// RUN: FileCheck %s --check-prefix=SSE --implicit-check-not=zmm --implicit-check-not=ymm < %t.sse/main.s
// SSE: xmm
// RUN: kiln run %s --input-literal 'dense<3.0> : tensor<64xf32>' | FileCheck %s --check-prefix=RESULT
// RESULT: dense<7.000000e+00> : tensor<64xf32>

// An unknown tier is an error naming the ones there are.
// RUN: env KILN_FLAGS=--cpu_max_isa=avx3 not kiln run %s --input-literal 'dense<3.0> : tensor<64xf32>' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: KILN_FLAGS: --cpu_max_isa must be one of sse4.2, avx2, avx512, native; got 'avx3'
func.func @main(%x: tensor<64xf32>) -> tensor<64xf32> {
  %two = stablehlo.constant dense<2.0> : tensor<64xf32>
  %one = stablehlo.constant dense<1.0> : tensor<64xf32>
  %m = stablehlo.multiply %x, %two : tensor<64xf32>
  %r = stablehlo.add %m, %one : tensor<64xf32>
  return %r : tensor<64xf32>
}
