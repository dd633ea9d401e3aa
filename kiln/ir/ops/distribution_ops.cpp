// Collective and distribution ops.
#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// channel_id: the handle of `channel_handle`, 0 when absent.
int64_t channelId(const OpTypeContext& ctx) {
  Attribute h = ctx.attr("channel_handle");
  Attribute id = h && h.is(AttrKind::Struct) ? h.get("handle") : Attribute();
  return id && id.is(AttrKind::Integer) ? id.intValue() : 0;
}

// The process-group constraints shared by all_gather, all_reduce and
// reduce_scatter: unique replica ids 0..N-1 and "use_global_device_ids implies
// channel_id > 0". Returns the group size. Only all_reduce's groups may be
// ragged (padded with -1).
Expected<std::optional<int64_t>> checkProcessGroups(const OpTypeContext& ctx, bool ragged) {
  KILN_ASSIGN_OR_RETURN(std::optional<int64_t> groupSize, checkReplicaGroups(ctx, ragged, /*denseIds=*/true));
  if (boolAttrOr(ctx, "use_global_device_ids", false) && channelId(ctx) <= 0)
    return ctx.error("expects channel_id > 0 when use_global_device_ids is set");
  return groupSize;
}

// A variadic list of tensor operands (at least one).
Expected<Types> tensorOperands(const OpTypeContext& ctx, std::string_view name) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 1));
  Types out;
  for (size_t i = 0; i < ctx.operandTypes.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(Type t, tensorOperand(ctx, i, name, kAnyOrPerTensorQuant));
    out.push_back(t);
  }
  return out;
}

// all_gather and reduce_scatter change one dimension by the group size. When
// replica_groups is empty the size is not known statically and the declared
// results are checked in every other dimension.
RuleResult resizedAlongDim(const OpTypeContext& ctx, const Types& operands, int64_t dim,
                           std::optional<int64_t> groupSize, bool gather, const Types& elements) {
  Types results;
  for (size_t i = 0; i < operands.size(); ++i) {
    Dims shape(operands[i].shape().begin(), operands[i].shape().end());
    if (groupSize) {
      if (!gather && shape[dim] != Type::kDynamic && shape[dim] % *groupSize != 0)
        return ctx.error("expects dimension " + str(dim) + " of " + operands[i].str() +
                         " to be divisible by the group size " + str(*groupSize));
      if (gather && shape[dim] != Type::kDynamic && __builtin_mul_overflow(shape[dim], *groupSize, &shape[dim]))
        return ctx.error("has a result size in dimension " + str(dim) + " that overflows int64");
      if (!gather && shape[dim] != Type::kDynamic) shape[dim] /= *groupSize;
    } else if (ctx.hasDeclaredResults && i < ctx.declaredResults.size() && ctx.declaredResults[i].isTensor() &&
               ctx.declaredResults[i].rank() == operands[i].rank()) {
      shape[dim] = ctx.declaredResults[i].shape()[dim];
    }
    results.push_back(Type::tensor(shape, elements[i]));
  }
  return inferredOrCompatibleDeclared(ctx, results);
}

RuleResult allGatherRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types operands, tensorOperands(ctx, "operands"));
  KILN_ASSIGN_OR_RETURN(int64_t dim, intAttr(ctx, "all_gather_dim"));
  for (Type t : operands) KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "all_gather_dim", {&dim, 1}, t.rank()));  // (C1)
  KILN_ASSIGN_OR_RETURN(std::optional<int64_t> groupSize, checkProcessGroups(ctx, /*ragged=*/false));  // (C2)-(C5)
  return resizedAlongDim(ctx, operands, dim, groupSize, true, elementTypesOf(operands));  // (C6)
}

RuleResult allReduceRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types operands, tensorOperands(ctx, "operands"));
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  // (C1)-(C4)
  KILN_ASSIGN_OR_RETURN([[maybe_unused]] std::optional<int64_t> groupSize, checkProcessGroups(ctx, /*ragged=*/true));
  Types results;
  for (Type t : operands) {
    // (C5) computation: (tensor<E>, tensor<E>) -> tensor<E>, promotable from each operand.
    KILN_ASSIGN_OR_RETURN(Types e, reductionBodyElements(ctx, 0, "computation", std::vector{t.elementType()}));
    results.push_back(t.withElementType(e[0]));  // (C6), (C7)
  }
  return inferredOrCompatibleDeclared(ctx, results);
}

RuleResult allToAllRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types operands, tensorOperands(ctx, "operands"));
  KILN_ASSIGN_OR_RETURN(int64_t splitDim, intAttr(ctx, "split_dimension"));
  KILN_ASSIGN_OR_RETURN(int64_t concatDim, intAttr(ctx, "concat_dimension"));
  KILN_ASSIGN_OR_RETURN(int64_t splitCount, intAttr(ctx, "split_count"));
  if (splitCount <= 0) return ctx.error("expects split_count > 0, got " + str(splitCount));  // (C4)
  // (C5)-(C7)
  KILN_ASSIGN_OR_RETURN(std::optional<int64_t> groupSize, checkReplicaGroups(ctx, /*ragged=*/false, /*denseIds=*/true));
  if (groupSize && *groupSize != splitCount)                                              // (C8)
    return ctx.error("expects replica groups of split_count (" + str(splitCount) + ") processes, got " +
                     str(*groupSize));
  Types results;
  for (Type t : operands) {
    KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "split_dimension", {&splitDim, 1}, t.rank()));   // (C1)
    KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "concat_dimension", {&concatDim, 1}, t.rank())); // (C3)
    Dims shape(t.shape().begin(), t.shape().end());
    if (shape[splitDim] != Type::kDynamic && shape[splitDim] % splitCount != 0)  // (C2)
      return ctx.error("expects dimension " + str(splitDim) + " of " + t.str() + " to be divisible by split_count " +
                       str(splitCount));
    // (C9); a `?` dimension stays one. The product fits in int64 (the
    // operand's element count does) unless split_dimension is `?`.
    if (shape[splitDim] != Type::kDynamic) shape[splitDim] /= splitCount;
    if (shape[concatDim] != Type::kDynamic &&
        __builtin_mul_overflow(shape[concatDim], splitCount, &shape[concatDim]))
      return ctx.error("has a result size in dimension " + str(concatDim) + " that overflows int64");
    results.push_back(Type::tensor(shape, t.elementType()));
  }
  return inferredOrCompatibleDeclared(ctx, results);
}

