// Dots and convolutions with an empty dimension on the cpu back end. oneDNN
// cannot take an empty dimension (making its primitive divided by it: the
// process died of SIGFPE, PyTorch's adaptive_avg_pool1d of an empty batch),
// so such ops are planned as kernels or routines; each result is what the
// interpreter gives.

// No rows (a batch of 0) through two dots, as PyTorch's adaptive_avg_pool1d
// of an empty batch lowers.
// RUN: kiln run %s --backend cpu --entry no_rows --input-literal 'dense<> : tensor<0x8x4xf32>' | FileCheck %s --check-prefix=ROWS
// RUN: kiln run %s --backend interpreter --entry no_rows --input-literal 'dense<> : tensor<0x8x4xf32>' | FileCheck %s --check-prefix=ROWS
// ROWS: dense<> : tensor<0x8x2xf32>
func.func @no_rows(%x: tensor<0x8x4xf32>) -> tensor<0x8x2xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<1x1xf32>
  %pool = stablehlo.constant dense<[[0.5, 0.0], [0.5, 0.0], [0.0, 0.5], [0.0, 0.5]]> : tensor<4x2xf32>
  %0 = stablehlo.broadcast_in_dim %x, dims = [0, 1, 3] : (tensor<0x8x4xf32>) -> tensor<0x8x1x4xf32>
  %1 = stablehlo.dot_general %0, %one, contracting_dims = [2] x [0] : (tensor<0x8x1x4xf32>, tensor<1x1xf32>) -> tensor<0x8x4x1xf32>
  %2 = stablehlo.transpose %1, dims = [0, 1, 3, 2] : (tensor<0x8x4x1xf32>) -> tensor<0x8x1x4xf32>
  %3 = stablehlo.dot_general %2, %pool, contracting_dims = [3] x [0] : (tensor<0x8x1x4xf32>, tensor<4x2xf32>) -> tensor<0x8x1x2xf32>
  %4 = stablehlo.reshape %3 : (tensor<0x8x1x2xf32>) -> tensor<0x8x2xf32>
  return %4 : tensor<0x8x2xf32>
}

// Nothing to sum (a contracting dimension of 0): zeros, plus the bias.
// RUN: kiln run %s --backend cpu --entry nothing_to_sum --input-literal 'dense<> : tensor<3x0xf32>' --input-literal 'dense<> : tensor<0x4xf32>' | FileCheck %s --check-prefix=SUM
// RUN: kiln run %s --backend interpreter --entry nothing_to_sum --input-literal 'dense<> : tensor<3x0xf32>' --input-literal 'dense<> : tensor<0x4xf32>' | FileCheck %s --check-prefix=SUM
// SUM: dense<1.000000e+00> : tensor<3x4xf32>
func.func @nothing_to_sum(%a: tensor<3x0xf32>, %b: tensor<0x4xf32>) -> tensor<3x4xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x0xf32>, tensor<0x4xf32>) -> tensor<3x4xf32>
  %one = stablehlo.constant dense<1.0> : tensor<3x4xf32>
  %r = stablehlo.add %d, %one : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// A convolution of an empty batch.
// RUN: kiln run %s --backend cpu --entry empty_batch_conv --input-literal 'dense<> : tensor<0x2x5x5xf32>' | FileCheck %s --check-prefix=CONV
// RUN: kiln run %s --backend interpreter --entry empty_batch_conv --input-literal 'dense<> : tensor<0x2x5x5xf32>' | FileCheck %s --check-prefix=CONV
// CONV: dense<> : tensor<0x3x3x3xf32>
func.func @empty_batch_conv(%x: tensor<0x2x5x5xf32>) -> tensor<0x3x3x3xf32> {
  %k = stablehlo.constant dense<0.25> : tensor<3x2x3x3xf32>
  %c = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<0x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<0x3x3x3xf32>
  return %c : tensor<0x3x3x3xf32>
}
