// An empty module prints as `module {}` and reads back (found by
// scripts/fuzz.sh: the print of an empty input did not parse); its generic
// form keeps the empty block's label, as MLIR prints it.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// RUN: kiln-opt --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt --generic %s | kiln-opt | FileCheck %s
// CHECK: module {
// CHECK-NEXT: }
// GENERIC: "builtin.module"() ({
// GENERIC-NEXT: ^bb0:
// GENERIC-NEXT: }) : () -> ()
module {
}
