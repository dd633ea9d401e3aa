// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The type rules of reductions, gather/scatter and sort.

func.func @reduce(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  %0 = "stablehlo.reduce"(%a, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

func.func @reduce_dimensions(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{expects dimensions to be in [0, 2), got 2}}
  %0 = "stablehlo.reduce"(%a, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {dimensions = array<i64: 2>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

func.func @reduce_body(%a: tensor<1x6xi64>, %init: tensor<i64>) -> tensor<1xi64> {
  // expected-error @+1 {{i64 is not promotable to i32}}
  %0 = "stablehlo.reduce"(%a, %init) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%s) : (tensor<i32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<1x6xi64>, tensor<i64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

func.func @reduce_window(%a: tensor<3x2xi64>, %init: tensor<i64>) -> tensor<2x2xi64> {
  %0 = "stablehlo.reduce_window"(%a, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 4, 1>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 3, 1>, padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @reduce_window_padding(%a: tensor<3x2xi64>, %init: tensor<i64>) -> tensor<2x2xi64> {
  // expected-error @+1 {{expects padding to have shape [2, 2], got [1, 2]}}
  %0 = "stablehlo.reduce_window"(%a, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, padding = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @select_and_scatter(%a: tensor<4x2xi64>, %source: tensor<2x2xi64>, %init: tensor<i64>) -> tensor<4x2xi64> {
  %0 = "stablehlo.select_and_scatter"(%a, %source, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

// select_and_scatter (C2) source shape
func.func @select_and_scatter_source(%a: tensor<4x2xi64>, %source: tensor<3x2xi64>, %init: tensor<i64>) -> tensor<4x2xi64> {
  // expected-error @+1 {{expects source to have the shape of the windows [2, 2], got tensor<3x2xi64>}}
  %0 = "stablehlo.select_and_scatter"(%a, %source, %init) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xi64>, tensor<3x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  return %0 : tensor<4x2xi64>
}

// -----

func.func @gather(%operand: tensor<2x3x4x2xi32>, %indices: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32> {
  %0 = "stablehlo.gather"(%operand, %indices) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>, indices_are_sorted = false} : (tensor<2x3x4x2xi32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi32>
  return %0 : tensor<2x2x3x2x2xi32>
}

// -----

func.func @gather_start_index_map(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32> {
  // expected-error @+1 {{expects start_index_map to have 2 elements, got 1}}
  %0 = "stablehlo.gather"(%operand, %indices) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>
  return %0 : tensor<2x3x2x2xi32>
}

// -----

func.func @dynamic_gather(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>, %sizes: tensor<3xi64>) -> tensor<2x3x2x2xi32> {
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi32>
  return %0 : tensor<2x3x2x2xi32>
}

// -----

func.func @dynamic_gather_rank(%operand: tensor<3x4x2xi32>, %indices: tensor<2x3x2xi64>, %sizes: tensor<3xi64>) -> tensor<2x3x2xi32> {
  // expected-error @+1 {{expects the result to have rank 4, got tensor<2x3x2xi32>}}
  %0 = "stablehlo.dynamic_gather"(%operand, %indices, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2xi32>
  return %0 : tensor<2x3x2xi32>
}

// -----

func.func @scatter(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %updates: tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64> {
  %0 = "stablehlo.scatter"(%input, %indices, %updates) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>, indices_are_sorted = false, unique_indices = false} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @scatter_updates_shape(%input: tensor<2x3x4x2xi64>, %indices: tensor<2x2x3x2xi64>, %updates: tensor<2x2x4x2x2xi64>) -> tensor<2x3x4x2xi64> {
  // expected-error @+1 {{expects dimension 2 of updates tensor<2x2x4x2x2xi64> to match scatter_indices or fit in the input window}}
  %0 = "stablehlo.scatter"(%input, %indices, %updates) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x4x2x2xi64>) -> tensor<2x3x4x2xi64>
  return %0 : tensor<2x3x4x2xi64>
}

// -----

func.func @sort(%a: tensor<2x3xi64>, %b: tensor<2x3xf32>) -> tensor<2x3xi64> {
  %0:2 = "stablehlo.sort"(%a, %b) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>, %u: tensor<f32>, %v: tensor<f32>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2x3xi64>, tensor<2x3xf32>) -> (tensor<2x3xi64>, tensor<2x3xf32>)
  return %0#0 : tensor<2x3xi64>
}

// -----

func.func @sort_dimension(%a: tensor<2x3xi64>) -> tensor<2x3xi64> {
  // expected-error @+1 {{expects dimension to be in [-2, 2), got 2}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i64>, tensor<i64>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 2 : i64} : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
