// Control flow and structure: if, case, while, composite, tuples, custom_call,
// optimization_barrier, and the region terminator stablehlo.return.
#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// if / case branches: no arguments and the same results; returns them.
Expected<Types> branchResults(const OpTypeContext& ctx) {
  if (ctx.regions.empty()) return ctx.error("expects at least one branch");
  Types results;
  for (size_t i = 0; i < ctx.regions.size(); ++i) {
    std::string name = "branch " + std::to_string(i);
    KILN_ASSIGN_OR_RETURN(Types args, regionArgTypes(ctx, i, name));
    if (!args.empty()) return ctx.error("expects " + name + " to have no arguments, got " + typeListStr(args));
    KILN_ASSIGN_OR_RETURN(Types returned, regionReturnTypes(ctx, i, name));
    if (i == 0) results = returned;
    if (returned != results)
      return ctx.error("expects all branches to return the same types, got " + typeListStr(results) + " and " +
                       typeListStr(returned));
  }
  return results;
}

RuleResult ifRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type pred, tensorOperand(ctx, 0, "pred", kBool));
  KILN_RETURN_IF_ERROR(checkRank(ctx, pred, "pred", 0));
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 2));
  return branchResults(ctx);  // (C1)-(C3)
}

RuleResult caseRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type index, tensorOperand(ctx, 0, "index", kSignedInt));
  if (index.rank() != 0 || index.elementType() != Type::si32())
    return ctx.error("expects index to be a 0-dimensional tensor of type si32, got " + index.str());
  return branchResults(ctx);  // (C1)-(C4)
}

RuleResult whileRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 2));
  Types operands(ctx.operandTypes.begin(), ctx.operandTypes.end());
  KILN_RETURN_IF_ERROR(checkRegionType(ctx, 0, "cond", operands, std::vector{scalarTensor(Type::i1())}));  // (C1)
  KILN_RETURN_IF_ERROR(checkRegionType(ctx, 1, "body", operands, operands));                            // (C2)
  return operands;                                                                                     // (C3)
}

// composite: (C1) a namespaced name; the decomposition's signature (C2)-(C4)
// needs the module and is checked by the verifier.
RuleResult compositeRule(const OpTypeContext& ctx) {
  Attribute name = ctx.attr("name");
  if (!name || !name.is(AttrKind::String)) return ctx.error("requires a string attribute 'name'");
  const std::string& n = name.stringValue();
  size_t dot = n.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == n.size())
    return ctx.error("expects name to be a namespaced op name like \"ns.op\", got \"" + n + "\"");
  Attribute decomposition = ctx.attr("decomposition");
  if (!decomposition || !decomposition.is(AttrKind::SymbolRef))
    return ctx.error("requires a symbol attribute 'decomposition'");
  return declaredResults(ctx);
}

RuleResult optimizationBarrierRule(const OpTypeContext& ctx) {
  return Types(ctx.operandTypes.begin(), ctx.operandTypes.end());  // (C1)
}

RuleResult tupleRule(const OpTypeContext& ctx) {
  return Types{Type::tuple(ctx.operandTypes)};  // (C1)
}

RuleResult getTupleElementRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  Type tuple = ctx.operandTypes[0];
  if (!tuple.isTuple()) return ctx.error("expects operand to be a tuple, got " + tuple.str());
  KILN_ASSIGN_OR_RETURN(int64_t index, intAttr(ctx, "index"));
  int64_t size = static_cast<int64_t>(tuple.tupleTypes().size());
  if (index < 0 || index >= size)  // (C1)
    return ctx.error("expects index to be in [0, " + std::to_string(size) + "), got " + std::to_string(index));
  return Types{tuple.tupleTypes()[index]};  // (C2)
}

RuleResult customCallRule(const OpTypeContext& ctx) {
  Attribute target = ctx.attr("call_target_name");
  if (!target || !target.is(AttrKind::String)) return ctx.error("requires a string attribute 'call_target_name'");
  return declaredResults(ctx);
}

}  // namespace

void registerControlFlowOps(std::vector<OpDef>& defs) {
  defs.push_back({"stablehlo.if", kControlFlow, ifRule, {}, "Runs one of two branches."});
  defs.push_back({"stablehlo.case", kControlFlow, caseRule, {}, "Runs one of several branches."});
  defs.push_back({"stablehlo.while", kControlFlow, whileRule, {}, "Loops while a condition holds.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.composite", kNoTraits, compositeRule,
                  {"name", "composite_attributes", "decomposition", "version"},
                  "A named op with a decomposition function.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.optimization_barrier", kHasSideEffect, optimizationBarrierRule, {},
                  "Blocks optimizations across its operands.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.tuple", kPure, tupleRule, {}, "Builds a tuple.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.get_tuple_element", kPure, getTupleElementRule, {"index"}, "Extracts a tuple element.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.custom_call", kHasSideEffect, customCallRule,
                  {"call_target_name", "has_side_effect", "backend_config", "api_version", "called_computations",
                   "operand_layouts", "result_layouts", "output_operand_aliases"},
                  "Calls an implementation-defined operation.", PrettyForm::kCustom});
  // Its operands are checked against the enclosing op by the verifier.
  defs.push_back({"stablehlo.return", kTerminator | kReturnLike | kPure, nullptr, {},
                  "Returns values from a stablehlo region.", PrettyForm::kCustom});
}

}  // namespace kiln
