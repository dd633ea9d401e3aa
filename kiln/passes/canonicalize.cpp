// Canonicalization: local algebraic simplifications, applied until nothing
// changes; ops left dead by a rewrite are erased. Each rule is a small function from an op to "rewritten or not";
// the table at the bottom says which op each rule looks at.
//
// Rules only fire when the result is bit-identical for every input: x + 0 is
// simplified for integers (and for floats only with -0.0, since -0.0 + 0.0 is
// +0.0), x * 1 for all types, x - x only for integers (NaN - NaN is NaN).
#include <map>
#include <numeric>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

using Rule = bool (*)(Operation& op);

std::vector<int64_t> ints(const Operation& op, std::string_view attr) {
  Attribute a = op.attr(attr);
  if (!a) return {};
  return a.asIntList().value_or(std::vector<int64_t>{});
}

bool replaceBy(Operation& op, Value* v) {
  if (v->type() != op.result()->type()) return false;
  Value* values[] = {v};
  op.replaceWith(values);
  return true;
}

bool isIntegerLike(Type t) { return t.elementType().isInteger() || t.elementType().isBool(); }

// x + 0 -> x; 0 + x -> x.
bool foldAddZero(Operation& op) {
  Type t = op.result()->type();
  double zero = isIntegerLike(t) ? 0.0 : -0.0;
  if (!isIntegerLike(t) && !t.elementType().isFloat()) return false;
  if (isSplatConstantOf(op.operand(1), zero)) return replaceBy(op, op.operand(0));
  if (isSplatConstantOf(op.operand(0), zero)) return replaceBy(op, op.operand(1));
  return false;
}

// x * 1 -> x; 1 * x -> x.
bool foldMulOne(Operation& op) {
  if (isSplatConstantOf(op.operand(1), 1.0)) return replaceBy(op, op.operand(0));
  if (isSplatConstantOf(op.operand(0), 1.0)) return replaceBy(op, op.operand(1));
  return false;
}

// x - 0 -> x (integers); x - x -> 0 (integers).
bool foldSubtract(Operation& op) {
  Type t = op.result()->type();
  if (!t.elementType().isInteger()) return false;
  if (isSplatConstantOf(op.operand(1), 0.0)) return replaceBy(op, op.operand(0));
  if (op.operand(0) != op.operand(1)) return false;
  OperationState zero("stablehlo.constant", op.loc());
  zero.attributes.set("value", Attribute::dense(t, std::vector<uint8_t>(t.elementType().storageBytes(), 0), true));
  zero.resultTypes = {t};
  return replaceBy(op, insertBefore(&op, std::move(zero))->result());
}

// An op applied twice that undoes itself: negate(negate(x)), not(not(x)).
bool foldInvolution(Operation& op) {
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != op.name()) return false;
  return replaceBy(op, inner->operand(0));
}

// reshape(x) of x's own type -> x; reshape(reshape(x)) -> reshape(x).
bool foldReshape(Operation& op) {
  if (op.operand(0)->type() == op.result()->type()) return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.reshape") return false;
  op.setOperand(0, inner->operand(0));
  return true;
}

// transpose with the identity permutation -> x; transpose(transpose(x)) ->
// one transpose with the composed permutation.
bool foldTranspose(Operation& op) {
  std::vector<int64_t> perm = ints(op, "permutation");
  std::vector<int64_t> identity(perm.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (perm == identity) return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.transpose") return false;
  std::vector<int64_t> innerPerm = ints(*inner, "permutation");
  std::vector<int64_t> composed(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) composed[i] = innerPerm[perm[i]];
  op.setAttr("permutation", Attribute::denseI64Array(composed));
  op.setOperand(0, inner->operand(0));
  return true;
}

// broadcast_in_dim to the operand's own type with dims 0..n-1 -> x;
// broadcast_in_dim(broadcast_in_dim(x)) -> one broadcast_in_dim.
bool foldBroadcastInDim(Operation& op) {
  std::vector<int64_t> dims = ints(op, "broadcast_dimensions");
  std::vector<int64_t> identity(dims.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (dims == identity && op.operand(0)->type() == op.result()->type()) return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.broadcast_in_dim") return false;
  std::vector<int64_t> innerDims = ints(*inner, "broadcast_dimensions");
  std::vector<int64_t> composed;
  for (int64_t d : innerDims) composed.push_back(dims[d]);
  op.setAttr("broadcast_dimensions", Attribute::denseI64Array(composed));
  op.setOperand(0, inner->operand(0));
  return true;
}

// slice covering the whole operand with unit strides -> x;
// slice(slice(x)) -> one slice.
bool foldSlice(Operation& op) {
  std::vector<int64_t> start = ints(op, "start_indices"), limit = ints(op, "limit_indices"),
                       strides = ints(op, "strides");
  if (op.operand(0)->type() == op.result()->type() &&
      std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 1; }))
    return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.slice") return false;
  std::vector<int64_t> iStart = ints(*inner, "start_indices"), iStrides = ints(*inner, "strides");
  std::vector<int64_t> nStart(start.size()), nLimit(start.size()), nStrides(start.size());
  for (size_t d = 0; d < start.size(); ++d) {
    nStart[d] = iStart[d] + start[d] * iStrides[d];
    nStrides[d] = strides[d] * iStrides[d];
    int64_t count = op.result()->type().shape()[d];
    // The last element read plus one keeps the result size unchanged.
    nLimit[d] = count == 0 ? nStart[d] : nStart[d] + (count - 1) * nStrides[d] + 1;
  }
  op.setAttr("start_indices", Attribute::denseI64Array(nStart));
  op.setAttr("limit_indices", Attribute::denseI64Array(nLimit));
  op.setAttr("strides", Attribute::denseI64Array(nStrides));
  op.setOperand(0, inner->operand(0));
  return true;
}

