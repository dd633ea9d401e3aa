func.func @main(%x: tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>> {
  %0 = stablehlo.fft %x, type = IFFT, length = [5] : (tensor<3x5xcomplex<f64>>) -> tensor<3x5xcomplex<f64>>
  return %0 : tensor<3x5xcomplex<f64>>
}
