// RUN: kiln-opt --passes=sharding_propagation,spmd_partition %s | FileCheck %s
// Shardings flow through a while loop's carried values, and the loop runs on
// local blocks: a batch-split loop (what jax.lax.fori_loop over layers
// lowers to) needs no collective at all.

// CHECK-LABEL: func.func public @main
// CHECK-SAME: (%arg0: tensor<2x6xf32> {{.*}}, %arg1: tensor<6x6xf32> {{.*}}) -> (tensor<2x6xf32>
// CHECK-NOT: all_gather
// CHECK: stablehlo.while(%[[W:.*]] = %arg1, %[[I:.*]] = %{{.*}}, %[[H:.*]] = %arg0) : tensor<6x6xf32>, tensor<i32>, tensor<2x6xf32>
// CHECK: stablehlo.dot_general %[[H]], %[[W]]{{.*}} -> tensor<2x6xf32>
// CHECK-NOT: all_gather
// CHECK: return
module @loop {
  sdy.mesh @mesh = <["d"=4]>
  func.func public @main(%x: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}, %w: tensor<6x6xf32>)
      -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:3 = stablehlo.while(%iw = %w, %i = %zero, %h = %x) : tensor<6x6xf32>, tensor<i32>, tensor<8x6xf32>
     cond {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.add %i, %one : tensor<i32>
      %m = stablehlo.dot_general %h, %iw, contracting_dims = [1] x [0] : (tensor<8x6xf32>, tensor<6x6xf32>) -> tensor<8x6xf32>
      %t = stablehlo.tanh %m : tensor<8x6xf32>
      stablehlo.return %iw, %next, %t : tensor<6x6xf32>, tensor<i32>, tensor<8x6xf32>
    }
    return %r#2 : tensor<8x6xf32>
  }
}
