// sharding_propagation: gives every tensor of a public function a sharding,
// starting from what the user said (argument and result shardings,
// sdy.sharding_constraint and sdy.reshard) and spreading it through each
// op's sharding rule (sharding_rules.h), in Shardy's manner.
//
//   func @main(%x: tensor<8x4xf32> {sdy.sharding = <@m, [{"x"}, {}]>}, %w: tensor<4x6xf32>)
//     %y = stablehlo.dot_general %x, %w ...   =>   ... {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {}]>]>}
//
// Each dimension of each value is decided once: the first sharding that
// reaches it wins. Sweeps go forward through the body, then backward, until
// nothing changes, so the order is deterministic: user shardings, then what
// flows forward from arguments, then backward from results. A dimension
// takes a sharding only where it divides evenly (or, for an uneven user
// sharding, has the same size as where it comes from) and the axes are not
// already used by another dimension of the value. What no sharding reaches is
// replicated. Open dimensions (`?`) of user shardings are left for
// propagation; closed ones are kept as given. A reshape carries its whole
// split across (sharding::reshapeSplit), over the mesh's axes cut into parts
// of prime size, so that a dimension may take part of an axis: f32[8] over
// "x" of 4 reshaped to f32[2, 4] is [{"x":(1)2}, {"x":(2)2}], as in Shardy.
//
// With an explanation sink (`kiln-opt --explain-sharding`), each decided
// dimension says where its sharding came from.
#include <algorithm>
#include <map>
#include <functional>
#include <set>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/sharding_annotations.h"
#include "kiln/passes/sharding_rules.h"

namespace kiln {
namespace {

using sharding::DimSharding;
using sharding::FactorKind;
using sharding::Mesh;
using sharding::TensorSharding;

struct DimState {
  bool decided = false;
  std::vector<std::string> axes;
  std::string why;
};

class Propagation {
 public:
  // `original`: the mesh before refineSubAxes cut its axes, which
  // explanations name sub-axes of (null: not cut).
  Propagation(std::string meshName, Mesh mesh, const std::function<void(const std::string&)>& explain,
              const Mesh* original = nullptr)
      : meshName_(std::move(meshName)), mesh_(std::move(mesh)), explain_(explain), original_(original) {}

  Status run(Operation& fn) {
    Block& body = func::body(fn);
    std::vector<Operation*> ops;
    collect(body, ops);
    for (unsigned i = 0; i < body.numArguments(); ++i) arguments_.insert(body.argument(i));
    for (unsigned i = 0; i < body.numArguments(); ++i) {
      KILN_ASSIGN_OR_RETURN(std::optional<TensorSharding> s, sharding::argumentSharding(fn, i));
      if (s) seed(body.argument(i), *s, "the sharding of argument " + std::to_string(i));
    }
    for (Operation* op : ops) {
      if (op->name() == "sdy.sharding_constraint" || op->name() == "sdy.reshard") {
        KILN_ASSIGN_OR_RETURN(TensorSharding s, sharding::parseSharding(op->attr("sharding").stringValue()));
        seed(op->result(0), s, "the " + op->name() + " at " + locationOf(*op));
      } else {
        KILN_ASSIGN_OR_RETURN(std::optional<std::vector<TensorSharding>> given, sharding::opShardings(*op));
        for (unsigned r = 0; given && r < op->numResults(); ++r)
          seed(op->result(r), (*given)[r], "the sdy.sharding of the " + op->name() + " at " + locationOf(*op));
      }
    }
    Operation* ret = body.terminator();
    for (unsigned i = 0; ret && i < ret->numOperands(); ++i) {
      KILN_ASSIGN_OR_RETURN(std::optional<TensorSharding> s, sharding::resultSharding(fn, i));
      if (s) seed(ret->operand(i), *s, "the sharding of result " + std::to_string(i));
    }
    for (int round = 0; round < 16; ++round) {
      bool changed = false;
      for (Operation* op : ops) changed |= propagateThrough(*op, /*forward=*/true);
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) changed |= propagateThrough(**it, /*forward=*/false);
      if (!changed) break;
    }
    write(fn, ops);
    return Status::ok();
  }

