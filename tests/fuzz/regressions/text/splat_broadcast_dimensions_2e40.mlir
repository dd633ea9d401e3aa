func.func @main(%a: tensor<4xf32>) -> tensor<4x4xf32> {
  %0 = "stablehlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<0> : tensor<1099511627776xi64>} : (tensor<4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
