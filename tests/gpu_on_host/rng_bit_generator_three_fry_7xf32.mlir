func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<7xf32>) {
  %0, %1 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xf32>)
  return %0, %1 : tensor<2xui64>, tensor<7xf32>
}
