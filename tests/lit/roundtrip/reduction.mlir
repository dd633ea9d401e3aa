// reduce (compact 'applies' and full 'reducer' forms), reduce_window, select_and_scatter.
// Each chunk is given in the pretty form; the CHECK and GENERIC lines are what
// MLIR (jaxlib) prints for it. The generic output must parse back to the same
// pretty form, and printing is a fixed point.
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @reductions(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %1:2 = stablehlo.reduce(%arg0 init: %arg1), (%arg0 init: %arg1) across dimensions = [0] : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<6xf32>, tensor<6xf32>)
   reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<f32>, %arg5: tensor<f32>)  {
    %5 = stablehlo.maximum %arg2, %arg4 : tensor<f32>
    %6 = stablehlo.minimum %arg3, %arg5 : tensor<f32>
    stablehlo.return %5, %6 : tensor<f32>, tensor<f32>
  }
  %2 = "stablehlo.reduce_window"(%arg0, %arg1) <{base_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %5 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
    stablehlo.return %5 : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = "stablehlo.select_and_scatter"(%arg0, %2, %arg1) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %5 = stablehlo.compare GE, %arg2, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %5 : tensor<i1>
  }, {
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %5 : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
  %4 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {
    %5 = stablehlo.add %arg3, %arg2 : tensor<f32>
    stablehlo.return %5 : tensor<f32>
  }
  return %0 : tensor<4xf32>
}
// CHECK: module {
// CHECK-LABEL: func.func @reductions(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: %1:2 = stablehlo.reduce(%arg0 init: %arg1), (%arg0 init: %arg1) across dimensions = [0] : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<6xf32>, tensor<6xf32>)
// CHECK-NEXT: reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<f32>, %arg5: tensor<f32>)  {
// CHECK-NEXT: %5 = stablehlo.maximum %arg2, %arg4 : tensor<f32>
// CHECK-NEXT: %6 = stablehlo.minimum %arg3, %arg5 : tensor<f32>
// CHECK-NEXT: stablehlo.return %5, %6 : tensor<f32>, tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: %2 = "stablehlo.reduce_window"(%arg0, %arg1) <{base_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %5 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %5 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = "stablehlo.select_and_scatter"(%arg0, %2, %arg1) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %5 = stablehlo.compare GE, %arg2, %arg3 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %5 : tensor<i1>
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK-NEXT: %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK-NEXT: stablehlo.return %5 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK-NEXT: %4 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT: reducer(%arg2: tensor<f32>, %arg3: tensor<f32>)  {
// CHECK-NEXT: %5 = stablehlo.add %arg3, %arg2 : tensor<f32>
// CHECK-NEXT: stablehlo.return %5 : tensor<f32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>, sym_name = "reductions"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>):
// GENERIC-NEXT: %0 = "stablehlo.reduce"(%arg0, %arg1) <{dimensions = array<i64: 1>}> ({
// GENERIC-NEXT: ^bb0(%arg14: tensor<f32>, %arg15: tensor<f32>):
// GENERIC-NEXT: %11 = "stablehlo.add"(%arg14, %arg15) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%11) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
// GENERIC-NEXT: %1:2 = "stablehlo.reduce"(%arg0, %arg0, %arg1, %arg1) <{dimensions = array<i64: 0>}> ({
// GENERIC-NEXT: ^bb0(%arg10: tensor<f32>, %arg11: tensor<f32>, %arg12: tensor<f32>, %arg13: tensor<f32>):
// GENERIC-NEXT: %9 = "stablehlo.maximum"(%arg10, %arg12) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: %10 = "stablehlo.minimum"(%arg11, %arg13) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%9, %10) : (tensor<f32>, tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> (tensor<6xf32>, tensor<6xf32>)
// GENERIC-NEXT: %2 = "stablehlo.reduce_window"(%arg0, %arg1) <{base_dilations = array<i64: 1, 1>, padding = dense<0> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
// GENERIC-NEXT: ^bb0(%arg8: tensor<f32>, %arg9: tensor<f32>):
// GENERIC-NEXT: %8 = "stablehlo.maximum"(%arg8, %arg9) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%8) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<2x3xf32>
// GENERIC-NEXT: %3 = "stablehlo.select_and_scatter"(%arg0, %2, %arg1) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
// GENERIC-NEXT: ^bb0(%arg6: tensor<f32>, %arg7: tensor<f32>):
// GENERIC-NEXT: %7 = "stablehlo.compare"(%arg6, %arg7) <{comparison_direction = #stablehlo<comparison_direction GE>}> : (tensor<f32>, tensor<f32>) -> tensor<i1>
// GENERIC-NEXT: "stablehlo.return"(%7) : (tensor<i1>) -> ()
// GENERIC-NEXT: }, {
// GENERIC-NEXT: ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
// GENERIC-NEXT: %6 = "stablehlo.add"(%arg4, %arg5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%6) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4x6xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<4x6xf32>
// GENERIC-NEXT: %4 = "stablehlo.reduce"(%arg0, %arg1) <{dimensions = array<i64: 1>}> ({
// GENERIC-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// GENERIC-NEXT: %5 = "stablehlo.add"(%arg3, %arg2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%5) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
// GENERIC-NEXT: "func.return"(%0) : (tensor<4xf32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
