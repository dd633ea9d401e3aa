// RUN: kiln-opt --passes=spmd_partition --split-input-file %s | FileCheck %s
// Each public function becomes the program every device runs on its blocks,
// with the collectives its (propagated) shardings need.

// A dot whose contracting dimension is split over "y": each device computes a
// partial product on local blocks, summed by an all_reduce over the "y"
// groups; the module now declares one partition per device.
// CHECK-LABEL: module @contracting attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}
// CHECK: func.func public @main(%arg0: tensor<4x2xf32> {{.*}}, %arg1: tensor<2x6xf32> {{.*}}) -> (tensor<4x6xf32>
// CHECK: %[[P:.*]] = stablehlo.dot_general %arg0, %arg1{{.*}} -> tensor<4x6xf32>
// CHECK: %[[S:.*]] = "stablehlo.all_reduce"(%[[P]]) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}>
// CHECK: stablehlo.add
// CHECK: return %[[S]] : tensor<4x6xf32>
module @contracting {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>},
                         %arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>})
      -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>} : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
}

// -----

// Resharding: the operand split over rows by "x" becomes split over columns
// by "y". The rows are gathered (all_gather over "x"), then each device cuts
// out its columns at an offset read from its partition id.
// CHECK-LABEL: module @reshard
// CHECK: func.func public @main(%arg0: tensor<2x4xf32> {{.*}}) -> (tensor<4x2xf32>
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, {{.*}}replica_groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>
// CHECK: %[[ID:.*]] = stablehlo.partition_id : tensor<ui32>
// CHECK: %[[I:.*]] = stablehlo.convert %[[ID]] : (tensor<ui32>) -> tensor<i32>
// CHECK: %[[TABLE:.*]] = stablehlo.constant dense<[0, 2, 0, 2]> : tensor<4xi32>
// CHECK: %[[PICK:.*]] = stablehlo.dynamic_slice %[[TABLE]], %[[I]], sizes = [1]
// CHECK: %[[OFFSET:.*]] = stablehlo.reshape %[[PICK]] : (tensor<1xi32>) -> tensor<i32>
// CHECK: %[[MINE:.*]] = stablehlo.dynamic_slice %[[ALL]], %{{.*}}, %[[OFFSET]], sizes = [4, 2]
// CHECK: return %[[MINE]] : tensor<4x2xf32>
module @reshard {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
    return %arg0 : tensor<4x4xf32>
  }
}

// -----

// An op without a sharding rule (sort along the split dimension) runs whole
// on every device: its operand is gathered first.
// CHECK-LABEL: module @whole
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%arg0)
// CHECK: "stablehlo.sort"(%[[ALL]])
// CHECK: }) : (tensor<8xf32>) -> tensor<8xf32>
module @whole {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>})
      -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}


// -----

// A split that only moves to another dimension goes by one all_to_all
// instead of a gather and a slice.
// CHECK-LABEL: module @moves
// CHECK: func.func public @main(%arg0: tensor<2x8xf32> {{.*}}) -> (tensor<8x2xf32>
// CHECK: %[[T:.*]] = "stablehlo.all_to_all"(%arg0) <{channel_handle = {{.*}}, concat_dimension = 0 : i64, {{.*}}split_count = 4 : i64, split_dimension = 1 : i64}> : (tensor<2x8xf32>) -> tensor<8x2xf32>
// CHECK-NOT: all_gather
// CHECK: return %[[T]]
module @moves {
  sdy.mesh @mesh = <["d"=4]>
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>})
      -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"d"}]>}) {
    return %arg0 : tensor<8x8xf32>
  }
}

// -----

// Partial products wanted split over the axis they are partial over: one
// reduce_scatter sums and splits the rows.
// CHECK-LABEL: module @scatter
// CHECK: %[[P:.*]] = stablehlo.dot_general %arg0, %arg1{{.*}} -> tensor<8x4xf32>
// CHECK: %[[S:.*]] = "stablehlo.reduce_scatter"(%[[P]]) <{{.*}}scatter_dimension = 0 : i64{{.*}}> ({
// CHECK: }) : (tensor<8x4xf32>) -> tensor<2x4xf32>
// CHECK: return %[[S]] : tensor<2x4xf32>
module @scatter {
  sdy.mesh @mesh = <["d"=4]>
  func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"d"}]>},
                         %arg1: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>})
      -> (tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"d"}, {}]>]>} : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
