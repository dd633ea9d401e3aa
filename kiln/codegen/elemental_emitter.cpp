// The elemental emitter (see elemental_emitter.h).
#include "kiln/codegen/elemental_emitter.h"

#include <algorithm>
#include <array>
#include <functional>
#include <numeric>
#include <optional>
#include <string>

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>

#include "kiln/codegen/elementwise.h"
#include "kiln/codegen/loops.h"
#include "kiln/codegen/narrow_floats.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"
#include "kiln/ir/windowed_dims.h"

namespace kiln::codegen {
namespace {

bool sameShape(std::span<const int64_t> a, std::span<const int64_t> b) { return std::ranges::equal(a, b); }

// An integer-list attribute of `op` with one entry per dim of `rank`, or an
// error naming the op.
Expected<std::vector<int64_t>> dimsAttr(const TargetHooks& target, const Operation& op, const char* name, size_t rank) {
  std::optional<std::vector<int64_t>> list = op.attr(name).asIntList();
  if (!list || list->size() != rank) return unsupported(target, op, std::string("without a valid ") + name);
  return *list;
}

}  // namespace

Expected<llvm::Value*> ElementalEmitter::emit(const Value* v, llvm::Value* index) {
  // A reduce computed once for the current row (see emitRowKernel); the
  // row analysis guarantees `index` is that row.
  if (auto it = rowScalars_.find(v); it != rowScalars_.end()) return it->second;
  auto key = std::make_pair(v, index);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  KILN_ASSIGN_OR_RETURN(llvm::Value * result, emitUncached(v, index));
  cache_[key] = result;
  return result;
}

Expected<llvm::Value*> ElementalEmitter::emitFoldStep(const Operation& op, llvm::Value* acc, llvm::Value* index) {
  KILN_RETURN_IF_ERROR(checkTypes(op));
  KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(op.operand(0), index));
  std::array<llvm::Value*, 2> args = {acc, x};
  KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results, emitScalarBody(op, args));
  return results[0];
}

Status ElementalEmitter::emitRowScalar(const Value* v, llvm::Value* row) {
  KILN_ASSIGN_OR_RETURN(llvm::Value * scalar, emit(v, row));
  rowScalars_[v] = scalar;
  return Status::ok();
}

void ElementalEmitter::seedFromKeptRows(llvm::Value* index, llvm::Value* column) {
  for (const auto& [v, scratch] : keptRows_) {
    llvm::Type* type = registerType(b_.getContext(), v->type().elementType());
    llvm::Value* element = b_.CreateLoad(type, b_.CreateGEP(type, scratch, column));
    seed(v, index, element);
    for (const auto& [alias, kept] : keptAliases_)
      if (kept == v) seed(alias, index, element);
  }
}

Status ElementalEmitter::checkTypes(const Operation& op) {
  if (op.numResults() != 1 && op.name() != "stablehlo.reduce") return unsupported(target_, op, "with several results");
  for (const Value* operand : op.operands())
    if (!operand->type().isTensor() || !registerType(b_.getContext(), operand->type().elementType()))
      return unsupported(target_, op, "on " + operand->type().str());
  for (const Value* result : op.results())
    if (!result->type().isTensor() || !registerType(b_.getContext(), result->type().elementType()))
      return unsupported(target_, op, "on " + result->type().str());
  // Complex values pass through the index mappings and the elementwise ops
  // emitComplex takes; iota and reduce_window are real-only here, and so are
  // reduces unless the target emits complex ones (a serial fold).
  bool complexReduce = op.name() == "stablehlo.reduce" && target_.emitsComplexReduces();
  if ((op.name() == "stablehlo.reduce" && !complexReduce) || op.name() == "stablehlo.iota" ||
      op.name() == "stablehlo.reduce_window") {
    std::vector<Value*> values = op.results();
    values.insert(values.begin(), op.operands().begin(), op.operands().end());
    for (const Value* v : values)
      if (v->type().elementType().isComplex()) return unsupported(target_, op, "on " + v->type().str());
  }
  return Status::ok();
}

Expected<llvm::Value*> ElementalEmitter::emitUncached(const Value* v, llvm::Value* index) {
  if (auto it = params_.find(v); it != params_.end()) {
    if (!v->type().isTensor() || !registerType(b_.getContext(), v->type().elementType()))
      return error("the " + std::string(target_.backendName()) + " back end cannot compile a kernel reading " +
                   v->type().str() + " yet");
    Type element = v->type().elementType();
    if (element.kind() == TypeKind::BF16 || element.kind() == TypeKind::F16) {
      // As emitLoadElement, the bits kept for TOTALORDER compares.
      llvm::Type* bitsType = b_.getInt16Ty();
      llvm::Value* bits = b_.CreateLoad(bitsType, b_.CreateGEP(bitsType, it->second, index));
      llvm::Value* x = emitDecodeNarrow(b_, bits, element.kind());
      knowNarrowBits(x, bits);
      return x;
    }
    return emitLoadElement(b_, it->second, element, index);
  }
  const Operation* op = v->definingOp();
  if (!op) return error("codegen: a kernel reads a value it was not given");
  KILN_RETURN_IF_ERROR(checkTypes(*op));
  Type element = v->type().elementType();

  const std::string& name = op->name();
  if (name == "stablehlo.constant") return emitConstant(*op, element, index);
  if (name == "stablehlo.reduce") {
    unsigned k = 0;
    while (op->result(k) != v) ++k;
    return emitReduce(*op, k, index);
  }
  if (isIndexMapping(name)) return emitIndexMapping(*op, index);
  if (name == "stablehlo.gather") return emitGather(*op, index);
  if (name == "stablehlo.scatter") return emitScatter(*op, index);
  if (name == "stablehlo.reduce_window") return emitReduceWindow(*op, index);
  if (provider_ && !isElementwiseOp(name)) {
    KILN_ASSIGN_OR_RETURN(llvm::Value * provided, provider_(*op, index));
    if (provided) return provided;
  }
  if (!isElementwiseOp(name)) return unsupported(target_, *op);

  std::vector<llvm::Value*> xs;
  for (const Value* operand : op->operands()) {
    // select's predicate and clamp's bounds may be scalars for a whole tensor.
    bool scalarForAll = operand->type().rank() == 0 && v->type().rank() != 0;
    if (!scalarForAll && !sameShape(operand->type().shape(), v->type().shape()))
      return unsupported(target_, *op, "with operands of another shape");  // never read out of bounds
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, scalarForAll ? b_.getInt64(0) : index));
    xs.push_back(x);
  }
  return emitElementwiseOp(*op, xs);
}

Expected<llvm::Value*> ElementalEmitter::emitElementwiseOp(const Operation& op, std::span<llvm::Value* const> xs) {
  if (xs.size() == 2 && isTotalOrderCompareOfBits(op)) {
    auto x = narrowBits_.find(xs[0]), y = narrowBits_.find(xs[1]);
    if (x != narrowBits_.end() && y != narrowBits_.end())
      return emitTotalOrderCompareBits(b_, target_, op, x->second, y->second);
  }
  return emitElementwise(b_, m_, target_, op, xs);
}

