func.func @main(%x: tensor<4000xf16>, %y: tensor<4000xf16>) -> tensor<4000xi1> {
  %z = stablehlo.constant dense<0.0> : tensor<4000xf16>
  %nan = stablehlo.constant dense<0x7E00> : tensor<4000xf16>
  %ex = stablehlo.compare EQ, %x, %z, FLOAT : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  %sx = stablehlo.select %ex, %z, %x : tensor<4000xi1>, tensor<4000xf16>
  %nx = stablehlo.compare NE, %x, %x, FLOAT : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  %kx = stablehlo.select %nx, %nan, %sx : tensor<4000xi1>, tensor<4000xf16>
  %ey = stablehlo.compare EQ, %y, %z, FLOAT : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  %sy = stablehlo.select %ey, %z, %y : tensor<4000xi1>, tensor<4000xf16>
  %ny = stablehlo.compare NE, %y, %y, FLOAT : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  %ky = stablehlo.select %ny, %nan, %sy : tensor<4000xi1>, tensor<4000xf16>
  %c = stablehlo.compare LT, %kx, %ky, TOTALORDER : (tensor<4000xf16>, tensor<4000xf16>) -> tensor<4000xi1>
  return %c : tensor<4000xi1>
}
