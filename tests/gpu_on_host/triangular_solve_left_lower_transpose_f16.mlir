func.func @main(%a: tensor<2x5x5xf16>, %b: tensor<2x5x3xf16>) -> tensor<2x5x3xf16> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<2x5x5xf16>, tensor<2x5x3xf16>) -> tensor<2x5x3xf16>
  return %0 : tensor<2x5x3xf16>
}
