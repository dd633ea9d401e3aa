// The ORC JIT of the cpu back end: a module to emit kernels into, set up for
// the host, then verified, optimized and compiled to code that lives as long
// as the KernelJit. Internal to kiln/backends/cpu; LLVM types are only
// forward-declared here.
#pragma once

#include <memory>
#include <string>

#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::cpu {

struct JitOptions {
  std::string dumpDir;  // when set, LLVM IR (before/after optimization) and assembly go here
};

class KernelJit {
 public:
  // A fresh JIT whose module() targets this host (CPU name and the features
  // detected at run time).
  static Expected<std::unique_ptr<KernelJit>> create();
  ~KernelJit();

  // Where the emitter adds kernels, until finalize().
  llvm::Module& module();
  // Verifies, optimizes (LLVM's O3 pipeline) and compiles the module.
  Status finalize(const JitOptions& options);
  // The address of compiled function `name` (after finalize()).
  Expected<void*> lookup(const std::string& name);

  struct Impl;

 private:
  explicit KernelJit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::cpu
