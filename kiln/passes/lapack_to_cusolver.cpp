// lapack_to_cusolver: the LAPACK calls of JAX's CPU lowering that the cuda
// back end runs through cuSOLVER (kiln/backends/gpu/solver_calls.h) --
// lapack_{s,d}syevd_ffi / {c,z}heevd_ffi (symmetric and Hermitian
// eigendecompositions) and lapack_?gesdd_ffi (SVDs) -- as calls of kiln's
// own between transposes. cuSOLVER's matrices are column-major, kiln's
// row-major: the new calls' operands and results are cuSOLVER's
// column-major buffers, typed as the row-major tensors of the same bytes,
// and the transposes are the pipeline's own kernels.
//
//   syevd(a) -> (v, w, info):
//     %t = transpose(a)                           (a's matrices, column-major)
//     %r:3 = custom_call @kiln.cusolver.syevd(%t) (%r#0: W column-major; uplo kept)
//     v = transpose(%r#0), w = %r#1, info = %r#2
//   gesdd(a: m x n) -> (a, s, u, vt, info), m >= n:
//     %t = transpose(a)
//     %r:4 = custom_call @kiln.cusolver.gesvd(%t) (rows m, cols n: s, U, VT column-major, info)
//     u = transpose(%r#1), vt = transpose(%r#2)
//   m < n (cuSOLVER's gesvd takes rows >= cols): a's own bytes are a^T
//     column-major (n x m); a^T = U2 S VT2 gives a = VT2^T S U2^T, so VT2's
//     column-major bytes are u's and U2's are vt's, with no transposes (for
//     complex matrices too: a^T, not a^H):
//     %r:4 = custom_call @kiln.cusolver.gesvd(a)  (rows n, cols m)
//     u = %r#2, vt = %r#1
//   gesdd's first result (LAPACK's overwritten a) is a, as the interpreter's.
//
// A batch of more than one matrix of at most 32 x 32 runs as one call of
// cuSOLVER's batched Jacobi routines instead of one call per matrix:
//   syevd: the same, custom_call @kiln.cusolver.syevj_batched (syevjBatched
//     takes and gives what Xsyevd does);
//   gesdd(a: m x n), any m and n:
//     %t = transpose(a)
//     %r:4 = custom_call @kiln.cusolver.gesvdj_batched(%t) (s; the full U,
//            m x m column-major; the full V, n x n column-major; info)
//     u = transpose(%r#1), its first k columns where u is thin;
//     vt = %r#2 (V's column-major bytes are V^T row-major; conjugated for
//          complex matrices: VT = V^H), its first k rows where vt is thin.
//
// cuSOLVER's vectors' signs are its own; for real matrices they are then
// made the interpreter's (fixSigns below, decompositions.cpp's rule).
//
// Calls of other shapes are left as they are (the cuda back end refuses
// them by name). In the cuda pipeline only: the interpreter and the cpu
// back end run the LAPACK calls themselves.
#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "kiln/interp/linalg.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

constexpr std::string_view kSyevd = "kiln.cusolver.syevd", kGesvd = "kiln.cusolver.gesvd",
                           kSyevjBatched = "kiln.cusolver.syevj_batched", kGesvdjBatched = "kiln.cusolver.gesvdj_batched";

// The largest matrices cuSOLVER's batched Jacobi routines take (syevjBatched,
// gesvdjBatched: rows and columns "no greater than 32";
// kiln/backends/gpu/solver_calls.h's kJacobiBatchedMaxOrder).
constexpr int64_t kJacobiMaxOrder = 32;

// Whether `a`'s matrices go to the batched Jacobi routines: more than one,
// each at most 32 x 32, and few enough for their int batch count.
bool jacobiBatched(Type a) {
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back();
  int64_t batch = m * n == 0 ? 0 : a.numElements() / (m * n);
  return batch > 1 && batch <= std::numeric_limits<int>::max() && m <= kJacobiMaxOrder && n <= kJacobiMaxOrder;
}

