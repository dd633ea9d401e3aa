// Planning a function into a Program. Each op of a block becomes, in this
// order of preference:
//   - nothing at run time: constants (filled in before the steps run),
//     optimization_barrier (its results are its operands' slots);
//   - a structural step: tuple, get_tuple_element, after_all, reshape (a
//     view of its operand's bytes);
//   - a control-flow step whose regions are nested programs (while, if,
//     case) or a call of a function planned the same way (func.call, composite);
//   - a oneDNN call (dot_general, output fusions: onednn_dot.h; convolution:
//     onednn_conv.h);
//   - an emitted kernel (a kiln.fusion's body, or a single op of a kind the
//     elemental emitter has, codegen::isElementalOp, that it takes);
//   - a routine, for the ops routines.cpp lists (for `IfNotCompiled` entries
//     only when the forms above rejected the op);
//   - a kiln.fusion neither oneDNN nor the emitter takes runs its body op by
//     op, each inner op planned by these same rules.
// Anything else is a compile error naming the op and its location.
#include "kiln/backends/cpu/planner.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <span>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "kiln/backends/cpu/flat_loop.h"
#include "kiln/backends/cpu/jit.h"
#include "kiln/backends/cpu/onednn_conv.h"
#include "kiln/backends/cpu/routines.h"
#include "kiln/codegen/dot_dims.h"
#include "kiln/codegen/element_ops.h"
#include "kiln/interp/evaluate_op.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/fusion_util.h"
#include "kiln/passes/op_summary.h"
#include "kiln/support/trace.h"

namespace kiln::cpu {

// Slot numbering while one program is planned.
class Planner::Builder {
 public:
  explicit Builder(Program& program) : program(program) {}

  size_t slotOf(const Value* v) {
    auto [it, inserted] = slots_.emplace(v, program.numSlots);
    if (inserted) ++program.numSlots;
    return it->second;
  }
  // Makes `alias` read the slot of `v` (no copy at run time).
  void alias(const Value* alias, const Value* v) { slots_[alias] = slotOf(v); }

  Step& addStep(const Operation& op, StepKind kind) {
    Step step;
    step.kind = kind;
    step.op = &op;
    for (const Value* operand : op.operands()) step.inputs.push_back(slotOf(operand));
    for (unsigned i = 0; i < op.numResults(); ++i) {
      step.outputs.push_back(slotOf(op.result(i)));
      step.outputTypes.push_back(op.result(i)->type());
    }
    program.steps.push_back(std::move(step));
    return program.steps.back();
  }

  Program& program;

