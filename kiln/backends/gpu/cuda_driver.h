// The CUDA driver API, loaded with dlopen on first use: kiln links nothing
// of CUDA, so it builds, and its other back ends run, where there is no
// driver. Only what can be checked without a GPU exists yet -- loading the
// driver, initializing it, counting devices -- the start of the runtime
// issue 27 asks for (docs/gpu_backend.md). Free of CUDA headers.
#pragma once

#include "kiln/support/diagnostic.h"

namespace kiln::gpu {

// The number of CUDA devices. An error "no CUDA driver (...)" where
// libcuda.so.1 cannot be loaded or lacks a function kiln calls, else the
// driver's own error from cuInit or cuDeviceGetCount (no device, ...).
Expected<int> cudaDeviceCount();

}  // namespace kiln::gpu
