// Which process of a multi-process run this is, as `kiln launch` (or
// another launcher) tells it through the environment:
//   KILN_PROCESS_ID      this process's index, 0 .. KILN_NUM_PROCESSES-1
//   KILN_NUM_PROCESSES   how many processes the run has
//   KILN_COORDINATOR     host:port of the key-value store they meet at
//   KILN_COLLECTIVE_TIMEOUT  seconds a collective or the start-up waits for
//                        the other processes before failing (default 60)
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
  std::chrono::milliseconds timeout{60000};
};

// The run this process is part of, or nullopt when KILN_NUM_PROCESSES is
// unset (a process on its own); an error naming the variable when one is
// missing or malformed.
Expected<std::optional<ProcessGroupInfo>> processGroupFromEnvironment();

// KILN_COLLECTIVE_TIMEOUT (default 60 s).
Expected<std::chrono::milliseconds> collectiveTimeoutFromEnvironment();

}  // namespace kiln::distributed
