// The back-end interface: all the runtime (and through it the tools and the
// Python package) sees of a back end. Each back end lives in a directory of
// its own under kiln/backends/ and is listed once, in kiln/backends/registry.cpp;
// callers choose one by name ("cpu", "interpreter").
//
// A compiled Program still computes on host tensors (interp::Tensor): device
// buffers below the interpreter are the next step (docs/design.md, "Back ends").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::backend {

struct CompileOptions {
  int numThreads = 0;       // threads one execution may use; 0 = one per core
  std::string dumpDir;      // where a back end writes its dumps; empty = none
  std::string cacheDir;     // an on-disk cache of compiled code; empty = none
  // Whether constants are folded at compile time. `kiln test` turns it off:
  // its tests compute on constants, which folding would evaluate with the
  // interpreter instead of the back end under test.
  bool foldConstants = true;
};

struct CompileStats {
  double pipelineSeconds = 0;  // the back end's pass pipeline
  double codegenSeconds = 0;   // everything after it
  int kernels = 0;
  int libraryCalls = 0;
  int routines = 0;
};

// One compiled entry function. run() is safe to call from several threads.
class Program {
 public:
  virtual ~Program() = default;
  // Runs every instance the module declares (replicas x partitions) on the
  // same arguments; returns instance 0's results.
  virtual Expected<std::vector<interp::Tensor>> run(std::vector<interp::Tensor> args) const = 0;
  // Runs instance i on argsPerInstance[i]: an SPMD execution.
  virtual Expected<std::vector<std::vector<interp::Tensor>>> runInstances(
      std::vector<std::vector<interp::Tensor>> argsPerInstance) const = 0;
  // The module as the back end runs it (after its pipeline), as kiln-opt prints it.
  virtual const std::string& optimizedModuleText() const = 0;
  virtual CompileStats stats() const = 0;
  // Whether a small execution of this program may run on the caller's thread
  // (straight-line code; the runtime also asks that it be cheap).
  virtual bool mayRunInline() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;         // "cpu"
  virtual std::string_view description() const = 0;  // "LLVM ORC JIT + oneDNN"; may be empty
  // Compiles function `entry` of `module` (which is not modified).
  virtual Expected<std::unique_ptr<Program>> compile(const Module& module, std::string_view entry,
                                                     const CompileOptions& options) const = 0;
};

// The registered back ends, in registry.cpp's order.
const std::vector<const Backend*>& allBackends();
// The back end called `name`, or an InvalidArgument error listing the names.
Expected<const Backend*> findBackend(std::string_view name);

}  // namespace kiln::backend
