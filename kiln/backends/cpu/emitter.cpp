// The elemental emitter of the cpu back end (LLVM IR computing one element
// of a value, composed over a kernel's body) and the kernel loop nests
// around it. Each op's per-element expression lives in math_elementwise.cpp;
// this file maps indices (data movement, broadcasts, reductions) and builds
// the loops. docs/cpu_backend.md lists what is covered.
#include "kiln/backends/cpu/emitter.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <utility>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Host.h>

#include "kiln/backends/cpu/math_elementwise.h"
#include "kiln/backends/cpu/math_float_formats.h"
#include "kiln/codegen/loops.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/ir/op_registry.h"

namespace kiln::cpu {
namespace {

using codegen::emitLoop;

// Data-movement ops: each element of the result is an element of an operand
// (or a padding value, or its own index), found by mapping the index.
bool isIndexMapping(std::string_view name) {
  const OpDef* def = lookupOpDef(name);
  return def && (def->has(kIndexMap) || def->has(kDynamicIndexMap));
}

bool sameShape(std::span<const int64_t> a, std::span<const int64_t> b) { return std::ranges::equal(a, b); }

// An integer-list attribute of `op` with one entry per dim of `rank`, or an
// error naming the op.
Expected<std::vector<int64_t>> dimsAttr(const Operation& op, const char* name, size_t rank) {
  std::optional<std::vector<int64_t>> list = op.attr(name).asIntList();
  if (!list || list->size() != rank) return unsupported(op, std::string("without a valid ") + name);
  return *list;
}

// Computes values one element at a time: emit(v, i) is the LLVM value of
// element i (row-major) of `v`, built from the elements of the kernel's
// parameters it depends on. Each op's per-element expression is written once
// and composes over whatever the kernel body holds. Every emitted element
// computation is free of side effects and reads in bounds for any index in
// range, so a data-movement op may compute several candidates and select
// (concatenate, pad, dynamic_update_slice): no branches, loops stay
// vectorizable, and the emitter's cache stays valid.
class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilder<>& b, llvm::Module& m, std::map<const Value*, llvm::Value*> params)
      : b_(b), m_(m), params_(std::move(params)) {}

  Expected<llvm::Value*> emit(const Value* v, llvm::Value* index) {
    // A reduce computed once for the current row (see emitRowKernel); the
    // row analysis guarantees `index` is that row.
    if (auto it = rowScalars_.find(v); it != rowScalars_.end()) return it->second;
    auto key = std::make_pair(v, index);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    KILN_ASSIGN_OR_RETURN(llvm::Value * result, emitUncached(v, index));
    cache_[key] = result;
    return result;
  }

