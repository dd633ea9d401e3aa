// `kiln run` of a program with Shardy's annotations (shard_alike's
// sdy.sharding_group, a propagation barrier, a sharding constraint) on one
// device: they change no value, on either back end.
// RUN: kiln run %s --backend=interpreter --input-literal 'dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>' --input-literal 'dense<1.0> : tensor<4xf32>' | FileCheck %s
// RUN: kiln run %s --backend=cpu --input-literal 'dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>' --input-literal 'dense<1.0> : tensor<4xf32>' | FileCheck %s
// CHECK: dense<[2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<4xf32>
module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    sdy.sharding_group %a group_id=0 : tensor<4xf32>
    sdy.sharding_group %b group_id=0 : tensor<4xf32>
    %0 = sdy.propagation_barrier %a allowed_direction=NONE : tensor<4xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}]> : tensor<4xf32>
    %2 = stablehlo.add %1, %b : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
