// Planning: turns a function of the lowered module (after the "cpu" pass
// pipeline) into a Program, emitting its kernels into one LLVM module as it
// goes. See planner.cpp for the order in which an op's forms are tried.
// Internal to kiln/backends/cpu.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/backends/cpu/program.h"

namespace llvm {
class Module;
}

namespace kiln::cpu {

// A kernel step waiting for its compiled code: function `name` of the JIT
// module, to be stored into program->steps[step].fn.
struct PendingKernel {
  Program* program;
  size_t step;
  std::string name;
};

// Elements a kernel touches (its largest input or output) from which it is
// split across the thread pool.
inline constexpr int64_t kParallelWorkThreshold = 64 * 1024;

// Multiply-adds below which a dot the emitter can loop over (f32, integers,
// f64; with an output fusion's epilogue) is emitted rather than a oneDNN
// call: a oneDNN matmul costs about 2.7 us a call whatever its size, the
// emitted register tiles about 0.05 us for 1x32x32 (batch-1 layers of a
// small MLP, a recurrent cell's step). On one thread of the AMD EPYC host,
// `kiln run --profile` of one f32 dot, emitted against oneDNN, each twice:
// 8x128x128 3.6 against 4.5 us, 1x512x512 22-23 against 33, 4x256x256 6.9
// against 6.8-8.5; from 2^19 oneDNN is as fast or faster (8x256x256 13.2
// against 11-13, 32x128x128 14.0 against 11.2, 128^3 51-56 against 38).
inline constexpr int64_t kMinLibraryDotWork = 1 << 19;

// Multiply-adds from which a oneDNN dot or convolution runs on every thread
// of the executable; below, on the calling thread alone. oneDNN forks an
// OpenMP team per call, and at 2 threads on a loaded 2-core host the join
// costs more than a small dot: [8,128] x [128,128] (a recurrent cell's
// step) took 0.03-3 ms on two threads against 5-20 us on one (`kiln run
// --profile`); at 1M multiply-adds one thread takes about 50 us. On a quiet
// host too, a convolution's team thread that has gone to sleep can be woken
// on its caller's busy core and wait for a scheduler tick while oneDNN's
// barrier spins: the weight gradient of a 3x3 convolution of one input
// channel (295k multiply-adds, 17 us alone) took 3.2 ms in every step of
// train_digits' CNN at 2 threads (kiln.jit; OMP_WAIT_POLICY=active hid it).
inline constexpr int64_t kParallelLibraryWork = 1 << 20;

// Elements up to which a gather's result, or a scatter's, is an emitted
// kernel (ElementalEmitter::emitGather, emitScatter) rather than a routine:
// a routine step costs about 1 us whatever its size, and a loop with one
// runs through the step interpreter (JAX's pivots-to-permutation loop of a
// batched solve: three gathers and two scatters of 32 elements a trip).
// Larger ones stay routines, which copy whole slices and, for a scatter,
// copy the input once and then touch only the updated elements.
inline constexpr int64_t kMaxEmittedGatherScatter = 4096;

// The ops the planner handles itself rather than through a kernel, a
// library call or a routine: constants, tuples, tokens, barriers, control
// flow, calls, fusions and block terminators.
bool isStructuralOp(std::string_view op);

class Planner {
 public:
  // `threads`: how many threads each run of the program will have;
  // `flatLoops`: whether while loops may run flat (CpuCompileOptions).
  Planner(const Module& lowered, llvm::Module& kernels, CpuCompileStats& stats, int threads = 1,
          bool flatLoops = true)
      : lowered_(lowered), kernels_(kernels), stats_(stats), threads_(threads), flatLoops_(flatLoops) {}

  // The program of function `fn` (its parameters are the slots 0..n-1).
  Expected<std::unique_ptr<Program>> planFunction(const Operation& fn);

  // The kernels emitted so far.
  const std::vector<PendingKernel>& pendingKernels() const { return pending_; }

 private:
  class Builder;
  Expected<std::unique_ptr<Program>> planBlock(const Block& block, const std::vector<const Value*>& params);
  Status planOp(const Operation& op, Builder& b);
  Status planInline(const Operation& fusion, Builder& b);
  std::optional<Status> planProductThenEpilogue(const Operation& fusion, Builder& b);
  bool planKernelPerRoot(const Operation& fusion, Builder& b);
  Status planRegions(const Operation& op, StepKind kind, Builder& b);
  Status planCall(const Operation& op, std::string_view symbolAttr, Builder& b);
  // Emits `plan` as a kernel step of `b`'s program; an error (the emitter's)
  // leaves nothing behind.
  Status tryKernel(const Operation& op, KernelPlan plan, Builder& b);
  void addRoutine(const Operation& op, Builder& b);
  void placeInArena(const Block& body, Program& program);

  const Module& lowered_;
  llvm::Module& kernels_;
  CpuCompileStats& stats_;
  int threads_;
  bool flatLoops_;
  int regionDepth_ = 0;  // regions of control flow being planned, around the current op
  std::vector<PendingKernel> pending_;
  std::vector<std::string> callStack_;  // functions being planned (recursion is an error)
};

}  // namespace kiln::cpu