Expected<llvm::Value*> ElementalEmitter::emitConstant(const Operation& op, Type element, llvm::Value* index) {
  Attribute value = op.attr("value");
  if (!value.is(AttrKind::DenseElements)) return unsupported(target_, op, "without a dense value");
  std::span<const uint8_t> data = value.denseData();
  size_t width = element.storageBytes();
  llvm::LLVMContext& ctx = b_.getContext();
  if (value.denseIsSplat()) return elementConstant(ctx, element, data.data());
  // A table of register values (predicates as bytes), read at `index`.
  llvm::Type* slotType = element.isBool() ? b_.getInt8Ty() : registerType(ctx, element);
  std::vector<llvm::Constant*> elements;
  for (size_t offset = 0; offset + width <= data.size(); offset += width) {
    const uint8_t* bytes = data.data() + offset;
    elements.push_back(element.isBool() ? b_.getInt8(bytes[0] != 0) : elementConstant(ctx, element, bytes));
  }
  if (int64_t(elements.size()) != op.result()->type().numElements())
    return unsupported(target_, op, "with a value of another element count");
  auto* arrayType = llvm::ArrayType::get(slotType, elements.size());
  auto* global = new llvm::GlobalVariable(m_, arrayType, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                          llvm::ConstantArray::get(arrayType, elements));
  llvm::Value* x = b_.CreateLoad(slotType, b_.CreateGEP(slotType, global, index));
  return element.isBool() ? b_.CreateICmpNE(x, b_.getInt8(0)) : x;
}

std::vector<llvm::Value*> ElementalEmitter::coordinates(llvm::Value* index, std::span<const int64_t> shape) {
  auto count = [](std::span<const int64_t> dims) {
    return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<>());
  };
  if (auto it = knownCoords_.find(index); it != knownCoords_.end()) {
    const auto& [knownShape, knownCoords] = it->second;
    if (sameShape(knownShape, shape)) return knownCoords;
    // Through a reshape: trailing groups of dims holding as many elements in
    // both shapes take their coordinates from the group's known ones. A dim
    // both share keeps its coordinate (a row's column stays the loop
    // counter, no division by the row length); a dim merging known dims is
    // their row-major sum (a bias over 1536 = 3 x 8 x 64 columns, read at
    // a head-split transpose's coordinates: no remainder per element); dims
    // splitting known ones are digits of it. The leading dims left come from
    // their own flat index.
    std::span<const int64_t> known(knownShape);
    int64_t elements = count(shape);
    if (elements > 0 && elements == count(known)) {
      std::vector<llvm::Value*> coords(shape.size());
      size_t i = shape.size(), k = knownShape.size();
      while (i > 0 && k > 0) {
        size_t i0 = i - 1, k0 = k - 1;
        int64_t n = shape[i0], m = known[k0];
        while (n != m && ((n < m && i0 > 0) || (m < n && k0 > 0))) {
          if (n < m) n *= shape[--i0];
          else m *= known[--k0];
        }
        if (n != m) break;
        std::vector<int64_t> knownStrides = rowMajorStrides(known.subspan(k0, k - k0));
        llvm::Value* position = nullptr;
        for (size_t d = k0; d < k; ++d) position = addScaled(position, knownCoords[d], knownStrides[d - k0]);
        std::vector<int64_t> strides = rowMajorStrides(shape.subspan(i0, i - i0));
        for (size_t d = i0; d < i; ++d)
          coords[d] = i - i0 == 1 ? position : coordinate(position, strides[d - i0], d == i0 ? 0 : shape[d]);
        i = i0;
        k = k0;
      }
      if (i < shape.size()) {
        llvm::Value* lead = nullptr;
        std::vector<int64_t> leadStrides = rowMajorStrides(known.first(k));
        for (size_t d = 0; d < k; ++d) lead = addScaled(lead, knownCoords[d], leadStrides[d]);
        std::vector<int64_t> strides = rowMajorStrides(shape.first(i));
        for (size_t d = 0; d < i; ++d)
          coords[d] = lead ? coordinate(lead, strides[d], d == 0 ? 0 : shape[d]) : b_.getInt64(0);
        return coords;
      }
    }
  }
  std::vector<int64_t> strides = rowMajorStrides(shape);
  std::vector<llvm::Value*> coords;
  for (size_t d = 0; d < shape.size(); ++d)  // index < numElements: dim 0 needs no wrap
    coords.push_back(coordinate(index, strides[d], d == 0 ? 0 : shape[d]));
  return coords;
}

llvm::Value* ElementalEmitter::flatIndex(std::span<llvm::Value* const> coords, std::span<const int64_t> shape) {
  std::vector<int64_t> strides = rowMajorStrides(shape);
  llvm::Value* index = nullptr;
  for (size_t d = 0; d < shape.size(); ++d) index = addScaled(index, coords[d], strides[d]);
  if (!index) return b_.getInt64(0);
  knownCoords_[index] = {std::vector<int64_t>(shape.begin(), shape.end()),
                         std::vector<llvm::Value*>(coords.begin(), coords.end())};
  return index;
}

llvm::Value* ElementalEmitter::addScaled(llvm::Value* sum, llvm::Value* x, int64_t scale) {
  llvm::Value* term = scale == 1 ? x : b_.CreateMul(x, b_.getInt64(scale));
  return sum ? b_.CreateAdd(sum, term) : term;
}

llvm::Value* ElementalEmitter::clampIndex(llvm::Value* x, int64_t lo, int64_t hi) {
  x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, b_.getInt64(lo));
  return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, b_.getInt64(hi));
}

