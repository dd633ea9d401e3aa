// Attributes: builtin literals (numbers, strings, symbols, arrays,
// dictionaries, `array<...>`, `dense<...>`), StableHLO's enums and structs,
// and other dialects' attributes kept verbatim.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "kiln/parse/parser_impl.h"
#include "kiln/ir/float_formats.h"

namespace kiln {
namespace {

// --- Numbers -------------------------------------------------------------------------

// Magnitude of an integer token (decimal or 0x hex); false on overflow.
bool integerMagnitude(std::string_view text, uint64_t& magnitude) {
  bool hex = text.starts_with("0x");
  std::string_view digits = hex ? text.substr(2) : text;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, hex ? 16 : 10);
  return ec == std::errc() && end == digits.data() + digits.size();
}

// The value of an integer literal as an element of integer type `t`
// (sign-extended from the type's width for signed types), or an error message.
std::optional<int64_t> integerValueFor(Type t, bool negative, uint64_t magnitude, std::string& message) {
  if (t.isQuantized()) t = t.quant().storageType;
  unsigned bits = t.bitWidth();
  if (t.isBool()) {
    if (negative || magnitude > 1) {
      message = "integer value out of range for i1";
      return std::nullopt;
    }
    return static_cast<int64_t>(magnitude);
  }
  if (negative) {
    if (t.isUnsignedInteger() && magnitude != 0) {
      message = "expected an unsigned value for " + t.str() + ", found a negative one";
      return std::nullopt;
    }
    if (magnitude > (uint64_t(1) << (bits - 1))) {
      message = "integer value out of range for " + t.str();
      return std::nullopt;
    }
    return static_cast<int64_t>(0 - magnitude);
  }
  // Signless integers accept their unsigned range too (255 : i8 is -1).
  if (bits < 64 && magnitude >= (uint64_t(1) << bits)) {
    message = "integer value out of range for " + t.str();
    return std::nullopt;
  }
  if (t.isUnsignedInteger() || bits == 64) return static_cast<int64_t>(magnitude);
  unsigned shift = 64 - bits;
  return static_cast<int64_t>(magnitude << shift) >> shift;
}

bool isFloatWord(std::string_view w) { return w == "inf" || w == "nan"; }

// The bit pattern of `lit` in float type `kind`, or an error message.
std::optional<uint64_t> floatBitsFor(TypeKind kind, const NumberLit& lit, std::string& message) {
  unsigned bits = Type::element(kind).bitWidth();
  if (lit.kind == Tok::Integer && lit.text.starts_with("0x")) {
    uint64_t pattern = 0;
    if (lit.negative || !integerMagnitude(lit.text, pattern) || (bits < 64 && pattern >> bits) != 0) {
      message = "hexadecimal float literal does not fit in " + Type::element(kind).str();
      return std::nullopt;
    }
    return pattern;
  }
  double v;
  if (lit.kind == Tok::BareId) {
    if (!isFloatWord(lit.text)) {
      message = "expected a floating-point value, found '" + std::string(lit.text) + "'";
      return std::nullopt;
    }
    v = lit.text == "inf" ? std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::quiet_NaN();
  } else {
    auto [end, ec] = std::from_chars(lit.text.data(), lit.text.data() + lit.text.size(), v);
    if (ec != std::errc()) {
      message = "floating-point literal '" + std::string(lit.text) + "' is out of range";
      return std::nullopt;
    }
  }
  return encodeFloat(kind, lit.negative ? -v : v);
}

void appendLittleEndian(std::vector<uint8_t>& out, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// --- Dense literals ------------------------------------------------------------------------

// Product of a static shape; nullopt when a dimension is dynamic or the
// product overflows.
std::optional<uint64_t> staticElementCount(std::span<const int64_t> shape) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > (uint64_t(1) << 62) / static_cast<uint64_t>(d)) return std::nullopt;
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

std::string shapeStr(std::span<const int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// --- StableHLO struct attributes ----------------------------------------------------------------

enum class FieldKind { Int, IntList, Float, BoundList, Any };
struct FieldSpec {
  std::string_view name;
  FieldKind kind;
};
struct StructSpec {
  std::string_view name;
  std::vector<FieldSpec> fields;  // in MLIR's printing order
  bool fillDefaults;              // absent fields get their default, so equal structs compare equal
};

const std::vector<StructSpec>& structSpecs() {
  using K = FieldKind;
  static const std::vector<StructSpec> specs = {
      {"dot",
       {{"lhs_batching_dimensions", K::IntList},
        {"rhs_batching_dimensions", K::IntList},
        {"lhs_contracting_dimensions", K::IntList},
        {"rhs_contracting_dimensions", K::IntList}},
       true},
      {"gather",
       {{"offset_dims", K::IntList},
        {"collapsed_slice_dims", K::IntList},
        {"operand_batching_dims", K::IntList},
        {"start_indices_batching_dims", K::IntList},
        {"start_index_map", K::IntList},
        {"index_vector_dim", K::Int}},
       true},
      {"scatter",
       {{"update_window_dims", K::IntList},
        {"inserted_window_dims", K::IntList},
        {"input_batching_dims", K::IntList},
        {"scatter_indices_batching_dims", K::IntList},
        {"scatter_dims_to_operand_dims", K::IntList},
        {"index_vector_dim", K::Int}},
       true},
      {"conv",
       {{"input_batch_dimension", K::Int},
        {"input_feature_dimension", K::Int},
        {"input_spatial_dimensions", K::IntList},
        {"kernel_input_feature_dimension", K::Int},
        {"kernel_output_feature_dimension", K::Int},
        {"kernel_spatial_dimensions", K::IntList},
        {"output_batch_dimension", K::Int},
        {"output_feature_dimension", K::Int},
        {"output_spatial_dimensions", K::IntList}},
       true},
      {"channel_handle", {{"handle", K::Int}, {"type", K::Int}}, true},
      {"output_operand_alias",
       {{"output_tuple_indices", K::IntList},
        {"operand_index", K::Int},
        {"operand_tuple_indices", K::IntList}},
       true},
      {"result_accuracy", {{"atol", K::Float}, {"rtol", K::Float}, {"ulps", K::Int}, {"mode", K::Any}}, true},
      {"dot_algorithm",
       {{"lhs_precision_type", K::Any},
        {"rhs_precision_type", K::Any},
        {"accumulation_type", K::Any},
        {"lhs_component_count", K::Int},
        {"rhs_component_count", K::Int},
        {"num_primitive_operations", K::Int},
        {"allow_imprecise_accumulation", K::Any}},
       false},
      {"type_extensions", {{"bounds", K::BoundList}}, false},
  };
  return specs;
}

const StructSpec* findStructSpec(std::string_view name) {
  for (const StructSpec& s : structSpecs())
    if (s.name == name) return &s;
  return nullptr;
}

Attribute defaultFieldValue(std::string_view structName, const FieldSpec& f) {
  switch (f.kind) {
    case FieldKind::Int: return Attribute::integer(0);
    case FieldKind::Float: return Attribute::floating(0.0, Type::f64());
    case FieldKind::IntList:
    case FieldKind::BoundList: return Attribute::array({});
    case FieldKind::Any: break;
  }
  if (structName == "result_accuracy" && f.name == "mode")
    return Attribute::enumAttr("result_accuracy_mode", "DEFAULT");
  return {};
}

Attribute intArray(const std::vector<int64_t>& values) {
  std::vector<Attribute> elements;
  for (int64_t v : values) elements.push_back(Attribute::integer(v));
  return Attribute::array(std::move(elements));
}

}  // namespace

Attribute Parser::denseI64(std::span<const int64_t> shape, std::span<const int64_t> values) {
  std::vector<uint8_t> data;
  for (int64_t v : values) appendLittleEndian(data, static_cast<uint64_t>(v), 8);
  return Attribute::dense(Type::tensor(shape, Type::si64()), std::move(data));
}

Expected<int64_t> Parser::parseInteger(std::string_view what) {
  size_t pos = tok_.pos;
  bool negative = consumeIf(Tok::Minus);
  if (!tok_.is(Tok::Integer)) return expected(what);
  uint64_t magnitude = 0;
  if (!integerMagnitude(tok_.text, magnitude) ||
      magnitude > (negative ? uint64_t(1) << 63 : uint64_t(INT64_MAX)))
    return errorAt(pos, "integer literal out of range");
  consume();
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

Expected<std::vector<int64_t>> Parser::parseIntegerList(std::string_view what) {
  std::vector<int64_t> values;
  KILN_RETURN_IF_ERROR(expect(Tok::LSquare, "'[' to begin " + std::string(what)));
  if (consumeIf(Tok::RSquare)) return values;
  do {
    KILN_ASSIGN_OR_RETURN(int64_t v, parseInteger("integer in " + std::string(what)));
    values.push_back(v);
  } while (consumeIf(Tok::Comma));
  KILN_RETURN_IF_ERROR(expect(Tok::RSquare, "',' or ']' in " + std::string(what)));
  return values;
}

Status Parser::parseOptionalAttrDict(AttrDict& dict) {
  return tok_.is(Tok::LBrace) ? parseAttrDict(dict) : Status::ok();
}

Status Parser::parseAttrDict(AttrDict& dict) {
  KILN_ENTER_NESTING();
  KILN_RETURN_IF_ERROR(expect(Tok::LBrace, "'{' to begin attribute dictionary"));
  if (consumeIf(Tok::RBrace)) return Status::ok();
  do {
    std::string name;
    size_t pos = tok_.pos;
    if (tok_.is(Tok::BareId)) {
      name = tok_.text;
    } else if (tok_.is(Tok::String)) {
      if (!unescapeString(tok_.text, name)) return errorHere("invalid escape in attribute name");
    } else {
      return expected("attribute name");
    }
    consume();
    Attribute value = Attribute::unit();
    if (consumeIf(Tok::Equal)) {
      KILN_ASSIGN_OR_RETURN(value, parseAttribute());
    }
    if (dict.has(name)) return errorAt(pos, "duplicate attribute '" + name + "'");
    dict.set(name, value);
  } while (consumeIf(Tok::Comma));
  return expect(Tok::RBrace, "',' or '}' in attribute dictionary");
}

Expected<Attribute> Parser::parseAttribute() {
  KILN_ENTER_NESTING();
  size_t pos = tok_.pos;
  switch (tok_.kind) {
    case Tok::Minus:
    case Tok::Integer:
    case Tok::Float: {
      NumberLit lit{pos, consumeIf(Tok::Minus), tok_.kind, tok_.text};
      if (!tok_.is(Tok::Integer) && !tok_.is(Tok::Float)) return expected("number after '-'");
      consume();
      Type type = lit.kind == Tok::Float ? Type::f64() : Type::si64();
      if (consumeIf(Tok::Colon)) {
        size_t typePos = tok_.pos;
        KILN_ASSIGN_OR_RETURN(type, parseType());
        if (!type.isElement() || type.isComplex() || type.isQuantized())
          return errorAt(typePos, "expected an integer or float type, found " + type.str());
      }
      std::string message;
      if (type.isFloat()) {
        std::optional<uint64_t> bits = floatBitsFor(type.kind(), lit, message);
        if (!bits) return errorAt(pos, message);
        return Attribute::floating(decodeFloat(type.kind(), *bits), type);
      }
      if (lit.kind == Tok::Float)
        return errorAt(pos, "floating-point literal with integer type " + type.str());
      uint64_t magnitude = 0;
      if (!integerMagnitude(lit.text, magnitude)) return errorAt(pos, "integer literal out of range");
      std::optional<int64_t> v = integerValueFor(type, lit.negative, magnitude, message);
      if (!v) return errorAt(pos, message);
      if (type.isBool()) return Attribute::boolean(*v != 0);
      return Attribute::integer(*v, type);
    }
    case Tok::String: {
      std::string s;
      if (!unescapeString(tok_.text, s)) return errorHere("invalid escape sequence in string");
      consume();
      return Attribute::string(std::move(s));
    }
    case Tok::AtId: {
      std::vector<std::string> path;
      do {
        if (!tok_.is(Tok::AtId)) return expected("symbol reference after '::'");
        std::string name(tok_.text.substr(1));
        if (name.starts_with("\"") && !unescapeString(name, name)) return errorHere("invalid symbol name");
        path.push_back(std::move(name));
        consume();
      } while (consumeIf(Tok::ColonColon));
      return Attribute::symbolRef(std::move(path));
    }
    case Tok::LSquare: {
      consume();
      std::vector<Attribute> elements;
      if (!consumeIf(Tok::RSquare)) {
        do {
          KILN_ASSIGN_OR_RETURN(Attribute a, parseAttribute());
          elements.push_back(std::move(a));
        } while (consumeIf(Tok::Comma));
        KILN_RETURN_IF_ERROR(expect(Tok::RSquare, "',' or ']' in array attribute"));
      }
      return Attribute::array(std::move(elements));
    }
    case Tok::LBrace: {
      AttrDict dict;
      KILN_RETURN_IF_ERROR(parseAttrDict(dict));
      return Attribute::dictionary(sortedByName(dict));
    }
    case Tok::HashId: return parseHashAttribute();
    case Tok::BareId:
      if (tok_.text == "true" || tok_.text == "false") {
        bool v = tok_.text == "true";
        consume();
        return Attribute::boolean(v);
      }
      if (consumeIfKeyword("unit")) return Attribute::unit();
      if (tok_.text == "dense") return parseDenseElements();
      if (tok_.text == "array") return parseDenseArray();
      if (tok_.text == "dense_resource") return errorHere("dense_resource attributes are not supported");
      break;
    default: break;
  }
  if (atType()) {
    KILN_ASSIGN_OR_RETURN(Type t, parseType());
    return Attribute::type(t);
  }
  return expected("attribute value");
}

Expected<Attribute> Parser::parseHashAttribute() {
  size_t pos = tok_.pos;
  std::string name(tok_.text);
  size_t end = pos + name.size();
  consume();
  bool hasBody = tok_.is(Tok::Less) && tok_.pos == end;
  if (name == "#stablehlo" && hasBody) {  // #stablehlo<comparison_direction LT>
    consume();
    if (!tok_.is(Tok::BareId)) return expected("enum name");
    std::string enumName(tok_.text);
    consume();
    if (!tok_.is(Tok::BareId)) return expected("value of enum '" + enumName + "'");
    std::string value(tok_.text);
    consume();
    KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' after enum value"));
    return Attribute::enumAttr(std::move(enumName), std::move(value));
  }
  if (name.starts_with("#stablehlo.") && hasBody) {
    std::string structName = name.substr(11);
    consume();
    if (structName == "conv") {
      if (tok_.is(Tok::LSquare)) {
        KILN_ASSIGN_OR_RETURN(Attribute conv, parseConvDimensionNumbers());
        KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' after convolution dimension numbers"));
        return conv;
      }
      KILN_RETURN_IF_ERROR(expectKeyword("raw", "or '[' in #stablehlo.conv"));
    }
    // `#stablehlo.result_accuracy_mode<TOLERANCE>`: an enum spelled as a struct.
    if (tok_.is(Tok::BareId) && peek().is(Tok::Greater)) {
      std::string value(tok_.text);
      consume();
      consume();
      return Attribute::enumAttr(std::move(structName), std::move(value));
    }
    if (!findStructSpec(structName)) return errorAt(pos, "unknown attribute '" + name + "'");
    return parseStablehloStruct(structName);
  }
  if (auto it = attrAliases_.find(name); it != attrAliases_.end()) return it->second;
  if (hasBody) {
    KILN_ASSIGN_OR_RETURN(std::string_view body, consumeBalanced());
    return Attribute::opaque(name + std::string(body));
  }
  if (name.find('.') == std::string::npos) return errorAt(pos, "undefined attribute alias '" + name + "'");
  return Attribute::opaque(name);
}

Expected<Attribute> Parser::parseStablehloStruct(std::string_view name) {
  const StructSpec* spec = findStructSpec(name);
  if (!spec) return errorHere("unknown attribute '#stablehlo." + std::string(name) + "'");
  std::vector<NamedAttribute> fields;
  if (!tok_.is(Tok::Greater)) {
    do {
      if (!tok_.is(Tok::BareId)) return expected("field name in #stablehlo." + std::string(name));
      size_t fieldPos = tok_.pos;
      std::string field(tok_.text);
      consume();
      KILN_RETURN_IF_ERROR(expect(Tok::Equal, "'=' after field name"));
      for (const NamedAttribute& f : fields)
        if (f.first == field) return errorAt(fieldPos, "duplicate field '" + field + "'");
      auto fieldSpec = std::find_if(spec->fields.begin(), spec->fields.end(),
                                    [&](const FieldSpec& f) { return f.name == field; });
      if (fieldSpec == spec->fields.end())
        return errorAt(fieldPos, "unknown field '" + field + "' in #stablehlo." + std::string(name));
      Attribute value;
      switch (fieldSpec->kind) {
        case FieldKind::Int: {
          KILN_ASSIGN_OR_RETURN(int64_t v, parseInteger("integer value of '" + field + "'"));
          value = Attribute::integer(v);
          break;
        }
        case FieldKind::IntList: {
          KILN_ASSIGN_OR_RETURN(std::vector<int64_t> v, parseIntegerList("'" + field + "'"));
          value = intArray(v);
          break;
        }
        case FieldKind::Float: {
          size_t numPos = tok_.pos;
          bool negative = consumeIf(Tok::Minus);
          if (!tok_.is(Tok::Float) && !tok_.is(Tok::Integer)) return expected("number for '" + field + "'");
          NumberLit lit{numPos, negative, tok_.kind, tok_.text};
          consume();
          std::string message;
          std::optional<uint64_t> bits = floatBitsFor(TypeKind::F64, lit, message);
          if (!bits) return errorAt(numPos, message);
          value = Attribute::floating(decodeFloat(TypeKind::F64, *bits), Type::f64());
          break;
        }
        case FieldKind::BoundList: {
          KILN_RETURN_IF_ERROR(expect(Tok::LSquare, "'[' to begin bounds"));
          std::vector<int64_t> bounds;
          if (!tok_.is(Tok::RSquare)) {
            do {
              if (consumeIf(Tok::Question)) {
                bounds.push_back(Type::kDynamic);
              } else {
                KILN_ASSIGN_OR_RETURN(int64_t b, parseInteger("bound or '?'"));
                bounds.push_back(b);
              }
            } while (consumeIf(Tok::Comma));
          }
          KILN_RETURN_IF_ERROR(expect(Tok::RSquare, "',' or ']' in bounds"));
          value = intArray(bounds);
          break;
        }
        case FieldKind::Any:
          // Precision types such as tf32 have no kiln type: keep them as text.
          if (tok_.is(Tok::BareId) && !atType() && tok_.text != "true" && tok_.text != "false") {
            value = Attribute::opaque(std::string(tok_.text));
            consume();
          } else {
            KILN_ASSIGN_OR_RETURN(value, parseAttribute());
          }
          break;
      }
      fields.emplace_back(std::move(field), std::move(value));
    } while (consumeIf(Tok::Comma));
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Greater, "',' or '>' in #stablehlo." + std::string(name)));
  // Canonical order (and defaults), whatever order the text used.
  std::vector<NamedAttribute> ordered;
  for (const FieldSpec& f : spec->fields) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const NamedAttribute& a) { return a.first == f.name; });
    if (it != fields.end()) {
      ordered.push_back(std::move(*it));
    } else if (spec->fillDefaults) {
      if (Attribute d = defaultFieldValue(name, f)) ordered.emplace_back(std::string(f.name), d);
    }
  }
  return Attribute::structAttr(std::string(name), std::move(ordered));
}

