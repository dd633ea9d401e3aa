func.func @main(%x: tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>> {
  %0 = stablehlo.fft %x, type = FFT, length = [3,4] : (tensor<2x3x4xcomplex<f64>>) -> tensor<2x3x4xcomplex<f64>>
  return %0 : tensor<2x3x4xcomplex<f64>>
}
