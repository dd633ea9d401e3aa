// Rows of at most 256 elements take a warp each, 8 to a block: the
// reduction is the warp's shuffles alone, with no shared memory and no
// barrier; lane 0 stores the per-row output.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_row_reduce.sm_80.ptx

// CHECK: row_reduce, grid 16 x block 256, 0 B shared: 128 rows of 64, a warp per row
// CHECK: .visible .entry k0_row_reduce(
// CHECK-NOT: .shared
// CHECK-NOT: bar.sync
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK-NOT: bar.sync
// CHECK: st.global.f32
func.func @main(%x: tensor<128x64xf32>) -> (tensor<128x64xf32>, tensor<128xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %x2 = stablehlo.multiply %x, %x : tensor<128x64xf32>
  %s = stablehlo.reduce(%x2 init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<128x64xf32>, tensor<f32>) -> tensor<128xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<128xf32>) -> tensor<128x64xf32>
  %r = stablehlo.divide %x, %sb : tensor<128x64xf32>
  return %r, %s : tensor<128x64xf32>, tensor<128xf32>
}
