// The verifier: checks a module against the StableHLO specification's
// constraints (each op's type rule from the registry) and the structural rules
// of the IR (SSA dominance, terminators, region signatures, func.call callees,
// func.return types), and Shardy's shardings against the module's meshes
// (kiln/ir/ops/sdy.h, docs/sharding.md).
#pragma once

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

struct VerifyOptions {
  // Accept ops that are not in the registry (kiln-opt --allow-unregistered-dialect).
  bool allowUnregistered = false;
};

// Returns the first error found, with the location of the offending op.
Status verifyModule(const Module& module, const VerifyOptions& options = {});
// Verifies one op and everything nested in it.
Status verifyOp(const Operation& op, const VerifyOptions& options = {});

}  // namespace kiln
