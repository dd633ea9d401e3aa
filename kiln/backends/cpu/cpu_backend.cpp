#include "kiln/backends/cpu/cpu_backend.h"

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/backends/cpu/program.h"
#include "kiln/backends/tensor_program.h"
#include "kiln/interp/interpreter.h"

namespace kiln::cpu {
namespace {

// The most work a program's loops may do in all their trips and still run
// on the caller's thread: the runtime's limits for a whole program
// (kInlineMaxFlops and kInlineMaxBytes in runtime/runtime_impl.h, about
// 100 us of work on one core).
constexpr double kInlineLoopFlops = 1 << 22;
constexpr double kInlineLoopBytes = 1 << 23;

class CpuProgram final : public backend::TensorProgram {
 public:
  CpuProgram(std::unique_ptr<CpuExecutable> executable, backend::Instances instances)
      : executable_(std::move(executable)), instances_(instances) {}

  backend::Instances instances() const override { return instances_; }
  const std::string& optimizedModuleText() const override { return executable_->optimizedModuleText(); }
  std::string optimizedModuleTextWithLocations() const override {
    return executable_->optimizedModuleTextWithLocations();
  }
  backend::CompileStats stats() const override {
    const CpuCompileStats& s = executable_->stats();
    return {s.pipelineSeconds, s.codegenSeconds, s.kernels, s.libraryCalls, s.routines};
  }
  // The runtime's cost analysis counts one trip of a loop: a program with
  // control flow may run inline only when its loops are flat, of a known
  // trip count, and cheap over all their trips (a scan of a small cell:
  // rnn_scan_64x1x32 runs in about 15 us, what a hand-off to a worker
  // costs on an idle host).
  bool mayRunInline() const override {
    const CpuCompileStats& s = executable_->stats();
    return s.controlFlow == s.boundedLoops && s.boundedLoopFlops <= kInlineLoopFlops &&
           s.boundedLoopBytes <= kInlineLoopBytes;
  }

 protected:
  Expected<std::vector<interp::Tensor>> runTensors(std::vector<interp::Tensor> args) const override {
    return executable_->run(std::move(args));
  }
  Expected<std::vector<std::vector<interp::Tensor>>> runTensorInstances(
      std::vector<std::vector<interp::Tensor>> argsPerInstance) const override {
    return executable_->runInstances(std::move(argsPerInstance));
  }

 private:
  std::unique_ptr<CpuExecutable> executable_;
  backend::Instances instances_;
};

class CpuBackend final : public backend::Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view description() const override { return "LLVM ORC JIT + oneDNN"; }
  const device::Allocator& allocator() const override { return cpuAllocator(); }
  Expected<std::unique_ptr<backend::Program>> compile(const Module& module, std::string_view entry,
                                                      const backend::CompileOptions& options) const override {
    CpuCompileOptions cpuOptions;
    cpuOptions.numThreads = options.numThreads;
    cpuOptions.cacheDir = options.cacheDir;
    cpuOptions.dumpDir = options.dumpDir;
    cpuOptions.foldConstants = options.foldConstants;
    KILN_ASSIGN_OR_RETURN(interp::InterpreterOptions declared, interp::declaredInstances(module));
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> executable, compileForCpu(module, entry, cpuOptions));
    backend::Instances instances{declared.numReplicas, declared.numPartitions};
    return std::unique_ptr<backend::Program>(std::make_unique<CpuProgram>(std::move(executable), instances));
  }
};

}  // namespace

const backend::Backend* cpuBackend() {
  static const CpuBackend backend;
  return &backend;
}

}  // namespace kiln::cpu
