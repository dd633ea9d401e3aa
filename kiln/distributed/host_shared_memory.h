// Collectives among the ranks of a multi-process run that live on one host,
// across processes, through one POSIX shared-memory segment instead of TCP on
// loopback. The processes find each other through the run's key-value store
// (each publishes, for each of its ranks, an identity of its host: host name,
// boot id and mount/IPC/PID namespaces); the lowest rank's process creates
// the segment, the others map it, and it is unlinked as soon as all have (or
// one could not, when every process of the host keeps to Gloo instead).
//
// In the segment each rank has a slot (KILN_HOST_SHM_SLOT_BYTES, default
// 1 MiB) and each ordered pair of ranks a barrier counter. A collective moves
// its buffers a slot at a time: each member copies its part into its slot,
// the members meet at a barrier, each reads (and for all_reduce folds, in
// group order, so the bits equal the in-process communicator's and Gloo's)
// what it needs from its peers' slots, and they meet again before a slot is
// reused. A call of a group of at most KILN_HOST_SHM_DIRECT_MEMBERS (default
// 2) that moves KILN_HOST_SHM_DIRECT_BYTES (default 256 KiB) or more instead
// puts the addresses of its buffers in the slot and each member reads its
// peers' buffers in place (process_vm_readv; all_reduce as the in-process
// communicator does, each member folding a slice), meeting two or three
// times a call instead of two or three times a slot; when some process of
// the host may not read another's memory, every call uses the slots. A barrier waits for each peer's counter towards this rank: a spin,
// then a futex on the shared word, looking every 20 ms for a peer that
// stopped (its handle destroyed, or its process gone) and failing then, or
// at the timeout.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>

#include "kiln/collectives/communicator.h"
#include "kiln/distributed/key_value_store.h"

namespace kiln::distributed {

class HostSharedMemory {
 public:
  // Every process of the run calls it, with its own ranks (`instances`,
  // global ranks of `numInstances`), the same `keyPrefix` (one not used
  // before in the run) and the same store. Null when no other process of the
  // run shares this host, when KILN_HOST_SHARED_MEMORY=0, or when the
  // segment could not be made or mapped by every process of the host (every
  // one of them then gets null alike). An error only when the store fails.
  static Expected<std::shared_ptr<HostSharedMemory>> connect(KeyValueStore& store, const std::string& keyPrefix,
                                                             std::span<const int> instances, int numInstances,
                                                             std::chrono::milliseconds timeout);
  ~HostSharedMemory();
  HostSharedMemory(const HostSharedMemory&) = delete;
  HostSharedMemory& operator=(const HostSharedMemory&) = delete;

  // Whether every rank of `group` is on this host (a member of the segment).
  bool covers(std::span<const int> group) const;
  // The handle of this process's rank `rank`, for that rank's thread alone.
  collectives::Communicator& member(int rank);
  // Marks `rank` (this process's) stopped: peers waiting for it fail now.
  void memberExited(int rank);
  // Calls that move at least this many bytes read their peers' buffers in
  // place; -1: none do (KILN_HOST_SHM_DIRECT_BYTES=off, or some process of
  // the host may not read another's memory).
  int64_t directBytes() const;

  struct State;

 private:
  explicit HostSharedMemory(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace kiln::distributed
