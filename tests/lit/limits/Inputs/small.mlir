func.func @main() -> tensor<4xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
