func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<5x3xui32>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5x3xui32>)
  return %0, %1 : tensor<2xui64>, tensor<5x3xui32>
}
