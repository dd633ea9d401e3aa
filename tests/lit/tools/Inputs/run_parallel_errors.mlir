// Bad run_parallel tests: each is an ERROR line at the op, never a crash or
// a hang (kiln-test-run-parallel.test).

// A program that never reaches the collective its peer waits in: the peer
// fails at once.
module @peer_leaves {
  func.func @reduce(%x: tensor<2xf32>) -> tensor<2xf32> {
    %s = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        use_global_device_ids} : (tensor<2xf32>) -> tensor<2xf32>
    return %s : tensor<2xf32>
  }
  func.func @leave(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func public @main() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x, %x) {programs = [[@reduce, @leave]]} : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
}

// -----

module @too_few_operands {
  func.func @id(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
  func.func public @main() {
    %x = stablehlo.constant dense<1.0> : tensor<2xf32>
    %r:2 = "interpreter.run_parallel"(%x) {programs = [[@id], [@id]]} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
    func.return
  }
}

// -----

module @unknown_program {
  func.func public @main() {
    %r = "interpreter.run_parallel"() {programs = [[@nowhere]]} : () -> tensor<2xf32>
    func.return
  }
}

// -----

module @ragged_grid {
  func.func @one() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    return %c : tensor<i32>
  }
  func.func public @main() {
    %r:3 = "interpreter.run_parallel"() {programs = [[@one, @one], [@one]]} : () -> (tensor<i32>, tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

module @wrong_result_type {
  func.func @one() -> tensor<i32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    return %c : tensor<i32>
  }
  func.func public @main() {
    %r = "interpreter.run_parallel"() {programs = [[@one]]} : () -> tensor<f32>
    func.return
  }
}

// -----

module @with_infeed {
  func.func @one(%c: tensor<i32>) -> tensor<i32> {
    return %c : tensor<i32>
  }
  func.func public @main() {
    %x = stablehlo.constant dense<1> : tensor<i32>
    %r = "interpreter.run_parallel"(%x) {infeed = [@one], programs = [[@one]]} : (tensor<i32>) -> tensor<i32>
    func.return
  }
}

// -----

// A program that runs run_parallel itself: they do not nest (a program
// running itself would start threads without end).
module @nested {
  func.func @leaf() {
    func.return
  }
  func.func @inner() {
    "interpreter.run_parallel"() {programs = [[@leaf]]} : () -> ()
    func.return
  }
  func.func public @main() {
    "interpreter.run_parallel"() {programs = [[@inner, @inner]]} : () -> ()
    func.return
  }
}

// -----

// send and recv that do not match: a recv on a channel nothing is sent on
// (its peer finishes), two programs each waiting to receive before it sends,
// a recv of other types than were sent, and a send nobody receives.
module @recv_without_send {
  func.func @sender() {
    %t0 = stablehlo.after_all : !stablehlo.token
    %x = stablehlo.constant dense<1.0> : tensor<f32>
    %t1 = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
    func.return
  }
  func.func @receiver() -> tensor<f32> {
    %t0 = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}
        : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    return %r#0 : tensor<f32>
  }
  func.func public @main() {
    %r = "interpreter.run_parallel"() {programs = [[@sender, @receiver]]} : () -> tensor<f32>
    func.return
  }
}

// -----

module @both_receive_first {
  func.func @left() -> tensor<f32> {
    %t0 = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    %t1 = "stablehlo.send"(%r#0, %r#1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}
        : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
    return %r#0 : tensor<f32>
  }
  func.func @right() -> tensor<f32> {
    %t0 = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>}
        : (!stablehlo.token) -> (tensor<f32>, !stablehlo.token)
    %t1 = "stablehlo.send"(%r#0, %r#1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
    return %r#0 : tensor<f32>
  }
  func.func public @main() {
    %r:2 = "interpreter.run_parallel"() {programs = [[@left, @right]]} : () -> (tensor<f32>, tensor<f32>)
    func.return
  }
}

// -----

module @recv_of_other_types {
  func.func @sender() {
    %t0 = stablehlo.after_all : !stablehlo.token
    %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    %t1 = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (tensor<2xi32>, !stablehlo.token) -> !stablehlo.token
    func.return
  }
  func.func @receiver() -> tensor<2xf32> {
    %t0 = stablehlo.after_all : !stablehlo.token
    %r:2 = "stablehlo.recv"(%t0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>}
        : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %r#0 : tensor<2xf32>
  }
  func.func public @main() {
    %r = "interpreter.run_parallel"() {programs = [[@sender, @receiver]]} : () -> tensor<2xf32>
    func.return
  }
}

// -----

module @send_never_received {
  func.func @sender() {
    %t0 = stablehlo.after_all : !stablehlo.token
    %x = stablehlo.constant dense<1.0> : tensor<f32>
    %t1 = "stablehlo.send"(%x, %t0) {channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>}
        : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
    func.return
  }
  func.func @idle() {
    func.return
  }
  func.func public @main() {
    "interpreter.run_parallel"() {programs = [[@sender, @idle]]} : () -> ()
    func.return
  }
}

// -----

// Two infeeds, one element queued: the second finds the queue empty.
module @infeed_runs_out {
  func.func @two_reads() -> (tensor<i32>, tensor<i32>) {
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    %b:2 = "stablehlo.infeed"(%a#1) : (!stablehlo.token) -> (tensor<i32>, !stablehlo.token)
    return %a#0, %b#0 : tensor<i32>, tensor<i32>
  }
  func.func @seven() -> tensor<i32> {
    %c = stablehlo.constant dense<7> : tensor<i32>
    return %c : tensor<i32>
  }
  func.func public @main() {
    %r:2 = "interpreter.run_parallel"() {infeed = [@seven], programs = [[@two_reads]]} : () -> (tensor<i32>, tensor<i32>)
    func.return
  }
}

// -----

// The queue's element is not what the infeed reads.
module @infeed_of_other_types {
  func.func @read() -> tensor<2xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %a:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
    return %a#0 : tensor<2xf32>
  }
  func.func @ints() -> tensor<2xi32> {
    %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
    return %c : tensor<2xi32>
  }
  func.func public @main() {
    %r = "interpreter.run_parallel"() {infeed = [@ints], programs = [[@read]]} : () -> tensor<2xf32>
    func.return
  }
}

// -----

// A test function alone has no host queue.
module @outfeed_alone {
  func.func public @main() {
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %t = stablehlo.after_all : !stablehlo.token
    %u = "stablehlo.outfeed"(%c, %t) : (tensor<f32>, !stablehlo.token) -> !stablehlo.token
    func.return
  }
}
