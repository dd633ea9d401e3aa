// The ORC JIT of the cpu back end: a module to emit kernels into, set up for
// the host, then verified, optimized and compiled to code that lives as long
// as the KernelJit. Internal to kiln/backends/cpu; LLVM types are only
// forward-declared here.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::cpu {

struct JitOptions {
  // When set, finalize() writes DIR/NAME.ll (the module as emitted),
  // DIR/NAME.opt.ll (after optimization) and DIR/NAME.s (the host assembly),
  // NAME being moduleName (or "kernels"), made unique in DIR.
  std::string dumpDir;
  std::string moduleName;
  // When set, an on-disk cache of compiled objects: DIR/kiln-<sha256>.o, the
  // hash taken over the module as emitted plus the host CPU, its features and
  // the LLVM version. A hit skips optimization and code generation.
  std::string cacheDir;
  // Threads to optimize and compile on: a module of several functions is
  // split into up to this many parts, compiled at once. Dumps compile the
  // whole module on one thread.
  int threads = 1;
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
  // Whether finalize() found the compiled module in JitOptions::cacheDir.
  bool loadedFromCache() const;
  // How many parts finalize() compiled on threads of their own (0 when the
  // code came from the cache).
  int compiledParts() const;
  // The address of compiled function `name` (after finalize()).
  Expected<void*> lookup(const std::string& name);

  struct Impl;

 private:
  explicit KernelJit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The size of the last-level data cache one core of the host sees (its L3
// slice, else its L2; 32 MiB when the system does not say).
int64_t hostLastLevelCacheBytes();

}  // namespace kiln::cpu
