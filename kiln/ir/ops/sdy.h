// Facts about Shardy's (`sdy.*`) sharding attributes that the verifier and
// the passes share. kiln keeps sdy attributes as Opaque text
// (`#sdy.sharding<@mesh, [{"x"}, {}]>`); these read the little of them kiln
// needs until the SPMD partitioner gives them a structured form.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kiln/ir/attributes.h"

namespace kiln::sdy {

// What a `#sdy.sharding<...>` attribute says about its tensor.
struct ShardingSummary {
  std::string mesh;          // the mesh symbol's name; empty for an inline `mesh<...>`
  int64_t dimShardings = 0;  // the entries of its dimension list: the tensor's rank
};

// The summary of `attr`, or nullopt when it is not a well-formed
// `#sdy.sharding<...>`.
std::optional<ShardingSummary> summarizeSharding(const Attribute& attr);

}  // namespace kiln::sdy
