// RUN: kiln-opt --passes=inline,fusion --split-input-file %s | FileCheck %s
// Guards against harmful fusion (thresholds in kiln/passes/fusion_policy.h).

// A dot with two users is never duplicated into both epilogues; the two
// epilogues, loops over one shape reading the dot, become one kernel.
// CHECK-LABEL: func.func @dot_two_users
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general
// CHECK-NEXT: "kiln.fusion"(%[[D]]) <{kind = "multi_output"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.tanh
// CHECK-NEXT: stablehlo.logistic
// CHECK-NEXT: "kiln.yield"
// CHECK-NOT: stablehlo.dot_general
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
// CHECK-NEXT: "kiln.fusion"(%[[R]]) <{kind = "multi_output"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.sqrt
// CHECK-NEXT: stablehlo.negate
// CHECK-NOT: stablehlo.reduce
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
// A value returned from the function is stored anyway: phase 1 does not
// recompute it in its consumer; the multi-output phase then computes both in
// one kernel, the exp once, stored as an output.
// CHECK-LABEL: func.func @stored_anyway
// CHECK-NEXT: %[[F:.*]]:2 = "kiln.fusion"(%arg0) <{kind = "multi_output"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential
// CHECK-NEXT: %[[N:.*]] = stablehlo.negate %[[E]]
// CHECK-NEXT: "kiln.yield"(%[[E]], %[[N]])
// CHECK-NOT: stablehlo.exponential
// CHECK: return %[[F]]#0, %[[F]]#1
func.func @stored_anyway(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----
// A cheap producer whose users all fuse it is recomputed in each of them
// and never stored; the two users, reading %arg0, are then one kernel (where
// CSE, after fusion, keeps one of the two exps).
// CHECK-LABEL: func.func @cheap_recomputed
// CHECK-NEXT: "kiln.fusion"(%arg0) <{kind = "multi_output"}>
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential %[[A]]
// CHECK-NEXT: stablehlo.negate %[[E]]
// CHECK-NEXT: %[[E2:.*]] = stablehlo.exponential %[[A]]
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
// then left for both fusions; the multi-output phase makes the three one
// kernel with the first exp computed once (the copies of the other three
// are CSE's, after fusion).
// CHECK-LABEL: func.func @recompute_cap
// CHECK-NEXT: "kiln.fusion"(%arg0) <{kind = "multi_output"}>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[E:.*]] = stablehlo.exponential
// CHECK-NEXT: stablehlo.exponential %[[E]]
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.negate
// CHECK-NEXT: stablehlo.exponential %[[E]]
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
// A row of 131072 f32 (512 KiB) exceeds the cpu policy's maxRowBytes: the
// reduction is not row-fused into the divide.
// CHECK-LABEL: func.func @row_too_long
// CHECK-NEXT: stablehlo.constant
// CHECK-NEXT: %[[R:.*]] = stablehlo.reduce
// CHECK-NEXT: "kiln.fusion"(%[[R]], %arg0) <{kind = "loop"}>
func.func @row_too_long(%x: tensor<2x131072xf32>) -> tensor<2x131072xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x131072xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<2xf32>) -> tensor<2x131072xf32>
  %2 = stablehlo.divide %x, %1 : tensor<2x131072xf32>
  return %2 : tensor<2x131072xf32>
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

// -----

// A reduction's user that a while body reads (through its region, not an
// operand) must not move past the row kernel the reduction would join: the
// body would read it before it is computed (jax.scipy.linalg.expm crashed so).
// CHECK-LABEL: func.func @reduction_user_read_in_a_loop_body
// CHECK: stablehlo.reduce{{.*}}stablehlo.maximum
// CHECK-NEXT: stablehlo.exponential
// CHECK-NEXT: stablehlo.while
func.func @reduction_user_read_in_a_loop_body(%x: tensor<4x8xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %z4 = stablehlo.constant dense<0.0> : tensor<4xf32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %e = stablehlo.exponential %m : tensor<4xf32>
  %w:2 = stablehlo.while(%i = %zero, %acc = %z4) : tensor<i32>, tensor<4xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %a = stablehlo.add %acc, %e : tensor<4xf32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %a : tensor<i32>, tensor<4xf32>
  }
  %b = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %d = stablehlo.subtract %x, %b : tensor<4x8xf32>
  %ed = stablehlo.exponential %d : tensor<4x8xf32>
  %zf = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%ed init: %zf) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %s, %w#1 : tensor<4xf32>, tensor<4xf32>
}
