func.func @main(%bias: tensor<4xf32>, %x: tensor<2x9x8x6xf32>, %w: tensor<3x3x6x4xf32>) -> tensor<2x7x6x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x8x6xf32>, tensor<3x3x6x4xf32>) -> tensor<2x7x6x4xf32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [3] : (tensor<4xf32>) -> tensor<2x7x6x4xf32>
  %1 = stablehlo.add %0, %b : tensor<2x7x6x4xf32>
  %z = stablehlo.constant dense<0.0> : tensor<2x7x6x4xf32>
  %2 = stablehlo.maximum %1, %z : tensor<2x7x6x4xf32>
  return %2 : tensor<2x7x6x4xf32>
}