Expected<llvm::Value*> ElementalEmitter::emitIndexMapping(const Operation& op, llvm::Value* index) {
  const std::string& name = op.name();
  // Operand counts (the start indices of the dynamic ops come on top).
  unsigned minOperands = 1;
  if (name == "stablehlo.iota") minOperands = 0;
  if (name == "stablehlo.pad" || name == "stablehlo.dynamic_update_slice") minOperands = 2;
  bool variadic = name == "stablehlo.concatenate" || name.starts_with("stablehlo.dynamic");
  if (op.numOperands() < minOperands || (!variadic && op.numOperands() != minOperands))
    return unsupported(target_, op, "with " + std::to_string(op.numOperands()) + " operands");
  std::span<const int64_t> outShape = op.result()->type().shape();
  // Row-major reshape keeps every element's flat index.
  if (name == "stablehlo.reshape") {
    if (op.operand(0)->type().numElements() != op.result()->type().numElements())
      return unsupported(target_, op, "changing the element count");
    return emit(op.operand(0), index);
  }
  if (name == "stablehlo.broadcast_in_dim") {
    KILN_ASSIGN_OR_RETURN(llvm::Value * operandIndex, broadcastOperandIndex(op, index));
    return emit(op.operand(0), operandIndex);
  }
  std::vector<llvm::Value*> out = coordinates(index, outShape);
  size_t rank = outShape.size();
  if (name == "stablehlo.iota") {
    Attribute dim = op.attr("iota_dimension");
    if (!dim || dim.intValue() < 0 || dim.intValue() >= int64_t(rank)) return unsupported(target_, op, "without a valid iota_dimension");
    return emitIndexAs(b_, out[dim.intValue()], op.result()->type().elementType());
  }
  const Value* operand = op.operand(0);
  std::span<const int64_t> inShape = operand->type().shape();
  if (inShape.size() != rank) return unsupported(target_, op, "with an operand of another rank");
  if (name == "stablehlo.reverse" && !sameShape(inShape, outShape)) return unsupported(target_, op, "with an operand of another shape");
  if (name == "stablehlo.transpose") {  // result dim d is operand dim permutation[d]
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> permutation, dimsAttr(target_, op, "permutation", rank));
    std::vector<llvm::Value*> in(rank);
    for (size_t d = 0; d < rank; ++d) {
      if (permutation[d] < 0 || permutation[d] >= int64_t(rank) || in[permutation[d]] ||
          inShape[permutation[d]] != outShape[d])
        return unsupported(target_, op, "with an invalid permutation");
      in[permutation[d]] = out[d];
    }
    return emit(operand, flatIndex(in, inShape));
  }
  if (name == "stablehlo.slice") {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> start, dimsAttr(target_, op, "start_indices", rank));
    std::vector<int64_t> strides(rank, 1);
    if (op.attr("strides")) {
      KILN_ASSIGN_OR_RETURN(strides, dimsAttr(target_, op, "strides", rank));
    }
    for (size_t d = 0; d < rank; ++d) {
      bool inBounds = outShape[d] == 0 || (start[d] >= 0 && strides[d] > 0 &&
                                           start[d] + (outShape[d] - 1) * strides[d] < inShape[d]);
      if (!inBounds) return unsupported(target_, op, "reading out of bounds");
      out[d] = b_.CreateAdd(b_.getInt64(start[d]), b_.CreateMul(out[d], b_.getInt64(strides[d])));
    }
    return emit(operand, flatIndex(out, inShape));
  }
  if (name == "stablehlo.reverse") {
    std::optional<std::vector<int64_t>> dims = op.attr("dimensions").asIntList();
    if (!dims) return unsupported(target_, op, "without dimensions");
    for (int64_t d : *dims) {
      if (d < 0 || d >= int64_t(rank)) return unsupported(target_, op, "with dimension " + std::to_string(d));
      out[d] = b_.CreateSub(b_.getInt64(inShape[d] - 1), out[d]);
    }
    return emit(operand, flatIndex(out, inShape));
  }
  if (name == "stablehlo.concatenate") return emitConcatenate(op, out);
  if (name == "stablehlo.pad") return emitPad(op, out);
  if (name == "stablehlo.dynamic_slice") {
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> start, clampedStarts(op, 1, outShape));
    for (size_t d = 0; d < rank; ++d) out[d] = b_.CreateAdd(start[d], out[d]);
    return emit(operand, flatIndex(out, inShape));
  }
  return emitDynamicUpdateSlice(op, out, index);
}

Expected<llvm::Value*> ElementalEmitter::broadcastOperandIndex(const Operation& op, llvm::Value* index) {
  std::span<const int64_t> outShape = op.result()->type().shape();
  std::span<const int64_t> inShape = op.operand(0)->type().shape();
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dims, dimsAttr(target_, op, "broadcast_dimensions", inShape.size()));
  std::vector<int64_t> inStrides = rowMajorStrides(inShape);
  for (size_t j = 0; j < dims.size(); ++j)
    if (inShape[j] != 1 && (dims[j] < 0 || dims[j] >= int64_t(outShape.size()) || outShape[dims[j]] != inShape[j]))
      return unsupported(target_, op, "with an invalid broadcast dimension");
  // (Unused coordinates cost nothing: LLVM drops them.)
  std::vector<llvm::Value*> coords = coordinates(index, outShape);
  llvm::Value* operandIndex = nullptr;
  for (size_t j = 0; j < dims.size(); ++j)
    if (inShape[j] != 1) operandIndex = addScaled(operandIndex, coords[dims[j]], inStrides[j]);
  return operandIndex ? operandIndex : b_.getInt64(0);
}

Expected<llvm::Value*> ElementalEmitter::emitConcatenate(const Operation& op, std::vector<llvm::Value*> out) {
  Attribute dimAttr = op.attr("dimension");
  int64_t rank = op.result()->type().rank();
  if (!dimAttr || dimAttr.intValue() < 0 || dimAttr.intValue() >= rank) return unsupported(target_, op, "without a valid dimension");
  int64_t dim = dimAttr.intValue();
  llvm::Value* position = out[dim];
  llvm::Value* result = nullptr;
  int64_t offset = 0;
  for (const Value* operand : op.operands()) {
    std::span<const int64_t> shape = operand->type().shape();
    for (int64_t d = 0; d < rank; ++d)
      if (int64_t(shape.size()) != rank || (d != dim && shape[d] != op.result()->type().shape()[d]))
        return unsupported(target_, op, "with operands of another shape");
    int64_t size = shape[dim];
    if (size == 0) continue;
    out[dim] = clampIndex(b_.CreateSub(position, b_.getInt64(offset)), 0, size - 1);
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, flatIndex(out, operand->type().shape())));
    result = result ? b_.CreateSelect(b_.CreateICmpSLT(position, b_.getInt64(offset)), result, x) : x;
    offset += size;
  }
  // An empty result has no element to compute (its loop never runs).
  return result ? result : llvm::PoisonValue::get(registerType(b_.getContext(), op.result()->type().elementType()));
}

Expected<llvm::Value*> ElementalEmitter::emitPad(const Operation& op, std::vector<llvm::Value*> out) {
  size_t rank = out.size();
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> low, dimsAttr(target_, op, "edge_padding_low", rank));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> interior, dimsAttr(target_, op, "interior_padding", rank));
  KILN_ASSIGN_OR_RETURN(llvm::Value * padding, emit(op.operand(1), b_.getInt64(0)));
  const Value* operand = op.operand(0);
  std::span<const int64_t> inShape = operand->type().shape();
  if (operand->type().numElements() == 0) return padding;
  llvm::Value* inside = b_.getTrue();
  for (size_t d = 0; d < rank; ++d) {
    if (interior[d] < 0) return unsupported(target_, op, "with negative interior padding");
    llvm::Value* t = b_.CreateSub(out[d], b_.getInt64(low[d]));
    llvm::Value* step = b_.getInt64(interior[d] + 1);
    llvm::Value* j = b_.CreateSDiv(t, step);
    inside = b_.CreateAnd(inside, b_.CreateICmpSGE(t, b_.getInt64(0)));
    inside = b_.CreateAnd(inside, b_.CreateICmpSLT(j, b_.getInt64(inShape[d])));
    if (interior[d] > 0) inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateSRem(t, step), b_.getInt64(0)));
    out[d] = clampIndex(j, 0, inShape[d] - 1);
  }
  KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, flatIndex(out, inShape)));
  return b_.CreateSelect(inside, x, padding);
}

