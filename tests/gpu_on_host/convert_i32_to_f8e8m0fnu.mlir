func.func @main(%a: tensor<300xi32>) -> tensor<300xf8E8M0FNU> {
  %0 = stablehlo.convert %a : (tensor<300xi32>) -> tensor<300xf8E8M0FNU>
  return %0 : tensor<300xf8E8M0FNU>
}
