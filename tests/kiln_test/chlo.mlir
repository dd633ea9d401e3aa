// chlo ops on the interpreter. Every expected value was computed with JAX
// 0.10.2 on CPU (jax.jit of the jnp / jax.scipy.special / jax.lax function that
// exports the op) and is written as the exact f32 bit pattern.
//
// XLA evaluates the special functions with float32 polynomials, kiln in double
// rounded once, so the transcendental results are compared within 4 ULP (8 for
// sinh and cosh, where XLA is up to 5 ULP off at |x| = 10; 16 for lgamma,
// which XLA computes to about 1e-6 relative). The inputs avoid the ranges
// where XLA is less accurate than that (erf_inv of |y| > 0.99 and of
// subnormals, lgamma near its zeros). kiln's erf_inv was also checked to equal
// scipy's double-precision erfinv rounded to f32 on 25,000 inputs, tails
// included.

func.func @erf_inv() {
  %x = stablehlo.constant dense<[0xBF7D70A4, 0xBF666666, 0xBF000000, 0xBDCCCCCD, 0xBA83126F, 0x80000000, 0x00000000, 0x0DA24260, 0x3A83126F, 0x3E800000, 0x3F000000, 0x3F400000, 0x3F666666, 0x3F7D70A4, 0x3F800000, 0xBF800000, 0x3FC00000, 0xC0000000, 0x7FC00000]> : tensor<19xf32>
  %r = chlo.erf_inv %x : tensor<19xf32> -> tensor<19xf32>
  %expected = stablehlo.constant dense<[0xBFE92333, 0xBF94E009, 0xBEF430FE, 0xBDB5FA21, 0xBA6851B2, 0x80000000, 0x00000000, 0x0D8FCC6C, 0x3A6851B2, 0x3E66B835, 0x3EF430FE, 0x3F503C48, 0x3F94E009, 0x3FE92333, 0x7F800000, 0xFF800000, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF]> : tensor<19xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<19xf32>, tensor<19xf32>
  func.return
}

