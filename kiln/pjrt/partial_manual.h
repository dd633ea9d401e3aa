// shard_map manual over some mesh axes only (`jax.shard_map(...,
// axis_names={"x"})`), run by making it manual over every axis.
//
// kiln's partitioner takes fully manual computations only. A partially
// manual one whose shardings name no free axis (neither its in/out
// shardings nor any sharding inside its body: what JAX emits when the body
// leaves the free axes to the compiler) computes the same when it is made
// manual over the free axes too: each device of a free axis then holds the
// whole extent along it and computes the body over it, as one device would.
// Its collectives already name their groups by global device ids, which
// stay right. The cost is the free axes' work done on each of their
// devices instead of split between them.
#pragma once

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

// Widens each such manual computation of `module` to every axis of its mesh
// and drops the sharding constraints in its body (hints over axes that are
// now manual); a manual computation nested in it that splits nothing (JAX's
// axis_index) becomes its body. Others are left for the partitioner to refuse, naming the
// free axis. Returns how many it widened.
Expected<int> widenPartialManualComputations(Module& module);

}  // namespace kiln::pjrt
