// Bit-exact conversions between double and kiln's floating-point formats.
//
// Every format is described by a FloatFormat (field widths, bias and how it
// spends its special encodings); one generic encoder and one generic decoder
// serve them all. The behaviour where formats lack Inf or NaN follows
// ml_dtypes (the library JAX and XLA use for these types), which
// tests/unit/float_formats_test.cpp checks against tables ml_dtypes produced.
#include "kiln/ir/float_formats.h"

#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace kiln {
namespace {

// How a format uses the encodings IEEE 754 reserves for Inf and NaN.
enum class Specials {
  IEEE,        // all-ones exponent: Inf (mantissa 0) or NaN; overflow gives Inf
  FN,          // no Inf; only all-ones exponent and mantissa is NaN; overflow gives NaN
  FNUZ,        // no Inf, no -0; the -0 pattern (sign bit only) is NaN; overflow gives NaN
  Saturate,    // no Inf, no NaN (f4/f6): overflow saturates, NaN becomes a zero
  UnsignedExp  // f8E8M0FNU: exponent only, no sign, no zero; all ones is NaN
};

struct FloatFormat {
  int exponentBits;
  int mantissaBits;
  int bias;
  Specials specials;

  int signBit() const { return exponentBits + mantissaBits; }
  uint64_t magnitudeMask() const { return (uint64_t(1) << signBit()) - 1; }
  int maxExponentField() const { return (1 << exponentBits) - 1; }
  // Unbiased exponent of the smallest normal number.
  int minExponent() const { return specials == Specials::UnsignedExp ? -bias : 1 - bias; }

  // Largest finite magnitude's bit pattern.
  uint64_t maxFiniteBits() const {
    switch (specials) {
      case Specials::IEEE:
        return (uint64_t(maxExponentField()) << mantissaBits) - 1;
      case Specials::FN:
        return magnitudeMask() - 1;
      case Specials::FNUZ:
      case Specials::Saturate:
        return magnitudeMask();
      case Specials::UnsignedExp:
        return 0xFE;
    }
    return 0;
  }
};

FloatFormat formatOf(TypeKind kind) {
  switch (kind) {
    case TypeKind::F4E2M1FN:
      return {2, 1, 1, Specials::Saturate};
    case TypeKind::F6E2M3FN:
      return {2, 3, 1, Specials::Saturate};
    case TypeKind::F6E3M2FN:
      return {3, 2, 3, Specials::Saturate};
    case TypeKind::F8E3M4:
      return {3, 4, 3, Specials::IEEE};
    case TypeKind::F8E4M3:
      return {4, 3, 7, Specials::IEEE};
    case TypeKind::F8E4M3FN:
      return {4, 3, 7, Specials::FN};
    case TypeKind::F8E4M3FNUZ:
      return {4, 3, 8, Specials::FNUZ};
    case TypeKind::F8E4M3B11FNUZ:
      return {4, 3, 11, Specials::FNUZ};
    case TypeKind::F8E5M2:
      return {5, 2, 15, Specials::IEEE};
    case TypeKind::F8E5M2FNUZ:
      return {5, 2, 16, Specials::FNUZ};
    case TypeKind::F8E8M0FNU:
      return {8, 0, 127, Specials::UnsignedExp};
    case TypeKind::BF16:
      return {8, 7, 127, Specials::IEEE};
    case TypeKind::F16:
      return {5, 10, 15, Specials::IEEE};
    case TypeKind::F32:
      return {8, 23, 127, Specials::IEEE};
    case TypeKind::F64:
      return {11, 52, 1023, Specials::IEEE};
    default:
      break;
  }
  assert(false && "not a float kind");
  return {11, 52, 1023, Specials::IEEE};
}

uint64_t nanBits(const FloatFormat& f, bool negative) {
  uint64_t sign = uint64_t(negative) << f.signBit();
  switch (f.specials) {
    case Specials::IEEE:  // quiet NaN: all-ones exponent, top mantissa bit set
      return sign | (uint64_t(f.maxExponentField()) << f.mantissaBits) |
             (uint64_t(1) << (f.mantissaBits - 1));
    case Specials::FN:
      return sign | f.magnitudeMask();
    case Specials::FNUZ:
      return uint64_t(1) << f.signBit();
    // ml_dtypes turns NaN into a zero of the opposite sign for these formats.
    case Specials::Saturate:
      return negative ? 0 : uint64_t(1) << f.signBit();
    case Specials::UnsignedExp:
      return 0xFF;
  }
  return 0;
}

// Rounds the magnitude `a` (finite, > 0) to the format's grid, ties to even,
// and returns its bit pattern without sign; may exceed maxFiniteBits().
uint64_t roundMagnitude(const FloatFormat& f, double a) {
  int exp2;
  std::frexp(a, &exp2);  // a = m * 2^exp2, m in [0.5, 1)
  int e = std::max(exp2 - 1, f.minExponent());
  // Scaling by a power of two is exact, so the only rounding is here.
  double q = std::nearbyint(std::ldexp(a, f.mantissaBits - e));
  // Subnormals (e == minExponent with q < 2^m) encode with exponent field 0;
  // normal numbers carry the implicit bit into the exponent field, and a
  // rounding carry to 2^(m+1) correctly bumps the exponent.
  uint64_t fieldOffset = uint64_t(e - f.minExponent());
  if (f.specials == Specials::UnsignedExp) return fieldOffset + (q > 1 ? 1 : 0);
  return (fieldOffset << f.mantissaBits) + static_cast<uint64_t>(q);
}

}  // namespace

