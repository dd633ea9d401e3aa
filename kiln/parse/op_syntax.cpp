// The pretty (custom assembly) forms of ops, as MLIR's StableHLO, func,
// builtin and check dialects print them. The ground truth for each form is
// jaxlib's MLIR printer; the forms fall into a few families:
//   - `op %a, %b {attrs} : types`, where the types are a function type or a
//     shorter list whose meaning depends on the op (TypeListMeaning);
//   - the same with `, keyword = value` fields after the operands (KeywordForm);
//   - a handful of ops with their own syntax (compare, slice, dot_general,
//     convolution, while, reduce, custom_call, ...), each parsed by its own
//     function below.
#include <algorithm>
#include <charconv>

#include "kiln/ir/op_registry.h"
#include "kiln/parse/parser_impl.h"

namespace kiln {
namespace {

// How a plain type list after ':' (not a function type) maps onto an op's
// operands and results.
enum class TypeListMeaning {
  AllSame,       // `: T`: every operand and the one result have type T
  OperandsOnly,  // `: T`: every operand has type T; no results
  Pairwise,      // `: T1, T2`: operand i and result i have type Ti
  SelectLike,    // `: P, T`: operands (P, T, T), result T
  ComplexLike,   // `: complex T`: operands of T's component type, result T
  TupleLike,     // `: tuple<A, B>`: operands A, B, result the tuple
  FunctionOnly,  // only a function type is accepted
};

// Parses ':' and the types, checks them against `operands` and sets the
// result types.
Status parseTrailingTypes(Parser& p, OperationState& st, const std::vector<OperandRef>& operands,
                          TypeListMeaning meaning) {
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the operation's types"));
  KILN_ASSIGN_OR_RETURN(TypeSpec spec, p.parseTypeSpec());
  if (spec.isFunction) {
    KILN_RETURN_IF_ERROR(p.resolveOperands(operands, spec.inputs, st));
    st.resultTypes = spec.results;
    return Status::ok();
  }
  const std::vector<Type>& ts = spec.types;
  auto wrongCount = [&](size_t expected) {
    return p.errorAt(spec.pos, "expected " + std::to_string(expected) + " type(s) for '" + st.name +
                                   "', found " + std::to_string(ts.size()));
  };
  std::vector<Type> operandTypes;
  switch (meaning) {
    case TypeListMeaning::AllSame:
    case TypeListMeaning::OperandsOnly:
      if (ts.size() != 1) return wrongCount(1);
      operandTypes.assign(operands.size(), ts[0]);
      if (meaning == TypeListMeaning::AllSame) st.resultTypes = {ts[0]};
      break;
    case TypeListMeaning::Pairwise:
      if (ts.size() != operands.size()) return wrongCount(operands.size());
      operandTypes = ts;
      st.resultTypes = ts;
      break;
    case TypeListMeaning::SelectLike:
      if (ts.size() != 2) return wrongCount(2);
      operandTypes = {ts[0], ts[1], ts[1]};
      st.resultTypes = {ts[1]};
      break;
    case TypeListMeaning::ComplexLike:
      if (ts.size() != 1) return wrongCount(1);
      if (!ts[0].isTensor() || !ts[0].elementType().isComplex())
        return p.errorAt(spec.pos, "expected a tensor of complex type, found " + ts[0].str());
      operandTypes.assign(operands.size(), ts[0].withElementType(ts[0].elementType().complexElement()));
      st.resultTypes = {ts[0]};
      break;
    case TypeListMeaning::TupleLike:
      if (ts.size() != 1) return wrongCount(1);
      if (!ts[0].isTuple()) return p.errorAt(spec.pos, "expected a tuple type, found " + ts[0].str());
      operandTypes.assign(ts[0].tupleTypes().begin(), ts[0].tupleTypes().end());
      st.resultTypes = {ts[0]};
      break;
    case TypeListMeaning::FunctionOnly:
      return p.errorAt(spec.pos, "expected a function type '(...) -> ...' for '" + st.name + "'");
  }
  return p.resolveOperands(operands, operandTypes, st);
}

// `op %a, %b {attrs} : types`
template <TypeListMeaning meaning>
Status parseSimple(Parser& p, OperationState& st) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, operands, meaning);
}

// --- Keyword fields -----------------------------------------------------------------

enum class FieldValue {
  I64Array,     // [1, 2] -> array<i64: 1, 2>
  I64,          // 3 -> 3 : i64
  Bool,         // true
  String,       // "text"
  Enum,         // LT -> #stablehlo<enumName LT>
  EnumList,     // [DEFAULT, HIGH] -> [#stablehlo<enumName DEFAULT>, ...]
  ExpMantissa,  // e5m10 -> exponent_bits = 5 : i32, mantissa_bits = 10 : i32
  Attr,         // any attribute (tolerance = 1.0e-4 : f64)
  UI32,         // 0 -> 0 : ui32
};

