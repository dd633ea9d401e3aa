// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// Negative tests of numbered spec constraints, one invalid program each; the
// comment above a function names the op and the constraint, (Cn) of the op's
// section of the StableHLO specification (the numbering scripts/spec_constraints.py
// counts; the rest are in spec_constraints.mlir).

// dot_general (C1) batching dims of equal size
func.func @dot_general_c1(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{expects lhs_batching_dimensions and rhs_batching_dimensions to have the same size, got 1 and 2}}
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0, 1], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----
// dot_general (C3) lhs dims unique
func.func @dot_general_c3(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{expects lhs_batching_dimensions + lhs_contracting_dimensions to be unique, got [0, 0]}}
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [0] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----
// dot_general (C6) lhs contracting dims in range
func.func @dot_general_c5(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects lhs_contracting_dimensions to be in [0, 2), got 2}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [2] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C7) rhs batching dims in range
func.func @dot_general_c7(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{expects rhs_batching_dimensions to be in [0, 3), got 3}}
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [3], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----
// dot_general (C12) result shape
func.func @dot_general_c13(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x6xf32> but its operands and attributes give tensor<3x5xf32>}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x6xf32>
  return
}

// -----
// transpose (C2) permutation
func.func @transpose_c2(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects permutation to be a permutation of [0, 2), got [0, 0]}}
  %0 = stablehlo.transpose %a, dims = [0, 0] : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----
// transpose (C3) result shape
func.func @transpose_c3(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2x3xf32> but its operands and attributes give tensor<3x2xf32>}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// broadcast_in_dim (C2) size of broadcast_dimensions
func.func @broadcast_in_dim_c2(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects broadcast_dimensions to have 2 elements, got 1}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2x3xf32>) -> tensor<2x3x4xf32>
  return
}

// -----
// broadcast_in_dim (C3) dims in range of the result
func.func @broadcast_in_dim_c3(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects broadcast_dimensions to be in [0, 2), got 2}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// broadcast_in_dim (C4) unique dims
func.func @broadcast_in_dim_c4(%a: tensor<3x3xf32>) {
  // expected-error @+1 {{expects broadcast_dimensions to be unique, got [1, 1]}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1, 1] : (tensor<3x3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// broadcast_in_dim (C5) operand dim 1 or equal
func.func @broadcast_in_dim_c5(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects operand dimension 0 (size 3) to be 1 or to match result dimension 1 (size 4)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>
  return
}

// -----
// slice (C2) sizes of index lists
func.func @slice_c2(%a: tensor<4x4xf32>) {
  // expected-error @+1 {{expects start_indices to have 2 elements, got 1}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2, 2>, strides = array<i64: 1, 1>} : (tensor<4x4xf32>) -> tensor<2x2xf32>
  return
}

// -----
// slice (C3) 0 <= start <= limit <= shape
func.func @slice_c3(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects 0 <= start_indices <= limit_indices <= shape(operand) in dimension 0, got 3, 5 and 4}}
  %0 = stablehlo.slice %a [3:5] : (tensor<4xf32>) -> tensor<2xf32>
  return
}

// -----
// slice (C4) positive strides
func.func @slice_c4(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects strides to be positive, got [0]}}
  %0 = stablehlo.slice %a [0:4:0] : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// slice (C5) result shape
func.func @slice_c5(%a: tensor<8xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf32> but its operands and attributes give tensor<3xf32>}}
  %0 = stablehlo.slice %a [0:8:3] : (tensor<8xf32>) -> tensor<2xf32>
  return
}

// -----
// dynamic_slice (C2) number of start indices
func.func @dynamic_slice_c2(%a: tensor<4x4xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{expects start_indices to have 2 elements, got 1}}
  %0 = stablehlo.dynamic_slice %a, %i, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>) -> tensor<2x2xf32>
  return
}

// -----
// dynamic_slice (C3) same type of start indices
func.func @dynamic_slice_c3(%a: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i64>) {
  // expected-error @+1 {{expects all start_indices to have the same type, got tensor<i32> and tensor<i64>}}
  %0 = stablehlo.dynamic_slice %a, %i, %j, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i64>) -> tensor<2x2xf32>
  return
}

// -----
// dynamic_slice (C4) slice sizes within the operand
func.func @dynamic_slice_c4(%a: tensor<4x4xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{expects 0 <= slice_sizes <= shape(operand), got [5, 2] for tensor<4x4xf32>}}
  %0 = stablehlo.dynamic_slice %a, %i, %i, sizes = [5, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<5x2xf32>
  return
}

