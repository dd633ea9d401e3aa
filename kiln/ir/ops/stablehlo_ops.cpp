// Placeholder until the stablehlo.* ops are defined with their type rules.
#include "kiln/ir/op_registry.h"
namespace kiln {
void registerStablehloOps(std::vector<OpDef>&) {}
}  // namespace kiln