 private:
  std::map<const Value*, size_t> slots_;
};

namespace {

// Whether `op`, or an op in its body, reads or writes a tensor of no
// elements. oneDNN's primitives cannot take an empty dimension (making one
// divides by it: SIGFPE), so such dots and convolutions are planned as
// kernels or routines instead.
bool touchesEmptyTensor(const Operation& op) {
  auto empty = [](const Value* v) { return v->type().isTensor() && v->type().numElements() == 0; };
  for (const Value* operand : op.operands())
    if (empty(operand)) return true;
  for (unsigned i = 0; i < op.numResults(); ++i)
    if (empty(op.result(i))) return true;
  for (const auto& region : op.regions())
    for (const auto& block : region->blocks())
      for (const Operation& inner : *block)
        if (touchesEmptyTensor(inner)) return true;
  return false;
}

// A gather or a single-input scatter small enough to be a kernel
// (kMaxEmittedGatherScatter); the emitter may still decline its form.
bool isSmallGatherOrScatter(const Operation& op) {
  if (op.name() != "stablehlo.gather" && op.name() != "stablehlo.scatter") return false;
  if (op.numResults() != 1 || !op.result()->type().isTensor()) return false;
  return op.result()->type().numElements() <= kMaxEmittedGatherScatter;
}

bool isSplatConstant(const Value* v) {
  const Operation* def = v->definingOp();
  Attribute value = def && def->name() == "stablehlo.constant" ? def->attr("value") : Attribute();
  return value && value.is(AttrKind::DenseElements) && value.denseIsSplat();
}

// Per output of the kernel `plan` computing `op`, the input (an index into
// plan.inputs) whose memory the output may take at run time when it dies
// there (Step::inPlaceInputs), or -1: buffer assignment's rule
// (inPlaceCandidates), for a kernel that computes `op` from its operands
// themselves -- a fusion's kernel reading its operands in order, or a plain
// op's reading its operands less the splat constants in its code. A kernel
// that computes an operand of `op` from its inputs (a root of a split
// fusion) may read that input anywhere: nothing.
std::vector<int> inPlaceInputsOf(const Operation& op, const KernelPlan& plan) {
  std::vector<int> taken(plan.outputs.size(), -1);
  if (plan.outputs.size() != op.numResults()) return taken;
  std::vector<Value*> results = fusion::innerResults(op);
  if (plan.roots.size() != results.size()) return taken;
  for (unsigned i = 0; i < op.numResults(); ++i)
    if (plan.outputs[i] != op.result(i) || plan.roots[i] != results[i]) return taken;
  std::vector<int> inputOf(op.numOperands(), -1);
  if (fusion::isFusion(op)) {
    if (!std::ranges::equal(plan.inputs, op.operands())) return taken;
    for (unsigned j = 0; j < op.numOperands(); ++j) inputOf[j] = int(j);
  } else {
    if (plan.params != plan.inputs) return taken;
    for (unsigned j = 0; j < op.numOperands(); ++j) {
      auto at = std::ranges::find(plan.inputs, op.operand(j));
      if (at != plan.inputs.end()) inputOf[j] = int(at - plan.inputs.begin());
      else if (!isSplatConstant(op.operand(j))) return taken;
    }
  }
  for (unsigned i = 0; i < op.numResults(); ++i)
    for (unsigned j : inPlaceCandidates(op, i))
      if (inputOf[j] >= 0 && storageBytes(op.operand(j)->type()) == storageBytes(op.result(i)->type()) &&
          std::ranges::find(taken, inputOf[j]) == taken.end()) {
        taken[i] = inputOf[j];
        break;
      }
  return taken;
}

KernelPlan kernelPlanOf(const Operation& op) {
  KernelPlan plan;
  if (op.name() == "kiln.fusion") {
    const Block& body = op.region(0).front();
    for (const Value* arg : body.arguments()) plan.params.push_back(arg);
    for (const Value* root : body.terminator()->operands()) plan.roots.push_back(root);
    plan.inputs.assign(op.operands().begin(), op.operands().end());
  } else {
    plan.params.assign(op.operands().begin(), op.operands().end());
    plan.inputs = plan.params;
    for (unsigned i = 0; i < op.numResults(); ++i) plan.roots.push_back(op.result(i));
  }
  for (unsigned i = 0; i < op.numResults(); ++i) plan.outputs.push_back(op.result(i));
  return plan;
}

bool isTerminator(const Operation& op) { return op.def() && op.def()->has(kTerminator); }

// The values `op`'s regions use but do not define (StableHLO regions may
// read values of the enclosing blocks), in first-use order.
std::vector<const Value*> capturesOf(const Operation& op) {
  std::set<const Value*> defined;
  std::vector<const Operation*> nested;
  std::function<void(const Region&)> collect = [&](const Region& region) {
    for (const auto& block : region.blocks()) {
      for (const Value* arg : block->arguments()) defined.insert(arg);
      for (const Operation& inner : *block) {
        nested.push_back(&inner);
        for (unsigned i = 0; i < inner.numResults(); ++i) defined.insert(inner.result(i));
        for (const auto& r : inner.regions()) collect(*r);
      }
    }
  };
  for (const auto& region : op.regions()) collect(*region);
  std::vector<const Value*> captures;
  std::set<const Value*> seen;
  for (const Operation* inner : nested)
    for (const Value* operand : inner->operands())
      if (!defined.count(operand) && seen.insert(operand).second) captures.push_back(operand);
  return captures;
}

// The work of a kernel in elements: the largest of its outputs and of the
// inputs its reductions fold, or a dot's multiply-adds. An input read
// through an index mapping counts only as the elements it gives the output
// (a dynamic_slice of one step of a scan's inputs is one step's work, not
// the whole sequence's).
int64_t kernelWork(const KernelPlan& plan, const KernelForm& form) {
  int64_t work = dotMultiplyAdds(form);
  for (const Value* v : plan.outputs)
    if (v->type().isTensor()) work = std::max(work, v->type().numElements());
  std::set<const Operation*> seen;
  std::vector<const Value*> pending(plan.roots.begin(), plan.roots.end());
  while (!pending.empty()) {
    const Operation* op = pending.back()->definingOp();
    pending.pop_back();
    if (!op || !seen.insert(op).second) continue;
    bool folds = op->name() == "stablehlo.reduce" || op->name() == "stablehlo.reduce_window";
    for (const Value* operand : op->operands()) {
      if (folds && operand->type().isTensor()) work = std::max(work, operand->type().numElements());
      pending.push_back(operand);
    }
  }
  return work;
}

// The multiply-adds of a library call's dot or convolution (one of its own,
// or an output fusion's), or -1 when it has neither.
int64_t libraryMultiplyAdds(const Operation& op) {
  auto isDot = [](const Operation& o) { return o.name() == "stablehlo.dot_general" || o.name() == "stablehlo.dot"; };
  const Operation* dot = &op;
  if (op.name() == "kiln.fusion") {
    dot = nullptr;
    for (const Operation& inner : op.region(0).front())
      if (isDot(inner) || inner.name() == "stablehlo.convolution") dot = &inner;
  }
  if (dot && dot->name() == "stablehlo.convolution") return static_cast<int64_t>(opCost(*dot).flops / 2);
  if (!dot || !isDot(*dot)) return -1;
  Expected<DotDims> dims = dotDims(*dot);
  if (!dims) return -1;
  Type lhs = dot->operand(0)->type();
  int64_t k = 1;
  for (int64_t d : dims->lhsContracting) k *= lhs.shape()[static_cast<size_t>(d)];
  return dot->result(0)->type().numElements() * k;
}

// The bytes a kernel reads and writes at least: all of its inputs and outputs.
int64_t kernelBytes(const KernelPlan& plan) {
  int64_t bytes = 0;
  for (const auto* values : {&plan.inputs, &plan.outputs})
    for (const Value* v : *values)
      if (v->type().isTensor()) bytes += v->type().numElements() * v->type().elementType().storageBytes();
  return bytes;
}

// Fills in every step's lastReads: the slots no later step reads, that the
// program does not return and no output is computed into (a donated
// parameter). A slot nothing reads dies with the step defining it. Then
// each step's inputDiesHere.
void markLastReads(Program& program) {
  std::vector<size_t> lastStep(program.numSlots, SIZE_MAX);
  for (size_t s = 0; s < program.steps.size(); ++s) {
    for (size_t slot : program.steps[s].outputs) lastStep[slot] = s;
    for (size_t slot : program.steps[s].inputs) lastStep[slot] = s;
  }
  for (size_t slot : program.results) lastStep[slot] = SIZE_MAX;
  for (int p : program.donatedParameters) lastStep[size_t(p)] = SIZE_MAX;
  for (size_t slot = 0; slot < program.numSlots; ++slot)
    if (lastStep[slot] != SIZE_MAX) program.steps[lastStep[slot]].lastReads.push_back(slot);
  for (Step& step : program.steps) {
    step.inputDiesHere.assign(step.inputs.size(), false);
    for (size_t i = 0; i < step.inputs.size(); ++i)
      step.inputDiesHere[i] = std::ranges::count(step.lastReads, step.inputs[i]) == 1 &&
                              std::ranges::count(step.inputs, step.inputs[i]) == 1;
  }
}

}  // namespace

bool isStructuralOp(std::string_view op) {
  static const std::set<std::string_view> kStructural = {
      "stablehlo.constant", "stablehlo.optimization_barrier", "stablehlo.tuple",
      "stablehlo.get_tuple_element", "stablehlo.after_all",
      "stablehlo.while", "stablehlo.if", "stablehlo.case", "func.call", "stablehlo.composite",
      "kiln.fusion", "func.return", "stablehlo.return", "kiln.yield"};
  return kStructural.count(op) > 0;
}

Expected<std::unique_ptr<Program>> Planner::planFunction(const Operation& fn) {
  std::string name(func::name(fn));
  if (std::count(callStack_.begin(), callStack_.end(), name))
    return error(fn.loc(), "the cpu back end cannot compile recursive calls (@" + name + ")");
  callStack_.push_back(name);
  Block& body = func::body(fn);
  std::vector<Value*> args = body.arguments();
  std::vector<const Value*> params(args.begin(), args.end());
  auto program = planBlock(body, params);
  callStack_.pop_back();
  if (program) {
    placeInArena(body, **program);
    markLastReads(**program);
  }
  return program;
}

Expected<std::unique_ptr<Program>> Planner::planBlock(const Block& block,
                                                      const std::vector<const Value*>& params) {
  auto program = std::make_unique<Program>();
  Builder b(*program);
  for (const Value* param : params) {
    b.slotOf(param);
    program->paramTypes.push_back(param->type());
  }
  for (const Operation& op : block) {
    if (isTerminator(op)) {
      for (const Value* v : op.operands()) program->results.push_back(b.slotOf(v));
      continue;
    }
    KILN_RETURN_IF_ERROR(planOp(op, b));
  }
  // Constants no step reads (splats that became kernel code) are dropped.
  std::set<size_t> read(program->results.begin(), program->results.end());
  for (const Step& step : program->steps) read.insert(step.inputs.begin(), step.inputs.end());
  std::erase_if(program->constants, [&](const auto& constant) { return !read.count(constant.first); });
  return program;
}

namespace {

// The op of `block` that holds `op` (itself, or an ancestor whose region
// holds it), or null.
const Operation* topLevelOp(const Operation* op, const Block& block) {
  while (op && op->parentBlock() != &block) op = op->parentOp();
  return op;
}

}  // namespace

// Puts the function's intermediate values in one arena per run, where buffer
// assignment (passes/buffer_assignment.h) places them: the analysis reuses
// a dead value's memory for a later one (in place for elementwise updates),
// so a run touches the arena's few megabytes rather than fresh memory per
// value. Only the outputs of kernels and oneDNN calls go there, and only when
// everything reading them (through reshape views) is a kernel or oneDNN call
// too, which always write fresh memory: a returned value must outlive the
// run, and a routine, control flow, an optimization_barrier or a fusion run
// op by op may hand its operand's memory on as its own result, which the
// analysis, seeing a value of its own there, would let others overwrite.
void Planner::placeInArena(const Block& body, Program& program) {
  // Ops of `body` planned as a step (a fusion run op by op has steps for
  // its inner ops only, so it is not here).
  std::map<const Operation*, StepKind> kindOf;
  for (const Step& step : program.steps)
    if (step.op->parentBlock() == &body) kindOf[step.op] = step.kind;
  // Whether everything reading `v` (through views) writes fresh memory; with
  // `returnable`, the function may also return it.
  std::function<bool(const Value*, bool)> onlyWrittenFresh = [&](const Value* v, bool returnable) {
    for (const Use& use : v->uses()) {
      if (returnable && use.user == body.terminator()) continue;
      const Operation* user = topLevelOp(use.user, body);
      auto kind = user ? kindOf.find(user) : kindOf.end();
      if (kind == kindOf.end()) return false;
      if (kind->second == StepKind::View) {
        if (!onlyWrittenFresh(user->result(), returnable)) return false;
      } else if (kind->second != StepKind::Kernel && kind->second != StepKind::Library) {
        return false;
      }
    }
    return true;
  };
  BufferAssignment assignment = assignBuffers(body);
  int64_t arenaEnd = 0;
  std::set<int> donated;
  for (Step& step : program.steps) {
    if ((step.kind != StepKind::Kernel && step.kind != StepKind::Library) || step.op->parentBlock() != &body)
      continue;
    step.arenaOffsets.assign(step.outputs.size(), -1);
    step.intoParameters.assign(step.outputs.size(), -1);
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      const Value* v = step.op->result(i);
      auto it = assignment.bufferOf.find(v);
      if (it == assignment.bufferOf.end()) continue;
      const Buffer& buffer = assignment.buffers[it->second];
      int64_t bytes = storageBytes(v->type());
      if (buffer.kind == Buffer::Kind::Parameter && buffer.donated) {
        // The caller gave the argument away: results may be computed into
        // it (handed back without a copy) if nothing reading the argument
        // or the output might alias them.
        const Value* parameter = body.argument(unsigned(buffer.parameter));
        if (bytes <= storageBytes(parameter->type()) && onlyWrittenFresh(v, true) &&
            onlyWrittenFresh(parameter, false)) {
          step.intoParameters[i] = buffer.parameter;
          donated.insert(buffer.parameter);
          ++stats_.valuesInDonatedArguments;
        }
        continue;
      }
      if (buffer.kind != Buffer::Kind::Temp || buffer.offset < 0 || bytes > buffer.size || !onlyWrittenFresh(v, false))
        continue;
      step.arenaOffsets[i] = buffer.offset;
      arenaEnd = std::max(arenaEnd, buffer.offset + buffer.size);
      ++stats_.arenaValues;
    }
  }
  program.donatedParameters.assign(donated.begin(), donated.end());
  if (arenaEnd > 0) program.arena = Type::tensor({arenaEnd}, Type::integer(8));
  stats_.arenaBytes += arenaEnd;
}

