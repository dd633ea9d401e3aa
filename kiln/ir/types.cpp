#include "kiln/ir/types.h"

#include <cassert>
#include <deque>
#include <map>
#include <mutex>
#include <tuple>

#include "kiln/ir/printer.h"

namespace kiln {

struct TypeStorage {
  TypeKind kind;
  std::vector<int64_t> shape;   // tensor
  std::vector<int64_t> bounds;  // tensor
  Type element;                 // tensor element; complex component
  std::vector<Type> types;      // tuple elements; function inputs then results
  size_t numInputs = 0;         // function
  QuantParams quant;            // quantized
  std::string text;             // opaque
  int64_t numElements = 1;      // the product of `shape`, computed once (kernels ask in their loops)
};

namespace {

// The uniquer: one storage per distinct type, never freed.
class TypeUniquer {
 public:
  const TypeStorage* get(TypeStorage s) {
    Key key{s.kind, s.shape, s.bounds, s.element.impl(), typeImpls(s.types), s.numInputs,
            quantKey(s.quant), s.text};
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    if (it != map_.end()) return it->second;
    // A `?` dimension makes the count unknown (-1); a product past int64
    // saturates, so a size check downstream sees it as too big, never wraps.
    for (int64_t d : s.shape) {
      if (d == Type::kDynamic || d < 0) {
        s.numElements = -1;
        break;
      }
      if (__builtin_mul_overflow(s.numElements, d, &s.numElements)) s.numElements = INT64_MAX;
    }
    storage_.push_back(std::move(s));
    map_.emplace(std::move(key), &storage_.back());
    return &storage_.back();
  }

