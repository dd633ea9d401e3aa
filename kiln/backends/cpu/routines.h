// Routines: the ops the cpu back end runs through a small runtime routine
// rather than an emitted kernel or a oneDNN call. For now every routine is
// the op's reference kernel (kiln::interp::evaluateOp) on the step's tensors;
// the table in routines.cpp lists each op with the reason it is a routine.
// An op that is neither emitted, nor a library call, nor in this table is a
// compile error: there is no catch-all fallback.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::cpu {

enum class RoutineUse {
  Always,       // the op always runs as a routine
  IfNotCompiled // only when the emitter (or oneDNN) rejects this instance of the op
};

struct RoutineEntry {
  std::string_view op;
  RoutineUse use;
  std::string_view reason;
};

// The whole table, in the order routines.cpp lists it (docs print it).
std::span<const RoutineEntry> routineTable();

// The entry for op name `op`, or null.
const RoutineEntry* findRoutine(std::string_view op);

// Runs `op` (one with a table entry) on `operands` and returns its results.
Expected<std::vector<interp::Tensor>> runRoutine(const Operation& op, std::vector<interp::Tensor> operands);

}  // namespace kiln::cpu
