// RUN: kiln-opt --memory-report -o /dev/null %s 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: kiln run %s --backend cpu --input-literal 'dense<[1, 2, 3, 4, 5, 6, 7, 4000000000]> : tensor<8xui32>' --input-literal 'dense<[9, 10, 11, 12, 13, 14, 15, 16]> : tensor<8xui32>' | FileCheck %s --check-prefix=OUT
// RUN: kiln run %s --backend interpreter --input-literal 'dense<[1, 2, 3, 4, 5, 6, 7, 4000000000]> : tensor<8xui32>' --input-literal 'dense<[9, 10, 11, 12, 13, 14, 15, 16]> : tensor<8xui32>' | FileCheck %s --check-prefix=OUT
// A multi-output loop fusion updates in place (docs/memory.md): each result
// over a different operand that dies there and that the body reads only
// through elementwise ops into what it yields (the back end computes every
// result's element before storing any).
//  - #2 writes its two results over %x and %y (buffers 2 and 3);
//  - #3 writes result 0 over its operand 0 (read elementwise by both
//    results); result 1 has no operand left to take: operand 1 is read
//    through a reverse (at other elements), so it gets a buffer of its own.
// REPORT: memory report for @main
// REPORT-NEXT: peak_bytes=160 at #3 kiln.fusion, arena_bytes=192
// REPORT-NEXT: buffer 0: parameter 0, 32 bytes, live -1..4: %arg0
// REPORT-NEXT: buffer 1: parameter 1, 32 bytes, live -1..4: %arg1
// REPORT-NEXT: buffer 2: temp, 32 bytes at offset 0, live 0..4: #0 stablehlo.add, #2:0 kiln.fusion, #3:0 kiln.fusion
// REPORT-NEXT: buffer 3: temp, 32 bytes at offset 64, live 1..3: #1 stablehlo.xor, #2:1 kiln.fusion
// REPORT-NEXT: buffer 4: temp, 32 bytes at offset 128, live 3..4: #3:1 kiln.fusion
// OUT: dense<[851277890, 42, 42, 42, 42, 58, 58, 3705032762]> : tensor<8xui32>
// OUT-NEXT: dense<[54, 60, 66, 72, 78, 84, 90, 2525163616]> : tensor<8xui32>
func.func @main(%a: tensor<8xui32>, %b: tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>) {
  %x = stablehlo.add %a, %b : tensor<8xui32>
  %y = stablehlo.xor %a, %b : tensor<8xui32>
  %r:2 = "kiln.fusion"(%x, %y) <{kind = "multi_output"}> ({
  ^bb0(%p: tensor<8xui32>, %q: tensor<8xui32>):
    %s = stablehlo.add %p, %q : tensor<8xui32>
    %t = stablehlo.xor %s, %q : tensor<8xui32>
    "kiln.yield"(%s, %t) : (tensor<8xui32>, tensor<8xui32>) -> ()
  }) : (tensor<8xui32>, tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>)
  %t:2 = "kiln.fusion"(%r#0, %r#1) <{kind = "multi_output"}> ({
  ^bb0(%p: tensor<8xui32>, %q: tensor<8xui32>):
    %c = stablehlo.constant dense<3> : tensor<8xui32>
    %w = stablehlo.reverse %q, dims = [0] : tensor<8xui32>
    %s = stablehlo.add %p, %w : tensor<8xui32>
    %u = stablehlo.multiply %p, %c : tensor<8xui32>
    "kiln.yield"(%s, %u) : (tensor<8xui32>, tensor<8xui32>) -> ()
  }) : (tensor<8xui32>, tensor<8xui32>) -> (tensor<8xui32>, tensor<8xui32>)
  return %t#0, %t#1 : tensor<8xui32>, tensor<8xui32>
}
