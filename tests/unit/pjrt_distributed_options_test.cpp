// What the PJRT plugin gets from jax.distributed.initialize: node_id and
// num_nodes among the create options, and JAX's key-value store through
// kv_get_callback / kv_put_callback, here a fake in-memory store with JAX's
// contract (a get waits up to its timeout; failures are PJRT_Errors made by
// the plugin's callback_error). Gloo connects through it.
#include "kiln/pjrt/distributed_options.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "kiln/distributed/gloo_communicator.h"

struct PJRT_Error {  // this test's errors (the plugin has its own)
  PJRT_Error_Code code;
  std::string message;
};

namespace kiln::pjrt {
namespace {

using namespace std::chrono_literals;

// JAX's side: a store behind the two C callbacks.
struct FakeJaxStore {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::string, std::string> values;

  static PJRT_Error* get(PJRT_KeyValueGetCallback_Args* a) {
    auto* self = static_cast<FakeJaxStore*>(a->user_arg);
    std::string key(a->key, a->key_size);
    std::unique_lock<std::mutex> lock(self->mutex);
    if (!self->changed.wait_for(lock, std::chrono::milliseconds(a->timeout_in_ms),
                                [&] { return self->values.count(key) > 0; })) {
      std::string message = "DEADLINE_EXCEEDED waiting for " + key;
      return (*a->callback_error)(PJRT_Error_Code_DEADLINE_EXCEEDED, message.data(), message.size());
    }
    const std::string& value = self->values[key];
    a->value = new char[value.size()];
    std::memcpy(a->value, value.data(), value.size());
    a->value_size = value.size();
    a->value_deleter_callback = [](char* p) { delete[] p; };
    return nullptr;
  }

  static PJRT_Error* put(PJRT_KeyValuePutCallback_Args* a) {
    auto* self = static_cast<FakeJaxStore*>(a->user_arg);
    {
      std::lock_guard<std::mutex> lock(self->mutex);
      self->values[std::string(a->key, a->key_size)] = std::string(a->value, a->value_size);
    }
    self->changed.notify_all();
    return nullptr;
  }

  std::shared_ptr<distributed::KeyValueStore> asStore() {
    PJRT_Client_Create_Args args{};
    args.kv_get_callback = &FakeJaxStore::get;
    args.kv_get_user_arg = this;
    args.kv_put_callback = &FakeJaxStore::put;
    args.kv_put_user_arg = this;
    PluginErrors errors{
        [](PJRT_Error_Code code, const char* message, size_t size) { return new PJRT_Error{code, std::string(message, size)}; },
        [](PJRT_Error* e) {
          Status s = error(e->message);
          delete e;
          return s;
        }};
    return keyValueStoreFromCallbacks(args, errors);
  }
};

PJRT_NamedValue intOption(const char* name, int64_t value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof v;
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kInt64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

TEST(PjrtDistributedOptions, TheProcessPlaceComesFromNodeIdAndNumNodes) {
  std::vector<PJRT_NamedValue> none;
  EXPECT_FALSE(processPlaceFromOptions(none)->has_value());
  std::vector<PJRT_NamedValue> two = {intOption("num_nodes", 2), intOption("node_id", 1)};
  auto place = processPlaceFromOptions(two);
  ASSERT_TRUE(place.isOk() && place->has_value());
  EXPECT_EQ((*place)->processId, 1);
  EXPECT_EQ((*place)->numProcesses, 2);
  std::vector<PJRT_NamedValue> outside = {intOption("num_nodes", 2), intOption("node_id", 2)};
  EXPECT_FALSE(processPlaceFromOptions(outside).isOk());
  std::vector<PJRT_NamedValue> half = {intOption("node_id", 0)};
  EXPECT_FALSE(processPlaceFromOptions(half).isOk());
}

TEST(PjrtDistributedOptions, NoCallbacksNoStore) {
  PJRT_Client_Create_Args args{};
  EXPECT_EQ(keyValueStoreFromCallbacks(args, {}), nullptr);
}

TEST(PjrtDistributedOptions, JaxsStoreSetsGetsAndTimesOutClearly) {
  FakeJaxStore jax;
  auto store = jax.asStore();
  ASSERT_TRUE(store->set("k", std::string("a\0b", 3)).isOk());
  Expected<std::string> value = store->get("k", 1s);
  ASSERT_TRUE(value.isOk()) << value.status().message();
  EXPECT_EQ(*value, std::string("a\0b", 3));
  Expected<std::string> missing = store->get("missing", 50ms);
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().diag().message.find("JAX's key-value store had no 'missing': DEADLINE_EXCEEDED"),
            std::string::npos)
      << missing.status().message();
}

TEST(PjrtDistributedOptions, GlooConnectsThroughJaxsStore) {
  if (!distributed::glooAvailable()) GTEST_SKIP() << "built without Gloo";
  FakeJaxStore jax;
  std::vector<std::vector<int32_t>> gathered(2, std::vector<int32_t>(2));
  std::vector<Status> statuses(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank)
    threads.emplace_back([&, rank] {
      auto communicator = distributed::connectGloo(jax.asStore(), rank, 2, {.keyPrefix = "jax", .timeout = 20s});
      if (!communicator) return void(statuses[rank] = communicator.takeStatus());
      int32_t mine = 10 + rank;
      statuses[rank] = (*communicator)->allGather(std::vector<int>{0, 1}, &mine, gathered[rank].data(), 4);
    });
  for (std::thread& t : threads) t.join();
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(statuses[rank].isOk()) << statuses[rank].message();
    EXPECT_EQ(gathered[rank], (std::vector<int32_t>{10, 11}));
  }
}

}  // namespace
}  // namespace kiln::pjrt
