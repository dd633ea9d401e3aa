// RUN: kiln-opt --passes=canonicalize --split-input-file %s | FileCheck %s
// Each case pins one simplification rule of kiln/passes/canonicalize.cpp.

// x + 0 -> x for integers.
// CHECK-LABEL: func.func @add_zero_int
// CHECK-NEXT: return %arg0
func.func @add_zero_int(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<0> : tensor<4xi32>
  %0 = stablehlo.add %arg0, %c : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----
// x + 0.0 is kept for floats: -0.0 + 0.0 is +0.0.
// CHECK-LABEL: func.func @add_zero_float_kept
// CHECK: stablehlo.add
func.func @add_zero_float_kept(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<4xf32>
  %0 = stablehlo.add %arg0, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// x + (-0.0) -> x for floats.
// CHECK-LABEL: func.func @add_negative_zero_float
// CHECK-NEXT: return %arg0
func.func @add_negative_zero_float(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<-0.0> : tensor<4xf32>
  %0 = stablehlo.add %c, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// x * 1 -> x.
// CHECK-LABEL: func.func @mul_one
// CHECK-NEXT: return %arg0
func.func @mul_one(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<2x2xf32>
  %0 = stablehlo.multiply %arg0, %c : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----
// x - x -> 0 for integers.
// CHECK-LABEL: func.func @sub_self_int
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0> : tensor<3xi64>
// CHECK-NEXT: return %[[Z]]
func.func @sub_self_int(%arg0: tensor<3xi64>) -> tensor<3xi64> {
  %0 = stablehlo.subtract %arg0, %arg0 : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----
// x - x is kept for floats: NaN - NaN is NaN.
// CHECK-LABEL: func.func @sub_self_float_kept
// CHECK: stablehlo.subtract
func.func @sub_self_float_kept(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.subtract %arg0, %arg0 : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----
// negate(negate(x)) -> x.
// CHECK-LABEL: func.func @double_negate
// CHECK-NEXT: return %arg0
func.func @double_negate(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.negate %arg0 : tensor<3xf32>
  %1 = stablehlo.negate %0 : tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----
// reshape(reshape(x)) -> reshape(x).
// CHECK-LABEL: func.func @reshape_reshape
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_reshape(%arg0: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.reshape %0 : (tensor<3x2xf32>) -> tensor<6xf32>
  return %1 : tensor<6xf32>
}

// -----
// transpose(transpose(x)) -> one transpose with the composed permutation.
// CHECK-LABEL: func.func @transpose_transpose
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_transpose(%arg0: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = stablehlo.transpose %0, dims = [2, 1, 0] : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----
// A transpose that only moves unit dims keeps the elements' order: a reshape.
// CHECK-LABEL: func.func @transpose_of_unit_dims
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4x1x3xf32>) -> tensor<1x4x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_of_unit_dims(%arg0: tensor<4x1x3xf32>) -> tensor<1x4x3xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<4x1x3xf32>) -> tensor<1x4x3xf32>
  return %0 : tensor<1x4x3xf32>
}

// -----
// A transpose moving a dim longer than 1 past another stays.
// CHECK-LABEL: func.func @transpose_past_unit_dims_kept
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [2, 1, 0]
func.func @transpose_past_unit_dims_kept(%arg0: tensor<4x1x3xf32>) -> tensor<3x1x4xf32> {
  %0 = stablehlo.transpose %arg0, dims = [2, 1, 0] : (tensor<4x1x3xf32>) -> tensor<3x1x4xf32>
  return %0 : tensor<3x1x4xf32>
}

// -----
// JAX's reshape, transpose, reshape, transpose that comes to nothing (from
// jnp.linalg.solve): each transpose moves before the reshape that only adds
// or removes unit dims, the transposes meet and cancel, the reshapes merge
// into one of x's own type.
// CHECK-LABEL: func.func @transposes_through_unit_reshapes
// CHECK-NEXT: return %arg0
func.func @transposes_through_unit_reshapes(%arg0: tensor<8x5xf32>) -> tensor<8x5xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<8x5xf32>) -> tensor<8x1x5xf32>
  %1 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<8x1x5xf32>) -> tensor<5x8x1xf32>
  %2 = stablehlo.reshape %1 : (tensor<5x8x1xf32>) -> tensor<5x8xf32>
  %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<5x8xf32>) -> tensor<8x5xf32>
  return %3 : tensor<8x5xf32>
}

// -----
// Through a unit reshape, a transpose permutes x's own dims.
// CHECK-LABEL: func.func @transpose_through_unit_reshape
// CHECK-NEXT: %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x5xf32>) -> tensor<5x8xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %[[T]] : (tensor<5x8xf32>) -> tensor<5x1x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_through_unit_reshape(%arg0: tensor<8x5xf32>) -> tensor<5x1x8xf32> {
  %0 = stablehlo.reshape %arg0 : (tensor<8x5xf32>) -> tensor<8x1x5xf32>
  %1 = stablehlo.transpose %0, dims = [2, 1, 0] : (tensor<8x1x5xf32>) -> tensor<5x1x8xf32>
  return %1 : tensor<5x1x8xf32>
}

