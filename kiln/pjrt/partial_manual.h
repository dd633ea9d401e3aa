// shard_map manual over some mesh axes only (`jax.shard_map(...,
// axis_names={"x"})`), run by making it manual over every axis.
//
// kiln's partitioner takes fully manual computations only. A partially
// manual one computes the same when it is made manual over the free axes
// too: each device of a free axis then holds the whole extent along it and
// computes the body over it, as one device would. Its collectives already
// name their groups by global device ids, which stay right. Shardings over
// the free axes (a sharding constraint in the body, a free axis in its in or
// out shardings) say how to split that work, not what it computes: they are
// dropped, and the partitioner reshards the computation's operands and
// results to and from "replicated over the free axes"; so are partial sums
// over them (unreduced), which are how a value is held, not what it is. The
// cost is the free axes' work done on each of their devices instead of split
// between them, unless kiln's partitioner splits it: where the in and out
// shardings or a constraint in the body split something over a free axis,
// the body is partitioned over the free axes as a function of its own, and
// the computation's blocks are split over manual and free axes alike (each
// device gets its block from the start). A manual computation nested in the
// body over free axes becomes its body between slices (each device's block)
// and gathers or sums over its axes. Left for the partitioner to refuse: a nest whose shardings
// name an axis it is not manual over, and a dimension split over a free
// axis before a manual one.
#pragma once

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

// Widens each such manual computation of `module` to every axis of its mesh,
// with its body partitioned over the free axes (splitFreeAxisWork in the
// .cpp) or else the free axes dropped from its in and out shardings; drops
// the sharding constraints left in its body; a manual
// computation nested in it that splits nothing (JAX's axis_index) becomes
// its body, one over free axes its body between slices and collectives.
// Functions such a computation calls are inlined first. Others are left for
// the partitioner to refuse, naming the free axis. Returns how many it
// widened.
Expected<int> widenPartialManualComputations(Module& module);

}  // namespace kiln::pjrt
