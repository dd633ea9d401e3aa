// sink_constants: copies each constant that the body of a reduce, sort,
// scatter, map, reduce_window, select_and_scatter or all_reduce reads from
// outside into that body. StableHLO lets such a body read outer values, and
// JAX's programs do (a complex sort's comparator reads a zero and a NaN
// defined beside the sort); back ends run these bodies with nothing but the
// op's operands at hand (a routine evaluates the op alone, a kernel emits
// the body as scalar code), so a body must be closed. The bodies of while,
// if and case run in their enclosing function's frame and are left alone.
// A body that reads a value computed at run time stays as it is, and back
// ends that cannot run it say so.
#include <map>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

bool hasClosedBodies(const Operation& op) {
  if (op.numRegions() == 0 || op.name().rfind("stablehlo.", 0) != 0) return false;
  return !hasTrait(op, kControlFlow);
}

// Whether `inner` sits somewhere in `op`'s regions.
bool nestedIn(const Operation& inner, const Operation& op) {
  for (const Operation* p = inner.parentOp(); p; p = p->parentOp())
    if (p == &op) return true;
  return false;
}

// Copies the outer constants `op`'s bodies read to the start of the body
// that reads them; returns whether any was copied.
bool sinkInto(Operation& op) {
  bool changed = false;
  for (unsigned r = 0; r < op.numRegions(); ++r) {
    for (const auto& block : op.region(r).blocks()) {
      std::map<Value*, Value*> copies;  // outer constant -> its copy in this body
      std::vector<Operation*> nested;
      for (Operation& inner : *block) inner.walk([&](Operation& o) { nested.push_back(&o); });
      for (Operation* inner : nested)
        for (unsigned i = 0; i < inner->numOperands(); ++i) {
          Value* v = inner->operand(i);
          const Operation* def = v->definingOp();
          if (!def || def->name() != "stablehlo.constant" || nestedIn(*def, op)) continue;
          auto [it, isNew] = copies.try_emplace(v, nullptr);
          if (isNew) it->second = block->insertBefore(block->front(), def->clone())->result(0);
          inner->setOperand(i, it->second);
          changed = true;
        }
    }
  }
  return changed;
}

class SinkConstantsPass : public Pass {
 public:
  std::string_view name() const override { return "sink_constants"; }
  Expected<bool> run(Module& module) override {
    std::vector<Operation*> ops;
    for (Operation* fn : module.definedFunctions())
      fn->walk([&](Operation& op) {
        if (hasClosedBodies(op)) ops.push_back(&op);
      });
    bool changed = false;
    for (Operation* op : ops) changed |= sinkInto(*op);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createSinkConstantsPass() { return std::make_unique<SinkConstantsPass>(); }

}  // namespace kiln