struct KeywordField {
  std::string_view keyword;
  std::string_view attr;
  FieldValue value;
  bool optional = false;
  std::string_view enumName = {};
};

// `op %a, %b, keyword = value, ... {attrs} : types`
struct KeywordForm {
  std::string_view op;
  std::vector<KeywordField> fields;
  TypeListMeaning types;
};

const std::vector<KeywordForm>& keywordForms() {
  using V = FieldValue;
  using M = TypeListMeaning;
  static const std::vector<KeywordForm> forms = {
      {"stablehlo.broadcast_in_dim", {{"dims", "broadcast_dimensions", V::I64Array}}, M::FunctionOnly},
      {"stablehlo.dynamic_broadcast_in_dim",
       {{"dims", "broadcast_dimensions", V::I64Array}},
       M::FunctionOnly},
      {"stablehlo.broadcast", {{"sizes", "broadcast_sizes", V::I64Array}}, M::FunctionOnly},
      {"stablehlo.transpose", {{"dims", "permutation", V::I64Array}}, M::FunctionOnly},
      {"stablehlo.reverse", {{"dims", "dimensions", V::I64Array}}, M::AllSame},
      {"stablehlo.concatenate", {{"dim", "dimension", V::I64}}, M::FunctionOnly},
      {"stablehlo.get_dimension_size", {{"dim", "dimension", V::I64}}, M::FunctionOnly},
      {"stablehlo.iota", {{"dim", "iota_dimension", V::I64}}, M::AllSame},
      {"stablehlo.dynamic_iota", {{"dim", "iota_dimension", V::I64}}, M::FunctionOnly},
      {"stablehlo.dynamic_slice", {{"sizes", "slice_sizes", V::I64Array}}, M::FunctionOnly},
      {"stablehlo.pad",
       {{"low", "edge_padding_low", V::I64Array},
        {"high", "edge_padding_high", V::I64Array},
        {"interior", "interior_padding", V::I64Array}},
       M::FunctionOnly},
      {"stablehlo.cholesky", {{"lower", "lower", V::Bool, true}}, M::AllSame},
      {"stablehlo.fft",
       {{"type", "fft_type", V::Enum, false, "fft_type"}, {"length", "fft_length", V::I64Array}},
       M::FunctionOnly},
      {"stablehlo.rng",
       {{"distribution", "rng_distribution", V::Enum, false, "rng_distribution"}},
       M::FunctionOnly},
      {"stablehlo.rng_bit_generator",
       {{"algorithm", "rng_algorithm", V::Enum, false, "rng_algorithm"}},
       M::FunctionOnly},
      {"stablehlo.reduce_precision", {{"format", "", V::ExpMantissa}}, M::AllSame},
      {"stablehlo.einsum", {{"config", "einsum_config", V::String}}, M::FunctionOnly},
      {"stablehlo.unary_einsum", {{"config", "einsum_config", V::String}}, M::FunctionOnly},
      {"stablehlo.dot", {{"precision", "precision_config", V::EnumList, true, "precision"}}, M::FunctionOnly},
      {"stablehlo.set_dimension_size", {{"dim", "dimension", V::I64}}, M::FunctionOnly},
      {"interpreter.probe", {{"probe_id", "probe_id", V::String}}, M::AllSame},
      {"check.expect_almost_eq", {{"tolerance", "tolerance", V::Attr, true}}, M::OperandsOnly},
      {"check.expect_serialized_eq",
       {{"probe_id", "probe_id", V::String}, {"iter", "iteration", V::UI32, true}},
       M::OperandsOnly},
  };
  return forms;
}

const KeywordForm* keywordFormOf(std::string_view op) {
  for (const KeywordForm& f : keywordForms())
    if (f.op == op) return &f;
  return nullptr;
}

