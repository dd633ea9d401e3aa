func.func @main(%a: tensor<2x5x5xcomplex<f32>>, %b: tensor<2x5x3xcomplex<f32>>) -> tensor<2x5x3xcomplex<f32>> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false}> : (tensor<2x5x5xcomplex<f32>>, tensor<2x5x3xcomplex<f32>>) -> tensor<2x5x3xcomplex<f32>>
  return %0 : tensor<2x5x3xcomplex<f32>>
}
