// The module-level checks of Shardy's shardings (see sdy.h for what is an
// error and why non-divisible dimensions are not).
#include <algorithm>
#include <set>

#include "kiln/ir/ops/sdy.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln::sdy {
namespace {

using sharding::TensorSharding;

Status opError(const Operation& op, const std::string& message) {
  return error(op.loc(), "'" + op.name() + "' op " + message);
}

// The message of a failed Status or Expected, without location.
std::string messageOf(const Status& status) { return status.diag().message; }

Expected<std::vector<TensorSharding>> perValue(const Operation& op, std::string_view name, size_t count,
                                               const std::string& what) {
  Attribute attr = op.attr(name);
  if (!attr || !attr.is(AttrKind::Opaque)) return opError(op, "requires a '#sdy.sharding_per_value<...>' attribute '" +
                                                                  std::string(name) + "'");
  Expected<std::vector<TensorSharding>> shardings = sharding::parseShardingPerValue(attr.stringValue());
  if (!shardings) return opError(op, "has " + messageOf(shardings.status()));
  if (shardings->size() != count)
    return opError(op, "has " + std::to_string(shardings->size()) + " sharding(s) in '" + std::string(name) +
                           "' for " + std::to_string(count) + " " + what);
  return shardings;
}

// The shape a manual computation's body sees of a tensor of type `global`
// sharded by `s`: each dimension divided by the sizes of its manual axes.
Expected<Type> localType(const Operation& op, const TensorSharding& s, const sharding::Mesh& mesh, Type global,
                         const std::set<std::string>& manual, const std::string& what) {
  std::vector<int64_t> shape(global.shape().begin(), global.shape().end());
  for (size_t d = 0; d < s.dims.size() && d < shape.size(); ++d) {
    int64_t parts = 1;
    const std::string* freeAxis = nullptr;
    for (const std::string& axis : s.dims[d].axes) {
      if (!manual.count(axis)) {
        freeAxis = &axis;
        continue;
      }
      if (freeAxis)
        return opError(op, "has " + what + " whose dimension " + std::to_string(d) + " lists manual axis \"" + axis +
                               "\" after free axis \"" + *freeAxis + "\"");
      parts *= mesh.axisSize(axis);
    }
    if (shape[d] != Type::kDynamic && shape[d] % parts != 0)
      return opError(op, "has " + what + " whose dimension " + std::to_string(d) + " of size " +
                             std::to_string(shape[d]) + " does not divide over its manual axes (" +
                             std::to_string(parts) + " devices)");
    if (shape[d] != Type::kDynamic) shape[d] /= parts;
  }
  return Type::tensor(shape, global.elementType());
}

}  // namespace

Expected<sharding::Mesh> ShardingVerifier::meshOf(const TensorSharding& s) {
  if (s.inlineMesh) {
    Status wellFormed = sharding::checkMesh(*s.inlineMesh);
    if (!wellFormed.isOk()) return error("writes an ill-formed mesh " + messageOf(wellFormed));
    return *s.inlineMesh;
  }
  if (!meshesLoaded_ && module_ && module_->numRegions() == 1 && !module_->region(0).empty()) {
    for (const Operation& top : module_->region(0).front()) {
      Attribute name = top.attr("sym_name"), mesh = top.attr("mesh");
      if (top.name() != "sdy.mesh" || !name || !mesh || !mesh.is(AttrKind::Opaque)) continue;
      if (Expected<sharding::Mesh> m = sharding::parseMesh(mesh.stringValue()))
        meshes_.emplace(name.stringValue(), std::move(*m));
    }
    meshesLoaded_ = true;
  }
  if (auto it = meshes_.find(s.meshName); it != meshes_.end()) return it->second;
  return error("refers to mesh @" + s.meshName + ", which is not an sdy.mesh of this module");
}

Status ShardingVerifier::verifyTensorSharding(const Operation& op, const TensorSharding& s, Type type,
                                              const std::string& what) {
  // Without a module (an op verified alone) the mesh cannot be looked up.
  if (!module_ && !s.inlineMesh) return Status::ok();
  Expected<sharding::Mesh> mesh = meshOf(s);
  if (!mesh) return opError(op, "has " + what + " that " + messageOf(mesh.status()));
  // A maximal mesh (one device, no axes) takes a sharding without
  // dimensions whatever the tensor's rank, as Shardy has it.
  if (mesh->axes.empty() && mesh->deviceIds.size() == 1) {
    if (s.dims.empty() && s.replicated.empty() && s.unreduced.empty()) return Status::ok();
    return opError(op, "has " + what + " over the maximal mesh of device " + std::to_string(mesh->deviceIds[0]) +
                           ", which must have no dimensions and no replicated or unreduced axes");
  }
  if (!type.isTensor()) return Status::ok();
  Status checked = sharding::checkSharding(s, *mesh, type.shape(), /*requireDivisible=*/false);
  if (!checked.isOk()) return opError(op, "has " + what + " that does not fit " + type.str() + ": " + messageOf(checked));
  return Status::ok();
}

Status ShardingVerifier::verify(const Operation& op) {
  if (op.name() == "func.func") return verifyFunction(op);
  if (Attribute attr = op.attr("sdy.sharding")) {
    // JAX puts one sharding on an op without results (a host callback): the
    // device it runs on.
    size_t expected = std::max<size_t>(op.numResults(), 1);
    KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> shardings, perValue(op, "sdy.sharding", expected, "result(s)"));
    for (unsigned i = 0; i < op.numResults(); ++i)
      KILN_RETURN_IF_ERROR(verifyTensorSharding(op, shardings[i], op.result(i)->type(),
                                                "a sharding for result #" + std::to_string(i)));
    if (op.numResults() == 0 && !shardings[0].dims.empty())
      return opError(op, "has no results but a sharding of " + std::to_string(shardings[0].dims.size()) +
                             " dimension(s)");
  }
  const std::string& name = op.name();
  if ((name == "sdy.sharding_constraint" || name == "sdy.reshard") && op.numOperands() == 1) {
    Expected<TensorSharding> s = sharding::parseSharding(op.attr("sharding").stringValue());
    if (!s) return opError(op, "has " + messageOf(s.status()));
    return verifyTensorSharding(op, *s, op.operand(0)->type(), "a sharding");
  }
  if (name == "sdy.manual_computation") return verifyManualComputation(op);
  return Status::ok();
}

