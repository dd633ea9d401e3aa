func.func @main(%a: tensor<36864xf64>) -> tensor<36864xf8E8M0FNU> {
  %0 = stablehlo.convert %a : (tensor<36864xf64>) -> tensor<36864xf8E8M0FNU>
  return %0 : tensor<36864xf8E8M0FNU>
}