Expected<llvm::Value*> ElementalEmitter::emitReduceWindow(const Operation& op, llvm::Value* index) {
  static constexpr int64_t kMaxWindow = 64;
  if (op.numOperands() != 2 || op.numResults() != 1) return unsupported(target_, op, "with several inputs");
  const Value* input = op.operand(0);
  std::span<const int64_t> inShape = input->type().shape(), outShape = op.result()->type().shape();
  size_t rank = inShape.size();
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> window, dimsAttr(target_, op, "window_dimensions", rank));
  std::vector<int64_t> strides = intListAttrOr(op, "window_strides", rank, 1),
                       windowDilations = intListAttrOr(op, "window_dilations", rank, 1),
                       baseDilations = intListAttrOr(op, "base_dilations", rank, 1);
  if (strides.size() != rank || windowDilations.size() != rank || baseDilations.size() != rank)
    return unsupported(target_, op, "with these window attributes");
  std::vector<int64_t> low(rank, 0);
  if (Attribute padding = op.attr("padding"); padding.is(AttrKind::DenseElements)) {
    std::optional<std::vector<int64_t>> pairs = denseIntElements(padding);  // [rank, 2]: low, high
    if (!pairs || pairs->size() != 2 * rank) return unsupported(target_, op, "with this padding");
    for (size_t d = 0; d < rank; ++d) low[d] = (*pairs)[2 * d];
  }
  int64_t positions = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (window[d] < 0 || strides[d] < 1 || windowDilations[d] < 1 || baseDilations[d] < 1)
      return unsupported(target_, op, "with these window attributes");
    positions *= window[d];
  }
  if (positions > kMaxWindow) return unsupported(target_, op, "with a window of " + std::to_string(positions) + " positions");
  KILN_ASSIGN_OR_RETURN(llvm::Value * init, emit(op.operand(1), b_.getInt64(0)));
  std::vector<llvm::Value*> out = coordinates(index, outShape);
  llvm::Value* acc = init;
  std::vector<int64_t> position(rank, 0);
  for (int64_t p = 0; p < positions; ++p) {
    llvm::Value* inside = b_.getTrue();
    std::vector<llvm::Value*> source(rank);
    for (size_t d = 0; d < rank; ++d) {
      // q: the coordinate in the padded, base-dilated input, less the low padding.
      llvm::Value* q = b_.CreateAdd(b_.CreateMul(out[d], b_.getInt64(strides[d])),
                                    b_.getInt64(position[d] * windowDilations[d] - low[d]));
      llvm::Value* j = baseDilations[d] == 1 ? q : b_.CreateSDiv(q, b_.getInt64(baseDilations[d]));
      bool mayLeave = low[d] != 0 || baseDilations[d] != 1 ||
                      (outShape[d] - 1) * strides[d] + position[d] * windowDilations[d] >= inShape[d];
      if (mayLeave) {
        inside = b_.CreateAnd(inside, b_.CreateICmpSGE(q, b_.getInt64(0)));
        inside = b_.CreateAnd(inside, b_.CreateICmpSLT(j, b_.getInt64(inShape[d])));
        if (baseDilations[d] != 1)
          inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateSRem(q, b_.getInt64(baseDilations[d])), b_.getInt64(0)));
        j = clampIndex(j, 0, inShape[d] - 1);
      }
      source[d] = j;
    }
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(input, flatIndex(source, inShape)));
    std::array<llvm::Value*, 2> args = {acc, b_.CreateSelect(inside, x, init)};
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> folded, emitScalarBody(op, args));
    acc = folded[0];
    for (int64_t d = int64_t(rank) - 1; d >= 0 && ++position[d] == window[d]; --d) position[d] = 0;
  }
  return acc;
}

Expected<std::vector<llvm::Value*>> ElementalEmitter::clampedStarts(const Operation& op, unsigned first, std::span<const int64_t> sizes) {
  std::span<const int64_t> shape = op.operand(0)->type().shape();
  if (op.numOperands() != first + shape.size()) return unsupported(target_, op, "with this number of start indices");
  std::vector<llvm::Value*> starts;
  for (size_t d = 0; d < shape.size(); ++d) {
    const Value* start = op.operand(first + d);
    Type t = start->type().elementType();
    if (!t.isInteger() || start->type().rank() != 0) return unsupported(target_, op, "with start index of type " + start->type().str());
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(start, b_.getInt64(0)));
    x = t.isUnsignedInteger() ? b_.CreateZExtOrTrunc(x, b_.getInt64Ty()) : b_.CreateSExtOrTrunc(x, b_.getInt64Ty());
    if (sizes[d] > shape[d]) return unsupported(target_, op, "with a slice larger than its operand");
    starts.push_back(clampIndex(x, 0, shape[d] - sizes[d]));
  }
  return starts;
}

Expected<llvm::Value*> ElementalEmitter::emitGather(const Operation& op, llvm::Value* index) {
  if (op.numOperands() != 2) return unsupported(target_, op, "with dynamic slice sizes");
  const Value* operand = op.operand(0);
  const Value* indices = op.operand(1);
  std::span<const int64_t> inShape = operand->type().shape(), indicesShape = indices->type().shape(),
                           outShape = op.result()->type().shape();
  Type indexType = indices->type().elementType();
  std::vector<int64_t> sliceSizes = intListAttr(op, "slice_sizes");
  std::optional<WindowedDims> m = readWindowedDims(op, inShape, indicesShape, outShape);
  if (!m || !indexType.isInteger() || sliceSizes.size() != inShape.size())
    return unsupported(target_, op, "with these dimension numbers");
  for (size_t d = 0; d < inShape.size(); ++d)
    if (sliceSizes[d] < 1 || sliceSizes[d] > inShape[d]) return unsupported(target_, op, "with an empty slice or one larger than its operand");
  for (size_t k = 0; k < m->windowDims.size(); ++k)
    if (outShape[m->offsetDims[k]] > sliceSizes[m->windowDims[k]]) return unsupported(target_, op, "with a window larger than its slice");
  std::vector<llvm::Value*> out = coordinates(index, outShape);
  std::vector<llvm::Value*> batch;
  for (int64_t d : m->batchDims) batch.push_back(out[d]);
  std::vector<llvm::Value*> in(inShape.size(), b_.getInt64(0));
  for (size_t k = 0; k < m->startIndexMap.size(); ++k) {
    std::vector<llvm::Value*> at = batch;
    if (m->indexVectorDim < int64_t(indicesShape.size())) at.insert(at.begin() + m->indexVectorDim, b_.getInt64(k));
    KILN_ASSIGN_OR_RETURN(llvm::Value * start, emit(indices, flatIndex(at, indicesShape)));
    start = indexType.isUnsignedInteger() ? b_.CreateZExtOrTrunc(start, b_.getInt64Ty())
                                          : b_.CreateSExtOrTrunc(start, b_.getInt64Ty());
    int64_t d = m->startIndexMap[k];
    in[d] = clampIndex(start, 0, inShape[d] - sliceSizes[d]);
  }
  for (size_t k = 0; k < m->operandBatchingDims.size(); ++k) {
    int64_t d = m->indicesBatchingDims[k];
    in[m->operandBatchingDims[k]] = batch[d < m->indexVectorDim ? d : d - 1];
  }
  for (size_t k = 0; k < m->windowDims.size(); ++k)
    in[m->windowDims[k]] = b_.CreateAdd(in[m->windowDims[k]], out[m->offsetDims[k]]);
  return emit(operand, flatIndex(in, inShape));
}

