// Common subexpression elimination.
//
// Two pure ops without regions are equivalent when they have the same name,
// operands, attributes and result types; the later one is replaced by the
// earlier one if the earlier one dominates it. Scopes follow the region tree:
// an expression available in a block is available in the regions nested in
// it (they can use outer values), but not in sibling or outer regions, nor
// in regions isolated from above (kiln.fusion bodies), which start afresh.
// Nor are they in the bodies of ops other than control flow (a reduce body,
// a sort comparator): those are computations of the op's own arguments,
// which the cpu back end runs with nothing but the op's operands at hand
// (an argmax's body that came to use the reduce's init constant failed
// there with "uses a value that has not been computed").
// Ops with side effects, and ops with regions, are left alone.
#include <unordered_map>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

struct OpKeyHash {
  size_t operator()(const Operation* op) const {
    size_t h = std::hash<std::string>()(op->name());
    for (Value* v : op->operands()) h = h * 31 + std::hash<const void*>()(v);
    for (Type t : op->resultTypes()) h = h * 31 + std::hash<const void*>()(t.impl());
    return h;
  }
};

struct OpKeyEqual {
  bool operator()(const Operation* a, const Operation* b) const {
    if (a->name() != b->name() || a->numOperands() != b->numOperands() ||
        a->numResults() != b->numResults())
      return false;
    for (unsigned i = 0; i < a->numOperands(); ++i)
      if (a->operand(i) != b->operand(i)) return false;
    for (unsigned i = 0; i < a->numResults(); ++i)
      if (a->result(i)->type() != b->result(i)->type()) return false;
    return a->attrs() == b->attrs();
  }
};

using ScopeMap = std::unordered_map<const Operation*, Operation*, OpKeyHash, OpKeyEqual>;

// Whether `op`'s regions run where the values around the op are at hand
// (if, case and while run in their enclosing function's frame), so that
// they may use an equivalent outer value.
bool regionsSeeOuterValues(const Operation& op) { return hasTrait(op, kControlFlow); }

bool isCseCandidate(const Operation& op) {
  return op.def() && op.def()->has(kPure) && op.numRegions() == 0 && op.numResults() > 0;
}

// `scope` holds what the enclosing blocks made available; it is copied so
// that what this block adds does not leak out.
bool cseBlock(Block& block, ScopeMap scope) {
  bool changed = false;
  for (Operation* op : block.ops()) {
    bool seesOuter = regionsSeeOuterValues(*op);
    for (auto& region : op->regions())
      for (auto& nested : region->blocks()) changed |= cseBlock(*nested, seesOuter ? scope : ScopeMap());
    if (!isCseCandidate(*op)) continue;
    auto [it, inserted] = scope.emplace(op, op);
    if (inserted) continue;
    op->replaceWith(it->second->results());
    changed = true;
  }
  return changed;
}

class CsePass : public FunctionPass {
 public:
  std::string_view name() const override { return "cse"; }

 private:
  bool runOnBody(Block& body) override { return cseBlock(body, ScopeMap()); }
};

}  // namespace

std::unique_ptr<Pass> createCsePass() { return std::make_unique<CsePass>(); }

}  // namespace kiln
