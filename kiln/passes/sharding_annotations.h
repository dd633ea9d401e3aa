// Where a program's shardings live: `sdy.sharding` in a function's argument
// and result attributes, and `sdy.sharding = #sdy.sharding_per_value<[...]>`
// on ops. Propagation writes them, the partitioner reads them.
#pragma once

#include <optional>
#include <string>

#include "kiln/ir/ir.h"
#include "kiln/ir/sharding.h"

namespace kiln::sharding {

// The sharding of argument / result `i` of `fn`; nullopt when it has none.
// Malformed text is an error (the verifier reports it first).
Expected<std::optional<TensorSharding>> argumentSharding(const Operation& fn, unsigned i);
Expected<std::optional<TensorSharding>> resultSharding(const Operation& fn, unsigned i);
void setArgumentSharding(Operation& fn, unsigned i, const TensorSharding& sharding);
void setResultSharding(Operation& fn, unsigned i, const TensorSharding& sharding);

// The shardings an op's `sdy.sharding` gives its results; nullopt when none.
Expected<std::optional<std::vector<TensorSharding>>> opShardings(const Operation& op);

// The one mesh the module's shardings use: its name and axes. nullopt for a
// module without sdy.mesh; an error for several different meshes.
Expected<std::optional<std::pair<std::string, Mesh>>> moduleMesh(const Module& module);

// Sub-axes (`"x":(p)s`) made whole axes, so that propagation and
// partitioning see only whole axes: each axis of an sdy.mesh whose sub-axes
// the module's shardings use is split into the parts those sub-axes cut it
// into (major to minor), each a mesh axis named as its sub-axis
// (subAxisRef: `x:(1)2`), and every sharding (arguments, results, ops,
// constraints, reshards, manual computations) names those parts instead:
// `"x"` all of them, `"x":(1)4` those it covers. Devices keep their numbers
// (row-major over the parts is row-major over the axis). Returns the meshes
// it changed, as they were (nullopt when no sharding uses a sub-axis). An
// error where the cuts do not nest (`"x":(1)2` and `"x":(1)3` of an axis of
// 6) or a sub-axis is over an inline mesh.
//
// `intoPrimes` (propagation): every axis of an sdy.mesh of composite size is
// cut further, each of those parts into parts of prime size (ascending: an
// axis of 12 into 2, 2, 3), so that a dimension may take part of an axis
// (a reshape splitting a dimension over "x" of 4 into 2 x 4 gives
// `"x":(1)2` to the first and `"x":(2)2` to the second); folding merges
// back the parts a sharding uses whole.
Expected<std::optional<std::vector<std::pair<std::string, Mesh>>>> refineSubAxes(Module& module,
                                                                                 bool intoPrimes = false);
// Undoes refineSubAxes: the meshes as they were, and every sharding over one
// naming sub-axes again, consecutive parts of an axis merged (all of them:
// the whole axis), replicated and unreduced axes in mesh order.
Status foldSubAxes(Module& module, const std::vector<std::pair<std::string, Mesh>>& original);
// The same for one sharding over the refined form of mesh `original`.
Status foldSubAxes(TensorSharding& sharding, const Mesh& original);

}  // namespace kiln::sharding
