// triangular_solve and cholesky (and the LAPACK custom calls for them,
// lapack_?trsm_ffi and lapack_?potrf_ffi) as kernels of their own, in the
// interpreter's order and carrier (double, complex<double>): a solve is a
// thread per system (a column of b, or a row for the right side), its
// unknowns in shared memory; a Cholesky factorization a block per matrix,
// its factor in shared memory, a barrier after each column; potrf's second
// result is its info per matrix; lapack_?getrf_ffi (LU with partial
// pivoting) a block per matrix too, thread 0 choosing each pivot, the rows
// below eliminated in parallel; real QR (lapack_?geqrf_ffi, _orgqr_ffi) a
// block per matrix, the reflectors applied to columns in parallel. What does not fit in 48 KiB of shared
// memory, complex QR and the LAPACK routines with neither a kernel nor a
// cuSOLVER call (geev here; syevd and gesdd: cusolver.mlir) are refused by
// name.
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS
// RUN: FileCheck %s --input-file %t/k1_cholesky.sm_80.ptx --check-prefix=PTX
// RUN: FileCheck %s --input-file %t/k0_triangular_solve.sm_90.ptx --check-prefix=SOLVE
// RUN: cat %t/k0_*.ptx %t/k1_*.ptx %t/k2_*.ptx %t/k5_*.ptx | FileCheck %s --check-prefix=NOFMA

// KERNELS: kernel k0_triangular_solve: stablehlo.triangular_solve ({{.*}}), grid 1 x block 32, 1280 B shared: 6 systems of 5 unknowns, a thread per system
// KERNELS: kernel k1_cholesky: stablehlo.cholesky ({{.*}}), grid 4 x block 32, 576 B shared: 4 matrices of order 6, a block per matrix
// KERNELS: kernel k2_cholesky: stablehlo.custom_call ({{.*}}), grid 3 x block 32, 200 B shared: 3 matrices of order 5, a block per matrix
// KERNELS: kernel k3_householder: stablehlo.custom_call ({{.*}}), grid 1 x block 32, 200 B shared: 1 matrices of 6 x 4, a block per matrix
// KERNELS: kernel k4_householder: stablehlo.custom_call ({{.*}}), grid 1 x block 32, 200 B shared: 1 matrices of 6 x 4, a block per matrix
// KERNELS: kernel k5_lu: stablehlo.custom_call ({{.*}}), grid 2 x block 32, 488 B shared: 2 matrices of 6 x 5, a block per matrix
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.cholesky' of order 100 (the factor, in double, must fit in 48 KiB of shared memory: order 78 at most) yet
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.triangular_solve' of order 7000 (a system's unknowns, in double, must fit in 48 KiB of shared memory: order 6144 at most) yet
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.custom_call' on tensor<4x4xcomplex<f32>> -> tensor<4x4xcomplex<f32>> (real matrices: the interpreter's QR is real) yet
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.custom_call' to lapack_sgeev_ffi (of the LAPACK routines trsm, potrf, getrf, geqrf and orgqr run as kernels, syevd, heevd and gesdd through cuSOLVER) yet

// PTX: .visible .entry k1_cholesky(
// PTX: .maxntid 32, 1, 1
// PTX: .shared .align 8 .b8 factor[576];
// PTX-DAG: bar.sync
// PTX-DAG: sqrt.rn.f64
// PTX-DAG: div.rn.f64
// PTX-DAG: st.shared.v2.f64
// PTX-DAG: ld.shared.v2.f64
// PTX-DAG: st.global.v2.f64
// No fused multiply-adds (the interpreter rounds every product; the
// householder kernels call libdevice's hypot, which has its own):
// NOFMA-NOT: fma

// SOLVE: .visible .entry k0_triangular_solve(
// SOLVE: .maxntid 32, 1, 1
// SOLVE: ld.global.f32
// SOLVE: div.rn.f64
// SOLVE: cvt.rn.f32.f64
// SOLVE: st.global.f32
func.func @main(%a: tensor<2x5x5xf32>, %b: tensor<2x5x3xf32>, %c: tensor<4x6x6xcomplex<f64>>, %p: tensor<3x5x5xf64>, %big: tensor<100x100xf32>, %huge: tensor<7000x7000xf64>, %hb: tensor<7000x1xf64>, %q: tensor<4x4xcomplex<f32>>, %g: tensor<2x6x5xcomplex<f32>>, %e: tensor<4x4xf32>, %h: tensor<6x4xf64>) -> (tensor<2x5x3xf32>, tensor<4x6x6xcomplex<f64>>, tensor<3x5x5xf64>, tensor<3xi32>, tensor<100x100xf32>, tensor<7000x1xf64>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<2x6x5xcomplex<f32>>, tensor<2x5xi32>, tensor<2xi32>, tensor<4xf32>, tensor<6x4xf64>) {
  %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x5x5xf32>, tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  %1 = stablehlo.cholesky %c, lower = false : tensor<4x6x6xcomplex<f64>>
  %2:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%p) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<3x5x5xf64>) -> (tensor<3x5x5xf64>, tensor<3xi32>)
  %3 = stablehlo.cholesky %big, lower = true : tensor<100x100xf32>
  %4 = "stablehlo.triangular_solve"(%huge, %hb) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = true}> : (tensor<7000x7000xf64>, tensor<7000x1xf64>) -> tensor<7000x1xf64>
  %5:2 = stablehlo.custom_call @lapack_cgeqrf_ffi(%q) {mhlo.backend_config = {}} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>)
  %7:5 = stablehlo.custom_call @lapack_sgeev_ffi(%e) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
  %8:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%h) {mhlo.backend_config = {}} : (tensor<6x4xf64>) -> (tensor<6x4xf64>, tensor<4xf64>)
  %9 = stablehlo.custom_call @lapack_dorgqr_ffi(%8#0, %8#1) {mhlo.backend_config = {}} : (tensor<6x4xf64>, tensor<4xf64>) -> tensor<6x4xf64>
  %6:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%g) {mhlo.backend_config = {}} : (tensor<2x6x5xcomplex<f32>>) -> (tensor<2x6x5xcomplex<f32>>, tensor<2x5xi32>, tensor<2xi32>)
  return %0, %1, %2#0, %2#1, %3, %4, %5#0, %5#1, %6#0, %6#1, %6#2, %7#0, %9 : tensor<2x5x3xf32>, tensor<4x6x6xcomplex<f64>>, tensor<3x5x5xf64>, tensor<3xi32>, tensor<100x100xf32>, tensor<7000x1xf64>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<2x6x5xcomplex<f32>>, tensor<2x5xi32>, tensor<2xi32>, tensor<4xf32>, tensor<6x4xf64>
}
