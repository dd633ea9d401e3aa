// RUN: kiln-opt --memory-report -o /dev/null %s 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: kiln-opt --passes=schedule --stats -o /dev/null %s 2>&1 | FileCheck %s --check-prefix=STATS
// Buffers of a small function, worked out by hand (docs/memory.md):
//  - %arg0 is donated (jax.buffer_donor) and paired with output 0, the only
//    output of its type; it dies at the add, so %2 is computed in place
//    into the caller's buffer;
//  - %arg1 is the caller's: the transpose cannot run in place anyway and gets
//    a new temp buffer, which the reshape views and the exponential (the last
//    reader of %0) updates in place.
// REPORT: memory report for @main
// REPORT-NEXT: peak_bytes=3072 at #0 stablehlo.transpose, arena_bytes=1024
// REPORT-NEXT: buffer 0: parameter 0 (donated), 1024 bytes, live -1..4: %arg0, #2 stablehlo.add
// REPORT-NEXT: buffer 1: parameter 1, 1024 bytes, live -1..4: %arg1
// REPORT-NEXT: buffer 2: temp, 1024 bytes at offset 0, live 0..4: #0 stablehlo.transpose, #1 stablehlo.reshape, #3 stablehlo.exponential
// REPORT-NEXT: parameter 0 aliases output 0
// STATS: kernels=3
// STATS-NEXT: fusions=0
// STATS-NEXT: peak_bytes=3072
// STATS-NEXT: arena_bytes=1024
// STATS-NEXT: buffers=1
// STATS-NEXT: parameter_bytes=2048
// STATS-NEXT: intermediate_bytes_total=3072
func.func @main(%arg0: tensor<256xf32> {jax.buffer_donor = true}, %arg1: tensor<16x16xf32>) -> (tensor<256xf32>, tensor<16x16xf32>) {
  %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %1 = stablehlo.reshape %0 : (tensor<16x16xf32>) -> tensor<256xf32>
  %2 = stablehlo.add %1, %arg0 : tensor<256xf32>
  %3 = stablehlo.exponential %0 : tensor<16x16xf32>
  return %2, %3 : tensor<256xf32>, tensor<16x16xf32>
}
