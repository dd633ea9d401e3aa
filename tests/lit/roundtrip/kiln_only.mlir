// Ops kiln knows that jaxlib's MLIR build does not register: the check.*
// test ops of StableHLO's interpreter tests, interpreter.print/probe,
// stablehlo.trace, async_start/async_done, collective_reduce, and quantized element types (!quant.uniform). Without
// MLIR as an oracle, the CHECK lines follow the ops' syntax as kiln parses it
// and MLIR's rules for the generic form (properties in <{...}>, numbering).
// RUN: kiln-opt --split-input-file %s | FileCheck %s
// RUN: kiln-opt --split-input-file %s | kiln-opt --split-input-file | FileCheck %s
// RUN: kiln-opt --split-input-file --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --split-input-file --generic %s | kiln-opt --split-input-file | FileCheck %s

func.func @checks(%a: tensor<2xf32>, %b: tensor<2xf32>) {
  check.expect_eq %a, %b : tensor<2xf32>
  check.expect_almost_eq %a, %b, tolerance = 1.000000e-04 : f64 : tensor<2xf32>
  check.expect_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq_const %a, dense<1.0> : tensor<2xf32>, tolerance = 1.0e-3 : f64
  check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  check.expect_serialized_eq %a, probe_id = "probe1", iter = 2 : tensor<2xf32>
  func.return
}
// CHECK-LABEL: func.func @checks(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) {
// CHECK-NEXT: check.expect_eq %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: check.expect_almost_eq %arg0, %arg1, tolerance = 1.000000e-04 : f64 : tensor<2xf32>
// CHECK-NEXT: check.expect_eq_const %arg0, dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: check.expect_almost_eq_const %arg0, dense<1.000000e+00> : tensor<2xf32>, tolerance = 1.000000e-03 : f64
// CHECK-NEXT: check.expect_close %arg0, %arg1, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: check.expect_serialized_eq %arg0, probe_id = "probe1", iter = 2 : tensor<2xf32>
// CHECK-NEXT: return
// GENERIC: "func.func"() <{function_type = (tensor<2xf32>, tensor<2xf32>) -> (), sym_name = "checks"}> ({
// GENERIC-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<2xf32>, %arg{{[0-9]+}}: tensor<2xf32>):
// GENERIC-NEXT: "check.expect_eq"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC-NEXT: "check.expect_almost_eq"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{tolerance = 1.000000e-04 : f64}> : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC-NEXT: "check.expect_eq_const"(%arg{{[0-9]+}}) <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
// GENERIC-NEXT: "check.expect_almost_eq_const"(%arg{{[0-9]+}}) <{tolerance = 1.000000e-03 : f64, value = dense<1.000000e+00> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
// GENERIC-NEXT: "check.expect_close"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) <{max_ulp_difference = 3 : ui64, min_ulp_difference = 1 : ui64}> : (tensor<2xf32>, tensor<2xf32>) -> ()
// GENERIC-NEXT: "check.expect_serialized_eq"(%arg{{[0-9]+}})
// GENERIC-SAME: probe_id = "probe1"
// GENERIC-SAME: : (tensor<2xf32>) -> ()

// -----

