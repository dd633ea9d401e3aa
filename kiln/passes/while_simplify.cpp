// While-loop simplification, in the manner of XLA's WhileLoopSimplifier and
// loop-invariant code motion:
//   - invariant carried values: a value the body passes through unchanged is
//     replaced by its init value everywhere;
//   - loop-invariant code motion: a pure op of the body whose operands are
//     all defined outside the loop (or by ops already hoisted) computes the
//     same value on every trip, so it moves before the loop (unless its
//     result is bigger than its operands, see inflatesLiveMemory);
//   - dead loop-carried values: a value that no result user, no cond and no
//     live value's computation reads is dropped from the loop;
//   - sliced projections: a dot of the loop counter's slice of an outside
//     tensor (a scan's xs[i]) with an outside operand (an input weight) is
//     one dot over the whole tensor before the loop, sliced at the counter
//     in the body (hoistSlicedProjections);
//   - trip counts 0 and 1: when the cond's inputs are known constants
//     (evaluated through the interpreter, like constant folding), a loop that
//     never runs becomes its init values and a loop that runs once becomes a
//     copy of its body.
// All rewrites keep every value bit for bit in the interpreter: nothing is
// recomputed differently, only moved, dropped when unused, or run at compile
// time (a sliced projection's elements are the same sums over the same
// products; a back end may round a big dot's sums in another order than a
// small one's, within the dot tolerance, as between any two dot shapes).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "kiln/interp/evaluate_op.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// Operand layout of stablehlo.while: operands are the initial carried values;
// region 0 is the cond, region 1 the body, both taking the carried values.
Block& condOf(const Operation& loop) { return loop.region(0).front(); }
Block& bodyOf(const Operation& loop) { return loop.region(1).front(); }

// True if `op` lies (possibly nested) inside `ancestor`.
bool isInside(const Operation* op, const Operation* ancestor) {
  for (; op; op = op->parentOp())
    if (op == ancestor) return true;
  return false;
}

// The op that owns `v`'s definition: its defining op, or the op whose region
// holds the block it is an argument of.
const Operation* definitionSite(const Value* v) {
  return v->definingOp() ? v->definingOp() : v->ownerBlock()->parentOp();
}

// Calls `fn` on every value `op` reads, its own operands and those of the
// ops nested in it that are defined outside `op`.
template <typename Fn>
void forEachValueRead(Operation& op, Fn&& fn) {
  op.walk([&](Operation& inner) {
    for (Value* v : inner.operands())
      if (&inner == &op || !isInside(definitionSite(v), &op)) fn(v);
  });
}

// ---- Loop-invariant code motion -------------------------------------------------

// Bytes of the tensors among `values`.
int64_t tensorBytes(std::span<Value* const> values) {
  int64_t bytes = 0;
  for (const Value* v : values)
    if (v->type().isTensor()) bytes += v->type().numElements() * v->type().elementType().storageBytes();
  return bytes;
}

// Whether hoisting `op` would make a bigger value live across the whole loop
// than the ones it reads (a broadcast, an iota): such ops are cheap to
// recompute and stay, as in XLA's default. Constants move freely: they are
// part of the program either way.
bool inflatesLiveMemory(const Operation& op) {
  return op.name() != "stablehlo.constant" && tensorBytes(op.results()) > tensorBytes(op.operands());
}

bool hoistInvariants(Operation& loop) {
  bool changed = false;
  for (Operation* op : bodyOf(loop).ops()) {
    if (!isRemovableIfUnused(*op) || inflatesLiveMemory(*op)) continue;
    bool invariant = true;
    forEachValueRead(*op, [&](Value* v) { invariant &= !isInside(definitionSite(v), &loop); });
    if (!invariant) continue;
    loop.parentBlock()->insertBefore(&loop, op->remove());
    changed = true;
  }
  return changed;
}

// ---- Sliced projections ---------------------------------------------------------