  // One step of single-input reduce `op`'s fold: its body applied to `acc`
  // and the input element at `index` (the column form, emitKernel).
  Expected<llvm::Value*> emitFoldStep(const Operation& op, llvm::Value* acc, llvm::Value* index) {
    KILN_RETURN_IF_ERROR(checkTypes(op));
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(op.operand(0), index));
    std::array<llvm::Value*, 2> args = {acc, x};
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results, emitScalarBody(op, args));
    return results[0];
  }

  // Computes `v` (a reduce's result, or a value with one element per row)
  // for element `row` and makes every later use of it read that scalar.
  Status emitRowScalar(const Value* v, llvm::Value* row) {
    KILN_ASSIGN_OR_RETURN(llvm::Value * scalar, emit(v, row));
    rowScalars_[v] = scalar;
    return Status::ok();
  }

  // Rows of at most this many elements of a staged reduce's input may be
  // kept whole (keepStagedRows): 32 KiB of f32, about an L1 data cache.
  static constexpr int64_t kKeptRowMax = 8192;

  // Makes a staged reduce of `v` (emitStagedReduce) keep all of the current
  // row of `v` in a scratch row, instead of one chunk at a time, so that the
  // element loop reads `v` back (seedFromKeptRows) rather than computing it
  // again: a softmax's exp(x - max) runs once per element, not twice. Only
  // for `v` whose rows are the kernel's rows (element `column` of the
  // scratch is element row * rowLength + column of `v`).
  void keepStagedRows(const Value* v) { rowsToKeep_.insert(v); }

  // Makes seedFromKeptRows seed `v` too with kept value `kept`'s element
  // (the two hold the same register value: `kept` widens `v` exactly).
  void seedAlsoFromKeptRows(const Value* v, const Value* kept) { keptAliases_[v] = kept; }

  // Makes emit(v, index) return `element`.
  void seed(const Value* v, llvm::Value* index, llvm::Value* element) { cache_[{v, index}] = element; }

  // Emitted elements by (value, index); the coordinates of flat indices by index.
  using Cache = std::map<std::pair<const Value*, llvm::Value*>, llvm::Value*>;
  using KnownCoords = std::map<llvm::Value*, std::pair<std::vector<int64_t>, std::vector<llvm::Value*>>>;

  // A guarded loop's cache: while a CacheScope lives, the emitter's cache
  // -- elements, and the coordinates of indices -- holds only what was
  // emitted since it began; when it ends, the cache is what it was before.
  // Each loop behind a trip check of its own (sibling loops) is emitted in
  // one, so nothing computed inside it -- a scalar read at index 0, say, or
  // the coordinates of a row-invariant index -- is used after it, where it
  // would not dominate its uses. (Inside, the loop computes every element it
  // reads itself, as it always has: reusing values from before it would
  // change the generated code.)
  class CacheScope {
   public:
    explicit CacheScope(ElementalEmitter& emitter)
        : emitter_(emitter), cache_(std::exchange(emitter.cache_, {})),
          knownCoords_(std::exchange(emitter.knownCoords_, {})) {}
    ~CacheScope() {
      emitter_.cache_ = std::move(cache_);
      emitter_.knownCoords_ = std::move(knownCoords_);
    }
    CacheScope(const CacheScope&) = delete;
    CacheScope& operator=(const CacheScope&) = delete;

   private:
    ElementalEmitter& emitter_;
    Cache cache_;
    KnownCoords knownCoords_;
  };

  // In the element loop at `index` == row * rowLength + column: makes
  // emit(v, index) of every kept value load scratch element `column`.
  // Loads nobody uses are removed by LLVM.
  void seedFromKeptRows(llvm::Value* index, llvm::Value* column) {
    for (const auto& [v, scratch] : keptRows_) {
      llvm::Type* type = registerType(b_.getContext(), v->type().elementType());
      llvm::Value* element = b_.CreateLoad(type, b_.CreateGEP(type, scratch, column));
      seed(v, index, element);
      for (const auto& [alias, kept] : keptAliases_)
        if (kept == v) seed(alias, index, element);
    }
  }

 private:
  // Every operand and result of `op` must be a tensor of an element type
  // with a register type (the users of a value check it, so kernel
  // parameters are checked where they are read).
  Status checkTypes(const Operation& op) {
    if (op.numResults() != 1 && op.name() != "stablehlo.reduce") return unsupported(op, "with several results");
    for (const Value* operand : op.operands())
      if (!operand->type().isTensor() || !registerType(b_.getContext(), operand->type().elementType()))
        return unsupported(op, "on " + operand->type().str());
    for (const Value* result : op.results())
      if (!result->type().isTensor() || !registerType(b_.getContext(), result->type().elementType()))
        return unsupported(op, "on " + result->type().str());
    // Complex values pass through the index mappings and the elementwise ops
    // emitComplex takes; reductions and iota are real-only here.
    if (op.name() == "stablehlo.reduce" || op.name() == "stablehlo.iota" || op.name() == "stablehlo.reduce_window") {
      std::vector<Value*> values = op.results();
      values.insert(values.begin(), op.operands().begin(), op.operands().end());
      for (const Value* v : values)
        if (v->type().elementType().isComplex()) return unsupported(op, "on " + v->type().str());
    }
    return Status::ok();
  }

  Expected<llvm::Value*> emitUncached(const Value* v, llvm::Value* index) {
    if (auto it = params_.find(v); it != params_.end()) {
      if (!v->type().isTensor() || !registerType(b_.getContext(), v->type().elementType()))
        return error("the cpu back end cannot compile a kernel reading " + v->type().str() + " yet");
      return emitLoadElement(b_, it->second, v->type().elementType(), index);
    }
    const Operation* op = v->definingOp();
    if (!op) return error("cpu back end: a kernel reads a value it was not given");
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
    if (name == "stablehlo.reduce_window") return emitReduceWindow(*op, index);
    if (!isElementwiseOp(name)) return unsupported(*op);

    std::vector<llvm::Value*> xs;
    for (const Value* operand : op->operands()) {
      // select's predicate and clamp's bounds may be scalars for a whole tensor.
      bool scalarForAll = operand->type().rank() == 0 && v->type().rank() != 0;
      if (!scalarForAll && !sameShape(operand->type().shape(), v->type().shape()))
        return unsupported(*op, "with operands of another shape");  // never read out of bounds
      KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, scalarForAll ? b_.getInt64(0) : index));
      xs.push_back(x);
    }
    return emitElementwise(b_, m_, *op, xs);
  }

  Expected<llvm::Value*> emitConstant(const Operation& op, Type element, llvm::Value* index) {
    Attribute value = op.attr("value");
    if (!value.is(AttrKind::DenseElements)) return unsupported(op, "without a dense value");
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
      return unsupported(op, "with a value of another element count");
    auto* arrayType = llvm::ArrayType::get(slotType, elements.size());
    auto* global = new llvm::GlobalVariable(m_, arrayType, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                            llvm::ConstantArray::get(arrayType, elements));
    llvm::Value* x = b_.CreateLoad(slotType, b_.CreateGEP(slotType, global, index));
    return element.isBool() ? b_.CreateICmpNE(x, b_.getInt8(0)) : x;
  }

  // --- Index mapping ----------------------------------------------------------

  // The coordinates of flat index `index` in `shape` (row-major).
  std::vector<llvm::Value*> coordinates(llvm::Value* index, std::span<const int64_t> shape) {
    if (auto it = knownCoords_.find(index); it != knownCoords_.end()) {
      const auto& [knownShape, knownCoords] = it->second;
      if (sameShape(knownShape, shape)) return knownCoords;
      // Through a reshape: the trailing dims both shapes share keep their
      // coordinates (a row's column stays the loop counter, no division by
      // the row length); the leading ones come from their own flat index.
      auto count = [](std::span<const int64_t> dims) {
        return std::accumulate(dims.begin(), dims.end(), int64_t(1), std::multiplies<>());
      };
      size_t common = 0;
      while (count(shape) == count(knownShape) && common < shape.size() && common < knownShape.size() &&
             shape[shape.size() - 1 - common] == knownShape[knownShape.size() - 1 - common])
        ++common;
      if (common > 0) {
        std::span<const int64_t> knownLead(knownShape.data(), knownShape.size() - common);
        llvm::Value* lead = nullptr;
        std::vector<int64_t> leadStrides = interp::rowMajorStrides(knownLead);
        for (size_t d = 0; d < knownLead.size(); ++d) lead = addScaled(lead, knownCoords[d], leadStrides[d]);
        std::span<const int64_t> newLead = shape.first(shape.size() - common);
        std::vector<int64_t> strides = interp::rowMajorStrides(newLead);
        std::vector<llvm::Value*> coords;
        for (size_t d = 0; d < newLead.size(); ++d)
          coords.push_back(lead ? coordinate(lead, strides[d], d == 0 ? 0 : newLead[d]) : b_.getInt64(0));
        coords.insert(coords.end(), knownCoords.end() - common, knownCoords.end());
        return coords;
      }
    }
    std::vector<int64_t> strides = interp::rowMajorStrides(shape);
    std::vector<llvm::Value*> coords;
    for (size_t d = 0; d < shape.size(); ++d)  // index < numElements: dim 0 needs no wrap
      coords.push_back(coordinate(index, strides[d], d == 0 ? 0 : shape[d]));
    return coords;
  }

  // Remembers `coords` as the coordinates of the index it returns, so that
  // the next index mapping in a chain (pad of a slice, slice of a
  // transpose) starts from them instead of dividing the flat index again:
  // with the divisions, a pad read through nine strided slices (a
  // convolution's windows) took 47 of its 50 ms. The coordinates are the
  // index's operands, so they are valid wherever it is.
  llvm::Value* flatIndex(std::span<llvm::Value* const> coords, std::span<const int64_t> shape) {
    std::vector<int64_t> strides = interp::rowMajorStrides(shape);
    llvm::Value* index = nullptr;
    for (size_t d = 0; d < shape.size(); ++d) index = addScaled(index, coords[d], strides[d]);
    if (!index) return b_.getInt64(0);
    knownCoords_[index] = {std::vector<int64_t>(shape.begin(), shape.end()),
                           std::vector<llvm::Value*>(coords.begin(), coords.end())};
    return index;
  }

  // sum + x * scale, without the no-op instructions (so the index a loop
  // counter becomes stays recognizable to coordinate()); a null sum is 0.
  llvm::Value* addScaled(llvm::Value* sum, llvm::Value* x, int64_t scale) {
    llvm::Value* term = scale == 1 ? x : b_.CreateMul(x, b_.getInt64(scale));
    return sum ? b_.CreateAdd(sum, term) : term;
  }

  llvm::Value* clampIndex(llvm::Value* x, int64_t lo, int64_t hi) {
    x = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, b_.getInt64(lo));
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, b_.getInt64(hi));
  }

  // Element `index` of the result of data-movement op `op`.
  Expected<llvm::Value*> emitIndexMapping(const Operation& op, llvm::Value* index) {
    const std::string& name = op.name();
    // Operand counts (the start indices of the dynamic ops come on top).
    unsigned minOperands = 1;
    if (name == "stablehlo.iota") minOperands = 0;
    if (name == "stablehlo.pad" || name == "stablehlo.dynamic_update_slice") minOperands = 2;
    bool variadic = name == "stablehlo.concatenate" || name.starts_with("stablehlo.dynamic");
    if (op.numOperands() < minOperands || (!variadic && op.numOperands() != minOperands))
      return unsupported(op, "with " + std::to_string(op.numOperands()) + " operands");
    std::span<const int64_t> outShape = op.result()->type().shape();
    // Row-major reshape keeps every element's flat index.
    if (name == "stablehlo.reshape") {
      if (op.operand(0)->type().numElements() != op.result()->type().numElements())
        return unsupported(op, "changing the element count");
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
      if (!dim || dim.intValue() < 0 || dim.intValue() >= int64_t(rank)) return unsupported(op, "without a valid iota_dimension");
      return emitIndexAs(b_, out[dim.intValue()], op.result()->type().elementType());
    }
    const Value* operand = op.operand(0);
    std::span<const int64_t> inShape = operand->type().shape();
    if (inShape.size() != rank) return unsupported(op, "with an operand of another rank");
    if (name == "stablehlo.reverse" && !sameShape(inShape, outShape)) return unsupported(op, "with an operand of another shape");
    if (name == "stablehlo.transpose") {  // result dim d is operand dim permutation[d]
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> permutation, dimsAttr(op, "permutation", rank));
      std::vector<llvm::Value*> in(rank);
      for (size_t d = 0; d < rank; ++d) {
        if (permutation[d] < 0 || permutation[d] >= int64_t(rank) || in[permutation[d]] ||
            inShape[permutation[d]] != outShape[d])
          return unsupported(op, "with an invalid permutation");
        in[permutation[d]] = out[d];
      }
      return emit(operand, flatIndex(in, inShape));
    }
    if (name == "stablehlo.slice") {
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> start, dimsAttr(op, "start_indices", rank));
      std::vector<int64_t> strides(rank, 1);
      if (op.attr("strides")) {
        KILN_ASSIGN_OR_RETURN(strides, dimsAttr(op, "strides", rank));
      }
      for (size_t d = 0; d < rank; ++d) {
        bool inBounds = outShape[d] == 0 || (start[d] >= 0 && strides[d] > 0 &&
                                             start[d] + (outShape[d] - 1) * strides[d] < inShape[d]);
        if (!inBounds) return unsupported(op, "reading out of bounds");
        out[d] = b_.CreateAdd(b_.getInt64(start[d]), b_.CreateMul(out[d], b_.getInt64(strides[d])));
      }
      return emit(operand, flatIndex(out, inShape));
    }
    if (name == "stablehlo.reverse") {
      std::optional<std::vector<int64_t>> dims = op.attr("dimensions").asIntList();
      if (!dims) return unsupported(op, "without dimensions");
      for (int64_t d : *dims) {
        if (d < 0 || d >= int64_t(rank)) return unsupported(op, "with dimension " + std::to_string(d));
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

  // broadcast_in_dim: output dim broadcast_dimensions[j] feeds operand dim j
  // (size-1 operand dims read index 0).
  Expected<llvm::Value*> broadcastOperandIndex(const Operation& op, llvm::Value* index) {
    std::span<const int64_t> outShape = op.result()->type().shape();
    std::span<const int64_t> inShape = op.operand(0)->type().shape();
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dims, dimsAttr(op, "broadcast_dimensions", inShape.size()));
    std::vector<int64_t> inStrides = interp::rowMajorStrides(inShape);
    for (size_t j = 0; j < dims.size(); ++j)
      if (inShape[j] != 1 && (dims[j] < 0 || dims[j] >= int64_t(outShape.size()) || outShape[dims[j]] != inShape[j]))
        return unsupported(op, "with an invalid broadcast dimension");
    // (Unused coordinates cost nothing: LLVM drops them.)
    std::vector<llvm::Value*> coords = coordinates(index, outShape);
    llvm::Value* operandIndex = nullptr;
    for (size_t j = 0; j < dims.size(); ++j)
      if (inShape[j] != 1) operandIndex = addScaled(operandIndex, coords[dims[j]], inStrides[j]);
    return operandIndex ? operandIndex : b_.getInt64(0);
  }

  // Each operand is read at its clamped position and the one that holds the
  // element is selected.
  Expected<llvm::Value*> emitConcatenate(const Operation& op, std::vector<llvm::Value*> out) {
    Attribute dimAttr = op.attr("dimension");
    int64_t rank = op.result()->type().rank();
    if (!dimAttr || dimAttr.intValue() < 0 || dimAttr.intValue() >= rank) return unsupported(op, "without a valid dimension");
    int64_t dim = dimAttr.intValue();
    llvm::Value* position = out[dim];
    llvm::Value* result = nullptr;
    int64_t offset = 0;
    for (const Value* operand : op.operands()) {
      std::span<const int64_t> shape = operand->type().shape();
      for (int64_t d = 0; d < rank; ++d)
        if (int64_t(shape.size()) != rank || (d != dim && shape[d] != op.result()->type().shape()[d]))
          return unsupported(op, "with operands of another shape");
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

  // Operand element j lands at low + j * (interior + 1) along each dim
  // (negative low/high padding cuts elements off); every other element is the
  // padding value.
  Expected<llvm::Value*> emitPad(const Operation& op, std::vector<llvm::Value*> out) {
    size_t rank = out.size();
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> low, dimsAttr(op, "edge_padding_low", rank));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> interior, dimsAttr(op, "interior_padding", rank));
    KILN_ASSIGN_OR_RETURN(llvm::Value * padding, emit(op.operand(1), b_.getInt64(0)));
    const Value* operand = op.operand(0);
    std::span<const int64_t> inShape = operand->type().shape();
    if (operand->type().numElements() == 0) return padding;
    llvm::Value* inside = b_.getTrue();
    for (size_t d = 0; d < rank; ++d) {
      if (interior[d] < 0) return unsupported(op, "with negative interior padding");
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

  // Element `index` of reduce_window `op`'s result: its init value folded
  // with the window's elements in row-major window order, body(acc, x), a
  // padding position or base-dilation hole folding the init value -- the
  // interpreter's order, so the same bits. Windows are unrolled, so at most
  // kMaxWindow positions (pools); longer ones (cumulative sums) are routines.
  Expected<llvm::Value*> emitReduceWindow(const Operation& op, llvm::Value* index) {
    static constexpr int64_t kMaxWindow = 64;
    if (op.numOperands() != 2 || op.numResults() != 1) return unsupported(op, "with several inputs");
    const Value* input = op.operand(0);
    std::span<const int64_t> inShape = input->type().shape(), outShape = op.result()->type().shape();
    size_t rank = inShape.size();
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> window, dimsAttr(op, "window_dimensions", rank));
    std::vector<int64_t> strides = interp::intListAttrOr(op, "window_strides", rank, 1),
                         windowDilations = interp::intListAttrOr(op, "window_dilations", rank, 1),
                         baseDilations = interp::intListAttrOr(op, "base_dilations", rank, 1);
    if (strides.size() != rank || windowDilations.size() != rank || baseDilations.size() != rank)
      return unsupported(op, "with these window attributes");
    std::vector<int64_t> low(rank, 0);
    if (interp::Tensor padding = interp::paddingAttr(op)) {
      if (padding.numElements() != int64_t(2 * rank) || !padding.elementType().isInteger())
        return unsupported(op, "with this padding");
      for (size_t d = 0; d < rank; ++d) low[d] = padding.getInt(2 * d);
    }
    int64_t positions = 1;
    for (size_t d = 0; d < rank; ++d) {
      if (window[d] < 0 || strides[d] < 1 || windowDilations[d] < 1 || baseDilations[d] < 1)
        return unsupported(op, "with these window attributes");
      positions *= window[d];
    }
    if (positions > kMaxWindow) return unsupported(op, "with a window of " + std::to_string(positions) + " positions");
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

  // The start indices operands[first...] (scalars of any integer type) read
  // and clamped to [0, dim - sizes[d]], as the spec says.
  Expected<std::vector<llvm::Value*>> clampedStarts(const Operation& op, unsigned first, std::span<const int64_t> sizes) {
    std::span<const int64_t> shape = op.operand(0)->type().shape();
    if (op.numOperands() != first + shape.size()) return unsupported(op, "with this number of start indices");
    std::vector<llvm::Value*> starts;
    for (size_t d = 0; d < shape.size(); ++d) {
      const Value* start = op.operand(first + d);
      Type t = start->type().elementType();
      if (!t.isInteger() || start->type().rank() != 0) return unsupported(op, "with start index of type " + start->type().str());
      KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(start, b_.getInt64(0)));
      x = t.isUnsignedInteger() ? b_.CreateZExtOrTrunc(x, b_.getInt64Ty()) : b_.CreateSExtOrTrunc(x, b_.getInt64Ty());
      if (sizes[d] > shape[d]) return unsupported(op, "with a slice larger than its operand");
      starts.push_back(clampIndex(x, 0, shape[d] - sizes[d]));
    }
    return starts;
  }

  Expected<llvm::Value*> emitDynamicUpdateSlice(const Operation& op, std::vector<llvm::Value*> out, llvm::Value* index) {
    const Value* update = op.operand(1);
    std::span<const int64_t> updateShape = update->type().shape();
    if (updateShape.size() != out.size()) return unsupported(op, "with an update of another rank");
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

  // --- Reductions -------------------------------------------------------------

  // reduce (any number of inputs, a body of elementwise ops on scalars): a
  // loop over the input elements that fold into output element `index`, in
  // row-major order of the reduced positions, each step applying the body to
  // (accumulators..., elements...) in the element types -- as the interpreter
  // folds them, except that float sums may be reassociated (letSumReassociate).
  // The loop runs at least
  // once (an empty reduction is its init values), so every block it adds
  // dominates the code after it and the emitter's cache stays valid across
  // it. All results are computed together and cached; result `k` is returned.
  Expected<llvm::Value*> emitReduce(const Operation& op, unsigned k, llvm::Value* index) {
    size_t n = op.numOperands() / 2;
    if (n == 0 || op.numOperands() != 2 * n || op.numResults() != n || op.numRegions() != 1)
      return unsupported(op, "without N inputs, N init values and N results");
    std::optional<std::vector<int64_t>> dims = op.attr("dimensions").asIntList();
    if (!dims) return unsupported(op, "without dimensions");
    std::span<const int64_t> inShape = op.operand(0)->type().shape();
    std::vector<bool> reduced(inShape.size(), false);
    for (int64_t d : *dims) {
      if (d < 0 || d >= int64_t(inShape.size())) return unsupported(op, "with dimension " + std::to_string(d));
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
        return unsupported(op, "with inputs, init values or results of inconsistent shapes");
      KILN_ASSIGN_OR_RETURN(llvm::Value * init, emit(op.operand(n + j), b_.getInt64(0)));
      inits.push_back(init);
    }

    // The output keeps the non-reduced dims in order: its coordinates give
    // the input offset of the row; the loop counter walks the reduced dims.
    std::span<const int64_t> outShape = op.result(0)->type().shape();
    std::vector<int64_t> inStrides = interp::rowMajorStrides(inShape), outStrides = interp::rowMajorStrides(outShape);
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
    Reduced positions{reducedShape, interp::rowMajorStrides(reducedShape), reducedInStrides, 1, rowOffset};
    for (int64_t extent : reducedShape) positions.count *= extent;
    int64_t count = positions.count;
    std::vector<llvm::Value*> results = inits;
    const Value* input = op.operand(0);
    bool computedInput = !params_.count(input) && input->definingOp() &&
                         input->definingOp()->name() != "stablehlo.constant";
    bool floatInput = input->type().elementType().isFloat();
    int minMax = isFloatMinMax(op);
    if (n == 1 && count >= kStagedReduceMin && floatInput && minMax >= 0) {
      KILN_ASSIGN_OR_RETURN(results[0], emitMinMaxFold(op, inits[0], positions, /*isMax=*/minMax == 1));
    } else if (n == 1 && count >= kStagedReduceMin && computedInput && floatInput) {
      KILN_ASSIGN_OR_RETURN(results[0], emitStagedReduce(op, inits[0], positions));
    } else if (count > 0) {
      codegen::CarryingLoop loop{"reduce", "reduced", "r", b_.getInt64(0), b_.getInt64(count)};
      for (llvm::Value* init : inits) loop.carried.push_back({init, "acc"});
      KILN_ASSIGN_OR_RETURN(results,
                            codegen::emitCarryingLoop(b_, loop, [&](llvm::Value* r, const std::vector<llvm::Value*>& accs)
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

  // A fold that is one float add onto the accumulator -- a sum -- may be
  // reassociated: LLVM's vectorizer then keeps interleaved partial sums (on
  // AVX-512, 16 lanes times 4) and adds them up in a tree at the end. Faster
  // than one running sum (which waits for each add) and more accurate on long
  // rows, but not the interpreter's order: floats sums agree within rounding,
  // not bitwise. Other folds (max, min, products, integers) keep the order.
  static void letSumReassociate(llvm::Value* folded, llvm::Value* acc) {
    auto* add = llvm::dyn_cast<llvm::BinaryOperator>(folded);
    if (add && add->getOpcode() == llvm::Instruction::FAdd && (add->getOperand(0) == acc || add->getOperand(1) == acc))
      add->setHasAllowReassoc(true);
  }

  // Reductions of at least this many elements whose input is computed are
  // staged (emitStagedReduce); shorter ones fold as they compute.
  static constexpr int64_t kStagedReduceMin = 32;
  // Elements staged at a time: the scratch row stays in L1.
  static constexpr int64_t kStageChunk = 512;

  // The positions one output element of a reduce folds: `count` of them, in
  // row-major order over the reduced dims `shape` (`strides` in that
  // order), at input offset rowOffset + sum of coordinate * inStrides.
  struct Reduced {
    std::vector<int64_t> shape, strides, inStrides;
    int64_t count;
    llvm::Value* rowOffset;
  };

  // The input offset of reduced position `r`.
  llvm::Value* reducedOffset(const Reduced& p, llvm::Value* r) {
    llvm::Value* offset = p.rowOffset;
    for (size_t j = 0; j < p.shape.size(); ++j)
      offset = b_.CreateAdd(offset, b_.CreateMul(digit(r, p.strides[j], p.shape[j], p.count), b_.getInt64(p.inStrides[j])));
    return offset;
  }

  // 1 if single-input reduce `op`'s body is maximum of its two arguments, 0
  // if minimum, -1 otherwise.
  static int isFloatMinMax(const Operation& op) {
    const Block& body = op.region(0).front();
    if (body.numArguments() != 2 || !body.terminator() || body.terminator()->numOperands() != 1) return -1;
    const Operation* m = body.terminator()->operand(0)->definingOp();
    if (!m || m->numOperands() != 2 ||
        !std::is_permutation(m->operands().begin(), m->operands().end(), body.arguments().begin()))
      return -1;
    return m->name() == "stablehlo.maximum" ? 1 : m->name() == "stablehlo.minimum" ? 0 : -1;
  }

  // A float max (or min) fold, which maximum's rules -- NaN wins, -0 < +0 --
  // would make six vector instructions per step on x86. Instead: x86's
  // plain max (a compare and select without NaNs or signed zeros: one
  // instruction), the largest magnitude bit pattern seen (two: a NaN's is
  // above infinity's), and, when the result is zero, a second pass that looks
  // for the zero of the winning sign. A NaN result is the default quiet NaN.
  // The loop is told to vectorize: LLVM's cost model would not.
  Expected<llvm::Value*> emitMinMaxFold(const Operation& op, llvm::Value* init, const Reduced& positions, bool isMax) {
    llvm::LLVMContext& ctx = b_.getContext();
    llvm::Type* type = init->getType();
    unsigned bits = type->getPrimitiveSizeInBits();
    llvm::Type* intType = b_.getIntNTy(bits);
    llvm::APInt signBit = llvm::APInt::getSignMask(bits);
    auto magnitude = [&](llvm::Value* x) { return b_.CreateAnd(b_.CreateBitCast(x, intType), b_.getInt(~signBit)); };
    llvm::Function* fn = b_.GetInsertBlock()->getParent();

    codegen::CarryingLoop loop{"minmax", "minmax.done", "r", b_.getInt64(0), b_.getInt64(positions.count)};
    loop.carried = {{init, "acc"}, {magnitude(init), "magnitude"}};
    // Vectorized where the input needs no loops of its own (LLVM would warn).
    auto vectorize = [](llvm::BasicBlock*, llvm::BranchInst* latch) { forceVectorization(latch); };
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> folds,
                          codegen::emitCarryingLoop(b_, loop, [&](llvm::Value* r, const std::vector<llvm::Value*>& carried)
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
    llvm::PHINode* q = b_.CreatePHI(b_.getInt64Ty(), 2, "q");
    q->addIncoming(b_.getInt64(0), checkZero);
    llvm::PHINode* found = b_.CreatePHI(b_.getInt1Ty(), 2, "found");
    found->addIncoming(b_.CreateICmpEQ(b_.CreateBitCast(init, intType), winningZero), checkZero);
    KILN_ASSIGN_OR_RETURN(llvm::Value * y, emit(op.operand(0), reducedOffset(positions, q)));
    llvm::Value* foundNext = b_.CreateOr(found, b_.CreateICmpEQ(b_.CreateBitCast(y, intType), winningZero));
    llvm::Value* qNext = b_.CreateAdd(q, b_.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
    llvm::BasicBlock* rescanLatch = b_.GetInsertBlock();
    q->addIncoming(qNext, rescanLatch);
    found->addIncoming(foundNext, rescanLatch);
    auto* rescanned = llvm::BasicBlock::Create(ctx, "minmax.rescanned", fn);
    b_.CreateCondBr(b_.CreateICmpULT(qNext, b_.getInt64(positions.count)), rescan, rescanned);
    b_.SetInsertPoint(rescanned);
    llvm::Value* zero = b_.CreateBitCast(
        b_.CreateSelect(foundNext, winningZero, b_.getInt(isMax ? signBit : llvm::APInt::getZero(bits))), type);
    b_.CreateBr(finish);

    b_.SetInsertPoint(finish);
    llvm::PHINode* result = b_.CreatePHI(type, 3, "minmax");
    result->addIncoming(llvm::ConstantFP::getQNaN(type), done);
    result->addIncoming(folded, checkZero);
    result->addIncoming(zero, rescanned);
    return result;
  }

  // Marks the loop ending in `latch` to be vectorized 16 elements at a time
  // (AVX-512's f32 lanes; two vectors of 8 on AVX2), interleaved 4 times.
  static void forceVectorization(llvm::BranchInst* latch) {
    llvm::LLVMContext& ctx = latch->getContext();
    auto hint = [&](const char* name, unsigned value) {
      llvm::Metadata* parts[] = {llvm::MDString::get(ctx, name),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
      return llvm::MDNode::get(ctx, parts);
    };
    llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(ctx, {});
    llvm::Metadata* loopParts[] = {placeholder.get(), hint("llvm.loop.vectorize.width", 16),
                                   hint("llvm.loop.interleave.count", 4)};
    llvm::MDNode* loopId = llvm::MDNode::getDistinct(ctx, loopParts);
    loopId->replaceOperandWith(0, loopId);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
  }

  // Whether single-input reduce `op` sums floats: its body is one add of its
  // two arguments.
  static bool isFloatSum(const Operation& op) {
    const Block& body = op.region(0).front();
    if (!op.operand(0)->type().elementType().isFloat() || body.numArguments() != 2 || !body.terminator() ||
        body.terminator()->numOperands() != 1)
      return false;
    const Operation* add = body.terminator()->operand(0)->definingOp();
    return add && add->name() == "stablehlo.add" && add->numOperands() == 2 &&
           std::is_permutation(add->operands().begin(), add->operands().end(), body.arguments().begin());
  }

  // A single-input reduce whose input is computed (softmax's exp(x - max),
  // layernorm's squares), chunk by chunk. A sum folds in the loop that
  // computes the inputs (vectorized as partial sums, see letSumReassociate);
  // other folds are staged: one loop computes a chunk of inputs into a
  // scratch row -- no loop-carried dependence, so it vectorizes (the exp
  // polynomial runs on vectors) -- and one folds them into the accumulator.
  Expected<llvm::Value*> emitStagedReduce(const Operation& op, llvm::Value* init, const Reduced& positions) {
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
    codegen::CarryingLoop chunks{"stage.chunk", "stage.done", "base", b_.getInt64(0), b_.getInt64(count), chunk};
    chunks.carried = {{init, "acc"}};
    KILN_ASSIGN_OR_RETURN(Values result, codegen::emitCarryingLoop(b_, chunks, [&](llvm::Value* base, const Values& acc)
                                                                               -> Expected<Values> {
      llvm::Value* length = b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b_.getInt64(chunk),
                                                     b_.CreateSub(b_.getInt64(count), base));
      if (nextRow_.row && count == nextRow_.rowLength) KILN_RETURN_IF_ERROR(emitPrefetchNextRow(base, length));
      llvm::Value* scratchBase = keep ? b_.CreateGEP(type, scratch, base) : scratch;
      codegen::CarryingLoop fill{"stage.fill", "stage.filled", "t", b_.getInt64(0), length};
      if (foldWhileComputing) fill.carried = {{acc[0], "a"}};
      KILN_ASSIGN_OR_RETURN(Values filled, codegen::emitCarryingLoop(b_, fill, [&](llvm::Value* t, const Values& a)
                                                                                 -> Expected<Values> {
        llvm::Value* r = b_.CreateAdd(base, t, "", /*HasNUW=*/true, /*HasNSW=*/true);
        KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(op.operand(0), reducedOffset(positions, r)));
        if (scratch) b_.CreateStore(x, b_.CreateGEP(type, scratchBase, t));
        if (!foldWhileComputing) return Values{};
        KILN_ASSIGN_OR_RETURN(llvm::Value * folded, fold(a[0], x));
        return Values{folded};
      }));
      if (foldWhileComputing) return filled;
      codegen::CarryingLoop folds{"stage.fold", "stage.folded", "u", b_.getInt64(0), length};
      folds.carried = {{acc[0], "a"}};
      return codegen::emitCarryingLoop(b_, folds, [&](llvm::Value* u, const Values& a) -> Expected<Values> {
        KILN_ASSIGN_OR_RETURN(llvm::Value * folded, fold(a[0], b_.CreateLoad(type, b_.CreateGEP(type, scratchBase, u))));
        return Values{folded};
      });
    }));
    return result[0];
  }

  // The results of `op`'s body region applied to the scalar register values
  // `args`: its ops must be elementwise ops (or constants, reshapes and
  // broadcasts) on rank-0 values; each is emitted by emitElementwise.
  Expected<std::vector<llvm::Value*>> emitScalarBody(const Operation& op, std::span<llvm::Value* const> args) {
    const Block& body = op.region(0).front();
    if (body.numArguments() != args.size() || !body.terminator())
      return unsupported(op, "with a body of " + std::to_string(body.numArguments()) + " arguments");
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
        return unsupported(bodyOp, "in a reduce body");
      Type element = bodyOp.result()->type().elementType();
      if (name == "stablehlo.constant") {
        KILN_ASSIGN_OR_RETURN(values[bodyOp.result()], emitConstant(bodyOp, element, b_.getInt64(0)));
        continue;
      }
      std::vector<llvm::Value*> xs;
      for (const Value* operand : bodyOp.operands()) {
        llvm::Value* x = valueOf(operand);
        if (!x || operand->type().rank() != 0) return unsupported(bodyOp, "reading a value from outside the reduce body");
        xs.push_back(x);
      }
      if (name == "stablehlo.reshape" || name == "stablehlo.broadcast_in_dim") {
        values[bodyOp.result()] = xs[0];
        continue;
      }
      if (!isElementwiseOp(name)) return unsupported(bodyOp, "in a reduce body");
      KILN_ASSIGN_OR_RETURN(values[bodyOp.result()], emitElementwise(b_, m_, bodyOp, xs));
    }
    std::vector<llvm::Value*> results;
    for (const Value* v : body.terminator()->operands()) {
      llvm::Value* x = valueOf(v);
      if (!x) return unsupported(op, "returning a value from outside its body");
      results.push_back(x);
    }
    if (results.size() != op.numResults()) return unsupported(op, "with a body returning the wrong number of values");
    for (size_t j = 0; j < results.size(); ++j)
      if (results[j]->getType() != registerType(b_.getContext(), op.result(j)->type().elementType()))
        return unsupported(op, "with a body of another element type");
    return results;
  }

  // Coordinate of flat `index` along a dim of `extent` elements (0: no
  // bound, the outermost dim) and `stride`. An index the kernel's loops
  // built as outer * n + inner (see knowSplit) takes the coordinate from the
  // part that holds it, so a row loop's element reads its broadcast operands
  // at the column counter itself: no division in the inner loop, and
  // unit-stride loads the vectorizer sees.
  llvm::Value* coordinate(llvm::Value* index, int64_t stride, int64_t extent) {
    if (auto it = splits_.find(index); it != splits_.end()) {
      auto [outer, inner, n] = it->second;
      if (extent > 0 && n % (stride * extent) == 0) return digit(inner, stride, extent, n);
      if (stride % n == 0) return digit(outer, stride / n, extent, 0);
    }
    return digit(index, stride, extent, 0);
  }

  // (x / stride) % extent for 0 <= x < bound (0: unknown), without the
  // operations that cannot change x.
  llvm::Value* digit(llvm::Value* x, int64_t stride, int64_t extent, int64_t bound) {
    if (stride != 1) x = b_.CreateUDiv(x, b_.getInt64(stride));
    bool inRange = extent <= 0 || (bound > 0 && bound <= stride * extent);
    return inRange ? x : b_.CreateURem(x, b_.getInt64(extent));
  }

 public:
  // In a row kernel, makes each chunk of a staged reduce over the whole row
  // prefetch the same chunk of the next row of `params` (each a kernel
  // parameter with rows of `rowLength` elements): that row's memory traffic
  // then overlaps this row's computation (exp, squares) instead of waiting
  // for the next row's first pass.
  void prefetchNextRows(llvm::Value* row, int64_t rowLength, std::vector<const Value*> params) {
    nextRow_ = {row, rowLength, std::move(params)};
  }

  // Records that `index` == outer * n + inner with 0 <= inner < n.
  void knowSplit(llvm::Value* index, llvm::Value* outer, llvm::Value* inner, int64_t n) {
    if (n > 0) splits_[index] = {outer, inner, n};
  }

 private:
  struct Split {
    llvm::Value* outer;
    llvm::Value* inner;
    int64_t n;
  };
  std::map<llvm::Value*, Split> splits_;
  KnownCoords knownCoords_;

  struct NextRow {
    llvm::Value* row = nullptr;
    int64_t rowLength = 0;
    std::vector<const Value*> params;
  };
  NextRow nextRow_;

  // Prefetches elements [first, first + length) of the next row of every
  // nextRow_ parameter, one cache line at a time. After the last row the
  // addresses lie past the buffer: a prefetch there is a hint, not a read.
  Status emitPrefetchNextRow(llvm::Value* first, llvm::Value* length) {
    static constexpr int64_t kLine = 64;
    llvm::Value* nextRowStart = b_.CreateMul(b_.CreateAdd(nextRow_.row, b_.getInt64(1)), b_.getInt64(nextRow_.rowLength));
    for (const Value* param : nextRow_.params) {
      int64_t bytes = param->type().elementType().storageBytes();
      llvm::Value* start = b_.CreateGEP(b_.getInt8Ty(), params_.at(param),
                                        b_.CreateMul(b_.CreateAdd(nextRowStart, first), b_.getInt64(bytes)));
      llvm::Value* lines = b_.CreateUDiv(b_.CreateAdd(b_.CreateMul(length, b_.getInt64(bytes)), b_.getInt64(kLine - 1)),
                                         b_.getInt64(kLine));
      KILN_RETURN_IF_ERROR(emitLoop(b_, b_.getInt64(0), lines, "prefetch", [&](llvm::Value* line) {
        llvm::Value* address = b_.CreateGEP(b_.getInt8Ty(), start, b_.CreateMul(line, b_.getInt64(kLine)));
        // A read of data into L2 (prefetcht1): the next row would crowd
        // this row and its scratch out of L1 (measured: faster than t0).
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()},
                           {address, b_.getInt32(0), b_.getInt32(2), b_.getInt32(1)});
        return Status::ok();
      }));
    }
    return Status::ok();
  }

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
  std::map<const Value*, llvm::Value*> params_;  // kernel parameter -> its buffer
  Cache cache_;
  std::map<const Value*, llvm::Value*> rowScalars_;  // reduce -> its value for the current row
  std::set<const Value*> rowsToKeep_;                // keepStagedRows
  std::map<const Value*, llvm::Value*> keptRows_;    // kept value -> its scratch row (an alloca)
  std::map<const Value*, const Value*> keptAliases_;  // seedAlsoFromKeptRows: value -> kept value
};

// Vectors an element loop works on side by side. LLVM's own choice for a
// long body (a chain of exp, tanh, divisions) is one: each vector's chain
// then waits on its own latencies (about 250 cycles through the 10-op bench
// chain) and the out-of-order window holds too few chains to hide them.
// Four independent chains per iteration: f32[65536] chain10 0.125 ->
// 0.087 ms, gelu 0.047 -> 0.040 ms in cache; short bodies unchanged.
constexpr unsigned kElementInterleave = 4;

// Marks the loop whose one block is `body`, ending in `latch`, as free of
// loop-carried memory dependences (llvm.loop.parallel_accesses), so LLVM
// vectorizes it without runtime alias checks, kElementInterleave vectors
// at a time.
void markParallel(llvm::BasicBlock* body, llvm::BranchInst* latch) {
  llvm::LLVMContext& ctx = body->getContext();
  llvm::MDNode* group = llvm::MDNode::getDistinct(ctx, {});
  for (llvm::Instruction& inst : *body)
    if (inst.mayReadOrWriteMemory()) inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
  llvm::Metadata* parallel[] = {llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), group};
  llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(ctx, {});
  llvm::Metadata* interleave[] = {
      llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), kElementInterleave))};
  llvm::Metadata* loopParts[] = {placeholder.get(), llvm::MDNode::get(ctx, parallel), llvm::MDNode::get(ctx, interleave)};
  llvm::MDNode* loopId = llvm::MDNode::getDistinct(ctx, loopParts);
  loopId->replaceOperandWith(0, loopId);
  latch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
}

