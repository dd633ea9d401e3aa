// Dots as cuBLASLt matmuls (see matmul_plan.h).
#include "kiln/backends/gpu/matmul_plan.h"

#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "kiln/codegen/dot_dims.h"
#include "kiln/codegen/element_ops.h"
#include "kiln/ir/float_formats.h"

namespace kiln::gpu {
namespace {

Status unsupported(const Operation& op, std::string_view what) { return codegen::unsupported("cuda", op, what); }

bool isDot(const Operation& op) { return op.name() == "stablehlo.dot_general" || op.name() == "stablehlo.dot"; }

// Whether `dims` are first, first + 1, ... (consecutive, ascending).
bool consecutiveFrom(const std::vector<int64_t>& dims, int64_t first) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != first + int64_t(i)) return false;
  return true;
}

int64_t product(std::span<const int64_t> shape, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= shape[d];
  return n;
}

// How one operand of rank `rank` lies in memory after its batch dims:
// free dims then contracting ones (false), or contracting then free (true);
// nothing when cuBLASLt cannot read it as a strided matrix.
std::optional<bool> contractingFirst(int64_t rank, const std::vector<int64_t>& batch,
                                     const std::vector<int64_t>& contracting) {
  int64_t nb = int64_t(batch.size());
  if (!consecutiveFrom(batch, 0)) return std::nullopt;
  if (contracting.empty() || consecutiveFrom(contracting, rank - int64_t(contracting.size()))) return false;
  if (consecutiveFrom(contracting, nb)) return true;
  return std::nullopt;
}

// The value of a splat float constant (maybe broadcast), or nothing.
std::optional<double> splatValue(const Value* v) {
  const Operation* def = v->definingOp();
  while (def && def->name() == "stablehlo.broadcast_in_dim") def = def->operand(0)->definingOp();
  if (!def || def->name() != "stablehlo.constant") return std::nullopt;
  Attribute value = def->attr("value");
  Type element = def->result()->type().elementType();
  if (!value || !value.is(AttrKind::DenseElements) || !element.isFloat()) return std::nullopt;
  std::span<const uint8_t> data = value.denseData();
  size_t bytes = element.storageBytes();
  if (bytes == 0 || bytes > 8 || data.size() < bytes) return std::nullopt;
  for (size_t off = bytes; off + bytes <= data.size(); off += bytes)
    if (std::memcmp(data.data() + off, data.data(), bytes) != 0) return std::nullopt;
  uint64_t bits = 0;
  std::memcpy(&bits, data.data(), bytes);  // little-endian host
  return decodeFloat(element.kind(), bits);
}

// The fusion parameter that `v` broadcasts along its last dim alone (one
// value per column of the result), or null.
const Value* lastDimVector(const Value* v, const Block& body, int64_t n) {
  const Value* current = v;
  while (const Operation* def = current->definingOp()) {
    if (def->name() != "stablehlo.broadcast_in_dim") return nullptr;
    const Value* in = def->operand(0);
    std::optional<std::vector<int64_t>> dims = def->attr("broadcast_dimensions").asIntList();
    if (!dims || in->type().numElements() != n) return nullptr;
    int64_t last = current->type().rank() - 1;
    for (size_t j = 0; j < dims->size(); ++j)
      if (in->type().shape()[j] != 1 && (*dims)[j] != last) return nullptr;
    current = in;
  }
  return current != v && current->isBlockArgument() && current->ownerBlock() == &body ? current : nullptr;
}

// Maps the ops from the dot's result towards the fusion's root onto
// cuBLASLt's epilogue: [multiply by a constant] [add a last-dim vector]
// [maximum with 0], in this order, as far as they go; plan.product is
// where they stop.
void mapEpilogue(const Block& body, const Value* chain, MatmulPlan& plan) {
  const Value* root = body.terminator()->operand(0);
  enum { Scale, Bias, Relu, Done } next = Scale;
  for (; chain != root && chain->hasOneUse(); chain = chain->uses().front().user->result()) {
    const Operation& op = *chain->uses().front().user;
    const std::string& name = op.name();
    if (op.numOperands() != 2 || op.numResults() != 1) break;
    const Value* other = op.operand(op.operand(0) == chain ? 1 : 0);
    std::optional<double> constant = splatValue(other);
    const Value* vector = lastDimVector(other, body, plan.n);
    if (name == "stablehlo.multiply" && next <= Scale && constant) {
      plan.alpha = *constant;
      next = Bias;
    } else if (name == "stablehlo.add" && next <= Bias && vector &&
               vector->type().elementType() == op.result()->type().elementType()) {
      plan.biasOperand = int(vector->index());
      plan.biasType = vector->type().elementType().kind();
      plan.epilogue = MatmulEpilogue::Bias;
      next = Relu;
    } else if (name == "stablehlo.maximum" && next <= Relu && constant && *constant == 0.0) {
      plan.epilogue = plan.epilogue == MatmulEpilogue::Bias ? MatmulEpilogue::ReluBias : MatmulEpilogue::Relu;
      next = Done;
    } else {
      break;
    }
  }
  plan.product = chain;
  plan.epilogueKernel = chain != root;
}

}  // namespace

