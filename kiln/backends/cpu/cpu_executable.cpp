// The cpu back end's executable: runs the "cpu" pass pipeline on a copy of
// the module, plans the entry function into a Program (planner.cpp), JIT
// compiles the kernels planned into one LLVM module (jit.cpp), and runs the
// program (program.cpp) on a thread pool. Also the in-memory compile cache.
#include "kiln/backends/cpu/cpu_executable.h"

#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>

#include "kiln/backends/cpu/host_isa.h"
#include "kiln/backends/cpu/jit.h"
#include "kiln/backends/cpu/planner.h"
#include "kiln/backends/cpu/program.h"
#include "kiln/collectives/shared_memory.h"
#include "kiln/interp/interpreter.h"
#include "kiln/ir/memory_limit.h"
#include "kiln/ir/printer.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/pass.h"
#include "kiln/support/thread_pool.h"
#include "kiln/support/trace.h"

namespace kiln::cpu {

struct CpuExecutable::Impl {
  std::unique_ptr<Module> lowered;  // the ops steps point to
  std::unique_ptr<KernelJit> jit;   // owns the kernels' code
  std::unique_ptr<Program> program;
  // Each run (each instance of a multi-instance run) leases a pool of this
  // many threads: the options' count, else its instances' share of the cores.
  int threadsPerRun = 1;
  interp::InterpreterOptions instances;  // the replicas x partitions the module declares
  CpuCompileStats stats;
  std::string optimizedText;
};

namespace {

// The "cpu" pass pipeline, less constant_fold when options.foldConstants is
// off; pass dumps go to options.dumpDir with the LLVM ones.
Expected<PassManager> cpuPipeline(const CpuCompileOptions& options) {
  PassManagerOptions passOptions;
  passOptions.dumpDir = options.dumpDir;
  if (options.foldConstants) return namedPipeline("cpu", passOptions);
  KILN_ASSIGN_OR_RETURN(PassManager named, namedPipeline("cpu"));
  std::string passes;
  for (const std::string& name : named.passNames())
    if (name != "constant_fold") passes += (passes.empty() ? "" : ",") + name;
  return parsePassList(passes, passOptions);
}

}  // namespace

CpuExecutable::CpuExecutable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CpuExecutable::~CpuExecutable() = default;
const CpuCompileStats& CpuExecutable::stats() const { return impl_->stats; }
const std::string& CpuExecutable::optimizedModuleText() const { return impl_->optimizedText; }
std::string CpuExecutable::optimizedModuleTextWithLocations() const {
  return printModule(*impl_->lowered, {.debugInfo = true});
}

Expected<std::unique_ptr<CpuExecutable>> compileForCpu(const Module& module, std::string_view entry,
                                                       const CpuCompileOptions& options) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  trace::Scope compileSlice("compile", [&] { return "compile @" + std::string(entry) + " for cpu"; });
  auto impl = std::make_unique<CpuExecutable::Impl>();
  KILN_ASSIGN_OR_RETURN(impl->instances, interp::declaredInstances(module));
  // The instruction sets the code may use, fixed for the process before
  // the first kernel or oneDNN primitive is made.
  KILN_RETURN_IF_ERROR(checkCpuMaxIsaFlag());
  cpuIsa();
  // custom_call routines run the interpreter's kernels: a target it lacks
  // fails here, at compile time.
  KILN_RETURN_IF_ERROR(interp::checkCustomCallTargets(module, entry));
  // A value larger than the memory fails here, not in the pipeline's folding or the run.
  KILN_RETURN_IF_ERROR(checkValuesFitMemory(module, entry));
  impl->lowered = std::make_unique<Module>(module.op().clone());
  KILN_ASSIGN_OR_RETURN(PassManager pipeline, cpuPipeline(options));
  {
    trace::Scope slice("compile", "cpu pass pipeline");
    KILN_RETURN_IF_ERROR(pipeline.run(*impl->lowered));
  }
  const Operation* fn = impl->lowered->lookupFunction(entry);
  if (!fn) return error(ErrorCode::NotFound, "no function @" + std::string(entry) + " to compile");
  // The most memory a run holds at once, as buffer assignment places the
  // buffers, must fit too: checked before any code is generated.
  KILN_RETURN_IF_ERROR(checkBytesFitMemory(assignBuffers(func::body(*fn)).peakBytes,
                                           "a run of @" + std::string(entry) + " (its buffers live at once)",
                                           fn->loc()));
  impl->optimizedText = printModule(*impl->lowered);
  auto pipelineDone = Clock::now();
  impl->stats.pipelineSeconds = std::chrono::duration<double>(pipelineDone - start).count();