// codegen::emitLoop for a loop whose iterations are independent: if its
// body stays one block, it is marked free of loop-carried memory
// dependences (markParallel).
Status emitParallelLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name,
                        const std::function<Status(llvm::Value*)>& body) {
  return emitLoop(b, begin, end, name, body, markParallel);
}

// Rows a column fold reads per pass over its accumulators.
constexpr int64_t kColumnFoldRows = 8;

Status emitColumnReduces(const std::vector<const Operation*>& reduces, const std::vector<const Value*>& roots,
                         ElementalEmitter& emitter, llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& outputs,
                         llvm::Value* begin, llvm::Value* end) {
  int64_t n = reduces.front()->result()->type().numElements();
  int64_t count = n == 0 ? 0 : reduces.front()->operand(0)->type().numElements() / n;
  std::vector<llvm::Value*> inits;
  for (const Operation* reduce : reduces) {
    KILN_ASSIGN_OR_RETURN(llvm::Value * init, emitter.emit(reduce->operand(1), b.getInt64(0)));
    inits.push_back(init);
  }
  KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "init", [&](llvm::Value* j) {
    for (size_t k = 0; k < reduces.size(); ++k)
      emitStoreElement(b, inits[k], outputs[k], reduces[k]->result()->type().elementType(), j);
    return Status::ok();
  }));
  // Rows [first, first + rows * blocks) folded `rows` at a time: each column's
  // accumulator is loaded and stored once per block, its rows folded in
  // ascending order as one row at a time would.
  auto foldRows = [&](int64_t first, int64_t blocks, int64_t rows) {
    if (blocks == 0) return Status::ok();
    ElementalEmitter::CacheScope scope(emitter);
    return emitLoop(b, b.getInt64(0), b.getInt64(blocks), "fold", [&](llvm::Value* block) {
      llvm::Value* r0 = b.CreateAdd(b.getInt64(first), b.CreateMul(block, b.getInt64(rows)));
      return emitLoop(b, begin, end, "column", [&](llvm::Value* j) -> Status {
        for (size_t k = 0; k < reduces.size(); ++k) {
          Type element = reduces[k]->result()->type().elementType();
          llvm::Value* acc = emitLoadElement(b, outputs[k], element, j);
          for (int64_t i = 0; i < rows; ++i) {
            llvm::Value* r = b.CreateAdd(r0, b.getInt64(i));
            llvm::Value* index = b.CreateAdd(b.CreateMul(r, b.getInt64(n)), j);
            emitter.knowSplit(index, r, j, n);
            KILN_ASSIGN_OR_RETURN(acc, emitter.emitFoldStep(*reduces[k], acc, index));
          }
          emitStoreElement(b, acc, outputs[k], element, j);
        }
        return Status::ok();
      });
    });
  };
  KILN_RETURN_IF_ERROR(foldRows(0, count / kColumnFoldRows, kColumnFoldRows));
  KILN_RETURN_IF_ERROR(foldRows(count / kColumnFoldRows * kColumnFoldRows, count % kColumnFoldRows, 1));
  // An output that is an epilogue of its reduce: applied in place, reading
  // the folded reduce from the output.
  for (size_t k = 0; k < roots.size(); ++k) {
    if (roots[k] == reduces[k]->result(0)) continue;
    ElementalEmitter::CacheScope scope(emitter);
    KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "epilogue", [&](llvm::Value* j) -> Status {
      Type element = reduces[k]->result()->type().elementType();
      emitter.seed(reduces[k]->result(0), j, emitLoadElement(b, outputs[k], element, j));
      KILN_ASSIGN_OR_RETURN(llvm::Value * value, emitter.emit(roots[k], j));
      emitStoreElement(b, value, outputs[k], roots[k]->type().elementType(), j);
      return Status::ok();
    }));
  }
  return Status::ok();
}

