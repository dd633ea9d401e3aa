// The elemental emitter of the cpu back end (LLVM IR computing one element
// of a value, composed over a kernel's body) and the kernel loop nests
// around it. docs/cpu_backend.md lists what is covered.
#include "kiln/backends/cpu/emitter.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

namespace kiln::cpu {
namespace {

// The element ops this slice emits (besides constant and broadcast_in_dim).
const std::set<std::string, std::less<>> kElementwiseOps = {
    "stablehlo.add",       "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
    "stablehlo.maximum",   "stablehlo.minimum",  "stablehlo.negate",   "stablehlo.abs",
    "stablehlo.exponential", "stablehlo.log",    "stablehlo.tanh",     "stablehlo.logistic",
    "stablehlo.sqrt",      "stablehlo.rsqrt",    "stablehlo.compare",  "stablehlo.select",
    "stablehlo.convert"};

// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(std::span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// Computes values one element at a time: emit(v, i) is the LLVM value of
// element i (row-major) of `v`, built from the elements of the kernel's
// parameters it depends on. Each op's per-element expression is written once
// here and composes over whatever the kernel body holds.
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

  // Computes reduce `op` for output element `row` and makes every later use
  // of its value read that scalar.
  Status emitRowScalar(const Operation& op, llvm::Value* row) {
    KILN_ASSIGN_OR_RETURN(llvm::Value * scalar, emitReduce(op, op.result()->type().elementType(), row));
    rowScalars_[op.result()] = scalar;
    return Status::ok();
  }

  // The register type of element type `t` (i1 for predicates), or null.
  llvm::Type* registerType(Type t) {
    switch (t.kind()) {
      case TypeKind::I1: return b_.getInt1Ty();
      case TypeKind::SI32: return b_.getInt32Ty();
      case TypeKind::SI64: return b_.getInt64Ty();
      case TypeKind::F32: return b_.getFloatTy();
      case TypeKind::F64: return b_.getDoubleTy();
      default: return nullptr;
    }
  }
  // In memory a predicate is a byte (kiln's dense layout).
  llvm::Type* memoryType(Type t) { return t.isBool() ? b_.getInt8Ty() : registerType(t); }

  llvm::Value* load(llvm::Value* base, Type element, llvm::Value* index) {
    llvm::Value* x = b_.CreateLoad(memoryType(element), b_.CreateGEP(memoryType(element), base, index));
    return element.isBool() ? b_.CreateICmpNE(x, b_.getInt8(0)) : x;
  }
  void store(llvm::Value* x, llvm::Value* base, Type element, llvm::Value* index) {
    if (element.isBool()) x = b_.CreateZExt(x, b_.getInt8Ty());
    b_.CreateStore(x, b_.CreateGEP(memoryType(element), base, index));
  }

