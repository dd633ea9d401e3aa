// Named modules with attributes, function argument/result attributes, visibility, SSA naming.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {a = "b"}, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}, tensor<2xf32>) {
    %0 = stablehlo.add %arg0, %arg1 {aattr = [1, 2.500000e+00 : f32, "s", @sym::@inner, true, i32, array<i32: 1, 2>, array<i1: true>, array<f32: 1.500000e+00>, 7 : ui8, -1 : i16, 0x7FC00000 : f32, 1.000000e+10, {}], mhlo.frontend_attributes = {x = "y"}, zattr} : tensor<2xf32>
    %1 = stablehlo.abs %0 : tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }
}
// CHECK: module @jit_f attributes {jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {a = "b"}, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK-LABEL: func.func public @main(%arg0: tensor<2xf32> {jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, %arg1: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}, tensor<2xf32>) {
// CHECK-NEXT: %0 = stablehlo.add %arg0, %arg1 {aattr = [1, 2.500000e+00 : f32, "s", @sym::@inner, true, i32, array<i32: 1, 2>, array<i1: true>, array<f32: 1.500000e+00>, 7 : ui8, -1 : i16, 0x7FC00000 : f32, 1.000000e+10, {}], mhlo.frontend_attributes = {x = "y"}, zattr} : tensor<2xf32>
// CHECK-NEXT: %1 = stablehlo.abs %0 : tensor<2xf32>
// CHECK-NEXT: return %0, %1 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() <{sym_name = "jit_f"}> ({
// GENERIC-NEXT: "func.func"() <{arg_attrs = [{jax.arg_info = "x", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"}, {}], function_type = (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>), res_attrs = [{jax.result_info = "result"}, {}], sym_name = "main", sym_visibility = "public"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>):
// GENERIC-NEXT: %0 = "stablehlo.add"(%arg0, %arg1) {aattr = [1, 2.500000e+00 : f32, "s", @sym::@inner, true, i32, array<i32: 1, 2>, array<i1: true>, array<f32: 1.500000e+00>, 7 : ui8, -1 : i16, 0x7FC00000 : f32, 1.000000e+10, {}], mhlo.frontend_attributes = {x = "y"}, zattr} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: %1 = "stablehlo.abs"(%0) : (tensor<2xf32>) -> tensor<2xf32>
// GENERIC-NEXT: "func.return"(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) {jax.uses_shape_polymorphism = false, mhlo.frontend_attributes = {a = "b"}, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()

// -----

func.func @multi_res(%arg0: tensor<f32>) -> tensor<f32> {
  %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg0) : tensor<f32>, tensor<f32>
  cond {
    %1 = stablehlo.compare LT, %iterArg, %iterArg_1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %1:2 = stablehlo.while(%iterArg_3 = %iterArg, %iterArg_4 = %iterArg_1) : tensor<f32>, tensor<f32>
    cond {
      %2 = stablehlo.compare LT, %iterArg_3, %iterArg_4 : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      stablehlo.return %iterArg_3, %iterArg_4 : tensor<f32>, tensor<f32>
    }
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    stablehlo.return %1#0, %1#1 : tensor<f32>, tensor<f32>
  }
  %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  return %0#1 : tensor<f32>
}
// CHECK: module {
// CHECK-LABEL: func.func @multi_res(%arg0: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %arg0) : tensor<f32>, tensor<f32>
// CHECK-NEXT: cond {
// CHECK-NEXT: %1 = stablehlo.compare LT, %iterArg, %iterArg_1 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %1 : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: %1:2 = stablehlo.while(%iterArg_3 = %iterArg, %iterArg_4 = %iterArg_1) : tensor<f32>, tensor<f32>
// CHECK-NEXT: cond {
// CHECK-NEXT: %2 = stablehlo.compare LT, %iterArg_3, %iterArg_4 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %2 : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: stablehlo.return %iterArg_3, %iterArg_4 : tensor<f32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: stablehlo.return %1#0, %1#1 : tensor<f32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: return %0#1 : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<f32>) -> tensor<f32>, sym_name = "multi_res"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<f32>):
// GENERIC-NEXT: %0:2 = "stablehlo.while"(%arg0, %arg0) ({
// GENERIC-NEXT: ^bb0(%arg7: tensor<f32>, %arg8: tensor<f32>):
// GENERIC-NEXT: %7 = "stablehlo.compare"(%arg7, %arg8) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
// GENERIC-NEXT: "stablehlo.return"(%7) : (tensor<i1>) -> ()
// GENERIC-NEXT: }, {
// GENERIC-NEXT: ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
// GENERIC-NEXT: %3:2 = "stablehlo.while"(%arg1, %arg2) ({
// GENERIC-NEXT: ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
// GENERIC-NEXT: %6 = "stablehlo.compare"(%arg5, %arg6) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
// GENERIC-NEXT: "stablehlo.return"(%6) : (tensor<i1>) -> ()
// GENERIC-NEXT: }, {
// GENERIC-NEXT: ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// GENERIC-NEXT: %5 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%arg3, %arg4) : (tensor<f32>, tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// GENERIC-NEXT: %4 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%3#0, %3#1) : (tensor<f32>, tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
// GENERIC-NEXT: %1 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC-NEXT: %2 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
// GENERIC-NEXT: "func.return"(%0#1) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
