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
#include <span>
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
// A run whose instances span processes meets at a subclass that exchanges
// through them (kiln/distributed/communicator_rendezvous.h).
class Rendezvous {
 public:
  explicit Rendezvous(int numInstances) : numInstances_(numInstances) {}
  virtual ~Rendezvous() = default;
  int numInstances() const { return numInstances_; }

  // Deposits `operands` of instance `instance` for occurrence `occurrence` of
  // `op`, waits for all instances, and returns every instance's operands
  // (indexed by instance). Fails instead of waiting forever when another
  // instance has finished or failed without arriving.
  virtual Expected<std::vector<std::vector<Tensor>>> exchange(const Operation& op, int64_t occurrence,
                                                              int instance, std::vector<Tensor> operands);
  // Called once by each instance when it stops evaluating.
  virtual void instanceExited();

  // send and recv between instances (interpreter.run_parallel's programs, or
  // a module's replicas and partitions). A send leaves `payload` on channel
  // `channel` for instance `target` (-1: whichever receives on the channel
  // first) and returns at once; a recv takes the oldest payload on the
  // channel for it (or for anyone) from one of `sources` (empty: any), in
  // the order sent, waiting for one. A recv fails instead of waiting forever
  // when nothing can arrive: every other instance has stopped or waits,
  // and no wait can end.
  virtual Status send(const Operation& op, int64_t channel, int instance, int target, std::vector<Tensor> payload);
  virtual Expected<std::vector<Tensor>> recv(const Operation& op, int64_t channel, int instance,
                                             std::vector<int> sources);
  // Once every instance has stopped: an error at the first send no recv took.
  Status checkAllReceived();

  // interpreter.run_parallel's host queues. `infeed` is the run's infeed
  // queue (set before the instances start): each infeed op of any instance
  // takes its next element, in the order the instances reach them; none
  // left is an error at the op (virtual: across processes,
  // distributed::CommunicatorRendezvous hands out the elements by a counter
  // the processes share). Each outfeed op appends its operands to the
  // run's outfeed, which nothing reads (as in StableHLO's interpreter).
  // A run with host queues (setInfeed called: interpreter.run_parallel's
  // programs) hands its instances the rendezvous even when there is one.
  void setInfeed(std::vector<std::vector<Tensor>> queue);
  bool hasHostQueues() {
    std::lock_guard<std::mutex> lock(mutex_);
    return hostQueues_;
  }
  virtual Expected<std::vector<Tensor>> infeed(const Operation& op);
  void outfeed(int instance, std::vector<Tensor> values);
  std::vector<std::pair<int, std::vector<Tensor>>> outfeedValues();

 private:
  struct Slot {
    std::vector<std::vector<Tensor>> contributions;
    int arrived = 0;
    int departed = 0;
  };
  struct Message {
    const Operation* send;
    int64_t channel;
    int source, target;
    std::vector<Tensor> payload;
  };
  // What a waiting instance waits for: a collective's slot, or a message.
  struct Wait {
    std::pair<const Operation*, int64_t> slot;
    int64_t channel = -1;  // >= 0: a recv on it
    std::vector<int> sources;
  };
  bool matches(const Message& m, int instance, const Wait& wait) const;
  bool canEnd(int instance, const Wait& wait) const;
  bool deadlocked() const;  // every instance stopped or waiting, none able to go on
  int numInstances_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::pair<const Operation*, int64_t>, Slot> slots_;
  std::vector<Message> messages_;  // sent, not yet received, in the order sent
  std::map<int, Wait> waiting_;    // by instance
  int exited_ = 0;
  std::vector<std::vector<Tensor>> infeed_;  // what is left of the queue, next first
  size_t infeedTaken_ = 0;
  bool hostQueues_ = false;
  std::vector<std::pair<int, std::vector<Tensor>>> outfeed_;  // (instance, values), in order
};

// One instance of a run: replica `replicaId` of `numReplicas`, partition
// `partitionId` of `numPartitions`.
struct Instance {
  int replicaId = 0;
  int partitionId = 0;
  int numReplicas = 1;
  int numPartitions = 1;
  Rendezvous* rendezvous = nullptr;  // null when running alone (without run_parallel's host queues)
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
// Like runAllInstances for the instances `indices` of the grid alone (the
// rest run elsewhere: other processes), meeting at `rendezvous`; results in
// the order of `indices`.
Expected<std::vector<std::vector<Tensor>>> runInstances(int numReplicas, int numPartitions,
                                                        std::span<const int> indices, Rendezvous& rendezvous,
                                                        const InstanceRunner& runInstance);

}  // namespace kiln::interp
