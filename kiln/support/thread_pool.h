// A fixed pool of worker threads for data-parallel loops: parallelFor splits
// [0, n) into chunks that the workers and the calling thread run together.
// Several threads may call parallelFor on one pool at once; each call waits
// only for its own chunks, and the caller always works on them itself, so a
// call makes progress even while every worker is busy with other calls.
//
// A worker that runs out of work, and a caller whose chunks are still
// running elsewhere, first poll for a while before they sleep: waking a
// sleeping thread costs tens of microseconds on an idle host and up to a
// scheduler tick on a virtual machine or a loaded one, often more than the
// next chunk of work, so the steps of one program (a matmul, then its
// epilogue kernel, then the next matmul) find the workers still awake. A
// worker woken on its caller's core moves to another (thread_pool.cpp).
#pragma once

#include <atomic>
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

  // Polls `ready` for up to `seconds`, pausing between polls; whether it
  // became true. Waiting this way before sleeping saves the wake-up of a
  // thread whose work arrives soon (see above). It does not yield the core:
  // on a loaded host that hands it to another process for a whole time
  // slice (3 ms calls of a 0.3 ms matmul, measured).
  static bool pollFor(double seconds, const std::function<bool()>& ready);

  // How long an idle worker polls for work before it sleeps.
  static constexpr double kWorkerPollSeconds = 200e-6;
  // How long a caller whose chunks are all taken polls for the last ones to
  // finish before it sleeps: about the length of a chunk of a large step,
  // which the workers are then still running.
  static constexpr double kCallerPollSeconds = 1e-3;

 private:
  struct Job;
  void workerLoop();
  static void runChunks(Job& job);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;  // one entry per chunk a worker may pick up
  std::atomic<int64_t> queued_{0};          // queue_.size(), for workers polling without the lock
  int sleeping_ = 0;                        // workers waiting on wake_ (guarded by mutex_)
  std::atomic<bool> stopping_{false};       // set under mutex_; atomic for workers polling
  std::vector<std::thread> workers_;
};

}  // namespace kiln
