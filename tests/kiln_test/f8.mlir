// The f8 (and f6/f4) element types: conversion from f32 with round to
// nearest even and each format's overflow rule, and arithmetic rounded to
// the format. Expected values were computed with ml_dtypes 0.7 and agree with
// XLA:CPU (jax.jit of astype) for every case below.
// Inputs, per element: 0.3, 1.0625 (a tie), 464 (a tie just above 448),
// 500, -1e6, 1e-3, 2^-10, +Inf, NaN, -0.0.

func.func @convert_f8E4M3FN() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E4M3FN>
  %y = stablehlo.convert %f8 : (tensor<10xf8E4M3FN>) -> tensor<10xf32>
  // No Inf: overflow gives NaN.
  check.expect_eq_const %y, dense<[0.3125, 1.0, 448.0, 0x7FC00000, 0x7FC00000, 0.001953125, 0.0, 0x7FC00000, 0x7FC00000, -0.0]> : tensor<10xf32>
  func.return
}

func.func @convert_f8E5M2() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E5M2>
  %y = stablehlo.convert %f8 : (tensor<10xf8E5M2>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.3125, 1.0, 448.0, 512.0, 0xFF800000, 9.765625e-04, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  func.return
}

// FNUZ formats: no negative zero (-0.0 becomes +0.0), overflow gives NaN.
func.func @convert_f8E4M3FNUZ() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E4M3FNUZ>
  %y = stablehlo.convert %f8 : (tensor<10xf8E4M3FNUZ>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.3125, 1.0, 0x7FC00000, 0x7FC00000, 0x7FC00000, 9.765625e-04, 9.765625e-04, 0x7FC00000, 0x7FC00000, 0.0]> : tensor<10xf32>
  func.return
}

func.func @convert_f8E5M2FNUZ() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E5M2FNUZ>
  %y = stablehlo.convert %f8 : (tensor<10xf8E5M2FNUZ>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.3125, 1.0, 448.0, 512.0, 0x7FC00000, 9.765625e-04, 9.765625e-04, 0x7FC00000, 0x7FC00000, 0.0]> : tensor<10xf32>
  func.return
}

func.func @convert_f8E4M3B11FNUZ() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E4M3B11FNUZ>
  %y = stablehlo.convert %f8 : (tensor<10xf8E4M3B11FNUZ>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.3125, 1.0, 0x7FC00000, 0x7FC00000, 0x7FC00000, 9.765625e-04, 9.765625e-04, 0x7FC00000, 0x7FC00000, 0.0]> : tensor<10xf32>
  func.return
}

// IEEE-like formats with Inf: overflow gives Inf.
func.func @convert_f8E3M4() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E3M4>
  %y = stablehlo.convert %f8 : (tensor<10xf8E3M4>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.296875, 1.0625, 0x7F800000, 0x7F800000, 0xFF800000, 0.0, 0.0, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  func.return
}

func.func @convert_f8E4M3() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E4M3>
  %y = stablehlo.convert %f8 : (tensor<10xf8E4M3>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.3125, 1.0, 0x7F800000, 0x7F800000, 0xFF800000, 0.001953125, 0.0, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  func.return
}

// Exponent only, no sign: powers of two, rounding in the exponent;
// negative numbers, zero and NaN all become NaN.
func.func @convert_f8E8M0FNU() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, 500.0, -1.0e+06, 1.0e-03, 9.765625e-04, 0x7F800000, 0x7FC00000, -0.0]> : tensor<10xf32>
  %f8 = stablehlo.convert %x : (tensor<10xf32>) -> tensor<10xf8E8M0FNU>
  %y = stablehlo.convert %f8 : (tensor<10xf8E8M0FNU>) -> tensor<10xf32>
  check.expect_eq_const %y, dense<[0.25, 1.0, 512.0, 512.0, 0x7FC00000, 9.765625e-04, 9.765625e-04, 0x7FC00000, 0x7FC00000, 0x7FC00000]> : tensor<10xf32>
  func.return
}

// f4E2M1FN has neither Inf nor NaN: finite overflow saturates to +-6.
func.func @convert_f4E2M1FN_finite() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, -1.0e+06, 1.0e-03, -0.0, 2.5, 5.0]> : tensor<8xf32>
  %f4 = stablehlo.convert %x : (tensor<8xf32>) -> tensor<8xf4E2M1FN>
  %y = stablehlo.convert %f4 : (tensor<8xf4E2M1FN>) -> tensor<8xf32>
  check.expect_eq_const %y, dense<[0.5, 1.0, 6.0, -6.0, 0.0, -0.0, 2.0, 4.0]> : tensor<8xf32>
  func.return
}

