// RUN: kiln-opt --passes=sharding_propagation --split-input-file %s | FileCheck %s
// Shardings flow through gather and scatter by their factors
// (kiln/passes/sharding_rules.cpp): the rows of the indices to the rows of
// a gather's result, the columns of a table to the columns a slice or an
// update window takes whole.

// CHECK-LABEL: func.func public @gather_rows_and_columns
// CHECK: "stablehlo.gather"{{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y"}]>]>
// CHECK-SAME: -> tensor<8x8xf32>
module @m attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @gather_rows_and_columns(%arg0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>},
                                            %arg1: tensor<8x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<8x8xf32> {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<10x8xf32>, tensor<8x1xi32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// The result's column split flows back to the table and the updates; the
// indices and the updates' scatter rows stay whole.
// CHECK-LABEL: func.func public @scatter_columns
// CHECK-SAME: %arg1: tensor<6x1xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: %arg2: tensor<6x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}
module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @scatter_columns(%arg0: tensor<10x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>},
                                    %arg1: tensor<6x1xi32>, %arg2: tensor<6x8xf32>) -> tensor<10x8xf32> {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<10x8xf32>, tensor<6x1xi32>, tensor<6x8xf32>) -> tensor<10x8xf32>
    return %0 : tensor<10x8xf32>
  }
}
