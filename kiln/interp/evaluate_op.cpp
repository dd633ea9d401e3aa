#include "kiln/interp/evaluate_op.h"

#include <exception>

#include "kiln/interp/interpreter_impl.h"
#include "kiln/ir/op_registry.h"

namespace kiln::interp {

bool dependsOnlyOnOperands(const Operation& op) {
  if (!op.def() || !op.def()->has(kPure) || op.def()->has(kTerminator)) return false;
  if (op.name() == "stablehlo.replica_id" || op.name() == "stablehlo.partition_id") return false;
  for (auto& region : op.regions())
    for (auto& block : region->blocks())
      for (const Operation& inner : *block)
        if (!(inner.def() && inner.def()->has(kReturnLike)) && !dependsOnlyOnOperands(inner)) return false;
  return true;
}

Expected<std::vector<Tensor>> evaluateOp(const Operation& op, std::vector<Tensor> operands) {
  return evaluateOp(op, std::move(operands), Instance{}, 0);
}

Expected<std::vector<Tensor>> evaluateOp(const Operation& op, std::vector<Tensor> operands,
                                         const Instance& instance, int64_t occurrence) {
  auto kernel = allKernels().find(op.name());
  if (kernel == allKernels().end())
    return error(op.loc(), "the interpreter does not support op '" + op.name() + "'");
  if (operands.size() != op.numOperands())
    return error(op.loc(), "'" + op.name() + "' op evaluated with " + std::to_string(operands.size()) +
                               " operands, expected " + std::to_string(op.numOperands()));
  // A lone op has no program around it: func.call and friends find nothing.
  static const Module kNoProgram;
  Interpreter interp(kNoProgram, allKernels(), instance);
  interp.setNextOccurrence(op, occurrence);
  OpEval eval{op, std::move(operands), interp};
  try {
    Expected<std::vector<Tensor>> results = kernel->second(eval);
    if (results && results->size() != op.numResults())
      return eval.error("kernel produced " + std::to_string(results->size()) + " results, expected " +
                        std::to_string(op.numResults()));
    return results;
  } catch (const std::exception& e) {
    return eval.error(std::string("failed: ") + e.what());
  }
}

}  // namespace kiln::interp
