// The ops the StableHLO dialect still accepts but the specification leaves
// out or deprecates (openxla/stablehlo issue 3 and the deprecation RFC):
// dot, einsum, unary_einsum, broadcast, create_token, cross-replica-sum,
// torch_index_select and trace. Older exporters (TensorFlow, torch-mlir,
// onnx-mlir) still write them. Each has its type rule here and the trait
// kLegalized: the legalize pass (kiln/passes/legalize.cpp) rewrites it into
// the spec ops that replace it before any back end sees the program, so no
// kernel or lowering exists for any of them.
#include "kiln/ir/ops/deprecated_ops.h"

#include <cctype>
#include <map>

#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {

Expected<EinsumConfig> parseEinsumConfig(std::string_view config, size_t numInputs) {
  EinsumConfig c;
  size_t arrow = config.find("->");
  if (arrow == std::string_view::npos) return error("einsum config '" + std::string(config) + "' has no '->'");
  std::string_view inputs = config.substr(0, arrow);
  c.output = std::string(config.substr(arrow + 2));
  size_t start = 0;
  while (true) {
    size_t comma = inputs.find(',', start);
    c.inputs.emplace_back(inputs.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (c.inputs.size() != numInputs)
    return error("einsum config '" + std::string(config) + "' names " + std::to_string(c.inputs.size()) +
                 " inputs, the op has " + std::to_string(numInputs));
  auto checkLabels = [&](const std::string& labels, bool unique) -> Status {
    for (size_t i = 0; i < labels.size(); ++i) {
      char ch = labels[i];
      if (!std::isalpha(static_cast<unsigned char>(ch)))
        return error("einsum config '" + std::string(config) + "': only letters are supported as labels, got '" +
                     std::string(1, ch) + "' (ellipses are not supported)");
      if (unique && labels.find(ch, i + 1) != std::string::npos)
        return error("einsum config '" + std::string(config) + "': label '" + std::string(1, ch) +
                     "' appears twice in one term (diagonals are not supported)");
    }
    return Status::ok();
  };
  for (const std::string& in : c.inputs) KILN_RETURN_IF_ERROR(checkLabels(in, true));
  KILN_RETURN_IF_ERROR(checkLabels(c.output, true));
  for (char ch : c.output) {
    bool found = false;
    for (const std::string& in : c.inputs) found |= in.find(ch) != std::string::npos;
    if (!found)
      return error("einsum config '" + std::string(config) + "': output label '" + std::string(1, ch) +
                   "' is in no input");
  }
  return c;
}

namespace {
using namespace rules;

// dot: lhs and rhs of rank 1 or 2, lhs's last dimension contracted with
// rhs's first: dot_general with contracting dims {rank(lhs) - 1} x {0}.
RuleResult dotRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kAnyNonQuant));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs", kAnyNonQuant));
  if (lhs.rank() < 1 || lhs.rank() > 2 || rhs.rank() < 1 || rhs.rank() > 2)
    return ctx.error("expects lhs and rhs of rank 1 or 2, got " + lhs.str() + " and " + rhs.str());
  if (lhs.shape().back() != rhs.shape()[0])
    return ctx.error("expects the last dimension of lhs to equal the first of rhs, got " + lhs.str() + " and " +
                     rhs.str());
  Dims shape(lhs.shape().begin(), lhs.shape().end() - 1);
  shape.insert(shape.end(), rhs.shape().begin() + 1, rhs.shape().end());
  Type element = lhs.elementType();
  // A declared element type is the preferred_element_type, as for dot_general.
  if (ctx.hasDeclaredResults && ctx.declaredResults.size() == 1 && ctx.declaredResults[0].isTensor())
    element = ctx.declaredResults[0].elementType();
  return Types{Type::tensor(shape, element)};
}

// einsum / unary_einsum: `config` = "ab,bc->ac"; each input term names its
// operand's dimensions, a label has one size everywhere, the output term
// gives the result's dimensions.
RuleResult einsumRule(const OpTypeContext& ctx) {
  size_t n = ctx.name == "stablehlo.einsum" ? 2 : 1;
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, n));
  Attribute config = ctx.attr("einsum_config");
  if (!config || !config.is(AttrKind::String)) return ctx.error("requires string attribute 'einsum_config'");
  Expected<EinsumConfig> c = parseEinsumConfig(config.stringValue(), n);
  if (!c) return ctx.error(c.status().diag().message);
  std::map<char, int64_t> sizes;
  Type element;
  for (size_t i = 0; i < n; ++i) {
    KILN_ASSIGN_OR_RETURN(Type t, tensorOperand(ctx, i, i ? "rhs" : "lhs", kNumeric | kBool));
    if (!element) element = t.elementType();
    if (t.elementType() != element)
      return ctx.error("expects operands of one element type, got " + typeListStr(ctx.operandTypes));
    const std::string& labels = c->inputs[i];
    if (static_cast<int64_t>(labels.size()) != t.rank())
      return ctx.error("expects term '" + labels + "' to name the " + str(t.rank()) + " dimensions of " + t.str());
    for (size_t d = 0; d < labels.size(); ++d) {
      auto [it, inserted] = sizes.emplace(labels[d], t.shape()[d]);
      if (!inserted && it->second != t.shape()[d])
        return ctx.error("expects label '" + std::string(1, labels[d]) + "' to have one size, got " +
                         str(it->second) + " and " + str(t.shape()[d]));
    }
  }
  Dims shape;
  for (char ch : c->output) shape.push_back(sizes.at(ch));
  if (ctx.hasDeclaredResults && ctx.declaredResults.size() == 1 && ctx.declaredResults[0].isTensor())
    element = ctx.declaredResults[0].elementType();
  return Types{Type::tensor(shape, element)};
}

