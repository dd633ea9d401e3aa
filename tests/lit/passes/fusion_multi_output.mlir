// RUN: kiln-opt --passes=inline,fusion --split-input-file %s | FileCheck %s
// Multi-output loop fusion (the fusion pass's last phase): loop kernels over
// one shape where one reads another's results, or both read one value,
// become one kernel computing each value once per element.

// A value both returned and read, twice over: phase 1 leaves three kernels
// (each value is stored anyway); they become one with three outputs.
// CHECK-LABEL: func.func @stored_chain
// CHECK-NEXT: %[[F:.*]]:3 = "kiln.fusion"(%arg0, %arg1) <{kind = "multi_output"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential
// CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[E]]
// CHECK-NEXT: %[[P:.*]] = stablehlo.multiply %[[S]], %[[E]]
// CHECK-NEXT: "kiln.yield"(%[[E]], %[[S]], %[[P]])
// CHECK-NOT: stablehlo.exponential
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @stored_chain(%a: tensor<16xf32>, %b: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %0 = stablehlo.exponential %a : tensor<16xf32>
  %1 = stablehlo.add %0, %b : tensor<16xf32>
  %2 = stablehlo.multiply %1, %0 : tensor<16xf32>
  return %0, %1, %2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----
// A consumer reading the value at other elements (a reverse) would
// recompute it there: two kernels.
// CHECK-LABEL: func.func @reversed
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: "kiln.fusion"(%[[E]], %arg0) <{kind = "loop"}>
func.func @reversed(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = stablehlo.exponential %a : tensor<16xf32>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<16xf32>
  %2 = stablehlo.add %1, %a : tensor<16xf32>
  return %0, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----
// Loops over different shapes stay apart.
// CHECK-LABEL: func.func @shapes
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: "kiln.fusion"(%[[E]], %arg1) <{kind = "loop"}>
func.func @shapes(%a: tensor<16xf32>, %b: tensor<4x16xf32>) -> (tensor<16xf32>, tensor<4x16xf32>) {
  %0 = stablehlo.exponential %a : tensor<16xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %2 = stablehlo.add %1, %b : tensor<4x16xf32>
  return %0, %2 : tensor<16xf32>, tensor<4x16xf32>
}

// -----
// A transpose keeps its own kernel (the back end moves it in register tiles).
// CHECK-LABEL: func.func @transposed
// CHECK-NEXT: stablehlo.transpose %arg0
// CHECK-NEXT: stablehlo.exponential %arg0
// CHECK-NEXT: return
func.func @transposed(%a: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = stablehlo.exponential %a : tensor<16x16xf32>
  return %0, %1 : tensor<16x16xf32>, tensor<16x16xf32>
}
