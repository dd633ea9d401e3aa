// send and recv between four partitions (kiln-launch.test runs it in one,
// two and four processes): each sends two messages on channel 1 to the next
// partition (its operand times its partition id, then plus it), which
// receives them in the order sent; partition 3 sends an f32 message to
// partition 0 on channel 2.
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<2xf32>) {
    %pid = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %times = stablehlo.multiply %x, %pb : tensor<3xi32>
    %plus = stablehlo.add %x, %pb : tensor<3xi32>
    %t0 = stablehlo.after_all : !stablehlo.token
    %t1 = "stablehlo.send"(%times, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}
        : (tensor<3xi32>, !stablehlo.token) -> !stablehlo.token
    %t2 = "stablehlo.send"(%plus, %t1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}
        : (tensor<3xi32>, !stablehlo.token) -> !stablehlo.token
    %r1:2 = "stablehlo.recv"(%t2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}
        : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
    %r2:2 = "stablehlo.recv"(%r1#1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}
        : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
    %three = stablehlo.constant dense<3> : tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %is3 = stablehlo.compare EQ, %p, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %is0 = stablehlo.compare EQ, %p, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %f = stablehlo.constant dense<[1.5, -2.25]> : tensor<2xf32>
    %t3 = "stablehlo.if"(%is3) ({
      %s = "stablehlo.send"(%f, %r2#1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
          source_target_pairs = dense<[[3, 0]]> : tensor<1x2xi64>}
          : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
      stablehlo.return %s : !stablehlo.token
    }, {
      stablehlo.return %r2#1 : !stablehlo.token
    }) : (tensor<i1>) -> !stablehlo.token
    %g = "stablehlo.if"(%is0) ({
      %s:2 = "stablehlo.recv"(%t3) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
          source_target_pairs = dense<[[3, 0]]> : tensor<1x2xi64>}
          : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
      stablehlo.return %s#0 : tensor<2xf32>
    }, {
      %z = stablehlo.constant dense<0.0> : tensor<2xf32>
      stablehlo.return %z : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
    return %r1#0, %r2#0, %g : tensor<3xi32>, tensor<3xi32>, tensor<2xf32>
  }
}
