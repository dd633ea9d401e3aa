// Constant folding: an op whose operands are all constants is evaluated once,
// at compile time, by the reference interpreter (the same oracle every back
// end is checked against, so folding cannot change results), and replaced by
// `stablehlo.constant` ops holding its results.
//
// Caps keep folding from blowing up the module or the compile time: an op is
// folded only when its inputs and results are small (kMaxFoldElements), and a
// result that is much bigger than the op's inputs (a broadcast or iota to a
// large shape: cheap to compute at run time, costly to store) must fold to a
// splat (which also keeps rng_bit_generator's random bits out of the module).
// Ops with side effects (rng included), control flow (while, if, case: not
// pure, and a loop's cost is unbounded), ops reading the replica or partition
// id and ops whose regions read values from outside are left alone.
#include "kiln/interp/evaluate_op.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// Most elements an op may read, and produce, to be folded.
constexpr int64_t kMaxFoldElements = int64_t{1} << 16;
// A non-splat result may hold at most this many times the elements of the
// op's inputs, or kSmallResultElements, whichever is more.
constexpr int64_t kMaxGrowthFactor = 4;
constexpr int64_t kSmallResultElements = 256;

bool isConstant(const Value* v) {
  return v->definingOp() && v->definingOp()->name() == "stablehlo.constant";
}

// True if every value used in `op`'s regions is defined inside `op`.
bool regionsAreSelfContained(Operation& op) {
  bool selfContained = true;
  op.walk([&](Operation& inner) {
    if (&inner == &op) return;
    for (Value* v : inner.operands()) {
      const Operation* owner = v->definingOp() ? v->definingOp() : v->ownerBlock()->parentOp();
      while (owner && owner != &op) owner = owner->parentOp();
      if (!owner) selfContained = false;
    }
  });
  return selfContained;
}

bool isFoldCandidate(Operation& op) {
  if (op.name() == "stablehlo.constant") return false;
  if (!interp::dependsOnlyOnOperands(op) || op.numResults() == 0) return false;
  for (Value* v : op.operands())
    if (!isConstant(v)) return false;
  // Tokens have no literal; MLIR has no dense literal of quantized type.
  for (Value* r : op.results())
    if (!r->type().isTensor() || r->type().elementType().isQuantized() || r->type().numElements() < 0)
      return false;  // a `?` dimension has no literal (refine_shapes makes it static first)
  return op.numRegions() == 0 || regionsAreSelfContained(op);
}

int64_t elementsOf(std::span<Value* const> values) {
  int64_t n = 0;
  for (const Value* v : values) n += v->type().isTensor() ? v->type().numElements() : 0;
  return n;
}

// Evaluates `op` and replaces it by constants; false when it cannot or should
// not be folded (an evaluation error is left for run time to report).
bool tryFold(Operation& op) {
  if (!isFoldCandidate(op)) return false;
  int64_t inputElements = elementsOf(op.operands());
  int64_t resultElements = elementsOf(op.results());
  if (inputElements > kMaxFoldElements || resultElements > kMaxFoldElements) return false;
  std::vector<interp::Tensor> operands;
  for (Value* v : op.operands()) operands.push_back(interp::Tensor::fromDense(v->definingOp()->attr("value")));
  auto results = interp::evaluateOp(op, std::move(operands));
  if (!results) return false;
  std::vector<Attribute> literals;
  int64_t storedElements = 0;
  for (const interp::Tensor& t : *results) {
    literals.push_back(t.toDense());
    storedElements += literals.back().denseIsSplat() ? 1 : t.numElements();
  }
  if (storedElements > std::max(kSmallResultElements, kMaxGrowthFactor * inputElements)) return false;
  std::vector<Value*> replacements;
  for (size_t i = 0; i < literals.size(); ++i) {
    OperationState st("stablehlo.constant", op.loc());
    st.attributes.set("value", literals[i]);
    st.resultTypes = {op.result(i)->type()};
    replacements.push_back(insertBefore(&op, std::move(st))->result());
  }
  op.replaceWith(replacements);
  return true;
}

// Folds in program order, so a chain of foldable ops folds in one sweep.
bool foldBlock(Block& block) {
  bool changed = false;
  for (Operation* op : block.ops()) {
    if (tryFold(*op)) {
      changed = true;
      continue;
    }
    for (auto& region : op->regions())
      for (auto& nested : region->blocks()) changed |= foldBlock(*nested);
  }
  return changed;
}

class ConstantFoldPass : public FunctionPass {
 public:
  std::string_view name() const override { return "constant_fold"; }

 private:
  bool runOnBody(Block& body) override {
    bool changed = foldBlock(body);
    changed |= eraseDeadOps(body);
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createConstantFoldPass() { return std::make_unique<ConstantFoldPass>(); }

}  // namespace kiln