// -----
// dynamic_update_slice (C3) update rank
func.func @dynamic_update_slice_c3(%a: tensor<4x4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{expects update and operand to have the same rank, got tensor<2xf32> and tensor<4x4xf32>}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i, %i : (tensor<4x4xf32>, tensor<2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----
// dynamic_update_slice (C6) update within the operand
func.func @dynamic_update_slice_c6(%a: tensor<4x4xf32>, %u: tensor<5x1xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{expects the update tensor<5x1xf32> to fit in the operand tensor<4x4xf32>}}
  %0 = stablehlo.dynamic_update_slice %a, %u, %i, %i : (tensor<4x4xf32>, tensor<5x1xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----
// pad (C2) sizes of padding lists
func.func @pad_c2(%a: tensor<2x3xf32>, %p: tensor<f32>) {
  // expected-error @+1 {{expects edge_padding_low to have 2 elements, got 1}}
  %0 = stablehlo.pad %a, %p, low = [1], high = [0, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  return
}

// -----
// pad (C3) interior padding non-negative
func.func @pad_c3(%a: tensor<3xf32>, %p: tensor<f32>) {
  // expected-error @+1 {{expects interior_padding to be non-negative, got [-1]}}
  %0 = stablehlo.pad %a, %p, low = [0], high = [0], interior = [-1] : (tensor<3xf32>, tensor<f32>) -> tensor<1xf32>
  return
}

// -----
// pad (C1) padding value element type
func.func @pad_c1(%a: tensor<3xf32>, %p: tensor<i32>) {
  // expected-error @+1 {{expects operand and padding_value to have the same element type, got tensor<3xf32> and tensor<i32>}}
  %0 = stablehlo.pad %a, %p, low = [0], high = [0], interior = [0] : (tensor<3xf32>, tensor<i32>) -> tensor<3xf32>
  return
}

// -----
// concatenate (C1) same element type
func.func @concatenate_c1(%a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{expects all inputs to have the same element type, got tensor<2xf32> and tensor<2xi32>}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2xf32>, tensor<2xi32>) -> tensor<4xf32>
  return
}

// -----
// concatenate (C2) same shape but the dimension
func.func @concatenate_c2(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{expects all inputs to have the same shape except in dimension 0, got tensor<2x3xf32> and tensor<2x4xf32>}}
  %0 = stablehlo.concatenate %a, %b, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----
// concatenate (C4) dimension in range
func.func @concatenate_c4(%a: tensor<2xf32>) {
  // expected-error @+1 {{expects dimension to be in [0, 1), got 1}}
  %0 = stablehlo.concatenate %a, %a, dim = 1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----
// iota (C1) dimension in range
func.func @iota_c1() {
  // expected-error @+1 {{expects iota_dimension to be in [0, 2), got 2}}
  %0 = stablehlo.iota dim = 2 : tensor<2x3xf32>
  return
}

// -----
// reverse (C2) unique dimensions
func.func @reverse_c2(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects dimensions to be unique, got [0, 0]}}
  %0 = stablehlo.reverse %a, dims = [0, 0] : tensor<2x3xf32>
  return
}

// -----
// reverse (C3) dimensions in range
func.func @reverse_c3(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects dimensions to be in [0, 2), got 2}}
  %0 = stablehlo.reverse %a, dims = [2] : tensor<2x3xf32>
  return
}

// -----
// reshape (C2) same element count
func.func @reshape_c2(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects operand and result to have the same number of elements, got tensor<2x3xf32> and tensor<7xf32>}}
  %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<7xf32>
  return
}

// -----
// get_dimension_size (C1) dimension in range
func.func @get_dimension_size_c1(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects dimension to be in [0, 2), got 2}}
  %0 = stablehlo.get_dimension_size %a, dim = 2 : (tensor<2x3xf32>) -> tensor<i32>
  return
}

// -----
// reduce (C6) body type
func.func @reduce_c6(%a: tensor<2x3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects body to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1 inputs, got (tensor<f32>, tensor<f32>) -> (tensor<i1>): argument 0 and its pair differ}}
  %0 = stablehlo.reduce(%a init: %z) across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    reducer(%x: tensor<f32>, %y: tensor<f32>) {
      %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }
  return
}

// -----
// reduce (C4) dimensions in range
func.func @reduce_c4(%a: tensor<2x3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects dimensions to be in [0, 2), got 2}}
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [2] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----
// reduce (C5) unique dimensions
func.func @reduce_c5(%a: tensor<2x3xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects dimensions to be unique, got [1, 1]}}
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return
}

// -----
// reduce (C2) init value element type
func.func @reduce_c2(%a: tensor<2x3xf32>, %z: tensor<i32>) {
  // expected-error @+1 {{expects inputs and init_values to have the same element types, got tensor<2x3xf32> and tensor<i32>}}
  %0 = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<i32>) -> tensor<2xf32>
  return
}

// -----
// reduce_window (C4) window_dimensions size
func.func @reduce_window_c4(%a: tensor<4x4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects window_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>} : (tensor<4x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return
}

