// Collectives, partition_id, replica_id, send, recv, infeed, outfeed, after_all.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @dist(%arg0: tensor<4xf32>, %arg1: !stablehlo.token) {
  %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<8xf32>
  %1 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %14 : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.all_to_all"(%arg0) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "stablehlo.reduce_scatter"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %14 : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<2xf32>
  %4 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
  %6 = stablehlo.partition_id : tensor<ui32>
  %7 = stablehlo.replica_id : tensor<ui32>
  %8 = "stablehlo.send"(%arg0, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %9:2 = "stablehlo.recv"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %10:2 = "stablehlo.infeed"(%arg1) <{infeed_config = "", layout = [[0]]}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %11 = "stablehlo.outfeed"(%arg0, %arg1) <{outfeed_config = ""}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
  %12 = stablehlo.after_all %arg1, %arg1 : !stablehlo.token
  %13:2 = "stablehlo.all_to_all"(%arg0, %arg0) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @dist(%arg0: tensor<4xf32>, %arg1: !stablehlo.token) {
// CHECK-NEXT: %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<8xf32>
// CHECK-NEXT: %1 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %14 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %2 = "stablehlo.all_to_all"(%arg0) <{concat_dimension = 0 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %3 = "stablehlo.reduce_scatter"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %14 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4xf32>) -> tensor<2xf32>
// CHECK-NEXT: %4 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %5 = "stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %6 = stablehlo.partition_id : tensor<ui32>
// CHECK-NEXT: %7 = stablehlo.replica_id : tensor<ui32>
// CHECK-NEXT: %8 = "stablehlo.send"(%arg0, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT: %9:2 = "stablehlo.recv"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
// CHECK-NEXT: %10:2 = "stablehlo.infeed"(%arg1) <{infeed_config = "", layout = {{\[\[}}0]]}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
// CHECK-NEXT: %11 = "stablehlo.outfeed"(%arg0, %arg1) <{outfeed_config = ""}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK-NEXT: %12 = stablehlo.after_all %arg1, %arg1 : !stablehlo.token
// CHECK-NEXT: %13:2 = "stablehlo.all_to_all"(%arg0, %arg0) <{concat_dimension = 0 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<4xf32>, !stablehlo.token) -> (), sym_name = "dist"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<4xf32>, %arg1: !stablehlo.token):
// GENERIC-NEXT: %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<4xf32>) -> tensor<8xf32>
// GENERIC-NEXT: %1 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// GENERIC-NEXT: ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
// GENERIC-NEXT: %15 = "stablehlo.add"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%15) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %2 = "stablehlo.all_to_all"(%arg0) <{concat_dimension = 0 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %3 = "stablehlo.reduce_scatter"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, scatter_dimension = 0 : i64}> ({
// GENERIC-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// GENERIC-NEXT: %14 = "stablehlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%14) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %4 = "stablehlo.collective_permute"(%arg0) <{source_target_pairs = dense<{{\[\[}}0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %5 = "stablehlo.collective_broadcast"(%arg0) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %6 = "stablehlo.partition_id"() : () -> tensor<ui32>
// GENERIC-NEXT: %7 = "stablehlo.replica_id"() : () -> tensor<ui32>
// GENERIC-NEXT: %8 = "stablehlo.send"(%arg0, %arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
// GENERIC-NEXT: %9:2 = "stablehlo.recv"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
// GENERIC-NEXT: %10:2 = "stablehlo.infeed"(%arg1) <{infeed_config = "", layout = {{\[\[}}0]]}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
// GENERIC-NEXT: %11 = "stablehlo.outfeed"(%arg0, %arg1) <{outfeed_config = ""}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
// GENERIC-NEXT: %12 = "stablehlo.after_all"(%arg1, %arg1) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
// GENERIC-NEXT: %13:2 = "stablehlo.all_to_all"(%arg0, %arg0) <{concat_dimension = 0 : i64, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
