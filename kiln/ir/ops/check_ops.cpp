// The check.* ops of StableHLO's interpreter tests: assertions on values,
// executed by the interpreter's test mode. They have no results.
#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

constexpr uint32_t kCheckable = kAnyElement;

// expect_eq / expect_almost_eq / expect_close: two tensors of the same type.
RuleResult compareTwoRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kCheckable));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs", kCheckable));
  if (lhs != rhs) return ctx.error("expects lhs and rhs to have the same type, got " + lhs.str() + " and " + rhs.str());
  return Types{};
}

// expect_eq_const / expect_almost_eq_const: a tensor and a dense `value` of its type.
RuleResult compareConstRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kCheckable));
  Attribute value = ctx.attr("value");
  if (!value || !value.is(AttrKind::DenseElements)) return ctx.error("requires a dense 'value' attribute");
  if (value.valueType() != operand)
    return ctx.error("expects value to have the operand's type " + operand.str() + ", got " + value.valueType().str());
  return Types{};
}

RuleResult serializedEqRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, ctx.operandTypes[0], "operand", kCheckable));
  Attribute probe = ctx.attr("probe_id");
  if (!probe || !probe.is(AttrKind::String)) return ctx.error("requires a string attribute 'probe_id'");
  return Types{};
}

}  // namespace

void registerCheckOps(std::vector<OpDef>& defs) {
  constexpr uint32_t kCheckOp = kCheck | kHasSideEffect;
  defs.push_back({"check.expect_eq", kCheckOp, compareTwoRule, {}, "Asserts two tensors are equal.",
                  PrettyForm::kCustom});
  defs.push_back({"check.expect_almost_eq", kCheckOp, compareTwoRule, {"tolerance"},
                  "Asserts two tensors are equal within a tolerance.", PrettyForm::kCustom});
  defs.push_back({"check.expect_eq_const", kCheckOp, compareConstRule, {"value"}, "Asserts a tensor equals a constant.",
                  PrettyForm::kCustom});
  defs.push_back({"check.expect_almost_eq_const", kCheckOp, compareConstRule, {"value", "tolerance"},
                  "Asserts a tensor equals a constant within a tolerance.", PrettyForm::kCustom});
  defs.push_back({"check.expect_close", kCheckOp, compareTwoRule, {"max_ulp_difference", "min_ulp_difference"},
                  "Asserts two tensors are close in ULPs.", PrettyForm::kCustom});
  defs.push_back({"check.expect_serialized_eq", kCheckOp, serializedEqRule, {"probe_id", "iter"},
                  "Asserts a tensor equals a serialized probe.", PrettyForm::kCustom});
}

}  // namespace kiln
