// gather, dynamic_gather, scatter, sort (no custom format: generic in both forms).
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @gathers(%arg0: tensor<3x4x2xf32>, %arg1: tensor<2x3x2xi64>, %arg2: tensor<3xi64>, %arg3: tensor<2x3x2x2xf32>) {
  %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  %1 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  %2 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [2], start_indices_batching_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 1>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
  %3 = "stablehlo.scatter"(%arg0, %arg1, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
    %5 = stablehlo.add %arg4, %arg5 : tensor<f32>
    stablehlo.return %5 : tensor<f32>
  }) : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> tensor<3x4x2xf32>
  %4:2 = "stablehlo.sort"(%arg0, %arg0) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<f32>, %arg7: tensor<f32>):
    %5 = stablehlo.compare GT, %arg4, %arg5, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %5 : tensor<i1>
  }) : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xf32>)
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @gathers(%arg0: tensor<3x4x2xf32>, %arg1: tensor<2x3x2xi64>, %arg2: tensor<3xi64>, %arg3: tensor<2x3x2x2xf32>) {
// CHECK-NEXT: %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
// CHECK-NEXT: %1 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
// CHECK-NEXT: %2 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [2], start_indices_batching_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 1>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
// CHECK-NEXT: %3 = "stablehlo.scatter"(%arg0, %arg1, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>, unique_indices = false}> ({
// CHECK-NEXT: ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
// CHECK-NEXT: %5 = stablehlo.add %arg4, %arg5 : tensor<f32>
// CHECK-NEXT: stablehlo.return %5 : tensor<f32>
// CHECK-NEXT: }) : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> tensor<3x4x2xf32>
// CHECK-NEXT: %4:2 = "stablehlo.sort"(%arg0, %arg0) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK-NEXT: ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<f32>, %arg7: tensor<f32>):
// CHECK-NEXT: %5 = stablehlo.compare GT, %arg4, %arg5, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %5 : tensor<i1>
// CHECK-NEXT: }) : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xf32>)
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>, tensor<2x3x2x2xf32>) -> (), sym_name = "gathers"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<3x4x2xf32>, %arg1: tensor<2x3x2xi64>, %arg2: tensor<3xi64>, %arg3: tensor<2x3x2x2xf32>):
// GENERIC-NEXT: %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2, 2>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
// GENERIC-NEXT: %1 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, indices_are_sorted = true}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
// GENERIC-NEXT: %2 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [2], start_indices_batching_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 1>}> : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
// GENERIC-NEXT: %3 = "stablehlo.scatter"(%arg0, %arg1, %arg3) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>, unique_indices = false}> ({
// GENERIC-NEXT: ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
// GENERIC-NEXT: %6 = "stablehlo.add"(%arg8, %arg9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%6) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> tensor<3x4x2xf32>
// GENERIC-NEXT: %4:2 = "stablehlo.sort"(%arg0, %arg0) <{dimension = 1 : i64, is_stable = true}> ({
// GENERIC-NEXT: ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<f32>, %arg7: tensor<f32>):
// GENERIC-NEXT: %5 = "stablehlo.compare"(%arg4, %arg5) <{compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction GT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
// GENERIC-NEXT: "stablehlo.return"(%5) : (tensor<i1>) -> ()
// GENERIC-NEXT: }) : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xf32>)
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
