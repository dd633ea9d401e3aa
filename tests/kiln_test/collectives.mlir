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

// -----

// Four replicas: element types, ragged and partial groups, and collectives
// along inner dimensions (which the cpu back end lays out in blocks first).
module attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  // max of [r, 10 - r] over the ragged groups {2, 0, 1} and {3}: [2, 10] and [3, 7].
  func.func @all_reduce_f32_max_ragged() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<f32>
    %ri = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %rb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %sign = stablehlo.constant dense<[1.0, -1.0]> : tensor<2xf32>
    %base = stablehlo.constant dense<[0.0, 10.0]> : tensor<2xf32>
    %signed = stablehlo.multiply %rb, %sign : tensor<2xf32>
    %x = stablehlo.add %base, %signed : tensor<2xf32>
    %m = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[2, 0, 1], [3, -1, -1]]> : tensor<2x3xi64>} : (tensor<2xf32>) -> tensor<2xf32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %is3 = stablehlo.compare EQ, %ri, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %alone = stablehlo.constant dense<[3.0, 7.0]> : tensor<2xf32>
    %trio = stablehlo.constant dense<[2.0, 10.0]> : tensor<2xf32>
    %want = "stablehlo.select"(%is3, %alone, %trio) : (tensor<i1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    check.expect_eq %m, %want : tensor<2xf32>
    func.return
  }

  // bf16 sum of r + 0.5 over all four: 8.
  func.func @all_reduce_bf16_sum() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<bf16>
    %half = stablehlo.constant dense<0.5> : tensor<bf16>
    %v = stablehlo.add %r, %half : tensor<bf16>
    %x = stablehlo.broadcast_in_dim %v, dims = [] : (tensor<bf16>) -> tensor<3xbf16>
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
      %t = stablehlo.add %a, %b : tensor<bf16>
      stablehlo.return %t : tensor<bf16>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<3xbf16>) -> tensor<3xbf16>
    check.expect_eq_const %s, dense<8.0> : tensor<3xbf16>
    func.return
  }

  // f64 min of r over the groups {0, 2} and {1, 3}: r % 2.
  func.func @all_reduce_f64_min_groups() {
    %id = stablehlo.replica_id : tensor<ui32>
    %ri = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %x = stablehlo.convert %id : (tensor<ui32>) -> tensor<f64>
    %m = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %t = stablehlo.minimum %a, %b : tensor<f64>
      stablehlo.return %t : tensor<f64>
    }) {replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>} : (tensor<f64>) -> tensor<f64>
    %two = stablehlo.constant dense<2> : tensor<i32>
    %parity = stablehlo.remainder %ri, %two : tensor<i32>
    %want = stablehlo.convert %parity : (tensor<i32>) -> tensor<f64>
    check.expect_eq %m, %want : tensor<f64>
    func.return
  }

  // i1 or of (r == 2) over all four: true everywhere.
  func.func @all_reduce_i1_or() {
    %id = stablehlo.replica_id : tensor<ui32>
    %two = stablehlo.constant dense<2> : tensor<ui32>
    %x = stablehlo.compare EQ, %id, %two, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %o = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      %t = stablehlo.or %a, %b : tensor<i1>
      stablehlo.return %t : tensor<i1>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<i1>) -> tensor<i1>
    check.expect_eq_const %o, dense<true> : tensor<i1>
    func.return
  }

  // all_gather along dimension 1 of [[r], [10 + r]].
  func.func @all_gather_dim1() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %rb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    %base = stablehlo.constant dense<[[0], [10]]> : tensor<2x1xi32>
    %x = stablehlo.add %base, %rb : tensor<2x1xi32>
    %g = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x1xi32>) -> tensor<2x4xi32>
    check.expect_eq_const %g, dense<[[0, 1, 2, 3], [10, 11, 12, 13]]> : tensor<2x4xi32>
    func.return
  }

  // reduce_scatter along dimension 1: replica r holds 100 r + [0, 1, 2, 3] in
  // both rows; the sum 600 + 4 [0, 1, 2, 3] is split by columns, r gets 600 + 4 r.
  func.func @reduce_scatter_dim1() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %hundred = stablehlo.constant dense<100> : tensor<i32>
    %r100 = stablehlo.multiply %r, %hundred : tensor<i32>
    %rb = stablehlo.broadcast_in_dim %r100, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %iota = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %x = stablehlo.add %rb, %iota : tensor<2x4xi32>
    %s = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %t = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {scatter_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xi32>) -> tensor<2x1xi32>
    %four = stablehlo.constant dense<4> : tensor<i32>
    %six00 = stablehlo.constant dense<600> : tensor<i32>
    %r4 = stablehlo.multiply %r, %four : tensor<i32>
    %w = stablehlo.add %six00, %r4 : tensor<i32>
    %want = stablehlo.broadcast_in_dim %w, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
    check.expect_eq %s, %want : tensor<2x1xi32>
    func.return
  }

  // all_to_all splitting columns and concatenating rows: replica r holds
  // x[i][j] = 10 r + j + 100 i; replica j receives column j of every
  // replica, stacked in replica order.
  func.func @all_to_all_split1_concat0() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %ten = stablehlo.constant dense<10> : tensor<i32>
    %r10 = stablehlo.multiply %r, %ten : tensor<i32>
    %rb = stablehlo.broadcast_in_dim %r10, dims = [] : (tensor<i32>) -> tensor<2x4xi32>
    %cols = stablehlo.iota dim = 1 : tensor<2x4xi32>
    %rows = stablehlo.constant dense<[[0, 0, 0, 0], [100, 100, 100, 100]]> : tensor<2x4xi32>
    %x0 = stablehlo.add %rb, %cols : tensor<2x4xi32>
    %x = stablehlo.add %x0, %rows : tensor<2x4xi32>
    %y = "stablehlo.all_to_all"(%x) {split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x4xi32>) -> tensor<8x1xi32>
    %base = stablehlo.constant dense<[[0], [100], [10], [110], [20], [120], [30], [130]]> : tensor<8x1xi32>
    %jb = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %want = stablehlo.add %base, %jb : tensor<8x1xi32>
    check.expect_eq %y, %want : tensor<8x1xi32>
    func.return
  }

  // collective_broadcast in the group {2, 1}: replicas 1 and 2 get replica
  // 2's 7; replicas 0 and 3, in no group, get zeros.
  func.func @collective_broadcast_partial_group() {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i32>
    %five = stablehlo.constant dense<5> : tensor<i32>
    %v = stablehlo.add %r, %five : tensor<i32>
    %x = stablehlo.reshape %v : (tensor<i32>) -> tensor<1xi32>
    %b = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<1xi32>) -> tensor<1xi32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %is0 = stablehlo.compare EQ, %r, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %is3 = stablehlo.compare EQ, %r, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %outside = stablehlo.or %is0, %is3 : tensor<i1>
    %zeros = stablehlo.constant dense<0> : tensor<1xi32>
    %sevens = stablehlo.constant dense<7> : tensor<1xi32>
    %want = "stablehlo.select"(%outside, %zeros, %sevens) : (tensor<i1>, tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
    check.expect_eq %b, %want : tensor<1xi32>
    func.return
  }
}