const char* epilogueName(MatmulEpilogue epilogue) {
  switch (epilogue) {
    case MatmulEpilogue::None: return "none";
    case MatmulEpilogue::Relu: return "relu";
    case MatmulEpilogue::Bias: return "bias";
    case MatmulEpilogue::ReluBias: return "bias+relu";
  }
  return "?";
}

std::string MatmulPlan::str() const {
  std::string s = Type::element(a.type).str() + " [" + std::to_string(batch) + " x " + std::to_string(m) + "x" +
                  std::to_string(n) + "x" + std::to_string(k) + "]";
  if (transA) s += " A^T";
  if (transB) s += " B^T";
  if (alpha != 1.0) s += ", alpha " + std::to_string(alpha);
  return s + ", epilogue " + epilogueName(epilogue);
}

bool isMatmulOp(const Operation& op) {
  if (isDot(op)) return true;
  Attribute kind = op.attr("kind");
  return op.name() == "kiln.fusion" && kind && kind.stringValue() == "output";
}

Expected<MatmulPlan> planMatmul(const Operation& op) {
  const Operation* dot = &op;
  const Block* body = nullptr;
  if (!isDot(op)) {
    body = &op.region(0).front();
    dot = nullptr;
    for (const Operation& inner : *body)
      if (isDot(inner)) {
        if (dot) return unsupported(op, "holding more than one dot");
        dot = &inner;
      }
    if (!dot) return unsupported(op, "of kind output without a dot (convolutions go through cuDNN, which is not wired up)");
    for (int i = 0; i < 2; ++i)
      if (!dot->operand(i)->isBlockArgument() || dot->operand(i)->ownerBlock() != body)
        return unsupported(op, "whose dot reads a value computed inside the fusion");
  }
  KILN_ASSIGN_OR_RETURN(codegen::DotDims dims, codegen::dotDims(*dot));
  Type lhsType = dot->operand(0)->type(), rhsType = dot->operand(1)->type(), outType = dot->result()->type();
  TypeKind in = lhsType.elementType().kind(), out = outType.elementType().kind();
  bool narrow = in == TypeKind::F16 || in == TypeKind::BF16;
  if (rhsType.elementType().kind() != in ||
      !((in == TypeKind::F32 || in == TypeKind::F64) ? out == in : narrow && (out == in || out == TypeKind::F32)))
    return unsupported(*dot, "on " + lhsType.str() + " x " + rhsType.str() + " -> " + outType.str() +
                                 " (cuBLASLt takes f32, f64, f16 and bf16)");
  std::span<const int64_t> lhsShape = lhsType.shape(), rhsShape = rhsType.shape();
  std::optional<bool> lhsKFirst = contractingFirst(lhsType.rank(), dims.lhsBatch, dims.lhsContracting);
  std::optional<bool> rhsKFirst = contractingFirst(rhsType.rank(), dims.rhsBatch, dims.rhsContracting);
  if (!lhsKFirst || !rhsKFirst)
    return unsupported(*dot, "with an operand whose batch dims do not lead or whose contracting dims are not "
                             "together (cuBLASLt reads strided matrices; a transpose first is not written yet)");

  MatmulPlan plan;
  plan.batch = product(lhsShape, dims.lhsBatch);
  plan.k = product(lhsShape, dims.lhsContracting);
  plan.m = product(lhsShape, codegen::freeDims(lhsType.rank(), dims.lhsBatch, dims.lhsContracting));
  plan.n = product(rhsShape, codegen::freeDims(rhsType.rank(), dims.rhsBatch, dims.rhsContracting));
  plan.computeType = in == TypeKind::F64 ? TypeKind::F64 : TypeKind::F32;
  // A = rhs, op(A) n x k: rhs [k, n] row-major is column-major n x k as it
  // is; [n, k] is k x n, transposed.
  plan.transA = !*rhsKFirst;
  plan.a = plan.transA ? MatmulLayout{in, plan.k, plan.n, plan.k, plan.k * plan.n}
                       : MatmulLayout{in, plan.n, plan.k, plan.n, plan.k * plan.n};
  // B = lhs, op(B) k x m: lhs [m, k] row-major is column-major k x m; [k, m]
  // is m x k, transposed.
  plan.transB = *lhsKFirst;
  plan.b = plan.transB ? MatmulLayout{in, plan.m, plan.k, plan.m, plan.m * plan.k}
                       : MatmulLayout{in, plan.k, plan.m, plan.k, plan.m * plan.k};
  plan.d = MatmulLayout{out, plan.n, plan.m, plan.n, plan.m * plan.n};
  if (body) {
    plan.aOperand = int(dot->operand(1)->index());
    plan.bOperand = int(dot->operand(0)->index());
    if (body->terminator()->numOperands() != 1) return unsupported(op, "with several results");
    mapEpilogue(*body, dot->result(), plan);
  } else {
    plan.product = dot->result();
  }
  if (plan.m * plan.n * plan.batch == 0 || plan.k == 0)
    return unsupported(*dot, "with an empty operand (no matmul to run)");
  return plan;
}

}  // namespace kiln::gpu
