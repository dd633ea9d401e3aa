// Two partitions: partition 1 loops until it is killed, partition 0 goes on
// to an all_reduce with it (kiln-launch.test: a process killed in the middle
// of a run, its peer waiting in the host's shared memory).
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %id = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %r:2 = stablehlo.while(%i = %p, %v = %x) : tensor<i32>, tensor<4xf32>
     cond {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %go = stablehlo.compare NE, %i, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %go : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %next = stablehlo.or %i, %one : tensor<i32>
      %w = stablehlo.add %v, %x : tensor<4xf32>
      stablehlo.return %next, %w : tensor<i32>, tensor<4xf32>
    }
    %sum = "stablehlo.all_reduce"(%r#1) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    return %sum : tensor<4xf32>
  }
}