// The register tile of the emitted dot loops: kDotTileRows rows of the
// result by kDotTileVectors vectors of the host's width, held in registers
// while k runs (eight accumulators, half the AVX2 register file; each k
// loads two rhs vectors and four lhs scalars for eight vector multiply-adds).
// Wider tiles (8x2, 4x4) measured no faster on int32 and f64 512^3.
constexpr int64_t kDotTileVectors = 2;

int64_t hostVectorBytes() {
  static const int64_t bytes = llvm::sys::getHostCPUFeatures().lookup("avx512f") ? 64 : 32;
  return bytes;
}

// Row blocks [begin, end) of a dot's result, block t = b * blocks + q being
// rows [4q, 4q + 4) of batch b. A full block whose rhs rows are contiguous
// runs the register tile over its columns in tiles of 2 vectors; its last
// columns, and the rows of a partial block, run a loop per row: zeroed, then
// for each k lhs[b, i, k] times row k of rhs[b] added in (the column loop
// vectorized by LLVM). Every result element adds its products k ascending,
// a multiply then an add.
Status emitDotRows(const DotForm& dot, ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Value* lhs,
                   llvm::Value* rhs, llvm::Value* out, llvm::Value* begin, llvm::Value* end) {
  Type element = dot.dot->result()->type().elementType();
  bool isFloat = element.isFloat();
  llvm::Type* type = registerType(b.getContext(), element);
  auto i64 = [&](int64_t v) { return b.getInt64(v); };
  auto multiplyAdd = [&](llvm::Value* acc, llvm::Value* a, llvm::Value* x) {
    return isFloat ? b.CreateFAdd(acc, b.CreateFMul(a, x)) : b.CreateAdd(acc, b.CreateMul(a, x));
  };
  llvm::Value* zero = llvm::Constant::getNullValue(type);
  // Columns [first, n) of row i of batch `batch`, one row at a time.
  auto emitRow = [&](llvm::Value* batch, llvm::Value* i, int64_t first) -> Status {
    llvm::Value* lhsRow = b.CreateAdd(b.CreateMul(batch, i64(dot.lhsBatchStride)), b.CreateMul(i, i64(dot.lhsRowStride)));
    llvm::Value* rhsMatrix = b.CreateMul(batch, i64(dot.rhsBatchStride));
    llvm::Value* outRow = b.CreateMul(b.CreateAdd(b.CreateMul(batch, i64(dot.m)), i), i64(dot.n));
    KILN_RETURN_IF_ERROR(emitParallelLoop(b, i64(first), i64(dot.n), "dot.zero", [&](llvm::Value* j) {
      emitStoreElement(b, zero, out, element, b.CreateAdd(outRow, j));
      return Status::ok();
    }));
    return emitLoop(b, i64(0), i64(dot.k), "dot.k", [&](llvm::Value* k) {
      llvm::Value* a = emitLoadElement(b, lhs, element, b.CreateAdd(lhsRow, b.CreateMul(k, i64(dot.lhsKStride))));
      llvm::Value* rhsRow = b.CreateAdd(rhsMatrix, b.CreateMul(k, i64(dot.rhsKStride)));
      return emitParallelLoop(b, i64(first), i64(dot.n), "dot.column", [&](llvm::Value* j) {
        llvm::Value* at = b.CreateAdd(outRow, j);
        llvm::Value* x = emitLoadElement(b, rhs, element, b.CreateAdd(rhsRow, b.CreateMul(j, i64(dot.rhsColumnStride))));
        emitStoreElement(b, multiplyAdd(emitLoadElement(b, out, element, at), a, x), out, element, at);
        return Status::ok();
      });
    });
  };

  // The tile loads whole vectors: element types stored as they are held.
  int64_t bytes = element.storageBytes();
  int64_t lanes = hostVectorBytes() / bytes;
  int64_t tileColumns = lanes * kDotTileVectors;
  bool plainStorage = element.kind() == TypeKind::F64 || (element.isInteger() && element.bitWidth() == 8 * bytes);
  int64_t tiles = plainStorage && dot.rhsColumnStride == 1 && dot.k > 0 ? dot.n / tileColumns : 0;
  auto* vector = llvm::FixedVectorType::get(type, unsigned(lanes));
  llvm::Align align(bytes);
  int64_t blocks = dot.rowBlocks;
  // Row block t: its batch, first row, number of rows (kDotTileRows but in
  // a partial last block) and the output offset of its first row.
  struct Block {
    llvm::Value *batch, *i0, *rows, *first;
  };
  auto blockOf = [&](llvm::Value* t) {
    llvm::Value* batch = b.CreateUDiv(t, i64(blocks));
    llvm::Value* i0 = b.CreateMul(b.CreateURem(t, i64(blocks)), i64(kDotTileRows));
    llvm::Value* rows = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateSub(i64(std::max<int64_t>(dot.m, 1)), i0),
                                                i64(kDotTileRows));
    return Block{batch, i0, rows, b.CreateMul(b.CreateAdd(b.CreateMul(batch, i64(dot.m)), i0), i64(dot.n))};
  };
  // Steps [kBegin, kEnd) (at least one) of tile `tile` of full row block
  // `block`, added to the sums already in the output (zero before the first
  // steps): each element's products still come k ascending, one block of k
  // after another.
  auto emitTile = [&](const Block& block, llvm::Value* tile, llvm::Value* kBegin, llvm::Value* kEnd) -> Status {
    llvm::Value* column = b.CreateMul(tile, i64(tileColumns));
    llvm::Value* lhsRows = b.CreateAdd(b.CreateMul(block.batch, i64(dot.lhsBatchStride)),
                                       b.CreateMul(block.i0, i64(dot.lhsRowStride)));
    llvm::Value* rhsColumns = b.CreateAdd(b.CreateMul(block.batch, i64(dot.rhsBatchStride)), column);
    llvm::Value* outRows = b.CreateAdd(block.first, column);
    std::vector<llvm::Value*> sums;
    for (int64_t r = 0; r < kDotTileRows; ++r)
      for (int64_t v = 0; v < kDotTileVectors; ++v)
        sums.push_back(b.CreateAlignedLoad(vector, b.CreateGEP(type, out, b.CreateAdd(outRows, i64(r * dot.n + v * lanes))),
                                           align));
    codegen::CarryingLoop loop{"dot.tile.k", "dot.tile.done", "k", kBegin, kEnd};
    for (llvm::Value* sum : sums) loop.carried.push_back({sum, "acc"});
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> sumsAfter, codegen::emitCarryingLoop(
        b, loop, [&](llvm::Value* k, const std::vector<llvm::Value*>& accs) -> Expected<std::vector<llvm::Value*>> {
          llvm::Value* rhsRow = b.CreateAdd(rhsColumns, b.CreateMul(k, i64(dot.rhsKStride)));
          std::vector<llvm::Value*> xs;
          for (int64_t v = 0; v < kDotTileVectors; ++v)
            xs.push_back(b.CreateAlignedLoad(vector, b.CreateGEP(type, rhs, b.CreateAdd(rhsRow, i64(v * lanes))), align));
          llvm::Value* lhsColumn = b.CreateAdd(lhsRows, b.CreateMul(k, i64(dot.lhsKStride)));
          std::vector<llvm::Value*> next;
          for (int64_t r = 0; r < kDotTileRows; ++r) {
            llvm::Value* at = b.CreateAdd(lhsColumn, i64(r * dot.lhsRowStride));
            llvm::Value* a = b.CreateVectorSplat(unsigned(lanes), b.CreateLoad(type, b.CreateGEP(type, lhs, at)));
            for (int64_t v = 0; v < kDotTileVectors; ++v) next.push_back(multiplyAdd(accs[r * kDotTileVectors + v], a, xs[v]));
          }
          return next;
        }));
    for (int64_t r = 0; r < kDotTileRows; ++r)
      for (int64_t v = 0; v < kDotTileVectors; ++v) {
        llvm::Value* at = b.CreateAdd(outRows, i64(r * dot.n + v * lanes));
        b.CreateAlignedStore(sumsAfter[r * kDotTileVectors + v], b.CreateGEP(type, out, at), align);
      }
    return Status::ok();
  };

  // Emits `full` for a full row block, `partial` (if any) for the others.
  auto ifFull = [&](const Block& block, const std::function<Status()>& full,
                    const std::function<Status()>& partial = nullptr) -> Status {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    auto* fullBlock = llvm::BasicBlock::Create(b.getContext(), "dot.full", fn);
    auto* partialBlock = partial ? llvm::BasicBlock::Create(b.getContext(), "dot.partial", fn) : nullptr;
    auto* after = llvm::BasicBlock::Create(b.getContext(), "dot.block.done", fn);
    b.CreateCondBr(b.CreateICmpEQ(block.rows, i64(kDotTileRows)), fullBlock, partial ? partialBlock : after);
    b.SetInsertPoint(fullBlock);
    KILN_RETURN_IF_ERROR(full());
    b.CreateBr(after);
    if (partial) {
      b.SetInsertPoint(partialBlock);
      KILN_RETURN_IF_ERROR(partial());
      b.CreateBr(after);
    }
    b.SetInsertPoint(after);
    return Status::ok();
  };

  if (tiles > 0) {
    // The full blocks' tiled columns, zeroed, then summed a block of k and
    // columns at a time over all of [begin, end)'s row blocks: that rhs
    // block (kPanelBytes: stays in L2) is read from memory once, not once
    // per row block (f64 1024^3: 118 -> 57 ms).
    constexpr int64_t kPanelColumns = 256, kPanelBytes = 256 * 1024;
    int64_t panelTiles = std::max<int64_t>(1, kPanelColumns / tileColumns);
    int64_t panels = (tiles + panelTiles - 1) / panelTiles;
    int64_t kBlock = std::max<int64_t>(16, kPanelBytes / (panelTiles * tileColumns * bytes));
    int64_t kBlocks = (dot.k + kBlock - 1) / kBlock;
    KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "dot.zero.block", [&](llvm::Value* t) -> Status {
      Block block = blockOf(t);
      return ifFull(block, [&] {
        return emitLoop(b, i64(0), i64(kDotTileRows), "dot.zero.row", [&](llvm::Value* r) {
          llvm::Value* row = b.CreateAdd(block.first, b.CreateMul(r, i64(dot.n)));
          return emitParallelLoop(b, i64(0), i64(tiles * tileColumns), "dot.zero", [&](llvm::Value* j) {
            emitStoreElement(b, zero, out, element, b.CreateAdd(row, j));
            return Status::ok();
          });
        });
      });
    }));
    KILN_RETURN_IF_ERROR(emitLoop(b, i64(0), i64(panels), "dot.panel", [&](llvm::Value* panel) {
      llvm::Value* firstTile = b.CreateMul(panel, i64(panelTiles));
      llvm::Value* lastTile = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateAdd(firstTile, i64(panelTiles)), i64(tiles));
      return emitLoop(b, i64(0), i64(kBlocks), "dot.kblock", [&](llvm::Value* kb) {
        llvm::Value* kBegin = b.CreateMul(kb, i64(kBlock));
        llvm::Value* kEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateAdd(kBegin, i64(kBlock)), i64(dot.k));
        return emitLoop(b, begin, end, "dot.block", [&](llvm::Value* t) -> Status {
          Block block = blockOf(t);
          return ifFull(block, [&] {
            return emitLoop(b, firstTile, lastTile, "dot.tile", [&](llvm::Value* tile) {
              return emitTile(block, tile, kBegin, kEnd);
            });
          });
        });
      });
    }));
  }
  // Per row block: the columns the tiles leave (or every column of a
  // partial block, or of every block without tiles), then the epilogue.
  return emitLoop(b, begin, end, "dot.block", [&](llvm::Value* t) -> Status {
    Block block = blockOf(t);
    auto rowByRow = [&](int64_t first) {
      return emitLoop(b, i64(0), block.rows, "dot.row",
                      [&](llvm::Value* r) { return emitRow(block.batch, b.CreateAdd(block.i0, r), first); });
    };
    if (tiles == 0) {
      KILN_RETURN_IF_ERROR(rowByRow(0));
    } else {
      KILN_RETURN_IF_ERROR(ifFull(
          block, [&] { return tiles * tileColumns < dot.n ? rowByRow(tiles * tileColumns) : Status::ok(); },
          [&] { return rowByRow(0); }));
    }
    // An output fusion's epilogue, applied in place to the block's rows once
    // their sums are complete, reading the dot's elements from the output.
    const Value* product = dot.dot->result();
    if (dot.root == product) return Status::ok();
    ElementalEmitter::CacheScope scope(emitter);
    return emitParallelLoop(b, block.first, b.CreateAdd(block.first, b.CreateMul(block.rows, i64(dot.n))), "dot.epilogue",
                    [&](llvm::Value* e) -> Status {
                      emitter.seed(product, e, emitLoadElement(b, out, element, e));
                      KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter.emit(dot.root, e));
                      emitStoreElement(b, x, out, element, e);
                      return Status::ok();
                    });
  });
}

