// The Shardy (`sdy`) ops JAX emits around sharding annotations:
//
//   sdy.mesh @mesh = <["x"=2, "y"=4]>           a module-level symbol naming a
//                                                device mesh and its axes;
//   %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
//                                                jax.lax.with_sharding_constraint;
//   %1 = sdy.reshard %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
//                                                jax.sharding.reshard;
//   sdy.sharding_group %0 group_id=0 : tensor<8xf32>
//                                                shard_alike: the values of a
//                                                group get one sharding;
//   %1 = sdy.propagation_barrier %0 allowed_direction=NONE : tensor<8xf32>
//                                                stops propagation through it
//                                                (in the directions not allowed).
//
// The value ops return their operand unchanged: they say how it should be
// laid out across the mesh, which matters only to an SPMD partitioner. On
// one device they are identities (the drop_sharding pass removes them).
// Their mesh and sharding attributes stay verbatim Opaque text
// (`#sdy.mesh<...>`, `#sdy.sharding<...>`; the barrier's direction is an i32,
// as Shardy stores it); kiln/ir/sharding.h reads them, and the checks that
// need the module's meshes are in sdy_verifier.cpp.
#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/sdy.h"
#include "kiln/ir/ops/type_rule_helpers.h"
#include "kiln/ir/sharding.h"

namespace kiln {

namespace sdy {

constexpr const char* kPropagationDirections[] = {"NONE", "FORWARD", "BACKWARD", "BOTH"};

const char* propagationDirectionName(int64_t value) {
  return value >= 0 && value < 4 ? kPropagationDirections[value] : nullptr;
}

std::optional<int64_t> propagationDirectionValue(std::string_view name) {
  for (int64_t i = 0; i < 4; ++i)
    if (name == kPropagationDirections[i]) return i;
  return std::nullopt;
}

}  // namespace sdy

namespace {
using namespace rules;

bool isOpaqueWithPrefix(const Attribute& attr, std::string_view prefix) {
  return attr && attr.is(AttrKind::Opaque) && attr.stringValue().starts_with(prefix);
}

RuleResult meshRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 0));
  Attribute name = ctx.attr("sym_name");
  if (!name || !name.is(AttrKind::String)) return ctx.error("requires a 'sym_name' string attribute");
  if (!isOpaqueWithPrefix(ctx.attr("mesh"), "#sdy.mesh<")) return ctx.error("requires a '#sdy.mesh<...>' attribute 'mesh'");
  Expected<sharding::Mesh> mesh = sharding::parseMesh(ctx.attr("mesh").stringValue());
  if (!mesh) return ctx.error("has " + mesh.status().diag().message);
  Status wellFormed = sharding::checkMesh(*mesh);
  if (!wellFormed.isOk()) return ctx.error("has an ill-formed mesh " + wellFormed.diag().message);
  return Types{};
}

// sharding_constraint and reshard: a tensor, returned with its type, and a
// sharding with one entry per dimension. That the mesh exists is checked by
// the verifier, which sees the module.
RuleResult shardedIdentityRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  Type input = ctx.operandTypes[0];
  if (!input.isTensor()) return ctx.error("expects a tensor operand, got " + input.str());
  if (!isOpaqueWithPrefix(ctx.attr("sharding"), "#sdy.sharding<"))
    return ctx.error("requires a '#sdy.sharding<...>' attribute 'sharding'");
  Expected<sharding::TensorSharding> sharding = sharding::parseSharding(ctx.attr("sharding").stringValue());
  if (!sharding) return ctx.error("has " + sharding.status().diag().message);
  if (static_cast<int64_t>(sharding->dims.size()) != input.rank())
    return ctx.error("has a sharding of " + std::to_string(sharding->dims.size()) +
                     " dimension(s) for a tensor of rank " + std::to_string(input.rank()));
  return Types{input};
}

// sharding_group: a tensor joins the group `group_id`; no result.
RuleResult shardingGroupRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  if (!ctx.operandTypes[0].isTensor()) return ctx.error("expects a tensor operand, got " + ctx.operandTypes[0].str());
  Attribute group = ctx.attr("group_id");
  if (!group || !group.is(AttrKind::Integer)) return ctx.error("requires an integer attribute 'group_id'");
  if (group.intValue() < 0) return ctx.error("has a negative group_id " + std::to_string(group.intValue()));
  return Types{};
}

// propagation_barrier: an identity whose allowed direction is NONE, FORWARD
// or BACKWARD. Shardy rejects BOTH: a barrier that lets everything through is
// no barrier.
RuleResult propagationBarrierRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  Type input = ctx.operandTypes[0];
  if (!input.isTensor()) return ctx.error("expects a tensor operand, got " + input.str());
  Attribute direction = ctx.attr("allowed_direction");
  if (!direction || !direction.is(AttrKind::Integer))
    return ctx.error("requires an integer attribute 'allowed_direction' (0 NONE, 1 FORWARD, 2 BACKWARD)");
  const char* name = sdy::propagationDirectionName(direction.intValue());
  if (!name) return ctx.error("has an unknown propagation direction " + std::to_string(direction.intValue()));
  if (std::string_view(name) == "BOTH") return ctx.error("cannot allow propagation in BOTH directions");
  return Types{input};
}

}  // namespace

void registerSdyOps(std::vector<OpDef>& defs) {
  defs.push_back({"sdy.mesh", kNoTraits, meshRule, {"sym_name", "mesh"}, "Names a device mesh (module level).",
                  PrettyForm::kCustom});
  defs.push_back({"sdy.sharding_constraint", kPure | kSameOperandsAndResultType, shardedIdentityRule, {"sharding"},
                  "Asks for a tensor to be sharded as given; an identity on one device.", PrettyForm::kCustom});
  defs.push_back({"sdy.reshard", kPure | kSameOperandsAndResultType, shardedIdentityRule, {"sharding"},
                  "Reshards a tensor as given; an identity on one device.", PrettyForm::kCustom});
  // Not pure: a group has no result, and dce must keep it.
  defs.push_back({"sdy.sharding_group", kNoTraits, shardingGroupRule, {"group_id"},
                  "Puts a tensor in a group whose members share one sharding (shard_alike).", PrettyForm::kCustom});
  defs.push_back({"sdy.propagation_barrier", kPure | kSameOperandsAndResultType, propagationBarrierRule,
                  {"allowed_direction"}, "Blocks sharding propagation through a value; an identity.",
                  PrettyForm::kCustom});
  // shard_map and pmap: the body runs on each device's shards of the
  // operands (its block arguments have the local shapes), with collectives
  // across the manual axes; results are the global values. The verifier
  // checks its shardings and local shapes (sdy_verifier.cpp); the spmd passes
  // lower it (kiln/passes/inline_manual_computation.cpp).
  defs.push_back({"sdy.manual_computation", kNoTraits, nullptr, {"in_shardings", "out_shardings", "manual_axes"},
                  "A body run per device on local shards (shard_map, pmap).", PrettyForm::kCustom});
  defs.push_back({"sdy.return", kTerminator | kReturnLike, nullptr, {}, "Ends a sdy.manual_computation body.",
                  PrettyForm::kCustom});
}

}  // namespace kiln
