// RUN: not kiln-opt --passes=spmd_partition %s 2>&1 | FileCheck %s

// A sharding that does not divide its dimension is an error at the function,
// not a wrong answer: kiln's partitioner needs even blocks.
// CHECK: spmd_partition_errors.mlir:[[@LINE+3]]:3: error: in pass 'spmd_partition': argument 0: dimension 0 of size 3 does not split evenly into 2 blocks
module @uneven {
  sdy.mesh @mesh = <["x"=2]>
  func.func public @main(%arg0: tensor<3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<3xf32> {
    return %arg0 : tensor<3xf32>
  }
}
