// The cpu back end's executable: the plan (which top-level ops become
// kernels or library calls), the ORC JIT turning the emitted kernels
// (emitter.cpp) into host code, and running the steps. docs/cpu_backend.md
// lists what is covered.
#include "kiln/backends/cpu/cpu_executable.h"

#include <algorithm>
#include <chrono>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "kiln/backends/cpu/emitter.h"
#include "kiln/backends/cpu/jit.h"
#include "kiln/backends/cpu/onednn_dot.h"
#include "kiln/ir/printer.h"
#include "kiln/passes/pass.h"

namespace kiln::cpu {

// One kernel launch: the slots it reads and the slot it defines.
struct KernelStep {
  KernelFn fn = nullptr;
  int64_t iterations = 0;  // the kernel's [begin, end) range is [0, iterations)
  std::shared_ptr<const OnednnDot> library;  // when set, runs instead of fn
  std::vector<size_t> inputs;
  size_t output;
  Type outputType;
};

// A compiled function: values live in numbered slots (parameters first),
// constants are filled in before the kernels run in program order.
struct CpuExecutable::Impl {
  std::unique_ptr<KernelJit> jit;  // owns the kernels' code
  std::vector<Type> paramTypes;           // slots 0..params-1
  size_t numSlots = 0;
  std::vector<std::pair<size_t, interp::Tensor>> constants;
  std::vector<KernelStep> steps;
  std::vector<size_t> resultSlots;
  CpuCompileStats stats;
  std::string optimizedText;
};

namespace {

// Splits the entry function's top-level ops into constants, kernels and the
// return; anything else is a compile error.
Status planFunction(const Operation& fn, CpuExecutable::Impl& impl, std::vector<KernelPlan>& kernels) {
  std::map<const Value*, size_t> slots;
  auto slotOf = [&](const Value* v) {
    auto [it, inserted] = slots.emplace(v, slots.size());
    return it->second;
  };
  Block& body = func::body(fn);
  for (unsigned i = 0; i < body.numArguments(); ++i) {
    slotOf(body.argument(i));
    impl.paramTypes.push_back(body.argument(i)->type());
  }
  for (const Operation& op : body) {
    const std::string& name = op.name();
    if (name == "func.return") {
      for (const Value* v : op.operands()) impl.resultSlots.push_back(slotOf(v));
      continue;
    }
    if (name == "stablehlo.constant") {
      impl.constants.emplace_back(slotOf(op.result()), interp::Tensor::fromDense(op.attr("value")));
      continue;
    }
    KernelPlan plan;
    std::shared_ptr<const OnednnDot> library;
    if (isOnednnDot(op)) {  // dot_general and output fusions: a oneDNN call
      KILN_ASSIGN_OR_RETURN(library, compileOnednnDot(op));
    } else if (name == "kiln.fusion") {
      Attribute kind = op.attr("kind");
      // An input fusion's reduces are emitted as inner loops (see emitReduce),
      // once per row when they reduce trailing dims (see RowAnalysis).
      bool emitted = kind && (kind.stringValue() == "loop" || kind.stringValue() == "input");
      if (!emitted || op.numResults() != 1)
        return unsupported(op, "of kind '" + (kind ? kind.stringValue() : std::string("?")) + "'");
      Block& fusionBody = op.region(0).front();
      for (const Value* arg : fusionBody.arguments()) plan.params.push_back(arg);
      plan.roots.push_back(fusionBody.terminator()->operand(0));
    } else if (isEmittedOp(op)) {
      for (const Value* operand : op.operands()) plan.params.push_back(operand);
      plan.roots.push_back(op.result());
    } else {
      return unsupported(op);
    }
    plan.inputs.assign(op.operands().begin(), op.operands().end());
    plan.outputs.push_back(op.result());
    KernelStep step;
    for (const Value* input : plan.inputs) step.inputs.push_back(slotOf(input));
    step.output = slotOf(op.result());
    step.outputType = op.result()->type();
    step.library = std::move(library);
    plan.step = impl.steps.size();
    if (!step.library) kernels.push_back(std::move(plan));
    impl.steps.push_back(std::move(step));
  }
  impl.numSlots = slots.size();
  return Status::ok();
}

}  // namespace

CpuExecutable::CpuExecutable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuExecutable::~CpuExecutable() = default;
const CpuCompileStats& CpuExecutable::stats() const { return impl_->stats; }
const std::string& CpuExecutable::optimizedModuleText() const { return impl_->optimizedText; }

Expected<std::unique_ptr<CpuExecutable>> compileForCpu(const Module& module, std::string_view entry,
                                                       const CpuCompileOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  Module lowered(module.op().clone());
  KILN_ASSIGN_OR_RETURN(PassManager pipeline, namedPipeline("cpu"));
  KILN_RETURN_IF_ERROR(pipeline.run(lowered));
  const Operation* fn = lowered.lookupFunction(entry);
  if (!fn) return error("no function @" + std::string(entry) + " to compile");

  auto impl = std::make_unique<CpuExecutable::Impl>();
  impl->optimizedText = printModule(lowered);
  auto pipelineDone = Clock::now();
  impl->stats.pipelineSeconds = std::chrono::duration<double>(pipelineDone - start).count();
  std::vector<KernelPlan> kernels;
  KILN_RETURN_IF_ERROR(planFunction(*fn, *impl, kernels));

  KILN_ASSIGN_OR_RETURN(std::unique_ptr<KernelJit> jit, KernelJit::create());
  for (size_t k = 0; k < kernels.size(); ++k)
    KILN_RETURN_IF_ERROR(emitKernel(kernels[k], "kernel" + std::to_string(k), jit->module()));
  KILN_RETURN_IF_ERROR(jit->finalize(JitOptions{options.dumpDir}));
  for (size_t k = 0; k < kernels.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(void* address, jit->lookup("kernel" + std::to_string(k)));
    impl->steps[kernels[k].step].fn = reinterpret_cast<KernelFn>(address);
    impl->steps[kernels[k].step].iterations = kernelIterations(kernels[k]);
  }
  impl->jit = std::move(jit);
  impl->stats.kernels = int(kernels.size());
  impl->stats.libraryCalls = int(impl->steps.size() - kernels.size());
  impl->stats.codegenSeconds = std::chrono::duration<double>(Clock::now() - pipelineDone).count();
  return std::make_unique<CpuExecutable>(std::move(impl));
}

Expected<std::vector<interp::Tensor>> CpuExecutable::run(std::vector<interp::Tensor> args) const {
  if (args.size() != impl_->paramTypes.size())
    return error("the compiled function takes " + std::to_string(impl_->paramTypes.size()) +
                 " argument(s), " + std::to_string(args.size()) + " given");
  std::vector<interp::Tensor> slots(impl_->numSlots);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].type() != impl_->paramTypes[i])
      return error("argument " + std::to_string(i) + " has type " + args[i].type().str() + ", expected " +
                   impl_->paramTypes[i].str());
    slots[i] = std::move(args[i]);
  }
  for (const auto& [slot, value] : impl_->constants) slots[slot] = value;
  std::vector<const uint8_t*> inputs;
  for (const KernelStep& step : impl_->steps) {
    interp::Tensor output(step.outputType);
    if (output.numElements() > 0) {
      inputs.clear();
      for (size_t slot : step.inputs) inputs.push_back(slots[slot].bytes());
      if (step.library) step.library->run(inputs.data(), output.bytes());
      else {
        uint8_t* outputs[] = {output.bytes()};
        step.fn(inputs.data(), outputs, 0, step.iterations);
      }
    }
    slots[step.output] = std::move(output);
  }
  std::vector<interp::Tensor> results;
  for (size_t slot : impl_->resultSlots) results.push_back(slots[slot]);
  return results;
}

}  // namespace kiln::cpu
