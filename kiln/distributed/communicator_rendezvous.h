// The interpreter's rendezvous (kiln/interp/instance.h) for a run whose
// instances span processes: the collectives the cpu back end does not run
// natively over the communicator (an all_reduce whose body is not one
// combining op, quantized permutes, ...) exchange whole operands here, by an
// all-gather over every instance of the run, and evaluate with the
// interpreter's kernels as in one process.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "kiln/collectives/communicator.h"
#include "kiln/distributed/key_value_store.h"
#include "kiln/interp/instance.h"

namespace kiln::distributed {

class CommunicatorRendezvous final : public interp::Rendezvous {
 public:
  // `communicators` are the handles of this process's instances (an
  // instance's is found by its rank, read here: a handle may be closed once
  // its instance has stopped).
  CommunicatorRendezvous(int numInstances, std::span<collectives::Communicator* const> communicators);

  Expected<std::vector<std::vector<interp::Tensor>>> exchange(const Operation& op, int64_t occurrence, int instance,
                                                              std::vector<interp::Tensor> operands) override;
  // A peer that stops fails the others' next collective through the
  // communicator (its connections close), so nothing to do here.
  void instanceExited() override {}
  // send and recv as point-to-point messages of the communicator (every
  // instance of the run is a rank of it, in this process or another): each
  // message is its payload's types, as text, then its bytes, preceded by a
  // message of its size. They need source_target_pairs naming one target per
  // send and one source per recv: which instance takes a message sent to
  // whichever receives first cannot be decided across processes (an error at
  // the op). A message to itself stays in this process.
  Status send(const Operation& op, int64_t channel, int instance, int target,
              std::vector<interp::Tensor> payload) override;
  Expected<std::vector<interp::Tensor>> recv(const Operation& op, int64_t channel, int instance,
                                             std::vector<int> sources) override;

  // interpreter.run_parallel's infeed queue across processes: every process
  // holds the whole queue (`queue`, the same in each), and each infeed op of
  // any instance of any process takes the next element, as in one process:
  // the element whose index the counter `key` of `store` (shared by the
  // processes) hands it, in the order the instances reach their infeeds.
  void shareInfeed(std::vector<std::vector<interp::Tensor>> queue, std::shared_ptr<KeyValueStore> store,
                   std::string key);
  Expected<std::vector<interp::Tensor>> infeed(const Operation& op) override;

 private:
  collectives::Communicator* communicatorOf(int instance) const;
  std::map<int, collectives::Communicator*> byRank_;
  std::mutex mutex_;
  std::map<std::pair<int, int64_t>, std::deque<std::vector<interp::Tensor>>> toSelf_;  // by (instance, channel)
  std::vector<std::vector<interp::Tensor>> infeedQueue_;
  std::shared_ptr<KeyValueStore> infeedStore_;
  std::string infeedKey_;
};

}  // namespace kiln::distributed
