// Programs whose ops read one value twice, each use needing its own split,
// for kiln-run-spmd-self-operand.test. Arguments and results are replicated,
// so every instance of the partitioned program must return what the
// unpartitioned program returns. Inputs are small integers: every sum is
// exact, whatever order the blocks add in.
module @self_operand {
  sdy.mesh @mesh = <["x"=2]>

  // v v^T (jnp.einsum("ij,kj->ik", v, v)) with v's rows split: the left use
  // keeps its rows split, the right one is gathered whole.
  func.func public @gram_rows(%a: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %v = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<8x6xf32>
    %d = stablehlo.dot_general %v, %v, contracting_dims = [1] x [1] : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x8xf32>
    %r = sdy.sharding_constraint %d <@mesh, [{"x"}, {}]> : tensor<8x8xf32>
    return %r : tensor<8x8xf32>
  }

  // v v with v's rows split: the rows are the right use's contracting
  // dimension, so the left use moves its split to its columns (all_to_all)
  // and the partial products are summed.
  func.func public @square_rows(%a: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %v = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<4x4xf32>
    %d = stablehlo.dot_general %v, %v, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    return %d : tensor<4x4xf32>
  }
}