// The values a counted loop's counter takes, [start, limit) by 1, when
// carried value `index` is such a counter: a constant init, a cond that is
// `counter < constant` (signed) and a body that yields counter + 1.
std::optional<std::pair<int64_t, int64_t>> counterRange(Operation& loop, unsigned index) {
  Block& cond = condOf(loop);
  Block& body = bodyOf(loop);
  Operation* compare = cond.terminator()->numOperands() == 1 ? cond.terminator()->operand(0)->definingOp() : nullptr;
  if (!compare || compare->name() != "stablehlo.compare" || compare->operand(0) != cond.argument(index) ||
      !compare->operand(0)->type().elementType().isSignedInteger())
    return std::nullopt;
  Attribute direction = compare->attr("comparison_direction");
  if (!direction || !direction.is(AttrKind::Enum) || direction.stringValue() != "LT") return std::nullopt;
  std::optional<int64_t> limit = scalarIntConstant(compare->operand(1));
  std::optional<int64_t> start = scalarIntConstant(loop.operand(index));
  Operation* add = body.terminator()->operand(index)->definingOp();
  if (!limit || !start || !add || add->name() != "stablehlo.add") return std::nullopt;
  Value* step = add->operand(0) == body.argument(index) ? add->operand(1)
                : add->operand(1) == body.argument(index) ? add->operand(0)
                                                          : nullptr;
  if (!step || scalarIntConstant(step) != std::optional<int64_t>(1)) return std::nullopt;
  return std::make_pair(*start, *limit);
}

// Most bytes a hoisted projection may hold live across the loop, and most
// per byte of the tensor it slices (an LSTM's gates are 4x as wide as its
// state) unless it is small anyway.
constexpr int64_t kMaxProjectionBytes = int64_t{256} << 20;
constexpr int64_t kMaxProjectionGrowth = 4;
constexpr int64_t kSmallProjectionBytes = int64_t{1} << 20;

