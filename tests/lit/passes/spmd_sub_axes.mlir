// RUN: kiln-opt --passes=sharding_propagation --split-input-file %s | FileCheck %s --check-prefix=PROP
// RUN: kiln-opt --passes=sharding_propagation,spmd_partition --split-input-file %s | FileCheck %s --check-prefix=PART
// RUN: kiln-opt --passes=sharding_propagation --split-input-file --explain-sharding %s 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=WHY
// Sub-axes ("x":(p)s): propagation and partitioning see each axis cut into
// the parts its sub-axes name (an axis "x" of 4 used as "x":(1)2 and
// "x":(2)2 is a 2x2 mesh); what they print names sub-axes again, consecutive
// parts merged.

// A dot with rows over the major half of "x" and its contracting dimension
// over the minor half: the minor half's groups ({0, 1}, {2, 3}) sum the
// partial products. The constraint asking for the whole axis merges the parts.
// --explain-sharding names sub-axes too, merged like the attributes:
// WHY: result 0 of the stablehlo.dot_general at [[@LINE+18]]:10: #sdy.sharding<@mesh, [{"x":(1)2}, {}]>
// WHY: result 0 of the stablehlo.negate at [[@LINE+18]]:10: #sdy.sharding<@mesh, [{"x"}, {}]>
// PROP-LABEL: module @contracting
// PROP: sdy.mesh @mesh = <["x"=4]>
// PROP: stablehlo.dot_general {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(1)2}, {}]>]>
// PROP: stablehlo.negate {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
// PART-LABEL: module @contracting attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}
// PART: sdy.mesh @mesh = <["x"=4]>
// PART: func.func public @main(%arg0: tensor<4x2xf32> {{.*}}, %arg1: tensor<2x6xf32> {{.*}}) -> (tensor<2x6xf32>
// PART: stablehlo.dot_general %arg0, %arg1{{.*}} -> tensor<4x6xf32>
// PART: "stablehlo.all_reduce"({{.*}}replica_groups = dense<{{\[\[}}0, 1], [2, 3]]> : tensor<2x2xi64>
// PART: "stablehlo.all_gather"({{.*}}all_gather_dim = 0 : i64, {{.*}}replica_groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>
// PART: stablehlo.negate {{.*}} : tensor<2x6xf32>
module @contracting {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>},
                         %arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}, {}]>})
      -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %1 = stablehlo.negate %0 : tensor<8x6xf32>
    return %1 : tensor<8x6xf32>
  }
}

// -----

// The major half of "x" splits the rows, the minor half the columns: a sum
// over rows is an all_reduce over the major half's groups ({0, 2}, {1, 3}).
// PROP-LABEL: module @rows_and_columns
// PROP: stablehlo.reduce{{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x":(2)2}]>]>
// PROP: return
// PART-LABEL: module @rows_and_columns
// PART: func.func public @main(%arg0: tensor<4x3xi32> {{.*}}) -> (tensor<3xi32>
// PART: "stablehlo.all_reduce"({{.*}}replica_groups = dense<{{\[\[}}0, 2], [1, 3]]> : tensor<2x2xi64>
module @rows_and_columns {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8x6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(1)2}, {"x":(2)2}]>})
      -> (tensor<6xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x":(2)2}]>}) {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.reduce(%arg0 init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x6xi32>, tensor<i32>) -> tensor<6xi32>
    return %0 : tensor<6xi32>
  }
}

// -----

// Sub-axes of one axis of a 2-axis mesh, in the reverse order (the minor
// half major in the dimension), next to a whole axis; replicated axes print
// in mesh order.
// PROP-LABEL: module @reversed
// PROP: sdy.mesh @mesh = <["x"=2, "y"=4]>
// PROP: sdy.sharding_constraint %arg0 <@mesh, [{"y":(2)2, "y":(1)2}, {"x"}]>
// PROP: stablehlo.abs {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"y":(2)2, "y":(1)2}, {"x"}]>]>
// PROP: sdy.sharding_constraint %1 <@mesh, [{"y":(2)2}, {}], replicated={"x", "y":(1)2}>
// Device (x, y) is 4x + y, y = 2 "y":(1)2 + "y":(2)2: the rows' blocks 0..3
// are on devices 0, 2, 1, 3 (and 4, 6, 5, 7), the order gathering them takes.
// PART-LABEL: module @reversed attributes {mhlo.num_partitions = 8 : i32
// PART: func.func public @main(%arg0: tensor<2x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y":(2)2, "y":(1)2}, {"x"}]>})
// PART-SAME: -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y":(2)2}, {}]>})
// PART: stablehlo.constant dense<[0, 4, 0, 4, 0, 4, 0, 4]> : tensor<8xi32>
// PART: stablehlo.abs %arg0 : tensor<2x2xf32>
// PART: "stablehlo.all_gather"({{.*}}all_gather_dim = 0 : i64, {{.*}}replica_groups = dense<{{\[\[}}0, 2, 1, 3], [4, 6, 5, 7]]> : tensor<2x4xi64>
module @reversed {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func public @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"y":(2)2, "y":(1)2}, {"x"}]> : tensor<8x4xf32>
    %1 = stablehlo.abs %0 : tensor<8x4xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"y":(2)2}, {}], replicated={"y":(1)2, "x"}> : tensor<8x4xf32>
    return %2 : tensor<8x4xf32>
  }
}