Status Planner::planOp(const Operation& op, Builder& b) {
  const std::string& name = op.name();
  if (name == "stablehlo.constant") {
    KILN_ASSIGN_OR_RETURN(std::vector<interp::Tensor> value, interp::evaluateOp(op, {}));
    b.program.constants.emplace_back(b.slotOf(op.result()), std::move(value[0]));
    return Status::ok();
  }
  if (name == "stablehlo.optimization_barrier") {
    for (unsigned i = 0; i < op.numResults(); ++i) b.alias(op.result(i), op.operand(i));
    return Status::ok();
  }
  if (name == "stablehlo.tuple") return (b.addStep(op, StepKind::Tuple), Status::ok());
  if (name == "stablehlo.get_tuple_element") {
    Attribute index = op.attr("index");
    if (!index.is(AttrKind::Integer)) return unsupported(op, "without an integer index");
    b.addStep(op, StepKind::GetTupleElement).index = index.intValue();
    return Status::ok();
  }
  if (name == "stablehlo.after_all") return (b.addStep(op, StepKind::Token), Status::ok());
  // Storage is row-major, so a reshape is the same bytes under another type,
  // and so is a bitcast_convert between element types of whole bytes, which
  // buffer assignment counts as views alike (isViewOp; random_uniform's
  // bits-to-float step was a 64 MB copy).
  if (name == "stablehlo.reshape" && op.operand(0)->type().isTensor() && op.result()->type().isTensor())
    return (b.addStep(op, StepKind::View), Status::ok());
  if (name == "stablehlo.bitcast_convert" && isViewOp(op)) return (b.addStep(op, StepKind::View), Status::ok());
  if (name == "stablehlo.while") return planRegions(op, StepKind::While, b);
  if (name == "stablehlo.if") return planRegions(op, StepKind::If, b);
  if (name == "stablehlo.case") return planRegions(op, StepKind::Case, b);
  if (name == "func.call") return planCall(op, "callee", b);
  if (name == "stablehlo.composite") return planCall(op, "decomposition", b);
  // Other bodies (reduce, sort, scatter, ...) run on the op's operands
  // alone; the pipeline's sink_constants copied in the constants they read.
  if (op.numRegions() > 0)
    if (std::vector<const Value*> captures = capturesOf(op); !captures.empty())
      return unsupported(op, "whose body reads a value computed outside it, at run time");

  const RoutineEntry* routine = findRoutine(name);
  if (routine && routine->use == RoutineUse::Always) return (addRoutine(op, b), Status::ok());

  Status compiled = Status::ok();
  if ((isOnednnDot(op) || isOnednnConvolution(op)) && !touchesEmptyTensor(op)) {
    // The dot (with an output fusion's epilogue) as an emitted loop nest
    // (DotForm), where the emitter has one for it: first for dots
    // too small to pay for a library call, then for the element types
    // oneDNN has no matmul for (integers, f64).
    std::optional<KernelPlan> loops;
    if (isOnednnDot(op) && op.numResults() == 1 && (name == "kiln.fusion" || op.numOperands() == 2))
      if (KernelPlan plan = kernelPlanOf(op); std::holds_alternative<DotForm>(kernelFormOf(plan))) loops = std::move(plan);
    if (loops && dotMultiplyAdds(kernelFormOf(*loops)) < kMinLibraryDotWork) {
      if (tryKernel(op, *loops, b).isOk()) return Status::ok();
      loops.reset();  // the emitter declined it: no second try below
    }
    int64_t multiplyAdds = libraryMultiplyAdds(op);
    bool parallel = multiplyAdds < 0 || multiplyAdds >= kParallelLibraryWork;
    auto library = isOnednnConvolution(op) ? compileOnednnConvolution(op, parallel ? threads_ : 1)
                                           : compileOnednnDot(op, parallel ? threads_ : 1);
    if (library) {
      Step& step = b.addStep(op, StepKind::Library);
      step.library = std::move(*library);
      step.parallel = parallel;
      ++stats_.libraryCalls;
      stats_.tiledLibraryCalls += step.library->numTiles() > 0;
      return Status::ok();
    }
    compiled = Status(library.status().diag());
    if (loops && tryKernel(op, std::move(*loops), b).isOk()) return Status::ok();
    if (name == "kiln.fusion") return planInline(op, b);
  } else if (name == "kiln.fusion") {
    if (tryKernel(op, kernelPlanOf(op), b).isOk()) return Status::ok();
    return planInline(op, b);
  } else if (codegen::isElementalOp(name) || isSmallGatherOrScatter(op)) {
    KernelPlan plan;
    // A splat constant operand (x * 0.5 outside any fusion) is a value in
    // the kernel's code, not a tensor it reads.
    for (const Value* operand : op.operands())
      if (!isSplatConstant(operand)) plan.params.push_back(operand);
    for (unsigned i = 0; i < op.numResults(); ++i) plan.roots.push_back(op.result(i));
    plan.inputs = plan.params;
    plan.outputs = plan.roots;
    compiled = tryKernel(op, std::move(plan), b);
    if (compiled.isOk()) return Status::ok();
  } else {
    compiled = unsupported(op);
  }
  if (routine) return (addRoutine(op, b), Status::ok());
  return compiled;
}

