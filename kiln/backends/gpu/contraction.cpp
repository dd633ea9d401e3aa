// Dots and convolutions as kernels (see contraction.h).
#include "kiln/backends/gpu/contraction.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "kiln/backends/gpu/gpu_target_hooks.h"
#include "kiln/backends/gpu/libdevice.h"
#include "kiln/codegen/dot_dims.h"
#include "kiln/codegen/elemental_emitter.h"
#include "kiln/codegen/elementwise.h"
#include "kiln/codegen/narrow_floats.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"

namespace kiln::gpu {
namespace {

using codegen::ElementalEmitter;

Status unsupported(const Operation& op, std::string_view what) {
  return codegen::unsupported(gpuTargetHooks().backendName(), op, what);
}

// What a contraction multiplies and adds in: the interpreter's carriers.
enum class Carrier { Float, Int, Bool };

Expected<Carrier> carrierOf(const Operation& op) {
  Type out = op.result(0)->type().elementType();
  Type lhs = op.operand(0)->type().elementType(), rhs = op.operand(1)->type().elementType();
  auto all = [&](auto is) { return is(out) && is(lhs) && is(rhs); };
  if (all([](Type t) { return t.isFloat(); })) return Carrier::Float;
  if (all([](Type t) { return t.isInteger(); })) return Carrier::Int;
  if (all([](Type t) { return t.isBool(); }) && op.name() != "stablehlo.convolution") return Carrier::Bool;
  return unsupported(op, "on " + op.operand(0)->type().str() + " x " + op.operand(1)->type().str() + " -> " +
                             op.result(0)->type().str() + " as a kernel (floats, integers or predicates throughout)");
}

// A register value of element type `t` in the carrier.
llvm::Value* toCarrier(llvm::IRBuilderBase& b, llvm::Value* x, Type t, Carrier carrier) {
  switch (carrier) {
    case Carrier::Float: return x->getType()->isDoubleTy() ? x : b.CreateFPExt(x, b.getDoubleTy());
    case Carrier::Int:
      if (x->getType()->getIntegerBitWidth() == 64) return x;
      return t.isUnsignedInteger() ? b.CreateZExt(x, b.getInt64Ty()) : b.CreateSExt(x, b.getInt64Ty());
    case Carrier::Bool: return x;
  }
  return x;
}

llvm::Value* zeroOf(llvm::IRBuilderBase& b, Carrier carrier) {
  switch (carrier) {
    case Carrier::Float: return llvm::ConstantFP::get(b.getDoubleTy(), 0.0);
    case Carrier::Int: return b.getInt64(0);
    case Carrier::Bool: return b.getFalse();
  }
  return nullptr;
}

// acc + x * y in the carrier (no fused multiply-add: the kernels are
// compiled without contraction, so each is rounded as the interpreter's).
llvm::Value* mulAdd(llvm::IRBuilderBase& b, Carrier carrier, llvm::Value* acc, llvm::Value* x, llvm::Value* y) {
  switch (carrier) {
    case Carrier::Float: return b.CreateFAdd(acc, b.CreateFMul(x, y));
    case Carrier::Int: return b.CreateAdd(acc, b.CreateMul(x, y));
    case Carrier::Bool: return b.CreateOr(acc, b.CreateAnd(x, y));
  }
  return acc;
}

// The carrier's sum as a register value of element type `t`, rounded once.
llvm::Value* fromCarrier(llvm::IRBuilderBase& b, llvm::Value* acc, Type t, Carrier carrier) {
  if (carrier == Carrier::Float) {
    if (t.kind() == TypeKind::F64) return acc;
    if (t.kind() == TypeKind::F32) return b.CreateFPTrunc(acc, b.getFloatTy());
    return codegen::emitRoundToNarrow(b, acc, t.kind());
  }
  if (carrier == Carrier::Int && t.bitWidth() < 64) return b.CreateTrunc(acc, b.getIntNTy(t.bitWidth()));
  return acc;
}

// for (i = 0; i < end; ++i) acc = body(i, acc), from `initial`; it may run
// zero times. What the body computes stays inside (a CacheScope).
Expected<llvm::Value*> emitSumLoop(llvm::IRBuilderBase& b, ElementalEmitter& emitter, llvm::Value* end,
                                   llvm::Value* initial, const std::string& name,
                                   const std::function<Expected<llvm::Value*>(llvm::Value*, llvm::Value*)>& body) {
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* fn = before->getParent();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), name, fn);
  auto* done = llvm::BasicBlock::Create(b.getContext(), name + ".done", fn);
  b.CreateCondBr(b.CreateICmpSLT(b.getInt64(0), end), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name + ".i");
  llvm::PHINode* acc = b.CreatePHI(initial->getType(), 2, name + ".acc");
  i->addIncoming(b.getInt64(0), before);
  acc->addIncoming(initial, before);
  llvm::Value* next = nullptr;
  {
    ElementalEmitter::CacheScope scope(emitter);
    KILN_ASSIGN_OR_RETURN(next, body(i, acc));
  }
  llvm::BasicBlock* latch = b.GetInsertBlock();
  llvm::Value* iNext = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(iNext, latch);
  acc->addIncoming(next, latch);
  b.CreateCondBr(b.CreateICmpSLT(iNext, end), loop, done);
  b.SetInsertPoint(done);
  llvm::PHINode* result = b.CreatePHI(initial->getType(), 2, name + ".sum");
  result->addIncoming(initial, before);
  result->addIncoming(next, latch);
  return result;
}

