// The cpu back end: compiles a module's entry function to native code with
// LLVM's ORC JIT and runs it. The function becomes a program of steps
// (emitted kernels, oneDNN calls, routines, control flow with nested
// programs): see program.h, planner.cpp and docs/cpu_backend.md. An op the
// back end cannot run is a compile error naming the op and its location.
//
// This header is LLVM-free on purpose: only kiln/backends/cpu/*.cpp include
// LLVM headers, so the rest of kiln builds without them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/interp/instance.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::collectives {
class Communicator;
}

namespace kiln::cpu {

struct CpuCompileOptions {
  int numThreads = 0;       // kernel threads of each instance; 0 = the cores split among the module's
                            // instances (all of them for one), 1 = the calling thread only
  std::string dumpDir;      // when set: the module before/after each pass, LLVM IR before/after optimization, assembly
  std::string cacheDir;     // when set: an on-disk cache of compiled code, shared across processes (jit.h)
  // Whether the pipeline's constant_fold pass runs. `kiln test` turns it off:
  // its tests compute on constants, which folding would evaluate with the
  // interpreter at compile time instead of running them on the back end.
  bool foldConstants = true;
  // Whether while loops whose regions are only kernels, oneDNN calls and
  // views run flat (flat_loop.h). Off, every loop runs through the step
  // interpreter: tests compare the two.
  bool flatLoops = true;
};

// What compiling cost and produced (kiln run --stats prints it).
struct CpuCompileStats {
  double pipelineSeconds = 0;  // the "cpu" pass pipeline
  double codegenSeconds = 0;   // planning, emission, LLVM optimization and code generation
  int kernels = 0;             // emitted kernels
  int parallelKernels = 0;     // of which large enough to split across the thread pool
  int rowKernels = 0;          // of which loops over rows, each reduce once per row (RowsForm)
  int columnKernels = 0;       // of which folds of input rows into the output (ColumnFoldForm)
  int streamingKernels = 0;    // of which write their outputs around the cache (KernelPlan::streamOutputs)
  int libraryCalls = 0;        // oneDNN primitives
  int tiledLibraryCalls = 0;   // of which split into tiles that the thread pool's threads share
  int routines = 0;            // steps run by a runtime routine (routines.h)
  int controlFlow = 0;         // while / if / case / call steps (their regions' steps counted above)
  int flatLoops = 0;           // of which while loops run flat: values at fixed places (flat_loop.h)
  int loopVariablesInPlace = 0;  // variables of flat loops computed into their own memory (not copied back)
  int loopWeightsPacked = 0;     // oneDNN steps of flat loops whose loop-invariant weights are packed once a loop run
  // Flat loops of the function itself (not in a region or a callee) whose
  // trip count is known at compile time (knownTripCount), and the flops and
  // bytes of all their trips by the cost model (passes/op_summary.h).
  int boundedLoops = 0;
  double boundedLoopFlops = 0, boundedLoopBytes = 0;
  int fusionsRunOpByOp = 0;    // kiln.fusion ops no kernel or library call took, run op by op
  int splitOutputFusions = 0;  // output fusions run as their library call, then their epilogue as one kernel
  int fusionsSplitByRoot = 0;  // multi-output fusions run as one kernel per output (planKernelPerRoot)
  int arenaValues = 0;         // kernel and oneDNN outputs placed in a function's arena
  int inPlaceKernelOutputs = 0;  // kernel outputs that may take an input dying there (Step::inPlaceInputs)
  int64_t arenaBytes = 0;      // the arenas' sizes (one per function planned)
  int valuesInDonatedArguments = 0;  // outputs computed into a donated argument's memory when it is free
  std::vector<std::string> routineOps;  // the op of each routine step, in planning order
  bool loadedFromDiskCache = false;  // the kernels' code came from CpuCompileOptions::cacheDir
  int codegenParts = 0;  // pieces the kernels were optimized and compiled in at once, one per thread (0: cached)
};

// Where a run spent its time, one entry per step of the program (region
// steps included; a while/if/case/call step's time includes its regions').
struct StepProfile {
  const Operation* op = nullptr;  // in the optimized module (optimizedModuleText)
  std::string kind;               // "kernel", "kernel (rows)", "oneDNN", "routine: native gather", "view", ...
  int depth = 0;                  // 0: a step of the function; 1: of a region of one, ...
  int64_t calls = 0;
  double seconds = 0;
};

class CpuExecutable {
 public:
  ~CpuExecutable();
  CpuExecutable(const CpuExecutable&) = delete;
  CpuExecutable& operator=(const CpuExecutable&) = delete;