 private:
  Expected<llvm::Value*> emitUncached(const Value* v, llvm::Value* index) {
    if (auto it = params_.find(v); it != params_.end())
      return load(it->second, v->type().elementType(), index);
    const Operation* op = v->definingOp();
    if (!op) return error("cpu back end: a kernel reads a value it was not given");
    if (!v->type().isTensor()) return unsupported(*op, "on " + v->type().str());
    for (const Value* operand : op->operands())
      if (!operand->type().isTensor() || !registerType(operand->type().elementType()))
        return unsupported(*op, "on " + operand->type().str());
    Type element = v->type().elementType();
    if (!registerType(element)) return unsupported(*op, "on " + v->type().str());

    const std::string& name = op->name();
    if (name == "stablehlo.constant") return emitConstant(*op, element, index);
    // Row-major reshape keeps every element's flat index.
    if (name == "stablehlo.reshape") return emit(op->operand(0), index);
    if (name == "stablehlo.reduce") return emitReduce(*op, element, index);
    if (name == "stablehlo.broadcast_in_dim") {
      KILN_ASSIGN_OR_RETURN(llvm::Value * operandIndex, broadcastOperandIndex(*op, index));
      return emit(op->operand(0), operandIndex);
    }
    if (!kElementwiseOps.count(name)) return unsupported(*op);

    std::vector<llvm::Value*> xs;
    for (const Value* operand : op->operands()) {
      // select may take a scalar predicate for a whole tensor.
      bool scalarForAll = operand->type().rank() == 0 && v->type().rank() != 0;
      KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, scalarForAll ? b_.getInt64(0) : index));
      xs.push_back(x);
    }
    if (name == "stablehlo.select") return b_.CreateSelect(xs[0], xs[1], xs[2]);
    if (name == "stablehlo.convert") return emitConvert(*op, xs[0], op->operand(0)->type().elementType(), element);
    if (name == "stablehlo.compare") return emitCompare(*op, xs[0], xs[1]);
    if (element.isBool()) return unsupported(*op, "on predicates");
    return element.isFloat() ? emitFloat(*op, xs) : emitInt(*op, xs);
  }

  Expected<llvm::Value*> emitConstant(const Operation& op, Type element, llvm::Value* index) {
    Attribute value = op.attr("value");
    if (!value.is(AttrKind::DenseElements)) return unsupported(op, "without a dense value");
    std::span<const uint8_t> data = value.denseData();
    size_t width = element.storageBytes();
    if (value.denseIsSplat()) return elementConstant(element, data.data());
    std::vector<llvm::Constant*> elements;
    for (size_t offset = 0; offset + width <= data.size(); offset += width)
      elements.push_back(elementConstant(element, data.data() + offset));
    auto* arrayType = llvm::ArrayType::get(memoryType(element), elements.size());
    auto* global = new llvm::GlobalVariable(m_, arrayType, /*isConstant=*/true,
                                            llvm::GlobalValue::PrivateLinkage,
                                            llvm::ConstantArray::get(arrayType, elements));
    return load(global, element, index);
  }

  // One element of kiln's dense storage as an LLVM constant of its memory type.
  llvm::Constant* elementConstant(Type element, const uint8_t* bytes) {
    switch (element.kind()) {
      case TypeKind::F32: { float x; std::memcpy(&x, bytes, 4); return llvm::ConstantFP::get(b_.getFloatTy(), x); }
      case TypeKind::F64: { double x; std::memcpy(&x, bytes, 8); return llvm::ConstantFP::get(b_.getDoubleTy(), x); }
      case TypeKind::SI32: { int32_t x; std::memcpy(&x, bytes, 4); return b_.getInt32(uint32_t(x)); }
      case TypeKind::SI64: { int64_t x; std::memcpy(&x, bytes, 8); return b_.getInt64(uint64_t(x)); }
      default: return b_.getInt8(bytes[0] != 0);  // i1
    }
  }

  // broadcast_in_dim: output dim broadcast_dimensions[j] feeds operand dim j
  // (size-1 operand dims read index 0).
  Expected<llvm::Value*> broadcastOperandIndex(const Operation& op, llvm::Value* index) {
    std::optional<std::vector<int64_t>> dims = op.attr("broadcast_dimensions").asIntList();
    if (!dims) return unsupported(op, "without broadcast_dimensions");
    std::span<const int64_t> outShape = op.result()->type().shape();
    std::span<const int64_t> inShape = op.operand(0)->type().shape();
    std::vector<int64_t> outStrides = stridesOf(outShape), inStrides = stridesOf(inShape);
    llvm::Value* operandIndex = b_.getInt64(0);
    for (size_t j = 0; j < dims->size(); ++j) {
      if (inShape[j] == 1) continue;
      int64_t d = (*dims)[j];
      llvm::Value* coord = b_.CreateURem(b_.CreateUDiv(index, b_.getInt64(outStrides[d])), b_.getInt64(outShape[d]));
      operandIndex = b_.CreateAdd(operandIndex, b_.CreateMul(coord, b_.getInt64(inStrides[j])));
    }
    return operandIndex;
  }

  // reduce with one input and a one-op body: a loop over the input elements
  // that fold into output element `index`, in row-major order of the reduced
  // positions and accumulated in the element type, exactly as the interpreter
  // folds them (so sums agree bitwise). The loop runs at least once (an empty
  // reduction is its init value), so every block it adds dominates the code
  // after it and the emitter's cache stays valid across it.
  Expected<llvm::Value*> emitReduce(const Operation& op, Type element, llvm::Value* index) {
    KILN_ASSIGN_OR_RETURN(const Operation* combiner, reductionCombiner(op, element));
    std::optional<std::vector<int64_t>> dims = op.attr("dimensions").asIntList();
    if (!dims) return unsupported(op, "without dimensions");
    const Value* input = op.operand(0);
    std::span<const int64_t> inShape = input->type().shape();
    std::vector<bool> reduced(inShape.size(), false);
    for (int64_t d : *dims) {
      if (d < 0 || d >= int64_t(inShape.size())) return unsupported(op, "with dimension " + std::to_string(d));
      reduced[d] = true;
    }
    KILN_ASSIGN_OR_RETURN(llvm::Value * init, emit(op.operand(1), b_.getInt64(0)));

    // The output keeps the non-reduced dims in order: its coordinates give
    // the input offset of the row; the loop counter walks the reduced dims.
    std::span<const int64_t> outShape = op.result()->type().shape();
    std::vector<int64_t> inStrides = stridesOf(inShape), outStrides = stridesOf(outShape);
    std::vector<int64_t> reducedShape, reducedInStrides;
    llvm::Value* rowOffset = b_.getInt64(0);
    for (size_t d = 0, k = 0; d < inShape.size(); ++d) {
      if (reduced[d]) {
        reducedShape.push_back(inShape[d]);
        reducedInStrides.push_back(inStrides[d]);
        continue;
      }
      rowOffset = b_.CreateAdd(rowOffset, b_.CreateMul(coordinate(index, outStrides[k], outShape[k]),
                                                       b_.getInt64(inStrides[d])));
      ++k;
    }
    int64_t count = 1;
    for (int64_t n : reducedShape) count *= n;
    if (count == 0) return init;

    llvm::BasicBlock* before = b_.GetInsertBlock();
    llvm::Function* fn = before->getParent();
    auto* loop = llvm::BasicBlock::Create(b_.getContext(), "reduce", fn);
    auto* done = llvm::BasicBlock::Create(b_.getContext(), "reduced", fn);
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    llvm::PHINode* r = b_.CreatePHI(b_.getInt64Ty(), 2, "r");
    llvm::PHINode* acc = b_.CreatePHI(init->getType(), 2, "acc");
    r->addIncoming(b_.getInt64(0), before);
    acc->addIncoming(init, before);
    std::vector<int64_t> reducedStrides = stridesOf(reducedShape);
    llvm::Value* offset = rowOffset;
    for (size_t j = 0; j < reducedShape.size(); ++j)
      offset = b_.CreateAdd(offset, b_.CreateMul(coordinate(r, reducedStrides[j], reducedShape[j]),
                                                 b_.getInt64(reducedInStrides[j])));
    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emit(input, offset));
    KILN_ASSIGN_OR_RETURN(llvm::Value * next, element.isFloat() ? emitFloat(*combiner, {acc, x})
                                                                 : emitInt(*combiner, {acc, x}));
    llvm::BasicBlock* latch = b_.GetInsertBlock();  // emitting x may have added loops
    llvm::Value* rNext = b_.CreateAdd(r, b_.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
    r->addIncoming(rNext, latch);
    acc->addIncoming(next, latch);
    b_.CreateCondBr(b_.CreateICmpULT(rNext, b_.getInt64(count)), loop, done);
    b_.SetInsertPoint(done);
    return next;
  }

  // The body op of a reduce the emitter supports: one add, multiply, maximum
  // or minimum of the body's two arguments, on a number type.
  Expected<const Operation*> reductionCombiner(const Operation& op, Type element) {
    static const std::set<std::string, std::less<>> kCombiners = {
        "stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum"};
    if (op.numOperands() != 2 || op.numResults() != 1) return unsupported(op, "with several inputs");
    if (element.isBool()) return unsupported(op, "on predicates");
    const Block& body = op.region(0).front();
    const Operation* combiner = body.front();
    auto isArgument = [&](const Value* v) { return v == body.argument(0) || v == body.argument(1); };
    bool oneOp = body.size() == 2 && body.numArguments() == 2 && combiner->numOperands() == 2 &&
                 body.terminator()->numOperands() == 1 && body.terminator()->operand(0) == combiner->result();
    if (!oneOp || !kCombiners.count(combiner->name()) || !isArgument(combiner->operand(0)) ||
        !isArgument(combiner->operand(1)) || combiner->result()->type().elementType() != element)
      return unsupported(op, "with this body (only one add, multiply, maximum or minimum of its arguments)");
    return combiner;
  }

  // Coordinate of flat `index` along a dim of `extent` elements and `stride`.
  llvm::Value* coordinate(llvm::Value* index, int64_t stride, int64_t extent) {
    return b_.CreateURem(b_.CreateUDiv(index, b_.getInt64(stride)), b_.getInt64(extent));
  }

  // Conversions as the interpreter does them: to a predicate is `!= 0` (NaN
  // is true), float to integer truncates and saturates (NaN is 0).
  Expected<llvm::Value*> emitConvert(const Operation& op, llvm::Value* x, Type from, Type to) {
    llvm::Type* toType = registerType(to);
    if (from == to) return x;
    if (to.isBool())
      return from.isFloat() ? b_.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0))
                            : b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
    if (from.isBool()) return to.isFloat() ? b_.CreateUIToFP(x, toType) : b_.CreateZExt(x, toType);
    if (from.isFloat() && to.isFloat()) return b_.CreateFPCast(x, toType);
    if (from.isFloat())
      return b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {toType, x->getType()}, {x});
    if (to.isFloat()) return b_.CreateSIToFP(x, toType);
    return b_.CreateSExtOrTrunc(x, toType);
  }

  Expected<llvm::Value*> emitCompare(const Operation& op, llvm::Value* x, llvm::Value* y) {
    Attribute direction = op.attr("comparison_direction");
    Attribute compareType = op.attr("compare_type");
    if (compareType && compareType.stringValue() == "TOTALORDER") return unsupported(op, "with TOTALORDER");
    if (!direction) return unsupported(op, "without comparison_direction");
    const std::string& dir = direction.stringValue();
    Type element = op.operand(0)->type().elementType();
    using P = llvm::CmpInst::Predicate;
    // {float (ordered, except NE), signed, unsigned (predicates)}.
    static const std::map<std::string, std::array<P, 3>, std::less<>> kPredicates = {
        {"EQ", {P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ}},   {"NE", {P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE}},
        {"LT", {P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT}}, {"LE", {P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE}},
        {"GT", {P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT}}, {"GE", {P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE}}};
    auto it = kPredicates.find(dir);
    if (it == kPredicates.end()) return unsupported(op, "with direction " + dir);
    if (element.isFloat()) return b_.CreateFCmp(it->second[0], x, y);
    return b_.CreateICmp(it->second[element.isBool() ? 2 : 1], x, y);
  }

  // Float math. Transcendentals (and rsqrt) are computed in double with libm
  // and rounded once, as the interpreter computes them.
  Expected<llvm::Value*> emitFloat(const Operation& op, const std::vector<llvm::Value*>& xs) {
    const std::string& name = op.name();
    llvm::Value* x = xs[0];
    if (name == "stablehlo.add") return b_.CreateFAdd(x, xs[1]);
    if (name == "stablehlo.subtract") return b_.CreateFSub(x, xs[1]);
    if (name == "stablehlo.multiply") return b_.CreateFMul(x, xs[1]);
    if (name == "stablehlo.divide") return b_.CreateFDiv(x, xs[1]);
    // IEEE 754-2019 maximum/minimum: NaN wins and -0 < +0, as llvm.maximum.
    if (name == "stablehlo.maximum") return b_.CreateMaximum(x, xs[1]);
    if (name == "stablehlo.minimum") return b_.CreateMinimum(x, xs[1]);
    if (name == "stablehlo.negate") return b_.CreateFNeg(x);
    if (name == "stablehlo.abs") return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
    if (name == "stablehlo.sqrt") return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, x);

    llvm::Type* type = x->getType();
    llvm::Value* wide = b_.CreateFPExt(x, b_.getDoubleTy());
    llvm::Value* one = llvm::ConstantFP::get(b_.getDoubleTy(), 1.0);
    llvm::Value* r = nullptr;
    if (name == "stablehlo.exponential") r = callLibm("exp", wide);
    else if (name == "stablehlo.log") r = callLibm("log", wide);
    else if (name == "stablehlo.tanh") r = callLibm("tanh", wide);
    else if (name == "stablehlo.logistic") r = b_.CreateFDiv(one, b_.CreateFAdd(one, callLibm("exp", b_.CreateFNeg(wide))));
    else if (name == "stablehlo.rsqrt") r = b_.CreateFDiv(one, b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, wide));
    else return unsupported(op, "on floats");
    return b_.CreateFPTrunc(r, type);
  }

  llvm::Value* callLibm(llvm::StringRef name, llvm::Value* x) {
    llvm::FunctionCallee callee =
        m_.getOrInsertFunction(name, llvm::FunctionType::get(b_.getDoubleTy(), {b_.getDoubleTy()}, false));
    auto* fn = llvm::cast<llvm::Function>(callee.getCallee());
    fn->setDoesNotThrow();
    fn->setWillReturn();
    return b_.CreateCall(callee, {x});
  }

  // Integer math wraps; division follows XLA (x / 0 = -1, INT_MIN / -1 =
  // INT_MIN), with no undefined behaviour left for LLVM to exploit.
  Expected<llvm::Value*> emitInt(const Operation& op, const std::vector<llvm::Value*>& xs) {
    const std::string& name = op.name();
    llvm::Value* x = xs[0];
    if (name == "stablehlo.add") return b_.CreateAdd(x, xs[1]);
    if (name == "stablehlo.subtract") return b_.CreateSub(x, xs[1]);
    if (name == "stablehlo.multiply") return b_.CreateMul(x, xs[1]);
    if (name == "stablehlo.maximum") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, xs[1]);
    if (name == "stablehlo.minimum") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, xs[1]);
    if (name == "stablehlo.negate") return b_.CreateNeg(x);
    if (name == "stablehlo.abs")
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b_.getFalse());  // INT_MIN stays INT_MIN
    if (name == "stablehlo.divide") {
      llvm::Type* type = x->getType();
      llvm::Value* y = xs[1];
      llvm::Value* byZero = b_.CreateICmpEQ(y, llvm::ConstantInt::get(type, 0));
      llvm::Value* byMinusOne = b_.CreateICmpEQ(y, llvm::ConstantInt::getSigned(type, -1));
      llvm::Value* safeY = b_.CreateSelect(b_.CreateOr(byZero, byMinusOne), llvm::ConstantInt::get(type, 1), y);
      llvm::Value* q = b_.CreateSDiv(x, safeY);
      return b_.CreateSelect(byZero, llvm::ConstantInt::getSigned(type, -1),
                             b_.CreateSelect(byMinusOne, b_.CreateNeg(x), q));
    }
    return unsupported(op, "on integers");
  }

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
  std::map<const Value*, llvm::Value*> params_;  // kernel parameter -> its buffer
  std::map<std::pair<const Value*, llvm::Value*>, llvm::Value*> cache_;
  std::map<const Value*, llvm::Value*> rowScalars_;  // reduce -> its value for the current row
};