// `keyword = value` (the keyword and '=' included).
Status parseKeywordField(Parser& p, OperationState& st, const KeywordField& f) {
  KILN_RETURN_IF_ERROR(p.expectKeyword(f.keyword, "in '" + st.name + "'"));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after '" + std::string(f.keyword) + "'"));
  std::string attr(f.attr);
  switch (f.value) {
    case FieldValue::I64Array: {
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> v, p.parseIntegerList("'" + std::string(f.keyword) + "'"));
      st.attributes.set(attr, Attribute::denseI64Array(std::move(v)));
      return Status::ok();
    }
    case FieldValue::I64: {
      KILN_ASSIGN_OR_RETURN(int64_t v, p.parseInteger("integer"));
      st.attributes.set(attr, Attribute::integer(v));
      return Status::ok();
    }
    case FieldValue::UI32: {
      size_t pos = p.tok().pos;
      KILN_ASSIGN_OR_RETURN(int64_t v, p.parseInteger("integer"));
      if (v < 0 || v > UINT32_MAX) return p.errorAt(pos, "value out of range for ui32");
      st.attributes.set(attr, Attribute::integer(v, Type::integer(32, /*isUnsigned=*/true)));
      return Status::ok();
    }
    case FieldValue::Bool:
      if (!p.tok().isKeyword("true") && !p.tok().isKeyword("false")) return p.expected("'true' or 'false'");
      st.attributes.set(attr, Attribute::boolean(p.tok().text == "true"));
      p.consume();
      return Status::ok();
    case FieldValue::String: {
      if (!p.tok().is(Tok::String)) return p.expected("string");
      KILN_ASSIGN_OR_RETURN(Attribute s, p.parseAttribute());
      st.attributes.set(attr, s);
      return Status::ok();
    }
    case FieldValue::Attr: {
      KILN_ASSIGN_OR_RETURN(Attribute a, p.parseAttribute());
      st.attributes.set(attr, a);
      return Status::ok();
    }
    case FieldValue::Enum:
      if (!p.tok().is(Tok::BareId)) return p.expected("value of '" + std::string(f.keyword) + "'");
      st.attributes.set(attr, Attribute::enumAttr(std::string(f.enumName), std::string(p.tok().text)));
      p.consume();
      return Status::ok();
    case FieldValue::EnumList: {
      KILN_RETURN_IF_ERROR(p.expect(Tok::LSquare, "'[' to begin '" + std::string(f.keyword) + "'"));
      std::vector<Attribute> values;
      if (!p.consumeIf(Tok::RSquare)) {
        do {
          if (!p.tok().is(Tok::BareId)) return p.expected(std::string(f.enumName) + " value");
          values.push_back(Attribute::enumAttr(std::string(f.enumName), std::string(p.tok().text)));
          p.consume();
        } while (p.consumeIf(Tok::Comma));
        KILN_RETURN_IF_ERROR(p.expect(Tok::RSquare, "',' or ']'"));
      }
      st.attributes.set(attr, Attribute::array(std::move(values)));
      return Status::ok();
    }
    case FieldValue::ExpMantissa: {
      // e<exponent bits>m<mantissa bits>, a single identifier.
      std::string_view text = p.tok().text;
      size_t m = text.find('m');
      int exponent = 0, mantissa = 0;
      bool ok = p.tok().is(Tok::BareId) && text.starts_with("e") && m != std::string_view::npos && m > 1 &&
                m + 1 < text.size();
      if (ok) {
        auto r1 = std::from_chars(text.data() + 1, text.data() + m, exponent);
        auto r2 = std::from_chars(text.data() + m + 1, text.data() + text.size(), mantissa);
        ok = r1.ec == std::errc() && r1.ptr == text.data() + m && r2.ec == std::errc() &&
             r2.ptr == text.data() + text.size();
      }
      if (!ok) return p.expected("format 'e<exponent bits>m<mantissa bits>'");
      p.consume();
      st.attributes.set("exponent_bits", Attribute::integer(exponent, Type::si32()));
      st.attributes.set("mantissa_bits", Attribute::integer(mantissa, Type::si32()));
      return Status::ok();
    }
  }
  return Status::ok();
}

Status parseKeywordForm(Parser& p, OperationState& st) {
  const KeywordForm& form = *keywordFormOf(st.name);
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  bool first = operands.empty();
  for (const KeywordField& f : form.fields) {
    if (f.optional) {
      bool present =
          first ? p.tok().isKeyword(f.keyword) : p.tok().is(Tok::Comma) && p.peek().isKeyword(f.keyword);
      if (!present) continue;
    }
    if (!first) KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' before '" + std::string(f.keyword) + "'"));
    KILN_RETURN_IF_ERROR(parseKeywordField(p, st, f));
    first = false;
  }
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, operands, form.types);
}

// --- Ops with their own syntax -------------------------------------------------------------

// compare LT, %a, %b[, FLOAT] {attrs} : (...) -> ...
Status parseCompare(Parser& p, OperationState& st) {
  if (!p.tok().is(Tok::BareId)) return p.expected("comparison direction");
  st.attributes.set("comparison_direction",
                    Attribute::enumAttr("comparison_direction", std::string(p.tok().text)));
  p.consume();
  KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' after comparison direction"));
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  if (p.consumeIf(Tok::Comma)) {
    if (!p.tok().is(Tok::BareId)) return p.expected("comparison type");
    st.attributes.set("compare_type", Attribute::enumAttr("comparison_type", std::string(p.tok().text)));
    p.consume();
  }
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, operands, TypeListMeaning::FunctionOnly);
}

