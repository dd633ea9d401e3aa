// Process groups from a collective's attributes, following the spec's
// strategies: cross_replica, cross_partition, cross_replica_and_partition
// and flattened_ids.
#include "kiln/interp/process_groups.h"

#include <algorithm>
#include <string>

#include "kiln/interp/tensor.h"
#include "kiln/ir/attribute_readers.h"

namespace kiln::interp {
namespace {

// How a collective splits the process grid into groups.
enum class Strategy { CrossReplica, CrossPartition, CrossReplicaAndPartition, FlattenedIds };

Status opError(const Operation& op, const std::string& message) {
  return error(op.loc(), "'" + op.name() + "' op " + message);
}

int64_t channelId(const Operation& op) { return intField(op.attr("channel_handle"), "handle", 0); }

// replica_groups and friends: all_reduce, all_gather and reduce_scatter.
Strategy reductionStrategy(const Operation& op) {
  if (channelId(op) <= 0) return Strategy::CrossReplica;
  return boolAttr(op, "use_global_device_ids", false) ? Strategy::FlattenedIds : Strategy::CrossReplicaAndPartition;
}

// all_to_all, collective_permute and collective_broadcast.
Strategy pointToPointStrategy(const Operation& op) {
  return channelId(op) <= 0 ? Strategy::CrossReplica : Strategy::CrossPartition;
}

// The rows of a 2-d integer attribute such as replica_groups, without the -1
// entries that pad ragged groups.
Expected<std::vector<std::vector<int64_t>>> idRows(const Operation& op, std::string_view name) {
  Attribute a = op.attr(name);
  if (!a) return std::vector<std::vector<int64_t>>{};
  if (!a.is(AttrKind::DenseElements) || a.valueType().rank() != 2)
    return opError(op, "`" + std::string(name) + "` must be a 2-d integer tensor");
  Tensor ids = Tensor::fromDense(a);
  int64_t rows = ids.shape()[0], cols = ids.shape()[1];
  std::vector<std::vector<int64_t>> result(rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (int64_t id = ids.getInt(r * cols + c); id >= 0) result[r].push_back(id);
  return result;
}

// The process groups of `strategy` over the grid. `idGroups` are replica,
// partition or flattened ids by strategy; with `emptyMeansAll`, none means one
// group of all ids (XLA's reading of empty replica_groups).
Expected<std::vector<ProcessGroup>> groupsOf(const Operation& op, const Instance& grid, Strategy strategy,
                                             std::vector<std::vector<int64_t>> idGroups, bool emptyMeansAll) {
  int numReplicas = grid.numReplicas, numPartitions = grid.numPartitions;
  int64_t numIds = strategy == Strategy::CrossPartition ? numPartitions
                   : strategy == Strategy::FlattenedIds ? int64_t(numReplicas) * numPartitions
                                                        : numReplicas;
  if (idGroups.empty() && emptyMeansAll) {
    idGroups.emplace_back();
    for (int64_t id = 0; id < numIds; ++id) idGroups.back().push_back(id);
  }
  for (const auto& ids : idGroups)
    for (int64_t id : ids)
      if (id >= numIds)
        return opError(op, "id " + std::to_string(id) + " in its groups is out of range [0, " +
                               std::to_string(numIds) + ")");

  auto index = [&](int64_t replica, int64_t partition) { return int(replica * numPartitions + partition); };
  std::vector<ProcessGroup> groups;
  for (const auto& ids : idGroups) {
    switch (strategy) {
      case Strategy::CrossReplica:
        for (int p = 0; p < numPartitions; ++p) {
          ProcessGroup& g = groups.emplace_back();
          for (int64_t r : ids) g.push_back(index(r, p));
        }
        break;
      case Strategy::CrossPartition:
        for (int r = 0; r < numReplicas; ++r) {
          ProcessGroup& g = groups.emplace_back();
          for (int64_t p : ids) g.push_back(index(r, p));
        }
        break;
      case Strategy::CrossReplicaAndPartition: {
        ProcessGroup& g = groups.emplace_back();
        for (int p = 0; p < numPartitions; ++p)
          for (int64_t r : ids) g.push_back(index(r, p));
        break;
      }
      case Strategy::FlattenedIds:
        groups.emplace_back(ids.begin(), ids.end());
        break;
    }
  }
  return groups;
}

}  // namespace

Expected<std::vector<ProcessGroup>> processGroups(const Operation& op, const Instance& instance) {
  std::string_view name = op.name();
  if (name == "stablehlo.collective_permute" || name == "stablehlo.send" || name == "stablehlo.recv") {
    KILN_ASSIGN_OR_RETURN(auto pairs, idRows(op, "source_target_pairs"));
    for (const auto& pair : pairs)
      if (pair.size() != 2) return opError(op, "source_target_pairs must have two ids per row");
    // Each pair is a process group [source, target] of the strategy.
    return groupsOf(op, instance, pointToPointStrategy(op), std::move(pairs), /*emptyMeansAll=*/false);
  }
  KILN_ASSIGN_OR_RETURN(auto ids, idRows(op, "replica_groups"));
  if (name == "stablehlo.collective_broadcast")
    return groupsOf(op, instance, pointToPointStrategy(op), std::move(ids), /*emptyMeansAll=*/false);
  if (name == "stablehlo.all_to_all")
    return groupsOf(op, instance, pointToPointStrategy(op), std::move(ids), /*emptyMeansAll=*/true);
  return groupsOf(op, instance, reductionStrategy(op), std::move(ids), /*emptyMeansAll=*/true);
}

std::optional<Membership> findMember(const std::vector<ProcessGroup>& groups, int index) {
  for (const ProcessGroup& g : groups)
    if (auto it = std::find(g.begin(), g.end(), index); it != g.end()) return Membership{g, size_t(it - g.begin())};
  return std::nullopt;
}

Expected<Membership> requireMember(const Operation& op, const std::vector<ProcessGroup>& groups,
                                   const Instance& instance) {
  if (auto m = findMember(groups, instance.index())) return *m;
  return opError(op, "replica " + std::to_string(instance.replicaId) + ", partition " +
                         std::to_string(instance.partitionId) + " is in no process group");
}

}  // namespace kiln::interp
