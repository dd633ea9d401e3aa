// The parser core: tokens and diagnostics, types, SSA values and regions, the
// generic op form, modules, functions and top-level aliases. Attributes live
// in attr_parser.cpp and the pretty forms of ops in op_syntax.cpp.
#include "kiln/parse/parser.h"

#include <algorithm>
#include <charconv>

#include "kiln/ir/op_registry.h"
#include "kiln/parse/parser_impl.h"

namespace kiln {

// --- Tokens and diagnostics ----------------------------------------------------

Parser::Parser(std::string_view text, std::string_view filename, const ParseOptions& options)
    : options_(options),
      file_(internFileName(filename)),
      text_(std::make_shared<const std::string>(text)),
      lexer_(*text_) {
  registerSourceText(file_, text_);
  consume();
}

Token Parser::peek() {
  size_t resume = lexer_.position();
  Token next = lexer_.next();
  lexer_.resetTo(resume);
  return next;
}

bool Parser::consumeIf(Tok kind) {
  if (!tok_.is(kind)) return false;
  consume();
  return true;
}

bool Parser::consumeIfKeyword(std::string_view keyword) {
  if (!tok_.isKeyword(keyword)) return false;
  consume();
  return true;
}

Status Parser::expect(Tok kind, std::string_view what) {
  if (consumeIf(kind)) return Status::ok();
  return expected(what);
}

Status Parser::expectKeyword(std::string_view keyword, std::string_view context) {
  if (consumeIfKeyword(keyword)) return Status::ok();
  return expected("'" + std::string(keyword) + "' " + std::string(context));
}

Location Parser::locOf(size_t pos) const {
  auto [line, col] = lexer_.lineCol(pos);
  return Location{file_, line, col};
}

Status Parser::errorAt(size_t pos, std::string message) const {
  Status s = error(locOf(pos), std::move(message));
  // Quote the line now: the registered text of this file may be replaced by
  // the next chunk of a split file before the diagnostic is printed.
  s.diag().snippet = sourceSnippet(s.diag().loc);
  return s;
}

Status Parser::expected(std::string_view what) const {
  if (tok_.is(Tok::Error) && tok_.text == "\"") return errorHere("unterminated string");
  std::string found =
      tok_.is(Tok::Eof) ? std::string("end of input") : "'" + std::string(tok_.text.substr(0, 40)) + "'";
  return errorHere("expected " + std::string(what) + ", found " + found);
}

Status Parser::enterNesting() {
  if (++depth_ <= kMaxNesting) return Status::ok();
  --depth_;
  return errorHere("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
}

Expected<std::string_view> Parser::consumeBalanced() {
  std::string_view buf = lexer_.buffer();
  size_t start = tok_.pos;
  std::vector<char> closers;
  size_t i = start;
  for (; i < buf.size(); ++i) {
    char c = buf[i];
    switch (c) {
      case '(': closers.push_back(')'); break;
      case '[': closers.push_back(']'); break;
      case '{': closers.push_back('}'); break;
      case '<': closers.push_back('>'); break;
      case '"':
        for (++i; i < buf.size() && buf[i] != '"' && buf[i] != '\n'; ++i)
          if (buf[i] == '\\') ++i;
        if (i >= buf.size() || buf[i] != '"') return errorAt(start, "unterminated string in bracketed text");
        break;
      case '>':
        if (i > start && buf[i - 1] == '-') break;  // the arrow of `->`
        [[fallthrough]];
      case ')':
      case ']':
      case '}':
        if (closers.empty() || closers.back() != c) return errorAt(i, std::string("unbalanced '") + c + "'");
        closers.pop_back();
        break;
      default: break;
    }
    if (closers.empty()) break;
  }
  if (!closers.empty())
    return errorAt(
        start, "unbalanced brackets: expected '" + std::string(1, closers.back()) + "' before end of input");
  lexer_.resetTo(i + 1);
  consume();
  return buf.substr(start, i + 1 - start);
}

// --- Types -------------------------------------------------------------------------

namespace {

// Element types by their MLIR name, plus the explicitly signed `si<N>`.
Type elementTypeNamed(std::string_view name) {
  for (int k = static_cast<int>(TypeKind::I1); k <= static_cast<int>(TypeKind::Index); ++k) {
    const char* n = elementKindName(static_cast<TypeKind>(k));
    if (n && name == n) return Type::element(static_cast<TypeKind>(k));
  }
  if (name.starts_with("si")) {
    unsigned bits = 0;
    auto [end, ec] = std::from_chars(name.data() + 2, name.data() + name.size(), bits);
    if (ec == std::errc() && end == name.data() + name.size() && bits > 1) return Type::integer(bits);
  }
  return Type();
}

// The default storage range of a quantized type's storage integer type.
std::pair<int64_t, int64_t> storageRange(Type storage) {
  unsigned bits = storage.bitWidth();
  if (storage.isUnsignedInteger()) return {0, static_cast<int64_t>((uint64_t(1) << bits) - 1)};
  return {-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1};
}

}  // namespace

bool Parser::atType() const {
  switch (tok_.kind) {
    case Tok::LParen:
    case Tok::BangId: return true;
    case Tok::BareId:
      return tok_.text == "tensor" || tok_.text == "tuple" || tok_.text == "complex" ||
             static_cast<bool>(elementTypeNamed(tok_.text));
    default: return false;
  }
}

Expected<Type> Parser::parseType() {
  KILN_ENTER_NESTING();
  size_t pos = tok_.pos;
  if (tok_.is(Tok::LParen)) return parseFunctionType();
  if (tok_.is(Tok::BangId)) {
    std::string_view name = tok_.text;
    if (name == "!stablehlo.token") {
      consume();
      return Type::token();
    }
    if (name == "!quant.uniform") return parseQuantizedType();
    if (auto it = typeAliases_.find(name); it != typeAliases_.end()) {
      consume();
      return it->second;
    }
    // A type of another dialect: kept verbatim with its `<...>` body.
    size_t end = pos + name.size();
    consume();
    if (tok_.is(Tok::Less) && tok_.pos == end) {
      KILN_ASSIGN_OR_RETURN(std::string_view body, consumeBalanced());
      return Type::opaque(std::string(name) + std::string(body));
    }
    return Type::opaque(std::string(name));
  }
  if (!tok_.is(Tok::BareId)) return expected("type");
  std::string_view name = tok_.text;
  if (name == "tensor") return parseTensorType();
  if (name == "tuple") {
    consume();
    KILN_RETURN_IF_ERROR(expect(Tok::Less, "'<' after 'tuple'"));
    std::vector<Type> elements;
    if (!tok_.is(Tok::Greater)) KILN_RETURN_IF_ERROR(parseTypeList(elements));
    KILN_RETURN_IF_ERROR(expect(Tok::Greater, "',' or '>' in tuple type"));
    return Type::tuple(elements);
  }
  if (name == "complex") {
    consume();
    KILN_RETURN_IF_ERROR(expect(Tok::Less, "'<' after 'complex'"));
    size_t elementPos = tok_.pos;
    KILN_ASSIGN_OR_RETURN(Type element, parseType());
    Type t = Type::complex(element);
    if (!t) return errorAt(elementPos, "complex element type must be f32 or f64, found " + element.str());
    KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' in complex type"));
    return t;
  }
  Type t = elementTypeNamed(name);
  if (!t) return errorAt(pos, "unknown type '" + std::string(name) + "'");
  consume();
  return t;
}

Expected<Type> Parser::parseTensorType() {
  consume();  // tensor
  if (!tok_.is(Tok::Less)) return expected("'<' after 'tensor'");
  // The dimension list `2x?x3x` is scanned by hand: the lexer would read
  // `0x3` as a hex number and `3xf32` as two tokens.
  std::string_view buf = lexer_.buffer();
  size_t p = tok_.pos + 1;
  auto skipSpace = [&] {
    while (p < buf.size() && (buf[p] == ' ' || buf[p] == '\n' || buf[p] == '\t' || buf[p] == '\r')) ++p;
  };
  skipSpace();
  std::vector<int64_t> shape;
  while (p < buf.size()) {
    int64_t dim;
    if (buf[p] == '?') {
      dim = Type::kDynamic;
      ++p;
    } else if (buf[p] == '*') {
      return errorAt(p, "unranked tensors are not supported");
    } else if (buf[p] >= '0' && buf[p] <= '9') {
      size_t q = p;
      while (q < buf.size() && buf[q] >= '0' && buf[q] <= '9') ++q;
      if (q >= buf.size() || buf[q] != 'x') break;  // not a dimension
      auto [end, ec] = std::from_chars(buf.data() + p, buf.data() + q, dim);
      if (ec != std::errc() || dim > Type::kMaxDimension) return errorAt(p, "tensor dimension is too large (at most 2^48)");
      p = q;
    } else {
      break;
    }
    if (p >= buf.size() || buf[p] != 'x') return errorAt(p, "expected 'x' after tensor dimension");
    ++p;
    shape.push_back(dim);
  }
  lexer_.resetTo(p);
  consume();
  size_t elementPos = tok_.pos;
  KILN_ASSIGN_OR_RETURN(Type element, parseType());
  if (!element.isElement()) return errorAt(elementPos, "invalid tensor element type " + element.str());
  std::vector<int64_t> bounds;
  if (consumeIf(Tok::Comma)) {
    if (!tok_.is(Tok::HashId) || tok_.text != "#stablehlo.bounds")
      return expected("'#stablehlo.bounds<...>' tensor encoding");
    consume();
    KILN_RETURN_IF_ERROR(expect(Tok::Less, "'<' after '#stablehlo.bounds'"));
    do {
      if (consumeIf(Tok::Question)) {
        bounds.push_back(Type::kDynamic);
      } else {
        KILN_ASSIGN_OR_RETURN(int64_t b, parseInteger("bound"));
        bounds.push_back(b);
      }
    } while (consumeIf(Tok::Comma));
    KILN_RETURN_IF_ERROR(expect(Tok::Greater, "',' or '>' in bounds"));
    if (bounds.size() != shape.size())
      return errorAt(elementPos, "tensor has " + std::to_string(shape.size()) + " dimensions but " +
                                     std::to_string(bounds.size()) + " bounds");
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' to end tensor type"));
  Type type = Type::tensor(shape, element, bounds);
  if (std::string why = typeLimitViolation(type); !why.empty()) return errorAt(elementPos, why);
  return type;
}

Expected<Type> Parser::parseQuantizedType() {
  consume();  // !quant.uniform
  KILN_RETURN_IF_ERROR(expect(Tok::Less, "'<' after '!quant.uniform'"));
  QuantParams q;
  // Storage type: i8 / u8 (the quant dialect's spelling of ui8) / ui8.
  if (!tok_.is(Tok::BareId)) return expected("quantized storage type");
  std::string_view st = tok_.text;
  bool isUnsigned = st.starts_with("u");
  std::string_view digits = st.substr(st.starts_with("ui") ? 2 : 1);
  unsigned bits = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
  if ((st[0] != 'i' && st[0] != 'u') || ec != std::errc() || end != digits.data() + digits.size() || bits < 2)
    return errorHere("invalid quantized storage type '" + std::string(st) + "'");
  q.storageType = Type::integer(bits, isUnsigned);
  if (!q.storageType) return errorHere("invalid quantized storage type '" + std::string(st) + "'");
  consume();
  std::tie(q.storageMin, q.storageMax) = storageRange(q.storageType);
  if (consumeIf(Tok::Less)) {
    KILN_ASSIGN_OR_RETURN(q.storageMin, parseInteger("storage minimum"));
    KILN_RETURN_IF_ERROR(expect(Tok::Colon, "':' in storage range"));
    KILN_ASSIGN_OR_RETURN(q.storageMax, parseInteger("storage maximum"));
    KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' after storage range"));
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Colon, "':' before expressed type"));
  size_t expressedPos = tok_.pos;
  KILN_ASSIGN_OR_RETURN(q.expressedType, parseType());
  if (!q.expressedType.isFloat()) return errorAt(expressedPos, "expressed type must be a float type");
  if (consumeIf(Tok::Colon)) {
    size_t axisPos = tok_.pos;
    KILN_ASSIGN_OR_RETURN(int64_t axis, parseInteger("quantized dimension"));
    // Stored in 32 bits: a larger one would wrap to another (valid) axis.
    if (axis < 0 || axis > INT32_MAX)
      return errorAt(axisPos, "quantized dimension " + std::to_string(axis) + " is out of range");
    q.quantizedDimension = static_cast<int32_t>(axis);
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Comma, "',' before scales"));
  auto parseScaleAndZeroPoint = [&]() -> Status {
    bool negative = consumeIf(Tok::Minus);
    if (!tok_.is(Tok::Float) && !tok_.is(Tok::Integer)) return expected("scale");
    double scale = 0;
    std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), scale);
    consume();
    q.scales.push_back(negative ? -scale : scale);
    int64_t zp = 0;
    if (consumeIf(Tok::Colon)) {
      KILN_ASSIGN_OR_RETURN(zp, parseInteger("zero point"));
    }
    q.zeroPoints.push_back(zp);
    return Status::ok();
  };
  if (q.quantizedDimension) {
    KILN_RETURN_IF_ERROR(expect(Tok::LBrace, "'{' before per-axis scales"));
    do KILN_RETURN_IF_ERROR(parseScaleAndZeroPoint());
    while (consumeIf(Tok::Comma));
    KILN_RETURN_IF_ERROR(expect(Tok::RBrace, "',' or '}' in per-axis scales"));
  } else {
    KILN_RETURN_IF_ERROR(parseScaleAndZeroPoint());
  }
  KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' to end quantized type"));
  return Type::quantized(q);
}

