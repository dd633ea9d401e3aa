func.func @main(%x: tensor<2x7xf32>) -> tensor<2x4xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = RFFT, length = [7] : (tensor<2x7xf32>) -> tensor<2x4xcomplex<f32>>
  return %0 : tensor<2x4xcomplex<f32>>
}