// dot_general(reshape(dynamic_slice(S, i, 0...)), W) in the body, where S
// and W are defined outside the loop, the slice takes one index of S's dim
// d and all of the others, the reshape drops that unit dim and i is the
// loop's counter: P = dot_general(S, W) over all of S (d a free dim) before
// the loop, and the body's dot becomes reshape(dynamic_slice(P, i at d's
// place in P)). Either side of the dot may be the slice; no batching dims.
// P[..., t, ...] is the same sums of the same products as the body's dot at
// i = t, and a start index is clamped the same way in S and P (same extent).
// What a scan of a recurrent cell does with its inputs: x_t @ W_x as one
// big matrix product instead of one small one per step, the step's dot
// with the state left alone in the loop (XLA:CPU runs both every step).
// Only where the counter visits at least half of S's slices (a loop that
// reads few of them would pay for all) and P's size stays bounded.
bool hoistSlicedProjections(Operation& loop) {
  Block& body = bodyOf(loop);
  bool changed = false;
  auto outside = [&](const Value* v) { return !isInside(definitionSite(v), &loop); };
  for (Operation* dot : body.ops()) {
    if (dot->name() != "stablehlo.dot_general" || dot->numOperands() != 2) continue;
    Attribute dn = dot->attr("dot_dimension_numbers");
    if (!dn || !dn.is(AttrKind::Struct) || !intListField(dn, "lhs_batching_dimensions").empty() ||
        !intListField(dn, "rhs_batching_dimensions").empty())
      continue;
    for (unsigned side = 0; side < 2; ++side) {
      Value* x = dot->operand(side);
      Value* w = dot->operand(1 - side);
      Operation* reshape = x->definingOp();
      if (!outside(w) || !reshape || reshape->name() != "stablehlo.reshape" || !isInside(reshape, &loop)) continue;
      Operation* slice = reshape->operand(0)->definingOp();
      if (!slice || slice->name() != "stablehlo.dynamic_slice" || !outside(slice->operand(0))) continue;
      Value* s = slice->operand(0);
      Type sType = s->type();
      if (!sType.isTensor() || sType.rank() < 1) continue;
      std::vector<int64_t> sShape(sType.shape().begin(), sType.shape().end());
      std::vector<int64_t> sizes = intListAttr(*slice, "slice_sizes");
      if (sizes.size() != sShape.size() || slice->numOperands() != sShape.size() + 1) continue;
      // The one sliced dim d: size 1 at the counter; every other dim whole.
      int64_t d = -1;
      bool whole = true;
      for (size_t k = 0; k < sShape.size(); ++k) {
        if (sizes[k] == sShape[k]) continue;
        if (sizes[k] != 1 || d >= 0) whole = false;
        d = int64_t(k);
      }
      if (!whole || d < 0) continue;
      Value* counter = slice->operand(d + 1);
      if (counter->ownerBlock() != &body || counter->definingOp()) continue;
      auto range = counterRange(loop, counter->index());
      if (!range) continue;
      int64_t used = std::min(range->second, sShape[d]) - std::max<int64_t>(range->first, 0);
      if (used * 2 < sShape[d]) continue;
      // The reshape drops exactly dim d.
      std::vector<int64_t> dropped = sShape;
      dropped.erase(dropped.begin() + d);
      std::span<const int64_t> xShape = x->type().shape();
      if (!std::equal(xShape.begin(), xShape.end(), dropped.begin(), dropped.end())) continue;
      // P's dimension numbers: x's contracting dims as S's.
      std::string xName = side == 0 ? "lhs_contracting_dimensions" : "rhs_contracting_dimensions";
      std::vector<int64_t> contract = intListField(dn, xName);
      for (int64_t& c : contract)
        if (c >= d) ++c;
      std::vector<int64_t> sFree, wFree;
      for (int64_t k = 0; k < int64_t(sShape.size()); ++k)
        if (std::find(contract.begin(), contract.end(), k) == contract.end()) sFree.push_back(k);
      std::vector<int64_t> wContract = intListField(dn, side == 0 ? "rhs_contracting_dimensions" : "lhs_contracting_dimensions");
      std::span<const int64_t> wShape = w->type().shape();
      for (int64_t k = 0; k < int64_t(wShape.size()); ++k)
        if (std::find(wContract.begin(), wContract.end(), k) == wContract.end()) wFree.push_back(wShape[k]);
      std::vector<int64_t> pShape;
      int64_t position = 0;  // d's place in P
      if (side == 1) {
        pShape = wFree;
        position = int64_t(wFree.size());
      }
      for (int64_t k : sFree) {
        if (k < d) ++position;
        pShape.push_back(sShape[k]);
      }
      if (side == 0) pShape.insert(pShape.end(), wFree.begin(), wFree.end());
      Type element = dot->result()->type().elementType();
      Type pType = Type::tensor(pShape, element);
      int64_t pBytes = pType.numElements() * element.storageBytes();
      int64_t sBytes = sType.numElements() * sType.elementType().storageBytes();
      if (pBytes > kMaxProjectionBytes || (pBytes > kMaxProjectionGrowth * sBytes && pBytes > kSmallProjectionBytes))
        continue;

      // xs [steps, batch..., in] contracted on its last dim is a matrix
      // product of [steps * batch..., in]: the form the back ends' matmuls
      // take (the emitted register tiles, oneDNN's 2-D matmul).
      Builder before(loop);
      Value* lhsRows = s;
      Type dotType = pType;
      int64_t lastDim = int64_t(sShape.size()) - 1;
      if (side == 0 && sShape.size() > 2 && contract == std::vector<int64_t>{lastDim}) {
        int64_t rows = sType.numElements() / std::max<int64_t>(sShape.back(), 1);
        lhsRows = before.op("stablehlo.reshape", {s}, {}, Type::tensor({rows, sShape.back()}, sType.elementType()));
        contract = {1};
        std::vector<int64_t> flatShape{rows};
        flatShape.insert(flatShape.end(), wFree.begin(), wFree.end());
        dotType = Type::tensor(flatShape, element);
      }
      std::vector<NamedAttribute> fields;
      for (const NamedAttribute& f : dn.entries())
        fields.push_back(f.first == xName ? NamedAttribute(f.first, intArrayAttribute(contract)) : f);
      OperationState wholeDot("stablehlo.dot_general", dot->loc());
      wholeDot.operands = side == 0 ? std::vector<Value*>{lhsRows, w} : std::vector<Value*>{w, s};
      wholeDot.attributes = dot->attrs();
      wholeDot.attributes.set("dot_dimension_numbers", Attribute::structAttr(dn.attrName(), std::move(fields), dn.dialect()));
      wholeDot.resultTypes = {dotType};
      Value* p = insertBefore(&loop, std::move(wholeDot))->result();
      if (dotType != pType) p = before.op("stablehlo.reshape", {p}, {}, pType);

      Builder b(*dot);
      Value* zero = b.constant(Type::tensor({}, counter->type().elementType()), 0.0);
      std::vector<Value*> starts(pShape.size(), zero);
      starts[position] = counter;
      std::vector<int64_t> sliceShape = pShape;
      sliceShape[position] = 1;
      std::vector<Value*> sliceOperands{p};
      sliceOperands.insert(sliceOperands.end(), starts.begin(), starts.end());
      Value* row = b.op("stablehlo.dynamic_slice", sliceOperands,
                        AttrDict({{"slice_sizes", Attribute::denseI64Array(sliceShape)}}), Type::tensor(sliceShape, element));
      Value* result = b.op("stablehlo.reshape", {row}, {}, dot->result()->type());
      dot->result()->replaceAllUsesWith(result);
      changed = true;
      break;
    }
  }
  if (changed) eraseDeadOps(body);
  return changed;
}

