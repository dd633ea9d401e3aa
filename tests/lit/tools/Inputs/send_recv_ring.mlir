// send and recv between the partitions of one program (kiln-run-send-recv.test):
// a ring over three partitions (source_target_pairs), each sending its
// operand times its partition id to the next and receiving from the one
// before, then a second message on another channel from partition 0 to 2
// alone (partition 2 receives it; the others receive nothing on it).
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 3 : i32} {
  func.func @main(%x: tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>) {
    %pid = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %y = stablehlo.multiply %x, %pb : tensor<2xi32>
    %t0 = stablehlo.after_all : !stablehlo.token
    %t1 = "stablehlo.send"(%y, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}
        : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%t1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}
        : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
    %t2 = "stablehlo.send"(%x, %r#1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
        source_target_pairs = dense<[[0, 2]]> : tensor<1x2xi64>}
        : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    %two = stablehlo.constant dense<2> : tensor<i32>
    %last = stablehlo.compare EQ, %p, %two, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %z = "stablehlo.if"(%last) ({
      %s:2 = "stablehlo.recv"(%t2) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
          source_target_pairs = dense<[[0, 2]]> : tensor<1x2xi64>}
          : (!stablehlo.token) -> (tensor<2xi32>, !stablehlo.token)
      stablehlo.return %s#0 : tensor<2xi32>
    }, {
      %zero = stablehlo.constant dense<0> : tensor<2xi32>
      stablehlo.return %zero : tensor<2xi32>
    }) : (tensor<i1>) -> tensor<2xi32>
    return %r#0, %z : tensor<2xi32>, tensor<2xi32>
  }
}
