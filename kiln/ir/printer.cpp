// The printer: kiln IR → MLIR text, byte-for-byte as MLIR (jaxlib's
// StableHLO build) prints it.
//
// Three parts:
//   - number formatting (MLIR's printFloatValue, i.e. APFloat::toString) and
//     attribute syntax;
//   - SSA value naming (MLIR's SSANameState: %0, %arg0, %cst, %iterArg, ...);
//   - operations: the generic form, and the custom ("pretty") assembly format
//     of every op that has one. Ops without one print generically, exactly
//     as MLIR does for gather, scatter, sort, if, case, reduce_window, ...
#include "kiln/ir/printer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/sdy.h"
#include "kiln/ir/float_formats.h"

namespace kiln {
namespace {

// ============================================================================
// Floats: MLIR prints a float with APFloat::toString(6 digits, scientific) if
// that reads back to the same bits, else with APFloat::toString's default
// (shortest safe digits), if that has a '.', else as the hex bit pattern. We
// reproduce APFloat::toString exactly, truncation and round-half-up included,
// on an arbitrary-precision integer.
// ============================================================================

// An unsigned integer of any size, little-endian 32-bit limbs.
class BigUint {
 public:
  explicit BigUint(uint64_t v) {
    while (v) {
      limbs_.push_back(uint32_t(v));
      v >>= 32;
    }
  }
  bool isZero() const { return limbs_.empty(); }
  void mul(uint32_t m) {
    uint64_t carry = 0;
    for (uint32_t& l : limbs_) {
      uint64_t p = uint64_t(l) * m + carry;
      l = uint32_t(p);
      carry = p >> 32;
    }
    if (carry) limbs_.push_back(uint32_t(carry));
  }
  void shiftLeft(unsigned bits) {
    for (unsigned i = 0; i < bits; ++i) mul(2);
  }
  // Divides in place, returns the remainder.
  uint32_t divmod(uint32_t d) {
    uint64_t rem = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      uint64_t cur = (rem << 32) | limbs_[i];
      limbs_[i] = uint32_t(cur / d);
      rem = cur % d;
    }
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
    return uint32_t(rem);
  }
  unsigned activeBits() const {
    if (limbs_.empty()) return 0;
    return unsigned(32 * (limbs_.size() - 1)) + (32 - unsigned(__builtin_clz(limbs_.back())));
  }

 private:
  std::vector<uint32_t> limbs_;
};

// Significand bits (implicit bit included) of a float kind: APFloat's
// `semantics->precision`.
unsigned floatPrecision(TypeKind kind) { return unsigned(floatFormatInfo(kind).mantissaBits) + 1; }

// APFloat::toString for a finite non-zero value `odd * 2^exp` (odd > 0).
std::string apfloatToString(bool negative, uint64_t odd, int exp, unsigned formatPrecision,
                            unsigned formatMaxPadding, bool truncateZero, unsigned semanticsPrecision) {
  if (!formatPrecision) formatPrecision = 2 + semanticsPrecision * 59 / 196;
  // Change the exponent from 2^exp to 10^exp.
  BigUint n(odd);
  if (exp > 0) {
    n.shiftLeft(unsigned(exp));
    exp = 0;
  } else {
    for (int i = 0; i < -exp; ++i) n.mul(5);
  }
  // Drop whole decimal digits the precision cannot use (truncating).
  unsigned bits = n.activeBits();
  unsigned bitsRequired = (formatPrecision * 196 + 58) / 59;
  if (bits > bitsRequired) {
    unsigned tensRemovable = (bits - bitsRequired) * 59 / 196;
    exp += int(tensRemovable);
    for (unsigned i = 0; i < tensRemovable; ++i) n.divmod(10);
  }
  // Decimal digits, least significant first, trailing zeros dropped.
  std::string buffer;
  bool inTrail = true;
  while (!n.isZero()) {
    char d = char('0' + n.divmod(10));
    if (inTrail && d == '0') {
      ++exp;
    } else {
      buffer.push_back(d);
      inTrail = false;
    }
  }
  // Round half up to formatPrecision digits.
  if (buffer.size() > formatPrecision) {
    size_t firstSignificant = buffer.size() - formatPrecision;
    if (buffer[firstSignificant - 1] < '5') {
      while (firstSignificant < buffer.size() && buffer[firstSignificant] == '0') ++firstSignificant;
      exp += int(firstSignificant);
      buffer.erase(0, firstSignificant);
    } else {
      size_t i = firstSignificant;
      for (; i != buffer.size(); ++i) {
        if (buffer[i] == '9') {
          ++firstSignificant;
        } else {
          ++buffer[i];
          break;
        }
      }
      exp += int(firstSignificant);
      if (firstSignificant == buffer.size()) buffer = "1";
      else buffer.erase(0, firstSignificant);
    }
  }
  const int nDigits = int(buffer.size());
  bool scientific;
  if (!formatMaxPadding) {
    scientific = true;
  } else if (exp >= 0) {
    scientific = unsigned(exp) > formatMaxPadding || unsigned(nDigits + exp) > formatPrecision;
  } else {
    int msd = exp + nDigits - 1;
    scientific = msd < 0 && unsigned(-msd) > formatMaxPadding;
  }
  std::string s = negative ? "-" : "";
  auto digit = [&](int i) { return buffer[size_t(nDigits - 1 - i)]; };  // i-th most significant
  if (scientific) {
    exp += nDigits - 1;
    s += digit(0);
    s += '.';
    if (nDigits == 1 && truncateZero) s += '0';
    for (int i = 1; i < nDigits; ++i) s += digit(i);
    if (!truncateZero && int(formatPrecision) > nDigits - 1) s.append(formatPrecision - nDigits + 1, '0');
    s += truncateZero ? 'E' : 'e';
    s += exp >= 0 ? '+' : '-';
    std::string e = std::to_string(std::abs(exp));
    if (!truncateZero && e.size() < 2) e = "0" + e;
    return s + e;
  }
  if (exp >= 0) {
    for (int i = 0; i < nDigits; ++i) s += digit(i);
    return s + std::string(size_t(exp), '0');
  }
  int wholeDigits = exp + nDigits;
  int i = 0;
  if (wholeDigits > 0) {
    for (; i < wholeDigits; ++i) s += digit(i);
    s += '.';
  } else {
    s += "0.";
    s.append(size_t(-wholeDigits), '0');
  }
  for (; i < nDigits; ++i) s += digit(i);
  return s;
}

// Whether decimal `text` reads back as exactly `bits` in float kind `kind`.
bool readsBackAs(const std::string& text, TypeKind kind, uint64_t bits) {
  if (kind == TypeKind::F32) {
    float f = std::strtof(text.c_str(), nullptr);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b == bits;
  }
  double d = std::strtod(text.c_str(), nullptr);
  if (kind == TypeKind::F64) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b == bits;
  }
  return encodeFloat(kind, d) == bits;
}

std::string hexLiteral(uint64_t bits) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string digits;
  do {
    digits.insert(digits.begin(), kDigits[bits & 15]);
    bits >>= 4;
  } while (bits);
  return "0x" + digits;
}

// MLIR's printFloatValue. Sets *printedHex when the hex form was used.
std::string formatFloat(TypeKind kind, uint64_t bits, bool* printedHex = nullptr) {
  double v = decodeFloat(kind, bits);
  if (printedHex) *printedHex = false;
  if (std::isfinite(v)) {
    bool negative = std::signbit(v);
    if (v == 0) return negative ? "-0.000000e+00" : "0.000000e+00";
    int e2;
    double m = std::frexp(std::fabs(v), &e2);  // v = m * 2^e2, m in [0.5, 1)
    uint64_t odd = uint64_t(std::ldexp(m, 64 - 11));  // 53 significant bits
    int exp = e2 - (64 - 11);
    while ((odd & 1) == 0) {
      odd >>= 1;
      ++exp;
    }
    unsigned precision = floatPrecision(kind);
    std::string text = apfloatToString(negative, odd, exp, 6, 0, false, precision);
    if (readsBackAs(text, kind, bits)) return text;
    text = apfloatToString(negative, odd, exp, 0, 3, true, precision);
    if (text.find('.') != std::string::npos) return text;
  }
  if (printedHex) *printedHex = true;
  return hexLiteral(bits);
}

// Bits of a double as float kind `kind` (attributes store floats as doubles).
uint64_t floatBits(TypeKind kind, double v) {
  if (kind == TypeKind::F64) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  return encodeFloat(kind, v);
}

// ============================================================================
// Attributes.
// ============================================================================

}  // namespace

bool isBareIdentifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(uint8_t(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(uint8_t(c)) || c == '_' || c == '$' || c == '.'; });
}