Expected<Attribute> Parser::parseConvDimensionNumbers() {
  // One of the three lists: two named dimensions (`b`/`f` or `i`/`o`) and
  // the spatial dimensions 0, 1, ... in any positions.
  auto parseList = [&](char firstName, char secondName, int64_t& first, int64_t& second,
                       std::vector<int64_t>& spatial) -> Status {
    size_t listPos = tok_.pos;
    KILN_RETURN_IF_ERROR(expect(Tok::LSquare, "'[' to begin convolution dimensions"));
    first = second = -1;
    std::vector<std::pair<int64_t, int64_t>> spatialAt;  // (spatial index, position)
    int64_t position = 0;
    if (!tok_.is(Tok::RSquare)) {
      do {
        if (tok_.is(Tok::BareId) && tok_.text.size() == 1 &&
            (tok_.text[0] == firstName || tok_.text[0] == secondName)) {
          int64_t& slot = tok_.text[0] == firstName ? first : second;
          if (slot != -1) return errorHere("dimension '" + std::string(tok_.text) + "' appears twice");
          slot = position;
          consume();
        } else if (tok_.is(Tok::Integer)) {
          KILN_ASSIGN_OR_RETURN(int64_t s, parseInteger("spatial dimension"));
          spatialAt.emplace_back(s, position);
        } else {
          return expected(std::string("'") + firstName + "', '" + secondName +
                          "' or a spatial dimension number");
        }
        ++position;
      } while (consumeIf(Tok::Comma));
    }
    KILN_RETURN_IF_ERROR(expect(Tok::RSquare, "',' or ']' in convolution dimensions"));
    if (first == -1 || second == -1)
      return errorAt(listPos, std::string("convolution dimensions need both '") + firstName + "' and '" +
                                  secondName + "'");
    spatial.assign(spatialAt.size(), -1);
    for (auto [s, at] : spatialAt) {
      if (s < 0 || s >= static_cast<int64_t>(spatial.size()) || spatial[s] != -1)
        return errorAt(listPos,
                       "spatial dimensions must be 0.." + std::to_string(spatial.size() - 1) + ", each once");
      spatial[s] = at;
    }
    return Status::ok();
  };
  int64_t inBatch, inFeature, kIn, kOut, outBatch, outFeature;
  std::vector<int64_t> inSpatial, kSpatial, outSpatial;
  KILN_RETURN_IF_ERROR(parseList('b', 'f', inBatch, inFeature, inSpatial));
  KILN_RETURN_IF_ERROR(expectKeyword("x", "between input and kernel dimensions"));
  KILN_RETURN_IF_ERROR(parseList('i', 'o', kIn, kOut, kSpatial));
  KILN_RETURN_IF_ERROR(expect(Tok::Arrow, "'->' before output dimensions"));
  KILN_RETURN_IF_ERROR(parseList('b', 'f', outBatch, outFeature, outSpatial));
  return Attribute::structAttr("conv", {{"input_batch_dimension", Attribute::integer(inBatch)},
                                        {"input_feature_dimension", Attribute::integer(inFeature)},
                                        {"input_spatial_dimensions", intArray(inSpatial)},
                                        {"kernel_input_feature_dimension", Attribute::integer(kIn)},
                                        {"kernel_output_feature_dimension", Attribute::integer(kOut)},
                                        {"kernel_spatial_dimensions", intArray(kSpatial)},
                                        {"output_batch_dimension", Attribute::integer(outBatch)},
                                        {"output_feature_dimension", Attribute::integer(outFeature)},
                                        {"output_spatial_dimensions", intArray(outSpatial)}});
}

