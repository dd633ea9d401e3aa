// What `kiln test` reports for passing, failing and broken tests: one line
// per public function without arguments, in file order (also with several
// jobs), then the totals; the exit status is 1 because some tests failed.
// RUN: not kiln test --jobs 3 --timeout 5 %s | FileCheck %s

// CHECK: PASS {{.*}}kiln-test-report.mlir:passes
func.func @passes() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.add %a, %a : tensor<2xi32>
  check.expect_eq_const %b, dense<[2, 4]> : tensor<2xi32>
  func.return
}

// Private helpers and functions with arguments are not tests.
func.func private @helper() -> tensor<2x2xi32> {
  %a = stablehlo.constant dense<[[1, 2], [5, 4]]> : tensor<2x2xi32>
  func.return %a : tensor<2x2xi32>
}
func.func @takes_an_argument(%arg0: tensor<i32>) {
  check.expect_eq_const %arg0, dense<0> : tensor<i32>
  func.return
}

// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:first_mismatch_is_reported: check.expect_eq_const at index [1,0]: got 5, expected 6
func.func @first_mismatch_is_reported() {
  %a = func.call @helper() : () -> tensor<2x2xi32>
  check.expect_eq_const %a, dense<[[1, 2], [6, 7]]> : tensor<2x2xi32>
  func.return
}

// A failing check stops its test; later checks do not run.
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:stops_at_first_failure: check.expect_eq at index [0]: got 1, expected 2
func.func @stops_at_first_failure() {
  %a = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %b = stablehlo.constant dense<[2.0]> : tensor<1xf32>
  check.expect_eq %a, %b : tensor<1xf32>
  check.expect_eq_const %a, dense<[3.0]> : tensor<1xf32>
  func.return
}

// Exact equality: NaN equals NaN, but -0.0 is not 0.0.
// CHECK-NEXT: PASS {{.*}}kiln-test-report.mlir:nan_equals_nan
func.func @nan_equals_nan() {
  %a = stablehlo.constant dense<[0x7FC00000, 0xFFC00001]> : tensor<2xf32>
  check.expect_eq_const %a, dense<[0x7FC00000, 0x7FC00000]> : tensor<2xf32>
  func.return
}
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:negative_zero_is_not_zero: check.expect_eq_const at index []: got -0, expected 0
func.func @negative_zero_is_not_zero() {
  %a = stablehlo.constant dense<-0.0> : tensor<f32>
  check.expect_eq_const %a, dense<0.0> : tensor<f32>
  func.return
}

// CHECK-NEXT: PASS {{.*}}kiln-test-report.mlir:almost_eq_within_tolerance
func.func @almost_eq_within_tolerance() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[1.00005, 1.99995]> : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[1.25, 2.0]> : tensor<2xf32>, tolerance = 2.500000e-01
  func.return
}
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:almost_eq_outside_tolerance: check.expect_almost_eq_const at index [1]: got 2, expected 2.001
func.func @almost_eq_outside_tolerance() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[1.0, 2.001]> : tensor<2xf32>
  func.return
}

// 0x3F800001 is one ULP above 1.0, 0x3F800003 three.
// CHECK-NEXT: PASS {{.*}}kiln-test-report.mlir:close_within_ulps
func.func @close_within_ulps() {
  %a = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0x3F800001, 1.0]> : tensor<2xf32>
  check.expect_close %a, %b, max_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  func.return
}
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:close_too_far: check.expect_close at index [0]: got 1, expected 1.0000004
func.func @close_too_far() {
  %a = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %b = stablehlo.constant dense<[0x3F800003]> : tensor<1xf32>
  check.expect_close %a, %b, max_ulp_difference = 2 : tensor<1xf32>, tensor<1xf32>
  func.return
}

// min_ulp_difference asks for values at least that far apart.
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:closer_than_min_ulps: check.expect_close at index [0]: got 1, expected 1
func.func @closer_than_min_ulps() {
  %a = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  check.expect_close %a, %a, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<1xf32>, tensor<1xf32>
  func.return
}

