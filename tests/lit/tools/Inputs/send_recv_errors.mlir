// send and recv that cannot go between processes (kiln-launch.test): @mismatch
// receives other types than partition 0 sent; @anyone sends to whichever
// instance receives first (no source_target_pairs); in @unreceived partition
// 0 sends a message partition 1 never receives.
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @mismatch(%x: tensor<2xf32>) -> tensor<2xi32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %is0 = stablehlo.compare EQ, %pid, %zero, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %t0 = stablehlo.after_all : !stablehlo.token
    %r = "stablehlo.if"(%is0) ({
      %s = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
          source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}
          : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
      %z = stablehlo.constant dense<0> : tensor<2xi32>
      stablehlo.return %z : tensor<2xi32>
    }, {
      %v:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
          source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}
          : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
      stablehlo.return %v#0 : tensor<2xi32>
    }) : (tensor<i1>) -> tensor<2xi32>
    return %r : tensor<2xi32>
  }

  func.func @anyone(%x: tensor<2xf32>) -> tensor<2xf32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %is0 = stablehlo.compare EQ, %pid, %zero, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %t0 = stablehlo.after_all : !stablehlo.token
    %r = "stablehlo.if"(%is0) ({
      %s = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
          : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
      stablehlo.return %x : tensor<2xf32>
    }, {
      %v:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
          : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
      stablehlo.return %v#0 : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }

  func.func @unreceived(%x: tensor<2xf32>) -> tensor<2xf32> {
    %t0 = stablehlo.after_all : !stablehlo.token
    %s = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>}
        : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %x : tensor<2xf32>
  }
}
