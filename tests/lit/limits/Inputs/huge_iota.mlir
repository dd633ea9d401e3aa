// 4 * 10^12 bytes: more than any machine these tests run on.
func.func @main() -> tensor<100000x100000x100xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<100000x100000x100xf32>
  return %0 : tensor<100000x100000x100xf32>
}
