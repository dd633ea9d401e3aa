// Loading a shared library of the CUDA toolkit with dlopen and resolving
// its functions by name: the driver (cuda_driver.cpp), cuBLASLt
// (cublaslt.cpp) and cuSOLVER (cusolver.cpp) are loaded this way, so that kiln links nothing of CUDA.
// Internal to kiln/backends/gpu.
#pragma once

#include <span>
#include <string>

#include "kiln/support/diagnostic.h"

namespace kiln::gpu {

// The first of `names` (file names for the loader's path, or paths) that
// dlopen opens, kept open for the process's life; else an error with the
// loader's message for the first name.
Expected<void*> openLibrary(std::span<const std::string> names);

// A library of the CUDA toolkit, by its file names newest first: openLibrary
// of each on the loader's path, then in $CUDA_HOME/lib64 and
// /usr/local/cuda/lib64.
Expected<void*> openToolkitLibrary(std::span<const std::string> names);

// Resolves function pointers of `library` by symbol, remembering the symbols
// it lacks (all of them, so that one error names every one).
class SymbolResolver {
 public:
  explicit SymbolResolver(void* library) : library_(library) {}
  template <typename FunctionPointer>
  void resolve(FunctionPointer& function, const char* symbol) {
    function = reinterpret_cast<FunctionPointer>(address(symbol));
  }
  // "cuInit, cuLaunchKernel": the symbols not found, empty if none.
  const std::string& missing() const { return missing_; }

 private:
  void* address(const char* symbol);
  void* library_;
  std::string missing_;
};

}  // namespace kiln::gpu
