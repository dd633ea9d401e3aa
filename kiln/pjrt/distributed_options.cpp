#include "kiln/pjrt/distributed_options.h"

#include <string>

namespace kiln::pjrt {
namespace {

std::string_view nameOf(const PJRT_NamedValue& v) { return std::string_view(v.name, v.name_size); }

}  // namespace

Expected<std::optional<ProcessPlace>> processPlaceFromOptions(std::span<const PJRT_NamedValue> options) {
  std::optional<int64_t> nodeId, numNodes;
  for (const PJRT_NamedValue& v : options) {
    std::string_view name = nameOf(v);
    if (name != "node_id" && name != "num_nodes") continue;
    if (v.type != PJRT_NamedValue_kInt64)
      return error(ErrorCode::InvalidArgument, "create option '" + std::string(name) + "' must be an integer");
    (name == "node_id" ? nodeId : numNodes) = v.int64_value;
  }
  if (!nodeId && !numNodes) return std::optional<ProcessPlace>();
  if (!nodeId || !numNodes)
    return error(ErrorCode::InvalidArgument, "create options give one of node_id and num_nodes without the other");
  if (*numNodes < 1 || *nodeId < 0 || *nodeId >= *numNodes)
    return error(ErrorCode::InvalidArgument, "create options: node_id " + std::to_string(*nodeId) +
                                                 " is not a process of num_nodes " + std::to_string(*numNodes));
  return std::optional<ProcessPlace>(ProcessPlace{int(*nodeId), int(*numNodes)});
}

std::shared_ptr<distributed::KeyValueStore> keyValueStoreFromCallbacks(const PJRT_Client_Create_Args& args,
                                                                       PluginErrors errors) {
  if (!args.kv_get_callback || !args.kv_put_callback) return nullptr;
  // The callbacks take a pointer to the function that makes errors: one
  // copy that lives as long as the store.
  auto makeError = std::make_shared<PJRT_CallbackError>(errors.makeError);
  auto takeError = errors.takeError;
  PJRT_KeyValueGetCallback get = args.kv_get_callback;
  PJRT_KeyValuePutCallback put = args.kv_put_callback;
  void* getArg = args.kv_get_user_arg;
  void* putArg = args.kv_put_user_arg;
  auto getter = [=](std::string_view key, std::chrono::milliseconds timeout) -> Expected<std::string> {
    PJRT_KeyValueGetCallback_Args a{};
    a.struct_size = sizeof a;
    a.key = key.data();
    a.key_size = key.size();
    a.timeout_in_ms = int(std::min<int64_t>(timeout.count(), INT32_MAX));
    a.callback_error = makeError.get();
    a.user_arg = getArg;
    if (PJRT_Error* e = get(&a)) {
      Status s = takeError(e);
      return error(ErrorCode::FailedPrecondition,
                   "JAX's key-value store had no '" + std::string(key) + "': " + s.diag().message);
    }
    std::string value(a.value, a.value_size);
    if (a.value_deleter_callback) a.value_deleter_callback(a.value);
    return value;
  };
  auto setter = [=](std::string_view key, std::string_view value) -> Status {
    PJRT_KeyValuePutCallback_Args a{};
    a.struct_size = sizeof a;
    a.key = key.data();
    a.key_size = key.size();
    a.value = value.data();
    a.value_size = value.size();
    a.callback_error = makeError.get();
    a.user_arg = putArg;
    if (PJRT_Error* e = put(&a)) {
      Status s = takeError(e);
      return error(ErrorCode::FailedPrecondition,
                   "JAX's key-value store did not take '" + std::string(key) + "': " + s.diag().message);
    }
    return Status::ok();
  };
  return std::make_shared<distributed::CallbackKeyValueStore>(getter, setter);
}

}  // namespace kiln::pjrt
