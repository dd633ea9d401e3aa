// drop_sharding: removes the sharding annotations that are identities on
// one device -- sdy.sharding_constraint, sdy.reshard and
// sdy.propagation_barrier (Shardy's forms) and
// the custom calls @Sharding, @SPMDFullToShardShape and
// @SPMDShardToFullShape (GSPMD's) when they keep their operand's type -- so
// that no back end has to know them. Each use of the annotated value reads
// the operand instead. sdy.sharding_group (no result) is erased. sdy.mesh symbols and `sdy.sharding` /
// `mhlo.sharding` attributes stay: they change no value, and printing the
// module keeps what the program asked for. When kiln partitions programs
// (Shardy's propagation and partitioning), that pass runs first and
// consumes these annotations instead.
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

bool isShardingAnnotation(const Operation& op) {
  if (op.name() == "sdy.sharding_group") return true;
  if (op.numOperands() != 1 || op.numResults() != 1 || op.operand(0)->type() != op.result(0)->type()) return false;
  if (op.name() == "sdy.sharding_constraint" || op.name() == "sdy.reshard" || op.name() == "sdy.propagation_barrier")
    return true;
  if (op.name() != "stablehlo.custom_call") return false;
  Attribute target = op.attr("call_target_name");
  if (!target || !target.is(AttrKind::String)) return false;
  const std::string& name = target.stringValue();
  return name == "Sharding" || name == "SPMDFullToShardShape" || name == "SPMDShardToFullShape";
}

class DropShardingPass : public Pass {
 public:
  std::string_view name() const override { return "drop_sharding"; }
  Expected<bool> run(Module& module) override {
    std::vector<Operation*> annotations;
    for (Operation* fn : module.definedFunctions())
      fn->walk([&](Operation& op) {
        if (isShardingAnnotation(op)) annotations.push_back(&op);
      });
    for (Operation* op : annotations) {
      if (op->numResults() == 0) {
        op->erase();
        continue;
      }
      Value* input = op->operand(0);
      op->replaceWith(std::span<Value* const>(&input, 1));
    }
    return !annotations.empty();
  }
};

}  // namespace

std::unique_ptr<Pass> createDropShardingPass() { return std::make_unique<DropShardingPass>(); }

}  // namespace kiln