// The first `count` entries of `v` along dim `dim`.
Value* sliceDim(Builder& b, Value* v, int64_t dim, int64_t count) {
  Type type = v->type();
  std::vector<int64_t> start(type.rank(), 0), limit(type.shape().begin(), type.shape().end()), strides(type.rank(), 1);
  if (limit[dim] == count) return v;
  limit[dim] = count;
  return b.op("stablehlo.slice", {v},
              AttrDict({{"start_indices", Attribute::denseI64Array(start)},
                        {"limit_indices", Attribute::denseI64Array(limit)},
                        {"strides", Attribute::denseI64Array(strides)}}),
              Type::tensor(limit, type.elementType()));
}

// The complex conjugate of `v`.
Value* conjugate(Builder& b, Value* v) {
  Type type = v->type(), part = type.withElementType(type.elementType().complexElement());
  Value* re = b.op("stablehlo.real", {v}, {}, part);
  Value* im = b.op("stablehlo.negate", {b.op("stablehlo.imag", {v}, {}, part)}, {}, part);
  return b.op("stablehlo.complex", {re, im}, {}, type);
}

bool isMatrixBatch(Type t) {
  if (!t.isTensor() || t.rank() < 2) return false;
  Type e = t.elementType();
  return e.kind() == TypeKind::F32 || e.kind() == TypeKind::F64 ||
         (e.isComplex() && (e.complexElement().kind() == TypeKind::F32 || e.complexElement().kind() == TypeKind::F64));
}

