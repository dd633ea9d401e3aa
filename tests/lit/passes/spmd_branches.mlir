// RUN: kiln-opt --passes=sharding_propagation,spmd_partition %s | FileCheck %s
// if/case branches run on local blocks: a result split over "d" is returned
// split by every branch, and what a branch reads from outside is resharded
// inside it (every device takes the same branch: the predicate is replicated).

// CHECK-LABEL: func.func public @main
// CHECK-SAME: %arg1: tensor<4x4xf32>
// CHECK: %[[R:.*]]:2 = "stablehlo.if"(%arg0) ({
// CHECK-NEXT: %[[T:.*]] = stablehlo.tanh %arg1 : tensor<4x4xf32>
// CHECK: %[[P:.*]] = stablehlo.reduce(%arg1 {{.*}} -> tensor<4xf32>
// CHECK: %[[S:.*]] = "stablehlo.all_reduce"(%[[P]])
// CHECK: stablehlo.return %[[T]], %[[S]] : tensor<4x4xf32>, tensor<4xf32>
// CHECK: }, {
// CHECK-NEXT: %[[M:.*]] = stablehlo.dot_general %arg1, %arg2{{.*}} -> tensor<4x4xf32>
// CHECK: %[[G:.*]] = "stablehlo.all_gather"(%[[M]])
// CHECK: %[[X:.*]] = stablehlo.reduce(%[[G]]
// CHECK: stablehlo.return %[[M]], %[[X]] : tensor<4x4xf32>, tensor<4xf32>
// CHECK: }) : (tensor<i1>) -> (tensor<4x4xf32>, tensor<4xf32>)
// CHECK: return %[[R]]#0, %[[R]]#1 : tensor<4x4xf32>, tensor<4xf32>
module @branches {
  sdy.mesh @mesh = <["d"=2]>
  func.func public @main(%p: tensor<i1>, %x: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}, %w: tensor<4x4xf32>)
      -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}, tensor<4xf32>) {
    %r:2 = "stablehlo.if"(%p) ({
      %t = stablehlo.tanh %x : tensor<8x4xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
      stablehlo.return %t, %s : tensor<8x4xf32>, tensor<4xf32>
    }, {
      %m = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%m init: %zero) applies stablehlo.maximum across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
      stablehlo.return %m, %s : tensor<8x4xf32>, tensor<4xf32>
    }) : (tensor<i1>) -> (tensor<8x4xf32>, tensor<4xf32>)
    return %r#0, %r#1 : tensor<8x4xf32>, tensor<4xf32>
  }
}
