// stablehlo.compare with every comparison type, checked with `kiln test`.
// Expected values follow the StableHLO spec (compare): FLOAT is IEEE-754
// comparison (every comparison with NaN is false except NE); TOTALORDER
// orders -NaN < -Inf < -finite < -0 < +0 < +finite < +Inf < +NaN.

func.func @float_with_nan_and_zeros() {
  %lhs = stablehlo.constant dense<[0x7FC00000, 0x7FC00000, 1.0, -0.0, 0x7F800000]> : tensor<5xf32>
  %rhs = stablehlo.constant dense<[0x7FC00000, 1.0, 0x7FC00000, 0.0, 0x7F800000]> : tensor<5xf32>
  %eq = stablehlo.compare EQ, %lhs, %rhs, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %ne = stablehlo.compare NE, %lhs, %rhs, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %lt = stablehlo.compare LT, %lhs, %rhs, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %le = stablehlo.compare LE, %lhs, %rhs, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %gt = stablehlo.compare GT, %lhs, %rhs, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  %ge = stablehlo.compare GE, %lhs, %rhs, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
  check.expect_eq_const %eq, dense<[false, false, false, true, true]> : tensor<5xi1>
  check.expect_eq_const %ne, dense<[true, true, true, false, false]> : tensor<5xi1>
  check.expect_eq_const %lt, dense<[false, false, false, false, false]> : tensor<5xi1>
  check.expect_eq_const %le, dense<[false, false, false, true, true]> : tensor<5xi1>
  check.expect_eq_const %gt, dense<[false, false, false, false, false]> : tensor<5xi1>
  check.expect_eq_const %ge, dense<[false, false, false, true, true]> : tensor<5xi1>
  func.return
}

// Elements: -0 vs +0, -NaN vs -Inf, +NaN vs +Inf, +NaN vs +NaN, -Inf vs -NaN, 1 vs 1.
func.func @totalorder() {
  %lhs = stablehlo.constant dense<[-0.0, 0xFFC00000, 0x7FC00000, 0x7FC00000, 0xFF800000, 1.0]> : tensor<6xf32>
  %rhs = stablehlo.constant dense<[0.0, 0xFF800000, 0x7F800000, 0x7FC00000, 0xFFC00000, 1.0]> : tensor<6xf32>
  %lt = stablehlo.compare LT, %lhs, %rhs, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %eq = stablehlo.compare EQ, %lhs, %rhs, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %gt = stablehlo.compare GT, %lhs, %rhs, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  %ge = stablehlo.compare GE, %lhs, %rhs, TOTALORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  check.expect_eq_const %lt, dense<[true, true, false, false, false, false]> : tensor<6xi1>
  check.expect_eq_const %eq, dense<[false, false, false, true, false, true]> : tensor<6xi1>
  check.expect_eq_const %gt, dense<[false, false, true, false, true, false]> : tensor<6xi1>
  check.expect_eq_const %ge, dense<[false, false, true, true, true, true]> : tensor<6xi1>
  func.return
}

// The same bits order differently as signed and as unsigned integers.
func.func @signed() {
  %lhs = stablehlo.constant dense<[-1, 2147483647, 5]> : tensor<3xi32>
  %rhs = stablehlo.constant dense<[1, -2147483648, 5]> : tensor<3xi32>
  %lt = stablehlo.compare LT, %lhs, %rhs, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  %ge = stablehlo.compare GE, %lhs, %rhs, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
  check.expect_eq_const %lt, dense<[true, false, false]> : tensor<3xi1>
  check.expect_eq_const %ge, dense<[false, true, true]> : tensor<3xi1>
  func.return
}

func.func @unsigned() {
  %lhs = stablehlo.constant dense<[4294967295, 1, 7]> : tensor<3xui32>
  %rhs = stablehlo.constant dense<[1, 2147483648, 7]> : tensor<3xui32>
  %lt = stablehlo.compare LT, %lhs, %rhs, UNSIGNED : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>
  %le = stablehlo.compare LE, %lhs, %rhs, UNSIGNED : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>
  check.expect_eq_const %lt, dense<[false, true, false]> : tensor<3xi1>
  check.expect_eq_const %le, dense<[false, true, true]> : tensor<3xi1>
  func.return
}

// Booleans compare as unsigned: false < true.
func.func @booleans() {
  %lhs = stablehlo.constant dense<[false, false, true, true]> : tensor<4xi1>
  %rhs = stablehlo.constant dense<[false, true, false, true]> : tensor<4xi1>
  %lt = stablehlo.compare LT, %lhs, %rhs, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %ge = stablehlo.compare GE, %lhs, %rhs, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %ne = stablehlo.compare NE, %lhs, %rhs, UNSIGNED : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  check.expect_eq_const %lt, dense<[false, true, false, false]> : tensor<4xi1>
  check.expect_eq_const %ge, dense<[true, false, true, true]> : tensor<4xi1>
  check.expect_eq_const %ne, dense<[false, true, true, false]> : tensor<4xi1>
  func.return
}

// Complex numbers only compare for (in)equality, component by component.
func.func @complex_equality() {
  %lhs = stablehlo.constant dense<[(1.0, 2.0), (1.0, 2.0), (0.0, -0.0)]> : tensor<3xcomplex<f32>>
  %rhs = stablehlo.constant dense<[(1.0, 2.0), (1.0, -2.0), (-0.0, 0.0)]> : tensor<3xcomplex<f32>>
  %eq = stablehlo.compare EQ, %lhs, %rhs, FLOAT : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  %ne = stablehlo.compare NE, %lhs, %rhs, FLOAT : (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) -> tensor<3xi1>
  check.expect_eq_const %eq, dense<[true, false, true]> : tensor<3xi1>
  check.expect_eq_const %ne, dense<[false, true, false]> : tensor<3xi1>
  func.return
}

// f16 and bf16 under TOTALORDER: -0 < +0 and NaN above +Inf.
func.func @totalorder_half_types() {
  %a = stablehlo.constant dense<[-0.0, 0x7E00]> : tensor<2xf16>
  %b = stablehlo.constant dense<[0.0, 0x7C00]> : tensor<2xf16>
  %lt16 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xi1>
  check.expect_eq_const %lt16, dense<[true, false]> : tensor<2xi1>
  %c = stablehlo.constant dense<[-0.0, 0x7FC0]> : tensor<2xbf16>
  %d = stablehlo.constant dense<[0.0, 0x7F80]> : tensor<2xbf16>
  %gt = stablehlo.compare GT, %c, %d, TOTALORDER : (tensor<2xbf16>, tensor<2xbf16>) -> tensor<2xi1>
  check.expect_eq_const %gt, dense<[false, true]> : tensor<2xi1>
  func.return
}
