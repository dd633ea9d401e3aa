// Every back end kiln has, listed once. A new back end adds its directory
// under kiln/backends/ and one line here.
#include "kiln/backends/backend.h"
#include "kiln/backends/cpu/cpu_backend.h"
#include "kiln/backends/gpu/cuda_backend.h"
#include "kiln/backends/interpreter/interpreter_backend.h"

namespace kiln::backend {

const std::vector<const Backend*>& allBackends() {
  static const std::vector<const Backend*> backends = {
      cpu::cpuBackend(),
      interpreterBackend(),
      gpu::cudaBackend(),
  };
  return backends;
}

Expected<const Backend*> findBackend(std::string_view name) {
  std::string names;
  for (const Backend* b : allBackends()) {
    if (b->name() == name) return b;
    names += (names.empty() ? "\"" : ", \"") + std::string(b->name()) + "\"";
  }
  return error(ErrorCode::InvalidArgument, "unknown back end '" + std::string(name) + "' (expected " + names + ")");
}

}  // namespace kiln::backend
