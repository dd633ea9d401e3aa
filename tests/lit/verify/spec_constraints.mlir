// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// RUN: python3 %S/../../../scripts/spec_constraints.py --check --root %S/../../..
// One invalid program per numbered constraint of the StableHLO specification
// that constraints.mlir and the other files of this directory do not break
// already: the comment above each function names the op and the constraint,
// (Cn) of the op's section (scripts/spec_constraints.py counts them; see
// docs/testing.md, "Spec constraints"). The first chunk holds valid programs
// next to the limits those tests probe.

func.func @valid_next_to_the_limits(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>, %b: tensor<2xi64>,
                                    %c: tensor<1x!quant.uniform<i8:f32:0, {0.5:3}>>, %t: !stablehlo.token) {
  // a per-axis quantized transpose moves the quantization dimension with its dimension
  %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5:0, 0.25:1}>>
  // a reshape keeps it as one dimension; a broadcast maps it, spreading a single scale
  %1 = "stablehlo.reshape"(%a) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>) -> tensor<2x3x1x!quant.uniform<i8:f32:0, {0.5:0, 0.25:1}>>
  %2 = "stablehlo.broadcast_in_dim"(%c) {broadcast_dimensions = array<i64: 1>} : (tensor<1x!quant.uniform<i8:f32:0, {0.5:3}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:3, 0.5:3}>>
  // all_reduce's groups may be ragged, padded with -1
  %3 = "stablehlo.all_reduce"(%b) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 1, 2], [3, -1, -1]]> : tensor<2x3xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  // a host transfer goes through a host channel, any other through a device one
  %4 = "stablehlo.send"(%b, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
  %5:2 = "stablehlo.recv"(%4) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
  return
}

// -----
// cbrt (C1) result type
func.func @cbrt_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.cbrt"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// cosine (C1) result type
func.func @cosine_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.cosine"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// exponential (C1) result type
func.func @exponential_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.exponential"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// exponential_minus_one (C1) result type
func.func @exponential_minus_one_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.exponential_minus_one"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// log (C1) result type
func.func @log_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.log"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// log_plus_one (C1) result type
func.func @log_plus_one_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.log_plus_one"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// logistic (C1) result type
func.func @logistic_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.logistic"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// rsqrt (C1) result type
func.func @rsqrt_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.rsqrt"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// sine (C1) result type
func.func @sine_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.sine"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// sqrt (C1) result type
func.func @sqrt_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.sqrt"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// tan (C1) result type
func.func @tan_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.tan"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// tanh (C1) result type
func.func @tanh_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.tanh"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// ceil (C1) result type
func.func @ceil_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.ceil"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// floor (C1) result type
func.func @floor_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.floor"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// round_nearest_afz (C1) result type
func.func @round_nearest_afz_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.round_nearest_afz"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// round_nearest_even (C1) result type
func.func @round_nearest_even_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.round_nearest_even"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// negate (C1) result type
func.func @negate_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.negate"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// sign (C1) result type
func.func @sign_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.sign"(%a) : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// count_leading_zeros (C1) result type
func.func @count_leading_zeros_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.count_leading_zeros"(%a) : (tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// popcnt (C1) result type
func.func @popcnt_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.popcnt"(%a) : (tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// not (C1) result type
func.func @not_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.not"(%a) : (tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// add (C1) result type
func.func @add_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// atan2 (C1) result type
func.func @atan2_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{'stablehlo.atan2' op result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.atan2"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// divide (C1) result type
func.func @divide_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.divide"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// maximum (C1) result type
func.func @maximum_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.maximum"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// minimum (C1) result type
func.func @minimum_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.minimum"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// multiply (C1) result type
func.func @multiply_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.multiply"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// power (C1) result type
func.func @power_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.power"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// remainder (C1) result type
func.func @remainder_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.remainder"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// subtract (C1) result type
func.func @subtract_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.subtract"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// and (C1) result type
func.func @and_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.and"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// or (C1) result type
func.func @or_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.or"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// xor (C1) result type
func.func @xor_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.xor"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// shift_left (C1) result type
func.func @shift_left_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.shift_left"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// shift_right_arithmetic (C1) result type
func.func @shift_right_arithmetic_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.shift_right_arithmetic"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// shift_right_logical (C1) result type
func.func @shift_right_logical_c1(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi64> but its operands and attributes give tensor<2xi32>}}
  %0 = "stablehlo.shift_right_logical"(%a, %a) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi64>
  return
}

// -----
// convert (C1) same shape
func.func @convert_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{expects operand and result to have the same shape, got tensor<2xf32> and tensor<3xi32>}}
  %0 = "stablehlo.convert"(%a) : (tensor<2xf32>) -> tensor<3xi32>
  return
}

// -----
// is_finite (C1) same shape
func.func @is_finite_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xi1> but its operands and attributes give tensor<2xi1>}}
  %0 = "stablehlo.is_finite"(%a) : (tensor<2xf32>) -> tensor<3xi1>
  return
}

// -----
// abs (C1) same shape
func.func @abs_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// abs (C2) complex operand gives its component type
func.func @abs_c2(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{result #0 has type tensor<2xcomplex<f32>> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.abs"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
  return
}

// -----
// real (C1) same shape
func.func @real_c1(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.real"(%a) : (tensor<2xcomplex<f32>>) -> tensor<3xf32>
  return
}

// -----
// real (C2) component element type
func.func @real_c2(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.real"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----
// imag (C1) same shape
func.func @imag_c1(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.imag"(%a) : (tensor<2xcomplex<f32>>) -> tensor<3xf32>
  return
}

// -----
// imag (C2) component element type
func.func @imag_c2(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.imag"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----
// complex (C1) same operand types
func.func @complex_c1(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same type, got tensor<2xf32> and tensor<2xf64>}}
  %0 = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xcomplex<f32>>
  return
}

// -----
// complex (C2) result shape
func.func @complex_c2(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xcomplex<f32>> but its operands and attributes give tensor<2xcomplex<f32>>}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xcomplex<f32>>
  return
}

// -----
// complex (C3) result element type
func.func @complex_c3(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xcomplex<f64>> but its operands and attributes give tensor<2xcomplex<f32>>}}
  %0 = "stablehlo.complex"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f64>>
  return
}

// -----
// compare (C1) same element types
func.func @compare_c1(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same type, got tensor<2xf32> and tensor<2xf64>}}
  %0 = "stablehlo.compare"(%a, %b) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf64>) -> tensor<2xi1>
  return
}

// -----
// compare (C2) same shapes
func.func @compare_c2(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xi1> but its operands and attributes give tensor<2xi1>}}
  %0 = "stablehlo.compare"(%a, %a) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xi1>
  return
}

// -----
// clamp (C2) max shape
func.func @clamp_c2(%a: tensor<3xf32>, %m: tensor<2xf32>) {
  // expected-error @+1 {{expects max to be 0-dimensional or to have the shape of operand, got tensor<2xf32> and tensor<3xf32>}}
  %0 = "stablehlo.clamp"(%a, %a, %m) : (tensor<3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// clamp (C3) same element types
func.func @clamp_c3(%a: tensor<3xf32>, %m: tensor<f64>) {
  // expected-error @+1 {{expects min and operand to have the same element type, got tensor<f64> and tensor<3xf32>}}
  %0 = "stablehlo.clamp"(%m, %a, %a) : (tensor<f64>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----
// clamp (C4) result type
func.func @clamp_c4(%a: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf64> but its operands and attributes give tensor<3xf32>}}
  %0 = "stablehlo.clamp"(%a, %a, %a) : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----
// reduce_precision (C1) result type
func.func @reduce_precision_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.reduce_precision"(%a) {exponent_bits = 5 : i32, mantissa_bits = 2 : i32} : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// bitcast_convert (C2) complex to real
func.func @bitcast_convert_c2(%a: tensor<2xcomplex<f32>>) {
  // expected-error @+1 {{expects operand and result to be both complex or both not complex}}
  %0 = "stablehlo.bitcast_convert"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----
// select (C2) result type
func.func @select_c2(%p: tensor<2xi1>, %a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.select"(%p, %a, %a) : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// map (C1) inputs and result of one shape
func.func @map_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.map"(%a) ({
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----
// map (C2) at least one input
func.func @map_c2() {
  // expected-error @+1 {{expects at least 1 operands, got 0}}
  %0 = "stablehlo.map"() ({
  ^bb0:
    %c = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    "stablehlo.return"(%c) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : () -> tensor<2xf32>
  return
}

// -----
// add (C2) all quantized
func.func @add_c2(%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{result #0 has type tensor<2xf32> but its operands and attributes give tensor<2x!quant.uniform<i8:f32,}}
  %0 = "stablehlo.add"(%a, %a) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2xf32>
  return
}

// -----
// add (C3) same storage types
func.func @add_c3(%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<2x!quant.uniform<i16:f32, 0.5:0>>) {
  // expected-error @+1 {{expects lhs and rhs to be quantized tensors of the same shape, storage and expressed types, got}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x!quant.uniform<i16:f32, 0.5:0>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// add (C4) same expressed types
func.func @add_c4(%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<2x!quant.uniform<i8:f16, 0.5:0>>) {
  // expected-error @+1 {{expects lhs and rhs to be quantized tensors of the same shape, storage and expressed types, got}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x!quant.uniform<i8:f16, 0.5:0>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// add (C5) per-axis result with a per-axis operand
func.func @add_c5(%a: tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects the result to be per-axis quantized exactly when an operand is}}
  %0 = "stablehlo.add"(%a, %a) : (tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>
  return
}

// -----
// add (C6) lhs and result quantized along one dimension
func.func @add_c6(%a: tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>, %b: tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects the result to be quantized along the dimension of its per-axis quantized operands}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>, tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:0, 0.5:0}>>
  return
}

// -----
// add (C7) rhs and result quantized along one dimension
func.func @add_c7(%a: tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) {
  // expected-error @+1 {{expects the result to be quantized along the dimension of its per-axis quantized operands}}
  %0 = "stablehlo.add"(%a, %b) : (tensor<2x2x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5:0, 0.5:0}>>
  return
}

// -----
// all_gather (C2) unique replica ids
func.func @all_gather_c2(%a: tensor<2x2xi64>) {
  // expected-error @+1 {{expects replica_groups to be unique, got 0 twice}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return
}

// -----
// all_gather (C4) replica ids in range
func.func @all_gather_c4(%a: tensor<2x2xi64>) {
  // expected-error @+1 {{expects replica_groups to hold the ids 0 to 1, got 2}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return
}

// -----
// all_gather (C5) global device ids need a channel
func.func @all_gather_c5(%a: tensor<2x2xi64>) {
  // expected-error @+1 {{expects channel_id > 0 when use_global_device_ids is set}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return
}

// -----
// all_gather (C6) result shape
func.func @all_gather_c6(%a: tensor<2x2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<2x6xi64> but its operands and attributes give tensor<2x4xi64>}}
  %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x6xi64>
  return
}

// -----
// all_reduce (C3) replica ids in range
func.func @all_reduce_c3(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects replica_groups to hold the ids 0 to 1, got 2}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// all_reduce (C5) computation type
func.func @all_reduce_c5(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects computation to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1 inputs, got}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%s) : (tensor<i32>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// all_reduce (C6) result shape
func.func @all_reduce_c6(%a: tensor<2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<3xi64> but its operands and attributes give tensor<2xi64>}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<3xi64>
  return
}

// -----
// all_reduce (C7) result element type is the computation's
func.func @all_reduce_c7(%a: tensor<2xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2xi32> but its operands and attributes give tensor<2xi64>}}
  %0 = "stablehlo.all_reduce"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----
// all_to_all (C1) split_dimension in range
func.func @all_to_all_c1(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects split_dimension to be in [0, 2), got 2}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 2 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  return
}

// -----
// all_to_all (C3) concat_dimension in range
func.func @all_to_all_c3(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects concat_dimension to be in [0, 2), got -1}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = -1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  return
}

// -----
// all_to_all (C4) positive split_count
func.func @all_to_all_c4(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects split_count > 0, got 0}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  return
}