 private:
  // The ops of `block` in program order, with those of while loops' bodies
  // and if/case branches (shardings flow through them; other regions are
  // run whole).
  static void collect(Block& block, std::vector<Operation*>& ops) {
    for (Operation* op : block.ops()) {
      ops.push_back(op);
      if (hasTrait(*op, kControlFlow))
        for (const auto& region : op->regions()) collect(region->front(), ops);
    }
  }

  using Position = std::pair<Value*, int64_t>;  // dimension of a value

  // The op's factors as positions: its sharding rule's, or for a while loop,
  // each dimension of each carried value -- operand, result, the
  // condition's and body's arguments and what the body yields -- as one.
  static std::vector<std::vector<Position>> factorsOf(Operation& op) {
    std::vector<std::vector<Position>> factors;
    if (op.name() == "stablehlo.while") {
      Block& cond = op.region(0).front();
      Block& body = op.region(1).front();
      for (unsigned i = 0; i < op.numOperands(); ++i)
        for (int64_t d = 0; op.result(i)->type().isTensor() && d < op.result(i)->type().rank(); ++d)
          factors.push_back({{op.operand(i), d}, {op.result(i), d}, {cond.argument(i), d}, {body.argument(i), d},
                             {body.terminator()->operand(i), d}});
      return factors;
    }
    if (op.name() == "stablehlo.if" || op.name() == "stablehlo.case") {
      // Each dimension of result i is that of what every branch returns as i.
      for (unsigned i = 0; i < op.numResults(); ++i)
        for (int64_t d = 0; op.result(i)->type().isTensor() && d < op.result(i)->type().rank(); ++d) {
          factors.push_back({{op.result(i), d}});
          for (const auto& region : op.regions()) factors.back().emplace_back(region->front().terminator()->operand(i), d);
        }
      return factors;
    }
    std::optional<sharding::OpShardingRule> rule = sharding::shardingRule(op);
    if (!rule) return factors;
    for (const sharding::Factor& factor : rule->factors) {
      factors.emplace_back();
      for (const sharding::FactorPosition& p : factor.positions)
        factors.back().emplace_back(p.value < static_cast<int>(op.numOperands())
                                        ? op.operand(p.value)
                                        : op.result(p.value - op.numOperands()),
                                    p.dim);
    }
    return factors;
  }

  std::vector<DimState>& state(Value* v) {
    auto [it, inserted] = states_.try_emplace(v);
    if (inserted) it->second.resize(v->type().isTensor() ? v->type().rank() : 0);
    return it->second;
  }

  void seed(Value* v, const TensorSharding& s, const std::string& why) {
    std::vector<DimState>& dims = state(v);
    for (size_t d = 0; d < dims.size() && d < s.dims.size(); ++d) {
      if (dims[d].decided || (s.dims[d].open && s.dims[d].axes.empty())) continue;
      dims[d] = {true, s.dims[d].axes, why};
    }
  }

  // Whether dimension `dim` of `v` can be split over `axes`, coming from a
  // dimension of `sourceSize` elements. An uneven split (a
  // with_sharding_constraint JAX allows) spreads only to dimensions of the
  // same size, padded alike, and never to the function's arguments, whose
  // blocks the caller holds (JAX's jit requires even ones; results are
  // gathered, see write).
  bool canTake(Value* v, int64_t dim, const std::vector<std::string>& axes, int64_t sourceSize) {
    int64_t parts = 1;
    for (const std::string& a : axes) parts *= mesh_.axisSize(a);
    int64_t size = v->type().shape()[dim];
    if (size % parts != 0 && (size != sourceSize || arguments_.count(v))) return false;
    std::vector<DimState>& dims = state(v);
    for (size_t d = 0; d < dims.size(); ++d)
      if (static_cast<int64_t>(d) != dim && dims[d].decided)
        for (const std::string& a : axes)
          if (std::find(dims[d].axes.begin(), dims[d].axes.end(), a) != dims[d].axes.end()) return false;
    return true;
  }

