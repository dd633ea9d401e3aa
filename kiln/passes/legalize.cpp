// legalize: rewrites the ops the StableHLO dialect still accepts but the
// specification deprecates or leaves out (those with the kLegalized trait,
// kiln/ir/ops/deprecated_ops.cpp), and chlo.tan, into the spec ops that
// replace them. Every back end runs it first, the interpreter included, so
// none of these ops has a kernel or a lowering of its own.
//
//   dot(lhs, rhs)                 -> dot_general contracting {rank(lhs)-1} x {0}
//   einsum / unary_einsum         -> reduce (add) of labels only one input has,
//                                    dot_general, transpose into the output order
//   broadcast(x, sizes)           -> broadcast_in_dim into sizes ++ shape(x)
//   create_token                  -> after_all()
//   cross-replica-sum(x, groups)  -> all_reduce(x) with an add, same groups
//   torch_index_select(x, i)      -> gather (batch dims as batching dims)
//   trace                         -> removed
//   chlo.tan                      -> stablehlo.tan
#include <algorithm>
#include <functional>
#include <map>

#include "kiln/ir/op_registry.h"
#include "kiln/ir/ops/deprecated_ops.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass.h"

namespace kiln {
namespace {

using Dims = std::vector<int64_t>;

Attribute dotDims(Dims lb, Dims rb, Dims lc, Dims rc) {
  return Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArrayAttribute(lb)},
                                       {"rhs_batching_dimensions", intArrayAttribute(rb)},
                                       {"lhs_contracting_dimensions", intArrayAttribute(lc)},
                                       {"rhs_contracting_dimensions", intArrayAttribute(rc)}});
}

Value* transposed(Builder& b, Value* v, const Dims& permutation) {
  bool identity = true;
  for (size_t d = 0; d < permutation.size(); ++d) identity &= permutation[d] == int64_t(d);
  if (identity) return v;
  return b.op("stablehlo.transpose", {v}, AttrDict({{"permutation", Attribute::denseI64Array(permutation)}}));
}

// Sums `v` over the dimensions whose labels `keep` rejects; `labels` names
// v's dimensions and is updated to the labels left.
Value* sumOutLabels(Builder& b, Value* v, std::string& labels, const std::function<bool(char)>& keep) {
  Dims dims;
  std::string left;
  for (size_t d = 0; d < labels.size(); ++d) {
    if (keep(labels[d]))
      left += labels[d];
    else
      dims.push_back(int64_t(d));
  }
  labels = left;
  return dims.empty() ? v : b.sum(v, dims);
}

Value* legalizeEinsum(Operation& op) {
  Builder b(op);
  size_t n = op.numOperands();
  Expected<EinsumConfig> config = parseEinsumConfig(op.attr("einsum_config").stringValue(), n);
  if (!config) return nullptr;  // the verifier reports it
  const std::string& out = config->output;
  Type result = op.result()->type();
  auto inOutput = [&](char c) { return out.find(c) != std::string::npos; };
  if (n == 1) {
    std::string labels = config->inputs[0];
    Value* v = sumOutLabels(b, op.operand(0), labels, inOutput);
    Dims order;
    for (char c : out) order.push_back(int64_t(labels.find(c)));
    v = transposed(b, v, order);
    return v->type() == result ? v : b.convert(v, result.elementType());
  }
  std::string l = config->inputs[0], r = config->inputs[1];
  // A label of one input that the output lacks is summed out of that input first.
  Value* lhs = sumOutLabels(b, op.operand(0), l, [&](char c) { return inOutput(c) || r.find(c) != std::string::npos; });
  Value* rhs = sumOutLabels(b, op.operand(1), r, [&](char c) { return inOutput(c) || l.find(c) != std::string::npos; });
  Dims lb, rb, lc, rc;
  std::string dotLabels;
  for (char c : out) {
    size_t li = l.find(c), ri = r.find(c);
    if (li != std::string::npos && ri != std::string::npos) {
      lb.push_back(int64_t(li)), rb.push_back(int64_t(ri)), dotLabels += c;
    }
  }
  for (size_t i = 0; i < l.size(); ++i) {
    size_t ri = r.find(l[i]);
    if (ri != std::string::npos && !inOutput(l[i])) lc.push_back(int64_t(i)), rc.push_back(int64_t(ri));
  }
  Dims shape;
  for (char c : dotLabels) shape.push_back(lhs->type().shape()[l.find(c)]);
  for (size_t i = 0; i < l.size(); ++i)
    if (r.find(l[i]) == std::string::npos) dotLabels += l[i], shape.push_back(lhs->type().shape()[i]);
  for (size_t i = 0; i < r.size(); ++i)
    if (l.find(r[i]) == std::string::npos) dotLabels += r[i], shape.push_back(rhs->type().shape()[i]);
  Value* dot = b.op("stablehlo.dot_general", {lhs, rhs}, AttrDict({{"dot_dimension_numbers", dotDims(lb, rb, lc, rc)}}),
                    Type::tensor(shape, result.elementType()));
  Dims order;
  for (char c : out) order.push_back(int64_t(dotLabels.find(c)));
  return transposed(b, dot, order);
}

