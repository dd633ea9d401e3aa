// chlo's inverse trigonometric and hyperbolic ops on complex values, and
// chlo.tan, on every back end: each result is checked through the forward
// function of the StableHLO spec (cos(acos z) = z, ...), or through exp for
// cosh, sinh, acosh and asinh (cosh w = (e^w + e^-w) / 2). Values away from
// the branch cuts, where the inverse is well conditioned. The branch cuts
// themselves are checked against NumPy in tests/python/test_language.py.

func.func @acos_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %w = chlo.acos %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %back = stablehlo.cosine %w : tensor<6xcomplex<f32>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @asin_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %w = chlo.asin %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %back = stablehlo.sine %w : tensor<6xcomplex<f32>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @atan_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %w = chlo.atan %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %back = stablehlo.tan %w : tensor<6xcomplex<f32>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @atanh_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %w = chlo.atanh %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %back = stablehlo.tanh %w : tensor<6xcomplex<f32>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @cosh_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %r = chlo.cosh %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %e = stablehlo.exponential %z : tensor<6xcomplex<f32>>
  %nz = stablehlo.negate %z : tensor<6xcomplex<f32>>
  %en = stablehlo.exponential %nz : tensor<6xcomplex<f32>>
  %s = stablehlo.add %e, %en : tensor<6xcomplex<f32>>
  %half = stablehlo.constant dense<(0.5, 0.0)> : tensor<6xcomplex<f32>>
  %expected = stablehlo.multiply %s, %half : tensor<6xcomplex<f32>>
  check.expect_almost_eq %r, %expected, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @sinh_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %r = chlo.sinh %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %e = stablehlo.exponential %z : tensor<6xcomplex<f32>>
  %nz = stablehlo.negate %z : tensor<6xcomplex<f32>>
  %en = stablehlo.exponential %nz : tensor<6xcomplex<f32>>
  %s = stablehlo.subtract %e, %en : tensor<6xcomplex<f32>>
  %half = stablehlo.constant dense<(0.5, 0.0)> : tensor<6xcomplex<f32>>
  %expected = stablehlo.multiply %s, %half : tensor<6xcomplex<f32>>
  check.expect_almost_eq %r, %expected, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @acosh_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %w = chlo.acosh %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %back = chlo.cosh %w : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @asinh_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %w = chlo.asinh %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %back = chlo.sinh %w : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @tan_f32() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f32>>
  %t = chlo.tan %z : tensor<6xcomplex<f32>> -> tensor<6xcomplex<f32>>
  %s = stablehlo.sine %z : tensor<6xcomplex<f32>>
  %c = stablehlo.cosine %z : tensor<6xcomplex<f32>>
  %expected = stablehlo.divide %s, %c : tensor<6xcomplex<f32>>
  check.expect_almost_eq %t, %expected, tolerance = 1.0e-4 : f64 : tensor<6xcomplex<f32>>
  func.return
}

func.func @acos_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %w = chlo.acos %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %back = stablehlo.cosine %w : tensor<6xcomplex<f64>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @asin_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %w = chlo.asin %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %back = stablehlo.sine %w : tensor<6xcomplex<f64>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @atan_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %w = chlo.atan %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %back = stablehlo.tan %w : tensor<6xcomplex<f64>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @atanh_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %w = chlo.atanh %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %back = stablehlo.tanh %w : tensor<6xcomplex<f64>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @cosh_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %r = chlo.cosh %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %e = stablehlo.exponential %z : tensor<6xcomplex<f64>>
  %nz = stablehlo.negate %z : tensor<6xcomplex<f64>>
  %en = stablehlo.exponential %nz : tensor<6xcomplex<f64>>
  %s = stablehlo.add %e, %en : tensor<6xcomplex<f64>>
  %half = stablehlo.constant dense<(0.5, 0.0)> : tensor<6xcomplex<f64>>
  %expected = stablehlo.multiply %s, %half : tensor<6xcomplex<f64>>
  check.expect_almost_eq %r, %expected, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @sinh_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %r = chlo.sinh %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %e = stablehlo.exponential %z : tensor<6xcomplex<f64>>
  %nz = stablehlo.negate %z : tensor<6xcomplex<f64>>
  %en = stablehlo.exponential %nz : tensor<6xcomplex<f64>>
  %s = stablehlo.subtract %e, %en : tensor<6xcomplex<f64>>
  %half = stablehlo.constant dense<(0.5, 0.0)> : tensor<6xcomplex<f64>>
  %expected = stablehlo.multiply %s, %half : tensor<6xcomplex<f64>>
  check.expect_almost_eq %r, %expected, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @acosh_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %w = chlo.acosh %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %back = chlo.cosh %w : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @asinh_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %w = chlo.asinh %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %back = chlo.sinh %w : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  check.expect_almost_eq %back, %z, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @tan_f64() {
  %z = stablehlo.constant dense<[(0.5, 0.25), (-0.75, 0.5), (0.25, -1.5), (2.0, 1.0), (-1.25, -0.5), (0.1, 0.9)]> : tensor<6xcomplex<f64>>
  %t = chlo.tan %z : tensor<6xcomplex<f64>> -> tensor<6xcomplex<f64>>
  %s = stablehlo.sine %z : tensor<6xcomplex<f64>>
  %c = stablehlo.cosine %z : tensor<6xcomplex<f64>>
  %expected = stablehlo.divide %s, %c : tensor<6xcomplex<f64>>
  check.expect_almost_eq %t, %expected, tolerance = 1.0e-10 : f64 : tensor<6xcomplex<f64>>
  func.return
}

func.func @tan_real() {
  %x = stablehlo.constant dense<[-1.0, -0.25, 0.0, 0.5, 1.25]> : tensor<5xf32>
  %t = chlo.tan %x : tensor<5xf32> -> tensor<5xf32>
  %expected = stablehlo.tan %x : tensor<5xf32>
  check.expect_eq %t, %expected : tensor<5xf32>
  func.return
}

// top_k of booleans against a stable descending sort.
func.func @top_k_bool() {
  %iota = stablehlo.iota dim = 1 : tensor<2x5xi32>
  %x = stablehlo.constant dense<[[false, true, false, true, true], [false, false, false, false, true]]> : tensor<2x5xi1>
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<2x5xi1> -> (tensor<2x3xi1>, tensor<2x3xi32>)
  %sorted:2 = "stablehlo.sort"(%x, %iota) ({
  ^bb0(%a: tensor<i1>, %b: tensor<i1>, %i: tensor<i32>, %j: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x5xi1>, tensor<2x5xi32>) -> (tensor<2x5xi1>, tensor<2x5xi32>)
  %v = stablehlo.slice %sorted#0 [0:2, 0:3] : (tensor<2x5xi1>) -> tensor<2x3xi1>
  %i = stablehlo.slice %sorted#1 [0:2, 0:3] : (tensor<2x5xi32>) -> tensor<2x3xi32>
  check.expect_eq %values, %v : tensor<2x3xi1>
  check.expect_eq %indices, %i : tensor<2x3xi32>
  func.return
}
