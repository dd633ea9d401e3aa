// A column reduction is a loop kernel of one output per thread: each thread
// folds its column down the rows, so a warp's reads are adjacent (no split
// of the rows across blocks yet).
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx

// CHECK: loop, grid 1 x block 256, 0 B shared: 256 elements, 1 per thread
// CHECK: .visible .entry k0_loop(
// CHECK-NOT: shfl
// CHECK: ld.global.f32 {{.*}}+1024]
// CHECK: add.rn.f32
// CHECK: st.global.f32
func.func @main(%x: tensor<512x256xf32>) -> tensor<256xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<512x256xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<512x256xf32>, tensor<f32>) -> tensor<256xf32>
  return %s : tensor<256xf32>
}
