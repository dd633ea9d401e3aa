// A process's share of a multi-process run of one module: which instances of
// the module's replicas x partitions grid it runs, and a Gloo communicator
// for each, whose ranks are the run's instances across every process.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kiln/collectives/communicator.h"
#include "kiln/distributed/key_value_store.h"
#include "kiln/distributed/process_group.h"

namespace kiln::distributed {

struct LocalInstances {
  std::vector<int> instances;  // global instance indices, ascending
  std::vector<std::unique_ptr<collectives::Communicator>> communicators;  // one per instance
  std::shared_ptr<KeyValueStore> store;  // what the communicators meet through
};

// The instances process p of P runs of `numInstances`: the p-th of P equal,
// contiguous blocks (an error when P does not divide the count).
Expected<std::vector<int>> instancesOfProcess(const ProcessGroupInfo& process, int numInstances);

// Connects this process's instances to the rest of the run (every process
// calls it with the same `keyPrefix`, one not used before in the run).
// Collectives among them meet in shared memory (shareHostCollectives).
Expected<LocalInstances> joinRun(const ProcessGroupInfo& process, int numInstances, const std::string& keyPrefix);

// Wraps the communicators of this process's `instances` (global ranks of a
// run of `numInstances`, in the order of `communicators`: their Gloo
// handles) so that a collective whose ranks are all among them meets in
// shared memory (kiln/collectives/shared_memory.h), the rest going on as
// before; send/recv's messages stay on the wrapped communicator. A handle
// destroyed marks its instance stopped, so that a local peer waiting for it
// fails at once. Nothing to do for fewer than two instances.
void shareLocalCollectives(std::vector<std::unique_ptr<collectives::Communicator>>& communicators,
                           std::span<const int> instances, int numInstances, std::chrono::milliseconds timeout);

// shareLocalCollectives, and also, when other processes of the run share
// this host, a collective whose ranks are all on this host meets in a POSIX
// shared-memory segment of the host's processes (host_shared_memory.h).
// Every process of the run calls it with the same `keyPrefix` (one not used
// before in the run) and store: the processes find their host-mates there.
// KILN_HOST_SHARED_MEMORY=0 keeps such collectives on Gloo.
Status shareHostCollectives(std::vector<std::unique_ptr<collectives::Communicator>>& communicators,
                            std::span<const int> instances, int numInstances, KeyValueStore& store,
                            const std::string& keyPrefix, std::chrono::milliseconds timeout);

}  // namespace kiln::distributed
