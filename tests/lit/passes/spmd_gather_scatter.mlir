// RUN: kiln-opt --passes=spmd_partition --split-input-file %s | FileCheck %s
// Gather and scatter split without gathering their operands
// (kiln/passes/sharding_rules.cpp): rows of indices, dimensions a slice or an
// update window takes whole, and batching dimensions.

// An embedding lookup with the ids split over "x": each device gathers its
// ids' rows from the whole table. No collective.
// CHECK-LABEL: module @gather_index_rows
// CHECK: func.func public @main(%arg0: tensor<10x8xf32> {{.*}}, %arg1: tensor<2x1xi32> {{.*}}) -> (tensor<2x8xf32>
// CHECK-NOT: all_gather
// CHECK: %[[G:.*]] = "stablehlo.gather"(%arg0, %arg1) {{.*}}slice_sizes = array<i64: 1, 8>}> : (tensor<10x8xf32>, tensor<2x1xi32>) -> tensor<2x8xf32>
// CHECK: return %[[G]] : tensor<2x8xf32>
module @gather_index_rows {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
                         %arg1: tensor<8x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<10x8xf32>, tensor<8x1xi32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// The table split over its columns: each device gathers its columns of the
// rows, the slice size following its block (8 -> 2).
// CHECK-LABEL: module @gather_offset_columns
// CHECK: func.func public @main(%arg0: tensor<10x2xf32> {{.*}}, %arg1: tensor<6x1xi32> {{.*}}) -> (tensor<6x2xf32>
// CHECK-NOT: all_gather
// CHECK: %[[G:.*]] = "stablehlo.gather"(%arg0, %arg1) {{.*}}slice_sizes = array<i64: 1, 2>}> : (tensor<10x2xf32>, tensor<6x1xi32>) -> tensor<6x2xf32>
// CHECK: return %[[G]] : tensor<6x2xf32>
module @gather_offset_columns {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>},
                         %arg1: tensor<6x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : (tensor<10x8xf32>, tensor<6x1xi32>) -> tensor<6x8xf32>
    return %0 : tensor<6x8xf32>
  }
}

// -----

// take_along_axis: a batching dimension pairs the operand's rows with the
// indices' rows; split over "x" on both, no collective.
// CHECK-LABEL: module @gather_batching
// CHECK: func.func public @main(%arg0: tensor<2x5xf32> {{.*}}, %arg1: tensor<2x3x1xi32> {{.*}}) -> (tensor<2x3xf32>
// CHECK-NOT: all_gather
// CHECK: "stablehlo.gather"(%arg0, %arg1) {{.*}} : (tensor<2x5xf32>, tensor<2x3x1xi32>) -> tensor<2x3xf32>
module @gather_batching {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                         %arg1: tensor<8x3x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}, {}]>})
      -> (tensor<8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x5xf32>, tensor<8x3x1xi32>) -> tensor<8x3xf32>
    return %0 : tensor<8x3xf32>
  }
}

// -----

// A gather along a split dimension: the indexed dimension stays whole, so
// the table's rows are gathered first.
// CHECK-LABEL: module @gather_indexed_dim_whole
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%arg0)
// CHECK: "stablehlo.gather"(%[[ALL]], %arg1) {{.*}} : (tensor<8x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>
module @gather_indexed_dim_whole {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                         %arg1: tensor<6x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<8x4xf32>, tensor<6x1xi32>) -> tensor<6x4xf32>
    return %0 : tensor<6x4xf32>
  }
}

// -----

// A scatter-add into a table split over its columns, with the updates split
// alike: each device adds its columns. No collective.
// CHECK-LABEL: module @scatter_window_columns
// CHECK: func.func public @main(%arg0: tensor<10x2xf32> {{.*}}, %arg1: tensor<6x1xi32> {{.*}}, %arg2: tensor<6x2xf32> {{.*}}) -> (tensor<10x2xf32>
// CHECK-NOT: all_gather
// CHECK: %[[S:.*]] = "stablehlo.scatter"(%arg0, %arg1, %arg2)
// CHECK: (tensor<10x2xf32>, tensor<6x1xi32>, tensor<6x2xf32>) -> tensor<10x2xf32>
// CHECK: return %[[S]] : tensor<10x2xf32>
module @scatter_window_columns {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>},
                         %arg1: tensor<6x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
                         %arg2: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>})
      -> (tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{}, {"x"}]>]>} : (tensor<10x8xf32>, tensor<6x1xi32>, tensor<6x8xf32>) -> tensor<10x8xf32>
    return %0 : tensor<10x8xf32>
  }
}

// -----

// Updates split over their scatter rows would leave each device part of the
// updates for the whole table: they are gathered, and the scatter runs whole.
// CHECK-LABEL: module @scatter_rows_whole
// CHECK-DAG: "stablehlo.all_gather"(%arg1)
// CHECK-DAG: "stablehlo.all_gather"(%arg2)
// CHECK: "stablehlo.scatter"
// CHECK: (tensor<10x8xf32>, tensor<8x1xi32>, tensor<8x8xf32>) -> tensor<10x8xf32>
module @scatter_rows_whole {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
                         %arg1: tensor<8x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                         %arg2: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<10x8xf32>, tensor<8x1xi32>, tensor<8x8xf32>) -> tensor<10x8xf32>
    return %0 : tensor<10x8xf32>
  }
}
