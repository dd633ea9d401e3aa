// Scheduling for low peak memory: reorders the ops of each function body (and
// of while/if/case bodies) so that fewer bytes are live at once.
//
// A greedy list scheduler over the dependence DAG: among the ops whose
// operands are all computed, it runs the one that frees the most bytes (the
// storage of the values it is the last reader of) minus the bytes it
// allocates, ties going to the op that came first. Edges are data dependences
// (uses inside nested regions included) plus the original order of the ops
// with side effects among themselves; the terminator stays last. The new
// order is kept only if buffer assignment finds a lower peak than the old
// one, so the pass never makes a schedule worse. See docs/memory.md.
#include <set>
#include <unordered_map>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

class GreedyScheduler {
 public:
  explicit GreedyScheduler(const Block& block) : ops_(block.ops()), roots_(block) {
    for (size_t i = 0; i < ops_.size(); ++i) position_[ops_[i]] = static_cast<int>(i);
    succs_.resize(ops_.size());
    pendingPreds_.assign(ops_.size(), 0);
    reads_.resize(ops_.size());
    int lastEffect = -1;
    for (int i = 0; i < static_cast<int>(ops_.size()); ++i) {
      std::set<int> preds;
      std::set<const Value*> reads;
      ops_[i]->walk([&](Operation& inner) {
        for (Value* v : inner.operands()) {
          Operation* def = v->definingOp();
          if (def && position_.count(def)) preds.insert(position_.at(def));
          for (const Value* root : roots_.of(v)) reads.insert(root);
        }
      });
      // isRemovableIfUnused is exactly "has no side effects, nested ops included".
      if (!isRemovableIfUnused(*ops_[i])) {
        if (lastEffect >= 0) preds.insert(lastEffect);
        lastEffect = i;
      }
      preds.erase(i);
      for (int p : preds) succs_[p].push_back(i);
      pendingPreds_[i] = static_cast<int>(preds.size());
      reads_[i].assign(reads.begin(), reads.end());
      for (const Value* root : reads_[i]) ++remainingReaders_[root];
    }
  }

  // The ops in the new order; the terminator (if any) stays last.
  std::vector<Operation*> run() {
    std::vector<Operation*> order;
    if (ops_.empty()) return order;
    int terminator = ops_.back()->def() && ops_.back()->def()->has(kTerminator) ? static_cast<int>(ops_.size()) - 1 : -1;
    std::set<int> ready;
    for (int i = 0; i < static_cast<int>(ops_.size()); ++i)
      if (pendingPreds_[i] == 0 && i != terminator) ready.insert(i);
    while (!ready.empty()) {
      int best = *ready.begin();
      int64_t bestScore = score(best);
      for (int i : ready) {
        int64_t s = score(i);
        if (s > bestScore) best = i, bestScore = s;  // std::set iterates in original order: ties keep the first
      }
      ready.erase(best);
      order.push_back(ops_[best]);
      for (const Value* root : reads_[best]) --remainingReaders_[root];
      for (int s : succs_[best])
        if (--pendingPreds_[s] == 0 && s != terminator) ready.insert(s);
    }
    if (terminator >= 0) order.push_back(ops_[terminator]);
    return order;
  }

 private:
  // Bytes freed minus bytes allocated by running op i now. Arguments and
  // constants are never freed (the caller or the executable holds them).
  int64_t score(int i) const {
    int64_t bytes = 0;
    for (const Value* root : reads_[i]) {
      const Operation* def = root->definingOp();
      if (remainingReaders_.at(root) == 1 && def && def->name() != "stablehlo.constant")
        bytes += storageBytes(root->type());
    }
    const Operation& op = *ops_[i];
    if (isViewOp(op) || op.name() == "stablehlo.constant") return bytes;
    for (Value* r : op.results()) bytes -= storageBytes(r->type());
    return bytes;
  }

  std::vector<Operation*> ops_;
  StorageRoots roots_;
  std::unordered_map<const Operation*, int> position_;
  std::vector<std::vector<int>> succs_;
  std::vector<int> pendingPreds_;
  std::vector<std::vector<const Value*>> reads_;  // storage each op reads, nested reads included
  std::unordered_map<const Value*, int> remainingReaders_;
};

bool scheduleBlock(Block& block) {
  bool changed = false;
  for (Operation& op : block)
    if (hasProgramRegions(op))
      for (auto& region : op.regions())
        for (auto& nested : region->blocks()) changed |= scheduleBlock(*nested);
  std::vector<Operation*> current = block.ops();
  std::vector<Operation*> candidate = GreedyScheduler(block).run();
  // A shorter order would mean a dependence cycle, which SSA rules out; keep the block as is then.
  if (candidate == current || candidate.size() != current.size()) return changed;
  if (assignBuffers(block, candidate).peakBytes >= assignBuffers(block, current).peakBytes) return changed;
  for (Operation* op : candidate) block.push_back(op->remove());
  return true;
}

class SchedulePass : public Pass {
 public:
  std::string_view name() const override { return "schedule"; }
  Expected<bool> run(Module& module) override {
    bool changed = false;
    for (Operation* fn : module.functions()) changed |= scheduleBlock(func::body(*fn));
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> createSchedulePass() { return std::make_unique<SchedulePass>(); }

}  // namespace kiln
