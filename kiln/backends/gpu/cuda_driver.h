// The CUDA driver API, loaded with dlopen on first use: kiln links nothing
// of CUDA, so it builds, and its other back ends run, where there is no
// driver. Free of CUDA headers: the few types and functions the runtime
// calls are declared here as cuda.h declares them (gpu_driver_abi_test
// compares them with cuda.h where the toolkit is installed). Internal to
// kiln/backends/gpu.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kiln/support/diagnostic.h"

// The driver's opaque handle types, with cuda.h's names (so that its
// declarations and these are the same types).
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;

namespace kiln::gpu {

using CUresult = int;  // cuda.h: enum cudaError_enum
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = CUctx_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;

// The enumerators kiln passes (cuda.h's values, stable since CUDA 4).
inline constexpr CUresult kCudaSuccess = 0;
inline constexpr int kAttributeMultiprocessorCount = 16;
inline constexpr int kAttributeComputeCapabilityMajor = 75;
inline constexpr int kAttributeComputeCapabilityMinor = 76;
inline constexpr int kJitErrorLogBuffer = 5;
inline constexpr int kJitErrorLogBufferSizeBytes = 6;
inline constexpr unsigned kStreamNonBlocking = 1;
inline constexpr unsigned kEventDisableTiming = 2;

// The driver's functions kiln calls, under the symbols libcuda.so.1 exports
// (the _v2 ones where cuda.h maps the name to them).
struct CudaDriver {
  CUresult (*init)(unsigned flags);
  CUresult (*getErrorString)(CUresult error, const char** text);
  CUresult (*deviceGetCount)(int* count);
  CUresult (*deviceGet)(CUdevice* device, int ordinal);
  CUresult (*deviceGetName)(char* name, int length, CUdevice device);
  CUresult (*deviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*devicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*ctxSetCurrent)(CUcontext context);
  CUresult (*memGetInfo)(size_t* free, size_t* total);
  CUresult (*streamCreate)(CUstream* stream, unsigned flags);
  CUresult (*streamSynchronize)(CUstream stream);
  CUresult (*streamWaitEvent)(CUstream stream, CUevent event, unsigned flags);
  CUresult (*eventCreate)(CUevent* event, unsigned flags);
  CUresult (*eventRecord)(CUevent event, CUstream stream);
  CUresult (*eventDestroy)(CUevent event);
  CUresult (*memAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*memFree)(CUdeviceptr pointer);
  CUresult (*memAllocHost)(void** pointer, size_t bytes);
  CUresult (*memFreeHost)(void* pointer);
  CUresult (*memcpyHtoDAsync)(CUdeviceptr destination, const void* source, size_t bytes, CUstream stream);
  CUresult (*memcpyDtoHAsync)(void* destination, CUdeviceptr source, size_t bytes, CUstream stream);
  CUresult (*memcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source, size_t bytes, CUstream stream);
  CUresult (*moduleLoadDataEx)(CUmodule* module, const void* image, unsigned numOptions, int* options,
                               void** optionValues);
  CUresult (*moduleUnload)(CUmodule module);
  CUresult (*moduleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*launchKernel)(CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,
                           unsigned blockY, unsigned blockZ, unsigned sharedBytes, CUstream stream,
                           void** parameters, void** extra);

  // An error "CUDA driver: <call> failed: <the driver's text> (<code>)"
  // unless `result` is success.
  Status check(CUresult result, std::string_view call) const;
};

// The driver, loaded (dlopen, every symbol resolved) and initialized
// (cuInit) once per process; or the error "no CUDA driver (...)" where
// libcuda.so.1 cannot be loaded or lacks a function kiln calls, or the
// driver's own from cuInit (no device, a driver too old for the GPU).
// Never call it in a process that forks children that use CUDA (kiln test
// forks first): a driver initialized before fork() is unusable in the child.
Expected<const CudaDriver*> cudaDriver();

// Whether libcuda.so.1 loads and has every function kiln calls, without
// initializing it (safe before fork()): the same "no CUDA driver" error.
Status cudaDriverLoads();

// The number of CUDA devices (cudaDriver's errors, or cuDeviceGetCount's).
Expected<int> cudaDeviceCount();

}  // namespace kiln::gpu
