// RUN: kiln-opt --passes=combine_all_reduce %s | FileCheck %s
// Independent all_reduces that reduce alike become one variadic all_reduce
// at the last one's place; ops using an earlier one's result move after it.

// CHECK-LABEL: func.func public @gradients
// CHECK-NEXT: %[[DA:.*]] = stablehlo.multiply %arg0, %arg0
// CHECK-NEXT: %[[DB:.*]] = stablehlo.negate %arg1
// CHECK-NEXT: %[[R:.*]]:3 = "stablehlo.all_reduce"(%arg0, %[[DA]], %[[DB]])
// CHECK-SAME: handle = 1
// CHECK: stablehlo.add
// CHECK: (tensor<4xf32>, tensor<4xf32>, tensor<2x3xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x3xf32>)
// CHECK-NEXT: %[[U:.*]] = stablehlo.subtract %[[R]]#0, %arg0
// CHECK-NEXT: %[[V:.*]] = stablehlo.exponential %[[U]]
// CHECK-NEXT: return %[[V]], %[[R]]#1, %[[R]]#2
func.func public @gradients(%a: tensor<4xf32>, %b: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x3xf32>) {
  %ra = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %u = stablehlo.subtract %ra, %a : tensor<4xf32>
  %da = stablehlo.multiply %a, %a : tensor<4xf32>
  %rda = "stablehlo.all_reduce"(%da) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %v = stablehlo.exponential %u : tensor<4xf32>
  %db = stablehlo.negate %b : tensor<2x3xf32>
  %rdb = "stablehlo.all_reduce"(%db) <{channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %v, %rda, %rdb : tensor<4xf32>, tensor<4xf32>, tensor<2x3xf32>
}

// Left apart: another combining op, other groups, another element type, an
// all_reduce of another's result, and one past an op with side effects.
// CHECK-LABEL: func.func public @apart
// CHECK-COUNT-6: "stablehlo.all_reduce"
// CHECK-NOT: "stablehlo.all_reduce"
// CHECK: return
func.func public @apart(%a: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %sum = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %max = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.maximum %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %self = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %int = "stablehlo.all_reduce"(%i) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %s = stablehlo.add %x, %y : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<4xi32>) -> tensor<4xi32>
  %twice = "stablehlo.all_reduce"(%sum) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  "stablehlo.custom_call"(%a) {call_target_name = "log", has_side_effect = true} : (tensor<4xf32>) -> ()
  %later = "stablehlo.all_reduce"(%a) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %sum, %max, %int, %twice, %self, %later : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
