// Narrow float formats in emitted code: encode and decode with integer ops,
// following kiln/ir/float_formats.cpp (the interpreter's conversions).
#include "kiln/codegen/narrow_floats.h"

#include <cmath>

#include "kiln/ir/float_formats.h"

namespace kiln::codegen {
namespace {

// How a format spends the encodings IEEE reserves for Inf and NaN (the same
// classification as float_formats.cpp, read off FloatFormatInfo).
enum class Specials { IEEE, FN, FNUZ, Saturate };

struct Format {
  int exponentBits, mantissaBits, bias;
  Specials specials;

  int signBit() const { return exponentBits + mantissaBits; }
  uint64_t magnitudeMask() const { return (uint64_t(1) << signBit()) - 1; }
  uint64_t maxExponentField() const { return (uint64_t(1) << exponentBits) - 1; }
  int minExponent() const { return 1 - bias; }
  uint64_t maxFiniteBits() const {
    switch (specials) {
      case Specials::IEEE: return (maxExponentField() << mantissaBits) - 1;
      case Specials::FN: return magnitudeMask() - 1;
      default: return magnitudeMask();
    }
  }
  uint64_t nanBits(bool negative) const {
    uint64_t sign = uint64_t(negative) << signBit();
    switch (specials) {
      case Specials::IEEE: return sign | (maxExponentField() << mantissaBits) | (uint64_t(1) << (mantissaBits - 1));
      case Specials::FN: return sign | magnitudeMask();
      case Specials::FNUZ: return uint64_t(1) << signBit();
      case Specials::Saturate: return negative ? 0 : uint64_t(1) << signBit();  // as ml_dtypes
    }
    return 0;
  }
};

Format formatOf(TypeKind kind) {
  FloatFormatInfo info = floatFormatInfo(kind);
  Specials specials = info.hasInf            ? Specials::IEEE
                      : !info.hasNaN         ? Specials::Saturate
                      : info.hasNegativeZero ? Specials::FN
                                             : Specials::FNUZ;
  return {info.exponentBits, info.mantissaBits, info.bias, specials};
}

unsigned storageBits(TypeKind kind) { return Type::element(kind).storageBytes() * 8; }

}  // namespace

bool isNarrowFloat(TypeKind kind) {
  Type t = Type::element(kind);
  return t.isFloat() && t.bitWidth() < 32;
}

namespace {

// f32 bits `u` with their upper half rounded to nearest even as bf16's
// (adding 0x7FFF plus the kept part's lowest bit; a carry bumps the
// exponent, up to Inf), the lower half left over; NaNs are the caller's.
llvm::Value* bf16RoundedHalf(llvm::IRBuilderBase& b, llvm::Value* u) {
  llvm::Value* lowest = b.CreateAnd(b.CreateLShr(u, 16), 1);
  return b.CreateAdd(u, b.CreateAdd(lowest, b.getInt32(0x7FFF)));
}

}  // namespace

namespace {

// f8E8M0FNU (an exponent only, no sign, no zero) from an f32 or f64 register
// `x`, as float_formats.cpp's encodeFloat: NaN, Inf, zeros and negative
// numbers are NaN (0xFF); below 2^-127 clamps to 0 (2^-127); otherwise the
// exponent, plus one where the significand is at least 1.5 (round to
// nearest, ties up to the even 2), NaN past 2^127. Integer ops on the bits.
llvm::Value* emitEncodeExponentOnly(llvm::IRBuilderBase& b, llvm::Value* x) {
  bool wide = x->getType()->isDoubleTy();
  unsigned width = wide ? 64 : 32, mantissaBits = wide ? 52 : 23;
  int64_t bias = wide ? 1023 : 127;
  llvm::Type* intTy = b.getIntNTy(width);
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(intTy, v); };
  llvm::Value* u = b.CreateBitCast(x, intTy);
  llvm::Value* a = b.CreateAnd(u, c((uint64_t(1) << (width - 1)) - 1));
  llvm::Value* field = b.CreateLShr(a, c(mantissaBits));
  llvm::Value* half = b.CreateAnd(b.CreateLShr(a, c(mantissaBits - 1)), c(1));
  // Exponent field e of the source is 2^(e - bias): the result is e - bias + 127.
  llvm::Value* normal = b.CreateAdd(b.CreateSub(field, c(uint64_t(bias - 127))), half);
  llvm::Value* r = normal;
  if (wide) {
    // Below 2^-127 (exponent field under bias - 127, subnormals too): 0.
    r = b.CreateSelect(b.CreateICmpULT(field, c(uint64_t(bias - 127))), c(0), r);
  } else {
    // f32 subnormals: [2^-127, 1.5 * 2^-127) and below give 0, from there 1.
    r = b.CreateSelect(b.CreateICmpEQ(field, c(0)), b.CreateZExt(b.CreateICmpUGE(a, c(0x00600000)), intTy), r);
  }
  llvm::Value* nan = b.CreateOr(b.CreateICmpSLT(u, c(0)), b.CreateICmpEQ(a, c(0)));  // negative or a zero
  nan = b.CreateOr(nan, b.CreateICmpUGE(field, c((uint64_t(1) << (width - 1 - mantissaBits)) - 1)));  // Inf, NaN
  nan = b.CreateOr(nan, b.CreateICmpUGT(r, c(0xFE)));  // past 2^127
  return b.CreateTrunc(b.CreateSelect(nan, c(0xFF), r), b.getInt8Ty());
}

}  // namespace

