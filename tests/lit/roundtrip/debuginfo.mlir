// --print-debuginfo: `loc(...)` of ops are kept verbatim (aliases resolved);
// ops written without one get their position in the input, as MLIR does.
// RUN: kiln-opt --print-debuginfo %s | FileCheck %s
// RUN: kiln-opt --print-debuginfo --generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: kiln-opt %s | FileCheck %s --check-prefix=NOLOC

module @m {
  func.func @f(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %0 = stablehlo.abs %arg0 : tensor<2xf32> loc(#loc1)
    %1 = stablehlo.negate %0 : tensor<2xf32> loc("foo.py":3:4)
    %2 = stablehlo.negate %1 : tensor<2xf32>
    return %2 : tensor<2xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("x.py":1:2 to 3:4)

// CHECK: module @m {
// CHECK-NEXT: func.func @f(%arg0: tensor<2xf32> loc({{.*}})) -> tensor<2xf32> {
// CHECK-NEXT: %0 = stablehlo.abs %arg0 : tensor<2xf32> loc("x.py":1:2 to 3:4)
// CHECK-NEXT: %1 = stablehlo.negate %0 : tensor<2xf32> loc("foo.py":3:4)
// CHECK-NEXT: %2 = stablehlo.negate %1 : tensor<2xf32> loc("{{.*}}debuginfo.mlir":11:10)
// CHECK-NEXT: return %2 : tensor<2xf32> loc(unknown)
// CHECK-NEXT: } loc(unknown)
// CHECK-NEXT: } loc(unknown)

// GENERIC: "stablehlo.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32> loc("x.py":1:2 to 3:4)
// GENERIC: "func.return"(%2) : (tensor<2xf32>) -> () loc(unknown)
// GENERIC: }) : () -> () loc(unknown)

// NOLOC-NOT: loc(
