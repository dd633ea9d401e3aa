// RUN: kiln-opt --passes=inline,fusion --split-input-file %s | FileCheck %s
// Guards against harmful fusion (thresholds in kiln/passes/fusion_policy.h).

// A dot with two users is never duplicated into both epilogues.
// CHECK-LABEL: func.func @dot_two_users
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general
// CHECK-NEXT: stablehlo.tanh %[[D]]
// CHECK-NEXT: stablehlo.logistic %[[D]]
// CHECK-NEXT: return
func.func @dot_two_users(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.tanh %0 : tensor<4x16xf32>
  %2 = stablehlo.logistic %0 : tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----
// Nor is a reduction.
// CHECK-LABEL: func.func @reduce_two_users
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce
// CHECK-NEXT: stablehlo.sqrt %[[R]]
// CHECK-NEXT: stablehlo.negate %[[R]]
// CHECK-NEXT: return
func.func @reduce_two_users(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.sqrt %0 : tensor<4xf32>
  %2 = stablehlo.negate %0 : tensor<4xf32>
  return %1, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----
// An rsqrt on 4 elements is not recomputed for each of 32 broadcast elements.
// CHECK-LABEL: func.func @expensive_per_row
// CHECK-NEXT: %[[R:.*]] = stablehlo.rsqrt %arg1
// CHECK-NEXT: "kiln.fusion"(%[[R]], %arg0) <{kind = "loop"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.broadcast_in_dim
// CHECK-NEXT: stablehlo.multiply
// CHECK-NEXT: "kiln.yield"
func.func @expensive_per_row(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.rsqrt %s : tensor<4xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.multiply %x, %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----
// A value returned from the function is stored anyway: its consumer reads it
// instead of recomputing it.
// CHECK-LABEL: func.func @stored_anyway
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: stablehlo.negate %[[E]]
// CHECK-NEXT: return %[[E]]
func.func @stored_anyway(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----
// A cheap producer whose users all fuse it is recomputed in each of them
// and never stored.
// CHECK-LABEL: func.func @cheap_recomputed
// CHECK-NEXT: "kiln.fusion"(%arg0) <{kind = "loop"}>
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %[[A]]
// CHECK-NEXT: stablehlo.negate %[[E]]
// CHECK: "kiln.fusion"(%arg0) <{kind = "loop"}>
// CHECK-NEXT: ^bb0(%[[B:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[E2:.*]] = stablehlo.exponential %[[B]]
// CHECK-NEXT: stablehlo.abs %[[E2]]
// CHECK-NOT: stablehlo.exponential
// CHECK: return
func.func @cheap_recomputed(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  %2 = stablehlo.abs %0 : tensor<8xf32>
  return %1, %2 : tensor<8xf32>, tensor<8xf32>
}

// -----
// Recomputation is capped at kMaxDuplicatedCost = 60: the abs fusion, built
// first, recomputes three exps (cost 20 each) but not the fourth, which is
// then stored for both fusions.
// CHECK-LABEL: func.func @recompute_cap
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %arg0
// CHECK-NEXT: "kiln.fusion"(%[[E]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.negate
// CHECK: "kiln.fusion"(%[[E]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.abs
func.func @recompute_cap(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.exponential %0 : tensor<8xf32>
  %2 = stablehlo.exponential %1 : tensor<8xf32>
  %3 = stablehlo.exponential %2 : tensor<8xf32>
  %4 = stablehlo.negate %3 : tensor<8xf32>
  %5 = stablehlo.abs %3 : tensor<8xf32>
  return %4, %5 : tensor<8xf32>, tensor<8xf32>
}

// -----
// A row of 16384 f32 (64 KiB) exceeds kMaxRowBytes: the reduction is not
// row-fused into the divide.
// CHECK-LABEL: func.func @row_too_long
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce
// CHECK-NEXT: "kiln.fusion"(%[[R]], %arg0) <{kind = "loop"}>
func.func @row_too_long(%x: tensor<2x16384xf32>) -> tensor<2x16384xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x16384xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf32>) -> tensor<2x16384xf32>
  %2 = stablehlo.divide %x, %1 : tensor<2x16384xf32>
  return %2 : tensor<2x16384xf32>
}

// -----
// A post-op reads its other operand from memory: the relu mask of a backward
// pass is its own kernel, not work inside the output fusion (which oneDNN
// could not run, so it would run op by op).
// CHECK-LABEL: func.func @post_op_operand_computed
// CHECK: %[[M:.*]] = "kiln.fusion"(%arg2) <{kind = "loop"}>
// CHECK: stablehlo.compare
// CHECK: stablehlo.select
// CHECK: "kiln.fusion"(%arg0, %arg1, %[[M]]) <{kind = "output"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.dot_general
// CHECK-NEXT: stablehlo.multiply
// CHECK-NEXT: "kiln.yield"
func.func @post_op_operand_computed(%dy: tensor<4x8xf32>, %w: tensor<16x8xf32>, %z: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = stablehlo.dot_general %dy, %w, contracting_dims = [1] x [1] : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<4x16xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x16xf32>
  %p = stablehlo.compare GT, %z, %zero, FLOAT : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xi1>
  %m = stablehlo.select %p, %one, %zero : tensor<4x16xi1>, tensor<4x16xf32>
  %1 = stablehlo.multiply %0, %m : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
