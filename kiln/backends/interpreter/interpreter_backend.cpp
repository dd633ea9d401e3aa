#include "kiln/backends/interpreter/interpreter_backend.h"

#include <chrono>

#include "kiln/backends/tensor_program.h"
#include "kiln/interp/interpreter.h"
#include "kiln/ir/printer.h"
#include "kiln/passes/pass.h"

namespace kiln::backend {
namespace {

class InterpretedProgram final : public TensorProgram {
 public:
  InterpretedProgram(std::unique_ptr<Module> module, std::string entry, interp::InterpreterOptions instances,
                     double seconds)
      : module_(std::move(module)), entry_(std::move(entry)), instances_(instances), text_(printModule(*module_)) {
    stats_.pipelineSeconds = seconds;
  }

  Instances instances() const override { return {instances_.numReplicas, instances_.numPartitions}; }
  const std::string& optimizedModuleText() const override { return text_; }
  CompileStats stats() const override { return stats_; }
  // Interpreting is slow enough that a worker thread always pays off.
  bool mayRunInline() const override { return false; }

 protected:
  Expected<std::vector<interp::Tensor>> runTensors(std::vector<interp::Tensor> args) const override {
    return interp::runFunction(*module_, entry_, std::move(args), instances_);
  }
  Expected<std::vector<std::vector<interp::Tensor>>> runTensorInstances(
      std::vector<std::vector<interp::Tensor>> argsPerInstance) const override {
    return interp::runFunctionOnInstances(*module_, entry_, std::move(argsPerInstance), instances_);
  }

 private:
  std::unique_ptr<Module> module_;
  std::string entry_;
  interp::InterpreterOptions instances_;
  std::string text_;
  CompileStats stats_;
};

class InterpreterBackend final : public Backend {
 public:
  std::string_view name() const override { return "interpreter"; }
  std::string_view description() const override { return ""; }
  const device::Allocator& allocator() const override { return interp::tensorAllocator(); }
  Expected<std::unique_ptr<Program>> compile(const Module& module, std::string_view entry,
                                             const CompileOptions&) const override {
    auto start = std::chrono::steady_clock::now();
    // A custom call the interpreter lacks fails here, not at the first run.
    KILN_RETURN_IF_ERROR(interp::checkCustomCallTargets(module, entry));
    KILN_ASSIGN_OR_RETURN(interp::InterpreterOptions instances, interp::declaredInstances(module));
    auto copy = std::make_unique<Module>(module.op().clone());
    // Deprecated ops become their replacements here too (kiln/passes/legalize.cpp).
    KILN_ASSIGN_OR_RETURN(PassManager prepare, namedPipeline("prepare"));
    KILN_RETURN_IF_ERROR(prepare.run(*copy));
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::unique_ptr<Program>(
        std::make_unique<InterpretedProgram>(std::move(copy), std::string(entry), instances, seconds));
  }
};

}  // namespace

const Backend* interpreterBackend() {
  static const InterpreterBackend backend;
  return &backend;
}

}  // namespace kiln::backend
