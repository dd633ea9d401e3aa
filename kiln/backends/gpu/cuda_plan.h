// What a compiled entry function does on a CUDA device, decided without
// one: the "cuda" pipeline's lowered function, its kernels (PTX for one
// architecture), the steps of a run in schedule order, and where every value
// lives in the program's three device regions, sized from buffer assignment
// (kiln/passes/buffer_assignment.h). The runtime (cuda_backend.cpp) only
// allocates the regions, loads the PTX and follows the steps; everything
// here is checked by gpu_runtime_test on machines with no GPU. Free of LLVM
// and CUDA headers. Internal to kiln/backends/gpu.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "kiln/backends/gpu/cuda_compiler.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::gpu {

// The device memory of one loaded program, in three allocations.
enum class DeviceRegion {
  Parameters,  // the arguments of a run, uploaded from host staging before its first launch
  Arena,       // the values the program computes (buffer assignment's Temp buffers, reused)
  Constants,   // the module's constants, uploaded once at load
};

// Where one value's bytes are: `bytes` from `offset` of a region.
struct DeviceSlot {
  DeviceRegion region = DeviceRegion::Arena;
  int64_t offset = 0;
  int64_t bytes = 0;
  bool operator==(const DeviceSlot&) const = default;
};

// Every slot's offset is a multiple of this (buffer assignment packs its
// arena at 64 bytes; kernels need 16; cuMemAlloc returns 256-aligned bases).
inline constexpr int64_t kSlotAlignment = 64;

// A kernel launch on the compute stream, with the dims codegen chose.
struct KernelLaunch {
  size_t kernel = 0;                // into CudaPlan::kernels
  std::vector<DeviceSlot> args;     // one per kernel parameter: inputs, then outputs
};

// A conformance test's assertion (stablehlo.custom_call @check.*): its operands are copied to
// the host and the interpreter evaluates it (an assertion computes nothing
// on the device; its failure fails the run).
struct HostCheck {
  const Operation* op = nullptr;
  std::vector<DeviceSlot> operands;
};

// A dot (or an output fusion: a dot and its epilogue) as one cuBLASLt
// matmul on the compute stream (matmul_plan.h).
struct MatmulCall {
  size_t matmul = 0;            // into CudaPlan::matmuls
  DeviceSlot a, b, d;           // cuBLASLt's A (the dot's rhs), B (its lhs) and D (the result)
  std::optional<DeviceSlot> bias;  // the epilogue's bias vector
};

using CudaStep = std::variant<KernelLaunch, HostCheck, MatmulCall>;

struct CudaPlan {
  std::unique_ptr<Module> lowered;  // what the steps and kernels point into
  std::string entry;
  std::string arch;                 // "sm_80", "sm_90": the PTX target
  std::vector<CudaKernel> kernels;  // PTX for `arch` alone
  std::vector<CudaMatmul> matmuls;
  std::vector<CudaStep> steps;      // in schedule order
  std::vector<Type> parameterTypes, resultTypes;
  std::vector<DeviceSlot> parameters, results;  // parameter i's and result i's bytes
  int64_t parameterBytes = 0;       // the Parameters region's size
  int64_t arenaBytes = 0;           // the Arena's (buffer assignment's arenaBytes)
  std::vector<uint8_t> constants;   // the Constants region's contents
};

struct CudaPlanOptions {
  std::string arch = "sm_90";
  bool foldConstants = true;  // off: the pipeline without constant_fold (kiln test)
  std::string dumpDir;        // pass dumps and each kernel's .ll and .ptx
};

// The PTX architecture for a device of compute capability major.minor:
// sm_90 from Hopper on, sm_80 for Ampere; an error below (kiln's kernels
// need sm_80).
Expected<std::string> cudaArchFor(int major, int minor);

// Lowers `entry` of `module` (not modified) with the "cuda" pipeline and
// plans it. An op the cuda back end cannot compile yet (a dot, a sort,
// control flow) is an error naming it and its location, with the count of
// the others; so is a module of several instances.
Expected<CudaPlan> planForCuda(const Module& module, std::string_view entry, const CudaPlanOptions& options);

// The base addresses of one loaded program's regions.
struct DeviceRegions {
  uint64_t parameters = 0, arena = 0, constants = 0;
};

// The device address of `slot`.
uint64_t deviceAddress(const DeviceSlot& slot, const DeviceRegions& regions);

// A launch's argument values: one device address per kernel parameter, in
// the order of the kernel's .param list (cuLaunchKernel takes a pointer to
// each).
std::vector<uint64_t> launchArguments(const KernelLaunch& launch, const DeviceRegions& regions);

}  // namespace kiln::gpu
