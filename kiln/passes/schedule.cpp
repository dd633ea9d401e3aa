// Scheduling for low peak memory: reorders the ops of each function body (and
// of while/if/case bodies) so that fewer bytes are live at once.
//
// Two heuristics each propose an order of the dependence DAG, whose edges are
// data dependences (uses inside nested regions included) plus the original
// order of the ops with side effects among themselves; the terminator stays
// last:
//   - a greedy list scheduler: among the ops whose operands are computed, run
//     the one that frees the most bytes (the storage it is the last reader
//     of) minus the bytes it allocates, ties going to the op that came first;
//   - a depth-first scheduler: each op right after its operands, the operand
//     needing the most memory computed first (as Sethi-Ullman numbering does
//     for expression trees), so a big subcomputation ends before the
//     small ones whose results would wait through it.
// Buffer assignment measures the peak of each proposal; the lowest one is
// kept if it beats the current order, so the pass never makes a schedule
// worse. As XLA does, no single heuristic wins on every program: the list
// scheduler is better where independent chains can be finished one at a time,
// the depth-first one on deep expression DAGs. See docs/memory.md.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "kiln/ir/op_registry.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

// Bytes of new storage running `op` takes (views and constants take none in
// the arena).
int64_t allocatedBytes(const Operation& op) {
  if (isViewOp(op) || op.name() == "stablehlo.constant") return 0;
  int64_t bytes = 0;
  for (Value* r : op.results()) bytes += storageBytes(r->type());
  return bytes;
}

// The ops of one block with their dependences, by index in the block.
struct DependenceGraph {
  std::vector<Operation*> ops;
  std::vector<std::vector<int>> preds, succs;
  std::vector<std::vector<const Value*>> reads;  // storage each op reads, nested reads included
  int terminator = -1;                           // index of the terminator, -1 if none

  explicit DependenceGraph(const Block& block) : ops(block.ops()) {
    StorageRoots roots(block);
    std::unordered_map<const Operation*, int> position;
    for (size_t i = 0; i < ops.size(); ++i) position[ops[i]] = static_cast<int>(i);
    preds.resize(ops.size());
    succs.resize(ops.size());
    reads.resize(ops.size());
    int lastEffect = -1;
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
      std::set<int> in;
      std::set<const Value*> read;
      ops[i]->walk([&](Operation& inner) {
        for (Value* v : inner.operands()) {
          Operation* def = v->definingOp();
          if (def && position.count(def)) in.insert(position.at(def));
          for (const Value* root : roots.of(v)) read.insert(root);
        }
      });
      // isRemovableIfUnused is exactly "has no side effects, nested ops included".
      if (!isRemovableIfUnused(*ops[i])) {
        if (lastEffect >= 0) in.insert(lastEffect);
        lastEffect = i;
      }
      in.erase(i);
      preds[i].assign(in.begin(), in.end());
      for (int p : in) succs[p].push_back(i);
      reads[i].assign(read.begin(), read.end());
    }
    if (!ops.empty() && ops.back()->def() && ops.back()->def()->has(kTerminator))
      terminator = static_cast<int>(ops.size()) - 1;
  }
  int size() const { return static_cast<int>(ops.size()); }
};

