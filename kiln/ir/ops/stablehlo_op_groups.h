// Registration hooks of the families of stablehlo.* ops; registerStablehloOps
// (stablehlo_ops.cpp) calls them all. Internal to kiln/ir/ops.
#pragma once

#include <vector>

#include "kiln/ir/op_registry.h"

namespace kiln {

void registerElementwiseOps(std::vector<OpDef>& defs);    // elementwise_ops.cpp
void registerShapeOps(std::vector<OpDef>& defs);          // shape_ops.cpp
void registerReductionOps(std::vector<OpDef>& defs);      // reduction_ops.cpp
void registerLinalgOps(std::vector<OpDef>& defs);         // linalg_ops.cpp
void registerControlFlowOps(std::vector<OpDef>& defs);    // control_flow_ops.cpp
void registerDistributionOps(std::vector<OpDef>& defs);   // distribution_ops.cpp
void registerMiscOps(std::vector<OpDef>& defs);           // misc_ops.cpp: random, host, quantization
void registerDeprecatedOps(std::vector<OpDef>& defs);     // deprecated_ops.cpp: dot, einsum, ... (kLegalized)

}  // namespace kiln
