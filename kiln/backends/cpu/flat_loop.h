// A while loop whose condition and body are only kernels, oneDNN calls and
// views (a scan of a recurrent cell, a counted loop of small updates) runs
// without the step interpreter: every value the regions compute gets a
// fixed place for the whole loop, each step's argument pointers are
// resolved once per loop run, and an iteration is the steps' calls, the
// condition's byte and the copies of the carried values that could not be
// computed in place. The generic path (program.cpp's runWhile) pays a
// region run per iteration: slots of tensors, shared buffers, argument
// vectors; for a scan body of a few small kernels that was most of the time.
// Internal to kiln/backends/cpu; LLVM-free.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"

namespace kiln::cpu {

struct Step;

// Where a value of a flat loop lives while the loop runs.
struct LoopPlace {
  enum class Kind : uint8_t {
    Carried,   // the memory of loop variable `index` (the loop's own: the initial value is copied in)
    Capture,   // capture `index` of the while step (an outer value, read-only)
    Constant,  // FlatLoop::constants[index] (read-only)
    Scratch,   // byte `index` of the loop's scratch block
  };
  Kind kind = Kind::Scratch;
  int64_t index = 0;
};

// One kernel or oneDNN step of the condition or the body, with the places of
// its inputs and outputs.
struct FlatStep {
  const Step* step = nullptr;
  std::vector<LoopPlace> inputs, outputs;
  // A oneDNN step whose weights the loop does not change (a capture, a
  // constant, a variable the body yields unchanged): the scratch byte where
  // they are packed on its first run, once per loop run, for every trip to
  // read (OnednnDot::packWeights); -1: read as they are.
  int64_t packedWeightsAt = -1;
};

struct FlatLoop {
  std::vector<FlatStep> condition, body;  // in program order
  LoopPlace conditionResult;               // an i1 byte
  std::vector<const interp::Tensor*> constants;  // the region programs' constants, which outlive the loop
  // After each body run, variable `variable` takes the bytes at `from`
  // (variables computed in place by their last writer need no copy).
  struct Copy {
    size_t variable;
    LoopPlace from;
  };
  std::vector<Copy> copies;
  // Before the copies, variable `variable`'s bytes are saved at `from` (a
  // scratch place) for a copy into another variable (a swap, a rotation).
  std::vector<Copy> snapshots;
  int64_t scratchBytes = 0;
  int64_t inPlaceVariables = 0;  // variables the body's last writer computes into directly
  int64_t packedWeights = 0;     // steps with packedWeightsAt
};

// How many trips the stablehlo.while `op` makes when its count is fixed at
// compile time (lax.scan, fori_loop): a variable that starts at a constant,
// is compared LT with a constant by the condition (its only op but
// constants) and grows by a positive constant in the body. Else -1.
int64_t knownTripCount(const Operation& op);

// The flat form of `whileStep` (a planned StepKind::While with its regions;
// its body may yield its variables permuted),
// or null when a region has a step of another kind (a routine, nested
// control flow, a tuple) or a value that is not a dense tensor.
std::shared_ptr<const FlatLoop> flattenLoop(const Step& whileStep);

}  // namespace kiln::cpu