// slice %x [0:2, 1:3:1] {attrs} : (...) -> ...
Status parseSlice(Parser& p, OperationState& st) {
  KILN_ASSIGN_OR_RETURN(OperandRef operand, p.parseOperand());
  KILN_RETURN_IF_ERROR(p.expect(Tok::LSquare, "'[' to begin slice ranges"));
  std::vector<int64_t> start, limit, strides;
  if (!p.consumeIf(Tok::RSquare)) {
    do {
      KILN_ASSIGN_OR_RETURN(int64_t s, p.parseInteger("slice start"));
      KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' after slice start"));
      KILN_ASSIGN_OR_RETURN(int64_t l, p.parseInteger("slice limit"));
      int64_t stride = 1;
      if (p.consumeIf(Tok::Colon)) {
        KILN_ASSIGN_OR_RETURN(stride, p.parseInteger("slice stride"));
      }
      start.push_back(s);
      limit.push_back(l);
      strides.push_back(stride);
    } while (p.consumeIf(Tok::Comma));
    KILN_RETURN_IF_ERROR(p.expect(Tok::RSquare, "',' or ']' in slice ranges"));
  }
  st.attributes.set("start_indices", Attribute::denseI64Array(start));
  st.attributes.set("limit_indices", Attribute::denseI64Array(limit));
  st.attributes.set("strides", Attribute::denseI64Array(strides));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, {operand}, TypeListMeaning::FunctionOnly);
}

// [0, 1] x [1, 2]
Status parseDimsPair(Parser& p, std::vector<int64_t>& lhs, std::vector<int64_t>& rhs) {
  KILN_ASSIGN_OR_RETURN(lhs, p.parseIntegerList("lhs dimensions"));
  KILN_RETURN_IF_ERROR(p.expectKeyword("x", "between lhs and rhs dimensions"));
  KILN_ASSIGN_OR_RETURN(rhs, p.parseIntegerList("rhs dimensions"));
  return Status::ok();
}

Attribute intArrayAttr(const std::vector<int64_t>& v) {
  std::vector<Attribute> elements;
  for (int64_t x : v) elements.push_back(Attribute::integer(x));
  return Attribute::array(std::move(elements));
}

// dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
//   precision = [DEFAULT, DEFAULT], algorithm = <...> {attrs} : (...) -> ...
Status parseDotGeneral(Parser& p, OperationState& st) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  std::vector<int64_t> lb, rb, lc, rc;
  static const KeywordField precision{"precision", "precision_config", FieldValue::EnumList, true,
                                      "precision"};
  while (p.consumeIf(Tok::Comma)) {
    if (p.consumeIfKeyword("batching_dims")) {
      KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after 'batching_dims'"));
      KILN_RETURN_IF_ERROR(parseDimsPair(p, lb, rb));
    } else if (p.consumeIfKeyword("contracting_dims")) {
      KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after 'contracting_dims'"));
      KILN_RETURN_IF_ERROR(parseDimsPair(p, lc, rc));
    } else if (p.tok().isKeyword("precision")) {
      KILN_RETURN_IF_ERROR(parseKeywordField(p, st, precision));
    } else if (p.consumeIfKeyword("algorithm")) {
      KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after 'algorithm'"));
      KILN_RETURN_IF_ERROR(p.expect(Tok::Less, "'<' to begin the dot algorithm"));
      KILN_ASSIGN_OR_RETURN(Attribute algorithm, p.parseStablehloStruct("dot_algorithm"));
      st.attributes.set("algorithm", algorithm);
    } else {
      return p.expected("'batching_dims', 'contracting_dims', 'precision' or 'algorithm'");
    }
  }
  st.attributes.set("dot_dimension_numbers",
                    Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArrayAttr(lb)},
                                                  {"rhs_batching_dimensions", intArrayAttr(rb)},
                                                  {"lhs_contracting_dimensions", intArrayAttr(lc)},
                                                  {"rhs_contracting_dimensions", intArrayAttr(rc)}}));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, operands, TypeListMeaning::FunctionOnly);
}

// convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//   window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1],
//   rhs_dilate = [1, 1], reverse = [false, false]} {attrs} : (...) -> ...
Status parseConvolution(Parser& p, OperationState& st) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' before convolution operands"));
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "',' or ')' after convolution operands"));
  KILN_RETURN_IF_ERROR(p.expectKeyword("dim_numbers", "in convolution"));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after 'dim_numbers'"));
  KILN_ASSIGN_OR_RETURN(Attribute dims, p.parseConvDimensionNumbers());
  st.attributes.set("dimension_numbers", dims);
  KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' before 'window'"));
  KILN_RETURN_IF_ERROR(p.expectKeyword("window", "in convolution"));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after 'window'"));
  KILN_RETURN_IF_ERROR(p.expect(Tok::LBrace, "'{' to begin the window"));
  if (!p.consumeIf(Tok::RBrace)) {
    do {
      if (!p.tok().is(Tok::BareId)) return p.expected("window field");
      std::string field(p.tok().text);
      size_t fieldPos = p.tok().pos;
      p.consume();
      KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after '" + field + "'"));
      if (field == "stride" || field == "lhs_dilate" || field == "rhs_dilate") {
        static const std::pair<std::string_view, std::string_view> names[] = {
            {"stride", "window_strides"}, {"lhs_dilate", "lhs_dilation"}, {"rhs_dilate", "rhs_dilation"}};
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> v, p.parseIntegerList("'" + field + "'"));
        for (auto [text, attr] : names)
          if (text == field) st.attributes.set(attr, Attribute::denseI64Array(std::move(v)));
      } else if (field == "pad") {
        KILN_RETURN_IF_ERROR(p.expect(Tok::LSquare, "'[' to begin 'pad'"));
        std::vector<int64_t> flat;
        if (!p.tok().is(Tok::RSquare)) {
          do {
            size_t pairPos = p.tok().pos;
            KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pair, p.parseIntegerList("padding pair"));
            if (pair.size() != 2) return p.errorAt(pairPos, "expected a [low, high] padding pair");
            flat.insert(flat.end(), pair.begin(), pair.end());
          } while (p.consumeIf(Tok::Comma));
        }
        KILN_RETURN_IF_ERROR(p.expect(Tok::RSquare, "',' or ']' in 'pad'"));
        int64_t shape[] = {static_cast<int64_t>(flat.size() / 2), 2};
        st.attributes.set("padding", Parser::denseI64(shape, flat));
      } else if (field == "reverse") {
        KILN_RETURN_IF_ERROR(p.expect(Tok::LSquare, "'[' to begin 'reverse'"));
        std::vector<bool> reverse;
        if (!p.tok().is(Tok::RSquare)) {
          do {
            if (p.tok().isKeyword("true") || p.tok().isKeyword("false")) {
              reverse.push_back(p.tok().text == "true");
              p.consume();
            } else {
              KILN_ASSIGN_OR_RETURN(int64_t v, p.parseInteger("'true', 'false', 0 or 1"));
              reverse.push_back(v != 0);
            }
          } while (p.consumeIf(Tok::Comma));
        }
        KILN_RETURN_IF_ERROR(p.expect(Tok::RSquare, "',' or ']' in 'reverse'"));
        st.attributes.set("window_reversal", Attribute::denseBoolArray(std::move(reverse)));
      } else {
        return p.errorAt(fieldPos, "unknown window field '" + field +
                                       "' (expected stride, pad, lhs_dilate, rhs_dilate or reverse)");
      }
    } while (p.consumeIf(Tok::Comma));
    KILN_RETURN_IF_ERROR(p.expect(Tok::RBrace, "',' or '}' in the window"));
  }
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, operands, TypeListMeaning::FunctionOnly);
}

// get_tuple_element %t[1] {attrs} : (...) -> ...
Status parseGetTupleElement(Parser& p, OperationState& st) {
  KILN_ASSIGN_OR_RETURN(OperandRef operand, p.parseOperand());
  KILN_RETURN_IF_ERROR(p.expect(Tok::LSquare, "'[' before the tuple index"));
  size_t pos = p.tok().pos;
  KILN_ASSIGN_OR_RETURN(int64_t index, p.parseInteger("tuple index"));
  if (index < 0 || index > INT32_MAX) return p.errorAt(pos, "tuple index out of range");
  st.attributes.set("index", Attribute::integer(index, Type::si32()));
  KILN_RETURN_IF_ERROR(p.expect(Tok::RSquare, "']' after the tuple index"));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, {operand}, TypeListMeaning::FunctionOnly);
}

// The name of an `@symbol` token, unquoted.
Expected<std::string> parseSymbolName(Parser& p, std::string_view what) {
  if (!p.tok().is(Tok::AtId)) return p.expected(what);
  std::string name(p.tok().text.substr(1));
  if (name.starts_with("\"") && !unescapeString(name, name)) return p.errorHere("invalid symbol name");
  p.consume();
  return name;
}

// `@name(%a, %b) {attrs} : (...) -> ...`, shared by custom_call and func.call.
Status parseCallLike(Parser& p, OperationState& st, std::string_view symbolAttr, bool asString) {
  KILN_ASSIGN_OR_RETURN(std::string name, parseSymbolName(p, "'@' and the callee's name"));
  st.attributes.set(symbolAttr, asString ? Attribute::string(name) : Attribute::symbolRef({name}));
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' before call operands"));
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "',' or ')' after call operands"));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseTrailingTypes(p, st, operands, TypeListMeaning::FunctionOnly);
}

Status parseCustomCall(Parser& p, OperationState& st) {
  return parseCallLike(p, st, "call_target_name", true);
}
Status parseFuncCall(Parser& p, OperationState& st) { return parseCallLike(p, st, "callee", false); }

// composite "name" %a, %b {attrs} : (...) -> ...
Status parseComposite(Parser& p, OperationState& st) {
  if (!p.tok().is(Tok::String)) return p.expected("composite name string");
  KILN_ASSIGN_OR_RETURN(Attribute name, p.parseAttribute());
  st.attributes.set("name", name);
  return parseSimple<TypeListMeaning::FunctionOnly>(p, st);
}

