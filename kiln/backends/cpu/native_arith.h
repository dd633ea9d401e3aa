// Element arithmetic of the native routines, computed exactly as the
// reference kernels compute it (kiln/interp/kernel_util.cpp applyBinary):
// floats in double, rounded back to the element type after every op;
// integers wrap to their width; maximum/minimum propagate NaN and order -0
// below +0. Internal to the native routines.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "kiln/interp/kernel_util.h"
#include "kiln/ir/types.h"
#include "kiln/ir/float_formats.h"

namespace kiln::cpu::native {

using interp::BinaryFn;

// An element type: how its storage loads into a value and stores back.
struct F32 {
  using Storage = float;
  static double load(float s) { return s; }
  static float store(double v) { return static_cast<float>(v); }
};
struct F64 {
  using Storage = double;
  static double load(double s) { return s; }
  static double store(double v) { return v; }
};
template <TypeKind K> struct Float16Bits {  // bf16, f16
  using Storage = uint16_t;
  static double load(uint16_t s) { return decodeFloat(K, s); }
  static uint16_t store(double v) { return static_cast<uint16_t>(encodeFloat(K, v)); }
};
template <typename T> struct Int {
  using Storage = T;
  static T load(T s) { return s; }
  static T store(T v) { return v; }
};

template <typename E> using ValueOf = decltype(E::load(typename E::Storage{}));

// Calls f(E{}) for the element types the native arithmetic takes; false for
// the others (sub-byte and 8-bit floats, complex, quantized, i1, ...).
template <typename F> bool visitArithmetic(Type elementType, F&& f) {
  switch (elementType.kind()) {
    case TypeKind::F32: f(F32{}); return true;
    case TypeKind::F64: f(F64{}); return true;
    case TypeKind::BF16: f(Float16Bits<TypeKind::BF16>{}); return true;
    case TypeKind::F16: f(Float16Bits<TypeKind::F16>{}); return true;
    case TypeKind::SI8: f(Int<int8_t>{}); return true;
    case TypeKind::SI16: f(Int<int16_t>{}); return true;
    case TypeKind::SI32: f(Int<int32_t>{}); return true;
    case TypeKind::SI64: f(Int<int64_t>{}); return true;
    case TypeKind::UI8: f(Int<uint8_t>{}); return true;
    case TypeKind::UI16: f(Int<uint16_t>{}); return true;
    case TypeKind::UI32: f(Int<uint32_t>{}); return true;
    case TypeKind::UI64: f(Int<uint64_t>{}); return true;
    default: return false;
  }
}

inline bool hasArithmetic(Type elementType) {
  return visitArithmetic(elementType, [](auto) {});
}

inline double quieted(double nan) {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(nan) | (uint64_t{1} << 51));
}

// fn(a, b) on values of element type E (both already values of E).
template <typename E, BinaryFn Fn> inline ValueOf<E> apply(ValueOf<E> a, ValueOf<E> b) {
  using V = ValueOf<E>;
  if constexpr (std::is_same_v<V, double>) {
    // Of two NaNs the result is a's, quieted: x86's rule for `a + b` as the
    // reference's applyBinary compiles it (addsd/mulsd into a's register),
    // made explicit so this compile cannot pick the other operand.
    if constexpr (Fn == BinaryFn::Add || Fn == BinaryFn::Multiply)
      if (std::isnan(a) && std::isnan(b)) return E::load(E::store(quieted(a)));
    if constexpr (Fn == BinaryFn::Add) return E::load(E::store(a + b));
    if constexpr (Fn == BinaryFn::Multiply) return E::load(E::store(a * b));
    if constexpr (Fn == BinaryFn::Maximum || Fn == BinaryFn::Minimum) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      bool aBelowB = a < b || (a == b && std::signbit(a) && !std::signbit(b));
      return (Fn == BinaryFn::Maximum) == aBelowB ? b : a;
    }
  } else {
    if constexpr (Fn == BinaryFn::Add) return static_cast<V>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    if constexpr (Fn == BinaryFn::Multiply) return static_cast<V>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    if constexpr (Fn == BinaryFn::Maximum) return a < b ? b : a;
    if constexpr (Fn == BinaryFn::Minimum) return a < b ? a : b;
  }
  return a;
}

// Calls f(std::integral_constant<BinaryFn, fn>{}) so loops see fn as a constant.
template <typename F> void withFn(BinaryFn fn, F&& f) {
  switch (fn) {
    case BinaryFn::Add: f(std::integral_constant<BinaryFn, BinaryFn::Add>{}); break;
    case BinaryFn::Multiply: f(std::integral_constant<BinaryFn, BinaryFn::Multiply>{}); break;
    case BinaryFn::Maximum: f(std::integral_constant<BinaryFn, BinaryFn::Maximum>{}); break;
    case BinaryFn::Minimum: f(std::integral_constant<BinaryFn, BinaryFn::Minimum>{}); break;
    case BinaryFn::None: break;
  }
}

inline const char* fnName(BinaryFn fn) {
  switch (fn) {
    case BinaryFn::Add: return "add";
    case BinaryFn::Multiply: return "multiply";
    case BinaryFn::Maximum: return "maximum";
    case BinaryFn::Minimum: return "minimum";
    case BinaryFn::None: break;
  }
  return "none";
}

template <typename E> inline const typename E::Storage* dataOf(const interp::Tensor& t) {
  return reinterpret_cast<const typename E::Storage*>(t.bytes());
}
template <typename E> inline typename E::Storage* dataOf(interp::Tensor& t) {
  return reinterpret_cast<typename E::Storage*>(t.bytes());
}

// Advances a row-major multi-index; false after the last one.
inline bool nextIndex(std::vector<int64_t>& index, std::span<const int64_t> shape) {
  for (size_t d = index.size(); d-- > 0;) {
    if (++index[d] < shape[d]) return true;
    index[d] = 0;
  }
  return false;
}

// A ranked tensor type with a static shape whose elements are all stored.
inline bool isStaticTensor(Type t) {
  if (!t.isTensor()) return false;
  for (int64_t s : t.shape())
    if (s < 0) return false;
  return true;
}

// The element bytes of constant `v` when all its elements are equal (a
// splat: an embedding gradient's zeros, a learning rate), else nothing.
inline std::vector<uint8_t> splatElement(const Value& v) {
  const Operation* op = v.definingOp();
  if (!op || op->name() != "stablehlo.constant" || !isStaticTensor(v.type())) return {};
  Attribute value = op->attr("value");
  if (!value || !value.is(AttrKind::DenseElements)) return {};
  std::span<const uint8_t> data = value.denseData();
  size_t n = v.type().elementType().storageBytes();
  if (n == 0 || data.size() < n) return {};
  for (size_t off = n; off + n <= data.size(); off += n)
    if (std::memcmp(data.data() + off, data.data(), n) != 0) return {};
  return {data.begin(), data.begin() + n};
}

}  // namespace kiln::cpu::native
