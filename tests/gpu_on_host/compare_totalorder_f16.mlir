func.func @main(%x: tensor<4000xf16>, %y: tensor<4000xf16>) -> (tensor<4000xi1>, tensor<4000xi1>) {
  %0 = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  %1 = stablehlo.compare EQ, %x, %y, TOTALORDER : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  return %0, %1 : tensor<4000xi1>, tensor<4000xi1>
}
