// interpreter.print writes its operand to stdout on both back ends (the cpu
// back end runs the interpreter's kernel as a routine); interpreter.probe
// passes its operand through; the deprecated ops and chlo.tan run through
// legalize on both.
// RUN: kiln run --backend interpreter %s --print | FileCheck %s
// RUN: kiln run --backend cpu %s --print | FileCheck %s
// CHECK: interpreter.print dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: interpreter.print dense<[2.000000e+00, 4.000000e+00]> : tensor<2xf32>
func.func @main() -> tensor<2xf32> {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = interpreter.print %a : tensor<2xf32>
  %c = interpreter.probe %b, probe_id = "doubled" : tensor<2xf32>
  %d = stablehlo.add %c, %c : tensor<2xf32>
  %e = interpreter.print %d : tensor<2xf32>
  return %e : tensor<2xf32>
}
