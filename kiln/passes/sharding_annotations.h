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

}  // namespace kiln::sharding