  // Runs the compiled function on `args` (one tensor per parameter, of the
  // parameter's type) and returns its results. Safe to call from several
  // threads at once. A module that declares several replicas or partitions
  // (mhlo.num_replicas, mhlo.num_partitions) runs them all, one thread each,
  // on the same arguments, and this returns instance 0's results, as the
  // interpreter's runFunction does.
  Expected<std::vector<interp::Tensor>> run(std::vector<interp::Tensor> args) const;
  // Like run, timing every step: adds each step's calls and seconds to
  // `profile` (entries in program order, created on the first call).
  Expected<std::vector<interp::Tensor>> runProfiled(std::vector<interp::Tensor> args,
                                                    std::vector<StepProfile>& profile) const;
  // Like run, returning the results of every instance, indexed by
  // replica * numPartitions + partition.
  Expected<std::vector<std::vector<interp::Tensor>>> runOnAllInstances(std::vector<interp::Tensor> args) const;
  // Like runOnAllInstances, with one argument list per instance (list i for
  // instance i): an SPMD program whose instances hold different shards.
  Expected<std::vector<std::vector<interp::Tensor>>> runInstances(
      std::vector<std::vector<interp::Tensor>> argsPerInstance) const;
  // Runs the instances `indices` of the module's grid alone, instance
  // indices[k] on argsPerInstance[k] with collectives through
  // communicators[k] (and the rest at `rendezvous`): this process's share of
  // a run whose other instances run in other processes
  // (kiln/distributed/process_run.h). Results in the order of `indices`.
  // `exited(k, failed)`, when given, runs on instance indices[k]'s thread as
  // it stops (finished, or failed when `failed`): the caller closes its
  // communicator there, so that its peers fail at once rather than at a
  // timeout.
  Expected<std::vector<std::vector<interp::Tensor>>> runSomeInstances(
      std::span<const int> indices, std::vector<std::vector<interp::Tensor>> argsPerInstance,
      std::span<collectives::Communicator* const> communicators, interp::Rendezvous& rendezvous,
      const std::function<void(size_t k, bool failed)>& exited = {}) const;
  // How many instances (replicas x partitions) the module declares.
  int numInstances() const;

  const CpuCompileStats& stats() const;
  // The entry function's module after the cpu pipeline, as kiln-opt prints it.
  const std::string& optimizedModuleText() const;
  // The same with `loc(...)` locations (printed on demand).
  std::string optimizedModuleTextWithLocations() const;

  // Private state (the JIT, the kernels, the step list); opaque here.
  struct Impl;
  explicit CpuExecutable(std::unique_ptr<Impl> impl);

 private:
  Status checkArguments(const std::vector<interp::Tensor>& args) const;

  std::unique_ptr<Impl> impl_;
};

// Compiles function `entry` of `module` (which is not modified: the "cpu"
// pass pipeline runs on a copy).
Expected<std::unique_ptr<CpuExecutable>> compileForCpu(const Module& module,
                                                       std::string_view entry,
                                                       const CpuCompileOptions& options = {});

// Like compileForCpu, through an in-memory cache of this process keyed by the
// module's text, `entry` and `options`: compiling the same thing again
// returns the executable compiled first (shared; run() is thread-safe). The
// cache keeps at most kCompileCacheCapacity executables, dropping the least
// recently used; a dropped one lives on while someone holds it.
inline constexpr size_t kCompileCacheCapacity = 64;
Expected<std::shared_ptr<const CpuExecutable>> compileForCpuCached(const Module& module,
                                                                   std::string_view entry,
                                                                   const CpuCompileOptions& options = {});

}  // namespace kiln::cpu
