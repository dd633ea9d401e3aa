// Running a Program: slots hold tensors, steps run in order, region programs
// recurse. Everything a run touches is local to it (or read-only compiled
// state), so one executable may run on many threads at once.
#include "kiln/backends/cpu/program.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>

#include "kiln/backends/cpu/flat_loop.h"
#include "kiln/backends/cpu/native_routine.h"
#include "kiln/backends/cpu/openmp_threads.h"
#include "kiln/backends/cpu/routines.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/op_summary.h"
#include "kiln/support/thread_pool.h"
#include "kiln/support/trace.h"

namespace kiln::cpu {
namespace {

// Chunks a parallel kernel's iterations are split into, per thread.
constexpr int kChunksPerThread = 4;

using interp::Tensor;

// The trace category of a step's slice; null for steps too small to show
// (views, tuples, tokens).
const char* traceCategory(StepKind kind) {
  switch (kind) {
    case StepKind::Kernel: return "kernel";
    case StepKind::Library: return "library";
    case StepKind::Routine: return "routine";
    case StepKind::While:
    case StepKind::If:
    case StepKind::Case:
    case StepKind::Call: return "control";
    default: return nullptr;
  }
}

// Opens a slice in `slice` for `step` while a trace records
// (kiln/support/trace.h) and the step is worth showing.
void openSlice(std::optional<trace::Scope>& slice, const Step& step) {
  const char* category = traceCategory(step.kind);
  if (!trace::enabled() || !category) return;
  slice.emplace(category, opLabel(*step.op));
  slice->arg("step", stepKindName(step));
  slice->arg("op", step.op->name());
  slice->arg("location", step.op->loc().str());
}

// What every program of one run (the function's and its regions') shares.
struct RunContext {
  ThreadPool& pool;
  const interp::Instance& instance;
  StepTimes* times;  // null unless profiling
  // How many times each routine op has run: with several instances, the
  // rendezvous key of a collective (every instance counts alike).
  std::unordered_map<const Operation*, int64_t> occurrences;
};

class ProgramRun {
 public:
  ProgramRun(const Program& program, RunContext& context)
      : program_(program), context_(context), pool_(context.pool) {}

  // May be called again on the same object (a loop's condition and body run
  // once per iteration): the slots and argument vectors are kept, and so is
  // the arena when no value of the last run is still placed in it.
  Expected<std::vector<Tensor>> run(std::vector<Tensor> args) {
    if (program_.arena && !(arena_ && arena_.use_count() == 1)) {
      KILN_ASSIGN_OR_RETURN(arena_, cpuAllocator().allocate(program_.arena));
      arenaBase_ = static_cast<uint8_t*>(arena_->data());
    }
    slots_.resize(program_.numSlots);
    for (size_t i = 0; i < args.size(); ++i) slots_[i] = std::move(args[i]);
    // A donated argument nobody else holds becomes the memory of the outputs
    // placed in it; one the caller still holds is left alone (those outputs
    // get memory of their own).
    if (!program_.donatedParameters.empty()) reusable_.assign(args.size(), false);
    for (int p : program_.donatedParameters) reusable_[p] = slots_[p].isSoleOwner();
    for (const auto& [slot, value] : program_.constants) slots_[slot] = value;
    for (const Step& step : program_.steps) {
      if (!context_.times && !trace::enabled())
        KILN_RETURN_IF_ERROR(runStep(step));
      else
        KILN_RETURN_IF_ERROR(observed(step, [&] { return runStep(step); }));
      for (size_t slot : step.lastReads) slots_[slot] = Tensor();
    }
    // The results go in the arguments' vector, whose tensors the slots took
    // (no second allocation per run where there are no more results than
    // arguments).
    args.clear();
    args.reserve(program_.results.size());
    for (size_t slot : program_.results) args.push_back(slots_[slot]);
    // Only the results outlive the run: the arguments are their caller's
    // alone again (a loop's next body run may update them in place).
    for (Tensor& slot : slots_) slot = Tensor();
    return args;
  }

 private:
  // Runs `body` (which runs `step`) in the step's trace slice, adding its
  // time to the profile when one is taken.
  template <typename Body>
  Status observed(const Step& step, Body&& body) {
    std::optional<trace::Scope> slice;
    openSlice(slice, step);
    if (!context_.times) return body();
    auto start = std::chrono::steady_clock::now();
    Status status = body();
    auto& [calls, seconds] = context_.times->byStep[&step];
    ++calls;
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return status;
  }

