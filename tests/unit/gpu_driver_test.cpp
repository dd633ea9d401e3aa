// The CUDA driver loads through dlopen or says why not: here (no driver) the
// error must name the missing driver, never crash or link against CUDA.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "kiln/backends/gpu/cuda_driver.h"

namespace kiln::gpu {
namespace {

TEST(CudaDriverTest, CountsDevicesOrSaysThereIsNoDriver) {
  Expected<int> count = cudaDeviceCount();
  void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    ASSERT_FALSE(count.isOk());
    EXPECT_EQ(count.status().diag().message.rfind("no CUDA driver (", 0), 0u) << count.status().diag().message;
    return;
  }
  dlclose(library);
  // A driver: devices, or its own error (no device, a driver too old).
  if (count) EXPECT_GE(*count, 0);
  else EXPECT_EQ(count.status().diag().message.rfind("CUDA driver: ", 0), 0u) << count.status().diag().message;
}

}  // namespace
}  // namespace kiln::gpu
