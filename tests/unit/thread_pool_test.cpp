// ThreadPool::parallelFor: every index runs exactly once, small loops stay on
// the calling thread, and many callers can share one pool.
#include "kiln/support/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace kiln {
namespace {

// Counts how often parallelFor visits each index of [0, n).
std::vector<int> visits(ThreadPool& pool, int64_t n, int maxChunks = 0) {
  std::vector<std::atomic<int>> counts(static_cast<size_t>(n));
  pool.parallelFor(n, [&](int64_t begin, int64_t end) {
    EXPECT_LE(0, begin);
    EXPECT_LT(begin, end);
    EXPECT_LE(end, n);
    for (int64_t i = begin; i < end; ++i) counts[static_cast<size_t>(i)]++;
  }, maxChunks);
  std::vector<int> result;
  for (auto& c : counts) result.push_back(c.load());
  return result;
}

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.numThreads(), 4);
  for (int64_t n : {1, 2, 3, 4, 5, 7, 100, 1001, 65536}) {
    for (int maxChunks : {0, 1, 2, 3, 16}) {
      std::vector<int> counts = visits(pool, n, maxChunks);
      EXPECT_EQ(counts, std::vector<int>(static_cast<size_t>(n), 1)) << "n=" << n << " maxChunks=" << maxChunks;
    }
  }
}

TEST(ThreadPool, EmptyRangeCallsNothing) {
  ThreadPool pool(2);
  bool called = false;
  pool.parallelFor(0, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ThreadPool, OneChunkRunsOnTheCallingThread) {
  ThreadPool pool(4);
  std::thread::id caller = std::this_thread::get_id(), ranOn;
  int calls = 0;
  pool.parallelFor(1000, [&](int64_t begin, int64_t end) {
    ranOn = std::this_thread::get_id();
    ++calls;
    EXPECT_EQ(begin, 0);
    EXPECT_EQ(end, 1000);
  }, /*maxChunks=*/1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(ranOn, caller);
}

TEST(ThreadPool, SizeOneHasNoWorkers) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.numThreads(), 1);
  std::set<std::thread::id> threads;
  pool.parallelFor(100, [&](int64_t, int64_t) { threads.insert(std::this_thread::get_id()); });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ThreadPool, SplitsAcrossWorkers) {
  ThreadPool pool(4);
  // Each chunk waits until all four chunks have started, which only happens
  // if they run on four different threads at once.
  std::atomic<int> started{0};
  std::set<std::thread::id> threads;
  std::mutex mutex;
  pool.parallelFor(4, [&](int64_t, int64_t) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    }
    started++;
    while (started.load() < 4) std::this_thread::yield();
  });
  EXPECT_EQ(threads.size(), 4u);
}

TEST(ThreadPool, ManyCallersShareOnePool) {
  ThreadPool pool(3);
  constexpr int kCallers = 8;
  std::vector<int64_t> sums(kCallers);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&, c] {
      for (int round = 0; round < 50; ++round) {
        std::atomic<int64_t> sum{0};
        pool.parallelFor(10000 + c, [&](int64_t begin, int64_t end) {
          int64_t local = 0;
          for (int64_t i = begin; i < end; ++i) local += i;
          sum += local;
        });
        sums[c] = sum.load();
      }
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    int64_t n = 10000 + c;
    EXPECT_EQ(sums[c], n * (n - 1) / 2) << "caller " << c;
  }
}

TEST(ThreadPool, SharedPoolsAreReusedBySize) {
  std::shared_ptr<ThreadPool> a = ThreadPool::shared(2), b = ThreadPool::shared(2), c = ThreadPool::shared(3);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(a->numThreads(), 2);
  EXPECT_EQ(ThreadPool::shared(0)->numThreads(), ThreadPool::defaultSize());
}

// Leases held at once are different pools; returned pools are leased again
// rather than new ones started.
TEST(ThreadPool, LeasedPoolsAreNeverHeldTwice) {
  std::set<ThreadPool*> returned;
  {
    std::shared_ptr<ThreadPool> a = ThreadPool::lease(3), b = ThreadPool::lease(3);
    EXPECT_NE(a.get(), b.get());
    EXPECT_EQ(a->numThreads(), 3);
    returned = {a.get(), b.get()};
  }
  std::shared_ptr<ThreadPool> c = ThreadPool::lease(3), d = ThreadPool::lease(3);
  EXPECT_EQ((std::set<ThreadPool*>{c.get(), d.get()}), returned);
  EXPECT_EQ(visits(*d, 1000), std::vector<int>(1000, 1));  // a leased pool runs loops like any other
}

}  // namespace
}  // namespace kiln