Expected<llvm::Value*> ElementalEmitter::emitScatter(const Operation& op, llvm::Value* index) {
  if (op.numOperands() != 3) return unsupported(target_, op, "with several inputs");
  const Value* input = op.operand(0);
  const Value* indices = op.operand(1);
  const Value* updates = op.operand(2);
  std::span<const int64_t> outShape = input->type().shape(), indicesShape = indices->type().shape(),
                           updateShape = updates->type().shape();
  Type indexType = indices->type().elementType();
  // Indices of at most 32 bits: start + offset cannot wrap in 64.
  if (!indexType.isInteger() || indexType.bitWidth() > 32 || !sameShape(op.result()->type().shape(), outShape))
    return unsupported(target_, op, "with these operand types");
  std::optional<WindowedDims> m = readWindowedDims(op, outShape, indicesShape, updateShape);
  if (!m) return unsupported(target_, op, "with these dimension numbers");
  std::vector<llvm::Value*> out = coordinates(index, outShape);
  KILN_ASSIGN_OR_RETURN(llvm::Value * original, emit(input, index));
  if (updates->type().numElements() == 0) return original;
  // The candidate update's position in the indices (less the vector dim):
  // a batching dim's is the result's coordinate in its operand dim, the
  // others have one element.
  std::vector<llvm::Value*> scatterAt;
  for (int64_t d = 0; d < int64_t(indicesShape.size()); ++d) {
    if (d == m->indexVectorDim) continue;
    auto k = std::ranges::find(m->indicesBatchingDims, d) - m->indicesBatchingDims.begin();
    if (k < int64_t(m->indicesBatchingDims.size())) scatterAt.push_back(out[m->operandBatchingDims[k]]);
    else if (indicesShape[d] == 1) scatterAt.push_back(b_.getInt64(0));
    else return unsupported(target_, op, "with several updates per result element");
  }
  // Where the update's window starts, per result dim.
  std::vector<llvm::Value*> base(outShape.size(), b_.getInt64(0));
  for (size_t k = 0; k < m->startIndexMap.size(); ++k) {
    std::vector<llvm::Value*> at = scatterAt;
    if (m->indexVectorDim < int64_t(indicesShape.size())) at.insert(at.begin() + m->indexVectorDim, b_.getInt64(k));
    KILN_ASSIGN_OR_RETURN(llvm::Value * start, emit(indices, flatIndex(at, indicesShape)));
    base[m->startIndexMap[k]] = indexType.isUnsignedInteger() ? b_.CreateZExt(start, b_.getInt64Ty())
                                                              : b_.CreateSExt(start, b_.getInt64Ty());
  }
  for (int64_t d : m->operandBatchingDims) base[d] = out[d];
  // Covered: the result coordinate is the window's start in an inserted
  // dim, inside the window in a window dim.
  llvm::Value* covered = b_.getTrue();
  std::vector<llvm::Value*> update(updateShape.size());
  for (size_t j = 0; j < m->batchDims.size(); ++j) update[m->batchDims[j]] = scatterAt[j];
  for (size_t d = 0; d < outShape.size(); ++d) {
    auto k = std::ranges::find(m->windowDims, int64_t(d)) - m->windowDims.begin();
    if (k == int64_t(m->windowDims.size())) {
      covered = b_.CreateAnd(covered, b_.CreateICmpEQ(out[d], base[d]));
      continue;
    }
    int64_t size = updateShape[m->offsetDims[k]];
    llvm::Value* offset = b_.CreateSub(out[d], base[d]);
    covered = b_.CreateAnd(covered, b_.CreateICmpSGE(offset, b_.getInt64(0)));
    covered = b_.CreateAnd(covered, b_.CreateICmpSLT(offset, b_.getInt64(size)));
    update[m->offsetDims[k]] = clampIndex(offset, 0, size - 1);  // read in bounds even when not covered
  }
  KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(updates, flatIndex(update, updateShape)));
  std::array<llvm::Value*, 2> args = {original, x};
  KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined, emitScalarBody(op, args));
  return b_.CreateSelect(covered, combined[0], original);
}

Expected<llvm::Value*> ElementalEmitter::emitDynamicUpdateSlice(const Operation& op, std::vector<llvm::Value*> out, llvm::Value* index) {
  const Value* update = op.operand(1);
  std::span<const int64_t> updateShape = update->type().shape();
  if (updateShape.size() != out.size()) return unsupported(target_, op, "with an update of another rank");
  KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> start, clampedStarts(op, 2, updateShape));
  KILN_ASSIGN_OR_RETURN(llvm::Value * original, emit(op.operand(0), index));
  if (update->type().numElements() == 0) return original;
  llvm::Value* inside = b_.getTrue();
  for (size_t d = 0; d < out.size(); ++d) {
    llvm::Value* j = b_.CreateSub(out[d], start[d]);
    inside = b_.CreateAnd(inside, b_.CreateAnd(b_.CreateICmpSGE(j, b_.getInt64(0)),
                                               b_.CreateICmpSLT(j, b_.getInt64(updateShape[d]))));
    out[d] = clampIndex(j, 0, updateShape[d] - 1);
  }
  KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(update, flatIndex(out, updateShape)));
  return b_.CreateSelect(inside, x, original);
}

