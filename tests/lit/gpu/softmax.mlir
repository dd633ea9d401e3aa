// softmax is one row kernel: a block per row; each reduce (max, then the sum
// of exp(x - max)) folds per thread, then across the warp with butterfly
// shuffles and across warps through shared memory.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/k0_row_reduce.sm_90.ptx
// RUN: FileCheck %s --check-prefix=SUMMARY --input-file %t/cuda_kernels.txt

// CHECK: row_reduce, grid 64 x block 256, 256 B shared: 64 rows of 1000, a block per row
// CHECK: .target sm_90
// CHECK: .visible .entry k0_row_reduce(
// CHECK: .maxntid 256, 1, 1
// CHECK: .shared .align 4 .b8 warp_totals{{.*}}[128];
// CHECK: .shared .align 4 .b8 warp_totals{{.*}}[128];
// The max: per thread, across the warp, across warps.
// CHECK: max.NaN.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK: bar.sync 0;
// CHECK: st.shared.f32
// CHECK: bar.sync 0;
// CHECK: ld.shared.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// The sum of exp(x - max).
// CHECK: ex2.approx.ftz.f32
// CHECK: add.rn.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK: st.shared.f32
// CHECK: ld.shared.f32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// The row: exp(x - max) / sum.
// CHECK: div.rn.f32
// CHECK: st.global.f32

// SUMMARY: kernel k0_row_reduce: kiln.fusion
// SUMMARY-NOT: kernel
func.func @main(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
  %d = stablehlo.subtract %x, %mb : tensor<64x1000xf32>
  %e = stablehlo.exponential %d : tensor<64x1000xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x1000xf32>, tensor<f32>) -> tensor<64xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<64xf32>) -> tensor<64x1000xf32>
  %r = stablehlo.divide %e, %sb : tensor<64x1000xf32>
  return %r : tensor<64x1000xf32>
}
