// Per-element expressions of the elementwise ops (see elementwise.h).
#include "kiln/codegen/elementwise.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kiln/codegen/narrow_floats.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/float_formats.h"

namespace kiln::codegen {
namespace {

using llvm::Intrinsic::ID;

bool isNarrow(Type t) { return t.isFloat() && isNarrowFloat(t.kind()); }

// Float ops computed in double with the C math library (libm's functions,
// called as the target calls C: TargetHooks::callMathLibrary) and rounded
// once -- exactly what the interpreter does, so they agree bitwise (f64 keeps
// libm for all of math).
const std::map<std::string, std::string, std::less<>> kLibmOps = {
    {"stablehlo.exponential_minus_one", "expm1"}, {"stablehlo.log_plus_one", "log1p"},
    {"stablehlo.cbrt", "cbrt"}, {"stablehlo.sine", "sin"}, {"stablehlo.cosine", "cos"},
    {"stablehlo.tan", "tan"}, {"stablehlo.power", "pow"}, {"stablehlo.atan2", "atan2"},
    {"stablehlo.exponential", "exp"}, {"stablehlo.log", "log"}, {"stablehlo.tanh", "tanh"},
    {"chlo.acos", "acos"}, {"chlo.acosh", "acosh"}, {"chlo.asin", "asin"}, {"chlo.asinh", "asinh"},
    {"chlo.atan", "atan"}, {"chlo.atanh", "atanh"}, {"chlo.cosh", "cosh"}, {"chlo.sinh", "sinh"},
    {"chlo.erf", "erf"}, {"chlo.erfc", "erfc"}};

// Float math on register values of element type `t`; the result is f32 or
// f64 (the double path for libm), which roundTo turns into `t`.
Expected<llvm::Value*> emitFloat(llvm::IRBuilderBase& b, const TargetHooks& target, llvm::Module& m, const Operation& op, Type t,
                                 std::span<llvm::Value* const> xs) {
  std::string_view name = op.name();
  llvm::Value* x = xs[0];
  llvm::Type* type = x->getType();
  bool isF64 = type->isDoubleTy();
  auto unary = [&](ID id) { return b.CreateUnaryIntrinsic(id, x); };
  if (name == "stablehlo.add") return b.CreateFAdd(x, xs[1]);
  if (name == "stablehlo.subtract") return b.CreateFSub(x, xs[1]);
  if (name == "stablehlo.multiply") return b.CreateFMul(x, xs[1]);
  if (name == "stablehlo.divide") return b.CreateFDiv(x, xs[1]);
  if (name == "stablehlo.remainder") return b.CreateFRem(x, xs[1]);  // fmod: exact
  // IEEE 754-2019 maximum/minimum: NaN wins and -0 < +0, as llvm.maximum.
  if (name == "stablehlo.maximum") return b.CreateMaximum(x, xs[1]);
  if (name == "stablehlo.minimum") return b.CreateMinimum(x, xs[1]);
  // x * x is exact in f32 for every narrower format, so one rounding as the interpreter's.
  if (name == "chlo.square") return b.CreateFMul(x, x);
  if (name == "stablehlo.negate") return b.CreateFNeg(x);
  if (name == "stablehlo.abs") return unary(llvm::Intrinsic::fabs);
  if (name == "stablehlo.sqrt") return unary(llvm::Intrinsic::sqrt);
  if (name == "stablehlo.floor") return unary(llvm::Intrinsic::floor);
  if (name == "stablehlo.ceil") return unary(llvm::Intrinsic::ceil);
  if (name == "stablehlo.round_nearest_afz") return unary(llvm::Intrinsic::round);
  if (name == "stablehlo.round_nearest_even") return unary(llvm::Intrinsic::roundeven);
  if (name == "stablehlo.sign") {  // NaN and +-0 are their own sign
    llvm::Value* one = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, llvm::ConstantFP::get(type, 1.0), x);
    return b.CreateSelect(b.CreateFCmpONE(x, llvm::ConstantFP::get(type, 0.0)), one, x);
  }
  // The target's own f32 math (vectorizable approximations), for f32 and
  // the narrow floats.
  if (!isF64)
    if (llvm::Value* r = target.emitF32Math(b, name, xs)) return r;
  // The rest in double, rounded once.
  std::vector<llvm::Value*> wide;
  for (llvm::Value* v : xs) wide.push_back(isF64 ? v : b.CreateFPExt(v, b.getDoubleTy()));
  llvm::Value* one = llvm::ConstantFP::get(b.getDoubleTy(), 1.0);
  llvm::Value* r = nullptr;
  if (auto it = kLibmOps.find(name); it != kLibmOps.end()) {
    r = target.callMathLibrary(b, m, it->second, wide);
  } else if (name == "stablehlo.logistic") {
    llvm::Value* minusX = b.CreateFNeg(wide[0]);
    r = b.CreateFDiv(one, b.CreateFAdd(one, target.callMathLibrary(b, m, "exp", {&minusX, 1})));
  } else if (name == "stablehlo.rsqrt") {
    r = b.CreateFDiv(one, b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, wide[0]));
  } else {
    return unsupported(target, op, "on " + t.str());
  }
  return r;
}

// A result of emitFloat (f32, or f64 from the double path) as a register
// value of element type `t`: f64 stays, f32 takes one rounding, and narrow
// formats round once to the format -- straight from double for the libm
// path, as the interpreter does; from f32 otherwise (for + - * / sqrt on these
// formats f32 carries enough bits that this double rounding is innocuous).
llvm::Value* roundTo(llvm::IRBuilderBase& b, llvm::Value* r, Type t) {
  if (t.kind() == TypeKind::F64) return r;
  if (isNarrow(t)) return emitRoundToNarrow(b, r, t.kind());
  return r->getType()->isDoubleTy() ? b.CreateFPTrunc(r, b.getFloatTy()) : r;
}

// XLA's integer power: by squaring, wrapping; a negative exponent of a
// signed type gives 1 for base 1, +-1 for base -1 and 0 otherwise. Unrolled
// over the exponent's bits (straight-line code, so it vectorizes).
llvm::Value* emitIntPower(llvm::IRBuilderBase& b, llvm::Value* base, llvm::Value* exponent, bool isUnsigned) {
  llvm::Type* type = base->getType();
  unsigned bits = type->getIntegerBitWidth();
  auto c = [&](int64_t v) { return llvm::ConstantInt::getSigned(type, v); };
  llvm::Value* result = c(1);
  llvm::Value* square = base;
  for (unsigned k = 0; k < bits; ++k) {
    llvm::Value* bit = b.CreateTrunc(b.CreateLShr(exponent, c(k)), b.getInt1Ty());
    result = b.CreateSelect(bit, b.CreateMul(result, square), result);
    square = b.CreateMul(square, square);
  }
  if (isUnsigned) return result;
  llvm::Value* odd = b.CreateTrunc(exponent, b.getInt1Ty());
  llvm::Value* negativeCase = b.CreateSelect(
      b.CreateICmpEQ(base, c(1)), c(1),
      b.CreateSelect(b.CreateICmpEQ(base, c(-1)), b.CreateSelect(odd, c(-1), c(1)), c(0)));
  return b.CreateSelect(b.CreateICmpSLT(exponent, c(0)), negativeCase, result);
}

