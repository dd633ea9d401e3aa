// The stablehlo.* ops: one OpDef per op of the StableHLO specification.
// Each family of ops lives in its own file with its type rules; this file only
// collects them.
#include "kiln/ir/ops/stablehlo_op_groups.h"

namespace kiln {

void registerStablehloOps(std::vector<OpDef>& defs) {
  registerElementwiseOps(defs);
  registerShapeOps(defs);
  registerReductionOps(defs);
  registerLinalgOps(defs);
  registerControlFlowOps(defs);
  registerDistributionOps(defs);
  registerMiscOps(defs);
  registerDeprecatedOps(defs);
}

}  // namespace kiln
