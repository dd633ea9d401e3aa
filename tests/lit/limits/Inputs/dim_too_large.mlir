func.func @main(%x: tensor<281474976710657xf32>) -> tensor<281474976710657xf32> {
  return %x : tensor<281474976710657xf32>
}
