func.func @main(%a: tensor<2x5x5xcomplex<f64>>, %b: tensor<2x3x5xcomplex<f64>>) -> tensor<2x3x5xcomplex<f64>> {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true}> : (tensor<2x5x5xcomplex<f64>>, tensor<2x3x5xcomplex<f64>>) -> tensor<2x3x5xcomplex<f64>>
  return %0 : tensor<2x3x5xcomplex<f64>>
}