Expected<llvm::Value*> ElementalEmitter::emitReduce(const Operation& op, unsigned k, llvm::Value* index) {
  size_t n = op.numOperands() / 2;
  if (n == 0 || op.numOperands() != 2 * n || op.numResults() != n || op.numRegions() != 1)
    return unsupported(target_, op, "without N inputs, N init values and N results");
  std::optional<std::vector<int64_t>> dims = op.attr("dimensions").asIntList();
  if (!dims) return unsupported(target_, op, "without dimensions");
  std::span<const int64_t> inShape = op.operand(0)->type().shape();
  std::vector<bool> reduced(inShape.size(), false);
  for (int64_t d : *dims) {
    if (d < 0 || d >= int64_t(inShape.size())) return unsupported(target_, op, "with dimension " + std::to_string(d));
    reduced[d] = true;
  }
  std::vector<int64_t> keptShape;
  for (size_t d = 0; d < inShape.size(); ++d)
    if (!reduced[d]) keptShape.push_back(inShape[d]);
  std::vector<llvm::Value*> inits;
  for (size_t j = 0; j < n; ++j) {
    // Never read out of bounds, whatever the program says.
    if (!sameShape(op.operand(j)->type().shape(), inShape) || op.operand(n + j)->type().rank() != 0 ||
        !sameShape(op.result(j)->type().shape(), keptShape))
      return unsupported(target_, op, "with inputs, init values or results of inconsistent shapes");
    KILN_ASSIGN_OR_RETURN(llvm::Value * init, emit(op.operand(n + j), b_.getInt64(0)));
    inits.push_back(init);
  }

  // The output keeps the non-reduced dims in order: its coordinates give
  // the input offset of the row; the loop counter walks the reduced dims.
  std::span<const int64_t> outShape = op.result(0)->type().shape();
  std::vector<int64_t> inStrides = rowMajorStrides(inShape), outStrides = rowMajorStrides(outShape);
  std::vector<int64_t> reducedShape, reducedInStrides;
  llvm::Value* rowOffset = b_.getInt64(0);
  for (size_t d = 0, o = 0; d < inShape.size(); ++d) {
    if (reduced[d]) {
      reducedShape.push_back(inShape[d]);
      reducedInStrides.push_back(inStrides[d]);
      continue;
    }
    rowOffset = b_.CreateAdd(rowOffset, b_.CreateMul(coordinate(index, outStrides[o], outShape[o]),
                                                     b_.getInt64(inStrides[d])));
    ++o;
  }
  Reduced positions{reducedShape, rowMajorStrides(reducedShape), reducedInStrides, 1, rowOffset};
  for (int64_t extent : reducedShape) positions.count *= extent;
  bool trailing = std::all_of(reduced.end() - reducedShape.size(), reduced.end(), [](bool r) { return r; });
  if (trailing && positions.count > 0) {
    positions.row = index;
    positions.rowOffset = b_.CreateMul(index, b_.getInt64(positions.count));
  }
  int64_t count = positions.count;
  std::vector<llvm::Value*> results = inits;
  const Value* input = op.operand(0);
  bool computedInput = !params_.count(input) && input->definingOp() &&
                       input->definingOp()->name() != "stablehlo.constant";
  bool floatInput = input->type().elementType().isFloat();
  int minMax = target_.foldMinMaxBySelect() ? isFloatMinMax(op) : -1;
  if (n == 1 && count >= kShortRowReduceMin && floatInput && minMax >= 0) {
    KILN_ASSIGN_OR_RETURN(results[0], emitMinMaxFold(op, inits[0], positions, /*isMax=*/minMax == 1));
  } else if (n == 1 && computedInput && floatInput &&
             (count >= kStagedReduceMin || (count >= kShortRowReduceMin && rowsToKeep_.count(input)))) {
    KILN_ASSIGN_OR_RETURN(results[0], emitStagedReduce(op, inits[0], positions));
  } else if (count > 0) {
    CarryingLoop loop{"reduce", "reduced", "r", b_.getInt64(0), b_.getInt64(count)};
    for (llvm::Value* init : inits) loop.carried.push_back({init, "acc"});
    KILN_ASSIGN_OR_RETURN(results,
                          emitCarryingLoop(b_, loop, [&](llvm::Value* r, const std::vector<llvm::Value*>& accs)
                                                                  -> Expected<std::vector<llvm::Value*>> {
      std::vector<llvm::Value*> args = accs;
      llvm::Value* offset = reducedOffset(positions, r);
      for (size_t j = 0; j < n; ++j) {
        KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(op.operand(j), offset));
        args.push_back(x);
      }
      KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> next, emitScalarBody(op, args));
      if (n == 1) letSumReassociate(next[0], accs[0]);
      return next;
    }));
  }
  for (size_t j = 0; j < n; ++j) cache_[{op.result(j), index}] = results[j];
  return results[k];
}

void ElementalEmitter::letSumReassociate(llvm::Value* folded, llvm::Value* acc) {
  auto* add = llvm::dyn_cast<llvm::BinaryOperator>(folded);
  if (add && add->getOpcode() == llvm::Instruction::FAdd && (add->getOperand(0) == acc || add->getOperand(1) == acc))
    add->setHasAllowReassoc(true);
}

llvm::Value* ElementalEmitter::reducedOffset(const Reduced& p, llvm::Value* r) {
  if (p.row) {
    llvm::Value* offset = b_.CreateAdd(p.rowOffset, r);
    knowSplit(offset, p.row, r, p.count);
    return offset;
  }
  llvm::Value* offset = p.rowOffset;
  for (size_t j = 0; j < p.shape.size(); ++j)
    offset = b_.CreateAdd(offset, b_.CreateMul(digit(r, p.strides[j], p.shape[j], p.count), b_.getInt64(p.inStrides[j])));
  return offset;
}

int ElementalEmitter::isFloatMinMax(const Operation& op) {
  const Block& body = op.region(0).front();
  if (body.numArguments() != 2 || !body.terminator() || body.terminator()->numOperands() != 1) return -1;
  const Operation* m = body.terminator()->operand(0)->definingOp();
  if (!m || m->numOperands() != 2 ||
      !std::is_permutation(m->operands().begin(), m->operands().end(), body.arguments().begin()))
    return -1;
  return m->name() == "stablehlo.maximum" ? 1 : m->name() == "stablehlo.minimum" ? 0 : -1;
}

