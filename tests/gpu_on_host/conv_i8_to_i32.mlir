func.func @main(%x: tensor<1x5x5x2xi8>, %w: tensor<2x2x2x3xi8>) -> tensor<1x4x4x3xi32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x5x5x2xi8>, tensor<2x2x2x3xi8>) -> tensor<1x4x4x3xi32>
  return %0 : tensor<1x4x4x3xi32>
}