// Transposes the `lanes` x `lanes` block whose first input element is
// `firstSource` (its rows `sourceStride` elements apart) into the output
// from `firstOutput` (rows `outputStride` apart): one vector load per input
// row, the block transposed in registers -- log2(lanes) stages, each
// swapping the off-diagonal d x d blocks of every 2d x 2d block -- and one
// vector store per output row.
void emitTransposeTile(llvm::IRBuilder<>& b, llvm::Value* input, llvm::Value* output, llvm::Type* vector,
                       int64_t lanes, llvm::Value* firstSource, int64_t sourceStride, llvm::Value* firstOutput,
                       int64_t outputStride) {
  llvm::Type* element = llvm::cast<llvm::FixedVectorType>(vector)->getElementType();
  llvm::Align align(element->getPrimitiveSizeInBits() / 8);
  std::vector<llvm::Value*> rows(lanes);
  for (int64_t r = 0; r < lanes; ++r) {
    llvm::Value* at = b.CreateAdd(firstSource, b.getInt64(r * sourceStride));
    rows[r] = b.CreateAlignedLoad(vector, b.CreateGEP(element, input, at), align);
  }
  for (int64_t d = lanes / 2; d >= 1; d /= 2) {
    std::vector<int> low(lanes), high(lanes);
    for (int64_t c = 0; c < lanes; ++c) {
      low[c] = int((c & d) ? lanes + (c - d) : c);
      high[c] = int((c & d) ? lanes + c : c + d);
    }
    for (int64_t r = 0; r < lanes; ++r) {
      if (r & d) continue;
      llvm::Value* a = rows[r];
      llvm::Value* c = rows[r + d];
      rows[r] = b.CreateShuffleVector(a, c, low);
      rows[r + d] = b.CreateShuffleVector(a, c, high);
    }
  }
  for (int64_t r = 0; r < lanes; ++r) {
    llvm::Value* at = b.CreateAdd(firstOutput, b.getInt64(r * outputStride));
    b.CreateAlignedStore(rows[r], b.CreateGEP(element, output, at), align);
  }
}