func.func @erf() {
  %x = stablehlo.constant dense<[0xC0800000, 0xC0000000, 0xBF000000, 0xBA83126F, 0x00000000, 0x1E3CE508, 0x3DCCCCCD, 0x3F000000, 0x3F800000, 0x40000000, 0x40400000, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<14xf32>
  %r = chlo.erf %x : tensor<14xf32> -> tensor<14xf32>
  %expected = stablehlo.constant dense<[0xBF800000, 0xBF7ECD70, 0xBF053F7B, 0xBA93E61C, 0x00000000, 0x1E552510, 0x3DE652F5, 0x3F053F7B, 0x3F57BB3E, 0x3F7ECD70, 0x3F7FFE8E, 0x3F800000, 0xBF800000, 0x7FC00000]> : tensor<14xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<14xf32>, tensor<14xf32>
  func.return
}

func.func @erfc() {
  %x = stablehlo.constant dense<[0xC0400000, 0xBF800000, 0xBDCCCCCD, 0x00000000, 0x3DCCCCCD, 0x3F000000, 0x3F800000, 0x40000000, 0x40400000, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<12xf32>
  %r = chlo.erfc %x : tensor<12xf32> -> tensor<12xf32>
  %expected = stablehlo.constant dense<[0x3FFFFF47, 0x3FEBDD9E, 0x3F8E652F, 0x3F800000, 0x3F6335A1, 0x3EF5810C, 0x3E21130D, 0x3B9947AF, 0x37B94EFB, 0x00000000, 0x40000000, 0xFFC00000]> : tensor<12xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<12xf32>, tensor<12xf32>
  func.return
}

func.func @lgamma() {
  %x = stablehlo.constant dense<[0x3DCCCCCD, 0x40400000, 0x40900000, 0x41C80000, 0x41200000, 0x42C80000, 0xBF000000, 0xC0600000, 0x00000000, 0x7F800000, 0x7FC00000]> : tensor<11xf32>
  %r = chlo.lgamma %x : tensor<11xf32> -> tensor<11xf32>
  %expected = stablehlo.constant dense<[0x40102C72, 0x3F31721C, 0x401D0A0C, 0x425B2392, 0x414CD44C, 0x43B3912E, 0x3FA1FC4A, 0xBFA78D96, 0x7F800000, 0x7F800000, 0xFFFFFFFF]> : tensor<11xf32>
  check.expect_close %r, %expected, max_ulp_difference = 16 : tensor<11xf32>, tensor<11xf32>
  func.return
}

func.func @asin() {
  %x = stablehlo.constant dense<[0xBF800000, 0xBF000000, 0x00000000, 0x3E99999A, 0x3F666666, 0x3F800000, 0x40000000]> : tensor<7xf32>
  %r = chlo.asin %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0xBFC90FDB, 0xBF060A92, 0x00000000, 0x3E9C00AE, 0x3F8F549B, 0x3FC90FDB, 0xFFC00000]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @acos() {
  %x = stablehlo.constant dense<[0xBF800000, 0xBF000000, 0x00000000, 0x3E99999A, 0x3F666666, 0x3F800000, 0x40000000]> : tensor<7xf32>
  %r = chlo.acos %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0x40490FDB, 0x40060A92, 0x3FC90FDB, 0x3FA20FAF, 0x3EE6ECFE, 0x00000000, 0xFFC00000]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @atan() {
  %x = stablehlo.constant dense<[0xC9742400, 0xBF800000, 0x00000000, 0x3E99999A, 0x40000000, 0x7F800000, 0xFF800000]> : tensor<7xf32>
  %r = chlo.atan %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0xBFC90FD3, 0xBF490FDA, 0x00000000, 0x3E9539D3, 0x3F8DB70E, 0x3FC90FDB, 0xBFC90FDB]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @asinh() {
  %x = stablehlo.constant dense<[0xC2C80000, 0xBF800000, 0x00000000, 0x3E99999A, 0x40000000, 0x501502F9, 0x7F800000]> : tensor<7xf32>
  %r = chlo.asinh %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0xC0A98C05, 0xBF61A1B4, 0x00000000, 0x3E976276, 0x3FB8C90C, 0x41BDC082, 0x7F800000]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @acosh() {
  %x = stablehlo.constant dense<[0x3F800000, 0x3FC00000, 0x40000000, 0x41200000, 0x501502F9, 0x3F000000, 0x7F800000]> : tensor<7xf32>
  %r = chlo.acosh %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0x00000000, 0x3F766165, 0x3FA89214, 0x403F90F7, 0x41BDC082, 0xFFFFFFFF, 0x7F800000]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @atanh() {
  %x = stablehlo.constant dense<[0xBF666666, 0xBF000000, 0x00000000, 0x3E99999A, 0x3F7D70A4, 0x3F800000, 0xBF800000, 0x40000000]> : tensor<8xf32>
  %r = chlo.atanh %x : tensor<8xf32> -> tensor<8xf32>
  %expected = stablehlo.constant dense<[0xBFBC71AF, 0xBF0C9F54, 0x00000000, 0x3E9E795B, 0x402962C3, 0x7F800000, 0xFF800000, 0x7FC00000]> : tensor<8xf32>
  check.expect_close %r, %expected, max_ulp_difference = 4 : tensor<8xf32>, tensor<8xf32>
  func.return
}

func.func @sinh() {
  %x = stablehlo.constant dense<[0xC0A00000, 0xBF800000, 0x00000000, 0x3E99999A, 0x40000000, 0x41200000, 0x41A00000]> : tensor<7xf32>
  %r = chlo.sinh %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0xC294680B, 0xBF966CFE, 0x00000000, 0x3E9BEA15, 0x40681E7B, 0x462C14E9, 0x4D67583D]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 8 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @cosh() {
  %x = stablehlo.constant dense<[0xC0A00000, 0xBF800000, 0x00000000, 0x3E99999A, 0x40000000, 0x41200000, 0x41A00000]> : tensor<7xf32>
  %r = chlo.cosh %x : tensor<7xf32> -> tensor<7xf32>
  %expected = stablehlo.constant dense<[0x42946B7F, 0x3FC583AA, 0x3F800000, 0x3F85CDA7, 0x4070C7D1, 0x462C14E9, 0x4D67583D]> : tensor<7xf32>
  check.expect_close %r, %expected, max_ulp_difference = 8 : tensor<7xf32>, tensor<7xf32>
  func.return
}

func.func @square() {
  %x = stablehlo.constant dense<[0x3FC00000, 0xC0400000, 0x60AD78EC, 0x0DA24260, 0x80000000, 0x7F800000, 0x7FC00000, 0x40400001]> : tensor<8xf32>
  %r = chlo.square %x : tensor<8xf32> -> tensor<8xf32>
  check.expect_eq_const %r, dense<[0x40100000, 0x41100000, 0x7F800000, 0x00000000, 0x00000000, 0x7F800000, 0x7FC00000, 0x41100002]> : tensor<8xf32>
  func.return
}

func.func @next_after() {
  %x = stablehlo.constant dense<[0x3F800000, 0x3F800000, 0x00000000, 0x80000000, 0x00000000, 0x7FC00000, 0x7F7FFFFF, 0x7F800000, 0x40000000, 0xBF800000, 0x3F800000]> : tensor<11xf32>
  %y = stablehlo.constant dense<[0x40000000, 0x00000000, 0x3F800000, 0x3F800000, 0xBF800000, 0x3F800000, 0x7F800000, 0x00000000, 0x40000000, 0xFF800000, 0x7FC00000]> : tensor<11xf32>
  %r = chlo.next_after %x, %y : tensor<11xf32>, tensor<11xf32> -> tensor<11xf32>
  check.expect_eq_const %r, dense<[0x3F800001, 0x3F7FFFFF, 0x00000001, 0x00000001, 0x80000001, 0x7FC00000, 0x7F800000, 0x7F7FFFFF, 0x40000000, 0xBF800001, 0x7FC00000]> : tensor<11xf32>
  func.return
}

// Row 0 holds +NaN, -NaN, +-Inf, +-0 and ties: JAX orders by IEEE total order,
// +NaN first and -NaN last, +0 before -0, equal values by lower index.
func.func @top_k() {
  %x = stablehlo.constant dense<[[0x3F800000, 0x7FC00000, 0x40400000, 0xFFC00000, 0x7F800000, 0x40400000, 0x80000000, 0x00000000, 0xFF800000, 0x3F800000], [0x40A00000, 0x40800000, 0x40400000, 0x40000000, 0x3F800000, 0x00000000, 0xBF800000, 0xC0000000, 0xC0400000, 0xC0800000]]> : tensor<2x10xf32>
  %values, %indices = chlo.top_k(%x, k = 4) : tensor<2x10xf32> -> (tensor<2x4xf32>, tensor<2x4xi32>)
  check.expect_eq_const %values, dense<[[0x7FC00000, 0x7F800000, 0x40400000, 0x40400000], [0x40A00000, 0x40800000, 0x40400000, 0x40000000]]> : tensor<2x4xf32>
  check.expect_eq_const %indices, dense<[[1, 4, 2, 5], [0, 1, 2, 3]]> : tensor<2x4xi32>
  %all_values, %all_indices = chlo.top_k(%x, k = 10) : tensor<2x10xf32> -> (tensor<2x10xf32>, tensor<2x10xi32>)
  check.expect_eq_const %all_values, dense<[[0x7FC00000, 0x7F800000, 0x40400000, 0x40400000, 0x3F800000, 0x3F800000, 0x00000000, 0x80000000, 0xFF800000, 0xFFC00000], [0x40A00000, 0x40800000, 0x40400000, 0x40000000, 0x3F800000, 0x00000000, 0xBF800000, 0xC0000000, 0xC0400000, 0xC0800000]]> : tensor<2x10xf32>
  check.expect_eq_const %all_indices, dense<[[1, 4, 2, 5, 0, 9, 7, 6, 8, 3], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]> : tensor<2x10xi32>
  func.return
}

func.func @top_k_int() {
  %x = stablehlo.constant dense<[[3, 1, 3, -2, 7, 1]]> : tensor<1x6xi32>
  %values, %indices = chlo.top_k(%x, k = 4) : tensor<1x6xi32> -> (tensor<1x4xi32>, tensor<1x4xi32>)
  check.expect_eq_const %values, dense<[[7, 3, 3, 1]]> : tensor<1x4xi32>
  check.expect_eq_const %indices, dense<[[4, 0, 2, 1]]> : tensor<1x4xi32>
  func.return
}
