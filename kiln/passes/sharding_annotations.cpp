#include "kiln/passes/sharding_annotations.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

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

namespace {

using ShardingFn = std::function<Status(TensorSharding&)>;
// A manual computation's manual axes, with the name of the mesh its shardings use.
using ManualFn = std::function<Status(std::vector<std::string>&, const std::string&)>;

Status rewritePerValue(Operation& op, std::string_view name, const ShardingFn& fn) {
  Attribute a = op.attr(name);
  if (!a || !a.is(AttrKind::Opaque)) return Status::ok();
  KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> shardings, parseShardingPerValue(a.stringValue()));
  std::vector<TensorSharding> before = shardings;
  for (TensorSharding& s : shardings) KILN_RETURN_IF_ERROR(fn(s));
  if (shardings != before) op.setAttr(name, toAttribute(shardings));
  return Status::ok();
}

// Calls `fn` on every sharding an op of the module carries (and `manual`, when
// given, on every manual computation's manual axes), writing back what they change.
Status rewriteShardings(Module& module, const ShardingFn& fn, const ManualFn& manual) {
  auto rewriteOp = [&](Operation& op) -> Status {
    if (op.name() == "func.func") {
      for (std::string_view list : {"arg_attrs", "res_attrs"}) {
        Attribute all = op.attr(list);
        if (!all || !all.is(AttrKind::Array)) continue;
        std::vector<Attribute> dicts(all.arrayValue().begin(), all.arrayValue().end());
        bool changed = false;
        for (Attribute& dict : dicts) {
          Attribute s = dict && dict.is(AttrKind::Dictionary) ? dict.get("sdy.sharding") : Attribute();
          if (!s || !s.is(AttrKind::Opaque)) continue;
          KILN_ASSIGN_OR_RETURN(TensorSharding sharding, parseSharding(s.stringValue()));
          TensorSharding before = sharding;
          KILN_RETURN_IF_ERROR(fn(sharding));
          if (sharding == before) continue;
          AttrDict entries(std::vector<NamedAttribute>(dict.entries().begin(), dict.entries().end()));
          entries.set("sdy.sharding", toAttribute(sharding));
          dict = Attribute::dictionary(std::vector<NamedAttribute>(entries.entries().begin(), entries.entries().end()));
          changed = true;
        }
        if (changed) op.setAttr(list, Attribute::array(std::move(dicts)));
      }
    }
    KILN_RETURN_IF_ERROR(rewritePerValue(op, "sdy.sharding", fn));
    if (op.name() == "sdy.sharding_constraint" || op.name() == "sdy.reshard") {
      Attribute a = op.attr("sharding");
      if (a && a.is(AttrKind::Opaque)) {
        KILN_ASSIGN_OR_RETURN(TensorSharding sharding, parseSharding(a.stringValue()));
        TensorSharding before = sharding;
        KILN_RETURN_IF_ERROR(fn(sharding));
        if (sharding != before) op.setAttr("sharding", toAttribute(sharding));
      }
    }
    if (op.name() == "sdy.manual_computation") {
      std::string meshName;
      for (std::string_view list : {"in_shardings", "out_shardings"}) {
        Attribute a = op.attr(list);
        if (!meshName.empty() || !a || !a.is(AttrKind::Opaque)) continue;
        if (Expected<std::vector<TensorSharding>> s = parseShardingPerValue(a.stringValue()); s && !s->empty())
          meshName = s->front().meshName;
      }
      KILN_RETURN_IF_ERROR(rewritePerValue(op, "in_shardings", fn));
      KILN_RETURN_IF_ERROR(rewritePerValue(op, "out_shardings", fn));
      Attribute axesAttr = op.attr("manual_axes");
      if (manual && axesAttr && axesAttr.is(AttrKind::Opaque)) {
        KILN_ASSIGN_OR_RETURN(std::vector<std::string> axes, parseManualAxes(axesAttr.stringValue()));
        std::vector<std::string> before = axes;
        KILN_RETURN_IF_ERROR(manual(axes, meshName));
        if (axes != before) op.setAttr("manual_axes", Attribute::opaque(printManualAxes(axes)));
      }
    }
    return Status::ok();
  };
  Status status = Status::ok();
  for (Operation& top : module.body())
    top.walk([&](Operation& op) {
      if (status.isOk()) status = rewriteOp(op);
    });
  return status;
}

// Each axis-list of a sharding: the dimensions' axes, replicated, unreduced.
std::vector<std::vector<std::string>*> axisLists(TensorSharding& s) {
  std::vector<std::vector<std::string>*> lists;
  for (DimSharding& d : s.dims) lists.push_back(&d.axes);
  lists.push_back(&s.replicated);
  lists.push_back(&s.unreduced);
  return lists;
}

