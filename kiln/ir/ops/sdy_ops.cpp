// The Shardy (`sdy`) ops JAX emits around sharding annotations:
//
//   sdy.mesh @mesh = <["x"=2, "y"=4]>           a module-level symbol naming a
//                                                device mesh and its axes;
//   %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
//                                                jax.lax.with_sharding_constraint;
//   %1 = sdy.reshard %0 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
//                                                jax.sharding.reshard.
//
// Both value ops return their operand unchanged: they say how it should be
// laid out across the mesh, which matters only to an SPMD partitioner. On
// one device they are identities (the drop_sharding pass removes them).
// Their attributes stay verbatim Opaque text (`#sdy.mesh<...>`,
// `#sdy.sharding<...>`); sdy.h reads what the verifier checks.
#include "kiln/ir/ops/sdy.h"

#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace sdy {

std::optional<ShardingSummary> summarizeSharding(const Attribute& attr) {
  constexpr std::string_view prefix = "#sdy.sharding<";
  if (!attr || !attr.is(AttrKind::Opaque)) return std::nullopt;
  const std::string& text = attr.stringValue();
  if (!text.starts_with(prefix) || !text.ends_with(">")) return std::nullopt;
  ShardingSummary summary;
  size_t i = prefix.size();
  while (i < text.size() && text[i] == ' ') ++i;
  if (i < text.size() && text[i] == '@') {
    size_t end = text.find(',', i);
    if (end == std::string::npos) return std::nullopt;
    summary.mesh = text.substr(i + 1, end - i - 1);
    if (summary.mesh.size() >= 2 && summary.mesh.front() == '"' && summary.mesh.back() == '"')
      summary.mesh = summary.mesh.substr(1, summary.mesh.size() - 2);
    i = end;
  }
  // The dimension list is the first top-level `[...]` after the mesh (an
  // inline `mesh<[...]>` is nested, so skipped); count its `{...}` entries.
  int depth = 0;
  bool inList = false, inString = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '<' || c == '(' || c == '{' || c == '[') {
      if (inList && depth == 0 && c == '{') ++summary.dimShardings;
      if (!inList && depth == 0 && c == '[') {
        inList = true;
        continue;
      }
      ++depth;
    } else if (c == '>' || c == ')' || c == '}' || c == ']') {
      if (inList && depth == 0 && c == ']') return summary;
      if (--depth < 0) return std::nullopt;
    }
  }
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
  return Types{};
}

// sharding_constraint and reshard: a tensor, returned with its type, and a
// sharding with one entry per dimension. That the mesh exists is checked by
// the verifier, which sees the module.
RuleResult shardedIdentityRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  Type input = ctx.operandTypes[0];
  if (!input.isTensor()) return ctx.error("expects a tensor operand, got " + input.str());
  std::optional<sdy::ShardingSummary> sharding = sdy::summarizeSharding(ctx.attr("sharding"));
  if (!sharding) return ctx.error("requires a '#sdy.sharding<...>' attribute 'sharding'");
  if (sharding->dimShardings != input.rank())
    return ctx.error("has a sharding of " + std::to_string(sharding->dimShardings) + " dimension(s) for a tensor of rank " +
                     std::to_string(input.rank()));
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
  // shard_map and pmap: the body runs on each device's shards of the
  // operands (its block arguments have the local shapes), with collectives
  // across the manual axes; results are the global values. Printed in the
  // generic form. The spmd passes lower it (kiln/passes/inline_manual_computation.cpp).
  defs.push_back({"sdy.manual_computation", kNoTraits, nullptr, {"in_shardings", "out_shardings", "manual_axes"},
                  "A body run per device on local shards (shard_map, pmap)."});
  defs.push_back({"sdy.return", kTerminator | kReturnLike, nullptr, {}, "Ends a sdy.manual_computation body."});
}

}  // namespace kiln
