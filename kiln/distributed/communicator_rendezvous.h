// The interpreter's rendezvous (kiln/interp/instance.h) for a run whose
// instances span processes: the collectives the cpu back end does not run
// natively over the communicator (an all_reduce whose body is not one
// combining op, quantized permutes, ...) exchange whole operands here, by an
// all-gather over every instance of the run, and evaluate with the
// interpreter's kernels as in one process.
#pragma once

#include <map>
#include <span>
#include <vector>

#include "kiln/collectives/communicator.h"
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
  // Not across processes yet: an error at the op rather than a wait for a
  // peer this process cannot see.
  Status send(const Operation& op, int64_t channel, int instance, int target,
              std::vector<interp::Tensor> payload) override;
  Expected<std::vector<interp::Tensor>> recv(const Operation& op, int64_t channel, int instance,
                                             std::vector<int> sources) override;

 private:
  std::map<int, collectives::Communicator*> byRank_;
};

}  // namespace kiln::distributed