// -----
// all_to_all (C5) unique replica ids
func.func @all_to_all_c5(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects replica_groups to be unique, got 1 twice}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  return
}

// -----
// all_to_all (C7) replica ids in range
func.func @all_to_all_c7(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects replica_groups to be non-negative, got -3}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, -3]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  return
}

// -----
// all_to_all (C8) group size is split_count
func.func @all_to_all_c8(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects replica groups of split_count (2) processes, got 4}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xi64>) -> tensor<4x2xi64>
  return
}

// -----
// all_to_all (C9) result shape
func.func @all_to_all_c9(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{result #0 has type tensor<2x4xi64> but its operands and attributes give tensor<4x2xi64>}}
  %0 = "stablehlo.all_to_all"(%a) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x4xi64>
  return
}

// -----
// reduce_scatter (C2) scatter_dimension in range
func.func @reduce_scatter_c2(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects scatter_dimension to be in [0, 2), got 2}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x2xi64>
  return
}

// -----
// reduce_scatter (C3) unique replica ids
func.func @reduce_scatter_c3(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects replica_groups to be unique, got 1 twice}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x2xi64>
  return
}

// -----
// reduce_scatter (C5) replica ids in range
func.func @reduce_scatter_c5(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects replica_groups to be non-negative, got -1}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x2xi64>
  return
}

// -----
// reduce_scatter (C6) global device ids need a channel
func.func @reduce_scatter_c6(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects channel_id > 0 when use_global_device_ids is set}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<2x4xi64>) -> tensor<2x2xi64>
  return
}

// -----
// reduce_scatter (C7) computation type
func.func @reduce_scatter_c7(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{expects computation to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1 inputs, got}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%s) : (tensor<i32>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x2xi64>
  return
}

// -----
// reduce_scatter (C8) result shape
func.func @reduce_scatter_c8(%a: tensor<2x4xi64>) {
  // expected-error @+1 {{result #0 has type tensor<2x4xi64> but its operands and attributes give tensor<2x2xi64>}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi64>) -> tensor<2x4xi64>
  return
}

// -----
// reduce_scatter (C9) result element type is the computation's
func.func @reduce_scatter_c9(%a: tensor<2x4xi32>) {
  // expected-error @+1 {{result #0 has type tensor<2x2xi32> but its operands and attributes give tensor<2x2xi64>}}
  %0 = "stablehlo.reduce_scatter"(%a) ({
  ^bb0(%x: tensor<i64>, %y: tensor<i64>):
    %s = "stablehlo.add"(%x, %y) : (tensor<i64>, tensor<i64>) -> tensor<i64>
    "stablehlo.return"(%s) : (tensor<i64>) -> ()
  }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x4xi32>) -> tensor<2x2xi32>
  return
}

// -----
// collective_permute (C1) pairs
func.func @collective_permute_c1(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects source_target_pairs to have shape [N, 2], got [1, 3]}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// collective_permute (C2) unique sources
func.func @collective_permute_c2(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects sources of source_target_pairs to be unique, got [0, 0]}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// collective_permute (C4) non-negative process ids
func.func @collective_permute_c4(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects source_target_pairs to be non-negative, got -1}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, -1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// collective_permute (C5) result type
func.func @collective_permute_c5(%a: tensor<2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<2xi32> but its operands and attributes give tensor<2xi64>}}
  %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi32>
  return
}

// -----
// collective_broadcast (C1) unique replica ids
func.func @collective_broadcast_c1(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects replica_groups to be unique, got 1 twice}}
  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// collective_broadcast (C2) non-negative replica ids
func.func @collective_broadcast_c2(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects replica_groups to be non-negative, got -1}}
  %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>} : (tensor<2xi64>) -> tensor<2xi64>
  return
}