// constant {attrs} dense<...> : tensor<...>, or the generic form after the
// name when the result type is not the value's (as MLIR prints it then).
Status parseConstant(Parser& p, OperationState& st) {
  if (p.tok().is(Tok::LParen)) return p.parseGenericOp(st);
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  size_t pos = p.tok().pos;
  KILN_ASSIGN_OR_RETURN(Attribute value, p.parseAttribute());
  if (!value.is(AttrKind::DenseElements)) return p.errorAt(pos, "expected a dense<...> constant value");
  if (st.attributes.has("value")) return p.errorAt(pos, "duplicate attribute 'value'");
  st.attributes.set("value", value);
  st.resultTypes = {value.valueType()};
  return Status::ok();
}

// return %a, %b : T1, T2   (stablehlo.return and func.return)
Status parseReturn(Parser& p, OperationState& st) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  if (operands.empty()) return Status::ok();
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the returned types"));
  std::vector<Type> types;
  KILN_RETURN_IF_ERROR(p.parseTypeList(types));
  return p.resolveOperands(operands, types, st);
}

// while(%iterArg = %init, ...) : T1, ... cond { ... } do { ... }
Status parseWhile(Parser& p, OperationState& st) {
  KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' after 'stablehlo.while'"));
  std::vector<ArgDecl> iterArgs;
  std::vector<OperandRef> operands;
  if (!p.consumeIf(Tok::RParen)) {
    do {
      if (!p.tok().is(Tok::PercentId)) return p.expected("loop-carried value name");
      iterArgs.push_back({std::string(p.tok().text), Type(), p.tok().pos});
      p.consume();
      KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after loop-carried value name"));
      KILN_ASSIGN_OR_RETURN(OperandRef init, p.parseOperand());
      operands.push_back(std::move(init));
    } while (p.consumeIf(Tok::Comma));
    KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "',' or ')' after loop-carried values"));
  }
  if (p.consumeIfKeyword("attributes")) KILN_RETURN_IF_ERROR(p.parseAttrDict(st.attributes));
  std::vector<Type> types;
  if (!operands.empty()) {
    KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before loop-carried types"));
    KILN_RETURN_IF_ERROR(p.parseTypeList(types));
  }
  KILN_RETURN_IF_ERROR(p.resolveOperands(operands, types, st));
  for (size_t i = 0; i < iterArgs.size(); ++i) iterArgs[i].type = types[i];
  st.resultTypes = types;
  if (p.consumeIfKeyword("attributes")) KILN_RETURN_IF_ERROR(p.parseAttrDict(st.attributes));
  KILN_RETURN_IF_ERROR(p.expectKeyword("cond", "before the condition region"));
  KILN_RETURN_IF_ERROR(p.parseRegion(*st.addRegion(), iterArgs));
  KILN_RETURN_IF_ERROR(p.expectKeyword("do", "before the body region"));
  return p.parseRegion(*st.addRegion(), iterArgs);
}

