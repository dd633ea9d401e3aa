// Max reductions whose shared init value is written as raw bytes
// (dense<"0x...">, as jaxlib's serializer writes constants): the cpu back
// end's min/max fold once emitted invalid LLVM IR for an init value that was
// not a constant in the kernel (a PHI's incoming value did not dominate it).
// RUN: kiln run %s --backend cpu --input-literal 'dense<[[-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0, -0.0]]> : tensor<2x17xf32>' | FileCheck %s
// RUN: kiln run %s --backend interpreter --input-literal 'dense<[[-8.0, -7.0, -6.0, -5.0, -4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [-1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0, -13.0, -14.0, -15.0, -16.0, -0.0]]> : tensor<2x17xf32>' | FileCheck %s
// CHECK: dense<[8.000000e+00, -0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: dense<8.000000e+00> : tensor<f32>
func.func @main(%x: tensor<2x17xf32>) -> (tensor<2xf32>, tensor<f32>) {
  %minus_infinity = stablehlo.constant dense<"0x000080FF"> : tensor<f32>
  %rows = stablehlo.reduce(%x init: %minus_infinity) applies stablehlo.maximum across dimensions = [1]
          : (tensor<2x17xf32>, tensor<f32>) -> tensor<2xf32>
  %all = stablehlo.reduce(%x init: %minus_infinity) applies stablehlo.maximum across dimensions = [0, 1]
         : (tensor<2x17xf32>, tensor<f32>) -> tensor<f32>
  func.return %rows, %all : tensor<2xf32>, tensor<f32>
}
