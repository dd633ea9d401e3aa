// The special functions JAX leaves as chlo ops (jax.scipy.special.digamma,
// polygamma, zeta, i1e). The CHECK lines are what MLIR (jaxlib) prints for
// the input; the generic form parses back to the pretty one.
// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --generic %s | kiln-opt | FileCheck %s

func.func @chlo_special(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2xf64>) {
  %0 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.polygamma %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = chlo.zeta %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.bessel_i1e %arg2 : tensor<2xf64> -> tensor<2xf64>
  return
}
// CHECK: func.func @chlo_special(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<2xf64>) {
// CHECK-NEXT: %0 = chlo.digamma %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %1 = chlo.polygamma %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %2 = chlo.zeta %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %3 = chlo.bessel_i1e %arg2 : tensor<2xf64> -> tensor<2xf64>
// CHECK-NEXT: return

// GENERIC: %0 = "chlo.digamma"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %1 = "chlo.polygamma"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %2 = "chlo.zeta"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %3 = "chlo.bessel_i1e"(%arg2) : (tensor<2xf64>) -> tensor<2xf64>
