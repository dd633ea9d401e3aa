// Private to kiln/interp: the Interpreter class that evaluates one program
// instance, and the rendezvous its collectives meet at. Kernel files that only
// compute from operands need nothing beyond interpreter.h.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kiln/interp/interpreter.h"

namespace kiln::interp {

// Kernels of the ops the interpreter itself knows (calls, control flow,
// tuples, constants, ids), of the collectives, and of kiln's own fusion op.
void registerControlFlowKernels(KernelTable& t);  // ops_control_flow.cpp
void registerCollectiveKernels(KernelTable& t);   // ops_collectives.cpp
void registerFusionKernels(KernelTable& t);       // ops_fusion.cpp (kiln.fusion)

// Where the instances of one multi-instance run meet. All instances run the
// same program, so each reaches every collective op the same number of times:
// the k-th execution of an op by every instance forms one exchange, in which
// each instance deposits its operands and then reads everyone's.
class Rendezvous {
 public:
  explicit Rendezvous(int numInstances) : numInstances_(numInstances) {}
  int numInstances() const { return numInstances_; }

  // Deposits `operands` of instance `instance` for occurrence `occurrence` of
  // `op`, waits for all instances, and returns every instance's operands
  // (indexed by instance). Fails instead of waiting forever when another
  // instance has finished or failed without arriving.
  Expected<std::vector<std::vector<Tensor>>> exchange(const Operation& op, int64_t occurrence,
                                                      int instance, std::vector<Tensor> operands);
  // Called once by each instance when it stops evaluating.
  void instanceExited();

 private:
  struct Slot {
    std::vector<std::vector<Tensor>> contributions;
    int arrived = 0;
    int departed = 0;
  };
  int numInstances_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::pair<const Operation*, int64_t>, Slot> slots_;
  int exited_ = 0;
};

// Evaluates functions of one module as one instance (replica, partition).
class Interpreter {
 public:
  struct Instance {
    int replicaId = 0;
    int partitionId = 0;
    int numReplicas = 1;
    int numPartitions = 1;
    Rendezvous* rendezvous = nullptr;  // null when running alone
    // Index of this instance in the rendezvous: replicaId * numPartitions + partitionId.
    int index() const { return replicaId * numPartitions + partitionId; }
  };

  Interpreter(const Module& module, const KernelTable& kernels, Instance instance)
      : module_(module), kernels_(kernels), instance_(instance) {}

  const Instance& instance() const { return instance_; }

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
