// STREAM's triad a[i] = b[i] + s * c[i] on N threads, the bandwidth roof of
// bench/run's memory-bound workloads (bench/README.md). Each thread owns a
// contiguous part of every array and touches it first, so its pages sit
// near it; the bytes counted are STREAM's (three arrays, no write-allocate).
// Plain C++ compiled with the project's flags: no kiln code is measured.
//
//   kiln_triad_bench [--threads N] [--elements N] [--runs N]
// prints one line: {"gbps": best, "threads": N, "elements": N}
#include <cstdio>
#include <thread>

#include "parallel_runs.h"

using namespace kiln::bench;

int main(int argc, char** argv) {
  if (wantsHelp(argc, argv)) {
    std::printf("usage: kiln_triad_bench [--threads N] [--elements N] [--runs N]\n\n"
                "STREAM triad a = b + 3 c over N f32 elements per array on N threads; prints the\n"
                "best run's bandwidth as JSON (bytes counted as STREAM does: 12 per element).\n");
    return 0;
  }
  std::optional<RunOptions> options = runOptions(argc, argv, "kiln_triad_bench", 1L << 25, 10);
  if (!options) return 2;
  auto [threads, n, runs] = *options;
  Array a = allocate(n), b = allocate(n), c = allocate(n);
  if (!a || !b || !c) {
    std::fprintf(stderr, "kiln_triad_bench: cannot allocate 3 x %zu floats\n", n);
    return 1;
  }
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  double best = bestSeconds(
      n, threads, runs,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) pa[i] = 0.0f, pb[i] = 1.0f, pc[i] = 2.0f;
      },
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) pa[i] = pb[i] + 3.0f * pc[i];
      });
  std::printf("{\"gbps\": %.3f, \"threads\": %d, \"elements\": %zu}\n", 12.0 * n / best / 1e9, threads, n);
  return a[n / 2] == 7.0f ? 0 : 3;  // the result is read: the loop cannot be dropped
}
