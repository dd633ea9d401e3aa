#include "kiln/pjrt/output_shardings.h"

#include <algorithm>

#include "kiln/passes/sharding_annotations.h"
#include "kiln/pjrt/protobuf_writer.h"

namespace kiln::pjrt {

std::string opShardingProto(const gspmd::HloSharding& sharding) {
  // xla_data.proto's OpSharding: type = 1 (REPLICATED 0, OTHER 3),
  // tile_assignment_dimensions = 3, tile_assignment_devices = 4,
  // replicate_on_last_tile_dim = 6. Replicated is every field at its default.
  ProtoWriter proto;
  if (sharding.kind == gspmd::HloSharding::Kind::Replicated) return proto.data();
  constexpr int64_t kOther = 3;
  proto.integer(1, kOther);
  proto.packed(3, sharding.tileDims);
  proto.packed(4, sharding.devices);
  if (sharding.lastTileDimReplicate) proto.integer(6, 1);
  return proto.data();
}

Expected<gspmd::HloSharding> hloSharding(const sharding::TensorSharding& tensor, const sharding::Mesh& mesh,
                                         int64_t rank) {
  if (tensor.isReplicated()) return gspmd::HloSharding();
  if (static_cast<int64_t>(tensor.dims.size()) != rank)
    return error(ErrorCode::InvalidArgument, "a sharding of " + std::to_string(tensor.dims.size()) +
                                                 " dimension(s) for a rank-" + std::to_string(rank) + " tensor");
  // Each dimension's tiles follow its axes (major to minor); the axes no
  // dimension uses replicate the tiles, as one last tile dimension. A
  // sub-axis "x":(p)s is the part [p, p x s) of axis x's prefix products:
  // coordinate (c / (n / (p x s))) mod s of a device at coordinate c along x
  // of size n; what no dimension uses of a cut axis (its other parts,
  // major to minor) replicates like an unused axis.
  struct Part {
    int axis;
    int64_t lo, hi;  // prefix products: the part has hi / lo positions
  };
  auto partOf = [&](const std::string& name) -> Expected<Part> {
    if (int axis = mesh.axisIndex(name); axis >= 0) return Part{axis, 1, mesh.axes[axis].size};
    if (std::optional<sharding::SubAxis> sub = sharding::parseSubAxisRef(name)) {
      int axis = mesh.axisIndex(sub->axis);
      if (axis >= 0 && sub->preSize >= 1 && sub->size >= 1 && mesh.axes[axis].size % (sub->preSize * sub->size) == 0)
        return Part{axis, sub->preSize, sub->preSize * sub->size};
    }
    return error(ErrorCode::Unimplemented, "the mesh has no axis '" + name + "'");
  };
  std::vector<std::vector<Part>> partsOfDim;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> usedOfAxis(mesh.axes.size());
  for (const sharding::DimSharding& dim : tensor.dims) {
    partsOfDim.emplace_back();
    for (const std::string& name : dim.axes) {
      KILN_ASSIGN_OR_RETURN(Part part, partOf(name));
      partsOfDim.back().push_back(part);
      usedOfAxis[part.axis].push_back({part.lo, part.hi});
    }
  }
  std::vector<Part> replicatedParts;
  for (size_t a = 0; a < mesh.axes.size(); ++a) {
    std::vector<std::pair<int64_t, int64_t>> used = usedOfAxis[a];
    std::sort(used.begin(), used.end());
    int64_t at = 1;
    for (auto [lo, hi] : used) {
      if (lo > at) replicatedParts.push_back({static_cast<int>(a), at, lo});
      at = std::max(at, hi);
    }
    if (at < mesh.axes[a].size) replicatedParts.push_back({static_cast<int>(a), at, mesh.axes[a].size});
  }
  partsOfDim.push_back(replicatedParts);

  std::vector<int64_t> tileDims;
  for (const std::vector<Part>& parts : partsOfDim) {
    int64_t tiles = 1;
    for (const Part& part : parts) tiles *= part.hi / part.lo;
    tileDims.push_back(tiles);
  }
  bool replicatedTiles = tileDims.back() > 1;
  int64_t numDevices = mesh.numDevices();
  std::vector<int64_t> devices(numDevices);
  for (int64_t position = 0; position < numDevices; ++position) {
    int64_t tile = 0;  // row-major over tileDims
    for (size_t d = 0; d < partsOfDim.size(); ++d) {
      int64_t index = 0;
      for (const Part& part : partsOfDim[d]) {
        int64_t along = mesh.coordinate(position, part.axis) / (mesh.axes[part.axis].size / part.hi) %
                        (part.hi / part.lo);
        index = index * (part.hi / part.lo) + along;
      }
      tile = tile * tileDims[d] + index;
    }
    devices[tile] = mesh.deviceIds.empty() ? position : mesh.deviceIds[position];
  }
  if (!replicatedTiles) tileDims.pop_back();
  gspmd::HloSharding result;
  result.kind = gspmd::HloSharding::Kind::Tiled;
  result.tileDims = std::move(tileDims);
  result.devices = std::move(devices);
  result.lastTileDimReplicate = replicatedTiles;
  return result;
}

Expected<std::optional<ProgramShardings>> programShardings(const Module& module, const Operation& main) {
  KILN_ASSIGN_OR_RETURN(auto moduleMesh, sharding::moduleMesh(module));
  if (!moduleMesh) return std::optional<ProgramShardings>();
  auto hloOf = [&](Expected<std::optional<sharding::TensorSharding>> given, Type type) -> Expected<gspmd::HloSharding> {
    if (!given) return given.takeStatus();
    if (!*given || !type.isTensor()) return gspmd::HloSharding();
    const sharding::Mesh& mesh = (*given)->inlineMesh ? *(*given)->inlineMesh : moduleMesh->second;
    return hloSharding(**given, mesh, type.rank());
  };
  ProgramShardings shardings;
  Type type = func::type(main);
  for (unsigned i = 0; i < type.inputs().size(); ++i) {
    KILN_ASSIGN_OR_RETURN(gspmd::HloSharding hlo, hloOf(sharding::argumentSharding(main, i), type.inputs()[i]));
    shardings.parameters.push_back(std::move(hlo));
  }
  for (unsigned i = 0; i < type.results().size(); ++i) {
    KILN_ASSIGN_OR_RETURN(gspmd::HloSharding hlo, hloOf(sharding::resultSharding(main, i), type.results()[i]));
    shardings.results.push_back(std::move(hlo));
  }
  return std::optional<ProgramShardings>(std::move(shardings));
}

Expected<std::optional<ProgramShardings>> manualComputationShardings(const Module& module, const Operation& main) {
  std::optional<ProgramShardings> none;
  const Operation* manual = nullptr;
  for (const Operation& op : func::body(main)) {
    if (op.name() != "sdy.manual_computation") continue;
    if (manual) return none;
    manual = &op;
  }
  Attribute inAttr = manual ? manual->attr("in_shardings") : Attribute();
  Attribute outAttr = manual ? manual->attr("out_shardings") : Attribute();
  if (!inAttr || !outAttr || !inAttr.is(AttrKind::Opaque) || !outAttr.is(AttrKind::Opaque)) return none;
  KILN_ASSIGN_OR_RETURN(std::vector<sharding::TensorSharding> in, sharding::parseShardingPerValue(inAttr.stringValue()));
  KILN_ASSIGN_OR_RETURN(std::vector<sharding::TensorSharding> out, sharding::parseShardingPerValue(outAttr.stringValue()));
  if (in.size() != manual->numOperands() || out.size() != manual->numResults()) return none;
  Type type = func::type(main);
  ProgramShardings shardings;
  shardings.parameters.resize(type.inputs().size());
  shardings.results.resize(type.results().size());
  auto hloOf = [&](const sharding::TensorSharding& given, Type valueType) -> Expected<gspmd::HloSharding> {
    if (!valueType.isTensor()) return gspmd::HloSharding();
    KILN_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::meshOf(given, module));
    return hloSharding(given, mesh, valueType.rank());
  };
  const Block& body = func::body(main);
  for (unsigned k = 0; k < manual->numOperands(); ++k) {
    const Value* operand = manual->operand(k);
    if (!operand->isBlockArgument() || operand->ownerBlock() != &body) return none;
    unsigned index = operand->index();
    KILN_ASSIGN_OR_RETURN(shardings.parameters[index], hloOf(in[k], type.inputs()[index]));
  }
  const Operation* ret = body.terminator();
  for (unsigned j = 0; j < ret->numOperands(); ++j) {
    const Value* value = ret->operand(j);
    if (value->definingOp() == manual) {
      KILN_ASSIGN_OR_RETURN(shardings.results[j], hloOf(out[value->index()], type.results()[j]));
    } else if (value->isBlockArgument() && value->ownerBlock() == &body) {
      shardings.results[j] = shardings.parameters[value->index()];
    }
  }
  return std::optional<ProgramShardings>(std::move(shardings));
}

