// Inlines every func.call whose callee is a function of the module, then
// drops private functions nobody calls any more. JAX wraps helpers such as
// relu, softmax and loop bodies in private functions; inlining them first
// lets every later pass see (and fuse across) the whole program.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// Deep enough for any real call chain (a cycle is found before inlining).
constexpr int kMaxInlineRounds = 64;
// Regions nested in regions, after inlining: the parser's bracket limit
// allows about 128; inlining must not build IR that the recursive walks of
// later passes (clone, verify, print) could not walk on a thread's stack.
constexpr int kMaxRegionNesting = 256;

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

Operation* calleeOf(const Module& module, const Operation& call) {
  Attribute callee = call.attr("callee");
  if (!callee || callee.symbolPath().size() != 1) return nullptr;
  return module.lookupFunction(callee.symbolPath()[0]);
}

// The first call that closes a cycle of calls (a function reaching itself),
// with the cycle's functions in `cycle`; null when there is none.
Operation* findRecursiveCall(Module& module, std::vector<std::string>& cycle) {
  enum class Mark { kNew, kOnPath, kDone };
  std::map<const Operation*, Mark> marks;
  std::vector<const Operation*> path;
  Operation* found = nullptr;
  std::function<void(Operation*)> visit = [&](Operation* fn) {
    marks[fn] = Mark::kOnPath;
    path.push_back(fn);
    fn->walk([&](Operation& op) {
      if (found || op.name() != "func.call") return;
      Operation* callee = calleeOf(module, op);
      if (!callee) return;
      Mark mark = marks.count(callee) ? marks[callee] : Mark::kNew;
      if (mark == Mark::kOnPath) {
        found = &op;
        auto start = std::find(path.begin(), path.end(), callee);
        for (auto it = start; it != path.end(); ++it) cycle.push_back("@" + std::string(func::name(**it)));
        cycle.push_back("@" + std::string(func::name(*callee)));
      } else if (mark == Mark::kNew) {
        visit(callee);
      }
    });
    path.pop_back();
    marks[fn] = Mark::kDone;
  };
  for (Operation* fn : module.functions())
    if (!found && !marks.count(fn)) visit(fn);
  return found;
}

// How many regions enclose `op` (up to its function), and the deepest
// nesting of regions within `op`.
int enclosingRegions(const Operation& op) {
  int depth = 0;
  for (const Operation* p = op.parentOp(); p && p->name() != "func.func"; p = p->parentOp()) ++depth;
  return depth;
}
int nestedRegions(Operation& op) {
  int deepest = 0;
  for (const auto& region : op.regions())
    for (const auto& block : region->blocks())
      for (Operation* inner : block->ops()) deepest = std::max(deepest, 1 + nestedRegions(*inner));
  return deepest;
}

// An error at `site` if putting `fn`'s body there would nest regions
// deeper than kMaxRegionNesting.
Status checkInlinedNesting(const Operation& site, Operation& fn) {
  if (int depth = enclosingRegions(site) + nestedRegions(fn) - 1; depth > kMaxRegionNesting)
    return error(site.loc(), "inlining @" + std::string(func::name(fn)) + " here would nest regions " +
                                 std::to_string(depth) + " deep (the limit is " + std::to_string(kMaxRegionNesting) +
                                 ")");
  return Status::ok();
}

class InlinePass : public Pass {
 public:
  std::string_view name() const override { return "inline"; }
  Expected<bool> run(Module& module) override {
    bool changed = false;
    std::vector<std::string> cycle;
    if (Operation* recursive = findRecursiveCall(module, cycle)) {
      std::string chain;
      for (const std::string& f : cycle) chain += (chain.empty() ? "" : " -> ") + f;
      return error(recursive->loc(), "recursive call (" + chain + "): recursive functions cannot be inlined");
    }
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
        KILN_RETURN_IF_ERROR(checkInlinedNesting(*call, *fn));
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

// Replaces every stablehlo.composite by a copy of its decomposition's body
// (the op's meaning, by the spec), round after round for composites nested
// in decompositions; the functions left uncalled are the inline pass's to
// drop. For back ends that plan no composite of their own (the cuda one).
class InlineCompositesPass : public Pass {
 public:
  std::string_view name() const override { return "inline_composites"; }
  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (int round = 0;; ++round) {
      std::vector<Operation*> composites;
      for (Operation* fn : module.functions())
        fn->walk([&](Operation& op) {
          if (op.name() == "stablehlo.composite") composites.push_back(&op);
        });
      if (composites.empty()) return changed;
      if (round == kMaxInlineRounds)
        return error(composites.front()->loc(), "composites nested deeper than " + std::to_string(kMaxInlineRounds) +
                                                    " (a decomposition reaching itself cannot be inlined)");
      for (Operation* composite : composites) {
        Attribute d = composite->attr("decomposition");
        Operation* fn = d && d.is(AttrKind::SymbolRef) && d.symbolPath().size() == 1
                            ? module.lookupFunction(d.symbolPath()[0])
                            : nullptr;
        if (!fn || fn->region(0).numBlocks() != 1)
          return error(composite->loc(), "stablehlo.composite without a decomposition function of one block");
        KILN_RETURN_IF_ERROR(checkInlinedNesting(*composite, *fn));
        inlineCall(composite, *fn);
      }
      changed = true;
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createInlinePass() { return std::make_unique<InlinePass>(); }
std::unique_ptr<Pass> createInlineCompositesPass() { return std::make_unique<InlineCompositesPass>(); }

}  // namespace kiln
