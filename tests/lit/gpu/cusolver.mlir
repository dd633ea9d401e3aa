// LAPACK's symmetric eigendecomposition (lapack_?syevd_ffi) and SVD
// (lapack_?gesdd_ffi) run through cuSOLVER: the cuda pipeline's
// lapack_to_cusolver makes each a call of kiln's own on cuSOLVER's
// column-major buffers between transposes (the pipeline's transpose
// kernels), and the plan a cusolverDnXsyevd / Xgesvd call per matrix. A
// wide gesdd (m < n) needs no transposes: a's bytes are a^T column-major,
// whose U and VT are vt's and u's bytes. After each real call, the
// vectors' signs are made the interpreter's (each eigenvector's, or u's
// first min(m, n) columns' -- vt's rows for a wide gesdd --, largest-magnitude
// entry positive; the partner's vectors flip with them): elementwise ops
// and reduces, fused into kernels. A batch of more than one matrix of at
// most 32 x 32 is one call of cuSOLVER's batched Jacobi routines: syevd's
// syevjBatched (the same operand and results), gesdd's gesvdjBatched (the
// full U, transposed then sliced where u is thin; the full V, whose
// column-major bytes are vt's row-major, conjugated for complex matrices,
// sliced where vt is thin). Calls of shapes it does not know stay LAPACK's
// and are refused by name.
// RUN: kiln-opt %s --passes=lapack_to_cusolver | FileCheck %s --check-prefix=IR
// RUN: rm -rf %t && kiln-opt %s --pipeline=cuda --dump-dir %t -o /dev/null
// RUN: FileCheck %s --input-file %t/cuda_kernels.txt --check-prefix=KERNELS

// IR-LABEL: func.func @main
// IR: %[[T:.*]] = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x5x5xf32>) -> tensor<2x5x5xf32>
// IR: %[[E:.*]]:3 = stablehlo.custom_call @kiln.cusolver.syevj_batched(%[[T]]) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>)
// IR: %[[VECS:.*]] = stablehlo.transpose %[[E]]#0, dims = [0, 2, 1]
// IR: stablehlo.abs %[[VECS]]
// IR: stablehlo.reduce
// IR: %[[V:.*]] = stablehlo.multiply %[[VECS]],
// IR: %[[TA:.*]] = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<6x4xf64>) -> tensor<4x6xf64>
// IR: %[[S:.*]]:4 = stablehlo.custom_call @kiln.cusolver.gesvd(%[[TA]]) {{.*}} : (tensor<4x6xf64>) -> (tensor<4xf64>, tensor<6x6xf64>, tensor<4x4xf64>, tensor<i32>)
// IR: %[[UT:.*]] = stablehlo.transpose %[[S]]#1, dims = [1, 0] : (tensor<6x6xf64>) -> tensor<6x6xf64>
// IR: %[[VTT:.*]] = stablehlo.transpose %[[S]]#2, dims = [1, 0] : (tensor<4x4xf64>) -> tensor<4x4xf64>
// IR: stablehlo.abs %[[UT]]
// IR: %[[U:.*]] = stablehlo.multiply %[[UT]],
// IR: stablehlo.slice
// IR: %[[VT:.*]] = stablehlo.multiply %[[VTT]],
// IR-NOT: stablehlo.transpose
// IR: %[[W:.*]]:4 = stablehlo.custom_call @kiln.cusolver.gesvd(%arg2) {{.*}} : (tensor<3x5xcomplex<f32>>) -> (tensor<3xf32>, tensor<3x5xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
// IR-NOT: stablehlo.multiply
// IR: @lapack_sgesdd_ffi(%arg3)
// IR: %[[BT:.*]] = stablehlo.transpose %arg4, dims = [0, 2, 1] : (tensor<3x4x6xcomplex<f64>>) -> tensor<3x6x4xcomplex<f64>>
// IR: %[[B:.*]]:4 = stablehlo.custom_call @kiln.cusolver.gesvdj_batched(%[[BT]]) {{.*}} : (tensor<3x6x4xcomplex<f64>>) -> (tensor<3x4xf64>, tensor<3x4x4xcomplex<f64>>, tensor<3x6x6xcomplex<f64>>, tensor<3xi32>)
// IR: %[[BU:.*]] = stablehlo.transpose %[[B]]#1, dims = [0, 2, 1] : (tensor<3x4x4xcomplex<f64>>) -> tensor<3x4x4xcomplex<f64>>
// IR: %[[RE:.*]] = stablehlo.real %[[B]]#2
// IR: %[[IM:.*]] = stablehlo.imag %[[B]]#2
// IR: %[[NIM:.*]] = stablehlo.negate %[[IM]]
// IR: %[[CONJ:.*]] = stablehlo.complex %[[RE]], %[[NIM]] : tensor<3x6x6xcomplex<f64>>
// IR: %[[BVT:.*]] = stablehlo.slice %[[CONJ]] [0:3, 0:4, 0:6] : (tensor<3x6x6xcomplex<f64>>) -> tensor<3x4x6xcomplex<f64>>
// IR-NOT: stablehlo.multiply
// IR: %[[G:.*]]:4 = stablehlo.custom_call @kiln.cusolver.gesvdj_batched({{.*}}) {{.*}} : (tensor<2x4x7xf32>) -> (tensor<2x4xf32>, tensor<2x7x7xf32>, tensor<2x4x4xf32>, tensor<2xi32>)
// IR: %[[GU:.*]] = stablehlo.transpose %[[G]]#1, dims = [0, 2, 1] : (tensor<2x7x7xf32>) -> tensor<2x7x7xf32>
// IR: %[[GUS:.*]] = stablehlo.slice %[[GU]] [0:2, 0:7, 0:4] : (tensor<2x7x7xf32>) -> tensor<2x7x4xf32>
// IR: stablehlo.abs %[[GUS]]
// IR: %[[GUF:.*]] = stablehlo.multiply %[[GUS]],
// IR: %[[GVF:.*]] = stablehlo.multiply %[[G]]#2,
// IR: return %[[V]], %[[E]]#1, %[[E]]#2, %arg1, %[[S]]#0, %[[U]], %[[VT]], %[[S]]#3, %[[W]]#0, %[[W]]#2, %[[W]]#1, %{{.*}}, %[[B]]#0, %[[BU]], %[[BVT]], %[[B]]#3, %[[GUF]], %[[GVF]]

