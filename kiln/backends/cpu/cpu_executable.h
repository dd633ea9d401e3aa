// The cpu back end: compiles a module's entry function to native code with
// LLVM's ORC JIT and runs it. See docs/cpu_backend.md for what it covers so
// far; anything else is a compile error naming the op and its location.
//
// This header is LLVM-free on purpose: only kiln/backends/cpu/*.cpp include
// LLVM headers, so the rest of kiln builds without them.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::cpu {

class CpuExecutable {
 public:
  ~CpuExecutable();
  CpuExecutable(const CpuExecutable&) = delete;
  CpuExecutable& operator=(const CpuExecutable&) = delete;

  // Runs the compiled function on `args` (one tensor per parameter, of the
  // parameter's type) and returns its results.
  Expected<std::vector<interp::Tensor>> run(std::vector<interp::Tensor> args) const;

  // Private state (the JIT, the kernels, the step list); opaque here.
  struct Impl;
  explicit CpuExecutable(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// Compiles function `entry` of `module` (which is not modified: the "cpu"
// pass pipeline runs on a copy).
Expected<std::unique_ptr<CpuExecutable>> compileForCpu(const Module& module,
                                                       std::string_view entry);

}  // namespace kiln::cpu