// -----

// Two replicas x two partitions, device id d = 2 r + p. With
// use_global_device_ids, groups are lists of device ids: the sums of d^2 + 1
// over {0, 3} and {1, 2} are 11 and 7; an all_gather over all four devices
// in the order [3, 2, 1, 0] lists their ids in that order.
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 2 : i32} {
  func.func @flattened_device_ids() {
    %rid = stablehlo.replica_id : tensor<ui32>
    %pid = stablehlo.partition_id : tensor<ui32>
    %two = stablehlo.constant dense<2> : tensor<ui32>
    %r2 = stablehlo.multiply %rid, %two : tensor<ui32>
    %du = stablehlo.add %r2, %pid : tensor<ui32>
    %d = stablehlo.convert %du : (tensor<ui32>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %dd = stablehlo.multiply %d, %d : tensor<i32>
    %x = stablehlo.add %dd, %one : tensor<i32>
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %t = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 3], [1, 2]]> : tensor<2x2xi64>, use_global_device_ids} : (tensor<i32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %three = stablehlo.constant dense<3> : tensor<i32>
    %is0 = stablehlo.compare EQ, %d, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %is3 = stablehlo.compare EQ, %d, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %outer = stablehlo.or %is0, %is3 : tensor<i1>
    %eleven = stablehlo.constant dense<11> : tensor<i32>
    %seven = stablehlo.constant dense<7> : tensor<i32>
    %want = "stablehlo.select"(%outer, %eleven, %seven) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    check.expect_eq %s, %want : tensor<i32>
    %dv = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.all_gather"(%dv) {all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[3, 2, 1, 0]]> : tensor<1x4xi64>, use_global_device_ids} : (tensor<1xi32>) -> tensor<4xi32>
    check.expect_eq_const %g, dense<[3, 2, 1, 0]> : tensor<4xi32>
    func.return
  }
}