Status Parser::parseTypeList(std::vector<Type>& types) {
  do {
    KILN_ASSIGN_OR_RETURN(Type t, parseType());
    types.push_back(t);
  } while (consumeIf(Tok::Comma));
  return Status::ok();
}

Expected<Type> Parser::parseFunctionType() {
  KILN_RETURN_IF_ERROR(expect(Tok::LParen, "'(' to begin function type"));
  std::vector<Type> inputs, results;
  if (!tok_.is(Tok::RParen)) KILN_RETURN_IF_ERROR(parseTypeList(inputs));
  KILN_RETURN_IF_ERROR(expect(Tok::RParen, "',' or ')' in function type"));
  KILN_RETURN_IF_ERROR(expect(Tok::Arrow, "'->' in function type"));
  KILN_RETURN_IF_ERROR(parseFunctionResults(results));
  return Type::function(inputs, results);
}

Status Parser::parseFunctionResults(std::vector<Type>& results) {
  if (!tok_.is(Tok::LParen)) {
    KILN_ASSIGN_OR_RETURN(Type t, parseType());
    results.push_back(t);
    return Status::ok();
  }
  // `(` may also begin a single function-typed result: `-> (a) -> b`; StableHLO never has those.
  consume();
  if (!tok_.is(Tok::RParen)) KILN_RETURN_IF_ERROR(parseTypeList(results));
  return expect(Tok::RParen, "',' or ')' in result types");
}

