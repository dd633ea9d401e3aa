// Private to kiln/interp: the Interpreter class that evaluates one program
// instance (instance.h: which one, and where its collectives meet). Kernel
// files that only compute from operands need nothing beyond interpreter.h.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kiln/interp/instance.h"
#include "kiln/interp/interpreter.h"

namespace kiln::interp {

// Kernels of the ops the interpreter itself knows (calls, control flow,
// tuples, constants, ids), of the collectives, and of kiln's own fusion op.
void registerControlFlowKernels(KernelTable& t);  // ops_control_flow.cpp
void registerCollectiveKernels(KernelTable& t);   // ops_collectives.cpp
void registerFusionKernels(KernelTable& t);       // ops_fusion.cpp (kiln.fusion)
void registerRunParallelKernel(KernelTable& t);   // ops_run_parallel.cpp (interpreter.run_parallel)

// Evaluates functions of one module as one instance (replica, partition).
class Interpreter {
 public:
  using Instance = interp::Instance;

  Interpreter(const Module& module, const KernelTable& kernels, Instance instance)
      : module_(module), kernels_(kernels), instance_(instance) {}

  const Instance& instance() const { return instance_; }
  const Module& module() const { return module_; }

  // Calls function `name` of the module; `callSite` is where errors about the
  // call itself (unknown function, wrong arguments) are reported.
  Expected<std::vector<Tensor>> callFunction(std::string_view name, std::vector<Tensor> args,
                                             Location callSite);
  // Runs `region` with `args` bound to its entry block arguments; values
  // defined around the region (in the enclosing activations) stay visible.
  Expected<std::vector<Tensor>> runRegion(const Region& region, std::vector<Tensor> args);

  // How many times this instance has started evaluating `op` before (the
  // rendezvous key of collectives).
  int64_t nextOccurrence(const Operation& op) { return occurrences_[&op]++; }
  // Makes the next occurrence of `op` number `occurrence` (for a caller that
  // evaluates `op` alone and counts its runs itself: the cpu back end).
  void setNextOccurrence(const Operation& op, int64_t occurrence) { occurrences_[&op] = occurrence; }

 private:
  // What running a block needs beyond the IR, worked out on its first run so
  // that later runs (a sort comparator runs millions of times) do no string
  // lookups and no per-value allocation.
  struct BlockPlan {
    // Each value the block defines gets a slot: its arguments first, then the
    // results of its ops in order. Slots fill in that order as the block runs.
    std::unordered_map<const Value*, unsigned> slotOf;
    unsigned numSlots = 0;
    // The kernel of each op of the block, in order; null for ops without one.
    std::vector<const Kernel*> kernels;
  };

  // The values of one region activation, stored by slot; lookups fall back to
  // the enclosing activation because StableHLO regions may use values defined
  // outside them.
  struct Frame {
    const BlockPlan* plan = nullptr;
    std::vector<Tensor> values;  // the slots computed so far
    const Frame* parent = nullptr;
    const Tensor* lookup(const Value* v) const;
  };

  const BlockPlan& planFor(const Block& block);
  Expected<std::vector<Tensor>> runBlock(const Block& block, Frame& frame);
  Expected<std::vector<Tensor>> evaluate(const Operation& op, const Kernel* kernel,
                                         const Frame& frame);

  const Module& module_;
  const KernelTable& kernels_;
  Instance instance_;
  const Frame* currentFrame_ = nullptr;  // the activation whose op is being evaluated
  std::unordered_map<const Operation*, int64_t> occurrences_;
  std::unordered_map<const Block*, BlockPlan> plans_;  // filled by planFor
  int callDepth_ = 0;
};

// The kernels of every op family, built once.
const KernelTable& allKernels();

}  // namespace kiln::interp
