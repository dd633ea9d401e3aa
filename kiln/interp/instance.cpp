// Rendezvous and the thread-per-instance runner of multi-instance runs.
#include "kiln/interp/instance.h"

#include <optional>
#include <thread>

namespace kiln::interp {

Expected<std::vector<std::vector<Tensor>>> Rendezvous::exchange(const Operation& op,
                                                                int64_t occurrence, int instance,
                                                                std::vector<Tensor> operands) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto key = std::make_pair(&op, occurrence);
  Slot& slot = slots_[key];
  if (slot.contributions.empty()) slot.contributions.resize(numInstances_);
  slot.contributions[instance] = std::move(operands);
  ++slot.arrived;
  changed_.notify_all();
  // An instance that has exited will never arrive: waiting would hang.
  changed_.wait(lock, [&] { return slot.arrived == numInstances_ || exited_ > 0; });
  if (slot.arrived != numInstances_)
    return error(op.loc(), "'" + op.name() +
                               "' op: another instance stopped before reaching this collective");
  std::vector<std::vector<Tensor>> all = slot.contributions;
  if (++slot.departed == numInstances_) slots_.erase(key);
  return all;
}

void Rendezvous::instanceExited() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++exited_;
  changed_.notify_all();
}

Expected<std::vector<std::vector<Tensor>>> runAllInstances(int numReplicas, int numPartitions,
                                                           const InstanceRunner& runInstance) {
  if (numReplicas < 1 || numPartitions < 1) return error("numReplicas and numPartitions must be at least 1");
  int numInstances = numReplicas * numPartitions;
  Rendezvous rendezvous(numInstances);
  std::vector<int> indices(numInstances);
  for (int i = 0; i < numInstances; ++i) indices[i] = i;
  return runInstances(numReplicas, numPartitions, indices, rendezvous, runInstance);
}

Expected<std::vector<std::vector<Tensor>>> runInstances(int numReplicas, int numPartitions,
                                                        std::span<const int> indices, Rendezvous& rendezvous,
                                                        const InstanceRunner& runInstance) {
  int numInstances = numReplicas * numPartitions;
  std::vector<std::optional<Expected<std::vector<Tensor>>>> outcomes(indices.size());
  // The first instance to fail holds the root cause; the others may only
  // report that it stopped.
  std::mutex failureMutex;
  int firstFailure = -1;
  auto run = [&](size_t k) {
    int index = indices[k];
    Instance instance{index / numPartitions, index % numPartitions, numReplicas, numPartitions,
                      numInstances > 1 ? &rendezvous : nullptr};
    outcomes[k] = runInstance(instance);
    if (!*outcomes[k]) {
      std::lock_guard<std::mutex> lock(failureMutex);
      if (firstFailure < 0) firstFailure = int(k);
    }
    rendezvous.instanceExited();
  };
  if (indices.size() == 1) {
    run(0);
  } else {
    std::vector<std::thread> threads;
    for (size_t k = 0; k < indices.size(); ++k) threads.emplace_back(run, k);
    for (std::thread& t : threads) t.join();
  }
  if (firstFailure >= 0) return outcomes[firstFailure]->takeStatus();
  std::vector<std::vector<Tensor>> results;
  for (auto& outcome : outcomes) results.push_back(std::move(**outcome));
  return results;
}

}  // namespace kiln::interp
