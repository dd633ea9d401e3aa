// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The type rules of the elementwise ops: one function of valid uses per group
// of ops, then one chunk per violated constraint.

func.func @unary_float_ops(%f: tensor<2xf32>, %c: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  %0 = "stablehlo.cbrt"(%f) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "stablehlo.ceil"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "stablehlo.cosine"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "stablehlo.exponential"(%2) : (tensor<2xf32>) -> tensor<2xf32>
  %4 = "stablehlo.exponential_minus_one"(%3) : (tensor<2xf32>) -> tensor<2xf32>
  %5 = "stablehlo.floor"(%4) : (tensor<2xf32>) -> tensor<2xf32>
  %6 = "stablehlo.log"(%5) : (tensor<2xf32>) -> tensor<2xf32>
  %7 = "stablehlo.log_plus_one"(%6) : (tensor<2xf32>) -> tensor<2xf32>
  %8 = "stablehlo.logistic"(%7) : (tensor<2xf32>) -> tensor<2xf32>
  %9 = "stablehlo.negate"(%8) : (tensor<2xf32>) -> tensor<2xf32>
  %10 = "stablehlo.round_nearest_afz"(%9) : (tensor<2xf32>) -> tensor<2xf32>
  %11 = "stablehlo.round_nearest_even"(%10) : (tensor<2xf32>) -> tensor<2xf32>
  %12 = "stablehlo.rsqrt"(%11) : (tensor<2xf32>) -> tensor<2xf32>
  %13 = "stablehlo.sign"(%12) : (tensor<2xf32>) -> tensor<2xf32>
  %14 = "stablehlo.sine"(%13) : (tensor<2xf32>) -> tensor<2xf32>
  %15 = "stablehlo.sqrt"(%14) : (tensor<2xf32>) -> tensor<2xf32>
  %16 = "stablehlo.tan"(%15) : (tensor<2xf32>) -> tensor<2xf32>
  %17 = "stablehlo.tanh"(%16) : (tensor<2xf32>) -> tensor<2xf32>
  %18 = "stablehlo.abs"(%c) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %19 = "stablehlo.real"(%c) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %20 = "stablehlo.imag"(%c) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %21 = "stablehlo.is_finite"(%20) : (tensor<2xf32>) -> tensor<2xi1>
  %22 = "stablehlo.reduce_precision"(%19) {exponent_bits = 5 : i32, mantissa_bits = 10 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  %23 = "stablehlo.convert"(%22) : (tensor<2xf32>) -> tensor<2xi32>
  %24 = "stablehlo.bitcast_convert"(%23) : (tensor<2xi32>) -> tensor<2xf32>
  return %24 : tensor<2xf32>
}

// -----

func.func @unary_integer_ops(%i: tensor<3xi32>, %b: tensor<3xi1>) -> tensor<3xi32> {
  %0 = "stablehlo.count_leading_zeros"(%i) : (tensor<3xi32>) -> tensor<3xi32>
  %1 = "stablehlo.popcnt"(%0) : (tensor<3xi32>) -> tensor<3xi32>
  %2 = "stablehlo.not"(%1) : (tensor<3xi32>) -> tensor<3xi32>
  %3 = "stablehlo.not"(%b) : (tensor<3xi1>) -> tensor<3xi1>
  %4 = "stablehlo.abs"(%2) : (tensor<3xi32>) -> tensor<3xi32>
  %5 = "stablehlo.bitcast_convert"(%4) : (tensor<3xi32>) -> tensor<3x4xi8>
  return %4 : tensor<3xi32>
}

// -----

func.func @binary_ops(%f: tensor<2x2xf32>, %i: tensor<2x2xi32>, %p: tensor<2x2xi1>) -> tensor<2x2xf32> {
  %0 = "stablehlo.add"(%f, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = "stablehlo.atan2"(%0, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = "stablehlo.divide"(%1, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = "stablehlo.maximum"(%2, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %4 = "stablehlo.minimum"(%3, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %5 = "stablehlo.multiply"(%4, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %6 = "stablehlo.power"(%5, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %7 = "stablehlo.remainder"(%6, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %8 = "stablehlo.subtract"(%7, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %9 = "stablehlo.and"(%i, %i) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %10 = "stablehlo.or"(%9, %i) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %11 = "stablehlo.xor"(%10, %i) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %12 = "stablehlo.shift_left"(%11, %i) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %13 = "stablehlo.shift_right_arithmetic"(%12, %i) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %14 = "stablehlo.shift_right_logical"(%13, %i) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  %15 = "stablehlo.and"(%p, %p) : (tensor<2x2xi1>, tensor<2x2xi1>) -> tensor<2x2xi1>
  %16 = "stablehlo.compare"(%8, %f) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xi1>
  %17 = "stablehlo.select"(%16, %8, %f) : (tensor<2x2xi1>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %18 = "stablehlo.complex"(%17, %f) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xcomplex<f32>>
  %lo = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
  %19 = "stablehlo.clamp"(%lo, %17, %f) : (tensor<f32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %19 : tensor<2x2xf32>
}

// -----

func.func @map(%a: tensor<2x2xi64>, %b: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %0 = "stablehlo.map"(%a, %b) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %m = "stablehlo.multiply"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%m) : (tensor<i64>) -> ()
  }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @abs_unsigned(%a: tensor<2xui32>) -> tensor<2xui32> {
  // expected-error @+1 {{expects operand to be a tensor of signed integer, floating-point or complex type}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xui32>) -> tensor<2xui32>
  return %0 : tensor<2xui32>
}

// -----

func.func @abs_complex_result(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{result #0 has type tensor<2xcomplex<f32>> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

// bitcast_convert (C1) shapes
func.func @bitcast_convert_shape(%a: tensor<3xi32>) -> tensor<3x2xi8> {
  // expected-error @+1 {{to agree up to the ratio of their element bit widths}}
  %0 = "stablehlo.bitcast_convert"(%a) : (tensor<3xi32>) -> tensor<3x2xi8>
  return %0 : tensor<3x2xi8>
}

// -----

func.func @cbrt_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.cbrt"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @ceil_complex(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point type}}
  %0 = "stablehlo.ceil"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @convert_shape(%a: tensor<2xf32>) -> tensor<3xi32> {
  // expected-error @+1 {{expects operand and result to have the same shape}}
  %0 = "stablehlo.convert"(%a) : (tensor<2xf32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @cosine_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.cosine"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @count_leading_zeros_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects operand to be a tensor of integer type}}
  %0 = "stablehlo.count_leading_zeros"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @exponential_result(%a: tensor<2xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.exponential"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

func.func @exponential_minus_one_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.exponential_minus_one"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @floor_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point type}}
  %0 = "stablehlo.floor"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @imag_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type, got tensor<2xi32>}}
  %0 = "stablehlo.imag"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @is_finite_result(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 has type tensor<2xf32> but its operands and attributes give tensor<2xi1>}}
  %0 = "stablehlo.is_finite"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @log_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.log"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @log_plus_one_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.log_plus_one"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @logistic_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.logistic"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @negate_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects operand to be a tensor of integer, floating-point or complex type}}
  %0 = "stablehlo.negate"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @not_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects operand to be a tensor of boolean or integer type}}
  %0 = "stablehlo.not"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @popcnt_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects operand to be a tensor of integer type}}
  %0 = "stablehlo.popcnt"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @real_result(%a: tensor<2xcomplex<f64>>) -> tensor<2xf32> {
  // expected-error @+1 {{result #0 has type tensor<2xf32> but its operands and attributes give tensor<2xf64>}}
  %0 = "stablehlo.real"(%a) : (tensor<2xcomplex<f64>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// reduce_precision (C3) mantissa bits
func.func @reduce_precision_mantissa(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects mantissa_bits >= 0, got -1}}
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = -1 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @round_nearest_afz_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point type}}
  %0 = "stablehlo.round_nearest_afz"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @round_nearest_even_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point type}}
  %0 = "stablehlo.round_nearest_even"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @rsqrt_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.rsqrt"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @sign_unsigned(%a: tensor<2xui8>) -> tensor<2xui8> {
  // expected-error @+1 {{expects operand to be a tensor of signed integer, floating-point or complex type}}
  %0 = "stablehlo.sign"(%a) : (tensor<2xui8>) -> tensor<2xui8>
  return %0 : tensor<2xui8>
}

// -----

func.func @sine_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.sine"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @sqrt_result_shape(%a: tensor<2xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.sqrt"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @tan_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.tan"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @tanh_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects operand to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.tanh"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @add_shapes(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs and rhs to have the same type, got tensor<2xf32> and tensor<3xf32>}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @and_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs to be a tensor of boolean or integer type}}
  %0 = "stablehlo.and"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @atan2_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error @+1 {{expects lhs to be a tensor of floating-point or complex type}}
  %0 = "stablehlo.atan2"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @clamp_bound_shape(%min: tensor<3xf32>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects min to be 0-dimensional or to have the shape of operand}}
  %0 = "stablehlo.clamp"(%min, %a, %a) : (tensor<3xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @compare_type(%a: tensor<2xi32>) -> tensor<2xi1> {
  // expected-error @+1 {{expects compare_type FLOAT to suit element type i32}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @complex_int(%a: tensor<2xi32>) -> tensor<2xcomplex<f32>> {
  // expected-error @+1 {{expects lhs to be a tensor of floating-point type}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}

// -----

func.func @divide_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects lhs to be a tensor of integer, floating-point or complex type}}
  %0 = "stablehlo.divide"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @maximum_types(%a: tensor<2xf32>, %b: tensor<2xf64>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs and rhs to have the same type}}
  %0 = "stablehlo.maximum"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @minimum_types(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs and rhs to have the same type}}
  %0 = "stablehlo.minimum"(%a, %b) : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @multiply_result(%a: tensor<2xf32>) -> tensor<2xf16> {
  // expected-error @+1 {{result #0 has type tensor<2xf16> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.multiply"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

func.func @or_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs to be a tensor of boolean or integer type}}
  %0 = "stablehlo.or"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @power_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects lhs to be a tensor of integer, floating-point or complex type}}
  %0 = "stablehlo.power"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @remainder_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects lhs to be a tensor of integer, floating-point or complex type}}
  %0 = "stablehlo.remainder"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

