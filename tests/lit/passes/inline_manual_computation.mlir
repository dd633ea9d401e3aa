// RUN: kiln-opt --passes=inline_manual_computation --split-input-file %s | FileCheck %s
// A function that is one fully manual sdy.manual_computation (pmap, shard_map
// over every axis) becomes the per-device program: shard-shaped parameters and
// results, the body inlined with its collectives.

// CHECK-LABEL: func.func public @main
// CHECK-SAME: (%arg0: tensor<1xf32>) -> tensor<1xf32>
// CHECK-NOT: sdy.manual_computation
// CHECK: %[[SUM:.*]] = "stablehlo.all_reduce"(%arg0)
// CHECK: %[[OUT:.*]] = stablehlo.add %arg0, %[[SUM]] : tensor<1xf32>
// CHECK: return %[[OUT]] : tensor<1xf32>
module @pmap attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=2]>
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>, manual_axes = #sdy<manual_axes{"i"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<1xf32>):
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<1xf32>) -> tensor<1xf32>
      %2 = stablehlo.add %arg1, %1 : tensor<1xf32>
      "sdy.return"(%2) : (tensor<1xf32>) -> ()
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}

// -----

// Manual over one of two mesh axes: left for the SPMD partitioner.
// CHECK-LABEL: func.func public @main
// CHECK: sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}]>] out_shardings=[<@mesh, [{"i"}]>] manual_axes={"i"} (%arg1: tensor<1xf32>)
module @partial attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=2, "j"=2]>
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>, manual_axes = #sdy<manual_axes{"i"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"i"}]>]>}> ({
    ^bb0(%arg1: tensor<1xf32>):
      "sdy.return"(%arg1) : (tensor<1xf32>) -> ()
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