// Coordinate d of flat index `index` of a tensor of `shape` (row-major).
std::vector<llvm::Value*> coordinatesOf(llvm::IRBuilderBase& b, llvm::Value* index, std::span<const int64_t> shape) {
  std::vector<int64_t> strides = rowMajorStrides(shape);
  std::vector<llvm::Value*> coords;
  for (size_t d = 0; d < shape.size(); ++d)
    coords.push_back(b.CreateURem(b.CreateUDiv(index, b.getInt64(uint64_t(strides[d]))),
                                  b.getInt64(uint64_t(std::max<int64_t>(shape[d], 1)))));
  return coords;
}

// Whether `dims` are distinct dims of a rank-`rank` tensor.
bool validDims(std::span<const int64_t> dims, int64_t rank) {
  std::set<int64_t> seen;
  for (int64_t d : dims)
    if (d < 0 || d >= rank || !seen.insert(d).second) return false;
  return true;
}

// result[batch, lhsFree, rhsFree] = the sum over the contracting positions
// (row-major over the contracting dims, as listed) of lhs * rhs.
Expected<llvm::Value*> emitDotElement(llvm::IRBuilderBase& b, ElementalEmitter& emitter, const Operation& op,
                                      llvm::Value* index) {
  KILN_ASSIGN_OR_RETURN(codegen::DotDims dims, codegen::dotDims(op));
  KILN_ASSIGN_OR_RETURN(Carrier carrier, carrierOf(op));
  const Value *lhs = op.operand(0), *rhs = op.operand(1);
  std::span<const int64_t> lhsShape = lhs->type().shape(), rhsShape = rhs->type().shape();
  std::span<const int64_t> outShape = op.result(0)->type().shape();
  int64_t lhsRank = int64_t(lhsShape.size()), rhsRank = int64_t(rhsShape.size());
  std::vector<int64_t> lhsDims = dims.lhsBatch, rhsDims = dims.rhsBatch;
  lhsDims.insert(lhsDims.end(), dims.lhsContracting.begin(), dims.lhsContracting.end());
  rhsDims.insert(rhsDims.end(), dims.rhsContracting.begin(), dims.rhsContracting.end());
  bool valid = dims.lhsBatch.size() == dims.rhsBatch.size() && dims.lhsContracting.size() == dims.rhsContracting.size() &&
               validDims(lhsDims, lhsRank) && validDims(rhsDims, rhsRank);
  std::vector<int64_t> lhsFree = codegen::freeDims(lhsRank, dims.lhsBatch, dims.lhsContracting);
  std::vector<int64_t> rhsFree = codegen::freeDims(rhsRank, dims.rhsBatch, dims.rhsContracting);
  // The result's dims: the batch dims, then lhs's free dims, then rhs's.
  std::vector<int64_t> expected;
  for (size_t j = 0; valid && j < dims.lhsBatch.size(); ++j) {
    valid = lhsShape[size_t(dims.lhsBatch[j])] == rhsShape[size_t(dims.rhsBatch[j])];
    expected.push_back(lhsShape[size_t(dims.lhsBatch[j])]);
  }
  for (size_t j = 0; valid && j < dims.lhsContracting.size(); ++j)
    valid = lhsShape[size_t(dims.lhsContracting[j])] == rhsShape[size_t(dims.rhsContracting[j])];
  for (int64_t d : lhsFree) expected.push_back(lhsShape[size_t(d)]);
  for (int64_t d : rhsFree) expected.push_back(rhsShape[size_t(d)]);
  if (!valid || !std::equal(expected.begin(), expected.end(), outShape.begin(), outShape.end()))
    return unsupported(op, "with dimension numbers that do not match its shapes");

  std::vector<int64_t> ls = rowMajorStrides(lhsShape), rs = rowMajorStrides(rhsShape);
  std::vector<llvm::Value*> at = coordinatesOf(b, index, outShape);
  auto scaled = [&](llvm::Value* sum, llvm::Value* x, int64_t stride) {
    return b.CreateAdd(sum, b.CreateMul(x, b.getInt64(uint64_t(stride))));
  };
  llvm::Value* lhsBase = b.getInt64(0);
  llvm::Value* rhsBase = b.getInt64(0);
  size_t o = 0;
  for (size_t j = 0; j < dims.lhsBatch.size(); ++j, ++o) {
    lhsBase = scaled(lhsBase, at[o], ls[size_t(dims.lhsBatch[j])]);
    rhsBase = scaled(rhsBase, at[o], rs[size_t(dims.rhsBatch[j])]);
  }
  for (int64_t d : lhsFree) lhsBase = scaled(lhsBase, at[o++], ls[size_t(d)]);
  for (int64_t d : rhsFree) rhsBase = scaled(rhsBase, at[o++], rs[size_t(d)]);
  std::vector<int64_t> kShape;
  for (int64_t d : dims.lhsContracting) kShape.push_back(lhsShape[size_t(d)]);
  int64_t positions = 1;
  for (int64_t extent : kShape) positions *= extent;
  Type lhsType = lhs->type().elementType(), rhsType = rhs->type().elementType();
  KILN_ASSIGN_OR_RETURN(
      llvm::Value * sum,
      emitSumLoop(b, emitter, b.getInt64(uint64_t(positions)), zeroOf(b, carrier), "contract",
                  [&](llvm::Value* k, llvm::Value* acc) -> Expected<llvm::Value*> {
                    std::vector<llvm::Value*> kAt = coordinatesOf(b, k, kShape);
                    llvm::Value* lhsAt = lhsBase;
                    llvm::Value* rhsAt = rhsBase;
                    for (size_t j = 0; j < kShape.size(); ++j) {
                      lhsAt = scaled(lhsAt, kAt[j], ls[size_t(dims.lhsContracting[j])]);
                      rhsAt = scaled(rhsAt, kAt[j], rs[size_t(dims.rhsContracting[j])]);
                    }
                    KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter.emit(lhs, lhsAt));
                    KILN_ASSIGN_OR_RETURN(llvm::Value * y, emitter.emit(rhs, rhsAt));
                    return mulAdd(b, carrier, acc, toCarrier(b, x, lhsType, carrier), toCarrier(b, y, rhsType, carrier));
                  }));
  return fromCarrier(b, sum, op.result(0)->type().elementType(), carrier);
}