  // A oneDNN step on `inputs` into `output`, on every thread when the step
  // is marked parallel, else on this one.
  //
  // With `packed` (a flat loop's loop-invariant weights, flat_loop.h), the
  // weights are read from there, packed first when `packNow`.
  Status runLibrary(const Step& step, const uint8_t* const* inputs, uint8_t* output, uint8_t* packed = nullptr,
                    bool packNow = false) {
    // oneDNN reports what it cannot run by throwing: a failed run, not a
    // dead process.
    try {
      bool tiled = step.parallel && pool_.numThreads() > 1 && step.library->numTiles() > 0;
      if (packed && step.library->packedWeightsBytes(tiled) > 0) {
        if (packNow) step.library->packWeights(inputs[step.library->weightsInput()], packed, tiled);
        OpenMpThreads threads(step.parallel ? pool_.numThreads() : 1);
        step.library->runPacked(inputs, packed, output, tiled ? &pool_ : nullptr);
      } else if (step.parallel) {
        step.library->runOn(inputs, output, pool_);
      } else {
        OpenMpThreads one(1);
        step.library->run(inputs, output);
      }
    } catch (const std::exception& e) {
      std::string what = step.op ? "'" + step.op->name() + "' op: " : std::string();
      return error(step.op ? step.op->loc() : Location::unknown(), what + "oneDNN failed: " + e.what());
    }
    return Status::ok();
  }

  // A kernel's iterations on `inputs` into `outputs`, split across the pool
  // when the step is marked parallel.
  void callKernel(const Step& step, const uint8_t* const* inputs, uint8_t* const* outputs) {
    if (step.iterations <= 0) return;
    if (!step.parallel) return step.fn(inputs, outputs, 0, step.iterations);
    // More chunks than threads, claimed as each thread finishes one: a
    // thread that the host deschedules (other processes on a shared
    // machine) delays a quarter of the work, not half of it.
    pool_.parallelFor(step.iterations, [&](int64_t begin, int64_t end) {
      // Each thread's share, on its own track.
      trace::Scope chunk("kernel", [&] { return "chunk of " + opLabel(*step.op); });
      chunk.arg("iterations", std::to_string(begin) + " to " + std::to_string(end));
      step.fn(inputs, outputs, begin, end);
    }, kChunksPerThread * pool_.numThreads());
  }

  std::vector<Tensor> read(const std::vector<size_t>& slots, size_t first = 0) const {
    std::vector<Tensor> values;
    for (size_t i = first; i < slots.size(); ++i) values.push_back(slots_[slots[i]]);
    return values;
  }

  Status define(const Step& step, std::vector<Tensor> values) {
    if (values.size() != step.outputs.size())
      return error(ErrorCode::Internal, "cpu back end: '" + step.op->name() + "' produced " +
                                            std::to_string(values.size()) + " values, expected " +
                                            std::to_string(step.outputs.size()));
    for (size_t i = 0; i < values.size(); ++i) slots_[step.outputs[i]] = std::move(values[i]);
    return Status::ok();
  }

  // Runs region program `region` of `step` on `args` followed by the captures.
  Expected<std::vector<Tensor>> runRegion(const Step& step, size_t region, std::vector<Tensor> args) {
    ProgramRun run(*step.regions[region], context_);
    return runRegionOn(run, step, std::move(args));
  }

  // Runs `run` (a region program of `step`) on `args` followed by the captures.
  Expected<std::vector<Tensor>> runRegionOn(ProgramRun& run, const Step& step, std::vector<Tensor> args) {
    for (size_t i = step.inputs.size() - step.numCaptures; i < step.inputs.size(); ++i)
      args.push_back(slots_[step.inputs[i]]);
    return run.run(std::move(args));
  }

  // The memory output `i` of `step` is written to: a donated argument, its
  // place in the arena, or a tensor of its own (kernels and oneDNN write
  // every element).
  Tensor outputTensor(const Step& step, size_t i) const {
    int parameter = step.intoParameters.empty() ? -1 : step.intoParameters[i];
    if (parameter >= 0 && reusable_[parameter]) {
      const Tensor& donated = slots_[parameter];
      return Tensor::borrow(step.outputTypes[i], const_cast<uint8_t*>(donated.bytes()),
                            std::make_shared<Tensor>(donated));
    }
    int64_t offset = step.arenaOffsets.empty() ? -1 : step.arenaOffsets[i];
    if (offset < 0) return Tensor::uninitialized(step.outputTypes[i]);
    return Tensor::borrow(step.outputTypes[i], arenaBase_ + offset, arena_);
  }