// ---- Invariant loop-carried values ----------------------------------------------

// A carried value the body returns unchanged is its init value on every trip
// and after the loop: its uses read the init value directly instead (then it
// is dead, and dropped below), which lets code depending on it be hoisted.
bool forwardInvariantCarriedValues(Operation& loop) {
  bool changed = false;
  Block& body = bodyOf(loop);
  Operation* ret = body.terminator();
  for (unsigned i = 0; i < loop.numOperands(); ++i) {
    if (ret->operand(i) != body.argument(i)) continue;
    Value* init = loop.operand(i);
    bool used = !loop.result(i)->useEmpty() || !condOf(loop).argument(i)->useEmpty() ||
                !body.argument(i)->hasOneUse();
    if (!used) continue;
    loop.result(i)->replaceAllUsesWith(init);
    condOf(loop).argument(i)->replaceAllUsesWith(init);
    body.argument(i)->replaceAllUsesWith(init);
    ret->setOperand(i, body.argument(i));  // keep the (now dead) carried value well-formed
    changed = true;
  }
  return changed;
}

// ---- Dead loop-carried values ---------------------------------------------------

// Which carried values are live: read by a user of the loop's results, by the
// cond, by an op of the body that must stay (side effects), or by the
// computation of another live value.
std::vector<bool> liveCarriedValues(Operation& loop) {
  Block& body = bodyOf(loop);
  unsigned n = loop.numOperands();
  std::vector<bool> live(n, false);
  for (unsigned i = 0; i < n; ++i) live[i] = !loop.result(i)->useEmpty() || !condOf(loop).argument(i)->useEmpty();

  // Marks the body arguments `v` depends on, through the ops of the body.
  std::set<const Operation*> visited;
  std::function<void(Value*)> markDependencies = [&](Value* v) {
    if (v->ownerBlock() == &body) {
      live[v->index()] = true;
      return;
    }
    Operation* def = v->definingOp();
    if (!def || !isInside(def, &loop)) return;
    // The top-level op of the body holding `def` reads everything `def` may.
    while (def && def->parentBlock() != &body) def = def->parentOp();
    if (def && visited.insert(def).second) forEachValueRead(*def, markDependencies);
  };
  Operation* ret = body.terminator();
  for (Operation& op : body)
    if (&op != ret && !isRemovableIfUnused(op)) forEachValueRead(op, markDependencies);
  for (bool grew = true; grew;) {
    std::vector<bool> before = live;
    for (unsigned i = 0; i < n; ++i)
      if (live[i]) markDependencies(ret->operand(i));
    grew = live != before;
  }
  return live;
}

