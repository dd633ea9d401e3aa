// A sort comparator that reads a value computed at run time (an argument).
func.func @main(%x: tensor<5xf32>, %t: tensor<f32>) -> tensor<5xf32> {
  %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %d = stablehlo.subtract %a, %t : tensor<f32>
    %e = stablehlo.abs %d : tensor<f32>
    %d2 = stablehlo.subtract %b, %t : tensor<f32>
    %e2 = stablehlo.abs %d2 : tensor<f32>
    %3 = stablehlo.compare LT, %e, %e2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %3 : tensor<i1>
  }) : (tensor<5xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
