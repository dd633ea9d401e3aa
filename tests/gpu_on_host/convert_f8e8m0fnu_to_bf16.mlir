func.func @main(%a: tensor<2x256xf8E8M0FNU>) -> tensor<2x256xbf16> {
  %0 = stablehlo.convert %a : (tensor<2x256xf8E8M0FNU>) -> tensor<2x256xbf16>
  return %0 : tensor<2x256xbf16>
}