// broadcast: result = broadcast_sizes ++ shape(operand).
RuleResult broadcastRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Dims sizes, intListAttr(ctx, "broadcast_sizes"));
  for (int64_t s : sizes)
    if (s < 0) return ctx.error("expects non-negative broadcast_sizes, got " + dimsStr(sizes));
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(concat(sizes, operand.shape()), operand.elementType())});
}

RuleResult createTokenRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 0));
  return Types{Type::token()};
}

// cross-replica-sum: all_reduce with an add over `replica_groups`.
RuleResult crossReplicaSumRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kNumeric));
  KILN_ASSIGN_OR_RETURN(std::optional<DenseInts> groups, denseIntsAttr(ctx, "replica_groups"));
  if (!groups || groups->shape.size() != 2)
    return ctx.error("requires a 2-dimensional integer tensor attribute 'replica_groups'");
  return Types{operand};
}

// torch_index_select(operand, index): along `dim` of operand, the entries at
// `index`; the first `batch_dims` dimensions are shared by both. Result shape:
// operand[:dim] ++ index[batch_dims:] ++ operand[dim + 1:].
RuleResult torchIndexSelectRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Type index, tensorOperand(ctx, 1, "index", kInt));
  KILN_ASSIGN_OR_RETURN(int64_t dim, intAttr(ctx, "dim"));
  KILN_ASSIGN_OR_RETURN(int64_t batchDims, intAttr(ctx, "batch_dims"));
  if (dim < 0 || dim >= operand.rank())
    return ctx.error("expects dim in [0, " + str(operand.rank()) + "), got " + str(dim));
  if (batchDims < 0 || batchDims > dim || batchDims > index.rank())
    return ctx.error("expects batch_dims in [0, min(dim, rank(index))], got " + str(batchDims));
  for (int64_t d = 0; d < batchDims; ++d)
    if (operand.shape()[d] != index.shape()[d])
      return ctx.error("expects the batch dimensions of operand and index to agree, got " + operand.str() +
                       " and " + index.str());
  Dims shape(operand.shape().begin(), operand.shape().begin() + dim);
  shape.insert(shape.end(), index.shape().begin() + batchDims, index.shape().end());
  shape.insert(shape.end(), operand.shape().begin() + dim + 1, operand.shape().end());
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(shape, operand.elementType())});
}

// trace(operand, tag): no results; XLA-private, dropped by the legalize pass.
RuleResult traceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  (void)operand;
  Attribute tag = ctx.attr("tag");
  if (!tag || !tag.is(AttrKind::String)) return ctx.error("requires string attribute 'tag'");
  return Types{};
}

}  // namespace

void registerDeprecatedOps(std::vector<OpDef>& defs) {
  constexpr uint32_t kGone = kPure | kLegalized;
  defs.push_back({"stablehlo.dot", kGone, dotRule, {"precision_config"},
                  "Matrix/vector product (deprecated: dot_general).", PrettyForm::kCustom});
  defs.push_back({"stablehlo.einsum", kGone, einsumRule, {"einsum_config"},
                  "Einstein summation of two operands (deprecated: dot_general, transpose, reduce).",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.unary_einsum", kGone, einsumRule, {"einsum_config"},
                  "Einstein summation of one operand (deprecated: transpose, reduce).", PrettyForm::kCustom});
  defs.push_back({"stablehlo.broadcast", kGone, broadcastRule, {"broadcast_sizes"},
                  "Prepends dimensions (deprecated: broadcast_in_dim).", PrettyForm::kCustom});
  defs.push_back({"stablehlo.create_token", kGone, createTokenRule, {}, "A token (deprecated: after_all).",
                  PrettyForm::kNullary});
  defs.push_back({"stablehlo.cross-replica-sum", kGone, crossReplicaSumRule, {"replica_groups"},
                  "Sum across replicas (deprecated: all_reduce).", PrettyForm::kGenericOnly});
  defs.push_back({"stablehlo.torch_index_select", kGone, torchIndexSelectRule, {"dim", "batch_dims"},
                  "PyTorch's index_select with batch dimensions (deprecated: gather).", PrettyForm::kGenericOnly});
  defs.push_back({"stablehlo.trace", kLegalized | kHasSideEffect, traceRule, {"tag"},
                  "XLA-private tracing (deprecated: removed).", PrettyForm::kGenericOnly});
}

}  // namespace kiln
