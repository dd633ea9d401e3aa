// builtin.module and the func dialect ops.
#include "kiln/ir/op_registry.h"

namespace kiln {
namespace {

Expected<std::vector<Type>> funcCallRule(const OpTypeContext& ctx) {
  if (!ctx.attr("callee") || !ctx.attr("callee").is(AttrKind::SymbolRef))
    return ctx.error("requires a 'callee' symbol reference");
  // The callee's signature is checked by the verifier, which sees the module.
  return std::vector<Type>(ctx.declaredResults.begin(), ctx.declaredResults.end());
}

Expected<std::vector<Type>> funcFuncRule(const OpTypeContext& ctx) {
  Attribute ft = ctx.attr("function_type");
  if (!ft || !ft.is(AttrKind::Type) || !ft.valueType().isFunction())
    return ctx.error("requires a 'function_type' attribute of function type");
  if (!ctx.attr("sym_name") || !ctx.attr("sym_name").is(AttrKind::String))
    return ctx.error("requires a 'sym_name' string attribute");
  if (ctx.regions.size() != 1) return ctx.error("requires one region");
  return std::vector<Type>{};
}

}  // namespace

void registerBuiltinOps(std::vector<OpDef>& defs) {
  defs.push_back({"builtin.module", kIsolatedFromAbove, nullptr, {"sym_name", "sym_visibility"},
                  "A module: a list of functions.", PrettyForm::kCustom});
  defs.push_back({"func.func", kIsolatedFromAbove, funcFuncRule,
                  {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"}, "A function.",
                  PrettyForm::kCustom});
  defs.push_back({"func.return", kTerminator | kReturnLike | kPure, nullptr, {}, "Returns values from a function.",
                  PrettyForm::kCustom});
  defs.push_back({"func.call", kHasSideEffect, funcCallRule, {"callee"}, "Calls a function.", PrettyForm::kCustom});
}

}  // namespace kiln
