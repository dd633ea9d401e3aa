func.func @main(%s: tensor<3xui64>) -> (tensor<3xui64>, tensor<7xf32>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<7xf32>)
  return %0, %1 : tensor<3xui64>, tensor<7xf32>
}
