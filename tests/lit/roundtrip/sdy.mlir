// Shardy's sharding annotations as jax 0.10.2 prints them: the module-level
// sdy.mesh symbol, sdy.sharding_constraint (with_sharding_constraint),
// sdy.reshard, sdy.sharding_group, sdy.propagation_barrier,
// sdy.manual_computation (shard_map), and #sdy.sharding attributes on
// arguments, results and custom calls. Both forms print back as jaxlib prints
// them, and the generic form reads back to the same ops.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

// CHECK-LABEL: module @jit_h
// CHECK-NEXT: sdy.mesh @mesh = <["x"=1, "y"=1]> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}, {name = "y", size = 1 : i64}]}}
// CHECK: func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4x2xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
// CHECK-NEXT: %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {"x", "y"}]> : tensor<4x2xf32>
// CHECK-NEXT: %1 = sdy.reshard %0 <@mesh, [{"y"}, {?}]> : tensor<4x2xf32>
// CHECK-NEXT: return %1
// GENERIC: "sdy.mesh"() <{mesh = #sdy.mesh<["x"=1, "y"=1]>, sym_name = "mesh"}> {stablehlo.mesh =
// GENERIC: "sdy.sharding_constraint"(%arg0) <{sharding = #sdy.sharding<@mesh, [{}, {"x", "y"}]>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
// GENERIC: "sdy.reshard"(%0) <{sharding = #sdy.sharding<@mesh, [{"y"}, {?}]>}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
module @jit_h attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1, "y"=1]> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}, {name = "y", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4x2xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) {
    %0 = sdy.sharding_constraint %arg0 <@mesh, [{}, {"x", "y"}]> : tensor<4x2xf32>
    %1 = sdy.reshard %0 <@mesh, [{"y"}, {?}]> : tensor<4x2xf32>
    return %1 : tensor<4x2xf32>
  }
}

// -----

// jax.debug.print: a maximal mesh and a per-value sharding on the callback.
// CHECK-LABEL: module @jit_f
// CHECK-NEXT: sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
// CHECK: stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {{{.*}}sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<3xf32>) -> ()
// GENERIC: "sdy.mesh"() <{mesh = #sdy.mesh<[], device_ids=[0]>, sym_name = "maximal_mesh_0"}>
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    stablehlo.custom_call @xla_ffi_python_cpu_callback(%arg0) {backend_config = "", has_side_effect = true, mhlo.backend_config = {index = 0 : ui64}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [], sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>} : (tensor<3xf32>) -> ()
    return %arg0 : tensor<3xf32>
  }
}

// -----

// A scalar has an empty dimension list; an inline mesh needs no symbol.
// CHECK-LABEL: func.func @scalar_inline_mesh
// CHECK-NEXT: sdy.sharding_constraint %arg0 <mesh<["a"=1]>, []> : tensor<f32>
func.func @scalar_inline_mesh(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = sdy.sharding_constraint %arg0 <mesh<["a"=1]>, []> : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// shard_alike lowers to sdy.sharding_group (no result); a propagation
// barrier is an identity with its allowed direction (an i32 in the generic
// form: 0 NONE, 1 FORWARD, 2 BACKWARD).
// CHECK-LABEL: func.func public @groups_and_barriers
// CHECK-NEXT: sdy.sharding_group %arg0 group_id=0 : tensor<4xf32>
// CHECK-NEXT: sdy.sharding_group %arg1 group_id=0 : tensor<4xf32>
// CHECK-NEXT: %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<4xf32>
// CHECK-NEXT: %1 = sdy.propagation_barrier %0 allowed_direction=NONE {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : tensor<4xf32>
// GENERIC: "sdy.sharding_group"(%arg0) <{group_id = 0 : i64}> : (tensor<4xf32>) -> ()
// GENERIC: "sdy.propagation_barrier"(%arg0) <{allowed_direction = 2 : i32}> : (tensor<4xf32>) -> tensor<4xf32>
module {
  sdy.mesh @mesh = <["a"=2]>
  func.func public @groups_and_barriers(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    sdy.sharding_group %arg0 group_id=0 : tensor<4xf32>
    "sdy.sharding_group"(%arg1) <{group_id = 0 : i64}> : (tensor<4xf32>) -> ()
    %0 = sdy.propagation_barrier %arg0 allowed_direction=BACKWARD : tensor<4xf32>
    %1 = "sdy.propagation_barrier"(%0) <{allowed_direction = 0 : i32}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"a", ?}]>]>} : (tensor<4xf32>) -> tensor<4xf32>
    %2 = stablehlo.add %1, %arg1 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}

// -----

// shard_map as jax 0.10.2 prints it: sdy.manual_computation's pretty form,
// with its body's local shapes, and sdy.return.
// CHECK-LABEL: module @jit_g
// CHECK: %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<4x4xf32>) {
// CHECK-NEXT: %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT: %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
// CHECK-NEXT: %2 = stablehlo.multiply %arg1, %1 : tensor<4x4xf32>
// CHECK-NEXT: sdy.return %2 : tensor<4x4xf32>
// CHECK-NEXT: } : (tensor<8x4xf32>) -> tensor<8x4xf32>
// GENERIC: "sdy.manual_computation"(%arg0) <{in_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>, manual_axes = #sdy<manual_axes{"x", "y"}>, out_shardings = #sdy.sharding_per_value<[<@mesh, [{"x"}, {}]>]>}> ({
// GENERIC: "sdy.return"(%{{[0-9]+}}) : (tensor<4x4xf32>) -> ()
module @jit_g attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%arg1: tensor<4x4xf32>) {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %2 = stablehlo.multiply %arg1, %1 : tensor<4x4xf32>
      sdy.return %2 : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// No operands, and attributes after the body.
// CHECK-LABEL: func.func @no_operands
// CHECK: sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, [{}]>] manual_axes={} () {
// CHECK: } {xla.note = "n"} : () -> tensor<2xf32>
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @no_operands() -> tensor<2xf32> {
    %0 = sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, [{}]>] manual_axes={} () {
      %c = stablehlo.constant dense<1.0> : tensor<2xf32>
      sdy.return %c : tensor<2xf32>
    } {xla.note = "n"} : () -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