// -----
// batch_norm_grad (C1) feature_index in range
func.func @batch_norm_grad_c1(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{expects feature_index to be in [0, 2), got 2}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_grad (C2) one element type
func.func @batch_norm_grad_c2(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf64>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{expects variance to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<3xf64>}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf64>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_grad (C3) grad_operand shape
func.func @batch_norm_grad_c3(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x2xf32> but its operands and attributes give tensor<2x3xf32>}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_grad (C4) one shape of scale, mean, variance
func.func @batch_norm_grad_c4(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %m: tensor<4xf32>, %v: tensor<3xf32>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{expects mean to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_grad (C5) scale size
func.func @batch_norm_grad_c5(%x: tensor<2x3xf32>, %s: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{expects scale to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----
// batch_norm_inference (C1) feature_index in range
func.func @batch_norm_inference_c1(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{expects feature_index to be in [0, 2), got -1}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = -1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// batch_norm_inference (C2) one element type
func.func @batch_norm_inference_c2(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf64>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{expects offset to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<3xf64>}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// batch_norm_inference (C3) scale size
func.func @batch_norm_inference_c3(%x: tensor<2x3xf32>, %s: tensor<4xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{expects scale to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// batch_norm_inference (C4) offset size
func.func @batch_norm_inference_c4(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<4xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{expects offset to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// batch_norm_inference (C5) mean size
func.func @batch_norm_inference_c5(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<4xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{expects mean to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----
// batch_norm_inference (C6) variance size
func.func @batch_norm_inference_c6(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<4xf32>) {
  // expected-error @+1 {{expects variance to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----
// batch_norm_inference (C7) result type
func.func @batch_norm_inference_c7(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x2xf32> but its operands and attributes give tensor<2x3xf32>}}
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return
}

// -----
// batch_norm_training (C1) feature_index in range
func.func @batch_norm_training_c1(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) {
  // expected-error @+1 {{expects feature_index to be in [0, 2), got 2}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_training (C2) one element type
func.func @batch_norm_training_c2(%x: tensor<2x3xf32>, %s: tensor<3xf64>, %o: tensor<3xf32>) {
  // expected-error @+1 {{expects scale to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<3xf64>}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf64>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_training (C3) scale size
func.func @batch_norm_training_c3(%x: tensor<2x3xf32>, %s: tensor<4xf32>, %o: tensor<3xf32>) {
  // expected-error @+1 {{expects scale to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_training (C4) offset size
func.func @batch_norm_training_c4(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<4xf32>) {
  // expected-error @+1 {{expects offset to be a 1-dimensional tensor of 3 elements of the operand's element type, got tensor<4xf32>}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_training (C5) batch_mean size
func.func @batch_norm_training_c5(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) {
  // expected-error @+1 {{result #1 has type tensor<4xf32> but its operands and attributes give tensor<3xf32>}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<3xf32>)
  return
}

// -----
// batch_norm_training (C6) batch_var size
func.func @batch_norm_training_c6(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) {
  // expected-error @+1 {{result #2 has type tensor<4xf32> but its operands and attributes give tensor<3xf32>}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<4xf32>)
  return
}

// -----
// batch_norm_training (C7) output type
func.func @batch_norm_training_c7(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2x3xf64> but its operands and attributes give tensor<2x3xf32>}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-5 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf64>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----
// broadcast_in_dim (C1) element type
func.func @broadcast_in_dim_c1(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects operand and result to have the same element type, got tensor<3xf32> and tensor<2x3xf64>}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf64>
  return
}

// -----
// broadcast_in_dim (C6) per-axis quantization dimension
func.func @broadcast_in_dim_c6(%a: tensor<2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) {
  // expected-error @+1 {{expects the result to be quantized along dimension 1 (broadcast_dimensions[0]), got 0}}
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = array<i64: 1>} : (tensor<2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>
  return
}

// -----
// concatenate (C3) at least one input
func.func @concatenate_c3() {
  // expected-error @+1 {{expects at least 1 operands, got 0}}
  %0 = "stablehlo.concatenate"() {dimension = 0 : i64} : () -> tensor<0xf32>
  return
}

// -----
// concatenate (C5) result element type
func.func @concatenate_c5(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<4xf64> but its operands and attributes give tensor<4xf32>}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf64>
  return
}

// -----
// concatenate (C6) result shape
func.func @concatenate_c6(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<5xf32> but its operands and attributes give tensor<4xf32>}}
  %0 = "stablehlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<5xf32>
  return
}

// -----
// constant (C1) value type
func.func @constant_c1() {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf64>
  return
}

// -----
// dynamic_slice (C1) element type
func.func @dynamic_slice_c1(%a: tensor<4xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<2xf64>
  return
}

// -----
// dynamic_slice (C5) result shape
func.func @dynamic_slice_c5(%a: tensor<4xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.dynamic_slice"(%a, %i) {slice_sizes = array<i64: 2>} : (tensor<4xf32>, tensor<i32>) -> tensor<3xf32>
  return
}

// -----
// dynamic_update_slice (C1) result type
func.func @dynamic_update_slice_c1(%a: tensor<4xf32>, %u: tensor<2xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{result #0 has type tensor<4xf64> but its operands and attributes give tensor<4xf32>}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf32>, tensor<i32>) -> tensor<4xf64>
  return
}

// -----
// dynamic_update_slice (C2) update element type
func.func @dynamic_update_slice_c2(%a: tensor<4xf32>, %u: tensor<2xf64>, %i: tensor<i32>) {
  // expected-error @+1 {{expects update and operand to have the same element type, got tensor<2xf64> and tensor<4xf32>}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4xf32>, tensor<2xf64>, tensor<i32>) -> tensor<4xf32>
  return
}

// -----
// dynamic_update_slice (C4) number of start indices
func.func @dynamic_update_slice_c4(%a: tensor<4x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>) {
  // expected-error @+1 {{expects start_indices to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>) -> tensor<4x4xf32>
  return
}

// -----
// dynamic_update_slice (C5) one type of start indices
func.func @dynamic_update_slice_c5(%a: tensor<4x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>, %j: tensor<i64>) {
  // expected-error @+1 {{expects all start_indices to have the same type, got tensor<i32> and tensor<i64>}}
  %0 = "stablehlo.dynamic_update_slice"(%a, %u, %i, %j) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i64>) -> tensor<4x4xf32>
  return
}

// -----
// pad (C4) result shape
func.func @pad_c4(%a: tensor<3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<6xf32> but its operands and attributes give tensor<7xf32>}}
  %0 = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 1>} : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
  return
}

// -----
// reshape (C1) element type
func.func @reshape_c1(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects operand and result to have the same element type, got tensor<2x3xf32> and tensor<6xf64>}}
  %0 = "stablehlo.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf64>
  return
}

// -----
// reshape (C3) per-axis quantization dimension kept
func.func @reshape_c3(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) {
  // expected-error @+1 {{expects the quantization dimension 0 of tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,5.000000e-01}>> to}}
  %0 = "stablehlo.reshape"(%a) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>
  return
}

// -----
// reverse (C1) result type
func.func @reverse_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.reverse"(%a) {dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf64>
  return
}

// -----
// slice (C1) element type
func.func @slice_c1(%a: tensor<4xf32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.slice"(%a) {start_indices = array<i64: 0>, limit_indices = array<i64: 2>, strides = array<i64: 1>} : (tensor<4xf32>) -> tensor<2xf64>
  return
}

// -----
// transpose (C1) element type
func.func @transpose_c1(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x2xf64> but its operands and attributes give tensor<3x2xf32>}}
  %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf64>
  return
}

// -----
// transpose (C4) per-axis quantization dimension permuted
func.func @transpose_c4(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) {
  // expected-error @+1 {{result #0 has type tensor<3x2x!quant.uniform<i8:f32:0, {5.000000e-01,5.000000e-01,5.000000e-01}>> but its}}
  %0 = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>
  return
}

// -----
// iota (C1) dimension in range (negative)
func.func @iota_c1() {
  // expected-error @+1 {{expects iota_dimension to be in [0, 1), got -1}}
  %0 = "stablehlo.iota"() {iota_dimension = -1 : i64} : () -> tensor<4xf32>
  return
}

// -----
// get_tuple_element (C2) result type
func.func @get_tuple_element_c2(%t: tuple<tensor<2xf32>, tensor<i32>>) {
  // expected-error @+1 {{result #0 has type tensor<i32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
  return
}

// -----
// tuple (C1) result type
func.func @tuple_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{result #0 has type tuple<tensor<2xf32>> but its operands and attributes give tuple<tensor<2xf32>,}}
  %0 = "stablehlo.tuple"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tuple<tensor<2xf32>>
  return
}

// -----
// uniform_quantize (C1) same shape
func.func @uniform_quantize_c1(%a: tensor<2xf32>) {
  // expected-error @+1 {{expects operand and result to have the same shape, got tensor<2xf32> and tensor<3x!quant.uniform<i8:f32,}}
  %0 = "stablehlo.uniform_quantize"(%a) : (tensor<2xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// uniform_quantize (C2) expressed type
func.func @uniform_quantize_c2(%a: tensor<2xf64>) {
  // expected-error @+1 {{expects the expressed type of the result to be f64, got tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>}}
  %0 = "stablehlo.uniform_quantize"(%a) : (tensor<2xf64>) -> tensor<2x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// uniform_dequantize (C1) same shape
func.func @uniform_dequantize_c1(%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.uniform_dequantize"(%a) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<3xf32>
  return
}

// -----
// uniform_dequantize (C2) expressed type
func.func @uniform_dequantize_c2(%a: tensor<2x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{result #0 has type tensor<2xf64> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.uniform_dequantize"(%a) : (tensor<2x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<2xf64>
  return
}

// -----
// dynamic_broadcast_in_dim (C1) element type
func.func @dynamic_broadcast_in_dim_c1(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects operand and result to have the same element type, got tensor<3xf32> and tensor<2x3xf64>}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf64>
  return
}

// -----
// dynamic_broadcast_in_dim (C2) size of broadcast_dimensions
func.func @dynamic_broadcast_in_dim_c2(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects broadcast_dimensions to have 1 elements, got 2}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C3) dims in range
func.func @dynamic_broadcast_in_dim_c3(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects broadcast_dimensions to be in [0, 2), got 2}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 2>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C4) unique dims
func.func @dynamic_broadcast_in_dim_c4(%a: tensor<3x3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects broadcast_dimensions to be unique, got [1, 1]}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1, 1>} : (tensor<3x3xf32>, tensor<2xi64>) -> tensor<3x3xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C5) operand dim 1 or equal
func.func @dynamic_broadcast_in_dim_c5(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects operand dimension 0 (size 3) to be 1 or to match result dimension 1 (size 4)}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C6) per-axis quantization dimension
func.func @dynamic_broadcast_in_dim_c6(%a: tensor<2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects the result to be quantized along dimension 1 (broadcast_dimensions[0]), got 0}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>} : (tensor<2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>, tensor<2xi64>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>
  return
}

// -----
// dynamic_broadcast_in_dim (C7) size of output_dimensions
func.func @dynamic_broadcast_in_dim_c7(%a: tensor<3xf32>, %d: tensor<3xi64>) {
  // expected-error @+1 {{expects output_dimensions to have 2 elements, got 3}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C8) unique known dims
func.func @dynamic_broadcast_in_dim_c8(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects known_expanding_dimensions + known_nonexpanding_dimensions to be unique, got [0, 0]}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>, known_expanding_dimensions = array<i64: 0>, known_nonexpanding_dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C9) known expanding dims in range
func.func @dynamic_broadcast_in_dim_c9(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects known_expanding_dimensions to be in [0, 1), got 1}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>, known_expanding_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----
// dynamic_broadcast_in_dim (C10) known non-expanding dims in range
func.func @dynamic_broadcast_in_dim_c10(%a: tensor<3xf32>, %d: tensor<2xi64>) {
  // expected-error @+1 {{expects known_nonexpanding_dimensions to be in [0, 1), got -1}}
  %0 = "stablehlo.dynamic_broadcast_in_dim"(%a, %d) {broadcast_dimensions = array<i64: 1>, known_nonexpanding_dimensions = array<i64: -1>} : (tensor<3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----
// dynamic_iota (C1) dimension in range
func.func @dynamic_iota_c1(%s: tensor<2xi64>) {
  // expected-error @+1 {{expects iota_dimension to be in [0, 2), got 2}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 2 : i64} : (tensor<2xi64>) -> tensor<4x5xf32>
  return
}

// -----
// dynamic_iota (C2) rank is the size of output_shape
func.func @dynamic_iota_c2(%s: tensor<3xi64>) {
  // expected-error @+1 {{expects the result rank to be the size of output_shape (3), got tensor<4x5xf32>}}
  %0 = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<3xi64>) -> tensor<4x5xf32>
  return
}

// -----
// dynamic_pad (C1) element types
func.func @dynamic_pad_c1(%a: tensor<3xf32>, %v: tensor<f64>, %l: tensor<1xi64>, %h: tensor<1xi64>, %i: tensor<1xi64>) {
  // expected-error @+1 {{expects operand and padding_value to have the same element type, got tensor<3xf32> and tensor<f64>}}
  %0 = "stablehlo.dynamic_pad"(%a, %v, %l, %h, %i) : (tensor<3xf32>, tensor<f64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return
}

// -----
// dynamic_pad (C4) result rank
func.func @dynamic_pad_c4(%a: tensor<3xf32>, %v: tensor<f32>, %l: tensor<1xi64>, %h: tensor<1xi64>, %i: tensor<1xi64>) {
  // expected-error @+1 {{expects the result to have the rank and element type of the operand, got tensor<?x?xf32>}}
  %0 = "stablehlo.dynamic_pad"(%a, %v, %l, %h, %i) : (tensor<3xf32>, tensor<f32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return
}

// -----
// dynamic_reshape (C1) element type
func.func @dynamic_reshape_c1(%a: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{expects operand and result to have the same element type, got tensor<2x3xf32> and tensor<3x2xf64>}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x2xf64>
  return
}

// -----
// dynamic_reshape (C2) element count
func.func @dynamic_reshape_c2(%a: tensor<2x3xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{expects operand and result to have the same number of elements, got tensor<2x3xf32> and tensor<3x3xf32>}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<3x3xf32>
  return
}

// -----
// dynamic_reshape (C3) per-axis quantization dimension kept
func.func @dynamic_reshape_c3(%a: tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>, %s: tensor<2xi64>) {
  // expected-error @+1 {{expects the quantization dimension 0 of tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,5.000000e-01}>> to}}
  %0 = "stablehlo.dynamic_reshape"(%a, %s) : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>, tensor<2xi64>) -> tensor<3x2x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>
  return
}

// -----
// case (C2) branches take no arguments
func.func @case_c2(%i: tensor<i32>, %a: tensor<f32>) {
  // expected-error @+1 {{expects branch 0 to have no arguments, got (tensor<f32>)}}
  %0 = "stablehlo.case"(%i) ({
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) : (tensor<i32>) -> tensor<f32>
  return
}

// -----
// case (C4) result types
func.func @case_c4(%i: tensor<i32>, %a: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<f64> but its operands and attributes give tensor<f32>}}
  %0 = "stablehlo.case"(%i) ({
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<i32>) -> tensor<f64>
  return
}

// -----
// if (C1) branches take no arguments
func.func @if_c1(%p: tensor<i1>, %a: tensor<f32>) {
  // expected-error @+1 {{expects branch 0 to have no arguments, got (tensor<f32>)}}
  %0 = "stablehlo.if"(%p) ({
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }, {
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  return
}

// -----
// if (C3) result types
func.func @if_c3(%p: tensor<i1>, %a: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<f64> but its operands and attributes give tensor<f32>}}
  %0 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }, {
    "stablehlo.return"(%a) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f64>
  return
}

// -----
// while (C3) result types
func.func @while_c3(%a: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<f64> but its operands and attributes give tensor<f32>}}
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<f32>):
    %c = "stablehlo.compare"(%x, %x) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) : (tensor<f32>) -> tensor<f64>
  return
}