  // A step that cannot get its memory fails the run at its op: a failed
  // run, not a dead process (compileForCpu checks the sizes it knows ahead).
  Status runStep(const Step& step) {
    try {
      return dispatchStep(step);
    } catch (const std::bad_alloc&) {
      std::string what = step.op ? "'" + step.op->name() + "' op: " : std::string();
      Status s = error(step.op ? step.op->loc() : Location::unknown(), what + "out of memory");
      s.diag().code = ErrorCode::ResourceExhausted;
      return s;
    }
  }

  Status dispatchStep(const Step& step) {
    switch (step.kind) {
      case StepKind::Kernel: return runKernel(step);
      case StepKind::Library: {
        // oneDNN writes every element, except for an empty contraction
        // (a dot over K = 0 is all zeros), which keeps the zero fill.
        bool emptyInput = false;
        for (size_t slot : step.inputs) emptyInput |= slots_[slot].numElements() == 0;
        Tensor output = emptyInput ? Tensor(step.outputTypes[0]) : outputTensor(step, 0);
        if (output.numElements() > 0 && !emptyInput) {
          std::vector<const uint8_t*> inputs;
          for (size_t slot : step.inputs) inputs.push_back(slots_[slot].bytes());
          KILN_RETURN_IF_ERROR(runLibrary(step, inputs.data(), output.bytes()));
        }
        slots_[step.outputs[0]] = std::move(output);
        return Status::ok();
      }
      case StepKind::Routine: {
        const interp::Instance& instance = context_.instance;
        int64_t occurrence = instance.rendezvous ? context_.occurrences[step.op]++ : 0;
        // Native routines split their work across the pool (native_linalg.cpp's
        // sgemm calls each run on one thread).
        OpenMpThreads threads(1);
        RoutineThreads routineThreads(&pool_);
        KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results,
                              step.routine->run(read(step.inputs), instance, occurrence));
        return define(step, std::move(results));
      }
      case StepKind::While: return runWhile(step);
      case StepKind::If: {
        size_t branch = slots_[step.inputs[0]].getBool(0) ? 0 : 1;
        KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, runRegion(step, branch, {}));
        return define(step, std::move(results));
      }
      case StepKind::Case: {
        int64_t index = slots_[step.inputs[0]].getInt(0);
        int64_t last = static_cast<int64_t>(step.regions.size()) - 1;
        size_t branch = static_cast<size_t>(index < 0 || index > last ? last : index);
        KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, runRegion(step, branch, {}));
        return define(step, std::move(results));
      }
      case StepKind::Call: {
        std::vector<Tensor> args = read(step.inputs);
        args.resize(step.inputs.size() - step.numCaptures);
        KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, runRegion(step, 0, std::move(args)));
        return define(step, std::move(results));
      }
      case StepKind::Tuple: return define(step, {Tensor::tuple(read(step.inputs))});
      case StepKind::GetTupleElement: {
        std::span<const Tensor> elements = slots_[step.inputs[0]].tupleElements();
        if (step.index < 0 || static_cast<size_t>(step.index) >= elements.size())
          return error(step.op->loc(), "'" + step.op->name() + "' index " + std::to_string(step.index) +
                                           " out of range");
        return define(step, {elements[static_cast<size_t>(step.index)]});
      }
      case StepKind::Token: return define(step, {Tensor(step.outputTypes[0])});
      case StepKind::View: {
        const Tensor& input = slots_[step.inputs[0]];
        return define(step, {Tensor::borrow(step.outputTypes[0], const_cast<uint8_t*>(input.bytes()),
                                            std::make_shared<Tensor>(input))});
      }
    }
    return error(ErrorCode::Internal, "cpu back end: unknown step kind");
  }

  // A kernel's outputs go straight into their slots (each step defines its
  // own), and its argument pointers into vectors kept for the whole run:
  // no allocation per step beyond the outputs' memory (a scan's body runs
  // a few small kernels per iteration, where a step's allocations were
  // most of its time).
  Status runKernel(const Step& step) {
    inputBytes_.clear();
    for (size_t slot : step.inputs) inputBytes_.push_back(slots_[slot].bytes());
    outputBytes_.clear();
    for (size_t i = 0; i < step.outputTypes.size(); ++i) {
      Tensor& output = slots_[step.outputs[i]];
      output = takeInput(step, i);
      if (!output) output = outputTensor(step, i);
      outputBytes_.push_back(output.bytes());
    }
    callKernel(step, inputBytes_.data(), outputBytes_.data());
    return Status::ok();
  }

  // The memory of the input output `i` of kernel `step` may be computed
  // over (Step::inPlaceInputs) when nothing else reads or holds it: the
  // input's own tensor (empty in its slot from now on), else an empty tensor.
  Tensor takeInput(const Step& step, size_t i) {
    int j = step.inPlaceInputs.empty() ? -1 : step.inPlaceInputs[i];
    bool donated = !step.intoParameters.empty() && step.intoParameters[i] >= 0;
    if (j < 0 || donated) return Tensor();
    size_t slot = step.inputs[size_t(j)];
    Tensor& input = slots_[slot];
    if (!step.inputDiesHere[size_t(j)] || !input.isSoleOwner() || input.byteSize() != storageBytes(step.outputTypes[i]))
      return Tensor();
    Tensor taken = std::move(input);
    if (taken.type() == step.outputTypes[i]) return taken;
    uint8_t* bytes = taken.bytes();
    return Tensor::borrow(step.outputTypes[i], bytes, std::make_shared<Tensor>(std::move(taken)));
  }

  Status runWhile(const Step& step) {
    if (step.flatLoop) return runFlatLoop(step, *step.flatLoop);
    size_t numVars = step.inputs.size() - step.numCaptures;
    std::vector<Tensor> vars = read(step.inputs);
    vars.resize(numVars);
    // One run object each for the condition and the body, reused every
    // iteration (their slots, argument vectors and arenas).
    ProgramRun cond(*step.regions[0], context_), body(*step.regions[1], context_);
    for (;;) {
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> more, runRegionOn(cond, step, vars));
      if (more.size() != 1 || !more[0].getBool(0)) break;
      KILN_ASSIGN_OR_RETURN(vars, runRegionOn(body, step, std::move(vars)));
    }
    return define(step, std::move(vars));
  }

  // A flat loop (flat_loop.h): the variables in memory of the loop's own,
  // everything else in one scratch block, every step's pointers resolved
  // before the first iteration.
  Status runFlatLoop(const Step& step, const FlatLoop& loop) {
    size_t numVars = step.inputs.size() - step.numCaptures;
    std::vector<Tensor> vars(numVars);
    std::vector<uint8_t*> carried(numVars);
    for (size_t i = 0; i < numVars; ++i) {
      // An initial value nothing else reads or holds becomes the variable.
      size_t slot = step.inputs[i];
      if (step.inputDiesHere[i] && slots_[slot].isSoleOwner()) {
        vars[i] = std::move(slots_[slot]);
        carried[i] = vars[i].bytes();
        continue;
      }
      const Tensor& initial = slots_[slot];
      vars[i] = Tensor::uninitialized(initial.type());
      std::memcpy(vars[i].bytes(), initial.bytes(), initial.byteSize());
      carried[i] = vars[i].bytes();
    }
    Tensor scratch;
    if (loop.scratchBytes > 0) scratch = Tensor::uninitialized(Type::tensor({loop.scratchBytes}, Type::integer(8)));
    auto address = [&](const LoopPlace& place) -> uint8_t* {
      switch (place.kind) {
        case LoopPlace::Kind::Carried: return carried[size_t(place.index)];
        case LoopPlace::Kind::Capture:
          return const_cast<uint8_t*>(slots_[step.inputs[numVars + size_t(place.index)]].bytes());
        case LoopPlace::Kind::Constant: return const_cast<uint8_t*>(loop.constants[size_t(place.index)]->bytes());
        case LoopPlace::Kind::Scratch: return scratch.bytes() + place.index;
      }
      return nullptr;
    };
    // Every step's argument pointers, in one vector each for inputs and
    // outputs (reserved up front: the steps keep pointers into them).
    struct Resolved {
      const Step* step;
      const uint8_t* const* inputs;
      uint8_t* const* outputs;
      uint8_t* packedWeights;  // null: none
    };
    size_t numInputs = 0, numOutputs = 0;
    for (const auto* steps : {&loop.condition, &loop.body})
      for (const FlatStep& flat : *steps) numInputs += flat.inputs.size(), numOutputs += flat.outputs.size();
    std::vector<const uint8_t*> inputs;
    std::vector<uint8_t*> outputs;
    inputs.reserve(numInputs);
    outputs.reserve(numOutputs);
    auto resolve = [&](const std::vector<FlatStep>& steps) {
      std::vector<Resolved> resolved;
      for (const FlatStep& flat : steps) {
        uint8_t* packed = flat.packedWeightsAt < 0 ? nullptr : scratch.bytes() + flat.packedWeightsAt;
        resolved.push_back({flat.step, inputs.data() + inputs.size(), outputs.data() + outputs.size(), packed});
        for (const LoopPlace& place : flat.inputs) inputs.push_back(address(place));
        for (const LoopPlace& place : flat.outputs) outputs.push_back(address(place));
      }
      return resolved;
    };
    std::vector<Resolved> condition = resolve(loop.condition), body = resolve(loop.body);
    struct Copy {
      uint8_t* to;
      const uint8_t* from;
      size_t bytes;
    };
    std::vector<Copy> copies;
    for (const FlatLoop::Copy& copy : loop.copies)
      copies.push_back({carried[copy.variable], address(copy.from), vars[copy.variable].byteSize()});
    std::vector<Copy> snapshots;
    for (const FlatLoop::Copy& copy : loop.snapshots)
      snapshots.push_back({address(copy.from), carried[copy.variable], vars[copy.variable].byteSize()});
    const uint8_t* more = address(loop.conditionResult);

    bool observe = context_.times || trace::enabled();
    bool packNow = loop.packedWeights > 0;  // the first trip packs the loop-invariant weights
    auto runSteps = [&](const std::vector<Resolved>& steps) -> Status {
      for (const Resolved& r : steps) {
        auto run = [&]() -> Status {
          if (r.step->kind == StepKind::Library)
            return runLibrary(*r.step, r.inputs, r.outputs[0], r.packedWeights, packNow);
          callKernel(*r.step, r.inputs, r.outputs);
          return Status::ok();
        };
        KILN_RETURN_IF_ERROR(observe ? observed(*r.step, run) : run());
      }
      return Status::ok();
    };
    for (;;) {
      KILN_RETURN_IF_ERROR(runSteps(condition));
      if (!*more) break;
      KILN_RETURN_IF_ERROR(runSteps(body));
      packNow = false;
      for (const Copy& copy : snapshots) std::memcpy(copy.to, copy.from, copy.bytes);
      for (const Copy& copy : copies) std::memmove(copy.to, copy.from, copy.bytes);
    }
    return define(step, std::move(vars));
  }

  const Program& program_;
  RunContext& context_;
  ThreadPool& pool_;
  std::vector<Tensor> slots_;
  std::shared_ptr<device::Memory> arena_;  // kept alive by every tensor placed in it
  uint8_t* arenaBase_ = nullptr;
  std::vector<bool> reusable_;  // per parameter: a donated argument outputs may overwrite
  std::vector<const uint8_t*> inputBytes_;  // runKernel's arguments, reused from step to step
  std::vector<uint8_t*> outputBytes_;
};

}  // namespace

