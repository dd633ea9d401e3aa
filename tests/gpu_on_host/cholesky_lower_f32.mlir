func.func @main(%a: tensor<3x6x6xf32>) -> tensor<3x6x6xf32> {
  %0 = stablehlo.cholesky %a, lower = true : tensor<3x6x6xf32>
  return %0 : tensor<3x6x6xf32>
}