// The tile of an element loop over a transpose that moves the last dim:
// kTileRows output rows advance together over kTileColumns columns, so each
// source line fetched (16 f32 of one source row) serves 16 output rows
// before it leaves the cache. (32 x 32 measured best of 16 x 16, 32 x 32 and
// 8 x 128 on f32[4096,4096].)
constexpr int64_t kTileRows = 32, kTileColumns = 32;

// The loop nest of one kernel, one method per KernelForm: each emits a loop
// over outer iterations [begin, end) at the builder's position, computing
// the plan's roots with the elemental emitter and storing root i to
// outputs[i]. LLVM's O3 pipeline vectorizes the loops later.
class LoopNestEmitter {
 public:
  LoopNestEmitter(const KernelPlan& plan, llvm::Function* fn, llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                  std::vector<llvm::Value*> outputs, int64_t numRows, int64_t count, bool alignedOutputs)
      : plan_(plan), fn_(fn), b_(b), emitter_(emitter), outputs_(std::move(outputs)), numRows_(numRows), count_(count),
        alignedOutputs_(alignedOutputs), begin_(fn->getArg(2)), end_(fn->getArg(3)) {}

  Status emit(const RowsForm& form) {
    llvm::IRBuilder<>& b = b_;
    int64_t rowLength = form.rowLength;
    // The computed input of a reduce, in rows as long as the kernel's and
    // read by more than reduces, is kept per row for the element loop
    // (softmax's exp(x - max)).
    for (const Value* v : form.rowValues) {
      const Operation* op = v->definingOp();
      if (!op || op->name() != "stablehlo.reduce" || op->numOperands() != 2 ||
          op->operand(0)->type().numElements() != count_)
        continue;
      // Only worth a row of scratch if something besides reduces reads it.
      const Value* input = op->operand(0);
      if (std::any_of(input->uses().begin(), input->uses().end(),
                      [](const Use& use) { return use.user->name() != "stablehlo.reduce"; }))
        emitter_.keepStagedRows(input);
      // A bf16 or f16 value summed in f32 (JAX's bf16 softmax sums
      // convert(exp(x - max)) to f32): the widening holds the same float in
      // its register, so the kept f32 row is the narrow value's as well.
      const Operation* widen = input->definingOp();
      if (widen && widen->name() == "stablehlo.convert" && input->type().elementType().kind() == TypeKind::F32 &&
          widen->operand(0)->type().elementType().isFloat() &&
          isNarrowFloat(widen->operand(0)->type().elementType().kind()) && widen->operand(0)->uses().size() > 1) {
        emitter_.keepStagedRows(input);
        emitter_.seedAlsoFromKeptRows(widen->operand(0), input);
      }
    }
    return emitLoop(b, begin_, end_, "row", [&](llvm::Value* row) -> Status {
      std::vector<const Value*> rowParams;
      for (const Value* param : plan_.params)
        if (param->type().isTensor() && param->type().numElements() == count_) rowParams.push_back(param);
      emitter_.prefetchNextRows(row, rowLength, std::move(rowParams));
      for (const Value* v : form.rowValues) KILN_RETURN_IF_ERROR(emitter_.emitRowScalar(v, row));
      for (size_t i = 0; i < plan_.roots.size(); ++i) {
        if (!isPerRow(plan_.roots[i])) continue;
        KILN_ASSIGN_OR_RETURN(llvm::Value * element, emitter_.emit(plan_.roots[i], row));
        emitStoreElement(b, element, outputs_[i], plan_.roots[i]->type().elementType(), row);
      }
      return emitLoop(b, b.getInt64(0), b.getInt64(rowLength), "element", [&](llvm::Value* column) {
        llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(rowLength)), column);
        emitter_.knowSplit(index, row, column, rowLength);
        emitter_.seedFromKeptRows(index, column);
        return emitElement(index);
      });
    });
  }

  Status emit(const DotForm& dot) {
    llvm::IRBuilder<>& b = b_;
    auto param = [&](const Value* v) {
      size_t index = size_t(std::find(plan_.params.begin(), plan_.params.end(), v) - plan_.params.begin());
      return b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn_->getArg(0), index));
    };
    return emitDotRows(dot, emitter_, b, param(dot.dot->operand(0)), param(dot.dot->operand(1)), outputs_[0], begin_,
                       end_);
  }

  Status emit(const ColumnFoldForm& fold) {
    return emitColumnReduces(fold.reduces, plan_.roots, emitter_, b_, outputs_, begin_, end_);
  }

  Status emit(const PadRowsForm& pad) {
    llvm::IRBuilder<>& b = b_;
    size_t rank = pad.outShape.size();
    int64_t width = pad.outShape.back(), n = pad.inShape.back(), low = pad.low.back();
    Type element = plan_.roots[0]->type().elementType();
    return emitLoop(b, begin_, end_, "pad.rows", [&](llvm::Value* o) -> Status {
      // Output row o's coordinates (row-major over the dims before the
      // last) minus the low padding: the input row, if every one is inside.
      llvm::Value* inside = b.getTrue();
      llvm::Value* inRow = b.getInt64(0);
      llvm::Value* rest = o;
      int64_t inStride = 1;
      for (size_t d = rank - 1; d-- > 0;) {
        llvm::Value* t = b.CreateSub(b.CreateSRem(rest, b.getInt64(pad.outShape[d])), b.getInt64(pad.low[d]));
        rest = b.CreateSDiv(rest, b.getInt64(pad.outShape[d]));
        inside = b.CreateAnd(inside, b.CreateICmpSGE(t, b.getInt64(0)));
        inside = b.CreateAnd(inside, b.CreateICmpSLT(t, b.getInt64(pad.inShape[d])));
        inRow = b.CreateAdd(inRow, b.CreateMul(t, b.getInt64(inStride)));
        inStride *= pad.inShape[d];
      }
      ElementalEmitter::CacheScope rowScope(emitter_);
      KILN_ASSIGN_OR_RETURN(llvm::Value * padding, emitter_.emit(pad.pad->operand(1), b.getInt64(0)));
      llvm::Value* outStart = b.CreateMul(o, b.getInt64(width));
      auto fill = [&](int64_t from, int64_t to) {
        return emitParallelLoop(b, b.getInt64(from), b.getInt64(to), "pad.fill", [&](llvm::Value* j) {
          emitStoreElement(b, padding, outputs_[0], element, b.CreateAdd(outStart, j));
          return Status::ok();
        });
      };
      llvm::BasicBlock* copyRow = llvm::BasicBlock::Create(b.getContext(), "pad.row", fn_);
      llvm::BasicBlock* padRow = llvm::BasicBlock::Create(b.getContext(), "pad.all", fn_);
      llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "pad.next", fn_);
      b.CreateCondBr(inside, copyRow, padRow);
      b.SetInsertPoint(copyRow);
      KILN_RETURN_IF_ERROR(fill(0, low));
      {
        ElementalEmitter::CacheScope copyScope(emitter_);
        KILN_RETURN_IF_ERROR(emitParallelLoop(b, b.getInt64(0), b.getInt64(n), "pad.copy", [&](llvm::Value* j) -> Status {
          llvm::Value* index = b.CreateAdd(b.CreateMul(inRow, b.getInt64(n)), j);
          emitter_.knowSplit(index, inRow, j, n);
          KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emit(pad.pad->operand(0), index));
          emitStoreElement(b, x, outputs_[0], element, b.CreateAdd(outStart, b.CreateAdd(j, b.getInt64(low))));
          return Status::ok();
        }));
      }
      KILN_RETURN_IF_ERROR(fill(low + n, width));
      b.CreateBr(next);
      b.SetInsertPoint(padRow);
      KILN_RETURN_IF_ERROR(fill(0, width));
      b.CreateBr(next);
      b.SetInsertPoint(next);
      return Status::ok();
    });
  }

  Status emit(const SlabsForm& slabs) {
    llvm::IRBuilder<>& b = b_;
    int64_t rowLength = 0;
    for (int64_t length : slabs.lengths) rowLength += length;
    Type element = plan_.roots[0]->type().elementType();
    return emitLoop(b, begin_, end_, "slabs", [&](llvm::Value* o) -> Status {
      int64_t start = 0;
      for (size_t k = 0; k < slabs.lengths.size(); ++k) {
        int64_t length = slabs.lengths[k];
        llvm::Value* outStart = b.CreateAdd(b.CreateMul(o, b.getInt64(rowLength)), b.getInt64(start));
        ElementalEmitter::CacheScope scope(emitter_);
        KILN_RETURN_IF_ERROR(emitParallelLoop(b, b.getInt64(0), b.getInt64(length), "slab", [&](llvm::Value* j) -> Status {
          llvm::Value* index = b.CreateAdd(b.CreateMul(o, b.getInt64(length)), j);
          emitter_.knowSplit(index, o, j, length);
          KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emit(slabs.concat->operand(k), index));
          emitStoreElement(b, x, outputs_[0], element, b.CreateAdd(outStart, j));
          return Status::ok();
        }));
        start += length;
      }
      return Status::ok();
    });
  }

  // Element i is written once, and an output shares memory with an input
  // only where buffer assignment put it in place, which it does only when
  // every read of that input is at index i: no loop-carried dependence.
  // Without the mark, LLVM's runtime alias checks would send an in-place
  // update (an optimizer step into a donated argument) to the scalar loop.
  Status emit(const ElementsForm& form) {
    if (form.transpose) return emitTransposeTiles(*form.transpose);
    if (form.rowLength > 0) return emitElementRows(form);
    llvm::IRBuilder<>& b = b_;
    llvm::Value* begin = begin_;
    if (alignedOutputs_) {
      // The thread's range may start anywhere: its elements up to the next
      // multiple of 16 run in a loop of their own, so the main loop's
      // vector stores are provably aligned (and become non-temporal).
      llvm::Value* alignedBegin = b.CreateAnd(b.CreateAdd(begin, b.getInt64(15)), b.getInt64(~int64_t(15)));
      llvm::Value* headEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end_, alignedBegin);
      KILN_RETURN_IF_ERROR(emitLoop(b, begin, headEnd, "element.head", elementFn()));
      begin = alignedBegin;  // past `end` when the head did everything: the loop below then does nothing
    }
    ElementalEmitter::CacheScope scope(emitter_);
    return emitParallelLoop(b, begin, end_, "element", elementFn());
  }

 private:
  // In row form, outputs with one element per row (a softmax's saved max and
  // sum next to its result) are stored once per row, not per element.
  bool isPerRow(const Value* root) const { return numRows_ != count_ && root->type().numElements() == numRows_; }

  // Computes and stores every root's element `index`.
  Status emitElement(llvm::Value* index) {
    for (size_t i = 0; i < plan_.roots.size(); ++i) {
      const Value* root = plan_.roots[i];
      if (isPerRow(root)) continue;
      KILN_ASSIGN_OR_RETURN(llvm::Value * element, emitter_.emit(root, index));
      emitStoreElement(b_, element, outputs_[i], root->type().elementType(), index);
    }
    return Status::ok();
  }
  std::function<Status(llvm::Value*)> elementFn() {
    return [this](llvm::Value* index) { return emitElement(index); };
  }
  // A loop of elements [begin, end) in a cache scope of its own.
  Status emitLoopInScope(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name) {
    ElementalEmitter::CacheScope scope(emitter_);
    return emitLoop(b, begin, end, name, elementFn());
  }

  // The transpose's output rows (`columns` long) in groups of `lanes`, all
  // in one batch (rows is a multiple of lanes), each as tiles through
  // registers. The range's partial rows, its rows outside whole groups and
  // the columns past the last whole tile run element by element.
  Status emitTransposeTiles(const PureTranspose& transpose) {
    llvm::IRBuilder<>& b = b_;
    llvm::Value* begin = begin_;
    llvm::Value* end = end_;
    int64_t lanes = transpose.lanes, rows = transpose.rows, columns = transpose.columns;
    auto ceilDiv = [&](llvm::Value* x, int64_t d) { return b.CreateSDiv(b.CreateAdd(x, b.getInt64(d - 1)), b.getInt64(d)); };
    auto smin = [&](llvm::Value* x, llvm::Value* y) { return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y); };
    auto smax = [&](llvm::Value* x, llvm::Value* y) { return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y); };
    llvm::Value* rowsBegin = ceilDiv(begin, columns);
    llvm::Value* rowsEnd = smax(rowsBegin, b.CreateSDiv(end, b.getInt64(columns)));
    llvm::Value* groupsBegin = ceilDiv(rowsBegin, lanes);
    llvm::Value* groupsEnd = smax(groupsBegin, b.CreateSDiv(rowsEnd, b.getInt64(lanes)));
    llvm::Value* groupedBegin = b.CreateMul(smin(rowsEnd, b.CreateMul(groupsBegin, b.getInt64(lanes))), b.getInt64(columns));
    llvm::Value* groupedEnd = smax(groupedBegin, b.CreateMul(b.CreateMul(groupsEnd, b.getInt64(lanes)), b.getInt64(columns)));
    KILN_RETURN_IF_ERROR(emitLoopInScope(b, begin, smin(end, groupedBegin), "element.head"));
    Type element = plan_.roots[0]->type().elementType();
    llvm::Type* vector = llvm::FixedVectorType::get(b.getIntNTy(unsigned(element.bitWidth())), unsigned(lanes));
    llvm::Value* input = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn_->getArg(0), transpose.param));
    int64_t wholeColumns = columns / lanes * lanes;
    KILN_RETURN_IF_ERROR(emitLoop(b, groupsBegin, groupsEnd, "transpose.rows", [&](llvm::Value* group) -> Status {
      llvm::Value* firstRow = b.CreateMul(group, b.getInt64(lanes));
      llvm::Value* batch = b.CreateSDiv(firstRow, b.getInt64(rows));
      llvm::Value* row = b.CreateSRem(firstRow, b.getInt64(rows));
      // Input element (batch', column, row); output element (firstRow, column).
      llvm::Value* batchBase = b.getInt64(0);
      for (size_t k = transpose.batch.size(); k-- > 0;) {
        auto [extent, stride] = transpose.batch[k];
        batchBase = b.CreateAdd(batchBase, b.CreateMul(b.CreateSRem(batch, b.getInt64(extent)), b.getInt64(stride)));
        batch = b.CreateSDiv(batch, b.getInt64(extent));
      }
      KILN_RETURN_IF_ERROR(emitLoop(b, b.getInt64(0), b.getInt64(columns / lanes), "transpose.tiles", [&](llvm::Value* tile) {
        llvm::Value* column = b.CreateMul(tile, b.getInt64(lanes));
        llvm::Value* source = b.CreateAdd(batchBase, b.CreateAdd(b.CreateMul(column, b.getInt64(rows)), row));
        llvm::Value* target = b.CreateAdd(b.CreateMul(firstRow, b.getInt64(columns)), column);
        emitTransposeTile(b, input, outputs_[0], vector, lanes, source, rows, target, columns);
        return Status::ok();
      }));
      if (wholeColumns == columns) return Status::ok();
      return emitLoop(b, b.getInt64(0), b.getInt64(lanes), "transpose.rest", [&](llvm::Value* r) {
        llvm::Value* rowStart = b.CreateMul(b.CreateAdd(firstRow, r), b.getInt64(columns));
        return emitLoopInScope(b, b.CreateAdd(rowStart, b.getInt64(wholeColumns)),
                               b.CreateAdd(rowStart, b.getInt64(columns)), "element");
      });
    }));
    return emitLoopInScope(b, smax(begin, groupedEnd), end, "element.tail");
  }

  // Rows of the output's last dim: the range's partial first and last rows
  // run flat, the whole rows in between as nested loops whose inner counter
  // is the column itself (knowSplit), so operands broadcast along the rows
  // are read at the column, unit-stride, with no remainder. (In one flat
  // loop that remainder keeps LLVM from vectorizing ranges longer than a
  // row.)
  Status emitElementRows(const ElementsForm& form) {
    llvm::IRBuilder<>& b = b_;
    llvm::Value* begin = begin_;
    llvm::Value* end = end_;
    int64_t n = form.rowLength;
    llvm::Value* rowsBegin = b.CreateSDiv(b.CreateAdd(begin, b.getInt64(n - 1)), b.getInt64(n));
    llvm::Value* rowsEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, rowsBegin, b.CreateSDiv(end, b.getInt64(n)));
    llvm::Value* headEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end, b.CreateMul(rowsBegin, b.getInt64(n)));
    llvm::Value* tailBegin = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, headEnd, b.CreateMul(rowsEnd, b.getInt64(n)));
    KILN_RETURN_IF_ERROR(emitLoopInScope(b, begin, headEnd, "element.head"));
    auto emitRow = [&](llvm::Value* row, llvm::Value* columnsBegin, llvm::Value* columnsEnd) {
      ElementalEmitter::CacheScope scope(emitter_);
      return emitParallelLoop(b, columnsBegin, columnsEnd, "element", [&](llvm::Value* column) {
        llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(n)), column);
        emitter_.knowSplit(index, row, column, n);
        return emitElement(index);
      });
    };
    if (form.tiled) {
      llvm::Value* tiles = b.CreateSDiv(b.CreateAdd(b.CreateSub(rowsEnd, rowsBegin), b.getInt64(kTileRows - 1)),
                                        b.getInt64(kTileRows));
      KILN_RETURN_IF_ERROR(emitLoop(b, b.getInt64(0), tiles, "tile", [&](llvm::Value* tile) {
        llvm::Value* first = b.CreateAdd(rowsBegin, b.CreateMul(tile, b.getInt64(kTileRows)));
        llvm::Value* last = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, rowsEnd, b.CreateAdd(first, b.getInt64(kTileRows)));
        int64_t chunks = (n + kTileColumns - 1) / kTileColumns;
        return emitLoop(b, b.getInt64(0), b.getInt64(chunks), "tile.columns", [&](llvm::Value* chunk) {
          llvm::Value* columnsBegin = b.CreateMul(chunk, b.getInt64(kTileColumns));
          llvm::Value* columnsEnd =
              b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.getInt64(n), b.CreateAdd(columnsBegin, b.getInt64(kTileColumns)));
          return emitLoop(b, first, last, "tile.rows", [&](llvm::Value* row) { return emitRow(row, columnsBegin, columnsEnd); });
        });
      }));
    } else {
      const std::vector<int64_t>& stretches = form.columnBreaks;
      KILN_RETURN_IF_ERROR(emitLoop(b, rowsBegin, rowsEnd, "rows", [&](llvm::Value* row) {
        for (size_t k = 0; k + 1 < stretches.size(); ++k) {
          KILN_RETURN_IF_ERROR(emitRow(row, b.getInt64(stretches[k]), b.getInt64(stretches[k + 1])));
        }
        return Status::ok();
      }));
    }
    return emitLoopInScope(b, tailBegin, end, "element.tail");
  }

  const KernelPlan& plan_;
  llvm::Function* fn_;
  llvm::IRBuilder<>& b_;
  ElementalEmitter& emitter_;
  std::vector<llvm::Value*> outputs_;
  int64_t numRows_, count_;
  bool alignedOutputs_;
  llvm::Value* begin_;
  llvm::Value* end_;
};