Expected<llvm::Value*> emitInt(llvm::IRBuilderBase& b, const TargetHooks& target, const Operation& op, Type t, std::span<llvm::Value* const> xs) {
  std::string_view name = op.name();
  bool isUnsigned = t.isUnsignedInteger();
  llvm::Value* x = xs[0];
  llvm::Value* y = xs.size() > 1 ? xs[1] : nullptr;
  llvm::Type* type = x->getType();
  unsigned bits = type->getIntegerBitWidth();
  auto c = [&](int64_t v) { return llvm::ConstantInt::getSigned(type, v); };
  if (name == "stablehlo.add") return b.CreateAdd(x, y);
  if (name == "stablehlo.subtract") return b.CreateSub(x, y);
  if (name == "stablehlo.multiply") return b.CreateMul(x, y);
  if (name == "stablehlo.and") return b.CreateAnd(x, y);
  if (name == "stablehlo.or") return b.CreateOr(x, y);
  if (name == "stablehlo.xor") return b.CreateXor(x, y);
  if (name == "stablehlo.not") return b.CreateNot(x);
  if (name == "stablehlo.negate") return b.CreateNeg(x);
  if (name == "stablehlo.maximum")
    return b.CreateBinaryIntrinsic(isUnsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, x, y);
  if (name == "stablehlo.minimum")
    return b.CreateBinaryIntrinsic(isUnsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, x, y);
  if (name == "stablehlo.abs")
    return isUnsigned ? x : b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, x, b.getFalse());  // INT_MIN stays
  if (name == "stablehlo.sign") {
    if (isUnsigned) return b.CreateZExt(b.CreateICmpNE(x, c(0)), type);
    return b.CreateSub(b.CreateZExt(b.CreateICmpSGT(x, c(0)), type), b.CreateZExt(b.CreateICmpSLT(x, c(0)), type));
  }
  if (name == "stablehlo.popcnt") return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
  if (name == "stablehlo.count_leading_zeros")  // 0 has `bits` leading zeros
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
  // Shift amounts read as unsigned; too large shifts give 0, or the sign fill.
  if (name == "stablehlo.shift_left" || name == "stablehlo.shift_right_logical") {
    llvm::Value* tooFar = b.CreateICmpUGE(y, c(bits));
    llvm::Value* safe = b.CreateSelect(tooFar, c(0), y);
    llvm::Value* r = name == "stablehlo.shift_left" ? b.CreateShl(x, safe) : b.CreateLShr(x, safe);
    return b.CreateSelect(tooFar, c(0), r);
  }
  if (name == "stablehlo.shift_right_arithmetic")
    return b.CreateAShr(x, b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, y, c(bits - 1)));
  if (name == "stablehlo.power") return emitIntPower(b, x, y, isUnsigned);
  // Division as XLA: x / 0 = -1 (all ones), INT_MIN / -1 = INT_MIN; x % 0 =
  // x, INT_MIN % -1 = 0. No undefined behaviour is left for LLVM.
  if (name == "stablehlo.divide" || name == "stablehlo.remainder") {
    bool divide = name == "stablehlo.divide";
    llvm::Value* byZero = b.CreateICmpEQ(y, c(0));
    llvm::Value* byMinusOne = isUnsigned ? b.getFalse() : b.CreateICmpEQ(y, c(-1));
    llvm::Value* safeY = b.CreateSelect(b.CreateOr(byZero, byMinusOne), c(1), y);
    llvm::Value* r = isUnsigned ? (divide ? b.CreateUDiv(x, safeY) : b.CreateURem(x, safeY))
                                : (divide ? b.CreateSDiv(x, safeY) : b.CreateSRem(x, safeY));
    if (!isUnsigned) r = b.CreateSelect(byMinusOne, divide ? b.CreateNeg(x) : c(0), r);
    return b.CreateSelect(byZero, divide ? c(-1) : x, r);
  }
  return unsupported(target, op, "on " + t.str());
}

// Predicates: the ops the interpreter defines on i1.
Expected<llvm::Value*> emitBool(llvm::IRBuilderBase& b, const TargetHooks& target, const Operation& op, std::span<llvm::Value* const> xs) {
  std::string_view name = op.name();
  if (name == "stablehlo.not") return b.CreateNot(xs[0]);
  if (name == "stablehlo.and" || name == "stablehlo.multiply" || name == "stablehlo.minimum")
    return b.CreateAnd(xs[0], xs[1]);
  if (name == "stablehlo.or" || name == "stablehlo.add" || name == "stablehlo.maximum")
    return b.CreateOr(xs[0], xs[1]);
  if (name == "stablehlo.xor") return b.CreateXor(xs[0], xs[1]);
  return unsupported(target, op, "on predicates");
}

// A float's bits as a signed integer ordered as IEEE's total order.
llvm::Value* totalOrderKey(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* intTy = b.getIntNTy(x->getType()->getPrimitiveSizeInBits());
  llvm::Value* bits = b.CreateBitCast(x, intTy);
  llvm::Value* magnitude = b.CreateLShr(b.CreateShl(bits, 1), 1);
  llvm::Value* negativeKey = b.CreateSub(b.CreateNeg(magnitude), llvm::ConstantInt::get(intTy, 1));
  return b.CreateSelect(b.CreateICmpSLT(bits, llvm::ConstantInt::get(intTy, 0)), negativeKey, magnitude);
}

// bf16 and f16: narrow formats whose register values (f32, exact; NaNs
// made the canonical quiet NaN of their sign) order as their bits do under
// TOTALORDER, NaN payloads apart.
bool totalOrderByRegister(Type t) { return t.kind() == TypeKind::BF16 || t.kind() == TypeKind::F16; }

// The format's canonical quiet NaN of sign `negative` (what decoding any
// NaN gives, encoded back): 0x7E00 for f16, 0x7FC0 for bf16.
uint64_t canonicalNaNBits(Type t, bool negative) {
  uint64_t sign = negative ? 0x8000 : 0;
  return sign | (t.kind() == TypeKind::F16 ? 0x7E00 : 0x7FC0);
}