uint64_t encodeFloat(TypeKind kind, double v) {
  if (kind == TypeKind::F64) return std::bit_cast<uint64_t>(v);
  if (kind == TypeKind::F32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  FloatFormat f = formatOf(kind);
  bool negative = std::signbit(v);
  if (std::isnan(v)) return nanBits(f, negative);

  if (f.specials == Specials::UnsignedExp) {
    if (negative || v == 0) return nanBits(f, negative);
    // No zero and no subnormals: anything below the smallest value clamps to it.
    if (v < std::ldexp(1.0, f.minExponent())) return 0;
  }
  uint64_t sign = uint64_t(negative) << f.signBit();
  double a = std::fabs(v);
  uint64_t magnitude = 0;
  if (std::isinf(a)) {
    magnitude = f.maxFiniteBits() + 1;  // treated as overflow below
  } else if (a != 0) {
    magnitude = roundMagnitude(f, a);
  }
  if (magnitude > f.maxFiniteBits()) {
    switch (f.specials) {
      case Specials::IEEE:
        return sign | (uint64_t(f.maxExponentField()) << f.mantissaBits);
      case Specials::Saturate:
        return sign | f.maxFiniteBits();
      default:
        return nanBits(f, negative);
    }
  }
  if (magnitude == 0 && f.specials == Specials::FNUZ) return 0;  // no -0
  if (f.specials == Specials::UnsignedExp) return magnitude;
  return sign | magnitude;
}

double decodeFloat(TypeKind kind, uint64_t bits) {
  if (kind == TypeKind::F64) return std::bit_cast<double>(bits);
  if (kind == TypeKind::F32) return std::bit_cast<float>(static_cast<uint32_t>(bits));
  FloatFormat f = formatOf(kind);
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (f.specials == Specials::UnsignedExp) {
    bits &= 0xFF;
    return bits == 0xFF ? kNaN : std::ldexp(1.0, int(bits) - f.bias);
  }
  bits &= (uint64_t(1) << (f.signBit() + 1)) - 1;
  bool negative = (bits >> f.signBit()) & 1;
  uint64_t magnitude = bits & f.magnitudeMask();
  int exponentField = int(magnitude >> f.mantissaBits);
  uint64_t mantissa = magnitude & ((uint64_t(1) << f.mantissaBits) - 1);

  switch (f.specials) {
    case Specials::IEEE:
      if (exponentField == f.maxExponentField()) {
        double special = mantissa == 0 ? std::numeric_limits<double>::infinity() : kNaN;
        return negative ? -special : special;
      }
      break;
    case Specials::FN:
      if (magnitude == f.magnitudeMask()) return negative ? -kNaN : kNaN;
      break;
    case Specials::FNUZ:
      if (negative && magnitude == 0) return kNaN;
      break;
    default:
      break;
  }
  double value = exponentField == 0 ? std::ldexp(double(mantissa), f.minExponent() - f.mantissaBits)
                                    : std::ldexp(double(mantissa | (uint64_t(1) << f.mantissaBits)),
                                                 exponentField - f.bias - f.mantissaBits);
  return negative ? -value : value;
}

FloatFormatInfo floatFormatInfo(TypeKind kind) {
  FloatFormat f = formatOf(kind);
  FloatFormatInfo info;
  info.exponentBits = f.exponentBits;
  info.mantissaBits = f.mantissaBits;
  info.bias = f.bias;
  info.hasInf = f.specials == Specials::IEEE;
  info.hasNaN = f.specials != Specials::Saturate;
  info.hasNegativeZero = f.specials == Specials::IEEE || f.specials == Specials::FN ||
                         f.specials == Specials::Saturate;
  info.maxFinite = decodeFloat(kind, f.maxFiniteBits());
  info.minNormal = std::ldexp(1.0, f.minExponent());
  return info;
}

}  // namespace kiln