// -----
// composite (C2) decomposition defined
func.func @composite_c2(%a: tensor<f32>) {
  // expected-error @+1 {{refers to @nowhere, which is not a function of this module}}
  %0 = "stablehlo.composite"(%a) {name = "my.op", decomposition = @nowhere} : (tensor<f32>) -> tensor<f32>
  return
}

// -----
// sort (C1) at least one input
func.func @sort_c1() {
  // expected-error @+1 {{expects at least 1 operands, got 0}}
  "stablehlo.sort"() ({
  ^bb0:
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64} : () -> ()
  return
}

// -----
// sort (C2) result types
func.func @sort_c2(%a: tensor<3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf64> but its operands and attributes give tensor<3xf32>}}
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }) {dimension = 0 : i64} : (tensor<3xf32>) -> tensor<3xf64>
  return
}

// -----
// cholesky (C1) result type
func.func @cholesky_c1(%a: tensor<3x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x3xf64> but its operands and attributes give tensor<3x3xf32>}}
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3x3xf32>) -> tensor<3x3xf64>
  return
}

// -----
// cholesky (C2) rank at least 2
func.func @cholesky_c2(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects a to have rank at least 2, got tensor<3xf32>}}
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----
// triangular_solve (C1) element types
func.func @triangular_solve_c1(%a: tensor<3x3xf32>, %b: tensor<3x3xf64>) {
  // expected-error @+1 {{expects a and b to have the same element type, got tensor<3x3xf32> and tensor<3x3xf64>}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x3xf64>) -> tensor<3x3xf64>
  return
}

// -----
// triangular_solve (C2) ranks
func.func @triangular_solve_c2(%a: tensor<3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects a and b to have the same rank of at least 2, got tensor<3x3xf32> and tensor<3xf32>}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----
// triangular_solve (C3) batch dims
func.func @triangular_solve_c3(%a: tensor<2x3x3xf32>, %b: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expects a to be a batch of square matrices matching the rows of b, got tensor<2x3x3xf32> and tensor<4x3x3xf32>}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x3x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
  return
}

// -----
// triangular_solve (C4) result type
func.func @triangular_solve_c4(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x3xf64> but its operands and attributes give tensor<3x3xf32>}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf64>
  return
}

// -----
// fft (C1) fft_length no longer than the rank
func.func @fft_c1(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{expects fft_length to have at most rank(operand) elements, got 2}}
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4, 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----
// fft (C2) element types
func.func @fft_c2(%a: tensor<4xcomplex<f32>>) {
  // expected-error @+1 {{result #0 has type tensor<4xcomplex<f64>> but its operands and attributes give tensor<4xcomplex<f32>>}}
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>} : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f64>>
  return
}

// -----
// fft (C3) one to three dims
func.func @fft_c3(%a: tensor<1x1x1x4xcomplex<f32>>) {
  // expected-error @+1 {{expects fft_length to have 1 to 3 elements, got 4}}
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 1, 1, 1, 4>} : (tensor<1x1x1x4xcomplex<f32>>) -> tensor<1x1x1x4xcomplex<f32>>
  return
}

// -----
// fft (C4) real dims are fft_length
func.func @fft_c4(%a: tensor<3x8xf32>) {
  // expected-error @+1 {{expects the trailing dimensions of tensor<3x8xf32> to be fft_length [6]}}
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 6>} : (tensor<3x8xf32>) -> tensor<3x4xcomplex<f32>>
  return
}

// -----
// fft (C5) result shape
func.func @fft_c5(%a: tensor<3x8xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x8xcomplex<f32>> but its operands and attributes give tensor<3x5xcomplex<f32>>}}
  %0 = "stablehlo.fft"(%a) {fft_type = #stablehlo<fft_type RFFT>, fft_length = array<i64: 8>} : (tensor<3x8xf32>) -> tensor<3x8xcomplex<f32>>
  return
}

// -----
// dot_general (C2) contracting dims of equal count
func.func @dot_general_c2(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects lhs_contracting_dimensions and rhs_contracting_dimensions to have the same size, got 1 and 2}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0, 1]>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3xf32>
  return
}

// -----
// dot_general (C4) rhs dims unique
func.func @dot_general_c4(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{expects rhs_batching_dimensions + rhs_contracting_dimensions to be unique, got [0, 0]}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4x5xf32>
  return
}

// -----
// dot_general (C5) lhs batching dims in range
func.func @dot_general_c5(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+1 {{expects lhs_batching_dimensions to be in [0, 3), got 3}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [3], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----
// dot_general (C8) rhs contracting dims in range
func.func @dot_general_c8(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects rhs_contracting_dimensions to be in [0, 2), got -1}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [-1]>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C9) batching dim sizes
func.func @dot_general_c9(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{expects batching dimensions to have the same sizes, got lhs dimension 0 of tensor<2x3x4xf32> and rhs}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<3x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----
// dot_general (C10) contracting dim sizes
func.func @dot_general_c10(%a: tensor<3x4xf32>, %b: tensor<5x5xf32>) {
  // expected-error @+1 {{expects contracting dimensions to have the same sizes, got lhs dimension 1 of tensor<3x4xf32> and rhs}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4xf32>, tensor<5x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C11) two precision_config values
func.func @dot_general_c11(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects precision_config to have 0 or 2 elements, got 1}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>]} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C13) element types
func.func @dot_general_c13(%a: tensor<3x4xf32>, %b: tensor<4x5xf64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same element type, got tensor<3x4xf32> and tensor<4x5xf64>}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4xf32>, tensor<4x5xf64>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C14) quantized lhs with quantized rhs and result
func.func @dot_general_c14(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects rhs to be quantized when lhs is, got tensor<4x5xf32>}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x5xf32>) -> tensor<3x5x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dot_general (C15) rhs zero points 0
func.func @dot_general_c15(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<4x5x!quant.uniform<i8:f32, 0.5:3>>) {
  // expected-error @+1 {{expects the zero points of rhs to be 0, got tensor<4x5x!quant.uniform<i8:f32, 5.000000e-01:3>>}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x5x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<3x5x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dot_general (C16) rhs quantization dimension not contracted
func.func @dot_general_c16(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<4x5x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0, 0.5:0}>>) {
  // expected-error @+1 {{expects rhs not to be quantized along a contracting dimension, got tensor<4x5x!quant.uniform<i8:f32:0,}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x5x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0, 0.5:0}>>) -> tensor<3x5x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dot_general (C17) storage types
func.func @dot_general_c17(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<4x5x!quant.uniform<i16:f32, 0.5:0>>) {
  // expected-error @+1 {{expects lhs and rhs to have the same storage and expressed types, got tensor<3x4x!quant.uniform<i8:f32,}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x5x!quant.uniform<i16:f32, 0.5:0>>) -> tensor<3x5x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dot_general (C18) expressed types
func.func @dot_general_c18(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<4x5x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects the result to have lhs's expressed type f32, got !quant.uniform<i8:f16, 5.000000e-01>}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x5x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<3x5x!quant.uniform<i8:f16, 0.5:0>>
  return
}

// -----
// dot_general (C19) per-tensor rhs gives a per-tensor result
func.func @dot_general_c19(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<4x5x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects a per-tensor quantized result when rhs is per-tensor quantized, got !quant.uniform<i8:f32:1,}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4x!quant.uniform<i8:f32, 0.5:0>>, tensor<4x5x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<3x5x!quant.uniform<i8:f32:1, {0.5:0, 0.5:0, 0.5:0, 0.5:0, 0.5:0}>>
  return
}

// -----
// dot_general (C20) hybrid: lhs is the rhs's expressed type
func.func @dot_general_c20(%a: tensor<3x4xf16>, %b: tensor<4x5x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects lhs element type to be the expressed type of rhs, got tensor<3x4xf16> and}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4xf16>, tensor<4x5x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<3x5xf16>
  return
}

