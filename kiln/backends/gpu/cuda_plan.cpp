// The cuda back end's program plan (see cuda_plan.h).
#include "kiln/backends/gpu/cuda_plan.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <span>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/op_registry.h"
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

// Slots of the values of one block, from its buffer assignment: a function
// body, or a while/if/case region, whose buffers lie in its op's scratch
// buffer (at `base` of the arena), whose arguments are bound to the slots
// of the op's state, and which reads the values of enclosing blocks
// (`parent`'s).
class SlotMap {
 public:
  SlotMap(const BufferAssignment& assignment, CudaPlan& plan, SlotMap* parent = nullptr, int64_t base = 0)
      : assignment_(assignment), plan_(plan), parent_(parent), base_(base) {}

  // Every argument of the function, packed in order.
  void placeParameters(const Block& body) {
    for (const Value* arg : body.arguments()) {
      int64_t bytes = storageBytes(arg->type());
      plan_.parameterTypes.push_back(arg->type());
      plan_.parameters.push_back({DeviceRegion::Parameters, plan_.parameterBytes, bytes});
      plan_.parameterBytes += alignUp(bytes);
    }
  }

  // A region's argument lives in `slot` (the op's state).
  void bind(const Value* arg, DeviceSlot slot) { bound_[arg] = slot; }

  Expected<DeviceSlot> slotOf(const Value* v) {
    if (!v->type().isTensor()) return error("the cuda back end holds tensors only, not " + v->type().str());
    int64_t bytes = storageBytes(v->type());
    if (auto b = bound_.find(v); b != bound_.end()) return b->second;
    auto it = assignment_.bufferOf.find(v);
    if (it == assignment_.bufferOf.end()) {
      if (bytes == 0) return DeviceSlot{DeviceRegion::Arena, 0, 0};
      // A view of a region's argument (which owns no buffer): the argument's bytes.
      const Operation* def = v->definingOp();
      if (def && isViewOp(*def) && def->numOperands() == 1 && def->parentBlock() == assignment_.block) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot viewed, slotOf(def->operand(0)));
        return DeviceSlot{viewed.region, viewed.offset, bytes};
      }
      if (parent_ && !definedIn(v)) return parent_->slotOf(v);  // an enclosing block's value
      return error("the cuda back end found no buffer for a value of type " + v->type().str());
    }
    const Buffer& buffer = assignment_.buffers[it->second];
    switch (buffer.kind) {
      case Buffer::Kind::Parameter:
        return DeviceSlot{DeviceRegion::Parameters, plan_.parameters[buffer.parameter].offset, bytes};
      case Buffer::Kind::Temp: return DeviceSlot{DeviceRegion::Arena, base_ + buffer.offset, bytes};
      case Buffer::Kind::Constant: {
        KILN_ASSIGN_OR_RETURN(int64_t offset, constantOffset(it->second, buffer));
        return DeviceSlot{DeviceRegion::Constants, offset, bytes};
      }
      case Buffer::Kind::Scratch: break;
    }
    return error("the cuda back end found a value in a while/if/case's scratch buffer");
  }

  // Where the bodies of `op` (a while/if/case of this block) keep their
  // buffers: the arena offset of its scratch buffer (none when they own
  // no bytes).
  int64_t scratchBase(const Operation& op) const {
    for (const Buffer& buffer : assignment_.buffers)
      if (buffer.kind == Buffer::Kind::Scratch && buffer.scratchOf == &op) return base_ + buffer.offset;
    return base_;
  }

 private:
  bool definedIn(const Value* v) const {
    const Operation* def = v->definingOp();
    return def ? def->parentBlock() == assignment_.block : false;
  }

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
  SlotMap* parent_;
  int64_t base_;
  std::map<const Value*, DeviceSlot> bound_;
  std::map<int, int64_t> constants_;
};

