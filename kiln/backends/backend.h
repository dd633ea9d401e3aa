// The back-end interface: all the runtime (and through it the tools and the
// Python package) sees of a back end. Each back end lives in a directory of
// its own under kiln/backends/ and is listed once, in kiln/backends/registry.cpp;
// callers choose one by name ("cpu", "interpreter").
//
// A compiled Program runs on device buffers (kiln/device/device_buffer.h) in
// the memory of the back end's devices, which its allocator() hands out: host
// memory for cpu and the interpreter, which compute on interp::Tensors over
// that memory (kiln/interp/host_buffers.h) without a copy.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/device/device_buffer.h"
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

// The instances a module declares (mhlo.num_replicas, mhlo.num_partitions):
// instance i is replica i / numPartitions, partition i % numPartitions.
struct Instances {
  int numReplicas = 1;
  int numPartitions = 1;
  int count() const { return numReplicas * numPartitions; }
};

// One compiled entry function. run() is safe to call from several threads.
// Arguments are buffers in the memory of the back end's devices, one per
// parameter, of the parameter's type; a donated argument is one whose memory
// the caller no longer holds, so the program may compute a result into it.
class Program {
 public:
  virtual ~Program() = default;
  // Runs every instance the module declares (replicas x partitions) on the
  // same arguments; returns instance 0's results.
  virtual Expected<std::vector<device::DeviceBuffer>> run(std::vector<device::DeviceBuffer> args) const = 0;
  // Runs instance i on argsPerInstance[i]: an SPMD execution.
  virtual Expected<std::vector<std::vector<device::DeviceBuffer>>> runInstances(
      std::vector<std::vector<device::DeviceBuffer>> argsPerInstance) const = 0;
  virtual Instances instances() const = 0;
  // The module as the back end runs it (after its pipeline), as kiln-opt prints it.
  virtual const std::string& optimizedModuleText() const = 0;
  // The same with each op's `loc(...)` as kept from its source (JAX's
  // user source lines): what the PJRT plugin hands jaxlib, whose HLO
  // metadata then points at the user's code. Printed on demand.
  virtual std::string optimizedModuleTextWithLocations() const { return optimizedModuleText(); }
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
  // Whether it can run on this machine, asked before anything is compiled
  // (the cuda back end: whether a CUDA driver loads), without side effects
  // that would outlive a fork(): an error saying why not.
  virtual Status available() const { return Status::ok(); }
  // Where the memory of its devices' buffers comes from.
  virtual const device::Allocator& allocator() const = 0;
  // Compiles function `entry` of `module` (which is not modified).
  virtual Expected<std::unique_ptr<Program>> compile(const Module& module, std::string_view entry,
                                                     const CompileOptions& options) const = 0;
};

// The registered back ends, in registry.cpp's order.
const std::vector<const Backend*>& allBackends();
// The back end called `name`, or an InvalidArgument error listing the names.
Expected<const Backend*> findBackend(std::string_view name);

}  // namespace kiln::backend
