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
