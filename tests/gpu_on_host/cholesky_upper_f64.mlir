func.func @main(%a: tensor<3x6x6xf64>) -> tensor<3x6x6xf64> {
  %0 = stablehlo.cholesky %a, lower = false : tensor<3x6x6xf64>
  return %0 : tensor<3x6x6xf64>
}
