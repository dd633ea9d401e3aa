// A transpose of the last two dims moves 32x32 tiles through shared memory
// (padded to 33 columns against bank conflicts): reads along input rows,
// writes along output rows, both coalesced; partial tiles at the edges.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_transpose.sm_80.ptx

// CHECK: transpose, grid 32 x block 256, 4224 B shared: 32 tiles of 32x32, a block per tile
// CHECK: .visible .entry k0_transpose(
// CHECK: .shared .align 4 .b8 tile[4224];
// CHECK: bar.sync 0;
// CHECK-COUNT-4: st.shared.f32
// CHECK: bar.sync 0;
// CHECK: ld.shared.f32
// CHECK: st.global.f32
func.func @main(%x: tensor<4x100x64xf32>) -> tensor<4x64x100xf32> {
  %0 = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<4x100x64xf32>) -> tensor<4x64x100xf32>
  return %0 : tensor<4x64x100xf32>
}
