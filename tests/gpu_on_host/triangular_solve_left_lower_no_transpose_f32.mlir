func.func @main(%a: tensor<2x5x5xf32>, %b: tensor<2x5x3xf32>) -> tensor<2x5x3xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x5x5xf32>, tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  return %0 : tensor<2x5x3xf32>
}
