// Evaluating a single operation outside of any program: the entry point that
// constant folding uses to run an op through the reference interpreter.
#pragma once

#include <vector>

#include "kiln/interp/instance.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::interp {

// True if `op`'s results are a function of its operands alone, so evaluating
// it once ahead of time is the same as evaluating it on every run: a pure op
// (nested ops included) that does not read which replica or partition runs it.
bool dependsOnlyOnOperands(const Operation& op);

// Runs `op`'s kernel on `operands` (one per operand of `op`, in order) and
// returns its results. Regions of `op` (reduce bodies, comparators, loop
// bodies) run as usual but may only use values defined inside `op`: the op is
// evaluated with no enclosing program, so outer values are an error.
Expected<std::vector<Tensor>> evaluateOp(const Operation& op, std::vector<Tensor> operands);

// Like evaluateOp, as `instance` of a multi-instance run: replica_id and
// partition_id read it, and a collective meets the other instances at its
// rendezvous as the op's `occurrence`-th execution (counted by the caller:
// every instance must number the same execution alike).
Expected<std::vector<Tensor>> evaluateOp(const Operation& op, std::vector<Tensor> operands,
                                         const Instance& instance, int64_t occurrence);

}  // namespace kiln::interp
