// Routines: the ops the cpu back end runs through a small runtime routine
// rather than an emitted kernel or a oneDNN call. The table in routines.cpp
// lists each op with the reason it is a routine. An instance runs a native
// routine (native_routine.h: reduce_window, select_and_scatter, gather,
// scatter, sort in their common forms) when one takes it, chosen once per
// instance by PreparedRoutine; every other instance runs the op's reference
// kernel (kiln::interp::evaluateOp) on the step's tensors.
// An op that is neither emitted, nor a library call, nor in this table is a
// compile error: there is no catch-all fallback.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/interp/instance.h"
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

struct NativeRoutine;
struct NativeCollective;

// How one instance of a routine op runs, decided when the program is
// compiled: a native routine, or the reference kernel.
class PreparedRoutine {
 public:
  explicit PreparedRoutine(const Operation& op);

  // "native gather", "native all_reduce sum", ... or "reference"
  // (the op's own name is the step's business).
  const std::string& kind() const { return kind_; }
  bool isNative() const { return native_ != nullptr || collective_ != nullptr; }

  // Runs the instance on `operands`. The native routine runs only on
  // operands of the op's own types, and hands back to the reference kernel
  // a run it declines (an out-of-bounds gather slice, which the reference
  // reports as an error). `instance` and `occurrence` are what replica_id,
  // partition_id and the collectives read (interp::evaluateOp).
  Expected<std::vector<interp::Tensor>> run(std::vector<interp::Tensor> operands,
                                            const interp::Instance& instance = {},
                                            int64_t occurrence = 0) const;

 private:
  const Operation* op_;
  std::shared_ptr<const NativeRoutine> native_;
  std::shared_ptr<const NativeCollective> collective_;  // runs where the instance has a communicator
  std::string kind_;
};

// Runs `op` (one with a table entry) on `operands` and returns its results:
// PreparedRoutine(op).run(operands), deciding again on every call.
Expected<std::vector<interp::Tensor>> runRoutine(const Operation& op, std::vector<interp::Tensor> operands);

}  // namespace kiln::cpu