// -----
// dot_general (C21) an algorithm needs DEFAULT precision
func.func @dot_general_c21(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects precision_config to be DEFAULT when an algorithm is given, got HIGHEST}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>], algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C22) positive lhs_component_count
func.func @dot_general_c22(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects the algorithm's lhs_component_count to be positive, got 0}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 0, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C23) positive rhs_component_count
func.func @dot_general_c23(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects the algorithm's rhs_component_count to be positive, got 0}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 0, num_primitive_operations = 1, allow_imprecise_accumulation = false>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// dot_general (C24) positive num_primitive_operations
func.func @dot_general_c24(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{expects the algorithm's num_primitive_operations to be positive, got 0}}
  %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, algorithm = #stablehlo.dot_algorithm<lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 0, allow_imprecise_accumulation = false>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return
}

// -----
// convolution (C1) rank(lhs) = rank(rhs)
func.func @convolution_c1(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1xf32>) {
  // expected-error @+1 {{expects lhs and rhs to have the same rank, got tensor<1x4x4x1xf32> and tensor<3x3x1xf32>}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C1) rank(lhs) = rank(rhs)
func.func @dynamic_conv_c1(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same rank, got tensor<1x4x4x1xf32> and tensor<3x3x1xf32>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C2) size of window_strides
func.func @convolution_c2(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects window_strides to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C2) size of window_strides
func.func @dynamic_conv_c2(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects window_strides to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C3) positive window_strides
func.func @convolution_c3(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects window_strides to be positive, got [0, 1]}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 0, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C3) positive window_strides
func.func @dynamic_conv_c3(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects window_strides to be positive, got [0, 1]}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 0, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C4) padding shape
func.func @convolution_c4(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects padding to have shape [2, 2], got [3, 2]}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<3x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C4) padding shape
func.func @dynamic_conv_c4(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<3x2xi64>) {
  // expected-error @+1 {{expects padding to have shape [2, 2], got tensor<3x2xi64>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<3x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C5) size of lhs_dilation
func.func @convolution_c5(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects lhs_dilation to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C5) size of lhs_dilation
func.func @dynamic_conv_c5(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects lhs_dilation to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C6) positive lhs_dilation
func.func @convolution_c6(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects lhs_dilation to be positive, got [0, 1]}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 0, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C6) positive lhs_dilation
func.func @dynamic_conv_c6(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects lhs_dilation to be positive, got [0, 1]}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 0, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C7) size of rhs_dilation
func.func @convolution_c7(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects rhs_dilation to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C7) size of rhs_dilation
func.func @dynamic_conv_c7(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects rhs_dilation to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C8) positive rhs_dilation
func.func @convolution_c8(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects rhs_dilation to be positive, got [1, 0]}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 0>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C8) positive rhs_dilation
func.func @dynamic_conv_c8(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects rhs_dilation to be positive, got [1, 0]}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 0>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C9) size of window_reversal
func.func @convolution_c9(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects window_reversal to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C9) size of window_reversal
func.func @dynamic_conv_c9(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects window_reversal to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C10) batch divisible by batch_group_count
func.func @convolution_c10(%a: tensor<3x4x4x1xf32>, %b: tensor<3x3x1x2xf32>) {
  // expected-error @+1 {{expects the input batch size 3 to be divisible by batch_group_count 2}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<3x4x4x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// dynamic_conv (C10) batch divisible by batch_group_count
func.func @dynamic_conv_c10(%a: tensor<3x4x4x1xf32>, %b: tensor<3x3x1x2xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects the input batch size 3 to be divisible by batch_group_count 2}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<3x4x4x1xf32>, tensor<3x3x1x2xf32>, tensor<2x2xi64>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// convolution (C11) input features divisible by feature_group_count
func.func @convolution_c11(%a: tensor<1x4x4x3xf32>, %b: tensor<3x3x1x2xf32>) {
  // expected-error @+1 {{expects the input feature size 3 to be divisible by feature_group_count 2}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x3xf32>, tensor<3x3x1x2xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// dynamic_conv (C11) input features divisible by feature_group_count
func.func @dynamic_conv_c11(%a: tensor<1x4x4x3xf32>, %b: tensor<3x3x1x2xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects the input feature size 3 to be divisible by feature_group_count 2}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x3xf32>, tensor<3x3x1x2xf32>, tensor<2x2xi64>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// convolution (C12) size of input_spatial_dimensions
func.func @convolution_c12(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects input_spatial_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C12) size of input_spatial_dimensions
func.func @dynamic_conv_c12(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects input_spatial_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C13) unique input dimensions
func.func @convolution_c13(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{spatial dimensions must be 0..1, each once}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C13) unique input dimensions
func.func @dynamic_conv_c13(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{spatial dimensions must be 0..1, each once}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 0, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C14) kernel input features
func.func @convolution_c14(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x2x1xf32>) {
  // expected-error @+1 {{expects the kernel input feature size 2 to be the input feature size 1 / feature_group_count 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x2x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C14) kernel input features
func.func @dynamic_conv_c14(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x2x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects the kernel input feature size 2 to be the input feature size 1 / feature_group_count 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x2x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C15) kernel output features divisible by batch_group_count
func.func @convolution_c15(%a: tensor<2x4x4x1xf32>, %b: tensor<3x3x1x3xf32>) {
  // expected-error @+1 {{expects the kernel output feature size 3 to be divisible by batch_group_count and feature_group_count}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x1xf32>, tensor<3x3x1x3xf32>) -> tensor<1x2x2x3xf32>
  return
}

// -----
// dynamic_conv (C15) kernel output features divisible by batch_group_count
func.func @dynamic_conv_c15(%a: tensor<2x4x4x1xf32>, %b: tensor<3x3x1x3xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects the kernel output feature size 3 to be divisible by batch_group_count and feature_group_count}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x1xf32>, tensor<3x3x1x3xf32>, tensor<2x2xi64>) -> tensor<1x2x2x3xf32>
  return
}

// -----
// convolution (C16) kernel output features divisible by feature_group_count
func.func @convolution_c16(%a: tensor<1x4x4x2xf32>, %b: tensor<3x3x1x3xf32>) {
  // expected-error @+1 {{expects the kernel output feature size 3 to be divisible by batch_group_count and feature_group_count}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x2xf32>, tensor<3x3x1x3xf32>) -> tensor<1x2x2x3xf32>
  return
}

// -----
// dynamic_conv (C16) kernel output features divisible by feature_group_count
func.func @dynamic_conv_c16(%a: tensor<1x4x4x2xf32>, %b: tensor<3x3x1x3xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects the kernel output feature size 3 to be divisible by batch_group_count and feature_group_count}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x2xf32>, tensor<3x3x1x3xf32>, tensor<2x2xi64>) -> tensor<1x2x2x3xf32>
  return
}

// -----
// convolution (C17) size of kernel_spatial_dimensions
func.func @convolution_c17(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects kernel_spatial_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C17) size of kernel_spatial_dimensions
func.func @dynamic_conv_c17(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects kernel_spatial_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C18) unique kernel dimensions
func.func @convolution_c18(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{spatial dimensions must be 0..1, each once}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 0, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C18) unique kernel dimensions
func.func @dynamic_conv_c18(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{spatial dimensions must be 0..1, each once}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 0, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C19) size of output_spatial_dimensions
func.func @convolution_c19(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects output_spatial_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C19) size of output_spatial_dimensions
func.func @dynamic_conv_c19(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects output_spatial_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C20) unique output dimensions
func.func @convolution_c20(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{spatial dimensions must be 0..1, each once}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C20) unique output dimensions
func.func @dynamic_conv_c20(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{spatial dimensions must be 0..1, each once}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 0, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C21) positive feature_group_count
func.func @convolution_c21(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects feature_group_count > 0, got 0}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 0 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C21) positive feature_group_count
func.func @dynamic_conv_c21(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects feature_group_count > 0, got 0}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 0 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C22) positive batch_group_count
func.func @convolution_c22(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects batch_group_count > 0, got 0}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 0 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C22) positive batch_group_count
func.func @dynamic_conv_c22(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects batch_group_count > 0, got 0}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 0 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C23) one of the group counts is 1
func.func @convolution_c23(%a: tensor<2x4x4x2xf32>, %b: tensor<3x3x1x4xf32>) {
  // expected-error @+1 {{expects feature_group_count or batch_group_count to be 1, got 2 and 2}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x2xf32>, tensor<3x3x1x4xf32>) -> tensor<1x2x2x4xf32>
  return
}

// -----
// dynamic_conv (C23) one of the group counts is 1
func.func @dynamic_conv_c23(%a: tensor<2x4x4x2xf32>, %b: tensor<3x3x1x4xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects feature_group_count or batch_group_count to be 1, got 2 and 2}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, batch_group_count = 2 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x2xf32>, tensor<3x3x1x4xf32>, tensor<2x2xi64>) -> tensor<1x2x2x4xf32>
  return
}

