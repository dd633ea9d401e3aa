// An empty module prints as `module {}` and reads back (found by
// scripts/fuzz.sh: the print of an empty input did not parse).
// RUN: kiln-opt %s | kiln-opt | FileCheck %s
// CHECK: module {
// CHECK-NEXT: }
module {
}
