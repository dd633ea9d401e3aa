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

}  // namespace kiln::distributed
