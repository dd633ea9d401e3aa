// RUN: kiln-opt --passes=sharding_propagation --split-input-file %s | FileCheck %s --check-prefix=PROP
// RUN: kiln-opt --pipeline=spmd --split-input-file %s | FileCheck %s --check-prefix=PART
// RUN: kiln-opt --passes=sharding_propagation --split-input-file --explain-sharding %s 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=WHY
// Propagation through a reshape cuts an axis into sub-axes where a
// dimension takes only part of it, as Shardy's does: f32[8] over "x" of 4 is
// f32[2, 4] over [{"x":(1)2}, {"x":(2)2}] (device c holds elements 2c, 2c + 1,
// row c / 2, columns 2 (c mod 2) and 2 (c mod 2) + 1). The partitioned
// reshape then runs on blocks with no collective.

// A dimension split into two: the first takes the major half of "x", the
// second the minor half; what follows keeps the split.
// WHY: result 0 of the stablehlo.reshape at [[@LINE+18]]:10: #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>
// WHY-NEXT:   dimension 0: split, from argument 0 through the stablehlo.reshape at [[@LINE+17]]:10 (forward)
// WHY-NEXT:   dimension 1: split, from argument 0 through the stablehlo.reshape at [[@LINE+16]]:10 (forward)
// PROP-LABEL: module @split
// PROP: sdy.mesh @mesh = <["x"=4]>
// PROP: -> (tensor<2x12xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>})
// PROP: stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(1)2}, {"x":(2)2}]>]>}
// PROP: stablehlo.negate {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(1)2}, {"x":(2)2}]>]>
// PART-LABEL: module @split
// PART: func.func public @main(%arg0: tensor<2x3xf32> {{.*}}) -> (tensor<1x6xf32>
// PART-NOT: all_gather
// PART-NOT: all_to_all
// PART: stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<1x6xf32>
// PART-NEXT: stablehlo.negate {{.*}} : tensor<1x6xf32>
// PART-NEXT: return
module @split {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<2x12xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<8x3xf32>) -> tensor<2x12xf32>
    %1 = stablehlo.negate %0 : tensor<2x12xf32>
    return %1 : tensor<2x12xf32>
  }
}

// -----

// Backward: a result over "x" of 4 made from f32[2, 4] gives the argument
// the halves of "x"; each device reshapes its f32[1, 2] into its f32[2].
// WHY: argument 0: #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>
// WHY-NEXT:   dimension 0: split, from result 0 of the stablehlo.reshape at [[@LINE+12]]:10 through the stablehlo.reshape at [[@LINE+12]]:10 (backward)
// PROP-LABEL: module @backward
// PROP: func.func public @main(%arg0: tensor<2x4xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>})
// PROP: stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}]>]>}
// PART-LABEL: module @backward
// PART: func.func public @main(%arg0: tensor<1x2xi32> {{.*}}) -> (tensor<2xi32>
// PART-NOT: all_gather
// PART: stablehlo.reshape %arg0 : (tensor<1x2xi32>) -> tensor<2xi32>
// PART-NEXT: return
module @backward {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<2x4xi32>) -> (tensor<8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x4xi32>) -> tensor<8xi32>
    return %0 : tensor<8xi32>
  }
}

// -----

// Two split dimensions merged take both axes (before, the merged dimension
// took only the first and the second was gathered). Where the first holds
// several rows a device's elements are not contiguous in the merged
// dimension: only the major dimension's axis carries (the rule's factor).
// PROP-LABEL: module @merge
// PROP: stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", "y"}, {}]>]>}
// PROP: stablehlo.reshape %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}
// PART-LABEL: module @merge
// PART: func.func public @main(%arg0: tensor<1x3x5xf32> {{.*}}, %arg1: tensor<2x3x5xf32> {{.*}}) -> (tensor<3x5xf32> {{.*}}, tensor<12x5xf32>
// PART-NOT: all_gather
// PART: stablehlo.reshape %arg0 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
// PART: "stablehlo.all_gather"(%arg1){{.*}}all_gather_dim = 1
// PART: stablehlo.reshape {{.*}} : (tensor<2x6x5xf32>) -> tensor<12x5xf32>
module @merge {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<2x6x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}, {}]>},
                         %arg1: tensor<4x6x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}, {}]>})
      -> (tensor<12x5xf32>, tensor<24x5xf32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x6x5xf32>) -> tensor<12x5xf32>
    %1 = stablehlo.reshape %arg1 : (tensor<4x6x5xf32>) -> tensor<24x5xf32>
    return %0, %1 : tensor<12x5xf32>, tensor<24x5xf32>
  }
}

// -----

// On a 2 x 4 mesh, rows over "y" of 4 split into 2 x 4 with columns over
// "x": the sum over the new middle dimension is partial over the minor half
// of "y", whose groups ({0, 1}, {2, 3}, ...) all-reduce it.
// PROP-LABEL: module @two_axes
// PROP: stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y":(1)2}, {"y":(2)2}, {"x"}]>]>}
// PROP: stablehlo.reduce{{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y":(1)2}, {"x"}]>]>
// PART-LABEL: module @two_axes attributes {mhlo.num_partitions = 8 : i32
// PART: func.func public @main(%arg0: tensor<2x3xi32> {{.*}}) -> (tensor<1x3xi32>
// PART: stablehlo.reshape %arg0 : (tensor<2x3xi32>) -> tensor<1x2x3xi32>
// PART: stablehlo.reduce
// PART: "stablehlo.all_reduce"({{.*}}replica_groups = dense<{{\[\[}}0, 1], [2, 3], [4, 5], [6, 7]]> : tensor<4x2xi64>
module @two_axes {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {"x"}]>}) -> tensor<2x6xi32> {
    %0 = stablehlo.reshape %arg0 : (tensor<8x6xi32>) -> tensor<2x4x6xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.reduce(%0 init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4x6xi32>, tensor<i32>) -> tensor<2x6xi32>
    return %1 : tensor<2x6xi32>
  }
}
