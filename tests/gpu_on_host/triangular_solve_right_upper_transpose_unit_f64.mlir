func.func @main(%a: tensor<2x5x5xf64>, %b: tensor<2x3x5xf64>) -> tensor<2x3x5xf64> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = false, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = true}> : (tensor<2x5x5xf64>, tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}