  // A reshape carries the split of one side to the other as a whole
  // (sharding::reshapeSplit), over the axes cut into parts of prime size:
  // where a dimension takes only part of an axis, the sharding written
  // names a sub-axis ("x":(1)2), as Shardy's propagation does. Undecided
  // dimensions of the side it comes from count as whole. Where a side's
  // split does not carry over (uneven, or an axis after local elements), the
  // rule's factors (the major dimension of each regrouped run) are tried.
  bool propagateThroughReshape(Operation& op, bool forward) {
    Value* sides[2] = {op.operand(0), op.result(0)};
    if (!forward) std::swap(sides[0], sides[1]);
    bool changed = false, failed = false;
    for (int s = 0; s < 2; ++s) {
      Value *from = sides[s], *to = sides[1 - s];
      std::vector<DimState>& fromDims = state(from);
      std::vector<std::vector<std::string>> split(fromDims.size());
      bool any = false;
      for (size_t d = 0; d < fromDims.size(); ++d)
        if (fromDims[d].decided) {
          split[d] = fromDims[d].axes;
          any |= !split[d].empty();
        }
      if (!any) continue;
      std::optional<std::vector<std::vector<std::string>>> target = sharding::reshapeSplit(
          from->type().shape(), split, to->type().shape(), [&](const std::string& a) { return mesh_.axisSize(a); });
      if (!target) {
        failed = true;
        continue;
      }
      std::string why = "from " + describe(from) + " through the " + op.name() + " at " + locationOf(op) +
                        (from == op.operand(0) ? " (forward)" : " (backward)");
      for (size_t d = 0; d < target->size(); ++d) {
        const std::vector<std::string>& axes = (*target)[d];
        int64_t size = to->type().shape()[d];
        if (axes.empty() || state(to)[d].decided || !canTake(to, static_cast<int64_t>(d), axes, size)) continue;
        state(to)[d] = {true, axes, why};
        changed = true;
      }
    }
    if (failed) changed |= propagateByFactors(op, forward);
    return changed;
  }

  bool propagateThrough(Operation& op, bool forward) {
    if (op.name() == "stablehlo.reshape" && op.operand(0)->type().isTensor() && op.result(0)->type().isTensor())
      return propagateThroughReshape(op, forward);
    return propagateByFactors(op, forward);
  }

  bool propagateByFactors(Operation& op, bool forward) {
    bool changed = false;
    for (std::vector<Position> order : factorsOf(op)) {
      if (!forward) std::reverse(order.begin(), order.end());
      // The first decided, split dimension of the factor gives its axes.
      const DimState* source = nullptr;
      Value* sourceValue = nullptr;
      int64_t sourceSize = 0;
      for (const auto& [v, dim] : order) {
        const DimState& s = state(v)[dim];
        if (s.decided && !s.axes.empty()) {
          source = &s;
          sourceValue = v;
          sourceSize = v->type().shape()[dim];
          break;
        }
      }
      if (!source) continue;
      std::vector<std::string> axes = source->axes;
      std::string why = "from " + describe(sourceValue) + " through the " + op.name() + " at " + locationOf(op) +
                        (forward ? " (forward)" : " (backward)");
      for (const auto& [v, dim] : order) {
        if (state(v)[dim].decided || !canTake(v, dim, axes, sourceSize)) continue;
        state(v)[dim] = {true, axes, why};
        changed = true;
      }
    }
    return changed;
  }

  TensorSharding shardingOf(Value* v) {
    TensorSharding s = sharding::replicated(meshName_, v->type().rank());
    std::vector<DimState>& dims = state(v);
    for (size_t d = 0; d < dims.size(); ++d) s.dims[d].axes = dims[d].axes;
    return s;
  }

  // The sharding of `v` without its uneven splits: what a function result
  // may have.
  TensorSharding evenPart(Value* v) {
    TensorSharding s = shardingOf(v);
    for (size_t d = 0; d < s.dims.size(); ++d) {
      int64_t parts = 1;
      for (const std::string& a : s.dims[d].axes) parts *= mesh_.axisSize(a);
      if (v->type().shape()[d] % parts != 0) s.dims[d].axes.clear();
    }
    return s;
  }

