// Complex compares (lexicographic on the real, then the imaginary part, as
// the interpreter's partial order), complex reduces the body cannot split
// into real ones (a product: each lane folds its elements, then butterfly
// shuffles of both parts, a double as two 32-bit halves, and of a flag of
// whether the lane holds any; complex_reduce.mlir has more), and converts from and to f8E8M0FNU (integer ops on the bits:
// 0 is 2^-127, f32's subnormal 0x00400000; 0xFF is NaN). Other ops on
// f8E8M0FNU are refused.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k0_loop.sm_80.ptx --check-prefix=COMPARE
// RUN: FileCheck %s --input-file %t/k1_row_reduce.sm_90.ptx --check-prefix=REDUCE
// RUN: FileCheck %s --input-file %t/k2_loop.sm_80.ptx --check-prefix=FROM
// RUN: FileCheck %s --input-file %t/k3_loop.sm_90.ptx --check-prefix=TO

// KERNELS: kernel k0_loop: stablehlo.compare ({{.*}}complex_and_e8m0.mlir:{{[0-9]+}}:{{.*}}), grid 1 x block 32, 0 B shared: 64 elements, 4 per thread
// KERNELS: kernel k1_row_reduce: stablehlo.reduce ({{.*}}), grid 1 x block 256, 0 B shared: 8 rows of 16, a warp per row
// KERNELS: kernel k2_loop: stablehlo.convert ({{.*}}), grid 1 x block 64, 0 B shared: 256 elements, 4 per thread
// KERNELS: kernel k3_loop: stablehlo.convert ({{.*}}), grid 1 x block 64, 0 B shared: 256 elements, 4 per thread
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.add' on f8E8M0FNU yet
// KERNELS-NOT: unsupported

// COMPARE: .visible .entry k0_loop(
// COMPARE: ld.global.v4.f32
// COMPARE: ld.global.v4.f32
// COMPARE: setp.eq.f32
// COMPARE: setp.lt.f32
// COMPARE: and.pred
// COMPARE: setp.lt.f32
// COMPARE: or.pred

// REDUCE: .visible .entry k1_row_reduce(
// REDUCE-COUNT-25: shfl.sync.bfly.b32
// REDUCE-NOT: shfl
// REDUCE: ld.global.v2.f64
// REDUCE: fma.rn.f64
// REDUCE: st.global.v2.f64

// FROM: .visible .entry k2_loop(
// FROM: ld.global.u32
// FROM: shl.b32 {{.*}}, 23;
// FROM: selp.f32 {{.*}}, 0f00400000,
// FROM: selp.f32 {{.*}}, 0f7FC00000,
// FROM: st.global.v4.f32

// TO: .visible .entry k3_loop(
// TO: ld.global.v2.u64
// TO: setp.gt.u64 {{.*}}, 254;
// TO: selp.b32 {{.*}}, 255,
// TO: st.global.u32
func.func @main(%a: tensor<64xcomplex<f32>>, %b: tensor<64xcomplex<f32>>, %m: tensor<8x16xcomplex<f64>>, %e: tensor<256xf8E8M0FNU>,
                %x: tensor<256xf64>, %e2: tensor<256xf8E8M0FNU>)
    -> (tensor<64xi1>, tensor<8xcomplex<f64>>, tensor<256xf32>, tensor<256xf8E8M0FNU>, tensor<256xf8E8M0FNU>) {
  %0 = stablehlo.compare LT, %a, %b, FLOAT : (tensor<64xcomplex<f32>>, tensor<64xcomplex<f32>>) -> tensor<64xi1>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f64>>
  %1 = stablehlo.reduce(%m init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<8x16xcomplex<f64>>, tensor<complex<f64>>) -> tensor<8xcomplex<f64>>
  %2 = stablehlo.convert %e : (tensor<256xf8E8M0FNU>) -> tensor<256xf32>
  %3 = stablehlo.convert %x : (tensor<256xf64>) -> tensor<256xf8E8M0FNU>
  %4 = stablehlo.add %e2, %e2 : tensor<256xf8E8M0FNU>
  return %0, %1, %2, %3, %4 : tensor<64xi1>, tensor<8xcomplex<f64>>, tensor<256xf32>, tensor<256xf8E8M0FNU>, tensor<256xf8E8M0FNU>
}