// select (C1) pred shape
func.func @select_pred_shape(%p: tensor<3xi1>, %a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects pred to be 0-dimensional or to have the shape of on_true}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<3xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @shift_left_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs to be a tensor of integer type}}
  %0 = "stablehlo.shift_left"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @shift_right_arithmetic_types(%a: tensor<2xi32>, %b: tensor<2xi64>) -> tensor<2xi32> {
  // expected-error @+1 {{expects lhs and rhs to have the same type}}
  %0 = "stablehlo.shift_right_arithmetic"(%a, %b) : (tensor<2xi32>, tensor<2xi64>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @shift_right_logical_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects lhs to be a tensor of integer type}}
  %0 = "stablehlo.shift_right_logical"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @subtract_bool(%a: tensor<2xi1>) -> tensor<2xi1> {
  // expected-error @+1 {{expects lhs to be a tensor of integer, floating-point or complex type}}
  %0 = "stablehlo.subtract"(%a, %a) : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}

// -----

func.func @xor_float(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{expects lhs to be a tensor of boolean or integer type}}
  %0 = "stablehlo.xor"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// map (C3) dimensions
func.func @map_dimensions(%a: tensor<2x2xi64>) -> tensor<2x2xi64> {
  // expected-error @+1 {{expects dimensions to be [0, ..., rank - 1], got [1, 0]}}
  %0 = "stablehlo.map"(%a) ({
  ^bb0(%x: tensor<i64>):
    "stablehlo.return"(%x) : (tensor<i64>) -> ()
  }) {dimensions = array<i64: 1, 0>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

// map (C4) computation type
func.func @map_computation(%a: tensor<2xi64>) -> tensor<2xi64> {
  // expected-error @+1 {{expects computation to have type (tensor<i64>) -> (tensor<f32>), got (tensor<f32>) -> (tensor<f32>)}}
  %0 = "stablehlo.map"(%a) ({
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