// An input fusion whose reduces all reduce the trailing dims of their input
// to one shape `rows` (softmax, layernorm) is emitted row by row: each reduce
// once per row into a register, then the row's output elements reading those
// scalars -- instead of recomputing a reduce for every element that uses it.
struct RowForm {
  std::vector<int64_t> rows;               // leading dims of the output and of every reduce's input
  std::vector<const Operation*> reduces;   // each after the reduces its input uses
};

// Finds the row form of `root`, if it has one: every path from `root` to a
// reduce must keep the row, i.e. read the reduce at element `index / (row
// length)` of a value whose shape starts with `rows` -- elementwise ops,
// reshapes, and broadcast_in_dim of a `rows`-shaped value along the leading
// dims.
class RowAnalysis {
 public:
  static std::optional<RowForm> of(const Value* root) {
    RowAnalysis analysis;
    analysis.collectReduces(root);
    if (analysis.form_.reduces.empty()) return std::nullopt;
    std::span<const int64_t> rows = analysis.form_.reduces.front()->result()->type().shape();
    analysis.form_.rows.assign(rows.begin(), rows.end());
    if (!analysis.keepsRow(root)) return std::nullopt;
    return std::move(analysis.form_);
  }

 private:
  // Post-order, so each reduce comes after those it depends on.
  void collectReduces(const Value* v) {
    const Operation* op = v->definingOp();
    if (!op || !visited_.insert(op).second) return;
    for (const Value* operand : op->operands()) collectReduces(operand);
    if (op->name() == "stablehlo.reduce") form_.reduces.push_back(op);
  }

