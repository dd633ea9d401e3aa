// RUN: kiln-opt --passes=import_gspmd_shardings --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// GSPMD's shardings (jax with jax_use_shardy_partitioner=False) become
// Shardy's: one mesh shared by every iota tile assignment, sdy.sharding on
// arguments, results and ops, sharding constraints, and manual computations
// for shard_map's SPMDFullToShardShape/SPMDShardToFullShape regions. The
// second kiln-opt verifies the result.

// jax.jit(f, in_shardings=(P("x", None), P(None, "y")), out_shardings=P(("x", "y")))
// with with_sharding_constraint(P("y", None)) over a 2x2 mesh ("x", "y"):
// "x" is _axis_0 and "y" is _axis_1 of the mesh the pass declares.
// CHECK-LABEL: module @jit_f
// CHECK-NEXT: sdy.mesh @mesh = <["_axis_0"=2, "_axis_1"=2]>
// CHECK-NEXT: func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0"}, {}]>}, %arg1: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"_axis_1"}]>}) -> (tensor<8x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0", "_axis_1"}, {}]>})
// CHECK-NOT: mhlo.sharding
// CHECK: %1 = sdy.sharding_constraint %0 <@mesh, [{"_axis_1"}, {}]> : tensor<8x8xf32>
// CHECK-NEXT: return %1
module @jit_f attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}, %arg1: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"}) -> (tensor<8x8xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %1 : tensor<8x8xf32>
  }
}

// -----

// A 2x2x2 mesh ("x", "y", "z"): P(("x", "z"), "y"), P("y", None) and
// P("z", ("x", "y")) come back as the same axes over a mesh of the same shape.
// CHECK-LABEL: module @jit_three_axes
// CHECK-NEXT: sdy.mesh @mesh = <["_axis_0"=2, "_axis_1"=2, "_axis_2"=2]>
// CHECK-NEXT: func.func public @main(%arg0: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0", "_axis_2"}, {"_axis_1"}]>}, %arg1: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"_axis_1"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"_axis_2"}, {"_axis_0", "_axis_1"}]>})
module @jit_three_axes attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,2]<=[2,2,2]T(0,2,1)}"}, %arg1: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1,4]<=[2,2,2]T(1,0,2) last_tile_dim_replicate}"}) -> (tensor<8x8xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[2,4]<=[4,2]T(1,0)}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// shard_map(in_specs=P("x"), out_specs=P("x")) over the same mesh, as jax
// lowers it: the ops between SPMDFullToShardShape and SPMDShardToFullShape
// become the body of a manual computation over every axis, and the
// `{manual}` @Sharding calls inside go.
// CHECK-LABEL: module @jit_g
// CHECK-NEXT: sdy.mesh @mesh = <["_axis_0"=2, "_axis_1"=2]>
// CHECK: %0 = sdy.sharding_constraint %arg0 <@mesh, [{"_axis_0"}, {}]> : tensor<8x4xf32>
// CHECK-NEXT: %1 = sdy.manual_computation(%0) in_shardings=[<@mesh, [{"_axis_0"}, {}]>] out_shardings=[<@mesh, [{"_axis_0"}, {}]>] manual_axes={"_axis_0", "_axis_1"} (%arg1: tensor<4x4xf32>) {
// CHECK-NEXT: %2 = func.call @shmap_body(%arg1) : (tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: sdy.return %2 : tensor<4x4xf32>
// CHECK-NEXT: } : (tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: return %1 : tensor<8x4xf32>
// CHECK-NOT: custom_call
module @jit_g attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<4x4xf32>
    %2 = call @shmap_body(%1) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"} : (tensor<4x4xf32>) -> tensor<8x4xf32>
    return %4 : tensor<8x4xf32>
  }
  func.func private @shmap_body(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "[('x',), None]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}

// -----

// Two shards enter, two leave, and the body reads a constant from outside
// the region (as after inlining): the region takes its own copy of it.
// CHECK-LABEL: func.func public @two_in_two_out
// CHECK: %[[M:.*]]:2 = sdy.manual_computation(%{{.*}}, %{{.*}}) in_shardings=[<@mesh, [{"_axis_0"}]>, <@mesh, [{}]>] out_shardings=[<@mesh, [{"_axis_0"}]>, <@mesh, [{"_axis_0"}]>] manual_axes={"_axis_0"} (%arg2: tensor<2xf32>, %arg3: tensor<4xf32>) {
// CHECK-NEXT: %cst = stablehlo.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK-NEXT: %{{.*}} = stablehlo.multiply %arg2, %cst : tensor<2xf32>
// CHECK: sdy.return %{{.*}}, %{{.*}} : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: } : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[M]]#0, %[[M]]#1
module @two attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @two_in_two_out(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %cst = stablehlo.constant dense<3.0> : tensor<2xf32>
    %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<2xf32>
    %2 = stablehlo.custom_call @Sharding(%b) {mhlo.sharding = "{replicated}"} : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = stablehlo.multiply %1, %cst : tensor<2xf32>
    %5 = stablehlo.slice %3 [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    %6 = stablehlo.add %4, %5 : tensor<2xf32>
    %7 = stablehlo.custom_call @SPMDShardToFullShape(%4) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<2xf32>) -> tensor<4xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%6) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<2xf32>) -> tensor<4xf32>
    return %7, %8 : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

// Device orders that are no iota get a mesh of their own with device_ids;
// maximal shardings the one-device mesh JAX names maximal_mesh_N (and no
// dimensions, as Shardy requires); a tuple
// sharding gives each result its own; a replicated one uses the shared mesh.
// CHECK-LABEL: module @orders
// CHECK-NEXT: sdy.mesh @mesh = <["_axis_0"=4]>
// CHECK-NEXT: sdy.mesh @mesh_ids_0 = <["_axis_0"=2, "_axis_1"=2], device_ids=[0, 2, 3, 1]>
// CHECK-NEXT: sdy.mesh @maximal_mesh_1 = <[], device_ids=[1]>
// CHECK-NEXT: sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>
// CHECK: func.func public @main(%arg0: tensor<4x6xf32> {sdy.sharding = #sdy.sharding<@mesh_ids_0, [{"_axis_0"}, {"_axis_1"}]>}, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0"}]>}, %arg2: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>})
// CHECK: stablehlo.custom_call @pair(%arg1) {sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_1, []>, <@mesh, [{"_axis_0"}]>]>}
// CHECK: stablehlo.custom_call @callback(%arg2) {has_side_effect = true, sdy.sharding = #sdy.sharding_per_value<[<@maximal_mesh_0, []>]>}
module @orders attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32> {mhlo.sharding = "{devices=[2,2]0,2,3,1}"}, %arg1: tensor<8xf32> {mhlo.sharding = "{devices=[4]0,1,2,3}"}, %arg2: tensor<8xf32> {mhlo.sharding = "{replicated}"}) -> tensor<8xf32> {
    %0:2 = stablehlo.custom_call @pair(%arg1) {mhlo.sharding = "{{maximal device=1}, {devices=[4]<=[4]}}"} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    stablehlo.custom_call @callback(%arg2) {has_side_effect = true, mhlo.sharding = "{maximal device=0}"} : (tensor<8xf32>) -> ()
    %1 = stablehlo.add %0#0, %0#1 : tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}

// -----

// A module without GSPMD shardings is left alone.
// CHECK-LABEL: func.func @unsharded
// CHECK-NOT: sdy.mesh
func.func @unsharded(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
