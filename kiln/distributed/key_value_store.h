// The key-value store the processes of a multi-process run meet through:
// each process publishes what the others need to connect to it (Gloo's
// addresses) and waits for theirs. Two kinds: kiln's own TCP store
// (tcp_store.h), served by `kiln launch`, and an adapter over callbacks, for
// the store JAX hands a PJRT plugin (PJRT_Client_Create's kv_get_callback
// and kv_put_callback).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kiln/support/diagnostic.h"

namespace kiln::distributed {

class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  // Sets `key` to `value` (a key is set once: setting it again replaces it).
  virtual Status set(std::string_view key, std::string_view value) = 0;
  // The value of `key`, waiting up to `timeout` for some process to set it;
  // an error naming the key when it is still unset by then.
  virtual Expected<std::string> get(std::string_view key, std::chrono::milliseconds timeout) = 0;
  // Adds `delta` to the integer under `key` (unset: 0) at once for all
  // processes and returns the sum: a counter the processes share (kiln
  // test's infeed queue across processes). Only kiln's own store has it.
  virtual Expected<int64_t> add(std::string_view key, int64_t delta) {
    (void)delta;
    return error(ErrorCode::Unimplemented, "this key-value store has no shared counter ('" + std::string(key) + "')");
  }
};

// A store that calls `get` and `set` (e.g. the PJRT plugin's wrappers of
// JAX's callbacks).
class CallbackKeyValueStore final : public KeyValueStore {
 public:
  using Getter = std::function<Expected<std::string>(std::string_view key, std::chrono::milliseconds timeout)>;
  using Setter = std::function<Status(std::string_view key, std::string_view value)>;
  CallbackKeyValueStore(Getter get, Setter set) : get_(std::move(get)), set_(std::move(set)) {}
  Status set(std::string_view key, std::string_view value) override { return set_(key, value); }
  Expected<std::string> get(std::string_view key, std::chrono::milliseconds timeout) override {
    return get_(key, timeout);
  }

 private:
  Getter get_;
  Setter set_;
};

// "the key-value store had no 'KEY' after N s": the one wording of a timeout.
Status keyTimeoutError(std::string_view key, std::chrono::milliseconds timeout);

}  // namespace kiln::distributed