Status Planner::tryKernel(const Operation& op, KernelPlan plan, Builder& b) {
  std::string fnName = "kernel" + std::to_string(stats_.kernels);
  // Row kernels (whose rows start at aligned offsets when their length
  // allows) and element loops (which align their main loop): their vector
  // stores are provably aligned.
  KernelForm form = kernelFormOf(plan);
  plan.streamOutputs = (std::holds_alternative<RowsForm>(form) || std::holds_alternative<ElementsForm>(form)) &&
                       kernelBytes(plan) >= hostLastLevelCacheBytes();
  Status emitted = [&] {
    trace::Scope scope("codegen", [&] { return "emit " + fnName + ": " + opLabel(op); });
    return emitKernel(plan, form, fnName, kernels_);
  }();
  if (!emitted.isOk()) {
    // The emitter may have stopped half-way through the functions.
    for (const std::string& partial : {fnName, fnName + ".streaming"})
      if (llvm::Function* fn = kernels_.getFunction(partial)) fn->eraseFromParent();
    return emitted;
  }
  Step& step = b.addStep(op, StepKind::Kernel);
  step.inputs.clear();  // the kernel's parameters, in order (splat constants are code)
  for (const Value* input : plan.inputs) step.inputs.push_back(b.slotOf(input));
  step.inPlaceInputs = inPlaceInputsOf(op, plan);
  stats_.inPlaceKernelOutputs += int(std::ranges::count_if(step.inPlaceInputs, [](int j) { return j >= 0; }));
  // A kernel whose results are all empty has nothing to do; it must not
  // run, since its loops may still read an operand's first element (a dot
  // of no rows has one row block) and an empty operand may have no memory
  // at all (a framework's empty tensor through DLPack is a null pointer).
  bool writesNothing = std::ranges::all_of(plan.outputs, [](const Value* v) { return v->type().numElements() == 0; });
  step.iterations = writesNothing ? 0 : kernelIterations(form);
  // An emitted dot splits across threads from the multiply-adds a oneDNN
  // dot does (an element of other kernels is a load, some arithmetic and a
  // store; a multiply-add a sixteenth of a vector FMA).
  step.parallel = step.iterations > 1 && (std::holds_alternative<DotForm>(form)
                                              ? dotMultiplyAdds(form) >= kParallelLibraryWork
                                              : kernelWork(plan, form) >= kParallelWorkThreshold);
  pending_.push_back({&b.program, b.program.steps.size() - 1, fnName});
  ++stats_.kernels;
  stats_.parallelKernels += step.parallel;
  stats_.rowKernels += std::holds_alternative<RowsForm>(form);
  stats_.columnKernels += std::holds_alternative<ColumnFoldForm>(form);
  stats_.streamingKernels += plan.streamOutputs;
  return Status::ok();
}

