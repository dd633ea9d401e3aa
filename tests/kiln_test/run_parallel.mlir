// interpreter.run_parallel, the StableHLO interpreter's multi-instance test
// op (kiln/interp/run_parallel.h): @main runs a grid of programs, one row per
// replica and one function per partition, with collectives between them, and
// checks what each returns. The programs run on the back end under test
// (`kiln test --backend cpu` compiles them for the cpu); functions that
// programs name are programs, not tests, even when public without arguments.

// Two replicas of one program: each takes its operand in order.
module @two_replicas {
  func.func @sum(%x: tensor<4xi64>) -> tensor<4xi64> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i64>, %b: tensor<i64>):
      %t = stablehlo.add %a, %b : tensor<i64>
      stablehlo.return %t : tensor<i64>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xi64>) -> tensor<4xi64>
    return %s : tensor<4xi64>
  }
  func.func public @main() {
    %a = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %b = stablehlo.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@sum], [@sum]]}
        : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %r#0, dense<[11, 22, 33, 44]> : tensor<4xi64>
    check.expect_eq_const %r#1, dense<[11, 22, 33, 44]> : tensor<4xi64>
    func.return
  }
}

// -----

// Different programs on two partitions (MPMD): each does its own work around
// one all_gather, which they reach together; a program of two operands takes
// the next two.
module @two_programs {
  func.func @scale_then_gather(%x: tensor<2xf32>, %k: tensor<f32>) -> tensor<4xf32> {
    %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %y = stablehlo.multiply %x, %kb : tensor<2xf32>
    %g = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    return %g : tensor<4xf32>
  }
  func.func @negate_then_gather(%x: tensor<2xf32>) -> tensor<4xf32> {
    %y = stablehlo.negate %x : tensor<2xf32>
    %g = "stablehlo.all_gather"(%y) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<4xf32>
    %z = stablehlo.add %g, %g : tensor<4xf32>
    return %z : tensor<4xf32>
  }
  func.func public @main() {
    %x0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %k = stablehlo.constant dense<3.0> : tensor<f32>
    %x1 = stablehlo.constant dense<[5.0, -6.0]> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x0, %k, %x1) {programs = [[@scale_then_gather, @negate_then_gather]]}
        : (tensor<2xf32>, tensor<f32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    check.expect_eq_const %r#0, dense<[3.0, 6.0, -5.0, 6.0]> : tensor<4xf32>
    check.expect_eq_const %r#1, dense<[6.0, 12.0, -10.0, 12.0]> : tensor<4xf32>
    func.return
  }
}

// -----

// A 2 x 2 grid: replica and partition ids, an all_reduce over each replica's
// partitions, and a collective_permute that swaps the replicas of each
// partition.
module @grid {
  func.func @ids_and_ring(%x: tensor<i32>) -> (tensor<2xi32>, tensor<i32>, tensor<i32>) {
    %rid = stablehlo.replica_id : tensor<ui32>
    %pid = stablehlo.partition_id : tensor<ui32>
    %r = stablehlo.convert %rid : (tensor<ui32>) -> tensor<i32>
    %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %r1 = stablehlo.reshape %r : (tensor<i32>) -> tensor<1xi32>
    %p1 = stablehlo.reshape %p : (tensor<i32>) -> tensor<1xi32>
    %ids = stablehlo.concatenate %r1, %p1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %t = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %t : tensor<i32>
    }) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<i32>) -> tensor<i32>
    %n = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}
        : (tensor<i32>) -> tensor<i32>
    return %ids, %s, %n : tensor<2xi32>, tensor<i32>, tensor<i32>
  }
  func.func public @main() {
    %a = stablehlo.constant dense<1> : tensor<i32>
    %b = stablehlo.constant dense<2> : tensor<i32>
    %c = stablehlo.constant dense<30> : tensor<i32>
    %d = stablehlo.constant dense<40> : tensor<i32>
    %r:12 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@ids_and_ring, @ids_and_ring], [@ids_and_ring, @ids_and_ring]]}
        : (tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>)
        -> (tensor<2xi32>, tensor<i32>, tensor<i32>, tensor<2xi32>, tensor<i32>, tensor<i32>,
            tensor<2xi32>, tensor<i32>, tensor<i32>, tensor<2xi32>, tensor<i32>, tensor<i32>)
    check.expect_eq_const %r#0, dense<[0, 0]> : tensor<2xi32>
    check.expect_eq_const %r#3, dense<[0, 1]> : tensor<2xi32>
    check.expect_eq_const %r#6, dense<[1, 0]> : tensor<2xi32>
    check.expect_eq_const %r#9, dense<[1, 1]> : tensor<2xi32>
    check.expect_eq_const %r#1, dense<3> : tensor<i32>
    check.expect_eq_const %r#4, dense<3> : tensor<i32>
    check.expect_eq_const %r#7, dense<70> : tensor<i32>
    check.expect_eq_const %r#10, dense<70> : tensor<i32>
    check.expect_eq_const %r#2, dense<30> : tensor<i32>
    check.expect_eq_const %r#5, dense<40> : tensor<i32>
    check.expect_eq_const %r#8, dense<1> : tensor<i32>
    check.expect_eq_const %r#11, dense<2> : tensor<i32>
    func.return
  }
}

