// How kiln's partitioner (spmd_partition.cpp, where these are defined)
// names the devices of a mesh in the collectives and partition offsets it
// builds. The plugin's partially manual computations
// (kiln/pjrt/partial_manual.cpp) build theirs with the same functions, so
// the two agree on which device holds which block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kiln/ir/attributes.h"
#include "kiln/ir/sharding.h"

namespace kiln::spmd {

// The id of the device at row-major position `position` of `mesh` (its
// `device_ids`, or the position itself when it lists none).
int64_t deviceAt(const sharding::Mesh& mesh, int64_t position);
// The number of blocks of a dimension split over `axes`.
int64_t parts(const sharding::Mesh& mesh, const std::vector<std::string>& axes);
// The block the device at `position` holds of a dimension split over
// `axes`: the mixed-radix number its coordinates along them make, the first
// axis major.
int64_t blockIndex(const sharding::Mesh& mesh, int64_t position, const std::vector<std::string>& axes);
// The devices that exchange over `axes`: those agreeing on every other
// axis, each group in block order, by device id.
std::vector<std::vector<int64_t>> groupsOver(const sharding::Mesh& mesh, const std::vector<std::string>& axes);
// groupsOver as a collective's `replica_groups` attribute (i64, one row a group).
Attribute replicaGroups(const sharding::Mesh& mesh, const std::vector<std::string>& axes);
// Indexed by partition id (= device id): the offset of each device's block
// in a dimension split over `axes` in blocks of `blockSize`, as an i32
// constant's `value` (the table a dynamic_slice reads its offset from).
Attribute blockOffsetTable(const sharding::Mesh& mesh, const std::vector<std::string>& axes, int64_t blockSize);

}  // namespace kiln::spmd
