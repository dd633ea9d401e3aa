// Process groups of the collectives (spec: "Parallel execution"): which
// instances of a replicas x partitions run each collective combines, and in
// what order. Read from the op's attributes (replica_groups or
// source_target_pairs, channel_handle, use_global_device_ids); shared by the
// interpreter's kernels and the cpu back end's collective routines.
#pragma once

#include <optional>
#include <vector>

#include "kiln/interp/instance.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::interp {

// Instances in group order, as Instance::index() values.
using ProcessGroup = std::vector<int>;

// Every process group of collective `op` (all_reduce, all_gather,
// reduce_scatter, all_to_all, collective_permute, collective_broadcast) on
// the grid of `instance`. collective_permute (and send and recv, given
// source_target_pairs) has one group [source, target] per pair; collective_broadcast's groups may leave instances out.
Expected<std::vector<ProcessGroup>> processGroups(const Operation& op, const Instance& instance);

// The group holding instance `index`, and the instance's position in it.
struct Membership {
  ProcessGroup group;
  size_t position;
};
std::optional<Membership> findMember(const std::vector<ProcessGroup>& groups, int index);
// Like findMember for `instance`, an error at `op` when no group holds it.
Expected<Membership> requireMember(const Operation& op, const std::vector<ProcessGroup>& groups,
                                   const Instance& instance);

}  // namespace kiln::interp
