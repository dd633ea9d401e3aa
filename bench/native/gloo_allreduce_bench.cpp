// all_reduce and all_gather over Gloo (kiln/distributed/gloo_communicator.h)
// next to the in-process shared-memory communicator, measured in the same
// run. The Gloo members are threads of this process connected over TCP on
// loopback, as the processes of `kiln launch` on one host are: the same
// transport and algorithms, without separate address spaces. Bus bandwidth
// is NCCL's, 2 (n - 1) / n * bytes / time for all_reduce.
//
//   kiln_gloo_allreduce_bench [--runs N] [--members 2] [--kb 4,1024,16384]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "kiln/collectives/shared_memory.h"
#include "kiln/distributed/gloo_communicator.h"
#include "kiln/distributed/tcp_store.h"
#include "parallel_runs.h"

using namespace kiln;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Runs `body(rank, communicator)` on every member, one thread each; returns
// member 0's best seconds per call over `runs` (after one warm-up call).
using Body = std::function<Status(collectives::Communicator&)>;
double timeMembers(std::vector<collectives::Communicator*> members, const Body& body, int runs,
                   const std::function<void(int)>& exited = {}) {
  std::vector<double> best(members.size(), 1e30);
  std::vector<std::thread> threads;
  for (size_t r = 0; r < members.size(); ++r)
    threads.emplace_back([&, r] {
      if (Status s = body(*members[r]); !s.isOk()) std::fprintf(stderr, "%s\n", s.message().c_str());
      for (int i = 0; i < runs; ++i) {
        auto start = Clock::now();
        if (Status s = body(*members[r]); !s.isOk()) std::fprintf(stderr, "%s\n", s.message().c_str());
        best[r] = std::min(best[r], std::chrono::duration<double>(Clock::now() - start).count());
      }
      if (exited) exited(int(r));
    });
  for (std::thread& t : threads) t.join();
  return best[0];
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: kiln_gloo_allreduce_bench [--runs N] [--members N] [--kb K1,K2,...]\n\n"
                  "f32 all_reduce (sum) and all_gather over Gloo (members: threads over TCP on loopback)\n"
                  "next to the in-process shared-memory communicator; best of N runs (default 20).\n");
      return 0;
    }
  if (!distributed::glooAvailable()) {
    std::fprintf(stderr, "kiln_gloo_allreduce_bench: this kiln was built without Gloo\n");
    return 1;
  }
  int runs = int(bench::argument(argc, argv, "--runs", 20));
  int n = int(bench::argument(argc, argv, "--members", 2));
  std::vector<long> sizesKb = bench::listArgument(argc, argv, "--kb", {4, 1024, 16384});
  std::printf("%s, %u hardware threads, %d members, best of %d\n", bench::cpuModel().c_str(),
              std::thread::hardware_concurrency(), n, runs);
  std::printf("%10s %14s %12s %14s %14s %12s\n", "bytes", "gloo all_red", "gloo busbw", "gloo all_gath",
              "shm all_red", "shm busbw");
  auto server = std::move(*distributed::TcpStoreServer::start("127.0.0.1", 0));
  std::string address = "127.0.0.1:" + std::to_string(server->port());
  auto store = std::shared_ptr<distributed::KeyValueStore>(std::move(*distributed::TcpStoreClient::connect(address, 5s)));
  std::vector<int> ranks(n), group(n);
  for (int r = 0; r < n; ++r) ranks[r] = group[r] = r;
  auto gloo = std::move(*distributed::connectGlooRanks(store, ranks, n, {.keyPrefix = "bench", .timeout = 60s}));
  std::vector<collectives::Communicator*> glooMembers;
  for (auto& c : gloo) glooMembers.push_back(c.get());
  for (long kb : sizesKb) {
    int64_t count = kb * 1024 / 4;
    std::vector<std::vector<float>> in(n, std::vector<float>(count, 1.0f)), out(n, std::vector<float>(count * n));
    auto allReduce = [&](collectives::Communicator& c) {
      return c.allReduce(group, TypeKind::F32, collectives::Reduction::Sum, in[c.rank()].data(),
                         out[c.rank()].data(), count);
    };
    auto allGather = [&](collectives::Communicator& c) {
      return c.allGather(group, in[c.rank()].data(), out[c.rank()].data(), count * 4);
    };
    double glooReduce = timeMembers(glooMembers, allReduce, runs);
    double glooGather = timeMembers(glooMembers, allGather, runs);
    collectives::SharedMemoryWorld world(n, 60);
    std::vector<collectives::Communicator*> shmMembers;
    for (int r = 0; r < n; ++r) shmMembers.push_back(&world.member(r));
    double shmReduce = timeMembers(shmMembers, allReduce, runs, [&](int r) { world.memberExited(r); });
    double bus = 2.0 * (n - 1) / n * count * 4 / 1e9;
    std::printf("%10lld %11.1f us %7.2f GB/s %11.1f us %11.1f us %7.2f GB/s\n", (long long)count * 4,
                glooReduce * 1e6, bus / glooReduce, glooGather * 1e6, shmReduce * 1e6, bus / shmReduce);
  }
  return 0;
}
