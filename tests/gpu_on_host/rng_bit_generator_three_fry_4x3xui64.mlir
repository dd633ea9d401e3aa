func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui64>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x3xui64>)
  return %0, %1 : tensor<2xui64>, tensor<4x3xui64>
}