// -----
// A broadcast_in_dim that only adds unit dims (the others in order) is a reshape.
// CHECK-LABEL: func.func @broadcast_of_unit_dims
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
// CHECK-NEXT: return %[[R]]
func.func @broadcast_of_unit_dims(%arg0: tensor<4x3xf32>) -> tensor<4x1x3xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<4x3xf32>) -> tensor<4x1x3xf32>
  return %0 : tensor<4x1x3xf32>
}

// -----
// A transpose that undoes another disappears.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-NEXT: return %arg0
func.func @transpose_inverse(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----
// broadcast_in_dim(broadcast_in_dim(x)) -> one broadcast, as JAX emits for bias adds.
// CHECK-LABEL: func.func @broadcast_broadcast
// CHECK-NEXT: %[[B:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %[[B]]
func.func @broadcast_broadcast(%arg0: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}

// -----
// slice(slice(x)) -> one slice.
// CHECK-LABEL: func.func @slice_slice
// CHECK-NEXT: %[[S:.*]] = stablehlo.slice %arg0 [3:8:2] : (tensor<10xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[S]]
func.func @slice_slice(%arg0: tensor<10xf32>) -> tensor<3xf32> {
  %0 = stablehlo.slice %arg0 [1:10] : (tensor<10xf32>) -> tensor<9xf32>
  %1 = stablehlo.slice %0 [2:7:2] : (tensor<9xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----
// f32 -> f64 -> f32 is lossless: both converts go.
// CHECK-LABEL: func.func @convert_roundtrip
// CHECK-NEXT: return %arg0
func.func @convert_roundtrip(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf64>
  %1 = stablehlo.convert %0 : (tensor<4xf64>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----
// f32 -> f16 -> f32 loses precision: kept.
// CHECK-LABEL: func.func @convert_lossy_kept
// CHECK: stablehlo.convert
// CHECK: stablehlo.convert
func.func @convert_lossy_kept(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf16>
  %1 = stablehlo.convert %0 : (tensor<4xf16>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----
// select with a constant predicate -> the chosen operand.
// CHECK-LABEL: func.func @select_constant_true
// CHECK-NEXT: return %arg0
func.func @select_constant_true(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %p = stablehlo.constant dense<true> : tensor<i1>
  %0 = stablehlo.select %p, %arg0, %arg1 : tensor<i1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// concatenate of one operand -> the operand.
// CHECK-LABEL: func.func @concatenate_one
// CHECK-NEXT: return %arg0
func.func @concatenate_one(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.concatenate %arg0, dim = 0 : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// pad by zero everywhere -> x.
// CHECK-LABEL: func.func @pad_zero
// CHECK-NEXT: return %arg0
func.func @pad_zero(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.pad %arg0, %arg1, low = [0], high = [0], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// x * 0 -> 0 for integers.
// CHECK-LABEL: func.func @mul_zero_int
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0> : tensor<4xi32>
// CHECK-NEXT: return %[[Z]]
func.func @mul_zero_int(%arg0: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<0> : tensor<4xi32>
  %0 = stablehlo.multiply %arg0, %c : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----
// x * 0 is kept for floats: NaN * 0 is NaN.
// CHECK-LABEL: func.func @mul_zero_float_kept
// CHECK: stablehlo.multiply %arg0
func.func @mul_zero_float_kept(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<4xf32>
  %0 = stablehlo.multiply %arg0, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// max(x, x) -> x, min(x, x) -> x, and(x, x) -> x, or(x, x) -> x for
// integers; float max/min are kept (they canonicalize NaNs).
// CHECK-LABEL: func.func @idempotent
// CHECK-NEXT: %[[MAX:.*]] = stablehlo.maximum %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[MAX]], %arg1, %arg1, %arg1, %arg1 :
func.func @idempotent(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = stablehlo.maximum %arg0, %arg0 : tensor<4xf32>
  %1 = stablehlo.maximum %arg1, %arg1 : tensor<4xi32>
  %2 = stablehlo.minimum %arg1, %arg1 : tensor<4xi32>
  %3 = stablehlo.and %arg1, %arg1 : tensor<4xi32>
  %4 = stablehlo.or %arg1, %arg1 : tensor<4xi32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----
// compare(x, x) for integers is a constant.
// CHECK-LABEL: func.func @compare_self_int
// CHECK-NEXT: %[[T:.*]] = stablehlo.constant dense<true> : tensor<4xi1>
// CHECK-NEXT: %[[F:.*]] = stablehlo.constant dense<false> : tensor<4xi1>
// CHECK-NEXT: return %[[T]], %[[F]] :
func.func @compare_self_int(%arg0: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = stablehlo.compare LE, %arg0, %arg0, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %1 = stablehlo.compare NE, %arg0, %arg0, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----
// compare(x, x) is kept for floats: NaN != NaN.
// CHECK-LABEL: func.func @compare_self_float_kept
// CHECK: stablehlo.compare EQ, %arg0, %arg0
func.func @compare_self_float_kept(%arg0: tensor<4xf32>) -> tensor<4xi1> {
  %0 = stablehlo.compare EQ, %arg0, %arg0, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----
// broadcast_in_dim of a splat constant -> a splat constant of the result shape.
// CHECK-LABEL: func.func @broadcast_splat
// CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_splat() -> tensor<2x3xf32> {
  %c = stablehlo.constant dense<1.5> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----
// reduce over a size-1 dimension with the identity as init -> reshape.
// CHECK-LABEL: func.func @reduce_unit_dim_identity
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<4x1xi32>) -> tensor<4xi32>
// CHECK-NEXT: return %[[R]]
func.func @reduce_unit_dim_identity(%arg0: tensor<4x1xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x1xi32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----
// A float sum from +0.0 (not the identity: +0.0 + -0.0 is +0.0) keeps the
// one step the reduce would take: init + x.
// CHECK-LABEL: func.func @reduce_unit_dim_float_sum
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<1x4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[Z]], %[[R]] : tensor<4xf32>
// CHECK-NEXT: return %[[S]]
func.func @reduce_unit_dim_float_sum(%arg0: tensor<1x4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----
// A sum from -0.0 (the identity of float addition) over no dimensions -> x.
// CHECK-LABEL: func.func @reduce_no_dims
// CHECK-NEXT: return %arg0
func.func @reduce_no_dims(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<-0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [] : (tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----
// A float max from -inf keeps its one step, max(-inf, x): max turns every
// NaN into the canonical NaN, so x alone would differ in a NaN's bits.
// CHECK-LABEL: func.func @reduce_unit_dim_max
// CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<2x1xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[I:.*]] = stablehlo.constant dense<0xFF800000> : tensor<2xf32>
// CHECK-NEXT: %[[M:.*]] = stablehlo.maximum %[[I]], %[[R]] : tensor<2xf32>
// CHECK-NEXT: return %[[M]]
func.func @reduce_unit_dim_max(%arg0: tensor<2x1xf32>) -> tensor<2xf32> {
  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.maximum across dimensions = [1] : (tensor<2x1xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----
// A reduce over a dimension of size 2 is kept.
// CHECK-LABEL: func.func @reduce_kept
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [0]
func.func @reduce_kept(%arg0: tensor<2x4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x4xi32>, tensor<i32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----
// A transposed lhs is absorbed: x^T . y contracts x's dimension 0.
// CHECK-LABEL: func.func @dot_transposed_lhs
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<3x2xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_transposed_lhs(%arg0: tensor<3x2xf32>, %arg1: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %1 : tensor<2x5xf32>
}

// -----
// A batched transposed rhs: batching and contracting dims are remapped.
// CHECK-LABEL: func.func @dot_transposed_rhs_batched
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<4x2x3xf32>, tensor<3x4x5xf32>) -> tensor<4x2x5xf32>
// CHECK-NEXT: return %[[D]]
func.func @dot_transposed_rhs_batched(%arg0: tensor<4x2x3xf32>, %arg1: tensor<3x4x5xf32>) -> tensor<4x2x5xf32> {
  %0 = stablehlo.transpose %arg1, dims = [1, 0, 2] : (tensor<3x4x5xf32>) -> tensor<4x3x5xf32>
  %1 = stablehlo.dot_general %arg0, %0, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %1 : tensor<4x2x5xf32>
}

// -----
// A transpose that reorders the free dimensions is kept: absorbing it would
// change the result's dimension order.
// CHECK-LABEL: func.func @dot_transpose_reordering_free_dims_kept
// CHECK-NEXT: stablehlo.transpose %arg0, dims = [1, 0, 2]
// CHECK-NEXT: stablehlo.dot_general
func.func @dot_transpose_reordering_free_dims_kept(%arg0: tensor<3x2x4xf32>, %arg1: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [2] x [0] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
}

// -----
// transpose(a . b) of a plain matrix product is b . a with the contracting
// dims swapped (the gradient of a weight in training steps): no strided copy.
// CHECK-LABEL: func.func @transpose_of_dot_swaps_operands
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0] : (tensor<8x5xf32>, tensor<8x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: return %[[D]]
func.func @transpose_of_dot_swaps_operands(%arg0: tensor<8x3xf32>, %arg1: tensor<8x5xf32>) -> tensor<5x3xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  return %1 : tensor<5x3xf32>
}

// -----
// A data-parallel weight gradient: the partitioner's all_reduce sits between
// the dot and the transpose. The transpose moves ahead of the all_reduce
// (which combines corresponding elements, so the order is the same), then
// folds into the dot; one all_reduce remains.
// CHECK-LABEL: func.func @transpose_moves_before_all_reduce
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0] : (tensor<8x5xf32>, tensor<8x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[R:.*]] = "stablehlo.all_reduce"(%[[D]])
// CHECK: }) : (tensor<5x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: all_reduce
func.func @transpose_moves_before_all_reduce(%arg0: tensor<8x3xf32>, %arg1: tensor<8x5xf32>) -> tensor<5x3xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
  %1 = "stablehlo.all_reduce"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<3x5xf32>) -> tensor<3x5xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  return %2 : tensor<5x3xf32>
}

// -----
// combine_all_reduce made one all_reduce of two gradients: the transpose of
// one of its results moves ahead of it, onto that operand alone, and folds
// into its dot; the other result, used twice, is left as it is.
// CHECK-LABEL: func.func @transpose_moves_before_variadic_all_reduce
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0] : (tensor<8x5xf32>, tensor<8x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: %[[R:.*]]:2 = "stablehlo.all_reduce"(%arg2, %[[D]])
// CHECK: }) : (tensor<4xf32>, tensor<5x3xf32>) -> (tensor<4xf32>, tensor<5x3xf32>)
// CHECK-NEXT: %[[A:.*]] = stablehlo.add %[[R]]#0, %[[R]]#0
// CHECK-NEXT: return %[[A]], %[[R]]#1
// CHECK-NOT: transpose
func.func @transpose_moves_before_variadic_all_reduce(%arg0: tensor<8x3xf32>, %arg1: tensor<8x5xf32>, %arg2: tensor<4xf32>) -> (tensor<4xf32>, tensor<5x3xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x5xf32>) -> tensor<3x5xf32>
  %1:2 = "stablehlo.all_reduce"(%arg2, %0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>, tensor<3x5xf32>) -> (tensor<4xf32>, tensor<3x5xf32>)
  %2 = stablehlo.transpose %1#1, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %3 = stablehlo.add %1#0, %1#0 : tensor<4xf32>
  return %3, %2 : tensor<4xf32>, tensor<5x3xf32>
}

// -----
// The product is used elsewhere too: swapping would compute it twice.
// CHECK-LABEL: func.func @transpose_of_shared_dot_kept
// CHECK: stablehlo.transpose
func.func @transpose_of_shared_dot_kept(%arg0: tensor<2x3xf32>, %arg1: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----
// The gradient of splitting a tensor in three (JAX: pads of zero, added up):
// one pad of a concatenation, each part plus the others' padding (+0.0 here,
// which keeps -0.0 -> +0.0 as the sum did).
// CHECK-LABEL: func.func @add_of_pads_is_a_concatenation
// CHECK-NOT: stablehlo.pad
// CHECK: stablehlo.concatenate
// CHECK-NOT: stablehlo.pad
// CHECK: return
func.func @add_of_pads_is_a_concatenation(%a: tensor<2x1x4xf32>, %b: tensor<2x1x4xf32>, %c: tensor<2x1x4xf32>) -> tensor<2x3x4xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.pad %a, %z, low = [0, 0, 0], high = [0, 2, 0], interior = [0, 0, 0] : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %1 = stablehlo.pad %b, %z, low = [0, 1, 0], high = [0, 1, 0], interior = [0, 0, 0] : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %2 = stablehlo.pad %c, %z, low = [0, 2, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<2x1x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %3 = stablehlo.add %2, %1 : tensor<2x3x4xf32>
  %4 = stablehlo.add %3, %0 : tensor<2x3x4xf32>
  return %4 : tensor<2x3x4xf32>
}

// -----
// Overlapping regions stay a sum of pads.
// CHECK-LABEL: func.func @add_of_overlapping_pads_kept
// CHECK-COUNT-2: stablehlo.pad
// CHECK-NOT: stablehlo.concatenate
func.func @add_of_overlapping_pads_kept(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.pad %a, %z, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x3xf32>
  %1 = stablehlo.pad %b, %z, low = [0, 1], high = [0, 0], interior = [0, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x3xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----
// The gradient of take_along_axis with one label per row (JAX's
// cross-entropy): a scatter-add into zeros, one element per row -> a select
// of the update where the column's iota equals the row's label, 0 + update
// (the combiner, once, as the scatter applies it), elsewhere the zeros. An
// elementwise value the gradient's kernel computes, no buffer to fill.
// CHECK-LABEL: func.func @scatter_one_per_row_is_a_select
// CHECK-NOT: stablehlo.scatter
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<4x100xf32>
// CHECK-DAG: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<4x100xi32>
// CHECK-DAG: %[[L:.*]] = stablehlo.reshape %arg0 : (tensor<4x1x1xi32>) -> tensor<4xi32>
// CHECK-DAG: %[[LB:.*]] = stablehlo.broadcast_in_dim %[[L]], dims = [0] : (tensor<4xi32>) -> tensor<4x100xi32>
// CHECK-DAG: %[[EQ:.*]] = stablehlo.compare EQ, %[[IOTA]], %[[LB]]
// CHECK-DAG: %[[U:.*]] = stablehlo.reshape %arg1 : (tensor<4x1xf32>) -> tensor<4xf32>
// CHECK-DAG: %[[UB:.*]] = stablehlo.broadcast_in_dim %[[U]], dims = [0] : (tensor<4xf32>) -> tensor<4x100xf32>
// CHECK-DAG: %[[SUM:.*]] = stablehlo.add %[[ZERO]], %[[UB]] : tensor<4x100xf32>
// CHECK: %[[SEL:.*]] = stablehlo.select %[[EQ]], %[[SUM]], %[[ZERO]]
// CHECK-NEXT: return %[[SEL]]
func.func @scatter_one_per_row_is_a_select(%arg0: tensor<4x1x1xi32>, %arg1: tensor<4x1xf32>) -> tensor<4x100xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x100xf32>
  %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<4x100xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x100xf32>
  return %1 : tensor<4x100xf32>
}

// -----
// x.at[i, j].set(v) on zeros: one update, a replacing combiner, two indexed
// dims -> both iotas compared with their index, and-ed.
// CHECK-LABEL: func.func @scatter_set_one_element_is_a_select
// CHECK-NOT: stablehlo.scatter
// CHECK-DAG: stablehlo.iota dim = 0 : tensor<3x5xi64>
// CHECK-DAG: stablehlo.iota dim = 1 : tensor<3x5xi64>
// CHECK-DAG: stablehlo.slice %arg0 [0:1]
// CHECK-DAG: stablehlo.slice %arg0 [1:2]
// CHECK: %[[BOTH:.*]] = stablehlo.and
// CHECK: %[[V:.*]] = stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
// CHECK: stablehlo.select %[[BOTH]], %[[V]], %{{.*}}
func.func @scatter_set_one_element_is_a_select(%arg0: tensor<2xi64>, %arg1: tensor<f32>) -> tensor<3x5xf32> {
  %0 = stablehlo.constant dense<1.000000e+00> : tensor<3x5xf32>
  %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<3x5xf32>, tensor<2xi64>, tensor<f32>) -> tensor<3x5xf32>
  return %1 : tensor<3x5xf32>
}

// -----
// Two labels per row may hit one element twice (summed in order): kept.
// CHECK-LABEL: func.func @scatter_two_per_row_kept
// CHECK: stablehlo.scatter
func.func @scatter_two_per_row_kept(%arg0: tensor<4x2x1xi32>, %arg1: tensor<4x2xf32>) -> tensor<4x100xf32> {
  %0 = stablehlo.constant dense<0.000000e+00> : tensor<4x100xf32>
  %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<4x100xf32>, tensor<4x2x1xi32>, tensor<4x2xf32>) -> tensor<4x100xf32>
  return %1 : tensor<4x100xf32>
}

// -----
// Into a computed operand (the scatter may update it in place) and with
// an i8 index whose iota could not count 300 columns: kept.
// CHECK-LABEL: func.func @scatter_into_value_or_narrow_index_kept
// CHECK-COUNT-2: stablehlo.scatter
func.func @scatter_into_value_or_narrow_index_kept(%x: tensor<4x100xf32>, %arg0: tensor<4x1x1xi32>, %arg1: tensor<4x1xf32>, %i8: tensor<4x1x1xi8>) -> (tensor<4x100xf32>, tensor<4x300xf32>) {
  %1 = "stablehlo.scatter"(%x, %arg0, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %2 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<4x100xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x100xf32>
  %z = stablehlo.constant dense<0.000000e+00> : tensor<4x300xf32>
  %3 = "stablehlo.scatter"(%z, %i8, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %4 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %4 : tensor<f32>
  }) : (tensor<4x300xf32>, tensor<4x1x1xi8>, tensor<4x1xf32>) -> tensor<4x300xf32>
  return %1, %3 : tensor<4x100xf32>, tensor<4x300xf32>
}

// -----
// An inserted dim that no index component names (dim 1 here) starts at 0:
// the update reaches element (i, 0) only, not the whole row, so a select
// comparing dim 0 alone would be wrong: kept.
// CHECK-LABEL: func.func @scatter_with_an_unindexed_inserted_dim_kept
// CHECK: stablehlo.scatter
func.func @scatter_with_an_unindexed_inserted_dim_kept(%i: tensor<1x1xi32>, %u: tensor<1xf32>) -> tensor<4x5xf32> {
  %z = stablehlo.constant dense<0.000000e+00> : tensor<4x5xf32>
  %r = "stablehlo.scatter"(%z, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x5xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
