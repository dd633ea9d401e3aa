// Random numbers, channels, host communication and tokens, asynchronous
// computations, quantization.
#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

RuleResult rngRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  constexpr uint32_t kAllowed = kBoolOrInt | kFloat;
  KILN_ASSIGN_OR_RETURN(Type a, tensorOperand(ctx, 0, "a", kAllowed));
  KILN_ASSIGN_OR_RETURN(Type b, tensorOperand(ctx, 1, "b", kAllowed));
  KILN_ASSIGN_OR_RETURN(Type shape, tensorOperand(ctx, 2, "shape", kInt));
  KILN_RETURN_IF_ERROR(checkRank(ctx, a, "a", 0));
  KILN_RETURN_IF_ERROR(checkRank(ctx, b, "b", 0));
  KILN_RETURN_IF_ERROR(checkRank(ctx, shape, "shape", 1));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  if (a.elementType() != b.elementType() || a.elementType() != result.elementType())  // (C1)
    return ctx.error("expects a, b and result to have the same element type, got " + a.str() + ", " + b.str() +
                     " and " + result.str());
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> distribution, enumAttr(ctx, "rng_distribution", {"UNIFORM", "NORMAL"}));
  if (!distribution) return ctx.error("requires attribute 'rng_distribution'");
  if (*distribution == "NORMAL" && !a.elementType().isFloat())  // (C2)
    return ctx.error("expects a floating-point type for the NORMAL distribution, got " + a.str());
  if (shape.shape()[0] != result.rank())  // (C3)
    return ctx.error("expects shape to have rank(result) = " + str(result.rank()) + " elements, got " + shape.str());
  return Types{result};
}

RuleResult rngBitGeneratorRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type state, tensorOperand(ctx, 0, "initial_state", kUnsignedInt));
  KILN_RETURN_IF_ERROR(checkRank(ctx, state, "initial_state", 1));
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> algorithm,
                        enumAttr(ctx, "rng_algorithm", {"DEFAULT", "THREE_FRY", "PHILOX"}));
  if (!algorithm) return ctx.error("requires attribute 'rng_algorithm'");
  // (C2) the state size of each algorithm, counted in ui64 words.
  if (state.elementType() == Type::integer(64, true)) {
    int64_t size = state.shape()[0];
    if ((*algorithm == "THREE_FRY" && size != 2) || (*algorithm == "PHILOX" && size != 2 && size != 3))
      return ctx.error("expects an initial_state of " + std::string(*algorithm == "PHILOX" ? "2 or 3" : "2") +
                       " elements for " + *algorithm + ", got " + state.str());
  }
  KILN_ASSIGN_OR_RETURN(Types results, declaredResults(ctx, 2));
  if (results[0] != state)  // (C1)
    return ctx.error("expects output_state to have the type of initial_state, got " + results[0].str());
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, results[1], "output", kInt | kFloat));
  return results;
}

// A token operand at position `i`.
Status checkToken(const OpTypeContext& ctx, size_t i, std::string_view name) {
  if (i < ctx.operandTypes.size() && ctx.operandTypes[i].isToken()) return Status::ok();
  return ctx.error("expects " + std::string(name) + " to be a !stablehlo.token");
}

// infeed and recv: tensors (payload) followed by a token, as declared.
RuleResult payloadThenTokenResults(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_RETURN_IF_ERROR(checkToken(ctx, 0, "token"));
  KILN_ASSIGN_OR_RETURN(Types results, declaredResults(ctx));
  if (results.empty() || !results.back().isToken())  // (C1)/(C2), (C3)/(C4)
    return ctx.error("expects the last result to be a !stablehlo.token");
  for (size_t i = 0; i + 1 < results.size(); ++i)
    if (!results[i].isTensor()) return ctx.error("expects the results before the token to be tensors, got " + results[i].str());
  return results;
}

// outfeed and send: tensors followed by a token, giving a token.
RuleResult payloadThenTokenOperands(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 1));
  size_t last = ctx.operandTypes.size() - 1;
  KILN_RETURN_IF_ERROR(checkToken(ctx, last, "the last operand"));
  for (size_t i = 0; i < last; ++i) KILN_RETURN_IF_ERROR(checkTensorOf(ctx, ctx.operandTypes[i], "inputs", kAnyElement));
  return Types{Type::token()};
}

