// A while loop whose body yields its variables permuted (as JAX's threefry
// rotates its key words and swaps its rotation constants) runs flat
// (flat_loop.h): the old values of the rotated variables are saved before
// the copies, and the multi-output fusion writes x's and y's new values
// over x and y, which it reads only at the element it writes. The x and y
// it starts from are taken over when nothing else reads them (x0), copied
// when something does (y0, also returned). The same results as the
// interpreter, for 0, 1 and 5 trips.
// RUN: kiln run %s --backend cpu --input-literal 'dense<[1, 2, 3, 4000000000]> : tensor<4xui32>' --input-literal 'dense<[5, 6, 7, 8]> : tensor<4xui32>' --input-literal 'dense<11> : tensor<ui32>' --input-literal 'dense<22> : tensor<ui32>' --input-literal 'dense<33> : tensor<ui32>' --input-literal 'dense<5> : tensor<i32>' | FileCheck %s --check-prefix=FIVE
// RUN: kiln run %s --backend interpreter --input-literal 'dense<[1, 2, 3, 4000000000]> : tensor<4xui32>' --input-literal 'dense<[5, 6, 7, 8]> : tensor<4xui32>' --input-literal 'dense<11> : tensor<ui32>' --input-literal 'dense<22> : tensor<ui32>' --input-literal 'dense<33> : tensor<ui32>' --input-literal 'dense<5> : tensor<i32>' | FileCheck %s --check-prefix=FIVE
// FIVE: dense<[3793142558, 3793208126, 3795108702, 1304806270]> : tensor<4xui32>
// FIVE-NEXT: dense<[3459900179, 3727090483, 3993494355, 1374741363]> : tensor<4xui32>
// FIVE-NEXT: dense<33> : tensor<ui32>
// FIVE-NEXT: dense<11> : tensor<ui32>
// FIVE-NEXT: dense<22> : tensor<ui32>
// FIVE-NEXT: dense<[17, 29]> : tensor<2xui32>
// FIVE-NEXT: dense<[13, 15]> : tensor<2xui32>
// FIVE-NEXT: dense<[4, 4, 4, 4000000008]> : tensor<4xui32>
// RUN: kiln run %s --backend cpu --input-literal 'dense<[1, 2, 3, 4000000000]> : tensor<4xui32>' --input-literal 'dense<[5, 6, 7, 8]> : tensor<4xui32>' --input-literal 'dense<11> : tensor<ui32>' --input-literal 'dense<22> : tensor<ui32>' --input-literal 'dense<33> : tensor<ui32>' --input-literal 'dense<1> : tensor<i32>' | FileCheck %s --check-prefix=ONE
// RUN: kiln run %s --backend interpreter --input-literal 'dense<[1, 2, 3, 4000000000]> : tensor<4xui32>' --input-literal 'dense<[5, 6, 7, 8]> : tensor<4xui32>' --input-literal 'dense<11> : tensor<ui32>' --input-literal 'dense<22> : tensor<ui32>' --input-literal 'dense<33> : tensor<ui32>' --input-literal 'dense<1> : tensor<i32>' | FileCheck %s --check-prefix=ONE
// ONE: dense<[32, 34, 36, 3705032742]> : tensor<4xui32>
// ONE-NEXT: dense<[32789, 32791, 32793, 3117895707]> : tensor<4xui32>
// ONE-NEXT: dense<22> : tensor<ui32>
// ONE-NEXT: dense<33> : tensor<ui32>
// ONE-NEXT: dense<11> : tensor<ui32>
// ONE-NEXT: dense<[17, 29]> : tensor<2xui32>
// ONE-NEXT: dense<[13, 15]> : tensor<2xui32>
// ONE-NEXT: dense<[4, 4, 4, 4000000008]> : tensor<4xui32>
// RUN: kiln run %s --backend cpu --input-literal 'dense<[1, 2, 3, 4000000000]> : tensor<4xui32>' --input-literal 'dense<[5, 6, 7, 8]> : tensor<4xui32>' --input-literal 'dense<11> : tensor<ui32>' --input-literal 'dense<22> : tensor<ui32>' --input-literal 'dense<33> : tensor<ui32>' --input-literal 'dense<0> : tensor<i32>' | FileCheck %s --check-prefix=ZERO
// ZERO: dense<[6, 8, 10, 4000000008]> : tensor<4xui32>
// ZERO-NEXT: dense<[4, 4, 4, 4000000008]> : tensor<4xui32>
// ZERO-NEXT: dense<11> : tensor<ui32>
// ZERO-NEXT: dense<22> : tensor<ui32>
// ZERO-NEXT: dense<33> : tensor<ui32>
// ZERO-NEXT: dense<[13, 15]> : tensor<2xui32>
// ZERO-NEXT: dense<[17, 29]> : tensor<2xui32>
// ZERO-NEXT: dense<[4, 4, 4, 4000000008]> : tensor<4xui32>
// RUN: kiln run %s --backend cpu --stats --input-literal 'dense<[1, 2, 3, 4000000000]> : tensor<4xui32>' --input-literal 'dense<[5, 6, 7, 8]> : tensor<4xui32>' --input-literal 'dense<11> : tensor<ui32>' --input-literal 'dense<22> : tensor<ui32>' --input-literal 'dense<33> : tensor<ui32>' --input-literal 'dense<5> : tensor<i32>' 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// STATS: 1 control flow (1 flat loops, 3 variables in place)
func.func @main(%a: tensor<4xui32>, %b: tensor<4xui32>, %k0: tensor<ui32>, %k1: tensor<ui32>, %k2: tensor<ui32>, %n: tensor<i32>) -> (tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>, tensor<4xui32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %x0 = stablehlo.add %a, %b : tensor<4xui32>
  %y0 = stablehlo.xor %a, %b : tensor<4xui32>
  %r0 = stablehlo.constant dense<[13, 15]> : tensor<2xui32>
  %r1 = stablehlo.constant dense<[17, 29]> : tensor<2xui32>
  %r:8 = stablehlo.while(%i = %zero, %x = %x0, %y = %y0, %p = %k0, %q = %k1, %s = %k2, %u = %r0, %v = %r1) : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %u1 = stablehlo.slice %u [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %u0 = stablehlo.reshape %u1 : (tensor<1xui32>) -> tensor<ui32>
    %ub = stablehlo.broadcast_in_dim %u0, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %sum = stablehlo.add %x, %y : tensor<4xui32>
    %rot = stablehlo.shift_left %y, %ub : tensor<4xui32>
    %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %y2 = stablehlo.xor %sum, %rot : tensor<4xui32>
    %y3 = stablehlo.add %y2, %pb : tensor<4xui32>
    %qb = stablehlo.broadcast_in_dim %q, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %x2 = stablehlo.add %sum, %qb : tensor<4xui32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %x2, %y3, %q, %s, %p, %v, %u : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>
  }
  return %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %y0 : tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>, tensor<4xui32>
}
