// Two replicas that never meet (kiln-launch.test): a process running this
// next to one running a program with collectives finishes without reaching
// them, and the other must fail, not hang.
module attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