// send and recv (C1): a host transfer goes through a DEVICE_TO_HOST (send) or
// HOST_TO_DEVICE (recv) channel, any other transfer through a DEVICE_TO_DEVICE
// one (channel types 2, 3 and 1 of channel_handle).
Status checkChannelType(const OpTypeContext& ctx, int64_t hostTransferType) {
  Attribute handle = ctx.attr("channel_handle");
  Attribute type = handle && handle.is(AttrKind::Struct) ? handle.get("type") : Attribute();
  if (!type || !type.is(AttrKind::Integer)) return Status::ok();
  bool hostTransfer = boolAttrOr(ctx, "is_host_transfer", false);
  int64_t want = hostTransfer ? hostTransferType : 1;
  if (type.intValue() == want) return Status::ok();
  const char* names[] = {"CHANNEL_TYPE_INVALID", "DEVICE_TO_DEVICE", "DEVICE_TO_HOST", "HOST_TO_DEVICE"};
  int64_t got = type.intValue();
  return ctx.error("expects channel type " + std::string(names[want]) + " when is_host_transfer is " +
                   (hostTransfer ? "true" : "false") + ", got " +
                   (got >= 0 && got < 4 ? std::string(names[got]) : "type " + str(got)));
}

RuleResult sendRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types results, payloadThenTokenOperands(ctx));
  KILN_RETURN_IF_ERROR(checkChannelType(ctx, /*DEVICE_TO_HOST*/ 2));
  return results;
}

RuleResult recvRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types results, payloadThenTokenResults(ctx));
  KILN_RETURN_IF_ERROR(checkChannelType(ctx, /*HOST_TO_DEVICE*/ 3));
  return results;
}

RuleResult afterAllRule(const OpTypeContext& ctx) {
  for (size_t i = 0; i < ctx.operandTypes.size(); ++i) KILN_RETURN_IF_ERROR(checkToken(ctx, i, "inputs"));
  return Types{Type::token()};
}

// async_start / async_done are not in the specification's text (they come
// from XLA's asynchronous HLO): async_start runs `called_computation` on its
// operands (the verifier checks the callee's inputs) and gives a declared
// future; async_done waits for one future and gives the declared results.
RuleResult asyncStartRule(const OpTypeContext& ctx) {
  Attribute callee = ctx.attr("called_computation");
  if (!callee || !callee.is(AttrKind::SymbolRef)) return ctx.error("requires a symbol attribute 'called_computation'");
  return declaredResults(ctx);
}

RuleResult asyncDoneRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  return declaredResults(ctx);
}

RuleResult uniformQuantizeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kFloat | kQuant));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, result, "result", kQuant));
  if (!sameShape(operand, result))  // (C1)
    return ctx.error("expects operand and result to have the same shape, got " + operand.str() + " and " + result.str());
  if (expressedOrSelf(operand.elementType()) != result.elementType().quant().expressedType)  // (C2)
    return ctx.error("expects the expressed type of the result to be " + expressedOrSelf(operand.elementType()).str() +
                     ", got " + result.str());
  return Types{result};
}

RuleResult uniformDequantizeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kQuant));
  return Types{operand.withElementType(operand.elementType().quant().expressedType)};  // (C1), (C2)
}

}  // namespace

void registerMiscOps(std::vector<OpDef>& defs) {
  defs.push_back({"stablehlo.rng", kHasSideEffect, rngRule, {"rng_distribution"}, "Random numbers (deprecated).",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.rng_bit_generator", kPure, rngBitGeneratorRule, {"rng_algorithm"},
                  "Random bits from an explicit state.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.send", kHasSideEffect, sendRule,
                  {"channel_handle", "is_host_transfer", "source_target_pairs"}, "Sends values to a channel."});
  defs.push_back({"stablehlo.recv", kHasSideEffect, recvRule,
                  {"channel_handle", "is_host_transfer", "source_target_pairs"}, "Receives values from a channel."});
  defs.push_back({"stablehlo.infeed", kHasSideEffect, payloadThenTokenResults, {"infeed_config", "layout"},
                  "Reads from the infeed."});
  defs.push_back({"stablehlo.outfeed", kHasSideEffect, payloadThenTokenOperands, {"outfeed_config"},
                  "Writes to the outfeed."});
  defs.push_back({"stablehlo.after_all", kPure, afterAllRule, {}, "Joins tokens.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.async_start", kHasSideEffect, asyncStartRule, {"called_computation", "execution_thread"},
                  "Starts an asynchronous computation."});
  defs.push_back({"stablehlo.async_done", kHasSideEffect, asyncDoneRule, {}, "Waits for an asynchronous computation."});
  defs.push_back({"stablehlo.uniform_quantize", kPure | kElementwise, uniformQuantizeRule, {}, "Quantizes.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.uniform_dequantize", kPure | kElementwise, uniformDequantizeRule, {}, "Dequantizes.",
                  PrettyForm::kSameType});
}

}  // namespace kiln
