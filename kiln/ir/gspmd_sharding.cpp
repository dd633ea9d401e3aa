#include "kiln/ir/gspmd_sharding.h"

#include <algorithm>
#include <numeric>

#include "kiln/ir/text_reader.h"

namespace kiln::gspmd {

int64_t HloSharding::numDevices() const {
  int64_t n = 1;
  for (int64_t d : tileDims) n *= d;
  return n;
}

namespace {

// The GSPMD reads on top of the shared reader: non-negative integers and
// `[1,2]`/`(1,0)` lists of them.
class Reader : public TextReader {
 public:
  using TextReader::TextReader;

  int64_t count() {
    int64_t n = integer();
    if (n < 0) fail("expected a non-negative integer");
    return n;
  }
  std::vector<int64_t> integers(char open, char close) {
    std::vector<int64_t> out;
    expect(open);
    if (accept(close)) return out;
    do out.push_back(count());
    while (!failed() && accept(','));
    expect(close);
    return out;
  }
};

// The most devices a sharding may tile: far more than any machine has, and
// few enough that the device list an iota stands for (`<=[N]`) can be
// written out (docs/limits.md).
constexpr int64_t kMaxDevices = int64_t(1) << 20;

// The product of positive `v`, or kMaxDevices + 1 once it passes kMaxDevices
// (no overflow, whatever the text says).
int64_t product(const std::vector<int64_t>& v) {
  int64_t n = 1;
  for (int64_t d : v) {
    if (d > kMaxDevices || n * d > kMaxDevices) return kMaxDevices + 1;
    n *= d;
  }
  return n;
}

std::string tooManyDevices(std::string_view what) {
  return std::string(what) + " more than " + std::to_string(kMaxDevices) + " devices";
}

// iota(product(reshape)) reshaped to `reshape`, transposed by `perm`, flattened.
std::vector<int64_t> iotaDevices(const std::vector<int64_t>& reshape, const std::vector<int64_t>& perm) {
  size_t rank = reshape.size();
  std::vector<int64_t> strides(rank, 1), shape(rank), out;
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * reshape[i];
  for (size_t i = 0; i < rank; ++i) shape[i] = reshape[perm[i]];
  int64_t n = product(reshape);
  std::vector<int64_t> index(rank, 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t device = 0;
    for (size_t i = 0; i < rank; ++i) device += index[i] * strides[perm[i]];
    out.push_back(device);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

void readTiled(Reader& r, HloSharding& s) {
  s.kind = HloSharding::Kind::Tiled;
  r.expect('=');
  s.tileDims = r.integers('[', ']');
  if (s.tileDims.empty()) return r.fail("a tiled sharding needs tile dimensions");
  for (int64_t d : s.tileDims)
    if (d < 1) return r.fail("tile dimension " + std::to_string(d) + " is not positive");
  if (product(s.tileDims) > kMaxDevices) return r.fail(tooManyDevices("tiles"));
  if (r.accept("<=")) {
    s.iotaReshape = r.integers('[', ']');
    if (product(s.iotaReshape) > kMaxDevices) return r.fail(tooManyDevices("<=[...] has"));
    s.iotaTranspose.resize(s.iotaReshape.size());
    std::iota(s.iotaTranspose.begin(), s.iotaTranspose.end(), 0);
    if (r.accept('T')) s.iotaTranspose = r.integers('(', ')');
    std::vector<int64_t> sorted = s.iotaTranspose;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i)
      if (sorted[i] != static_cast<int64_t>(i) || sorted.size() != s.iotaReshape.size())
        return r.fail("T(...) is not a permutation of the reshape's dimensions");
    if (product(s.iotaReshape) != s.numDevices())
      return r.fail("<=[...] has " + std::to_string(product(s.iotaReshape)) + " devices for " +
                    std::to_string(s.numDevices()) + " tiles");
    s.devices = iotaDevices(s.iotaReshape, s.iotaTranspose);
    return;
  }
  do s.devices.push_back(r.count());
  while (!r.failed() && r.accept(','));
  if (static_cast<int64_t>(s.devices.size()) != s.numDevices())
    return r.fail("lists " + std::to_string(s.devices.size()) + " devices for " + std::to_string(s.numDevices()) +
                  " tiles");
  std::vector<int64_t> sorted = s.devices;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) r.fail("lists a device twice");
}

// Tuples nest at most this deep: each level is a call of readSharding, and
// a string of `{` must not overflow the stack (the text parser's limit).
constexpr int kMaxTupleNesting = 256;

HloSharding readSharding(Reader& r, int depth = 0) {
  HloSharding s;
  r.expect('{');
  if (r.peek('{')) {
    s.kind = HloSharding::Kind::Tuple;
    if (depth >= kMaxTupleNesting) {
      r.fail("tuple shardings nested deeper than " + std::to_string(kMaxTupleNesting) + " levels");
      return s;
    }
    do s.tuple.push_back(readSharding(r, depth + 1));
    while (!r.failed() && r.accept(','));
    r.expect('}');
    return s;
  }
  while (!r.failed() && !r.accept('}')) {
    std::string field = r.word();
    if (field == "replicated") {
      s.kind = HloSharding::Kind::Replicated;
    } else if (field == "manual") {
      s.kind = HloSharding::Kind::Manual;
    } else if (field == "maximal") {
      s.kind = HloSharding::Kind::Maximal;
      if (!r.accept("device")) r.fail("expected 'device=' after 'maximal'");
      r.expect('=');
      s.device = r.count();
    } else if (field == "devices") {
      readTiled(r, s);
    } else if (field == "last_tile_dim_replicate") {
      s.lastTileDimReplicate = true;
    } else if (field == "last_tile_dims") {
      r.expect('=');
      r.expect('{');
      std::string type = r.word();
      if (type != "replicated" || !r.accept('}'))
        r.fail("subgroups other than one replicated last dimension (last_tile_dims={" + type +
               "...}) are not supported");
      s.lastTileDimReplicate = true;
    } else if (field == "metadata") {
      r.expect('=');
      r.skipBalanced('{', '}');
    } else if (field.empty()) {
      r.fail("expected a sharding field");
    } else {
      r.fail("'" + field + "' shardings are not supported");
    }
  }
  if (!r.failed() && s.lastTileDimReplicate && (s.kind != HloSharding::Kind::Tiled || s.tileDims.size() < 1))
    r.fail("last_tile_dim_replicate needs tile dimensions");
  return s;
}

// Whether `cut` can join `cuts` with every cut still dividing the next.
bool fitsChain(const std::vector<int64_t>& cuts, int64_t cut) {
  return std::all_of(cuts.begin(), cuts.end(), [&](int64_t c) { return c % cut == 0 || cut % c == 0; });
}

void addCut(std::vector<int64_t>& cuts, int64_t cut) {
  if (std::find(cuts.begin(), cuts.end(), cut) != cuts.end() || !fitsChain(cuts, cut)) return;
  cuts.insert(std::upper_bound(cuts.begin(), cuts.end(), cut), cut);
}

std::string axisName(int i) { return "_axis_" + std::to_string(i); }

}  // namespace

Expected<HloSharding> parseHloSharding(std::string_view text) {
  Reader r(text);
  HloSharding s = readSharding(r);
  if (!r.failed() && !r.atEnd()) r.fail("unexpected text after the sharding");
  if (r.failed())
    return error(ErrorCode::InvalidArgument, "malformed mhlo.sharding: " + r.errorMessage());
  return s;
}

// --- MeshPlanner ----------------------------------------------------------------

MeshPlanner::IotaGroup& MeshPlanner::groupOf(int64_t numDevices) {
  for (IotaGroup& g : groups_)
    if (g.numDevices == numDevices) return g;
  groups_.push_back({numDevices, {}, false});
  return groups_.back();
}

void MeshPlanner::add(const HloSharding& s) {
  if (s.kind == HloSharding::Kind::Tuple) {
    for (const HloSharding& element : s.tuple) add(element);
    return;
  }
  if (s.kind != HloSharding::Kind::Tiled) return;
  HloSharding iota = s;
  if (iota.iotaReshape.empty()) {  // an explicit list that happens to be 0, 1, 2, ...
    std::vector<int64_t> identity(s.devices.size());
    std::iota(identity.begin(), identity.end(), 0);
    if (s.devices != identity) return;
    iota.iotaReshape = {s.numDevices()};
    iota.iotaTranspose = {0};
  }
  groupOf(iota.numDevices()).planned = false;
  iota_.push_back(std::move(iota));
}

std::optional<std::vector<std::vector<int>>> MeshPlanner::tileAxes(const IotaGroup& group, const HloSharding& s,
                                                                   std::vector<int64_t>* newCuts) const {
  // Stride range k, counted from the minor end, spans the device strides
  // [bounds[k], bounds[k+1]); it is mesh axis "_axis_<cuts - k>".
  std::vector<int64_t> bounds = {1};
  bounds.insert(bounds.end(), group.cuts.begin(), group.cuts.end());
  bounds.push_back(group.numDevices);
  auto boundIndex = [&](int64_t b) -> int {
    auto it = std::find(bounds.begin(), bounds.end(), b);
    return it == bounds.end() ? -1 : static_cast<int>(it - bounds.begin());
  };
  // Each reshape dimension is a run of mesh axes; the transpose orders the runs.
  std::vector<int64_t> prefix = {1};
  for (int64_t d : s.iotaReshape) prefix.push_back(prefix.back() * d);
  std::vector<std::vector<int>> runs(s.iotaReshape.size());
  bool missing = false;
  for (size_t j = 0; j < s.iotaReshape.size(); ++j) {
    // Strides count from the minor end: reshape dim j covers [N/prefix[j+1], N/prefix[j]).
    int64_t lo = group.numDevices / prefix[j + 1], hi = group.numDevices / prefix[j];
    int a = boundIndex(lo), b = boundIndex(hi);
    if (a < 0 || b < 0) {
      if (newCuts && a < 0) newCuts->push_back(lo);
      if (newCuts && b < 0) newCuts->push_back(hi);
      missing = true;
      continue;
    }
    for (int k = b - 1; k >= a; --k) runs[j].push_back(k);  // major (larger stride) first
  }
  if (missing) return std::nullopt;
  std::vector<int> order;
  for (int64_t j : s.iotaTranspose) order.insert(order.end(), runs[j].begin(), runs[j].end());

  std::vector<std::vector<int>> axes(s.tileDims.size());
  size_t next = 0;
  for (size_t d = 0; d < s.tileDims.size(); ++d) {
    int64_t have = 1;
    while (have < s.tileDims[d]) {
      if (next >= order.size()) return std::nullopt;
      int k = order[next];
      int64_t size = bounds[k + 1] / bounds[k];
      int64_t need = s.tileDims[d] / have;
      if (s.tileDims[d] % have != 0) return std::nullopt;
      if (need >= size && need % size == 0) {
        axes[d].push_back(k);
        have *= size;
        ++next;
        continue;
      }
      // The tile takes the major `need` of axis k: split it there.
      if (size % need == 0 && newCuts) newCuts->push_back(bounds[k + 1] / need);
      return std::nullopt;
    }
  }
  return axes;
}

void MeshPlanner::plan(IotaGroup& group) {
  group.cuts.clear();
  // Refine until every sharding of the group is whole axes, or no cut helps.
  for (bool changed = true; changed;) {
    changed = false;
    for (const HloSharding& s : iota_) {
      if (s.numDevices() != group.numDevices) continue;
      std::vector<int64_t> newCuts;
      if (tileAxes(group, s, &newCuts)) continue;
      for (int64_t cut : newCuts) {
        if (cut <= 1 || cut >= group.numDevices) continue;
        size_t before = group.cuts.size();
        addCut(group.cuts, cut);
        changed |= group.cuts.size() != before;
      }
    }
  }
  group.planned = true;
}

std::string MeshPlanner::meshName(const IotaGroup& group) const {
  return groups_.size() == 1 ? "mesh" : "mesh_" + std::to_string(group.numDevices);
}

std::string MeshPlanner::explicitMeshName(const HloSharding& s) {
  sharding::Mesh mesh;
  for (size_t d = 0; d < s.tileDims.size(); ++d)
    if (s.tileDims[d] > 1) mesh.axes.push_back({axisName(static_cast<int>(d)), s.tileDims[d]});
  mesh.deviceIds = s.devices;
  for (const auto& [name, existing] : otherMeshes_)
    if (existing == mesh) return name;
  int count = 0;
  for (const auto& entry : otherMeshes_) count += entry.first.starts_with("mesh_ids_");
  std::string name = "mesh_ids_" + std::to_string(count);
  otherMeshes_.emplace_back(name, std::move(mesh));
  return name;
}

Expected<sharding::TensorSharding> MeshPlanner::translate(const HloSharding& s, int64_t rank) {
  using Kind = HloSharding::Kind;
  if (s.kind == Kind::Manual || s.kind == Kind::Tuple)
    return error(ErrorCode::Unimplemented, "a manual or tuple sharding has no tensor sharding");
  if (s.kind == Kind::Maximal) {
    std::string name = "maximal_mesh_" + std::to_string(s.device);
    if (std::none_of(otherMeshes_.begin(), otherMeshes_.end(), [&](const auto& m) { return m.first == name; }))
      otherMeshes_.emplace_back(name, sharding::Mesh{{}, {s.device}});
    return sharding::replicated(name, 0);  // Shardy gives a maximal sharding no dimensions, whatever the rank
  }
  if (s.kind == Kind::Replicated) {
    if (!groups_.empty()) return sharding::replicated(meshName(groups_.front()), rank);
    if (std::none_of(otherMeshes_.begin(), otherMeshes_.end(), [](const auto& m) { return m.first == "mesh"; }))
      otherMeshes_.emplace_back("mesh", sharding::Mesh{});
    return sharding::replicated("mesh", rank);
  }
  if (static_cast<int64_t>(s.tensorRank()) != rank)
    return error(ErrorCode::InvalidArgument, "the sharding tiles " + std::to_string(s.tensorRank()) +
                                                 " dimension(s) of a tensor of rank " + std::to_string(rank));
  sharding::TensorSharding out = sharding::replicated("", rank);
  for (const HloSharding& iota : iota_) {
    if (iota.tileDims != s.tileDims || iota.devices != s.devices) continue;
    IotaGroup& group = groupOf(s.numDevices());
    if (!group.planned) plan(group);
    std::optional<std::vector<std::vector<int>>> axes = tileAxes(group, iota, nullptr);
    if (!axes) break;  // no common mesh expresses it: a mesh of its own below
    out.meshName = meshName(group);
    for (int64_t d = 0; d < rank; ++d)
      for (int k : (*axes)[d]) out.dims[d].axes.push_back(axisName(static_cast<int>(group.cuts.size()) - k));
    return out;
  }
  out.meshName = explicitMeshName(s);
  for (int64_t d = 0; d < rank; ++d)
    if (s.tileDims[d] > 1) out.dims[d].axes.push_back(axisName(static_cast<int>(d)));
  return out;
}

std::vector<std::pair<std::string, sharding::Mesh>> MeshPlanner::meshes() {
  std::vector<std::pair<std::string, sharding::Mesh>> out;
  for (IotaGroup& group : groups_) {
    if (!group.planned) plan(group);
    sharding::Mesh mesh;
    std::vector<int64_t> bounds = {1};
    bounds.insert(bounds.end(), group.cuts.begin(), group.cuts.end());
    bounds.push_back(group.numDevices);
    // Stride range k counts from the minor end; the mesh lists axes major
    // first, named in that order.
    int numAxes = static_cast<int>(bounds.size()) - 1;
    for (int k = numAxes - 1; k >= 0; --k)
      if (bounds[k + 1] > bounds[k]) mesh.axes.push_back({axisName(numAxes - 1 - k), bounds[k + 1] / bounds[k]});
    out.emplace_back(meshName(group), std::move(mesh));
  }
  out.insert(out.end(), otherMeshes_.begin(), otherMeshes_.end());
  return out;
}

}  // namespace kiln::gspmd
