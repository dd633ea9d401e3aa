// kiln.fusion: runs the fused body on the fusion's operands, op by op, with
// the same kernels as unfused code, so fusion cannot change any result.
#include <unordered_map>

#include "kiln/interp/interpreter_impl.h"

namespace kiln::interp {
namespace {

Expected<std::vector<Tensor>> evalFusion(OpEval& eval) {
  if (eval.op.numRegions() != 1 || eval.op.region(0).numBlocks() != 1) return eval.error("needs one body block");
  const Block& body = eval.op.region(0).front();
  if (body.numArguments() != eval.operands.size()) return eval.error("operand count differs from the body's");
  std::unordered_map<const Value*, Tensor> values;
  for (unsigned i = 0; i < body.numArguments(); ++i) values[body.argument(i)] = eval.operands[i];
  auto valueOf = [&](const Value* v) -> const Tensor* {
    auto it = values.find(v);
    return it == values.end() ? nullptr : &it->second;
  };
  const KernelTable& kernels = allKernels();
  for (const Operation& op : body) {
    if (op.name() == "kiln.yield") {
      std::vector<Tensor> results;
      for (const Value* v : op.operands()) {
        const Tensor* t = valueOf(v);
        if (!t) return eval.error("yields a value its body does not define");
        results.push_back(*t);
      }
      return results;
    }
    auto kernel = kernels.find(op.name());
    if (kernel == kernels.end()) return eval.error("body op '" + op.name() + "' is not supported by the interpreter");
    OpEval inner{op, {}, eval.interp};
    for (const Value* v : op.operands()) {
      const Tensor* t = valueOf(v);
      if (!t) return inner.error("uses a value not defined in its fusion body (a kiln.fusion is isolated)");
      inner.operands.push_back(*t);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> results, kernel->second(inner));
    for (unsigned i = 0; i < op.numResults() && i < results.size(); ++i) values[op.result(i)] = std::move(results[i]);
  }
  return eval.error("body does not end with kiln.yield");
}

}  // namespace

void registerFusionKernels(KernelTable& t) { t["kiln.fusion"] = evalFusion; }

}  // namespace kiln::interp
