func.func @main(%a: tensor<4x8x3xf32>, %b: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [2] x [0], contracting_dims = [1] x [1] : (tensor<4x8x3xf32>, tensor<3x8x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}
