// chlo ops as JAX exports them: elementwise `chlo.X %a : T -> R` forms and
// chlo.top_k. The input is in the pretty form; the CHECK and GENERIC lines are
// what MLIR (jaxlib) prints for it. The generic output must parse back to the
// same pretty form, and printing is a fixed point.
// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --generic %s | kiln-opt | FileCheck %s

func.func @chlo(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<3x20xf32>, %arg3: tensor<2xcomplex<f32>>, %arg4: tensor<8xbf16>) {
  %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.square %arg3 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  %2 = chlo.erf_inv %arg0 {foo = 1 : i32} : tensor<4xf32> -> tensor<4xf32>
  %3 = chlo.erf %arg4 : tensor<8xbf16> -> tensor<8xbf16>
  %4 = chlo.erfc %arg0 : tensor<4xf32> -> tensor<4xf32>
  %5 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
  %6 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
  %7 = chlo.acosh %arg0 : tensor<4xf32> -> tensor<4xf32>
  %8 = chlo.asin %arg0 : tensor<4xf32> -> tensor<4xf32>
  %9 = chlo.asinh %arg0 : tensor<4xf32> -> tensor<4xf32>
  %10 = chlo.atan %arg0 : tensor<4xf32> -> tensor<4xf32>
  %11 = chlo.atanh %arg0 : tensor<4xf32> -> tensor<4xf32>
  %12 = chlo.cosh %arg0 : tensor<4xf32> -> tensor<4xf32>
  %13 = chlo.sinh %arg0 : tensor<4xf32> -> tensor<4xf32>
  %14 = chlo.next_after %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %values, %indices = chlo.top_k(%arg2, k = 5) : tensor<3x20xf32> -> (tensor<3x5xf32>, tensor<3x5xi32>)
  %values_0, %indices_1 = chlo.top_k(%arg2, k = 0) {bar} : tensor<3x20xf32> -> (tensor<3x0xf32>, tensor<3x0xi32>)
  return
}
// CHECK: module {
// CHECK-LABEL: func.func @chlo(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<3x20xf32>, %arg3: tensor<2xcomplex<f32>>, %arg4: tensor<8xbf16>) {
// CHECK-NEXT: %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %1 = chlo.square %arg3 : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
// CHECK-NEXT: %2 = chlo.erf_inv %arg0 {foo = 1 : i32} : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %3 = chlo.erf %arg4 : tensor<8xbf16> -> tensor<8xbf16>
// CHECK-NEXT: %4 = chlo.erfc %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %5 = chlo.lgamma %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %6 = chlo.acos %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %7 = chlo.acosh %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %8 = chlo.asin %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %9 = chlo.asinh %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %10 = chlo.atan %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %11 = chlo.atanh %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %12 = chlo.cosh %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %13 = chlo.sinh %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %14 = chlo.next_after %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %values, %indices = chlo.top_k(%arg2, k = 5) : tensor<3x20xf32> -> (tensor<3x5xf32>, tensor<3x5xi32>)
// CHECK-NEXT: %values_0, %indices_1 = chlo.top_k(%arg2, k = 0) {bar} : tensor<3x20xf32> -> (tensor<3x0xf32>, tensor<3x0xi32>)
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<4xf32>, tensor<4xf32>, tensor<3x20xf32>, tensor<2xcomplex<f32>>, tensor<8xbf16>) -> (), sym_name = "chlo"}> ({
// GENERIC-NEXT: ^bb0(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<3x20xf32>, %arg3: tensor<2xcomplex<f32>>, %arg4: tensor<8xbf16>):
// GENERIC-NEXT: %0 = "chlo.square"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %1 = "chlo.square"(%arg3) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
// GENERIC-NEXT: %2 = "chlo.erf_inv"(%arg0) {foo = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %3 = "chlo.erf"(%arg4) : (tensor<8xbf16>) -> tensor<8xbf16>
// GENERIC-NEXT: %4 = "chlo.erfc"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %5 = "chlo.lgamma"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %6 = "chlo.acos"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %7 = "chlo.acosh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %8 = "chlo.asin"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %9 = "chlo.asinh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %10 = "chlo.atan"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %11 = "chlo.atanh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %12 = "chlo.cosh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %13 = "chlo.sinh"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %14 = "chlo.next_after"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %15:2 = "chlo.top_k"(%arg2) <{k = 5 : i64}> : (tensor<3x20xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)
// GENERIC-NEXT: %16:2 = "chlo.top_k"(%arg2) <{k = 0 : i64}> {bar} : (tensor<3x20xf32>) -> (tensor<3x0xf32>, tensor<3x0xi32>)
// GENERIC-NEXT: "func.return"() : () -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: }) : () -> ()
