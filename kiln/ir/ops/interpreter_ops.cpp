// The interpreter.* ops of StableHLO's reference interpreter: print (writes
// its operand to stdout), probe (records its operand under `probe_id`;
// StableHLO's interpreter writes it to a .npy file, kiln only checks and
// passes it through) and run_parallel (multi-instance tests,
// kiln/interp/run_parallel.h). print and probe return their operand
// unchanged; the cpu back end runs them through the interpreter's kernels,
// so they work on every back end.
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

RuleResult identityRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  return Types{operand};
}

RuleResult probeRule(const OpTypeContext& ctx) {
  Attribute id = ctx.attr("probe_id");
  if (!id || !id.is(AttrKind::String) || id.stringValue().empty())
    return ctx.error("requires a non-empty string attribute 'probe_id'");
  return identityRule(ctx);
}

// run_parallel's results are its programs' (kiln/interp/run_parallel.h),
// which the kernel checks against the functions it runs.
RuleResult runParallelRule(const OpTypeContext& ctx) {
  Attribute programs = ctx.attr("programs");
  if (!programs || !programs.is(AttrKind::Array) || programs.arrayValue().empty())
    return ctx.error("requires 'programs', a non-empty array of arrays of functions");
  if (!ctx.hasDeclaredResults) return ctx.error("cannot infer its result types");
  return Types(ctx.declaredResults.begin(), ctx.declaredResults.end());
}

}  // namespace

void registerInterpreterOps(std::vector<OpDef>& defs) {
  defs.push_back({"interpreter.print", kHasSideEffect, identityRule, {}, "Prints its operand; returns it.",
                  PrettyForm::kSameType});
  defs.push_back({"interpreter.probe", kHasSideEffect, probeRule, {"probe_id"},
                  "Marks its operand as probed under probe_id; returns it (kiln writes no probe files).",
                  PrettyForm::kCustom});
  defs.push_back({"interpreter.run_parallel", kHasSideEffect, runParallelRule, {"programs", "infeed"},
                  "Runs a grid of programs (one row per replica, one function per partition) as one multi-instance "
                  "run; returns their results in order.",
                  PrettyForm::kGenericOnly});
}

}  // namespace kiln
