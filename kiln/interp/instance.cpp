// Rendezvous and the thread-per-instance runner of multi-instance runs.
#include "kiln/interp/instance.h"

#include <algorithm>
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
  // An instance that has exited will never arrive: waiting would hang. Nor
  // will one waiting in a recv that nothing can satisfy, or at another
  // collective.
  waiting_[instance] = Wait{key};
  changed_.notify_all();
  changed_.wait(lock, [&] { return slot.arrived == numInstances_ || exited_ > 0 || deadlocked(); });
  waiting_.erase(instance);
  if (slot.arrived != numInstances_)
    return error(op.loc(), "'" + op.name() + "' op: " +
                               (exited_ > 0 ? "another instance stopped before reaching this collective"
                                            : "the instances wait on each other and none can go on (a recv nothing "
                                              "is sent to, or collectives reached in different orders)"));
  std::vector<std::vector<Tensor>> all = slot.contributions;
  if (++slot.departed == numInstances_) slots_.erase(key);
  return all;
}

void Rendezvous::instanceExited() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++exited_;
  changed_.notify_all();
}

Status Rendezvous::send(const Operation& op, int64_t channel, int instance, int target, std::vector<Tensor> payload) {
  std::lock_guard<std::mutex> lock(mutex_);
  messages_.push_back({&op, channel, instance, target, std::move(payload)});
  changed_.notify_all();
  return Status::ok();
}

bool Rendezvous::matches(const Message& m, int instance, const Wait& wait) const {
  return m.channel == wait.channel && (m.target < 0 || m.target == instance) &&
         (wait.sources.empty() || std::find(wait.sources.begin(), wait.sources.end(), m.source) != wait.sources.end());
}

bool Rendezvous::canEnd(int instance, const Wait& wait) const {
  if (wait.channel < 0) {
    auto it = slots_.find(wait.slot);
    return exited_ > 0 || (it != slots_.end() && it->second.arrived == numInstances_);
  }
  return std::any_of(messages_.begin(), messages_.end(), [&](const Message& m) { return matches(m, instance, wait); });
}

bool Rendezvous::deadlocked() const {
  if (exited_ + static_cast<int>(waiting_.size()) < numInstances_) return false;
  for (const auto& [instance, wait] : waiting_)
    if (canEnd(instance, wait)) return false;
  return true;
}

Expected<std::vector<Tensor>> Rendezvous::recv(const Operation& op, int64_t channel, int instance,
                                               std::vector<int> sources) {
  std::unique_lock<std::mutex> lock(mutex_);
  Wait wait{{}, channel, std::move(sources)};
  waiting_[instance] = wait;
  changed_.notify_all();  // a peer's wait may have become a deadlock
  changed_.wait(lock, [&] { return canEnd(instance, wait) || deadlocked(); });
  waiting_.erase(instance);
  auto it = std::find_if(messages_.begin(), messages_.end(), [&](const Message& m) { return matches(m, instance, wait); });
  if (it == messages_.end())
    return error(op.loc(), "'" + op.name() + "' op: nothing was sent to this instance on channel " +
                               std::to_string(channel) +
                               " and nothing can be: every other instance has stopped or waits");
  std::vector<Tensor> payload = std::move(it->payload);
  messages_.erase(it);
  return payload;
}

Status Rendezvous::checkAllReceived() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (messages_.empty()) return Status::ok();
  const Message& m = messages_.front();
  return error(m.send->loc(), "'" + m.send->name() + "' op: what instance " + std::to_string(m.source) +
                                  " sent on channel " + std::to_string(m.channel) +
                                  (m.target >= 0 ? " to instance " + std::to_string(m.target) : std::string()) +
                                  " was never received (no recv on that channel took it)");
}

void Rendezvous::setInfeed(std::vector<std::vector<Tensor>> queue) {
  std::lock_guard<std::mutex> lock(mutex_);
  infeed_ = std::move(queue);
  infeedTaken_ = 0;
  hostQueues_ = true;
}

Expected<std::vector<Tensor>> Rendezvous::infeed(const Operation& op) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (infeedTaken_ == infeed_.size())
    return error(op.loc(), "'" + op.name() + "' op: the run's infeed queue is empty (" +
                               std::to_string(infeed_.size()) + (infeed_.size() == 1 ? " element was" : " elements were") +
                               " queued, by run_parallel's `infeed`)");
  return std::move(infeed_[infeedTaken_++]);
}

void Rendezvous::outfeed(int instance, std::vector<Tensor> values) {
  std::lock_guard<std::mutex> lock(mutex_);
  outfeed_.emplace_back(instance, std::move(values));
}

std::vector<std::pair<int, std::vector<Tensor>>> Rendezvous::outfeedValues() {
  std::lock_guard<std::mutex> lock(mutex_);
  return outfeed_;
}

Expected<std::vector<std::vector<Tensor>>> runAllInstances(int numReplicas, int numPartitions,
                                                           const InstanceRunner& runInstance) {
  if (numReplicas < 1 || numPartitions < 1) return error("numReplicas and numPartitions must be at least 1");
  int numInstances = numReplicas * numPartitions;
  Rendezvous rendezvous(numInstances);
  std::vector<int> indices(numInstances);
  for (int i = 0; i < numInstances; ++i) indices[i] = i;
  KILN_ASSIGN_OR_RETURN(auto results, runInstances(numReplicas, numPartitions, indices, rendezvous, runInstance));
  KILN_RETURN_IF_ERROR(rendezvous.checkAllReceived());
  return results;
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
                      numInstances > 1 || rendezvous.hasHostQueues() ? &rendezvous : nullptr};
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