// reduce(%x init: %c), ... applies stablehlo.add across dimensions = [1] {attrs} : (...) -> ...
// reduce(%x init: %c), ... across dimensions = [1] {attrs} : (...) -> ...
//   reducer(%a: T, %b: T) (%c: U, %d: U) { ... }
Status parseReduce(Parser& p, OperationState& st) {
  std::vector<OperandRef> inputs, inits;
  do {
    KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' before a reduce operand"));
    KILN_ASSIGN_OR_RETURN(OperandRef input, p.parseOperand());
    KILN_RETURN_IF_ERROR(p.expectKeyword("init", "after a reduce operand"));
    KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' after 'init'"));
    KILN_ASSIGN_OR_RETURN(OperandRef init, p.parseOperand());
    KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "')' after the initial value"));
    inputs.push_back(std::move(input));
    inits.push_back(std::move(init));
  } while (p.consumeIf(Tok::Comma));
  std::string appliedOp;
  size_t appliedPos = p.tok().pos;
  if (p.consumeIfKeyword("applies")) {
    if (!p.tok().is(Tok::BareId)) return p.expected("the reduction's operation name");
    appliedOp = p.tok().text;
    appliedPos = p.tok().pos;
    if (!lookupOpDef(appliedOp)) return p.errorHere("unknown operation '" + appliedOp + "'");
    p.consume();
  }
  KILN_RETURN_IF_ERROR(p.expectKeyword("across", "in reduce"));
  KILN_RETURN_IF_ERROR(p.expectKeyword("dimensions", "after 'across'"));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after 'dimensions'"));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> dims, p.parseIntegerList("reduce dimensions"));
  st.attributes.set("dimensions", Attribute::denseI64Array(std::move(dims)));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  std::vector<OperandRef> operands = inputs;
  operands.insert(operands.end(), inits.begin(), inits.end());
  KILN_RETURN_IF_ERROR(parseTrailingTypes(p, st, operands, TypeListMeaning::FunctionOnly));

  Region& body = *st.addRegion();
  if (appliedOp.empty()) {
    // reducer(%lhs0: T, %rhs0: T) (%lhs1: U, %rhs1: U) { ... }: the block
    // takes all left-hand values first, then all right-hand ones.
    KILN_RETURN_IF_ERROR(p.expectKeyword("reducer", "or 'applies' in reduce"));
    std::vector<ArgDecl> lhs, rhs;
    while (p.consumeIf(Tok::LParen)) {
      // Each argument may carry a `loc(...)` (MLIR prints them with debug info).
      std::string ignoredLoc;
      KILN_ASSIGN_OR_RETURN(ArgDecl a, p.parseArgDecl());
      KILN_RETURN_IF_ERROR(p.parseOptionalTrailingLoc(ignoredLoc));
      KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' between the reducer's arguments"));
      KILN_ASSIGN_OR_RETURN(ArgDecl b, p.parseArgDecl());
      KILN_RETURN_IF_ERROR(p.parseOptionalTrailingLoc(ignoredLoc));
      KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "')' after the reducer's arguments"));
      lhs.push_back(std::move(a));
      rhs.push_back(std::move(b));
    }
    lhs.insert(lhs.end(), rhs.begin(), rhs.end());
    return p.parseRegion(body, lhs);
  }
  // `applies op`: the body is `%r = op %lhs, %rhs; stablehlo.return %r` on
  // 0-d tensors of the initial value's type; the op's type rule gives %r's type.
  if (inits.size() != 1) return p.errorAt(appliedPos, "'applies' needs exactly one reduced operand");
  Type scalar = inits[0].value->type();
  Block* block = body.addBlock();
  Value* lhs = block->addArgument(scalar, st.loc);
  Value* rhs = block->addArgument(scalar, st.loc);
  OperationState apply(appliedOp, p.locOf(appliedPos));
  apply.operands = {lhs, rhs};
  KILN_RETURN_IF_ERROR(inferOrCheckResultTypes(apply));
  if (apply.resultTypes.empty()) apply.resultTypes = {scalar};  // an op without a type rule
  Operation* applied = block->push_back(Operation::create(std::move(apply)));
  OperationState ret("stablehlo.return", p.locOf(appliedPos));
  ret.operands = {applied->result()};
  block->push_back(Operation::create(std::move(ret)));
  return Status::ok();
}

// check.expect_eq_const %a, dense<...> : T {attrs}
// check.expect_almost_eq_const %a, dense<...> : T, tolerance = 1.0e-4 {attrs}
Status parseExpectConst(Parser& p, OperationState& st) {
  KILN_ASSIGN_OR_RETURN(OperandRef operand, p.parseOperand());
  KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' before the expected value"));
  size_t pos = p.tok().pos;
  KILN_ASSIGN_OR_RETURN(Attribute value, p.parseAttribute());
  if (!value.is(AttrKind::DenseElements)) return p.errorAt(pos, "expected a dense<...> value");
  st.attributes.set("value", value);
  if (st.name == "check.expect_almost_eq_const" && p.consumeIf(Tok::Comma)) {
    static const KeywordField tolerance{"tolerance", "tolerance", FieldValue::Attr};
    KILN_RETURN_IF_ERROR(parseKeywordField(p, st, tolerance));
  }
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  Type type = value.valueType();
  return p.resolveOperands({operand}, std::span<const Type>(&type, 1), st);
}

// check.expect_close %a, %b, max_ulp_difference = 3, min_ulp_difference = 0 : {attrs} T, T
Status parseExpectClose(Parser& p, OperationState& st) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  for (std::string_view field : {"max_ulp_difference", "min_ulp_difference"}) {
    if (field == "min_ulp_difference" && !p.tok().is(Tok::Comma)) break;
    KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' before '" + std::string(field) + "'"));
    KILN_RETURN_IF_ERROR(p.expectKeyword(field, "in check.expect_close"));
    KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after '" + std::string(field) + "'"));
    size_t pos = p.tok().pos;
    KILN_ASSIGN_OR_RETURN(int64_t v, p.parseInteger("integer"));
    if (v < 0) return p.errorAt(pos, "expected a non-negative ULP difference");
    st.attributes.set(field, Attribute::integer(v, Type::integer(64, /*isUnsigned=*/true)));
  }
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the operand types"));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  std::vector<Type> types;
  KILN_RETURN_IF_ERROR(p.parseTypeList(types));
  return p.resolveOperands(operands, types, st);
}

// The chlo dialect's forms: `chlo.square %x {attrs} : T -> R`,
// `chlo.next_after %x, %y : T, T -> R` and `chlo.top_k(%x, k = 5) : T -> (V, I)`:
// the operand types, '->', then one result type or a parenthesized list.
Status parseChloArrowTypes(Parser& p, OperationState& st, const std::vector<OperandRef>& operands) {
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the operation's types"));
  std::vector<Type> operandTypes;
  KILN_RETURN_IF_ERROR(p.parseTypeList(operandTypes));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Arrow, "'->' before the result types"));
  if (!p.consumeIf(Tok::LParen)) {
    KILN_ASSIGN_OR_RETURN(Type result, p.parseType());
    st.resultTypes = {result};
  } else {
    KILN_RETURN_IF_ERROR(p.parseTypeList(st.resultTypes));
    KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "',' or ')' in result types"));
  }
  return p.resolveOperands(operands, operandTypes, st);
}

