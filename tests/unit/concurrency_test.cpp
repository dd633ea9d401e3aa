// The runtime from many threads at once, for ThreadSanitizer
// (scripts/sanitize.sh --tsan) as much as for its results: events waited on
// and subscribed to while they complete, a buffer read while it is deleted,
// executions chained on worker threads without waiting, the compile cache
// (in memory and on disk) filled by racing compiles, and clients whose
// devices lease thread pools made and dropped on several threads. Every
// result is checked against values computed here.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "kiln/runtime/runtime.h"

namespace kiln::runtime {
namespace {

constexpr int kThreads = 8;

// x + x + ... (eight adds in a loop of `trips` iterations): long enough that
// waiters subscribe while it runs, with a result computed easily here.
constexpr const char* kLoop = R"(
func.func @main(%x: tensor<64xf32>, %trips: tensor<i32>) -> tensor<64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<64xf32>
   cond {
    %c = stablehlo.compare LT, %i, %trips : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %n = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.add %acc, %x : tensor<64xf32>
    stablehlo.return %n, %a : tensor<i32>, tensor<64xf32>
  }
  return %r#1 : tensor<64xf32>
}
)";

// y = 2 * x + 1 on integers: chaining it n times from x gives 2^n (x + 1) - 1.
constexpr const char* kAffine = R"(
func.func @main(%x: tensor<32xi32>) -> tensor<32xi32> {
  %two = stablehlo.constant dense<2> : tensor<32xi32>
  %one = stablehlo.constant dense<1> : tensor<32xi32>
  %0 = stablehlo.multiply %x, %two : tensor<32xi32>
  %1 = stablehlo.add %0, %one : tensor<32xi32>
  return %1 : tensor<32xi32>
}
)";

std::unique_ptr<Client> makeClient(const std::string& backend, int numDevices = 1, std::string cacheDir = "") {
  ClientOptions options;
  options.backend = backend;
  options.numDevices = numDevices;
  options.cacheDir = std::move(cacheDir);
  Expected<std::unique_ptr<Client>> client = Client::create(options);
  EXPECT_TRUE(client.isOk()) << client.status().message();
  return client.isOk() ? std::move(*client) : nullptr;
}

template <typename T>
BufferRef upload(Client& client, const std::vector<T>& values, Type type, Device* device = nullptr) {
  Expected<BufferRef> buffer = client.bufferFromHost(values.data(), static_cast<int64_t>(values.size() * sizeof(T)),
                                                     type, device, Client::HostSemantics::kCopy);
  EXPECT_TRUE(buffer.isOk()) << buffer.status().message();
  return buffer.isOk() ? *buffer : nullptr;
}

BufferRef scalarI32(Client& client, int32_t value) {
  return upload(client, std::vector<int32_t>{value}, Type::tensor({}, Type::si32()));
}

class ConcurrencyByBackend : public ::testing::TestWithParam<const char*> {};

TEST_P(ConcurrencyByBackend, ManyThreadsWaitOnAndSubscribeToOneResult) {
  auto client = makeClient(GetParam());
  ASSERT_TRUE(client);
  Expected<std::unique_ptr<Executable>> exe = client->compile(std::string_view(kLoop));
  ASSERT_TRUE(exe.isOk()) << exe.status().message();
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i % 7) - 3;
  constexpr int kTrips = 2000;
  std::vector<BufferRef> args = {upload(*client, x, (*exe)->parameterTypes()[0]), scalarI32(*client, kTrips)};
  ExecuteOptions options;
  options.mayRunInline = false;  // the result completes on a worker while the threads below look at it
  Expected<std::vector<BufferRef>> results = (*exe)->execute(args, options);
  ASSERT_TRUE(results.isOk()) << results.status().message();
  BufferRef result = (*results)[0];
  std::atomic<int> callbacks{0}, callbackErrors{0}, wrongValues{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      result->readyEvent().onReady([&](Status s) {
        if (!s.isOk()) callbackErrors.fetch_add(1);
        callbacks.fetch_add(1);  // last: the test may end once all have counted
      });
      (void)result->readyEvent().isReady();
      std::vector<float> host(64);
      if (!result->toHost(host.data(), 64 * sizeof(float)).isOk()) {
        wrongValues.fetch_add(1);
        return;
      }
      for (int i = 0; i < 64; ++i)
        if (host[i] != x[i] * (kTrips + 1)) wrongValues.fetch_add(1);
    });
  for (std::thread& t : threads) t.join();
  // A waiter may run after await() returns (the completing thread wakes the
  // waiters first, then calls the callbacks): wait for them, for at most 60 s.
  for (int i = 0; i < 6000 && callbacks.load() < kThreads; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(callbacks.load(), kThreads);
  EXPECT_EQ(callbackErrors.load(), 0);
  EXPECT_EQ(wrongValues.load(), 0);
}

