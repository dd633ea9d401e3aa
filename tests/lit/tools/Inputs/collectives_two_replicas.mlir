// Two replicas whose collectives move data between them (kiln-launch.test):
// replica r scales x by r + 1.5, then all_reduce, all_gather, reduce_scatter,
// all_to_all and collective_permute exchange the results (the second
// all_reduce's body is no one combining op: it exchanges whole operands at
// the rendezvous, across processes through the communicator). Run in one process
// (both instances on threads) or in two (one each, over Gloo), the results
// must be the same bits.
module attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<8xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<ui32>, tensor<4xf32>) {
    %id = stablehlo.replica_id : tensor<ui32>
    %f = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %half = stablehlo.constant dense<1.5> : tensor<f32>
    %s = stablehlo.add %f, %half : tensor<f32>
    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %y = stablehlo.multiply %x, %b : tensor<4xf32>
    %sum = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %all = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
    %part = "stablehlo.reduce_scatter"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.maximum %a, %c : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<2xf32>
    %swapped = "stablehlo.all_to_all"(%y) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %other = "stablehlo.collective_permute"(%y) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    %mean = "stablehlo.all_reduce"(%y) ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %t = stablehlo.add %a, %c : tensor<f32>
      %h = stablehlo.constant dense<0.5> : tensor<f32>
      %m = stablehlo.multiply %t, %h : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %sum, %all, %part, %swapped, %other, %id, %mean : tensor<4xf32>, tensor<8xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<ui32>, tensor<4xf32>
  }
}