Expected<llvm::Value*> ElementalEmitter::emitMinMaxFold(const Operation& op, llvm::Value* init, const Reduced& positions, bool isMax) {
  llvm::LLVMContext& ctx = b_.getContext();
  llvm::Type* type = init->getType();
  unsigned bits = type->getPrimitiveSizeInBits();
  llvm::Type* intType = b_.getIntNTy(bits);
  llvm::APInt signBit = llvm::APInt::getSignMask(bits);
  auto magnitude = [&](llvm::Value* x) { return b_.CreateAnd(b_.CreateBitCast(x, intType), b_.getInt(~signBit)); };
  llvm::Function* fn = b_.GetInsertBlock()->getParent();

  CarryingLoop loop{"minmax", "minmax.done", "r", b_.getInt64(0), b_.getInt64(positions.count)};
  loop.carried = {{init, "acc"}, {magnitude(init), "magnitude"}};
  // Vectorized where the input needs no loops of its own (LLVM would warn).
  auto vectorize = [&](llvm::BasicBlock*, llvm::BranchInst* latch) { target_.vectorizeFold(latch); };
  KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> folds,
                        emitCarryingLoop(b_, loop, [&](llvm::Value* r, const std::vector<llvm::Value*>& carried)
                                                                -> Expected<std::vector<llvm::Value*>> {
    llvm::Value *acc = carried[0], *largest = carried[1];
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(op.operand(0), reducedOffset(positions, r)));
    llvm::Value* folded;
    {
      llvm::IRBuilderBase::FastMathFlagGuard guard(b_);
      llvm::FastMathFlags noNaNsOrSignedZeros;
      noNaNsOrSignedZeros.setNoNaNs();
      noNaNsOrSignedZeros.setNoSignedZeros();
      b_.setFastMathFlags(noNaNsOrSignedZeros);
      folded = b_.CreateSelect(isMax ? b_.CreateFCmpOGT(x, acc) : b_.CreateFCmpOLT(x, acc), x, acc);
    }
    return std::vector<llvm::Value*>{folded, b_.CreateBinaryIntrinsic(llvm::Intrinsic::umax, largest, magnitude(x))};
  }, vectorize));
  llvm::Value *folded = folds[0], *largestNext = folds[1];

  // With a NaN, the select's result is poison (its flags say no NaNs), so
  // nothing looks at it before the NaN test. (A freeze would do, but
  // LLVM moves it into the loop, where it hides the reduction.)
  llvm::BasicBlock* done = b_.GetInsertBlock();
  llvm::Value* infinityBits = b_.CreateBitCast(llvm::ConstantFP::getInfinity(type), intType);
  auto* checkZero = llvm::BasicBlock::Create(ctx, "minmax.nonan", fn);
  auto* rescan = llvm::BasicBlock::Create(ctx, "minmax.zero", fn);
  auto* finish = llvm::BasicBlock::Create(ctx, "minmax.result", fn);
  b_.CreateCondBr(b_.CreateICmpUGT(largestNext, infinityBits), finish, checkZero);

  // A zero result: +0 wins a max if there is one, -0 a min.
  b_.SetInsertPoint(checkZero);
  llvm::Value* winningZero = b_.getInt(isMax ? llvm::APInt::getZero(bits) : signBit);
  b_.CreateCondBr(b_.CreateFCmpOEQ(folded, llvm::ConstantFP::get(type, 0.0)), rescan, finish);
  b_.SetInsertPoint(rescan);
  auto isWinningZero = [&](llvm::Value* x) { return b_.CreateICmpEQ(b_.CreateBitCast(x, intType), winningZero); };
  CarryingLoop scan{"minmax.rescan", "minmax.rescanned", "q", b_.getInt64(0), b_.getInt64(positions.count)};
  scan.carried = {{isWinningZero(init), "found"}};
  KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> found, emitCarryingLoop(b_, scan, [&](llvm::Value* q, const std::vector<llvm::Value*>& carried)
                                                                                  -> Expected<std::vector<llvm::Value*>> {
    KILN_ASSIGN_OR_RETURN(llvm::Value * y, emit(op.operand(0), reducedOffset(positions, q)));
    return std::vector<llvm::Value*>{b_.CreateOr(carried[0], isWinningZero(y))};
  }));
  llvm::BasicBlock* rescanned = b_.GetInsertBlock();
  llvm::Value* zero = b_.CreateBitCast(
      b_.CreateSelect(found[0], winningZero, b_.getInt(isMax ? signBit : llvm::APInt::getZero(bits))), type);
  b_.CreateBr(finish);

  b_.SetInsertPoint(finish);
  llvm::PHINode* result = b_.CreatePHI(type, 3, "minmax");
  result->addIncoming(llvm::ConstantFP::getQNaN(type), done);
  result->addIncoming(folded, checkZero);
  result->addIncoming(zero, rescanned);
  return result;
}

bool ElementalEmitter::isFloatSum(const Operation& op) {
  const Block& body = op.region(0).front();
  if (!op.operand(0)->type().elementType().isFloat() || body.numArguments() != 2 || !body.terminator() ||
      body.terminator()->numOperands() != 1)
    return false;
  const Operation* add = body.terminator()->operand(0)->definingOp();
  return add && add->name() == "stablehlo.add" && add->numOperands() == 2 &&
         std::is_permutation(add->operands().begin(), add->operands().end(), body.arguments().begin());
}

Expected<llvm::Value*> ElementalEmitter::emitStagedReduce(const Operation& op, llvm::Value* init, const Reduced& positions) {
  int64_t count = positions.count;
  llvm::LLVMContext& ctx = b_.getContext();
  llvm::Type* type = registerType(ctx, op.operand(0)->type().elementType());
  bool keep = rowsToKeep_.count(op.operand(0)) && count <= kKeptRowMax;
  bool foldWhileComputing = isFloatSum(op);
  int64_t chunk = std::min(count, kStageChunk);
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  llvm::Value*& kept = keptRows_[op.operand(0)];
  if (keep && !kept) kept = entry.CreateAlloca(type, entry.getInt64(count), "row");
  if (!keep) keptRows_.erase(op.operand(0));
  llvm::Value* scratch = keep ? kept
                         : foldWhileComputing ? nullptr
                                              : entry.CreateAlloca(type, entry.getInt64(chunk), "stage");

  // Folds x into accumulator `a`.
  auto fold = [&](llvm::Value* a, llvm::Value* x) -> Expected<llvm::Value*> {
    std::array<llvm::Value*, 2> args = {a, x};
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> folded, emitScalarBody(op, args));
    letSumReassociate(folded[0], a);
    return folded[0];
  };
  using Values = std::vector<llvm::Value*>;
  // Every loop below runs at least once (emitCarryingLoop), so its blocks
  // dominate what follows and the emitter's cache stays valid.
  CarryingLoop chunks{"stage.chunk", "stage.done", "base", b_.getInt64(0), b_.getInt64(count), chunk};
  chunks.carried = {{init, "acc"}};
  KILN_ASSIGN_OR_RETURN(Values result, emitCarryingLoop(b_, chunks, [&](llvm::Value* base, const Values& acc)
                                                                             -> Expected<Values> {
    llvm::Value* length = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.getInt64(chunk),
                                                   b_.CreateSub(b_.getInt64(count), base));
    if (nextRow_.row && count == nextRow_.rowLength && target_.prefetchBytes() > 0)
      KILN_RETURN_IF_ERROR(emitPrefetchNextRow(base, length));
    llvm::Value* scratchBase = keep ? b_.CreateGEP(type, scratch, base) : scratch;
    CarryingLoop fill{"stage.fill", "stage.filled", "t", b_.getInt64(0), length};
    if (foldWhileComputing) fill.carried = {{acc[0], "a"}};
    KILN_ASSIGN_OR_RETURN(Values filled, emitCarryingLoop(b_, fill, [&](llvm::Value* t, const Values& a)
                                                                               -> Expected<Values> {
      llvm::Value* r = b_.CreateAdd(base, t, "", /*HasNUW=*/true, /*HasNSW=*/true);
      KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(op.operand(0), reducedOffset(positions, r)));
      if (scratch) b_.CreateStore(x, b_.CreateGEP(type, scratchBase, t));
      if (!foldWhileComputing) return Values{};
      KILN_ASSIGN_OR_RETURN(llvm::Value * folded, fold(a[0], x));
      return Values{folded};
    }));
    if (foldWhileComputing) return filled;
    CarryingLoop folds{"stage.fold", "stage.folded", "u", b_.getInt64(0), length};
    folds.carried = {{acc[0], "a"}};
    return emitCarryingLoop(b_, folds, [&](llvm::Value* u, const Values& a) -> Expected<Values> {
      KILN_ASSIGN_OR_RETURN(llvm::Value * folded, fold(a[0], b_.CreateLoad(type, b_.CreateGEP(type, scratchBase, u))));
      return Values{folded};
    });
  }));
  return result[0];
}