Expected<bool> statedShardingsAgree(const Module& module, const Operation& main, const ProgramShardings& manual) {
  auto same = [](const gspmd::HloSharding& a, const gspmd::HloSharding& b) {
    if (a.kind != b.kind) return false;
    return a.kind != gspmd::HloSharding::Kind::Tiled ||
           (a.tileDims == b.tileDims && a.devices == b.devices && a.lastTileDimReplicate == b.lastTileDimReplicate);
  };
  auto agrees = [&](Expected<std::optional<sharding::TensorSharding>> stated, Type type,
                    const gspmd::HloSharding& want) -> Expected<bool> {
    if (!stated) return stated.takeStatus();
    if (!*stated || !type.isTensor()) return true;
    KILN_ASSIGN_OR_RETURN(sharding::Mesh mesh, sharding::meshOf(**stated, module));
    KILN_ASSIGN_OR_RETURN(gspmd::HloSharding hlo, hloSharding(**stated, mesh, type.rank()));
    return same(hlo, want);
  };
  Type type = func::type(main);
  for (unsigned i = 0; i < type.inputs().size() && i < manual.parameters.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(bool ok, agrees(sharding::argumentSharding(main, i), type.inputs()[i], manual.parameters[i]));
    if (!ok) return false;
  }
  for (unsigned i = 0; i < type.results().size() && i < manual.results.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(bool ok, agrees(sharding::resultSharding(main, i), type.results()[i], manual.results[i]));
    if (!ok) return false;
  }
  return true;
}

