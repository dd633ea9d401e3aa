#include "kiln/distributed/process_run.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "kiln/collectives/permute.h"
#include "kiln/collectives/shared_memory.h"
#include "kiln/distributed/gloo_communicator.h"
#include "kiln/distributed/host_shared_memory.h"
#include "kiln/distributed/tcp_store.h"

namespace kiln::distributed {
namespace {

// The address the other processes reach this one at: $KILN_GLOO_HOST, else
// loopback when the store is on this host (kiln launch), else this host's
// name.
std::string localAddress(const std::string& coordinator) {
  if (const char* host = std::getenv("KILN_GLOO_HOST"); host && *host) return host;
  std::string storeHost = coordinator.substr(0, coordinator.rfind(':'));
  if (storeHost == "127.0.0.1" || storeHost == "localhost") return "127.0.0.1";
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "127.0.0.1";
  return name;
}

// One instance's handle when the process runs several, or shares its host
// with other processes of the run: collectives whose ranks are all this
// process's instances meet in shared memory in-process (no sockets, no event
// loop, a barrier in memory, each member reading its peers' buffers), those
// whose ranks are all on this host meet in the host's shared-memory segment
// (host_shared_memory.h), the rest go over Gloo. All fold in group order, so
// the bits are the same either way; every member of a group sees the same
// ranks and so takes the same way. send/recv's messages always go over Gloo.
class LocalFirstCommunicator final : public collectives::Communicator {
 public:
  LocalFirstCommunicator(std::unique_ptr<collectives::Communicator> gloo,
                         std::shared_ptr<collectives::SharedMemoryWorld> world, std::shared_ptr<const std::set<int>> local,
                         std::shared_ptr<HostSharedMemory> host)
      : gloo_(std::move(gloo)), world_(std::move(world)), local_(std::move(local)), host_(std::move(host)),
        rank_(gloo_->rank()) {}
  // Stopping lets a local peer waiting for this one fail at once.
  ~LocalFirstCommunicator() override {
    if (world_) world_->memberExited(rank_);
    if (host_) host_->memberExited(rank_);
  }

  int rank() const override { return rank_; }
  int size() const override { return gloo_->size(); }

  Status allReduce(std::span<const int> group, TypeKind type, collectives::Reduction op, const void* in, void* out,
                   int64_t count) override {
    return over(group).allReduce(group, type, op, in, out, count);
  }
  Status reduceScatter(std::span<const int> group, TypeKind type, collectives::Reduction op, const void* in,
                       void* out, int64_t countPerMember) override {
    return over(group).reduceScatter(group, type, op, in, out, countPerMember);
  }
  Status allGather(std::span<const int> group, const void* in, void* out, int64_t bytesPerMember) override {
    return over(group).allGather(group, in, out, bytesPerMember);
  }
  Status allToAll(std::span<const int> group, const void* in, void* out, int64_t bytesPerBlock) override {
    return over(group).allToAll(group, in, out, bytesPerBlock);
  }
  Status collectivePermute(std::span<const std::pair<int, int>> pairs, const void* in, void* out,
                           int64_t bytes) override {
    return over(collectives::permuteRoles(pairs, rank_).named).collectivePermute(pairs, in, out, bytes);
  }
  Status broadcast(std::span<const int> group, int rootIndexInGroup, const void* in, void* out,
                   int64_t bytes) override {
    return over(group).broadcast(group, rootIndexInGroup, in, out, bytes);
  }
  Status sendTo(int target, int64_t channel, const void* in, int64_t bytes) override {
    return gloo_->sendTo(target, channel, in, bytes);
  }
  Status recvFrom(int source, int64_t channel, void* out, int64_t bytes) override {
    return gloo_->recvFrom(source, channel, out, bytes);
  }
  Status finishSends() override { return gloo_->finishSends(); }

 private:
  collectives::Communicator& over(std::span<const int> group) {
    if (world_ && std::all_of(group.begin(), group.end(), [&](int r) { return local_->count(r) > 0; }))
      return world_->member(rank_);
    if (host_ && host_->covers(group)) return host_->member(rank_);
    return *gloo_;
  }

  std::unique_ptr<collectives::Communicator> gloo_;
  std::shared_ptr<collectives::SharedMemoryWorld> world_;  // null: one instance in this process
  std::shared_ptr<const std::set<int>> local_;
  std::shared_ptr<HostSharedMemory> host_;  // null: no other process of the run on this host
  int rank_;
};

}  // namespace

Expected<std::vector<int>> instancesOfProcess(const ProcessGroupInfo& process, int numInstances) {
  if (numInstances % process.numProcesses != 0)
    return error(ErrorCode::InvalidArgument,
                 "the module declares " + std::to_string(numInstances) + " instance(s) (replicas x partitions), which " +
                     std::to_string(process.numProcesses) + " processes cannot share evenly");
  int each = numInstances / process.numProcesses;
  std::vector<int> instances;
  for (int i = 0; i < each; ++i) instances.push_back(process.processId * each + i);
  return instances;
}

Expected<LocalInstances> joinRun(const ProcessGroupInfo& process, int numInstances, const std::string& keyPrefix) {
  LocalInstances local;
  KILN_ASSIGN_OR_RETURN(local.instances, instancesOfProcess(process, numInstances));
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<TcpStoreClient> client,
                        TcpStoreClient::connect(process.coordinator, process.timeout));
  local.store = std::move(client);
  GlooOptions options{.keyPrefix = keyPrefix, .timeout = process.timeout, .hostname = localAddress(process.coordinator)};
  KILN_ASSIGN_OR_RETURN(local.communicators, connectGlooRanks(local.store, local.instances, numInstances, options));
  KILN_RETURN_IF_ERROR(shareHostCollectives(local.communicators, local.instances, numInstances, *local.store,
                                            keyPrefix, process.timeout));
  return local;
}

void shareLocalCollectives(std::vector<std::unique_ptr<collectives::Communicator>>& communicators,
                           std::span<const int> instances, int numInstances, std::chrono::milliseconds timeout) {
  if (instances.size() < 2) return;
  auto world = std::make_shared<collectives::SharedMemoryWorld>(numInstances, timeout.count() / 1000.0);
  auto ours = std::make_shared<const std::set<int>>(instances.begin(), instances.end());
  for (std::unique_ptr<collectives::Communicator>& c : communicators)
    c = std::make_unique<LocalFirstCommunicator>(std::move(c), world, ours, nullptr);
}

Status shareHostCollectives(std::vector<std::unique_ptr<collectives::Communicator>>& communicators,
                            std::span<const int> instances, int numInstances, KeyValueStore& store,
                            const std::string& keyPrefix, std::chrono::milliseconds timeout) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<HostSharedMemory> host,
                        HostSharedMemory::connect(store, keyPrefix, instances, numInstances, timeout));
  if (!host) {
    shareLocalCollectives(communicators, instances, numInstances, timeout);
    return Status::ok();
  }
  std::shared_ptr<collectives::SharedMemoryWorld> world;
  if (instances.size() >= 2)
    world = std::make_shared<collectives::SharedMemoryWorld>(numInstances, timeout.count() / 1000.0);
  auto ours = std::make_shared<const std::set<int>>(instances.begin(), instances.end());
  for (std::unique_ptr<collectives::Communicator>& c : communicators)
    c = std::make_unique<LocalFirstCommunicator>(std::move(c), world, ours, host);
  return Status::ok();
}

}  // namespace kiln::distributed
