// cuBLASLt through dlopen, and a matmul's descriptors (see cublaslt.h).
#include "kiln/backends/gpu/cublaslt.h"

#include <string>
#include <vector>

#include "kiln/backends/gpu/dynamic_library.h"

namespace kiln::gpu {
namespace {

const Expected<CublasLt>& loaded() {
  static const Expected<CublasLt> library = []() -> Expected<CublasLt> {
    const std::vector<std::string> names = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    Expected<void*> handle = openToolkitLibrary(names);
    if (!handle) return error("no cuBLASLt (" + handle.status().diag().message + "; looked for libcublasLt.so.13/.12 on the loader's path, "
                              "in $CUDA_HOME/lib64 and /usr/local/cuda/lib64)");
    CublasLt lt{};
    SymbolResolver symbols(*handle);
    auto resolve = [&](auto& fn, const char* symbol) { symbols.resolve(fn, symbol); };
    resolve(lt.create, "cublasLtCreate");
    resolve(lt.destroy, "cublasLtDestroy");
    resolve(lt.getStatusString, "cublasLtGetStatusString");
    resolve(lt.matmulDescCreate, "cublasLtMatmulDescCreate");
    resolve(lt.matmulDescDestroy, "cublasLtMatmulDescDestroy");
    resolve(lt.matmulDescSetAttribute, "cublasLtMatmulDescSetAttribute");
    resolve(lt.matmulDescGetAttribute, "cublasLtMatmulDescGetAttribute");
    resolve(lt.matrixLayoutCreate, "cublasLtMatrixLayoutCreate");
    resolve(lt.matrixLayoutDestroy, "cublasLtMatrixLayoutDestroy");
    resolve(lt.matrixLayoutSetAttribute, "cublasLtMatrixLayoutSetAttribute");
    resolve(lt.matrixLayoutGetAttribute, "cublasLtMatrixLayoutGetAttribute");
    resolve(lt.matmulPreferenceCreate, "cublasLtMatmulPreferenceCreate");
    resolve(lt.matmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy");
    resolve(lt.matmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
    resolve(lt.matmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic");
    resolve(lt.matmul, "cublasLtMatmul");
    if (!symbols.missing().empty()) return error("no cuBLASLt (the library lacks " + symbols.missing() + ")");
    return lt;
  }();
  return library;
}

int epilogueOf(MatmulEpilogue epilogue) {
  switch (epilogue) {
    case MatmulEpilogue::None: return cublaslt::kEpilogueDefault;
    case MatmulEpilogue::Relu: return cublaslt::kEpilogueRelu;
    case MatmulEpilogue::Bias: return cublaslt::kEpilogueBias;
    case MatmulEpilogue::ReluBias: return cublaslt::kEpilogueReluBias;
  }
  return cublaslt::kEpilogueDefault;
}

}  // namespace

Status CublasLt::check(cublasStatus status, std::string_view call) const {
  if (status == cublaslt::kSuccess) return Status::ok();
  const char* text = getStatusString ? getStatusString(status) : nullptr;
  return error("cuBLASLt: " + std::string(call) + " failed: " + (text ? text : "unknown error") + " (" +
               std::to_string(status) + ")");
}

Expected<const CublasLt*> cublasLt() {
  const Expected<CublasLt>& library = loaded();
  if (!library) return library.status().diag();
  return &*library;
}

int cublasLtDataType(TypeKind type) {
  switch (type) {
    case TypeKind::F64: return cublaslt::kR64F;
    case TypeKind::F16: return cublaslt::kR16F;
    case TypeKind::BF16: return cublaslt::kR16BF;
    default: return cublaslt::kR32F;
  }
}

Expected<std::unique_ptr<MatmulDescriptors>> MatmulDescriptors::make(const CublasLt& lt, const MatmulPlan& plan) {
  std::unique_ptr<MatmulDescriptors> made(new MatmulDescriptors(lt));
  bool f64 = plan.computeType == TypeKind::F64;
  KILN_RETURN_IF_ERROR(lt.check(lt.matmulDescCreate(&made->desc, f64 ? cublaslt::kComputeF64 : cublaslt::kComputeF32,
                                                    f64 ? cublaslt::kR64F : cublaslt::kR32F),
                                "cublasLtMatmulDescCreate"));
  auto setDesc = [&](int attribute, int32_t value) {
    return lt.check(lt.matmulDescSetAttribute(made->desc, attribute, &value, sizeof(value)),
                    "cublasLtMatmulDescSetAttribute");
  };
  KILN_RETURN_IF_ERROR(setDesc(cublaslt::kDescTransA, plan.transA ? cublaslt::kOpT : cublaslt::kOpN));
  KILN_RETURN_IF_ERROR(setDesc(cublaslt::kDescTransB, plan.transB ? cublaslt::kOpT : cublaslt::kOpN));
  KILN_RETURN_IF_ERROR(setDesc(cublaslt::kDescEpilogue, epilogueOf(plan.epilogue)));
  if (plan.biasOperand >= 0) KILN_RETURN_IF_ERROR(setDesc(cublaslt::kDescBiasDataType, cublasLtDataType(plan.biasType)));
  auto layout = [&](const MatmulLayout& m, CublasLtMatrixLayout& out) -> Status {
    KILN_RETURN_IF_ERROR(lt.check(lt.matrixLayoutCreate(&out, cublasLtDataType(m.type), uint64_t(m.rows),
                                                        uint64_t(m.cols), m.ld),
                                  "cublasLtMatrixLayoutCreate"));
    if (plan.batch == 1) return Status::ok();
    int32_t count = int32_t(plan.batch);
    int64_t stride = m.batchStride;
    KILN_RETURN_IF_ERROR(lt.check(lt.matrixLayoutSetAttribute(out, cublaslt::kLayoutBatchCount, &count, sizeof(count)),
                                  "cublasLtMatrixLayoutSetAttribute"));
    return lt.check(lt.matrixLayoutSetAttribute(out, cublaslt::kLayoutStridedBatchOffset, &stride, sizeof(stride)),
                    "cublasLtMatrixLayoutSetAttribute");
  };
  KILN_RETURN_IF_ERROR(layout(plan.a, made->a));
  KILN_RETURN_IF_ERROR(layout(plan.b, made->b));
  KILN_RETURN_IF_ERROR(layout(plan.d, made->d));
  return made;
}

Status MatmulDescriptors::setBias(uint64_t deviceAddress) {
  const void* pointer = reinterpret_cast<const void*>(deviceAddress);
  return lt.check(lt.matmulDescSetAttribute(desc, cublaslt::kDescBiasPointer, &pointer, sizeof(pointer)),
                  "cublasLtMatmulDescSetAttribute");
}

MatmulDescriptors::~MatmulDescriptors() {
  for (CublasLtMatrixLayout layout : {a, b, d})
    if (layout) (void)lt.matrixLayoutDestroy(layout);
  if (desc) (void)lt.matmulDescDestroy(desc);
}

}  // namespace kiln::gpu
