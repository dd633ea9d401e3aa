func.func @main(%x: tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32> {
  %0 = stablehlo.fft %x, type = IRFFT, length = [16] : (tensor<2x9xcomplex<f32>>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