// -----
// convolution (C24) two precision_config values
func.func @convolution_c24(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects precision_config to have 0 or 2 elements, got 1}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C24) two precision_config values
func.func @dynamic_conv_c24(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects precision_config to have 0 or 2 elements, got 1}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C25) result shape
func.func @convolution_c25(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{result #0 has type tensor<1x2x2x2xf32> but its operands and attributes give tensor<1x2x2x1xf32>}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// dynamic_conv (C25) result shape
func.func @dynamic_conv_c25(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects a result of shape [1, 2, 2, 1] in its batch and feature dimensions, got tensor<1x2x2x2xf32>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x2xf32>
  return
}

// -----
// convolution (C26) result rank
func.func @convolution_c26(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{result #0 has type tensor<1x2x2xf32> but its operands and attributes give tensor<1x2x2x1xf32>}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2xf32>
  return
}

// -----
// dynamic_conv (C26) result rank
func.func @dynamic_conv_c26(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects a result of shape [1, 2, 2, 1] in its batch and feature dimensions, got tensor<1x2x2xf32>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2xf32>
  return
}

// -----
// convolution (C27) element types
func.func @convolution_c27(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same element type, got tensor<1x4x4x1xf32> and tensor<3x3x1x1xf64>}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// dynamic_conv (C27) element types
func.func @dynamic_conv_c27(%a: tensor<1x4x4x1xf32>, %b: tensor<3x3x1x1xf64>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same element type, got tensor<1x4x4x1xf32> and tensor<3x3x1x1xf64>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf64>, tensor<2x2xi64>) -> tensor<1x2x2x1xf32>
  return
}

// -----
// convolution (C28) quantized lhs with quantized rhs and result
func.func @convolution_c28(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1xf32>) {
  // expected-error @+1 {{expects rhs to be quantized when lhs is, got tensor<3x3x1x1xf32>}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dynamic_conv (C28) quantized lhs with quantized rhs and result
func.func @dynamic_conv_c28(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1xf32>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects rhs to be quantized when lhs is, got tensor<3x3x1x1xf32>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// convolution (C29) rhs quantized along the kernel output features
func.func @convolution_c29(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>) {
  // expected-error @+1 {{expects rhs to be quantized along kernel_output_feature_dimension 3, got}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dynamic_conv (C29) rhs quantized along the kernel output features
func.func @dynamic_conv_c29(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects rhs to be quantized along kernel_output_feature_dimension 3, got}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0, 0.5:0}>>, tensor<2x2xi64>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// convolution (C30) result quantized along the output features
func.func @convolution_c30(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects a per-tensor quantized result when rhs is per-tensor quantized, got !quant.uniform<i8:f32:1,}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32:1, {0.5:0, 0.5:0}>>
  return
}

// -----
// dynamic_conv (C30) result quantized along the output features
func.func @dynamic_conv_c30(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects a per-tensor quantized result when rhs is per-tensor quantized, got !quant.uniform<i8:f32:1,}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x2xi64>) -> tensor<1x2x2x1x!quant.uniform<i8:f32:1, {0.5:0, 0.5:0}>>
  return
}

// -----
// convolution (C31) storage types
func.func @convolution_c31(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i16:f32, 0.5:0>>) {
  // expected-error @+1 {{expects lhs and rhs to have the same storage and expressed types, got tensor<1x4x4x1x!quant.uniform<i8:f32,}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i16:f32, 0.5:0>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// dynamic_conv (C31) storage types
func.func @dynamic_conv_c31(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i16:f32, 0.5:0>>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same storage and expressed types, got tensor<1x4x4x1x!quant.uniform<i8:f32,}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i16:f32, 0.5:0>>, tensor<2x2xi64>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 0.5:0>>
  return
}

// -----
// convolution (C32) expressed types
func.func @convolution_c32(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects the result to have lhs's expressed type f32, got !quant.uniform<i8:f16, 5.000000e-01>}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<1x2x2x1x!quant.uniform<i8:f16, 0.5:0>>
  return
}

// -----
// dynamic_conv (C32) expressed types
func.func @dynamic_conv_c32(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects the result to have lhs's expressed type f32, got !quant.uniform<i8:f16, 5.000000e-01>}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x2xi64>) -> tensor<1x2x2x1x!quant.uniform<i8:f16, 0.5:0>>
  return
}

// -----
// convolution (C33) per-tensor rhs gives a per-tensor result
func.func @convolution_c33(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects a per-tensor quantized result when rhs is per-tensor quantized, got !quant.uniform<i8:f32:3,}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32:3, {0.5:0}>>
  return
}

// -----
// dynamic_conv (C33) per-tensor rhs gives a per-tensor result
func.func @dynamic_conv_c33(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects a per-tensor quantized result when rhs is per-tensor quantized, got !quant.uniform<i8:f32:3,}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x2xi64>) -> tensor<1x2x2x1x!quant.uniform<i8:f32:3, {0.5:0}>>
  return
}

// -----
// convolution (C34) hybrid: lhs is the rhs's expressed type
func.func @convolution_c34(%a: tensor<1x4x4x1xf16>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) {
  // expected-error @+1 {{expects lhs element type to be the expressed type of rhs, got tensor<1x4x4x1xf16> and}}
  %0 = "stablehlo.convolution"(%a, %b) {padding = dense<0> : tensor<2x2xi64>, window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf16>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>) -> tensor<1x2x2x1xf16>
  return
}

// -----
// dynamic_conv (C34) hybrid: lhs is the rhs's expressed type
func.func @dynamic_conv_c34(%a: tensor<1x4x4x1xf16>, %b: tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, %p: tensor<2x2xi64>) {
  // expected-error @+1 {{expects lhs element type to be the expressed type of rhs, got tensor<1x4x4x1xf16> and}}
  %0 = "stablehlo.dynamic_conv"(%a, %b, %p) {window_strides = array<i64: 1, 1>, lhs_dilation = array<i64: 1, 1>, rhs_dilation = array<i64: 1, 1>, window_reversal = array<i1: false, false>, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xf16>, tensor<3x3x1x1x!quant.uniform<i8:f32, 0.5:0>>, tensor<2x2xi64>) -> tensor<1x2x2x1xf16>
  return
}

// -----
// gather (C1) operand rank
func.func @gather_c1(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects rank(operand) = size(offset_dims) + size(collapsed_slice_dims) + size(operand_batching_dims), got 3}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
  return
}

// -----
// dynamic_gather (C1) operand rank
func.func @dynamic_gather_c1(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects rank(operand) = size(offset_dims) + size(collapsed_slice_dims) + size(operand_batching_dims), got 3}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2xf32>
  return
}

// -----
// gather (C2) index_vector_dim in range
func.func @gather_c2(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects index_vector_dim to be in [0, 3], got 4}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 4>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C2) index_vector_dim in range
func.func @dynamic_gather_c2(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects index_vector_dim to be in [0, 3], got 4}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 4>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C3) size of start_index_map
func.func @gather_c3(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects start_index_map to have 2 elements, got 1}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C3) size of start_index_map
func.func @dynamic_gather_c3(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects start_index_map to have 2 elements, got 1}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C4) offset_dims sorted
func.func @gather_c4(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects offset_dims to be sorted, got [3, 2]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 2], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C4) offset_dims sorted
func.func @dynamic_gather_c4(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects offset_dims to be sorted, got [3, 2]}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 2], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C5) offset_dims in range
func.func @gather_c5(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects offset_dims to be in [0, 4), got 4}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 4], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C5) offset_dims in range
func.func @dynamic_gather_c5(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects offset_dims to be in [0, 4), got 4}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 4], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C6) unique collapsed and batching dims
func.func @gather_c6(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects collapsed_slice_dims + operand_batching_dims to be unique, got [0, 0]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [0], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C7) collapsed_slice_dims sorted
func.func @gather_c7(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects collapsed_slice_dims to be sorted, got [1, 0]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1, 0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2xf32>
  return
}

// -----
// dynamic_gather (C6) collapsed_slice_dims sorted
func.func @dynamic_gather_c6(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 1, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects collapsed_slice_dims to be sorted, got [1, 0]}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1, 0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2xf32>
  return
}

// -----
// gather (C8) collapsed_slice_dims in range
func.func @gather_c8(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects collapsed_slice_dims to be in [0, 3), got 3}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [3], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C7) collapsed_slice_dims in range
func.func @dynamic_gather_c7(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects collapsed_slice_dims to be in [0, 3), got 3}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [3], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C9) collapsed slice sizes at most 1
func.func @gather_c9(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects slice_sizes of collapsed and batching dimensions to be at most 1, got 2 in dimension 0}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 2, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C10) operand_batching_dims sorted
func.func @gather_c10(%a: tensor<2x2x4xf32>, %i: tensor<2x2x1xi64>) {
  // expected-error @+1 {{expects operand_batching_dims to be sorted, got [1, 0]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [], operand_batching_dims = [1, 0], start_indices_batching_dims = [0, 1], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 3>} : (tensor<2x2x4xf32>, tensor<2x2x1xi64>) -> tensor<2x2x3xf32>
  return
}

// -----
// gather (C11) operand_batching_dims in range
func.func @gather_c11(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects operand_batching_dims to be in [0, 4), got 4}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [4], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C12) batching slice sizes at most 1
func.func @gather_c12(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects slice_sizes of collapsed and batching dimensions to be at most 1, got 2 in dimension 0}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 2, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C13) unique start_indices_batching_dims
func.func @gather_c13(%a: tensor<2x2x4xf32>, %i: tensor<2x2x1xi64>) {
  // expected-error @+1 {{expects start_indices_batching_dims to be unique, got [0, 0]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [], operand_batching_dims = [0, 1], start_indices_batching_dims = [0, 0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 3>} : (tensor<2x2x4xf32>, tensor<2x2x1xi64>) -> tensor<2x2x3xf32>
  return
}

// -----
// gather (C14) start_indices_batching_dims in range
func.func @gather_c14(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects start_indices_batching_dims to be in [0, 4), got 5}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [5], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C15) index_vector_dim not a batching dim
func.func @gather_c15(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects index_vector_dim not to be in start_indices_batching_dims}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [3], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C16) as many batching dims on both sides
func.func @gather_c16(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects operand_batching_dims and start_indices_batching_dims to have the same size, got 1 and 0}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C17) batching dim sizes
func.func @gather_c17(%a: tensor<3x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects the batching dimensions of operand and indices to have the same sizes}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<3x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C18) unique start_index_map and batching dims
func.func @gather_c18(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  // expected-error @+1 {{expects start_index_map + operand_batching_dims to be unique, got [0, 1, 0]}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [0, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C9) unique start_index_map and batching dims
func.func @dynamic_gather_c9(%a: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 1, 2, 2]> : tensor<4xi64>
  // expected-error @+1 {{expects start_index_map + operand_batching_dims to be unique, got [0, 1, 0]}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [0, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<4xi64>) -> tensor<2x2x3x2x2xf32>
  return
}

// -----
// gather (C19) start_index_map in range
func.func @gather_c19(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects start_index_map to be in [0, 3), got 3}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 3], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C10) start_index_map in range
func.func @dynamic_gather_c10(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects start_index_map to be in [0, 3), got 3}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 3], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C20) size of slice_sizes
func.func @gather_c20(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects slice_sizes to have 3 elements, got 2}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// dynamic_gather (C11) size of slice_sizes
func.func @dynamic_gather_c11(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  // expected-error @+1 {{expects slice_sizes to have 3 elements, got 2}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2xi64>) -> tensor<2x3x2x2xf32>
  return
}