Status parseChloElementwise(Parser& p, OperationState& st) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseChloArrowTypes(p, st, operands);
}

Status parseTopK(Parser& p, OperationState& st) {
  KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' after 'chlo.top_k'"));
  KILN_ASSIGN_OR_RETURN(OperandRef operand, p.parseOperand());
  KILN_RETURN_IF_ERROR(p.expect(Tok::Comma, "',' before 'k'"));
  static const KeywordField k{"k", "k", FieldValue::I64};
  KILN_RETURN_IF_ERROR(parseKeywordField(p, st, k));
  KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "')' after 'k'"));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  return parseChloArrowTypes(p, st, {operand});
}

Status parseFunc(Parser& p, OperationState& st) { return p.parseFuncOp(st); }
Status parseModule(Parser& p, OperationState& st) { return p.parseModuleOp(st); }

struct CustomForm {
  std::string_view name;
  PrettyOpParser parse;
};

// The ops with a parser of their own (PrettyForm::kCustom); the shared forms
// come from the op registry.
const std::vector<CustomForm>& customForms() {
  static const std::vector<CustomForm> forms = [] {
    using M = TypeListMeaning;
    std::vector<CustomForm> f;
    f.push_back({"chlo.top_k", parseTopK});
    f.push_back({"stablehlo.complex", parseSimple<M::ComplexLike>});
    f.push_back({"stablehlo.select", parseSimple<M::SelectLike>});
    f.push_back({"stablehlo.tuple", parseSimple<M::TupleLike>});
    f.push_back({"stablehlo.optimization_barrier", parseSimple<M::Pairwise>});
    f.push_back({"check.expect_eq", parseSimple<M::OperandsOnly>});
    for (const KeywordForm& k : keywordForms()) f.push_back({k.op, parseKeywordForm});
    f.push_back({"stablehlo.compare", parseCompare});
    f.push_back({"stablehlo.slice", parseSlice});
    f.push_back({"stablehlo.dot_general", parseDotGeneral});
    f.push_back({"stablehlo.convolution", parseConvolution});
    f.push_back({"stablehlo.get_tuple_element", parseGetTupleElement});
    f.push_back({"stablehlo.custom_call", parseCustomCall});
    f.push_back({"stablehlo.composite", parseComposite});
    f.push_back({"stablehlo.constant", parseConstant});
    f.push_back({"stablehlo.while", parseWhile});
    f.push_back({"stablehlo.reduce", parseReduce});
    f.push_back({"stablehlo.return", parseReturn});
    f.push_back({"func.return", parseReturn});
    f.push_back({"func.call", parseFuncCall});
    f.push_back({"func.func", parseFunc});
    f.push_back({"builtin.module", parseModule});
    f.push_back({"check.expect_eq_const", parseExpectConst});
    f.push_back({"check.expect_almost_eq_const", parseExpectConst});
    f.push_back({"check.expect_close", parseExpectClose});
    f.push_back({"sdy.mesh", parseSdyMesh});
    f.push_back({"sdy.sharding_constraint", parseSdyShardedValue});
    f.push_back({"sdy.reshard", parseSdyShardedValue});
    f.push_back({"sdy.sharding_group", parseSdyShardingGroup});
    f.push_back({"sdy.propagation_barrier", parseSdyPropagationBarrier});
    f.push_back({"sdy.manual_computation", parseSdyManualComputation});
    f.push_back({"sdy.return", parseReturn});
    std::sort(f.begin(), f.end(), [](const CustomForm& a, const CustomForm& b) { return a.name < b.name; });
    return f;
  }();
  return forms;
}

}  // namespace

PrettyOpParser lookupPrettyOpParser(std::string_view name) {
  const OpDef* def = lookupOpDef(name);
  switch (def ? def->pretty : PrettyForm::kCustom) {
    case PrettyForm::kGenericOnly: return nullptr;
    // One parser reads all three: the operand list, then one type or a function type.
    case PrettyForm::kSameType:
    case PrettyForm::kFunctional:
    case PrettyForm::kNullary: return parseSimple<TypeListMeaning::AllSame>;
    case PrettyForm::kChloElementwise: return parseChloElementwise;
    case PrettyForm::kCustom: break;
  }
  const std::vector<CustomForm>& forms = customForms();
  auto it = std::lower_bound(forms.begin(), forms.end(), name,
                             [](const CustomForm& f, std::string_view n) { return f.name < n; });
  return it != forms.end() && it->name == name ? it->parse : nullptr;
}

}  // namespace kiln
