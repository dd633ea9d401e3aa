#include "kiln/distributed/process_run.h"

#include <unistd.h>

#include <cstdlib>

#include "kiln/distributed/gloo_communicator.h"
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
  return local;
}

}  // namespace kiln::distributed
