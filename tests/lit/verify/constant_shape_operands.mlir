// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// Constraints on the *values* of shape operands (dynamic_gather's slice_sizes,
// dynamic_pad's paddings, dynamic_conv's padding, rng's shape): the verifier
// checks them when constants define those operands, as the static op that
// refine_shapes builds from them (docs/ops.md, "What the verifier leaves
// unchecked"). Operands known only at run time are checked once refine_shapes
// has folded them to constants.

// The valid programs: constant shape operands that agree with the results.
func.func @valid(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>, %x: tensor<2x3xf32>, %zero: tensor<f32>,
                 %lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>, %lo: tensor<i32>, %hi: tensor<i32>)
    -> (tensor<2x3x2x2xi32>, tensor<4x9xf32>, tensor<1x2x2x1xf32>, tensor<3x3xi32>, tensor<?x?xi32>) {
  %sizes = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi32>
  %low = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %high = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %interior = stablehlo.constant dense<[0, 2]> : tensor<2xi64>
  %1 = "stablehlo.dynamic_pad"(%x, %zero, %low, %high, %interior) : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x9xf32>
  %padding = stablehlo.constant dense<0> : tensor<2x2xi64>
  %2 = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {window_strides = array<i64: 4, 4>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  %shape = stablehlo.constant dense<3> : tensor<2xi64>
  %3 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
  // A `?` result dimension agrees with any value.
  %4 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<?x?xi32>
  return %0, %1, %2, %3, %4 : tensor<2x3x2x2xi32>, tensor<4x9xf32>, tensor<1x2x2x1xf32>, tensor<3x3xi32>, tensor<?x?xi32>
}

// -----
// dynamic_gather (C8) 0 <= slice_sizes <= shape(operand)
func.func @dynamic_gather_c8(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x5x2xi32> {
  %sizes = stablehlo.constant dense<[1, 5, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects 0 <= slice_sizes <= shape(operand), got [1, 5, 2] for tensor<3x4x2xi32> (given the values of its constant shape operands)}}
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x5x2xi32>
  return %0 : tensor<2x3x5x2xi32>
}

// -----
// dynamic_gather (C8) negative slice size
func.func @dynamic_gather_c8_negative(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x?x2xi32> {
  %sizes = stablehlo.constant dense<[1, -1, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects 0 <= slice_sizes <= shape(operand), got [1, -1, 2]}}
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x?x2xi32>
  return %0 : tensor<2x3x?x2xi32>
}

// -----
// dynamic_gather (C12) slice_sizes of collapsed dimensions at most 1
func.func @dynamic_gather_c12(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32> {
  %sizes = stablehlo.constant dense<[2, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects slice_sizes of collapsed and batching dimensions to be at most 1, got 2 in dimension 0}}
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi32>
  return %0 : tensor<2x3x2x2xi32>
}

// -----
// dynamic_gather (C13) the result's shape follows from slice_sizes
func.func @dynamic_gather_c13(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x3x2xi32> {
  %sizes = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{result #0 has type tensor<2x3x3x2xi32> but its operands and attributes give tensor<2x3x2x2xi32> (given the values of its constant shape operands)}}
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x3x2xi32>
  return %0 : tensor<2x3x3x2xi32>
}

// -----
// dynamic_pad (C3) 0 <= interior_padding
func.func @dynamic_pad_c3(%x: tensor<2x3xf32>, %zero: tensor<f32>) -> tensor<?x?xf32> {
  %edge = stablehlo.constant dense<1> : tensor<2xi64>
  %interior = stablehlo.constant dense<[0, -1]> : tensor<2xi64>
  // expected-error @+1 {{expects interior_padding to be non-negative, got [0, -1] (given the values of its constant shape operands)}}
  %0 = "stablehlo.dynamic_pad"(%x, %zero, %edge, %edge, %interior) : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----
// dynamic_pad (C4) the result's sizes follow from the paddings
func.func @dynamic_pad_c4(%x: tensor<2x3xf32>, %zero: tensor<f32>) -> tensor<4x6xf32> {
  %edge = stablehlo.constant dense<1> : tensor<2xi64>
  %interior = stablehlo.constant dense<0> : tensor<2xi64>
  // expected-error @+1 {{result #0 has type tensor<4x6xf32> but its operands and attributes give tensor<4x5xf32> (given the values of its constant shape operands)}}
  %0 = "stablehlo.dynamic_pad"(%x, %zero, %edge, %edge, %interior) : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----
// dynamic_pad (C4) a negative result size
func.func @dynamic_pad_c4_negative(%x: tensor<2x3xf32>, %zero: tensor<f32>) -> tensor<?x?xf32> {
  %low = stablehlo.constant dense<[-3, 0]> : tensor<2xi64>
  %zeros = stablehlo.constant dense<0> : tensor<2xi64>
  // expected-error @+1 {{expects a non-negative result size in dimension 0, got -1}}
  %0 = "stablehlo.dynamic_pad"(%x, %zero, %low, %zeros, %zeros) : (tensor<2x3xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----
// dynamic_conv (C25) the spatial sizes of the result follow from the padding
func.func @dynamic_conv_c25_padding(%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>) -> tensor<1x3x2x1xf32> {
  %padding = stablehlo.constant dense<0> : tensor<2x2xi64>
  // expected-error @+1 {{result #0 has type tensor<1x3x2x1xf32> but its operands and attributes give tensor<1x2x2x1xf32> (given the values of its constant shape operands)}}
  %0 = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {window_strides = array<i64: 4, 4>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x3x2x1xf32>
  return %0 : tensor<1x3x2x1xf32>
}

// -----
// rng (C3) shape(result) = shape
func.func @rng_c3_values(%lo: tensor<i32>, %hi: tensor<i32>) -> tensor<3x3xi32> {
  %shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  // expected-error @+1 {{expects a result of the shape given by its `shape` operand, [3, 4], got tensor<3x3xi32>}}
  %0 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
  return %0 : tensor<3x3xi32>
}
