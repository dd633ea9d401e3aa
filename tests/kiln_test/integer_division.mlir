// Integer divide and remainder, including division by zero and the
// overflowing INT_MIN / -1. Expected values are XLA's (jax.lax.div and
// jax.lax.rem on the CPU): the quotient rounds toward zero and the remainder
// takes the dividend's sign; x / 0 is -1 (all bits set) and x % 0 is x;
// INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.

func.func @divide_i32() {
  %a = stablehlo.constant dense<[7, -7, 7, -7, 5, -2147483648, 0]> : tensor<7xi32>
  %b = stablehlo.constant dense<[2, 2, -2, -2, 0, -1, 0]> : tensor<7xi32>
  %q = stablehlo.divide %a, %b : tensor<7xi32>
  check.expect_eq_const %q, dense<[3, -3, -3, 3, -1, -2147483648, -1]> : tensor<7xi32>
  func.return
}

func.func @remainder_i32() {
  %a = stablehlo.constant dense<[7, -7, 7, -7, 5, -2147483648, 0]> : tensor<7xi32>
  %b = stablehlo.constant dense<[2, 2, -2, -2, 0, -1, 0]> : tensor<7xi32>
  %r = stablehlo.remainder %a, %b : tensor<7xi32>
  check.expect_eq_const %r, dense<[1, -1, 1, -1, 5, 0, 0]> : tensor<7xi32>
  func.return
}

func.func @divide_and_remainder_i8_overflow() {
  %a = stablehlo.constant dense<[-128, -128, 127]> : tensor<3xi8>
  %b = stablehlo.constant dense<[-1, 0, -1]> : tensor<3xi8>
  %q = stablehlo.divide %a, %b : tensor<3xi8>
  %r = stablehlo.remainder %a, %b : tensor<3xi8>
  check.expect_eq_const %q, dense<[-128, -1, -127]> : tensor<3xi8>
  check.expect_eq_const %r, dense<[0, -128, 0]> : tensor<3xi8>
  func.return
}

// Unsigned: x / 0 is the maximum value (all bits set), x % 0 is x.
func.func @divide_and_remainder_ui8() {
  %a = stablehlo.constant dense<[7, 200, 5, 255]> : tensor<4xui8>
  %b = stablehlo.constant dense<[2, 0, 0, 16]> : tensor<4xui8>
  %q = stablehlo.divide %a, %b : tensor<4xui8>
  %r = stablehlo.remainder %a, %b : tensor<4xui8>
  check.expect_eq_const %q, dense<[3, 255, 255, 15]> : tensor<4xui8>
  check.expect_eq_const %r, dense<[1, 200, 5, 15]> : tensor<4xui8>
  func.return
}

func.func @divide_i64_extremes() {
  %a = stablehlo.constant dense<[-9223372036854775808, 9223372036854775807, 1]> : tensor<3xi64>
  %b = stablehlo.constant dense<[-1, -1, 0]> : tensor<3xi64>
  %q = stablehlo.divide %a, %b : tensor<3xi64>
  %r = stablehlo.remainder %a, %b : tensor<3xi64>
  check.expect_eq_const %q, dense<[-9223372036854775808, -9223372036854775807, -1]> : tensor<3xi64>
  check.expect_eq_const %r, dense<[0, 0, 1]> : tensor<3xi64>
  func.return
}