// Whether every NaN `v` (a bf16 or f16 value) can hold is its format's
// canonical quiet NaN: JAX's sort comparators replace NaNs by a constant
// NaN before comparing in TOTALORDER, select(x != x, nan, select(x == 0,
// 0, x)). `notNaN` holds values known not to be NaN where `v` is taken.
bool onlyCanonicalNaNs(const Value* v, std::set<const Value*> notNaN) {
  if (notNaN.count(v)) return true;
  const Operation* op = v->definingOp();
  if (!op) return false;  // an argument: any NaN
  Type t = v->type().elementType();
  if (op->name() == "stablehlo.constant") {
    Attribute value = op->attr("value");
    if (!value || !value.is(AttrKind::DenseElements)) return false;
    std::span<const uint8_t> data = value.denseData();
    for (size_t at = 0; at + 2 <= data.size(); at += 2) {
      uint64_t bits = uint64_t(data[at]) | uint64_t(data[at + 1]) << 8;  // little-endian
      if (std::isnan(decodeFloat(t.kind(), bits)) && bits != canonicalNaNBits(t, (bits & 0x8000) != 0)) return false;
    }
    return true;
  }
  if (op->name() != "stablehlo.select" || op->numOperands() != 3) return false;
  // select(x != x, a, b): b is taken where x is not NaN.
  std::set<const Value*> falseSide = notNaN;
  const Operation* predicate = op->operand(0)->definingOp();
  Attribute direction = predicate ? predicate->attr("comparison_direction") : Attribute();
  Attribute compareType = predicate ? predicate->attr("compare_type") : Attribute();
  if (predicate && predicate->name() == "stablehlo.compare" && direction && direction.stringValue() == "NE" &&
      (!compareType || compareType.stringValue() == "FLOAT") && predicate->operand(0) == predicate->operand(1))
    falseSide.insert(predicate->operand(0));
  return onlyCanonicalNaNs(op->operand(1), notNaN) && onlyCanonicalNaNs(op->operand(2), falseSide);
}

// The register's bits, NaNs made the canonical quiet NaN of their sign.
llvm::Value* canonicalNaNKey(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* bits = b.CreateBitCast(x, b.getInt32Ty());
  llvm::Value* nan = b.CreateOr(b.CreateAnd(bits, b.getInt32(0x80000000u)), b.getInt32(0x7FC00000u));
  return totalOrderKey(b, b.CreateBitCast(b.CreateSelect(b.CreateFCmpUNO(x, x), nan, bits), x->getType()));
}

Expected<llvm::Value*> emitCompare(llvm::IRBuilderBase& b, const TargetHooks& target, const Operation& op, llvm::Value* x, llvm::Value* y) {
  Attribute direction = op.attr("comparison_direction");
  if (!direction) return unsupported(target, op, "without comparison_direction");
  Type t = op.operand(0)->type().elementType();
  std::string compareType = t.isFloat() ? "FLOAT" : t.isSignedInteger() ? "SIGNED" : "UNSIGNED";
  if (Attribute attr = op.attr("compare_type")) compareType = attr.stringValue();
  using P = llvm::CmpInst::Predicate;
  // {float (ordered, except NE), signed, unsigned}.
  static const std::map<std::string, std::array<P, 3>, std::less<>> kPredicates = {
      {"EQ", {P::FCMP_OEQ, P::ICMP_EQ, P::ICMP_EQ}},   {"NE", {P::FCMP_UNE, P::ICMP_NE, P::ICMP_NE}},
      {"LT", {P::FCMP_OLT, P::ICMP_SLT, P::ICMP_ULT}}, {"LE", {P::FCMP_OLE, P::ICMP_SLE, P::ICMP_ULE}},
      {"GT", {P::FCMP_OGT, P::ICMP_SGT, P::ICMP_UGT}}, {"GE", {P::FCMP_OGE, P::ICMP_SGE, P::ICMP_UGE}}};
  auto it = kPredicates.find(direction.stringValue());
  if (it == kPredicates.end()) return unsupported(target, op, "with direction " + direction.stringValue());
  if (compareType == "TOTALORDER") {
    // Narrow floats are decoded into f32 registers, which loses NaN
    // payloads: bf16 and f16 compare by register where no other NaN can
    // reach the compare (else ElementalEmitter compares their bits where
    // it loaded them: emitTotalOrderCompareBits).
    if (t.isFloat() && totalOrderByRegister(t) && onlyCanonicalNaNs(op.operand(0), {}) &&
        onlyCanonicalNaNs(op.operand(1), {}))
      return b.CreateICmp(it->second[1], canonicalNaNKey(b, x), canonicalNaNKey(b, y));
    if (!t.isFloat() || isNarrow(t)) return unsupported(target, op, "with TOTALORDER on " + t.str());
    return b.CreateICmp(it->second[1], totalOrderKey(b, x), totalOrderKey(b, y));
  }
  if (t.isFloat()) {
    if (compareType != "FLOAT") return unsupported(target, op, "with compare_type " + compareType);
    return b.CreateFCmp(it->second[0], x, y);
  }
  if (compareType == "SIGNED" && !t.isBool()) return b.CreateICmp(it->second[1], x, y);
  if (compareType == "UNSIGNED" || (compareType == "SIGNED" && t.isBool())) return b.CreateICmp(it->second[2], x, y);
  return unsupported(target, op, "with compare_type " + compareType);
}