void Planner::addRoutine(const Operation& op, Builder& b) {
  Step& step = b.addStep(op, StepKind::Routine);
  step.routine = std::make_shared<const PreparedRoutine>(op);  // native or reference: decided once, here
  ++stats_.routines;
  stats_.routineOps.push_back(op.name() + " [" + step.routine->kind() + "]");
}

// A fusion whose kernel cannot be emitted runs its body op by op: the body's
// arguments read the fusion's operands, its results are the yielded values
// -- unless it splits into fewer steps (planProductThenEpilogue,
// planKernelPerRoot).
Status Planner::planInline(const Operation& fusion, Builder& b) {
  const Block& body = fusion.region(0).front();
  for (unsigned i = 0; i < body.numArguments(); ++i) b.alias(body.argument(i), fusion.operand(i));
  if (std::optional<Status> split = planProductThenEpilogue(fusion, b)) return std::move(*split);
  if (planKernelPerRoot(fusion, b)) return Status::ok();
  for (const Operation& op : body) {
    if (isTerminator(op)) {
      for (unsigned i = 0; i < op.numOperands(); ++i) b.alias(fusion.result(i), op.operand(i));
      continue;
    }
    KILN_RETURN_IF_ERROR(planOp(op, b));
  }
  ++stats_.fusionsRunOpByOp;
  return Status::ok();
}

