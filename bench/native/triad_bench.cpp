// STREAM's triad a[i] = b[i] + s * c[i] on N threads, the bandwidth roof of
// bench/run's memory-bound workloads (bench/README.md). Each thread owns a
// contiguous third of every array and touches it first, so its pages sit
// near it; the bytes counted are STREAM's (three arrays, no write-allocate).
// Plain C++ compiled with the project's flags: no kiln code is measured.
//
//   kiln_triad_bench [--threads N] [--elements N] [--runs N]
// prints one line: {"gbps": best, "threads": N, "elements": N}
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Array = std::unique_ptr<float[], FreeDeleter>;

Array allocate(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  return Array(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

long argument(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atol(argv[i + 1]);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: kiln_triad_bench [--threads N] [--elements N] [--runs N]\n\n"
                  "STREAM triad a = b + 3 c over N f32 elements per array on N threads; prints the\n"
                  "best run's bandwidth as JSON (bytes counted as STREAM does: 12 per element).\n");
      return 0;
    }
  int threads = static_cast<int>(argument(argc, argv, "--threads", std::max(1u, std::thread::hardware_concurrency())));
  size_t n = static_cast<size_t>(argument(argc, argv, "--elements", 1L << 25));
  int runs = static_cast<int>(argument(argc, argv, "--runs", 10));
  if (threads < 1 || n < 1 || runs < 1) {
    std::fprintf(stderr, "kiln_triad_bench: --threads, --elements and --runs must be positive\n");
    return 2;
  }
  Array a = allocate(n), b = allocate(n), c = allocate(n);
  if (!a || !b || !c) {
    std::fprintf(stderr, "kiln_triad_bench: cannot allocate 3 x %zu floats\n", n);
    return 1;
  }
  // Each worker stamps its own start and end: a run lasts from the first
  // start to the last end. A clock read by a coordinating thread after the
  // start barrier lies when that thread is descheduled (threads + 1 threads
  // on as many cores), and the workers finish before it looks.
  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> starts(size_t(runs) * threads), ends(size_t(runs) * threads);
  std::barrier sync(threads);
  auto worker = [&](int t) {
    size_t lo = n * t / threads, hi = n * (t + 1) / threads;
    float *pa = a.get(), *pb = b.get(), *pc = c.get();
    for (size_t i = lo; i < hi; ++i) pa[i] = 0.0f, pb[i] = 1.0f, pc[i] = 2.0f;
    for (int r = 0; r < runs; ++r) {
      sync.arrive_and_wait();  // start together
      starts[size_t(r) * threads + t] = Clock::now();
      for (size_t i = lo; i < hi; ++i) pa[i] = pb[i] + 3.0f * pc[i];
      ends[size_t(r) * threads + t] = Clock::now();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  for (std::thread& t : pool) t.join();
  std::vector<double> seconds(runs);
  for (int r = 0; r < runs; ++r) {
    auto first = std::min_element(starts.begin() + r * threads, starts.begin() + (r + 1) * threads);
    auto last = std::max_element(ends.begin() + r * threads, ends.begin() + (r + 1) * threads);
    seconds[r] = std::chrono::duration<double>(*last - *first).count();
  }
  double best = *std::min_element(seconds.begin(), seconds.end());
  std::printf("{\"gbps\": %.3f, \"threads\": %d, \"elements\": %zu}\n", 12.0 * n / best / 1e9, threads, n);
  return a[n / 2] == 7.0f ? 0 : 3;  // the result is read: the loop cannot be dropped
}