  bool dependsOnReduce(const Value* v) {
    const Operation* op = v->definingOp();
    if (!op) return false;
    if (auto it = dependsOnReduce_.find(v); it != dependsOnReduce_.end()) return it->second;
    bool depends = op->name() == "stablehlo.reduce";
    for (const Value* operand : op->operands()) depends = depends || dependsOnReduce(operand);
    return dependsOnReduce_[v] = depends;
  }

  bool startsWithRows(const Value* v) {
    std::span<const int64_t> shape = v->type().shape();
    const std::vector<int64_t>& rows = form_.rows;
    return shape.size() >= rows.size() && std::equal(rows.begin(), rows.end(), shape.begin());
  }
  bool isRows(const Value* v) { return startsWithRows(v) && v->type().rank() == int64_t(form_.rows.size()); }

  // Whether element i of `v` reads every reduce it depends on at its row.
  bool keepsRow(const Value* v) {
    if (!dependsOnReduce(v)) return true;
    if (auto it = keepsRow_.find(v); it != keepsRow_.end()) return it->second;
    return keepsRow_[v] = v->type().isTensor() && startsWithRows(v) && opKeepsRow(*v->definingOp(), v);
  }

  bool opKeepsRow(const Operation& op, const Value* v) {
    const std::string& name = op.name();
    size_t rank = form_.rows.size();
    std::optional<std::vector<int64_t>> dims;
    if (name == "stablehlo.reduce") {
      // Reduces exactly the trailing dims: its element `row` folds row `row`.
      dims = op.attr("dimensions").asIntList();
      if (!dims || op.numOperands() != 2 || !isRows(v) || dependsOnReduce(op.operand(1))) return false;
      std::sort(dims->begin(), dims->end());
      for (size_t j = 0; j < dims->size(); ++j)
        if ((*dims)[j] != int64_t(rank + j)) return false;
      return int64_t(rank + dims->size()) == op.operand(0)->type().rank() && keepsRow(op.operand(0));
    }
    if (name == "stablehlo.broadcast_in_dim") {
      dims = op.attr("broadcast_dimensions").asIntList();
      if (!dims || !isRows(op.operand(0))) return false;
      for (size_t j = 0; j < dims->size(); ++j)
        if ((*dims)[j] != int64_t(j)) return false;
      return keepsRow(op.operand(0));
    }
    // Row-major reshape keeps each element's flat index, so its row too.
    if (name == "stablehlo.reshape") return keepsRow(op.operand(0));
    if (!kElementwiseOps.count(name)) return false;
    for (const Value* operand : op.operands()) {
      bool scalarForAll = operand->type().rank() == 0 && v->type().rank() != 0;  // read at index 0
      if (scalarForAll ? dependsOnReduce(operand) : !keepsRow(operand)) return false;
    }
    return true;
  }

