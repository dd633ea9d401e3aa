#include "kiln/passes/sharding_annotations.h"

namespace kiln::sharding {
namespace {

Expected<std::optional<TensorSharding>> entryOf(const Operation& fn, std::string_view list, unsigned i) {
  Attribute all = fn.attr(list);
  if (!all || !all.is(AttrKind::Array) || i >= all.arrayValue().size()) return std::optional<TensorSharding>();
  Attribute dict = all.arrayValue()[i];
  Attribute s = dict && dict.is(AttrKind::Dictionary) ? dict.get("sdy.sharding") : Attribute();
  if (!s || !s.is(AttrKind::Opaque)) return std::optional<TensorSharding>();
  KILN_ASSIGN_OR_RETURN(TensorSharding sharding, parseSharding(s.stringValue()));
  return std::optional<TensorSharding>(std::move(sharding));
}

void setEntry(Operation& fn, std::string_view list, unsigned count, unsigned i, const TensorSharding& sharding) {
  Attribute all = fn.attr(list);
  std::vector<Attribute> dicts(count, Attribute::dictionary({}));
  if (all && all.is(AttrKind::Array))
    for (size_t k = 0; k < all.arrayValue().size() && k < count; ++k) dicts[k] = all.arrayValue()[k];
  std::vector<NamedAttribute> entries;
  if (dicts[i] && dicts[i].is(AttrKind::Dictionary))
    entries.assign(dicts[i].entries().begin(), dicts[i].entries().end());
  AttrDict dict(std::move(entries));
  dict.set("sdy.sharding", toAttribute(sharding));
  dicts[i] = Attribute::dictionary(std::vector<NamedAttribute>(dict.entries().begin(), dict.entries().end()));
  fn.setAttr(list, Attribute::array(std::move(dicts)));
}

}  // namespace

Expected<std::optional<TensorSharding>> argumentSharding(const Operation& fn, unsigned i) {
  return entryOf(fn, "arg_attrs", i);
}
Expected<std::optional<TensorSharding>> resultSharding(const Operation& fn, unsigned i) {
  return entryOf(fn, "res_attrs", i);
}
void setArgumentSharding(Operation& fn, unsigned i, const TensorSharding& sharding) {
  setEntry(fn, "arg_attrs", func::body(fn).numArguments(), i, sharding);
}
void setResultSharding(Operation& fn, unsigned i, const TensorSharding& sharding) {
  setEntry(fn, "res_attrs", static_cast<unsigned>(func::type(fn).results().size()), i, sharding);
}

Expected<std::optional<std::vector<TensorSharding>>> opShardings(const Operation& op) {
  Attribute a = op.attr("sdy.sharding");
  if (!a || !a.is(AttrKind::Opaque)) return std::optional<std::vector<TensorSharding>>();
  KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> shardings, parseShardingPerValue(a.stringValue()));
  if (shardings.size() != op.numResults())
    return error(op.loc(), op.name() + ": sdy.sharding gives " + std::to_string(shardings.size()) +
                               " sharding(s) for " + std::to_string(op.numResults()) + " result(s)");
  return std::optional<std::vector<TensorSharding>>(std::move(shardings));
}

Expected<std::optional<std::pair<std::string, Mesh>>> moduleMesh(const Module& module) {
  std::vector<std::pair<std::string, Mesh>> meshes = meshesOf(module);
  if (meshes.empty()) return std::optional<std::pair<std::string, Mesh>>();
  for (const auto& [name, mesh] : meshes)
    if (mesh.axes != meshes.front().second.axes || mesh.deviceIds != meshes.front().second.deviceIds)
      return error(ErrorCode::Unimplemented, "the module's meshes @" + meshes.front().first + " and @" + name +
                                                 " differ; kiln partitions over one mesh");
  return std::optional<std::pair<std::string, Mesh>>(meshes.front());
}

}  // namespace kiln::sharding
