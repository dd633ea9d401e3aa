#include "kiln/support/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <map>

#include "kiln/support/trace.h"

namespace kiln {

// One parallelFor call: chunks are claimed by an atomic counter, so whoever
// comes first (a worker or the caller) runs the next one.
struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* body;
  int64_t n;
  int64_t numChunks;
  std::atomic<int64_t> nextChunk{0};
  std::mutex mutex;
  std::condition_variable finished;
  int64_t chunksDone = 0;  // guarded by mutex
};

// The cores this process may run on (taskset, a container's cpuset), which
// can be fewer than the machine's.
int ThreadPool::defaultSize() {
  cpu_set_t cores;
  if (sched_getaffinity(0, sizeof(cores), &cores) == 0 && CPU_COUNT(&cores) > 0) return CPU_COUNT(&cores);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

ThreadPool::ThreadPool(int numThreads) {
  int size = numThreads > 0 ? numThreads : defaultSize();
  for (int i = 1; i < size; ++i) workers_.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::runChunks(Job& job) {
  int64_t done = 0;
  for (int64_t chunk = job.nextChunk++; chunk < job.numChunks; chunk = job.nextChunk++) {
    // Chunk c covers [c * n / k, (c + 1) * n / k): sizes differ by at most one.
    int64_t begin = chunk * job.n / job.numChunks;
    int64_t end = (chunk + 1) * job.n / job.numChunks;
    (*job.body)(begin, end);
    ++done;
  }
  if (done == 0) return;
  std::lock_guard<std::mutex> lock(job.mutex);
  job.chunksDone += done;
  if (job.chunksDone == job.numChunks) job.finished.notify_all();
}

void ThreadPool::workerLoop() {
  trace::setThreadName("kiln pool worker");
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
    }
    runChunks(*job);
  }
}

void ThreadPool::parallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& body,
                             int maxChunks) {
  if (n <= 0) return;
  int64_t chunks = std::min<int64_t>(n, maxChunks > 0 ? maxChunks : numThreads());
  if (chunks <= 1 || workers_.empty()) {
    body(0, n);
    return;
  }
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->n = n;
  job->numChunks = chunks;
  // The caller takes chunks too, so workers are offered one fewer; a
  // worker runs chunks until none is left, so more chunks than threads
  // need no more workers.
  int64_t offered = std::min<int64_t>(chunks, numThreads()) - 1;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t i = 0; i < offered; ++i) queue_.push_back(job);
  }
  for (int64_t i = 0; i < offered; ++i) wake_.notify_one();
  runChunks(*job);
  std::unique_lock<std::mutex> lock(job->mutex);
  job->finished.wait(lock, [&] { return job->chunksDone == job->numChunks; });
  // Queue entries a worker picks up later find no chunk left and only drop
  // their reference; `body` is not touched after this point.
}

std::shared_ptr<ThreadPool> ThreadPool::shared(int numThreads) {
  int size = numThreads > 0 ? numThreads : defaultSize();
  static std::mutex mutex;
  static std::map<int, std::weak_ptr<ThreadPool>> pools;
  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<ThreadPool> pool = pools[size].lock();
  if (!pool) {
    pool = std::make_shared<ThreadPool>(size);
    pools[size] = pool;
  }
  return pool;
}

std::shared_ptr<ThreadPool> ThreadPool::lease(int numThreads) {
  int size = numThreads > 0 ? numThreads : defaultSize();
  static std::mutex mutex;
  // Pools nobody holds, by size; never destroyed, so a lease may end during exit.
  static auto* idle = new std::map<int, std::vector<ThreadPool*>>;
  ThreadPool* pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<ThreadPool*>& free = (*idle)[size];
    if (!free.empty()) {
      pool = free.back();
      free.pop_back();
    }
  }
  if (!pool) pool = new ThreadPool(size);
  return std::shared_ptr<ThreadPool>(pool, [size](ThreadPool* returned) {
    std::lock_guard<std::mutex> lock(mutex);
    (*idle)[size].push_back(returned);
  });
}

}  // namespace kiln