namespace {

// `text` with each sharding over mesh @from (`<@from, [...]>`) over @to instead.
std::string renameMesh(const std::string& text, const std::string& from, const std::string& to) {
  std::string needle = "<@" + from + ",", out;
  size_t start = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, start)) {
    out += text.substr(start, at - start) + "<@" + to + ",";
    start = at + needle.size();
  }
  return out + text.substr(start);
}

Attribute renameMesh(const Attribute& attr, const std::string& from, const std::string& to) {
  if (attr.is(AttrKind::Opaque)) {
    std::string text = renameMesh(attr.stringValue(), from, to);
    return text == attr.stringValue() ? attr : Attribute::opaque(std::move(text));
  }
  if (attr.is(AttrKind::Array)) {
    std::vector<Attribute> elements;
    for (const Attribute& e : attr.arrayValue()) elements.push_back(renameMesh(e, from, to));
    return Attribute::array(std::move(elements));
  }
  if (attr.is(AttrKind::Dictionary)) {
    std::vector<NamedAttribute> entries;
    for (const NamedAttribute& e : attr.entries()) entries.emplace_back(e.first, renameMesh(e.second, from, to));
    return Attribute::dictionary(std::move(entries));
  }
  return attr;
}

}  // namespace

bool foldEmptyMeshes(Module& module) {
  std::vector<std::pair<std::string, sharding::Mesh>> meshes = sharding::meshesOf(module);
  std::vector<std::string> empty;
  const std::pair<std::string, sharding::Mesh>* target = nullptr;
  for (const auto& named : meshes) {
    if (named.second.axes.empty() && named.second.deviceIds.empty()) {
      empty.push_back(named.first);
    } else if (!target) {
      target = &named;
    } else if (named.second != target->second) {
      return false;  // several meshes: sharding_propagation says so
    }
  }
  if (empty.empty() || !target) return false;
  module.op().walk([&](Operation& op) {
    std::vector<NamedAttribute> entries(op.attrs().entries().begin(), op.attrs().entries().end());
    for (const auto& [name, attr] : entries) {
      Attribute renamed = attr;
      for (const std::string& from : empty) renamed = renameMesh(renamed, from, target->first);
      if (renamed != attr) op.setAttr(name, renamed);
    }
  });
  std::vector<Operation*> erased;
  for (Operation& op : module.body())
    if (op.name() == "sdy.mesh" && op.attr("sym_name") &&
        std::ranges::find(empty, op.attr("sym_name").stringValue()) != empty.end())
      erased.push_back(&op);
  for (Operation* op : erased) op->erase();
  return true;
}

}  // namespace kiln::pjrt
