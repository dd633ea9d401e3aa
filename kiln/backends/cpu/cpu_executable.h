// The cpu back end: compiles a module's entry function to native code with
// LLVM's ORC JIT and runs it. See docs/cpu_backend.md for what it covers so
// far; anything else is a compile error naming the op and its location.
//
// This header is LLVM-free on purpose: only kiln/backends/cpu/*.cpp include
// LLVM headers, so the rest of kiln builds without them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::cpu {

struct CpuCompileOptions {
  int numThreads = 0;       // kernel threads; 0 = one per core, 1 = the calling thread only
  std::string dumpDir;      // when set: each kernel's LLVM IR (before/after optimization) and assembly
  std::string cacheDir;     // when set: an on-disk cache of compiled code, shared across processes
};

// What compiling cost and produced (kiln run --stats prints it).
struct CpuCompileStats {
  double pipelineSeconds = 0;  // the "cpu" pass pipeline
  double codegenSeconds = 0;   // planning, emission, LLVM optimization and code generation
  int kernels = 0;             // emitted kernels
  int libraryCalls = 0;        // oneDNN primitives
  int routines = 0;            // steps run by a runtime routine
};

class CpuExecutable {
 public:
  ~CpuExecutable();
  CpuExecutable(const CpuExecutable&) = delete;
  CpuExecutable& operator=(const CpuExecutable&) = delete;

  // Runs the compiled function on `args` (one tensor per parameter, of the
  // parameter's type) and returns its results.
  Expected<std::vector<interp::Tensor>> run(std::vector<interp::Tensor> args) const;

  const CpuCompileStats& stats() const;
  // The entry function's module after the cpu pipeline, as kiln-opt prints it.
  const std::string& optimizedModuleText() const;

  // Private state (the JIT, the kernels, the step list); opaque here.
  struct Impl;
  explicit CpuExecutable(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// Compiles function `entry` of `module` (which is not modified: the "cpu"
// pass pipeline runs on a copy).
Expected<std::unique_ptr<CpuExecutable>> compileForCpu(const Module& module,
                                                       std::string_view entry,
                                                       const CpuCompileOptions& options = {});

}  // namespace kiln::cpu
