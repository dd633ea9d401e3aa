// RUN: kiln-opt --passes=refine_shapes,while_simplify --split-input-file %s | FileCheck %s
// Passes that evaluate constants at compile time never write out a giant
// splat (docs/limits.md): refine_shapes reads short shape operands only
// (2^16 elements at most) and while_simplify evaluates small values only.
// Each splat below is 8 TiB written out; before, refine_shapes asked for it
// (std::bad_alloc, the process aborted) when an op took such a constant.

// CHECK-LABEL: func.func @giant_operand
// CHECK: stablehlo.add %{{.*}}, %{{.*}} : tensor<1099511627776xi64>
// CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<f32>) -> tensor<3xf32>
func.func @giant_operand(%x: tensor<f32>) -> (tensor<?xf32>, tensor<1099511627776xi64>) {
  %c = stablehlo.constant dense<1> : tensor<1099511627776xi64>
  %d = stablehlo.add %c, %c : tensor<1099511627776xi64>
  %s = stablehlo.constant dense<3> : tensor<1xi64>
  %r = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [] : (tensor<f32>, tensor<1xi64>) -> tensor<?xf32>
  return %r, %d : tensor<?xf32>, tensor<1099511627776xi64>
}

// -----

// A loop whose init is a giant splat: its trip count is not evaluated
// (before, while_simplify wrote the init out to run the cond on it).
// CHECK-LABEL: func.func @giant_loop_init
// CHECK: stablehlo.while(%{{.*}} = %c)
// CHECK: stablehlo.subtract
func.func @giant_loop_init() -> tensor<1099511627776xi64> {
  %c = stablehlo.constant dense<1> : tensor<1099511627776xi64>
  %0 = stablehlo.while(%a = %c) : tensor<1099511627776xi64>
    cond {
      %s = stablehlo.slice %a [0:1] : (tensor<1099511627776xi64>) -> tensor<1xi64>
      %r = stablehlo.reshape %s : (tensor<1xi64>) -> tensor<i64>
      %z = stablehlo.constant dense<0> : tensor<i64>
      %p = stablehlo.compare GT, %r, %z : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %n = stablehlo.subtract %a, %a : tensor<1099511627776xi64>
      stablehlo.return %n : tensor<1099511627776xi64>
    }
  return %0 : tensor<1099511627776xi64>
}