// reduce_precision on the bits of an f32 or f64, as XLA and the interpreter
// do it: round the mantissa to `mantissa_bits` (nearest even, a carry into
// the exponent is right), then send exponents beyond the reduced range to
// Inf or to zero; NaNs are kept as they are.
Expected<llvm::Value*> emitReducePrecision(llvm::IRBuilderBase& b, const TargetHooks& target, const Operation& op, llvm::Value* x) {
  Type t = op.result()->type().elementType();
  Attribute expAttr = op.attr("exponent_bits"), mantAttr = op.attr("mantissa_bits");
  if (!expAttr || !mantAttr || expAttr.intValue() < 1 || mantAttr.intValue() < 0)
    return unsupported(target, op, "without valid exponent_bits and mantissa_bits");
  if (t.kind() != TypeKind::F32 && t.kind() != TypeKind::F64) return unsupported(target, op, "on " + t.str());
  int64_t exponentBits = expAttr.intValue(), mantissaBits = mantAttr.intValue();
  FloatFormatInfo f = floatFormatInfo(t.kind());
  unsigned width = t.bitWidth();
  llvm::Type* intTy = b.getIntNTy(width);
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(intTy, v); };
  uint64_t signMask = uint64_t(1) << (width - 1);
  uint64_t expMask = ((uint64_t(1) << f.exponentBits) - 1) << f.mantissaBits;
  llvm::Value* bits = b.CreateBitCast(x, intTy);
  llvm::Value* r = bits;
  if (mantissaBits < f.mantissaBits) {
    int dropped = f.mantissaBits - int(mantissaBits);
    uint64_t lastKept = uint64_t(1) << dropped;
    llvm::Value* lastKeptBit = b.CreateLShr(b.CreateAnd(r, c(lastKept)), c(dropped));
    r = b.CreateAdd(r, b.CreateAdd(c((lastKept >> 1) - 1), lastKeptBit));
    r = b.CreateAnd(r, c(~(lastKept - 1)));
  }
  if (exponentBits < f.exponentBits) {
    int64_t reducedBias = (int64_t(1) << (exponentBits - 1)) - 1;
    llvm::Value* exponent = b.CreateAnd(r, c(expMask));
    llvm::Value* sign = b.CreateAnd(r, c(signMask));
    uint64_t maxExponent = uint64_t(f.bias + reducedBias) << f.mantissaBits;
    uint64_t minExponent = uint64_t(f.bias - reducedBias) << f.mantissaBits;
    r = b.CreateSelect(b.CreateICmpUGT(exponent, c(maxExponent)), b.CreateOr(sign, c(expMask)),
                       b.CreateSelect(b.CreateICmpULE(exponent, c(minExponent)), sign, r));
  }
  r = b.CreateSelect(b.CreateFCmpUNO(x, x), bits, r);
  return b.CreateBitCast(r, x->getType());
}

// A 64-bit integer as a double that rounds correctly to any narrower format:
// beyond 2^53 it keeps a sticky bit (round to odd), as the interpreter does.
llvm::Value* emitIntToDoubleForNarrowing(llvm::IRBuilderBase& b, llvm::Value* x, bool isUnsigned) {
  llvm::Type* i64 = b.getInt64Ty();
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(i64, v); };
  llvm::Value* negative = isUnsigned ? b.getFalse() : b.CreateICmpSLT(x, c(0));
  llvm::Value* magnitude = b.CreateSelect(negative, b.CreateNeg(x), x);
  llvm::Value* width = b.CreateSub(c(64), b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, magnitude, b.getFalse()));
  llvm::Value* dropped = b.CreateSelect(b.CreateICmpUGT(width, c(53)), b.CreateSub(width, c(53)), c(0));
  llvm::Value* lowMask = b.CreateSub(b.CreateShl(c(1), dropped), c(1));
  llvm::Value* sticky = b.CreateZExt(b.CreateICmpNE(b.CreateAnd(magnitude, lowMask), c(0)), i64);
  llvm::Value* odd = b.CreateOr(b.CreateAnd(magnitude, b.CreateNot(lowMask)), b.CreateShl(sticky, dropped));
  llvm::Value* v = b.CreateUIToFP(odd, b.getDoubleTy());  // exact: at most 53 significant bits
  return b.CreateSelect(negative, b.CreateFNeg(v), v);
}

