// RUN: kiln-opt --passes=sharding_propagation --split-input-file %s | FileCheck %s
// RUN: kiln-opt --passes=sharding_propagation --split-input-file --explain-sharding %s 2>&1 >/dev/null \
// RUN:   | FileCheck --check-prefix=WHY %s
// Shardings spread from arguments forward and from results backward through
// each op's factors; what nothing reaches is replicated.

// A batch split flows through a dot's free dimension and the elementwise op
// after it; the replicated weight stays replicated.
// CHECK-LABEL: func.func public @forward
// CHECK-SAME: %arg1: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}
// CHECK-SAME: -> (tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
// CHECK: stablehlo.dot_general {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
// CHECK: stablehlo.tanh {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
// --explain-sharding says where each dimension's sharding came from:
// WHY: result 0 of the stablehlo.dot_general at [[@LINE+6]]:10: #sdy.sharding<@mesh, [{"x"}, {}]>
// WHY-NEXT: dimension 0: split, from argument 0 through the stablehlo.dot_general at [[@LINE+5]]:10 (forward)
// WHY-NEXT: dimension 1: replicated: no sharding reaches it
module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @forward(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x6xf32>) -> tensor<8x6xf32> {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %1 = stablehlo.tanh %0 : tensor<8x6xf32>
    return %1 : tensor<8x6xf32>
  }
}

// -----

// A result sharding flows backward to the argument through a transpose.
// CHECK-LABEL: func.func public @backward
// CHECK-SAME: %arg0: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}
// CHECK: stablehlo.transpose {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @backward(%arg0: tensor<4x6xf32>) -> (tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
    return %0 : tensor<6x4xf32>
  }
}

// -----

// A dimension takes a split only where it divides evenly (the reshape's 3
// rows over 2 devices do not, so it stays replicated), and an axis is used
// once per value (the first operand's split wins).
// CHECK-LABEL: func.func public @uneven
// CHECK: stablehlo.add {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
// CHECK: stablehlo.reshape %0 : (
module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @uneven(%arg0: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<6x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}) -> tensor<3x2x4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<6x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<6x4xf32>) -> tensor<3x2x4xf32>
    return %1 : tensor<3x2x4xf32>
  }
}

// -----

// A sharding constraint wins over what flows into it; the sum's reduced
// dimension passes its split to the operand only: the sum is replicated
// (no attribute).
// CHECK-LABEL: func.func public @constraint
// CHECK: stablehlo.negate {{.*}}sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>
// CHECK: sdy.sharding_constraint {{.*}} <@mesh, [{}, {"x"}]>
// CHECK: stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (
module @m attributes {mhlo.num_partitions = 2 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @constraint(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> tensor<4xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4x4xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{}, {"x"}]> : tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
