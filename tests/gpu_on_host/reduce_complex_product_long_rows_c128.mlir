func.func @main(%a: tensor<2x1000xcomplex<f64>>) -> tensor<2xcomplex<f64>> {
  %init = stablehlo.constant dense<(0.5, -2.0)> : tensor<complex<f64>>
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.multiply across dimensions = [1] : (tensor<2x1000xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2xcomplex<f64>>
  return %0 : tensor<2xcomplex<f64>>
}