 private:
  using QuantKey = std::tuple<const void*, const void*, int64_t, int64_t, int64_t,
                              std::vector<double>, std::vector<int64_t>>;
  using Key = std::tuple<TypeKind, std::vector<int64_t>, std::vector<int64_t>, const void*,
                         std::vector<const void*>, size_t, QuantKey, std::string>;
  static std::vector<const void*> typeImpls(const std::vector<Type>& ts) {
    std::vector<const void*> out;
    for (Type t : ts) out.push_back(t.impl());
    return out;
  }
  static QuantKey quantKey(const QuantParams& q) {
    return {q.storageType.impl(), q.expressedType.impl(), q.storageMin, q.storageMax,
            q.quantizedDimension ? int64_t(*q.quantizedDimension) : int64_t(-1), q.scales,
            q.zeroPoints};
  }
  std::mutex mu_;
  std::map<Key, const TypeStorage*> map_;
  std::deque<TypeStorage> storage_;
};

TypeUniquer& uniquer() {
  static TypeUniquer* u = new TypeUniquer();
  return *u;
}

bool isElementKind(TypeKind k) { return k <= TypeKind::Quantized; }

}  // namespace

Type Type::element(TypeKind kind) {
  assert(isElementKind(kind) && kind != TypeKind::Quantized);
  TypeStorage s{};
  s.kind = kind;
  if (kind == TypeKind::Complex64) s.element = element(TypeKind::F32);
  if (kind == TypeKind::Complex128) s.element = element(TypeKind::F64);
  return Type(uniquer().get(std::move(s)));
}

Type Type::integer(unsigned bits, bool isUnsigned) {
  switch (bits) {
    case 1: return element(TypeKind::I1);
    case 2: return element(isUnsigned ? TypeKind::UI2 : TypeKind::SI2);
    case 4: return element(isUnsigned ? TypeKind::UI4 : TypeKind::SI4);
    case 8: return element(isUnsigned ? TypeKind::UI8 : TypeKind::SI8);
    case 16: return element(isUnsigned ? TypeKind::UI16 : TypeKind::SI16);
    case 32: return element(isUnsigned ? TypeKind::UI32 : TypeKind::SI32);
    case 64: return element(isUnsigned ? TypeKind::UI64 : TypeKind::SI64);
    default: return Type();
  }
}

Type Type::complex(Type elementType) {
  if (elementType.kind() == TypeKind::F32) return element(TypeKind::Complex64);
  if (elementType.kind() == TypeKind::F64) return element(TypeKind::Complex128);
  return Type();
}

Type Type::tensor(std::span<const int64_t> shape, Type elementType, std::span<const int64_t> bounds) {
  TypeStorage s{};
  s.kind = TypeKind::Tensor;
  s.shape.assign(shape.begin(), shape.end());
  s.bounds.assign(bounds.begin(), bounds.end());
  s.element = elementType;
  return Type(uniquer().get(std::move(s)));
}

Type Type::token() {
  TypeStorage s{};
  s.kind = TypeKind::Token;
  return Type(uniquer().get(std::move(s)));
}

Type Type::tuple(std::span<const Type> elements) {
  TypeStorage s{};
  s.kind = TypeKind::Tuple;
  s.types.assign(elements.begin(), elements.end());
  return Type(uniquer().get(std::move(s)));
}

Type Type::function(std::span<const Type> inputs, std::span<const Type> results) {
  TypeStorage s{};
  s.kind = TypeKind::Function;
  s.types.assign(inputs.begin(), inputs.end());
  s.types.insert(s.types.end(), results.begin(), results.end());
  s.numInputs = inputs.size();
  return Type(uniquer().get(std::move(s)));
}

Type Type::quantized(const QuantParams& params) {
  TypeStorage s{};
  s.kind = TypeKind::Quantized;
  s.quant = params;
  return Type(uniquer().get(std::move(s)));
}

Type Type::opaque(std::string text) {
  TypeStorage s{};
  s.kind = TypeKind::Opaque;
  s.text = std::move(text);
  return Type(uniquer().get(std::move(s)));
}

TypeKind Type::kind() const { return impl_->kind; }
bool Type::isElement() const { return impl_ && isElementKind(impl_->kind); }
bool Type::isSignedInteger() const {
  return impl_ && impl_->kind >= TypeKind::SI2 && impl_->kind <= TypeKind::SI64;
}
bool Type::isUnsignedInteger() const {
  return impl_ && impl_->kind >= TypeKind::UI2 && impl_->kind <= TypeKind::UI64;
}
bool Type::isInteger() const { return isSignedInteger() || isUnsignedInteger(); }
bool Type::isFloat() const {
  return impl_ && impl_->kind >= TypeKind::F4E2M1FN && impl_->kind <= TypeKind::F64;
}
bool Type::isComplex() const {
  return impl_ && (impl_->kind == TypeKind::Complex64 || impl_->kind == TypeKind::Complex128);
}

unsigned Type::bitWidth() const {
  switch (kind()) {
    case TypeKind::I1: return 1;
    case TypeKind::SI2: case TypeKind::UI2: return 2;
    case TypeKind::SI4: case TypeKind::UI4: case TypeKind::F4E2M1FN: return 4;
    case TypeKind::F6E2M3FN: case TypeKind::F6E3M2FN: return 6;
    case TypeKind::SI8: case TypeKind::UI8: case TypeKind::F8E3M4: case TypeKind::F8E4M3:
    case TypeKind::F8E4M3FN: case TypeKind::F8E4M3FNUZ: case TypeKind::F8E4M3B11FNUZ:
    case TypeKind::F8E5M2: case TypeKind::F8E5M2FNUZ: case TypeKind::F8E8M0FNU: return 8;
    case TypeKind::SI16: case TypeKind::UI16: case TypeKind::BF16: case TypeKind::F16: return 16;
    case TypeKind::SI32: case TypeKind::UI32: case TypeKind::F32: return 32;
    case TypeKind::SI64: case TypeKind::UI64: case TypeKind::F64: case TypeKind::Index:
    case TypeKind::Complex64: return 64;
    case TypeKind::Complex128: return 128;
    case TypeKind::Quantized: return impl_->quant.storageType.bitWidth();
    default: return 0;
  }
}

unsigned Type::storageBytes() const {
  unsigned bits = bitWidth();
  return bits <= 8 ? 1 : bits / 8;
}

Type Type::complexElement() const { return impl_->element; }
const QuantParams& Type::quant() const { return impl_->quant; }
std::span<const int64_t> Type::shape() const { return impl_->shape; }
std::span<const int64_t> Type::bounds() const { return impl_->bounds; }
int64_t Type::numElements() const { return impl_->numElements; }
Type Type::elementType() const { return impl_->element; }
Type Type::withElementType(Type elementType) const {
  return tensor(impl_->shape, elementType, impl_->bounds);
}
std::span<const Type> Type::tupleTypes() const { return impl_->types; }
std::span<const Type> Type::inputs() const {
  return std::span<const Type>(impl_->types).first(impl_->numInputs);
}
std::span<const Type> Type::results() const {
  return std::span<const Type>(impl_->types).subspan(impl_->numInputs);
}
const std::string& Type::opaqueText() const { return impl_->text; }

std::string typeLimitViolation(Type type) {
  if (type.isTuple() || type.isFunction()) {
    for (Type inner : type.tupleTypes())  // a function's inputs and results alike
      if (std::string why = typeLimitViolation(inner); !why.empty()) return why;
    return "";
  }
  if (!type.isTensor()) return "";
  auto outOfRange = [](int64_t d) { return d != Type::kDynamic && (d < 0 || d > Type::kMaxDimension); };
  for (std::span<const int64_t> dims : {type.shape(), type.bounds()})
    for (int64_t d : dims)
      if (outOfRange(d))
        return "tensor type " + type.str() + " has dimension " + std::to_string(d) + " (at most 2^48)";
  Type element = type.elementType();
  // A per-axis quantized tensor type: (C12) quantization_dimension < rank,
  // (C13) one scale per element of that dimension.
  if (element.isQuantized() && element.quant().quantizedDimension) {
    int64_t axis = *element.quant().quantizedDimension, scales = int64_t(element.quant().scales.size());
    if (axis < 0 || axis >= type.rank())
      return "per-axis quantized tensor type " + type.str() + " has quantization dimension " + std::to_string(axis) +
             " but rank " + std::to_string(type.rank());
    int64_t size = type.shape()[axis];
    if (size != Type::kDynamic && size != scales)
      return "per-axis quantized tensor type " + type.str() + " has " + std::to_string(scales) +
             " scales for quantization dimension " + std::to_string(axis) + " of size " + std::to_string(size);
  }
  int64_t bytes;
  if (type.numElements() == INT64_MAX ||
      __builtin_mul_overflow(type.numElements(), int64_t(element.isElement() ? element.storageBytes() : 1), &bytes))
    return "tensor type " + type.str() + " holds more than 2^63 bytes";
  return "";
}

const char* elementKindName(TypeKind kind) {
  switch (kind) {
    case TypeKind::I1: return "i1";
    case TypeKind::SI2: return "i2";
    case TypeKind::SI4: return "i4";
    case TypeKind::SI8: return "i8";
    case TypeKind::SI16: return "i16";
    case TypeKind::SI32: return "i32";
    case TypeKind::SI64: return "i64";
    case TypeKind::UI2: return "ui2";
    case TypeKind::UI4: return "ui4";
    case TypeKind::UI8: return "ui8";
    case TypeKind::UI16: return "ui16";
    case TypeKind::UI32: return "ui32";
    case TypeKind::UI64: return "ui64";
    case TypeKind::F4E2M1FN: return "f4E2M1FN";
    case TypeKind::F6E2M3FN: return "f6E2M3FN";
    case TypeKind::F6E3M2FN: return "f6E3M2FN";
    case TypeKind::F8E3M4: return "f8E3M4";
    case TypeKind::F8E4M3: return "f8E4M3";
    case TypeKind::F8E4M3FN: return "f8E4M3FN";
    case TypeKind::F8E4M3FNUZ: return "f8E4M3FNUZ";
    case TypeKind::F8E4M3B11FNUZ: return "f8E4M3B11FNUZ";
    case TypeKind::F8E5M2: return "f8E5M2";
    case TypeKind::F8E5M2FNUZ: return "f8E5M2FNUZ";
    case TypeKind::F8E8M0FNU: return "f8E8M0FNU";
    case TypeKind::BF16: return "bf16";
    case TypeKind::F16: return "f16";
    case TypeKind::F32: return "f32";
    case TypeKind::F64: return "f64";
    case TypeKind::Complex64: return "complex<f32>";
    case TypeKind::Complex128: return "complex<f64>";
    case TypeKind::Index: return "index";
    default: return nullptr;
  }
}

std::string Type::str() const {
  if (!impl_) return "<<null type>>";
  switch (kind()) {
    case TypeKind::Quantized: {
      const QuantParams& q = quant();
      std::string s = "!quant.uniform<" + q.storageType.str();
      unsigned bits = q.storageType.bitWidth();
      bool isUnsigned = q.storageType.isUnsignedInteger();
      int64_t defMin = isUnsigned ? 0 : -(int64_t(1) << (bits - 1));
      int64_t defMax = isUnsigned ? (int64_t(1) << bits) - 1 : (int64_t(1) << (bits - 1)) - 1;
      if (q.storageMin != defMin || q.storageMax != defMax)
        s += "<" + std::to_string(q.storageMin) + ":" + std::to_string(q.storageMax) + ">";
      s += ":" + q.expressedType.str();
      if (q.quantizedDimension) s += ":" + std::to_string(*q.quantizedDimension);
      s += ", ";
      auto one = [&](size_t i) {
        std::string r = printFloat(q.scales[i], Type::f64());
        if (q.zeroPoints[i] != 0) r += ":" + std::to_string(q.zeroPoints[i]);
        return r;
      };
      if (q.quantizedDimension) {
        s += "{";
        for (size_t i = 0; i < q.scales.size(); ++i) s += (i ? "," : "") + one(i);
        s += "}";
      } else {
        s += one(0);
      }
      return s + ">";
    }
    case TypeKind::Tensor: {
      std::string s = "tensor<";
      for (int64_t d : shape()) s += (d == kDynamic ? std::string("?") : std::to_string(d)) + "x";
      s += elementType().str();
      if (!bounds().empty()) {
        s += ", #stablehlo.bounds<";
        for (size_t i = 0; i < bounds().size(); ++i)
          s += (i ? ", " : "") + (bounds()[i] == kDynamic ? std::string("?") : std::to_string(bounds()[i]));
        s += ">";
      }
      return s + ">";
    }
    case TypeKind::Token: return "!stablehlo.token";
    case TypeKind::Tuple: {
      std::string s = "tuple<";
      for (size_t i = 0; i < tupleTypes().size(); ++i) s += (i ? ", " : "") + tupleTypes()[i].str();
      return s + ">";
    }
    case TypeKind::Function: {
      std::string s = "(";
      for (size_t i = 0; i < inputs().size(); ++i) s += (i ? ", " : "") + inputs()[i].str();
      s += ") -> ";
      if (results().size() == 1 && !results()[0].isFunction()) return s + results()[0].str();
      s += "(";
      for (size_t i = 0; i < results().size(); ++i) s += (i ? ", " : "") + results()[i].str();
      return s + ")";
    }
    case TypeKind::Opaque: return opaqueText();
    default: return elementKindName(kind());
  }
}

}  // namespace kiln