// Emits the loop nest of `plan` (of form `form`) at `b`'s position in `fn`
// (with the KernelFn ABI), ending in a return. Several roots (a
// multi-output fusion; all of one element count) are computed in the one
// loop, sharing the emitter's cache. With `alignedOutputs`, every output
// pointer is assumed 64-byte aligned, so LLVM proves the vector stores of
// rows that start on 64 bytes aligned (see makeStreamingStoresNonTemporal
// in jit.cpp).
Status emitKernelBody(const KernelPlan& plan, const KernelForm& form, llvm::Function* fn, llvm::IRBuilder<>& b,
                      bool alignedOutputs) {
  llvm::Module& m = *fn->getParent();
  int64_t count = 0;
  for (const Value* root : plan.roots) {
    if (!root->type().isTensor()) return error("cpu back end: a kernel output that is not a tensor");
    count = std::max(count, root->type().numElements());
  }
  const RowsForm* rows = std::get_if<RowsForm>(&form);
  int64_t numRows = rows ? rows->numRows : count;
  for (const Value* root : plan.roots)
    if (root->type().numElements() != count && !(numRows != count && root->type().numElements() == numRows))
      return error("cpu back end: a multi-output kernel's outputs differ in element count");
  std::map<const Value*, llvm::Value*> buffers;
  for (size_t i = 0; i < plan.params.size(); ++i)
    buffers[plan.params[i]] = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(0), i));
  std::vector<llvm::Value*> outputs;
  for (size_t i = 0; i < plan.roots.size(); ++i)
    outputs.push_back(b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(1), i)));
  if (alignedOutputs)
    for (llvm::Value* output : outputs) b.CreateAlignmentAssumption(m.getDataLayout(), output, kStreamingAlignment);
  ElementalEmitter emitter(b, m, std::move(buffers));
  LoopNestEmitter nest(plan, fn, b, emitter, std::move(outputs), numRows, count, alignedOutputs);
  KILN_RETURN_IF_ERROR(std::visit([&](const auto& loops) { return nest.emit(loops); }, form));
  b.CreateRetVoid();
  return Status::ok();
}

}  // namespace