  KILN_ASSIGN_OR_RETURN(std::unique_ptr<KernelJit> jit, KernelJit::create());
  int numInstances = impl->instances.numReplicas * impl->instances.numPartitions;
  impl->threadsPerRun =
      options.numThreads > 0 ? options.numThreads : std::max(1, ThreadPool::defaultSize() / numInstances);
  Planner planner(*impl->lowered, jit->module(), impl->stats, impl->threadsPerRun, options.flatLoops);
  {
    trace::Scope slice("codegen", "plan steps and emit kernels");
    KILN_ASSIGN_OR_RETURN(impl->program, planner.planFunction(*fn));
  }
  JitOptions jitOptions;
  jitOptions.dumpDir = options.dumpDir;
  jitOptions.moduleName = std::string(entry);
  jitOptions.cacheDir = options.cacheDir;
  jitOptions.threads = options.numThreads > 0 ? options.numThreads : ThreadPool::defaultSize();
  {
    trace::Scope slice("codegen", "LLVM: compile and link");
    KILN_RETURN_IF_ERROR(jit->finalize(jitOptions));
  }
  impl->stats.loadedFromDiskCache = jit->loadedFromCache();
  impl->stats.codegenParts = jit->compiledParts();
  for (const PendingKernel& kernel : planner.pendingKernels()) {
    KILN_ASSIGN_OR_RETURN(void* address, jit->lookup(kernel.name));
    kernel.program->steps[kernel.step].fn = reinterpret_cast<KernelFn>(address);
  }
  impl->jit = std::move(jit);
  impl->stats.codegenSeconds = std::chrono::duration<double>(Clock::now() - pipelineDone).count();
  return std::make_unique<CpuExecutable>(std::move(impl));
}

Expected<std::vector<interp::Tensor>> CpuExecutable::run(std::vector<interp::Tensor> args) const {
  trace::Scope slice("run", "run on cpu");
  if (numInstances() == 1) {
    KILN_RETURN_IF_ERROR(checkArguments(args));
    return runProgram(*impl_->program, std::move(args), *ThreadPool::lease(impl_->threadsPerRun));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<std::vector<interp::Tensor>> all, runOnAllInstances(std::move(args)));
  return std::move(all.front());
}

Expected<std::vector<interp::Tensor>> CpuExecutable::runProfiled(std::vector<interp::Tensor> args,
                                                                std::vector<StepProfile>& profile) const {
  if (numInstances() != 1)
    return error(ErrorCode::Unimplemented, "profiling runs one instance; the module declares several");
  KILN_RETURN_IF_ERROR(checkArguments(args));
  trace::Scope slice("run", "run on cpu (timing each step)");
  StepTimes times;
  auto results = runProgram(*impl_->program, std::move(args), *ThreadPool::lease(impl_->threadsPerRun), {}, &times);
  // Entries in program order: the function's steps, each followed by its regions'.
  size_t next = 0;
  std::function<void(const Program&, int)> collect = [&](const Program& program, int depth) {
    for (const Step& step : program.steps) {
      if (next == profile.size()) profile.push_back({step.op, stepKindName(step), depth, 0, 0});
      StepProfile& entry = profile[next++];
      if (auto it = times.byStep.find(&step); it != times.byStep.end()) {
        entry.calls += it->second.first;
        entry.seconds += it->second.second;
      }
      for (const auto& region : step.regions) collect(*region, depth + 1);
    }
  };
  collect(*impl_->program, 0);
  return results;
}

Expected<std::vector<std::vector<interp::Tensor>>> CpuExecutable::runOnAllInstances(
    std::vector<interp::Tensor> args) const {
  return runInstances(std::vector<std::vector<interp::Tensor>>(numInstances(), args));
}

Expected<std::vector<std::vector<interp::Tensor>>> CpuExecutable::runInstances(
    std::vector<std::vector<interp::Tensor>> argsPerInstance) const {
  const interp::InterpreterOptions& grid = impl_->instances;
  if (argsPerInstance.size() != size_t(numInstances()))
    return error(ErrorCode::InvalidArgument, std::to_string(argsPerInstance.size()) + " argument lists for " +
                                                 std::to_string(grid.numReplicas) + " replica(s) x " +
                                                 std::to_string(grid.numPartitions) + " partition(s)");
  for (size_t i = 0; i < argsPerInstance.size(); ++i)
    if (Status s = checkArguments(argsPerInstance[i]); !s.isOk()) {
      if (argsPerInstance.size() > 1) s.diag().message = "instance " + std::to_string(i) + ": " + s.diag().message;
      return s;
    }
  // The instances are threads of this process: collectives go through shared memory.
  collectives::SharedMemoryWorld world(numInstances());
  return interp::runAllInstances(grid.numReplicas, grid.numPartitions, [&](const interp::Instance& instance) {
    if (trace::enabled())  // each instance runs on a thread of its own: its track
      trace::setThreadName("replica " + std::to_string(instance.replicaId) + " partition " +
                           std::to_string(instance.partitionId));
    std::shared_ptr<ThreadPool> pool = ThreadPool::lease(impl_->threadsPerRun);
    interp::Instance member = instance;
    member.communicator = &world.member(instance.index());
    world.setThreads(instance.index(), pool.get());  // its large reductions use its threads
    auto results = runProgram(*impl_->program, std::move(argsPerInstance[instance.index()]), *pool, member);
    world.memberExited(instance.index());
    return results;
  });
}

