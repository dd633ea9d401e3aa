func.func @main(%a: tensor<576xf16>) -> tensor<576xf8E8M0FNU> {
  %0 = stablehlo.convert %a : (tensor<576xf16>) -> tensor<576xf8E8M0FNU>
  return %0 : tensor<576xf8E8M0FNU>
}
