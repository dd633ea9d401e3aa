// Shifts by at least the bit width and by negative amounts (which, read as
// unsigned, are also at least the bit width). Expected values are XLA's, as
// jax.lax.shift_* produce them on the CPU: shift_left and
// shift_right_logical give 0, shift_right_arithmetic fills with the sign bit.

func.func @shift_left_i32() {
  %x = stablehlo.constant dense<[1, 1, 1, -1, 1]> : tensor<5xi32>
  %n = stablehlo.constant dense<[31, 32, 33, 0, -1]> : tensor<5xi32>
  %r = stablehlo.shift_left %x, %n : tensor<5xi32>
  check.expect_eq_const %r, dense<[-2147483648, 0, 0, -1, 0]> : tensor<5xi32>
  func.return
}

func.func @shift_right_arithmetic_i32() {
  %x = stablehlo.constant dense<[-8, -8, 8, -8, -8]> : tensor<5xi32>
  %n = stablehlo.constant dense<[1, 31, 32, 32, -1]> : tensor<5xi32>
  %r = stablehlo.shift_right_arithmetic %x, %n : tensor<5xi32>
  check.expect_eq_const %r, dense<[-4, -1, 0, -1, -1]> : tensor<5xi32>
  func.return
}

func.func @shift_right_logical_i32() {
  %x = stablehlo.constant dense<[-8, -8, 8, -8]> : tensor<4xi32>
  %n = stablehlo.constant dense<[1, 31, 32, -1]> : tensor<4xi32>
  %r = stablehlo.shift_right_logical %x, %n : tensor<4xi32>
  check.expect_eq_const %r, dense<[2147483644, 1, 0, 0]> : tensor<4xi32>
  func.return
}

// On unsigned types shift_right_arithmetic still copies the top bit.
func.func @shifts_ui8() {
  %x = stablehlo.constant dense<[1, 255, 3]> : tensor<3xui8>
  %n = stablehlo.constant dense<[7, 8, 200]> : tensor<3xui8>
  %l = stablehlo.shift_left %x, %n : tensor<3xui8>
  check.expect_eq_const %l, dense<[128, 0, 0]> : tensor<3xui8>
  %y = stablehlo.constant dense<[128, 255]> : tensor<2xui8>
  %m = stablehlo.constant dense<[7, 8]> : tensor<2xui8>
  %rl = stablehlo.shift_right_logical %y, %m : tensor<2xui8>
  check.expect_eq_const %rl, dense<[1, 0]> : tensor<2xui8>
  %ra = stablehlo.shift_right_arithmetic %y, %m : tensor<2xui8>
  check.expect_eq_const %ra, dense<[255, 255]> : tensor<2xui8>
  func.return
}

func.func @shifts_i64() {
  %x = stablehlo.constant dense<[1, -9223372036854775808, -1]> : tensor<3xi64>
  %n = stablehlo.constant dense<[63, 63, 64]> : tensor<3xi64>
  %l = stablehlo.shift_left %x, %n : tensor<3xi64>
  check.expect_eq_const %l, dense<[-9223372036854775808, 0, 0]> : tensor<3xi64>
  %ra = stablehlo.shift_right_arithmetic %x, %n : tensor<3xi64>
  check.expect_eq_const %ra, dense<[0, -1, -1]> : tensor<3xi64>
  %rl = stablehlo.shift_right_logical %x, %n : tensor<3xi64>
  check.expect_eq_const %rl, dense<[0, 1, 0]> : tensor<3xi64>
  func.return
}
