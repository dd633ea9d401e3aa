// interpreter.run_parallel (run_parallel.h): the kernel, the interpreter's
// runner, and the rendezvous that lets different functions meet.
#include <numeric>

#include "kiln/interp/interpreter_impl.h"
#include "kiln/interp/run_parallel.h"

namespace kiln::interp {
namespace {

// Set on the threads that run a run_parallel's programs: one inside them
// would start threads without end (a program that runs itself).
thread_local bool runningParallelProgram = false;

ParallelRunner& installedRunner() {
  static ParallelRunner runner;
  return runner;
}

using Results = Expected<std::vector<Tensor>>;

bool isCollective(const Operation& op) {
  static const char* const names[] = {"stablehlo.all_reduce",        "stablehlo.all_gather",
                                      "stablehlo.reduce_scatter",    "stablehlo.all_to_all",
                                      "stablehlo.collective_permute", "stablehlo.collective_broadcast"};
  for (const char* name : names)
    if (op.name() == name) return true;
  return false;
}

// The grid of function names `programs` spells: rows of symbols, all of one length.
Expected<std::vector<std::vector<std::string>>> readPrograms(OpEval& eval) {
  Attribute programs = eval.op.attr("programs");
  const char* form = "needs `programs`, a non-empty array of equally long arrays of functions (one row per "
                     "replica, one function per partition)";
  if (!programs || !programs.is(AttrKind::Array) || programs.arrayValue().empty()) return eval.error(form);
  std::vector<std::vector<std::string>> grid;
  for (const Attribute& row : programs.arrayValue()) {
    if (!row.is(AttrKind::Array) || row.arrayValue().empty()) return eval.error(form);
    grid.emplace_back();
    for (const Attribute& program : row.arrayValue()) {
      if (!program.is(AttrKind::SymbolRef) || program.symbolPath().empty()) return eval.error(form);
      grid.back().push_back(program.symbolPath().back());
    }
    if (grid.back().size() != grid.front().size()) return eval.error(form);
  }
  return grid;
}

// The infeed queue `infeed` spells: each function it names (without
// arguments) runs here once, in order, and its results are one element.
Expected<std::vector<std::vector<Tensor>>> readInfeed(OpEval& eval) {
  std::vector<std::vector<Tensor>> queue;
  Attribute infeed = eval.op.attr("infeed");
  if (!infeed) return queue;
  const char* form = "needs `infeed` to be an array of functions without arguments (each gives one element of "
                     "the infeed queue)";
  if (!infeed.is(AttrKind::Array)) return eval.error(form);
  for (const Attribute& element : infeed.arrayValue()) {
    if (!element.is(AttrKind::SymbolRef) || element.symbolPath().empty()) return eval.error(form);
    const std::string& name = element.symbolPath().back();
    const Operation* fn = eval.interp.module().lookupFunction(name);
    if (!fn) return eval.error("names @" + name + " in `infeed`, which is not a function of the module");
    if (!func::type(*fn).inputs().empty())
      return eval.error("names @" + name + " in `infeed`, which takes arguments (an element of the queue is what a "
                        "function without arguments returns)");
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> values, eval.interp.callFunction(name, {}, fn->loc()));
    queue.push_back(std::move(values));
  }
  return queue;
}

Results runParallel(OpEval& eval) {
  if (runningParallelProgram)
    return eval.error("runs inside a program of another run_parallel; run_parallel ops do not nest");
  KILN_ASSIGN_OR_RETURN(auto grid, readPrograms(eval));
  const Module& module = eval.interp.module();
  ParallelRun run{&module, int(grid.size()), int(grid.front().size()), {}, {}, {}};
  KILN_ASSIGN_OR_RETURN(run.infeed, readInfeed(eval));
  size_t next = 0;
  for (const auto& row : grid)
    for (const std::string& name : row) {
      const Operation* fn = module.lookupFunction(name);
      if (!fn) return eval.error("names @" + name + ", which is not a function of the module");
      size_t count = func::type(*fn).inputs().size();
      if (next + count > eval.operands.size())
        return eval.error("has " + std::to_string(eval.operands.size()) +
                          " operands, fewer than its programs take (@" + name + " takes " + std::to_string(count) +
                          " from operand " + std::to_string(next) + " on)");
      run.programs.push_back(name);
      run.args.emplace_back(eval.operands.begin() + next, eval.operands.begin() + next + count);
      next += count;
    }
  if (next != eval.operands.size())
    return eval.error("has " + std::to_string(eval.operands.size()) + " operands; its programs take " +
                      std::to_string(next));
  const ParallelRunner& runner = installedRunner();
  KILN_ASSIGN_OR_RETURN(std::vector<std::vector<Tensor>> perInstance,
                        runner ? runner(std::move(run)) : runParallelOnInterpreter(std::move(run)));
  std::vector<Tensor> results;
  for (auto& instanceResults : perInstance)
    for (Tensor& t : instanceResults) results.push_back(std::move(t));
  if (results.size() != eval.op.numResults())
    return eval.error("has " + std::to_string(eval.op.numResults()) + " results; its programs return " +
                      std::to_string(results.size()));
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].type() != eval.op.result(i)->type())
      return eval.error("result " + std::to_string(i) + " has type " + eval.op.result(i)->type().str() +
                        ", but its program returns " + results[i].type().str());
  return results;
}

}  // namespace

void setParallelRunner(ParallelRunner runner) { installedRunner() = std::move(runner); }

Expected<std::vector<std::vector<Tensor>>> runParallelOnInterpreter(ParallelRun run) {
  int numInstances = run.numReplicas * run.numPartitions;
  ProgramOrderRendezvous rendezvous(numInstances);
  rendezvous.setInfeed(std::move(run.infeed));
  std::vector<int> indices(numInstances);
  std::iota(indices.begin(), indices.end(), 0);
  auto results = runInstances(run.numReplicas, run.numPartitions, indices, rendezvous, [&](const Instance& instance) {
    Interpreter interp(*run.module, allKernels(), instance);
    bool outer = runningParallelProgram;
    runningParallelProgram = true;
    struct Restore {
      bool value;
      ~Restore() { runningParallelProgram = value; }
    } restore{outer};
    const std::string& name = run.programs[instance.index()];
    return interp.callFunction(name, std::move(run.args[instance.index()]),
                               run.module->lookupFunction(name)->loc());
  });
  if (results) KILN_RETURN_IF_ERROR(rendezvous.checkAllReceived());
  return results;
}

const Operation& ProgramOrderRendezvous::canonical(const Operation& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = canonical_.find(&op); it != canonical_.end()) return *it->second;
  Operation* fn = const_cast<Operation*>(&op);
  while (fn->parentOp() && fn->name() != "func.func") fn = fn->parentOp();
  int64_t index = 0;
  bool found = false;
  fn->walk([&](Operation& o) {
    if (&o == &op) found = true;
    if (!found && isCollective(o)) ++index;
  });
  const Operation* first = byIndex_.try_emplace(index, &op).first->second;
  canonical_[&op] = first;
  return *first;
}

Expected<std::vector<std::vector<Tensor>>> ProgramOrderRendezvous::exchange(const Operation& op, int64_t occurrence,
                                                                            int instance,
                                                                            std::vector<Tensor> operands) {
  return Rendezvous::exchange(canonical(op), occurrence, instance, std::move(operands));
}

void registerRunParallelKernel(KernelTable& t) { t["interpreter.run_parallel"] = runParallel; }

}  // namespace kiln::interp
