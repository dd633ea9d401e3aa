// Conversions between double and every floating-point element type kiln
// supports, bit-exact: rounding to nearest even, each format's rules for
// overflow (to Inf, or to NaN for the FN/FNUZ formats that have no Inf, or
// saturating where the spec says so), NaN encodings and negative zero.
#pragma once

#include <cstdint>

#include "kiln/ir/types.h"

namespace kiln {

// Encodes `v` in float element type `kind` (F4E2M1FN ... F64), returning the
// bit pattern in the low bits. Rounds to nearest, ties to even.
uint64_t encodeFloat(TypeKind kind, double v);
// Decodes a bit pattern of float type `kind` exactly into a double.
double decodeFloat(TypeKind kind, uint64_t bits);
// Largest finite value, smallest normal, and whether Inf/NaN/-0 exist.
struct FloatFormatInfo {
  int exponentBits, mantissaBits, bias;
  bool hasInf, hasNaN, hasNegativeZero;
  double maxFinite, minNormal;
};
FloatFormatInfo floatFormatInfo(TypeKind kind);

}  // namespace kiln
