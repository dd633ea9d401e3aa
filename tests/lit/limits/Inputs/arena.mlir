// Two 32 MiB intermediates live at once (the iota and the first sort's
// result, while the second sort reads one and the arena holds both): each
// fits a KILN_MEMORY_LIMIT of 40M, the cpu back end's arena does not.
func.func @main() -> tensor<8388608xf32> {
  %0 = stablehlo.iota dim = 0 : tensor<8388608xf32>
  %1 = "stablehlo.sort"(%0) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<8388608xf32>) -> tensor<8388608xf32>
  %2 = stablehlo.negate %1 : tensor<8388608xf32>
  %3 = "stablehlo.sort"(%2) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<8388608xf32>) -> tensor<8388608xf32>
  %4 = stablehlo.add %3, %1 : tensor<8388608xf32>
  return %4 : tensor<8388608xf32>
}