Expected<TypeSpec> Parser::parseTypeSpec() {
  TypeSpec spec;
  spec.pos = tok_.pos;
  if (tok_.is(Tok::LParen)) {
    KILN_ASSIGN_OR_RETURN(Type fn, parseFunctionType());
    spec.isFunction = true;
    spec.inputs.assign(fn.inputs().begin(), fn.inputs().end());
    spec.results.assign(fn.results().begin(), fn.results().end());
    return spec;
  }
  KILN_RETURN_IF_ERROR(parseTypeList(spec.types));
  return spec;
}

// --- SSA values -------------------------------------------------------------------

Expected<OperandRef> Parser::parseOperand() {
  if (!tok_.is(Tok::PercentId)) return expected("SSA value");
  size_t pos = tok_.pos;
  std::string name(tok_.text);
  size_t end = pos + tok_.text.size();
  consume();
  unsigned resultNumber = 0;
  bool hasNumber = false;
  if (tok_.is(Tok::HashId) && tok_.pos == end) {
    std::string_view digits = tok_.text.substr(1);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), resultNumber);
    if (ec != std::errc() || p != digits.data() + digits.size()) return errorHere("invalid result number");
    hasNumber = true;
    consume();
  }
  std::string shown = hasNumber ? name + "#" + std::to_string(resultNumber) : name;
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(name);
    if (it == scope->end()) continue;
    if (resultNumber >= it->second.values.size())
      return errorAt(pos, "result number " + std::to_string(resultNumber) + " is out of range: '" + name +
                              "' has " + std::to_string(it->second.values.size()) + " results");
    return OperandRef{it->second.values[resultNumber], pos, shown};
  }
  return errorAt(pos, "use of undefined value '" + shown + "'");
}