TEST_P(ConcurrencyByBackend, ChainsOnEveryThreadWithoutWaiting) {
  auto client = makeClient(GetParam());
  ASSERT_TRUE(client);
  Expected<std::unique_ptr<Executable>> exe = client->compile(std::string_view(kAffine));
  ASSERT_TRUE(exe.isOk()) << exe.status().message();
  constexpr int kLinks = 12;
  std::vector<std::vector<int32_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<int32_t> x(32);
      for (int i = 0; i < 32; ++i) x[i] = t * 100 + i;
      BufferRef current = upload(*client, x, (*exe)->parameterTypes()[0]);
      ExecuteOptions options;
      options.mayRunInline = (t % 2) == 0;  // half the threads hand every link to the workers
      for (int link = 0; link < kLinks; ++link) {
        Expected<std::vector<BufferRef>> next = (*exe)->execute(std::vector<BufferRef>{current}, options);
        if (!next.isOk()) return;  // reported below as a missing result
        current = (*next)[0];
      }
      got[t].resize(32);
      if (!current->toHost(got[t].data(), 32 * sizeof(int32_t)).isOk()) got[t].clear();
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(got[t].size(), 32u) << "thread " << t << " failed";
    for (int i = 0; i < 32; ++i) EXPECT_EQ(got[t][i], (1 << kLinks) * (t * 100 + i + 1) - 1) << t << " " << i;
  }
}

TEST_P(ConcurrencyByBackend, ReadersRaceADelete) {
  auto client = makeClient(GetParam());
  ASSERT_TRUE(client);
  std::vector<int32_t> values(1024);
  for (int i = 0; i < 1024; ++i) values[i] = i * 3;
  for (int round = 0; round < 20; ++round) {
    BufferRef buffer = upload(*client, values, Type::tensor({1024}, Type::si32()));
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        if (t == round % kThreads) return buffer->deleteBuffer();
        std::vector<int32_t> host(1024);
        Status s = buffer->toHost(host.data(), 4096);
        // Either all of the data or "deleted": never part of it, never a crash.
        if (s.isOk() ? std::memcmp(host.data(), values.data(), 4096) != 0 : s.code() != ErrorCode::FailedPrecondition)
          wrong.fetch_add(1);
      });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0) << "round " << round;
    EXPECT_TRUE(buffer->isDeleted());
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ConcurrencyByBackend, ::testing::Values("cpu", "interpreter"));

// Racing compiles of the same programs, and of different ones, through one
// client: each gets a working executable, in memory and through the disk cache.
TEST(Concurrency, CompileCacheFilledByRacingCompiles) {
  std::filesystem::path cacheDir = std::filesystem::path(::testing::TempDir()) /
                                   ("kiln_concurrency_cache_" + std::to_string(::getpid()));
  std::filesystem::remove_all(cacheDir);
  for (int pass = 0; pass < 2; ++pass) {  // the second pass reads what the first wrote to disk
    auto client = makeClient("cpu", 1, cacheDir.string());
    ASSERT_TRUE(client);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        // Threads 0..3 compile the same program; the others each one of their own.
        std::string text = kAffine;
        if (t >= 4) text.replace(text.find("dense<1>"), 8, "dense<" + std::to_string(t) + ">");
        Expected<std::unique_ptr<Executable>> exe = client->compile(std::string_view(text));
        if (!exe.isOk()) return (void)failures.fetch_add(1);
        std::vector<int32_t> x(32, 5), y(32);
        Expected<std::vector<BufferRef>> r =
            (*exe)->execute(std::vector<BufferRef>{upload(*client, x, (*exe)->parameterTypes()[0])});
        if (!r.isOk() || !(*r)[0]->toHost(y.data(), 128).isOk()) return (void)failures.fetch_add(1);
        int32_t want = 10 + (t >= 4 ? t : 1);
        for (int32_t v : y)
          if (v != want) failures.fetch_add(1);
      });
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(failures.load(), 0) << "pass " << pass;
  }
  std::filesystem::remove_all(cacheDir);
}

// Clients of two devices made, run and dropped on several threads at once:
// their devices lease thread pools (ThreadPool::lease) and their sharded runs
// meet in the shared-memory collectives.
TEST(Concurrency, ClientsMadeAndDroppedOnManyThreads) {
  constexpr const char* kAllReduce = R"(
module @m attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
    %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<16xf32>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
}
)";
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        auto client = makeClient(t % 2 ? "interpreter" : "cpu", 2);
        if (!client) return (void)failures.fetch_add(1);
        Expected<std::unique_ptr<Executable>> exe = client->compile(std::string_view(kAllReduce));
        if (!exe.isOk()) return (void)failures.fetch_add(1);
        std::vector<std::vector<BufferRef>> args;
        for (int d = 0; d < 2; ++d)
          args.push_back({upload(*client, std::vector<float>(16, static_cast<float>(d + t)),
                                 (*exe)->parameterTypes()[0], client->devices()[d])});
        auto results = (*exe)->executeSharded(args);
        if (!results.isOk()) return (void)failures.fetch_add(1);
        for (const auto& perDevice : *results) {
          std::vector<float> y(16);
          if (!perDevice[0]->toHost(y.data(), 64).isOk()) return (void)failures.fetch_add(1);
          for (float v : y)
            if (v != static_cast<float>(1 + 2 * t)) failures.fetch_add(1);
        }
      }
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace kiln::runtime
