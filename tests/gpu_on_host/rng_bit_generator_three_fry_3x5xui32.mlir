func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
  return %0, %1 : tensor<2xui64>, tensor<3x5xui32>
}
