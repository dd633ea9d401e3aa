func.func @main(%x: tensor<2x4xcomplex<f64>>) -> tensor<2x7xf64> {
  %0 = stablehlo.fft %x, type = IRFFT, length = [7] : (tensor<2x4xcomplex<f64>>) -> tensor<2x7xf64>
  return %0 : tensor<2x7xf64>
}
