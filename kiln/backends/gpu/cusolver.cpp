// cuSOLVER through dlopen (see cusolver.h).
#include "kiln/backends/gpu/cusolver.h"

#include <string>
#include <vector>

#include "kiln/backends/gpu/dynamic_library.h"

namespace kiln::gpu {
namespace {

const Expected<Cusolver>& loaded() {
  static const Expected<Cusolver> library = []() -> Expected<Cusolver> {
    const std::vector<std::string> names = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"};
    Expected<void*> handle = openToolkitLibrary(names);
    if (!handle)
      return error("no cuSOLVER (" + handle.status().diag().message +
                   "; looked for libcusolver.so.12/.11 on the loader's path, in $CUDA_HOME/lib64 and "
                   "/usr/local/cuda/lib64)");
    Cusolver s{};
    SymbolResolver symbols(*handle);
    auto resolve = [&](auto& fn, const char* symbol) { symbols.resolve(fn, symbol); };
    resolve(s.create, "cusolverDnCreate");
    resolve(s.destroy, "cusolverDnDestroy");
    resolve(s.setStream, "cusolverDnSetStream");
    resolve(s.createParams, "cusolverDnCreateParams");
    resolve(s.destroyParams, "cusolverDnDestroyParams");
    resolve(s.xsyevdBufferSize, "cusolverDnXsyevd_bufferSize");
    resolve(s.xsyevd, "cusolverDnXsyevd");
    resolve(s.xgesvdBufferSize, "cusolverDnXgesvd_bufferSize");
    resolve(s.xgesvd, "cusolverDnXgesvd");
    if (!symbols.missing().empty()) return error("no cuSOLVER (the library lacks " + symbols.missing() + ")");
    return s;
  }();
  return library;
}

}  // namespace

Status Cusolver::check(cusolverStatus status, std::string_view call) const {
  if (status == cusolver::kSuccess) return Status::ok();
  return error("cuSOLVER: " + std::string(call) + " failed with status " + std::to_string(status));
}

Expected<const Cusolver*> cusolverLibrary() {
  const Expected<Cusolver>& library = loaded();
  if (!library) return library.status().diag();
  return &*library;
}

int cusolverDataType(Type type) {
  if (type.isComplex()) return type.complexElement().kind() == TypeKind::F64 ? cusolver::kC64F : cusolver::kC32F;
  return type.kind() == TypeKind::F64 ? cusolver::kR64F : cusolver::kR32F;
}

int cusolverRealDataType(Type type) {
  Type real = type.isComplex() ? type.complexElement() : type;
  return real.kind() == TypeKind::F64 ? cusolver::kR64F : cusolver::kR32F;
}

}  // namespace kiln::gpu