// `shape` with its last two dims swapped.
std::vector<int64_t> swappedLast(std::span<const int64_t> shape) {
  std::vector<int64_t> s(shape.begin(), shape.end());
  std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

// `type` with `last2` as its last two dims (its batch dims kept).
Type withLast(Type type, int64_t a, int64_t b, Type element) {
  std::vector<int64_t> s(type.shape().begin(), type.shape().end() - 2);
  s.push_back(a);
  s.push_back(b);
  return Type::tensor(s, element);
}

Value* transposeLast(Builder& b, Value* v) {
  int64_t rank = v->type().rank();
  std::vector<int64_t> perm(rank);
  for (int64_t i = 0; i < rank; ++i) perm[i] = i;
  std::swap(perm[rank - 1], perm[rank - 2]);
  return b.op("stablehlo.transpose", {v}, AttrDict({{"permutation", Attribute::denseI64Array(perm)}}),
              Type::tensor(swappedLast(v->type().shape()), v->type().elementType()));
}

// The call of kiln's own, before `pos`: `target` of `operand` with
// `pos`'s backend_config (uplo), results of `types`.
Operation* solverCall(Operation& pos, std::string_view target, Value* operand, std::vector<Type> types) {
  OperationState st("stablehlo.custom_call", pos.loc());
  st.operands = {operand};
  st.resultTypes = std::move(types);
  st.attributes.set("call_target_name", Attribute::string(std::string(target)));
  if (Attribute config = pos.attr("mhlo.backend_config")) st.attributes.set("mhlo.backend_config", config);
  return insertBefore(&pos, std::move(st));
}

// `v` reduced over dim `dim` by `combiner` (a stablehlo op name) from `init`.
Value* reduceOver(Builder& b, Operation& pos, Value* v, int64_t dim, const char* combiner, double init) {
  Type element = v->type().elementType(), scalar = Type::tensor({}, element);
  std::vector<int64_t> shape(v->type().shape().begin(), v->type().shape().end());
  shape.erase(shape.begin() + dim);
  OperationState st("stablehlo.reduce", pos.loc());
  st.operands = {v, b.constant(scalar, init)};
  st.resultTypes = {Type::tensor(shape, element)};
  st.attributes.set("dimensions", Attribute::denseI64Array({dim}));
  Block* body = st.addRegion()->addBlock();
  Value* lhs = body->addArgument(scalar);
  Value* rhs = body->addArgument(scalar);
  OperationState op(combiner, pos.loc());
  op.operands = {lhs, rhs};
  op.resultTypes = {scalar};
  Operation* combined = body->push_back(Operation::create(std::move(op)));
  OperationState ret("stablehlo.return", pos.loc());
  ret.operands = {combined->result()};
  body->push_back(Operation::create(std::move(ret)));
  return insertBefore(&pos, std::move(st))->result();
}

Value* compare(Builder& b, const char* direction, const char* type, Value* x, Value* y) {
  return b.op("stablehlo.compare", {x, y},
              AttrDict({{"comparison_direction", Attribute::enumAttr("comparison_direction", direction)},
                        {"compare_type", Attribute::enumAttr("comparison_type", type)}}),
              x->type().withElementType(Type::i1()));
}

// The interpreter's choice of sign for eigen and singular vectors
// (decompositions.cpp, fixSigns), for cuSOLVER's: the vectors of the
// real matrices `v` run along dim `along` (its second-to-last: columns;
// its last: rows), and the first `count` of them (along the other dim)
// each get multiplied by -1 where their largest-magnitude entry (the first
// such on ties) is negative; `partner`'s vectors along `partnerAlong`
// flip with them. Returns v and partner so signed.
std::pair<Value*, Value*> fixSigns(Builder& b, Operation& pos, Value* v, int64_t along, int64_t count, Value* partner,
                                   int64_t partnerAlong) {
  Type type = v->type(), element = type.elementType();
  int64_t rank = type.rank(), other = along == rank - 2 ? rank - 1 : rank - 2;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (d != along) kept.push_back(d);
  Type indexType = type.withElementType(Type::si32());
  Value* magnitude = b.op("stablehlo.abs", {v}, {}, type);
  Value* largest = reduceOver(b, pos, magnitude, along, "stablehlo.maximum", 0.0);
  Value* position = b.op("stablehlo.iota", {}, AttrDict({{"iota_dimension", Attribute::integer(along)}}), indexType);
  Value* isLargest = compare(b, "EQ", "FLOAT", magnitude, b.broadcast(largest, type, kept));
  Value* past = b.constant(indexType, double(type.shape()[along]));
  Value* candidates = b.op("stablehlo.select", {isLargest, position, past}, {}, indexType);
  Value* first = reduceOver(b, pos, candidates, along, "stablehlo.minimum", double(type.shape()[along]));
  Value* isFirst = compare(b, "EQ", "SIGNED", position, b.broadcast(first, indexType, kept));
  Value* picked = b.op("stablehlo.select", {isFirst, v, b.constant(type, 0.0)}, {}, type);
  Value* entry = reduceOver(b, pos, picked, along, "stablehlo.add", 0.0);
  Type signType = entry->type();
  Value* nonNegative = compare(b, "GE", "FLOAT", entry, b.constant(signType, 0.0));
  Value* sign = b.op("stablehlo.select", {nonNegative, b.constant(signType, 1.0), b.constant(signType, -1.0)}, {}, signType);
  // Vectors past `count` (a full U's or VT's null space) keep their signs.
  int64_t signDim = other > along ? other - 1 : other;
  Type signIndex = signType.withElementType(Type::si32());
  Value* vector = b.op("stablehlo.iota", {}, AttrDict({{"iota_dimension", Attribute::integer(signDim)}}), signIndex);
  Value* counted = compare(b, "LT", "SIGNED", vector, b.constant(signIndex, double(count)));
  sign = b.op("stablehlo.select", {counted, sign, b.constant(signType, 1.0)}, {}, signType);
  Value* signed_ = b.op("stablehlo.multiply", {v, b.broadcast(sign, type, kept)}, {}, type);
  if (!partner) return {signed_, nullptr};
  // The partner's vectors, as many as v's: sign has v's vector count.
  Type partnerType = partner->type();
  int64_t partnerRank = partnerType.rank(), partnerOther = partnerAlong == partnerRank - 2 ? partnerRank - 1 : partnerRank - 2;
  int64_t have = signType.shape().back(), need = partnerType.shape()[partnerOther];
  if (need != have) {
    std::vector<int64_t> start(signType.rank(), 0), limit(signType.shape().begin(), signType.shape().end()),
        strides(signType.rank(), 1), low(signType.rank(), 0), high(signType.rank(), 0);
    std::vector<int64_t> shape = limit;
    if (need < have) {
      limit.back() = shape.back() = need;
      sign = b.op("stablehlo.slice", {sign},
                  AttrDict({{"start_indices", Attribute::denseI64Array(start)},
                            {"limit_indices", Attribute::denseI64Array(limit)},
                            {"strides", Attribute::denseI64Array(strides)}}),
                  Type::tensor(shape, element));
    } else {
      high.back() = need - have;
      shape.back() = need;
      sign = b.op("stablehlo.pad", {sign, b.constant(Type::tensor({}, element), 1.0)},
                  AttrDict({{"edge_padding_low", Attribute::denseI64Array(low)},
                            {"edge_padding_high", Attribute::denseI64Array(high)},
                            {"interior_padding", Attribute::denseI64Array(low)}}),
                  Type::tensor(shape, element));
    }
  }
  std::vector<int64_t> partnerKept;
  for (int64_t d = 0; d < partnerRank; ++d)
    if (d != partnerAlong) partnerKept.push_back(d);
  Value* partnerSigned = b.op("stablehlo.multiply", {partner, b.broadcast(sign, partnerType, partnerKept)}, {}, partnerType);
  return {signed_, partnerSigned};
}

bool batchesMatch(Type matrices, Type other, size_t keep) {
  size_t batchDims = matrices.rank() - 2;
  return other.isTensor() && other.rank() == int64_t(batchDims + keep) &&
         std::equal(matrices.shape().begin(), matrices.shape().end() - 2, other.shape().begin());
}

// syevd / heevd: (a) -> (v, w, info); true where rewritten.
bool rewriteSyevd(Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 3) return false;
  Type a = op.operand(0)->type();
  if (!isMatrixBatch(a) || a.shape().back() != a.shape()[a.rank() - 2] || op.result(0)->type() != a) return false;
  Type w = op.result(1)->type(), info = op.result(2)->type();
  Type real = a.elementType().isComplex() ? a.elementType().complexElement() : a.elementType();
  if (!batchesMatch(a, w, 1) || w.shape().back() != a.shape().back() || w.elementType() != real ||
      !batchesMatch(a, info, 0) || !info.elementType().isInteger() || info.elementType().bitWidth() != 32)
    return false;
  Builder b(op);
  Value* t = transposeLast(b, op.operand(0));
  Operation* call = solverCall(op, jacobiBatched(a) ? kSyevjBatched : kSyevd, t, {a, w, info});
  Value* v = transposeLast(b, call->result(0));
  if (!a.elementType().isComplex()) v = fixSigns(b, op, v, a.rank() - 2, a.shape().back(), nullptr, 0).first;
  std::vector<Value*> replacements = {v, call->result(1), call->result(2)};
  op.replaceWith(replacements);
  return true;
}