Status Parser::parseOperandList(std::vector<OperandRef>& operands) {
  if (!tok_.is(Tok::PercentId)) return Status::ok();
  while (true) {
    KILN_ASSIGN_OR_RETURN(OperandRef ref, parseOperand());
    operands.push_back(std::move(ref));
    if (!tok_.is(Tok::Comma) || !peek().is(Tok::PercentId)) return Status::ok();
    consume();
  }
}

Status Parser::resolveOperands(const std::vector<OperandRef>& refs, std::span<const Type> types,
                               OperationState& state) {
  if (refs.size() != types.size())
    return errorAt(refs.empty() ? tok_.pos : refs.front().pos,
                   std::to_string(refs.size()) + " operands present, but " + std::to_string(types.size()) +
                       " types were given");
  for (size_t i = 0; i < refs.size(); ++i) {
    if (refs[i].value->type() != types[i])
      return errorAt(refs[i].pos, "use of value '" + refs[i].name + "' expects type " + types[i].str() +
                                      " but it has type " + refs[i].value->type().str());
    state.operands.push_back(refs[i].value);
  }
  return Status::ok();
}

Status Parser::defineValues(const std::string& name, size_t pos, std::vector<Value*> values) {
  for (const Scope& scope : scopes_)
    if (scope.count(name)) return errorAt(pos, "redefinition of value '" + name + "'");
  scopes_.back().emplace(name, ValueDef{std::move(values), pos});
  return Status::ok();
}

Expected<ArgDecl> Parser::parseArgDecl() {
  if (!tok_.is(Tok::PercentId)) return expected("argument name");
  ArgDecl arg{std::string(tok_.text), Type(), tok_.pos};
  consume();
  KILN_RETURN_IF_ERROR(expect(Tok::Colon, "':' after argument name"));
  KILN_ASSIGN_OR_RETURN(arg.type, parseType());
  return arg;
}

// --- Regions and operations ----------------------------------------------------------

