// cuSOLVER's dense API (cusolverDn), loaded with dlopen on first use (like
// the driver and cuBLASLt: kiln links nothing of CUDA), for the LAPACK
// calls JAX's CPU lowering makes that have no kernel of kiln's: symmetric
// and Hermitian eigendecompositions (lapack_?syevd_ffi / heevd) and SVDs
// (lapack_?gesdd_ffi), through the 64-bit generic API (cusolverDnXsyevd,
// cusolverDnXgesvd: one function for the four element types), and for
// batches of small matrices the batched Jacobi routines
// (cusolverDn<t>syevjBatched / heevjBatched, <t>gesvdjBatched: one per
// element type, 32-bit sizes). Free of
// CUDA headers: the functions and enumerators kiln uses are declared here
// as cusolverDn.h declares them (gpu_cusolver_abi_test compares them with
// the toolkit's header where it is installed). Internal to
// kiln/backends/gpu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kiln/backends/gpu/cuda_driver.h"
#include "kiln/ir/types.h"
#include "kiln/support/diagnostic.h"

struct cusolverDnContext;  // cusolverDn.h's handle type
struct cusolverDnParams;   // and its options' type
struct syevjInfo;          // the batched Jacobi routines' options
struct gesvdjInfo;

namespace kiln::gpu {

using cusolverStatus = int;  // cusolver_common.h: cusolverStatus_t
using CusolverDnHandle = cusolverDnContext*;
using CusolverDnParams = cusolverDnParams*;
using SyevjInfo = syevjInfo*;
using GesvdjInfo = gesvdjInfo*;

// cuComplex and cuDoubleComplex (cuComplex.h's float2 / double2: two parts,
// real first, aligned to their size).
struct alignas(8) CusolverComplex32 { float x, y; };
struct alignas(16) CusolverComplex64 { double x, y; };

// cuSOLVER's batched Jacobi routines for element type T (real part R):
// cusolverDn{S,D}syevjBatched / {C,Z}heevjBatched and {S,D,C,Z}gesvdjBatched
// with their _bufferSize (lwork counts elements of T).
template <typename T, typename R>
struct CusolverJacobiBatched {
  cusolverStatus (*syevjBufferSize)(CusolverDnHandle handle, int jobz, int uplo, int n, const T* a, int lda,
                                    const R* w, int* lwork, SyevjInfo params, int batch);
  cusolverStatus (*syevj)(CusolverDnHandle handle, int jobz, int uplo, int n, T* a, int lda, R* w, T* work, int lwork,
                          int* info, SyevjInfo params, int batch);
  cusolverStatus (*gesvdjBufferSize)(CusolverDnHandle handle, int jobz, int m, int n, const T* a, int lda,
                                     const R* s, const T* u, int ldu, const T* v, int ldv, int* lwork,
                                     GesvdjInfo params, int batch);
  cusolverStatus (*gesvdj)(CusolverDnHandle handle, int jobz, int m, int n, T* a, int lda, R* s, T* u, int ldu, T* v,
                           int ldv, T* work, int lwork, int* info, GesvdjInfo params, int batch);
};

// The enumerators kiln passes (cusolver_common.h's, cublas_api.h's and
// library_types.h's values).
namespace cusolver {
inline constexpr cusolverStatus kSuccess = 0;
inline constexpr int kFillLower = 0, kFillUpper = 1;         // cublasFillMode_t
inline constexpr int kEigNoVector = 0, kEigVector = 1;       // cusolverEigMode_t
inline constexpr int kR32F = 0, kR64F = 1, kC32F = 4, kC64F = 5;  // cudaDataType
}  // namespace cusolver

// The library's functions kiln calls.
struct Cusolver {
  cusolverStatus (*create)(CusolverDnHandle* handle);
  cusolverStatus (*destroy)(CusolverDnHandle handle);
  cusolverStatus (*setStream)(CusolverDnHandle handle, CUstream stream);
  cusolverStatus (*createParams)(CusolverDnParams* params);
  cusolverStatus (*destroyParams)(CusolverDnParams params);
  cusolverStatus (*xsyevdBufferSize)(CusolverDnHandle handle, CusolverDnParams params, int jobz, int uplo, int64_t n,
                                     int typeA, const void* a, int64_t lda, int typeW, const void* w, int computeType,
                                     size_t* deviceBytes, size_t* hostBytes);
  cusolverStatus (*xsyevd)(CusolverDnHandle handle, CusolverDnParams params, int jobz, int uplo, int64_t n, int typeA,
                           void* a, int64_t lda, int typeW, void* w, int computeType, void* device, size_t deviceBytes,
                           void* host, size_t hostBytes, int* info);
  cusolverStatus (*xgesvdBufferSize)(CusolverDnHandle handle, CusolverDnParams params, signed char jobu,
                                     signed char jobvt, int64_t m, int64_t n, int typeA, const void* a, int64_t lda,
                                     int typeS, const void* s, int typeU, const void* u, int64_t ldu, int typeVT,
                                     const void* vt, int64_t ldvt, int computeType, size_t* deviceBytes,
                                     size_t* hostBytes);
  cusolverStatus (*xgesvd)(CusolverDnHandle handle, CusolverDnParams params, signed char jobu, signed char jobvt,
                           int64_t m, int64_t n, int typeA, void* a, int64_t lda, int typeS, void* s, int typeU,
                           void* u, int64_t ldu, int typeVT, void* vt, int64_t ldvt, int computeType, void* device,
                           size_t deviceBytes, void* host, size_t hostBytes, int* info);
  cusolverStatus (*createSyevjInfo)(SyevjInfo* info);
  cusolverStatus (*destroySyevjInfo)(SyevjInfo info);
  cusolverStatus (*createGesvdjInfo)(GesvdjInfo* info);
  cusolverStatus (*destroyGesvdjInfo)(GesvdjInfo info);
  CusolverJacobiBatched<float, float> s;
  CusolverJacobiBatched<double, double> d;
  CusolverJacobiBatched<CusolverComplex32, float> c;
  CusolverJacobiBatched<CusolverComplex64, double> z;

  // The batched Jacobi routines, vectors computed, for element type `type`
  // (f32, f64, complex<f32>, complex<f64>) on device pointers: a the
  // batch's column-major n x n (syevj) or m x n (gesvdj) matrices, lda n
  // or m; w (n per matrix), or s (min(m, n)), U (m x m, ldu m) and V
  // (n x n, ldv n); work of `lwork` elements; an int of info per matrix;
  // `params` with cuSOLVER's defaults (tolerance: machine accuracy, at most
  // 100 sweeps, eigenvalues ascending, singular values descending).
  cusolverStatus syevjBatchedBufferSize(Type type, CusolverDnHandle handle, int uplo, int n, int* lwork,
                                        SyevjInfo params, int batch) const;
  cusolverStatus syevjBatched(Type type, CusolverDnHandle handle, int uplo, int n, void* a, void* w, void* work,
                              int lwork, int* info, SyevjInfo params, int batch) const;
  cusolverStatus gesvdjBatchedBufferSize(Type type, CusolverDnHandle handle, int m, int n, int* lwork,
                                         GesvdjInfo params, int batch) const;
  cusolverStatus gesvdjBatched(Type type, CusolverDnHandle handle, int m, int n, void* a, void* s, void* u, void* v,
                               void* work, int lwork, int* info, GesvdjInfo params, int batch) const;

  // An error "cuSOLVER: <call> failed with status <code>" unless `status`
  // is success (cuSOLVER has no status strings).
  Status check(cusolverStatus status, std::string_view call) const;
};

// cuSOLVER, loaded once per process (libcusolver.so.12, .so.11 or .so on
// the loader's path, else under $CUDA_HOME/lib64 or /usr/local/cuda/lib64),
// every function resolved; or the error "no cuSOLVER (...)" saying why.
Expected<const Cusolver*> cusolverLibrary();

// cuSOLVER's data type of kiln element type `type` (f32, f64,
// complex<f32>, complex<f64>), and of its real part.
int cusolverDataType(Type type);
int cusolverRealDataType(Type type);

}  // namespace kiln::gpu