// -----
// reduce_window (C5) positive window dimensions
func.func @reduce_window_c5(%a: tensor<4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects window_dimensions to be positive, got [0]}}
  %0 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<5xf32>
  return
}

// -----
// reduce_window (C7) positive window strides
func.func @reduce_window_c7(%a: tensor<4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects window_strides to be positive, got [0]}}
  %0 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----
// reduce_window (C12) padding shape
func.func @reduce_window_c12(%a: tensor<4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expects padding to have shape [1, 2], got [2, 2]}}
  %0 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2>, padding = dense<0> : tensor<2x2xi64>} : (tensor<4xf32>, tensor<f32>) -> tensor<3xf32>
  return
}

// -----
// sort (C3) same shapes of inputs
func.func @sort_c1(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expects all inputs to have the same shape, got tensor<3xf32> and tensor<4xf32>}}
  %0:2 = "stablehlo.sort"(%a, %b) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>, %u: tensor<f32>, %v: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<3xf32>, tensor<4xf32>) -> (tensor<3xf32>, tensor<4xf32>)
  return
}

// -----
// sort (C4) dimension in range
func.func @sort_c4(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects dimension to be in [-1, 1), got 1}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----
// sort (C5) comparator type
func.func @sort_c5(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects comparator to have type (tensor<f32>, tensor<f32>) -> (tensor<i1>), got (tensor<f32>, tensor<f32>) -> (tensor<f32>)}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %x : tensor<f32>
  }) {dimension = 0 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----
// gather (C2) index_vector_dim in range
func.func @gather_c2(%a: tensor<4x3xf32>, %i: tensor<2xi32>) {
  // expected-error @+1 {{expects index_vector_dim to be in [0, 1], got 2}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return
}

// -----
// gather (C4) offset_dims sorted
func.func @gather_c4(%a: tensor<4x3x5xf32>, %i: tensor<2x1xi32>) {
  // expected-error @+1 {{expects offset_dims to be sorted, got [2, 1]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3, 5>} : (tensor<4x3x5xf32>, tensor<2x1xi32>) -> tensor<2x3x5xf32>
  return
}

// -----
// gather (C9) collapsed slice sizes are 1
func.func @gather_c9(%a: tensor<4x3xf32>, %i: tensor<2x1xi32>) {
  // expected-error @+1 {{expects slice_sizes of collapsed and batching dimensions to be at most 1, got 2 in dimension 0}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  return
}

// -----
// gather (C18) start_index_map unique
func.func @gather_c15(%a: tensor<4x3xf32>, %i: tensor<2x2xi32>) {
  // expected-error @+1 {{expects start_index_map + operand_batching_dims to be unique, got [0, 0]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x2xi32>) -> tensor<2x3xf32>
  return
}

// -----
// scatter (C7) update_window_dims sorted
func.func @scatter_c6(%a: tensor<4x3x5xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3x5xf32>) {
  // expected-error @+1 {{expects update_window_dims to be sorted, got [2, 1]}}
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %y : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3x5xf32>, tensor<2x1xi32>, tensor<2x3x5xf32>) -> tensor<4x3x5xf32>
  return
}

// -----
// scatter (C23) update computation type
func.func @scatter_c15(%a: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{expects update_computation to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1 inputs, got (tensor<f32>, tensor<f32>) -> (tensor<i1>): argument 0 and its pair differ}}
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----
// while (C1) cond returns a 0-d i1
func.func @while_c1(%a: tensor<i32>) {
  // expected-error @+1 {{expects cond to have type (tensor<i32>) -> (tensor<i1>), got (tensor<i32>) -> (tensor<i32>)}}
  %0 = stablehlo.while(%x = %a) : tensor<i32>
    cond {
      stablehlo.return %x : tensor<i32>
    } do {
      stablehlo.return %x : tensor<i32>
    }
  return
}

// -----
// while (C2) body type
func.func @while_c2(%a: tensor<i32>) {
  // expected-error @+1 {{expects body to have type (tensor<i32>) -> (tensor<i32>), got (tensor<i32>) -> (tensor<f32>)}}
  %0 = stablehlo.while(%x = %a) : tensor<i32>
    cond {
      %c = stablehlo.compare LT, %x, %x : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %f = stablehlo.convert %x : (tensor<i32>) -> tensor<f32>
      stablehlo.return %f : tensor<f32>
    }
  return
}

// -----
// case (C1) at least one branch
func.func @case_c1(%i: tensor<i32>) {
  // expected-error @+1 {{expects at least one branch}}
  "stablehlo.case"(%i) : (tensor<i32>) -> ()
  return
}