// -----
// gather (C21) slice sizes within the operand
func.func @gather_c21(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{expects 0 <= slice_sizes <= shape(operand), got [1, 5, 2] for tensor<3x4x2xf32>}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 5, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x5x2xf32>
  return
}

// -----
// gather (C22) result shape
func.func @gather_c22(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<2x3x2x3xf32> but its operands and attributes give tensor<2x3x2x2xf32>}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x3xf32>
  return
}

// -----
// gather (C23) element type
func.func @gather_c23(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  // expected-error @+1 {{result #0 has type tensor<2x3x2x2xf64> but its operands and attributes give tensor<2x3x2x2xf32>}}
  %0 = "stablehlo.gather"(%a, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 2, 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xf64>
  return
}

// -----
// dynamic_gather (C14) element type
func.func @dynamic_gather_c14(%a: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>) {
  %s = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi64>
  // expected-error @+1 {{expects the result to have the element type of operand, got tensor<2x3x2x2xf64>}}
  %0 = "stablehlo.dynamic_gather"(%a, %i, %s) {dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], operand_batching_dims = [], start_indices_batching_dims = [], start_index_map = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xf64>
  return
}

// -----
// scatter (C1) inputs of one shape
func.func @scatter_c1(%in0: tensor<3x4x2xf32>, %in1: tensor<3x4x3xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>, %up1: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects all inputs to have the same shape, got tensor<3x4x2xf32> and tensor<3x4x3xf32>}}
  %0:2 = "stablehlo.scatter"(%in0, %in1, %i, %up0, %up1) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    "stablehlo.return"(%x0, %x1) : (tensor<f32>, tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<3x4x3xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x3xf32>)
  return
}

// -----
// scatter (C2) input rank
func.func @scatter_c2(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2xf32>) {
  // expected-error @+1 {{expects rank(operand) = size(update_window_dims) + size(inserted_window_dims) + size(input_batching_dims),}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C3) updates of one shape
func.func @scatter_c3(%in0: tensor<3x4x2xf32>, %in1: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>, %up1: tensor<2x3x2x1xf32>) {
  // expected-error @+1 {{expects all updates to have the same shape, got tensor<2x3x2x2xf32> and tensor<2x3x2x1xf32>}}
  %0:2 = "stablehlo.scatter"(%in0, %in1, %i, %up0, %up1) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    "stablehlo.return"(%x0, %x1) : (tensor<f32>, tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>, tensor<2x3x2x1xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C4) update shape
func.func @scatter_c4(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x5x2xf32>) {
  // expected-error @+1 {{expects dimension 2 of updates tensor<2x3x5x2xf32> to match scatter_indices or fit in the input window}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x5x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C5) as many updates as inputs
func.func @scatter_c5(%in0: tensor<3x4x2xf32>, %in1: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects N inputs, scatter_indices and N updates with N > 0, got 4 operands}}
  %0:2 = "stablehlo.scatter"(%in0, %in1, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    "stablehlo.return"(%x0, %x1) : (tensor<f32>, tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>, tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C6) update element types
func.func @scatter_c6(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf64>) {
  // expected-error @+1 {{expects updates and inputs to have the same element types, got tensor<2x3x2x2xf64> and tensor<3x4x2xf32>}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf64>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C7) update_window_dims sorted
func.func @scatter_c7(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects update_window_dims to be sorted, got [3, 2]}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 2], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C8) update_window_dims in range
func.func @scatter_c8(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects update_window_dims to be in [0, 4), got 4}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 4], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C9) unique inserted and batching dims
func.func @scatter_c9(%in0: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects inserted_window_dims + input_batching_dims to be unique, got [0, 0]}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [0], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<2x3x4x2xf32>)
  return
}

// -----
// scatter (C10) inserted_window_dims sorted
func.func @scatter_c10(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2xf32>) {
  // expected-error @+1 {{expects inserted_window_dims to be sorted, got [1, 0]}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1, 0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C11) inserted_window_dims in range
func.func @scatter_c11(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects inserted_window_dims to be in [0, 3), got 3}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [3], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C12) input_batching_dims sorted
func.func @scatter_c12(%in0: tensor<2x2x4xf32>, %i: tensor<2x2x1xi64>, %up0: tensor<2x2x3xf32>) {
  // expected-error @+1 {{expects input_batching_dims to be sorted, got [1, 0]}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [], input_batching_dims = [1, 0], scatter_indices_batching_dims = [0, 1], scatter_dims_to_operand_dims = [2], index_vector_dim = 2>} : (tensor<2x2x4xf32>, tensor<2x2x1xi64>, tensor<2x2x3xf32>) -> (tensor<2x2x4xf32>)
  return
}

// -----
// scatter (C13) input_batching_dims in range
func.func @scatter_c13(%in0: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects input_batching_dims to be in [0, 4), got 4}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [4], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<2x3x4x2xf32>)
  return
}

// -----
// scatter (C14) unique scatter_indices_batching_dims
func.func @scatter_c14(%in0: tensor<2x2x4xf32>, %i: tensor<2x2x1xi64>, %up0: tensor<2x2x3xf32>) {
  // expected-error @+1 {{expects scatter_indices_batching_dims to be unique, got [0, 0]}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [], input_batching_dims = [0, 1], scatter_indices_batching_dims = [0, 0], scatter_dims_to_operand_dims = [2], index_vector_dim = 2>} : (tensor<2x2x4xf32>, tensor<2x2x1xi64>, tensor<2x2x3xf32>) -> (tensor<2x2x4xf32>)
  return
}

// -----
// scatter (C15) scatter_indices_batching_dims in range
func.func @scatter_c15(%in0: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects scatter_indices_batching_dims to be in [0, 4), got 5}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [5], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<2x3x4x2xf32>)
  return
}

// -----
// scatter (C16) index_vector_dim not a batching dim
func.func @scatter_c16(%in0: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects index_vector_dim not to be in scatter_indices_batching_dims}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [3], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<2x3x4x2xf32>)
  return
}

// -----
// scatter (C17) as many batching dims on both sides
func.func @scatter_c17(%in0: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects input_batching_dims and scatter_indices_batching_dims to have the same size, got 1 and 0}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<2x3x4x2xf32>)
  return
}

// -----
// scatter (C18) batching dim sizes
func.func @scatter_c18(%in0: tensor<3x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects the batching dimensions of operand and indices to have the same sizes}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], index_vector_dim = 3>} : (tensor<3x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<3x3x4x2xf32>)
  return
}

// -----
// scatter (C19) size of scatter_dims_to_operand_dims
func.func @scatter_c19(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects scatter_dims_to_operand_dims to have 2 elements, got 1}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C20) unique scatter_dims_to_operand_dims and batching dims
func.func @scatter_c20(%in0: tensor<2x3x4x2xf32>, %i: tensor<2x2x3x2xi64>, %up0: tensor<2x2x3x2x2xf32>) {
  // expected-error @+1 {{expects scatter_dims_to_operand_dims + input_batching_dims to be unique, got [0, 1, 0]}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 3>} : (tensor<2x3x4x2xf32>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xf32>) -> (tensor<2x3x4x2xf32>)
  return
}

// -----
// scatter (C21) scatter_dims_to_operand_dims in range
func.func @scatter_c21(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects scatter_dims_to_operand_dims to be in [0, 3), got 3}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 3], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C22) index_vector_dim in range
func.func @scatter_c22(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects index_vector_dim to be in [0, 3], got 4}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 4>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C23) update computation type
func.func @scatter_c23(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{expects update_computation to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<i32>, %y0: tensor<i32>):
    "stablehlo.return"(%x0) : (tensor<i32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf32>)
  return
}

// -----
// scatter (C24) result shapes
func.func @scatter_c24(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x4x3xf32> but its operands and attributes give tensor<3x4x2xf32>}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x3xf32>)
  return
}

// -----
// scatter (C25) result element types
func.func @scatter_c25(%in0: tensor<3x4x2xf32>, %i: tensor<2x3x2xi64>, %up0: tensor<2x3x2x2xf32>) {
  // expected-error @+1 {{result #0 has type tensor<3x4x2xf64> but its operands and attributes give tensor<3x4x2xf32>}}
  %0 = "stablehlo.scatter"(%in0, %i, %up0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 3], inserted_window_dims = [0], input_batching_dims = [], scatter_indices_batching_dims = [], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>} : (tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xf64>)
  return
}

// -----
// reduce (C1) inputs of one shape
func.func @reduce_c1(%in0: tensor<2x3xf32>, %in1: tensor<2x4xf32>, %init0: tensor<f32>, %init1: tensor<f32>) {
  // expected-error @+1 {{expects all inputs to have the same shape, got tensor<2x3xf32> and tensor<2x4xf32>}}
  %0:2 = "stablehlo.reduce"(%in0, %in1, %init0, %init1) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    "stablehlo.return"(%x0, %x1) : (tensor<f32>, tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<2x4xf32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----
// reduce (C3) as many init values as inputs
func.func @reduce_c3(%in0: tensor<2x3xf32>, %init0: tensor<f32>, %init1: tensor<f32>) {
  // expected-error @+1 {{expects a positive, equal number of inputs and init_values, got 3 operands}}
  %0 = "stablehlo.reduce"(%in0, %init0, %init1) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2xf32>)
  return
}

// -----
// reduce (C7) result shape
func.func @reduce_c7(%in0: tensor<2x3xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<3xf32> but its operands and attributes give tensor<2xf32>}}
  %0 = "stablehlo.reduce"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> (tensor<3xf32>)
  return
}

