func.func @main(%a: tensor<3x33xcomplex<f64>>, %b: tensor<3x33xcomplex<f64>>) -> tensor<3x33xi1> {
  %0 = stablehlo.compare NE, %a, %b, FLOAT : (tensor<3x33xcomplex<f64>>, tensor<3x33xcomplex<f64>>) -> tensor<3x33xi1>
  return %0 : tensor<3x33xi1>
}
