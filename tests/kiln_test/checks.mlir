// The check ops themselves, on the cases where they must hold (the failing
// counterparts are in tests/lit/tools/kiln-test-report.mlir).

// Exact equality of every element kind; NaNs with different payloads match.
func.func @expect_eq_every_kind() {
  %u = stablehlo.constant dense<[0, 18446744073709551615]> : tensor<2xui64>
  check.expect_eq_const %u, dense<[0, 18446744073709551615]> : tensor<2xui64>
  %b = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  check.expect_eq %b, %b : tensor<2xi1>
  %h = stablehlo.constant dense<[0x7E00, 0x7E01, -0.0]> : tensor<3xf16>
  check.expect_eq_const %h, dense<[0x7E01, 0x7E00, -0.0]> : tensor<3xf16>
  %c = stablehlo.constant dense<[(1.0, -2.0)]> : tensor<1xcomplex<f64>>
  check.expect_eq_const %c, dense<[(1.0, -2.0)]> : tensor<1xcomplex<f64>>
  %i2 = stablehlo.constant dense<[-2, 1]> : tensor<2xi2>
  check.expect_eq_const %i2, dense<[-2, 1]> : tensor<2xi2>
  func.return
}

// |a - b| <= tolerance, componentwise for complex; infinities must match.
func.func @expect_almost_eq_cases() {
  %a = stablehlo.constant dense<[(1.0, 2.0), (0.0, 0.0)]> : tensor<2xcomplex<f32>>
  %b = stablehlo.constant dense<[(1.00009, 1.99991), (-0.00005, 0.0)]> : tensor<2xcomplex<f32>>
  check.expect_almost_eq %a, %b : tensor<2xcomplex<f32>>
  %inf = stablehlo.constant dense<[0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<3xf32>
  check.expect_almost_eq_const %inf, dense<[0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<3xf32>
  %big = stablehlo.constant dense<[1000.0]> : tensor<1xf64>
  check.expect_almost_eq_const %big, dense<[1000.5]> : tensor<1xf64>, tolerance = 5.000000e-01
  func.return
}

// ULP distances: 0x3F800002 is 2 ULP above 1.0; across zero the distances
// add (-min_subnormal to +min_subnormal); subnormals count as 0 or the
// smallest normal (as XLA:CPU flushes them), so 1e-45 is within 1 ULP of 0.
func.func @expect_close_ulps() {
  %a = stablehlo.constant dense<[1.0, -0.0, 1.0e-45, 0x7F800000, 0x7FC00000]> : tensor<5xf32>
  %b = stablehlo.constant dense<[0x3F800002, 0.0, 0.0, 0x7F800000, 0xFFC00001]> : tensor<5xf32>
  check.expect_close %a, %b, max_ulp_difference = 2 : tensor<5xf32>, tensor<5xf32>
  func.return
}

// min_ulp_difference: the values must differ by at least that much.
func.func @expect_close_min_ulps() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0x3F800001, 0x40000003]> : tensor<2xf32>
  check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  func.return
}

// Other float types: bf16 steps of 2^-7 around 1; f8E4M3FN steps of 1/8.
func.func @expect_close_narrow_types() {
  %a = stablehlo.constant dense<[1.0, 1.0078125]> : tensor<2xbf16>
  %b = stablehlo.constant dense<[1.0078125, 1.0]> : tensor<2xbf16>
  check.expect_close %a, %b, max_ulp_difference = 1 : tensor<2xbf16>, tensor<2xbf16>
  %c = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xf8E4M3FN>
  %d = stablehlo.constant dense<[1.25, -1.125]> : tensor<2xf8E4M3FN>
  check.expect_close %c, %d, max_ulp_difference = 2 : tensor<2xf8E4M3FN>, tensor<2xf8E4M3FN>
  func.return
}
