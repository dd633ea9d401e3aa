// kiln's types: element types, ranked tensors, tokens, tuples.
//
// A Type is a handle to an interned, immutable TypeStorage: copying is a
// pointer copy and equality is pointer equality. Types are created through
// the static factories below and live for the whole process.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln {

// Every kind of type kiln knows. The element kinds come first, in the order of
// the StableHLO spec's element types.
enum class TypeKind : uint8_t {
  // Booleans and integers.
  I1,
  SI2, SI4, SI8, SI16, SI32, SI64,
  UI2, UI4, UI8, UI16, UI32, UI64,
  // Floats.
  F4E2M1FN, F6E2M3FN, F6E3M2FN,
  F8E3M4, F8E4M3, F8E4M3FN, F8E4M3FNUZ, F8E4M3B11FNUZ, F8E5M2, F8E5M2FNUZ, F8E8M0FNU,
  BF16, F16, F32, F64,
  // Complex (of F32 or F64).
  Complex64, Complex128,
  // Index (only in attributes such as `dense<...> : tensor<2xindex>`).
  Index,
  // A quantized element type: `!quant.uniform<i8:f32, 0.5:3>`.
  Quantized,
  // Non-element types.
  Tensor,
  Token,
  Tuple,
  Function,  // (inputs) -> results; the type of a func.func
  Opaque,    // a type of an unregistered dialect, kept as text: `!foo.bar<...>`
};

struct TypeStorage;
struct QuantParams;

class Type {
 public:
  Type() = default;
  explicit Type(const TypeStorage* impl) : impl_(impl) {}

  // --- Factories -----------------------------------------------------------
  static Type element(TypeKind kind);  // kind must be an element kind
  static Type i1() { return element(TypeKind::I1); }
  static Type f32() { return element(TypeKind::F32); }
  static Type f64() { return element(TypeKind::F64); }
  static Type si32() { return element(TypeKind::SI32); }
  static Type si64() { return element(TypeKind::SI64); }
  static Type index() { return element(TypeKind::Index); }
  // Signed/unsigned integer of `bits` (1 gives i1). Null Type if no such kind.
  static Type integer(unsigned bits, bool isUnsigned = false);
  static Type complex(Type elementType);  // f32 or f64 only
  // A ranked tensor. `bounds` (same length as shape, kDynamic = no bound) is
  // kept for bounded dynamic dimensions; shapes are static for now.
  static Type tensor(std::span<const int64_t> shape, Type elementType,
                     std::span<const int64_t> bounds = {});
  static Type tensor(std::initializer_list<int64_t> shape, Type elementType) {
    return tensor(std::span<const int64_t>(shape.begin(), shape.size()), elementType);
  }
  static Type token();
  static Type tuple(std::span<const Type> elements);
  static Type function(std::span<const Type> inputs, std::span<const Type> results);
  static Type quantized(const QuantParams& params);
  static Type opaque(std::string text);  // the full text, e.g. "!foo.bar<1>"

  static constexpr int64_t kDynamic = INT64_MIN;
  // The largest static dimension (see typeLimitViolation).
  static constexpr int64_t kMaxDimension = int64_t(1) << 48;

  // --- Queries -------------------------------------------------------------
  explicit operator bool() const { return impl_ != nullptr; }
  bool operator==(Type o) const { return impl_ == o.impl_; }
  bool operator!=(Type o) const { return impl_ != o.impl_; }
  const TypeStorage* impl() const { return impl_; }

  TypeKind kind() const;
  bool isElement() const;    // integers, floats, complex, index, quantized
  bool isInteger() const;    // signed or unsigned integer, not i1
  bool isSignedInteger() const;
  bool isUnsignedInteger() const;
  bool isBool() const { return *this && kind() == TypeKind::I1; }
  bool isFloat() const;
  bool isComplex() const;
  bool isQuantized() const { return *this && kind() == TypeKind::Quantized; }
  bool isTensor() const { return *this && kind() == TypeKind::Tensor; }
  bool isToken() const { return *this && kind() == TypeKind::Token; }
  bool isTuple() const { return *this && kind() == TypeKind::Tuple; }
  bool isFunction() const { return *this && kind() == TypeKind::Function; }

  // Bit width of an element type (complex64 = 64; i1 = 1; index = 64).
  unsigned bitWidth() const;
  // Bytes one element occupies in kiln's dense storage (sub-byte types take a
  // whole byte; i1 is one byte holding 0 or 1).
  unsigned storageBytes() const;
  // For complex: its component type (f32 or f64).
  Type complexElement() const;
  const QuantParams& quant() const;  // isQuantized() only

  // Tensors.
  std::span<const int64_t> shape() const;   // isTensor() only
  std::span<const int64_t> bounds() const;  // empty when none
  int64_t rank() const { return static_cast<int64_t>(shape().size()); }
  int64_t numElements() const;              // product of shape
  Type elementType() const;                 // isTensor() only
  // This tensor's shape with another element type.
  Type withElementType(Type elementType) const;

  // Tuples and functions.
  std::span<const Type> tupleTypes() const;
  std::span<const Type> inputs() const;   // isFunction()
  std::span<const Type> results() const;  // isFunction()

  const std::string& opaqueText() const;

  // MLIR text: "f32", "tensor<2x3xf32>", "!stablehlo.token", "tuple<...>".
  std::string str() const;

 private:
  const TypeStorage* impl_ = nullptr;
};

// Parameters of `!quant.uniform<storage<min:max>:expressed:axis, {scale:zp,...}>`.
struct QuantParams {
  Type storageType;    // an integer element type
  Type expressedType;  // a float element type
  int64_t storageMin = 0, storageMax = 0;
  std::optional<int32_t> quantizedDimension;  // per-axis when set
  std::vector<double> scales;
  std::vector<int64_t> zeroPoints;
  bool operator==(const QuantParams&) const = default;
};

// kiln's limits on types (docs/limits.md): a static dimension lies in
// [0, Type::kMaxDimension] and a tensor holds at most 2^63 bytes, so that no
// size computed from a type can overflow. The parser refuses types beyond them
// where it reads them; the verifier refuses them wherever else they come from
// (mutated or built IR, types inside attributes). Says what is wrong with
// `type` or with a type inside it (tuples, functions), or "" when nothing is.
std::string typeLimitViolation(Type type);

// Name of an element kind as MLIR prints it ("f32", "ui8", "f8E4M3FN").
const char* elementKindName(TypeKind kind);

}  // namespace kiln
