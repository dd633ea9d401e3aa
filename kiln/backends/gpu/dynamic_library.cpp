// dlopen and dlsym for the CUDA libraries (see dynamic_library.h).
#include "kiln/backends/gpu/dynamic_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace kiln::gpu {

Expected<void*> openLibrary(std::span<const std::string> names) {
  std::string why;
  for (const std::string& name : names) {
    if (void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
    if (why.empty()) why = dlerror();
  }
  return error(why);
}

void* SymbolResolver::address(const char* symbol) {
  void* found = dlsym(library_, symbol);
  if (!found) missing_ += (missing_.empty() ? "" : ", ") + std::string(symbol);
  return found;
}

Expected<void*> openToolkitLibrary(std::span<const std::string> names) {
  std::vector<std::string> all(names.begin(), names.end());
  for (const char* home : {static_cast<const char*>(std::getenv("CUDA_HOME")), "/usr/local/cuda"})
    if (home && *home)
      for (const std::string& name : names) all.push_back((std::filesystem::path(home) / "lib64" / name).string());
  return openLibrary(all);
}

}  // namespace kiln::gpu
