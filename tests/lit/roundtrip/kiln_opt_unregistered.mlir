// --allow-unregistered-dialect keeps ops of unknown dialects (generic form)
// as opaque ops and prints them generically; without it they are an error.
// RUN: kiln-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: kiln-opt --allow-unregistered-dialect %s | kiln-opt --allow-unregistered-dialect | FileCheck %s
// RUN: not kiln-opt %s 2>&1 | FileCheck %s --check-prefix=STRICT

func.func @f(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
  %0 = "mydialect.frob"(%arg0) {level = 3 : i32, tag = #mydialect.tag<"x">} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = stablehlo.abs %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
// CHECK: func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK-NEXT: %0 = "mydialect.frob"(%arg0) {level = 3 : i32, tag = #mydialect.tag<"x">} : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %1 = stablehlo.abs %0 : tensor<2xf32>
// STRICT: kiln_opt_unregistered.mlir:8:8: error:
