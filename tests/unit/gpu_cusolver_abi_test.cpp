// cusolver.h declares the cuSOLVER functions kiln loads with dlopen without
// including cusolverDn.h; here each is compared with the header's
// declaration (built only where the CUDA toolkit is installed), as
// gpu_cublaslt_abi_test does for cuBLASLt: parameters type for type, an
// enum of the header matching an int of the same size in kiln's; and every
// enumerator kiln passes.
#include <cusolverDn.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "kiln/backends/gpu/cusolver.h"
#include "tests/unit/gpu_abi_check.h"

// kiln's cuComplex and cuDoubleComplex are the header's.
template <> struct kiln::gpu::abi::Canonical<kiln::gpu::CusolverComplex32> { using type = cuComplex; };
template <> struct kiln::gpu::abi::Canonical<kiln::gpu::CusolverComplex64> { using type = cuDoubleComplex; };

namespace kiln::gpu {
namespace {

static_assert(std::is_same_v<CusolverDnHandle, cusolverDnHandle_t>);
static_assert(std::is_same_v<CusolverDnParams, cusolverDnParams_t>);
static_assert(std::is_same_v<CUstream, cudaStream_t>);

KILN_SAME_ABI(Cusolver, create, cusolverDnCreate);
KILN_SAME_ABI(Cusolver, destroy, cusolverDnDestroy);
KILN_SAME_ABI(Cusolver, setStream, cusolverDnSetStream);
KILN_SAME_ABI(Cusolver, createParams, cusolverDnCreateParams);
KILN_SAME_ABI(Cusolver, destroyParams, cusolverDnDestroyParams);
KILN_SAME_ABI(Cusolver, xsyevdBufferSize, cusolverDnXsyevd_bufferSize);
KILN_SAME_ABI(Cusolver, xsyevd, cusolverDnXsyevd);
KILN_SAME_ABI(Cusolver, xgesvdBufferSize, cusolverDnXgesvd_bufferSize);
KILN_SAME_ABI(Cusolver, xgesvd, cusolverDnXgesvd);
static_assert(std::is_same_v<SyevjInfo, syevjInfo_t> && std::is_same_v<GesvdjInfo, gesvdjInfo_t>);
KILN_SAME_ABI(Cusolver, createSyevjInfo, cusolverDnCreateSyevjInfo);
KILN_SAME_ABI(Cusolver, destroySyevjInfo, cusolverDnDestroySyevjInfo);
KILN_SAME_ABI(Cusolver, createGesvdjInfo, cusolverDnCreateGesvdjInfo);
KILN_SAME_ABI(Cusolver, destroyGesvdjInfo, cusolverDnDestroyGesvdjInfo);
// The batched Jacobi routines, per element type.
static_assert(sizeof(CusolverComplex32) == sizeof(cuComplex) && alignof(CusolverComplex32) == alignof(cuComplex));
static_assert(sizeof(CusolverComplex64) == sizeof(cuDoubleComplex) &&
              alignof(CusolverComplex64) == alignof(cuDoubleComplex));
using JacobiS = decltype(Cusolver::s);
using JacobiD = decltype(Cusolver::d);
using JacobiC = decltype(Cusolver::c);
using JacobiZ = decltype(Cusolver::z);
KILN_SAME_ABI(JacobiS, syevjBufferSize, cusolverDnSsyevjBatched_bufferSize);
KILN_SAME_ABI(JacobiS, syevj, cusolverDnSsyevjBatched);
KILN_SAME_ABI(JacobiS, gesvdjBufferSize, cusolverDnSgesvdjBatched_bufferSize);
KILN_SAME_ABI(JacobiS, gesvdj, cusolverDnSgesvdjBatched);
KILN_SAME_ABI(JacobiD, syevjBufferSize, cusolverDnDsyevjBatched_bufferSize);
KILN_SAME_ABI(JacobiD, syevj, cusolverDnDsyevjBatched);
KILN_SAME_ABI(JacobiD, gesvdjBufferSize, cusolverDnDgesvdjBatched_bufferSize);
KILN_SAME_ABI(JacobiD, gesvdj, cusolverDnDgesvdjBatched);
KILN_SAME_ABI(JacobiC, syevjBufferSize, cusolverDnCheevjBatched_bufferSize);
KILN_SAME_ABI(JacobiC, syevj, cusolverDnCheevjBatched);
KILN_SAME_ABI(JacobiC, gesvdjBufferSize, cusolverDnCgesvdjBatched_bufferSize);
KILN_SAME_ABI(JacobiC, gesvdj, cusolverDnCgesvdjBatched);
KILN_SAME_ABI(JacobiZ, syevjBufferSize, cusolverDnZheevjBatched_bufferSize);
KILN_SAME_ABI(JacobiZ, syevj, cusolverDnZheevjBatched);
KILN_SAME_ABI(JacobiZ, gesvdjBufferSize, cusolverDnZgesvdjBatched_bufferSize);
KILN_SAME_ABI(JacobiZ, gesvdj, cusolverDnZgesvdjBatched);
// Element types are told apart (float against double, real against complex).
static_assert(!abi::sameAbi(decltype(JacobiS::syevj){}, &::cusolverDnDsyevjBatched));
static_assert(!abi::sameAbi(decltype(JacobiC::gesvdj){}, &::cusolverDnSgesvdjBatched));
static_assert(!abi::sameAbi(decltype(JacobiC::gesvdj){}, &::cusolverDnZgesvdjBatched));
// The check tells the two apart.
static_assert(!abi::sameAbi(decltype(Cusolver::xsyevd){}, &::cusolverDnXgesvd));

static_assert(cusolver::kSuccess == CUSOLVER_STATUS_SUCCESS);
static_assert(cusolver::kFillLower == CUBLAS_FILL_MODE_LOWER && cusolver::kFillUpper == CUBLAS_FILL_MODE_UPPER);
static_assert(cusolver::kEigNoVector == CUSOLVER_EIG_MODE_NOVECTOR && cusolver::kEigVector == CUSOLVER_EIG_MODE_VECTOR);
static_assert(cusolver::kR32F == CUDA_R_32F && cusolver::kR64F == CUDA_R_64F && cusolver::kC32F == CUDA_C_32F &&
              cusolver::kC64F == CUDA_C_64F);

// The checks are the static_asserts above; this says they compiled.
TEST(CusolverAbiTest, DeclarationsMatchCusolverDnH) { SUCCEED(); }

}  // namespace
}  // namespace kiln::gpu
