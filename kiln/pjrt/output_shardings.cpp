#include "kiln/pjrt/output_shardings.h"

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
  // dimension uses replicate the tiles, as one last tile dimension.
  std::vector<std::vector<int>> axesOfDim;
  std::vector<bool> used(mesh.axes.size(), false);
  for (const sharding::DimSharding& dim : tensor.dims) {
    axesOfDim.emplace_back();
    for (const std::string& name : dim.axes) {
      int axis = mesh.axisIndex(name);
      if (axis < 0) return error(ErrorCode::Unimplemented, "the mesh has no axis '" + name + "'");
      axesOfDim.back().push_back(axis);
      used[axis] = true;
    }
  }
  std::vector<int> replicatedAxes;
  for (size_t a = 0; a < mesh.axes.size(); ++a)
    if (!used[a]) replicatedAxes.push_back(static_cast<int>(a));
  axesOfDim.push_back(replicatedAxes);

  std::vector<int64_t> tileDims;
  for (const std::vector<int>& axes : axesOfDim) {
    int64_t tiles = 1;
    for (int a : axes) tiles *= mesh.axes[a].size;
    tileDims.push_back(tiles);
  }
  bool replicatedTiles = tileDims.back() > 1;
  int64_t numDevices = mesh.numDevices();
  std::vector<int64_t> devices(numDevices);
  for (int64_t position = 0; position < numDevices; ++position) {
    int64_t tile = 0;  // row-major over tileDims
    for (size_t d = 0; d < axesOfDim.size(); ++d) {
      int64_t index = 0;
      for (int a : axesOfDim[d]) index = index * mesh.axes[a].size + mesh.coordinate(position, a);
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

}  // namespace kiln::pjrt
