// Cost analysis: flops and bytes accessed of each top-level op of a function.
//
// The model is XLA's: a dot or convolution costs 2 flops per multiply-add,
// an elementwise op one flop per result element, a reduction one flop per
// input element and body op; ops that only move data cost none. Bytes
// accessed are those of a top-level op's operands and results: values inside
// a kiln.fusion never reach memory, so a fusion costs the flops of its body
// and the bytes of its boundary. Loops count their body once (the trip count
// is not known statically).
#include "kiln/ir/op_registry.h"
#include "kiln/runtime/runtime_impl.h"

namespace kiln::runtime {

namespace {

double elements(Type type) { return type.isTensor() ? static_cast<double>(type.numElements()) : 0; }

std::vector<int64_t> intList(const Attribute& structAttr, std::string_view field) {
  Attribute a = structAttr ? structAttr.get(field) : Attribute();
  std::optional<std::vector<int64_t>> list = a ? a.asIntList() : std::nullopt;
  return list ? *list : std::vector<int64_t>{};
}

double regionFlops(const Region& region);

double opFlops(const Operation& op) {
  const std::string& name = op.name();
  if (name == "stablehlo.dot_general" || name == "stablehlo.dot") {
    Type lhs = op.operand(0)->type();
    std::vector<int64_t> contracting =
        name == "stablehlo.dot" ? std::vector<int64_t>{lhs.rank() - 1}
                                : intList(op.attr("dot_dimension_numbers"), "lhs_contracting_dimensions");
    double k = 1;
    for (int64_t d : contracting)
      if (d >= 0 && d < lhs.rank()) k *= static_cast<double>(lhs.shape()[d]);
    return 2 * elements(op.result()->type()) * k;
  }
  if (name == "stablehlo.convolution") {
    // Each output element sums over one output feature's slice of the kernel.
    Type kernel = op.operand(1)->type();
    Attribute dn = op.attr("dimension_numbers");
    Attribute outFeature = dn ? dn.get("kernel_output_feature_dimension") : Attribute();
    int64_t d = outFeature && outFeature.is(AttrKind::Integer) ? outFeature.intValue() : kernel.rank() - 1;
    double perOutput = elements(kernel);
    if (d >= 0 && d < kernel.rank() && kernel.shape()[d] > 0) perOutput /= static_cast<double>(kernel.shape()[d]);
    return 2 * elements(op.result()->type()) * perOutput;
  }
  if (name == "stablehlo.reduce" || name == "stablehlo.reduce_window" || name == "stablehlo.select_and_scatter" ||
      name == "stablehlo.scatter") {
    // Each input element goes through the body once.
    double perElement = 0;
    for (const auto& region : op.regions()) perElement += regionFlops(*region);
    return elements(op.operand(0)->type()) * std::max(1.0, perElement);
  }
  if (op.def() && op.def()->has(kElementwise) && op.numResults() > 0) return elements(op.result()->type());
  // Fusions, control flow and calls: what their regions do.
  double flops = 0;
  for (const auto& region : op.regions()) flops += regionFlops(*region);
  return flops;
}

double regionFlops(const Region& region) {
  double flops = 0;
  for (const auto& block : region.blocks())
    for (const Operation& op : *block) flops += opFlops(op);
  return flops;
}

double boundaryBytes(const Operation& op) {
  double bytes = 0;
  for (Value* v : op.operands()) bytes += static_cast<double>(device::denseBytes(v->type()));
  for (Value* v : op.results()) bytes += static_cast<double>(device::denseBytes(v->type()));
  return bytes;
}

}  // namespace

CostAnalysis analyzeCost(const Module& module, std::string_view entry) {
  CostAnalysis cost;
  const Operation* fn = module.lookupFunction(entry);
  if (!fn) return cost;
  for (const Operation& op : func::body(*fn)) {
    if (op.name() == "func.return") continue;
    KernelCost kernel;
    kernel.name = op.name();
    kernel.location = op.loc().str();
    kernel.flops = opFlops(op);
    kernel.bytesAccessed = op.name() == "stablehlo.constant" ? 0 : boundaryBytes(op);
    cost.flops += kernel.flops;
    cost.bytesAccessed += kernel.bytesAccessed;
    cost.kernels.push_back(std::move(kernel));
  }
  return cost;
}

}  // namespace kiln::runtime
