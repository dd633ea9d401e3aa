func.func @main(%a: tensor<3x700xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %init = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.multiply across dimensions = [1] : (tensor<3x700xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}