// Moves the ops of `from` to the end of `to`.
void moveOps(Block& from, Block& to) {
  while (Operation* op = from.front()) to.push_back(op->remove());
}

bool dropDeadCarriedValues(Operation*& loop) {
  std::vector<bool> live = liveCarriedValues(*loop);
  if (std::all_of(live.begin(), live.end(), [](bool b) { return b; })) return false;
  Block& body = bodyOf(*loop);
  Operation* ret = body.terminator();
  std::vector<Value*> keptReturns;
  OperationState st("stablehlo.while", loop->loc());
  for (unsigned i = 0; i < live.size(); ++i) {
    if (!live[i]) continue;
    st.operands.push_back(loop->operand(i));
    st.resultTypes.push_back(loop->result(i)->type());
    keptReturns.push_back(ret->operand(i));
  }
  ret->setOperands(keptReturns);
  eraseDeadOps(body);
  st.attributes = loop->attrs();
  st.debugLoc = loop->debugLoc();
  for (Block* old : {&condOf(*loop), &body}) {
    Block* fresh = st.addRegion()->addBlock();
    for (unsigned i = 0; i < live.size(); ++i)
      if (live[i]) old->argument(i)->replaceAllUsesWith(fresh->addArgument(old->argument(i)->type(), old->argument(i)->loc));
    moveOps(*old, *fresh);
  }
  Operation* replacement = loop->parentBlock()->insertBefore(loop, Operation::create(std::move(st)));
  std::vector<Value*> results;
  for (unsigned i = 0, kept = 0; i < live.size(); ++i) results.push_back(live[i] ? replacement->result(kept++) : nullptr);
  for (unsigned i = 0; i < live.size(); ++i)
    if (results[i]) loop->result(i)->replaceAllUsesWith(results[i]);
  loop->erase();
  loop = replacement;
  return true;
}

// ---- Trip counts 0 and 1 ----------------------------------------------------------

// Most elements a compile-time evaluation may touch per op.
constexpr int64_t kMaxEvaluatedElements = int64_t{1} << 16;

// The value of `v` computed from constants and the values in `known`
// (memoized there), or nullopt when it depends on anything else.
std::optional<interp::Tensor> evaluate(Value* v, std::map<const Value*, interp::Tensor>& known) {
  if (auto it = known.find(v); it != known.end()) return it->second;
  // Also the values themselves: a loop's init may be a giant splat constant.
  if (!v->type().isTensor() || v->type().numElements() < 0 || v->type().numElements() > kMaxEvaluatedElements)
    return std::nullopt;
  Operation* def = v->definingOp();
  if (!def || def->numRegions() != 0 || !interp::dependsOnlyOnOperands(*def)) return std::nullopt;
  if (def->name() == "stablehlo.constant") return interp::Tensor::fromDense(def->attr("value"));
  std::vector<interp::Tensor> operands;
  for (Value* operand : def->operands()) {
    if (!operand->type().isTensor() || operand->type().numElements() > kMaxEvaluatedElements) return std::nullopt;
    auto t = evaluate(operand, known);
    if (!t) return std::nullopt;
    operands.push_back(*t);
  }
  auto results = interp::evaluateOp(*def, std::move(operands));
  if (!results) return std::nullopt;
  for (unsigned i = 0; i < def->numResults(); ++i) known[def->result(i)] = (*results)[i];
  return known[v];
}