// Infinity is not almost equal to a large finite value.
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:infinity_is_not_almost_large: check.expect_almost_eq_const at index [0]: got inf, expected 3.4028235e+38
func.func @infinity_is_not_almost_large() {
  %a = stablehlo.constant dense<[0x7F800000]> : tensor<1xf32>
  check.expect_almost_eq_const %a, dense<[0x7F7FFFFF]> : tensor<1xf32>
  func.return
}

// Complex elements print as (real, imaginary).
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:complex_mismatch: check.expect_eq_const at index [1]: got (1, 2), expected (1, 3)
func.func @complex_mismatch() {
  %a = stablehlo.constant dense<[(0.5, 0.0), (1.0, 2.0)]> : tensor<2xcomplex<f64>>
  check.expect_eq_const %a, dense<[(0.5, 0.0), (1.0, 3.0)]> : tensor<2xcomplex<f64>>
  func.return
}

// The custom-call forms have no verifier: mismatched types fail the check.
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:custom_call_type_mismatch: check.expect_eq: got tensor<1xf32>, expected tensor<1xf64>
func.func @custom_call_type_mismatch() {
  %a = stablehlo.constant dense<[1.0]> : tensor<1xf32>
  %b = stablehlo.constant dense<[1.0]> : tensor<1xf64>
  stablehlo.custom_call @check.expect_eq(%a, %b) {has_side_effect = true} : (tensor<1xf32>, tensor<1xf64>) -> ()
  func.return
}

// The custom-call forms of JAX-generated tests.
// CHECK-NEXT: PASS {{.*}}kiln-test-report.mlir:custom_calls_pass
func.func @custom_calls_pass() -> tensor<i1> {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0x3F800003, 2.0]> : tensor<2xf32>
  %c = stablehlo.constant dense<[1.0005, 1.9995]> : tensor<2xf32>
  // Within 3 ULP, within 1e-3.
  stablehlo.custom_call @check.expect_close(%a, %b) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  stablehlo.custom_call @check.expect_almost_eq(%a, %c) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  stablehlo.custom_call @check.expect_eq(%a, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  %ok = stablehlo.custom_call @check.eq(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
  func.return %ok : tensor<i1>
}
// CHECK-NEXT: FAIL {{.*}}kiln-test-report.mlir:custom_call_eq_fails: check.eq at index [1]: got 3, expected 4
func.func @custom_call_eq_fails() -> tensor<i1> {
  %a = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 4]> : tensor<2xi32>
  %ok = stablehlo.custom_call @check.eq(%a, %b) : (tensor<2xi32>, tensor<2xi32>) -> tensor<i1>
  func.return %ok : tensor<i1>
}

// An op the interpreter cannot run is an ERROR, with its location.
// CHECK-NEXT: ERROR {{.*}}kiln-test-report.mlir:unknown_custom_call: {{.*}}kiln-test-report.mlir:[[@LINE+3]]:{{[0-9]+}}: {{.*}}no_such_target
func.func @unknown_custom_call() {
  %a = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.custom_call @no_such_target(%a) : (tensor<f32>) -> tensor<f32>
  func.return
}

// A test that never ends is stopped; the others still run.
// CHECK-NEXT: ERROR {{.*}}kiln-test-report.mlir:runs_forever: timed out after 5 s
func.func @runs_forever() {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.while(%i = %zero) : tensor<i32>
  cond {
    %t = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return %i : tensor<i32>
  }
  func.return
}

// -----

// A part that does not parse is one ERROR (at its line in the whole file);
// the parts after it still run.
// CHECK-NEXT: ERROR {{.*}}kiln-test-report.mlir: {{.*}}kiln-test-report.mlir:[[@LINE+2]]:{{[0-9]+}}:
func.func @does_not_parse() {
  %a = stablehlo.frobnicate : tensor<f32>
  func.return
}

// -----

// CHECK-NEXT: PASS {{.*}}kiln-test-report.mlir:after_a_broken_part
func.func @after_a_broken_part() {
  %a = stablehlo.constant dense<true> : tensor<i1>
  check.expect_eq_const %a, dense<true> : tensor<i1>
  func.return
}

// CHECK-NEXT: 6 passed, 13 failed
