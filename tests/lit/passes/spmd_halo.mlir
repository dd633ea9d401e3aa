// RUN: kiln-opt --passes=sharding_propagation,spmd_partition %s | FileCheck %s
// Windows across a split spatial dimension ("SAME" windows, stride 1): each
// device widens its block by the edge rows of its neighbours' blocks
// (collective_permute each way) and runs the window unpadded along that
// dimension; no all_gather. Where a device has no neighbour the halo is the
// padding: zeros for a convolution (what collective_permute gives), the init
// value for reduce_window (selected by the device's block index).

// CHECK-LABEL: func.func public @conv
// CHECK-SAME: %arg0: tensor<2x4x6x3xf32>
// CHECK-NOT: all_gather
// CHECK: %[[LOW:.*]] = stablehlo.slice %arg0 [0:2, 3:4, 0:6, 0:3]
// CHECK: %[[FROM_BEFORE:.*]] = "stablehlo.collective_permute"(%[[LOW]]) {{.*}}source_target_pairs = dense<{{\[\[}}0, 1]]>
// CHECK: %[[HIGH:.*]] = stablehlo.slice %arg0 [0:2, 0:1, 0:6, 0:3]
// CHECK: %[[FROM_AFTER:.*]] = "stablehlo.collective_permute"(%[[HIGH]]) {{.*}}source_target_pairs = dense<{{\[\[}}1, 0]]>
// CHECK: %[[WIDE:.*]] = stablehlo.concatenate %[[FROM_BEFORE]], %arg0, %[[FROM_AFTER]], dim = 1 : {{.*}} -> tensor<2x6x6x3xf32>
// CHECK: stablehlo.convolution(%[[WIDE]], %arg1) {{.*}}pad = {{\[\[}}0, 0], [1, 1]]{{.*}} -> tensor<2x4x6x4xf32>
// CHECK-NOT: all_gather
// CHECK: return

// CHECK-LABEL: func.func public @pool
// CHECK-NOT: all_gather
// CHECK: %[[EDGE:.*]] = stablehlo.slice %arg0 [2:4, 0:5]
// CHECK: %[[HALO:.*]] = "stablehlo.collective_permute"(%[[EDGE]])
// CHECK: %[[FIRST:.*]] = stablehlo.compare EQ
// CHECK: %[[INIT:.*]] = stablehlo.broadcast_in_dim %cst
// CHECK: %[[FILLED:.*]] = stablehlo.select %[[FIRST]], %[[INIT]], %[[HALO]]
// CHECK: %[[WIDE:.*]] = stablehlo.concatenate %[[FILLED]], %arg0, dim = 0 : {{.*}} -> tensor<6x5xf32>
// CHECK: "stablehlo.reduce_window"(%[[WIDE]], %cst) <{padding = dense<0> : tensor<2x2xi64>
// CHECK: (tensor<6x5xf32>, tensor<f32>) -> tensor<4x5xf32>
// CHECK-NOT: all_gather
// CHECK: return

// A halo wider than a block (window 11 over blocks of 4): gathered, no permute.
// CHECK-LABEL: func.func public @wide
// CHECK-NOT: collective_permute
// CHECK: all_gather
// CHECK-NOT: collective_permute
// CHECK: return
module @halo {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @conv(%img: tensor<2x8x6x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}, {}]>}, %k: tensor<3x3x3x4xf32>)
      -> (tensor<2x8x6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}, {}, {}]>}) {
    %0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x8x6x4xf32>
    return %0 : tensor<2x8x6x4xf32>
  }
  func.func public @pool(%x: tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 3, 1>, padding = dense<[[2, 0], [0, 0]]> : tensor<2x2xi64>} : (tensor<8x5xf32>, tensor<f32>) -> tensor<8x5xf32>
    return %0 : tensor<8x5xf32>
  }
  func.func public @wide(%x: tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {window_dimensions = array<i64: 11, 1>, padding = dense<[[5, 5], [0, 0]]> : tensor<2x2xi64>} : (tensor<8x5xf32>, tensor<f32>) -> tensor<8x5xf32>
    return %0 : tensor<8x5xf32>
  }
}
