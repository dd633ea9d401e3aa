// kiln's own ops, which only the compiler creates.
//
// kiln.fusion holds a fused computation: its region's block arguments are the
// fusion's operands, its body is ordinary StableHLO ops, and kiln.yield
// returns the fusion's results. The `kind` attribute ("loop", "input",
// "output", "multi_output") records the fusion decision so every later stage
// (and a person reading a dump) sees it.
#include "kiln/ir/op_registry.h"

namespace kiln {
namespace {

Expected<std::vector<Type>> fusionRule(const OpTypeContext& ctx) {
  Attribute kind = ctx.attr("kind");
  if (!kind || !kind.is(AttrKind::String)) return ctx.error("requires a string 'kind' attribute");
  if (ctx.regions.size() != 1 || ctx.regions[0]->numBlocks() != 1)
    return ctx.error("requires one region with one block");
  Block& body = ctx.regions[0]->front();
  if (body.numArguments() != ctx.operandTypes.size())
    return ctx.error("has " + std::to_string(ctx.operandTypes.size()) + " operands but its body takes " +
                     std::to_string(body.numArguments()) + " arguments");
  for (unsigned i = 0; i < body.numArguments(); ++i)
    if (body.argument(i)->type() != ctx.operandTypes[i])
      return ctx.error("operand #" + std::to_string(i) + " has type " + ctx.operandTypes[i].str() +
                       " but body argument has type " + body.argument(i)->type().str());
  Operation* yield = body.terminator();
  if (!yield || yield->name() != "kiln.yield") return ctx.error("body must end with kiln.yield");
  return yield->operandTypes();
}

}  // namespace

void registerKilnOps(std::vector<OpDef>& defs) {
  defs.push_back({"kiln.fusion", kPure | kIsolatedFromAbove, fusionRule, {"kind"},
                  "A fused computation, run as one kernel."});
  defs.push_back({"kiln.yield", kTerminator | kReturnLike | kPure, nullptr, {},
                  "Returns the results of a kiln.fusion body."});
}

}  // namespace kiln
