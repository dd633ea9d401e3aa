// Collectives across replicas and partitions run inside one process. Each
// part of this file is its own module; mhlo.num_replicas / mhlo.num_partitions
// say how many instances run every test, and each instance's checks must hold.

// all_reduce (sum) of [r + 1, 10 (r + 1)] over replicas r = 0, 1 is [3, 30].
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @all_reduce_sum() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %r1 = stablehlo.add %r, %one : tensor<i32>
    %b = stablehlo.broadcast_in_dim %r1, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %scale = stablehlo.constant dense<[1, 10]> : tensor<2xi32>
    %x = stablehlo.multiply %b, %scale : tensor<2xi32>
    %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %s = stablehlo.add %a, %c : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    check.expect_eq_const %sum, dense<[3, 30]> : tensor<2xi32>
    func.return
  }

  // all_gather of [r] along dimension 0 is [0, 1] on every replica.
  func.func @all_gather() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %x = stablehlo.reshape %r : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi32>) -> tensor<2xi32>
    check.expect_eq_const %g, dense<[0, 1]> : tensor<2xi32>
    func.return
  }

  // reduce_scatter: replica r holds [1, 2] + 10 r; the sum [12, 14] is split
  // so that replica r receives [12 + 2 r].
  func.func @reduce_scatter() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %ten = stablehlo.constant dense<10> : tensor<i32>
    %off = stablehlo.multiply %r, %ten : tensor<i32>
    %offb = stablehlo.broadcast_in_dim %off, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %base = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %x = stablehlo.add %base, %offb : tensor<2xi32>
    %s = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %t = stablehlo.add %a, %c : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<1xi32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %twelve = stablehlo.constant dense<12> : tensor<i32>
    %r2 = stablehlo.multiply %r, %two : tensor<i32>
    %want0 = stablehlo.add %twelve, %r2 : tensor<i32>
    %want = stablehlo.reshape %want0 : (tensor<i32>) -> tensor<1xi32>
    check.expect_eq %s, %want : tensor<1xi32>
    func.return
  }

  // collective_permute swapping replicas 0 and 1: each receives 1 - r.
  func.func @collective_permute_swap() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %x = stablehlo.reshape %r : (tensor<i32>) -> tensor<1xi32>
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>} : (tensor<1xi32>) -> tensor<1xi32>
    %sum = stablehlo.add %p, %x : tensor<1xi32>
    check.expect_eq_const %sum, dense<1> : tensor<1xi32>
    func.return
  }

  // collective_permute to nobody: a replica that receives nothing gets zeros.
  func.func @collective_permute_one_way() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %x = stablehlo.constant dense<[7]> : tensor<1xi32>
    %p = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi32>) -> tensor<1xi32>
    // Replica 0 receives nothing (0), replica 1 receives 7: p == 7 r.
    %seven = stablehlo.constant dense<7> : tensor<i32>
    %w = stablehlo.multiply %r, %seven : tensor<i32>
    %want = stablehlo.reshape %w : (tensor<i32>) -> tensor<1xi32>
    check.expect_eq %p, %want : tensor<1xi32>
    func.return
  }

  // all_to_all: replica r holds [10 r, 10 r + 1]; chunk j goes to replica j,
  // so replica j ends with [j, 10 + j].
  func.func @all_to_all() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %ten = stablehlo.constant dense<10> : tensor<i32>
    %r10 = stablehlo.multiply %r, %ten : tensor<i32>
    %rb = stablehlo.broadcast_in_dim %r10, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %iota = stablehlo.iota dim = 0 : tensor<2xi32>
    %x = stablehlo.add %rb, %iota : tensor<2xi32>
    %y = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    %jb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %base = stablehlo.constant dense<[0, 10]> : tensor<2xi32>
    %want = stablehlo.add %base, %jb : tensor<2xi32>
    check.expect_eq %y, %want : tensor<2xi32>
    func.return
  }

  // collective_broadcast sends the group's first replica's value to all.
  func.func @collective_broadcast() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %five = stablehlo.constant dense<5> : tensor<i32>
    %v = stablehlo.add %r, %five : tensor<i32>
    %x = stablehlo.reshape %v : (tensor<i32>) -> tensor<1xi32>
    %b = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<1xi32>) -> tensor<1xi32>
    check.expect_eq_const %b, dense<5> : tensor<1xi32>
    func.return
  }
}

// -----

// Four replicas in two groups {0, 2} and {1, 3}: all_reduce sums r within
// each group, giving 2 in group {0, 2} and 4 in group {1, 3}, i.e. 2 + 2 (r % 2).
module attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @all_reduce_groups() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %sum = "stablehlo.all_reduce"(%r) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %s = stablehlo.add %a, %c : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<i32>) -> tensor<i32>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %parity = stablehlo.remainder %r, %two : tensor<i32>
    %p2 = stablehlo.multiply %parity, %two : tensor<i32>
    %want = stablehlo.add %p2, %two : tensor<i32>
    check.expect_eq %sum, %want : tensor<i32>
    func.return
  }
}

// -----

// Two partitions: partition_id is 0 and 1. A cross-partition all_reduce
// (channel_handle with use_global_device_ids over ids 0 and 1) sums
// partition_id + 1 to 3.
module attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @partitions() {
    %id = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %x = stablehlo.add %p, %one : tensor<i32>
    %sum = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %c: tensor<i32>):
      %s = stablehlo.add %a, %c : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<i32>) -> tensor<i32>
    check.expect_eq_const %sum, dense<3> : tensor<i32>
    func.return
  }
}
