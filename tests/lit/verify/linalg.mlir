// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The type rules of the linear-algebra and normalization ops.

func.func @dot_general(%lhs: tensor<2x3x4xf32>, %rhs: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = "stablehlo.dot_general"(%lhs, %rhs) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @dot_general_contracting_sizes(%lhs: tensor<3x4xf32>, %rhs: tensor<4x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{expects lhs_contracting_dimensions and rhs_contracting_dimensions to have the same size, got 1 and 2}}
  %0 = "stablehlo.dot_general"(%lhs, %rhs) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0, 1]>} : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @dot_general_batch_sizes(%lhs: tensor<2x3x4xf32>, %rhs: tensor<3x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{expects batching dimensions to have the same sizes}}
  %0 = "stablehlo.dot_general"(%lhs, %rhs) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @convolution(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64> {
  %0 = "stablehlo.convolution"(%lhs, %rhs) {window_strides = array<i64: 4, 4>, padding = dense<0> : tensor<2x2xi64>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>
  return %0 : tensor<1x2x2x1xi64>
}

// -----

func.func @convolution_groups(%lhs: tensor<1x4x4x2xf32>, %rhs: tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32> {
  // expected-error @+1 {{expects feature_group_count or batch_group_count to be 1, got 2 and 2}}
  %0 = "stablehlo.convolution"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 2 : i64} : (tensor<1x4x4x2xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

func.func @convolution_result(%lhs: tensor<1x4x4x1xf32>, %rhs: tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32> {
  // expected-error @+1 {{result #0 has type tensor<1x4x4x1xf32> but its operands and attributes give tensor<1x2x2x1xf32>}}
  %0 = "stablehlo.convolution"(%lhs, %rhs) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32>
  return %0 : tensor<1x4x4x1xf32>
}

// -----

func.func @dynamic_conv(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>, %padding: tensor<2x2xi64>) -> tensor<1x2x2x1xi64> {
  %0 = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {window_strides = array<i64: 4, 4>, lhs_dilation = array<i64: 2, 2>, rhs_dilation = array<i64: 1, 1>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<2x2xi64>) -> tensor<1x2x2x1xi64>
  return %0 : tensor<1x2x2x1xi64>
}

// -----

func.func @dynamic_conv_padding(%lhs: tensor<1x4x4x1xi64>, %rhs: tensor<3x3x1x1xi64>, %padding: tensor<3x2xi64>) -> tensor<1x2x2x1xi64> {
  // expected-error @+1 {{expects padding to have shape [2, 2], got tensor<3x2xi64>}}
  %0 = "stablehlo.dynamic_conv"(%lhs, %rhs, %padding) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>, tensor<3x2xi64>) -> tensor<1x2x2x1xi64>
  return %0 : tensor<1x2x2x1xi64>
}

// -----

func.func @triangular_solve(%a: tensor<3x3xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @triangular_solve_side(%a: tensor<3x3xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{expects a to be a batch of square matrices matching the columns of b}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @cholesky(%a: tensor<2x3x3xf64>) -> tensor<2x3x3xf64> {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
  return %0 : tensor<2x3x3xf64>
}

// -----

func.func @cholesky_square(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{expects a to be a batch of square matrices, got tensor<3x4xf32>}}
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @fft(%a: tensor<4xcomplex<f32>>, %r: tensor<3x8xf32>) -> tensor<4xcomplex<f32>> {
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %1 = "stablehlo.fft"(%r) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 8>} : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
  %2 = "stablehlo.fft"(%1) {fft_type = #stablehlo<fft_type IRFFT>, fft_length = array<i64: 8>} : (tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @fft_real_input(%a: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{expects a complex operand for FFT, got tensor<4xf32>}}
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @batch_norm(%x: tensor<2x2x3xf32>, %s: tensor<3xf32>) -> tensor<2x2x3xf32> {
  %y, %mean, %var = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %mean, %var) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
  %dx, %ds, %db = "stablehlo.batch_norm_grad"(%x, %s, %mean, %var, %0) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x2x3xf32>) -> (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x2x3xf32>
}

// -----

func.func @batch_norm_training_feature_index(%x: tensor<2x2x3xf32>, %s: tensor<3xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{expects feature_index to be in [0, 3), got 3}}
  %y, %mean, %var = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 1.0e-5 : f32, feature_index = 3 : i64} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<2x2x3xf32>
}

// -----

func.func @batch_norm_inference_mean(%x: tensor<2x2x3xf32>, %s: tensor<3xf32>, %m: tensor<2xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{expects mean to be a 1-dimensional tensor of 3 elements}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %s, %m, %s) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}

// -----

func.func @batch_norm_grad_output(%x: tensor<2x2x3xf32>, %s: tensor<3xf32>, %g: tensor<2x3xf32>) -> tensor<2x2x3xf32> {
  // expected-error @+1 {{expects grad_output to have the type of operand}}
  %dx, %ds, %db = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %g) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %dx : tensor<2x2x3xf32>
}