bool overlaps(const DeviceSlot& a, const DeviceSlot& b) {
  return a.region == b.region && a.bytes > 0 && b.bytes > 0 && a.offset < b.offset + b.bytes &&
         b.offset < a.offset + a.bytes;
}

// Plans the ops of blocks (a function body, the regions of its control
// flow) into steps.
class Planner {
 public:
  Planner(CudaPlan& plan) : plan_(plan) {}

  // The steps of `assignment`'s block; the slots of the values its
  // terminator returns into `results`. Ops that cannot run are collected
  // in `unsupported`, not returned.
  Status planBlock(const BufferAssignment& assignment, SlotMap& slots, std::vector<CudaStep>& steps,
                   std::vector<DeviceSlot>& results) {
    for (const Operation* op : assignment.order) {
      if (op == assignment.order.back() && (op->name() == "func.return" || op->name() == "stablehlo.return")) {
        for (const Value* result : op->operands()) {
          KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(result));
          results.push_back(slot);
        }
        continue;
      }
      if (launchesNothing(*op)) continue;
      if (hasTrait(*op, kControlFlow)) {
        Status refused = controlFlowOnCuda(*op);
        if (!refused.isOk()) {
          unsupported.push_back(refused.diag());
          continue;
        }
        KILN_RETURN_IF_ERROR(planControlFlow(*op, assignment, slots, steps));
        continue;
      }
      if (isCheckOp(*op)) {
        HostCheck check{op, {}};
        for (const Value* operand : op->operands()) {
          KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(operand));
          check.operands.push_back(slot);
        }
        steps.push_back(std::move(check));
        continue;
      }
      if (isSolverCallOp(*op)) {
        KILN_RETURN_IF_ERROR(planSolver(*op, slots, steps));
        continue;
      }
      if (isMatmulOp(*op)) {
        Expected<CudaMatmul> matmul = compileMatmul(*op);
        if (matmul) {
          KILN_RETURN_IF_ERROR(planMatmul(*op, std::move(*matmul), slots, steps));
          continue;
        }
        // What cuBLASLt does not take runs as a contraction kernel
        // (contraction.h).
      } else if (!isKernelOp(*op)) {
        unsupported.push_back(unsupportedOnCuda(*op).diag());
        continue;
      }
      Expected<std::vector<CudaKernel>> kernels = compileKernels(*op, plan_.kernels.size(), archs());
      if (!kernels) {
        unsupported.push_back(kernels.status().diag());
        continue;
      }
      for (CudaKernel& kernel : *kernels) {
        KernelLaunch launch{plan_.kernels.size(), {}};
        for (const Value* v : kernel.inputs) {
          KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(v));
          launch.args.push_back(slot);
        }
        for (const Value* v : kernel.outputs) {
          KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(v));
          launch.args.push_back(slot);
        }
        plan_.kernels.push_back(std::move(kernel));
        steps.push_back(std::move(launch));
      }
    }
    return Status::ok();
  }

  std::vector<Diagnostic> unsupported;  // every op that cannot run, so the error counts them

 private:
  std::span<const std::string_view> archs() {
    arch_[0] = plan_.arch;
    return arch_;
  }

  Status planMatmul(const Operation& op, CudaMatmul matmul, SlotMap& slots, std::vector<CudaStep>& steps) {
    const MatmulPlan& m = matmul.plan;
    MatmulCall call{plan_.matmuls.size(), {}, {}, {}, std::nullopt};
    KILN_ASSIGN_OR_RETURN(call.a, slots.slotOf(op.operand(m.aOperand)));
    KILN_ASSIGN_OR_RETURN(call.b, slots.slotOf(op.operand(m.bOperand)));
    if (m.biasOperand >= 0) {
      KILN_ASSIGN_OR_RETURN(DeviceSlot bias, slots.slotOf(op.operand(m.biasOperand)));
      call.bias = bias;
    }
    std::optional<KernelLaunch> rest;
    if (m.epilogueKernel) {
      // The product goes to scratch after buffer assignment's arena (its
      // own bytes, never shared), where the epilogue's kernel reads it.
      Expected<CudaKernel> kernel =
          compileEpilogueKernel(op, m.product, "k" + std::to_string(plan_.kernels.size()), archs());
      if (!kernel) {
        unsupported.push_back(kernel.status().diag());
        return Status::ok();
      }
      call.d = extraArenaSlot(storageBytes(m.product->type()));
      rest = KernelLaunch{plan_.kernels.size(), {call.d}};
      for (size_t i = 1; i < kernel->inputs.size(); ++i) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(kernel->inputs[i]));
        rest->args.push_back(slot);
      }
      for (const Value* v : kernel->outputs) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(v));
        rest->args.push_back(slot);
      }
      matmul.epilogueKernel = kernel->name;
      plan_.kernels.push_back(std::move(*kernel));
    } else {
      KILN_ASSIGN_OR_RETURN(call.d, slots.slotOf(op.result(0)));
    }
    plan_.matmuls.push_back(std::move(matmul));
    steps.push_back(std::move(call));
    if (rest) steps.push_back(std::move(*rest));
    return Status::ok();
  }

  Status planSolver(const Operation& op, SlotMap& slots, std::vector<CudaStep>& steps) {
    SolverCall call{&op, solverProblemOf(op), {}, {}, {}};
    if (call.problem.jacobiBatched()) {
      std::string problem = jacobiBatchedProblem(call.problem);
      if (!problem.empty())
        return error("the cuda back end cannot run " + op.name() + " (" + op.loc().str() + ", cuSOLVER " +
                     call.problem.str() + "): " + problem);
    }
    KILN_ASSIGN_OR_RETURN(call.a, slots.slotOf(op.operand(0)));
    for (unsigned i = 0; i < op.numResults(); ++i) {
      KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(op.result(i)));
      call.results.push_back(slot);
    }
    // syevd's eigenvectors overwrite its copy of a; gesvd's a is scratch.
    call.work = call.problem.eigen() ? call.results.at(0) : extraArenaSlot(call.a.bytes);
    steps.push_back(std::move(call));
    return Status::ok();
  }

  // Bytes of their own after buffer assignment's arena.
  DeviceSlot extraArenaSlot(int64_t bytes) {
    DeviceSlot slot{DeviceRegion::Arena, alignUp(plan_.arenaBytes), bytes};
    plan_.arenaBytes = slot.offset + alignUp(bytes);
    return slot;
  }

  // Copies every `from` into its `to` as if at once: a source that another
  // copy's destination overlaps (a while body returning its arguments
  // swapped) goes through bytes of its own first.
  void copyAll(const std::vector<std::pair<DeviceSlot, DeviceSlot>>& copies, std::vector<CudaStep>& steps) {
    std::vector<CopyStep> first, direct, last;
    for (size_t k = 0; k < copies.size(); ++k) {
      auto [from, to] = copies[k];
      if (from.bytes == 0 || from == to) continue;
      bool clobbered = false;
      for (size_t j = 0; j < copies.size(); ++j)
        clobbered |= j != k && !(copies[j].first == copies[j].second) && overlaps(from, copies[j].second);
      if (!clobbered) {
        direct.push_back({from, to});
        continue;
      }
      DeviceSlot staged = extraArenaSlot(from.bytes);
      first.push_back({from, staged});
      last.push_back({staged, to});
    }
    for (auto* group : {&first, &direct, &last})
      for (const CopyStep& copy : *group) steps.push_back(copy);
  }

  // One region's steps, in a body of its own (`args` bound to its arguments).
  Expected<size_t> planRegion(const BufferAssignment& assignment, SlotMap& parent, int64_t base,
                              const std::vector<DeviceSlot>& args) {
    SlotMap slots(assignment, plan_, &parent, base);
    for (unsigned i = 0; i < assignment.block->numArguments() && i < args.size(); ++i)
      slots.bind(assignment.block->argument(i), args[i]);
    CudaBody body;
    KILN_RETURN_IF_ERROR(planBlock(assignment, slots, body.steps, body.results));
    plan_.bodies.push_back(std::move(body));
    return plan_.bodies.size() - 1;
  }

  // A while's state lives in its result slots: the operands are copied
  // there, the condition and the body read their arguments there, and the
  // body's last steps copy the next state there. An if's or case's branches
  // each end by copying their values into the op's result slots.
  Status planControlFlow(const Operation& op, const BufferAssignment& assignment, SlotMap& slots,
                         std::vector<CudaStep>& steps) {
    const std::vector<BufferAssignment>& regions = assignment.nested.at(&op);
    int64_t base = slots.scratchBase(op);
    std::vector<DeviceSlot> resultSlots;
    for (unsigned i = 0; i < op.numResults(); ++i) {
      KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(op.result(i)));
      resultSlots.push_back(slot);
    }
    auto copiesInto = [&](const std::vector<DeviceSlot>& from) {
      std::vector<std::pair<DeviceSlot, DeviceSlot>> copies;
      for (size_t i = 0; i < from.size() && i < resultSlots.size(); ++i) copies.push_back({from[i], resultSlots[i]});
      return copies;
    };
    size_t before = unsupported.size();
    if (op.name() == "stablehlo.while") {
      std::vector<DeviceSlot> operands;
      for (const Value* operand : op.operands()) {
        KILN_ASSIGN_OR_RETURN(DeviceSlot slot, slots.slotOf(operand));
        operands.push_back(slot);
      }
      copyAll(copiesInto(operands), steps);
      KILN_ASSIGN_OR_RETURN(size_t cond, planRegion(regions.at(0), slots, base, resultSlots));
      KILN_ASSIGN_OR_RETURN(size_t body, planRegion(regions.at(1), slots, base, resultSlots));
      if (unsupported.size() != before) return Status::ok();
      std::vector<CudaStep> next;
      copyAll(copiesInto(plan_.bodies[body].results), next);
      for (CudaStep& step : next) plan_.bodies[body].steps.push_back(std::move(step));
      steps.push_back(WhileStep{&op, cond, body});
      return Status::ok();
    }
    BranchStep branch{&op, {}, {}};
    KILN_ASSIGN_OR_RETURN(branch.selector, slots.slotOf(op.operand(0)));
    for (const BufferAssignment& region : regions) {
      KILN_ASSIGN_OR_RETURN(size_t index, planRegion(region, slots, base, {}));
      if (unsupported.size() != before) continue;
      std::vector<CudaStep> out;
      copyAll(copiesInto(plan_.bodies[index].results), out);
      for (CudaStep& step : out) plan_.bodies[index].steps.push_back(std::move(step));
      branch.branches.push_back(index);
    }
    if (unsupported.size() == before) steps.push_back(std::move(branch));
    return Status::ok();
  }

  CudaPlan& plan_;
  std::string_view arch_[1];
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
  Planner planner(plan);
  std::vector<CudaStep> steps;
  std::vector<DeviceSlot> results;
  Status planned = planner.planBlock(assignment, slots, steps, results);
  // An op that cannot run (a while over tuples) may leave values with no
  // slot: it is the error to report.
  if (!planned.isOk() && planner.unsupported.empty()) return planned;
  plan.steps = std::move(steps);
  plan.results = std::move(results);
  for (const Value* result : body.terminator()->operands()) plan.resultTypes.push_back(result->type());
  const std::vector<Diagnostic>& unsupported = planner.unsupported;
  if (!options.dumpDir.empty()) {
    CudaCompilation dump{plan.kernels, plan.matmuls, {}, {}};
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

namespace {

// The integer in the bytes of a scalar of `type` (i1, or an integer).
int64_t scalarValue(const uint8_t* bytes, Type type) {
  Type element = type.isTensor() ? type.elementType() : type;
  if (element.isBool()) return bytes[0] != 0;
  unsigned width = element.storageBytes();
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, std::min<unsigned>(width, 8));
  if (element.isSignedInteger() && width < 8 && (bits >> (8 * width - 1) & 1)) bits |= ~uint64_t(0) << (8 * width);
  return static_cast<int64_t>(bits);
}

}  // namespace