func.func @convert_f6_types_finite() {
  %x = stablehlo.constant dense<[0.3, 1.0625, 464.0, -1.0e+06, 1.0e-03, -0.0]> : tensor<6xf32>
  %a = stablehlo.convert %x : (tensor<6xf32>) -> tensor<6xf6E2M3FN>
  %ya = stablehlo.convert %a : (tensor<6xf6E2M3FN>) -> tensor<6xf32>
  check.expect_eq_const %ya, dense<[0.25, 1.0, 7.5, -7.5, 0.0, -0.0]> : tensor<6xf32>
  %b = stablehlo.convert %x : (tensor<6xf32>) -> tensor<6xf6E3M2FN>
  %yb = stablehlo.convert %b : (tensor<6xf6E3M2FN>) -> tensor<6xf32>
  check.expect_eq_const %yb, dense<[0.3125, 1.0, 28.0, -28.0, 0.0, -0.0]> : tensor<6xf32>
  func.return
}

// Arithmetic is rounded to the f8 format: 1 + 1/16 is a tie that goes to
// the even 1.0; 1.125 + 1/16 goes to the even 1.25; 448 + 16 ties back to
// 448; 448 + 32 overflows to NaN.
func.func @add_f8E4M3FN() {
  %a = stablehlo.constant dense<[1.0, 1.125, 448.0, 448.0, -2.0]> : tensor<5xf8E4M3FN>
  %b = stablehlo.constant dense<[0.0625, 0.0625, 16.0, 32.0, 0.0078125]> : tensor<5xf8E4M3FN>
  %s = stablehlo.add %a, %b : tensor<5xf8E4M3FN>
  check.expect_eq_const %s, dense<[1.0, 1.25, 448.0, 0x7F, -2.0]> : tensor<5xf8E4M3FN>
  func.return
}

func.func @add_f8E5M2_overflow_to_inf() {
  %a = stablehlo.constant dense<[57344.0, 1.0, -57344.0]> : tensor<3xf8E5M2>
  %b = stablehlo.constant dense<[4096.0, 0.125, -8192.0]> : tensor<3xf8E5M2>
  %s = stablehlo.add %a, %b : tensor<3xf8E5M2>
  %y = stablehlo.convert %s : (tensor<3xf8E5M2>) -> tensor<3xf32>
  check.expect_eq_const %y, dense<[0x7F800000, 1.0, 0xFF800000]> : tensor<3xf32>
  func.return
}

func.func @multiply_f8E4M3FNUZ() {
  %a = stablehlo.constant dense<[240.0, 0.5, -1.5]> : tensor<3xf8E4M3FNUZ>
  %b = stablehlo.constant dense<[2.0, 0.5, 3.0]> : tensor<3xf8E4M3FNUZ>
  %p = stablehlo.multiply %a, %b : tensor<3xf8E4M3FNUZ>
  %y = stablehlo.convert %p : (tensor<3xf8E4M3FNUZ>) -> tensor<3xf32>
  check.expect_eq_const %y, dense<[0x7FC00000, 0.25, -4.5]> : tensor<3xf32>
  func.return
}

// f8 to f8: 57344 does not fit f8E4M3FN (max 448) and becomes NaN.
func.func @convert_f8E5M2_to_f8E4M3FN() {
  %x = stablehlo.constant dense<[57344.0, 0.5, 1.75, -3.0]> : tensor<4xf8E5M2>
  %y = stablehlo.convert %x : (tensor<4xf8E5M2>) -> tensor<4xf8E4M3FN>
  %z = stablehlo.convert %y : (tensor<4xf8E4M3FN>) -> tensor<4xf32>
  check.expect_eq_const %z, dense<[0x7FC00000, 0.5, 1.75, -3.0]> : tensor<4xf32>
  func.return
}

// Bit patterns: f8E4M3FN 0.3125 = 0x2A, 1.0 = 0x38, 448 = 0x7E.
func.func @bitcast_f8E4M3FN() {
  %x = stablehlo.constant dense<[0.3125, 1.0, 448.0]> : tensor<3xf8E4M3FN>
  %b = stablehlo.bitcast_convert %x : (tensor<3xf8E4M3FN>) -> tensor<3xui8>
  check.expect_eq_const %b, dense<[42, 56, 126]> : tensor<3xui8>
  func.return
}