// Rounds the source's significand `s` (with its unbiased exponent E) to the
// format's grid at exponent max(E, minExponent): q = s / 2^shift rounded to
// nearest even, and the magnitude bits are ((e - minExponent) << m) + q, so a
// carry out of q bumps the exponent and subnormals get exponent field 0 --
// the same arithmetic as float_formats.cpp's roundMagnitude.
llvm::Value* emitEncodeNarrow(llvm::IRBuilderBase& b, llvm::Value* x, TypeKind kind) {
  if (kind == TypeKind::F8E8M0FNU) return emitEncodeExponentOnly(b, x);
  if (kind == TypeKind::BF16 && x->getType()->isFloatTy()) {
    // bf16 is f32's upper half: rounding to nearest even is adding 0x7FFF
    // plus the kept part's lowest bit (a carry bumps the exponent, up to
    // Inf), the same bits as the general path below, in 6 instructions.
    llvm::Value* u = b.CreateBitCast(x, b.getInt32Ty());
    llvm::Value* rounded = b.CreateLShr(bf16RoundedHalf(b, u), 16);
    llvm::Value* isNaN = b.CreateICmpUGT(b.CreateAnd(u, b.getInt32(0x7FFFFFFF)), b.getInt32(0x7F800000));
    llvm::Value* nan = b.CreateOr(b.CreateAnd(b.CreateLShr(u, 16), 0x8000), b.getInt32(0x7FC0));
    return b.CreateTrunc(b.CreateSelect(isNaN, nan, rounded), b.getInt16Ty());
  }
  if (kind == TypeKind::F16 && x->getType()->isFloatTy()) {
    // Integer ops that vectorize, the same bits as the general path below:
    // normal results re-bias the exponent and round at bit 13 (adding
    // 0xFFF plus the kept part's lowest bit; a carry reaches Inf as it
    // should); below f16's normal range, adding 0.5 rounds the magnitude
    // at f16's subnormal step 2^-24 (the float adder rounds to nearest
    // even), which leaves the result in the sum's low bits.
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Value* u = b.CreateBitCast(x, i32);
    llvm::Value* a = b.CreateAnd(u, b.getInt32(0x7FFFFFFF));
    llvm::Value* biased = b.CreateAdd(a, b.getInt32(((15 - 127) << 23) + 0xFFF));
    llvm::Value* normal = b.CreateLShr(b.CreateAdd(biased, b.CreateAnd(b.CreateLShr(a, 13), 1)), 13);
    llvm::Value* sum = b.CreateFAdd(b.CreateBitCast(a, b.getFloatTy()), llvm::ConstantFP::get(b.getFloatTy(), 0.5));
    llvm::Value* small = b.CreateSub(b.CreateBitCast(sum, i32), b.getInt32(0x3F000000));
    llvm::Value* r = b.CreateSelect(b.CreateICmpULT(a, b.getInt32(0x38800000)), small, normal);
    llvm::Value* special = b.CreateSelect(b.CreateICmpUGT(a, b.getInt32(0x7F800000)), b.getInt32(0x7E00), b.getInt32(0x7C00));
    r = b.CreateSelect(b.CreateICmpUGE(a, b.getInt32(0x47800000)), special, r);
    r = b.CreateOr(r, b.CreateLShr(b.CreateAnd(u, b.getInt32(0x80000000u)), 16));
    return b.CreateTrunc(r, b.getInt16Ty());
  }
  Format f = formatOf(kind);
  bool wide = x->getType()->isDoubleTy();
  unsigned width = wide ? 64 : 32;
  int srcMantissa = wide ? 52 : 23, srcBias = wide ? 1023 : 127;
  llvm::Type* intTy = b.getIntNTy(width);
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(intTy, v); };

  llvm::Value* u = b.CreateBitCast(x, intTy);
  llvm::Value* negative = b.CreateICmpSLT(u, c(0));
  llvm::Value* a = b.CreateAnd(u, c((uint64_t(1) << (width - 1)) - 1));
  uint64_t srcInf = ((uint64_t(1) << (width - 1 - srcMantissa)) - 1) << srcMantissa;
  llvm::Value* isNaN = b.CreateICmpUGT(a, c(srcInf));
  llvm::Value* field = b.CreateLShr(a, c(srcMantissa));
  llvm::Value* mantissa = b.CreateAnd(a, c((uint64_t(1) << srcMantissa) - 1));
  llvm::Value* isNormal = b.CreateICmpNE(field, c(0));
  llvm::Value* s = b.CreateSelect(isNormal, b.CreateOr(mantissa, c(uint64_t(1) << srcMantissa)), mantissa);
  // Unbiased exponents, as signed integers.
  llvm::Value* e = b.CreateSub(b.CreateSelect(isNormal, field, c(1)), c(srcBias));
  llvm::Value* et = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, e, c(uint64_t(int64_t(f.minExponent()))));
  llvm::Value* shift = b.CreateAdd(c(srcMantissa - f.mantissaBits), b.CreateSub(et, e));
  // Beyond srcMantissa + 2 the value is below half the grid step: it rounds to 0 either way.
  shift = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, shift, c(srcMantissa + 2));
  llvm::Value* q = b.CreateLShr(s, shift);
  llvm::Value* rest = b.CreateAnd(s, b.CreateSub(b.CreateShl(c(1), shift), c(1)));
  llvm::Value* half = b.CreateShl(c(1), b.CreateSub(shift, c(1)));
  llvm::Value* roundUp = b.CreateOr(b.CreateICmpUGT(rest, half),
                                    b.CreateAnd(b.CreateICmpEQ(rest, half), b.CreateTrunc(q, b.getInt1Ty())));
  q = b.CreateAdd(q, b.CreateZExt(roundUp, intTy));
  llvm::Value* magnitude =
      b.CreateAdd(b.CreateShl(b.CreateSub(et, c(uint64_t(int64_t(f.minExponent())))), c(f.mantissaBits)), q);

  llvm::Value* sign = b.CreateSelect(negative, c(uint64_t(1) << f.signBit()), c(0));
  llvm::Value* nan = b.CreateSelect(negative, c(f.nanBits(true)), c(f.nanBits(false)));
  llvm::Value* overflowed = nullptr;  // also what Inf encodes to
  switch (f.specials) {
    case Specials::IEEE: overflowed = b.CreateOr(sign, c(f.maxExponentField() << f.mantissaBits)); break;
    case Specials::Saturate: overflowed = b.CreateOr(sign, c(f.maxFiniteBits())); break;
    default: overflowed = nan; break;
  }
  llvm::Value* r = b.CreateOr(sign, magnitude);
  if (f.specials == Specials::FNUZ) r = b.CreateSelect(b.CreateICmpEQ(magnitude, c(0)), c(0), r);  // no -0
  r = b.CreateSelect(b.CreateICmpUGT(magnitude, c(f.maxFiniteBits())), overflowed, r);
  r = b.CreateSelect(isNaN, nan, r);
  return b.CreateTrunc(r, b.getIntNTy(storageBits(kind)));
}