  // Records the shardings as attributes and, when asked, says why.
  void write(Operation& fn, const std::vector<Operation*>& ops) {
    Block& body = func::body(fn);
    for (unsigned i = 0; i < body.numArguments(); ++i)
      if (body.argument(i)->type().isTensor()) {
        sharding::setArgumentSharding(fn, i, shardingOf(body.argument(i)));
        explainValue(body.argument(i));
      }
    for (Operation* op : ops) {
      if (op->numResults() == 0 || op->name() == "sdy.sharding_constraint" || op->name() == "sdy.reshard") continue;
      std::vector<TensorSharding> shardings;
      bool any = false, allTensors = true;
      for (Value* r : op->results()) allTensors &= r->type().isTensor();
      if (!allTensors) continue;
      for (Value* r : op->results()) {
        shardings.push_back(shardingOf(r));
        any |= !shardings.back().isReplicated();
        explainValue(r);
      }
      if (any) op->setAttr("sdy.sharding", sharding::toAttribute(shardings));
    }
    Operation* ret = body.terminator();
    for (unsigned i = 0; ret && i < ret->numOperands(); ++i)
      if (auto given = sharding::resultSharding(fn, i); given && !*given && ret->operand(i)->type().isTensor())
        sharding::setResultSharding(fn, i, evenPart(ret->operand(i)));
  }

  void explainValue(Value* v) {
    if (!explain_) return;
    std::vector<DimState>& dims = state(v);
    TensorSharding shown = shardingOf(v);
    if (original_ && !sharding::foldSubAxes(shown, *original_).isOk()) shown = shardingOf(v);
    explain_(describe(v) + ": " + sharding::printSharding(shown));
    for (size_t d = 0; d < dims.size(); ++d)
      explain_("  dimension " + std::to_string(d) + ": " +
               (dims[d].decided ? (dims[d].axes.empty() ? "replicated, " : "split, ") + dims[d].why
                                : std::string("replicated: no sharding reaches it")));
  }

  std::string describe(Value* v) {
    if (v->isBlockArgument()) {
      Operation* owner = v->ownerBlock()->parentOp();
      return "argument " + std::to_string(v->index()) +
             (owner && owner->name() != "func.func" ? " of the " + owner->name() + " at " + locationOf(*owner) : "");
    }
    return "result " + std::to_string(v->index()) + " of the " + v->definingOp()->name() + " at " +
           locationOf(*v->definingOp());
  }

  static std::string locationOf(const Operation& op) {
    Location loc = op.loc();
    return loc.line ? std::to_string(loc.line) + ":" + std::to_string(loc.col) : std::string("?");
  }

  std::string meshName_;
  Mesh mesh_;
  const std::function<void(const std::string&)>& explain_;
  const Mesh* original_ = nullptr;
  std::map<Value*, std::vector<DimState>> states_;
  std::set<Value*> arguments_;  // the function's
};

std::function<void(const std::string&)>& explainSink() {
  static std::function<void(const std::string&)> sink;
  return sink;
}

class ShardingPropagationPass : public Pass {
 public:
  std::string_view name() const override { return "sharding_propagation"; }
  Expected<bool> run(Module& module) override {
    // Over sub-axes and parts of prime size made whole axes, folded back
    // into (sub-)axes after.
    KILN_ASSIGN_OR_RETURN(auto original_meshes, sharding::refineSubAxes(module, /*intoPrimes=*/true));
    KILN_ASSIGN_OR_RETURN(auto mesh, sharding::moduleMesh(module));
    if (!mesh) return false;
    for (Operation* fn : module.definedFunctions()) {
      if (!func::isPublic(*fn)) continue;
      const Mesh* original = nullptr;
      if (original_meshes)
        for (const auto& [name, m] : *original_meshes)
          if (name == mesh->first) original = &m;
      Propagation propagation(mesh->first, mesh->second, explainSink(), original);
      KILN_RETURN_IF_ERROR(propagation.run(*fn));
    }
    if (original_meshes) KILN_RETURN_IF_ERROR(sharding::foldSubAxes(module, *original_meshes));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createShardingPropagationPass() { return std::make_unique<ShardingPropagationPass>(); }
void setShardingExplainSink(std::function<void(const std::string&)> sink) { explainSink() = std::move(sink); }

}  // namespace kiln
