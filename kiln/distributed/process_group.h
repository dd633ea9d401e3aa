// Which process of a multi-process run this is, as `kiln launch` (or
// another launcher) tells it through the environment:
//   KILN_PROCESS_ID      this process's index, 0 .. KILN_NUM_PROCESSES-1
//   KILN_NUM_PROCESSES   how many processes the run has
//   KILN_COORDINATOR     host:port of the key-value store they meet at
// and KILN_COLLECTIVE_TIMEOUT_S (kiln/collectives/shared_memory.h): how long
// connecting, and each collective, waits for the other processes.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "kiln/distributed/key_value_store.h"
#include "kiln/support/diagnostic.h"

namespace kiln::distributed {

struct ProcessGroupInfo {
  int processId = 0;
  int numProcesses = 1;
  std::string coordinator;  // host:port
  std::chrono::milliseconds timeout{300000};
};

// The run this process is part of, or nullopt when KILN_NUM_PROCESSES is
// unset (a process on its own); an error naming the variable when one is
// missing or malformed.
Expected<std::optional<ProcessGroupInfo>> processGroupFromEnvironment();

// How many of the run's processes share this one's host (by host name), this
// one included: each publishes its host name under `keyPrefix/host/P` and
// reads the others'. Processes on one host split its cores between them.
Expected<int> processesOnThisHost(KeyValueStore& store, int processIndex, int numProcesses,
                                  std::chrono::milliseconds timeout, const std::string& keyPrefix);

// This host's name (gethostname), or "localhost" when it has none.
std::string hostName();

}  // namespace kiln::distributed
