func.func @main(%x: tensor<4x3x7xf64>, %w: tensor<2x3x3xf64>) -> tensor<4x2x14xf64> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[2, 1]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x3x7xf64>, tensor<2x3x3xf64>) -> tensor<4x2x14xf64>
  return %0 : tensor<4x2x14xf64>
}