// The ops on complex values the emitter takes (cbrt, power and atan2, which
// go through std::complex's pow and log, are routines);
// arithmetic as the interpreter's complex_math.h does it, in the part type,
// products as fused multiply-adds, division by Smith's algorithm with its
// limits, abs by the scaled square root, exp, log, expm1, log1p, sin, cos,
// tan, tanh and logistic by its formulas through libm's functions of the
// part type, sqrt and rsqrt through libm's csqrt.
Expected<llvm::Value*> emitComplex(llvm::IRBuilderBase& b, const TargetHooks& target, llvm::Module& m, const Operation& op, Type t,
                                   Type operandType, std::span<llvm::Value* const> xs) {
  std::string_view name = op.name();
  auto part = [&](llvm::Value* z, unsigned i) { return b.CreateExtractValue(z, i); };
  auto make = [&](llvm::Value* re, llvm::Value* im) {
    llvm::Value* z = llvm::PoisonValue::get(registerType(b.getContext(), t));
    return b.CreateInsertValue(b.CreateInsertValue(z, re, 0), im, 1);
  };
  auto partwise = [&](auto f) {
    return make(f(part(xs[0], 0), xs.size() > 1 ? part(xs[1], 0) : nullptr),
                f(part(xs[0], 1), xs.size() > 1 ? part(xs[1], 1) : nullptr));
  };
  auto fma = [&](llvm::Value* x, llvm::Value* y, llvm::Value* z) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z});
  };
  bool complexOperand = operandType.isComplex();
  if (name == "stablehlo.real") return complexOperand ? part(xs[0], 0) : xs[0];
  if (name == "stablehlo.imag")
    return complexOperand ? part(xs[0], 1) : llvm::Constant::getNullValue(registerType(b.getContext(), t));
  if (name == "stablehlo.complex") return make(xs[0], xs[1]);
  if (name == "stablehlo.convert") {
    // From a real type: (x, 0); to one: the real part (to a predicate: z != 0).
    if (!complexOperand) {
      Type to = t.complexElement();
      return make(emitConvert(b, xs[0], operandType, to), llvm::Constant::getNullValue(registerType(b.getContext(), to)));
    }
    Type from = operandType.complexElement();
    if (t.isComplex())
      return partwise([&](llvm::Value* x, llvm::Value*) { return emitConvert(b, x, from, t.complexElement()); });
    if (t.isBool())
      return b.CreateOr(emitConvert(b, part(xs[0], 0), from, t), emitConvert(b, part(xs[0], 1), from, t));
    return emitConvert(b, part(xs[0], 0), from, t);
  }
  if (name == "stablehlo.select") {
    return make(b.CreateSelect(xs[0], part(xs[1], 0), part(xs[2], 0)),
                b.CreateSelect(xs[0], part(xs[1], 1), part(xs[2], 1)));
  }
  if (name == "stablehlo.add")
    return partwise([&](llvm::Value* x, llvm::Value* y) { return b.CreateFAdd(x, y); });
  if (name == "stablehlo.subtract")
    return partwise([&](llvm::Value* x, llvm::Value* y) { return b.CreateFSub(x, y); });
  if (name == "stablehlo.negate") return partwise([&](llvm::Value* x, llvm::Value*) { return b.CreateFNeg(x); });
  if (name == "stablehlo.multiply") {
    llvm::Value *re = part(xs[0], 0), *im = part(xs[0], 1), *otherRe = part(xs[1], 0), *otherIm = part(xs[1], 1);
    return make(fma(re, otherRe, b.CreateFNeg(b.CreateFMul(im, otherIm))),
                fma(im, otherRe, b.CreateFMul(re, otherIm)));
  }
  auto fabs = [&](llvm::Value* x) { return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x); };
  auto isNaN = [&](llvm::Value* x) { return b.CreateFCmpUNO(x, x); };
  // |z|: max * sqrt(1 + (min / max)^2), min where that is NaN; NaN-propagating max and min.
  auto magnitude = [&](llvm::Value* z) {
    llvm::Value *re = fabs(part(z, 0)), *im = fabs(part(z, 1));
    llvm::Value* nan = llvm::ConstantFP::getQNaN(re->getType());
    llvm::Value* either = b.CreateOr(isNaN(re), isNaN(im));
    llvm::Value* hi = b.CreateSelect(either, nan, b.CreateSelect(b.CreateFCmpOLT(re, im), im, re));
    llvm::Value* lo = b.CreateSelect(either, nan, b.CreateSelect(b.CreateFCmpOLT(im, re), im, re));
    llvm::Value* ratio = b.CreateFDiv(lo, hi);
    llvm::Value* one = llvm::ConstantFP::get(re->getType(), 1.0);
    llvm::Value* r = b.CreateFMul(hi, b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, fma(ratio, ratio, one)));
    return b.CreateSelect(isNaN(r), lo, r);
  };
  // libm's function `name` of the part type (expf for complex64's exp, as
  // the interpreter's std:: calls are).
  auto libm = [&](const char* name, std::vector<llvm::Value*> args) {
    return target.callMathLibrary(b, m, std::string(name) + (args[0]->getType()->isFloatTy() ? "f" : ""), args);
  };
  // x / y: Smith's algorithm, then the limits where it gives (NaN, NaN): complex_math::divide.
  auto divide = [&](llvm::Value* x, llvm::Value* y) {
    llvm::Value *a = part(x, 0), *bb = part(x, 1), *c = part(y, 0), *d = part(y, 1);
    llvm::Type* type = a->getType();
    auto k = [&](double v) { return llvm::ConstantFP::get(type, v); };
    llvm::Value* small = b.CreateFCmpOLT(fabs(c), fabs(d));
    llvm::Value* ratio = b.CreateSelect(small, b.CreateFDiv(c, d), b.CreateFDiv(d, c));
    llvm::Value* denom = b.CreateSelect(small, fma(ratio, c, d), fma(ratio, d, c));
    llvm::Value* qRe = b.CreateFDiv(b.CreateSelect(small, fma(ratio, a, bb), fma(ratio, bb, a)), denom);
    llvm::Value* qIm =
        b.CreateFDiv(b.CreateSelect(small, fma(ratio, bb, b.CreateFNeg(a)), fma(b.CreateFNeg(ratio), a, bb)), denom);
    auto isInf = [&](llvm::Value* v) { return b.CreateFCmpOEQ(fabs(v), k(INFINITY)); };
    auto isFinite = [&](llvm::Value* v) { return b.CreateFCmpOLT(fabs(v), k(INFINITY)); };
    auto unitIf = [&](llvm::Value* cond, llvm::Value* signOf) {
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, b.CreateSelect(cond, k(1), k(0)), signOf);
    };
    // A zero divisor.
    llvm::Value* zeroDivisor = b.CreateAnd(b.CreateAnd(b.CreateFCmpOEQ(c, k(0)), b.CreateFCmpOEQ(d, k(0))),
                                           b.CreateNot(b.CreateAnd(isNaN(a), isNaN(bb))));
    llvm::Value* s = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, k(INFINITY), c);
    // An infinite dividend over a finite divisor.
    llvm::Value *aInf = isInf(a), *bInf = isInf(bb), *cInf = isInf(c), *dInf = isInf(d);
    llvm::Value* infiniteDividend =
        b.CreateAnd(b.CreateOr(aInf, bInf), b.CreateAnd(isFinite(c), isFinite(d)));
    llvm::Value *sa = unitIf(aInf, a), *sb = unitIf(bInf, bb);
    // A finite dividend over an infinite divisor.
    llvm::Value* infiniteDivisor =
        b.CreateAnd(b.CreateOr(cInf, dInf), b.CreateAnd(isFinite(a), isFinite(bb)));
    llvm::Value *sc = unitIf(cInf, c), *sd = unitIf(dInf, d);
    auto sum = [&](llvm::Value* p, llvm::Value* q, llvm::Value* r, llvm::Value* w, bool add) {
      return add ? b.CreateFAdd(b.CreateFMul(p, q), b.CreateFMul(r, w)) : b.CreateFSub(b.CreateFMul(p, q), b.CreateFMul(r, w));
    };
    llvm::Value* re = qRe;
    llvm::Value* im = qIm;
    llvm::Value* bothNaN = b.CreateAnd(isNaN(qRe), isNaN(qIm));
    // The last case checked first, so that the earlier ones win where several hold.
    re = b.CreateSelect(infiniteDivisor, b.CreateFMul(k(0), sum(a, sc, bb, sd, true)), re);
    im = b.CreateSelect(infiniteDivisor, b.CreateFMul(k(0), sum(bb, sc, a, sd, false)), im);
    re = b.CreateSelect(infiniteDividend, b.CreateFMul(k(INFINITY), sum(sa, c, sb, d, true)), re);
    im = b.CreateSelect(infiniteDividend, b.CreateFMul(k(INFINITY), sum(sb, c, sa, d, false)), im);
    re = b.CreateSelect(zeroDivisor, b.CreateFMul(s, a), re);
    im = b.CreateSelect(zeroDivisor, b.CreateFMul(s, bb), im);
    return make(b.CreateSelect(bothNaN, re, qRe), b.CreateSelect(bothNaN, im, qIm));
  };
  if (name == "stablehlo.divide") return divide(xs[0], xs[1]);
  if (name == "stablehlo.compare" && complexOperand && xs.size() == 2) {
    // Lexicographic on (real, imaginary) as the interpreter's partial
    // ordering: the real parts decide unless they are equal (unordered
    // real parts make every direction but NE false), whatever compare_type says.
    Attribute direction = op.attr("comparison_direction");
    std::string d = direction ? std::string(direction.stringValue()) : std::string();
    llvm::Value *xRe = part(xs[0], 0), *xIm = part(xs[0], 1), *yRe = part(xs[1], 0), *yIm = part(xs[1], 1);
    llvm::Value* reEqual = b.CreateFCmpOEQ(xRe, yRe);
    llvm::Value* equal = b.CreateAnd(reEqual, b.CreateFCmpOEQ(xIm, yIm));
    if (d == "EQ") return equal;
    if (d == "NE") return b.CreateNot(equal);
    using P = llvm::CmpInst::Predicate;
    P strict = d == "LT" || d == "LE" ? P::FCMP_OLT : P::FCMP_OGT;
    P onImag = d == "LT" ? P::FCMP_OLT : d == "LE" ? P::FCMP_OLE : d == "GT" ? P::FCMP_OGT : P::FCMP_OGE;
    if (d != "LT" && d != "LE" && d != "GT" && d != "GE")
      return unsupported(target, op, "without a known comparison_direction");
    return b.CreateOr(b.CreateFCmp(strict, xRe, yRe), b.CreateAnd(reEqual, b.CreateFCmp(onImag, xIm, yIm)));
  }
  if (!complexOperand) return unsupported(target, op, "on " + t.str());

  // The functions, each the formula of complex_math.h in the part type with
  // libm's functions of that type, step by step in the same order.
  llvm::Value *re = part(xs[0], 0), *im = part(xs[0], 1);
  llvm::Type* partType = re->getType();
  auto k = [&](double v) { return llvm::ConstantFP::get(partType, v); };
  auto mul = [&](llvm::Value* x, llvm::Value* y) { return b.CreateFMul(x, y); };
  auto add = [&](llvm::Value* x, llvm::Value* y) { return b.CreateFAdd(x, y); };
  auto sub = [&](llvm::Value* x, llvm::Value* y) { return b.CreateFSub(x, y); };
  auto isZero = [&](llvm::Value* x) { return b.CreateFCmpOEQ(x, k(0)); };
  auto isInf = [&](llvm::Value* x) { return b.CreateFCmpOEQ(fabs(x), k(INFINITY)); };
  // exp z: e^a (cos b + i sin b), a real argument keeping its imaginary part.
  auto exp = [&](llvm::Value* a, llvm::Value* bb) {
    llvm::Value* scale = libm("exp", {a});
    return make(mul(scale, libm("cos", {bb})), b.CreateSelect(isZero(bb), bb, mul(scale, libm("sin", {bb}))));
  };
  // tanh(a + bi) through expm1(2a), expm1(-2a), cos b and sin b.
  auto tanh = [&](llvm::Value* a, llvm::Value* bb) {
    llvm::Value* twoA = add(a, a);
    llvm::Value *em1 = libm("expm1", {twoA}), *emNeg1 = libm("expm1", {b.CreateFNeg(twoA)});
    llvm::Value *cb = libm("cos", {bb}), *sb = libm("sin", {bb});
    llvm::Value* imagNumerator = mul(k(4), mul(cb, sb));
    llvm::Value* expSumMinus2 = add(em1, emNeg1);
    llvm::Value* denom = add(expSumMinus2, mul(mul(cb, cb), k(4)));
    llvm::Value* saturated = b.CreateFCmpOEQ(expSumMinus2, k(INFINITY));
    llvm::Value* r = b.CreateSelect(saturated, b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, k(1), a),
                                    b.CreateFDiv(sub(em1, emNeg1), denom));
    llvm::Value* i = b.CreateFDiv(imagNumerator, denom);
    llvm::Value *sin2bNaN = isNaN(imagNumerator), *aInf = isInf(a);
    r = b.CreateSelect(b.CreateAnd(sin2bNaN, b.CreateNot(aInf)), llvm::ConstantFP::getQNaN(partType), r);
    i = b.CreateSelect(b.CreateOr(isZero(bb), b.CreateAnd(aInf, sin2bNaN)), k(0), i);
    return std::pair{r, i};
  };
  if (name == "stablehlo.abs") return magnitude(xs[0]);
  if (name == "stablehlo.log")  // log|z| + i atan2(b, a)
    return make(libm("log", {magnitude(xs[0])}), libm("atan2", {im, re}));
  if (name == "stablehlo.exponential") return exp(re, im);
  if (name == "stablehlo.exponential_minus_one") {
    // (expm1(a) cos b + cosm1(b)) + i e^a sin b, cosm1(b) = -2 sin^2(b / 2).
    llvm::Value* em1 = libm("expm1", {re});
    llvm::Value* s = libm("sin", {b.CreateFDiv(im, k(2))});
    llvm::Value* cosm1 = mul(mul(k(-2), s), s);
    llvm::Value* imag = b.CreateSelect(isZero(im), k(0), mul(add(em1, k(1)), libm("sin", {im})));
    return make(add(mul(em1, add(cosm1, k(1))), cosm1), imag);
  }
  if (name == "stablehlo.log_plus_one") {
    // log(max) + log1p((min/max)^2) / 2 over |1 + a| and |b|, log(max) as log1p(a) when 1 + a dominates.
    llvm::Value* a1 = add(re, k(1));
    llvm::Value *x = fabs(a1), *y = fabs(im);
    llvm::Value* nan = llvm::ConstantFP::getQNaN(partType);
    llvm::Value* either = b.CreateOr(isNaN(x), isNaN(y));
    llvm::Value* hi = b.CreateSelect(either, nan, b.CreateSelect(b.CreateFCmpOLT(x, y), y, x));
    llvm::Value* lo = b.CreateSelect(either, nan, b.CreateSelect(b.CreateFCmpOLT(y, x), y, x));
    llvm::Value* hiMinusOne = b.CreateSelect(b.CreateFCmpOGT(a1, y), re, sub(hi, k(1)));
    llvm::Value* ratio = b.CreateFDiv(lo, hi);
    llvm::Value* real = add(mul(k(0.5), libm("log1p", {mul(ratio, ratio)})), libm("log1p", {hiMinusOne}));
    return make(b.CreateSelect(isNaN(real), lo, real), libm("atan2", {im, a1}));
  }
  if (name == "stablehlo.sine" || name == "stablehlo.cosine") {
    // sinh b and cosh b from e^b: (e^b / 2 -/+ e^-b / 2).
    llvm::Value* eb = libm("exp", {im});
    llvm::Value *halfExp = mul(k(0.5), eb), *halfExpNeg = b.CreateFDiv(k(0.5), eb);
    llvm::Value *cosh = add(halfExp, halfExpNeg), *sinh = sub(halfExp, halfExpNeg);
    llvm::Value *sinA = libm("sin", {re}), *cosA = libm("cos", {re});
    if (name == "stablehlo.sine") return make(mul(sinA, cosh), mul(cosA, sinh));
    return make(mul(cosA, cosh), b.CreateFNeg(mul(sinA, sinh)));
  }
  if (name == "stablehlo.tanh") {
    auto [r, i] = tanh(re, im);
    return make(r, i);
  }
  if (name == "stablehlo.tan") {  // -i tanh(iz), iz = -b + ai
    auto [r, i] = tanh(b.CreateFNeg(im), re);
    return make(i, b.CreateFNeg(r));
  }
  if (name == "stablehlo.sqrt" || name == "stablehlo.rsqrt") {
    // std::sqrt of a std::complex is C's csqrtf / csqrt (Annex G's branch
    // cut and special values), called as the target calls C. rsqrt is
    // 1 / sqrt z (complex_math.h).
    auto [rootRe, rootIm] = target.callComplexSqrt(b, m, re, im);
    llvm::Value* root = make(rootRe, rootIm);
    return name == "stablehlo.sqrt" ? root : divide(make(k(1), k(0)), root);
  }
  if (name == "stablehlo.logistic") {  // 1 / (1 + e^-z)
    llvm::Value* e = exp(b.CreateFNeg(re), b.CreateFNeg(im));
    llvm::Value* one = make(k(1), k(0));
    return divide(one, make(add(k(1), part(e, 0)), add(k(0), part(e, 1))));
  }
  return unsupported(target, op, "on " + (complexOperand ? operandType : t).str());
}

}  // namespace

