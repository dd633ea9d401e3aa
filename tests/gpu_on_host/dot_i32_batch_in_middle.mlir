func.func @main(%a: tensor<3x5x7xi32>, %b: tensor<7x3x4xi32>) -> tensor<3x5x4xi32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<3x5x7xi32>, tensor<7x3x4xi32>) -> tensor<3x5x4xi32>
  return %0 : tensor<3x5x4xi32>
}