Status Parser::parseRegion(Region& region, const std::vector<ArgDecl>& entryArgs) {
  KILN_ENTER_NESTING();
  KILN_RETURN_IF_ERROR(expect(Tok::LBrace, "'{' to begin a region"));
  scopes_.emplace_back();
  if (!entryArgs.empty() || (!tok_.is(Tok::CaretId) && !tok_.is(Tok::RBrace))) {
    Block* entry = region.addBlock();
    for (const ArgDecl& arg : entryArgs)
      KILN_RETURN_IF_ERROR(defineValues(arg.name, arg.pos, {entry->addArgument(arg.type, locOf(arg.pos))}));
    KILN_RETURN_IF_ERROR(parseBlockBody(*entry));
  }
  while (tok_.is(Tok::CaretId)) {
    if (!entryArgs.empty() && region.numBlocks() == 1 && region.front().empty())
      return errorHere("the entry block's arguments are declared before the region; it has no label");
    Block* block = region.addBlock();
    consume();  // the label
    if (consumeIf(Tok::LParen) && !consumeIf(Tok::RParen)) {
      do {
        KILN_ASSIGN_OR_RETURN(ArgDecl arg, parseArgDecl());
        std::string ignoredLoc;
        KILN_RETURN_IF_ERROR(parseOptionalTrailingLoc(ignoredLoc));
        KILN_RETURN_IF_ERROR(defineValues(arg.name, arg.pos, {block->addArgument(arg.type, locOf(arg.pos))}));
      } while (consumeIf(Tok::Comma));
      KILN_RETURN_IF_ERROR(expect(Tok::RParen, "',' or ')' in block argument list"));
    }
    KILN_RETURN_IF_ERROR(expect(Tok::Colon, "':' after block label"));
    KILN_RETURN_IF_ERROR(parseBlockBody(*block));
  }
  KILN_RETURN_IF_ERROR(expect(Tok::RBrace, "operation or '}' to end the region"));
  scopes_.pop_back();
  return Status::ok();
}

Status Parser::parseBlockBody(Block& block) {
  while (!tok_.is(Tok::RBrace) && !tok_.is(Tok::CaretId) && !tok_.is(Tok::Eof))
    KILN_RETURN_IF_ERROR(parseOperation(block));
  return Status::ok();
}

Status Parser::parseGenericRegions(OperationState& state) {
  KILN_RETURN_IF_ERROR(expect(Tok::LParen, "'(' before regions"));
  do KILN_RETURN_IF_ERROR(parseRegion(*state.addRegion()));
  while (consumeIf(Tok::Comma));
  return expect(Tok::RParen, "',' or ')' after regions");
}

Status Parser::parseOptionalTrailingLoc(std::string& debugLoc) {
  if (!tok_.isKeyword("loc")) return Status::ok();
  size_t start = tok_.pos;
  consume();
  if (!tok_.is(Tok::LParen)) return expected("'(' after 'loc'");
  KILN_ASSIGN_OR_RETURN(std::string_view body, consumeBalanced());
  debugLoc = std::string(
      lexer_.buffer().substr(start, body.data() + body.size() - (lexer_.buffer().data() + start)));
  return Status::ok();
}

Status Parser::parseResultNames(std::vector<std::pair<std::string, unsigned>>& names, size_t& pos) {
  pos = tok_.pos;
  do {
    if (!tok_.is(Tok::PercentId)) return expected("result name");
    std::string name(tok_.text);
    consume();
    unsigned count = 1;
    if (consumeIf(Tok::Colon)) {
      if (!tok_.is(Tok::Integer)) return expected("result count after ':'");
      auto [p, ec] = std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), count);
      if (ec != std::errc() || count == 0 || count > 1u << 16) return errorHere("invalid result count");
      consume();
    }
    names.emplace_back(std::move(name), count);
  } while (consumeIf(Tok::Comma));
  return expect(Tok::Equal, "'=' after result names");
}

Status Parser::checkOpIsKnown(std::string_view name, size_t pos, bool generic) {
  if (lookupOpDef(name)) return Status::ok();
  std::string_view dialect = name.substr(0, name.find('.'));
  bool ownDialect = name.find('.') == std::string_view::npos || dialect == "stablehlo" || dialect == "func" ||
                    dialect == "check" || dialect == "builtin";
  if (ownDialect) return errorAt(pos, "unknown operation '" + std::string(name) + "'");
  if (!options_.allowUnregisteredDialect)
    return errorAt(pos, "operation '" + std::string(name) +
                            "' of an unregistered dialect (allow unregistered dialects to keep it)");
  if (!generic)
    return errorAt(pos, "operation '" + std::string(name) +
                            "' of an unregistered dialect must be written in the generic form");
  return Status::ok();
}