void setMeshes(Module& module, const std::map<std::string, Mesh>& meshes) {
  for (Operation& top : module.body()) {
    Attribute name = top.attr("sym_name");
    if (top.name() != "sdy.mesh" || !name) continue;
    if (auto it = meshes.find(name.stringValue()); it != meshes.end())
      top.setAttr("mesh", Attribute::opaque(printMesh(it->second)));
  }
}

int64_t smallestPrimeFactor(int64_t n) {
  for (int64_t p = 2; p * p <= n; ++p)
    if (n % p == 0) return p;
  return n;
}

// The part [lo, hi) of an axis of size n that a reference covers (a whole
// axis [1, n), "x":(p)s [p, p x s)), in mesh `mesh`.
struct Part {
  std::string axis;
  int64_t lo = 1, hi = 1;
};
std::optional<Part> partOf(const std::string& ref, const Mesh& mesh) {
  if (int i = mesh.axisIndex(ref); i >= 0) return Part{ref, 1, mesh.axes[i].size};
  std::optional<SubAxis> sub = parseSubAxisRef(ref);
  if (!sub || mesh.axisIndex(sub->axis) < 0) return std::nullopt;
  return Part{sub->axis, sub->preSize, sub->preSize * sub->size};
}

}  // namespace

Expected<std::optional<std::vector<std::pair<std::string, Mesh>>>> refineSubAxes(Module& module, bool intoPrimes) {
  using Result = std::optional<std::vector<std::pair<std::string, Mesh>>>;
  std::map<std::string, Mesh> meshes;
  for (auto& [name, mesh] : meshesOf(module)) meshes.emplace(name, mesh);
  // Where the sub-axes cut each axis, in prefix products of its size.
  std::map<std::string, std::map<std::string, std::set<int64_t>>> cuts;
  KILN_RETURN_IF_ERROR(rewriteShardings(
      module,
      [&](TensorSharding& s) -> Status {
        for (std::vector<std::string>* list : axisLists(s))
          for (const std::string& ref : *list) {
            std::optional<SubAxis> sub = parseSubAxisRef(ref);
            if (!sub) continue;
            if (s.inlineMesh) {
              if (s.inlineMesh->axisIndex(ref) < 0)
                return error(ErrorCode::Unimplemented, printSharding(s) + ": kiln partitions over sub-axes of an "
                                                                          "sdy.mesh symbol, not of an inline mesh");
              continue;
            }
            auto mesh = meshes.find(s.meshName);
            if (mesh == meshes.end() || mesh->second.axisIndex(ref) >= 0) continue;
            std::optional<Part> part = partOf(ref, mesh->second);
            if (!part) continue;  // the verifier reports it
            cuts[s.meshName][part->axis].insert({part->lo, part->hi});
          }
        return Status::ok();
      },
      nullptr));
  if (intoPrimes)
    for (const auto& [meshName, mesh] : meshes)
      for (const MeshAxis& axis : mesh.axes)
        if (smallestPrimeFactor(axis.size) < axis.size) cuts[meshName][axis.name];
  if (cuts.empty()) return Result();

  // Each cut axis's parts, and what each reference to it becomes.
  std::map<std::string, Mesh> refined;
  std::map<std::string, std::map<std::string, std::vector<std::pair<Part, std::string>>>> partsOf;
  Result original(std::in_place);
  for (auto& [meshName, axes] : cuts) {
    const Mesh& mesh = meshes.at(meshName);
    original->emplace_back(meshName, mesh);
    Mesh out;
    out.deviceIds = mesh.deviceIds;
    for (const MeshAxis& axis : mesh.axes) {
      auto it = axes.find(axis.name);
      if (it == axes.end()) {
        out.axes.push_back(axis);
        continue;
      }
      std::set<int64_t> bounds = it->second;
      bounds.insert({1, axis.size});
      std::vector<int64_t> b(bounds.begin(), bounds.end());
      for (size_t i = 0; i + 1 < b.size(); ++i)
        if (b[i + 1] % b[i] != 0 || axis.size % b[i + 1] != 0) {
          std::string list;
          for (int64_t x : b) list += (list.empty() ? "" : ", ") + std::to_string(x);
          return error(module.op().loc(),
                       "the sub-axes of axis \"" + axis.name + "\" (size " + std::to_string(axis.size) + ") of @" +
                           meshName + " cut it at " + list + ", which is no chain of divisors; kiln partitions over "
                           "sub-axes that split an axis into one sequence of parts");
        }
      if (intoPrimes) {
        std::vector<int64_t> finer{1};
        for (size_t i = 0; i + 1 < b.size(); ++i)
          for (int64_t rest = b[i + 1] / b[i]; rest > 1;) {
            int64_t p = smallestPrimeFactor(rest);
            finer.push_back(finer.back() * p);
            rest /= p;
          }
        b = std::move(finer);
      }
      for (size_t i = 0; i + 1 < b.size(); ++i) {
        std::string name = subAxisRef(axis.name, b[i], b[i + 1] / b[i]);
        if (mesh.axisIndex(name) >= 0)
          return error(module.op().loc(), "mesh @" + meshName + " has an axis named \"" + name +
                                              "\", which kiln needs for a part of axis \"" + axis.name + "\"");
        out.axes.push_back({name, b[i + 1] / b[i]});
        partsOf[meshName][axis.name].push_back({Part{axis.name, b[i], b[i + 1]}, name});
      }
    }
    refined.emplace(meshName, std::move(out));
  }

  auto expand = [&](std::vector<std::string>& refs, const std::string& meshName) -> Status {
    auto byAxis = partsOf.find(meshName);
    if (byAxis == partsOf.end()) return Status::ok();
    std::vector<std::string> out;
    for (const std::string& ref : refs) {
      std::optional<Part> part = partOf(ref, meshes.at(meshName));
      auto parts = part ? byAxis->second.find(part->axis) : byAxis->second.end();
      if (parts == byAxis->second.end()) {
        out.push_back(ref);
        continue;
      }
      for (const auto& [p, name] : parts->second)
        if (p.lo >= part->lo && p.hi <= part->hi) out.push_back(name);
    }
    refs = std::move(out);
    return Status::ok();
  };
  KILN_RETURN_IF_ERROR(rewriteShardings(
      module,
      [&](TensorSharding& s) -> Status {
        if (s.inlineMesh) return Status::ok();
        for (std::vector<std::string>* list : axisLists(s)) KILN_RETURN_IF_ERROR(expand(*list, s.meshName));
        return Status::ok();
      },
      expand));
  setMeshes(module, refined);
  return original;
}