llvm::Type* registerType(llvm::LLVMContext& ctx, Type t) {
  if (t && t.isComplex()) {
    llvm::Type* part = registerType(ctx, t.complexElement());
    return part ? llvm::StructType::get(ctx, {part, part}) : nullptr;
  }
  if (!t || !t.isElement()) return nullptr;
  if (t.isBool()) return llvm::Type::getInt1Ty(ctx);
  if (t.isInteger()) return llvm::Type::getIntNTy(ctx, t.bitWidth());
  if (t.kind() == TypeKind::F64) return llvm::Type::getDoubleTy(ctx);
  if (t.kind() == TypeKind::F32 || isNarrow(t)) return llvm::Type::getFloatTy(ctx);
  return nullptr;
}

// In memory a predicate is a byte, a narrow float its bits, and i2/i4 a
// byte holding the sign- (or zero-) extended value.
static llvm::Type* memoryType(llvm::LLVMContext& ctx, Type t) {
  if (t.isBool() || isNarrow(t) || t.isInteger()) return llvm::Type::getIntNTy(ctx, t.storageBytes() * 8);
  return registerType(ctx, t);
}

// A complex element is its two parts, real first, in memory and in a
// register (a struct LLVM takes apart again once the loop is built).
llvm::Value* emitLoadElement(llvm::IRBuilderBase& b, llvm::Value* base, Type element, llvm::Value* index) {
  if (element.isComplex()) {
    llvm::Value* first = b.CreateMul(index, b.getInt64(2));
    llvm::Value* z = llvm::PoisonValue::get(registerType(b.getContext(), element));
    for (unsigned part = 0; part < 2; ++part) {
      llvm::Value* at = b.CreateAdd(first, b.getInt64(part));
      z = b.CreateInsertValue(z, emitLoadElement(b, base, element.complexElement(), at), part);
    }
    return z;
  }
  llvm::Type* type = memoryType(b.getContext(), element);
  llvm::Value* x = b.CreateLoad(type, b.CreateGEP(type, base, index));
  if (element.isBool()) return b.CreateICmpNE(x, b.getInt8(0));
  if (isNarrow(element)) return emitDecodeNarrow(b, x, element.kind());
  if (element.isInteger() && element.bitWidth() < 8) return b.CreateTrunc(x, registerType(b.getContext(), element));
  return x;
}