// -----

// Programs without operands, public ones included (they are not tests), and
// a run_parallel after another in the same test.
module @no_operands {
  func.func public @partition_iota() -> tensor<1xi32> {
    %pid = stablehlo.partition_id : tensor<ui32>
    %p = stablehlo.convert %pid : (tensor<ui32>) -> tensor<i32>
    %r = stablehlo.reshape %p : (tensor<i32>) -> tensor<1xi32>
    %g = "stablehlo.all_gather"(%r) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<1xi32>) -> tensor<3xi32>
    %s = stablehlo.slice %g [0:1] : (tensor<3xi32>) -> tensor<1xi32>
    %t = stablehlo.add %r, %s : tensor<1xi32>
    return %t : tensor<1xi32>
  }
  func.func public @main() {
    %r:3 = "interpreter.run_parallel"() {programs = [[@partition_iota, @partition_iota, @partition_iota]]}
        : () -> (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>)
    %s:3 = "interpreter.run_parallel"() {programs = [[@partition_iota, @partition_iota, @partition_iota]]}
        : () -> (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>)
    %sum = stablehlo.add %r#2, %s#2 : tensor<1xi32>
    check.expect_eq_const %r#0, dense<0> : tensor<1xi32>
    check.expect_eq_const %r#1, dense<1> : tensor<1xi32>
    check.expect_eq_const %sum, dense<4> : tensor<1xi32>
    func.return
  }
}

// -----

