// The cuda back end's program plan (see cuda_plan.h).
#include "kiln/backends/gpu/cuda_plan.h"

#include <cstring>
#include <map>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/tensor.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/pass.h"

namespace kiln::gpu {
namespace {

int64_t alignUp(int64_t n) { return (n + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment; }

// The "cuda" pipeline, less constant_fold when folding is off.
Expected<PassManager> cudaPipeline(const CudaPlanOptions& options) {
  PassManagerOptions passOptions;
  passOptions.dumpDir = options.dumpDir;
  if (options.foldConstants) return namedPipeline("cuda", passOptions);
  KILN_ASSIGN_OR_RETURN(PassManager named, namedPipeline("cuda"));
  std::string passes;
  for (const std::string& name : named.passNames())
    if (name != "constant_fold") passes += (passes.empty() ? "" : ",") + name;
  return parsePassList(passes, passOptions);
}

// A conformance test's assertion: stablehlo.custom_call @check.*.
bool isCheckOp(const Operation& op) {
  Attribute target = op.name() == "stablehlo.custom_call" ? op.attr("call_target_name") : Attribute();
  return target && target.stringValue().rfind("check.", 0) == 0;
}

// Slots of the values of one function body, from its buffer assignment.
class SlotMap {
 public:
  SlotMap(const BufferAssignment& assignment, CudaPlan& plan) : assignment_(assignment), plan_(plan) {}

  // Every argument of the function, packed in order.
  void placeParameters(const Block& body) {
    for (const Value* arg : body.arguments()) {
      int64_t bytes = storageBytes(arg->type());
      plan_.parameterTypes.push_back(arg->type());
      plan_.parameters.push_back({DeviceRegion::Parameters, plan_.parameterBytes, bytes});
      plan_.parameterBytes += alignUp(bytes);
    }
  }

  Expected<DeviceSlot> slotOf(const Value* v) {
    int64_t bytes = storageBytes(v->type());
    if (!v->type().isTensor()) return error("the cuda back end holds tensors only, not " + v->type().str());
    auto it = assignment_.bufferOf.find(v);
    if (it == assignment_.bufferOf.end()) {
      if (bytes == 0) return DeviceSlot{DeviceRegion::Arena, 0, 0};
      return error("the cuda back end found no buffer for a value of type " + v->type().str());
    }
    const Buffer& buffer = assignment_.buffers[it->second];
    switch (buffer.kind) {
      case Buffer::Kind::Parameter:
        return DeviceSlot{DeviceRegion::Parameters, plan_.parameters[buffer.parameter].offset, bytes};
      case Buffer::Kind::Temp: return DeviceSlot{DeviceRegion::Arena, buffer.offset, bytes};
      case Buffer::Kind::Constant: {
        KILN_ASSIGN_OR_RETURN(int64_t offset, constantOffset(it->second, buffer));
        return DeviceSlot{DeviceRegion::Constants, offset, bytes};
      }
      case Buffer::Kind::Scratch: break;
    }
    return error("the cuda back end has no control flow (a while/if/case body's buffer)");
  }

 private:
  // Where constant buffer `index` is in the Constants region, placed (and
  // its bytes copied there) on first use.
  Expected<int64_t> constantOffset(int index, const Buffer& buffer) {
    if (auto found = constants_.find(index); found != constants_.end()) return found->second;
    const Operation* def = buffer.values.empty() ? nullptr : buffer.values.front()->definingOp();
    Attribute value = def && def->name() == "stablehlo.constant" ? def->attr("value") : Attribute();
    if (!value || !value.is(AttrKind::DenseElements))
      return error("the cuda back end cannot place a constant that is not a dense stablehlo.constant");
    interp::Tensor tensor = interp::Tensor::fromDense(value);
    int64_t offset = static_cast<int64_t>(plan_.constants.size());
    plan_.constants.resize(offset + alignUp(static_cast<int64_t>(tensor.byteSize())));
    if (tensor.byteSize()) std::memcpy(plan_.constants.data() + offset, tensor.bytes(), tensor.byteSize());
    constants_[index] = offset;
    return offset;
  }

  const BufferAssignment& assignment_;
  CudaPlan& plan_;
  std::map<int, int64_t> constants_;
};

}  // namespace

Expected<std::string> cudaArchFor(int major, int minor) {
  if (major >= 9) return std::string("sm_90");
  if (major == 8) return std::string("sm_80");
  return error("the cuda back end needs a GPU of compute capability 8.0 or newer (sm_80: A100; sm_90: H100), "
               "not " + std::to_string(major) + "." + std::to_string(minor));
}

Expected<CudaPlan> planForCuda(const Module& module, std::string_view entry, const CudaPlanOptions& options) {
  KILN_ASSIGN_OR_RETURN(interp::InterpreterOptions instances, interp::declaredInstances(module));
  if (instances.numReplicas * instances.numPartitions != 1)
    return error(ErrorCode::Unimplemented, "the cuda back end runs one instance; the module declares " +
                                               std::to_string(instances.numReplicas) + " replicas x " +
                                               std::to_string(instances.numPartitions) + " partitions");
  CudaPlan plan;
  plan.entry = std::string(entry);
  plan.arch = options.arch;
  plan.lowered = std::make_unique<Module>(module.op().clone());
  KILN_ASSIGN_OR_RETURN(PassManager pipeline, cudaPipeline(options));
  KILN_RETURN_IF_ERROR(pipeline.run(*plan.lowered));
  const Operation* fn = plan.lowered->lookupFunction(entry);
  if (!fn) return error(ErrorCode::InvalidArgument, "no function @" + std::string(entry) + " in the module");
  const Block& body = func::body(*fn);

  BufferAssignment assignment = assignBuffers(body);
  plan.arenaBytes = assignment.arenaBytes;
  SlotMap slots(assignment, plan);
  slots.placeParameters(body);

  std::vector<Diagnostic> unsupported;  // every op that cannot run, so the error counts them
  const std::string_view archs[] = {plan.arch};
  for (const Operation* op : assignment.order) {
    if (op->name() == "func.return") {
      for (const Value* result : op->operands()) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(result));
        plan.resultTypes.push_back(result->type());
        plan.results.push_back(slot);
      }
      continue;
    }
    if (launchesNothing(*op)) continue;
    if (isCheckOp(*op)) {
      HostCheck check{op, {}};
      for (const Value* operand : op->operands()) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(operand));
        check.operands.push_back(slot);
      }
      plan.steps.push_back(std::move(check));
      continue;
    }
    if (isMatmulOp(*op)) {
      Expected<CudaMatmul> matmul = compileMatmul(*op);
      if (!matmul) {
        unsupported.push_back(matmul.status().diag());
        continue;
      }
      const MatmulPlan& m = matmul->plan;
      MatmulCall call{plan.matmuls.size(), {}, {}, {}, std::nullopt};
      KILN_ASSIGN_OR_RETURN(call.a, slots.slotOf(op->operand(m.aOperand)));
      KILN_ASSIGN_OR_RETURN(call.b, slots.slotOf(op->operand(m.bOperand)));
      if (m.biasOperand >= 0) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot bias, slots.slotOf(op->operand(m.biasOperand)));
        call.bias = bias;
      }
      std::optional<KernelLaunch> rest;
      if (m.epilogueKernel) {
        // The product goes to scratch after buffer assignment's arena (its
        // own bytes, never shared), where the epilogue's kernel reads it.
        Expected<CudaKernel> kernel =
            compileEpilogueKernel(*op, m.product, "k" + std::to_string(plan.kernels.size()), archs);
        if (!kernel) {
          unsupported.push_back(kernel.status().diag());
          continue;
        }
        call.d = DeviceSlot{DeviceRegion::Arena, alignUp(plan.arenaBytes), storageBytes(m.product->type())};
        plan.arenaBytes = call.d.offset + alignUp(call.d.bytes);
        rest = KernelLaunch{plan.kernels.size(), {call.d}};
        for (size_t i = 1; i < kernel->inputs.size(); ++i) {
          KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(kernel->inputs[i]));
          rest->args.push_back(slot);
        }
        for (const Value* v : kernel->outputs) {
          KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(v));
          rest->args.push_back(slot);
        }
        matmul->epilogueKernel = kernel->name;
        plan.kernels.push_back(std::move(*kernel));
      } else {
        KILN_ASSIGN_OR_RETURN(call.d, slots.slotOf(op->result(0)));
      }
      plan.matmuls.push_back(std::move(*matmul));
      plan.steps.push_back(std::move(call));
      if (rest) plan.steps.push_back(std::move(*rest));
      continue;
    }
    if (!isKernelOp(*op)) {
      unsupported.push_back(unsupportedOnCuda(*op).diag());
      continue;
    }
    Expected<std::vector<CudaKernel>> kernels = compileKernels(*op, plan.kernels.size(), archs);
    if (!kernels) {
      unsupported.push_back(kernels.status().diag());
      continue;
    }
    for (CudaKernel& kernel : *kernels) {
      KernelLaunch launch{plan.kernels.size(), {}};
      for (const Value* v : kernel.inputs) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(v));
        launch.args.push_back(slot);
      }
      for (const Value* v : kernel.outputs) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(v));
        launch.args.push_back(slot);
      }
      plan.kernels.push_back(std::move(kernel));
      plan.steps.push_back(std::move(launch));
    }
  }
  if (!options.dumpDir.empty()) {
    CudaCompilation dump{plan.kernels, plan.matmuls, {}};
    for (const Diagnostic& d : unsupported) dump.unsupported.push_back(d.message);
    KILN_RETURN_IF_ERROR(writeCudaDumps(dump, options.dumpDir));
  }
  if (!unsupported.empty()) {
    Diagnostic first = unsupported.front();
    first.code = ErrorCode::Unimplemented;
    if (unsupported.size() > 1)
      first.message += " (and " + std::to_string(unsupported.size() - 1) + " more ops the cuda back end cannot compile yet)";
    return Status(std::move(first));
  }
  return plan;
}

uint64_t deviceAddress(const DeviceSlot& slot, const DeviceRegions& regions) {
  uint64_t base = slot.region == DeviceRegion::Parameters ? regions.parameters
                  : slot.region == DeviceRegion::Arena    ? regions.arena
                                                          : regions.constants;
  return base + static_cast<uint64_t>(slot.offset);
}

std::vector<uint64_t> launchArguments(const KernelLaunch& launch, const DeviceRegions& regions) {
  std::vector<uint64_t> addresses;
  addresses.reserve(launch.args.size());
  for (const DeviceSlot& slot : launch.args) addresses.push_back(deviceAddress(slot, regions));
  return addresses;
}

}  // namespace kiln::gpu
