#include "kiln/passes/op_summary.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "kiln/device/device_buffer.h"
#include "kiln/ir/op_registry.h"

namespace kiln {

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

std::string shortOpName(const std::string& name) {
  return name.starts_with("stablehlo.") ? name.substr(std::string_view("stablehlo.").size()) : name;
}

OpCost opCost(const Operation& op) {
  return {opFlops(op), op.name() == "stablehlo.constant" ? 0 : boundaryBytes(op)};
}

std::string sourceLine(const Operation& op) {
  Location loc = op.loc();
  if (!loc.known()) return "";
  return std::filesystem::path(*loc.file).filename().string() + ":" + std::to_string(loc.line);
}

std::string opLabel(const Operation& op) {
  std::string label;
  if (op.name() == "kiln.fusion" && op.numRegions() == 1) {
    Attribute kind = op.attr("kind");
    label = (kind && kind.is(AttrKind::String) ? kind.stringValue() + " " : "") + "fusion [";
    constexpr size_t kShown = 4;
    std::vector<std::string> names;
    bool more = false;
    for (const auto& block : op.region(0).blocks())
      for (const Operation& inner : *block) {
        if (inner.name() == "kiln.yield" || inner.name() == "stablehlo.constant") continue;
        std::string name = shortOpName(inner.name());
        if (std::ranges::find(names, name) != names.end()) continue;
        if (names.size() < kShown) names.push_back(name);
        else more = true;
      }
    for (size_t i = 0; i < names.size(); ++i) label += (i ? ", " : "") + names[i];
    if (more) label += ", ...";
    label += "]";
  } else {
    label = shortOpName(op.name());
  }
  std::string line = sourceLine(op);
  return line.empty() ? label : label + " " + line;
}

}  // namespace kiln
