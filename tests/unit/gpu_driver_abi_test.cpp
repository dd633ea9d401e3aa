// cuda_driver.h declares the driver functions kiln loads with dlopen
// without including cuda.h; here each is compared with cuda.h's declaration
// of the symbol it resolves (built only where the CUDA toolkit is
// installed). Parameters must match type for type, where an enum of cuda.h
// may be an int of the same size in kiln's; so must the enumerators kiln
// passes.
#include <cuda.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "kiln/backends/gpu/cuda_driver.h"
#include "tests/unit/gpu_abi_check.h"

namespace kiln::gpu {
namespace {

KILN_SAME_ABI(CudaDriver, init, cuInit);
KILN_SAME_ABI(CudaDriver, getErrorString, cuGetErrorString);
KILN_SAME_ABI(CudaDriver, deviceGetCount, cuDeviceGetCount);
KILN_SAME_ABI(CudaDriver, deviceGet, cuDeviceGet);
KILN_SAME_ABI(CudaDriver, deviceGetName, cuDeviceGetName);
KILN_SAME_ABI(CudaDriver, deviceGetAttribute, cuDeviceGetAttribute);
KILN_SAME_ABI(CudaDriver, devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
KILN_SAME_ABI(CudaDriver, ctxSetCurrent, cuCtxSetCurrent);
KILN_SAME_ABI(CudaDriver, memGetInfo, cuMemGetInfo_v2);
KILN_SAME_ABI(CudaDriver, streamCreate, cuStreamCreate);
KILN_SAME_ABI(CudaDriver, streamSynchronize, cuStreamSynchronize);
KILN_SAME_ABI(CudaDriver, streamWaitEvent, cuStreamWaitEvent);
KILN_SAME_ABI(CudaDriver, eventCreate, cuEventCreate);
KILN_SAME_ABI(CudaDriver, eventRecord, cuEventRecord);
KILN_SAME_ABI(CudaDriver, eventDestroy, cuEventDestroy_v2);
KILN_SAME_ABI(CudaDriver, memAlloc, cuMemAlloc_v2);
KILN_SAME_ABI(CudaDriver, memFree, cuMemFree_v2);
KILN_SAME_ABI(CudaDriver, memAllocHost, cuMemAllocHost_v2);
KILN_SAME_ABI(CudaDriver, memFreeHost, cuMemFreeHost);
KILN_SAME_ABI(CudaDriver, memcpyHtoDAsync, cuMemcpyHtoDAsync_v2);
KILN_SAME_ABI(CudaDriver, memcpyDtoHAsync, cuMemcpyDtoHAsync_v2);
KILN_SAME_ABI(CudaDriver, memcpyDtoDAsync, cuMemcpyDtoDAsync_v2);
KILN_SAME_ABI(CudaDriver, moduleLoadDataEx, cuModuleLoadDataEx);
KILN_SAME_ABI(CudaDriver, moduleUnload, cuModuleUnload);
KILN_SAME_ABI(CudaDriver, moduleGetFunction, cuModuleGetFunction);
KILN_SAME_ABI(CudaDriver, launchKernel, cuLaunchKernel);
// The comparison tells signatures apart: a pointer for a size, a missing parameter.
static_assert(!abi::sameAbi(decltype(CudaDriver::memAlloc){}, &::cuMemAllocHost_v2));
static_assert(!abi::sameAbi(decltype(CudaDriver::streamWaitEvent){}, &::cuEventRecord));

static_assert(std::is_same_v<CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<CUstream, ::CUstream> && std::is_same_v<CUcontext, ::CUcontext>);
static_assert(std::is_same_v<CUevent, ::CUevent> && std::is_same_v<CUmodule, ::CUmodule>);
static_assert(std::is_same_v<CUfunction, ::CUfunction>);
static_assert(kCudaSuccess == CUDA_SUCCESS);
static_assert(kAttributeMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(kAttributeComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(kAttributeComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(kJitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(kJitErrorLogBufferSizeBytes == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(kEventDisableTiming == CU_EVENT_DISABLE_TIMING);

// The checks are the static_asserts above; this says the file compiled
// against the toolkit's cuda.h, and which.
TEST(CudaDriverAbiTest, DeclarationsMatchTheToolkitsCudaH) {
  EXPECT_GE(CUDA_VERSION, 12000) << "kiln's PTX (ISA 8.0) needs a CUDA 12 driver or newer";
}

}  // namespace
}  // namespace kiln::gpu