llvm::Value* emitDecodeNarrow(llvm::IRBuilderBase& b, llvm::Value* bits, TypeKind kind) {
  if (kind == TypeKind::F8E8M0FNU) {
    // 2^(bits - 127): the bits are f32's exponent field, except 0 (2^-127,
    // f32's subnormal 0x00400000) and 0xFF (NaN); integer ops only.
    llvm::Value* e = b.CreateZExt(bits, b.getInt32Ty());
    llvm::Value* v = b.CreateShl(e, 23);
    v = b.CreateSelect(b.CreateICmpEQ(e, b.getInt32(0)), b.getInt32(0x00400000), v);
    v = b.CreateSelect(b.CreateICmpEQ(e, b.getInt32(0xFF)), b.getInt32(0x7FC00000), v);
    return b.CreateBitCast(v, b.getFloatTy());
  }
  if (kind == TypeKind::BF16) {
    // The upper half of the f32; NaNs become the default NaN of their sign, as below.
    llvm::Value* u = b.CreateShl(b.CreateZExt(bits, b.getInt32Ty()), 16);
    llvm::Value* isNaN = b.CreateICmpUGT(b.CreateAnd(u, b.getInt32(0x7FFFFFFF)), b.getInt32(0x7F800000));
    llvm::Value* nan = b.CreateOr(b.CreateAnd(u, b.getInt32(0x80000000u)), b.getInt32(0x7FC00000));
    return b.CreateBitCast(b.CreateSelect(isNaN, nan, u), b.getFloatTy());
  }
  if (kind == TypeKind::F16) {
    // Normal numbers: the magnitude shifted into f32's place and re-biased;
    // subnormals: their mantissa converted and scaled by 2^-24 (no f32
    // subnormal on the way, which a DAZ mode would flush); Inf and NaN
    // (exponent field 31) as below.
    llvm::Type* i32 = b.getInt32Ty();
    llvm::Value* h = b.CreateZExt(bits, i32);
    llvm::Value* magnitude = b.CreateAnd(h, b.getInt32(0x7FFF));
    llvm::Value* normal = b.CreateAdd(b.CreateShl(magnitude, 13), b.getInt32((127 - 15) << 23));
    llvm::Value* subnormal = b.CreateBitCast(
        b.CreateFMul(b.CreateUIToFP(magnitude, b.getFloatTy()), llvm::ConstantFP::get(b.getFloatTy(), std::ldexp(1.0, -24))),
        i32);
    llvm::Value* v = b.CreateSelect(b.CreateICmpULT(magnitude, b.getInt32(0x0400)), subnormal, normal);
    llvm::Value* special = b.CreateSelect(b.CreateICmpUGT(magnitude, b.getInt32(0x7C00)), b.getInt32(0x7FC00000),
                                          b.getInt32(0x7F800000));
    v = b.CreateSelect(b.CreateICmpUGE(magnitude, b.getInt32(0x7C00)), special, v);
    v = b.CreateOr(v, b.CreateShl(b.CreateAnd(h, b.getInt32(0x8000)), 16));
    return b.CreateBitCast(v, b.getFloatTy());
  }
  Format f = formatOf(kind);
  llvm::Type* i32 = b.getInt32Ty();
  auto c = [&](uint64_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* x = b.CreateAnd(b.CreateZExt(bits, i32), c((uint64_t(1) << (f.signBit() + 1)) - 1));
  llvm::Value* negative = b.CreateICmpNE(b.CreateLShr(x, c(f.signBit())), c(0));
  llvm::Value* magnitude = b.CreateAnd(x, c(f.magnitudeMask()));
  llvm::Value* field = b.CreateLShr(magnitude, c(f.mantissaBits));
  llvm::Value* mantissa = b.CreateAnd(magnitude, c((uint64_t(1) << f.mantissaBits) - 1));
  // Normal numbers re-biased into f32's exponent field (every format here
  // fits f32's normal range); subnormals scaled exactly from the mantissa.
  llvm::Value* normal = b.CreateBitCast(
      b.CreateOr(b.CreateShl(b.CreateAdd(field, c(uint64_t(127 - f.bias))), c(23)),
                 b.CreateShl(mantissa, c(23 - f.mantissaBits))),
      b.getFloatTy());
  llvm::Value* subnormal = b.CreateFMul(b.CreateUIToFP(mantissa, b.getFloatTy()),
                                        llvm::ConstantFP::get(b.getFloatTy(), std::ldexp(1.0, f.minExponent() - f.mantissaBits)));
  llvm::Value* v = b.CreateSelect(b.CreateICmpEQ(field, c(0)), subnormal, normal);
  v = b.CreateSelect(negative, b.CreateFNeg(v), v);

  auto f32 = [&](uint32_t pattern) { return b.CreateBitCast(c(pattern), b.getFloatTy()); };
  llvm::Value* nan = b.CreateSelect(negative, f32(0xFFC00000u), f32(0x7FC00000u));
  switch (f.specials) {
    case Specials::IEEE: {
      llvm::Value* special = b.CreateSelect(b.CreateICmpEQ(mantissa, c(0)),
                                            b.CreateSelect(negative, f32(0xFF800000u), f32(0x7F800000u)), nan);
      return b.CreateSelect(b.CreateICmpEQ(field, c(f.maxExponentField())), special, v);
    }
    case Specials::FN: return b.CreateSelect(b.CreateICmpEQ(magnitude, c(f.magnitudeMask())), nan, v);
    case Specials::FNUZ: return b.CreateSelect(b.CreateICmpEQ(x, c(uint64_t(1) << f.signBit())), f32(0x7FC00000u), v);
    case Specials::Saturate: return v;
  }
  return v;
}

llvm::Value* emitRoundToNarrow(llvm::IRBuilderBase& b, llvm::Value* x, TypeKind kind) {
  if (kind == TypeKind::BF16 && x->getType()->isFloatTy()) {
    // Encode then decode in one: the rounded f32 keeps its upper half (no
    // carry leaves the 32 bits: the largest magnitude, Inf, gains 0x7FFF),
    // and a NaN becomes the default NaN of its sign, as the decode makes it.
    // 8 instructions where the two steps took 18 (bf16 softmax's
    // subtract and exp round to bf16 once per element each).
    llvm::Value* u = b.CreateBitCast(x, b.getInt32Ty());
    llvm::Value* rounded = b.CreateAnd(bf16RoundedHalf(b, u), b.getInt32(0xFFFF0000u));
    llvm::Value* nan = b.CreateOr(b.CreateAnd(u, b.getInt32(0x80000000u)), b.getInt32(0x7FC00000));
    return b.CreateBitCast(b.CreateSelect(b.CreateFCmpUNO(x, x), nan, rounded), b.getFloatTy());
  }
  return emitDecodeNarrow(b, emitEncodeNarrow(b, x, kind), kind);
}

}  // namespace kiln::codegen