// An output fusion whose library call could not take its epilogue (an SGD
// step's w - lr * conv, a convert to bf16, a complex result) runs the
// product alone and then, where the emitter takes it, the whole epilogue as
// one kernel instead of a kernel per op. Nothing when `fusion` is not a
// product followed by its epilogue.
std::optional<Status> Planner::planProductThenEpilogue(const Operation& fusion, Builder& b) {
  if (!fusion.attr("kind") || fusion.attr("kind").stringValue() != "output") return std::nullopt;
  const Block& body = fusion.region(0).front();
  std::vector<const Operation*> ops;
  for (const Operation& op : body)
    if (!isTerminator(op)) ops.push_back(&op);
  auto isProduct = [](const Operation* op) {
    return op->name() == "stablehlo.dot_general" || op->name() == "stablehlo.dot" ||
           op->name() == "stablehlo.convolution";
  };
  if (ops.size() < 2 || !isProduct(ops.front()) || std::any_of(ops.begin() + 1, ops.end(), isProduct))
    return std::nullopt;
  std::span<const Operation* const> epilogueOps(ops.begin() + 1, ops.end());
  std::set<const Value*> inside;
  for (const Operation* op : epilogueOps)
    for (unsigned i = 0; i < op->numResults(); ++i) inside.insert(op->result(i));
  KernelPlan epilogue;
  for (const Operation* op : epilogueOps)
    for (const Value* operand : op->operands())
      if (!inside.count(operand) && std::ranges::find(epilogue.params, operand) == epilogue.params.end())
        epilogue.params.push_back(operand);
  epilogue.inputs = epilogue.params;
  for (const Value* root : body.terminator()->operands()) {
    if (!inside.count(root)) return std::nullopt;  // the product itself is yielded too
    epilogue.roots.push_back(root);
  }
  for (unsigned i = 0; i < fusion.numResults(); ++i) epilogue.outputs.push_back(fusion.result(i));

  KILN_RETURN_IF_ERROR(planOp(*ops.front(), b));
  if (tryKernel(fusion, std::move(epilogue), b).isOk()) {
    ++stats_.splitOutputFusions;
    return Status::ok();
  }
  for (const Operation* op : epilogueOps) KILN_RETURN_IF_ERROR(planOp(*op, b));
  for (unsigned i = 0; i < fusion.numResults(); ++i) b.alias(fusion.result(i), body.terminator()->operand(i));
  ++stats_.fusionsRunOpByOp;
  return Status::ok();
}

