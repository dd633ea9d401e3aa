// One value of 2 GiB: over a KILN_MEMORY_LIMIT of 1G, under 3G.
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<1024x1024x512xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.maximum across dimensions = [0, 1, 2] : (tensor<1024x1024x512xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
