// The deprecated ops the StableHLO dialect accepts, the dialect's dynamism
// ops outside the spec, and the interpreter's debugging ops: pretty forms as
// MLIR prints them, their generic forms, and printing is a fixed point.
// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --generic %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @deprecated
// CHECK: stablehlo.dot %arg0, %arg1, precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
// CHECK: stablehlo.einsum %arg0, %arg2, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: stablehlo.unary_einsum %arg0, config = "ab->ba" : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: stablehlo.broadcast %arg1, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: stablehlo.create_token : !stablehlo.token
// CHECK: "stablehlo.cross-replica-sum"(%arg1) <{replica_groups = dense<0> : tensor<1x1xi64>}> : (tensor<3xf32>) -> tensor<3xf32>
// CHECK: "stablehlo.torch_index_select"(%arg0, %arg3) <{batch_dims = 0 : i64, dim = 1 : i64}> : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<2x4xf32>
// CHECK: "stablehlo.trace"(%arg1) <{tag = "t"}> : (tensor<3xf32>) -> ()
// GENERIC: "stablehlo.dot"(%{{.*}}, %{{.*}}) <{precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}>
// GENERIC: "stablehlo.einsum"(%{{.*}}, %{{.*}}) <{einsum_config = "ab,bc->ac"}>
// GENERIC: "stablehlo.broadcast"(%{{.*}}) <{broadcast_sizes = array<i64: 2>}>
// GENERIC: "stablehlo.create_token"() : () -> !stablehlo.token
func.func @deprecated(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %b: tensor<3x4xf32>, %i: tensor<4xi32>) {
  %0 = stablehlo.dot %a, %v, precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  %1 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.unary_einsum %a, config = "ab->ba" : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = stablehlo.broadcast %v, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>
  %4 = stablehlo.create_token : !stablehlo.token
  %5 = "stablehlo.cross-replica-sum"(%v) {replica_groups = dense<0> : tensor<1x1xi64>} : (tensor<3xf32>) -> tensor<3xf32>
  %6 = "stablehlo.torch_index_select"(%a, %i) {dim = 1 : i64, batch_dims = 0 : i64} : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<2x4xf32>
  "stablehlo.trace"(%v) {tag = "t"} : (tensor<3xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @dynamism_and_debugging
// CHECK: stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: stablehlo.set_dimension_size %arg0, %arg2, dim = 1 : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x?xf32, #stablehlo.bounds<?, 3>>
// CHECK: interpreter.print %arg0 : tensor<2x3xf32>
// CHECK: interpreter.probe %{{.*}}, probe_id = "p0" : tensor<2x3xf32>
// CHECK: chlo.tan %{{.*}} : tensor<2x3xf32> -> tensor<2x3xf32>
// GENERIC: "interpreter.probe"(%{{.*}}) <{probe_id = "p0"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @dynamism_and_debugging(%a: tensor<2x3xf32>, %s: tensor<2xi64>, %n: tensor<i32>) -> tensor<2x3xf32> {
  %0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = stablehlo.set_dimension_size %a, %n, dim = 1 : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x?xf32, #stablehlo.bounds<?, 3>>
  %2 = interpreter.print %a : tensor<2x3xf32>
  %3 = interpreter.probe %2, probe_id = "p0" : tensor<2x3xf32>
  %4 = chlo.tan %3 : tensor<2x3xf32> -> tensor<2x3xf32>
  return %4 : tensor<2x3xf32>
}
