#include "kiln/ir/sharding.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <set>

#include "kiln/ir/ir.h"
#include "kiln/ir/text_reader.h"

namespace kiln::sharding {

int64_t Mesh::numDevices() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes) n *= a.size;
  return n;
}

int Mesh::axisIndex(std::string_view name) const {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::optional<SubAxis> parseSubAxisRef(std::string_view ref) {
  // `name:(p)s`, read from the end: the name itself may hold any character.
  size_t close = ref.rfind(')');
  if (close == std::string_view::npos || close + 1 >= ref.size()) return std::nullopt;
  size_t open = ref.rfind(":(", close);
  if (open == std::string_view::npos) return std::nullopt;
  auto number = [](std::string_view text, int64_t& value) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
  };
  SubAxis sub;
  sub.axis = std::string(ref.substr(0, open));
  if (!number(ref.substr(open + 2, close - open - 2), sub.preSize) || !number(ref.substr(close + 1), sub.size))
    return std::nullopt;
  return sub;
}

std::string subAxisRef(std::string_view axis, int64_t preSize, int64_t size) {
  return std::string(axis) + ":(" + std::to_string(preSize) + ")" + std::to_string(size);
}

int64_t Mesh::axisSize(std::string_view ref) const {
  if (int i = axisIndex(ref); i >= 0) return axes[i].size;
  if (std::optional<SubAxis> sub = parseSubAxisRef(ref); sub && axisIndex(sub->axis) >= 0) return sub->size;
  return 1;
}

int64_t Mesh::coordinate(int64_t position, int axis) const {
  int64_t stride = 1;
  for (size_t i = axis + 1; i < axes.size(); ++i) stride *= axes[i].size;
  return position / stride % axes[axis].size;
}

bool TensorSharding::isReplicated() const {
  return std::all_of(dims.begin(), dims.end(), [](const DimSharding& d) { return d.axes.empty(); });
}

std::vector<std::string> TensorSharding::usedAxes() const {
  std::vector<std::string> used;
  for (const DimSharding& d : dims) used.insert(used.end(), d.axes.begin(), d.axes.end());
  return used;
}

TensorSharding replicated(std::string meshName, int64_t rank) {
  TensorSharding s;
  s.meshName = std::move(meshName);
  s.dims.resize(rank);
  return s;
}

