func.func @main() -> tensor<2147483648x2147483648xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<2147483648x2147483648xf32>
  return %0 : tensor<2147483648x2147483648xf32>
}
