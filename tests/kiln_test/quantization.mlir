// uniform_quantize / uniform_dequantize, worked by hand from the StableHLO
// spec: quantize(x) = round_nearest_even(clamp(x / scale + zero_point,
// storage_min, storage_max)); dequantize(q) = (q - zero_point) * scale, the
// subtraction done in the storage type. (That subtraction wraps when
// q - zero_point leaves the storage range, e.g. -128 - 3 in i8; the spec
// says so, but the cases below stay clear of that corner.)

// scale 0.5, zero point 3: x / 0.5 + 3 = [3, 5.4, 1.48, 23, 5.5, 6.5]
// -> [3, 5, 1, 23, 6, 6]: the ties round to even after the zero point is
// added -> (q - 3) * 0.5.
func.func @per_tensor_i8() {
  %x = stablehlo.constant dense<[0.0, 1.2, -0.76, 10.0, 1.25, 1.75]> : tensor<6xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %y = stablehlo.uniform_dequantize %q : (tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<6xf32>
  check.expect_eq_const %y, dense<[0.0, 1.0, -1.0, 10.0, 1.5, 1.5]> : tensor<6xf32>
  func.return
}

// Values outside the storage range clamp: 200 -> 127, -200 -> -128.
func.func @clamps_to_storage_range() {
  %x = stablehlo.constant dense<[100.0, -100.0]> : tensor<2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
  %y = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2xf32>
  check.expect_eq_const %y, dense<[63.5, -64.0]> : tensor<2xf32>
  func.return
}

// Unsigned storage, scale 0.25, zero point 128: x / 0.25 + 128 =
// [128, 255, 128.5, 288] -> [128, 255, 128, 255] -> [0, 31.75, 0, 31.75].
func.func @per_tensor_u8() {
  %x = stablehlo.constant dense<[0.0, 31.75, 0.125, 40.0]> : tensor<4xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 2.500000e-01:128>>
  %y = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<u8:f32, 2.500000e-01:128>>) -> tensor<4xf32>
  check.expect_eq_const %y, dense<[0.0, 31.75, 0.0, 31.75]> : tensor<4xf32>
  func.return
}

// A narrowed storage range i8<-8:7> clamps there: [100, -100, 3.5] ->
// [7, -8, 4 (3.5 ties to even)].
func.func @narrow_storage_range() {
  %x = stablehlo.constant dense<[100.0, -100.0, 3.5]> : tensor<3xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8<-8:7>:f32, 1.000000e+00>>
  %y = stablehlo.uniform_dequantize %q : (tensor<3x!quant.uniform<i8<-8:7>:f32, 1.000000e+00>>) -> tensor<3xf32>
  check.expect_eq_const %y, dense<[7.0, -8.0, 4.0]> : tensor<3xf32>
  func.return
}

// Per-axis along dimension 0: row 0 has scale 0.5 / zero point 0, row 1
// scale 2 / zero point 1. Row 0: [2, -6.6 -> -7] -> [1.0, -3.5];
// row 1: [2.5 + 1, 1.5 + 1] = [3.5, 2.5] -> [4, 2] -> (q - 1) * 2 = [6, 2].
func.func @per_axis() {
  %x = stablehlo.constant dense<[[1.0, -3.3], [5.0, 3.0]]> : tensor<2x2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:0, 2.000000e+00:1}>>
  %y = stablehlo.uniform_dequantize %q : (tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:0, 2.000000e+00:1}>>) -> tensor<2x2xf32>
  check.expect_eq_const %y, dense<[[1.0, -3.5], [6.0, 2.0]]> : tensor<2x2xf32>
  func.return
}

// Requantization (quantized to quantized) dequantizes and quantizes again:
// [0, 1, -1, 62, -1.5] (exact at scale 0.5) -> scale 1: -1.5 ties to -2.
func.func @requantize() {
  %x = stablehlo.constant dense<[0.0, 1.0, -1.0, 62.0, -1.5]> : tensor<5xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %r = stablehlo.uniform_quantize %q : (tensor<5x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<5x!quant.uniform<i8:f32, 1.000000e+00>>
  %y = stablehlo.uniform_dequantize %r : (tensor<5x!quant.uniform<i8:f32, 1.000000e+00>>) -> tensor<5xf32>
  check.expect_eq_const %y, dense<[0.0, 1.0, -1.0, 62.0, -2.0]> : tensor<5xf32>
  func.return
}
