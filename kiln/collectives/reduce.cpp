// Elementwise combining for the collectives: acc op= in, one loop per
// (element type, reduction), written so the compiler vectorizes the plain
// types (this file builds at -O3). Results equal the interpreter's kernels
// bit for bit: integers wrap, f32/f64 combine in their own precision (one
// rounding, as the interpreter's double arithmetic rounds), bf16 and f16 in
// f32 (exact enough that one rounding to the narrow type follows).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "kiln/collectives/communicator.h"
#include "kiln/ir/float_formats.h"

namespace kiln::collectives {
namespace {

// IEEE 754-2019 maximum/minimum, as the interpreter's floatMax/floatMin:
// NaN wins, and -0 < +0.
template <typename F>
F floatMax(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<F>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
template <typename F>
F floatMin(F a, F b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<F>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename T, typename Fn>
void combine(void* acc, const void* in, int64_t count, Fn fn) {
  T* __restrict a = static_cast<T*>(acc);
  const T* __restrict b = static_cast<const T*>(in);
  for (int64_t i = 0; i < count; ++i) a[i] = fn(a[i], b[i]);
}

// Integers of type T; Sum and Product in the unsigned type, which wraps.
template <typename T>
void combineInts(Reduction op, void* acc, const void* in, int64_t count) {
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case Reduction::Sum: return combine<T>(acc, in, count, [](T a, T b) { return T(U(a) + U(b)); });
    case Reduction::Product: return combine<T>(acc, in, count, [](T a, T b) { return T(U(a) * U(b)); });
    case Reduction::Min: return combine<T>(acc, in, count, [](T a, T b) { return a < b ? a : b; });
    case Reduction::Max: return combine<T>(acc, in, count, [](T a, T b) { return a < b ? b : a; });
    case Reduction::And: return combine<T>(acc, in, count, [](T a, T b) { return T(a & b); });
    case Reduction::Or: return combine<T>(acc, in, count, [](T a, T b) { return T(a | b); });
    case Reduction::Xor: return combine<T>(acc, in, count, [](T a, T b) { return T(a ^ b); });
  }
}

template <typename F>
F applyFloat(Reduction op, F a, F b) {
  switch (op) {
    case Reduction::Sum: return a + b;
    case Reduction::Product: return a * b;
    case Reduction::Min: return floatMin(a, b);
    default: return floatMax(a, b);
  }
}

template <typename F>
void combineFloats(Reduction op, void* acc, const void* in, int64_t count) {
  switch (op) {
    case Reduction::Sum: return combine<F>(acc, in, count, [](F a, F b) { return a + b; });
    case Reduction::Product: return combine<F>(acc, in, count, [](F a, F b) { return a * b; });
    case Reduction::Min: return combine<F>(acc, in, count, floatMin<F>);
    default: return combine<F>(acc, in, count, floatMax<F>);
  }
}

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

// Round to nearest even; a NaN becomes the interpreter's NaN of its sign.
uint16_t floatToBf16(float f) {
  if (std::isnan(f)) return uint16_t(encodeFloat(TypeKind::BF16, f));
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return uint16_t((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

void combineBf16(Reduction op, void* acc, const void* in, int64_t count) {
  combine<uint16_t>(acc, in, count, [op](uint16_t a, uint16_t b) {
    return floatToBf16(applyFloat(op, bf16ToFloat(a), bf16ToFloat(b)));
  });
}

// f16 through the shared format tables: slower, and rarely reduced.
void combineF16(Reduction op, void* acc, const void* in, int64_t count) {
  combine<uint16_t>(acc, in, count, [op](uint16_t a, uint16_t b) {
    double r = applyFloat(op, float(decodeFloat(TypeKind::F16, a)), float(decodeFloat(TypeKind::F16, b)));
    return uint16_t(encodeFloat(TypeKind::F16, r));
  });
}

bool isBitwise(Reduction op) { return op == Reduction::And || op == Reduction::Or || op == Reduction::Xor; }

}  // namespace

std::string_view reductionName(Reduction op) {
  switch (op) {
    case Reduction::Sum: return "sum";
    case Reduction::Product: return "product";
    case Reduction::Min: return "min";
    case Reduction::Max: return "max";
    case Reduction::And: return "and";
    case Reduction::Or: return "or";
    case Reduction::Xor: return "xor";
  }
  return "?";
}

bool reducible(TypeKind type, Reduction op) {
  switch (type) {
    case TypeKind::I1: return isBitwise(op);
    case TypeKind::SI8: case TypeKind::SI16: case TypeKind::SI32: case TypeKind::SI64:
    case TypeKind::UI8: case TypeKind::UI16: case TypeKind::UI32: case TypeKind::UI64: return true;
    case TypeKind::BF16: case TypeKind::F16: case TypeKind::F32: case TypeKind::F64: return !isBitwise(op);
    default: return false;
  }
}

int64_t elementBytes(TypeKind type) {
  switch (type) {
    case TypeKind::I1: case TypeKind::SI8: case TypeKind::UI8: return 1;
    case TypeKind::SI16: case TypeKind::UI16: case TypeKind::BF16: case TypeKind::F16: return 2;
    case TypeKind::SI32: case TypeKind::UI32: case TypeKind::F32: return 4;
    case TypeKind::SI64: case TypeKind::UI64: case TypeKind::F64: return 8;
    default: return 0;
  }
}

void reduceInto(TypeKind type, Reduction op, void* acc, const void* in, int64_t count) {
  switch (type) {
    case TypeKind::I1: return combineInts<uint8_t>(op, acc, in, count);  // bytes of 0 or 1
    case TypeKind::SI8: return combineInts<int8_t>(op, acc, in, count);
    case TypeKind::SI16: return combineInts<int16_t>(op, acc, in, count);
    case TypeKind::SI32: return combineInts<int32_t>(op, acc, in, count);
    case TypeKind::SI64: return combineInts<int64_t>(op, acc, in, count);
    case TypeKind::UI8: return combineInts<uint8_t>(op, acc, in, count);
    case TypeKind::UI16: return combineInts<uint16_t>(op, acc, in, count);
    case TypeKind::UI32: return combineInts<uint32_t>(op, acc, in, count);
    case TypeKind::UI64: return combineInts<uint64_t>(op, acc, in, count);
    case TypeKind::BF16: return combineBf16(op, acc, in, count);
    case TypeKind::F16: return combineF16(op, acc, in, count);
    case TypeKind::F32: return combineFloats<float>(op, acc, in, count);
    case TypeKind::F64: return combineFloats<double>(op, acc, in, count);
    default: return;
  }
}

Status Communicator::sendTo(int, int64_t, const void*, int64_t) {
  return error(ErrorCode::Unimplemented, "this communicator has no point-to-point messages");
}

Status Communicator::recvFrom(int, int64_t, void*, int64_t) {
  return error(ErrorCode::Unimplemented, "this communicator has no point-to-point messages");
}

void streamCopy(void* to, const void* from, int64_t bytes) {
#if defined(__SSE2__)
  char* dst = static_cast<char*>(to);
  const char* src = static_cast<const char*>(from);
  int64_t head = std::min<int64_t>(bytes, (16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  std::memcpy(dst, src, head);
  int64_t i = head;
  for (; i + 16 <= bytes; i += 16)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
  std::memcpy(dst + i, src + i, bytes - i);
#else
  std::memcpy(to, from, bytes);
#endif
}

}  // namespace kiln::collectives
