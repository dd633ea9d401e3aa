// Kernels of the ops that structure a program rather than compute: calls,
// loops and branches, tuples, tokens and constants.
#include "kiln/interp/interpreter_impl.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;

// The single symbol of a flat reference (`@f`), or an error at the op.
Expected<std::string> symbolAttr(OpEval& e, std::string_view attrName) {
  Attribute a = e.op.attr(attrName);
  if (!a.is(AttrKind::SymbolRef) || a.symbolPath().size() != 1)
    return e.error("needs a flat symbol reference `" + std::string(attrName) + "`");
  return a.symbolPath()[0];
}

Results constant(OpEval& e) {
  Attribute value = e.op.attr("value");
  if (!value.is(AttrKind::DenseElements)) return e.error("needs a dense `value` attribute");
  Tensor t = Tensor::fromDense(value);
  // A quantized constant's literal is written in its storage type.
  Type resultType = e.op.result(0)->type();
  if (t.type() == resultType) return std::vector<Tensor>{t};
  if (resultType.numElements() != t.numElements() || !resultType.elementType().isQuantized())
    return e.error("literal of type " + t.type().str() + " does not fit result type " +
                   resultType.str());
  std::vector<uint8_t> bytes(t.bytes(), t.bytes() + t.byteSize());
  return std::vector<Tensor>{Tensor(resultType, std::move(bytes))};
}

Results call(OpEval& e) {
  KILN_ASSIGN_OR_RETURN(std::string callee, symbolAttr(e, "callee"));
  return e.interp.callFunction(callee, e.operands, e.op.loc());
}

// A composite op means exactly what its decomposition function computes.
Results composite(OpEval& e) {
  KILN_ASSIGN_OR_RETURN(std::string callee, symbolAttr(e, "decomposition"));
  return e.interp.callFunction(callee, e.operands, e.op.loc());
}

Results whileLoop(OpEval& e) {
  std::vector<Tensor> state = e.operands;
  while (true) {
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> cond, e.runRegion(0, state));
    if (cond.size() != 1 || !cond[0].elementType().isBool() || cond[0].numElements() != 1)
      return e.error("condition must return one tensor<i1>");
    if (!cond[0].getBool(0)) return state;
    KILN_ASSIGN_OR_RETURN(state, e.runRegion(1, std::move(state)));
  }
}

Results ifThenElse(OpEval& e) { return e.runRegion(e.operands[0].getBool(0) ? 0 : 1, {}); }

// An out-of-range index selects the last branch (the spec's default).
Results switchCase(OpEval& e) {
  int64_t index = e.operands[0].getInt(0);
  int64_t numBranches = e.op.numRegions();
  if (numBranches == 0) return e.error("has no branches");
  if (index < 0 || index >= numBranches) index = numBranches - 1;
  return e.runRegion(unsigned(index), {});
}

Results identity(OpEval& e) { return e.operands; }

Results tuple(OpEval& e) { return std::vector<Tensor>{Tensor::tuple(e.operands)}; }

Results getTupleElement(OpEval& e) {
  Attribute index = e.op.attr("index");
  std::span<const Tensor> elements = e.operands[0].tupleElements();
  if (!index.is(AttrKind::Integer) || index.intValue() < 0 ||
      index.intValue() >= int64_t(elements.size()))
    return e.error("index out of range of the tuple");
  return std::vector<Tensor>{elements[index.intValue()]};
}

Results token(OpEval&) { return std::vector<Tensor>{Tensor(Type::token())}; }

}  // namespace

void registerControlFlowKernels(KernelTable& t) {
  t["stablehlo.constant"] = constant;
  t["func.call"] = call;
  t["stablehlo.composite"] = composite;
  t["stablehlo.while"] = whileLoop;
  t["stablehlo.if"] = ifThenElse;
  t["stablehlo.case"] = switchCase;
  t["stablehlo.optimization_barrier"] = identity;
  t["stablehlo.tuple"] = tuple;
  t["stablehlo.get_tuple_element"] = getTupleElement;
  t["stablehlo.after_all"] = token;
  t["stablehlo.create_token"] = token;
}

}  // namespace kiln::interp
