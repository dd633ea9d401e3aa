// cublaslt.h declares the cuBLASLt functions kiln loads with dlopen without
// including cublasLt.h; here each is compared with the header's declaration
// (built only where the CUDA toolkit is installed), as gpu_driver_abi_test
// does for the driver: parameters type for type, an enum of the header
// matching an int of the same size in kiln's; and every enumerator and
// struct kiln passes.
#include <cublasLt.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

#include "kiln/backends/gpu/cublaslt.h"
#include "tests/unit/gpu_abi_check.h"

namespace kiln::gpu {
namespace abi {
// The opaque structs kiln declares by the header's names, and the two
// structs kiln mirrors (checked field by field below).
template <> struct Canonical<CublasLtMatmulAlgo> { using type = cublasLtMatmulAlgo_t; };
template <> struct Canonical<CublasLtHeuristicResult> { using type = cublasLtMatmulHeuristicResult_t; };
template <> struct Canonical<CublasLtMatmulDesc> { using type = cublasLtMatmulDesc_t; };
template <> struct Canonical<CublasLtMatmulDesc*> { using type = cublasLtMatmulDesc_t*; };
template <> struct Canonical<CublasLtMatrixLayout> { using type = cublasLtMatrixLayout_t; };
template <> struct Canonical<CublasLtMatrixLayout*> { using type = cublasLtMatrixLayout_t*; };
template <> struct Canonical<CublasLtMatmulPreference> { using type = cublasLtMatmulPreference_t; };
template <> struct Canonical<CublasLtMatmulPreference*> { using type = cublasLtMatmulPreference_t*; };
}  // namespace abi

namespace {

KILN_SAME_ABI(CublasLt, create, cublasLtCreate);
KILN_SAME_ABI(CublasLt, destroy, cublasLtDestroy);
KILN_SAME_ABI(CublasLt, getStatusString, cublasLtGetStatusString);
KILN_SAME_ABI(CublasLt, matmulDescCreate, cublasLtMatmulDescCreate);
KILN_SAME_ABI(CublasLt, matmulDescDestroy, cublasLtMatmulDescDestroy);
KILN_SAME_ABI(CublasLt, matmulDescSetAttribute, cublasLtMatmulDescSetAttribute);
KILN_SAME_ABI(CublasLt, matmulDescGetAttribute, cublasLtMatmulDescGetAttribute);
KILN_SAME_ABI(CublasLt, matrixLayoutCreate, cublasLtMatrixLayoutCreate);
KILN_SAME_ABI(CublasLt, matrixLayoutDestroy, cublasLtMatrixLayoutDestroy);
KILN_SAME_ABI(CublasLt, matrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute);
KILN_SAME_ABI(CublasLt, matrixLayoutGetAttribute, cublasLtMatrixLayoutGetAttribute);
KILN_SAME_ABI(CublasLt, matmulPreferenceCreate, cublasLtMatmulPreferenceCreate);
KILN_SAME_ABI(CublasLt, matmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy);
KILN_SAME_ABI(CublasLt, matmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute);
KILN_SAME_ABI(CublasLt, matmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic);
KILN_SAME_ABI(CublasLt, matmul, cublasLtMatmul);
static_assert(!abi::sameAbi(decltype(CublasLt::matrixLayoutDestroy){}, &::cublasLtMatmulDescDestroy));

static_assert(sizeof(CublasLtMatmulAlgo) == sizeof(cublasLtMatmulAlgo_t));
static_assert(sizeof(CublasLtHeuristicResult) == sizeof(cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(CublasLtHeuristicResult, workspaceSize) == offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(CublasLtHeuristicResult, state) == offsetof(cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(CublasLtHeuristicResult, wavesCount) == offsetof(cublasLtMatmulHeuristicResult_t, wavesCount));

static_assert(cublaslt::kSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(cublaslt::kOpN == CUBLAS_OP_N && cublaslt::kOpT == CUBLAS_OP_T);
static_assert(cublaslt::kComputeF32 == CUBLAS_COMPUTE_32F && cublaslt::kComputeF64 == CUBLAS_COMPUTE_64F);
static_assert(cublaslt::kR32F == CUDA_R_32F && cublaslt::kR64F == CUDA_R_64F && cublaslt::kR16F == CUDA_R_16F &&
              cublaslt::kR16BF == CUDA_R_16BF);
static_assert(cublaslt::kLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT &&
              cublaslt::kLayoutStridedBatchOffset == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(cublaslt::kDescTransA == CUBLASLT_MATMUL_DESC_TRANSA && cublaslt::kDescTransB == CUBLASLT_MATMUL_DESC_TRANSB &&
              cublaslt::kDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE &&
              cublaslt::kDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER &&
              cublaslt::kDescBiasDataType == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
static_assert(cublaslt::kEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT && cublaslt::kEpilogueRelu == CUBLASLT_EPILOGUE_RELU &&
              cublaslt::kEpilogueBias == CUBLASLT_EPILOGUE_BIAS &&
              cublaslt::kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS);
static_assert(cublaslt::kPrefMaxWorkspaceBytes == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);

// The checks are the static_asserts above; this says they compiled.
TEST(CublasLtAbiTest, DeclarationsMatchCublasLtH) { SUCCEED(); }

}  // namespace
}  // namespace kiln::gpu
