// dlopen and dlsym for the CUDA libraries (see dynamic_library.h).
#include "kiln/backends/gpu/dynamic_library.h"

#include <dlfcn.h>

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

}  // namespace kiln::gpu
