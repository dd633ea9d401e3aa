// dot_general, convolution, dynamic_conv, triangular_solve, cholesky, fft.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @linalg(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<1x8x8x3xf32>, %arg3: tensor<3x3x3x16xf32>, %arg4: tensor<3x3xf32>, %arg5: tensor<8xcomplex<f32>>, %arg6: tensor<8xf32>) {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
  %3 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>
  %4 = "stablehlo.triangular_solve"(%arg4, %arg4) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %5 = stablehlo.cholesky %arg4, lower = true : tensor<3x3xf32>
  %6 = stablehlo.fft %arg6, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
  %c = stablehlo.constant dense<1> : tensor<2x2xi32>
  %7 = "stablehlo.dynamic_conv"(%arg2, %arg3, %c) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<2x2xi32>) -> tensor<1x8x8x16xf32>
  %8 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[0, 1], [2, 0]], lhs_dilate = [1, 2], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x4x15x16xf32>
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @linalg(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<1x8x8x3xf32>, %arg3: tensor<3x3x3x16xf32>, %arg4: tensor<3x3xf32>, %arg5: tensor<8xcomplex<f32>>, %arg6: tensor<8xf32>) {
// CHECK-NEXT: %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %2 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = {{\[\[}}1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT: %3 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>
// CHECK-NEXT: %4 = "stablehlo.triangular_solve"(%arg4, %arg4) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT: %5 = stablehlo.cholesky %arg4, lower = true : tensor<3x3xf32>
// CHECK-NEXT: %6 = stablehlo.fft %arg6, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
// CHECK-NEXT: %c = stablehlo.constant dense<1> : tensor<2x2xi32>
// CHECK-NEXT: %7 = "stablehlo.dynamic_conv"(%arg2, %arg3, %c) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<2x2xi32>) -> tensor<1x8x8x16xf32>
// CHECK-NEXT: %8 = stablehlo.convolution(%arg2, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[\[}}0, 1], [2, 0]], lhs_dilate = [1, 2], rhs_dilate = [1, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x4x15x16xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x4xf32>, tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<3x3xf32>, tensor<8xcomplex<f32>>, tensor<8xf32>) -> (), sym_name = "linalg"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<1x8x8x3xf32>, %arg3: tensor<3x3x3x16xf32>, %arg4: tensor<3x3xf32>, %arg5: tensor<8xcomplex<f32>>, %arg6: tensor<8xf32>):
// GENERIC-NEXT: %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT: %1 = "stablehlo.dot_general"(%arg0, %arg1) <{algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>, dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// GENERIC-NEXT: %2 = "stablehlo.convolution"(%arg2, %arg3) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, padding = dense<1> : tensor<2x2xi64>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>], rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x8x8x16xf32>
// GENERIC-NEXT: %3 = "stablehlo.convolution"(%arg2, %arg3) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x6x6x16xf32>
// GENERIC-NEXT: %4 = "stablehlo.triangular_solve"(%arg4, %arg4) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
// GENERIC-NEXT: %5 = "stablehlo.cholesky"(%arg4) <{lower = true}> : (tensor<3x3xf32>) -> tensor<3x3xf32>
// GENERIC-NEXT: %6 = "stablehlo.fft"(%arg6) <{fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type RFFT>}> : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
// GENERIC-NEXT: %7 = "stablehlo.constant"() <{value = dense<1> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
// GENERIC-NEXT: %8 = "stablehlo.dynamic_conv"(%arg2, %arg3, %7) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>, tensor<2x2xi32>) -> tensor<1x8x8x16xf32>
// GENERIC-NEXT: %9 = "stablehlo.convolution"(%arg2, %arg3) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 1, 2>, padding = dense<{{\[\[}}0, 1], [2, 0]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, true>, window_strides = array<i64: 2, 1>}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x16xf32>) -> tensor<1x4x15x16xf32>
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
