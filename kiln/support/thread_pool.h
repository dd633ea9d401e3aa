// A fixed pool of worker threads for data-parallel loops: parallelFor splits
// [0, n) into chunks that the workers and the calling thread run together.
// Several threads may call parallelFor on one pool at once; each call waits
// only for its own chunks, and the caller always works on them itself, so a
// call makes progress even while every worker is busy with other calls.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln {

class ThreadPool {
 public:
  // A pool running parallelFor on `numThreads` threads in all: the caller
  // plus numThreads - 1 workers. 0 means one per core.
  explicit ThreadPool(int numThreads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // How many threads a parallelFor may use (workers plus the caller).
  int numThreads() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls body(begin, end) over disjoint ranges covering [0, n), at most
  // `maxChunks` of them (0: numThreads()), and returns when all have run.
  // With one chunk, body(0, n) runs on the calling thread without hand-off.
  void parallelFor(int64_t n, const std::function<void(int64_t begin, int64_t end)>& body,
                   int maxChunks = 0);

  // One pool per size, shared by everyone in the process who asks for that
  // size (so that many executables do not each start their own threads).
  static std::shared_ptr<ThreadPool> shared(int numThreads);

  // A pool of `numThreads` threads (0: one per core) that nobody else holds
  // until the returned handle goes: runs going on at once (the devices of a
  // process, the instances of a multi-instance run) each get threads of
  // their own, and runs one after another reuse the same pools.
  static std::shared_ptr<ThreadPool> lease(int numThreads);

  // The number of cores this process may use (at least 1).
  static int defaultSize();

 private:
  struct Job;
  void workerLoop();
  static void runChunks(Job& job);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // one entry per chunk a worker may pick up
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace kiln
