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
#include "kiln/backends/gpu/solver_calls.h"
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

// `bytes` copied from one slot to another on the compute stream
// (cuMemcpyDtoDAsync): the state of a while, the results of a branch.
struct CopyStep {
  DeviceSlot from, to;
};

// stablehlo.while, driven from the host: the condition's steps run, its
// predicate (CudaBody::results[0] of `cond`) is copied back to the host,
// and while it is true the body's steps run (they end by copying the next
// state into the while's result slots, which the condition and the body
// read as their arguments). The operands were copied into those slots by
// the steps before this one.
struct WhileStep {
  const Operation* op = nullptr;
  size_t cond = 0, body = 0;  // into CudaPlan::bodies
};

// stablehlo.if / stablehlo.case: the predicate or index is copied back to
// the host and one branch's steps run (they end by copying its values into
// the op's result slots). if: true runs branches[0]; case: an index
// outside [0, N) runs the last branch, as StableHLO defines.
struct BranchStep {
  const Operation* op = nullptr;
  DeviceSlot selector;            // the i1 predicate or the i32 index
  std::vector<size_t> branches;   // into CudaPlan::bodies
};

// An eigen or singular value decomposition through cuSOLVER
// (solver_calls.h), on the compute stream: the operand's column-major
// matrices are copied into `work` (which cuSOLVER overwrites; for syevd it
// is the eigenvectors' result slot, else bytes of its own after the
// arena), then for each matrix cusolverDnXsyevd or cusolverDnXgesvd writes
// the results, its info into the info result's int32 of that matrix; or
// one cusolverDn<t>syevjBatched / gesvdjBatched call does the whole batch.
struct SolverCall {
  const Operation* op = nullptr;
  SolverProblem problem;
  DeviceSlot a, work;
  std::vector<DeviceSlot> results;  // the call's: syevd (W, w, info); gesvd (s, U, VT, info)
};

using CudaStep = std::variant<KernelLaunch, HostCheck, MatmulCall, CopyStep, WhileStep, BranchStep, SolverCall>;

// The steps of one region of a while/if/case, and where the values it
// returns are (a while's condition: its predicate).
struct CudaBody {
  std::vector<CudaStep> steps;
  std::vector<DeviceSlot> results;
};

struct CudaPlan {
  std::unique_ptr<Module> lowered;  // what the steps and kernels point into
  std::string entry;
  std::string arch;                 // "sm_80", "sm_90": the PTX target
  std::vector<CudaKernel> kernels;  // PTX for `arch` alone
  std::vector<CudaMatmul> matmuls;
  std::vector<CudaStep> steps;      // in schedule order
  std::vector<CudaBody> bodies;     // of while/if/case steps, at any depth
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
// plans it. An op the cuda back end cannot compile yet (an fft, a
// convolution) is an error naming it and its location, with the count of
// the others; so is a module of several instances.
Expected<CudaPlan> planForCuda(const Module& module, std::string_view entry, const CudaPlanOptions& options);

// What a run does at each step, as the runtime does it on a device or a
// test on host copies of the regions: runSteps follows the control flow
// and calls these for everything else.
class StepRunner {
 public:
  virtual ~StepRunner() = default;
  virtual Status launch(const KernelLaunch& launch) = 0;
  virtual Status matmul(const MatmulCall& call) = 0;
  virtual Status solve(const SolverCall& call) = 0;
  virtual Status copy(const CopyStep& copy) = 0;
  virtual Status check(const HostCheck& check) = 0;
  // The bytes of `slot` (a predicate, an index) into `host`, once every
  // step before has finished.
  virtual Status read(const DeviceSlot& slot, void* host) = 0;
};

// Runs `steps` of `plan` (its entry's, or a body's) through `runner`:
// a while's condition and body until its predicate is false, an if's or
// case's chosen branch; the first error stops the run.
Status runSteps(const CudaPlan& plan, const std::vector<CudaStep>& steps, StepRunner& runner);

// The step calling each matmul, indexed like plan.matmuls (a plan calls
// each once, in its steps or a body's).
std::vector<const MatmulCall*> matmulCalls(const CudaPlan& plan);

// Every cuSOLVER call of the plan, in its steps or a body's.
std::vector<const SolverCall*> solverCalls(const CudaPlan& plan);

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
