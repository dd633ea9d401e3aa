// The cpu back end behind the back-end interface (kiln/backends/backend.h).
// LLVM-free, like cpu_executable.h.
#pragma once

#include "kiln/backends/backend.h"

namespace kiln::cpu {

const backend::Backend* cpuBackend();

}  // namespace kiln::cpu
