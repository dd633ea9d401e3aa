// expand_top_k: chlo.top_k(x, k) as what it means -- the last dimension
// sorted largest first, stably (equal entries keep their order, lower index
// first), together with an iota of positions, then the first k of both:
//
//   %i = stablehlo.iota dim = r-1 : tensor<...xnxi32>
//   %s:2 = stablehlo.sort(%x, %i) {dimension = r-1, is_stable = true}
//            (compare GT of the two keys; TOTALORDER for floats)
//   %values = slice %s#0 [..., 0:k], %indices = slice %s#1 [..., 0:k]
//
// For back ends with a sort kernel and no selection of their own (the cuda
// one); the interpreter's top_k orders floats by the same total order.
// Operands of other element types (complex) are left as they are.
#include <memory>
#include <vector>

#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// Replaces `topK` by the sort and slices; false where the op is not one this rewrites.
bool expandTopK(Operation& topK) {
  if (topK.numOperands() != 1 || topK.numResults() != 2) return false;
  Type xType = topK.operand(0)->type(), valuesType = topK.result(0)->type(), indicesType = topK.result(1)->type();
  if (!xType.isTensor() || !valuesType.isTensor() || !indicesType.isTensor() || xType.rank() == 0 ||
      valuesType.rank() != xType.rank())
    return false;
  Type element = xType.elementType(), index = indicesType.elementType();
  if (!(element.isFloat() || element.isInteger() || element.isBool()) || !index.isInteger()) return false;
  int64_t rank = xType.rank(), k = valuesType.shape().back();
  if (k > xType.shape().back()) return false;
  Location loc = topK.loc();

  Builder b(topK);
  Type positionsType = Type::tensor(xType.shape(), index);
  Value* positions = b.op("stablehlo.iota", {}, AttrDict({{"iota_dimension", Attribute::integer(rank - 1)}}), positionsType);

  OperationState sort("stablehlo.sort", loc);
  sort.operands = {topK.operand(0), positions};
  sort.resultTypes = {xType, positionsType};
  sort.attributes.set("dimension", Attribute::integer(rank - 1));
  sort.attributes.set("is_stable", Attribute::boolean(true));
  Block* body = sort.addRegion()->addBlock();
  Type key = Type::tensor({}, element), position = Type::tensor({}, index);
  Value* lhs = body->addArgument(key);
  Value* rhs = body->addArgument(key);
  body->addArgument(position);
  body->addArgument(position);
  OperationState compare("stablehlo.compare", loc);
  compare.operands = {lhs, rhs};
  compare.resultTypes = {Type::tensor({}, Type::i1())};
  compare.attributes.set("comparison_direction", Attribute::enumAttr("comparison_direction", "GT"));
  if (element.isFloat()) compare.attributes.set("compare_type", Attribute::enumAttr("comparison_type", "TOTALORDER"));
  Operation* greater = body->push_back(Operation::create(std::move(compare)));
  OperationState ret("stablehlo.return", loc);
  ret.operands = {greater->result()};
  body->push_back(Operation::create(std::move(ret)));
  Operation* sorted = insertBefore(&topK, std::move(sort));

  Value* values = b.sliceAlong(sorted->result(0), rank - 1, 0, k);
  Value* indices = b.sliceAlong(sorted->result(1), rank - 1, 0, k);
  std::vector<Value*> replacements = {values, indices};
  topK.replaceWith(replacements);
  return true;
}

class ExpandTopKPass : public Pass {
 public:
  std::string_view name() const override { return "expand_top_k"; }
  Expected<bool> run(Module& module) override {
    std::vector<Operation*> topKs;
    for (Operation* fn : module.functions())
      fn->walk([&](Operation& op) {
        if (op.name() == "chlo.top_k") topKs.push_back(&op);
      });
    bool changed = false;
    for (Operation* op : topKs) changed |= expandTopK(*op);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createExpandTopKPass() { return std::make_unique<ExpandTopKPass>(); }

}  // namespace kiln
