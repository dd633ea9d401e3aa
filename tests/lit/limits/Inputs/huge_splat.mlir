// A giant constant written in a few bytes: a splat of 4 * 10^12 bytes, which
// constant folding or the run would have to materialize.
func.func @main() -> tensor<f32> {
  %0 = stablehlo.constant dense<1.0> : tensor<100000x100000x100xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<100000x100000x100xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
