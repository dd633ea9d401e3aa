// Shape and data-movement ops.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @shape(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<2xi32>) {
  %0 = stablehlo.iota dim = 0 : tensor<4xi32>
  %1 = stablehlo.slice %arg0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %2 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
  %3 = stablehlo.dynamic_update_slice %arg0, %2, %arg2, %arg2 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %4 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
  %5 = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xf32>
  %6 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %7 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg3, dims = [0, 1] : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %8 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg3, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %9 = stablehlo.dynamic_iota %arg3, dim = 0 : (tensor<2xi32>) -> tensor<2x3xf32>
  %10 = stablehlo.dynamic_reshape %arg0, %arg3 : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  %11 = stablehlo.dynamic_pad %arg0, %arg1, %arg3, %arg3, %arg3 : (tensor<2x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3x4xf32>
  %12 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
  %13 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %14 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %15 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @shape(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<2xi32>) {
// CHECK-NEXT: %0 = stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK-NEXT: %1 = stablehlo.slice %arg0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: %2 = stablehlo.dynamic_slice %arg0, %arg2, %arg2, sizes = [1, 2] : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
// CHECK-NEXT: %3 = stablehlo.dynamic_update_slice %arg0, %2, %arg2, %arg2 : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
// CHECK-NEXT: %4 = stablehlo.pad %arg0, %arg1, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
// CHECK-NEXT: %5 = stablehlo.reverse %arg0, dims = [1] : tensor<2x3xf32>
// CHECK-NEXT: %6 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %7 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg3, dims = [0, 1] : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: %8 = stablehlo.dynamic_broadcast_in_dim %arg0, %arg3, dims = [0, 1] {known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: %9 = stablehlo.dynamic_iota %arg3, dim = 0 : (tensor<2xi32>) -> tensor<2x3xf32>
// CHECK-NEXT: %10 = stablehlo.dynamic_reshape %arg0, %arg3 : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
// CHECK-NEXT: %11 = stablehlo.dynamic_pad %arg0, %arg1, %arg3, %arg3, %arg3 : (tensor<2x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3x4xf32>
// CHECK-NEXT: %12 = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
// CHECK-NEXT: %13 = stablehlo.concatenate %arg0, %arg0, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %14 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %15 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2x3xf32>, tensor<f32>, tensor<i32>, tensor<2xi32>) -> (), sym_name = "shape"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>, %arg3: tensor<2xi32>):
// GENERIC-NEXT: %0 = "stablehlo.iota"() <{iota_dimension = 0 : i64}> : () -> tensor<4xi32>
// GENERIC-NEXT: %1 = "stablehlo.slice"(%arg0) <{limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
// GENERIC-NEXT: %2 = "stablehlo.dynamic_slice"(%arg0, %arg2, %arg2) <{slice_sizes = array<i64: 1, 2>}> : (tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x2xf32>
// GENERIC-NEXT: %3 = "stablehlo.dynamic_update_slice"(%arg0, %2, %arg2, %arg2) : (tensor<2x3xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
// GENERIC-NEXT: %4 = "stablehlo.pad"(%arg0, %arg1) <{edge_padding_high = array<i64: 1, 0>, edge_padding_low = array<i64: 0, 1>, interior_padding = array<i64: 0, 0>}> : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x4xf32>
// GENERIC-NEXT: %5 = "stablehlo.reverse"(%arg0) <{dimensions = array<i64: 1>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-NEXT: %6 = "stablehlo.broadcast_in_dim"(%arg0) <{broadcast_dimensions = array<i64: 1, 2>}> : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
// GENERIC-NEXT: %7 = "stablehlo.dynamic_broadcast_in_dim"(%arg0, %arg3) <{broadcast_dimensions = array<i64: 0, 1>}> : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
// GENERIC-NEXT: %8 = "stablehlo.dynamic_broadcast_in_dim"(%arg0, %arg3) <{broadcast_dimensions = array<i64: 0, 1>, known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 1>}> : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
// GENERIC-NEXT: %9 = "stablehlo.dynamic_iota"(%arg3) <{iota_dimension = 0 : i64}> : (tensor<2xi32>) -> tensor<2x3xf32>
// GENERIC-NEXT: %10 = "stablehlo.dynamic_reshape"(%arg0, %arg3) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<3x2xf32>
// GENERIC-NEXT: %11 = "stablehlo.dynamic_pad"(%arg0, %arg1, %arg3, %arg3, %arg3) : (tensor<2x3xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<3x4xf32>
// GENERIC-NEXT: %12 = "stablehlo.get_dimension_size"(%arg0) <{dimension = 1 : i64}> : (tensor<2x3xf32>) -> tensor<i32>
// GENERIC-NEXT: %13 = "stablehlo.concatenate"(%arg0, %arg0) <{dimension = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// GENERIC-NEXT: %14 = "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
// GENERIC-NEXT: %15 = "stablehlo.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<6xf32>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
