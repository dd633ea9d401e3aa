// Programs whose reshapes make propagation cut axes into sub-axes, for
// kiln-run-spmd-reshape-sub-axes.test (docs/spmd.md, "Sub-axes"). The mesh
// has 8 devices: "x" of 4 (its halves "x":(1)2 and "x":(2)2 appear) and "y"
// of 2. Results (and the arguments of all but @backward) are stated
// replicated, so every instance of the partitioned program must return what
// the unpartitioned program returns; @backward runs under kiln run --spmd,
// which hands each device its blocks of the argument as propagation split
// it. Inputs are small integers: every sum is exact in any order.
module @reshape_sub_axes {
  sdy.mesh @mesh = <["x"=4, "y"=2]>

  // Rows over "x" split into 2 x 12: the halves of "x"; the square's sum
  // over the new columns is partial over the minor half.
  func.func public @split(%a: tensor<8x3xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<2xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>},
          tensor<2x12xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {}]> : tensor<8x3xi32>
    %r = stablehlo.reshape %c : (tensor<8x3xi32>) -> tensor<2x12xi32>
    %sq = stablehlo.multiply %r, %r : tensor<2x12xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %sum = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x12xi32>, tensor<i32>) -> tensor<2xi32>
    %n = stablehlo.negate %r : tensor<2x12xi32>
    return %sum, %n : tensor<2xi32>, tensor<2x12xi32>
  }

  // Rows over "x" and columns over "y" split into 2 x 4 x 6, the middle
  // dimension summed (partial over the minor half of "x"), then the two
  // halves swapped by a transpose and merged back by a reshape that cannot
  // carry the split as it is (the minor half would follow local elements):
  // the rule's major-dimension factor and a gather.
  func.func public @two_axes(%a: tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<2x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>},
          tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {"y"}]> : tensor<8x6xi32>
    %r = stablehlo.reshape %c : (tensor<8x6xi32>) -> tensor<2x4x6xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %sum = stablehlo.reduce(%r init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4x6xi32>, tensor<i32>) -> tensor<2x6xi32>
    %s = stablehlo.abs %sum : tensor<2x6xi32>
    %t = stablehlo.transpose %r, dims = [1, 0, 2] : (tensor<2x4x6xi32>) -> tensor<4x2x6xi32>
    %m = stablehlo.reshape %t : (tensor<4x2x6xi32>) -> tensor<8x6xi32>
    %d = stablehlo.subtract %m, %c : tensor<8x6xi32>
    return %s, %d : tensor<2x6xi32>, tensor<8x6xi32>
  }

  // Two split dimensions merged into the rows of a dot: they take both axes.
  func.func public @merge_dot(%a: tensor<4x2x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>},
                              %b: tensor<6x5xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<8x5xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %c = sdy.sharding_constraint %a <@mesh, [{"x"}, {"y"}, {}]> : tensor<4x2x6xi32>
    %r = stablehlo.reshape %c : (tensor<4x2x6xi32>) -> tensor<8x6xi32>
    %d = stablehlo.dot_general %r, %b, contracting_dims = [1] x [0] : (tensor<8x6xi32>, tensor<6x5xi32>) -> tensor<8x5xi32>
    %n = stablehlo.negate %d : tensor<8x5xi32>
    return %n : tensor<8x5xi32>
  }

  // Backward: the result over "x" and "y" made from 2 x 4 x 6 gives the
  // argument (no sharding stated) the halves of "x".
  func.func public @backward(%a: tensor<2x4x6xi32>)
      -> (tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %r = stablehlo.reshape %a : (tensor<2x4x6xi32>) -> tensor<8x6xi32>
    %m = stablehlo.multiply %r, %r : tensor<8x6xi32>
    return %m : tensor<8x6xi32>
  }
}
