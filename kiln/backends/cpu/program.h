// What the cpu back end compiles a function into: a Program, i.e. numbered
// value slots and a list of steps run in order. Regions of control-flow ops
// become nested Programs of their own (their kernels live in the same JIT
// module as the rest), so while/if/case run here, not in the interpreter.
// Internal to kiln/backends/cpu; LLVM-free.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kiln/backends/cpu/emitter.h"
#include "kiln/backends/cpu/onednn_dot.h"
#include "kiln/backends/cpu/routines.h"
#include "kiln/device/device_buffer.h"
#include "kiln/interp/instance.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {
class ThreadPool;
}

namespace kiln::cpu {

struct Program;
struct FlatLoop;

enum class StepKind {
  Kernel,           // an emitted kernel (emitKernel), maybe split across threads
  Library,          // a oneDNN primitive (onednn_dot.h)
  Routine,          // the op's reference kernel on tensors (routines.h says which ops and why)
  While,            // regions[0] = condition, regions[1] = body
  If,               // regions[0] = then, regions[1] = else; input 0 is the predicate
  Case,             // regions[i] = branch i; input 0 is the index (out of range: the last branch)
  Call,             // regions[0] = the callee (func.call, stablehlo.composite)
  Tuple,            // packs the inputs into one tuple
  GetTupleElement,  // element `index` of input 0
  Token,            // after_all: an empty token
  View,             // reshape: the input's bytes under the output's type, no copy
};

struct Step {
  StepKind kind = StepKind::Routine;
  const Operation* op = nullptr;  // in the executable's lowered module
  std::vector<size_t> inputs;     // slots read
  std::vector<size_t> outputs;    // slots defined, one per result of `op`
  std::vector<Type> outputTypes;
  // Slots this step reads last (no later step reads them, the program does
  // not return them): released once it has run, so a value of its own
  // memory dies with its last reader, not with the run. A while loop may
  // take such a variable's initial value over instead of copying it.
  std::vector<size_t> lastReads;
  // Per input: its slot is among lastReads and no other input of this step
  // reads it, so when nothing else holds its tensor the step may take that
  // memory over (inPlaceInputs, a while loop's initial values).
  std::vector<bool> inputDiesHere;

  // Kernel / Library: where each output lives in the run's arena (a byte
  // offset from buffer assignment), or -1 for memory of its own.
  std::vector<int64_t> arenaOffsets;
  // Kernel / Library: the donated parameter each output is computed into
  // (buffer assignment's in-place updates and aliased outputs), or -1.
  std::vector<int> intoParameters;
  // Kernel: per output, the input (an index into `inputs`) whose memory the
  // output may take when that input dies here and holds memory of its own
  // that nothing else holds (buffer assignment's in-place rule,
  // inPlaceCandidates: an elementwise op, a loop fusion reading it only at
  // the element it writes, a dynamic_update_slice's or scatter's operand),
  // or -1. A while loop's result then dies into the first kernel after the
  // loop instead of living beside a new value.
  std::vector<int> inPlaceInputs;

  KernelFn fn = nullptr;          // Kernel: set once the JIT has compiled it
  int64_t iterations = 0;         // Kernel: the [begin, end) range is [0, iterations)
  bool parallel = false;          // Kernel: large enough to split across the thread pool;
                                  // Library: large enough for oneDNN to use every thread
  std::shared_ptr<const OnednnDot> library;  // Library
  std::shared_ptr<const PreparedRoutine> routine;  // Routine

  // While / If / Case / Call. A region program's parameters are its block
  // arguments followed by the outer values the region uses (its captures),
  // which are this step's trailing inputs.
  std::vector<std::unique_ptr<Program>> regions;
  size_t numCaptures = 0;
  // While: the loop with every value at a fixed place (flat_loop.h), when
  // its regions are only kernels, oneDNN calls and views; else null.
  std::shared_ptr<const FlatLoop> flatLoop;
  int64_t index = 0;              // GetTupleElement
};

struct Program {
  std::vector<Type> paramTypes;   // slots 0..params-1
  size_t numSlots = 0;
  // ui8[bytes] holding the outputs placed in it (null: none): one block per
  // run, from the device's allocator (cpuAllocator).
  Type arena;
  std::vector<int> donatedParameters;  // parameters some output may be computed into
  std::vector<std::pair<size_t, interp::Tensor>> constants;  // filled in before the steps run
  std::vector<Step> steps;
  std::vector<size_t> results;
};

// Per-step timings of runs (CpuExecutable::runProfiled): calls and seconds
// of each step, steps of region programs included.
struct StepTimes {
  std::map<const Step*, std::pair<int64_t, double>> byStep;
};

// The memory of the cpu back end's devices, host memory as the interpreter
// allocates it: what the back end's allocator() hands out and where every
// run's arena comes from.
const device::Allocator& cpuAllocator();

// Runs `program` on `args` (one per parameter) as `instance` of a
// multi-instance run (interp/instance.h), adding each step's time to `times`
// when given. Safe to call from several threads at once: all state of a run
// is local to it.
Expected<std::vector<interp::Tensor>> runProgram(const Program& program, std::vector<interp::Tensor> args,
                                                 ThreadPool& pool, const interp::Instance& instance = {},
                                                 StepTimes* times = nullptr);

// What kind of step `step` is, for profiles: "kernel", "kernel (threads)",
// "oneDNN", "routine: <kind>", "while", "view", ...
std::string stepKindName(const Step& step);

}  // namespace kiln::cpu
