// RUN: kiln-opt --passes=inline %s | FileCheck %s

// Calls are replaced by the callee's body, nested calls too, and private
// functions nobody calls any more are dropped.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %arg0
// CHECK-NEXT: %[[M:.*]] = stablehlo.maximum %[[N]], %arg0
// CHECK-NEXT: return %[[M]]
// CHECK-NOT: func.func private
func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = call @outer(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @outer(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %arg0 : tensor<4xf32>
  %1 = call @inner(%0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @inner(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
