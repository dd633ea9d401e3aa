// The cuda back end (docs/gpu_backend.md): programs planned by cuda_plan.h,
// run on the first CUDA device through the driver API (cuda_driver.h). On a
// machine with no driver or no device, compile() fails with that error and
// available() says so without initializing the driver.
#pragma once

#include "kiln/backends/backend.h"

namespace kiln::gpu {

const backend::Backend* cudaBackend();

}  // namespace kiln::gpu
