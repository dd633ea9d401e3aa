// Canonicalization: local algebraic simplifications, applied until nothing
// changes; ops left dead by a rewrite are erased. Each rule is a small function from an op to "rewritten or not";
// the table at the bottom says which op each rule looks at.
//
// Rules only fire when the result is bit-identical for every input: x + 0 is
// simplified for integers (and for floats only with -0.0, since -0.0 + 0.0 is
// +0.0), x * 1 for all types, x - x, x * 0 and compare(x, x) only for
// integers (NaN - NaN is NaN, NaN * 0 is NaN, NaN == NaN is false). Rules that
// move work around keep the interpreter's evaluation order: a reduce over
// size-1 dimensions becomes body(init, x), exactly the one step the reduce
// would take, and a transpose folded into dot_general keeps the contracting
// dimensions' order, hence the order of the sum.
#include <algorithm>
#include <map>
#include <numeric>

#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/windowed_dims.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

using Rule = bool (*)(Operation& op);

bool replaceBy(Operation& op, Value* v) {
  if (v->type() != op.result()->type()) return false;
  Value* values[] = {v};
  op.replaceWith(values);
  return true;
}

// A splat constant of `type` whose element is `elementBytes`.
Value* splatConstant(Operation& pos, Type type, std::vector<uint8_t> elementBytes) {
  OperationState st("stablehlo.constant", pos.loc());
  st.attributes.set("value", Attribute::dense(type, std::move(elementBytes), true));
  st.resultTypes = {type};
  return insertBefore(&pos, std::move(st))->result();
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
  return replaceBy(op, splatConstant(op, t, std::vector<uint8_t>(t.elementType().storageBytes(), 0)));
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
  std::vector<int64_t> perm = intListAttr(op, "permutation");
  std::vector<int64_t> identity(perm.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (perm == identity) return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.transpose") return false;
  std::vector<int64_t> innerPerm = intListAttr(*inner, "permutation");
  std::vector<int64_t> composed(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) composed[i] = innerPerm[perm[i]];
  op.setAttr("permutation", Attribute::denseI64Array(composed));
  op.setOperand(0, inner->operand(0));
  return true;
}

// The dims of `shape` longer than 1, in order.
std::vector<int64_t> nonUnitDims(std::span<const int64_t> shape) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1) dims.push_back(static_cast<int64_t>(d));
  return dims;
}

// The extents of `shape` longer than 1, in order.
std::vector<int64_t> nonUnitExtents(std::span<const int64_t> shape) {
  std::vector<int64_t> extents;
  for (int64_t e : shape)
    if (e != 1) extents.push_back(e);
  return extents;
}

Value* reshapeTo(Operation& pos, Value* v, Type type) {
  OperationState st("stablehlo.reshape", pos.loc());
  st.operands = {v};
  st.resultTypes = {type};
  return insertBefore(&pos, std::move(st))->result();
}

// A transpose that keeps the dims longer than 1 in their order moves only
// unit dims: the elements keep their row-major order, so it is a reshape
// (a view on the cpu back end instead of a copy).
bool transposeOfUnitDimsToReshape(Operation& op) {
  std::span<const int64_t> shape = op.operand(0)->type().shape();
  std::vector<int64_t> perm = intListAttr(op, "permutation");
  std::vector<int64_t> moved;
  for (int64_t d : perm)
    if (shape[d] != 1) moved.push_back(d);
  if (!std::is_sorted(moved.begin(), moved.end())) return false;
  return replaceBy(op, reshapeTo(op, op.operand(0), op.result()->type()));
}

