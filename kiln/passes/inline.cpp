// Inlines every func.call whose callee is a function of the module, then
// drops private functions nobody calls any more. JAX wraps helpers such as
// relu, softmax and loop bodies in private functions; inlining them first
// lets every later pass see (and fuse across) the whole program.
#include <map>
#include <set>

#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// Deep enough for any real call chain; a cycle stops here with an error.
constexpr int kMaxInlineRounds = 64;

// Replaces `call` by a copy of `callee`'s body.
void inlineCall(Operation* call, const Operation& callee) {
  call->replaceWith(cloneBodyBefore(call, func::body(callee), call->operands()));
}

std::vector<Operation*> collectCalls(Module& module) {
  std::vector<Operation*> calls;
  for (Operation* fn : module.functions())
    fn->walk([&](Operation& op) {
      if (op.name() == "func.call") calls.push_back(&op);
    });
  return calls;
}

class InlinePass : public Pass {
 public:
  std::string_view name() const override { return "inline"; }
  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (int round = 0;; ++round) {
      std::vector<Operation*> calls = collectCalls(module);
      if (calls.empty()) break;
      if (round == kMaxInlineRounds)
        return error(calls.front()->loc(), "call chain deeper than " + std::to_string(kMaxInlineRounds) +
                                                " (recursive functions cannot be inlined)");
      bool inlinedAny = false;
      for (Operation* call : calls) {
        Attribute callee = call->attr("callee");
        if (!callee || callee.symbolPath().size() != 1) continue;
        Operation* fn = module.lookupFunction(callee.symbolPath()[0]);
        if (!fn || fn->region(0).numBlocks() != 1) continue;
        inlineCall(call, *fn);
        inlinedAny = true;
      }
      if (!inlinedAny) break;
      changed = true;
    }
    changed |= eraseUncalledPrivateFunctions(module);
    return changed;
  }

 private:
  static bool eraseUncalledPrivateFunctions(Module& module) {
    std::set<std::string> called;
    for (Operation* call : collectCalls(module)) {
      Attribute callee = call->attr("callee");
      if (callee && !callee.symbolPath().empty()) called.insert(callee.symbolPath()[0]);
    }
    // Composite ops name their decomposition function; keep those too,
    for (Operation* fn : module.functions())
      fn->walk([&](Operation& op) {
        if (Attribute d = op.attr("decomposition"); d && d.is(AttrKind::SymbolRef)) called.insert(d.symbolPath()[0]);
        // ... and custom calls their called_computations.
        if (Attribute cc = op.attr("called_computations"); cc && cc.is(AttrKind::Array))
          for (const Attribute& f : cc.arrayValue())
            if (f.is(AttrKind::SymbolRef) && !f.symbolPath().empty()) called.insert(f.symbolPath()[0]);
      });
    bool changed = false;
    for (Operation* fn : module.functions()) {
      if (func::isPublic(*fn) || called.count(std::string(func::name(*fn)))) continue;
      fn->erase();
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createInlinePass() { return std::make_unique<InlinePass>(); }

}  // namespace kiln
