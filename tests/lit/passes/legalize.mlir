// RUN: kiln-opt --passes=legalize %s | FileCheck %s

// Deprecated ops and chlo.tan become the spec ops that replace them.

// CHECK-LABEL: func.func @dot
// CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
// CHECK: stablehlo.dot_general %arg2, %arg1, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
// CHECK-NOT: stablehlo.dot %
func.func @dot(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>, %v: tensor<3xf32>) -> (tensor<4x5xf32>, tensor<5xf32>) {
  %0 = stablehlo.dot %a, %b, precision = [DEFAULT, HIGHEST] : (tensor<4x3xf32>, tensor<3x5xf32>) -> tensor<4x5xf32>
  %1 = "stablehlo.dot"(%v, %b) : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
  return %0, %1 : tensor<4x5xf32>, tensor<5xf32>
}

// Batch label b, contracted k, output in another order (a transpose).
// CHECK-LABEL: func.func @einsum
// CHECK: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
// CHECK: stablehlo.transpose %[[D]], dims = [0, 2, 1] : (tensor<2x4x5xf32>) -> tensor<2x5x4xf32>
func.func @einsum(%a: tensor<2x4x3xf32>, %b: tensor<2x3x5xf32>) -> tensor<2x5x4xf32> {
  %0 = stablehlo.einsum %a, %b, config = "bik,bkj->bji" : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// A label only one input has, not in the output, is summed out first.
// CHECK-LABEL: func.func @unary_einsum
// CHECK: %[[S:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK: stablehlo.transpose %[[S]], dims = [1, 0] : (tensor<2x4xf32>) -> tensor<4x2xf32>
func.func @unary_einsum(%a: tensor<2x3x4xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.unary_einsum %a, config = "abc->ca" : (tensor<2x3x4xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// CHECK-LABEL: func.func @broadcast_token_tan_trace
// CHECK: stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<3xf32>) -> tensor<5x2x3xf32>
// CHECK: stablehlo.after_all : !stablehlo.token
// CHECK: stablehlo.tan %arg0 : tensor<3xf32>
// CHECK-NOT: trace
func.func @broadcast_token_tan_trace(%a: tensor<3xf32>) -> (tensor<5x2x3xf32>, !stablehlo.token, tensor<3xf32>) {
  %0 = stablehlo.broadcast %a, sizes = [5, 2] : (tensor<3xf32>) -> tensor<5x2x3xf32>
  %1 = stablehlo.create_token : !stablehlo.token
  %2 = chlo.tan %a : tensor<3xf32> -> tensor<3xf32>
  "stablehlo.trace"(%a) {tag = "here"} : (tensor<3xf32>) -> ()
  return %0, %1, %2 : tensor<5x2x3xf32>, !stablehlo.token, tensor<3xf32>
}

// CHECK-LABEL: func.func @cross_replica_sum
// CHECK: "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// CHECK: stablehlo.add
func.func @cross_replica_sum(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.cross-replica-sum"(%a) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// operand[:dim] ++ index[batch_dims:] ++ operand[dim + 1:], batch dims shared.
// CHECK-LABEL: func.func @torch_index_select
// CHECK: "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 4], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 3>, slice_sizes = array<i64: 1, 3, 1, 5>}> : (tensor<2x3x4x5xf32>, tensor<2x6x7xi32>) -> tensor<2x3x6x7x5xf32>
func.func @torch_index_select(%a: tensor<2x3x4x5xf32>, %i: tensor<2x6x7xi32>) -> tensor<2x3x6x7x5xf32> {
  %0 = "stablehlo.torch_index_select"(%a, %i) {dim = 2 : i64, batch_dims = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<2x6x7xi32>) -> tensor<2x3x6x7x5xf32>
  return %0 : tensor<2x3x6x7x5xf32>
}
