// cuBLASLt, loaded with dlopen on first use (like the driver: kiln links
// nothing of CUDA), and the descriptors of one matmul made from its plan
// (matmul_plan.h). Free of CUDA headers: the functions and enumerators kiln
// uses are declared here as cublasLt.h declares them (gpu_cublaslt_abi_test
// compares them with the toolkit's header where it is installed). Internal
// to kiln/backends/gpu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "kiln/backends/gpu/cuda_driver.h"
#include "kiln/backends/gpu/matmul_plan.h"
#include "kiln/support/diagnostic.h"

struct cublasLtContext;  // cublasLt.h's handle type

namespace kiln::gpu {

// cuBLASLt's descriptor pointers (cublasLt.h's are to anonymous structs,
// which cannot be declared without it).
struct CublasLtMatmulDescOpaque;
struct CublasLtMatrixLayoutOpaque;
struct CublasLtMatmulPreferenceOpaque;

using cublasStatus = int;  // cublas_api.h: cublasStatus_t
using CublasLtHandle = cublasLtContext*;
using CublasLtMatmulDesc = CublasLtMatmulDescOpaque*;
using CublasLtMatrixLayout = CublasLtMatrixLayoutOpaque*;
using CublasLtMatmulPreference = CublasLtMatmulPreferenceOpaque*;
struct CublasLtMatmulAlgo {  // cublasLtMatmulAlgo_t
  uint64_t data[8];
};
struct CublasLtHeuristicResult {  // cublasLtMatmulHeuristicResult_t
  CublasLtMatmulAlgo algo;
  size_t workspaceSize;
  cublasStatus state;
  float wavesCount;
  int reserved[4];
};

// The enumerators kiln passes (cublasLt.h's, cublas_api.h's and
// library_types.h's values).
namespace cublaslt {
inline constexpr cublasStatus kSuccess = 0;
inline constexpr int kOpN = 0, kOpT = 1;                         // cublasOperation_t
inline constexpr int kComputeF32 = 68, kComputeF64 = 70;         // cublasComputeType_t
inline constexpr int kR32F = 0, kR64F = 1, kR16F = 2, kR16BF = 14;  // cudaDataType
inline constexpr int kLayoutBatchCount = 5, kLayoutStridedBatchOffset = 6;  // cublasLtMatrixLayoutAttribute_t
inline constexpr int kDescTransA = 3, kDescTransB = 4, kDescEpilogue = 7, kDescBiasPointer = 8,
                     kDescBiasDataType = 26;                     // cublasLtMatmulDescAttributes_t
inline constexpr int kEpilogueDefault = 1, kEpilogueRelu = 2, kEpilogueBias = 4,
                     kEpilogueReluBias = 6;                      // cublasLtEpilogue_t
inline constexpr int kPrefMaxWorkspaceBytes = 1;                 // cublasLtMatmulPreferenceAttributes_t
}  // namespace cublaslt

// The library's functions kiln calls.
struct CublasLt {
  cublasStatus (*create)(CublasLtHandle* handle);
  cublasStatus (*destroy)(CublasLtHandle handle);
  const char* (*getStatusString)(cublasStatus status);
  cublasStatus (*matmulDescCreate)(CublasLtMatmulDesc* desc, int computeType, int scaleType);
  cublasStatus (*matmulDescDestroy)(CublasLtMatmulDesc desc);
  cublasStatus (*matmulDescSetAttribute)(CublasLtMatmulDesc desc, int attribute, const void* value, size_t bytes);
  cublasStatus (*matmulDescGetAttribute)(CublasLtMatmulDesc desc, int attribute, void* value, size_t bytes,
                                         size_t* written);
  cublasStatus (*matrixLayoutCreate)(CublasLtMatrixLayout* layout, int type, uint64_t rows, uint64_t cols, int64_t ld);
  cublasStatus (*matrixLayoutDestroy)(CublasLtMatrixLayout layout);
  cublasStatus (*matrixLayoutSetAttribute)(CublasLtMatrixLayout layout, int attribute, const void* value,
                                           size_t bytes);
  cublasStatus (*matrixLayoutGetAttribute)(CublasLtMatrixLayout layout, int attribute, void* value, size_t bytes,
                                           size_t* written);
  cublasStatus (*matmulPreferenceCreate)(CublasLtMatmulPreference* preference);
  cublasStatus (*matmulPreferenceDestroy)(CublasLtMatmulPreference preference);
  cublasStatus (*matmulPreferenceSetAttribute)(CublasLtMatmulPreference preference, int attribute, const void* value,
                                               size_t bytes);
  cublasStatus (*matmulAlgoGetHeuristic)(CublasLtHandle handle, CublasLtMatmulDesc desc, CublasLtMatrixLayout a,
                                         CublasLtMatrixLayout b, CublasLtMatrixLayout c, CublasLtMatrixLayout d,
                                         CublasLtMatmulPreference preference, int requested,
                                         CublasLtHeuristicResult* results, int* returned);
  cublasStatus (*matmul)(CublasLtHandle handle, CublasLtMatmulDesc desc, const void* alpha, const void* a,
                         CublasLtMatrixLayout aLayout, const void* b, CublasLtMatrixLayout bLayout, const void* beta,
                         const void* c, CublasLtMatrixLayout cLayout, void* d, CublasLtMatrixLayout dLayout,
                         const CublasLtMatmulAlgo* algo, void* workspace, size_t workspaceBytes, CUstream stream);

  // An error "cuBLASLt: <call> failed: <the library's text> (<code>)"
  // unless `status` is success.
  Status check(cublasStatus status, std::string_view call) const;
};

// cuBLASLt, loaded once per process (libcublasLt.so.13, .so.12 or .so on
// the loader's path, else under $CUDA_HOME/lib64 or /usr/local/cuda/lib64),
// every function resolved; or the error "no cuBLASLt (...)" saying why.
Expected<const CublasLt*> cublasLt();

// cuBLASLt's data type of kiln element type `type` (f32, f64, f16, bf16).
int cublasLtDataType(TypeKind type);

// The descriptors of one planned matmul, destroyed with it. The bias
// pointer is set per run (setBias), the algorithm chosen once per device.
class MatmulDescriptors {
 public:
  static Expected<std::unique_ptr<MatmulDescriptors>> make(const CublasLt& lt, const MatmulPlan& plan);
  ~MatmulDescriptors();

  Status setBias(uint64_t deviceAddress);

  const CublasLt& lt;
  CublasLtMatmulDesc desc = nullptr;
  CublasLtMatrixLayout a = nullptr, b = nullptr, d = nullptr;

 private:
  explicit MatmulDescriptors(const CublasLt& library) : lt(library) {}
};

}  // namespace kiln::gpu