// -----
// case (C3) branches of one type
func.func @case_c3(%i: tensor<i32>, %a: tensor<f32>, %b: tensor<i32>) {
  // expected-error @+1 {{expects all branches to return the same types, got (tensor<f32>) and (tensor<i32>)}}
  %0 = "stablehlo.case"(%i) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %b : tensor<i32>
  }) : (tensor<i32>) -> tensor<f32>
  return
}

// -----
// if (C2) branches of one type
func.func @if_c1(%p: tensor<i1>, %a: tensor<f32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{expects all branches to return the same types, got (tensor<f32>) and (tensor<2xf32>)}}
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %b : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<f32>
  return
}

// -----
// fft (C1) fft_length size
func.func @fft_c2(%a: tensor<8xcomplex<f32>>) {
  // expected-error @+1 {{expects fft_length to have at most rank(operand) elements, got 2}}
  %0 = stablehlo.fft %a, type = FFT, length = [8, 8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  return
}

// -----
// triangular_solve (C3) b's rows match a
func.func @triangular_solve_c4(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+1 {{expects a to be a batch of square matrices matching the rows of b, got tensor<3x3xf32> and tensor<4x2xf32>}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----
// batch_norm_inference (C1) feature_index in range
func.func @batch_norm_inference_c2(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{expects feature_index to be in [0, 2), got 2}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// rng: shape is a 1-dimensional tensor (its inputs table)
func.func @rng_shape(%a: tensor<f32>, %s: tensor<2x2xi64>) {
  // expected-error @+1 {{expects shape to be a 1-dimensional tensor, got tensor<2x2xi64>}}
  %0 = stablehlo.rng %a, %a, %s, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2x2xi64>) -> tensor<2x2xf32>
  return
}

// -----
// select (C2) on_true / on_false types
func.func @select_c2(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{expects on_true and on_false to have the same type, got tensor<2xf32> and tensor<2xi32>}}
  %0 = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----
// get_tuple_element (C1) index in range
func.func @get_tuple_element_c1(%t: tuple<tensor<f32>>) {
  // expected-error @+1 {{expects index to be in [0, 1), got 1}}
  %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>>) -> tensor<f32>
  return
}

// -----
// all_reduce (C1) unique replica ids
func.func @all_reduce_c1(%a: tensor<4xf32>) {
  // expected-error @+1 {{expects replica_groups to be unique, got 0 twice}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----
// bitcast_convert (C2) complex to real
func.func @bitcast_convert_c2(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{expects operand and result to be both complex or both not complex}}
  %0 = stablehlo.bitcast_convert %a : (tensor<2xcomplex<f32>>) -> tensor<2xi64>
  return
}

// -----
// clamp (C1) min shape
func.func @clamp_c1(%lo: tensor<3xf32>, %a: tensor<2xf32>) {
  // expected-error @+1 {{expects min to be 0-dimensional or to have the shape of operand, got tensor<3xf32> and tensor<2xf32>}}
  %0 = stablehlo.clamp %lo, %a, %lo : (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return
}

// -----
// reduce_precision (C2) exponent bits
func.func @reduce_precision_c2(%a: tensor<2xf32>) {
  // expected-error @+1 {{expects exponent_bits >= 1, got 0}}
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----
// compare (C3) compare_type suits the element type
func.func @compare_c3(%a: tensor<2xi32>) {
  // expected-error @+1 {{expects compare_type FLOAT to suit element type i32}}
  %0 = stablehlo.compare LT, %a, %a, FLOAT : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return
}

// -----
// convolution (C21) feature_group_count positive
func.func @convolution_c12(%x: tensor<1x4x4x2xf32>, %k: tensor<3x3x2x1xf32>) {
  // expected-error @+1 {{expects feature_group_count > 0, got 0}}
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 0 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C11) input features divisible by the groups
func.func @convolution_c14(%x: tensor<1x4x4x3xf32>, %k: tensor<3x3x1x2xf32>) {
  // expected-error @+1 {{expects the input feature size 3 to be divisible by feature_group_count 2}}
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x4x3xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// cholesky (C3) square matrices
func.func @cholesky_c1(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{expects a to be a batch of square matrices, got tensor<3x4xf32>}}
  %0 = stablehlo.cholesky %a : tensor<3x4xf32>
  return
}

// -----
// optimization_barrier (C1) results equal operands
func.func @optimization_barrier_c1(%a: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<i32> but its operands and attributes give tensor<f32>}}
  %0 = "stablehlo.optimization_barrier"(%a) : (tensor<f32>) -> tensor<i32>
  return
}

// -----
// after_all: tokens only
func.func @after_all_operand(%a: tensor<f32>) {
  // expected-error @+1 {{expects inputs to be a !stablehlo.token}}
  %0 = "stablehlo.after_all"(%a) : (tensor<f32>) -> !stablehlo.token
  return
}
