// GSPMD's shardings, as `mhlo.sharding` strings write them (XLA's
// HloSharding::ToString), and their translation to Shardy's meshes and
// tensor shardings (kiln/ir/sharding.h), the one form kiln's passes work on.
//
//   {replicated}                      every device holds the whole tensor
//   {maximal device=3}                one device holds it
//   {manual}                          each device holds its own piece (shard_map)
//   {devices=[2,1]<=[2]}              tiled: dimension 0 cut in 2; tile i on device i
//   {devices=[2,2]0,2,1,3}            the tiles' devices listed, row-major
//   {devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}
//                                     the devices iota(4) reshaped to 2x2 and
//                                     transposed; the last tile dimension
//                                     replicates instead of cutting
//   {{replicated}, {maximal device=0}}  one sharding per element of a tuple
//
// LLVM-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/sharding.h"
#include "kiln/support/diagnostic.h"

namespace kiln::gspmd {

struct HloSharding {
  enum class Kind { Replicated, Maximal, Manual, Tiled, Tuple };
  Kind kind = Kind::Replicated;
  int64_t device = 0;  // Maximal

  // Tiled: the number of tiles along each dimension, then (when
  // lastTileDimReplicate) the number of copies of each tile.
  std::vector<int64_t> tileDims;
  bool lastTileDimReplicate = false;
  // The device of each tile, row-major over tileDims. `<=[r]T(p)` is kept as
  // its reshape and transpose (iotaReshape empty for an explicit list).
  std::vector<int64_t> devices;
  std::vector<int64_t> iotaReshape, iotaTranspose;

  std::vector<HloSharding> tuple;  // Tuple

  int64_t numDevices() const;  // Tiled: the product of tileDims
  // Tensor dimensions the tiles cut: tileDims without a replicated last dimension.
  size_t tensorRank() const { return tileDims.size() - (lastTileDimReplicate ? 1 : 0); }
};

// Reads an `mhlo.sharding` string. `metadata={...}` is skipped; subgroups
// other than a replicated last dimension (`last_tile_dims={manual}`) are
// reported unsupported.
Expected<HloSharding> parseHloSharding(std::string_view text);

// Builds the meshes a module's GSPMD shardings need and translates each
// sharding onto them. Tiled shardings whose devices are an iota (possibly
// transposed) over the same number of devices share one mesh: its axes
// ("_axis_0", ...) are the coarsest factorization of the devices in which
// every such sharding's tiles are whole axes, so that [4]<=[4] and
// [2,1,2]<=[4] meet as {"_axis_0", "_axis_1"} and {"_axis_0"}. A sharding
// whose devices are in no such order gets a mesh of its own with
// `device_ids`; `{maximal device=N}` gets `maximal_mesh_N` as JAX names it.
class MeshPlanner {
 public:
  // Collect every sharding first, then translate.
  void add(const HloSharding& sharding);
  // The meshes, by symbol name, in the order to declare them.
  std::vector<std::pair<std::string, sharding::Mesh>> meshes();
  // `sharding` (not Manual or Tuple) of a tensor of rank `rank`. A maximal
  // sharding has no dimensions (`<@maximal_mesh_0, []>`), as Shardy requires.
  Expected<sharding::TensorSharding> translate(const HloSharding& sharding, int64_t rank);

 private:
  struct IotaGroup {  // the shardings over one number of devices
    int64_t numDevices;
    std::vector<int64_t> cuts;  // prefix products of the mesh axes' sizes, 1 < cut < numDevices, increasing
    bool planned = false;
  };
  IotaGroup& groupOf(int64_t numDevices);
  void plan(IotaGroup& group);
  // The mesh axes, major to minor, a tiled iota sharding's tiles use, one
  // list per tile dimension; nullopt when the group's cuts cannot express it
  // (with the cuts that would help added to `newCuts`, when given).
  std::optional<std::vector<std::vector<int>>> tileAxes(const IotaGroup& group, const HloSharding& s,
                                                        std::vector<int64_t>* newCuts) const;
  std::string meshName(const IotaGroup& group) const;
  std::string explicitMeshName(const HloSharding& s);

  std::vector<HloSharding> iota_;  // collected tiled iota shardings
  std::vector<IotaGroup> groups_;
  std::vector<std::pair<std::string, sharding::Mesh>> otherMeshes_;  // maximal, explicit device lists
};

}  // namespace kiln::gspmd