// Whether the cond holds for carried values `carried` (null where unknown).
std::optional<bool> condHolds(Operation& loop, const std::vector<const interp::Tensor*>& carried) {
  Block& cond = condOf(loop);
  std::map<const Value*, interp::Tensor> known;
  for (unsigned i = 0; i < carried.size(); ++i)
    if (carried[i]) known[cond.argument(i)] = *carried[i];
  auto value = evaluate(cond.terminator()->operand(0), known);
  if (!value) return std::nullopt;
  return value->getBool(0);
}

// Replaces `loop` by a copy of its body run once on the init values.
void unrollOnce(Operation& loop) {
  Block& body = bodyOf(loop);
  std::vector<std::pair<Value*, Value*>> mapping;
  for (unsigned i = 0; i < body.numArguments(); ++i) mapping.emplace_back(body.argument(i), loop.operand(i));
  for (Operation& op : body) {
    if (&op == body.terminator()) break;
    loop.parentBlock()->insertBefore(&loop, op.clone(&mapping));
  }
  std::vector<Value*> results;
  for (Value* v : body.terminator()->operands()) {
    Value* mapped = v;
    for (auto& [from, to] : mapping)
      if (from == v) mapped = to;
    results.push_back(mapped);
  }
  loop.replaceWith(results);
}

bool simplifyTripCount(Operation& loop) {
  std::map<const Value*, interp::Tensor> initial;
  std::vector<const interp::Tensor*> carried(loop.numOperands(), nullptr);
  std::vector<std::optional<interp::Tensor>> inits(loop.numOperands());
  for (unsigned i = 0; i < loop.numOperands(); ++i) {
    if (condOf(loop).argument(i)->useEmpty()) continue;
    inits[i] = evaluate(loop.operand(i), initial);
    if (!inits[i]) return false;
    carried[i] = &*inits[i];
  }
  std::optional<bool> first = condHolds(loop, carried);
  if (!first) return false;
  if (!*first) {
    loop.replaceWith(std::vector<Value*>(loop.operands().begin(), loop.operands().end()));
    return true;
  }
  // The values the cond reads after one trip, computed from the init values.
  Block& body = bodyOf(loop);
  std::map<const Value*, interp::Tensor> known;
  for (unsigned i = 0; i < carried.size(); ++i)
    if (carried[i]) known[body.argument(i)] = *carried[i];
  std::vector<std::optional<interp::Tensor>> next(loop.numOperands());
  for (unsigned i = 0; i < loop.numOperands(); ++i) {
    if (!carried[i]) continue;
    next[i] = evaluate(body.terminator()->operand(i), known);
    if (!next[i]) return false;
    carried[i] = &*next[i];
  }
  std::optional<bool> second = condHolds(loop, carried);
  if (!second || *second) return false;
  unrollOnce(loop);
  return true;
}

// ---- The pass -------------------------------------------------------------------

bool simplifyLoop(Operation* loop) {
  bool changed = forwardInvariantCarriedValues(*loop);
  changed |= hoistInvariants(*loop);
  changed |= hoistSlicedProjections(*loop);
  changed |= dropDeadCarriedValues(loop);
  return simplifyTripCount(*loop) || changed;
}

class WhileSimplifyPass : public Pass {
 public:
  std::string_view name() const override { return "while_simplify"; }
  Expected<bool> run(Module& module) override {
    // Inner loops first: what they hoist may become invariant in outer ones.
    std::vector<Operation*> loops;
    for (Operation* fn : module.functions())
      fn->walk([&](Operation& op) {
        if (op.name() == "stablehlo.while" && op.numRegions() == 2) loops.push_back(&op);
      });
    bool changed = false;
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) changed |= simplifyLoop(*it);
    // What the loops' removal or unrolling left unused (init constants, ...).
    if (changed)
      for (Operation* fn : module.definedFunctions()) eraseDeadOps(func::body(*fn));
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createWhileSimplifyPass() { return std::make_unique<WhileSimplifyPass>(); }

}  // namespace kiln
