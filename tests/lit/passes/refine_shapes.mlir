// RUN: kiln-opt --split-input-file --passes=refine_shapes %s | FileCheck %s

// A function with static parameters whose body computes shapes: the shape
// arithmetic folds, the dynamism ops become their static twins, and the
// types after them follow.
// CHECK-LABEL: func.func @main(%arg0: tensor<4x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NOT: get_dimension_size
// CHECK-NOT: dynamic_
// CHECK: stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<4x3xf32>) -> tensor<2x4x3xf32>
// The iota is small enough to be folded into a constant.
// CHECK: %[[IOTA:.*]] = stablehlo.constant dense<{{.*}}> : tensor<2x4x3xf32>
// CHECK: stablehlo.add %{{.*}}, %[[IOTA]] : tensor<2x4x3xf32>
func.func @main(%a: tensor<4x3xf32>) -> tensor<?x?x3xf32> {
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<4x3xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %two = stablehlo.constant dense<2> : tensor<1xi32>
  %three = stablehlo.constant dense<3> : tensor<1xi32>
  %shape = stablehlo.concatenate %two, %n1, %three, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
  %b = stablehlo.dynamic_broadcast_in_dim %a, %shape, dims = [1, 2] : (tensor<4x3xf32>, tensor<3xi32>) -> tensor<?x?x3xf32>
  %i = stablehlo.dynamic_iota %shape, dim = 1 : (tensor<3xi32>) -> tensor<?x?x3xf32>
  %s = stablehlo.add %b, %i : tensor<?x?x3xf32>
  return %s : tensor<?x?x3xf32>
}

// -----

// The other dynamism ops with constant shape operands.
// CHECK-LABEL: func.func @twins
// CHECK: stablehlo.reshape %arg0 : (tensor<2x6xf32>) -> tensor<3x4xf32>
// CHECK: stablehlo.pad %{{.*}}, %arg1, low = [1, 0], high = [0, 2], interior = [0, 1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4x9xf32>
// CHECK: stablehlo.slice %{{.*}} [0:4:2, 1:9:3] : (tensor<4x9xf32>) -> tensor<2x3xf32>
func.func @twins(%a: tensor<2x6xf32>, %p: tensor<f32>) -> tensor<?x?xf32> {
  %s = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
  %r = stablehlo.dynamic_reshape %a, %s : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[0, 2]> : tensor<2xi64>
  %in = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %q = stablehlo.dynamic_pad %r, %p, %lo, %hi, %in : (tensor<?x?xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  %start = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %limit = stablehlo.constant dense<[4, 9]> : tensor<2xi64>
  %step = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %t = stablehlo.real_dynamic_slice %q, %start, %limit, %step : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// JAX's shape assertions: a true one goes (a false one is an error:
// refine_shapes_errors.mlir).
// CHECK-LABEL: func.func @assert_true
// CHECK-NOT: shape_assertion
func.func @assert_true(%a: tensor<4xf32>) -> tensor<4xf32> {
  %n = stablehlo.get_dimension_size %a, dim = 0 : (tensor<4xf32>) -> tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %ok = stablehlo.compare GE, %n, %one, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %n) {api_version = 2 : i32, error_message = "n = {0} must be >= 1", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  return %a : tensor<4xf32>
}

