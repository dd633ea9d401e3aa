func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3xf64>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3xf64>)
  return %0, %1 : tensor<2xui64>, tensor<3xf64>
}