// The interpreter's convolution: for each window position (row-major over
// the kernel's spatial dims) that lands on an input element (not padding,
// not a hole of lhs dilation), for each input feature of the output
// feature's group: acc += lhs * rhs.
Expected<llvm::Value*> emitConvolutionElement(llvm::IRBuilderBase& b, ElementalEmitter& emitter, const Operation& op,
                                              llvm::Value* index) {
  KILN_ASSIGN_OR_RETURN(Carrier carrier, carrierOf(op));
  if (op.numOperands() != 2) return unsupported(op, "with these operands");
  const Value *lhs = op.operand(0), *rhs = op.operand(1);
  std::span<const int64_t> lhsShape = lhs->type().shape(), rhsShape = rhs->type().shape();
  std::span<const int64_t> outShape = op.result(0)->type().shape();
  Attribute dn = op.attr("dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return unsupported(op, "without dimension_numbers");
  int64_t inBatch = intField(dn, "input_batch_dimension", 0), inFeature = intField(dn, "input_feature_dimension", 1);
  int64_t kIn = intField(dn, "kernel_input_feature_dimension", 0);
  int64_t kOut = intField(dn, "kernel_output_feature_dimension", 1);
  int64_t outBatch = intField(dn, "output_batch_dimension", 0), outFeature = intField(dn, "output_feature_dimension", 1);
  std::vector<int64_t> inSpatial = intListField(dn, "input_spatial_dimensions");
  std::vector<int64_t> kSpatial = intListField(dn, "kernel_spatial_dimensions");
  std::vector<int64_t> outSpatial = intListField(dn, "output_spatial_dimensions");
  size_t n = inSpatial.size();
  auto with = [](std::vector<int64_t> dims, const std::vector<int64_t>& spatial) {
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    return dims;
  };
  std::vector<int64_t> strides = intListAttrOr(op, "window_strides", n, 1);
  std::vector<int64_t> lhsDilation = intListAttrOr(op, "lhs_dilation", n, 1);
  std::vector<int64_t> rhsDilation = intListAttrOr(op, "rhs_dilation", n, 1);
  std::vector<int64_t> reversal = intListAttrOr(op, "window_reversal", n, 0);
  std::vector<int64_t> padLow(n, 0);
  if (Attribute padding = op.attr("padding"); padding && padding.is(AttrKind::DenseElements)) {
    std::optional<std::vector<int64_t>> pairs = denseIntElements(padding);  // [n, 2]: low, high
    if (!pairs || pairs->size() != 2 * n) return unsupported(op, "with this padding");
    for (size_t s = 0; s < n; ++s) padLow[s] = (*pairs)[2 * s];
  }
  Attribute fg = op.attr("feature_group_count"), bg = op.attr("batch_group_count");
  int64_t featureGroups = fg ? fg.intValue() : 1, batchGroups = bg ? bg.intValue() : 1;
  bool valid = kSpatial.size() == n && outSpatial.size() == n && lhsShape.size() == n + 2 &&
               rhsShape.size() == n + 2 && outShape.size() == n + 2 &&
               validDims(with({inBatch, inFeature}, inSpatial), int64_t(n + 2)) &&
               validDims(with({kIn, kOut}, kSpatial), int64_t(n + 2)) &&
               validDims(with({outBatch, outFeature}, outSpatial), int64_t(n + 2)) && strides.size() == n &&
               lhsDilation.size() == n && rhsDilation.size() == n && reversal.size() == n && featureGroups >= 1 &&
               batchGroups >= 1;
  for (size_t s = 0; valid && s < n; ++s) valid = strides[s] >= 1 && lhsDilation[s] >= 1 && rhsDilation[s] >= 1;
  // Every read in bounds: the groups divide the features and batches, and
  // the result's batch and features are what the operands give.
  valid = valid && outShape[size_t(outFeature)] % (featureGroups * batchGroups) == 0 &&
          lhsShape[size_t(inBatch)] % batchGroups == 0 &&
          lhsShape[size_t(inFeature)] == rhsShape[size_t(kIn)] * featureGroups &&
          rhsShape[size_t(kOut)] == outShape[size_t(outFeature)] &&
          outShape[size_t(outBatch)] == lhsShape[size_t(inBatch)] / batchGroups;
  if (!valid) return unsupported(op, "with attributes that do not match its shapes");

  std::vector<int64_t> ls = rowMajorStrides(lhsShape), rs = rowMajorStrides(rhsShape);
  int64_t outputFeatures = outShape[size_t(outFeature)], kernelInputFeatures = rhsShape[size_t(kIn)];
  int64_t batchesPerGroup = lhsShape[size_t(inBatch)] / batchGroups;
  std::vector<int64_t> window;
  for (int64_t d : kSpatial) window.push_back(rhsShape[size_t(d)]);
  int64_t positions = 1;
  for (int64_t w : window) positions *= w;
  auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
  std::vector<llvm::Value*> at = coordinatesOf(b, index, outShape);
  llvm::Value* feature = at[size_t(outFeature)];
  llvm::Value* featureGroup = b.CreateUDiv(feature, i64(outputFeatures / featureGroups));
  llvm::Value* batchGroup = b.CreateUDiv(feature, i64(outputFeatures / batchGroups));
  llvm::Value* lhsBase =
      b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(batchGroup, i64(batchesPerGroup)), at[size_t(outBatch)]),
                              i64(ls[size_t(inBatch)])),
                  b.CreateMul(featureGroup, i64(kernelInputFeatures * ls[size_t(inFeature)])));
  llvm::Value* rhsBase = b.CreateMul(feature, i64(rs[size_t(kOut)]));
  Type lhsType = lhs->type().elementType(), rhsType = rhs->type().elementType();
  KILN_ASSIGN_OR_RETURN(
      llvm::Value * sum,
      emitSumLoop(b, emitter, i64(positions), zeroOf(b, carrier), "window",
                  [&](llvm::Value* w, llvm::Value* acc) -> Expected<llvm::Value*> {
                    std::vector<llvm::Value*> wAt = coordinatesOf(b, w, window);
                    llvm::Value* lhsAt = lhsBase;
                    llvm::Value* rhsAt = rhsBase;
                    llvm::Value* inside = b.getTrue();
                    for (size_t s = 0; s < n; ++s) {
                      // q: the position in the padded, lhs-dilated input.
                      llvm::Value* q = b.CreateSub(b.CreateAdd(b.CreateMul(at[size_t(outSpatial[s])], i64(strides[s])),
                                                               b.CreateMul(wAt[s], i64(rhsDilation[s]))),
                                                   i64(padLow[s]));
                      int64_t inSize = lhsShape[size_t(inSpatial[s])];
                      llvm::Value* qIn = b.CreateSDiv(q, i64(lhsDilation[s]));
                      inside = b.CreateAnd(inside, b.CreateICmpSGE(q, i64(0)));
                      inside = b.CreateAnd(inside, b.CreateICmpEQ(b.CreateSRem(q, i64(lhsDilation[s])), i64(0)));
                      inside = b.CreateAnd(inside, b.CreateICmpSLT(qIn, i64(inSize)));
                      llvm::Value* safe = b.CreateSelect(b.CreateICmpSLT(q, i64(0)), i64(0), qIn);
                      safe = b.CreateSelect(b.CreateICmpSGT(safe, i64(std::max<int64_t>(inSize - 1, 0))),
                                            i64(std::max<int64_t>(inSize - 1, 0)), safe);
                      lhsAt = b.CreateAdd(lhsAt, b.CreateMul(safe, i64(ls[size_t(inSpatial[s])])));
                      llvm::Value* k = reversal[s] ? b.CreateSub(i64(window[s] - 1), wAt[s]) : wAt[s];
                      rhsAt = b.CreateAdd(rhsAt, b.CreateMul(k, i64(rs[size_t(kSpatial[s])])));
                    }
                    // Outside the input: no features (and nothing read).
                    llvm::Value* features = b.CreateSelect(inside, i64(kernelInputFeatures), i64(0));
                    return emitSumLoop(b, emitter, features, acc, "feature",
                                       [&](llvm::Value* f, llvm::Value* inner) -> Expected<llvm::Value*> {
                                         llvm::Value* l = b.CreateAdd(lhsAt, b.CreateMul(f, i64(ls[size_t(inFeature)])));
                                         llvm::Value* r = b.CreateAdd(rhsAt, b.CreateMul(f, i64(rs[size_t(kIn)])));
                                         KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter.emit(lhs, l));
                                         KILN_ASSIGN_OR_RETURN(llvm::Value * y, emitter.emit(rhs, r));
                                         return mulAdd(b, carrier, inner, toCarrier(b, x, lhsType, carrier),
                                                       toCarrier(b, y, rhsType, carrier));
                                       });
                  }));
  return fromCarrier(b, sum, op.result(0)->type().elementType(), carrier);
}