Expected<std::vector<llvm::Value*>> ElementalEmitter::emitScalarBody(const Operation& op, std::span<llvm::Value* const> args,
                                                                     unsigned region) {
  if (region >= op.numRegions() || op.region(region).blocks().empty()) return unsupported(target_, op, "without a body");
  const Block& body = op.region(region).front();
  if (body.numArguments() != args.size() || !body.terminator())
    return unsupported(target_, op, "with a body of " + std::to_string(body.numArguments()) + " arguments");
  std::map<const Value*, llvm::Value*> values;
  for (unsigned i = 0; i < body.numArguments(); ++i) values[body.argument(i)] = args[i];
  auto valueOf = [&](const Value* v) -> llvm::Value* {
    auto it = values.find(v);
    return it == values.end() ? nullptr : it->second;
  };
  for (const Operation& bodyOp : body) {
    if (&bodyOp == body.terminator()) break;
    const std::string& name = bodyOp.name();
    if (bodyOp.numResults() != 1 || bodyOp.result()->type().rank() != 0 ||
        !registerType(b_.getContext(), bodyOp.result()->type().elementType()))
      return unsupported(target_, bodyOp, "in a reduce body");
    Type element = bodyOp.result()->type().elementType();
    if (name == "stablehlo.constant") {
      KILN_ASSIGN_OR_RETURN(values[bodyOp.result()], emitConstant(bodyOp, element, b_.getInt64(0)));
      continue;
    }
    std::vector<llvm::Value*> xs;
    for (const Value* operand : bodyOp.operands()) {
      llvm::Value* x = valueOf(operand);
      if (!x || operand->type().rank() != 0) return unsupported(target_, bodyOp, "reading a value from outside the reduce body");
      xs.push_back(x);
    }
    if (name == "stablehlo.reshape" || name == "stablehlo.broadcast_in_dim") {
      values[bodyOp.result()] = xs[0];
      continue;
    }
    if (!isElementwiseOp(name)) return unsupported(target_, bodyOp, "in a reduce body");
    KILN_ASSIGN_OR_RETURN(values[bodyOp.result()], emitElementwiseOp(bodyOp, xs));
  }
  std::vector<llvm::Value*> results;
  for (const Value* v : body.terminator()->operands()) {
    llvm::Value* x = valueOf(v);
    if (!x) return unsupported(target_, op, "returning a value from outside its body");
    results.push_back(x);
  }
  // A comparator (sort's, select_and_scatter's select): one i1, whatever the op's results.
  if (op.name() == "stablehlo.sort" || (op.name() == "stablehlo.select_and_scatter" && region == 0)) {
    if (results.size() != 1 || !results[0]->getType()->isIntegerTy(1))
      return unsupported(target_, op, "with a comparator that does not return one i1");
    return results;
  }
  if (results.size() != op.numResults()) return unsupported(target_, op, "with a body returning the wrong number of values");
  for (size_t j = 0; j < results.size(); ++j)
    if (results[j]->getType() != registerType(b_.getContext(), op.result(j)->type().elementType()))
      return unsupported(target_, op, "with a body of another element type");
  return results;
}

llvm::Value* ElementalEmitter::coordinate(llvm::Value* index, int64_t stride, int64_t extent) {
  if (auto it = splits_.find(index); it != splits_.end()) {
    auto [outer, inner, n] = it->second;
    if (extent > 0 && n % (stride * extent) == 0) return digit(inner, stride, extent, n);
    if (stride % n == 0) return digit(outer, stride / n, extent, 0);
  }
  return digit(index, stride, extent, 0);
}

llvm::Value* ElementalEmitter::digit(llvm::Value* x, int64_t stride, int64_t extent, int64_t bound) {
  if (stride != 1) x = b_.CreateUDiv(x, b_.getInt64(stride));
  bool inRange = extent <= 0 || (bound > 0 && bound <= stride * extent);
  return inRange ? x : b_.CreateURem(x, b_.getInt64(extent));
}

void ElementalEmitter::prefetchNextRows(llvm::Value* row, int64_t rowLength, std::vector<const Value*> params) {
  nextRow_ = {row, rowLength, std::move(params)};
}

void ElementalEmitter::knowSplit(llvm::Value* index, llvm::Value* outer, llvm::Value* inner, int64_t n) {
  if (n > 0) splits_[index] = {outer, inner, n};
}

Status ElementalEmitter::emitPrefetchNextRow(llvm::Value* first, llvm::Value* length) {
  int64_t line = target_.prefetchBytes();
  llvm::Value* nextRowStart = b_.CreateMul(b_.CreateAdd(nextRow_.row, b_.getInt64(1)), b_.getInt64(nextRow_.rowLength));
  for (const Value* param : nextRow_.params) {
    int64_t bytes = param->type().elementType().storageBytes();
    llvm::Value* start = b_.CreateGEP(b_.getInt8Ty(), params_.at(param),
                                      b_.CreateMul(b_.CreateAdd(nextRowStart, first), b_.getInt64(bytes)));
    llvm::Value* lines = b_.CreateUDiv(b_.CreateAdd(b_.CreateMul(length, b_.getInt64(bytes)), b_.getInt64(line - 1)),
                                       b_.getInt64(line));
    KILN_RETURN_IF_ERROR(emitLoop(b_, b_.getInt64(0), lines, "prefetch", [&](llvm::Value* i) {
      target_.emitPrefetch(b_, b_.CreateGEP(b_.getInt8Ty(), start, b_.CreateMul(i, b_.getInt64(line))));
      return Status::ok();
    }));
  }
  return Status::ok();
}

}  // namespace kiln::codegen