  RowForm form_;
  std::set<const Operation*> visited_;
  std::map<const Value*, bool> dependsOnReduce_, keepsRow_;
};

// Emits `for (i = begin; i < end; ++i) body(i)` at the builder's position
// and leaves the builder after it. `body` may add blocks (inner loops).
Status emitLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name,
                const std::function<Status(llvm::Value*)>& body) {
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), name, before->getParent());
  auto* done = llvm::BasicBlock::Create(b.getContext(), name + ".done", before->getParent());
  b.CreateCondBr(b.CreateICmpSLT(begin, end), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name + ".i");
  i->addIncoming(begin, before);
  KILN_RETURN_IF_ERROR(body(i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, end), loop, done);
  b.SetInsertPoint(done);
  return Status::ok();
}

}  // namespace

// Emits the KernelFn `name`: a loop over outer iterations [begin, end) --
// the output's elements, or its rows for a row form, with an inner loop over
// the row's elements -- vectorized later by LLVM's O3 pipeline.
Status emitKernel(const KernelPlan& plan, const std::string& name, llvm::Module& m) {
  if (plan.roots.size() != 1) return error("cpu back end: kernels with several outputs are not emitted yet");
  const Value* root = plan.roots.front();
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* fnType = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()}, false);
  auto* fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::map<const Value*, llvm::Value*> buffers;
  for (size_t i = 0; i < plan.params.size(); ++i)
    buffers[plan.params[i]] = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(0), i));
  llvm::Value* output = b.CreateLoad(b.getPtrTy(), fn->getArg(1));
  ElementalEmitter emitter(b, m, std::move(buffers));
  auto emitElement = [&](llvm::Value* index) -> Status {
    KILN_ASSIGN_OR_RETURN(llvm::Value * element, emitter.emit(root, index));
    emitter.store(element, output, root->type().elementType(), index);
    return Status::ok();
  };

  llvm::Value* begin = fn->getArg(2);
  llvm::Value* end = fn->getArg(3);
  if (std::optional<RowForm> form = RowAnalysis::of(root)) {
    int64_t numRows = kernelIterations(plan);
    int64_t rowLength = numRows == 0 ? 0 : root->type().numElements() / numRows;
    KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "row", [&](llvm::Value* row) -> Status {
      for (const Operation* reduce : form->reduces) KILN_RETURN_IF_ERROR(emitter.emitRowScalar(*reduce, row));
      return emitLoop(b, b.getInt64(0), b.getInt64(rowLength), "element", [&](llvm::Value* column) {
        return emitElement(b.CreateAdd(b.CreateMul(row, b.getInt64(rowLength)), column));
      });
    }));
  } else {
    KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "element", emitElement));
  }
  b.CreateRetVoid();
  return Status::ok();
}

int64_t kernelIterations(const KernelPlan& plan) {
  const Value* root = plan.roots.front();
  if (std::optional<RowForm> form = RowAnalysis::of(root)) {
    int64_t numRows = 1;
    for (int64_t n : form->rows) numRows *= n;
    return numRows;
  }
  return root->type().numElements();
}

bool isEmittedOp(const Operation& op) {
  const std::string& name = op.name();
  return kElementwiseOps.count(name) || name == "stablehlo.broadcast_in_dim" || name == "stablehlo.reduce";
}

Status unsupported(const Operation& op, std::string_view what) {
  std::string message = "the cpu back end cannot compile '" + op.name() + "'";
  if (!what.empty()) message += " " + std::string(what);
  message += " yet (" + op.loc().str() + ")";
  return error(op.loc(), std::move(message));
}

}  // namespace kiln::cpu