std::vector<Operation*> listSchedule(const DependenceGraph& g) {
  std::vector<int> pendingPreds(g.size());
  std::unordered_map<const Value*, int> remainingReaders;
  for (int i = 0; i < g.size(); ++i) {
    pendingPreds[i] = static_cast<int>(g.preds[i].size());
    for (const Value* root : g.reads[i]) ++remainingReaders[root];
  }
  // Arguments and constants are never freed (the caller or the executable
  // holds them).
  auto score = [&](int i) {
    int64_t bytes = -allocatedBytes(*g.ops[i]);
    for (const Value* root : g.reads[i]) {
      const Operation* def = root->definingOp();
      if (remainingReaders.at(root) == 1 && def && def->name() != "stablehlo.constant")
        bytes += storageBytes(root->type());
    }
    return bytes;
  };
  std::set<int> ready;  // iterated in original order, so ties keep the first
  for (int i = 0; i < g.size(); ++i)
    if (pendingPreds[i] == 0 && i != g.terminator) ready.insert(i);
  std::vector<Operation*> order;
  while (!ready.empty()) {
    int best = *ready.begin();
    int64_t bestScore = score(best);
    for (int i : ready)
      if (int64_t s = score(i); s > bestScore) best = i, bestScore = s;
    ready.erase(best);
    order.push_back(g.ops[best]);
    for (const Value* root : g.reads[best]) --remainingReaders[root];
    for (int s : g.succs[best])
      if (--pendingPreds[s] == 0 && s != g.terminator) ready.insert(s);
  }
  if (g.terminator >= 0) order.push_back(g.ops[g.terminator]);
  return order;
}

std::vector<Operation*> depthFirstSchedule(const DependenceGraph& g) {
  // The memory an op's computation needs, estimated as its own allocation
  // plus the most any of its operands' computations needs.
  std::vector<int64_t> need(g.size());
  for (int i = 0; i < g.size(); ++i) {
    int64_t most = 0;
    for (int p : g.preds[i]) most = std::max(most, need[p]);  // preds come earlier in the block
    need[i] = most + allocatedBytes(*g.ops[i]);
  }
  std::vector<std::vector<int>> visitOrder = g.preds;
  for (auto& preds : visitOrder)
    std::stable_sort(preds.begin(), preds.end(), [&](int a, int b) { return need[a] > need[b]; });

  // Iterative post-order (a block can hold long chains): an op is emitted
  // once all its predecessors are.
  std::vector<Operation*> order;
  std::vector<bool> visited(g.size(), false);
  auto visit = [&](int start) {
    std::vector<std::pair<int, size_t>> stack;  // op, next predecessor to visit
    if (visited[start]) return;
    visited[start] = true;
    stack.emplace_back(start, 0);
    while (!stack.empty()) {
      auto& [op, next] = stack.back();
      if (next < visitOrder[op].size()) {
        int p = visitOrder[op][next++];
        if (!visited[p]) {
          visited[p] = true;
          stack.emplace_back(p, 0);
        }
        continue;
      }
      order.push_back(g.ops[op]);
      stack.pop_back();
    }
  };
  // What the results depend on first, then the ops nothing returned depends
  // on (side effects, dead code), in block order.
  if (g.terminator >= 0) {
    for (int p : visitOrder[g.terminator]) visit(p);
    visited[g.terminator] = true;
  }
  for (int i = 0; i < g.size(); ++i) visit(i);
  if (g.terminator >= 0) order.push_back(g.ops[g.terminator]);
  return order;
}

bool scheduleBlock(Block& block) {
  bool changed = false;
  for (Operation& op : block)
    if (hasTrait(op, kControlFlow))
      for (auto& region : op.regions())
        for (auto& nested : region->blocks()) changed |= scheduleBlock(*nested);
  DependenceGraph graph(block);
  std::vector<Operation*> best = block.ops();
  int64_t bestPeak = assignBuffers(block, best).peakBytes;
  for (std::vector<Operation*> candidate : {listSchedule(graph), depthFirstSchedule(graph)}) {
    // A shorter order would mean a dependence cycle, which SSA rules out.
    if (candidate == best || candidate.size() != best.size()) continue;
    int64_t peak = assignBuffers(block, candidate).peakBytes;
    if (peak >= bestPeak) continue;
    best = std::move(candidate);
    bestPeak = peak;
  }
  if (best == block.ops()) return changed;
  for (Operation* op : best) block.push_back(op->remove());
  return true;
}

class SchedulePass : public FunctionPass {
 public:
  std::string_view name() const override { return "schedule"; }

 private:
  bool runOnBody(Block& body) override { return scheduleBlock(body); }
};

}  // namespace

std::unique_ptr<Pass> createSchedulePass() { return std::make_unique<SchedulePass>(); }

}  // namespace kiln
