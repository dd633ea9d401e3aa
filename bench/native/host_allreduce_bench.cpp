// all_reduce between processes of one host (the host's shared-memory
// communicator, kiln/distributed/host_shared_memory.h) next to the members
// of one process (the in-process communicator), measured in the same run:
// the CPU time all members spend per call (user + system, summed over the
// members; what a loaded host sways less than time) and the time per call.
// Unlike bench/host_collectives.py, which times whole `kiln launch` runs,
// only the calls are measured: the members are forked processes (or threads)
// that connect, touch their buffers, make warm-up calls, then time K calls
// each, so start-up, compiling and first-touch page faults stay out.
//
//   kiln_host_allreduce_bench [--members 4] [--kb 1024,4096,16384] [--calls K] [--rounds R]
//                             [--only processes|threads]   (one side alone: for a profiler)
//
// The environment reaches the processes (KILN_HOST_SHM_SLOT_BYTES,
// KILN_HOST_SHM_DIRECT_BYTES, KILN_HOST_SHM_DIRECT_MEMBERS). Each row is the
// median over rounds; each round runs the processes, then the threads.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "kiln/collectives/shared_memory.h"
#include "kiln/distributed/host_shared_memory.h"
#include "kiln/distributed/tcp_store.h"

using namespace kiln;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Measure {
  double cpu = 0;   // seconds, this member
  double wall = 0;  // seconds, this member
};

double cpuSeconds(int who) {
  rusage u{};
  ::getrusage(who, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// One member's part: warm-up calls, then `calls` timed ones (after a small
// all_reduce that lines the members up).
Measure member(collectives::Communicator& c, int members, int64_t count, int calls, int cpuWho) {
  std::vector<int> group(members);
  for (int i = 0; i < members; ++i) group[i] = i;
  std::vector<float> in(count), out(count);
  for (int64_t i = 0; i < count; ++i) in[i] = float((i * 7 + c.rank()) % 1000) * 0.001f;
  float one = 1, sum = 0;
  auto check = [](Status s) {
    if (!s.isOk()) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      std::exit(1);
    }
  };
  for (int i = 0; i < 3; ++i)
    check(c.allReduce(group, TypeKind::F32, collectives::Reduction::Sum, in.data(), out.data(), count));
  check(c.allReduce(group, TypeKind::F32, collectives::Reduction::Sum, &one, &sum, 1));
  double cpu0 = cpuSeconds(cpuWho);
  Clock::time_point t0 = Clock::now();
  for (int i = 0; i < calls; ++i)
    check(c.allReduce(group, TypeKind::F32, collectives::Reduction::Sum, in.data(), out.data(), count));
  return {cpuSeconds(cpuWho) - cpu0, std::chrono::duration<double>(Clock::now() - t0).count()};
}

// Members in forked processes of one rank each: the sum of their CPU times
// and the longest time, per call.
Measure inProcesses(int members, int64_t count, int calls, int round) {
  auto server = distributed::TcpStoreServer::start("127.0.0.1", 0);
  if (!server) {
    std::fprintf(stderr, "store: %s\n", server.status().message().c_str());
    std::exit(1);
  }
  std::string address = "127.0.0.1:" + std::to_string((*server)->port());
  std::vector<int> pipes(members);
  std::vector<pid_t> pids;
  for (int r = 0; r < members; ++r) {
    int fds[2];
    if (::pipe(fds) != 0) std::exit(1);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(fds[0]);
      auto client = distributed::TcpStoreClient::connect(address, 10s);
      if (!client) ::_exit(2);
      int ranks[] = {r};
      auto host = distributed::HostSharedMemory::connect(**client, "bench" + std::to_string(round), ranks, members,
                                                          60s);
      if (!host || !*host) {
        std::fprintf(stderr, "rank %d: no shared-memory segment\n", r);
        ::_exit(3);
      }
      Measure m = member((*host)->member(r), members, count, calls, RUSAGE_SELF);
      (*host)->memberExited(r);
      if (::write(fds[1], &m, sizeof m) != ssize_t(sizeof m)) ::_exit(4);
      ::_exit(0);
    }
    ::close(fds[1]);
    pipes[r] = fds[0];
    pids.push_back(pid);
  }
  Measure total;
  for (int r = 0; r < members; ++r) {
    Measure m;
    if (::read(pipes[r], &m, sizeof m) != ssize_t(sizeof m)) {
      std::fprintf(stderr, "rank %d failed\n", r);
      std::exit(1);
    }
    ::close(pipes[r]);
    total.cpu += m.cpu;
    total.wall = std::max(total.wall, m.wall);
  }
  for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
  return {total.cpu / calls, total.wall / calls};
}

// Members on threads of this process.
Measure inOneProcess(int members, int64_t count, int calls) {
  collectives::SharedMemoryWorld world(members, 60);
  std::vector<Measure> each(members);
  std::vector<std::thread> threads;
  for (int r = 0; r < members; ++r)
    threads.emplace_back([&, r] {
      each[r] = member(world.member(r), members, count, calls, RUSAGE_THREAD);
      world.memberExited(r);
    });
  for (std::thread& t : threads) t.join();
  Measure total;
  for (const Measure& m : each) total.cpu += m.cpu, total.wall = std::max(total.wall, m.wall);
  return {total.cpu / calls, total.wall / calls};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<int64_t> parseList(const char* text) {
  std::vector<int64_t> values;
  for (const char* p = text; *p;) {
    values.push_back(std::strtoll(p, nullptr, 10));
    p = std::strchr(p, ',');
    if (!p) break;
    ++p;
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  int members = 4, rounds = 5, calls = 50;
  std::string only;
  std::vector<int64_t> kbs = {1024, 4096, 16384};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--members") members = std::atoi(argv[i + 1]);
    else if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
    else if (flag == "--calls") calls = std::atoi(argv[i + 1]);
    else if (flag == "--kb") kbs = parseList(argv[i + 1]);
    else if (flag == "--only") only = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  std::string model = "?";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  double load[3] = {};
  ::getloadavg(load, 3);
  std::printf("CPU: %s, %u cores; load average before: %.2f %.2f %.2f\n", model.c_str(),
              std::thread::hardware_concurrency(), load[0], load[1], load[2]);
  std::printf("all_reduce(sum) of f32 among %d members, %d calls a round, median of %d rounds, per call\n\n", members,
              calls, rounds);
  std::printf("| KiB | processes: CPU | processes: time | one process: CPU | one process: time | CPU ratio |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  int round = 0;
  for (int64_t kb : kbs) {
    int64_t count = kb * 1024 / 4;
    std::vector<double> pc, pw, tc, tw;
    for (int r = 0; r < rounds; ++r) {
      Measure p = only == "threads" ? Measure{} : inProcesses(members, count, calls, round++);
      Measure t = only == "processes" ? Measure{} : inOneProcess(members, count, calls);
      pc.push_back(p.cpu), pw.push_back(p.wall), tc.push_back(t.cpu), tw.push_back(t.wall);
    }
    std::printf("| %lld | %.0f us | %.0f us | %.0f us | %.0f us | %.2fx |\n", (long long)kb, median(pc) * 1e6,
                median(pw) * 1e6, median(tc) * 1e6, median(tw) * 1e6, median(tc) > 0 ? median(pc) / median(tc) : 0.0);
    std::fflush(stdout);
  }
  ::getloadavg(load, 3);
  std::printf("\nload average after: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
  return 0;
}
