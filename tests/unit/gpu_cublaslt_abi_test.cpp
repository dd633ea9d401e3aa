// cublaslt.h declares the cuBLASLt functions kiln loads with dlopen without
// including cublasLt.h; here each is compared with the header's declaration
// (built only where the CUDA toolkit is installed), as gpu_driver_abi_test
// does for the driver: parameters type for type, an enum of the header
// matching an int of the same size in kiln's; and every enumerator and
// struct kiln passes.
#include <cublasLt.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "kiln/backends/gpu/cublaslt.h"

namespace kiln::gpu {
namespace {

template <typename T> struct Canonical { using type = T; };
template <typename T> requires std::is_enum_v<T>
struct Canonical<T> { using type = std::make_unsigned_t<std::underlying_type_t<T>>; };
template <typename T> requires std::is_integral_v<T>
struct Canonical<T> { using type = std::make_unsigned_t<T>; };
template <typename T> struct Canonical<T*> { using type = typename Canonical<T>::type*; };
template <typename T> struct Canonical<const T*> { using type = const typename Canonical<T>::type*; };
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

template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameAbi(R1 (*)(A1...), R2 (*)(A2...)) {
  return sizeof(R1) == sizeof(R2) && sizeof...(A1) == sizeof...(A2) &&
         std::is_same_v<std::tuple<typename Canonical<A1>::type...>, std::tuple<typename Canonical<A2>::type...>>;
}

#define KILN_SAME_ABI(member, symbol) static_assert(sameAbi(decltype(CublasLt::member){}, &::symbol), #symbol)
KILN_SAME_ABI(create, cublasLtCreate);
KILN_SAME_ABI(destroy, cublasLtDestroy);
KILN_SAME_ABI(getStatusString, cublasLtGetStatusString);
KILN_SAME_ABI(matmulDescCreate, cublasLtMatmulDescCreate);
KILN_SAME_ABI(matmulDescDestroy, cublasLtMatmulDescDestroy);
KILN_SAME_ABI(matmulDescSetAttribute, cublasLtMatmulDescSetAttribute);
KILN_SAME_ABI(matmulDescGetAttribute, cublasLtMatmulDescGetAttribute);
KILN_SAME_ABI(matrixLayoutCreate, cublasLtMatrixLayoutCreate);
KILN_SAME_ABI(matrixLayoutDestroy, cublasLtMatrixLayoutDestroy);
KILN_SAME_ABI(matrixLayoutSetAttribute, cublasLtMatrixLayoutSetAttribute);
KILN_SAME_ABI(matrixLayoutGetAttribute, cublasLtMatrixLayoutGetAttribute);
KILN_SAME_ABI(matmulPreferenceCreate, cublasLtMatmulPreferenceCreate);
KILN_SAME_ABI(matmulPreferenceDestroy, cublasLtMatmulPreferenceDestroy);
KILN_SAME_ABI(matmulPreferenceSetAttribute, cublasLtMatmulPreferenceSetAttribute);
KILN_SAME_ABI(matmulAlgoGetHeuristic, cublasLtMatmulAlgoGetHeuristic);
KILN_SAME_ABI(matmul, cublasLtMatmul);
static_assert(!sameAbi(decltype(CublasLt::matrixLayoutDestroy){}, &::cublasLtMatmulDescDestroy));

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
