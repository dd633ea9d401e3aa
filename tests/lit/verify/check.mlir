// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The check.* ops of interpreter tests.

func.func @checks(%a: tensor<2xf32>, %i: tensor<2xi64>) {
  "check.expect_eq"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> ()
  "check.expect_almost_eq"(%a, %a) {tolerance = 0.001 : f32} : (tensor<2xf32>, tensor<2xf32>) -> ()
  "check.expect_eq_const"(%i) {value = dense<[1, 2]> : tensor<2xi64>} : (tensor<2xi64>) -> ()
  "check.expect_almost_eq_const"(%a) {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xf32>) -> ()
  "check.expect_close"(%a, %a) {max_ulp_difference = 3 : i64, min_ulp_difference = 0 : i64} : (tensor<2xf32>, tensor<2xf32>) -> ()
  "check.expect_serialized_eq"(%a) {probe_id = "probe1", iter = 0 : i32} : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @expect_eq_types(%a: tensor<2xf32>, %b: tensor<2xf64>) {
  // expected-error @+1 {{expects lhs and rhs to have the same type, got tensor<2xf32> and tensor<2xf64>}}
  "check.expect_eq"(%a, %b) : (tensor<2xf32>, tensor<2xf64>) -> ()
  return
}

// -----

func.func @expect_almost_eq_count(%a: tensor<2xf32>) {
  // expected-error @+1 {{expects 2 operands, got 1}}
  "check.expect_almost_eq"(%a) : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @expect_eq_const_type(%a: tensor<2xi64>) {
  // expected-error @+1 {{expects value to have the operand's type tensor<2xi64>, got tensor<3xi64>}}
  "check.expect_eq_const"(%a) {value = dense<[1, 2, 3]> : tensor<3xi64>} : (tensor<2xi64>) -> ()
  return
}

// -----

func.func @expect_almost_eq_const_value(%a: tensor<2xf32>) {
  // expected-error @+1 {{requires a dense 'value' attribute}}
  "check.expect_almost_eq_const"(%a) : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @expect_close_types(%a: tensor<2xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expects lhs and rhs to have the same type}}
  "check.expect_close"(%a, %b) {max_ulp_difference = 3 : i64} : (tensor<2xf32>, tensor<3xf32>) -> ()
  return
}

// -----

func.func @expect_serialized_eq_probe(%a: tensor<2xf32>) {
  // expected-error @+1 {{requires a string attribute 'probe_id'}}
  "check.expect_serialized_eq"(%a) {iter = 0 : i32} : (tensor<2xf32>) -> ()
  return
}