func.func @async(%a: tensor<4xf32>) -> (tensor<4xf32>) {
  %0 = "stablehlo.async_start"(%a) {called_computation = @callee, execution_thread = "main"} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.async_done"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "stablehlo.collective_reduce"(%1) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}
func.func private @callee(%a: tensor<4xf32>) -> (tensor<4xf32>) {
  func.return %a : tensor<4xf32>
}
// CHECK-LABEL: func.func @async(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = "stablehlo.async_start"(%arg0) <{called_computation = @callee, execution_thread = "main"}> : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %1 = "stablehlo.async_done"(%0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %2 = "stablehlo.collective_reduce"(%1) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// CHECK-NEXT: ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
// CHECK-NEXT: %3 = stablehlo.add %arg1, %arg2 : tensor<f32>
// CHECK-NEXT: stablehlo.return %3 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %2 : tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.func private @callee(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: return %arg0 : tensor<4xf32>
// Value numbers in the generic form are not pinned: only the ops and types are.
// GENERIC: "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "async"}> ({
// GENERIC-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<4xf32>):
// GENERIC-NEXT: %{{[0-9]+}} = "stablehlo.async_start"(%arg{{[0-9]+}}) <{called_computation = @callee, execution_thread = "main"}> : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %{{[0-9]+}} = "stablehlo.async_done"(%{{[0-9]+}}) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: %{{[0-9]+}} = "stablehlo.collective_reduce"(%{{[0-9]+}}) <{replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>}> ({
// GENERIC-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<f32>, %arg{{[0-9]+}}: tensor<f32>):
// GENERIC-NEXT: %{{[0-9]+}} = "stablehlo.add"(%arg{{[0-9]+}}, %arg{{[0-9]+}}) : (tensor<f32>, tensor<f32>) -> tensor<f32>
// GENERIC-NEXT: "stablehlo.return"(%{{[0-9]+}}) : (tensor<f32>) -> ()
// GENERIC-NEXT: }) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT: "func.return"(%{{[0-9]+}}) : (tensor<4xf32>) -> ()
// GENERIC-NEXT: }) : () -> ()
// GENERIC-NEXT: "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "callee", sym_visibility = "private"}> ({
// GENERIC-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<4xf32>):
// GENERIC-NEXT: "func.return"(%arg{{[0-9]+}}) : (tensor<4xf32>) -> ()

// -----

func.func @quantized(%x: tensor<5xf32>) -> (tensor<5xf32>) {
  %0 = stablehlo.uniform_quantize %x : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>
  %1 = stablehlo.uniform_quantize %0 : (tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<5x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01,2.000000e-01:1,3.000000e-01,4.000000e-01,5.000000e-01}>>
  %2 = stablehlo.uniform_dequantize %0 : (tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<5xf32>
  func.return %2 : tensor<5xf32>
}
// Quantization scales print as MLIR prints floats (print_stablehlo.mlir in
// StableHLO shows `!quant.uniform<u8:f32, 3.400000e+01:16>`).
// CHECK-LABEL: func.func @quantized(%arg0: tensor<5xf32>) -> tensor<5xf32> {
// CHECK-NEXT: %0 = stablehlo.uniform_quantize %arg0 : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>
// CHECK-NEXT: %1 = stablehlo.uniform_quantize %0 : (tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<5x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01,2.000000e-01:1,3.000000e-01,4.000000e-01,5.000000e-01}>>
// CHECK-NEXT: %2 = stablehlo.uniform_dequantize %0 : (tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>) -> tensor<5xf32>
// CHECK-NEXT: return %2 : tensor<5xf32>
// GENERIC: "func.func"() <{function_type = (tensor<5xf32>) -> tensor<5xf32>, sym_name = "quantized"}> ({
// GENERIC-NEXT: ^bb0(%arg{{[0-9]+}}: tensor<5xf32>):
// GENERIC-NEXT: %{{[0-9]+}} = "stablehlo.uniform_quantize"(%arg{{[0-9]+}}) : (tensor<5xf32>) -> tensor<5x!quant.uniform<i8:f32, 1.000000e-01:3>>

// -----

// A quantized constant holds its storage values, so its type is not its
// value's: MLIR prints it in the generic form after the op's name, and that
// form reads back (it did not before 2026-12-07).
func.func @quantized_constant() -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>> {
  %0 = "stablehlo.constant"() {value = dense<[1, 2]> : tensor<2xi8>} : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
}
// CHECK-LABEL: func.func @quantized_constant
// CHECK-NEXT: %cst = stablehlo.constant () <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT: return %cst
// GENERIC-LABEL: sym_name = "quantized_constant"
// GENERIC: "stablehlo.constant"() <{value = dense<[1, 2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>

// -----

// The debugging ops of StableHLO's reference interpreter.
func.func @interpreter_ops(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = interpreter.print %a : tensor<2x3xf32>
  %1 = interpreter.probe %0, probe_id = "p0" : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @interpreter_ops
// CHECK-NEXT: %0 = interpreter.print %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %1 = interpreter.probe %0, probe_id = "p0" : tensor<2x3xf32>
// GENERIC: "interpreter.print"(%arg{{[0-9]+}}) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC: "interpreter.probe"(%{{[0-9]+}}) <{probe_id = "p0"}> : (tensor<2x3xf32>) -> tensor<2x3xf32>

// -----

// stablehlo.trace, which older StableHLO versions accepted (current jaxlib
// does not); the legalize pass removes it.
func.func @trace(%a: tensor<3xf32>) {
  "stablehlo.trace"(%a) {tag = "t"} : (tensor<3xf32>) -> ()
  return
}
// CHECK-LABEL: func.func @trace
// CHECK-NEXT: "stablehlo.trace"(%arg0) <{tag = "t"}> : (tensor<3xf32>) -> ()
// GENERIC: "stablehlo.trace"(%arg{{[0-9]+}}) <{tag = "t"}> : (tensor<3xf32>) -> ()