Status runSteps(const CudaPlan& plan, const std::vector<CudaStep>& steps, StepRunner& runner) {
  auto read = [&](const DeviceSlot& slot, Type type) -> Expected<int64_t> {
    uint8_t bytes[8] = {};
    if (slot.bytes > 8 || slot.bytes == 0)
      return error("the cuda back end reads back a scalar of 1 to 8 bytes, not " + std::to_string(slot.bytes));
    KILN_RETURN_IF_ERROR(runner.read(slot, bytes));
    return scalarValue(bytes, type);
  };
  for (const CudaStep& step : steps) {
    if (const auto* launch = std::get_if<KernelLaunch>(&step)) {
      KILN_RETURN_IF_ERROR(runner.launch(*launch));
    } else if (const auto* call = std::get_if<MatmulCall>(&step)) {
      KILN_RETURN_IF_ERROR(runner.matmul(*call));
    } else if (const auto* solve = std::get_if<SolverCall>(&step)) {
      KILN_RETURN_IF_ERROR(runner.solve(*solve));
    } else if (const auto* copy = std::get_if<CopyStep>(&step)) {
      KILN_RETURN_IF_ERROR(runner.copy(*copy));
    } else if (const auto* check = std::get_if<HostCheck>(&step)) {
      KILN_RETURN_IF_ERROR(runner.check(*check));
    } else if (const auto* loop = std::get_if<WhileStep>(&step)) {
      const CudaBody& cond = plan.bodies[loop->cond];
      for (;;) {
        KILN_RETURN_IF_ERROR(runSteps(plan, cond.steps, runner));
        KILN_ASSIGN_OR_RETURN(int64_t go, read(cond.results.at(0), Type::i1()));
        if (!go) break;
        KILN_RETURN_IF_ERROR(runSteps(plan, plan.bodies[loop->body].steps, runner));
      }
    } else {
      const BranchStep& branch = std::get<BranchStep>(step);
      KILN_ASSIGN_OR_RETURN(int64_t selector, read(branch.selector, branch.op->operand(0)->type()));
      int64_t count = static_cast<int64_t>(branch.branches.size());
      size_t chosen = branch.op->name() == "stablehlo.if"  ? (selector ? 0 : 1)
                      : selector < 0 || selector >= count ? count - 1
                                                          : selector;
      KILN_RETURN_IF_ERROR(runSteps(plan, plan.bodies[branch.branches.at(chosen)].steps, runner));
    }
  }
  return Status::ok();
}

std::vector<const MatmulCall*> matmulCalls(const CudaPlan& plan) {
  std::vector<const MatmulCall*> calls(plan.matmuls.size(), nullptr);
  auto collect = [&](const std::vector<CudaStep>& steps) {
    for (const CudaStep& step : steps)
      if (const auto* call = std::get_if<MatmulCall>(&step)) calls.at(call->matmul) = call;
  };
  collect(plan.steps);
  for (const CudaBody& body : plan.bodies) collect(body.steps);
  return calls;
}

std::vector<const SolverCall*> solverCalls(const CudaPlan& plan) {
  std::vector<const SolverCall*> calls;
  auto collect = [&](const std::vector<CudaStep>& steps) {
    for (const CudaStep& step : steps)
      if (const auto* call = std::get_if<SolverCall>(&step)) calls.push_back(call);
  };
  collect(plan.steps);
  for (const CudaBody& body : plan.bodies) collect(body.steps);
  return calls;
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