void emitStoreElement(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* base, Type element, llvm::Value* index) {
  if (element.isComplex()) {
    llvm::Value* first = b.CreateMul(index, b.getInt64(2));
    for (unsigned part = 0; part < 2; ++part)
      emitStoreElement(b, b.CreateExtractValue(x, part), base, element.complexElement(),
                       b.CreateAdd(first, b.getInt64(part)));
    return;
  }
  llvm::Type* type = memoryType(b.getContext(), element);
  if (element.isBool()) x = b.CreateZExt(x, type);
  if (isNarrow(element)) x = emitEncodeNarrow(b, x, element.kind());
  if (element.isInteger() && element.bitWidth() < 8)
    x = element.isUnsignedInteger() ? b.CreateZExt(x, type) : b.CreateSExt(x, type);
  b.CreateStore(x, b.CreateGEP(type, base, index));
}

bool isTotalOrderCompareOfBits(const Operation& op) {
  if (op.name() != "stablehlo.compare" || op.numOperands() != 2) return false;
  Attribute compareType = op.attr("compare_type");
  Type t = op.operand(0)->type().elementType();
  return compareType && compareType.stringValue() == "TOTALORDER" && t.isFloat() && totalOrderByRegister(t);
}

Expected<llvm::Value*> emitTotalOrderCompareBits(llvm::IRBuilderBase& b, const TargetHooks& target,
                                                 const Operation& op, llvm::Value* xBits, llvm::Value* yBits) {
  using P = llvm::CmpInst::Predicate;
  static const std::map<std::string, P, std::less<>> kSigned = {{"EQ", P::ICMP_EQ},   {"NE", P::ICMP_NE},
                                                                {"LT", P::ICMP_SLT}, {"LE", P::ICMP_SLE},
                                                                {"GT", P::ICMP_SGT}, {"GE", P::ICMP_SGE}};
  Attribute direction = op.attr("comparison_direction");
  auto it = direction ? kSigned.find(direction.stringValue()) : kSigned.end();
  if (it == kSigned.end()) return unsupported(target, op, "without a known comparison_direction");
  return b.CreateICmp(it->second, totalOrderKey(b, xBits), totalOrderKey(b, yBits));
}

llvm::Constant* elementConstant(llvm::LLVMContext& ctx, Type element, const uint8_t* bytes) {
  if (element.isComplex()) {
    Type part = element.complexElement();
    return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(registerType(ctx, element)),
                                     {elementConstant(ctx, part, bytes),
                                      elementConstant(ctx, part, bytes + part.storageBytes())});
  }
  uint64_t bits = 0;
  std::memcpy(&bits, bytes, element.storageBytes());  // little-endian host
  if (element.isInteger() && element.bitWidth() < 64) bits &= (uint64_t(1) << element.bitWidth()) - 1;
  llvm::Type* type = registerType(ctx, element);
  if (element.kind() == TypeKind::F64) return llvm::ConstantFP::get(type, std::bit_cast<double>(bits));
  if (element.kind() == TypeKind::F32)  // bit for bit, NaN payloads included
    return llvm::ConstantFP::get(ctx, llvm::APFloat(llvm::APFloat::IEEEsingle(), llvm::APInt(32, bits)));
  if (element.isFloat()) return llvm::ConstantFP::get(type, float(decodeFloat(element.kind(), bits)));
  if (element.isBool()) return llvm::ConstantInt::get(type, bits != 0);
  return llvm::ConstantInt::get(type, bits);  // truncates to the width
}

