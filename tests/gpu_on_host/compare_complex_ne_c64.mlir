func.func @main(%a: tensor<97xcomplex<f32>>, %b: tensor<97xcomplex<f32>>) -> tensor<97xi1> {
  %0 = stablehlo.compare NE, %a, %b, FLOAT : (tensor<97xcomplex<f32>>, tensor<97xcomplex<f32>>) -> tensor<97xi1>
  return %0 : tensor<97xi1>
}
