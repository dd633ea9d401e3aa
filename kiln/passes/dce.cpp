// Dead code elimination: erases side-effect-free ops whose results are unused.
// Blocks are swept back to front, so a whole dead chain goes in one sweep.
#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {

bool eraseDeadOps(Block& block) {
  bool changed = false;
  std::vector<Operation*> ops = block.ops();
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Operation* op = *it;
    for (auto& region : op->regions())
      for (auto& b : region->blocks()) changed |= eraseDeadOps(*b);
    if (isRemovableIfUnused(*op) && op->resultsUnused()) {
      op->erase();
      changed = true;
    }
  }
  return changed;
}

namespace {

class DcePass : public FunctionPass {
 public:
  std::string_view name() const override { return "dce"; }

 private:
  bool runOnBody(Block& body) override { return eraseDeadOps(body); }
};

}  // namespace

std::unique_ptr<Pass> createDcePass() { return std::make_unique<DcePass>(); }

}  // namespace kiln
