func.func @main(%x: tensor<2x4xcomplex<f64>>) -> tensor<2x6xf64> {
  %0 = stablehlo.fft %x, type = IRFFT, length = [2,6] : (tensor<2x4xcomplex<f64>>) -> tensor<2x6xf64>
  return %0 : tensor<2x6xf64>
}
