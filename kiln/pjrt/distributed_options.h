// What the plugin receives when JAX runs several processes
// (jax.distributed.initialize): the process's place in the run, from
// PJRT_Client_Create's create options "node_id" and "num_nodes" (jax's
// xla_bridge passes them to every plugin), and JAX's key-value store, from
// its kv_get_callback and kv_put_callback, as a distributed::KeyValueStore
// that Gloo's rendezvous runs over (kiln/distributed/). Kept apart from
// plugin.cpp so that it is tested without JAX.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "kiln/distributed/key_value_store.h"
#include "kiln/pjrt/pjrt_abi.h"

namespace kiln::pjrt {

struct ProcessPlace {
  int processId = 0;     // node_id
  int numProcesses = 1;  // num_nodes
};

// The place the create options give, or nullopt when they name none (one
// process); an error for a malformed or out-of-range value.
Expected<std::optional<ProcessPlace>> processPlaceFromOptions(std::span<const PJRT_NamedValue> options);

// How the plugin makes and reads its PJRT_Errors: JAX's callbacks report
// failure through `makeError` (which the plugin hands them), and
// `takeError` turns what they return into a Status and frees it.
struct PluginErrors {
  PJRT_CallbackError makeError;
  std::function<Status(PJRT_Error*)> takeError;
};

// JAX's key-value store, or null when `args` carries no callbacks.
std::shared_ptr<distributed::KeyValueStore> keyValueStoreFromCallbacks(const PJRT_Client_Create_Args& args,
                                                                       PluginErrors errors);

}  // namespace kiln::pjrt