// KERNELS: kernel k{{[0-9]+}}_loop: stablehlo.transpose ({{.*}}cusolver.mlir:{{[0-9]+}}:{{[0-9]+}}), grid 1 x block 32, 0 B shared: 50 elements, 4 per thread
// KERNELS: solver s0: stablehlo.custom_call ({{.*}}cusolver.mlir:{{[0-9]+}}:{{[0-9]+}}), cuSOLVER syevjBatched f32 5 x 5, batch 2, upper
// KERNELS: solver s1: stablehlo.custom_call ({{.*}}), cuSOLVER Xgesvd f64 6 x 4, batch 1, jobu A, jobvt A
// KERNELS: solver s2: stablehlo.custom_call ({{.*}}), cuSOLVER Xgesvd complex<f32> 5 x 3, batch 1, jobu S, jobvt A
// KERNELS: solver s3: stablehlo.custom_call ({{.*}}), cuSOLVER gesvdjBatched complex<f64> 4 x 6, batch 3
// KERNELS: solver s4: stablehlo.custom_call ({{.*}}), cuSOLVER gesvdjBatched f32 7 x 4, batch 2
// KERNELS: unsupported: the cuda back end cannot compile 'stablehlo.custom_call' to lapack_sgesdd_ffi (of the LAPACK routines trsm, potrf, getrf, geqrf and orgqr run as kernels, syevd, heevd and gesdd through cuSOLVER) yet
// KERNELS-NOT: unsupported
func.func @main(%e: tensor<2x5x5xf32>, %a: tensor<6x4xf64>, %w: tensor<3x5xcomplex<f32>>, %odd: tensor<4x3xf32>,
                %bw: tensor<3x4x6xcomplex<f64>>, %bt: tensor<2x7x4xf32>)
    -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>, tensor<6x4xf64>, tensor<4xf64>, tensor<6x6xf64>, tensor<4x4xf64>, tensor<i32>,
        tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>, tensor<2xf32>,
        tensor<3x4xf64>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x6xcomplex<f64>>, tensor<3xi32>, tensor<2x7x4xf32>, tensor<2x4x4xf32>) {
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%e) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>)
  %1:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<6x4xf64>) -> (tensor<6x4xf64>, tensor<4xf64>, tensor<6x6xf64>, tensor<4x4xf64>, tensor<i32>)
  %2:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%w) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<3x5xcomplex<f32>>) -> (tensor<3x5xcomplex<f32>>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>, tensor<i32>)
  // u of 4 x 2: neither thin (4 x 3) nor full (4 x 4).
  %3:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%odd) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<2xf32>, tensor<4x2xf32>, tensor<3x3xf32>, tensor<i32>)
  // A batch of 3 wide complex matrices (thin), of 2 tall real ones (thin).
  %4:5 = stablehlo.custom_call @lapack_zgesdd_ffi(%bw) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<3x4x6xcomplex<f64>>) -> (tensor<3x4x6xcomplex<f64>>, tensor<3x4xf64>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x6xcomplex<f64>>, tensor<3xi32>)
  %5:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%bt) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<2x7x4xf32>) -> (tensor<2x7x4xf32>, tensor<2x4xf32>, tensor<2x7x4xf32>, tensor<2x4x4xf32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2, %1#0, %1#1, %1#2, %1#3, %1#4, %2#1, %2#2, %2#3, %3#1, %4#1, %4#2, %4#3, %4#4, %5#2, %5#3
      : tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>, tensor<6x4xf64>, tensor<4xf64>, tensor<6x6xf64>, tensor<4x4xf64>, tensor<i32>,
        tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x5xcomplex<f32>>, tensor<2xf32>,
        tensor<3x4xf64>, tensor<3x4x4xcomplex<f64>>, tensor<3x4x6xcomplex<f64>>, tensor<3xi32>, tensor<2x7x4xf32>, tensor<2x4x4xf32>
}