namespace {

// Consecutive parts of one axis of `mesh` (the original) merged; `sorted`:
// put in mesh order first.
Status foldList(std::vector<std::string>& refs, const Mesh& mesh, bool sorted) {
  std::vector<Part> parts;
  for (const std::string& ref : refs) {
    std::optional<Part> part = partOf(ref, mesh);
    if (!part) return error(ErrorCode::Internal, "axis \"" + ref + "\" is no part of " + printMesh(mesh));
    parts.push_back(*part);
  }
  if (sorted)
    std::stable_sort(parts.begin(), parts.end(), [&](const Part& a, const Part& b) {
      int ia = mesh.axisIndex(a.axis), ib = mesh.axisIndex(b.axis);
      return ia != ib ? ia < ib : a.lo < b.lo;
    });
  std::vector<Part> merged;
  for (const Part& p : parts) {
    if (!merged.empty() && merged.back().axis == p.axis && merged.back().hi == p.lo)
      merged.back().hi = p.hi;
    else
      merged.push_back(p);
  }
  refs.clear();
  for (const Part& p : merged)
    refs.push_back(p.lo == 1 && p.hi == mesh.axisSize(p.axis) ? p.axis : subAxisRef(p.axis, p.lo, p.hi / p.lo));
  return Status::ok();
}

}  // namespace

Status foldSubAxes(TensorSharding& sharding, const Mesh& original) {
  for (DimSharding& d : sharding.dims) KILN_RETURN_IF_ERROR(foldList(d.axes, original, false));
  KILN_RETURN_IF_ERROR(foldList(sharding.replicated, original, true));
  return foldList(sharding.unreduced, original, true);
}

Status foldSubAxes(Module& module, const std::vector<std::pair<std::string, Mesh>>& original) {
  std::map<std::string, Mesh> meshes(original.begin(), original.end());
  KILN_RETURN_IF_ERROR(rewriteShardings(
      module,
      [&](TensorSharding& s) -> Status {
        auto mesh = s.inlineMesh ? meshes.end() : meshes.find(s.meshName);
        return mesh == meshes.end() ? Status::ok() : foldSubAxes(s, mesh->second);
      },
      [&](std::vector<std::string>& axes, const std::string& meshName) -> Status {
        auto mesh = meshes.find(meshName);
        return mesh == meshes.end() ? Status::ok() : foldList(axes, mesh->second, true);
      }));
  setMeshes(module, meshes);
  return Status::ok();
}

}  // namespace kiln::sharding
