// Which ops the elemental emitter computes (see element_ops.h).
#include "kiln/codegen/element_ops.h"

#include <string>

#include "kiln/ir/op_registry.h"

namespace kiln::codegen {

bool isElementwiseOp(std::string_view name) {
  // bitcast_convert between types of one width is elementwise too (the
  // registry cannot say so: across widths it changes the shape).
  const OpDef* def = lookupOpDef(name);
  return (def && def->has(kElementwise)) || name == "stablehlo.bitcast_convert";
}

bool isIndexMapping(std::string_view name) {
  const OpDef* def = lookupOpDef(name);
  return def && (def->has(kIndexMap) || def->has(kDynamicIndexMap));
}

bool isElementalOp(std::string_view name) {
  return isElementwiseOp(name) || isIndexMapping(name) || name == "stablehlo.reduce" ||
         name == "stablehlo.reduce_window";
}

Status unsupported(std::string_view backend, const Operation& op, std::string_view what) {
  std::string message = "the " + std::string(backend) + " back end cannot compile '" + op.name() + "'";
  if (!what.empty()) message += " " + std::string(what);
  message += " yet (" + op.loc().str() + ")";
  return error(op.loc(), std::move(message));
}

}  // namespace kiln::codegen