namespace {

// A string literal with MLIR's escapes (llvm::printEscapedString): `\\` for a
// backslash, `\XX` for quotes and unprintable bytes.
std::string quoted(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "\"";
  for (char c : s) {
    uint8_t u = uint8_t(c);
    if (c == '\\') {
      out += "\\\\";
    } else if (std::isprint(u) && c != '"') {
      out += c;
    } else {
      out += '\\';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out + "\"";
}

std::string symbolName(std::string_view name) {
  return "@" + (isBareIdentifier(name) ? std::string(name) : quoted(name));
}

// A dictionary key: bare when it is an identifier, quoted otherwise.
std::string keyName(std::string_view name) {
  return isBareIdentifier(name) ? std::string(name) : quoted(name);
}

std::vector<NamedAttribute> sortedByName(std::span<const NamedAttribute> entries) {
  std::vector<NamedAttribute> v(entries.begin(), entries.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return v;
}

// One element of a dense attribute, as raw little-endian bits.
uint64_t rawElement(std::span<const uint8_t> data, unsigned bytes, int64_t index) {
  uint64_t raw = 0;
  const uint8_t* p = data.data() + size_t(index) * bytes;
  for (unsigned b = 0; b < bytes && b < 8; ++b) raw |= uint64_t(p[b]) << (8 * b);
  return raw;
}

// The low `bits` bits of `raw` as a signed number.
int64_t signExtend(uint64_t raw, unsigned bits) {
  if (bits >= 64) return int64_t(raw);
  unsigned shift = 64 - bits;
  return int64_t(raw << shift) >> shift;
}

// An integer element: signed types print signed, unsigned print unsigned.
std::string formatInteger(uint64_t raw, Type type) {
  if (type.isBool()) return raw ? "true" : "false";
  unsigned bits = type.bitWidth();
  if (type.isUnsignedInteger()) {
    if (bits < 64) raw &= (uint64_t(1) << bits) - 1;
    return std::to_string(raw);
  }
  return std::to_string(signExtend(raw, bits));
}

// One scalar (a float, an integer or a complex pair) of `type`, stored at `p`.
std::string formatScalar(const uint8_t* p, Type type) {
  unsigned bytes = type.storageBytes();
  if (type.isComplex()) {
    Type part = type.complexElement();
    unsigned half = bytes / 2;
    return "(" + formatScalar(p, part) + "," + formatScalar(p + half, part) + ")";
  }
  uint64_t raw = rawElement(std::span<const uint8_t>(p, bytes), bytes, 0);
  if (type.isFloat()) return formatFloat(type.kind(), raw);
  return formatInteger(raw, type);
}

// MLIR's raw storage of one element for the hex form: sub-byte integers are
// kept in their low bits (kiln sign-extends them to a byte).
void appendHexElement(std::string& out, const uint8_t* p, Type elementType) {
  static const char* kHex = "0123456789ABCDEF";
  unsigned bytes = elementType.storageBytes();
  unsigned bits = elementType.isComplex() ? 0 : elementType.bitWidth();
  for (unsigned b = 0; b < bytes; ++b) {
    uint8_t byte = p[b];
    if (elementType.isInteger() && bits < 8) byte &= uint8_t((1u << bits) - 1);
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
}

// MLIR prints dense attributes of more than this many elements as a hex string.
constexpr int64_t kHexElementsThreshold = 100;

std::string printDenseElements(const Attribute& attr) {
  Type type = attr.valueType();
  Type et = type.elementType();
  unsigned bytes = et.storageBytes();
  std::span<const uint8_t> data = attr.denseData();
  int64_t n = type.numElements();
  bool splat = attr.denseIsSplat();
  if (data.size() < size_t(splat ? 1 : n) * bytes) return "<<malformed dense attribute>>";
  // MLIR stores a list whose elements are all equal as a splat. Equal as
  // printed: an i1 is any byte, true when not zero, and a sub-byte integer
  // its low bits, so bytes that differ elsewhere print (and read back) as one
  // value.
  if (!splat && n > 0) {
    unsigned bits = et.isComplex() ? 0 : et.bitWidth();
    auto same = [&](const uint8_t* a, const uint8_t* b) {
      if (et.isBool()) return (*a != 0) == (*b != 0);
      if (et.isInteger() && bits < 8) return ((*a ^ *b) & ((1u << bits) - 1)) == 0;
      return std::memcmp(a, b, bytes) == 0;
    };
    splat = true;
    for (int64_t i = 1; i < n && splat; ++i) splat = same(data.data(), data.data() + i * bytes);
  }
  std::string body;
  if (splat) {
    body = formatScalar(data.data(), et);
  } else if (n > kHexElementsThreshold) {
    body.reserve(4 + 2 * size_t(n) * bytes);
    body = "\"0x";
    for (int64_t i = 0; i < n; ++i) appendHexElement(body, data.data() + i * bytes, et);
    body += "\"";
  } else if (n > 0) {
    // Nested lists, one level per dimension.
    std::span<const int64_t> shape = type.shape();
    std::function<void(size_t, int64_t&)> emit = [&](size_t dim, int64_t& index) {
      if (dim == shape.size()) {
        body += formatScalar(data.data() + index * bytes, et);
        ++index;
        return;
      }
      body += '[';
      for (int64_t i = 0; i < shape[dim]; ++i) {
        if (i) body += ", ";
        emit(dim + 1, index);
      }
      body += ']';
    };
    int64_t index = 0;
    emit(0, index);
  }
  return "dense<" + body + "> : " + type.str();
}

std::string printDenseArray(const Attribute& attr) {
  Type et = attr.denseArrayElementType();
  std::string s = "array<" + et.str();
  std::span<const int64_t> ints = attr.denseArrayInts();
  std::span<const double> floats = attr.denseArrayFloats();
  size_t n = et.isFloat() ? floats.size() : ints.size();
  for (size_t i = 0; i < n; ++i) {
    s += i ? ", " : ": ";
    if (et.isFloat()) s += formatFloat(et.kind(), floatBits(et.kind(), floats[i]));
    else s += formatInteger(uint64_t(ints[i]), et);
  }
  return s + ">";
}

// Whether an attribute's type suffix may be elided (`1` for `1 : i64`), as
// MLIR does inside arrays.
enum class TypeElision { Never, May };

std::string printAttr(const Attribute& attr, TypeElision elision = TypeElision::Never);

// `#stablehlo.*<...>` structures with MLIR's field order and the fields MLIR
// leaves out when empty.
struct StructSyntax {
  std::string_view name;
  std::vector<std::string_view> fields;
  // Fields printed even when they are empty lists / zero.
  std::vector<std::string_view> alwaysPrinted;
};

const std::vector<StructSyntax>& structSyntaxes() {
  static const std::vector<StructSyntax> kSyntaxes = {
      {"dot",
       {"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
        "rhs_contracting_dimensions"},
       {}},
      {"gather",
       {"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
        "start_index_map", "index_vector_dim"},
       {"index_vector_dim"}},
      {"scatter",
       {"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims", "index_vector_dim"},
       {"index_vector_dim"}},
      {"channel_handle", {"handle", "type"}, {"handle", "type"}},
      {"output_operand_alias",
       {"output_tuple_indices", "operand_index", "operand_tuple_indices"},
       {"output_tuple_indices", "operand_index", "operand_tuple_indices"}},
      {"result_accuracy", {"atol", "rtol", "ulps", "mode"}, {"mode"}},
      {"dot_algorithm",
       {"lhs_precision_type", "rhs_precision_type", "accumulation_type", "lhs_component_count",
        "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"},
       {"lhs_precision_type", "rhs_precision_type", "accumulation_type", "lhs_component_count",
        "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"}},
  };
  return kSyntaxes;
}

bool isEmptyValue(const Attribute& a) {
  if (a.is(AttrKind::Array)) return a.arrayValue().empty();
  if (a.is(AttrKind::DenseArray)) return a.denseArrayInts().empty() && a.denseArrayFloats().empty();
  if (a.is(AttrKind::Integer)) return a.intValue() == 0;
  if (a.is(AttrKind::Float)) return a.floatValue() == 0;
  return false;
}

// A field value inside `#stablehlo.xxx<...>`: integers and floats bare.
std::string printStructField(const Attribute& v) {
  if (v.is(AttrKind::Integer)) return formatInteger(uint64_t(v.intValue()), v.valueType());
  if (v.is(AttrKind::Float)) return formatFloat(v.valueType().kind(), floatBits(v.valueType().kind(), v.floatValue()));
  if (v.is(AttrKind::Bool)) return v.boolValue() ? "true" : "false";
  if (v.is(AttrKind::Type)) return v.valueType().str();
  if (v.is(AttrKind::Array)) {
    std::string s = "[";
    for (size_t i = 0; i < v.arrayValue().size(); ++i) s += (i ? ", " : "") + printStructField(v.arrayValue()[i]);
    return s + "]";
  }
  return printAttr(v);
}

// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`: each dimension of the input,
// kernel and output named by its role.
std::string printConvDimensionNumbers(const Attribute& conv) {
  auto intOf = [&](std::string_view f) -> int64_t {
    Attribute a = conv.get(f);
    return a && a.is(AttrKind::Integer) ? a.intValue() : 0;
  };
  auto listOf = [&](std::string_view f) { return conv.get(f) ? conv.get(f).asIntList().value_or(std::vector<int64_t>{}) : std::vector<int64_t>{}; };
  auto layout = [&](int64_t a, char an, int64_t b, char bn, const std::vector<int64_t>& spatial) {
    size_t rank = spatial.size() + 2;
    std::vector<std::string> names(rank, "?");
    if (a >= 0 && size_t(a) < rank) names[size_t(a)] = std::string(1, an);
    if (b >= 0 && size_t(b) < rank) names[size_t(b)] = std::string(1, bn);
    for (size_t i = 0; i < spatial.size(); ++i)
      if (spatial[i] >= 0 && size_t(spatial[i]) < rank) names[size_t(spatial[i])] = std::to_string(i);
    std::string s = "[";
    for (size_t i = 0; i < rank; ++i) s += (i ? ", " : "") + names[i];
    return s + "]";
  };
  return layout(intOf("input_batch_dimension"), 'b', intOf("input_feature_dimension"), 'f',
                listOf("input_spatial_dimensions")) +
         "x" +
         layout(intOf("kernel_input_feature_dimension"), 'i', intOf("kernel_output_feature_dimension"), 'o',
                listOf("kernel_spatial_dimensions")) +
         "->" +
         layout(intOf("output_batch_dimension"), 'b', intOf("output_feature_dimension"), 'f',
                listOf("output_spatial_dimensions"));
}

// The body of a struct attribute, between its `<` and `>`.
std::string printStructBody(const Attribute& attr) {
  if (attr.dialect() == "stablehlo" && attr.attrName() == "conv") return printConvDimensionNumbers(attr);
  const StructSyntax* syntax = nullptr;
  if (attr.dialect() == "stablehlo")
    for (const StructSyntax& s : structSyntaxes())
      if (s.name == attr.attrName()) syntax = &s;
  std::vector<NamedAttribute> fields;
  if (syntax) {
    for (std::string_view f : syntax->fields) {
      Attribute v = attr.get(f);
      bool always = std::find(syntax->alwaysPrinted.begin(), syntax->alwaysPrinted.end(), f) !=
                    syntax->alwaysPrinted.end();
      if (v && (always || !isEmptyValue(v))) fields.emplace_back(std::string(f), v);
    }
  } else {
    fields.assign(attr.entries().begin(), attr.entries().end());
  }
  std::string s;
  for (size_t i = 0; i < fields.size(); ++i)
    s += (i ? ", " : "") + fields[i].first + " = " + printStructField(fields[i].second);
  return s;
}

// Enums MLIR prints as `#stablehlo.name<VALUE>` rather than `#stablehlo<name VALUE>`.
bool enumUsesDottedSyntax(const Attribute& e) { return e.attrName() == "result_accuracy_mode"; }

std::string printAttr(const Attribute& attr, TypeElision elision) {
  if (!attr) return "<<null attribute>>";
  switch (attr.kind()) {
    case AttrKind::Unit: return "unit";
    case AttrKind::Bool: return attr.boolValue() ? "true" : "false";
    case AttrKind::Integer: {
      Type t = attr.valueType();
      if (t.isBool()) return attr.intValue() ? "true" : "false";
      std::string s = t.kind() == TypeKind::Index ? std::to_string(attr.intValue())
                                                  : formatInteger(uint64_t(attr.intValue()), t);
      if (elision == TypeElision::May && t == Type::si64()) return s;
      return s + " : " + t.str();
    }
    case AttrKind::Float: {
      Type t = attr.valueType();
      bool hex = false;
      std::string s = formatFloat(t.kind(), floatBits(t.kind(), attr.floatValue()), &hex);
      if (elision == TypeElision::May && t.kind() == TypeKind::F64 && !hex) return s;
      return s + " : " + t.str();
    }
    case AttrKind::String: return quoted(attr.stringValue());
    case AttrKind::Type: return attr.valueType().str();
    case AttrKind::SymbolRef: {
      std::string s;
      for (size_t i = 0; i < attr.symbolPath().size(); ++i) s += (i ? "::" : "") + symbolName(attr.symbolPath()[i]);
      return s;
    }
    case AttrKind::Array: {
      std::string s = "[";
      for (size_t i = 0; i < attr.arrayValue().size(); ++i)
        s += (i ? ", " : "") + printAttr(attr.arrayValue()[i], TypeElision::May);
      return s + "]";
    }
    case AttrKind::DenseArray: return printDenseArray(attr);
    case AttrKind::DenseElements: return printDenseElements(attr);
    case AttrKind::Dictionary: {
      std::string s = "{";
      std::vector<NamedAttribute> entries = sortedByName(attr.entries());
      for (size_t i = 0; i < entries.size(); ++i) {
        s += (i ? ", " : "") + keyName(entries[i].first);
        if (!entries[i].second.is(AttrKind::Unit)) s += " = " + printAttr(entries[i].second);
      }
      return s + "}";
    }
    case AttrKind::Enum:
      if (enumUsesDottedSyntax(attr))
        return "#" + attr.dialect() + "." + attr.attrName() + "<" + attr.stringValue() + ">";
      return "#" + attr.dialect() + "<" + attr.attrName() + " " + attr.stringValue() + ">";
    case AttrKind::Struct: return "#" + attr.dialect() + "." + attr.attrName() + "<" + printStructBody(attr) + ">";
    case AttrKind::Opaque: return attr.stringValue();
  }
  return "<<unknown attribute>>";
}

// `{a = 1 : i32, b}`: an op's or a function argument's attribute dictionary,
// sorted by name as MLIR's DictionaryAttr keeps it. Empty string when empty.
std::string printAttrDict(std::span<const NamedAttribute> attrs, const std::set<std::string_view>& elided = {}) {
  std::string s;
  for (const auto& [name, value] : sortedByName(attrs)) {
    if (elided.count(name)) continue;
    s += (s.empty() ? "{" : ", ") + keyName(name);
    if (!value.is(AttrKind::Unit)) s += " = " + printAttr(value);
  }
  return s.empty() ? s : s + "}";
}

// ============================================================================
// SSA names, assigned the way MLIR's SSANameState does: regions are numbered
// from a stack (so nested regions see the counters as they were after their
// parent region); in the pretty form each region starts again from its
// parent's counters, in the generic form numbering continues across regions.
// Values may carry a suggested name (%cst, %c, %iterArg) in the pretty form,
// made unique with _N suffixes.
// ============================================================================

class SsaNames {
 public:
  SsaNames(const Operation& root, bool generic) : generic_(generic) {
    struct Context {
      const Region* region;
      unsigned nextValue, nextArg, nextConflict;
      int parentScope;
    };
    scopes_.push_back({-1, {}});
    std::vector<Context> stack;
    for (const auto& r : root.regions()) stack.push_back({r.get(), 0, 0, 0, 0});
    numberOp(root);
    while (!stack.empty()) {
      Context ctx = stack.back();
      stack.pop_back();
      if (!generic_) {
        nextValue_ = ctx.nextValue;
        nextArg_ = ctx.nextArg;
        nextConflict_ = ctx.nextConflict;
      }
      scopes_.push_back({ctx.parentScope, {}});
      current_ = int(scopes_.size()) - 1;
      numberRegion(*ctx.region);
      for (const auto& block : ctx.region->blocks())
        for (const Operation& op : *block)
          for (const auto& r : op.regions())
            stack.push_back({r.get(), nextValue_, nextArg_, nextConflict_, current_});
    }
  }

  // "%0", "%arg1", "%cst_2", "%3#1".
  std::string use(const Value* v) const {
    const Operation* op = v->definingOp();
    if (op && op->numResults() > 1 && !hasOwnName(v)) {
      auto it = names_.find(op->result(0));
      return "%" + (it == names_.end() ? std::string("<<unnamed>>") : it->second) + "#" + std::to_string(v->index());
    }
    auto it = names_.find(v);
    return "%" + (it == names_.end() ? std::string("<<unnamed>>") : it->second);
  }
  // The left-hand side of an op's definition: "%0", "%0:2", "%a, %b".
  std::string results(const Operation& op) const {
    if (op.numResults() == 0) return "";
    if (op.numResults() == 1) return use(op.result(0));
    if (!hasOwnName(op.result(0))) return "%" + names_.at(op.result(0)) + ":" + std::to_string(op.numResults());
    std::string s;
    for (unsigned i = 0; i < op.numResults(); ++i) s += (i ? ", " : "") + use(op.result(i));
    return s;
  }
  std::string block(const Block* b) const {
    auto it = blockIds_.find(b);
    return "^bb" + std::to_string(it == blockIds_.end() ? 0 : it->second);
  }

 private:
  bool hasOwnName(const Value* v) const { return names_.count(v) && !numbered_.count(v); }

  bool used(const std::string& name) const {
    for (int s = current_; s >= 0; s = scopes_[size_t(s)].parent)
      if (scopes_[size_t(s)].names.count(name)) return true;
    return false;
  }
  std::string unique(const std::string& name) {
    std::string result = name;
    if (used(name)) {
      do {
        result = name + "_" + std::to_string(nextConflict_++);
      } while (used(result));
    }
    scopes_[size_t(current_)].names.insert(result);
    return result;
  }
  void setName(const Value* v, const std::string& suggested) {
    if (suggested.empty()) {
      names_[v] = std::to_string(nextValue_++);
      numbered_.insert(v);
    } else {
      names_[v] = unique(suggested);
    }
  }

  // Names suggested by ops' custom formats (OpAsmOpInterface in MLIR).
  void suggestResultNames(const Operation& op) {
    if (generic_) return;
    if (op.name() == "stablehlo.constant" && op.numResults() == 1) {
      Type t = op.result(0)->type();
      Type et = t.isTensor() ? t.elementType() : t;
      setName(op.result(0), et.isInteger() || et.isBool() ? "c" : "cst");
      return;
    }
    // Ops with several fixed results name them after their ODS result names.
    static const std::map<std::string_view, std::vector<std::string>> kResultNames = {
        {"stablehlo.rng_bit_generator", {"output_state", "output"}},
        {"stablehlo.batch_norm_training", {"output", "batch_mean", "batch_var"}},
        {"stablehlo.batch_norm_grad", {"grad_operand", "grad_scale", "grad_offset"}},
        {"chlo.top_k", {"values", "indices"}},
    };
    auto it = kResultNames.find(op.name());
    if (it == kResultNames.end() || it->second.size() != op.numResults()) return;
    for (unsigned i = 0; i < op.numResults(); ++i) setName(op.result(i), it->second[i]);
  }

  void numberOp(const Operation& op) {
    suggestResultNames(op);
    if (op.numResults() == 0 || names_.count(op.result(0))) return;
    names_[op.result(0)] = std::to_string(nextValue_++);
    numbered_.insert(op.result(0));
  }

  void numberRegion(const Region& region) {
    const Operation* parent = region.parentOp();
    if (!generic_ && parent && parent->name() == "stablehlo.while")
      for (Value* arg : region.front().arguments()) setName(arg, "iterArg");
    unsigned blockId = 0;
    for (const auto& block : region.blocks()) {
      blockIds_[block.get()] = blockId++;
      bool entry = block.get() == &region.front();
      for (Value* arg : block->arguments()) {
        if (names_.count(arg)) continue;
        setName(arg, entry ? "arg" + std::to_string(nextArg_++) : "");
      }
      for (const Operation& op : *block) numberOp(op);
    }
  }

  struct Scope {
    int parent;
    std::set<std::string> names;
  };
  bool generic_;
  unsigned nextValue_ = 0, nextArg_ = 0, nextConflict_ = 0;
  std::vector<Scope> scopes_;
  int current_ = 0;
  std::unordered_map<const Value*, std::string> names_;
  std::set<const Value*> numbered_;  // values named by a plain number
  std::unordered_map<const Block*, unsigned> blockIds_;
};

// ============================================================================
// Operations.
// ============================================================================

std::string typeList(const std::vector<Type>& types) {
  std::string s;
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].str();
  return s;
}

// `(a, b) -> r` or `(a) -> (r1, r2)`, as MLIR's functional-type.
std::string functionalType(const std::vector<Type>& inputs, const std::vector<Type>& results) {
  std::string s = "(" + typeList(inputs) + ") -> ";
  if (results.size() == 1 && !results[0].isFunction()) return s + results[0].str();
  return s + "(" + typeList(results) + ")";
}

std::string intList(std::span<const int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::vector<int64_t> intsOf(const Attribute& a) {
  return a ? a.asIntList().value_or(std::vector<int64_t>{}) : std::vector<int64_t>{};
}

// `[DEFAULT, HIGHEST]` from an Array of precision enums.
std::string enumList(const Attribute& a) {
  std::string s = "[";
  for (size_t i = 0; i < a.arrayValue().size(); ++i) s += (i ? ", " : "") + a.arrayValue()[i].stringValue();
  return s + "]";
}

class Printer {
 public:
  Printer(const Operation& root, const PrintOptions& options)
      : options_(options), names_(root, options.generic) {}

  void printTop(const Operation& op) {
    printOperation(op);
    out_ += "\n";
  }
  std::string take() { return std::move(out_); }

 private:
  using PrettyFn = bool (Printer::*)(const Operation&);

  void indent() { out_.append(size_t(indent_) * 2, ' '); }

  // "%0, %arg1".
  std::string operands(const Operation& op) const {
    std::string s;
    for (unsigned i = 0; i < op.numOperands(); ++i) s += (i ? ", " : "") + names_.use(op.operand(i));
    return s;
  }

  void printLocation(const Operation& op) {
    if (!options_.debugInfo) return;
    out_ += " " + locationText(op.debugLoc(), op.loc());
  }
  static std::string locationText(const std::string& debugLoc, Location loc) {
    if (!debugLoc.empty()) return debugLoc.rfind("loc(", 0) == 0 ? debugLoc : "loc(" + debugLoc + ")";
    if (loc.known())
      return "loc(" + quoted(*loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ")";
    return "loc(unknown)";
  }

  void printOperation(const Operation& op) {
    std::string lhs = names_.results(op);
    if (!lhs.empty()) out_ += lhs + " = ";
    if (!options_.generic && printPretty(op)) {
      printLocation(op);
      return;
    }
    printGeneric(op, /*withName=*/true);
    printLocation(op);
  }

  // "name"(operands) <{inherent}> ({regions}) {other attrs} : (types) -> types
  void printGeneric(const Operation& op, bool withName) {
    if (withName) out_ += quoted(op.name());
    out_ += "(" + operands(op) + ")";
    std::vector<NamedAttribute> inherent, other;
    for (const auto& entry : op.attrs().entries()) {
      bool isInherent = op.def() && std::find(op.def()->inherentAttrs.begin(), op.def()->inherentAttrs.end(),
                                              entry.first) != op.def()->inherentAttrs.end();
      (isInherent ? inherent : other).push_back(entry);
    }
    if (!inherent.empty()) out_ += " <" + printAttrDict(inherent) + ">";
    if (op.numRegions()) {
      out_ += " (";
      for (unsigned i = 0; i < op.numRegions(); ++i) {
        if (i) out_ += ", ";
        printRegion(op.region(i), /*printEntryArgs=*/true);
      }
      out_ += ")";
    }
    if (!other.empty()) out_ += " " + printAttrDict(other);
    out_ += " : " + functionalType(op.operandTypes(), op.resultTypes());
  }

  // `{\n  ops\n}`; the entry block's header is printed only when it has
  // arguments to declare (and `printEntryArgs`), like MLIR.
  void printRegion(const Region& region, bool printEntryArgs) {
    out_ += "{\n";
    ++indent_;
    for (const auto& block : region.blocks()) {
      bool entry = block.get() == &region.front();
      // An empty entry block keeps its label in the generic form, as MLIR
      // prints it (`"builtin.module"() ({\n^bb0:\n})`): a region without a
      // block would be a different region.
      if (!entry || (printEntryArgs && (block->numArguments() > 0 || block->empty()))) {
        out_.append(size_t(indent_ - 1) * 2, ' ');
        out_ += names_.block(block.get());
        if (block->numArguments()) {
          out_ += "(";
          for (unsigned i = 0; i < block->numArguments(); ++i) {
            Value* arg = block->argument(i);
            out_ += (i ? ", " : "") + names_.use(arg) + ": " + arg->type().str();
            if (options_.debugInfo) out_ += " " + locationText("", arg->loc);
          }
          out_ += ")";
        }
        out_ += ":\n";
      }
      for (const Operation& op : *block) {
        indent();
        printOperation(op);
        out_ += "\n";
      }
    }
    --indent_;
    indent();
    out_ += "}";
  }

  // The block of a region printed without its header: `{ ops }` with the
  // arguments declared elsewhere (func signature, reduce's reducer, ...).
  void printRegionBody(const Region& region) { printRegion(region, /*printEntryArgs=*/false); }

  // --- Pretty forms ----------------------------------------------------------

  bool printPretty(const Operation& op) {
    const OpDef* def = op.def();
    switch (def ? def->pretty : PrettyForm::kCustom) {
      case PrettyForm::kGenericOnly: return false;
      case PrettyForm::kSameType: return printSameType(op);
      case PrettyForm::kFunctional: return printFunctional(op);
      case PrettyForm::kNullary: return printNullary(op);
      case PrettyForm::kChloElementwise: return printChloElementwise(op);
      case PrettyForm::kCustom: break;
    }
    static const std::unordered_map<std::string_view, PrettyFn> kCustom = customTable();
    auto it = kCustom.find(op.name());
    return it != kCustom.end() && (this->*(it->second))(op);
  }

 public:
  // The ops with a printer of their own (PrettyForm::kCustom); the shared
  // forms come from the op registry.
  static std::unordered_map<std::string_view, PrettyFn> customTable() {
    std::unordered_map<std::string_view, PrettyFn> t;
    t["stablehlo.constant"] = &Printer::printConstant;
    t["stablehlo.compare"] = &Printer::printCompare;
    t["stablehlo.select"] = &Printer::printSelect;
    t["stablehlo.complex"] = &Printer::printComplex;
    t["stablehlo.tuple"] = &Printer::printTuple;
    t["stablehlo.get_tuple_element"] = &Printer::printGetTupleElement;
    t["stablehlo.optimization_barrier"] = &Printer::printOptimizationBarrier;
    t["stablehlo.iota"] = &Printer::printIota;
    t["stablehlo.dynamic_iota"] = &Printer::printDimOp;
    t["stablehlo.concatenate"] = &Printer::printDimOp;
    t["stablehlo.get_dimension_size"] = &Printer::printDimOp;
    t["stablehlo.set_dimension_size"] = &Printer::printDimOp;
    t["stablehlo.broadcast"] = &Printer::printDimsOp;
    t["stablehlo.einsum"] = &Printer::printEinsum;
    t["stablehlo.unary_einsum"] = &Printer::printEinsum;
    t["interpreter.probe"] = &Printer::printProbe;
    t["stablehlo.broadcast_in_dim"] = &Printer::printDimsOp;
    t["stablehlo.dynamic_broadcast_in_dim"] = &Printer::printDimsOp;
    t["stablehlo.transpose"] = &Printer::printDimsOp;
    t["stablehlo.reverse"] = &Printer::printDimsOp;
    t["stablehlo.slice"] = &Printer::printSlice;
    t["stablehlo.dynamic_slice"] = &Printer::printDynamicSlice;
    t["stablehlo.pad"] = &Printer::printPad;
    t["stablehlo.reduce_precision"] = &Printer::printReducePrecision;
    t["stablehlo.cholesky"] = &Printer::printCholesky;
    t["stablehlo.fft"] = &Printer::printFft;
    t["stablehlo.dot"] = &Printer::printDot;
    t["stablehlo.dot_general"] = &Printer::printDotGeneral;
    t["stablehlo.convolution"] = &Printer::printConvolution;
    t["stablehlo.rng"] = &Printer::printRng;
    t["stablehlo.rng_bit_generator"] = &Printer::printRngBitGenerator;
    t["stablehlo.custom_call"] = &Printer::printCustomCall;
    t["stablehlo.composite"] = &Printer::printComposite;
    t["stablehlo.reduce"] = &Printer::printReduce;
    t["stablehlo.while"] = &Printer::printWhile;
    t["stablehlo.return"] = &Printer::printReturn;
    t["func.return"] = &Printer::printReturn;
    t["check.expect_eq"] = &Printer::printCheckCompare;
    t["check.expect_almost_eq"] = &Printer::printCheckCompare;
    t["check.expect_serialized_eq"] = &Printer::printCheckCompare;
    t["check.expect_eq_const"] = &Printer::printCheckConst;
    t["check.expect_almost_eq_const"] = &Printer::printCheckConst;
    t["check.expect_close"] = &Printer::printCheckClose;
    t["chlo.top_k"] = &Printer::printTopK;
    t["func.call"] = &Printer::printCall;
    t["func.func"] = &Printer::printFunc;
    t["builtin.module"] = &Printer::printModuleOp;
    t["sdy.mesh"] = &Printer::printSdyMesh;
    t["sdy.sharding_constraint"] = &Printer::printSdyShardedValue;
    t["sdy.reshard"] = &Printer::printSdyShardedValue;
    t["sdy.sharding_group"] = &Printer::printSdyShardingGroup;
    t["sdy.propagation_barrier"] = &Printer::printSdyPropagationBarrier;
    t["sdy.manual_computation"] = &Printer::printSdyManualComputation;
    t["sdy.return"] = &Printer::printReturn;
    return t;
  }
 private:
  // The op's name without the `func.` prefix inside functions (`return`,
  // `call`), as MLIR's default dialect elision does.
  std::string prettyName(const Operation& op) const {
    if (op.name().rfind("func.", 0) == 0 && op.parentOp() && op.parentOp()->name() == "func.func")
      return op.name().substr(5);
    return op.name();
  }

  // Appends ` {attrs}` for the attributes the custom format did not print.
  void attrDict(const Operation& op, const std::set<std::string_view>& elided = {}) {
    std::string d = printAttrDict(op.attrs().entries(), elided);
    if (!d.empty()) out_ += " " + d;
  }

  // MLIR's SameOperandsAndResultType: one type if every operand and result
  // has it, else the functional type.
  std::string sameTypeSuffix(const Operation& op) const {
    std::vector<Type> all = op.operandTypes();
    for (Type t : op.resultTypes()) all.push_back(t);
    if (!all.empty() && std::all_of(all.begin(), all.end(), [&](Type t) { return t == all[0]; }))
      return all[0].str();
    return functionalType(op.operandTypes(), op.resultTypes());
  }
  std::string functional(const Operation& op) const { return functionalType(op.operandTypes(), op.resultTypes()); }

  // result_accuracy with mode DEFAULT and no tolerances is the default, which
  // MLIR leaves out.
  static bool isDefaultResultAccuracy(const Attribute& a) {
    if (!a || !a.is(AttrKind::Struct)) return false;
    Attribute mode = a.get("mode");
    for (std::string_view f : {"atol", "rtol", "ulps"})
      if (a.get(f) && !isEmptyValue(a.get(f))) return false;
    return !mode || mode.stringValue() == "DEFAULT";
  }

  bool printSameType(const Operation& op) {
    out_ += op.name();
    if (op.numOperands()) out_ += " " + operands(op);
    std::set<std::string_view> elided;
    if (isDefaultResultAccuracy(op.attr("result_accuracy"))) elided.insert("result_accuracy");
    attrDict(op, elided);
    out_ += " : " + sameTypeSuffix(op);
    return true;
  }

  // chlo's `operands attr-dict : operand types -> result types`.
  std::string chloArrowTypes(const Operation& op) const {
    std::string results = op.numResults() == 1 ? op.resultTypes()[0].str() : "(" + typeList(op.resultTypes()) + ")";
    return typeList(op.operandTypes()) + " -> " + results;
  }

  // `chlo.square %x : T -> T`, `chlo.next_after %x, %y : T, T -> T`.
  bool printChloElementwise(const Operation& op) {
    if (op.numOperands() == 0 || op.numResults() != 1) return false;
    out_ += op.name() + " " + operands(op);
    attrDict(op);
    out_ += " : " + chloArrowTypes(op);
    return true;
  }

  // `chlo.top_k(%x, k = 5) : T -> (V, I)`.
  bool printTopK(const Operation& op) {
    Attribute k = op.attr("k");
    if (op.numOperands() != 1 || op.numResults() != 2 || !k || !k.is(AttrKind::Integer)) return false;
    out_ += op.name() + "(" + operands(op) + ", k = " + std::to_string(k.intValue()) + ")";
    attrDict(op, {"k"});
    out_ += " : " + chloArrowTypes(op);
    return true;
  }

  bool printFunctional(const Operation& op) {
    out_ += op.name() + " " + operands(op);
    attrDict(op);
    out_ += " : " + functional(op);
    return true;
  }

  bool printNullary(const Operation& op) {
    if (op.numOperands() || op.numResults() != 1) return false;
    out_ += op.name();
    attrDict(op);
    out_ += " : " + op.result(0)->type().str();
    return true;
  }

  bool printConstant(const Operation& op) {
    Attribute value = op.attr("value");
    if (!value || !value.is(AttrKind::DenseElements) || op.numResults() != 1) return false;
    out_ += op.name();
    if (value.valueType() != op.result(0)->type()) {
      // MLIR prints the generic form without the name's quotes here.
      out_ += " ";
      printGeneric(op, /*withName=*/false);
      return true;
    }
    attrDict(op, {"value"});
    out_ += " " + printAttr(value);
    return true;
  }

  bool printCompare(const Operation& op) {
    Attribute dir = op.attr("comparison_direction");
    if (!dir || !dir.is(AttrKind::Enum) || op.numOperands() != 2) return false;
    out_ += op.name() + " " + dir.stringValue() + ", " + operands(op);
    if (Attribute type = op.attr("compare_type"); type && type.is(AttrKind::Enum)) out_ += ", " + type.stringValue();
    attrDict(op, {"comparison_direction", "compare_type"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printSelect(const Operation& op) {
    if (op.numOperands() != 3 || op.numResults() != 1) return false;
    out_ += op.name() + " " + operands(op);
    attrDict(op);
    Type r = op.result(0)->type();
    if (op.operand(1)->type() == r && op.operand(2)->type() == r)
      out_ += " : " + op.operand(0)->type().str() + ", " + r.str();
    else
      out_ += " : " + functional(op);
    return true;
  }

  bool printComplex(const Operation& op) {
    if (op.numOperands() != 2 || op.numResults() != 1) return false;
    out_ += op.name() + " " + operands(op);
    attrDict(op);
    Type lhs = op.operand(0)->type(), r = op.result(0)->type();
    bool sameParts = lhs == op.operand(1)->type() && lhs.isTensor() && r.isTensor() &&
                     r == lhs.withElementType(Type::complex(lhs.elementType()));
    out_ += " : " + (sameParts ? r.str() : functional(op));
    return true;
  }

  bool printTuple(const Operation& op) {
    if (op.numResults() != 1) return false;
    out_ += op.name();
    if (op.numOperands()) out_ += " " + operands(op);
    attrDict(op);
    out_ += " : " + op.result(0)->type().str();
    return true;
  }

  bool printGetTupleElement(const Operation& op) {
    Attribute index = op.attr("index");
    if (!index || !index.is(AttrKind::Integer) || op.numOperands() != 1) return false;
    out_ += op.name() + " " + operands(op) + "[" + std::to_string(index.intValue()) + "]";
    attrDict(op, {"index"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printOptimizationBarrier(const Operation& op) {
    out_ += op.name();
    if (op.numOperands() == 0) {
      out_ += "()";
      attrDict(op);
      return true;
    }
    out_ += " " + operands(op);
    attrDict(op);
    out_ += " : " + typeList(op.resultTypes());
    return true;
  }

  // `dim = N` for ops whose only attribute is a dimension number.
  static std::string_view dimAttrName(const Operation& op) {
    return op.name() == "stablehlo.dynamic_iota" || op.name() == "stablehlo.iota" ? "iota_dimension" : "dimension";
  }

  bool printIota(const Operation& op) {
    Attribute dim = op.attr("iota_dimension");
    if (!dim || !dim.is(AttrKind::Integer) || op.numResults() != 1) return false;
    out_ += op.name() + " dim = " + std::to_string(dim.intValue());
    attrDict(op, {"iota_dimension"});
    out_ += " : " + op.result(0)->type().str();
    return true;
  }

  bool printDimOp(const Operation& op) {
    std::string_view attrName = dimAttrName(op);
    Attribute dim = op.attr(attrName);
    if (!dim || !dim.is(AttrKind::Integer)) return false;
    out_ += op.name() + " " + operands(op) + ", dim = " + std::to_string(dim.intValue());
    attrDict(op, {attrName});
    out_ += " : " + functional(op);
    return true;
  }

  // `dims = [...]`: broadcast_in_dim, transpose, reverse.
  bool printDimsOp(const Operation& op) {
    std::string_view attrName = op.name() == "stablehlo.transpose"   ? "permutation"
                                : op.name() == "stablehlo.reverse"   ? "dimensions"
                                : op.name() == "stablehlo.broadcast" ? "broadcast_sizes"
                                                                     : "broadcast_dimensions";
    Attribute dims = op.attr(attrName);
    if (!dims || !dims.is(AttrKind::DenseArray)) return false;
    out_ += op.name() + " " + operands(op) + (op.name() == "stablehlo.broadcast" ? ", sizes = " : ", dims = ") +
            intList(dims.denseArrayInts());
    attrDict(op, {attrName});
    out_ += " : " + (op.name() == "stablehlo.reverse" ? sameTypeSuffix(op) : functional(op));
    return true;
  }

  bool printSlice(const Operation& op) {
    Attribute start = op.attr("start_indices"), limit = op.attr("limit_indices"), strides = op.attr("strides");
    if (!start || !limit || !strides || !start.is(AttrKind::DenseArray) || !limit.is(AttrKind::DenseArray) ||
        !strides.is(AttrKind::DenseArray))
      return false;
    auto s = start.denseArrayInts(), l = limit.denseArrayInts(), st = strides.denseArrayInts();
    if (s.size() != l.size() || s.size() != st.size()) return false;
    out_ += op.name() + " " + operands(op) + " [";
    for (size_t i = 0; i < s.size(); ++i) {
      out_ += (i ? ", " : "") + std::to_string(s[i]) + ":" + std::to_string(l[i]);
      if (st[i] != 1) out_ += ":" + std::to_string(st[i]);
    }
    out_ += "]";
    attrDict(op, {"start_indices", "limit_indices", "strides"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printDynamicSlice(const Operation& op) {
    Attribute sizes = op.attr("slice_sizes");
    if (!sizes || !sizes.is(AttrKind::DenseArray)) return false;
    out_ += op.name() + " " + operands(op) + ", sizes = " + intList(sizes.denseArrayInts());
    attrDict(op, {"slice_sizes"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printPad(const Operation& op) {
    Attribute low = op.attr("edge_padding_low"), high = op.attr("edge_padding_high"),
              interior = op.attr("interior_padding");
    if (!low || !high || !interior || !low.is(AttrKind::DenseArray) || !high.is(AttrKind::DenseArray) ||
        !interior.is(AttrKind::DenseArray))
      return false;
    out_ += op.name() + " " + operands(op) + ", low = " + intList(low.denseArrayInts()) +
            ", high = " + intList(high.denseArrayInts()) + ", interior = " + intList(interior.denseArrayInts());
    attrDict(op, {"edge_padding_low", "edge_padding_high", "interior_padding"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printReducePrecision(const Operation& op) {
    Attribute e = op.attr("exponent_bits"), m = op.attr("mantissa_bits");
    if (!e || !m || !e.is(AttrKind::Integer) || !m.is(AttrKind::Integer)) return false;
    out_ += op.name() + " " + operands(op) + ", format = e" + std::to_string(e.intValue()) + "m" +
            std::to_string(m.intValue());
    attrDict(op, {"exponent_bits", "mantissa_bits"});
    out_ += " : " + sameTypeSuffix(op);
    return true;
  }

  bool printCholesky(const Operation& op) {
    out_ += op.name() + " " + operands(op);
    Attribute lower = op.attr("lower");
    if (lower && lower.is(AttrKind::Bool) && lower.boolValue()) out_ += ", lower = true";
    attrDict(op, {"lower"});
    out_ += " : " + sameTypeSuffix(op);
    return true;
  }

  bool printFft(const Operation& op) {
    Attribute type = op.attr("fft_type"), length = op.attr("fft_length");
    if (!type || !length || !type.is(AttrKind::Enum) || !length.is(AttrKind::DenseArray)) return false;
    out_ += op.name() + " " + operands(op) + ", type = " + type.stringValue() +
            ", length = " + intList(length.denseArrayInts());
    attrDict(op, {"fft_type", "fft_length"});
    out_ += " : " + functional(op);
    return true;
  }

  // `stablehlo.einsum %a, %b, config = "ab,bc->ac" : (A, B) -> R`.
  bool printEinsum(const Operation& op) {
    Attribute config = op.attr("einsum_config");
    if (!config || !config.is(AttrKind::String)) return false;
    out_ += op.name() + " " + operands(op) + ", config = " + printAttr(config);
    attrDict(op, {"einsum_config"});
    out_ += " : " + functional(op);
    return true;
  }

  // `interpreter.probe %x, probe_id = "p0" : T`.
  bool printProbe(const Operation& op) {
    Attribute id = op.attr("probe_id");
    if (!id || !id.is(AttrKind::String) || op.numOperands() != 1 || op.numResults() != 1 ||
        op.operand(0)->type() != op.result(0)->type())
      return false;
    out_ += op.name() + " " + operands(op) + ", probe_id = " + printAttr(id);
    attrDict(op, {"probe_id"});
    out_ += " : " + op.result(0)->type().str();
    return true;
  }

  bool printDot(const Operation& op) {
    out_ += op.name() + " " + operands(op);
    Attribute precision = op.attr("precision_config");
    if (precision && precision.is(AttrKind::Array)) out_ += ", precision = " + enumList(precision);
    attrDict(op, {"precision_config"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printDotGeneral(const Operation& op) {
    Attribute dims = op.attr("dot_dimension_numbers");
    if (!dims || !dims.is(AttrKind::Struct)) return false;
    auto lb = intsOf(dims.get("lhs_batching_dimensions")), rb = intsOf(dims.get("rhs_batching_dimensions"));
    auto lc = intsOf(dims.get("lhs_contracting_dimensions")), rc = intsOf(dims.get("rhs_contracting_dimensions"));
    out_ += op.name() + " " + operands(op);
    if (!lb.empty() || !rb.empty()) out_ += ", batching_dims = " + intList(lb) + " x " + intList(rb);
    out_ += ", contracting_dims = " + intList(lc) + " x " + intList(rc);
    Attribute precision = op.attr("precision_config");
    if (precision && precision.is(AttrKind::Array)) out_ += ", precision = " + enumList(precision);
    Attribute algorithm = op.attr("algorithm");
    if (algorithm && algorithm.is(AttrKind::Struct)) out_ += ", algorithm = <" + printStructBody(algorithm) + ">";
    attrDict(op, {"dot_dimension_numbers", "precision_config", "algorithm"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printConvolution(const Operation& op) {
    Attribute dims = op.attr("dimension_numbers");
    if (!dims || !dims.is(AttrKind::Struct) || op.numOperands() != 2) return false;
    out_ += op.name() + "(" + operands(op) + ") dim_numbers = " + printConvDimensionNumbers(dims) + ", window = {";
    std::string window;
    auto field = [&](std::string_view label, std::string_view attrName, bool bools) {
      Attribute a = op.attr(attrName);
      if (!a) return;
      std::string v;
      if (bools) {
        v = "[";
        auto ints = a.denseArrayInts();
        for (size_t i = 0; i < ints.size(); ++i) v += std::string(i ? ", " : "") + (ints[i] ? "true" : "false");
        v += "]";
      } else if (a.is(AttrKind::DenseElements)) {
        // padding: [[lo, hi], ...]
        auto flat = intsOfDense(a);
        v = "[";
        for (size_t i = 0; i + 1 < flat.size(); i += 2)
          v += (i ? ", " : "") + std::string("[") + std::to_string(flat[i]) + ", " + std::to_string(flat[i + 1]) + "]";
        v += "]";
      } else {
        v = intList(intsOf(a));
      }
      window += (window.empty() ? "" : ", ") + std::string(label) + " = " + v;
    };
    field("stride", "window_strides", false);
    field("pad", "padding", false);
    field("lhs_dilate", "lhs_dilation", false);
    field("rhs_dilate", "rhs_dilation", false);
    field("reverse", "window_reversal", true);
    out_ += window + "}";
    attrDict(op, {"dimension_numbers", "window_strides", "padding", "lhs_dilation", "rhs_dilation",
                  "window_reversal"});
    out_ += " : " + functional(op);
    return true;
  }
  // Every element of an integer dense attribute, row-major.
  static std::vector<int64_t> intsOfDense(const Attribute& a) {
    Type t = a.valueType();
    Type et = t.elementType();
    unsigned bytes = et.storageBytes();
    std::vector<int64_t> out;
    for (int64_t i = 0; i < t.numElements(); ++i) {
      uint64_t raw = rawElement(a.denseData(), bytes, a.denseIsSplat() ? 0 : i);
      out.push_back(et.isUnsignedInteger() ? int64_t(raw) : signExtend(raw, et.bitWidth()));
    }
    return out;
  }

  bool printRng(const Operation& op) {
    Attribute dist = op.attr("rng_distribution");
    if (!dist || !dist.is(AttrKind::Enum)) return false;
    out_ += op.name() + " " + operands(op) + ", distribution = " + dist.stringValue();
    attrDict(op, {"rng_distribution"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printRngBitGenerator(const Operation& op) {
    Attribute algorithm = op.attr("rng_algorithm");
    if (!algorithm || !algorithm.is(AttrKind::Enum)) return false;
    out_ += op.name() + " " + operands(op) + ", algorithm = " + algorithm.stringValue();
    attrDict(op, {"rng_algorithm"});
    out_ += " : " + functional(op);
    return true;
  }

  // Attributes equal to the default ODS declares are left out of attr-dicts.
  static bool isIntEqual(const Attribute& a, int64_t v) { return a && a.is(AttrKind::Integer) && a.intValue() == v; }

  bool printCustomCall(const Operation& op) {
    Attribute target = op.attr("call_target_name");
    if (!target || !target.is(AttrKind::String)) return false;
    out_ += op.name() + " " + symbolName(target.stringValue()) + "(" + operands(op) + ")";
    std::set<std::string_view> elided = {"call_target_name"};
    if (isIntEqual(op.attr("api_version"), 1)) elided.insert("api_version");
    if (Attribute a = op.attr("has_side_effect"); a && a.is(AttrKind::Bool) && !a.boolValue())
      elided.insert("has_side_effect");
    if (Attribute a = op.attr("called_computations"); a && a.is(AttrKind::Array) && a.arrayValue().empty())
      elided.insert("called_computations");
    attrDict(op, elided);
    out_ += " : " + functional(op);
    return true;
  }

  bool printComposite(const Operation& op) {
    Attribute name = op.attr("name");
    if (!name || !name.is(AttrKind::String)) return false;
    out_ += op.name() + " " + quoted(name.stringValue()) + " " + operands(op);
    std::set<std::string_view> elided = {"name"};
    if (isIntEqual(op.attr("version"), 0)) elided.insert("version");
    if (Attribute a = op.attr("composite_attributes"); a && a.is(AttrKind::Dictionary) && a.entries().empty())
      elided.insert("composite_attributes");
    attrDict(op, elided);
    out_ += " : " + functional(op);
    return true;
  }

  // The reducer body is a single commutative binary op of this dialect on the
  // block's two arguments, returned at once: `applies stablehlo.add`.
  static const Operation* compactReducer(const Operation& op) {
    if (op.numRegions() != 1 || op.region(0).numBlocks() != 1 || op.numOperands() != 2) return nullptr;
    const Block& block = op.region(0).front();
    const Operation* inner = block.front();
    if (!inner || block.size() != 2 || block.numArguments() != 2) return nullptr;
    const Operation* ret = inner->nextInBlock();
    if (!inner->def() || !inner->def()->has(kCommutative) || inner->name().rfind("stablehlo.", 0) != 0 ||
        inner->numOperands() != 2 || inner->numResults() != 1 || inner->numRegions() != 0 ||
        !inner->attrs().empty())
      return nullptr;
    Type input = op.operand(0)->type();
    if (!input.isTensor() || inner->operand(0)->type() != Type::tensor(std::span<const int64_t>{}, input.elementType())) return nullptr;
    if (inner->operand(0) != block.argument(0) || inner->operand(1) != block.argument(1)) return nullptr;
    if (ret->name() != "stablehlo.return" || ret->numOperands() != 1 || ret->operand(0) != inner->result(0))
      return nullptr;
    return inner;
  }

  bool printReduce(const Operation& op) {
    Attribute dims = op.attr("dimensions");
    unsigned n = op.numOperands() / 2;
    if (!dims || !dims.is(AttrKind::DenseArray) || op.numRegions() != 1 || op.region(0).numBlocks() != 1 ||
        op.numOperands() % 2 || op.region(0).front().numArguments() != 2 * n)
      return false;
    out_ += op.name();
    for (unsigned i = 0; i < n; ++i)
      out_ += (i ? ", (" : "(") + names_.use(op.operand(i)) + " init: " + names_.use(op.operand(n + i)) + ")";
    const Operation* reducer = compactReducer(op);
    if (reducer) out_ += " applies " + reducer->name();
    out_ += " across dimensions = " + intList(dims.denseArrayInts());
    attrDict(op, {"dimensions"});
    out_ += " : " + functional(op);
    if (reducer) return true;
    // The reducer's arguments pair up as (acc_i, x_i) per input.
    const Block& block = op.region(0).front();
    out_ += "\n";
    indent();
    out_ += " reducer";
    for (unsigned i = 0; i < n; ++i) {
      Value* a = block.argument(i);
      Value* b = block.argument(n + i);
      out_ += (i ? " (" : "(") + names_.use(a) + ": " + a->type().str() + ", " + names_.use(b) + ": " +
              b->type().str() + ")";
    }
    out_ += "  ";
    printRegionBody(op.region(0));
    return true;
  }

  bool printWhile(const Operation& op) {
    if (op.numRegions() != 2 || op.region(0).empty() || op.region(1).empty()) return false;
    const Block& cond = op.region(0).front();
    if (cond.numArguments() != op.numOperands()) return false;
    out_ += op.name() + "(";
    for (unsigned i = 0; i < op.numOperands(); ++i)
      out_ += (i ? ", " : "") + names_.use(cond.argument(i)) + " = " + names_.use(op.operand(i));
    out_ += ")";
    attrDict(op);
    if (op.numOperands()) out_ += " : " + typeList(op.operandTypes());
    out_ += "\n";
    indent();
    out_ += "cond ";
    printRegionBody(op.region(0));
    out_ += " do ";
    printRegionBody(op.region(1));
    return true;
  }

  bool printReturn(const Operation& op) {
    out_ += prettyName(op);
    if (op.numOperands()) out_ += " " + operands(op);
    attrDict(op);
    if (op.numOperands()) out_ += " : " + typeList(op.operandTypes());
    return true;
  }

  // Shardy's forms print their attribute without its `#sdy.mesh` /
  // `#sdy.sharding` prefix: `sdy.mesh @m = <["x"=2]>`,
  // `sdy.sharding_constraint %0 <@m, [{"x"}]> : T`.
  static std::optional<std::string> withoutPrefix(const Attribute& attr, std::string_view prefix) {
    if (!attr || !attr.is(AttrKind::Opaque) || !attr.stringValue().starts_with(prefix)) return std::nullopt;
    return attr.stringValue().substr(prefix.size());
  }

  bool printSdyMesh(const Operation& op) {
    Attribute name = op.attr("sym_name");
    std::optional<std::string> mesh = withoutPrefix(op.attr("mesh"), "#sdy.mesh<");
    if (!name || !name.is(AttrKind::String) || !mesh || op.numOperands() || op.numResults()) return false;
    out_ += op.name() + " " + symbolName(name.stringValue()) + " = <" + *mesh;
    attrDict(op, {"sym_name", "mesh"});
    return true;
  }

  bool printSdyShardedValue(const Operation& op) {
    std::optional<std::string> sharding = withoutPrefix(op.attr("sharding"), "#sdy.sharding<");
    if (!sharding || op.numOperands() != 1 || op.numResults() != 1 || op.operand(0)->type() != op.result(0)->type())
      return false;
    out_ += op.name() + " " + operands(op) + " <" + *sharding;
    attrDict(op, {"sharding"});
    out_ += " : " + op.result(0)->type().str();
    return true;
  }

  // `sdy.sharding_group %0 group_id=0 : T`
  bool printSdyShardingGroup(const Operation& op) {
    Attribute group = op.attr("group_id");
    if (!group || !group.is(AttrKind::Integer) || op.numOperands() != 1 || op.numResults()) return false;
    out_ += op.name() + " " + operands(op) + " group_id=" + std::to_string(group.intValue());
    attrDict(op, {"group_id"});
    out_ += " : " + op.operand(0)->type().str();
    return true;
  }

  // `sdy.propagation_barrier %0 allowed_direction=NONE : T`
  bool printSdyPropagationBarrier(const Operation& op) {
    Attribute value = op.attr("allowed_direction");
    const char* direction = value && value.is(AttrKind::Integer) && value.valueType() == Type::integer(32)
                                ? sdy::propagationDirectionName(value.intValue())
                                : nullptr;
    if (!direction || op.numOperands() != 1 || op.numResults() != 1 || op.operand(0)->type() != op.result(0)->type())
      return false;
    out_ += op.name() + " " + operands(op) + " allowed_direction=" + direction;
    attrDict(op, {"allowed_direction"});
    out_ += " : " + op.result(0)->type().str();
    return true;
  }

  // `sdy.manual_computation(%0) in_shardings=[...] out_shardings=[...]
  // manual_axes={"x"} (%arg1: T) { ... } : (T0) -> T1`
  bool printSdyManualComputation(const Operation& op) {
    auto inner = [&](std::string_view name, std::string_view prefix) -> std::optional<std::string> {
      std::optional<std::string> text = withoutPrefix(op.attr(name), prefix);
      if (!text || !text->ends_with(">")) return std::nullopt;
      text->pop_back();
      return text;
    };
    std::optional<std::string> in = inner("in_shardings", "#sdy.sharding_per_value<");
    std::optional<std::string> out = inner("out_shardings", "#sdy.sharding_per_value<");
    std::optional<std::string> axes = inner("manual_axes", "#sdy<manual_axes");
    if (!in || !out || !axes || !in->starts_with("[") || !out->starts_with("[") || !axes->starts_with("{") ||
        op.numRegions() != 1 || op.region(0).numBlocks() != 1)
      return false;
    const Block& body = op.region(0).front();
    out_ += op.name() + "(" + operands(op) + ") in_shardings=" + *in + " out_shardings=" + *out +
            " manual_axes=" + *axes + " (";
    for (unsigned i = 0; i < body.numArguments(); ++i) {
      Value* arg = body.argument(i);
      out_ += (i ? ", " : "") + names_.use(arg) + ": " + arg->type().str();
      if (options_.debugInfo) out_ += " " + locationText("", arg->loc);
    }
    out_ += ") ";
    printRegionBody(op.region(0));
    attrDict(op, {"in_shardings", "out_shardings", "manual_axes"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printCall(const Operation& op) {
    Attribute callee = op.attr("callee");
    if (!callee || !callee.is(AttrKind::SymbolRef)) return false;
    out_ += prettyName(op) + " " + printAttr(callee) + "(" + operands(op) + ")";
    attrDict(op, {"callee"});
    out_ += " : " + functional(op);
    return true;
  }

  bool printFunc(const Operation& op) {
    Attribute typeAttr = op.attr("function_type"), name = op.attr("sym_name");
    if (!typeAttr || !typeAttr.is(AttrKind::Type) || !typeAttr.valueType().isFunction() || !name ||
        !name.is(AttrKind::String) || op.numRegions() != 1)
      return false;
    Type type = typeAttr.valueType();
    const Region& body = op.region(0);
    if (!body.empty() && body.front().numArguments() != type.inputs().size()) return false;
    Attribute argAttrs = op.attr("arg_attrs"), resAttrs = op.attr("res_attrs");
    auto attrsOf = [](const Attribute& list, size_t i) -> std::string {
      if (!list || !list.is(AttrKind::Array) || i >= list.arrayValue().size()) return "";
      const Attribute& d = list.arrayValue()[i];
      return d.is(AttrKind::Dictionary) ? printAttrDict(d.entries()) : "";
    };
    out_ += op.name();
    if (Attribute vis = op.attr("sym_visibility"); vis && vis.is(AttrKind::String)) out_ += " " + vis.stringValue();
    out_ += " " + symbolName(name.stringValue()) + "(";
    for (size_t i = 0; i < type.inputs().size(); ++i) {
      out_ += i ? ", " : "";
      if (!body.empty()) out_ += names_.use(body.front().argument(unsigned(i))) + ": ";
      out_ += type.inputs()[i].str();
      std::string d = attrsOf(argAttrs, i);
      if (!d.empty()) out_ += " " + d;
      if (options_.debugInfo && !body.empty()) out_ += " " + locationText("", body.front().argument(unsigned(i))->loc);
    }
    out_ += ")";
    std::span<const Type> results = type.results();
    if (!results.empty()) {
      bool anyResAttrs = false;
      for (size_t i = 0; i < results.size(); ++i) anyResAttrs |= !attrsOf(resAttrs, i).empty();
      bool parens = results.size() > 1 || anyResAttrs || results[0].isFunction();
      out_ += " -> ";
      out_ += parens ? "(" : "";
      for (size_t i = 0; i < results.size(); ++i) {
        out_ += (i ? ", " : "") + results[i].str();
        std::string d = attrsOf(resAttrs, i);
        if (!d.empty()) out_ += " " + d;
      }
      out_ += parens ? ")" : "";
    }
    std::string rest =
        printAttrDict(op.attrs().entries(), {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"});
    if (!rest.empty()) out_ += " attributes " + rest;
    if (!body.empty()) {
      out_ += " ";
      printRegionBody(body);
    }
    return true;
  }

  bool printModuleOp(const Operation& op) {
    if (op.numRegions() != 1 || op.region(0).numBlocks() != 1) return false;
    out_ += "module";
    Attribute name = op.attr("sym_name");
    if (name && name.is(AttrKind::String)) out_ += " " + symbolName(name.stringValue());
    std::string rest = printAttrDict(op.attrs().entries(), {"sym_name"});
    if (!rest.empty()) out_ += " attributes " + rest;
    out_ += " ";
    printRegionBody(op.region(0));
    return true;
  }

  // --- check.* (the StableHLO interpreter's test ops) ---------------------------

  // `check.expect_eq %a, %b : T`, `check.expect_almost_eq %a, %b, tolerance = A : T`,
  // `check.expect_serialized_eq %a, probe_id = "p", iter = 0 : T`.
  bool printCheckCompare(const Operation& op) {
    std::vector<Type> types = op.operandTypes();
    if (types.empty() || op.numResults() ||
        !std::all_of(types.begin(), types.end(), [&](Type t) { return t == types[0]; }))
      return false;
    out_ += op.name() + " " + operands(op);
    std::set<std::string_view> printed;
    auto keyword = [&](std::string_view key, std::string_view attrName, bool bare) {
      Attribute a = op.attr(attrName);
      if (!a) return;
      out_ += ", " + std::string(key) + " = " +
              (bare && a.is(AttrKind::Integer) ? std::to_string(a.intValue()) : printAttr(a));
      printed.insert(attrName);
    };
    if (op.name() == "check.expect_serialized_eq") {
      if (!op.attr("probe_id")) return false;
      keyword("probe_id", "probe_id", false);
      keyword("iter", "iteration", true);
    } else {
      keyword("tolerance", "tolerance", false);
    }
    attrDict(op, printed);
    out_ += " : " + types[0].str();
    return true;
  }

  // `check.expect_eq_const %a, dense<...> : T` (+ `, tolerance = A` for almost_eq).
  bool printCheckConst(const Operation& op) {
    Attribute value = op.attr("value");
    if (!value || !value.is(AttrKind::DenseElements) || op.numOperands() != 1 ||
        op.operand(0)->type() != value.valueType())
      return false;
    out_ += op.name() + " " + operands(op) + ", " + printAttr(value);
    if (Attribute tolerance = op.attr("tolerance")) out_ += ", tolerance = " + printAttr(tolerance);
    attrDict(op, {"value", "tolerance"});
    return true;
  }

  // `check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 0 : T, T`.
  bool printCheckClose(const Operation& op) {
    Attribute maxUlp = op.attr("max_ulp_difference"), minUlp = op.attr("min_ulp_difference");
    if (!maxUlp || !maxUlp.is(AttrKind::Integer) || op.numOperands() != 2) return false;
    out_ += op.name() + " " + operands(op) + ", max_ulp_difference = " + std::to_string(maxUlp.intValue());
    if (minUlp && minUlp.is(AttrKind::Integer)) out_ += ", min_ulp_difference = " + std::to_string(minUlp.intValue());
    out_ += " :";
    attrDict(op, {"max_ulp_difference", "min_ulp_difference"});
    out_ += " " + typeList(op.operandTypes());
    return true;
  }

  const PrintOptions& options_;
  SsaNames names_;
  std::string out_;
  int indent_ = 0;
};

}  // namespace

std::string printModule(const Module& module, const PrintOptions& options) {
  Printer p(module.op(), options);
  p.printTop(module.op());
  return p.take();
}

bool hasCustomPrettyPrinter(std::string_view opName) {
  static const auto table = Printer::customTable();
  return table.count(opName) != 0;
}

std::string printOp(const Operation& op, const PrintOptions& options) {
  Printer p(op, options);
  p.printTop(op);
  return p.take();
}

std::string printAttribute(const Attribute& attr) { return printAttr(attr); }

std::string printFloat(double value, Type type) { return formatFloat(type.kind(), floatBits(type.kind(), value)); }

}  // namespace kiln
