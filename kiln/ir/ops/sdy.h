// The checks of Shardy's (`sdy.*`) shardings that need the module: each
// sharding names a mesh the module declares (or writes one inline) and fits
// the tensor it describes. kiln/ir/sharding.h reads the attribute text; the
// ops themselves are in sdy_ops.cpp.
//
// What is an error here is what Shardy's own verifier rejects: a missing
// mesh, a dimension list of the wrong length, an axis the mesh lacks or used
// twice, a negative priority, and for sdy.manual_computation a manual axis
// that does not divide its dimension (the body's block arguments have the
// local shape). A dimension not divisible by the axes that shard it is legal
// Shardy (it pads); kiln's SPMD partitioner reports it where it needs
// divisibility.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "kiln/ir/ir.h"
#include "kiln/ir/sharding.h"
#include "kiln/support/diagnostic.h"

namespace kiln::sdy {

// sdy.propagation_barrier's `allowed_direction`, an i32 as Shardy stores it
// (`allowed_direction = 2 : i32` in the generic form, BACKWARD in the pretty
// one). BOTH exists but Shardy rejects it on a barrier.
const char* propagationDirectionName(int64_t value);  // "NONE", ...; null when out of range
std::optional<int64_t> propagationDirectionValue(std::string_view name);

class ShardingVerifier {
 public:
  // `module` is the builtin.module whose sdy.mesh ops shardings refer to (null: none).
  explicit ShardingVerifier(const Operation* module) : module_(module) {}

  // Checks the shardings `op` carries: a func.func's `sdy.sharding` argument
  // and result attributes, any op's `sdy.sharding` (a sharding_per_value,
  // one per result), and those of sdy.sharding_constraint, sdy.reshard and
  // sdy.manual_computation.
  Status verify(const Operation& op);

 private:
  Status verifyFunction(const Operation& fn);
  Status verifyManualComputation(const Operation& op);
  // `sharding` is well formed, names a mesh of the module and fits `type`.
  Status verifyTensorSharding(const Operation& op, const sharding::TensorSharding& sharding, Type type,
                              const std::string& what);
  Expected<sharding::Mesh> meshOf(const sharding::TensorSharding& sharding);

  const Operation* module_;
  bool meshesLoaded_ = false;
  std::map<std::string, sharding::Mesh, std::less<>> meshes_;
};

}  // namespace kiln::sdy
