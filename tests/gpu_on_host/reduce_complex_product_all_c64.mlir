func.func @main(%a: tensor<4x6xcomplex<f32>>) -> tensor<complex<f32>> {
  %init = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.multiply across dimensions = [0, 1] : (tensor<4x6xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
  return %0 : tensor<complex<f32>>
}