// torch_index_select(operand, index, dim, batch_dims) as a gather of one
// index per position of `index` (index_vector_dim = rank(index)): the
// batch dims are batching dims of both, `dim` is collapsed, and the result
// is operand[:dim] ++ index[batch_dims:] ++ operand[dim + 1:].
Value* legalizeTorchIndexSelect(Operation& op) {
  Builder b(op);
  Value* operand = op.operand(0);
  Value* index = op.operand(1);
  int64_t dim = op.attr("dim").intValue(), batch = op.attr("batch_dims").intValue();
  int64_t rank = operand->type().rank(), indexRank = index->type().rank();
  int64_t resultRank = op.result()->type().rank();
  Dims offsetDims, batching, sliceSizes(operand->type().shape().begin(), operand->type().shape().end());
  for (int64_t d = 0; d < batch; ++d) batching.push_back(d), sliceSizes[d] = 1;
  sliceSizes[dim] = 1;
  for (int64_t d = batch; d < dim; ++d) offsetDims.push_back(d);
  for (int64_t d = dim + indexRank - batch; d < resultRank; ++d) offsetDims.push_back(d);
  (void)rank;
  Attribute dn = Attribute::structAttr("gather", {{"offset_dims", intArrayAttribute(offsetDims)},
                                                  {"collapsed_slice_dims", intArrayAttribute(Dims{dim})},
                                                  {"operand_batching_dims", intArrayAttribute(batching)},
                                                  {"start_indices_batching_dims", intArrayAttribute(batching)},
                                                  {"start_index_map", intArrayAttribute(Dims{dim})},
                                                  {"index_vector_dim", Attribute::integer(indexRank)}});
  return b.op("stablehlo.gather", {operand, index},
              AttrDict({{"dimension_numbers", dn}, {"slice_sizes", Attribute::denseI64Array(sliceSizes)}}),
              op.result()->type());
}

Value* legalizeCrossReplicaSum(Operation& op) {
  Type scalar = Type::tensor({}, op.operand(0)->type().elementType());
  OperationState st("stablehlo.all_reduce", op.loc());
  st.operands = {op.operand(0)};
  st.attributes.set("replica_groups", op.attr("replica_groups"));
  addSumRegion(st, scalar, op.loc());
  st.resultTypes = {op.result()->type()};
  return insertBefore(&op, std::move(st))->result();
}

// The replacement of `op`'s single result, or null to leave it.
Value* replacement(Operation& op) {
  std::string_view name = op.name();
  Builder b(op);
  Type result = op.numResults() == 1 ? op.result()->type() : Type();
  if (name == "chlo.tan") return b.op("stablehlo.tan", {op.operand(0)}, {}, result);
  if (name == "stablehlo.dot") {
    int64_t lhsRank = op.operand(0)->type().rank();
    AttrDict attrs({{"dot_dimension_numbers", dotDims({}, {}, {lhsRank - 1}, {0})}});
    if (Attribute p = op.attr("precision_config")) attrs.set("precision_config", p);
    return b.op("stablehlo.dot_general", {op.operand(0), op.operand(1)}, std::move(attrs), result);
  }
  if (name == "stablehlo.einsum" || name == "stablehlo.unary_einsum") return legalizeEinsum(op);
  if (name == "stablehlo.broadcast") {
    int64_t added = int64_t(op.attr("broadcast_sizes").denseArrayInts().size());
    Dims dims;
    for (int64_t d = 0; d < op.operand(0)->type().rank(); ++d) dims.push_back(added + d);
    return b.broadcast(op.operand(0), result, dims);
  }
  if (name == "stablehlo.create_token") return b.op("stablehlo.after_all", {}, {}, Type::token());
  if (name == "stablehlo.cross-replica-sum") return legalizeCrossReplicaSum(op);
  if (name == "stablehlo.torch_index_select") return legalizeTorchIndexSelect(op);
  return nullptr;
}

class LegalizePass final : public Pass {
 public:
  std::string_view name() const override { return "legalize"; }
  Expected<bool> run(Module& module) override {
    std::vector<Operation*> ops;
    module.op().walk([&](Operation& op) {
      if (op.def() && op.def()->has(kLegalized)) ops.push_back(&op);
    });
    for (Operation* op : ops) {
      if (op->name() == "stablehlo.trace") {
        op->erase();
        continue;
      }
      Value* v = replacement(*op);
      if (!v)
        return error(op->loc(), "'" + op->name() + "' op could not be rewritten into its replacement by legalize");
      op->replaceWith(std::vector<Value*>{v});
    }
    return !ops.empty();
  }
};

}  // namespace

std::unique_ptr<Pass> createLegalizePass() { return std::make_unique<LegalizePass>(); }

}  // namespace kiln