// True if every value of `from` is exactly representable in `to`.
bool isLosslessConversion(Type from, Type to) {
  if (from == to) return true;
  if (from.isFloat() && to.isFloat()) {
    static const std::map<TypeKind, int> rank = {{TypeKind::F16, 1}, {TypeKind::F32, 2}, {TypeKind::F64, 3},
                                                 {TypeKind::BF16, 0}};
    if (!rank.count(from.kind()) || !rank.count(to.kind())) return false;
    if (from.kind() == TypeKind::BF16) return to.kind() == TypeKind::F32 || to.kind() == TypeKind::F64;
    if (to.kind() == TypeKind::BF16) return false;
    return rank.at(from.kind()) < rank.at(to.kind());
  }
  if (from.isInteger() && to.isInteger()) {
    if (from.isSignedInteger() == to.isSignedInteger()) return from.bitWidth() < to.bitWidth();
    return from.isUnsignedInteger() && from.bitWidth() < to.bitWidth();
  }
  return false;
}

// convert to the same type -> x; convert(convert(x)) back to x's type through
// a wider type -> x.
bool foldConvert(Operation& op) {
  if (op.operand(0)->type() == op.result()->type()) return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.convert") return false;
  Value* x = inner->operand(0);
  if (x->type() != op.result()->type()) return false;
  if (!isLosslessConversion(x->type().elementType(), inner->result()->type().elementType())) return false;
  return replaceBy(op, x);
}

// select with a splat constant predicate -> the chosen operand.
bool foldSelect(Operation& op) {
  if (op.operand(0)->type().rank() != 0 && op.operand(0)->type() != op.operand(1)->type().withElementType(Type::i1()))
    return false;
  if (isSplatConstantOf(op.operand(0), 1.0)) return replaceBy(op, op.operand(1));
  if (isSplatConstantOf(op.operand(0), 0.0)) return replaceBy(op, op.operand(2));
  if (op.operand(1) == op.operand(2)) return replaceBy(op, op.operand(1));
  return false;
}

// concatenate of one operand -> the operand.
bool foldConcatenate(Operation& op) {
  if (op.numOperands() != 1) return false;
  return replaceBy(op, op.operand(0));
}

// pad with no padding at all -> x.
bool foldPad(Operation& op) {
  for (const char* attr : {"edge_padding_low", "edge_padding_high", "interior_padding"})
    for (int64_t p : ints(op, attr))
      if (p != 0) return false;
  return replaceBy(op, op.operand(0));
}

const std::multimap<std::string_view, Rule>& rules() {
  static const std::multimap<std::string_view, Rule> table = {
      {"stablehlo.add", foldAddZero},
      {"stablehlo.multiply", foldMulOne},
      {"stablehlo.subtract", foldSubtract},
      {"stablehlo.negate", foldInvolution},
      {"stablehlo.not", foldInvolution},
      {"stablehlo.reshape", foldReshape},
      {"stablehlo.transpose", foldTranspose},
      {"stablehlo.broadcast_in_dim", foldBroadcastInDim},
      {"stablehlo.slice", foldSlice},
      {"stablehlo.convert", foldConvert},
      {"stablehlo.select", foldSelect},
      {"stablehlo.concatenate", foldConcatenate},
      {"stablehlo.pad", foldPad},
  };
  return table;
}

bool canonicalizeBlock(Block& block) {
  bool changed = false;
  for (Operation* op : block.ops()) {
    for (auto& region : op->regions())
      for (auto& nested : region->blocks()) changed |= canonicalizeBlock(*nested);
    auto [begin, end] = rules().equal_range(op->name());
    for (auto it = begin; it != end; ++it)
      if (it->second(*op)) {
        changed = true;
        break;  // `op` may be gone; the next sweep revisits what remains
      }
  }
  return changed;
}

// Rewrites can enable each other; a bound keeps a buggy rule pair from looping.
constexpr int kMaxSweeps = 32;

class CanonicalizePass : public Pass {
 public:
  std::string_view name() const override { return "canonicalize"; }
  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Operation* fn : module.functions())
      for (int sweep = 0; sweep < kMaxSweeps && canonicalizeBlock(func::body(*fn)); ++sweep) changed = true;
    for (Operation* fn : module.functions()) changed |= eraseDeadOps(func::body(*fn));
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createCanonicalizePass() { return std::make_unique<CanonicalizePass>(); }

}  // namespace kiln
