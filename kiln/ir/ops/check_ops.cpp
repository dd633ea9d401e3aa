// Placeholder until the check.* ops are defined with their type rules.
#include "kiln/ir/op_registry.h"
namespace kiln {
void registerCheckOps(std::vector<OpDef>&) {}
}  // namespace kiln