// A complex value of doubles, as two registers.
struct ComplexRegs {
  llvm::Value *re, *im;
};

// The interpreter's fft (kiln/interp/ops_linalg.cpp: a direct DFT along
// each transformed dim in turn, in complex<double>), as one sum per result
// element over every transformed position at once:
//   FFT, IFFT, RFFT: out[b, k] = scale * sum over j of in[b, j] * prod over
//     the transformed dims d of e^(s * 2 pi i * (j_d k_d mod n_d) / n_d),
//     s = -1 (+1 for IFFT; scale 1 / prod n_d for IFFT, else 1); RFFT's
//     result keeps the first n/2 + 1 of the last dim.
//   IRFFT: the last dim's spectrum completed by its conjugate mirror image
//     (of the data after the leading dims' inverse transforms, so a
//     mirrored term is the conjugate of its input with the leading
//     twiddles conjugated), then the inverse over all, its real part.
// Each twiddle is computed as the interpreter's (angle s * 2 * pi * m / n
// in double, then libdevice's cos and sin). The sum's order differs from
// the interpreter's dim-by-dim passes where several dims are transformed,
// and libdevice's cos/sin from the C library's: results agree with the
// interpreter's within rounding, not bitwise.
Expected<llvm::Value*> emitFftElement(llvm::IRBuilderBase& b, ElementalEmitter& emitter, const Operation& op,
                                      llvm::Value* index) {
  std::string type = "FFT";
  if (Attribute t = op.attr("fft_type")) type = t.stringValue();
  std::vector<int64_t> lengths = intListAttr(op, "fft_length");
  const Value* operand = op.operand(0);
  std::span<const int64_t> inShape = operand->type().shape(), outShape = op.result(0)->type().shape();
  size_t rank = inShape.size(), count = lengths.size();
  Type inType = operand->type().elementType(), outType = op.result(0)->type().elementType();
  bool inverse = type == "IFFT" || type == "IRFFT", irfft = type == "IRFFT";
  bool valid = (type == "FFT" || type == "IFFT" || type == "RFFT" || irfft) && count >= 1 && count <= rank &&
               outShape.size() == rank && (type == "RFFT" ? inType.isFloat() : inType.isComplex()) &&
               (irfft ? outType.isFloat() : outType.isComplex());
  size_t first = rank - count;  // the first transformed dim
  for (size_t d = 0; valid && d < rank; ++d) {
    int64_t n = d >= first ? lengths[d - first] : inShape[d];
    bool last = d + 1 == rank;
    if (d < first) valid = outShape[d] == inShape[d];
    else if (type == "RFFT" && last) valid = inShape[d] == n && outShape[d] == n / 2 + 1;
    else if (irfft && last) valid = outShape[d] == n && n >= 1;
    else valid = inShape[d] == n && outShape[d] == n && n >= 1;
  }
  if (!valid) return unsupported(op, "with these types, lengths and shapes");
  auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
  auto f64 = [&](double v) { return llvm::ConstantFP::get(b.getDoubleTy(), v); };
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  auto libdevice = [&](const char* name, llvm::Value* x) {
    llvm::FunctionCallee f = m.getOrInsertFunction(std::string(kLibdevicePrefix) + name,
                                                   llvm::FunctionType::get(b.getDoubleTy(), {b.getDoubleTy()}, false));
    return b.CreateCall(f, {x});
  };
  auto mul = [&](ComplexRegs x, ComplexRegs y) {  // (a + bi)(c + di), as C++'s complex<double> for finite values
    return ComplexRegs{b.CreateFSub(b.CreateFMul(x.re, y.re), b.CreateFMul(x.im, y.im)),
                       b.CreateFAdd(b.CreateFMul(x.re, y.im), b.CreateFMul(x.im, y.re))};
  };
  auto widen = [&](llvm::Value* x) { return x->getType()->isDoubleTy() ? x : b.CreateFPExt(x, b.getDoubleTy()); };
  // e^(i * sign * 2 pi * m / n), computed as the interpreter's twiddle.
  auto twiddle = [&](double sign, llvm::Value* mIndex, int64_t n) {
    llvm::Value* angle = b.CreateFDiv(b.CreateFMul(f64(sign * 2.0 * 3.14159265358979323846), b.CreateUIToFP(mIndex, b.getDoubleTy())),
                                      f64(double(n)));
    return ComplexRegs{libdevice("cos", angle), libdevice("sin", angle)};
  };

  std::vector<llvm::Value*> at = coordinatesOf(b, index, outShape);
  std::vector<int64_t> inStrides = rowMajorStrides(inShape);
  llvm::Value* base = i64(0);
  for (size_t d = 0; d < first; ++d) base = b.CreateAdd(base, b.CreateMul(at[d], i64(inStrides[d])));
  // The positions summed over: the transformed dims (IRFFT: the last one
  // over its full length n).
  std::vector<int64_t> sumShape;
  for (size_t d = first; d < rank; ++d) sumShape.push_back(irfft && d + 1 == rank ? lengths.back() : inShape[d]);
  int64_t positions = 1, total = 1;
  for (int64_t e : sumShape) positions *= e;
  for (int64_t n : lengths) total *= n;
  double sign = inverse ? 1.0 : -1.0;
  llvm::Type* pair = llvm::StructType::get(b.getDoubleTy(), b.getDoubleTy());
  llvm::Value* zero = llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(pair), {f64(0.0), f64(0.0)});
  KILN_ASSIGN_OR_RETURN(
      llvm::Value * sum,
      emitSumLoop(b, emitter, i64(positions), zero, "dft", [&](llvm::Value* p, llvm::Value* acc) -> Expected<llvm::Value*> {
        std::vector<llvm::Value*> j = coordinatesOf(b, p, sumShape);
        // IRFFT: where the last index reads its conjugate mirror image.
        llvm::Value* mirrored = b.getFalse();
        llvm::Value* present = b.getTrue();
        llvm::Value* lastAt = nullptr;  // the operand's index along the last dim
        if (irfft) {
          int64_t n = lengths.back(), half = inShape[rank - 1];
          llvm::Value* k = j.back();
          llvm::Value* direct = b.CreateAnd(b.CreateICmpSLT(k, i64(half)), b.CreateICmpSLE(k, i64(n / 2)));
          llvm::Value* mirror = b.CreateSub(i64(n), k);
          mirrored = b.CreateAnd(b.CreateNot(direct), b.CreateICmpSLT(mirror, i64(half)));
          present = b.CreateOr(direct, mirrored);
          lastAt = b.CreateSelect(direct, k, b.CreateSelect(mirrored, mirror, i64(0)));
        }
        llvm::Value* at_ = base;
        ComplexRegs w{f64(1.0), f64(0.0)};
        bool firstTwiddle = true;
        for (size_t q = 0; q < sumShape.size(); ++q) {
          size_t d = first + q;
          bool last = d + 1 == rank;
          llvm::Value* position = irfft && last ? lastAt : j[q];
          at_ = b.CreateAdd(at_, b.CreateMul(position, i64(inStrides[d])));
          int64_t n = lengths[q];
          llvm::Value* mIndex = b.CreateURem(b.CreateMul(j[q], at[d]), i64(n));
          ComplexRegs t = twiddle(sign, mIndex, n);
          if (irfft && !last)  // a mirrored term's leading twiddles are conjugated
            t.im = b.CreateSelect(mirrored, b.CreateFNeg(t.im), t.im);
          w = firstTwiddle ? t : mul(w, t);
          firstTwiddle = false;
        }
        KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter.emit(operand, at_));
        ComplexRegs v = inType.isComplex()
                            ? ComplexRegs{widen(b.CreateExtractValue(x, 0)), widen(b.CreateExtractValue(x, 1))}
                            : ComplexRegs{widen(x), f64(0.0)};
        if (irfft) {
          v.im = b.CreateSelect(mirrored, b.CreateFNeg(v.im), v.im);
          v.re = b.CreateSelect(present, v.re, f64(0.0));
          v.im = b.CreateSelect(present, v.im, f64(0.0));
        }
        ComplexRegs term = mul(v, w);
        llvm::Value* next = b.CreateInsertValue(zero, b.CreateFAdd(b.CreateExtractValue(acc, 0), term.re), 0);
        return b.CreateInsertValue(next, b.CreateFAdd(b.CreateExtractValue(acc, 1), term.im), 1);
      }));
  llvm::Value* re = b.CreateExtractValue(sum, 0);
  llvm::Value* im = b.CreateExtractValue(sum, 1);
  if (inverse) {
    re = b.CreateFDiv(re, f64(double(total)));
    im = b.CreateFDiv(im, f64(double(total)));
  }
  Type part = outType.isComplex() ? outType.complexElement() : outType;
  auto narrow = [&](llvm::Value* x) {
    if (part.kind() == TypeKind::F64) return x;
    if (part.kind() == TypeKind::F32) return b.CreateFPTrunc(x, b.getFloatTy());
    return codegen::emitRoundToNarrow(b, x, part.kind());
  };
  if (!outType.isComplex()) return narrow(re);
  llvm::Type* regs = codegen::registerType(b.getContext(), outType);
  llvm::Value* z = llvm::PoisonValue::get(regs);
  z = b.CreateInsertValue(z, narrow(re), 0);
  return b.CreateInsertValue(z, narrow(im), 1);
}

}  // namespace

bool isContraction(const Operation& op) {
  return op.name() == "stablehlo.dot_general" || op.name() == "stablehlo.dot" ||
         op.name() == "stablehlo.convolution" || op.name() == "stablehlo.fft";
}

Expected<llvm::Value*> emitContractionElement(llvm::IRBuilderBase& b, ElementalEmitter& emitter, const Operation& op,
                                              llvm::Value* index) {
  if (op.name() == "stablehlo.convolution") return emitConvolutionElement(b, emitter, op, index);
  if (op.name() == "stablehlo.fft") return emitFftElement(b, emitter, op, index);
  if (isContraction(op)) return emitDotElement(b, emitter, op, index);
  return nullptr;
}

}  // namespace kiln::gpu
