// The parser's internals, shared by parser.cpp (tokens, types, SSA values,
// regions, the generic op form, modules and functions), attr_parser.cpp
// (attributes) and op_syntax.cpp (the pretty forms of individual ops).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/parse/lexer.h"
#include "kiln/parse/parser.h"

namespace kiln {

// A use of an SSA value in the text, before its type is checked.
struct OperandRef {
  Value* value;
  size_t pos;
  std::string name;  // "%0#1", for diagnostics
};

// A block argument declared outside its region's braces (`%iterArg = %c`,
// `reducer(%a: tensor<f32>, ...)`, function parameters).
struct ArgDecl {
  std::string name;  // "%arg0"
  Type type;
  size_t pos;
};

// A number in a literal, with its sign, as written: `-1.5`, `0x7FC00000`,
// `inf`, or `true`/`false` in dense literals.
struct NumberLit {
  size_t pos = 0;
  bool negative = false;
  Tok kind = Tok::Integer;  // Integer, Float, or BareId for true/false/inf/nan
  std::string_view text;
};

// One element of a dense literal: a number, a bool, or a complex pair.
struct DenseElementLit {
  NumberLit re, im;
  bool isComplex = false;
};

// The type part of a pretty form after ':': either a function type or a
// plain list of types, whose meaning depends on the op.
struct TypeSpec {
  bool isFunction = false;
  std::vector<Type> types;    // the plain list
  std::vector<Type> inputs;   // function type
  std::vector<Type> results;  // function type
  size_t pos = 0;
};

class Parser {
 public:
  // Deep enough for any real program, shallow enough that recursion cannot
  // exhaust the stack.
  static constexpr int kMaxNesting = 256;

  Parser(std::string_view text, std::string_view filename, const ParseOptions& options);

  // --- Tokens and diagnostics ------------------------------------------------
  const Token& tok() const { return tok_; }
  void consume() { tok_ = lexer_.next(); }
  Token peek();  // the token after tok()
  bool consumeIf(Tok kind);
  bool consumeIfKeyword(std::string_view keyword);
  // Consumes a token of `kind` or fails with "expected <what>".
  Status expect(Tok kind, std::string_view what);
  Status expectKeyword(std::string_view keyword, std::string_view context);
  Location locOf(size_t pos) const;
  Status errorAt(size_t pos, std::string message) const;
  Status errorHere(std::string message) const { return errorAt(tok_.pos, std::move(message)); }
  // "expected <what>, found '<token>'" at the current token.
  Status expected(std::string_view what) const;
  // Raw text of a bracketed group starting at the current token (one of
  // ( [ { <), brackets and strings balanced; consumes it.
  Expected<std::string_view> consumeBalanced();

  // --- Types (parser.cpp) -----------------------------------------------------
  Expected<Type> parseType();
  bool atType() const;  // whether the current token can start a type
  // Function type: (a, b) -> c | (a) -> (b, c).
  Expected<Type> parseFunctionType();
  Status parseTypeList(std::vector<Type>& types);  // t1, t2, ... (at least one)
  // After ':' in a pretty form.
  Expected<TypeSpec> parseTypeSpec();

  // --- Attributes (attr_parser.cpp) -------------------------------------------
  Expected<Attribute> parseAttribute();
  // `{name = value, unitName, ...}`; appends to `dict`.
  Status parseAttrDict(AttrDict& dict);
  Status parseOptionalAttrDict(AttrDict& dict);
  // Signed integer literal (decimal or hex).
  Expected<int64_t> parseInteger(std::string_view what);
  // [1, 2, 3]
  Expected<std::vector<int64_t>> parseIntegerList(std::string_view what);
  // The body of a stablehlo struct attribute after its '<' (e.g. `lhs_... = [0], ...>`).
  Expected<Attribute> parseStablehloStruct(std::string_view name);
  // [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]
  Expected<Attribute> parseConvDimensionNumbers();
  // A DenseElements attribute of type tensor<shape x i64> from `values`.
  static Attribute denseI64(std::span<const int64_t> shape, std::span<const int64_t> values);

