// In-process all-reduce bus bandwidth (kiln/collectives/shared_memory.h)
// against a plain memcpy of the same bytes, measured in the same run.
// Members are threads, as the devices of one process are, and each has
// cores / members kernel threads for its share of the reduction, as a
// device does (--threads T sets them); each touches its own buffers first. Bus bandwidth is NCCL's: 2 (n - 1) / n * bytes / time,
// the bytes each member must send and receive, so it is comparable across
// member counts; the goal is at least half of memcpy's bytes / time.
//
// The memory system bounds that ratio: any all-reduce reads n inputs and
// writes n outputs, 2 n bytes of traffic per byte reduced where a memcpy
// moves 2, so at the rate n threads copy at once (memcpy xn) the ratio is at
// most 2 (n - 1) / n^2 * (memcpy xn / memcpy): 1/2 and 3/8 for n = 2 and 4 on
// a host whose memory one thread saturates. "bound" prints it.
//
//   kiln_allreduce_bench [--runs N] [--members 2,4] [--mb 1,16,64] [--threads T]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "kiln/collectives/shared_memory.h"
#include "parallel_runs.h"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

// The best run: on a shared host the others mostly measure who else ran.
double best(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

// Seconds per memcpy of `bytes` between buffers already touched, best of `runs`.
double memcpySeconds(size_t bytes, int runs) {
  bench::Array from = bench::allocate(bytes / 4), to = bench::allocate(bytes / 4);
  std::memset(from.get(), 1, bytes);
  std::memset(to.get(), 0, bytes);
  std::vector<double> times;
  for (int r = 0; r < runs + 2; ++r) {
    auto start = Clock::now();
    std::memcpy(to.get(), from.get(), bytes);
    if (r >= 2) times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  return to[bytes / 8] == from[bytes / 8] ? best(times) : 0;
}

// Seconds to copy `bytes` on `threads` threads at once, each its own part
// between buffers it touched first, best of `runs`.
double parallelMemcpySeconds(size_t bytes, int threads, int runs) {
  size_t n = bytes / 4;
  bench::Array from = bench::allocate(n), to = bench::allocate(n);
  return bench::bestSeconds(
      n, threads, runs,
      [&](size_t lo, size_t hi) {
        std::fill(from.get() + lo, from.get() + hi, 1.0f);
        std::fill(to.get() + lo, to.get() + hi, 0.0f);
      },
      [&](size_t lo, size_t hi) { std::memcpy(to.get() + lo, from.get() + lo, (hi - lo) * 4); });
}

// Seconds per f32 sum all-reduce of `bytes` over `members` threads, as member 0
// sees it, best of `runs` after two warm-up calls; 0 if a call failed.
double allReduceSeconds(int members, int threadsPerMember, size_t bytes, int runs) {
  collectives::SharedMemoryWorld world(members);
  std::vector<int> group;
  for (int m = 0; m < members; ++m) group.push_back(m);
  std::vector<double> times;
  std::vector<bool> failed(members);
  std::vector<std::thread> threads;
  for (int m = 0; m < members; ++m)
    threads.emplace_back([&, m] {
      int64_t count = bytes / 4;
      ThreadPool pool(threadsPerMember);
      world.setThreads(m, &pool);
      bench::Array in = bench::allocate(count), out = bench::allocate(count);
      std::fill(in.get(), in.get() + count, float(m + 1));
      std::memset(out.get(), 0, bytes);
      for (int r = 0; r < runs + 2; ++r) {
        auto start = Clock::now();
        Status s = world.member(m).allReduce(group, TypeKind::F32, collectives::Reduction::Sum, in.get(), out.get(), count);
        if (!s.isOk()) failed[m] = true;
        if (m == 0 && r >= 2) times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      }
      if (out[count / 2] != float(members * (members + 1) / 2)) failed[m] = true;
      world.memberExited(m);
    });
  for (std::thread& t : threads) t.join();
  return std::find(failed.begin(), failed.end(), true) != failed.end() ? 0 : best(times);
}

}  // namespace

int main(int argc, char** argv) {
  if (bench::wantsHelp(argc, argv)) {
    std::printf("usage: kiln_allreduce_bench [--runs N] [--members 2,4] [--mb 1,16,64] [--threads T]\n\n"
                "f32 sum all-reduce between threads through kiln's shared-memory communicator; prints\n"
                "its bus bandwidth next to a memcpy of the same bytes (best of N runs each).\n");
    return 0;
  }
  int runs = int(bench::argument(argc, argv, "--runs", 20));
  std::vector<long> memberCounts = bench::listArgument(argc, argv, "--members", {2, 4});
  std::vector<long> megabytes = bench::listArgument(argc, argv, "--mb", {1, 16, 64});
  long threads = bench::argument(argc, argv, "--threads", 0);  // 0: cores / members
  std::printf("cpu: %s, %u cores; best of %d runs\n", bench::cpuModel().c_str(), std::thread::hardware_concurrency(), runs);
  std::printf("%8s %8s %8s %10s %10s %12s %14s %7s %7s\n", "members", "threads", "MB", "ms/call", "bus GB/s",
              "memcpy GB/s", "memcpy xn GB/s", "ratio", "bound");
  int status = 0;
  for (long members : memberCounts)
    for (long mb : megabytes) {
      size_t bytes = size_t(mb) << 20;
      double copy = memcpySeconds(bytes, runs), copies = parallelMemcpySeconds(bytes, int(members), runs);
      int perMember = threads > 0 ? int(threads) : std::max(1, int(std::thread::hardware_concurrency() / members));
      double reduce = allReduceSeconds(int(members), perMember, bytes, runs);
      if (reduce == 0 || copy == 0) {
        std::printf("%8ld %8d %8ld   failed\n", members, perMember, mb);
        status = 1;
        continue;
      }
      double bus = 2.0 * (members - 1) / members * bytes / reduce / 1e9;
      double memcpyRate = bytes / copy / 1e9, parallelRate = bytes / copies / 1e9;
      double bound = 2.0 * (members - 1) / (members * members) * parallelRate / memcpyRate;
      std::printf("%8ld %8d %8ld %10.3f %10.2f %12.2f %14.2f %7.2f %7.2f\n", members, perMember, mb, reduce * 1e3, bus,
                  memcpyRate, parallelRate, bus / memcpyRate, bound);
    }
  return status;
}