// transpose(reshape(x)) where the reshape only inserts or removes unit dims
// -> reshape(transpose(x)), the transpose permuting x's own dims: then it
// meets the transposes and reshapes around it (JAX writes chains like
// reshape, transpose, reshape, transpose that come to nothing).
bool transposeBeforeUnitReshape(Operation& op) {
  Operation* reshape = op.operand(0)->definingOp();
  if (!reshape || reshape->name() != "stablehlo.reshape") return false;
  Value* x = reshape->operand(0);
  std::span<const int64_t> xShape = x->type().shape(), reshaped = reshape->result()->type().shape();
  if (nonUnitExtents(xShape) != nonUnitExtents(reshaped)) return false;
  // The k-th dim longer than 1 of the reshaped value is x's k-th one.
  std::vector<int64_t> xDims = nonUnitDims(xShape), reshapedDims = nonUnitDims(reshaped);
  std::vector<int64_t> xDimOf(reshaped.size(), -1);
  for (size_t k = 0; k < reshapedDims.size(); ++k) xDimOf[reshapedDims[k]] = xDims[k];
  // x's dims longer than 1 in the order the transpose puts them, then its unit dims.
  std::vector<int64_t> perm;
  for (int64_t d : intListAttr(op, "permutation"))
    if (xDimOf[d] >= 0) perm.push_back(xDimOf[d]);
  for (size_t d = 0; d < xShape.size(); ++d)
    if (xShape[d] == 1) perm.push_back(static_cast<int64_t>(d));
  std::vector<int64_t> permutedShape;
  for (int64_t d : perm) permutedShape.push_back(xShape[d]);
  OperationState st("stablehlo.transpose", op.loc());
  st.operands = {x};
  st.attributes.set("permutation", Attribute::denseI64Array(perm));
  st.resultTypes = {Type::tensor(permutedShape, x->type().elementType())};
  Value* transposed = insertBefore(&op, std::move(st))->result();
  return replaceBy(op, reshapeTo(op, transposed, op.result()->type()));
}