// A multi-output fusion the emitter cannot take whole (a column reduce next
// to an output of the full shape that reads it: batch norm's mean and
// normalized activations) as one kernel per yielded value, in body order,
// each reading the values yielded before it instead of recomputing them --
// if the emitter takes every one of them (probed in a scratch module first,
// so a refusal leaves nothing behind); else false.
bool Planner::planKernelPerRoot(const Operation& fusion, Builder& b) {
  const Block& body = fusion.region(0).front();
  const Operation* yield = body.terminator();
  std::map<const Operation*, size_t> position;
  for (const Operation& op : body) position.emplace(&op, position.size());
  std::vector<std::pair<size_t, const Value*>> roots;
  for (const Value* root : yield->operands()) {
    const Operation* def = root->definingOp();
    if (!def || !position.count(def) || def->numResults() != 1) return false;
    roots.emplace_back(position[def], root);
  }
  if (roots.size() < 2) return false;
  std::sort(roots.begin(), roots.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<Value*> args = body.arguments();
  std::set<const Value*> available(args.begin(), args.end());
  std::vector<KernelPlan> plans;
  for (const auto& [unused, root] : roots) {
    if (available.count(root)) continue;  // yielded twice
    KernelPlan plan;
    plan.roots = {root};
    plan.outputs = {root};
    std::set<const Value*> seen;
    std::vector<const Value*> work = {root};
    while (!work.empty()) {
      const Value* v = work.back();
      work.pop_back();
      if (!seen.insert(v).second) continue;
      if (v != root && available.count(v)) {
        plan.params.push_back(v);
        continue;
      }
      const Operation* def = v->definingOp();
      if (!def) return false;
      for (const Value* operand : def->operands()) work.push_back(operand);
    }
    plan.inputs = plan.params;
    available.insert(root);
    plans.push_back(std::move(plan));
  }
  llvm::Module probe("kiln_probe", kernels_.getContext());
  probe.setDataLayout(kernels_.getDataLayout());
  probe.setTargetTriple(kernels_.getTargetTriple());
  for (size_t i = 0; i < plans.size(); ++i)
    if (!emitKernel(plans[i], kernelFormOf(plans[i]), "probe" + std::to_string(i), probe).isOk()) return false;
  for (KernelPlan& plan : plans) {
    const Operation& rootOp = *plan.roots[0]->definingOp();
    if (!tryKernel(rootOp, std::move(plan), b).isOk()) return false;  // (unreachable: probed above)
  }
  for (unsigned i = 0; i < fusion.numResults(); ++i) b.alias(fusion.result(i), yield->operand(i));
  ++stats_.fusionsSplitByRoot;
  return true;
}

// while / if / case: each region becomes a program whose parameters are the
// region's block arguments and then the op's captures.
Status Planner::planRegions(const Operation& op, StepKind kind, Builder& b) {
  std::vector<const Value*> captures = capturesOf(op);
  std::vector<std::unique_ptr<Program>> regions;
  for (const auto& region : op.regions()) {
    if (region->numBlocks() != 1) return unsupported(op, "with a region of several blocks");
    const Block& block = region->front();
    std::vector<Value*> args = block.arguments();
    std::vector<const Value*> params(args.begin(), args.end());
    params.insert(params.end(), captures.begin(), captures.end());
    ++regionDepth_;
    auto program = planBlock(block, params);
    --regionDepth_;
    if (!program) return program.takeStatus();
    placeInArena(block, **program);  // each run of the region (a loop trip) takes one arena
    markLastReads(**program);
    regions.push_back(std::move(*program));
  }
  if (regions.empty()) return unsupported(op, "without regions");
  Step& step = b.addStep(op, kind);
  for (const Value* capture : captures) step.inputs.push_back(b.slotOf(capture));
  step.numCaptures = captures.size();
  step.regions = std::move(regions);
  if (kind == StepKind::While && flatLoops_ && (step.flatLoop = flattenLoop(step))) {
    ++stats_.flatLoops;
    stats_.loopVariablesInPlace += int(step.flatLoop->inPlaceVariables);
    stats_.loopWeightsPacked += int(step.flatLoop->packedWeights);
    if (int64_t trips = knownTripCount(op); trips >= 0 && regionDepth_ == 0) {
      OpCost trip;
      for (const auto& region : op.regions())
        for (const Operation& inner : region->front()) {
          OpCost cost = opCost(inner);
          trip.flops += cost.flops;
          trip.bytes += cost.bytes;
        }
      ++stats_.boundedLoops;
      stats_.boundedLoopFlops += double(trips) * trip.flops;
      stats_.boundedLoopBytes += double(trips) * trip.bytes;
    }
  }
  ++stats_.controlFlow;
  return Status::ok();
}

Status Planner::planCall(const Operation& op, std::string_view symbolAttr, Builder& b) {
  Attribute callee = op.attr(symbolAttr);
  if (!callee.is(AttrKind::SymbolRef) || callee.symbolPath().size() != 1)
    return unsupported(op, "without a flat symbol `" + std::string(symbolAttr) + "`");
  const Operation* fn = lowered_.lookupFunction(callee.symbolPath()[0]);
  if (!fn) return error(op.loc(), "'" + op.name() + "' calls @" + callee.symbolPath()[0] + ", which is not defined");
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Program> program, planFunction(*fn));
  Step& step = b.addStep(op, StepKind::Call);
  step.regions.push_back(std::move(program));
  ++stats_.controlFlow;
  return Status::ok();
}

}  // namespace kiln::cpu
