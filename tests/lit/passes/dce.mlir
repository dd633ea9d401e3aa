// RUN: kiln-opt --passes=dce --split-input-file %s | FileCheck %s

// A dead chain of pure ops goes in one sweep; ops with side effects stay.
// CHECK-LABEL: func.func @dead_chain
// CHECK-NOT: stablehlo.exponential
// CHECK-NOT: stablehlo.negate
// CHECK: stablehlo.custom_call @side_effect
// CHECK-NEXT: return %arg0
func.func @dead_chain(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %arg0 : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  stablehlo.custom_call @side_effect(%arg0) {has_side_effect = true} : (tensor<4xf32>) -> ()
  return %arg0 : tensor<4xf32>
}
