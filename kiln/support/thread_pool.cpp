#include "kiln/support/thread_pool.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>

#include "kiln/support/trace.h"

namespace kiln {

// One parallelFor call: chunks are claimed by an atomic counter, so whoever
// comes first (a worker or the caller) runs the next one.
struct ThreadPool::Job {
  const std::function<void(int64_t, int64_t)>* body;
  int64_t n;
  int64_t numChunks;
  int callerCpu;  // the core the caller ran on when it offered the chunks (-1: unknown)
  std::atomic<int> workerCpu{-1};  // the core the last worker to start on it runs on
  std::atomic<int64_t> nextChunk{0};
  std::atomic<int64_t> chunksDone{0};
  std::mutex mutex;  // orders the last chunk's notify after the caller's check
  std::condition_variable finished;
};

namespace {

// Moves the calling thread off core `cpu` (to another it may run on; none
// other: nothing), leaving it free to run anywhere again afterwards.
//
// Linux wakes a thread on the core of the thread that woke it when its own
// last core does not look free, which on a virtual machine's idle vCPU
// (halted) it often does not: after a few milliseconds of idleness a woken
// worker shares its caller's core while the other core idles, until the
// next scheduler tick moves one of them (2 ms on average at 250 Hz), and
// then keeps waking there, since that is now its last core. A 10 ms pause
// before a call made a 2-thread mlp_infer take its 1-thread time. Moving
// off costs two system calls.
void moveOffCpu(int cpu) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0 || !CPU_ISSET(cpu, &allowed)) return;
  cpu_set_t others = allowed;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0) return;
  if (sched_setaffinity(0, sizeof(others), &others) == 0) sched_setaffinity(0, sizeof(allowed), &allowed);
}

}  // namespace

// The cores this process may run on (taskset, a container's cpuset), which
// can be fewer than the machine's.
int ThreadPool::defaultSize() {
  cpu_set_t cores;
  if (sched_getaffinity(0, sizeof(cores), &cores) == 0 && CPU_COUNT(&cores) > 0) return CPU_COUNT(&cores);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

bool ThreadPool::pollFor(double seconds, const std::function<bool()>& ready) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  for (int round = 1;; ++round) {
    for (int i = 0; i < 32; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (round % 8 == 0 && Clock::now() >= deadline) return ready();
  }
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
  if (job.chunksDone.fetch_add(done) + done < job.numChunks) return;
  // The caller may be about to sleep: taking the mutex orders this notify
  // after its last look at chunksDone.
  { std::lock_guard<std::mutex> lock(job.mutex); }
  job.finished.notify_all();
}

void ThreadPool::workerLoop() {
  trace::setThreadName("kiln pool worker");
  int lastCallerCpu = -1;
  for (;;) {
    // Polling beside the last caller would keep it from its core.
    if (sched_getcpu() != lastCallerCpu)
      pollFor(kWorkerPollSeconds, [&] {
        return queued_.load(std::memory_order_relaxed) > 0 || stopping_.load(std::memory_order_relaxed);
      });
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (queue_.empty() && !stopping_) {
        ++sleeping_;
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        --sleeping_;
      }
      if (queue_.empty()) return;  // stopping, nothing left
      job = std::move(queue_.front());
      queue_.pop_front();
      --queued_;
    }
    // A worker helps only beside its caller (see moveOffCpu).
    if (job->callerCpu >= 0 && job->nextChunk.load(std::memory_order_relaxed) < job->numChunks &&
        sched_getcpu() == job->callerCpu)
      moveOffCpu(job->callerCpu);
    job->workerCpu = sched_getcpu();
    lastCallerCpu = job->callerCpu;
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
  job->callerCpu = sched_getcpu();
  // The caller takes chunks too, so workers are offered one fewer; a
  // worker runs chunks until none is left, so more chunks than threads
  // need no more workers.
  int64_t offered = std::min<int64_t>(chunks, numThreads()) - 1;
  int64_t sleepers;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int64_t i = 0; i < offered; ++i) queue_.push_back(job);
    queued_ += offered;
    sleepers = sleeping_;
  }
  // Polling workers see the queue by themselves; only sleepers need a wake.
  for (int64_t i = 0; i < std::min(offered, sleepers); ++i) wake_.notify_one();
  runChunks(*job);
  // Queue entries a worker picks up later find no chunk left and only drop
  // their reference; `body` is not touched once every chunk is done.
  // Polling on the core where a worker runs the last chunks would keep it
  // from them (the host may put both on one core when the other is busy).
  auto allDone = [&] { return job->chunksDone.load() == job->numChunks; };
  if (job->workerCpu.load() != sched_getcpu() && pollFor(kCallerPollSeconds, allDone)) return;
  std::unique_lock<std::mutex> lock(job->mutex);
  job->finished.wait(lock, allDone);
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
