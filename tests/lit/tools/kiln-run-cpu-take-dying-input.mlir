// A kernel computes its output over an input that dies there when that input
// holds memory of its own nothing else holds (Step::inPlaceInputs): here the
// loop's result x, read once after the loop by the fused multiply-add. y is
// also returned, so nothing may take its memory. A bitcast_convert of one
// width is a view. The same results as the interpreter.
// RUN: kiln run %s --backend cpu --input-literal 'dense<[1.0, 2.0, -3.0, 0.5, 0.25, 4.0, -1.5, 2.5]> : tensor<8xf32>' --input-literal 'dense<[0.5, -1.0, 2.0, 1.5, -0.75, 0.125, 3.0, -2.0]> : tensor<8xf32>' --input-literal 'dense<3> : tensor<i32>' | FileCheck %s
// RUN: kiln run %s --backend interpreter --input-literal 'dense<[1.0, 2.0, -3.0, 0.5, 0.25, 4.0, -1.5, 2.5]> : tensor<8xf32>' --input-literal 'dense<[0.5, -1.0, 2.0, 1.5, -0.75, 0.125, 3.0, -2.0]> : tensor<8xf32>' --input-literal 'dense<3> : tensor<i32>' | FileCheck %s
// CHECK: dense<[1094645760, 1133772800, 1144455168, 0, -1088421888, 1210121218, 1154119664, 1118754560]> : tensor<8xi32>
// CHECK-NEXT: dense<[-6.64453125, -1.920000e+02, -4.800000e+02, 0.000000e+00, 2.500000e-01, -109784.844, -1069.76953, -55.3007813]> : tensor<8xf32>
// CHECK-NEXT: dense<[6.64453125, 1.920000e+02, 4.800000e+02, -0.000000e+00, -2.500000e-01, 109784.844, 1069.76953, 55.3007813]> : tensor<8xf32>
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>, %n: tensor<i32>) -> (tensor<8xi32>, tensor<8xf32>, tensor<8xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %x0 = stablehlo.add %a, %b : tensor<8xf32>
  %y0 = stablehlo.subtract %a, %b : tensor<8xf32>
  %r:3 = stablehlo.while(%i = %zero, %x = %x0, %y = %y0) : tensor<i32>, tensor<8xf32>, tensor<8xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %s = stablehlo.multiply %x, %y : tensor<8xf32>
    %t = stablehlo.add %s, %x : tensor<8xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %t, %s : tensor<i32>, tensor<8xf32>, tensor<8xf32>
  }
  %h = stablehlo.constant dense<0.5> : tensor<8xf32>
  %u = stablehlo.multiply %r#1, %h : tensor<8xf32>
  %v = stablehlo.add %u, %r#2 : tensor<8xf32>
  %w = stablehlo.bitcast_convert %v : (tensor<8xf32>) -> tensor<8xi32>
  %z = stablehlo.negate %r#2 : tensor<8xf32>
  return %w, %z, %r#2 : tensor<8xi32>, tensor<8xf32>, tensor<8xf32>
}
