// RUN: kiln-opt --passes=sink_constants %s | FileCheck %s

// A reduce body reading an outer constant gets its own copy at the start of
// the body; the outer constant stays for its other uses (dce removes it when
// none is left). One copy per body, however many uses.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[HALF:.*]] = stablehlo.constant dense<5.000000e-01>
// CHECK: stablehlo.reduce
// CHECK-NEXT: reducer(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>)
// CHECK-NEXT: %[[COPY:.*]] = stablehlo.constant dense<5.000000e-01>
// CHECK-NEXT: stablehlo.multiply %[[B]], %[[COPY]]
// CHECK-NEXT: stablehlo.multiply %{{.*}}, %[[COPY]]
// CHECK: stablehlo.broadcast_in_dim %[[HALF]]
func.func @reduce(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) across dimensions = [1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %m = stablehlo.multiply %b, %half : tensor<f32>
    %n = stablehlo.multiply %m, %half : tensor<f32>
    %s = stablehlo.add %a, %n : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  %h = stablehlo.broadcast_in_dim %half, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %o = stablehlo.add %r, %h : tensor<4xf32>
  return %o : tensor<4xf32>
}

// The bodies of control flow run in their function's frame: left alone.
// A value computed at run time is not a constant: left alone too (the cpu
// back end refuses it by name, tests/lit/tools/kiln-run-errors.test).
// CHECK-LABEL: func.func @control_flow_and_run_time_values
// CHECK: stablehlo.if
// CHECK-NOT: stablehlo.constant
// CHECK: stablehlo.return
// CHECK: "stablehlo.sort"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: stablehlo.subtract %{{.*}}, %arg1
func.func @control_flow_and_run_time_values(%x: tensor<5xf32>, %t: tensor<f32>, %p: tensor<i1>) -> (tensor<f32>, tensor<5xf32>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %i = "stablehlo.if"(%p) ({
    %a = stablehlo.add %t, %one : tensor<f32>
    stablehlo.return %a : tensor<f32>
  }, {
    stablehlo.return %one : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  %s = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %d = stablehlo.subtract %a, %t : tensor<f32>
    %c = stablehlo.compare LT, %d, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<5xf32>) -> tensor<5xf32>
  return %i, %s : tensor<f32>, tensor<5xf32>
}
