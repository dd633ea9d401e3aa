func.func @main(%a: tensor<4608xf32>) -> tensor<4608xf8E8M0FNU> {
  %0 = stablehlo.convert %a : (tensor<4608xf32>) -> tensor<4608xf8E8M0FNU>
  return %0 : tensor<4608xf8E8M0FNU>
}
