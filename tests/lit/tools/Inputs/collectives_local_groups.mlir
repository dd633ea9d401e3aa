// Four partitions, two per process under `kiln launch -n 2`
// (kiln-launch.test): every collective first within a process's instances
// (groups {0, 1} and {2, 3}, which meet in shared memory there), then an
// all_reduce over all four (over Gloo). Run in one process or in two, the
// results must be the same bits.
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %id = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %half = stablehlo.constant dense<1.5> : tensor<f32>
    %s = stablehlo.add %f, %half : tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %y = stablehlo.multiply %x, %b : tensor<4xf32>
    %sum = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    %all = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<8xf32>
    %part = "stablehlo.reduce_scatter"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.maximum %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<2xf32>
    %swapped = "stablehlo.all_to_all"(%y) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %other = "stablehlo.collective_permute"(%y) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, source_target_pairs = dense<[[0, 1], [1, 0], [2, 3], [3, 2]]> : tensor<4x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %world = "stablehlo.all_reduce"(%sum) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 6, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    return %sum, %all, %part, %swapped, %other, %world : tensor<4xf32>, tensor<8xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
