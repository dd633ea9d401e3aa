// Collectives between the instances of one process (threads of one run, one
// per replica x partition or device), through shared memory: each member
// deposits pointers to its buffers, the members meet at a barrier, and each
// reads its peers' memory directly. all_reduce splits the elements into one
// slice per member: each member reduces its slice across every member's
// input in group order, a cache-sized tile at a time, and writes each
// reduced tile into every member's output. Each member reads and writes
// about the buffer's size once, all members at once, and results do not
// depend on timing.
#pragma once

#include <memory>

#include "kiln/collectives/communicator.h"
#include "kiln/support/thread_pool.h"

namespace kiln::collectives {

// KILN_COLLECTIVE_TIMEOUT_S (seconds, may be fractional), else 300: how long
// a member waits at a collective for its peers before failing.
double defaultTimeoutSeconds();

// The members of one run. Not copyable; outlives every member's calls.
class SharedMemoryWorld {
 public:
  explicit SharedMemoryWorld(int size, double timeoutSeconds = defaultTimeoutSeconds());
  ~SharedMemoryWorld();
  SharedMemoryWorld(const SharedMemoryWorld&) = delete;
  SharedMemoryWorld& operator=(const SharedMemoryWorld&) = delete;

  int size() const;
  // The handle of global rank `rank`, for that member's thread alone.
  Communicator& member(int rank);
  // Lets member `rank` split its share of large reductions across `pool`
  // (the threads of the instance it serves, from its own thread; null, the
  // default: that thread alone). The order of every element's fold stays
  // group order.
  void setThreads(int rank, ThreadPool* pool);
  // Called once by each member when it stops running (finished or failed):
  // a peer waiting for it at a collective fails now rather than at the
  // timeout.
  void memberExited(int rank);

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace kiln::collectives