// send and recv between programs, by channel: @producer sends two values on
// channel 1 and one on channel 2, @consumer receives them in the other order
// of channels (a send does not wait for its recv), and returns what it
// computed; a second round on channel 1 arrives after the first (in the
// order sent).
module @send_recv {
  func.func @producer(%x: tensor<3xi32>) -> tensor<3xi32> {
    %t0 = stablehlo.after_all : !stablehlo.token
    %d = stablehlo.add %x, %x : tensor<3xi32>
    %s = stablehlo.constant dense<7> : tensor<i32>
    %t1 = "stablehlo.send"(%x, %s, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (tensor<3xi32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    %t2 = "stablehlo.send"(%d, %t1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}
        : (tensor<3xi32>, !stablehlo.token) -> !stablehlo.token
    %t3 = "stablehlo.send"(%d, %s, %t2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (tensor<3xi32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
    return %d : tensor<3xi32>
  }
  func.func @consumer() -> (tensor<3xi32>, tensor<3xi32>) {
    %t0 = stablehlo.after_all : !stablehlo.token
    %b:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}
        : (!stablehlo.token) -> (tensor<3xi32>, !stablehlo.token)
    %a:3 = "stablehlo.recv"(%b#1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (!stablehlo.token) -> (tensor<3xi32>, tensor<i32>, !stablehlo.token)
    %c:3 = "stablehlo.recv"(%a#2) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (!stablehlo.token) -> (tensor<3xi32>, tensor<i32>, !stablehlo.token)
    %k = stablehlo.broadcast_in_dim %a#1, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %m = stablehlo.multiply %a#0, %k : tensor<3xi32>
    %n = stablehlo.subtract %c#0, %b#0 : tensor<3xi32>
    %sum = stablehlo.add %m, %n : tensor<3xi32>
    return %sum, %c#0 : tensor<3xi32>, tensor<3xi32>
  }
  func.func public @main() {
    %x = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi32>
    %r:3 = "interpreter.run_parallel"(%x) {programs = [[@producer, @consumer]]}
        : (tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>)
    check.expect_eq_const %r#0, dense<[2, -4, 6]> : tensor<3xi32>
    check.expect_eq_const %r#1, dense<[7, -14, 21]> : tensor<3xi32>
    check.expect_eq_const %r#2, dense<[2, -4, 6]> : tensor<3xi32>
    func.return
  }
}

// -----

// A ring of three partitions with source_target_pairs (partition ids, as
// collective_permute's with a channel handle): each sends its value to the
// next and receives from the previous one, with an all_reduce in between.
module @send_recv_ring {
  func.func @step(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %t0 = stablehlo.after_all : !stablehlo.token
    %t1 = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}
        : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %p:2 = "stablehlo.recv"(%t1) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}
        : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %p#0, %s : tensor<2xf32>, tensor<2xf32>
  }
  func.func public @main() {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
    %c = stablehlo.constant dense<[100.0, 200.0]> : tensor<2xf32>
    %r:6 = "interpreter.run_parallel"(%a, %b, %c) {programs = [[@step, @step, @step]]}
        : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
        -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[100.0, 200.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[1.0, 2.0]> : tensor<2xf32>
    check.expect_eq_const %r#4, dense<[10.0, 20.0]> : tensor<2xf32>
    check.expect_eq_const %r#5, dense<[111.0, 222.0]> : tensor<2xf32>
    func.return
  }
}

// -----

// The run's infeed queue (`infeed`: each function gives one element, in
// order): one program's two infeeds take the two elements in turn, the
// second of two values at once.
module @infeed_in_order {
  func.func @two_reads() -> (tensor<2x2xi64>, tensor<i1>, tensor<3xf32>, !stablehlo.token) {
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    %b:3 = "stablehlo.infeed"(%a#1) {infeed_config = ""} : (!stablehlo.token) -> (tensor<i1>, tensor<3xf32>, !stablehlo.token)
    return %a#0, %b#0, %b#1, %b#2 : tensor<2x2xi64>, tensor<i1>, tensor<3xf32>, !stablehlo.token
  }
  func.func @q0() -> tensor<2x2xi64> {
    %c = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    return %c : tensor<2x2xi64>
  }
  func.func @q1() -> (tensor<i1>, tensor<3xf32>) {
    %p = stablehlo.constant dense<true> : tensor<i1>
    %c = stablehlo.constant dense<[0.5, -1.5, 2.0]> : tensor<3xf32>
    return %p, %c : tensor<i1>, tensor<3xf32>
  }
  func.func public @main() {
    %r:4 = "interpreter.run_parallel"() {infeed = [@q0, @q1], programs = [[@two_reads]]}
        : () -> (tensor<2x2xi64>, tensor<i1>, tensor<3xf32>, !stablehlo.token)
    check.expect_eq_const %r#0, dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    check.expect_eq_const %r#1, dense<true> : tensor<i1>
    check.expect_eq_const %r#2, dense<[0.5, -1.5, 2.0]> : tensor<3xf32>
    func.return
  }
}

// -----

// Two programs share the queue, taking elements in the order they reach
// their infeeds: @early reads before the all_reduce they meet at, @late
// after it, so @early takes the first element and @late the second. Each
// outfeeds what it returns (the run's outfeed, which nothing reads).
module @infeed_shared_by_programs {
  func.func @early(%x: tensor<2xf32>) -> tensor<2xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %y = stablehlo.multiply %s, %a#0 : tensor<2xf32>
    %o = "stablehlo.outfeed"(%y, %a#1) {outfeed_config = ""} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %y : tensor<2xf32>
  }
  func.func @late(%x: tensor<2xf32>) -> tensor<2xf32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %y = stablehlo.add %s, %a#0 : tensor<2xf32>
    %o = "stablehlo.outfeed"(%y, %a#1) : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %y : tensor<2xf32>
  }
  func.func @first() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func @second() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[100.0, 200.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func public @main() {
    %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[10.0, 20.0]> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {infeed = [@first, @second], programs = [[@early, @late]]}
        : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[22.0, 66.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[111.0, 222.0]> : tensor<2xf32>
    func.return
  }
}


// -----

// Four partitions running two programs (@left on partitions 0 and 1, @right
// on 2 and 3), as `kiln test --processes 2` and `--processes 4` also run them
// (kiln-test-run-parallel-processes.test): an all_reduce whose body is two
// ops (not native: its operands meet through the communicator and the
// interpreter's kernels fold them), a reduce_scatter over pairs that cross
// the processes, an all_to_all and a collective_broadcast over all four, then
// each @left sends to its @right partner, which receives.
module @mpmd_across_processes {
  func.func @left(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>) {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      %one = stablehlo.constant dense<1.0> : tensor<f32>
      %u = stablehlo.add %t, %one : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %rs = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<1xf32>
    %wide = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    %aa = "stablehlo.all_to_all"(%wide) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64,
        replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    %bc = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[3, 0, 1, 2]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} : (tensor<2xf32>) -> tensor<2xf32>
    %t0 = stablehlo.after_all : !stablehlo.token
    %t1 = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
        source_target_pairs = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}
        : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
    return %s, %rs, %aa, %bc : tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>
  }
  func.func @right(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>) {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      %one = stablehlo.constant dense<1.0> : tensor<f32>
      %u = stablehlo.add %t, %one : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %rs = "stablehlo.reduce_scatter"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<1xf32>
    %wide = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    %aa = "stablehlo.all_to_all"(%wide) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 4 : i64,
        replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>} : (tensor<4xf32>) -> tensor<4xf32>
    %bc = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[3, 0, 1, 2]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>} : (tensor<2xf32>) -> tensor<2xf32>
    %t0 = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>,
        source_target_pairs = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>}
        : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %got = stablehlo.add %bc, %r#0 : tensor<2xf32>
    return %s, %rs, %aa, %got : tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>
  }
  func.func public @main() {
    %a = stablehlo.constant dense<[1.0, 10.0]> : tensor<2xf32>
    %b = stablehlo.constant dense<[2.0, 20.0]> : tensor<2xf32>
    %c = stablehlo.constant dense<[3.0, 30.0]> : tensor<2xf32>
    %d = stablehlo.constant dense<[4.0, 40.0]> : tensor<2xf32>
    %r:16 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@left, @left, @right, @right]]}
        : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
        -> (tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>,
            tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<4xf32>, tensor<2xf32>)
    // ((1 + 2 + 1) + 3 + 1) + 4 + 1 = 13, and 100 + 3 for the second element.
    check.expect_eq_const %r#0, dense<[13.0, 103.0]> : tensor<2xf32>
    check.expect_eq_const %r#12, dense<[13.0, 103.0]> : tensor<2xf32>
    // Pairs {0, 2} and {1, 3}: [1 + 3, 10 + 30] and [2 + 4, 20 + 40], split.
    check.expect_eq_const %r#1, dense<[4.0]> : tensor<1xf32>
    check.expect_eq_const %r#9, dense<[40.0]> : tensor<1xf32>
    check.expect_eq_const %r#5, dense<[6.0]> : tensor<1xf32>
    check.expect_eq_const %r#13, dense<[60.0]> : tensor<1xf32>
    // Block j of partition p's [x, x] goes to partition j: partition 1 gets
    // block 1 of each, x[1] of partition 0, x[1] of 1, ...; partition 2 block 2, x[0].
    check.expect_eq_const %r#6, dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
    check.expect_eq_const %r#10, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    // Partition 3 broadcasts [4, 40]; partition 2 adds what 0 sent, 3 what 1 sent.
    check.expect_eq_const %r#3, dense<[4.0, 40.0]> : tensor<2xf32>
    check.expect_eq_const %r#11, dense<[5.0, 50.0]> : tensor<2xf32>
    check.expect_eq_const %r#15, dense<[6.0, 60.0]> : tensor<2xf32>
    func.return
  }
}
