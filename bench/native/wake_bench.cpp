// Where a woken worker thread runs after its caller was idle, and how soon
// it works beside the caller: a worker sleeping on a condition variable (as
// kiln's thread pool and OpenMP's idle threads do) against kiln's
// ThreadPool, which moves a worker woken on its caller's core to another
// (kiln/support/thread_pool.cpp). Each round the caller sleeps --pause-ms,
// hands the worker one of two chunks of --work-us of spinning, and runs the
// other; printed: how often the two chunks ran on one core, the median delay
// before the worker's chunk started, and the median round time (the ideal
// is one chunk's time). Nothing of kiln is timed but its ThreadPool.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kiln/support/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

double micros(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void spin(double us) {
  auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(us));
  while (Clock::now() < end) {
  }
}

// One worker sleeping on a condition variable between rounds.
class SleepingWorker {
 public:
  SleepingWorker() : thread_([this] { loop(); }) {}
  ~SleepingWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  // Runs `first` here and `second` on the worker; returns when both are done.
  void run(const std::function<void()>& first, const std::function<void()>& second) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &second;
      done_ = false;
    }
    wake_.notify_one();
    first();
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_; });
  }

 private:
  void loop() {
    for (;;) {
      const std::function<void()>* task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || task_; });
        if (stopping_) return;
        task = task_;
        task_ = nullptr;
      }
      (*task)();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
      }
      finished_.notify_one();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, finished_;
  const std::function<void()>* task_ = nullptr;
  bool done_ = false, stopping_ = false;
  std::thread thread_;
};

struct Round {
  bool sameCore;
  double workerDelayUs, roundUs;
};

void report(const char* name, const std::vector<Round>& rounds) {
  std::vector<double> delays, times;
  int same = 0;
  for (const Round& r : rounds) {
    same += r.sameCore;
    delays.push_back(r.workerDelayUs);
    times.push_back(r.roundUs);
  }
  std::printf("%-32s %4d of %-4zu %14.0f %14.0f\n", name, same, rounds.size(), median(delays), median(times));
}

}  // namespace

int main(int argc, char** argv) {
  double pauseMs = 10, workUs = 500;
  int rounds = 30;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: kiln_wake_bench [--pause-ms MS] [--work-us US] [--rounds N]\n"
          "After MS of idleness (default 10) the caller hands a worker thread one of two chunks of US\n"
          "microseconds of spinning (default 500) and runs the other, N times (default 30): once with a\n"
          "worker sleeping on a condition variable, once with kiln's ThreadPool. Prints how often both\n"
          "chunks ran on one core, the worker's start delay and the round time (medians, us).\n");
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "kiln_wake_bench: '%s' needs a value (see --help)\n", arg.c_str());
      return 2;
    }
    double value = std::atof(argv[++i]);
    if (arg == "--pause-ms") pauseMs = value;
    else if (arg == "--work-us") workUs = value;
    else if (arg == "--rounds") rounds = std::max(3, int(value));
    else {
      std::fprintf(stderr, "kiln_wake_bench: unknown argument '%s' (see --help)\n", arg.c_str());
      return 2;
    }
  }
  if (kiln::ThreadPool::defaultSize() < 2) {
    std::printf("kiln_wake_bench: one core only, nothing to measure\n");
    return 0;
  }
  std::printf("pause %.1f ms, two chunks of %.0f us\n%-32s %12s %14s %14s\n", pauseMs, workUs, "worker", "one core",
              "delay us", "round us");
  auto measure = [&](const std::function<void(const std::function<void()>&, const std::function<void()>&)>& runBoth) {
    std::vector<Round> result;
    for (int r = 0; r < rounds + 2; ++r) {  // two to warm up
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(pauseMs));
      std::atomic<int> callerCore{-1}, workerCore{-1};
      Clock::time_point start = Clock::now(), workerStart;
      std::function<void()> mine = [&] {
        callerCore = sched_getcpu();
        spin(workUs);
      };
      std::function<void()> theirs = [&] {
        workerStart = Clock::now();
        workerCore = sched_getcpu();
        spin(workUs);
      };
      runBoth(mine, theirs);
      if (r >= 2) result.push_back({callerCore == workerCore, micros(start, workerStart), micros(start, Clock::now())});
    }
    return result;
  };
  {
    SleepingWorker worker;
    report("sleeping on a condition variable", measure([&](const auto& mine, const auto& theirs) { worker.run(mine, theirs); }));
  }
  kiln::ThreadPool pool(2);
  report("kiln ThreadPool", measure([&](const auto& mine, const auto& theirs) {
           // The caller's first chunk is its own; a chunk the worker did not
           // come for in time runs on the caller too, as the worker's.
           std::thread::id caller = std::this_thread::get_id();
           std::atomic<bool> callerBusy{false};
           pool.parallelFor(2, [&](int64_t, int64_t) {
             (std::this_thread::get_id() == caller && !callerBusy.exchange(true) ? mine : theirs)();
           });
         }));
  return 0;
}