const device::Allocator& cpuAllocator() { return interp::tensorAllocator(); }

std::string stepKindName(const Step& step) {
  switch (step.kind) {
    case StepKind::Kernel: return step.parallel ? "kernel (threads)" : "kernel";
    case StepKind::Library:
      if (size_t tiles = step.library->numTiles()) return "oneDNN (" + std::to_string(tiles) + " tiles)";
      return step.parallel ? "oneDNN (threads)" : "oneDNN";
    case StepKind::Routine: return "routine: " + step.routine->kind();
    case StepKind::While: return "while";
    case StepKind::If: return "if";
    case StepKind::Case: return "case";
    case StepKind::Call: return "call";
    case StepKind::Tuple: return "tuple";
    case StepKind::GetTupleElement: return "get_tuple_element";
    case StepKind::Token: return "token";
    case StepKind::View: return "view";
  }
  return "?";
}

Expected<std::vector<interp::Tensor>> runProgram(const Program& program, std::vector<interp::Tensor> args,
                                                 ThreadPool& pool, const interp::Instance& instance,
                                                 StepTimes* times) {
  RunContext context{pool, instance, times, {}};
  try {  // the arena's allocation; each step catches its own
    return ProgramRun(program, context).run(std::move(args));
  } catch (const std::bad_alloc&) {
    return error(ErrorCode::ResourceExhausted, "cpu back end: out of memory for the arena of a run");
  }
}

}  // namespace kiln::cpu
