func.func @main(%a: tensor<6x4x3xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  %init = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f64>>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.multiply across dimensions = [0, 2] : (tensor<6x4x3xcomplex<f64>>, tensor<complex<f64>>) -> tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}