// -----
// reduce (C8) result element type is the body's
func.func @reduce_c8(%in0: tensor<2x3xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<2xf32> but its operands and attributes give tensor<2xf64>}}
  %0 = "stablehlo.reduce"(%in0, %init0) ({
  ^bb0(%x0: tensor<f64>, %y0: tensor<f64>):
    "stablehlo.return"(%x0) : (tensor<f64>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> (tensor<2xf32>)
  return
}

// -----
// reduce_window (C1) as many init values as inputs
func.func @reduce_window_c1(%in0: tensor<3x2xf32>, %init0: tensor<f32>, %init1: tensor<f32>) {
  // expected-error @+1 {{expects a positive, equal number of inputs and init_values, got 3 operands}}
  %0 = "stablehlo.reduce_window"(%in0, %init0, %init1) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C2) inputs of one shape
func.func @reduce_window_c2(%in0: tensor<3x2xf32>, %in1: tensor<3x3xf32>, %init0: tensor<f32>, %init1: tensor<f32>) {
  // expected-error @+1 {{expects all inputs to have the same shape, got tensor<3x2xf32> and tensor<3x3xf32>}}
  %0:2 = "stablehlo.reduce_window"(%in0, %in1, %init0, %init1) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    "stablehlo.return"(%x0, %x1) : (tensor<f32>, tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<3x3xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C3) init value element types
func.func @reduce_window_c3(%in0: tensor<3x2xf32>, %init0: tensor<f64>) {
  // expected-error @+1 {{expects inputs and init_values to have the same element types, got tensor<3x2xf32> and tensor<f64>}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f64>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C6) size of window_strides
func.func @reduce_window_c6(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{expects window_strides to have 2 elements, got 1}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C8) size of base_dilations
func.func @reduce_window_c8(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{expects base_dilations to have 2 elements, got 1}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C9) positive base_dilations
func.func @reduce_window_c9(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{expects base_dilations to be positive, got [0, 1]}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 0, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C10) size of window_dilations
func.func @reduce_window_c10(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{expects window_dilations to have 2 elements, got 1}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C11) positive window_dilations
func.func @reduce_window_c11(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{expects window_dilations to be positive, got [1, 0]}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 0>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C13) body type
func.func @reduce_window_c13(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{expects body to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1 inputs, got}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<i32>, %y0: tensor<i32>):
    "stablehlo.return"(%x0) : (tensor<i32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// reduce_window (C14) results of one shape
func.func @reduce_window_c14(%in0: tensor<3x2xf32>, %in1: tensor<3x2xf32>, %init0: tensor<f32>, %init1: tensor<f32>) {
  // expected-error @+1 {{result #1 has type tensor<2x1xf32> but its operands and attributes give tensor<2x2xf32>}}
  %0:2 = "stablehlo.reduce_window"(%in0, %in1, %init0, %init1) ({
  ^bb0(%x0: tensor<f32>, %x1: tensor<f32>, %y0: tensor<f32>, %y1: tensor<f32>):
    "stablehlo.return"(%x0, %x1) : (tensor<f32>, tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<3x2xf32>, tensor<f32>, tensor<f32>) -> (tensor<2x2xf32>, tensor<2x1xf32>)
  return
}

// -----
// reduce_window (C15) result shape
func.func @reduce_window_c15(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<3x2xf32> but its operands and attributes give tensor<2x2xf32>}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f32>, %y0: tensor<f32>):
    "stablehlo.return"(%x0) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<3x2xf32>)
  return
}

// -----
// reduce_window (C16) result element type is the body's
func.func @reduce_window_c16(%in0: tensor<3x2xf32>, %init0: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<2x2xf32> but its operands and attributes give tensor<2x2xf64>}}
  %0 = "stablehlo.reduce_window"(%in0, %init0) ({
  ^bb0(%x0: tensor<f64>, %y0: tensor<f64>):
    "stablehlo.return"(%x0) : (tensor<f64>) -> ()
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 1, 1>, base_dilations = array<i64: 1, 1>, window_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>} : (tensor<3x2xf32>, tensor<f32>) -> (tensor<2x2xf32>)
  return
}

// -----
// select_and_scatter (C1) source element type
func.func @select_and_scatter_c1(%a: tensor<4x2xf32>, %s: tensor<2x2xf64>, %v: tensor<f32>) {
  // expected-error @+1 {{expects operand and source to have the same element type, got tensor<4x2xf32> and tensor<2x2xf64>}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf64>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C3) init value element type
func.func @select_and_scatter_c3(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f64>) {
  // expected-error @+1 {{expects init_value to have the element type of operand, got tensor<f64>}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f64>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C4) size of window_dimensions
func.func @select_and_scatter_c4(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects window_dimensions to have 2 elements, got 1}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C5) positive window_dimensions
func.func @select_and_scatter_c5(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects window_dimensions to be positive, got [0, 1]}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 0, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C6) size of window_strides
func.func @select_and_scatter_c6(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects window_strides to have 2 elements, got 1}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C7) positive window_strides
func.func @select_and_scatter_c7(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects window_strides to be positive, got [0, 1]}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 0, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C8) padding shape
func.func @select_and_scatter_c8(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects padding to have shape [2, 2], got [1, 2]}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<0> : tensor<1x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C9) select type
func.func @select_and_scatter_c9(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects select to have type (tensor<f32>, tensor<f32>) -> (tensor<i1>), got (tensor<f32>, tensor<f32>) ->}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    "stablehlo.return"(%c) : (tensor<f32>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C10) scatter type
func.func @select_and_scatter_c10(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{expects scatter to have type (tensor<E0>, ..., tensor<E0>, ...) -> (tensor<E0>, ...) with 1 inputs, got}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    "stablehlo.return"(%x) : (tensor<i32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  return
}

// -----
// select_and_scatter (C11) result shape
func.func @select_and_scatter_c11(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<4x3xf32> but its operands and attributes give tensor<4x2xf32>}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x3xf32>
  return
}

// -----
// select_and_scatter (C12) result element type is the scatter's
func.func @select_and_scatter_c12(%a: tensor<4x2xf32>, %s: tensor<2x2xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{result #0 has type tensor<4x2xf64> but its operands and attributes give tensor<4x2xf32>}}
  %0 = "stablehlo.select_and_scatter"(%a, %s, %v) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = "stablehlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>, padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf64>
  return
}

// -----
// infeed (C1) at least one result
func.func @infeed_c1(%t: !stablehlo.token) {
  // expected-error @+1 {{expects the last result to be a !stablehlo.token}}
  "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> ()
  return
}

// -----
// infeed (C2) data results are tensors
func.func @infeed_c2(%t: !stablehlo.token) {
  // expected-error @+1 {{expects the results before the token to be tensors, got !stablehlo.token}}
  %0:3 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token, !stablehlo.token)
  return
}

// -----
// infeed (C3) last result is a token
func.func @infeed_c3(%t: !stablehlo.token) {
  // expected-error @+1 {{expects the last result to be a !stablehlo.token}}
  %0:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (!stablehlo.token, tensor<2xf32>)
  return
}

// -----
// recv (C1) channel type matches is_host_transfer
func.func @recv_c1(%t: !stablehlo.token) {
  // expected-error @+1 {{expects channel type HOST_TO_DEVICE when is_host_transfer is true, got DEVICE_TO_DEVICE}}
  %0:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  return
}

// -----
// recv (C2) at least one result
func.func @recv_c2(%t: !stablehlo.token) {
  // expected-error @+1 {{expects the last result to be a !stablehlo.token}}
  "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (!stablehlo.token) -> ()
  return
}

// -----
// recv (C3) data results are tensors
func.func @recv_c3(%t: !stablehlo.token) {
  // expected-error @+1 {{expects the results before the token to be tensors, got !stablehlo.token}}
  %0:3 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token, !stablehlo.token)
  return
}

// -----
// send (C1) channel type matches is_host_transfer
func.func @send_c1(%a: tensor<2xf32>, %t: !stablehlo.token) {
  // expected-error @+1 {{expects channel type DEVICE_TO_DEVICE when is_host_transfer is false, got DEVICE_TO_HOST}}
  %0 = "stablehlo.send"(%a, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = false} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  return
}

// -----
// rng (C1) element types
func.func @rng_c1(%a: tensor<f32>, %b: tensor<f64>, %s: tensor<1xi64>) {
  // expected-error @+1 {{expects a, b and result to have the same element type, got tensor<f32>, tensor<f64> and tensor<3xf32>}}
  %0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f64>, tensor<1xi64>) -> tensor<3xf32>
  return
}

// -----
// rng (C3) result rank
func.func @rng_c3(%a: tensor<f32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{expects shape to have rank(result) = 1 elements, got tensor<2xi64>}}
  %0 = "stablehlo.rng"(%a, %a, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<4xf32>
  return
}

// -----
// rng_bit_generator (C1) output_state type
func.func @rng_bit_generator_c1(%s: tensor<2xui64>) {
  // expected-error @+1 {{expects output_state to have the type of initial_state, got tensor<3xui64>}}
  %0:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<3xui64>, tensor<2x2xui64>)
  return
}

// -----
// composite (C3) input types
func.func private @decomp(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @composite_c3(%a: tensor<f64>) {
  // expected-error @+1 {{has type (tensor<f64>) -> (tensor<f32>) but decomposition @decomp has type (tensor<f32>) -> (tensor<f32>)}}
  %0 = "stablehlo.composite"(%a) {name = "my.op", decomposition = @decomp} : (tensor<f64>) -> tensor<f32>
  return
}

// -----
// composite (C4) output types
func.func private @decomp(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @composite_c4(%a: tensor<f32>) {
  // expected-error @+1 {{has type (tensor<f32>) -> (tensor<f64>) but decomposition @decomp has type (tensor<f32>) -> (tensor<f32>)}}
  %0 = "stablehlo.composite"(%a) {name = "my.op", decomposition = @decomp} : (tensor<f32>) -> tensor<f64>
  return
}

// -----
// Quantized tensor types, (C12) and (C13) of the "Types" section: a per-axis
// quantization dimension within the rank, one scale per element of it.
// expected-error @+1 {{per-axis quantized tensor type tensor<3x!quant.uniform<i8:f32:1, {5.000000e-01}>> has quantization dimension 1 but rank 1}}
func.func @per_axis_dimension_in_rank(%a: tensor<3x!quant.uniform<i8:f32:1, {0.5:0}>>) {
  return
}

// -----
// expected-error @+1 {{has 2 scales for quantization dimension 0 of size 3}}
func.func @per_axis_scale_count(%a: tensor<3x!quant.uniform<i8:f32:0, {0.5:0, 0.5:0}>>) {
  return
}