Status ShardingVerifier::verifyFunction(const Operation& fn) {
  Type type = func::type(fn);
  if (!type.isFunction()) return Status::ok();
  auto check = [&](std::string_view listName, std::span<const Type> types, const std::string& what) -> Status {
    Attribute list = fn.attr(listName);
    if (!list || !list.is(AttrKind::Array)) return Status::ok();
    for (size_t i = 0; i < list.arrayValue().size() && i < types.size(); ++i) {
      const Attribute& dict = list.arrayValue()[i];
      Attribute attr = dict && dict.is(AttrKind::Dictionary) ? dict.get("sdy.sharding") : Attribute();
      if (!attr) continue;
      std::string where = what + " #" + std::to_string(i);
      if (!attr.is(AttrKind::Opaque)) return opError(fn, "has a non-sdy 'sdy.sharding' on " + where);
      Expected<TensorSharding> s = sharding::parseSharding(attr.stringValue());
      if (!s) return opError(fn, "has, on " + where + ", " + messageOf(s.status()));
      KILN_RETURN_IF_ERROR(verifyTensorSharding(fn, *s, types[i], "a sharding on " + where));
    }
    return Status::ok();
  };
  KILN_RETURN_IF_ERROR(check("arg_attrs", type.inputs(), "argument"));
  return check("res_attrs", type.results(), "result");
}

// Shardy's ManualComputationOp rules: a sharding per operand and result,
// manual axes of the mesh, and a body whose arguments and sdy.return
// operands have the local shapes the manual axes give.
Status ShardingVerifier::verifyManualComputation(const Operation& op) {
  KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> in, perValue(op, "in_shardings", op.numOperands(), "operand(s)"));
  KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> out, perValue(op, "out_shardings", op.numResults(), "result(s)"));
  Attribute axesAttr = op.attr("manual_axes");
  if (!axesAttr || !axesAttr.is(AttrKind::Opaque)) return opError(op, "requires a '#sdy<manual_axes{...}>' attribute");
  Expected<std::vector<std::string>> manualAxes = sharding::parseManualAxes(axesAttr.stringValue());
  if (!manualAxes) return opError(op, "has " + messageOf(manualAxes.status()));
  std::set<std::string> manual(manualAxes->begin(), manualAxes->end());
  if (manual.size() != manualAxes->size()) return opError(op, "names a manual axis twice");
  if (op.numRegions() != 1 || op.region(0).numBlocks() != 1) return opError(op, "expects a body of one block");
  const Block& body = op.region(0).front();
  if (body.numArguments() != op.numOperands())
    return opError(op, "has " + std::to_string(body.numArguments()) + " body argument(s) for " +
                           std::to_string(op.numOperands()) + " operand(s)");
  const Operation* ret = body.terminator();
  if (!ret || ret->name() != "sdy.return") return opError(op, "expects its body to end with 'sdy.return'");
  if (ret->numOperands() != op.numResults())
    return opError(*ret, "returns " + std::to_string(ret->numOperands()) + " value(s) for " +
                             std::to_string(op.numResults()) + " result(s) of the manual computation");

  // One value's global type, sharding and local (body-side) type.
  auto check = [&](const TensorSharding& s, Type global, Type local, const std::string& what) -> Status {
    KILN_RETURN_IF_ERROR(verifyTensorSharding(op, s, global, what));
    if (!module_ && !s.inlineMesh) return Status::ok();
    KILN_ASSIGN_OR_RETURN(sharding::Mesh mesh, meshOf(s));
    for (const std::string& axis : manual)
      if (mesh.axisIndex(axis) < 0) return opError(op, "has manual axis \"" + axis + "\", which is not in the mesh of " + what);
    if (!global.isTensor()) return Status::ok();
    KILN_ASSIGN_OR_RETURN(Type expected, localType(op, s, mesh, global, manual, what));
    if (local != expected)
      return opError(op, "has " + what + " of global type " + global.str() + " whose body type is " + local.str() +
                             ", but its manual axes make it " + expected.str());
    return Status::ok();
  };
  // The manual axes are axes of one mesh, which every sharding uses.
  const TensorSharding* first = !in.empty() ? &in.front() : !out.empty() ? &out.front() : nullptr;
  for (const std::vector<TensorSharding>* list : {&in, &out})
    for (const TensorSharding& s : *list)
      if (s.meshName != first->meshName || s.inlineMesh != first->inlineMesh)
        return opError(op, "has shardings over different meshes (" + sharding::printShardingBody(*first) + " and " +
                               sharding::printShardingBody(s) + ")");
  for (unsigned i = 0; i < op.numOperands(); ++i)
    KILN_RETURN_IF_ERROR(check(in[i], op.operand(i)->type(), body.argument(i)->type(), "operand #" + std::to_string(i)));
  for (unsigned i = 0; i < op.numResults(); ++i)
    KILN_RETURN_IF_ERROR(check(out[i], op.result(i)->type(), ret->operand(i)->type(), "result #" + std::to_string(i)));
  return Status::ok();
}

}  // namespace kiln::sdy
