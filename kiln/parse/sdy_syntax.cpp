// The pretty forms of the Shardy (sdy) ops (kiln/ir/ops/sdy_ops.cpp), as
// jaxlib prints them:
//   sdy.mesh @mesh = <["x"=2]> {attrs}
//   sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> {attrs} : tensor<8x4xf32>
//   sdy.reshard %0 <@mesh, [{"x"}, {}]> {attrs} : tensor<8x4xf32>
//   sdy.sharding_group %0 group_id=0 {attrs} : tensor<8xf32>
//   sdy.propagation_barrier %0 allowed_direction=NONE {attrs} : tensor<8xf32>
//   sdy.manual_computation(%0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>]
//       manual_axes={"x"} (%arg1: tensor<4xf32>) { ... sdy.return %2 : tensor<4xf32> } {attrs}
//       : (tensor<8xf32>) -> tensor<8xf32>
// Their mesh and sharding attributes are kept as the Opaque attributes the
// generic form holds (`#sdy.mesh<...>`, `#sdy.sharding<...>`), so both forms
// parse to the same op.
#include "kiln/ir/ops/sdy.h"
#include "kiln/parse/parser_impl.h"

namespace kiln {
namespace {

// `<...>` after the op's operand or symbol: the body of a `#sdy.<kind><...>` attribute.
Expected<Attribute> parseBareSdyAttribute(Parser& p, std::string_view kind) {
  if (!p.tok().is(Tok::Less)) return p.expected("'<' starting the " + std::string(kind));
  KILN_ASSIGN_OR_RETURN(std::string_view body, p.consumeBalanced());
  return Attribute::opaque("#sdy." + std::string(kind) + std::string(body));
}

}  // namespace

Status parseSdyMesh(Parser& p, OperationState& st) {
  if (!p.tok().is(Tok::AtId)) return p.expected("'@' and the mesh's name");
  std::string name(p.tok().text.substr(1));
  if (name.starts_with("\"") && !unescapeString(name, name)) return p.errorHere("invalid symbol name");
  p.consume();
  st.attributes.set("sym_name", Attribute::string(name));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Equal, "'=' after the mesh's name"));
  KILN_ASSIGN_OR_RETURN(Attribute mesh, parseBareSdyAttribute(p, "mesh"));
  st.attributes.set("mesh", mesh);
  return p.parseOptionalAttrDict(st.attributes);
}

Status parseSdyShardedValue(Parser& p, OperationState& st) {
  KILN_ASSIGN_OR_RETURN(OperandRef input, p.parseOperand());
  KILN_ASSIGN_OR_RETURN(Attribute sharding, parseBareSdyAttribute(p, "sharding"));
  st.attributes.set("sharding", sharding);
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the type"));
  KILN_ASSIGN_OR_RETURN(Type type, p.parseType());
  st.resultTypes = {type};
  return p.resolveOperands({input}, std::vector<Type>{type}, st);
}

}  // namespace kiln

namespace kiln {
namespace {

// `keyword=`, as Shardy's assembly formats write their inline attributes.
Status expectKeywordEquals(Parser& p, std::string_view keyword) {
  KILN_RETURN_IF_ERROR(p.expectKeyword(keyword, "after the operand"));
  return p.expect(Tok::Equal, "'=' after '" + std::string(keyword) + "'");
}

}  // namespace

Status parseSdyShardingGroup(Parser& p, OperationState& st) {
  KILN_ASSIGN_OR_RETURN(OperandRef input, p.parseOperand());
  KILN_RETURN_IF_ERROR(expectKeywordEquals(p, "group_id"));
  KILN_ASSIGN_OR_RETURN(int64_t group, p.parseInteger("group id"));
  st.attributes.set("group_id", Attribute::integer(group));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the type"));
  KILN_ASSIGN_OR_RETURN(Type type, p.parseType());
  return p.resolveOperands({input}, std::vector<Type>{type}, st);
}

Status parseSdyPropagationBarrier(Parser& p, OperationState& st) {
  KILN_ASSIGN_OR_RETURN(OperandRef input, p.parseOperand());
  KILN_RETURN_IF_ERROR(expectKeywordEquals(p, "allowed_direction"));
  std::optional<int64_t> direction =
      p.tok().is(Tok::BareId) ? sdy::propagationDirectionValue(p.tok().text) : std::nullopt;
  if (!direction) return p.expected("a propagation direction (NONE, FORWARD or BACKWARD)");
  st.attributes.set("allowed_direction", Attribute::integer(*direction, Type::integer(32)));
  p.consume();
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the type"));
  KILN_ASSIGN_OR_RETURN(Type type, p.parseType());
  st.resultTypes = {type};
  return p.resolveOperands({input}, std::vector<Type>{type}, st);
}

Status parseSdyManualComputation(Parser& p, OperationState& st) {
  KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' before the operands"));
  std::vector<OperandRef> operands;
  KILN_RETURN_IF_ERROR(p.parseOperandList(operands));
  KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "')' after the operands"));
  // The shardings are written without their `#sdy.sharding_per_value<...>` wrapper.
  for (const char* field : {"in_shardings", "out_shardings"}) {
    KILN_RETURN_IF_ERROR(expectKeywordEquals(p, field));
    if (!p.tok().is(Tok::LSquare)) return p.expected("'[' starting the shardings");
    KILN_ASSIGN_OR_RETURN(std::string_view list, p.consumeBalanced());
    st.attributes.set(field, Attribute::opaque("#sdy.sharding_per_value<" + std::string(list) + ">"));
  }
  KILN_RETURN_IF_ERROR(expectKeywordEquals(p, "manual_axes"));
  if (!p.tok().is(Tok::LBrace)) return p.expected("'{' starting the manual axes");
  KILN_ASSIGN_OR_RETURN(std::string_view axes, p.consumeBalanced());
  st.attributes.set("manual_axes", Attribute::opaque("#sdy<manual_axes" + std::string(axes) + ">"));
  KILN_RETURN_IF_ERROR(p.expect(Tok::LParen, "'(' before the body's arguments"));
  std::vector<ArgDecl> args;
  if (!p.consumeIf(Tok::RParen)) {
    do {
      KILN_ASSIGN_OR_RETURN(ArgDecl arg, p.parseArgDecl());
      std::string ignoredLoc;
      KILN_RETURN_IF_ERROR(p.parseOptionalTrailingLoc(ignoredLoc));
      args.push_back(std::move(arg));
    } while (p.consumeIf(Tok::Comma));
    KILN_RETURN_IF_ERROR(p.expect(Tok::RParen, "',' or ')' after the body's arguments"));
  }
  KILN_RETURN_IF_ERROR(p.parseRegion(*st.addRegion(), args));
  KILN_RETURN_IF_ERROR(p.parseOptionalAttrDict(st.attributes));
  KILN_RETURN_IF_ERROR(p.expect(Tok::Colon, "':' before the type"));
  KILN_ASSIGN_OR_RETURN(Type type, p.parseFunctionType());
  st.resultTypes.assign(type.results().begin(), type.results().end());
  return p.resolveOperands(operands, type.inputs(), st);
}

}  // namespace kiln
