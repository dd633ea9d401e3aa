// cuSOLVER through dlopen (see cusolver.h).
#include "kiln/backends/gpu/cusolver.h"

#include <string>
#include <type_traits>
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
    resolve(s.createSyevjInfo, "cusolverDnCreateSyevjInfo");
    resolve(s.destroySyevjInfo, "cusolverDnDestroySyevjInfo");
    resolve(s.createGesvdjInfo, "cusolverDnCreateGesvdjInfo");
    resolve(s.destroyGesvdjInfo, "cusolverDnDestroyGesvdjInfo");
    // cusolverDn{S,D}syevjBatched / {C,Z}heevjBatched, {S,D,C,Z}gesvdjBatched.
    auto jacobi = [&](auto& table, const char* eigen, char letter) {
      std::string e = std::string("cusolverDn") + eigen + "jBatched", g = std::string("cusolverDn") + letter + "gesvdjBatched";
      resolve(table.syevjBufferSize, (e + "_bufferSize").c_str());
      resolve(table.syevj, e.c_str());
      resolve(table.gesvdjBufferSize, (g + "_bufferSize").c_str());
      resolve(table.gesvdj, g.c_str());
    };
    jacobi(s.s, "Ssyev", 'S');
    jacobi(s.d, "Dsyev", 'D');
    jacobi(s.c, "Cheev", 'C');
    jacobi(s.z, "Zheev", 'Z');
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

namespace {

// `f(table, (T*)nullptr, (R*)nullptr)` with the Jacobi table of element type
// `type`, T its element and R its real part.
template <typename F>
cusolverStatus withJacobi(const Cusolver& s, Type type, F f) {
  if (type.isComplex()) {
    if (type.complexElement().kind() == TypeKind::F64)
      return f(s.z, static_cast<CusolverComplex64*>(nullptr), static_cast<double*>(nullptr));
    return f(s.c, static_cast<CusolverComplex32*>(nullptr), static_cast<float*>(nullptr));
  }
  if (type.kind() == TypeKind::F64) return f(s.d, static_cast<double*>(nullptr), static_cast<double*>(nullptr));
  return f(s.s, static_cast<float*>(nullptr), static_cast<float*>(nullptr));
}

}  // namespace

cusolverStatus Cusolver::syevjBatchedBufferSize(Type type, CusolverDnHandle handle, int uplo, int n, int* lwork,
                                                SyevjInfo params, int batch) const {
  return withJacobi(*this, type, [&](const auto& t, auto* element, auto* real) {
    using T = std::remove_pointer_t<decltype(element)>;
    using R = std::remove_pointer_t<decltype(real)>;
    return t.syevjBufferSize(handle, cusolver::kEigVector, uplo, n, static_cast<const T*>(nullptr), n,
                             static_cast<const R*>(nullptr), lwork, params, batch);
  });
}

cusolverStatus Cusolver::syevjBatched(Type type, CusolverDnHandle handle, int uplo, int n, void* a, void* w, void* work,
                                      int lwork, int* info, SyevjInfo params, int batch) const {
  return withJacobi(*this, type, [&](const auto& t, auto* element, auto* real) {
    using T = std::remove_pointer_t<decltype(element)>;
    using R = std::remove_pointer_t<decltype(real)>;
    return t.syevj(handle, cusolver::kEigVector, uplo, n, static_cast<T*>(a), n, static_cast<R*>(w),
                   static_cast<T*>(work), lwork, info, params, batch);
  });
}

cusolverStatus Cusolver::gesvdjBatchedBufferSize(Type type, CusolverDnHandle handle, int m, int n, int* lwork,
                                                 GesvdjInfo params, int batch) const {
  return withJacobi(*this, type, [&](const auto& t, auto* element, auto* real) {
    using T = std::remove_pointer_t<decltype(element)>;
    using R = std::remove_pointer_t<decltype(real)>;
    return t.gesvdjBufferSize(handle, cusolver::kEigVector, m, n, static_cast<const T*>(nullptr), m,
                              static_cast<const R*>(nullptr), static_cast<const T*>(nullptr), m,
                              static_cast<const T*>(nullptr), n, lwork, params, batch);
  });
}

cusolverStatus Cusolver::gesvdjBatched(Type type, CusolverDnHandle handle, int m, int n, void* a, void* s, void* u,
                                       void* v, void* work, int lwork, int* info, GesvdjInfo params, int batch) const {
  return withJacobi(*this, type, [&](const auto& t, auto* element, auto* real) {
    using T = std::remove_pointer_t<decltype(element)>;
    using R = std::remove_pointer_t<decltype(real)>;
    return t.gesvdj(handle, cusolver::kEigVector, m, n, static_cast<T*>(a), m, static_cast<R*>(s), static_cast<T*>(u),
                    m, static_cast<T*>(v), n, static_cast<T*>(work), lwork, info, params, batch);
  });
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
