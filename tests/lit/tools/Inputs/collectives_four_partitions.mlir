// Four partitions, two per process under `kiln launch -n 2`
// (kiln-launch.test): the all_reduce's groups {0, 2} and {1, 3} each span
// both processes, the broadcast's group {3, 0} starts in the second.
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<ui32>) {
    %id = stablehlo.partition_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %b = stablehlo.broadcast_in_dim %f, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %y = stablehlo.add %x, %b : tensor<3xf32>
    %sum = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<3xf32>) -> tensor<3xf32>
    %root = "stablehlo.collective_broadcast"(%y) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>} : (tensor<3xf32>) -> tensor<3xf32>
    return %sum, %root, %id : tensor<3xf32>, tensor<3xf32>, tensor<ui32>
  }
}