  // --- SSA values and regions (parser.cpp) ------------------------------------
  Expected<OperandRef> parseOperand();
  // %a, %b, ... ; stops before a ',' that is not followed by another operand.
  Status parseOperandList(std::vector<OperandRef>& operands);
  // Checks declared types against the operands' types and moves the values
  // into `state`.
  Status resolveOperands(const std::vector<OperandRef>& refs, std::span<const Type> types,
                         OperationState& state);
  // `%name: type`
  Expected<ArgDecl> parseArgDecl();
  // '{' blocks '}' with `entryArgs` as arguments of the first block.
  Status parseRegion(Region& region, const std::vector<ArgDecl>& entryArgs = {});
  // Parses one operation (results, form, trailing loc) and appends it to `block`.
  Status parseOperation(Block& block);
  // `loc(...)`, when present: records its text.
  Status parseOptionalTrailingLoc(std::string& debugLoc);

  // --- Modules and functions (parser.cpp) -------------------------------------
  Status parseFuncOp(OperationState& state);
  Status parseModuleOp(OperationState& state);
  Expected<std::unique_ptr<Module>> parseTopLevel();

  // The generic form after the op's name: '(' operands ')' <{properties}>
  // (regions) {attributes} ':' function type. Pretty forms fall back to it
  // where MLIR does (a constant whose type is not its value's).
  Status parseGenericOp(OperationState& state);

 private:
  // Bounds recursion: every recursive production starts with
  // KILN_ENTER_NESTING(), which calls enterNesting() and holds a NestingScope.
  Status enterNesting();
  struct NestingScope {
    int& depth;
    ~NestingScope() { --depth; }
  };

  struct ValueDef {
    std::vector<Value*> values;
    size_t pos;
  };
  using Scope = std::unordered_map<std::string, ValueDef>;

  // '(' region, region ')' of the generic form.
  Status parseGenericRegions(OperationState& state);
  // The results after '->': one type or a parenthesized list.
  Status parseFunctionResults(std::vector<Type>& results);
  Status parseResultNames(std::vector<std::pair<std::string, unsigned>>& names, size_t& pos);
  Status defineValues(const std::string& name, size_t pos, std::vector<Value*> values);
  Status checkOpIsKnown(std::string_view name, size_t pos, bool generic);
  Status parseBlockBody(Block& block);
  Status parseAliasDefinition();
  Expected<Attribute> parseHashAttribute();
  Expected<Attribute> parseDenseArray();
  Expected<Attribute> parseDenseElements();
  Status parseDenseLiteral(std::vector<DenseElementLit>& elements, std::vector<int64_t>& shape);
  Status parseDenseNumber(NumberLit& lit);
  Status encodeDenseElement(const DenseElementLit& e, Type elementType, std::vector<uint8_t>& out);
  Expected<Type> parseTensorType();
  Expected<Type> parseQuantizedType();
  void resolveDebugLocs(Operation& op);
  std::string expandLocAliases(std::string_view text, int depth, size_t& budget) const;

  ParseOptions options_;
  const std::string* file_;
  std::shared_ptr<const std::string> text_;
  Lexer lexer_;
  Token tok_;
  int depth_ = 0;
  std::vector<Scope> scopes_;
  std::map<std::string, Attribute, std::less<>> attrAliases_;
  std::map<std::string, Type, std::less<>> typeAliases_;
  std::map<std::string, std::string, std::less<>> locAliases_;  // "#loc3" -> body of its loc(...)
};

// MLIR dictionaries are sorted by name; so are kiln's op attributes and
// dictionary attributes, which makes the generic and the pretty form of an op
// hold equal attributes.
std::vector<NamedAttribute> sortedByName(const AttrDict& attrs);

#define KILN_ENTER_NESTING()                  \
  KILN_RETURN_IF_ERROR(this->enterNesting()); \
  NestingScope kiln_nesting_scope_ { this->depth_ }

// The pretty (custom) form of `name`, or null when it has none. Called with
// the current token just after the op name; parses up to, not including, the
// trailing `loc(...)`, filling operands, attributes, regions and result types.
using PrettyOpParser = Status (*)(Parser& p, OperationState& state);
PrettyOpParser lookupPrettyOpParser(std::string_view name);

// The sdy ops' pretty forms (sdy_syntax.cpp).
Status parseSdyMesh(Parser& p, OperationState& state);
Status parseSdyShardedValue(Parser& p, OperationState& state);
Status parseSdyShardingGroup(Parser& p, OperationState& state);
Status parseSdyPropagationBarrier(Parser& p, OperationState& state);
Status parseSdyManualComputation(Parser& p, OperationState& state);

}  // namespace kiln
