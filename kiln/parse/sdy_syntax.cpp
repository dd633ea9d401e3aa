// The pretty forms of the Shardy (sdy) ops (kiln/ir/ops/sdy_ops.cpp), as
// jaxlib prints them:
//   sdy.mesh @mesh = <["x"=2]> {attrs}
//   sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> {attrs} : tensor<8x4xf32>
//   sdy.reshard %0 <@mesh, [{"x"}, {}]> {attrs} : tensor<8x4xf32>
// Their mesh and sharding attributes are kept as the Opaque attributes the
// generic form holds (`#sdy.mesh<...>`, `#sdy.sharding<...>`), so both forms
// parse to the same op.
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
