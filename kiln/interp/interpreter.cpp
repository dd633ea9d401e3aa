// The interpreter's evaluation loop: functions and regions are run op by op,
// each op dispatched to its kernel (see docs/interpreter.md).
#include "kiln/interp/interpreter.h"

#include <exception>

#include "kiln/interp/interpreter_impl.h"
#include "kiln/ir/memory_limit.h"
#include "kiln/ir/op_registry.h"
#include "kiln/support/stack_space.h"

namespace kiln::interp {
namespace {

// Deep enough for real programs; catches runaway recursion through func.call
// before it exhausts the thread's stack.
constexpr int kMaxCallDepth = 256;

// func.return, stablehlo.return, kiln.yield: the registry marks them.
bool isRegionTerminator(const Operation& op) { return op.def() && op.def()->has(kReturnLike); }

// Gives a variable a value for the extent of a scope, also when an exception
// unwinds through it.
template <typename T>
class ScopedValue {
 public:
  ScopedValue(T& variable, T value) : variable_(variable), saved_(variable) { variable_ = value; }
  ~ScopedValue() { variable_ = saved_; }
  ScopedValue(const ScopedValue&) = delete;
  ScopedValue& operator=(const ScopedValue&) = delete;

 private:
  T& variable_;
  T saved_;
};

}  // namespace

const KernelTable& allKernels() {
  static const KernelTable table = [] {
    KernelTable t;
    registerControlFlowKernels(t);
    registerCollectiveKernels(t);
    registerElementwiseKernels(t);
    registerChloKernels(t);
    registerDataMovementKernels(t);
    registerReductionKernels(t);
    registerLinalgKernels(t);
    registerMiscKernels(t);
    registerCheckKernels(t);
    registerFusionKernels(t);
    registerRunParallelKernel(t);
    return t;
  }();
  return table;
}

// --- OpEval -----------------------------------------------------------------

Expected<std::vector<Tensor>> OpEval::runRegion(unsigned i, std::vector<Tensor> args) {
  if (i >= op.numRegions()) return error("has no region #" + std::to_string(i));
  return interp.runRegion(op.region(i), std::move(args));
}

Status OpEval::error(std::string message) const {
  return kiln::error(op.loc(), "'" + op.name() + "' op " + message);
}

int OpEval::replicaId() const { return interp.instance().replicaId; }
int OpEval::partitionId() const { return interp.instance().partitionId; }

// --- Interpreter ------------------------------------------------------------

const Tensor* Interpreter::Frame::lookup(const Value* v) const {
  for (const Frame* f = this; f; f = f->parent) {
    auto it = f->plan->slotOf.find(v);
    if (it == f->plan->slotOf.end()) continue;
    // Defined by this activation's block, so no enclosing one can hold it.
    return it->second < f->values.size() ? &f->values[it->second] : nullptr;
  }
  return nullptr;
}

const Interpreter::BlockPlan& Interpreter::planFor(const Block& block) {
  auto [it, isNew] = plans_.try_emplace(&block);
  BlockPlan& plan = it->second;
  if (!isNew) return plan;
  for (unsigned i = 0; i < block.numArguments(); ++i)
    plan.slotOf[block.argument(i)] = plan.numSlots++;
  for (const Operation& op : block) {
    for (unsigned i = 0; i < op.numResults(); ++i) plan.slotOf[op.result(i)] = plan.numSlots++;
    auto kernel = kernels_.find(op.name());
    plan.kernels.push_back(kernel == kernels_.end() ? nullptr : &kernel->second);
  }
  return plan;
}

Expected<std::vector<Tensor>> Interpreter::callFunction(std::string_view name,
                                                        std::vector<Tensor> args,
                                                        Location callSite) {
  const Operation* fn = module_.lookupFunction(name);
  if (!fn) return error(callSite, "no function named '@" + std::string(name) + "'");
  if (fn->numRegions() != 1 || fn->region(0).empty())
    return error(fn->loc(), "function '@" + std::string(name) + "' has no body");
  std::span<const Type> params = func::type(*fn).inputs();
  if (args.size() != params.size())
    return error(callSite, "function '@" + std::string(name) + "' takes " +
                               std::to_string(params.size()) + " arguments, got " +
                               std::to_string(args.size()));
  for (size_t i = 0; i < params.size(); ++i)
    if (args[i].type() != params[i])
      return error(callSite, "argument #" + std::to_string(i) + " of '@" + std::string(name) +
                                 "' must be " + params[i].str() + ", got " + args[i].type().str());
  if (callDepth_ >= kMaxCallDepth)
    return error(callSite,
                 "call depth exceeds " + std::to_string(kMaxCallDepth) + " (unbounded recursion?)");
  ScopedValue<int> depth(callDepth_, callDepth_ + 1);
  // A function body sees no values from its caller.
  ScopedValue<const Frame*> noCaller(currentFrame_, nullptr);
  return runRegion(fn->region(0), std::move(args));
}

Expected<std::vector<Tensor>> Interpreter::runRegion(const Region& region,
                                                     std::vector<Tensor> args) {
  Operation* owner = region.parentOp();
  Location loc = owner ? owner->loc() : Location::unknown();
  if (region.numBlocks() != 1)
    return error(loc, "the interpreter runs regions of exactly one block, this one has " +
                          std::to_string(region.numBlocks()));
  const Block& block = region.front();
  // Regions in regions and calls in them recurse here: stop while the stack
  // still has room (inlining is not the interpreter's, so nesting is unbounded).
  if (stackSpaceLeft() < kStackReserveBytes)
    return error(loc, "regions and calls nested too deeply for this thread's stack");
  if (args.size() != block.numArguments())
    return error(loc, "region takes " + std::to_string(block.numArguments()) + " arguments, got " +
                          std::to_string(args.size()));
  // The arguments fill the first slots.
  Frame frame{&planFor(block), std::move(args), currentFrame_};
  frame.values.reserve(frame.plan->numSlots);
  return runBlock(block, frame);
}

Expected<std::vector<Tensor>> Interpreter::runBlock(const Block& block, Frame& frame) {
  auto kernel = frame.plan->kernels.begin();
  for (const Operation& op : block) {
    if (isRegionTerminator(op)) {
      std::vector<Tensor> results;
      for (const Value* v : op.operands()) {
        const Tensor* t = frame.lookup(v);
        if (!t)
          return error(op.loc(), "'" + op.name() + "' op returns a value that was never computed");
        results.push_back(*t);
      }
      return results;
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, evaluate(op, *kernel++, frame));
    // evaluate checked the count: the results fill the op's slots in order.
    for (Tensor& result : results) frame.values.push_back(std::move(result));
  }
  Operation* owner = block.parentOp();
  return error(owner ? owner->loc() : Location::unknown(), "region ends without a return op");
}

Expected<std::vector<Tensor>> Interpreter::evaluate(const Operation& op, const Kernel* kernel,
                                                    const Frame& frame) {
  if (!kernel) {
    // Deprecated ops have no kernel of their own: the legalize pass, which
    // every back end runs first, rewrites them into the ops that replace them.
    if (op.def() && op.def()->has(kLegalized))
      return error(op.loc(), "'" + op.name() + "' op is deprecated: run the legalize pass first (as the back ends do)");
    return error(op.loc(), "the interpreter does not support op '" + op.name() + "'");
  }

  OpEval eval{op, {}, *this};
  eval.operands.reserve(op.numOperands());
  for (const Value* v : op.operands()) {
    const Tensor* t = frame.lookup(v);
    if (!t)
      return eval.error("uses a value that has not been computed (IR not in dominance order?)");
    eval.operands.push_back(*t);
  }

  // Regions the kernel runs nest in this op's activation.
  ScopedValue<const Frame*> enclosing(currentFrame_, &frame);
  // Kernels report errors as values; an exception escaping one (allocation
  // failure, a bug) still becomes an error at the op rather than a crash.
  Expected<std::vector<Tensor>> results = [&]() -> Expected<std::vector<Tensor>> {
    try {
      return (*kernel)(eval);
    } catch (const std::exception& e) {
      return eval.error(std::string("failed: ") + e.what());
    }
  }();
  if (!results) {
    Status s = results.takeStatus();
    if (!s.diag().loc.known()) s.diag().loc = op.loc();
    return s;
  }
  if (results->size() != op.numResults())
    return eval.error("kernel produced " + std::to_string(results->size()) + " results, expected " +
                      std::to_string(op.numResults()));
  return results;
}

// --- Entry points -----------------------------------------------------------

// The most instances (replicas x partitions) a module may declare: a run in
// one process gives each its own thread, and the counts are int (docs/limits.md).
constexpr int64_t kMaxInstances = 4096;

Expected<InterpreterOptions> declaredInstances(const Module& module) {
  auto count = [&](std::string_view name) {
    Attribute a = module.op().attr(name);
    return a.is(AttrKind::Integer) ? a.intValue() : int64_t{1};
  };
  int64_t replicas = count("mhlo.num_replicas"), partitions = count("mhlo.num_partitions");
  if (replicas < 1 || partitions < 1)
    return error(module.op().loc(), "mhlo.num_replicas and mhlo.num_partitions must be at least 1, the module says " +
                                        std::to_string(replicas) + " and " + std::to_string(partitions));
  if (replicas > kMaxInstances || partitions > kMaxInstances || replicas * partitions > kMaxInstances)
    return error(module.op().loc(), "the module declares " + std::to_string(replicas) + " replica(s) x " +
                                        std::to_string(partitions) + " partition(s); kiln runs at most " +
                                        std::to_string(kMaxInstances) + " instances");
  return InterpreterOptions{static_cast<int>(replicas), static_cast<int>(partitions)};
}

Expected<std::vector<std::vector<Tensor>>> runFunctionOnInstances(
    const Module& module, std::string_view name, std::vector<std::vector<Tensor>> argsPerInstance,
    const InterpreterOptions& options) {
  if (argsPerInstance.size() != size_t(options.numReplicas) * size_t(options.numPartitions))
    return error(ErrorCode::InvalidArgument, std::to_string(argsPerInstance.size()) +
                                                 " argument lists for " + std::to_string(options.numReplicas) +
                                                 " replica(s) x " + std::to_string(options.numPartitions) +
                                                 " partition(s)");
  // A value larger than the memory is an error before anything runs.
  KILN_RETURN_IF_ERROR(checkValuesFitMemory(module, name));
  return runAllInstances(options.numReplicas, options.numPartitions, [&](const Instance& instance) {
    Interpreter interp(module, allKernels(), instance);
    return interp.callFunction(name, std::move(argsPerInstance[instance.index()]), module.op().loc());
  });
}

Expected<std::vector<std::vector<Tensor>>> runFunctionOnAllInstances(
    const Module& module, std::string_view name, std::vector<Tensor> args,
    const InterpreterOptions& options) {
  if (options.numReplicas < 1 || options.numPartitions < 1)
    return error("numReplicas and numPartitions must be at least 1");
  std::vector<std::vector<Tensor>> argsPerInstance(size_t(options.numReplicas) * options.numPartitions, args);
  return runFunctionOnInstances(module, name, std::move(argsPerInstance), options);
}

Expected<std::vector<Tensor>> runFunction(const Module& module, std::string_view name,
                                          std::vector<Tensor> args,
                                          const InterpreterOptions& options) {
  KILN_ASSIGN_OR_RETURN(auto all,
                        runFunctionOnAllInstances(module, name, std::move(args), options));
  return std::move(all.front());
}

}  // namespace kiln::interp