Status Parser::parseGenericOp(OperationState& state) {
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(expect(Tok::LParen, "'(' before operands"));
  KILN_RETURN_IF_ERROR(parseOperandList(operands));
  KILN_RETURN_IF_ERROR(expect(Tok::RParen, "',' or ')' in operand list"));
  if (tok_.is(Tok::LSquare)) return errorHere("successor blocks are not supported");
  if (consumeIf(Tok::Less)) {
    KILN_RETURN_IF_ERROR(parseAttrDict(state.attributes));
    KILN_RETURN_IF_ERROR(expect(Tok::Greater, "'>' after properties"));
  }
  if (tok_.is(Tok::LParen)) KILN_RETURN_IF_ERROR(parseGenericRegions(state));
  KILN_RETURN_IF_ERROR(parseOptionalAttrDict(state.attributes));
  KILN_RETURN_IF_ERROR(expect(Tok::Colon, "':' before the operation's function type"));
  KILN_ASSIGN_OR_RETURN(Type fn, parseFunctionType());
  KILN_RETURN_IF_ERROR(resolveOperands(operands, fn.inputs(), state));
  state.resultTypes.assign(fn.results().begin(), fn.results().end());
  return Status::ok();
}

namespace {

// Ops of the `func` and `builtin` dialects that MLIR prints without a prefix.
std::string_view fullOpName(std::string_view name) {
  if (name == "return") return "func.return";
  if (name == "call") return "func.call";
  if (name == "module") return "builtin.module";
  return name;
}

}  // namespace

std::vector<NamedAttribute> sortedByName(const AttrDict& attrs) {
  std::vector<NamedAttribute> entries(attrs.entries().begin(), attrs.entries().end());
  std::sort(entries.begin(), entries.end(),
            [](const NamedAttribute& a, const NamedAttribute& b) { return a.first < b.first; });
  return entries;
}

Status Parser::parseOperation(Block& block) {
  KILN_ENTER_NESTING();
  std::vector<std::pair<std::string, unsigned>> resultNames;
  size_t resultsPos = tok_.pos;
  if (tok_.is(Tok::PercentId)) KILN_RETURN_IF_ERROR(parseResultNames(resultNames, resultsPos));

  size_t opPos = tok_.pos;
  std::string name;
  bool generic = tok_.is(Tok::String);
  if (generic) {
    if (!unescapeString(tok_.text, name)) return errorHere("invalid escape in operation name");
  } else if (tok_.is(Tok::BareId)) {
    name = fullOpName(tok_.text);
  } else {
    return expected("operation name");
  }
  KILN_RETURN_IF_ERROR(checkOpIsKnown(name, opPos, generic));
  OperationState state(name, locOf(opPos));
  if (generic) {
    consume();
    KILN_RETURN_IF_ERROR(parseGenericOp(state));
  } else {
    PrettyOpParser prettyParser = lookupPrettyOpParser(name);
    if (!prettyParser)
      return errorAt(opPos, "'" + name + "' has no custom assembly form; write it in the generic form");
    consume();
    KILN_RETURN_IF_ERROR(prettyParser(*this, state));
  }
  KILN_RETURN_IF_ERROR(parseOptionalTrailingLoc(state.debugLoc));
  state.attributes = AttrDict(sortedByName(state.attributes));

  size_t named = 0;
  for (const auto& [n, count] : resultNames) named += count;
  if (!resultNames.empty() && named != state.resultTypes.size())
    return errorAt(resultsPos, "operation defines " + std::to_string(state.resultTypes.size()) +
                                   " results but " + std::to_string(named) + " result names were given");

  Operation* op = block.push_back(Operation::create(std::move(state)));
  unsigned next = 0;
  for (const auto& [n, count] : resultNames) {
    std::vector<Value*> values;
    for (unsigned i = 0; i < count; ++i) values.push_back(op->result(next++));
    KILN_RETURN_IF_ERROR(defineValues(n, resultsPos, std::move(values)));
  }
  return Status::ok();
}

// --- Modules and functions -------------------------------------------------------------

Status Parser::parseModuleOp(OperationState& state) {
  if (tok_.is(Tok::AtId)) {
    std::string name(tok_.text.substr(1));
    if (name.starts_with("\"") && !unescapeString(name, name)) return errorHere("invalid symbol name");
    state.attributes.set("sym_name", Attribute::string(name));
    consume();
  }
  if (consumeIfKeyword("attributes")) KILN_RETURN_IF_ERROR(parseAttrDict(state.attributes));
  Region& body = *state.addRegion();
  KILN_RETURN_IF_ERROR(parseRegion(body));
  // `module {}` has one empty block, as MLIR's implicit module body (and as
  // an empty input parses).
  if (body.numBlocks() == 0) body.addBlock();
  return Status::ok();
}

