// Cost analysis: flops and bytes accessed of each top-level op of a function,
// by the cost model of kiln/passes/op_summary.h.
#include "kiln/passes/op_summary.h"
#include "kiln/runtime/runtime_impl.h"

namespace kiln::runtime {

CostAnalysis analyzeCost(const Module& module, std::string_view entry) {
  CostAnalysis cost;
  const Operation* fn = module.lookupFunction(entry);
  if (!fn) return cost;
  for (const Operation& op : func::body(*fn)) {
    if (op.name() == "func.return") continue;
    OpCost opc = opCost(op);
    cost.flops += opc.flops;
    cost.bytesAccessed += opc.bytes;
    cost.kernels.push_back({op.name(), op.loc().str(), opc.flops, opc.bytes});
  }
  return cost;
}

}  // namespace kiln::runtime
