// Attributes: the compile-time constants attached to operations.
//
// An Attribute is an immutable value shared by pointer; copying is cheap.
// The kinds mirror what StableHLO programs carry: MLIR builtin attributes
// (integers, floats, strings, arrays, dictionaries, dense element literals,
// dense arrays, symbol references, types, unit) and StableHLO's own
// attributes: enums such as `#stablehlo<comparison_direction LT>` and
// structured ones such as `#stablehlo.dot<...>`, `#stablehlo.conv<...>`,
// `#stablehlo.gather<...>`, kept as a name plus named fields. Attributes of
// other dialects (`#sdy.sharding<...>`) are kept verbatim as Opaque text.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/ir/types.h"

namespace kiln {

enum class AttrKind : uint8_t {
  Unit,          // `unit` / presence of a name in a dictionary
  Bool,          // true / false
  Integer,       // 3 : i64
  Float,         // 1.0 : f32
  String,        // "text"
  Type,          // a type used as a value: `function_type = (...) -> ...`
  SymbolRef,     // @foo, @a::@b
  Array,         // [a, b, c]
  DenseArray,    // array<i64: 1, 2>
  DenseElements, // dense<...> : tensor<...>
  Dictionary,    // {a = 1, b = "x"}
  Enum,          // #stablehlo<comparison_direction LT>, also bare `LT` in pretty forms
  Struct,        // #stablehlo.dot<lhs_batching_dimensions = [0], ...>
  Opaque,        // any other dialect attribute, verbatim
};

class Attribute;
using NamedAttribute = std::pair<std::string, Attribute>;

struct AttrStorage;

class Attribute {
 public:
  Attribute() = default;

  // --- Factories -----------------------------------------------------------
  static Attribute unit();
  static Attribute boolean(bool v);
  // An integer of element type `type` (i1..i64, ui*, index). Stored widened.
  static Attribute integer(int64_t v, Type type = Type::si64());
  static Attribute floating(double v, Type type = Type::f32());
  static Attribute string(std::string v);
  static Attribute type(Type t);
  static Attribute symbolRef(std::vector<std::string> path);  // @a::@b = {"a","b"}
  static Attribute array(std::vector<Attribute> elements);
  static Attribute denseI64Array(std::vector<int64_t> v);
  static Attribute denseBoolArray(std::vector<bool> v);
  // `array<T: ...>` for other element types: values widened to int64/double.
  static Attribute denseArray(Type elementType, std::vector<int64_t> ints, std::vector<double> floats);
  // Dense elements of tensor type `type`, `data` holding numElements() *
  // elementType.storageBytes() bytes, little-endian (see storage layout in
  // DenseElementsView below). A splat stores one element.
  static Attribute dense(Type type, std::vector<uint8_t> data, bool splat = false);
  static Attribute dictionary(std::vector<NamedAttribute> entries);
  // `#stablehlo<name VALUE>`; dialect defaults to "stablehlo".
  static Attribute enumAttr(std::string name, std::string value, std::string dialect = "stablehlo");
  // `#dialect.name<field = value, ...>`.
  static Attribute structAttr(std::string name, std::vector<NamedAttribute> fields,
                              std::string dialect = "stablehlo");
  static Attribute opaque(std::string text);

  // --- Queries -------------------------------------------------------------
  explicit operator bool() const { return impl_ != nullptr; }
  AttrKind kind() const;
  bool is(AttrKind k) const { return impl_ && kind() == k; }

  bool boolValue() const;             // Bool
  int64_t intValue() const;           // Integer (and Bool as 0/1)
  double floatValue() const;          // Float
  Type valueType() const;             // Integer/Float: the element type; Type: the type; Dense: tensor type
  const std::string& stringValue() const;  // String, Opaque text, Enum value
  std::span<const std::string> symbolPath() const;  // SymbolRef
  std::span<const Attribute> arrayValue() const;    // Array
  // DenseArray: element type and values (ints for integer/bool types).
  Type denseArrayElementType() const;
  std::span<const int64_t> denseArrayInts() const;
  std::span<const double> denseArrayFloats() const;
  // DenseElements.
  std::span<const uint8_t> denseData() const;
  bool denseIsSplat() const;
  // Dictionary and Struct fields, in order.
  std::span<const NamedAttribute> entries() const;
  Attribute get(std::string_view name) const;  // Dictionary/Struct lookup; null if absent
  // Enum and Struct: the attribute's name ("comparison_direction", "dot") and dialect.
  const std::string& attrName() const;
  const std::string& dialect() const;

  // Convenience: an integer list from DenseArray, Array of Integer, or a
  // rank-1 DenseElements of integers. nullopt for anything else.
  std::optional<std::vector<int64_t>> asIntList() const;

  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }

  const AttrStorage* impl() const { return impl_.get(); }

 private:
  explicit Attribute(std::shared_ptr<const AttrStorage> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const AttrStorage> impl_;
};

// An ordered list of named attributes with lookup by name; used for an
// operation's attributes and for the argument/result attributes of functions.
class AttrDict {
 public:
  AttrDict() = default;
  AttrDict(std::vector<NamedAttribute> entries) : entries_(std::move(entries)) {}

  Attribute get(std::string_view name) const;
  bool has(std::string_view name) const { return static_cast<bool>(get(name)); }
  void set(std::string_view name, Attribute value);  // replaces or appends
  bool erase(std::string_view name);
  std::span<const NamedAttribute> entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  bool operator==(const AttrDict& o) const { return entries_ == o.entries_; }

 private:
  std::vector<NamedAttribute> entries_;
};

}  // namespace kiln
