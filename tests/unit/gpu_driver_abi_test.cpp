// cuda_driver.h declares the driver functions kiln loads with dlopen
// without including cuda.h; here each is compared with cuda.h's declaration
// of the symbol it resolves (built only where the CUDA toolkit is
// installed). Parameters must match type for type, where an enum of cuda.h
// may be an int of the same size in kiln's; so must the enumerators kiln
// passes.
#include <cuda.h>
#include <gtest/gtest.h>

#include <tuple>
#include <type_traits>

#include "kiln/backends/gpu/cuda_driver.h"

namespace kiln::gpu {
namespace {

// A type with enums (and pointers to them) as same-sized unsigned integers,
// and integers as unsigned.
template <typename T> struct Canonical { using type = T; };
template <typename T> requires std::is_enum_v<T>
struct Canonical<T> { using type = std::make_unsigned_t<std::underlying_type_t<T>>; };
template <typename T> requires std::is_integral_v<T>
struct Canonical<T> { using type = std::make_unsigned_t<T>; };
template <typename T> struct Canonical<T*> { using type = typename Canonical<T>::type*; };

template <typename R1, typename... A1, typename R2, typename... A2>
constexpr bool sameAbi(R1 (*)(A1...), R2 (*)(A2...)) {
  return sizeof(R1) == sizeof(R2) && sizeof...(A1) == sizeof...(A2) &&
         std::is_same_v<std::tuple<typename Canonical<A1>::type...>, std::tuple<typename Canonical<A2>::type...>>;
}

#define KILN_SAME_ABI(member, symbol) static_assert(sameAbi(decltype(CudaDriver::member){}, &::symbol), #symbol)
KILN_SAME_ABI(init, cuInit);
KILN_SAME_ABI(getErrorString, cuGetErrorString);
KILN_SAME_ABI(deviceGetCount, cuDeviceGetCount);
KILN_SAME_ABI(deviceGet, cuDeviceGet);
KILN_SAME_ABI(deviceGetName, cuDeviceGetName);
KILN_SAME_ABI(deviceGetAttribute, cuDeviceGetAttribute);
KILN_SAME_ABI(devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
KILN_SAME_ABI(ctxSetCurrent, cuCtxSetCurrent);
KILN_SAME_ABI(memGetInfo, cuMemGetInfo_v2);
KILN_SAME_ABI(streamCreate, cuStreamCreate);
KILN_SAME_ABI(streamSynchronize, cuStreamSynchronize);
KILN_SAME_ABI(streamWaitEvent, cuStreamWaitEvent);
KILN_SAME_ABI(eventCreate, cuEventCreate);
KILN_SAME_ABI(eventRecord, cuEventRecord);
KILN_SAME_ABI(eventDestroy, cuEventDestroy_v2);
KILN_SAME_ABI(memAlloc, cuMemAlloc_v2);
KILN_SAME_ABI(memFree, cuMemFree_v2);
KILN_SAME_ABI(memAllocHost, cuMemAllocHost_v2);
KILN_SAME_ABI(memFreeHost, cuMemFreeHost);
KILN_SAME_ABI(memcpyHtoDAsync, cuMemcpyHtoDAsync_v2);
KILN_SAME_ABI(memcpyDtoHAsync, cuMemcpyDtoHAsync_v2);
KILN_SAME_ABI(moduleLoadDataEx, cuModuleLoadDataEx);
KILN_SAME_ABI(moduleUnload, cuModuleUnload);
KILN_SAME_ABI(moduleGetFunction, cuModuleGetFunction);
KILN_SAME_ABI(launchKernel, cuLaunchKernel);
// The comparison tells signatures apart: a pointer for a size, a missing parameter.
static_assert(!sameAbi(decltype(CudaDriver::memAlloc){}, &::cuMemAllocHost_v2));
static_assert(!sameAbi(decltype(CudaDriver::streamWaitEvent){}, &::cuEventRecord));

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
