// combine_all_reduce: merges independent all_reduces of a block that reduce
// alike (same groups, same combining op, same element type) into one
// variadic all_reduce, which the cpu back end sends as one buffer.
//
//   %a = all_reduce(%ga) {add}            %r:2 = all_reduce(%ga, %gb) {add}
//   %u = multiply %a, %s           =>     %u = multiply %r#0, %s
//   %b = all_reduce(%gb) {add}            (uses of %a moved after %r)
//
// A data-parallel training step all-reduces every gradient, each at its own
// point of the backward pass; across processes each all-reduce costs round
// trips through the network stack that dwarf its few kilobytes (a loaded
// host makes each wake-up milliseconds), so one combined all-reduce per step
// is the difference between a step of milliseconds and one of tens.
//
// The combined op takes the place of the group's last member. The ops
// between that use a member's result (directly, through other such ops, or
// inside their regions) move after it, in their order; a member's operand
// never depends on another member. Scanning stops at an op with side effects
// that would have to move, at one other than a collective that members would
// move past (infeed, send, custom calls), and at the block's terminator; a group holds at
// most kCombineBytes. Every device runs the same program, so every device
// combines alike and collectives stay in the same order everywhere.
#include <algorithm>
#include <set>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

constexpr int64_t kCombineBytes = 32 << 20;

// The one op of a reduction body `return op(a, b)` on its two arguments.
const Operation* combiningOp(const Operation& allReduce) {
  if (allReduce.numRegions() != 1 || allReduce.region(0).numBlocks() != 1) return nullptr;
  const Block& body = allReduce.region(0).front();
  const Operation* first = body.front();
  if (!first || body.size() != 2 || body.numArguments() != 2 || first->numOperands() != 2) return nullptr;
  const Operation* ret = first->nextInBlock();
  if (ret->numOperands() != 1 || ret->operand(0) != first->result(0)) return nullptr;
  bool onArguments = (first->operand(0) == body.argument(0) && first->operand(1) == body.argument(1)) ||
                     (first->operand(0) == body.argument(1) && first->operand(1) == body.argument(0));
  return onArguments ? first : nullptr;
}

int64_t tensorBytes(const Value* v) {
  Type t = v->type();
  return t.isTensor() ? t.numElements() * t.elementType().storageBytes() : 0;
}

// An all_reduce this pass can combine: tensor operands of one element type,
// a body of one combining op.
bool isCandidate(const Operation& op) {
  if (op.name() != "stablehlo.all_reduce" || op.numOperands() == 0 || !combiningOp(op)) return false;
  Type element = op.operand(0)->type().isTensor() ? op.operand(0)->type().elementType() : Type();
  for (const Value* v : op.operands())
    if (!v->type().isTensor() || v->type().elementType() != element) return false;
  return true;
}

// Whether two candidates reduce alike: the same groups and channel kind, the
// same combining op on the same element type.
bool reduceAlike(const Operation& a, const Operation& b) {
  for (std::string_view attr : {"replica_groups", "use_global_device_ids"})
    if (a.attr(attr) != b.attr(attr)) return false;
  if (bool(a.attr("channel_handle")) != bool(b.attr("channel_handle"))) return false;
  if (a.attrs().size() != b.attrs().size()) return false;  // anything else set on one only
  const Operation *x = combiningOp(a), *y = combiningOp(b);
  return x->name() == y->name() && x->result(0)->type() == y->result(0)->type() &&
         a.operand(0)->type().elementType() == b.operand(0)->type().elementType();
}

bool usesAny(Operation& op, const std::set<const Value*>& values) {
  bool uses = false;
  op.walk([&](Operation& nested) {
    for (Value* v : nested.operands()) uses |= values.count(v) > 0;
  });
  return uses;
}

bool hasSideEffects(Operation& op) { return !isRemovableIfUnused(op); }

// The collectives every device meets in program order: members may move past
// them (every device moves them alike), unlike infeed, send or custom calls.
bool isCollective(const Operation& op) {
  static const std::set<std::string, std::less<>> names = {
      "stablehlo.all_reduce", "stablehlo.all_gather", "stablehlo.reduce_scatter",
      "stablehlo.all_to_all", "stablehlo.collective_permute", "stablehlo.collective_broadcast"};
  return names.count(op.name()) > 0;
}

