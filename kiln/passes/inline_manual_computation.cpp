// inline_manual_computation: turns a public function whose work is one
// fully manual sdy.manual_computation (what shard_map over every mesh axis
// and pmap lower to) into the per-device program itself: the function takes
// and returns each device's shards, and the body, collectives and all, is
// inlined in its place.
//
//   func @main(%x: tensor<8xf32>) -> tensor<8xf32> {       func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
//     %r = sdy.manual_computation(%x) ... manual_axes={"i"}  =>  ...body, on %x...
//          (%local: tensor<4xf32>) { ... sdy.return %y }        return %y
//     return %r
//
// The runtime then runs one instance per device (mhlo.num_partitions of
// them), each on its own shards, which is how PJRT hands them over. Only the
// whole-function form is lowered: operands straight from parameters used
// nowhere else, results straight to the return, and every axis of the mesh
// manual. Anything else stays, and a back end reports the op unsupported;
// partially manual computations need the SPMD partitioner.
#include <string>

#include "kiln/ir/sharding.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// The number of axes of the mesh the module declares (its only sdy.mesh), or -1.
int meshAxes(const Module& module) {
  std::vector<std::pair<std::string, sharding::Mesh>> meshes = sharding::meshesOf(module);
  return meshes.size() == 1 ? static_cast<int>(meshes.front().second.axes.size()) : -1;
}

bool isWholeFunction(const Operation& manual, const Operation& fn, int axes) {
  Attribute manualAxes = manual.attr("manual_axes");
  if (!manualAxes || !manualAxes.is(AttrKind::Opaque) || axes < 1) return false;
  Expected<std::vector<std::string>> names = sharding::parseManualAxes(manualAxes.stringValue());
  if (!names || static_cast<int>(names->size()) != axes) return false;
  if (manual.parentBlock() != &func::body(fn) || manual.region(0).numBlocks() != 1) return false;
  for (Value* operand : manual.operands())
    if (!operand->isBlockArgument() || operand->ownerBlock() != &func::body(fn) || !operand->hasOneUse()) return false;
  for (Value* result : manual.results())
    for (const Use& use : result->uses())
      if (use.user->name() != "func.return") return false;
  return true;
}

void inlineManual(Operation* manual, Operation& fn) {
  Block& body = manual->region(0).front();
  for (unsigned i = 0; i < body.numArguments(); ++i)
    manual->operand(i)->setType(body.argument(i)->type());  // the parameter now holds the device's shard
  std::vector<Value*> operands(manual->operands().begin(), manual->operands().end());
  manual->replaceWith(cloneBodyBefore(manual, body, operands));
  Block& fnBody = func::body(fn);
  std::vector<Type> inputs, results;
  for (unsigned i = 0; i < fnBody.numArguments(); ++i) inputs.push_back(fnBody.argument(i)->type());
  for (Value* v : fnBody.terminator()->operands()) results.push_back(v->type());
  fn.setAttr("function_type", Attribute::type(Type::function(inputs, results)));
}

class InlineManualComputationPass : public Pass {
 public:
  std::string_view name() const override { return "inline_manual_computation"; }
  Expected<bool> run(Module& module) override {
    int axes = meshAxes(module);
    bool changed = false;
    for (Operation* fn : module.definedFunctions()) {
      if (!func::isPublic(*fn)) continue;
      std::vector<Operation*> manuals;
      for (Operation& op : func::body(*fn))
        if (op.name() == "sdy.manual_computation") manuals.push_back(&op);
      if (manuals.size() != 1 || !isWholeFunction(*manuals.front(), *fn, axes)) continue;
      inlineManual(manuals.front(), *fn);
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createInlineManualComputationPass() { return std::make_unique<InlineManualComputationPass>(); }

}  // namespace kiln
