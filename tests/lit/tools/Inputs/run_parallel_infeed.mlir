// interpreter.run_parallel's infeed queue shared by programs in separate
// processes (tests/lit/tools/kiln-test-run-parallel-infeed.test): the
// programs take its elements in the order they reach their infeeds, in one
// process or several.

// Four programs on four partitions: program k reads the infeed after the
// first k of three all_reduces over all four, so program k takes element k
// whichever processes the programs run in (each all_reduce waits for every
// program, so program k's read comes after program k - 1's).
module @infeed_in_turn {
  func.func @p0(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %s0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %s1 = "stablehlo.all_reduce"(%s0) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %s2 = "stablehlo.all_reduce"(%s1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    return %a#0, %s2 : tensor<2xf32>, tensor<2xf32>
  }
  func.func @p1(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %s0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %s1 = "stablehlo.all_reduce"(%s0) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %s2 = "stablehlo.all_reduce"(%s1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    return %a#0, %s2 : tensor<2xf32>, tensor<2xf32>
  }
  func.func @p2(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %s0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %s1 = "stablehlo.all_reduce"(%s0) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    %s2 = "stablehlo.all_reduce"(%s1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    return %a#0, %s2 : tensor<2xf32>, tensor<2xf32>
  }
  func.func @p3(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
    %s0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %s1 = "stablehlo.all_reduce"(%s0) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %s2 = "stablehlo.all_reduce"(%s1) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %u = stablehlo.add %p, %q : tensor<f32>
      stablehlo.return %u : tensor<f32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>, use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %a#0, %s2 : tensor<2xf32>, tensor<2xf32>
  }
  func.func @q0() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[10.0, 11.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func @q1() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[20.0, 21.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func @q2() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[30.0, 31.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func @q3() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[40.0, 41.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func public @main() {
    %x0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %x1 = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
    %x2 = stablehlo.constant dense<[5.0, 6.0]> : tensor<2xf32>
    %x3 = stablehlo.constant dense<[7.0, 8.0]> : tensor<2xf32>
    %r:8 = "interpreter.run_parallel"(%x0, %x1, %x2, %x3) {infeed = [@q0, @q1, @q2, @q3], programs = [[@p0, @p1, @p2, @p3]]}
        : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
          -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
    check.expect_eq_const %r#0, dense<[10.0, 11.0]> : tensor<2xf32>
    check.expect_eq_const %r#1, dense<[256.0, 320.0]> : tensor<2xf32>
    check.expect_eq_const %r#2, dense<[20.0, 21.0]> : tensor<2xf32>
    check.expect_eq_const %r#3, dense<[256.0, 320.0]> : tensor<2xf32>
    check.expect_eq_const %r#4, dense<[30.0, 31.0]> : tensor<2xf32>
    check.expect_eq_const %r#5, dense<[256.0, 320.0]> : tensor<2xf32>
    check.expect_eq_const %r#6, dense<[40.0, 41.0]> : tensor<2xf32>
    check.expect_eq_const %r#7, dense<[256.0, 320.0]> : tensor<2xf32>
    func.return
  }
}

// -----

// Two programs, each reading once, and a queue of one element: whichever
// reaches its infeed second finds the queue empty, an error at its op.
module @infeed_runs_out {
  func.func @read() -> tensor<2xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %a#0 : tensor<2xf32>
  }
  func.func @q() -> tensor<2xf32> {
    %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
  func.func public @main() {
    %r:2 = "interpreter.run_parallel"() {infeed = [@q], programs = [[@read, @read]]} : () -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
}
