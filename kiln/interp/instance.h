// Multi-instance runs: which replica and partition a program instance is, and
// the rendezvous where the instances' collectives meet. The interpreter and
// the cpu back end both run a module's replicas x partitions as one thread per
// instance. The interpreter evaluates collectives with its kernels, which
// exchange whole operands here; the cpu back end moves the data of the
// collectives it runs natively through a Communicator
// (kiln/collectives/communicator.h) and uses the rendezvous for the rest.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::collectives {
class Communicator;
}

namespace kiln::interp {

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

// One instance of a run: replica `replicaId` of `numReplicas`, partition
// `partitionId` of `numPartitions`.
struct Instance {
  int replicaId = 0;
  int partitionId = 0;
  int numReplicas = 1;
  int numPartitions = 1;
  Rendezvous* rendezvous = nullptr;  // null when running alone
  // This instance's handle on the others for native collectives (cpu back
  // end); null where they go through the rendezvous alone.
  collectives::Communicator* communicator = nullptr;
  // Index of this instance in the rendezvous: replicaId * numPartitions + partitionId.
  int index() const { return replicaId * numPartitions + partitionId; }
};

// Runs `runInstance` once per instance of a numReplicas x numPartitions grid,
// one thread each (on the calling thread when there is one instance), all
// meeting at one rendezvous. Returns the results of every instance, indexed
// by Instance::index(), or the error of the instance that failed first (the
// others may only report that it stopped).
using InstanceRunner = std::function<Expected<std::vector<Tensor>>(const Instance&)>;
Expected<std::vector<std::vector<Tensor>>> runAllInstances(int numReplicas, int numPartitions,
                                                           const InstanceRunner& runInstance);

}  // namespace kiln::interp