// broadcast_in_dim to the operand's own type with dims 0..n-1 -> x;
// broadcast_in_dim(broadcast_in_dim(x)) -> one broadcast_in_dim.
bool foldBroadcastInDim(Operation& op) {
  std::vector<int64_t> dims = intListAttr(op, "broadcast_dimensions");
  std::vector<int64_t> identity(dims.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (dims == identity && op.operand(0)->type() == op.result()->type()) return replaceBy(op, op.operand(0));
  // Only unit dims added, the others in order: the same elements in the
  // same order, a reshape (a view on the cpu back end instead of a copy).
  if (op.operand(0)->type().isTensor() && op.operand(0)->type().numElements() == op.result()->type().numElements() &&
      std::is_sorted(dims.begin(), dims.end()) && op.operand(0)->type() != op.result()->type())
    return replaceBy(op, reshapeTo(op, op.operand(0), op.result()->type()));
  Operation* inner = op.operand(0)->definingOp();
  // broadcast_in_dim(reshape(x)) where the reshape only adds or drops unit
  // dims and x has none: one broadcast of x (what the bias add's
  // broadcast(broadcast(b)) becomes once the inner one is a reshape).
  if (inner && inner->name() == "stablehlo.reshape") {
    Value* x = inner->operand(0);
    std::span<const int64_t> xShape = x->type().shape(), reshaped = inner->result()->type().shape();
    if (!x->type().isTensor() || std::ranges::count(xShape, 1) != 0 || nonUnitExtents(reshaped) != nonUnitExtents(xShape))
      return false;
    std::vector<int64_t> composed;
    for (int64_t d : nonUnitDims(reshaped)) composed.push_back(dims[d]);
    op.setAttr("broadcast_dimensions", Attribute::denseI64Array(composed));
    op.setOperand(0, x);
    return true;
  }
  if (!inner || inner->name() != "stablehlo.broadcast_in_dim") return false;
  std::vector<int64_t> innerDims = intListAttr(*inner, "broadcast_dimensions");
  std::vector<int64_t> composed;
  for (int64_t d : innerDims) composed.push_back(dims[d]);
  op.setAttr("broadcast_dimensions", Attribute::denseI64Array(composed));
  op.setOperand(0, inner->operand(0));
  return true;
}

// slice covering the whole operand with unit strides -> x;
// slice(slice(x)) -> one slice.
bool foldSlice(Operation& op) {
  std::vector<int64_t> start = intListAttr(op, "start_indices"), limit = intListAttr(op, "limit_indices"),
                       strides = intListAttr(op, "strides");
  if (op.operand(0)->type() == op.result()->type() &&
      std::all_of(strides.begin(), strides.end(), [](int64_t s) { return s == 1; }))
    return replaceBy(op, op.operand(0));
  Operation* inner = op.operand(0)->definingOp();
  if (!inner || inner->name() != "stablehlo.slice") return false;
  std::vector<int64_t> iStart = intListAttr(*inner, "start_indices"), iStrides = intListAttr(*inner, "strides");
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

// concatenate(a, concatenate(b, c), d) along one dim -> concatenate(a, b, c, d).
bool flattenConcatenate(Operation& op) {
  std::vector<Value*> flat;
  bool nested = false;
  for (Value* operand : op.operands()) {
    const Operation* inner = operand->definingOp();
    if (inner && inner->name() == "stablehlo.concatenate" && operand->uses().size() == 1 &&
        inner->attr("dimension").intValue() == op.attr("dimension").intValue()) {
      flat.insert(flat.end(), inner->operands().begin(), inner->operands().end());
      nested = true;
    } else {
      flat.push_back(operand);
    }
  }
  if (!nested) return false;
  OperationState st("stablehlo.concatenate", op.loc());
  st.operands = flat;
  st.attributes = op.attrs();
  st.resultTypes = {op.result()->type()};
  return replaceBy(op, insertBefore(&op, std::move(st))->result());
}

// A scalar broadcast to `type` (broadcast_in_dim of a rank-0 value), as a
// value of `type`, at `pos`.
Value* broadcastScalar(Operation& pos, Value* scalar, Type type) {
  OperationState bcast("stablehlo.broadcast_in_dim", pos.loc());
  bcast.operands = {scalar};
  bcast.attributes.set("broadcast_dimensions", Attribute::denseArray(Type::si64(), {}, {}));
  bcast.resultTypes = {type};
  return insertBefore(&pos, std::move(bcast))->result();
}

// add(concatenate(a, b), s) with s a splat constant or a broadcast scalar ->
// concatenate(a + s, b + s): the adds foldAddOfPads leaves move onto the
// parts, so nested concatenations flatten.
bool addIntoConcatenate(Operation& op) {
  for (unsigned i = 0; i < 2; ++i) {
    Operation* concat = op.operand(i)->definingOp();
    const Operation* other = op.operand(1 - i)->definingOp();
    if (!concat || concat->name() != "stablehlo.concatenate" || op.operand(i)->uses().size() != 1 || !other)
      continue;
    auto splat = splatConstantBytes(op.operand(1 - i));
    bool scalar = other->name() == "stablehlo.broadcast_in_dim" && other->operand(0)->type().rank() == 0;
    if (!splat && !scalar) continue;
    OperationState st("stablehlo.concatenate", op.loc());
    for (Value* part : concat->operands()) {
      OperationState add("stablehlo.add", op.loc());
      Value* s = scalar ? broadcastScalar(op, other->operand(0), part->type()) : splatConstant(op, part->type(), *splat);
      add.operands = {part, s};
      add.resultTypes = {part->type()};
      st.operands.push_back(insertBefore(&op, std::move(add))->result());
    }
    st.attributes = concat->attrs();
    st.resultTypes = {op.result()->type()};
    return replaceBy(op, insertBefore(&op, std::move(st))->result());
  }
  return false;
}

// pad with no padding at all -> x.
bool foldPad(Operation& op) {
  for (const char* attr : {"edge_padding_low", "edge_padding_high", "interior_padding"})
    for (int64_t p : intListAttr(op, attr))
      if (p != 0) return false;
  return replaceBy(op, op.operand(0));
}

// add(pad(a, p), pad(b, q)) whose unpadded regions lie side by side along one
// dim (and match on every other dim) -> pad(concatenate(a + q, b + p), p + q):
// what JAX writes for the gradient of splitting a tensor (q, k, v out of one
// projection), which a kernel would otherwise compute as every pad's operand
// at every element. Exact: each element of the sum is one operand's element
// plus the other's padding value (x + -0.0 then folds away), and the padding
// is p + q.
bool foldAddOfPads(Operation& op) {
  const Operation* pads[2] = {op.operand(0)->definingOp(), op.operand(1)->definingOp()};
  for (const Operation* pad : pads)
    if (!pad || pad->name() != "stablehlo.pad" || pad->result()->uses().size() != 1) return false;
  Type t = op.result()->type();
  if (!t.elementType().isFloat() && !isIntegerLike(t)) return false;
  std::vector<int64_t> low[2], high[2];
  for (int i = 0; i < 2; ++i) {
    low[i] = intListAttr(*pads[i], "edge_padding_low");
    high[i] = intListAttr(*pads[i], "edge_padding_high");
    std::vector<int64_t> interior = intListAttr(*pads[i], "interior_padding");
    if (low[i].size() != size_t(t.rank()) || high[i].size() != low[i].size() ||
        std::any_of(interior.begin(), interior.end(), [](int64_t p) { return p != 0; }) ||
        std::any_of(low[i].begin(), low[i].end(), [](int64_t p) { return p < 0; }) ||
        std::any_of(high[i].begin(), high[i].end(), [](int64_t p) { return p < 0; }))
      return false;
  }
  // The one dim where they differ; `first` is the operand whose region comes first.
  int dim = -1;
  for (int64_t d = 0; d < t.rank(); ++d)
    if (low[0][d] != low[1][d] || high[0][d] != high[1][d]) {
      if (dim >= 0) return false;
      dim = int(d);
    }
  if (dim < 0) return false;
  int first = low[0][dim] < low[1][dim] ? 0 : 1, second = 1 - first;
  int64_t extent = t.shape()[dim];
  if (extent - high[first][dim] != low[second][dim]) return false;  // side by side, no gap or overlap

  // Each operand plus the other's padding value, then the concatenation.
  auto plus = [&](Value* x, Value* padValue) {
    OperationState add("stablehlo.add", op.loc());
    add.operands = {x, broadcastScalar(op, padValue, x->type())};
    add.resultTypes = {x->type()};
    return insertBefore(&op, std::move(add))->result();
  };
  OperationState concat("stablehlo.concatenate", op.loc());
  concat.operands = {plus(pads[first]->operand(0), pads[second]->operand(1)),
                     plus(pads[second]->operand(0), pads[first]->operand(1))};
  concat.attributes.set("dimension", Attribute::integer(dim));
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  shape[dim] = extent - low[first][dim] - high[second][dim];
  concat.resultTypes = {Type::tensor(shape, t.elementType())};
  Value* joined = insertBefore(&op, std::move(concat))->result();

  OperationState padValue("stablehlo.add", op.loc());
  padValue.operands = {pads[0]->operand(1), pads[1]->operand(1)};
  padValue.resultTypes = {pads[0]->operand(1)->type()};
  OperationState pad("stablehlo.pad", op.loc());
  pad.operands = {joined, insertBefore(&op, std::move(padValue))->result()};
  Attribute arrays = pads[first]->attr("edge_padding_low");
  std::vector<int64_t> newLow = low[first], newHigh = high[first];
  newHigh[dim] = high[second][dim];
  Type et = arrays.denseArrayElementType();
  pad.attributes.set("edge_padding_low", Attribute::denseArray(et, newLow, {}));
  pad.attributes.set("edge_padding_high", Attribute::denseArray(et, newHigh, {}));
  pad.attributes.set("interior_padding", Attribute::denseArray(et, std::vector<int64_t>(t.rank(), 0), {}));
  pad.resultTypes = {t};
  return replaceBy(op, insertBefore(&op, std::move(pad))->result());
}

// Ops whose result for two equal integer operands is that operand: max(x, x),
// min(x, x), and(x, x), or(x, x). (Float max/min return the canonical NaN
// for any NaN operand, so they would change a NaN's bits.)
bool foldIdempotent(Operation& op) {
  if (op.operand(0) != op.operand(1) || !isIntegerLike(op.result()->type())) return false;
  return replaceBy(op, op.operand(0));
}

// x * 0 -> 0 for integers (for floats NaN * 0 and inf * 0 are NaN).
bool foldMulZero(Operation& op) {
  Type t = op.result()->type();
  if (!isIntegerLike(t)) return false;
  for (unsigned i = 0; i < 2; ++i)
    if (isSplatConstantOf(op.operand(i), 0.0)) return replaceBy(op, op.operand(i));
  return false;
}

// compare(x, x) for integers: EQ, LE, GE are true; NE, LT, GT false.
bool foldCompareSelf(Operation& op) {
  if (op.operand(0) != op.operand(1) || !isIntegerLike(op.operand(0)->type())) return false;
  Attribute direction = op.attr("comparison_direction");
  if (!direction) return false;
  const std::string& d = direction.stringValue();
  bool value = d == "EQ" || d == "LE" || d == "GE";
  return replaceBy(op, splatConstant(op, op.result()->type(), {uint8_t(value)}));
}

// broadcast_in_dim of a splat constant -> a splat constant of the result
// shape. A splat literal stores one element whatever its shape, so the module
// does not grow; consumers that expand constants (the constant folder) carry
// their own size caps.
bool foldBroadcastOfSplat(Operation& op) {
  auto element = splatConstantBytes(op.operand(0));
  if (!element) return false;
  return replaceBy(op, splatConstant(op, op.result()->type(), std::move(*element)));
}

// The binary op a reduce body applies, if the body is exactly
// `return op(arg0, arg1)` or `return op(arg1, arg0)`; `swapped` says which.
const Operation* reduceBodyOp(const Operation& reduce, bool& swapped) {
  const Block& body = reduce.region(0).front();
  const Operation* first = body.front();
  if (!first || body.numArguments() != 2 || first->numOperands() != 2 || first->numResults() != 1) return nullptr;
  const Operation* ret = first->nextInBlock();
  if (!ret || ret->nextInBlock() || ret->numOperands() != 1 || ret->operand(0) != first->result()) return nullptr;
  if (!first->def() || !first->def()->has(kElementwise) || first->numRegions() != 0) return nullptr;
  swapped = first->operand(0) == body.argument(1);
  Value* expected[2] = {body.argument(swapped ? 1 : 0), body.argument(swapped ? 0 : 1)};
  if (first->operand(0) != expected[0] || first->operand(1) != expected[1]) return nullptr;
  return first;
}

// True if `v` is a splat constant for which op(v, x) == x bit for bit, by
// the same argument as x + 0 and x * 1 above. Not max(-inf, x): float max
// returns the canonical NaN for a NaN x.
bool isIdentityOf(const Operation& bodyOp, const Value* v) {
  Type et = v->type().elementType();
  const std::string& name = bodyOp.name();
  if (name == "stablehlo.add" || name == "stablehlo.or" || name == "stablehlo.xor")
    return isSplatConstantOf(v, et.isFloat() ? -0.0 : 0.0);
  if (name == "stablehlo.multiply") return isSplatConstantOf(v, 1.0);
  if (name == "stablehlo.and") return isSplatConstantOf(v, et.isBool() ? 1.0 : -1.0);
  return false;
}

// reduce(x, init) over dimensions whose sizes multiply to 1 (none at all,
// or all of size 1) takes one step per result element: body(init, x). It
// becomes reshape(x), combined with the broadcast init unless init is the
// body's identity. Single-input reduces with a one-op body only.
bool foldTrivialReduce(Operation& op) {
  if (op.numOperands() != 2) return false;
  Type inputType = op.operand(0)->type();
  for (int64_t d : intListAttr(op, "dimensions"))
    if (inputType.shape()[d] != 1) return false;
  bool swapped = false;
  const Operation* bodyOp = reduceBodyOp(op, swapped);
  if (!bodyOp || bodyOp->result()->type().elementType() != inputType.elementType()) return false;
  Type resultType = op.result()->type();
  OperationState reshape("stablehlo.reshape", op.loc());
  reshape.operands = {op.operand(0)};
  reshape.resultTypes = {resultType};
  Value* x = insertBefore(&op, std::move(reshape))->result();
  Value* init = op.operand(1);
  if (isIdentityOf(*bodyOp, init)) return replaceBy(op, x);
  OperationState broadcast("stablehlo.broadcast_in_dim", op.loc());
  broadcast.operands = {init};
  broadcast.attributes.set("broadcast_dimensions", Attribute::denseI64Array({}));
  broadcast.resultTypes = {resultType};
  Value* initAll = insertBefore(&op, std::move(broadcast))->result();
  OperationState combine(bodyOp->name(), op.loc());
  combine.operands = swapped ? std::vector<Value*>{x, initAll} : std::vector<Value*>{initAll, x};
  combine.attributes = bodyOp->attrs();
  return replaceBy(op, insertBefore(&op, std::move(combine))->result());
}

// dot_general(transpose(x), y) -> dot_general(x, y) with x's dimensions
// named in the dimension numbers (and likewise for y), when the result's
// dimension order stays the same: batch dims keep their list order, and the
// free dims appear in increasing dimension order, so x's free dims must be in
// the same relative order as transpose(x)'s.
bool foldTransposeIntoDot(Operation& op) {
  Attribute dn = op.attr("dot_dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return false;
  static constexpr std::string_view kSides[2] = {"lhs", "rhs"};
  for (unsigned side = 0; side < 2; ++side) {
    Operation* transpose = op.operand(side)->definingOp();
    if (!transpose || transpose->name() != "stablehlo.transpose") continue;
    std::vector<int64_t> perm = intListAttr(*transpose, "permutation");
    std::string batchName = std::string(kSides[side]) + "_batching_dimensions";
    std::string contractName = std::string(kSides[side]) + "_contracting_dimensions";
    auto field = [&](const std::string& name) { return intListField(dn, name); };
    std::vector<int64_t> batch = field(batchName), contract = field(contractName);
    std::vector<bool> bound(perm.size(), false);
    for (int64_t d : batch) bound[d] = true;
    for (int64_t d : contract) bound[d] = true;
    std::vector<int64_t> freeSources;
    for (size_t d = 0; d < perm.size(); ++d)
      if (!bound[d]) freeSources.push_back(perm[d]);
    if (!std::is_sorted(freeSources.begin(), freeSources.end())) continue;
    auto remap = [&](std::vector<int64_t> dims) {
      std::vector<Attribute> out;
      for (int64_t d : dims) out.push_back(Attribute::integer(perm[d]));
      return Attribute::array(std::move(out));
    };
    std::vector<NamedAttribute> fields;
    for (const NamedAttribute& f : dn.entries()) {
      if (f.first == batchName) fields.emplace_back(f.first, remap(batch));
      else if (f.first == contractName) fields.emplace_back(f.first, remap(contract));
      else fields.push_back(f);
    }
    op.setAttr("dot_dimension_numbers", Attribute::structAttr(dn.attrName(), std::move(fields), dn.dialect()));
    op.setOperand(side, transpose->operand(0));
    return true;
  }
  return false;
}

// transpose(dot_general(a, b), [1, 0]) -> dot_general(b, a) for a plain
// matrix product (no batch dims, one free dim on each side) whose result has
// no other use: element (j, i) is the same sum over the contracting dims in
// the same order, with each product's factors swapped (exact). The transpose
// was a strided copy; the swapped dot writes the layout directly.
bool foldTransposeOfDot(Operation& op) {
  if (intListAttr(op, "permutation") != std::vector<int64_t>{1, 0}) return false;
  Operation* dot = op.operand(0)->definingOp();
  if (!dot || dot->name() != "stablehlo.dot_general" || !op.operand(0)->hasOneUse()) return false;
  Attribute dn = dot->attr("dot_dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct) || dot->result()->type().rank() != 2) return false;
  auto field = [&](std::string_view name) { return intListField(dn, name); };
  if (!field("lhs_batching_dimensions").empty() || !field("rhs_batching_dimensions").empty()) return false;
  std::vector<int64_t> lhsContract = field("lhs_contracting_dimensions"), rhsContract = field("rhs_contracting_dimensions");
  std::vector<NamedAttribute> fields;
  for (const NamedAttribute& f : dn.entries()) {
    if (f.first == "lhs_contracting_dimensions") fields.emplace_back(f.first, intArrayAttribute(rhsContract));
    else if (f.first == "rhs_contracting_dimensions") fields.emplace_back(f.first, intArrayAttribute(lhsContract));
    else fields.push_back(f);
  }
  OperationState swapped("stablehlo.dot_general", dot->loc());
  swapped.operands = {dot->operand(1), dot->operand(0)};
  swapped.attributes = dot->attrs();
  swapped.attributes.set("dot_dimension_numbers", Attribute::structAttr(dn.attrName(), std::move(fields), dn.dialect()));
  if (Attribute precision = dot->attr("precision_config"); precision && precision.is(AttrKind::Array) &&
                                                            precision.arrayValue().size() == 2) {
    std::vector<Attribute> both(precision.arrayValue().begin(), precision.arrayValue().end());
    std::swap(both[0], both[1]);
    swapped.attributes.set("precision_config", Attribute::array(std::move(both)));
  }
  swapped.resultTypes = {op.result()->type()};
  return replaceBy(op, insertBefore(&op, std::move(swapped))->result());
}

// transpose(all_reduce(x)) -> all_reduce(transpose(x)) when that result of
// the all_reduce has no other use: it combines corresponding elements across
// instances, so permuting them before or after is the same. The SPMD
// partitioner puts an all_reduce between a dot and the transpose of its
// result (a data-parallel weight gradient), and combine_all_reduce makes one
// variadic all_reduce of every gradient; moved ahead of it, each transpose
// folds into its dot (foldTransposeOfDot) instead of running as a strided
// copy. The all_reduce stays where it is, its operand and result retyped.
bool transposeBeforeAllReduce(Operation& op) {
  Value* reduced = op.operand(0);
  Operation* reduce = reduced->definingOp();
  if (!reduce || reduce->name() != "stablehlo.all_reduce" || !reduced->hasOneUse()) return false;
  unsigned index = 0;
  while (reduce->result(index) != reduced) ++index;
  OperationState transposed("stablehlo.transpose", op.loc());
  transposed.operands = {reduce->operand(index)};
  transposed.attributes = op.attrs();
  transposed.resultTypes = {op.result()->type()};
  reduce->setOperand(index, insertBefore(reduce, std::move(transposed))->result());
  reduced->setType(op.result()->type());
  return replaceBy(op, reduced);
}

// scatter(splat c, indices, updates) where every update writes one element
// and each operand element can receive one update at most -- no window dims,
// and every dim of the indices but the batching ones (and the index vector)
// of extent 1, so that the only update that may reach an element is the one
// of its batch -> select(iota == index, combine(c, update), c), with the
// index and the update broadcast along the batching dims. This is the
// gradient of take_along_axis (one label per row: JAX's cross-entropy with
// integer labels) and of x[i] for a scalar i into zeros: an elementwise
// kernel that fuses with what reads it instead of a zero-filled buffer the
// scatter writes into. Bit-identical: each element is c or combine(c, u)
// with the combiner applied once, as the scatter does; an index out of
// bounds matches no iota value, as the scatter skips it.
bool scatterOfOneUpdatePerBatchToSelect(Operation& op) {
  if (op.numOperands() != 3 || op.numResults() != 1) return false;
  Value* operand = op.operand(0);
  Value* indices = op.operand(1);
  Value* updates = op.operand(2);
  Type type = op.result()->type();
  Type indicesType = indices->type();
  Type updatesType = updates->type();
  if (!type.isTensor() || !indicesType.isTensor() || !updatesType.isTensor() || operand->type() != type) return false;
  for (Type t : {type, indicesType, updatesType})
    for (int64_t e : t.shape())
      if (e <= 0) return false;  // dynamic or empty
  auto splat = splatConstantBytes(operand);
  if (!splat) return false;
  auto dims = readWindowedDims(op, type.shape(), indicesType.shape(), updatesType.shape());
  if (!dims || !dims->offsetDims.empty() || !dims->windowDims.empty()) return false;
  // Every operand dim is indexed or a batching dim: an inserted dim that no
  // index component names starts at 0, so only its first position is written.
  for (int64_t d = 0; d < type.rank(); ++d)
    if (!std::ranges::count(dims->startIndexMap, d) && !std::ranges::count(dims->operandBatchingDims, d)) return false;

  // The combiner: `return update` or one elementwise op of (current, update).
  const Block& body = op.region(0).front();
  if (body.numArguments() != 2) return false;
  const Operation* first = body.front();
  const Operation* bodyOp = nullptr;
  bool swapped = false;
  if (first && first->name() == "stablehlo.return") {
    if (first->numOperands() != 1 || first->operand(0) != body.argument(1)) return false;
  } else {
    bodyOp = reduceBodyOp(op, swapped);
    if (!bodyOp || bodyOp->result()->type() != body.argument(0)->type()) return false;
  }

  // The indices' dims but the index vector's, in order (the updates' dims);
  // each a batching dim (its operand dim) or of extent 1.
  Type indexType = indicesType.elementType();
  if (!indexType.isInteger()) return false;
  int64_t indicesRank = indicesType.rank();
  std::vector<int64_t> keptShape, broadcastDims;
  for (int64_t d = 0; d < indicesRank; ++d) {
    if (d == dims->indexVectorDim) continue;
    auto it = std::ranges::find(dims->indicesBatchingDims, d);
    if (it == dims->indicesBatchingDims.end()) {
      if (indicesType.shape()[d] != 1) return false;
      continue;
    }
    int64_t operandDim = dims->operandBatchingDims[it - dims->indicesBatchingDims.begin()];
    if (type.shape()[operandDim] != indicesType.shape()[d]) return false;
    if (!broadcastDims.empty() && broadcastDims.back() > operandDim) return false;  // kept in order only
    keptShape.push_back(indicesType.shape()[d]);
    broadcastDims.push_back(operandDim);
  }
  // iota counts each indexed dim in the index type: its last position must fit.
  unsigned bits = indexType.bitWidth() - (indexType.isSignedInteger() ? 1 : 0);
  for (int64_t d : dims->startIndexMap)
    if (bits < 63 && type.shape()[d] - 1 > (int64_t(1) << bits) - 1) return false;

  Builder b(op);
  Type predType = type.withElementType(Type::i1());
  Type indexFull = type.withElementType(indexType);
  auto spread = [&](Value* v) {  // a value of the updates' shape, broadcast to the operand's
    Value* kept = b.op("stablehlo.reshape", {v}, {}, Type::tensor(keptShape, v->type().elementType()));
    return b.broadcast(kept, type.withElementType(v->type().elementType()), broadcastDims);
  };
  Value* match = nullptr;
  for (size_t k = 0; k < dims->startIndexMap.size(); ++k) {
    Value* component = indices;
    if (dims->indexVectorDim < indicesRank)
      component = b.sliceAlong(indices, dims->indexVectorDim, int64_t(k), int64_t(k) + 1);
    Value* position = b.op("stablehlo.iota", {}, AttrDict({{"iota_dimension", Attribute::integer(dims->startIndexMap[k])}}),
                           indexFull);
    Value* index = spread(component);
    Value* equal = b.op("stablehlo.compare", {position, index},
                        AttrDict({{"comparison_direction", Attribute::enumAttr("comparison_direction", "EQ")}}),
                        predType);
    match = match ? b.op("stablehlo.and", {match, equal}, {}, predType) : equal;
  }
  Value* update = spread(updates);
  Value* combined = update;
  if (bodyOp) {
    OperationState combine(bodyOp->name(), op.loc());
    combine.operands = swapped ? std::vector<Value*>{update, operand} : std::vector<Value*>{operand, update};
    combine.attributes = bodyOp->attrs();
    combine.resultTypes = {type};
    combined = insertBefore(&op, std::move(combine))->result();
  }
  return replaceBy(op, b.op("stablehlo.select", {match, combined, operand}, {}, type));
}

const std::multimap<std::string_view, Rule>& rules() {
  static const std::multimap<std::string_view, Rule> table = {
      {"stablehlo.add", foldAddZero},
      {"stablehlo.add", foldAddOfPads},
      {"stablehlo.add", addIntoConcatenate},
      {"stablehlo.multiply", foldMulOne},
      {"stablehlo.multiply", foldMulZero},
      {"stablehlo.maximum", foldIdempotent},
      {"stablehlo.minimum", foldIdempotent},
      {"stablehlo.and", foldIdempotent},
      {"stablehlo.or", foldIdempotent},
      {"stablehlo.compare", foldCompareSelf},
      {"stablehlo.reduce", foldTrivialReduce},
      {"stablehlo.dot_general", foldTransposeIntoDot},
      {"stablehlo.subtract", foldSubtract},
      {"stablehlo.negate", foldInvolution},
      {"stablehlo.not", foldInvolution},
      {"stablehlo.reshape", foldReshape},
      {"stablehlo.transpose", foldTranspose},
      {"stablehlo.transpose", foldTransposeOfDot},
      {"stablehlo.transpose", transposeBeforeAllReduce},
      {"stablehlo.transpose", transposeOfUnitDimsToReshape},
      {"stablehlo.transpose", transposeBeforeUnitReshape},
      {"stablehlo.broadcast_in_dim", foldBroadcastInDim},
      {"stablehlo.broadcast_in_dim", foldBroadcastOfSplat},
      {"stablehlo.slice", foldSlice},
      {"stablehlo.convert", foldConvert},
      {"stablehlo.select", foldSelect},
      {"stablehlo.concatenate", foldConcatenate},
      {"stablehlo.concatenate", flattenConcatenate},
      {"stablehlo.pad", foldPad},
      {"stablehlo.scatter", scatterOfOneUpdatePerBatchToSelect},
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

class CanonicalizePass : public FunctionPass {
 public:
  std::string_view name() const override { return "canonicalize"; }

 private:
  bool runOnBody(Block& body) override {
    bool changed = false;
    // Dead ops go after each sweep: rules that ask for a value's only use
    // must not count users a rewrite has just orphaned.
    for (int sweep = 0; sweep < kMaxSweeps && canonicalizeBlock(body); ++sweep) {
      eraseDeadOps(body);
      changed = true;
    }
    changed |= eraseDeadOps(body);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createCanonicalizePass() { return std::make_unique<CanonicalizePass>(); }

}  // namespace kiln
