// Four partitions whose collectives move buffers of 80 KB, large enough that
// between processes of one host (kiln-launch.test) they go through the host's
// shared-memory segment a slot at a time (and all_reduce over four members
// folds a slice each), over groups within a process, across processes and
// over all four. Run in one process or in several, the results must be the
// same bits (sums of values of mixed magnitudes depend on their order).
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @main() -> (tensor<20000xf32>, tensor<20000xf32>, tensor<40000xf32>, tensor<5000xf32>, tensor<20000xf32>, tensor<20000xf32>, tensor<20000xf32>, tensor<20000xi32>) {
    %id = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %scale = stablehlo.constant dense<1.37> : tensor<f32>
    %s = stablehlo.add %f, %scale : tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<20000xf32>
    %i = stablehlo.iota dim = 0 : tensor<20000xf32>
    %m = stablehlo.multiply %i, %b : tensor<20000xf32>
    %sin = stablehlo.sine %m : tensor<20000xf32>
    %e = stablehlo.exponential %sin : tensor<20000xf32>
    %y = stablehlo.multiply %e, %m : tensor<20000xf32>
    %sum = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<20000xf32>) -> tensor<20000xf32>
    %pair = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[2, 0], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<20000xf32>) -> tensor<20000xf32>
    %all = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<20000xf32>) -> tensor<40000xf32>
    %part = "stablehlo.reduce_scatter"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>, replica_groups = dense<[[1, 3, 0, 2]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<20000xf32>) -> tensor<5000xf32>
    %swapped = "stablehlo.all_to_all"(%y) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<20000xf32>) -> tensor<20000xf32>
    %ring = "stablehlo.collective_permute"(%y) {channel_handle = #stablehlo.channel_handle<handle = 6, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>} : (tensor<20000xf32>) -> tensor<20000xf32>
    %root = "stablehlo.collective_broadcast"(%y) {channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>, replica_groups = dense<[[2, 1, 0, 3]]> : tensor<1x4xi64>} : (tensor<20000xf32>) -> tensor<20000xf32>
    %k = stablehlo.convert %m : (tensor<20000xf32>) -> tensor<20000xi32>
    %most = "stablehlo.all_reduce"(%k) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %t = stablehlo.maximum %a, %c : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 8, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<20000xi32>) -> tensor<20000xi32>
    return %sum, %pair, %all, %part, %swapped, %ring, %root, %most : tensor<20000xf32>, tensor<20000xf32>, tensor<40000xf32>, tensor<5000xf32>, tensor<20000xf32>, tensor<20000xf32>, tensor<20000xf32>, tensor<20000xi32>
  }
}
