// RUN: kiln-opt --passes=sharding_propagation,spmd_partition --split-input-file %s | FileCheck %s
// An op reading one value twice, each use needing its own split: each
// operand is resharded on its own (tests/lit/tools/kiln-run-spmd-self-operand.test
// runs such programs against the unpartitioned ones).

// v v^T (jnp.einsum("ij,kj->ik", v, v)) with v's rows split: the left use
// keeps its rows, the right use is gathered whole.
// CHECK-LABEL: module @gram
// CHECK: func.func public @main(%arg0: tensor<4x6xf32> {{.*}}) -> (tensor<4x8xf32>
// CHECK: %[[ALL:.*]] = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64{{.*}}(tensor<4x6xf32>) -> tensor<8x6xf32>
// CHECK: %[[D:.*]] = stablehlo.dot_general %arg0, %[[ALL]], contracting_dims = [1] x [1]{{.*}}(tensor<4x6xf32>, tensor<8x6xf32>) -> tensor<4x8xf32>
// CHECK: return %[[D]] : tensor<4x8xf32>
module @gram {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [1] : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// v v with v's rows split: the rows are the right use's contracting
// dimension, kept split; the left use moves its split to its columns
// (all_to_all), and the partial products are summed and split by rows.
// CHECK-LABEL: module @square
// CHECK: func.func public @main(%arg0: tensor<2x4xf32> {{.*}}) -> (tensor<2x4xf32>
// CHECK: %[[T:.*]] = "stablehlo.all_to_all"(%arg0){{.*}}(tensor<2x4xf32>) -> tensor<4x2xf32>
// CHECK: %[[P:.*]] = stablehlo.dot_general %[[T]], %arg0, contracting_dims = [1] x [0]{{.*}}(tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK: %[[S:.*]] = "stablehlo.reduce_scatter"(%[[P]])
// CHECK: return %[[S]] : tensor<2x4xf32>
module @square {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>})
      -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