Expected<std::vector<std::vector<interp::Tensor>>> CpuExecutable::runSomeInstances(
    std::span<const int> indices, std::vector<std::vector<interp::Tensor>> argsPerInstance,
    std::span<collectives::Communicator* const> communicators, interp::Rendezvous& rendezvous,
    const std::function<void(size_t k, bool failed)>& exited) const {
  const interp::InterpreterOptions& grid = impl_->instances;
  if (argsPerInstance.size() != indices.size() || communicators.size() != indices.size())
    return error(ErrorCode::InvalidArgument, std::to_string(indices.size()) + " instance(s), " +
                                                 std::to_string(argsPerInstance.size()) + " argument list(s) and " +
                                                 std::to_string(communicators.size()) + " communicator(s)");
  std::map<int, size_t> position;  // instance index -> k
  for (size_t k = 0; k < indices.size(); ++k) {
    if (indices[k] < 0 || indices[k] >= numInstances())
      return error(ErrorCode::InvalidArgument, "instance " + std::to_string(indices[k]) + " of " +
                                                   std::to_string(numInstances()));
    position[indices[k]] = k;
    if (Status s = checkArguments(argsPerInstance[k]); !s.isOk()) {
      s.diag().message = "instance " + std::to_string(indices[k]) + ": " + s.diag().message;
      return s;
    }
  }
  // The first instance to fail holds the root cause: record it before
  // `exited` lets its peers fail too (they may then finish first).
  std::mutex failureMutex;
  std::optional<Diagnostic> rootCause;
  auto all = interp::runInstances(
      grid.numReplicas, grid.numPartitions, indices, rendezvous, [&](const interp::Instance& instance) {
        if (trace::enabled())  // each instance runs on a thread of its own: its track
          trace::setThreadName("replica " + std::to_string(instance.replicaId) + " partition " +
                               std::to_string(instance.partitionId));
        size_t k = position.at(instance.index());
        interp::Instance member = instance;
        member.communicator = communicators[k];
        auto results = runProgram(*impl_->program, std::move(argsPerInstance[k]),
                                  *ThreadPool::lease(impl_->threadsPerRun), member);
        // Its sends must reach their receivers before its connections close.
        if (results)
          if (Status sent = communicators[k]->finishSends(); !sent.isOk()) results = std::move(sent);
        if (!results) {
          std::lock_guard<std::mutex> lock(failureMutex);
          if (!rootCause) rootCause = results.status().diag();
        }
        if (exited) exited(k, !results);
        return results;
      });
  if (!all && rootCause) return Status(*rootCause);
  return all;
}

int CpuExecutable::numInstances() const { return impl_->instances.numReplicas * impl_->instances.numPartitions; }

Status CpuExecutable::checkArguments(const std::vector<interp::Tensor>& args) const {
  const std::vector<Type>& params = impl_->program->paramTypes;
  if (args.size() != params.size())
    return error("the compiled function takes " + std::to_string(params.size()) + " argument(s), " +
                 std::to_string(args.size()) + " given");
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].type() != params[i])
      return error("argument " + std::to_string(i) + " has type " + args[i].type().str() + ", expected " +
                   params[i].str());
  return Status::ok();
}

namespace {

// The in-memory compile cache: exact keys (module text, entry, options), a
// list in least-recently-used order.
class CompileCache {
 public:
  std::shared_ptr<const CpuExecutable> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    entries_.splice(entries_.begin(), entries_, it->second);
    return it->second->second;
  }

  // Adds `executable` under `key` and returns it, or returns the one another
  // thread added meanwhile (so everyone shares the first).
  std::shared_ptr<const CpuExecutable> insert(const std::string& key,
                                              std::shared_ptr<const CpuExecutable> executable) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(key); it != index_.end()) return it->second->second;
    entries_.emplace_front(key, std::move(executable));
    index_[key] = entries_.begin();
    while (entries_.size() > kCompileCacheCapacity) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
    return entries_.front().second;
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const CpuExecutable>>;
  std::mutex mutex_;
  std::list<Entry> entries_;
  std::map<std::string, std::list<Entry>::iterator> index_;
};

CompileCache& compileCache() {
  static CompileCache* cache = new CompileCache;  // never destroyed: usable until exit
  return *cache;
}

}  // namespace

Expected<std::shared_ptr<const CpuExecutable>> compileForCpuCached(const Module& module,
                                                                   std::string_view entry,
                                                                   const CpuCompileOptions& options) {
  // The whole key is kept (not just a hash of it), so two modules never share
  // an entry by collision; the module's location keeps the source file in it
  // (error messages name locations).
  std::string key = module.op().loc().str() + '\0' + printModule(module);
  key += '\0';
  key += entry;
  key += '\0' + std::to_string(options.numThreads) + '\0' + options.dumpDir + '\0' + options.cacheDir + '\0' +
         (options.foldConstants ? "fold" : "nofold") + (options.flatLoops ? "" : " generic loops");
  if (auto hit = compileCache().find(key)) return hit;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<CpuExecutable> compiled, compileForCpu(module, entry, options));
  return compileCache().insert(key, std::move(compiled));
}

}  // namespace kiln::cpu