Status Parser::parseFuncOp(OperationState& state) {
  if (tok_.isKeyword("public") || tok_.isKeyword("private") || tok_.isKeyword("nested")) {
    state.attributes.set("sym_visibility", Attribute::string(std::string(tok_.text)));
    consume();
  }
  if (!tok_.is(Tok::AtId)) return expected("function name");
  std::string name(tok_.text.substr(1));
  if (name.starts_with("\"") && !unescapeString(name, name)) return errorHere("invalid function name");
  consume();

  // Parameters: `%arg0: type {attrs} loc(...)`, or bare types for a declaration.
  std::vector<ArgDecl> params;
  std::vector<Type> inputs, results;
  std::vector<Attribute> argAttrs, resAttrs;
  bool anyArgAttrs = false, anyResAttrs = false;
  KILN_RETURN_IF_ERROR(expect(Tok::LParen, "'(' before function parameters"));
  if (!tok_.is(Tok::RParen)) {
    do {
      if (tok_.is(Tok::PercentId)) {
        KILN_ASSIGN_OR_RETURN(ArgDecl arg, parseArgDecl());
        params.push_back(arg);
        inputs.push_back(arg.type);
      } else {
        KILN_ASSIGN_OR_RETURN(Type t, parseType());
        inputs.push_back(t);
      }
      AttrDict attrs;
      KILN_RETURN_IF_ERROR(parseOptionalAttrDict(attrs));
      anyArgAttrs |= !attrs.empty();
      argAttrs.push_back(Attribute::dictionary(sortedByName(attrs)));
      std::string ignoredLoc;
      KILN_RETURN_IF_ERROR(parseOptionalTrailingLoc(ignoredLoc));
    } while (consumeIf(Tok::Comma));
  }
  KILN_RETURN_IF_ERROR(expect(Tok::RParen, "',' or ')' in function parameters"));
  if (!params.empty() && params.size() != inputs.size())
    return errorHere("either all function parameters are named or none is");

  // Result attributes need the parenthesized form: after `-> T` a '{' is the body.
  auto parseResult = [&](bool mayHaveAttrs) -> Status {
    KILN_ASSIGN_OR_RETURN(Type t, parseType());
    results.push_back(t);
    AttrDict attrs;
    if (mayHaveAttrs) KILN_RETURN_IF_ERROR(parseOptionalAttrDict(attrs));
    anyResAttrs |= !attrs.empty();
    resAttrs.push_back(Attribute::dictionary(sortedByName(attrs)));
    return Status::ok();
  };
  if (consumeIf(Tok::Arrow)) {
    if (consumeIf(Tok::LParen)) {
      if (!tok_.is(Tok::RParen)) {
        do KILN_RETURN_IF_ERROR(parseResult(true));
        while (consumeIf(Tok::Comma));
      }
      KILN_RETURN_IF_ERROR(expect(Tok::RParen, "',' or ')' in function results"));
    } else {
      KILN_RETURN_IF_ERROR(parseResult(false));
    }
  }
  state.attributes.set("sym_name", Attribute::string(name));
  state.attributes.set("function_type", Attribute::type(Type::function(inputs, results)));
  if (anyArgAttrs) state.attributes.set("arg_attrs", Attribute::array(argAttrs));
  if (anyResAttrs) state.attributes.set("res_attrs", Attribute::array(resAttrs));
  if (consumeIfKeyword("attributes")) KILN_RETURN_IF_ERROR(parseAttrDict(state.attributes));
  Region* body = state.addRegion();
  if (!tok_.is(Tok::LBrace)) return Status::ok();  // a declaration
  if (params.size() != inputs.size()) return errorHere("a function with a body must name its parameters");
  KILN_RETURN_IF_ERROR(parseRegion(*body, params));
  // JAX writes the comparators of its custom calls (ApproxTopK's) as
  // functions ending in stablehlo.return, which MLIR accepts; kiln's
  // functions end in func.return, so the one becomes the other.
  if (body->numBlocks() == 1 && body->front().terminator() &&
      body->front().terminator()->name() == "stablehlo.return") {
    Operation* last = body->front().terminator();
    OperationState ret("func.return", last->loc());
    ret.operands.assign(last->operands().begin(), last->operands().end());
    body->front().insertBefore(last, Operation::create(std::move(ret)));
    last->erase();
  }
  return Status::ok();
}

Status Parser::parseAliasDefinition() {
  std::string name(tok_.text);
  size_t pos = tok_.pos;
  bool isType = tok_.is(Tok::BangId);
  consume();
  KILN_RETURN_IF_ERROR(expect(Tok::Equal, "'=' in alias definition"));
  if (isType) {
    KILN_ASSIGN_OR_RETURN(Type t, parseType());
    if (!typeAliases_.emplace(name, t).second)
      return errorAt(pos, "redefinition of type alias '" + name + "'");
    return Status::ok();
  }
  if (tok_.isKeyword("loc")) {
    consume();
    if (!tok_.is(Tok::LParen)) return expected("'(' after 'loc'");
    KILN_ASSIGN_OR_RETURN(std::string_view body, consumeBalanced());
    if (!locAliases_.emplace(name, std::string(body.substr(1, body.size() - 2))).second)
      return errorAt(pos, "redefinition of location alias '" + name + "'");
    return Status::ok();
  }
  KILN_ASSIGN_OR_RETURN(Attribute a, parseAttribute());
  if (!attrAliases_.emplace(name, a).second)
    return errorAt(pos, "redefinition of attribute alias '" + name + "'");
  return Status::ok();
}

