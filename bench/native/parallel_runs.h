// What the native benchmarks (triad, chain, the all-reduce ones) share: arguments, 64-byte
// aligned arrays, and timed runs of a loop split over threads.
#pragma once

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kiln::bench {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Array = std::unique_ptr<float[], FreeDeleter>;

inline Array allocate(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  return Array(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

// The value after `--name`, or `fallback`.
inline long argument(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atol(argv[i + 1]);
  return fallback;
}

// The comma-separated numbers after `--name` (`--sizes 1,16,64`), or `fallback`.
inline std::vector<long> listArgument(int argc, char** argv, const char* name, std::vector<long> fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) != 0) continue;
    std::vector<long> values;
    for (const char* p = argv[i + 1]; *p;) {
      char* end;
      values.push_back(std::strtol(p, &end, 10));
      if (end == p) break;
      p = *end == ',' ? end + 1 : end;
    }
    return values;
  }
  return fallback;
}

// The CPU model /proc/cpuinfo names, printed with every figure.
inline std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

struct RunOptions {
  int threads = 1;
  size_t elements = 0;
  int runs = 1;
};

// --threads (every core by default), --elements and --runs, or nothing once
// the complaint that one is not positive is printed.
inline std::optional<RunOptions> runOptions(int argc, char** argv, const char* program, long elements, long runs) {
  RunOptions o;
  long threads = argument(argc, argv, "--threads", std::max(1u, std::thread::hardware_concurrency()));
  elements = argument(argc, argv, "--elements", elements);
  runs = argument(argc, argv, "--runs", runs);
  if (threads < 1 || elements < 1 || runs < 1) {
    std::fprintf(stderr, "%s: --threads, --elements and --runs must be positive\n", program);
    return std::nullopt;
  }
  o.threads = int(threads), o.elements = size_t(elements), o.runs = int(runs);
  return o;
}

inline bool wantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  return false;
}

// The best of `runs` timed runs of body(lo, hi) over [0, n) split into
// `threads` contiguous parts, in seconds; first touch(lo, hi) on each
// thread, so its pages sit near it. Each worker stamps its own start and end:
// a run lasts from the first start to the last end (a clock read by a
// coordinating thread after the start barrier lies when that thread is
// descheduled, with threads + 1 threads on as many cores).
template <typename Touch, typename Body>
double bestSeconds(size_t n, int threads, int runs, Touch touch, Body body) {
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> starts(size_t(runs) * threads), ends(size_t(runs) * threads);
  std::barrier sync(threads);
  auto worker = [&](int t) {
    size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    touch(lo, hi);
    for (int r = 0; r < runs; ++r) {
      sync.arrive_and_wait();  // start together
      starts[size_t(r) * threads + t] = Clock::now();
      body(lo, hi);
      ends[size_t(r) * threads + t] = Clock::now();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (std::thread& t : pool) t.join();
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    auto first = std::min_element(starts.begin() + r * threads, starts.begin() + (r + 1) * threads);
    auto last = std::max_element(ends.begin() + r * threads, ends.begin() + (r + 1) * threads);
    best = std::min(best, std::chrono::duration<double>(*last - *first).count());
  }
  return best;
}

}  // namespace kiln::bench
