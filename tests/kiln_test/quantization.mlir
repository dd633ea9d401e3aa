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

// ---- Elementwise ops on quantized tensors ----------------------------------
//
// The spec's dequantize_op_quantize: dequantize the operands, compute in the
// expressed type, quantize into the result type. Expected values worked out
// by hand (each input is exact at its scale, so dequantize gives it back).

// Scale 0.5: [1, 2.5, -3, 60] + [0.5, 1, 1.5, 10] = [1.5, 3.5, -1.5, 70];
// 70 / 0.5 = 140 clamps to 127 -> 63.5.
func.func @add_quantized() {
  %a = stablehlo.constant dense<[1.0, 2.5, -3.0, 60.0]> : tensor<4xf32>
  %b = stablehlo.constant dense<[0.5, 1.0, 1.5, 10.0]> : tensor<4xf32>
  %qa = stablehlo.uniform_quantize %a : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %qb = stablehlo.uniform_quantize %b : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %qs = stablehlo.add %qa, %qb : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %s = stablehlo.uniform_dequantize %qs : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4xf32>
  check.expect_eq_const %s, dense<[1.5, 3.5, -1.5, 63.5]> : tensor<4xf32>
  func.return
}

// Scale 0.5, zero point 3: a = [1, -1, 2], b = [0.5, 1.5, 2] (stored as
// [5, 1, 7] and [4, 6, 7]). a - b = [0.5, -2.5, 0]; max = [1, 1.5, 2];
// min = [0.5, -1, 2]; clamp(min = -1, a, max = 1) = [1, -1, 1]; all exact.
func.func @subtract_maximum_minimum_clamp_quantized() {
  %a = stablehlo.constant dense<[1.0, -1.0, 2.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[0.5, 1.5, 2.0]> : tensor<3xf32>
  %qa = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %qb = stablehlo.uniform_quantize %b : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %qd = stablehlo.subtract %qa, %qb : tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %qmax = stablehlo.maximum %qa, %qb : tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %qmin = stablehlo.minimum %qa, %qb : tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %qlo = stablehlo.uniform_quantize %lo : (tensor<f32>) -> tensor<!quant.uniform<i8:f32, 5.000000e-01:3>>
  %qhi = stablehlo.uniform_quantize %hi : (tensor<f32>) -> tensor<!quant.uniform<i8:f32, 5.000000e-01:3>>
  %qc = stablehlo.clamp %qlo, %qa, %qhi : (tensor<!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %d = stablehlo.uniform_dequantize %qd : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3xf32>
  %max = stablehlo.uniform_dequantize %qmax : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3xf32>
  %min = stablehlo.uniform_dequantize %qmin : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3xf32>
  %c = stablehlo.uniform_dequantize %qc : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3xf32>
  check.expect_eq_const %d, dense<[0.5, -2.5, 0.0]> : tensor<3xf32>
  check.expect_eq_const %max, dense<[1.0, 1.5, 2.0]> : tensor<3xf32>
  check.expect_eq_const %min, dense<[0.5, -1.0, 2.0]> : tensor<3xf32>
  check.expect_eq_const %c, dense<[1.0, -1.0, 1.0]> : tensor<3xf32>
  func.return
}

// Operands and result of different scales: [1.5, -2, 3] (scale 0.5) *
// [0.5, 0.75, -1.25] (scale 0.25) = [0.75, -1.5, -3.75]; into scale 1, zero
// point 2: [2.75, 0.5, -1.75] -> [3, 0, -2] (0.5 ties to even) ->
// (q - 2) * 1 = [1, -2, -4].
func.func @multiply_quantized_rescales() {
  %a = stablehlo.constant dense<[1.5, -2.0, 3.0]> : tensor<3xf32>
  %b = stablehlo.constant dense<[0.5, 0.75, -1.25]> : tensor<3xf32>
  %qa = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01>>
  %qb = stablehlo.uniform_quantize %b : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 2.500000e-01>>
  %qp = stablehlo.multiply %qa, %qb : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01>>, tensor<3x!quant.uniform<i8:f32, 2.500000e-01>>) -> tensor<3x!quant.uniform<i8:f32, 1.000000e+00:2>>
  %p = stablehlo.uniform_dequantize %qp : (tensor<3x!quant.uniform<i8:f32, 1.000000e+00:2>>) -> tensor<3xf32>
  check.expect_eq_const %p, dense<[1.0, -2.0, -4.0]> : tensor<3xf32>
  func.return
}

// Scale 0.5, zero point -1: [-3, 2.5, -64] -> x / 0.5 - 1 = [-7, 4, -129]
// -> [-7, 4, -128 (clamped)] = [-3, 2.5, -63.5]. abs = [3, 2.5, 63.5] and
// negate = [3, -2.5, 63.5] are representable (63.5 is stored as 126).
func.func @abs_negate_quantized() {
  %x = stablehlo.constant dense<[-3.0, 2.5, -64.0]> : tensor<3xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %qabs = stablehlo.abs %q : tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %qneg = stablehlo.negate %q : tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-1>>
  %abs = stablehlo.uniform_dequantize %qabs : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<3xf32>
  %neg = stablehlo.uniform_dequantize %qneg : (tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-1>>) -> tensor<3xf32>
  check.expect_eq_const %abs, dense<[3.0, 2.5, 63.5]> : tensor<3xf32>
  check.expect_eq_const %neg, dense<[3.0, -2.5, 63.5]> : tensor<3xf32>
  func.return
}

// A float function through the same path: u8, scale 0.25: sqrt([4, 2, 0.25])
// = [2, 1.41421..., 0.5]; / 0.25 = [8, 5.657, 2] -> [8, 6, 2] -> [2, 1.5, 0.5].
func.func @sqrt_quantized() {
  %x = stablehlo.constant dense<[4.0, 2.0, 0.25]> : tensor<3xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<u8:f32, 2.500000e-01>>
  %qr = stablehlo.sqrt %q : tensor<3x!quant.uniform<u8:f32, 2.500000e-01>>
  %r = stablehlo.uniform_dequantize %qr : (tensor<3x!quant.uniform<u8:f32, 2.500000e-01>>) -> tensor<3xf32>
  check.expect_eq_const %r, dense<[2.0, 1.5, 0.5]> : tensor<3xf32>
  func.return
}

// Per-axis (dimension 0; row 0 scale 0.5 / zero point 0, row 1 scale 2 /
// zero point 1): x + x for x = [[1, -3.5], [6, 2]] = [[2, -7], [12, 4]];
// row 1 stores 12 / 2 + 1 = 7 and 4 / 2 + 1 = 3, giving back 12 and 4.
func.func @add_per_axis_quantized() {
  %x = stablehlo.constant dense<[[1.0, -3.5], [6.0, 2.0]]> : tensor<2x2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:0, 2.000000e+00:1}>>
  %qs = stablehlo.add %q, %q : tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:0, 2.000000e+00:1}>>
  %s = stablehlo.uniform_dequantize %qs : (tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01:0, 2.000000e+00:1}>>) -> tensor<2x2xf32>
  check.expect_eq_const %s, dense<[[2.0, -7.0], [12.0, 4.0]]> : tensor<2x2xf32>
  func.return
}
