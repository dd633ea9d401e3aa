// RUN: kiln-opt --passes=constant_fold --split-input-file %s | FileCheck %s
// Each case pins one behaviour of kiln/passes/constant_fold.cpp.

// Ops of constant operands become constants.
// CHECK-LABEL: func.func @fold_chain
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[11, 44, 99]> : tensor<3xi32>
// CHECK-NEXT: return %[[C]]
func.func @fold_chain() -> tensor<3xi32> {
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %0 = stablehlo.add %a, %b : tensor<3xi32>
  %1 = stablehlo.multiply %0, %a : tensor<3xi32>
  return %1 : tensor<3xi32>
}

// -----
// Ops with regions fold too: a sum over a constant.
// CHECK-LABEL: func.func @fold_reduce
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[6.500000e+00, 1.525000e+01]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_reduce() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.5], [4.0, 5.0, 6.25]]> : tensor<2x3xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----
// Results far bigger than the inputs fold only to splats: the broadcast of a
// scalar does, an iota and a broadcast of a 64-element vector to 64x64 do
// not; the small iota (64 elements) does.
// CHECK-LABEL: func.func @growth_cap
// CHECK-NEXT: %[[V:.*]] = stablehlo.constant dense<[0, 1, 2, {{.*}}, 62, 63]> : tensor<64xi32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.constant dense<7> : tensor<64x64xi32>
// CHECK-NEXT: %[[I:.*]] = stablehlo.iota dim = 1 : tensor<64x64xi32>
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %[[V]], dims = [1]
// CHECK-NEXT: return %[[S]], %[[I]], %[[B]]
func.func @growth_cap() -> (tensor<64x64xi32>, tensor<64x64xi32>, tensor<64x64xi32>) {
  %s = stablehlo.constant dense<7> : tensor<i32>
  %v = stablehlo.iota dim = 0 : tensor<64xi32>
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<i32>) -> tensor<64x64xi32>
  %1 = stablehlo.iota dim = 1 : tensor<64x64xi32>
  %2 = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<64xi32>) -> tensor<64x64xi32>
  return %0, %1, %2 : tensor<64x64xi32>, tensor<64x64xi32>, tensor<64x64xi32>
}

// -----
// Side effects stay: a custom_call on constants is not evaluated.
// CHECK-LABEL: func.func @side_effects_kept
// CHECK: stablehlo.custom_call @foo
func.func @side_effects_kept() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = stablehlo.custom_call @foo(%a) {has_side_effect = true} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----
// Integer division folds with StableHLO's results: x / 0 is -1, and the
// quotient rounds toward zero.
// CHECK-LABEL: func.func @fold_int_div_zero
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<[-1, -3]> : tensor<2xi32>
// CHECK-NEXT: return %[[C]]
func.func @fold_int_div_zero() -> tensor<2xi32> {
  %a = stablehlo.constant dense<[7, -7]> : tensor<2xi32>
  %b = stablehlo.constant dense<[0, 2]> : tensor<2xi32>
  %0 = stablehlo.divide %a, %b : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----
// replica_id has no operands but differs between replicas: never folded.
// CHECK-LABEL: func.func @replica_id_kept
// CHECK-NEXT: stablehlo.replica_id
func.func @replica_id_kept() -> tensor<ui32> {
  %0 = stablehlo.replica_id : tensor<ui32>
  return %0 : tensor<ui32>
}

// -----
// Declarations (functions without a body) are skipped.
// CHECK-LABEL: func.func private @external
// CHECK-LABEL: func.func @calls_external
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = call @external(%[[C]])
func.func private @external(tensor<f32>) -> tensor<f32>
func.func @calls_external() -> tensor<f32> {
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.add %a, %b : tensor<f32>
  %1 = func.call @external(%0) : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
