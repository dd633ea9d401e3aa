#include "kiln/ir/op_registry.h"

#include <algorithm>
#include <mutex>

namespace kiln {
namespace {

struct Registry {
  std::vector<OpDef> defs;  // sorted by name
  Registry() {
    registerBuiltinOps(defs);
    registerStablehloOps(defs);
    registerChloOps(defs);
    registerCheckOps(defs);
    registerKilnOps(defs);
    registerSdyOps(defs);
    registerInterpreterOps(defs);
    std::sort(defs.begin(), defs.end(), [](const OpDef& a, const OpDef& b) { return a.name < b.name; });
  }
};

const Registry& registry() {
  static const Registry* r = new Registry();
  return *r;
}

}  // namespace

const OpDef* lookupOpDef(std::string_view name) {
  const auto& defs = registry().defs;
  auto it = std::lower_bound(defs.begin(), defs.end(), name,
                             [](const OpDef& d, std::string_view n) { return d.name < n; });
  return it != defs.end() && it->name == name ? &*it : nullptr;
}

std::vector<const OpDef*> allOpDefs() {
  std::vector<const OpDef*> out;
  for (const OpDef& d : registry().defs) out.push_back(&d);
  return out;
}

Status OpTypeContext::error(std::string message) const {
  return kiln::error(loc, "'" + std::string(name) + "' op " + message);
}

OpTypeContext typeContextOf(const Operation& op, std::vector<Type>& operandTypes,
                            std::vector<Type>& resultTypes) {
  operandTypes = op.operandTypes();
  resultTypes = op.resultTypes();
  return OpTypeContext{op.name(), op.loc(), operandTypes, op.attrs(), op.regions(), resultTypes, true};
}

OpTypeContext typeContextOf(const OperationState& st, std::vector<Type>& operandTypes) {
  operandTypes.clear();
  for (Value* v : st.operands) operandTypes.push_back(v->type());
  return OpTypeContext{st.name, st.loc, operandTypes, st.attributes, st.regions, st.resultTypes,
                       !st.resultTypes.empty()};
}

Status inferOrCheckResultTypes(OperationState& st) {
  const OpDef* def = lookupOpDef(st.name);
  if (!def || !def->typeRule) return Status::ok();
  std::vector<Type> operandTypes;
  OpTypeContext ctx = typeContextOf(st, operandTypes);
  KILN_ASSIGN_OR_RETURN(std::vector<Type> inferred, def->typeRule(ctx));
  if (st.resultTypes.empty()) {
    st.resultTypes = std::move(inferred);
    return Status::ok();
  }
  return checkResultTypes(ctx, inferred);
}

namespace {

// StableHLO's compatibility of an inferred and a declared type: equal, or
// tensors of one element type and rank whose dimensions agree wherever both
// are static (a `?` on either side matches any size; bounds are not compared).
bool compatible(Type inferred, Type declared) {
  if (inferred == declared) return true;
  if (!inferred.isTensor() || !declared.isTensor() || inferred.elementType() != declared.elementType() ||
      inferred.rank() != declared.rank())
    return false;
  for (int64_t d = 0; d < inferred.rank(); ++d) {
    int64_t a = inferred.shape()[d], b = declared.shape()[d];
    if (a != b && a != Type::kDynamic && b != Type::kDynamic) return false;
  }
  return true;
}

}  // namespace

Status checkResultTypes(const OpTypeContext& ctx, std::span<const Type> inferred) {
  std::span<const Type> declared = ctx.declaredResults;
  if (inferred.size() != declared.size())
    return ctx.error("has " + std::to_string(declared.size()) + " results but " +
                     std::to_string(inferred.size()) + " were expected");
  for (size_t i = 0; i < inferred.size(); ++i)
    if (!compatible(inferred[i], declared[i]))
      return ctx.error("result #" + std::to_string(i) + " has type " + declared[i].str() +
                       " but its operands and attributes give " + inferred[i].str());
  return Status::ok();
}

}  // namespace kiln