Expected<Attribute> Parser::parseDenseArray() {
  consume();  // array
  KILN_RETURN_IF_ERROR(expect(Tok::Less, "'<' after 'array'"));
  size_t typePos = tok_.pos;
  KILN_ASSIGN_OR_RETURN(Type et, parseType());
  if (!(et.isBool() || et.isInteger() || et.isFloat()))
    return errorAt(typePos, "array<...> element type must be an integer, bool or float type");
  std::vector<int64_t> ints;
  std::vector<double> floats;
  if (consumeIf(Tok::Colon)) {
    do {
      size_t pos = tok_.pos;
      std::string message;
      if (et.isBool()) {
        if (!tok_.isKeyword("true") && !tok_.isKeyword("false")) return expected("'true' or 'false'");
        ints.push_back(tok_.text == "true");
        consume();
        continue;
      }
      NumberLit lit{pos, consumeIf(Tok::Minus), tok_.kind, tok_.text};
      if (!tok_.is(Tok::Integer) && !tok_.is(Tok::Float) && !(tok_.is(Tok::BareId) && isFloatWord(tok_.text)))
        return expected("number in array<...>");
      consume();
      if (et.isFloat()) {
        std::optional<uint64_t> bits = floatBitsFor(et.kind(), lit, message);
        if (!bits) return errorAt(pos, message);
        floats.push_back(decodeFloat(et.kind(), *bits));
        continue;
      }
      uint64_t magnitude = 0;
      if (lit.kind != Tok::Integer || !integerMagnitude(lit.text, magnitude))
        return errorAt(pos, "expected an integer");
      std::optional<int64_t> v = integerValueFor(et, lit.negative, magnitude, message);
      if (!v) return errorAt(pos, message);
      ints.push_back(*v);
    } while (consumeIf(Tok::Comma));
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Greater, "',' or '>' in array<...>"));
  return Attribute::denseArray(et, std::move(ints), std::move(floats));
}