// gesdd: (a) -> (a, s, u, vt, info); true where rewritten.
bool rewriteGesdd(Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 5) return false;
  Type a = op.operand(0)->type();
  if (!isMatrixBatch(a) || op.result(0)->type() != a) return false;
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = std::min(m, n);
  Type s = op.result(1)->type(), u = op.result(2)->type(), vt = op.result(3)->type(), info = op.result(4)->type();
  Type element = a.elementType(), real = element.isComplex() ? element.complexElement() : element;
  if (!batchesMatch(a, s, 1) || s.shape().back() != k || s.elementType() != real || !batchesMatch(a, u, 2) ||
      !batchesMatch(a, vt, 2) || u.elementType() != element || vt.elementType() != element ||
      !batchesMatch(a, info, 0) || !info.elementType().isInteger() || info.elementType().bitWidth() != 32)
    return false;
  int64_t uRows = u.shape()[u.rank() - 2], uCols = u.shape().back();
  int64_t vtRows = vt.shape()[vt.rank() - 2], vtCols = vt.shape().back();
  if (uRows != m || vtCols != n || !((uCols == m && vtRows == n) || (uCols == k && vtRows == k))) return false;
  if (k == 0) return false;
  Builder b(op);
  std::vector<Value*> replacements;
  if (jacobiBatched(a)) {
    // One gesvdjBatched: the full U and V of a's m x n matrices.
    Value* t = transposeLast(b, op.operand(0));
    Operation* call = solverCall(op, kGesvdjBatched, t, {s, withLast(u, m, m, element), withLast(vt, n, n, element), info});
    Value* uOut = sliceDim(b, transposeLast(b, call->result(1)), u.rank() - 1, uCols);
    Value* vtOut = call->result(2);
    if (element.isComplex()) vtOut = conjugate(b, vtOut);
    vtOut = sliceDim(b, vtOut, vt.rank() - 2, vtRows);
    // The interpreter's signs, as for the calls below (it decomposes a^T
    // where m < n).
    if (!element.isComplex()) {
      if (m >= n) std::tie(uOut, vtOut) = fixSigns(b, op, uOut, u.rank() - 2, k, vtOut, vt.rank() - 1);
      else std::tie(vtOut, uOut) = fixSigns(b, op, vtOut, vt.rank() - 1, k, uOut, u.rank() - 2);
    }
    replacements = {op.operand(0), call->result(0), uOut, vtOut, call->result(3)};
  } else if (m >= n) {
    // cuSOLVER's m x n a: U m x uCols and VT vtRows x n, column-major.
    Value* t = transposeLast(b, op.operand(0));
    Operation* call = solverCall(op, kGesvd, t, {s, withLast(u, uCols, m, element), withLast(vt, n, vtRows, element), info});
    Value* uOut = transposeLast(b, call->result(1));
    Value* vtOut = transposeLast(b, call->result(2));
    // The interpreter's signs: u's first k columns', vt's rows flipping with them.
    if (!element.isComplex()) std::tie(uOut, vtOut) = fixSigns(b, op, uOut, u.rank() - 2, k, vtOut, vt.rank() - 1);
    replacements = {op.operand(0), call->result(0), uOut, vtOut, call->result(3)};
  } else {
    // cuSOLVER's n x m a^T: U2 n x vtRows (vt's bytes), VT2 uCols x m (u's).
    Operation* call = solverCall(op, kGesvd, op.operand(0), {s, vt, u, info});
    Value* uOut = call->result(2);
    Value* vtOut = call->result(1);
    // The interpreter's signs (it decomposes a^T too): vt's first k rows',
    // u's columns flipping with them.
    if (!element.isComplex()) std::tie(vtOut, uOut) = fixSigns(b, op, vtOut, vt.rank() - 1, k, uOut, u.rank() - 2);
    replacements = {op.operand(0), call->result(0), uOut, vtOut, call->result(3)};
  }
  op.replaceWith(replacements);
  return true;
}

bool rewriteLapackForCusolver(Module& module) {
  std::vector<Operation*> calls;
  for (Operation* fn : module.functions())
    fn->walk([&](Operation& op) {
      std::string_view routine = interp::lapackRoutineOf(op);
      if (routine == "syevd" || routine == "heevd" || routine == "gesdd") calls.push_back(&op);
    });
  bool changed = false;
  for (Operation* op : calls) changed |= interp::lapackRoutineOf(*op) == "gesdd" ? rewriteGesdd(*op) : rewriteSyevd(*op);
  return changed;
}

class LapackToCusolverPass : public Pass {
 public:
  std::string_view name() const override { return "lapack_to_cusolver"; }
  Expected<bool> run(Module& module) override { return rewriteLapackForCusolver(module); }
};

}  // namespace

std::unique_ptr<Pass> createLapackToCusolverPass() { return std::make_unique<LapackToCusolverPass>(); }


}  // namespace kiln