Status emitKernel(const KernelPlan& plan, const KernelForm& form, const std::string& name, llvm::Module& m) {
  if (plan.roots.empty()) return error("cpu back end: a kernel without outputs");
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* fnType = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()}, false);
  auto* fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  if (!plan.streamOutputs) return emitKernelBody(plan, form, fn, b, /*alignedOutputs=*/false);

  // Streaming outputs: a second copy of the kernel, for aligned outputs,
  // whose aligned vector stores become non-temporal after optimization. It
  // stays a function of its own (noinline) so that the late pass finds it by
  // its attribute. Outputs in a caller's memory (a donated argument) may be
  // aligned to their element only: those run the plain copy.
  auto* streaming = llvm::Function::Create(fnType, llvm::Function::InternalLinkage, name + ".streaming", m);
  streaming->addFnAttr(llvm::Attribute::NoInline);
  streaming->addFnAttr(kStreamingStoresAttr);
  llvm::IRBuilder<> sb(llvm::BasicBlock::Create(ctx, "entry", streaming));
  KILN_RETURN_IF_ERROR(emitKernelBody(plan, form, streaming, sb, /*alignedOutputs=*/true));

  llvm::Value* misaligned = b.getInt64(0);
  for (size_t i = 0; i < plan.roots.size(); ++i) {
    llvm::Value* output = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(1), i));
    misaligned = b.CreateOr(misaligned, b.CreatePtrToInt(output, b.getInt64Ty()));
  }
  misaligned = b.CreateAnd(misaligned, b.getInt64(kStreamingAlignment - 1));
  auto* callStreaming = llvm::BasicBlock::Create(ctx, "aligned", fn);
  auto* plain = llvm::BasicBlock::Create(ctx, "plain", fn);
  b.CreateCondBr(b.CreateICmpEQ(misaligned, b.getInt64(0)), callStreaming, plain);
  b.SetInsertPoint(callStreaming);
  std::vector<llvm::Value*> args;
  for (llvm::Argument& arg : fn->args()) args.push_back(&arg);
  b.CreateCall(streaming, args);
  b.CreateRetVoid();
  b.SetInsertPoint(plain);
  return emitKernelBody(plan, form, fn, b, /*alignedOutputs=*/false);
}

// Exactly the ops emitKernel compiles: a known op is emitted into a scratch
// module (element types, attributes and reduce bodies all decide).
bool isEmittedOp(const Operation& op) {
  const std::string& name = op.name();
  if (!isElementwiseOp(name) && !isIndexMapping(name) && name != "stablehlo.reduce" &&
      name != "stablehlo.reduce_window")
    return false;
  KernelPlan plan;
  for (const Value* operand : op.operands()) plan.params.push_back(operand);
  for (unsigned i = 0; i < op.numResults(); ++i) plan.roots.push_back(op.result(i));
  plan.inputs = plan.params;
  plan.outputs = plan.roots;
  llvm::LLVMContext ctx;
  llvm::Module scratch("probe", ctx);
  return emitKernel(plan, kernelFormOf(plan), "probe", scratch).isOk();
}

Status unsupported(const Operation& op, std::string_view what) {
  std::string message = "the cpu back end cannot compile '" + op.name() + "'";
  if (!what.empty()) message += " " + std::string(what);
  message += " yet (" + op.loc().str() + ")";
  return error(op.loc(), std::move(message));
}

}  // namespace kiln::cpu