std::string Parser::expandLocAliases(std::string_view text, int depth, size_t& budget) const {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') {  // copy strings verbatim: a '#' inside is just text
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      out.append(text.substr(i, j - i));
      i = j;
      continue;
    }
    if (c != '#') {
      out += c;
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_' ||
                               text[j] == '.' || text[j] == '$' || text[j] == '-'))
      ++j;
    std::string_view name = text.substr(i, j - i);
    auto it = locAliases_.find(name);
    // Aliases may refer to each other; the depth and size budget keep a
    // malicious chain from expanding exponentially.
    if (it != locAliases_.end() && depth < 64 && budget >= it->second.size()) {
      budget -= it->second.size();
      out += expandLocAliases(it->second, depth + 1, budget);
    } else {
      out.append(name);
    }
    i = j;
  }
  return out;
}

void Parser::resolveDebugLocs(Operation& root) {
  if (locAliases_.empty()) return;
  size_t budget = 64u << 20;
  root.walk([&](Operation& op) {
    if (op.debugLoc().find('#') != std::string::npos)
      op.setDebugLoc(expandLocAliases(op.debugLoc(), 0, budget));
  });
}

Expected<std::unique_ptr<Module>> Parser::parseTopLevel() {
  Block top;
  scopes_.emplace_back();
  while (!tok_.is(Tok::Eof)) {
    if ((tok_.is(Tok::HashId) || tok_.is(Tok::BangId)) && peek().is(Tok::Equal)) {
      KILN_RETURN_IF_ERROR(parseAliasDefinition());
    } else if (tok_.is(Tok::FileMetadataBegin)) {
      // `{-# dialect_resources: ... #-}` carries blobs for dense_resource
      // attributes, which kiln does not support; skip it.
      size_t end = lexer_.buffer().find("#-}", tok_.pos);
      if (end == std::string_view::npos) return errorHere("unterminated file metadata '{-#'");
      lexer_.resetTo(end + 3);
      consume();
    } else {
      KILN_RETURN_IF_ERROR(parseOperation(top));
    }
  }
  std::unique_ptr<Operation> moduleOp;
  if (top.size() == 1 && top.front()->name() == "builtin.module") {
    moduleOp = top.front()->remove();
  } else {
    OperationState state("builtin.module", locOf(0));
    Block* body = state.addRegion()->addBlock();
    for (Operation* op : top.ops()) body->push_back(op->remove());
    moduleOp = Operation::create(std::move(state));
  }
  resolveDebugLocs(*moduleOp);
  return std::make_unique<Module>(std::move(moduleOp));
}

// --- Public API ---------------------------------------------------------------------

Expected<std::unique_ptr<Module>> parseModule(std::string_view text, std::string_view filename,
                                              const ParseOptions& options) {
  Parser parser(text, filename, options);
  return parser.parseTopLevel();
}

namespace {
// Runs `parse` on a standalone piece of text that must be consumed entirely.
template <typename T, typename Fn>
Expected<T> parseStandalone(std::string_view text, std::string_view what, Fn parse) {
  Parser parser(text, "<" + std::string(what) + ">", ParseOptions{});
  KILN_ASSIGN_OR_RETURN(T value, parse(parser));
  if (!parser.tok().is(Tok::Eof)) return parser.expected("end of " + std::string(what));
  return value;
}
}  // namespace

Expected<Attribute> parseAttribute(std::string_view text) {
  return parseStandalone<Attribute>(text, "attribute", [](Parser& p) { return p.parseAttribute(); });
}

Expected<Type> parseType(std::string_view text) {
  return parseStandalone<Type>(text, "type", [](Parser& p) { return p.parseType(); });
}

std::vector<SourceChunk> splitInputFile(std::string_view text) {
  std::vector<SourceChunk> chunks;
  unsigned line = 1, chunkLine = 1;
  size_t chunkStart = 0;
  auto finishChunk = [&](size_t end) {
    // Pad with the newlines before the chunk so that positions in the chunk
    // keep the line numbers of the whole file.
    chunks.push_back(
        {std::string(chunkLine - 1, '\n') + std::string(text.substr(chunkStart, end - chunkStart)),
         chunkLine});
  };
  for (size_t pos = 0; pos <= text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view lineText = text.substr(pos, eol - pos);
    size_t first = lineText.find_first_not_of(" \t");
    size_t last = lineText.find_last_not_of(" \t\r");
    if (first != std::string_view::npos && lineText.substr(first, last - first + 1) == "// -----") {
      finishChunk(pos);
      chunkStart = std::min(eol + 1, text.size());
      chunkLine = line + 1;
    }
    pos = eol + 1;
    ++line;
  }
  finishChunk(text.size());
  return chunks;
}

}  // namespace kiln