// Combines the group that starts at ops[first]; returns whether it combined.
bool combineFrom(const std::vector<Operation*>& ops, size_t first) {
  Operation* leader = ops[first];
  std::vector<Operation*> members{leader};
  std::vector<Operation*> dependents;  // between members, using their results
  std::set<const Value*> tainted;  // the members' results and what is computed from them
  auto taint = [&](const Operation& op) {
    for (Value* r : op.results()) tainted.insert(r);
  };
  taint(*leader);
  int64_t bytes = 0;
  for (Value* v : leader->operands()) bytes += tensorBytes(v);
  for (size_t i = first + 1; i < ops.size(); ++i) {
    Operation* op = ops[i];
    if (op->def() && op->def()->has(kTerminator)) break;
    bool dependent = usesAny(*op, tainted);
    if (!dependent && isCandidate(*op) && reduceAlike(*leader, *op)) {
      int64_t more = 0;
      for (Value* v : op->operands()) more += tensorBytes(v);
      if (bytes + more > kCombineBytes) break;
      bytes += more;
      members.push_back(op);
      taint(*op);
      continue;
    }
    if (hasSideEffects(*op) && (dependent || !isCollective(*op))) break;
    if (!dependent) continue;
    dependents.push_back(op);
    taint(*op);
  }
  if (members.size() < 2) return false;
  Operation* last = members.back();
  OperationState st("stablehlo.all_reduce", leader->loc());
  for (Operation* m : members) {
    st.operands.insert(st.operands.end(), m->operands().begin(), m->operands().end());
    for (Value* r : m->results()) st.resultTypes.push_back(r->type());
  }
  st.attributes = leader->attrs();
  const Operation* combining = combiningOp(*leader);
  Type scalar = combining->result(0)->type();
  Block* body = st.addRegion()->addBlock();
  OperationState fold(combining->name(), combining->loc());
  fold.operands = {body->addArgument(scalar), body->addArgument(scalar)};
  fold.resultTypes = {scalar};
  fold.attributes = combining->attrs();
  Operation* folded = body->push_back(Operation::create(std::move(fold)));
  OperationState ret(combining->nextInBlock()->name(), combining->loc());
  ret.operands = {folded->result()};
  body->push_back(Operation::create(std::move(ret)));
  Block& block = *last->parentBlock();
  Operation* placed = block.insertBefore(last, Operation::create(std::move(st)));
  // The dependents before the last member follow the combined op, in order.
  Operation* after = last;
  for (Operation* d : dependents) {
    if (std::find(ops.begin(), ops.end(), d) > std::find(ops.begin(), ops.end(), last)) break;
    std::unique_ptr<Operation> moved = d->remove();
    after = block.insertBefore(after->nextInBlock(), std::move(moved));
  }
  size_t at = 0;
  for (Operation* m : members) {
    std::vector<Value*> results;
    for (unsigned r = 0; r < m->numResults(); ++r) results.push_back(placed->result(at++));
    m->replaceWith(results);
  }
  return true;
}

bool combineInBlock(Block& block) {
  bool changed = false;
  for (Operation* op : block.ops())
    for (auto& region : op->regions())
      for (auto& b : region->blocks()) changed |= combineInBlock(*b);
  // Each combination changes the block: scan again from the start.
  for (bool again = true; again;) {
    again = false;
    std::vector<Operation*> ops = block.ops();
    for (size_t i = 0; i < ops.size() && !again; ++i)
      if (isCandidate(*ops[i])) again = combineFrom(ops, i);
    changed |= again;
  }
  return changed;
}

class CombineAllReducePass : public FunctionPass {
 public:
  std::string_view name() const override { return "combine_all_reduce"; }

 private:
  bool runOnBody(Block& body) override { return combineInBlock(body); }
};

}  // namespace

std::unique_ptr<Pass> createCombineAllReducePass() { return std::make_unique<CombineAllReducePass>(); }

}  // namespace kiln
