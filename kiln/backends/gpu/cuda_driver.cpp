// The CUDA driver, through dlopen (see cuda_driver.h).
#include "kiln/backends/gpu/cuda_driver.h"

#include <dlfcn.h>

#include <string>

namespace kiln::gpu {
namespace {

// The driver API's own types and functions, as cuda.h declares them (its
// ABI is stable: these have not changed since CUDA 2).
using CUresult = int;
constexpr CUresult kCudaSuccess = 0;

struct Driver {
  CUresult (*init)(unsigned flags) = nullptr;
  CUresult (*deviceGetCount)(int* count) = nullptr;
  CUresult (*getErrorString)(CUresult error, const char** text) = nullptr;
};

// The driver, loaded and initialized once; or why not.
const Expected<Driver>& driver() {
  static const Expected<Driver> loaded = []() -> Expected<Driver> {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return error("no CUDA driver (" + std::string(dlerror()) + ")");
    Driver d;
    auto resolve = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(library, name));
      return fn != nullptr;
    };
    if (!resolve(d.init, "cuInit") || !resolve(d.deviceGetCount, "cuDeviceGetCount") ||
        !resolve(d.getErrorString, "cuGetErrorString"))
      return error("no CUDA driver (libcuda.so.1 lacks the driver API kiln calls)");
    return d;
  }();
  return loaded;
}

Status check(const Driver& d, CUresult result, const char* call) {
  if (result == kCudaSuccess) return Status::ok();
  const char* text = nullptr;
  d.getErrorString(result, &text);
  return error("CUDA driver: " + std::string(call) + " failed: " + (text ? text : "unknown error") + " (" +
               std::to_string(result) + ")");
}

}  // namespace

Expected<int> cudaDeviceCount() {
  const Expected<Driver>& loaded = driver();
  if (!loaded) return loaded.status().diag();  // (a Status moves; the cached one stays)
  const Driver& d = *loaded;
  KILN_RETURN_IF_ERROR(check(d, d.init(0), "cuInit"));
  int count = 0;
  KILN_RETURN_IF_ERROR(check(d, d.deviceGetCount(&count), "cuDeviceGetCount"));
  return count;
}

}  // namespace kiln::gpu
