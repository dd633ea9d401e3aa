// The deprecated ops the StableHLO dialect accepts and the dialect's
// dynamism ops outside the spec: pretty forms as MLIR prints them, their
// generic forms, and printing is a fixed point. (The interpreter.* ops, which
// jaxlib does not register, are in kiln_only.mlir.)
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
  return
}

// CHECK-LABEL: func.func @dynamism
// CHECK: stablehlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: stablehlo.set_dimension_size %arg0, %arg2, dim = 1 : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x?xf32, #stablehlo.bounds<?, 3>>
// CHECK: chlo.tan %arg0 : tensor<2x3xf32> -> tensor<2x3xf32>
func.func @dynamism(%a: tensor<2x3xf32>, %s: tensor<2xi64>, %n: tensor<i32>) -> tensor<2x3xf32> {
  %0 = stablehlo.real_dynamic_slice %a, %s, %s, %s : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = stablehlo.set_dimension_size %a, %n, dim = 1 : (tensor<2x3xf32>, tensor<i32>) -> tensor<2x?xf32, #stablehlo.bounds<?, 3>>
  %2 = chlo.tan %a : tensor<2x3xf32> -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}
