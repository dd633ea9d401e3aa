// The CUDA driver, through dlopen (see cuda_driver.h).
#include "kiln/backends/gpu/cuda_driver.h"

#include <string>

#include "kiln/backends/gpu/dynamic_library.h"

namespace kiln::gpu {
namespace {

// libcuda.so.1 with every function resolved, not yet initialized; or why not.
const Expected<CudaDriver>& loadedDriver() {
  static const Expected<CudaDriver> loaded = []() -> Expected<CudaDriver> {
    const std::string name = "libcuda.so.1";
    Expected<void*> library = openLibrary({&name, 1});
    if (!library) return error("no CUDA driver (" + library.status().diag().message + ")");
    CudaDriver d{};
    SymbolResolver symbols(*library);
    auto resolve = [&](auto& fn, const char* symbol) { symbols.resolve(fn, symbol); };
    resolve(d.init, "cuInit");
    resolve(d.getErrorString, "cuGetErrorString");
    resolve(d.deviceGetCount, "cuDeviceGetCount");
    resolve(d.deviceGet, "cuDeviceGet");
    resolve(d.deviceGetName, "cuDeviceGetName");
    resolve(d.deviceGetAttribute, "cuDeviceGetAttribute");
    resolve(d.devicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    resolve(d.ctxSetCurrent, "cuCtxSetCurrent");
    resolve(d.memGetInfo, "cuMemGetInfo_v2");
    resolve(d.streamCreate, "cuStreamCreate");
    resolve(d.streamSynchronize, "cuStreamSynchronize");
    resolve(d.streamWaitEvent, "cuStreamWaitEvent");
    resolve(d.eventCreate, "cuEventCreate");
    resolve(d.eventRecord, "cuEventRecord");
    resolve(d.eventDestroy, "cuEventDestroy_v2");
    resolve(d.memAlloc, "cuMemAlloc_v2");
    resolve(d.memFree, "cuMemFree_v2");
    resolve(d.memAllocHost, "cuMemAllocHost_v2");
    resolve(d.memFreeHost, "cuMemFreeHost");
    resolve(d.memcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
    resolve(d.memcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
    resolve(d.memcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
    resolve(d.moduleLoadDataEx, "cuModuleLoadDataEx");
    resolve(d.moduleUnload, "cuModuleUnload");
    resolve(d.moduleGetFunction, "cuModuleGetFunction");
    resolve(d.launchKernel, "cuLaunchKernel");
    if (!symbols.missing().empty()) return error("no CUDA driver (libcuda.so.1 lacks " + symbols.missing() + ")");
    return d;
  }();
  return loaded;
}

}  // namespace

Status CudaDriver::check(CUresult result, std::string_view call) const {
  if (result == kCudaSuccess) return Status::ok();
  const char* text = nullptr;
  if (getErrorString(result, &text) != kCudaSuccess) text = nullptr;
  return error("CUDA driver: " + std::string(call) + " failed: " + (text ? text : "unknown error") + " (" +
               std::to_string(result) + ")");
}

Status cudaDriverLoads() {
  const Expected<CudaDriver>& loaded = loadedDriver();
  return loaded ? Status::ok() : Status(loaded.status().diag());
}

Expected<const CudaDriver*> cudaDriver() {
  static const Expected<const CudaDriver*> initialized = []() -> Expected<const CudaDriver*> {
    const Expected<CudaDriver>& loaded = loadedDriver();
    if (!loaded) return loaded.status().diag();
    KILN_RETURN_IF_ERROR(loaded->check(loaded->init(0), "cuInit"));
    return &*loaded;
  }();
  if (!initialized) return initialized.status().diag();  // (a Status moves; the cached one stays)
  return *initialized;
}

Expected<int> cudaDeviceCount() {
  KILN_ASSIGN_OR_RETURN(const CudaDriver* d, cudaDriver());
  int count = 0;
  KILN_RETURN_IF_ERROR(d->check(d->deviceGetCount(&count), "cuDeviceGetCount"));
  return count;
}

}  // namespace kiln::gpu
