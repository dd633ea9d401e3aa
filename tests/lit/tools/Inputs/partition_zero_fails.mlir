// Four partitions of which partition 0 fails before the all_reduce (an
// infeed, which has no host queue outside run_parallel, on its branch alone; kiln-launch.test):
// its sibling in the same process and the other process's partitions must
// fail at the all_reduce at once, not wait for the timeout.
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    %id = stablehlo.partition_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %y = "stablehlo.if"(%first) ({
      %token = stablehlo.after_all : !stablehlo.token
      %data, %t2 = "stablehlo.infeed"(%token) {infeed_config = ""} : (!stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
      stablehlo.return %data : tensor<3xf32>
    }, {
      stablehlo.return %x : tensor<3xf32>
    }) : (tensor<i1>) -> tensor<3xf32>
    %sum = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<3xf32>) -> tensor<3xf32>
    return %sum : tensor<3xf32>
  }
}