Expected<Attribute> Parser::parseDenseElements() {
  consume();  // dense
  KILN_RETURN_IF_ERROR(expect(Tok::Less, "'<' after 'dense'"));
  // The literal: nothing, a hex string of the whole buffer, one element
  // (a splat), or nested lists whose shape must match the type.
  std::vector<DenseElementLit> elements;
  std::vector<int64_t> literalShape;
  bool isList = false, isEmpty = false, isHex = false;
  std::string hexBytes;
  size_t literalPos = tok_.pos;
  if (tok_.is(Tok::Greater)) {
    isEmpty = true;
  } else if (tok_.is(Tok::String)) {
    std::string s;
    if (!unescapeString(tok_.text, s) || !s.starts_with("0x") || s.size() % 2 != 0)
      return errorHere("expected a hex string \"0x...\" of whole bytes in dense literal");
    for (size_t i = 2; i < s.size(); i += 2) {
      unsigned byte = 0;
      auto [end, ec] = std::from_chars(s.data() + i, s.data() + i + 2, byte, 16);
      if (ec != std::errc() || end != s.data() + i + 2)
        return errorHere("invalid hex digit in dense literal");
      hexBytes.push_back(static_cast<char>(byte));
    }
    isHex = true;
    consume();
  } else {
    isList = tok_.is(Tok::LSquare);
    KILN_RETURN_IF_ERROR(parseDenseLiteral(elements, literalShape));
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' to end dense literal"));
  KILN_RETURN_IF_ERROR(expect(Tok::Colon, "':' and a type after dense literal"));
  size_t typePos = tok_.pos;
  KILN_ASSIGN_OR_RETURN(Type type, parseType());
  if (!type.isTensor()) return errorAt(typePos, "dense literal needs a tensor type, found " + type.str());
  std::optional<uint64_t> count = staticElementCount(type.shape());
  if (!count) return errorAt(typePos, "dense literal needs a static shape, found " + type.str());
  Type et = type.elementType();
  unsigned bytes = et.storageBytes();

  if (isEmpty) {
    if (*count != 0)
      return errorAt(literalPos,
                     "empty dense literal for a tensor of " + std::to_string(*count) + " elements");
    return Attribute::dense(type, {});
  }
  if (isHex) {
    std::vector<uint8_t> data(hexBytes.begin(), hexBytes.end());
    if (data.size() == *count * bytes) return Attribute::dense(type, std::move(data));
    if (data.size() == bytes) return Attribute::dense(type, std::move(data), /*splat=*/true);
    return errorAt(literalPos, "hex dense literal has " + std::to_string(data.size()) + " bytes, expected " +
                                   std::to_string(*count * bytes) + " for " + type.str());
  }
  if (isList) {
    std::vector<int64_t> typeShape(type.shape().begin(), type.shape().end());
    if (literalShape != typeShape)
      return errorAt(literalPos, "dense literal has shape " + shapeStr(literalShape) + " but its type " +
                                     type.str() + " has shape " + shapeStr(typeShape));
  }
  std::vector<uint8_t> data;
  data.reserve(elements.size() * bytes);
  for (const DenseElementLit& e : elements) KILN_RETURN_IF_ERROR(encodeDenseElement(e, et, data));
  return Attribute::dense(type, std::move(data), /*splat=*/!isList);
}

Status Parser::parseDenseLiteral(std::vector<DenseElementLit>& elements, std::vector<int64_t>& shape) {
  KILN_ENTER_NESTING();
  if (!tok_.is(Tok::LSquare)) {
    DenseElementLit e;
    if (consumeIf(Tok::LParen)) {
      e.isComplex = true;
      KILN_RETURN_IF_ERROR(parseDenseNumber(e.re));
      KILN_RETURN_IF_ERROR(expect(Tok::Comma, "',' in complex literal"));
      KILN_RETURN_IF_ERROR(parseDenseNumber(e.im));
      KILN_RETURN_IF_ERROR(expect(Tok::RParen, "')' to end complex literal"));
    } else {
      KILN_RETURN_IF_ERROR(parseDenseNumber(e.re));
    }
    elements.push_back(e);
    return Status::ok();
  }
  consume();
  // The first sub-list fixes the shape below this level; later ones must match.
  int64_t count = 0;
  std::vector<int64_t> innerShape;
  if (!tok_.is(Tok::RSquare)) {
    do {
      size_t itemPos = tok_.pos;
      std::vector<int64_t> itemShape;
      bool itemIsList = tok_.is(Tok::LSquare);
      KILN_RETURN_IF_ERROR(parseDenseLiteral(elements, itemShape));
      if (!itemIsList) itemShape.clear();
      if (count == 0) {
        innerShape = itemShape;
      } else if (itemShape != innerShape) {
        return errorAt(itemPos, "dense literal elements have mismatched shapes " + shapeStr(innerShape) +
                                    " and " + shapeStr(itemShape));
      }
      ++count;
    } while (consumeIf(Tok::Comma));
  }
  if (!tok_.is(Tok::RSquare)) return expected("',' or ']' in dense literal");
  consume();
  shape.clear();
  shape.push_back(count);
  shape.insert(shape.end(), innerShape.begin(), innerShape.end());
  return Status::ok();
}

Status Parser::parseDenseNumber(NumberLit& lit) {
  lit.pos = tok_.pos;
  lit.negative = consumeIf(Tok::Minus);
  if (tok_.is(Tok::Integer) || tok_.is(Tok::Float) ||
      (tok_.is(Tok::BareId) && (isFloatWord(tok_.text) || tok_.text == "true" || tok_.text == "false"))) {
    lit.kind = tok_.kind;
    lit.text = tok_.text;
    consume();
    return Status::ok();
  }
  return expected("number, 'true', 'false' or '[' in dense literal");
}

Status Parser::encodeDenseElement(const DenseElementLit& e, Type et, std::vector<uint8_t>& out) {
  if (et.isQuantized()) et = et.quant().storageType;
  if (et.isComplex() != e.isComplex)
    return errorAt(e.re.pos, et.isComplex() ? "expected a complex literal '(re, im)' for " + et.str()
                                            : "complex literal for non-complex type " + et.str());
  std::string message;
  if (et.isComplex()) {
    TypeKind component = et.complexElement().kind();
    unsigned bytes = et.complexElement().storageBytes();
    for (const NumberLit* part : {&e.re, &e.im}) {
      std::optional<uint64_t> bits = floatBitsFor(component, *part, message);
      if (!bits) return errorAt(part->pos, message);
      appendLittleEndian(out, *bits, bytes);
    }
    return Status::ok();
  }
  const NumberLit& lit = e.re;
  bool isBoolWord = lit.kind == Tok::BareId && (lit.text == "true" || lit.text == "false");
  if (et.isFloat()) {
    if (isBoolWord) return errorAt(lit.pos, "boolean literal for float type " + et.str());
    std::optional<uint64_t> bits = floatBitsFor(et.kind(), lit, message);
    if (!bits) return errorAt(lit.pos, message);
    appendLittleEndian(out, *bits, et.storageBytes());
    return Status::ok();
  }
  if (isBoolWord) {
    if (!et.isBool()) return errorAt(lit.pos, "boolean literal for type " + et.str());
    out.push_back(lit.text == "true" ? 1 : 0);
    return Status::ok();
  }
  uint64_t magnitude = 0;
  if (lit.kind != Tok::Integer) return errorAt(lit.pos, "expected an integer literal for " + et.str());
  if (!integerMagnitude(lit.text, magnitude)) return errorAt(lit.pos, "integer literal out of range");
  std::optional<int64_t> v = integerValueFor(et, lit.negative, magnitude, message);
  if (!v) return errorAt(lit.pos, message);
  appendLittleEndian(out, static_cast<uint64_t>(*v), et.storageBytes());
  return Status::ok();
}

}  // namespace kiln
