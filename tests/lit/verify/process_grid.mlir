// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// The ids of collectives against the process grid a module declares
// (mhlo.num_replicas, mhlo.num_partitions: JAX writes both, and kiln runs that
// many instances). Without the declaration the grid is the run's, and the
// interpreter checks the ids when the op runs (docs/ops.md).

// Valid: each strategy's ids number its processes.
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 3 : i32} {
  func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>) {
    // cross_replica: replica ids 0..1
    %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    // flattened_ids: process ids 0..5
    %1 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2], [3, 4, 5]]> : tensor<2x3xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    // cross_replica_and_partition: replica ids 0..1
    %2 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<4xf32>) -> tensor<8xf32>
    // cross_partition: partition ids 0..2
    %3 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>
  }
}

// -----
// all_reduce (C2) size(replica_groups) = num_replicas
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @all_reduce_c2(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has replica_groups of 1 ids, but the module runs 2 replicas (mhlo.num_replicas): each must be in one group}}
    %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// all_reduce (C2) ids beyond the flattened process count
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @all_reduce_c2_flattened(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{names id 2 in its replica_groups, but the module runs 2 processes (mhlo.num_replicas x mhlo.num_partitions)}}
    %0 = "stablehlo.all_reduce"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// all_gather (C3) size(replica_groups) = num_replicas
module attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @all_gather_c3(%a: tensor<4xf32>) -> tensor<8xf32> {
    // expected-error @+1 {{has replica_groups of 2 ids, but the module runs 4 replicas (mhlo.num_replicas)}}
    %0 = "stablehlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}

// -----
// all_to_all (C6) size(replica_groups) = num_partitions (cross_partition)
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 4 : i32} {
  func.func @all_to_all_c6(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has replica_groups of 2 ids, but the module runs 4 partitions (mhlo.num_partitions)}}
    %0 = "stablehlo.all_to_all"(%a) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// reduce_scatter (C4) size(replica_groups) = num_replicas
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @reduce_scatter_c4(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{has replica_groups of 1 ids, but the module runs 2 replicas (mhlo.num_replicas)}}
    %0 = "stablehlo.reduce_scatter"(%a) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// collective_permute (C4) ids below the partition count
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @collective_permute_c4_grid(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{names id 3 in its source_target_pairs, but the module runs 2 partitions (mhlo.num_partitions)}}
    %0 = "stablehlo.collective_permute"(%a) {source_target_pairs = dense<[[0, 3]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----
// collective_broadcast (C2) ids below the replica count
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @collective_broadcast_c2_grid(%a: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error @+1 {{names id 2 in its replica_groups, but the module runs 2 replicas (mhlo.num_replicas)}}
    %0 = "stablehlo.collective_broadcast"(%a) {replica_groups = dense<[[2, 0]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
