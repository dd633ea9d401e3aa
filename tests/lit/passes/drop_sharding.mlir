// RUN: kiln-opt --passes=drop_sharding %s | FileCheck %s

// Sharding annotations that keep their operand's type are identities on one
// device: uses read the operand. A sharding group (no result) goes. The mesh and the sharding attributes stay.
// CHECK: sdy.mesh @mesh = <["x"=1]>
// CHECK-LABEL: func.func @annotations
// CHECK-SAME: {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}
// CHECK-NOT: sdy.sharding_constraint
// CHECK-NOT: sdy.reshard
// CHECK-NOT: sdy.sharding_group
// CHECK-NOT: sdy.propagation_barrier
// CHECK-NOT: @Sharding
// CHECK: %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: %1 = stablehlo.multiply %0, %0 : tensor<4xf32>
// CHECK-NEXT: return %1
module {
  sdy.mesh @mesh = <["x"=1]>
  func.func @annotations(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> tensor<4xf32> {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{"x"}]> : tensor<4xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = "{devices=[1]<=[1]}"} : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.add %1, %1 : tensor<4xf32>
    sdy.sharding_group %2 group_id=3 : tensor<4xf32>
    %3 = sdy.reshard %2 <@mesh, [{}]> : tensor<4xf32>
    %4 = sdy.propagation_barrier %3 allowed_direction=FORWARD : tensor<4xf32>
    %5 = stablehlo.multiply %4, %4 : tensor<4xf32>
    return %5 : tensor<4xf32>
  }
}
