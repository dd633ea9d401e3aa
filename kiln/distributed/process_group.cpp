#include "kiln/distributed/process_group.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "kiln/collectives/shared_memory.h"

namespace kiln::distributed {
namespace {

Expected<int64_t> integerVariable(const char* name, const char* text) {
  int64_t value = 0;
  std::string_view s(text);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size())
    return error(std::string(name) + "='" + text + "' is not a whole number");
  return value;
}

}  // namespace

Expected<std::optional<ProcessGroupInfo>> processGroupFromEnvironment() {
  const char* count = std::getenv("KILN_NUM_PROCESSES");
  if (!count) return std::optional<ProcessGroupInfo>();
  ProcessGroupInfo info;
  KILN_ASSIGN_OR_RETURN(int64_t numProcesses, integerVariable("KILN_NUM_PROCESSES", count));
  if (numProcesses < 1) return error("KILN_NUM_PROCESSES must be at least 1, is " + std::string(count));
  info.numProcesses = int(numProcesses);
  const char* id = std::getenv("KILN_PROCESS_ID");
  if (!id) return error("KILN_NUM_PROCESSES is set but KILN_PROCESS_ID is not");
  KILN_ASSIGN_OR_RETURN(int64_t processId, integerVariable("KILN_PROCESS_ID", id));
  if (processId < 0 || processId >= numProcesses)
    return error("KILN_PROCESS_ID=" + std::string(id) + " is not in 0.." + std::to_string(numProcesses - 1));
  info.processId = int(processId);
  const char* coordinator = std::getenv("KILN_COORDINATOR");
  if (!coordinator || !*coordinator)
    return error("KILN_NUM_PROCESSES is set but KILN_COORDINATOR (host:port of the key-value store) is not");
  info.coordinator = coordinator;
  info.timeout = std::chrono::milliseconds(int64_t(collectives::defaultTimeoutSeconds() * 1000));
  return std::optional<ProcessGroupInfo>(std::move(info));
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || !*name) return "localhost";
  return name;
}

Expected<int> processesOnThisHost(KeyValueStore& store, int processIndex, int numProcesses,
                                  std::chrono::milliseconds timeout, const std::string& keyPrefix) {
  auto key = [&](int p) { return keyPrefix + "/host/" + std::to_string(p); };
  std::string mine = hostName();
  KILN_RETURN_IF_ERROR(store.set(key(processIndex), mine));
  int sharing = 0;
  for (int p = 0; p < numProcesses; ++p) {
    KILN_ASSIGN_OR_RETURN(std::string host, store.get(key(p), timeout));
    sharing += host == mine;
  }
  return sharing;
}

}  // namespace kiln::distributed
