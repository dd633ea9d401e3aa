// RUN: not kiln-opt --pipeline=spmd %s 2>&1 | FileCheck %s
// Cuts of one axis that nest in no single sequence of parts (an axis of 6 cut
// at 2 and at 3, as GSPMD's [2,3] and [3,2] tilings of 6 devices would be)
// are an error, not a wrong partition.
// CHECK: the sub-axes of axis "x" (size 6) of @mesh cut it at 1, 2, 3, 6, which is no chain of divisors
module @no_chain {
  sdy.mesh @mesh = <["x"=6]>
  func.func public @main(%arg0: tensor<6x6xf32>) -> tensor<6x6xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x":(1)2}, {"x":(2)3}]> : tensor<6x6xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x":(1)3}, {"x":(3)2}]> : tensor<6x6xf32>
    return %1 : tensor<6x6xf32>
  }
}