RuleResult reduceScatterRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(int64_t dim, intAttr(ctx, "scatter_dimension"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "scatter_dimension", {&dim, 1}, operand.rank()));  // (C2)
  KILN_ASSIGN_OR_RETURN(std::optional<int64_t> groupSize, checkProcessGroups(ctx, /*ragged=*/false));  // (C3)-(C6)
  KILN_ASSIGN_OR_RETURN(Types e, reductionBodyElements(ctx, 0, "computation", std::vector{operand.elementType()}));  // (C7)
  return resizedAlongDim(ctx, {operand}, dim, groupSize, false, e);  // (C1), (C8), (C9)
}

RuleResult collectivePermuteRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types operands, tensorOperands(ctx, "operand"));
  KILN_ASSIGN_OR_RETURN(std::optional<DenseInts> pairs, denseIntsAttr(ctx, "source_target_pairs"));
  if (!pairs) return ctx.error("requires attribute 'source_target_pairs'");
  if (pairs->shape.size() != 2 || (pairs->shape[1] != 2 && !pairs->values.empty()))  // (C1)
    return ctx.error("expects source_target_pairs to have shape [N, 2], got " + dimsStr(pairs->shape));
  Dims sources, targets;
  for (size_t i = 0; i + 1 < pairs->values.size(); i += 2) {
    sources.push_back(pairs->values[i]);
    targets.push_back(pairs->values[i + 1]);
  }
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "sources of source_target_pairs", sources));  // (C2)
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "targets of source_target_pairs", targets));  // (C3)
  for (int64_t v : pairs->values)                                                     // (C4)
    if (v < 0) return ctx.error("expects source_target_pairs to be non-negative, got " + str(v));
  return inferredOrCompatibleDeclared(ctx, operands);  // (C5)
}

// collective_broadcast: (C1), (C2) on replica_groups (ids below the replica or
// partition count, which only the run knows), (C3) type(result) = type(operand).
RuleResult collectiveBroadcastRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN([[maybe_unused]] std::optional<int64_t> groupSize,
                        checkReplicaGroups(ctx, /*ragged=*/false, /*denseIds=*/false));
  return inferredOrCompatibleDeclared(ctx, {operand});
}

// collective_reduce: all_reduce within replica groups; its computation region
// is optional in the text kiln accepts.
RuleResult collectiveReduceRule(const OpTypeContext& ctx) {
  if (!ctx.regions.empty()) return allReduceRule(ctx);
  KILN_ASSIGN_OR_RETURN(Types operands, tensorOperands(ctx, "operands"));
  KILN_ASSIGN_OR_RETURN([[maybe_unused]] std::optional<int64_t> groupSize,
                        checkReplicaGroups(ctx, /*ragged=*/true, /*denseIds=*/false));
  return inferredOrCompatibleDeclared(ctx, operands);
}

RuleResult processIdRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 0));
  return Types{scalarTensor(Type::integer(32, /*isUnsigned=*/true))};
}

}  // namespace

void registerDistributionOps(std::vector<OpDef>& defs) {
  defs.push_back({"stablehlo.all_gather", kHasSideEffect, allGatherRule,
                  {"all_gather_dim", "replica_groups", "channel_handle", "use_global_device_ids"},
                  "Concatenates tensors of all processes."});
  defs.push_back({"stablehlo.all_reduce", kHasSideEffect, allReduceRule,
                  {"replica_groups", "channel_handle", "use_global_device_ids"}, "Reduces across processes."});
  defs.push_back({"stablehlo.all_to_all", kHasSideEffect, allToAllRule,
                  {"split_dimension", "concat_dimension", "split_count", "replica_groups", "channel_handle"},
                  "Splits, exchanges and concatenates across processes."});
  defs.push_back({"stablehlo.reduce_scatter", kHasSideEffect, reduceScatterRule,
                  {"scatter_dimension", "replica_groups", "channel_handle", "use_global_device_ids"},
                  "Reduces across processes and scatters the result."});
  defs.push_back({"stablehlo.collective_permute", kHasSideEffect, collectivePermuteRule,
                  {"source_target_pairs", "channel_handle"}, "Sends tensors between process pairs."});
  defs.push_back({"stablehlo.collective_broadcast", kHasSideEffect, collectiveBroadcastRule,
                  {"replica_groups", "channel_handle"}, "Broadcasts from the first process of each group."});
  defs.push_back({"stablehlo.collective_reduce", kHasSideEffect, collectiveReduceRule,
                  {"replica_groups", "channel_handle"}, "Reduces within process groups."});
  defs.push_back({"stablehlo.partition_id", kPure, processIdRule, {}, "The current partition id.",
                  PrettyForm::kNullary});
  defs.push_back({"stablehlo.replica_id", kPure, processIdRule, {}, "The current replica id.", PrettyForm::kNullary});
}

}  // namespace kiln
