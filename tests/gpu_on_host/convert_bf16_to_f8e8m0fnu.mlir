func.func @main(%a: tensor<1152xbf16>) -> tensor<1152xf8E8M0FNU> {
  %0 = stablehlo.convert %a : (tensor<1152xbf16>) -> tensor<1152xf8E8M0FNU>
  return %0 : tensor<1152xf8E8M0FNU>
}
