#include "kiln/pjrt/optimized_program.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/pass_util.h"

namespace kiln::pjrt {
namespace {

// Whether `value` is defined inside `op` (by an op nested in it, or as an
// argument of one of its blocks).
bool definedWithin(const Value* value, const Operation* op) {
  const Operation* owner = value->definingOp() ? value->definingOp() : value->ownerBlock()->parentOp();
  for (; owner; owner = owner->parentOp())
    if (owner == op) return owner != value->definingOp();
  return false;
}

// Values the kernel's body reads from outside it, in the order first read.
std::vector<Value*> capturedValues(Operation& kernel) {
  std::vector<Value*> captured;
  kernel.walk([&](Operation& op) {
    if (&op == &kernel) return;
    for (Value* v : op.operands())
      if (!definedWithin(v, &kernel) && std::find(captured.begin(), captured.end(), v) == captured.end())
        captured.push_back(v);
  });
  return captured;
}

// Replaces `kernel` (a kiln.fusion) with a func.call of a new private
// function `name` in `module` that computes what the kernel's body does.
void outline(Module& module, Operation& kernel, const std::string& name) {
  std::vector<Value*> captured = capturedValues(kernel);
  std::unique_ptr<Operation> fn = outlineFunction(kernel.region(0).front(), captured, name, kernel.loc());
  fn->setAttr("sym_visibility", Attribute::string("private"));
  std::vector<Type> results = kernel.resultTypes();
  module.body().push_back(std::move(fn));

  OperationState call("func.call", kernel.loc());
  call.attributes.set("callee", Attribute::symbolRef({name}));
  call.operands.assign(kernel.operands().begin(), kernel.operands().end());
  call.operands.insert(call.operands.end(), captured.begin(), captured.end());
  call.resultTypes = results;
  Operation* replacement = kernel.parentBlock()->insertBefore(&kernel, Operation::create(std::move(call)));
  kernel.replaceWith(replacement->results());
}

}  // namespace

Expected<std::string> optimizedProgramForJax(std::string_view optimizedModule) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parseModule(optimizedModule, "<optimized>"));
  std::vector<Operation*> kernels;
  for (Operation* fn : module->functions())
    fn->walk([&](Operation& op) {
      if (op.name() == "kiln.fusion") kernels.push_back(&op);
    });
  // kiln runs a composite as a call of its decomposition: so does the
  // program (jaxlib reads back a composite whose results HLO tuples up
  // only as a composite of one result).
  std::vector<Operation*> composites;
  for (Operation* fn : module->functions())
    fn->walk([&](Operation& op) {
      if (op.name() == "stablehlo.composite") composites.push_back(&op);
    });
  for (Operation* composite : composites) {
    OperationState call("func.call", composite->loc());
    call.attributes.set("callee", composite->attr("decomposition"));
    call.operands.assign(composite->operands().begin(), composite->operands().end());
    call.resultTypes = composite->resultTypes();
    Operation* replacement = composite->parentBlock()->insertBefore(composite, Operation::create(std::move(call)));
    composite->replaceWith(replacement->results());
  }
  // Numbered in program order; a kernel's ops are never kernels themselves.
  std::map<std::string, int> countByKind;
  for (Operation* kernel : kernels) {
    Attribute kind = kernel->attr("kind");
    std::string prefix = kind.is(AttrKind::String) ? kind.stringValue() : std::string("kernel");
    outline(*module, *kernel, prefix + "_fusion_" + std::to_string(countByKind[prefix]++));
  }
  return printModule(*module, {.debugInfo = true});
}

Expected<int64_t> temporaryBytes(std::string_view optimizedModule) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, parseModule(optimizedModule, "<optimized>"));
  const Operation* entry = entryFunction(*module);
  if (!entry) return error(ErrorCode::NotFound, "the optimized module has no entry function");
  return assignBuffers(func::body(*entry)).arenaBytes;
}

}  // namespace kiln::pjrt