llvm::Value* emitConvert(llvm::IRBuilderBase& b, llvm::Value* x, Type from, Type to) {
  llvm::Type* toType = registerType(b.getContext(), to);
  if (from == to) return x;
  if (to.isBool())
    return from.isFloat() ? b.CreateFCmpUNE(x, llvm::ConstantFP::get(x->getType(), 0.0))  // NaN is true
                          : b.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  if (from.isBool()) return to.isFloat() ? b.CreateUIToFP(x, toType) : b.CreateZExt(x, toType);
  if (from.isFloat() && to.isFloat()) {
    if (isNarrow(to)) return emitRoundToNarrow(b, x, to.kind());
    return b.CreateFPCast(x, toType);  // exact, except f64 -> f32 which rounds once
  }
  // Float to integer: toward zero, saturating, NaN to 0.
  if (from.isFloat())
    return b.CreateIntrinsic(to.isUnsignedInteger() ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat,
                             {toType, x->getType()}, {x});
  bool fromUnsigned = from.isUnsignedInteger();
  if (to.isFloat()) {
    if (!isNarrow(to)) return fromUnsigned ? b.CreateUIToFP(x, toType) : b.CreateSIToFP(x, toType);
    llvm::Value* wide = from.bitWidth() == 64 ? emitIntToDoubleForNarrowing(b, x, fromUnsigned)
                        : fromUnsigned        ? b.CreateUIToFP(x, b.getDoubleTy())
                                              : b.CreateSIToFP(x, b.getDoubleTy());
    return emitRoundToNarrow(b, wide, to.kind());
  }
  return fromUnsigned ? b.CreateZExtOrTrunc(x, toType) : b.CreateSExtOrTrunc(x, toType);
}

llvm::Value* emitIndexAs(llvm::IRBuilderBase& b, llvm::Value* value, Type t) {
  if (t.isBool()) return b.CreateICmpNE(value, b.getInt64(0));
  if (t.isInteger()) return b.CreateTrunc(value, registerType(b.getContext(), t));
  if (t.kind() == TypeKind::F64 || t.kind() == TypeKind::F32)
    return b.CreateUIToFP(value, registerType(b.getContext(), t));
  return emitRoundToNarrow(b, b.CreateUIToFP(value, b.getDoubleTy()), t.kind());
}

Status unsupported(const TargetHooks& target, const Operation& op, std::string_view what) {
  return unsupported(target.backendName(), op, what);
}

Expected<llvm::Value*> emitElementwise(llvm::IRBuilderBase& b, llvm::Module& m, const TargetHooks& target,
                                       const Operation& op, std::span<llvm::Value* const> xs) {
  std::string_view name = op.name();
  if (op.numOperands() != xs.size() || op.numResults() != 1)
    return unsupported(target, op, "with " + std::to_string(op.numOperands()) + " operands");
  Type t = op.result()->type().elementType();
  Type operandType = op.operand(0)->type().elementType();
  // f8E8M0FNU values are converted only: its arithmetic (computed here in
  // f32, in double by the interpreter) and its compares (no sign bit for
  // TOTALORDER) are not emitted.
  if (name != "stablehlo.convert") {
    bool exponentOnly = t.kind() == TypeKind::F8E8M0FNU;
    for (const Value* operand : op.operands()) exponentOnly |= operand->type().elementType().kind() == TypeKind::F8E8M0FNU;
    if (exponentOnly) return unsupported(target, op, "on f8E8M0FNU");
  }
  if (t.isComplex() || operandType.isComplex() || name == "stablehlo.real" || name == "stablehlo.imag")
    return emitComplex(b, target, m, op, t, operandType, xs);
  if (name == "stablehlo.convert") return emitConvert(b, xs[0], operandType, t);
  if (name == "stablehlo.compare") return emitCompare(b, target, op, xs[0], xs[1]);
  if (name == "stablehlo.select") return b.CreateSelect(xs[0], xs[1], xs[2]);
  if (name == "stablehlo.reduce_precision") return emitReducePrecision(b, target, op, xs[0]);
  if (name == "stablehlo.bitcast_convert") {
    // Same-width reinterpretation of register bits; narrow floats live
    // decoded in registers (NaN payloads are not kept), so they are left out.
    bool plain = t.bitWidth() == operandType.bitWidth() && !t.isBool() && !operandType.isBool() &&
                 !isNarrow(t) && !isNarrow(operandType) && op.result()->type().rank() == op.operand(0)->type().rank();
    if (!plain) return unsupported(target, op, "from " + operandType.str() + " to " + t.str());
    return b.CreateBitCast(xs[0], registerType(b.getContext(), t));
  }
  if (name == "stablehlo.is_finite") {
    if (!operandType.isFloat()) return unsupported(target, op, "on " + operandType.str());
    llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, xs[0]);
    return b.CreateFCmpOLT(a, llvm::ConstantFP::getInfinity(a->getType()));
  }
  if (name == "stablehlo.clamp") {
    // min(max(operand, min), max) with maximum/minimum's rules; the bounds
    // may be scalars (the caller reads those at index 0).
    auto maxOrMin = [&](bool isMax, llvm::Value* x, llvm::Value* y) -> llvm::Value* {
      if (t.isFloat()) return isMax ? b.CreateMaximum(x, y) : b.CreateMinimum(x, y);
      if (t.isBool()) return isMax ? b.CreateOr(x, y) : b.CreateAnd(x, y);
      bool u = t.isUnsignedInteger();
      return b.CreateBinaryIntrinsic(isMax ? (u ? llvm::Intrinsic::umax : llvm::Intrinsic::smax)
                                           : (u ? llvm::Intrinsic::umin : llvm::Intrinsic::smin), x, y);
    };
    return maxOrMin(false, maxOrMin(true, xs[1], xs[0]), xs[2]);
  }
  if (t.isBool()) return emitBool(b, target, op, xs);
  if (t.isInteger()) return emitInt(b, target, op, t, xs);
  if (!t.isFloat()) return unsupported(target, op, "on " + t.str());
  KILN_ASSIGN_OR_RETURN(llvm::Value * r, emitFloat(b, target, m, op, t, xs));
  return roundTo(b, r, t);
}

}  // namespace kiln::codegen
