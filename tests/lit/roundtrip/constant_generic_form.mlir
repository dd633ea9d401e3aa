// A constant whose result type is not its value's type prints in the generic
// form after its name, as MLIR prints it; that form must read back (a verifier
// fuzz finding: it printed, but the parser took '()' for a function type).
// RUN: kiln-opt %s | FileCheck %s
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --generic %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-NEXT: %cst = stablehlo.constant () <{value = dense<-7.500000e-01> : tensor<3x1x2xf32>}> : () -> tensor<3x?x2xf32>
// CHECK-NEXT: return %cst : tensor<3x?x2xf32>
func.func @main() -> tensor<3x?x2xf32> {
  %cst = stablehlo.constant() <{value = dense<-7.500000e-01> : tensor<3x1x2xf32>}> : () -> tensor<3x?x2xf32>
  return %cst : tensor<3x?x2xf32>
}
