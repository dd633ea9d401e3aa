// Programs sharded over sub-axes ("x":(p)s), for kiln-run-spmd-sub-axes.test.
// Arguments and results of all but @sharded_args are replicated (stated, so
// that propagation does not split them), so every
// instance of the partitioned program must return what the unpartitioned
// program returns; @sharded_args runs under kiln run --spmd, which hands
// each device its blocks and puts the results together. Inputs are
// small integers: every sum is exact, whatever order the blocks add in.
module @sub_axes {
  sdy.mesh @mesh = <["x"=4]>

  // Rows over the major half of "x", columns over the minor half; sums along
  // each dimension, a transpose, then the whole axis over the columns and
  // the halves swapped (reshards between sub-axes).
  func.func public @halves(%a: tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>},
          tensor<6x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x":(1)2}, {"x":(2)2}]> : tensor<8x6xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %sq = stablehlo.multiply %c, %c : tensor<8x6xi32>
    %cols = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x6xi32>, tensor<i32>) -> tensor<6xi32>
    %rows = stablehlo.reduce(%c init: %z) applies stablehlo.add across dimensions = [1] : (tensor<8x6xi32>, tensor<i32>) -> tensor<8xi32>
    %t = stablehlo.transpose %c, dims = [1, 0] : (tensor<8x6xi32>) -> tensor<6x8xi32>
    %w = sdy.sharding_constraint %t <@mesh, [{}, {"x"}]> : tensor<6x8xi32>
    %n = stablehlo.negate %w : tensor<6x8xi32>
    %s = sdy.sharding_constraint %c <@mesh, [{"x":(2)2}, {"x":(1)2}]> : tensor<8x6xi32>
    %p = stablehlo.add %s, %c : tensor<8x6xi32>
    return %cols, %rows, %n, %p : tensor<6xi32>, tensor<8xi32>, tensor<6x8xi32>, tensor<8x6xi32>
  }

  // A dot: rows of the lhs over the major half, the contracting dimension
  // over the minor half (an all_reduce over it), then the result resharded
  // onto the columns by the whole axis.
  func.func public @dot(%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
                        %b: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %ca = sdy.sharding_constraint %a <@mesh, [{"x":(1)2}, {"x":(2)2}]> : tensor<8x4xf32>
    %cb = sdy.sharding_constraint %b <@mesh, [{"x":(2)2}, {}]> : tensor<4x8xf32>
    %d = stablehlo.dot_general %ca, %cb, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %r = sdy.sharding_constraint %d <@mesh, [{"x":(1)2}, {}]> : tensor<8x8xf32>
    %l = stablehlo.abs %r : tensor<8x8xf32>
    %w = sdy.sharding_constraint %l <@mesh, [{}, {"x"}]> : tensor<8x8xf32>
    %m = stablehlo.multiply %w, %w : tensor<8x8xf32>
    return %d, %m : tensor<8x8xf32>, tensor<8x8xf32>
  }

  // Arguments and results split over sub-axes.
  func.func public @sharded_args(%a: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>},
                                 %b: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}, {}]>})
      -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
          tensor<6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}]>}) {
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x6xf32>, tensor<f32>) -> tensor<6xf32>
    return %d, %s : tensor<8x6xf32>, tensor<6xf32>
  }
}
