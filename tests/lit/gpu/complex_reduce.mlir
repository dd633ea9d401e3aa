// Complex reduces the pipeline cannot split into real ones (a product) as
// the real ones: each lane folds the elements it strides over, then
// butterfly shuffles of both parts (a complex<f64> part as two 32-bit
// shuffles) and of a flag saying whether the lane holds any element; with
// a block per row, lane 0 of each warp stores its warp's total in shared
// memory (a slot of 8 or 16 bytes per warp) and every warp combines those.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_row_reduce.sm_80.ptx --check-prefix=WARP
// RUN: FileCheck %s --input-file %t/k1_row_reduce.sm_90.ptx --check-prefix=BLOCK
// RUN: FileCheck %s --input-file %t/k2_row_reduce.sm_80.ptx --check-prefix=WIDE

// KERNELS: kernel k0_row_reduce: stablehlo.reduce ({{.*}}complex_reduce.mlir:{{[0-9]+}}:{{.*}}), grid 1 x block 256, 0 B shared: 8 rows of 100, a warp per row
// KERNELS: kernel k1_row_reduce: stablehlo.reduce ({{.*}}), grid 4 x block 256, 256 B shared: 4 rows of 1000, a block per row
// KERNELS: kernel k2_row_reduce: stablehlo.reduce ({{.*}}), grid 2 x block 160, 512 B shared: 2 rows of 600, a block per row
// KERNELS-NOT: unsupported

// A warp per row of complex<f32>: 5 rounds of 3 shuffles (the parts and
// the flag), no shared memory, no barrier; lane 0 stores.
// WARP: .visible .entry k0_row_reduce(
// WARP-NOT: .shared
// WARP-NOT: bar.sync
// WARP: ld.global.v2.f32
// WARP-COUNT-15: shfl.sync.bfly.b32
// WARP-NOT: shfl
// WARP-NOT: bar.sync
// WARP: st.global.v2.f32

// A block per row of complex<f32>: the warps' shuffles, their totals
// through shared memory between two barriers, then the warps' shuffles
// again.
// BLOCK: .visible .entry k1_row_reduce(
// BLOCK: .shared .align {{[0-9]+}} .b8 warp_totals_$_0[256];
// BLOCK-COUNT-15: shfl.sync.bfly.b32
// BLOCK: bar.sync 0;
// BLOCK: st.shared.v2.f32
// BLOCK: bar.sync 0;
// BLOCK: ld.shared.v2.f32
// BLOCK-COUNT-15: shfl.sync.bfly.b32
// BLOCK-NOT: shfl
// BLOCK: st.global.v2.f32

// complex<f64>: each part as two 32-bit shuffles (4 and the flag a round).
// WIDE: .visible .entry k2_row_reduce(
// WIDE: .shared .align {{[0-9]+}} .b8 warp_totals_$_0[512];
// WIDE-COUNT-25: shfl.sync.bfly.b32
// WIDE: st.shared.v2.f64
// WIDE: ld.shared.v2.f64
// WIDE-COUNT-25: shfl.sync.bfly.b32
// WIDE-NOT: shfl
// WIDE: st.global.v2.f64
func.func @main(%a: tensor<8x100xcomplex<f32>>, %b: tensor<4x1000xcomplex<f32>>, %c: tensor<2x600xcomplex<f64>>)
    -> (tensor<8xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<2xcomplex<f64>>) {
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %one64 = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f64>>
  %0 = stablehlo.reduce(%a init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<8x100xcomplex<f32>>, tensor<complex<f32>>) -> tensor<8xcomplex<f32>>
  %1 = stablehlo.reduce(%b init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<4x1000xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
  %2 = stablehlo.reduce(%c init: %one64) applies stablehlo.multiply across dimensions = [1] : (tensor<2x600xcomplex<f64>>, tensor<complex<f64>>) -> tensor<2xcomplex<f64>>
  return %0, %1, %2 : tensor<8xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<2xcomplex<f64>>
}
