func.func @main(%x: tensor<3x20xf32>, %i: tensor<3x20xi32>) -> (tensor<3x20xf32>, tensor<3x20xi32>) {
  %0:2 = "stablehlo.sort"(%x, %i) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %1 = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  }) : (tensor<3x20xf32>, tensor<3x20xi32>) -> (tensor<3x20xf32>, tensor<3x20xi32>)
  return %0#0, %0#1 : tensor<3x20xf32>, tensor<3x20xi32>
}