namespace {

using Reader = TextReader;

// `[a, b, ...]` with `item` reading each element.
template <typename F>
void list(Reader& r, char open, char close, F item) {
  r.expect(open);
  if (r.accept(close)) return;
  do item();
  while (!r.failed() && r.accept(','));
  r.expect(close);
}

// The body of a mesh: `["x"=2, "y"=4]`, optionally `, device_ids=[...]`, or
// only `device_ids=[...]` (a maximal mesh).
Mesh readMeshBody(Reader& r) {
  Mesh mesh;
  if (r.peek('[')) {
    list(r, '[', ']', [&] {
      MeshAxis axis;
      axis.name = r.quoted();
      r.expect('=');
      axis.size = r.integer();
      if (axis.size < 1) r.fail("mesh axis \"" + axis.name + "\" has size " + std::to_string(axis.size));
      mesh.axes.push_back(axis);
    });
    if (!r.accept(',')) return mesh;
  }
  r.expect("device_ids");
  r.expect('=');
  list(r, '[', ']', [&] { mesh.deviceIds.push_back(r.integer()); });
  return mesh;
}

// `"x"`, or a sub-axis `"x":(p)s`, kept as subAxisRef writes it.
std::string readAxisRef(Reader& r) {
  std::string name = r.quoted();
  if (!r.accept(':')) return name;
  r.expect('(');
  int64_t preSize = r.integer();
  r.expect(')');
  int64_t size = r.integer();
  return subAxisRef(name, preSize, size);
}

// `{"x", "y"}`; sub-axes where `subAxes` (not in manual_axes).
std::vector<std::string> readAxisSet(Reader& r, bool subAxes = true) {
  std::vector<std::string> axes;
  list(r, '{', '}', [&] { axes.push_back(subAxes ? readAxisRef(r) : r.quoted()); });
  return axes;
}

// `<@mesh, [{"x"}, {}], replicated={...}, unreduced={...}>`.
TensorSharding readShardingBody(Reader& r) {
  TensorSharding s;
  r.expect('<');
  if (r.accept('@')) {
    s.meshName = r.identifier();
  } else {
    r.expect("mesh");
    r.expect('<');
    s.inlineMesh = readMeshBody(r);
    r.expect('>');
  }
  r.expect(',');
  list(r, '[', ']', [&] {
    DimSharding dim;
    r.expect('{');
    if (!r.accept('}')) {
      do {
        if (r.accept('?')) {
          dim.open = true;
          break;
        }
        dim.axes.push_back(readAxisRef(r));
      } while (!r.failed() && r.accept(','));
      r.expect('}');
    }
    if (r.accept('p')) {
      dim.priority = r.integer();
      if (dim.priority < 0) r.fail("priority p" + std::to_string(dim.priority) + " is negative");
    }
    s.dims.push_back(std::move(dim));
  });
  while (!r.failed() && r.accept(',')) {
    if (r.accept("replicated")) {
      r.expect('=');
      s.replicated = readAxisSet(r);
    } else if (r.accept("unreduced")) {
      r.expect('=');
      s.unreduced = readAxisSet(r);
    } else {
      r.fail("expected 'replicated' or 'unreduced'");
    }
  }
  r.expect('>');
  return s;
}

template <typename T>
Expected<T> finish(Reader& r, T value, std::string_view what) {
  if (!r.failed() && !r.atEnd()) r.fail("unexpected text after the " + std::string(what));
  if (r.failed()) return error(ErrorCode::InvalidArgument, "malformed " + std::string(what) + ": " + r.errorMessage());
  return value;
}

std::string quote(const std::string& name) { return "\"" + name + "\""; }

// An axis reference as Shardy writes it: `"x"` or `"x":(p)s`.
std::string printAxisRef(const std::string& ref) {
  if (std::optional<SubAxis> sub = parseSubAxisRef(ref))
    return quote(sub->axis) + ":(" + std::to_string(sub->preSize) + ")" + std::to_string(sub->size);
  return quote(ref);
}

std::string printAxisSet(const std::vector<std::string>& axes, bool subAxes = true) {
  std::string out = "{";
  for (size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + (subAxes ? printAxisRef(axes[i]) : quote(axes[i]));
  return out + "}";
}

std::string printMeshBody(const Mesh& mesh) {
  std::string out = "[";
  for (size_t i = 0; i < mesh.axes.size(); ++i)
    out += (i ? ", " : "") + quote(mesh.axes[i].name) + "=" + std::to_string(mesh.axes[i].size);
  out += "]";
  if (!mesh.deviceIds.empty()) {
    out += ", device_ids=[";
    for (size_t i = 0; i < mesh.deviceIds.size(); ++i) out += (i ? ", " : "") + std::to_string(mesh.deviceIds[i]);
    out += "]";
  }
  return out;
}

}  // namespace

Expected<Mesh> parseMesh(std::string_view text) {
  Reader r(text);
  r.expect("#sdy.mesh");
  r.expect('<');
  Mesh mesh = readMeshBody(r);
  r.expect('>');
  return finish(r, std::move(mesh), "#sdy.mesh");
}

Expected<TensorSharding> parseSharding(std::string_view text) {
  Reader r(text);
  r.expect("#sdy.sharding");
  TensorSharding s = readShardingBody(r);
  return finish(r, std::move(s), "#sdy.sharding");
}

Expected<std::vector<TensorSharding>> parseShardingPerValue(std::string_view text) {
  Reader r(text);
  r.expect("#sdy.sharding_per_value");
  r.expect('<');
  std::vector<TensorSharding> values;
  list(r, '[', ']', [&] { values.push_back(readShardingBody(r)); });
  r.expect('>');
  return finish(r, std::move(values), "#sdy.sharding_per_value");
}

Expected<std::vector<std::string>> parseManualAxes(std::string_view text) {
  Reader r(text);
  r.expect("#sdy");
  r.expect('<');
  r.expect("manual_axes");
  std::vector<std::string> axes = readAxisSet(r, /*subAxes=*/false);
  r.expect('>');
  return finish(r, std::move(axes), "#sdy<manual_axes{...}>");
}

std::string printManualAxes(const std::vector<std::string>& axes) {
  return "#sdy<manual_axes" + printAxisSet(axes, /*subAxes=*/false) + ">";
}

std::string printMesh(const Mesh& mesh) { return "#sdy.mesh<" + printMeshBody(mesh) + ">"; }

std::string printShardingBody(const TensorSharding& s) {
  std::string out = "<";
  out += s.inlineMesh ? "mesh<" + printMeshBody(*s.inlineMesh) + ">" : "@" + s.meshName;
  out += ", [";
  for (size_t i = 0; i < s.dims.size(); ++i) {
    const DimSharding& d = s.dims[i];
    out += i ? ", {" : "{";
    for (size_t a = 0; a < d.axes.size(); ++a) out += (a ? ", " : "") + printAxisRef(d.axes[a]);
    if (d.open) out += d.axes.empty() ? "?" : ", ?";
    out += "}";
    if (d.priority >= 0) out += "p" + std::to_string(d.priority);
  }
  out += "]";
  if (!s.replicated.empty()) out += ", replicated=" + printAxisSet(s.replicated);
  if (!s.unreduced.empty()) out += ", unreduced=" + printAxisSet(s.unreduced);
  return out + ">";
}

std::string printSharding(const TensorSharding& s) { return "#sdy.sharding" + printShardingBody(s); }

std::string printShardingPerValue(const std::vector<TensorSharding>& shardings) {
  std::string out = "#sdy.sharding_per_value<[";
  for (size_t i = 0; i < shardings.size(); ++i) out += (i ? ", " : "") + printShardingBody(shardings[i]);
  return out + "]>";
}

Attribute toAttribute(const TensorSharding& sharding) { return Attribute::opaque(printSharding(sharding)); }
Attribute toAttribute(const std::vector<TensorSharding>& shardings) {
  return Attribute::opaque(printShardingPerValue(shardings));
}

std::vector<std::pair<std::string, Mesh>> meshesOf(const Module& module) {
  std::vector<std::pair<std::string, Mesh>> meshes;
  for (const Operation& op : module.body()) {
    if (op.name() != "sdy.mesh") continue;
    Attribute name = op.attr("sym_name"), mesh = op.attr("mesh");
    if (!name || !mesh || !mesh.is(AttrKind::Opaque)) continue;
    if (Expected<Mesh> m = parseMesh(mesh.stringValue())) meshes.emplace_back(name.stringValue(), std::move(*m));
  }
  return meshes;
}

Expected<Mesh> meshOf(const TensorSharding& sharding, const Module& module) {
  if (sharding.inlineMesh) return *sharding.inlineMesh;
  for (auto& [name, mesh] : meshesOf(module))
    if (name == sharding.meshName) return mesh;
  return error(ErrorCode::InvalidArgument, "sharding refers to mesh @" + sharding.meshName +
                                               ", which is not an sdy.mesh of this module");
}

Status checkMesh(const Mesh& mesh) {
  auto fail = [&](std::string message) { return error(ErrorCode::InvalidArgument, printMesh(mesh) + ": " + message); };
  std::set<std::string> names;
  for (const MeshAxis& axis : mesh.axes) {
    if (axis.size < 1) return fail("axis \"" + axis.name + "\" has size " + std::to_string(axis.size));
    if (!names.insert(axis.name).second) return fail("axis \"" + axis.name + "\" is named twice");
  }
  // The devices a mesh holds, which runs and partitioning count in int64:
  // at most 2^20, as for GSPMD shardings (kiln/ir/gspmd_sharding.cpp).
  constexpr int64_t kMaxDevices = int64_t(1) << 20;
  int64_t devices = 1;
  for (const MeshAxis& axis : mesh.axes) {
    if (axis.size > kMaxDevices || devices * axis.size > kMaxDevices)
      return fail("has more than " + std::to_string(kMaxDevices) + " devices");
    devices *= axis.size;
  }
  if (mesh.deviceIds.empty()) return Status::ok();
  if (mesh.axes.empty()) {
    if (mesh.deviceIds.size() != 1 || mesh.deviceIds[0] < 0)
      return fail("a mesh without axes lists exactly one non-negative device id");
    return Status::ok();
  }
  int64_t n = mesh.numDevices();
  if (static_cast<int64_t>(mesh.deviceIds.size()) != n)
    return fail("lists " + std::to_string(mesh.deviceIds.size()) + " device id(s) for " + std::to_string(n) +
                " devices");
  std::vector<bool> seen(n, false);
  for (int64_t id : mesh.deviceIds) {
    if (id < 0 || id >= n) return fail("device id " + std::to_string(id) + " is not in [0, " + std::to_string(n) + ")");
    if (seen[id]) return fail("device id " + std::to_string(id) + " is listed twice");
    seen[id] = true;
  }
  return Status::ok();
}

Status checkSharding(const TensorSharding& sharding, const Mesh& mesh, std::span<const int64_t> shape,
                     bool requireDivisible) {
  auto fail = [&](std::string message) {
    return error(ErrorCode::InvalidArgument, printSharding(sharding) + ": " + message);
  };
  if (sharding.dims.size() != shape.size())
    return fail("gives " + std::to_string(sharding.dims.size()) + " dimension(s) for a tensor of rank " +
                std::to_string(shape.size()));
  // Each reference covers the part [lo, hi) of its axis, in prefix products
  // of the axis's size: a whole axis of n is [1, n), "x":(p)s is [p, p x s).
  struct Part {
    std::string axis;
    int64_t lo, hi;
    bool sub;
  };
  auto resolve = [&](const std::string& ref) -> Expected<Part> {
    if (int i = mesh.axisIndex(ref); i >= 0) return Part{ref, 1, mesh.axes[i].size, false};
    std::optional<SubAxis> sub = parseSubAxisRef(ref);
    if (!sub || mesh.axisIndex(sub->axis) < 0)
      return fail("axis " + quote(sub ? sub->axis : ref) + " is not in the mesh");
    int64_t n = mesh.axisSize(sub->axis);
    std::string name = "sub-axis " + printAxisRef(ref);
    if (sub->preSize < 1) return fail(name + " has a pre-size below 1");
    if (sub->size < 2) return fail(name + " has a size below 2");
    if (n % sub->preSize != 0 || (n / sub->preSize) % sub->size != 0)
      return fail(name + ": pre-size x size = " + std::to_string(sub->preSize * sub->size) +
                  " does not divide the size " + std::to_string(n) + " of axis " + quote(sub->axis));
    if (sub->preSize == 1 && sub->size == n) return fail(name + " is the whole axis; write " + quote(sub->axis));
    return Part{sub->axis, sub->preSize, sub->preSize * sub->size, true};
  };
  std::vector<std::pair<Part, std::string>> seen;
  auto use = [&](const std::string& ref) -> Expected<Part> {
    KILN_ASSIGN_OR_RETURN(Part part, resolve(ref));
    for (const auto& [other, otherRef] : seen) {
      if (other.axis != part.axis || std::max(other.lo, part.lo) >= std::min(other.hi, part.hi)) continue;
      if (otherRef == ref) return fail("axis " + printAxisRef(ref) + " is used more than once");
      return fail("axes " + printAxisRef(otherRef) + " and " + printAxisRef(ref) + " overlap");
    }
    seen.emplace_back(part, ref);
    return part;
  };
  // Consecutive sub-axes that make one (`"x":(1)2, "x":(2)2`), which Shardy
  // requires written as that one.
  auto mergeable = [&](const std::vector<std::string>& refs, const std::vector<Part>& parts) -> Status {
    for (size_t i = 1; i < parts.size(); ++i)
      if (parts[i - 1].sub && parts[i].sub && parts[i - 1].axis == parts[i].axis && parts[i - 1].hi == parts[i].lo)
        return fail("sub-axes " + printAxisRef(refs[i - 1]) + ", " + printAxisRef(refs[i]) +
                    " are consecutive parts of one sub-axis; write them as one");
    return Status::ok();
  };
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t parts = 1;
    std::vector<Part> resolved;
    for (const std::string& axis : sharding.dims[d].axes) {
      KILN_ASSIGN_OR_RETURN(Part part, use(axis));
      resolved.push_back(part);
      parts *= mesh.axisSize(axis);
    }
    KILN_RETURN_IF_ERROR(mergeable(sharding.dims[d].axes, resolved));
    if (requireDivisible && shape[d] >= 0 && shape[d] % parts != 0)
      return fail("dimension " + std::to_string(d) + " of size " + std::to_string(shape[d]) +
                  " does not divide into " + std::to_string(parts) + " shards");
  }
  for (const std::vector<std::string>* set : {&sharding.replicated, &sharding.unreduced}) {
    std::vector<Part> resolved;
    for (const std::string& axis : *set) {
      KILN_ASSIGN_OR_RETURN(Part part, use(axis));
      resolved.push_back(part);
    }
    KILN_RETURN_IF_ERROR(mergeable(*set, resolved));
  }
  return Status::ok();
}

}  // namespace kiln::sharding
