// The host's shared-memory communicator (kiln/distributed/host_shared_memory.h)
// between processes forked by the test (four ranks in three processes: two
// ranks on threads of one, one each in the others), meeting through kiln's
// key-value store: every operation, over the world, groups in another order
// and concurrent pairs, for many element types and reductions (NaN and -0
// included), sizes that cross the slot (16-byte ... 4 KiB slots) and the
// sliced all_reduce above 64 KiB, gives bitwise what the in-process
// communicator gives, through the slots and reading peers' buffers in place
// (KILN_HOST_SHM_DIRECT_BYTES), and so do buffers of megabytes among four
// processes of one rank each (the outputs streamed). A process that goes away fails its peers at
// once, either way.
#include "kiln/distributed/host_shared_memory.h"

#include <gtest/gtest.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <thread>

#include "kiln/collectives/shared_memory.h"
#include "kiln/distributed/tcp_store.h"

namespace kiln::distributed {
namespace {

using namespace std::chrono_literals;
using collectives::Communicator;
using collectives::Reduction;

using Outputs = std::vector<std::vector<char>>;
using Body = std::function<Status(Communicator&, Outputs&)>;

constexpr int kRanks = 4;
// Process p's ranks: {0, 1}, {2}, {3}.
const std::vector<std::vector<int>> kProcesses = {{0, 1}, {2}, {3}};

std::vector<char> randomBytes(int rank, int salt, int64_t bytes) {
  std::mt19937 gen(1000 * rank + salt);
  std::vector<char> v(bytes);
  for (char& c : v) c = char(gen());
  return v;
}

template <typename T>
std::vector<char> valuesOf(int rank, int salt, int64_t count, double lo, double hi) {
  std::mt19937 gen(1000 * rank + salt);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(count);
  for (T& x : v) x = T(dist(gen));
  const char* p = reinterpret_cast<const char*>(v.data());
  return std::vector<char>(p, p + count * sizeof(T));
}

// Every operation over the world {0..3}, the world in another order, the
// pairs {0, 2} and {3, 1} at once, and rank 2 alone.
Status everyOperation(Communicator& c, Outputs& outputs) {
  int r = c.rank();
  const std::vector<int> world = {0, 1, 2, 3}, reversed = {3, 1, 0, 2};
  const std::vector<int> pair = (r == 0 || r == 2) ? std::vector<int>{0, 2} : std::vector<int>{3, 1};
  for (int64_t count : {int64_t(1), int64_t(1000), int64_t(20000)}) {  // 20000 f32: the sliced all_reduce
    std::vector<char> f = valuesOf<float>(r, 1, count, -1e3, 1e3);
    if (count > 2) {  // a NaN and -0 in some members' values
      if (r == 1) reinterpret_cast<float*>(f.data())[1] = NAN;
      if (r == 3) reinterpret_cast<float*>(f.data())[2] = -0.0f;
    }
    std::vector<char> out(f.size());
    for (Reduction op : {Reduction::Sum, Reduction::Max, Reduction::Min}) {
      for (const std::vector<int>* g : {&world, &reversed, &pair}) {
        KILN_RETURN_IF_ERROR(c.allReduce(*g, TypeKind::F32, op, f.data(), out.data(), count));
        outputs.push_back(out);
      }
    }
    std::vector<char> inPlace = f;
    KILN_RETURN_IF_ERROR(c.allReduce(reversed, TypeKind::F32, Reduction::Sum, inPlace.data(), inPlace.data(), count));
    outputs.push_back(inPlace);
  }
  struct Case {
    TypeKind type;
    Reduction op;
    std::vector<char> (*make)(int, int, int64_t);
  };
  auto f64 = [](int r, int s, int64_t n) { return valuesOf<double>(r, s, n, -1e6, 1e6); };
  auto i8 = [](int r, int s, int64_t n) { return valuesOf<int8_t>(r, s, n, -100, 100); };
  auto u32 = [](int r, int s, int64_t n) { return valuesOf<uint32_t>(r, s, n, 0, 4e9); };
  auto i64 = [](int r, int s, int64_t n) { return valuesOf<int64_t>(r, s, n, -1e15, 1e15); };
  auto bits16 = [](int r, int s, int64_t n) {  // bf16 / f16 bit patterns of moderate numbers
    std::vector<char> v = randomBytes(r, s, 2 * n);
    for (int64_t i = 0; i < n; ++i) v[2 * i + 1] = char((v[2 * i + 1] & 0x83) | 0x3c);
    return v;
  };
  auto bools = [](int r, int s, int64_t n) {
    std::vector<char> v = randomBytes(r, s, n);
    for (char& b : v) b &= 1;
    return v;
  };
  const Case cases[] = {{TypeKind::F64, Reduction::Sum, f64},   {TypeKind::F64, Reduction::Min, f64},
                        {TypeKind::SI8, Reduction::Product, i8}, {TypeKind::UI32, Reduction::Xor, u32},
                        {TypeKind::SI64, Reduction::Sum, i64},   {TypeKind::BF16, Reduction::Sum, bits16},
                        {TypeKind::F16, Reduction::Max, bits16}, {TypeKind::I1, Reduction::And, bools},
                        {TypeKind::I1, Reduction::Or, bools}};
  int salt = 10;
  for (const Case& k : cases) {
    int64_t count = 777, eb = collectives::elementBytes(k.type);
    std::vector<char> in = k.make(r, ++salt, count * kRanks), out(count * kRanks * eb);
    KILN_RETURN_IF_ERROR(c.allReduce(reversed, k.type, k.op, in.data(), out.data(), count * kRanks));
    outputs.push_back(out);
    std::vector<char> part(count * eb);
    KILN_RETURN_IF_ERROR(c.reduceScatter(reversed, k.type, k.op, in.data(), part.data(), count));
    outputs.push_back(part);
  }
  std::vector<char> bytes = randomBytes(r, 3, 4 * 5003);
  std::vector<char> out(4 * 4 * 5003);
  KILN_RETURN_IF_ERROR(c.allGather(reversed, bytes.data(), out.data(), 5003));
  outputs.emplace_back(out.begin(), out.begin() + 4 * 5003);
  KILN_RETURN_IF_ERROR(c.allGather(pair, bytes.data(), out.data(), 7));
  outputs.emplace_back(out.begin(), out.begin() + 14);
  KILN_RETURN_IF_ERROR(c.allToAll(reversed, bytes.data(), out.data(), 5003));
  outputs.emplace_back(out.begin(), out.begin() + 4 * 5003);
  KILN_RETURN_IF_ERROR(c.broadcast(reversed, 2, bytes.data(), out.data(), 5003));
  outputs.emplace_back(out.begin(), out.begin() + 5003);
  std::vector<char> rooted = bytes;
  KILN_RETURN_IF_ERROR(c.broadcast(pair, 1, rooted.data(), rooted.data(), 4 * 5003));
  outputs.push_back(rooted);
  const std::pair<int, int> cycle[] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  KILN_RETURN_IF_ERROR(c.collectivePermute(cycle, bytes.data(), out.data(), 5003));
  outputs.emplace_back(out.begin(), out.begin() + 5003);
  const std::pair<int, int> partial[] = {{3, 1}, {2, 2}};  // 0 and 3 receive nothing: zeros
  KILN_RETURN_IF_ERROR(c.collectivePermute(partial, bytes.data(), out.data(), 100));
  outputs.emplace_back(out.begin(), out.begin() + 100);
  if (r == 2) {
    const std::vector<int> alone = {2};
    KILN_RETURN_IF_ERROR(c.allReduce(alone, TypeKind::F32, Reduction::Sum, bytes.data(), out.data(), 10));
    outputs.emplace_back(out.begin(), out.begin() + 40);
  }
  KILN_RETURN_IF_ERROR(c.allReduce(world, TypeKind::F32, Reduction::Sum, bytes.data(), out.data(), 0));
  return Status::ok();
}

// Buffers of megabytes among the four ranks (the sliced all_reduce over many
// slots, the last chunk short; reduce_scatter's blocks over many slots):
// f32 and f64 sums (NaN and -0 among them), in place and not, in two group orders.
Status bigBuffers(Communicator& c, Outputs& outputs) {
  int r = c.rank();
  const std::vector<int> world = {0, 1, 2, 3}, reversed = {3, 1, 0, 2};
  // f32: 4.4 MB, not a multiple of any slot's chunk; four members write 17.6 MB in
  // all, so the outputs are written with streaming stores.
  int64_t count = 1100003;
  std::vector<char> f = valuesOf<float>(r, 5, count, -1e3, 1e3);
  if (r == 1) reinterpret_cast<float*>(f.data())[700001] = NAN;
  if (r == 3) reinterpret_cast<float*>(f.data())[12] = -0.0f;
  std::vector<char> out(f.size());
  KILN_RETURN_IF_ERROR(c.allReduce(world, TypeKind::F32, Reduction::Sum, f.data(), out.data(), count));
  outputs.push_back(out);
  KILN_RETURN_IF_ERROR(c.allReduce(reversed, TypeKind::F32, Reduction::Max, f.data(), out.data(), count));
  outputs.push_back(out);
  std::vector<char> d = valuesOf<double>(r, 6, 600001, -1e6, 1e6);
  KILN_RETURN_IF_ERROR(c.allReduce(reversed, TypeKind::F64, Reduction::Sum, d.data(), d.data(), 600001));
  outputs.push_back(d);
  int64_t perMember = 250001;
  std::vector<char> in = valuesOf<float>(r, 7, perMember * kRanks, -1e3, 1e3), part(perMember * 4);
  KILN_RETURN_IF_ERROR(c.reduceScatter(reversed, TypeKind::F32, Reduction::Sum, in.data(), part.data(), perMember));
  outputs.push_back(part);
  return Status::ok();
}

std::vector<Outputs> runInProcess(const Body& body) {
  collectives::SharedMemoryWorld world(kRanks, 20);
  std::vector<Outputs> outputs(kRanks);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kRanks; ++rank)
    threads.emplace_back([&, rank] {
      Status s = body(world.member(rank), outputs[rank]);
      EXPECT_TRUE(s.isOk()) << s.message();
      world.memberExited(rank);
    });
  for (std::thread& t : threads) t.join();
  return outputs;
}

int uniqueRun = 0;

// Whether this process may read a child's memory as a sibling would
// (process_vm_readv): where a sandbox refuses, the communicator keeps to its slots.
bool mayReadAnotherProcess() {
  static uint64_t word = 0x6b696c6eull;
  int ready[2];
  if (::pipe(ready) != 0) return false;
  pid_t child = ::fork();
  if (child == 0) {
    char c = 0;
    ::close(ready[1]);
    [[maybe_unused]] ssize_t n = ::read(ready[0], &c, 1);  // until the parent is done
    ::_exit(0);
  }
  ::close(ready[0]);
  uint64_t seen = 0;
  struct iovec to{&seen, sizeof seen}, from{&word, sizeof word};
  bool ok = ::process_vm_readv(child, &to, 1, &from, 1, 0) == ssize_t(sizeof seen) && seen == word;
  ::close(ready[1]);
  ::waitpid(child, nullptr, 0);
  return ok;
}

// Forks one process per `processes` entry; each connects its ranks to the
// host's segment and runs `body` on each (threads), then checks its outputs
// against `expected` and exits 0 when all match and connect gave a segment
// (with `dieAfter`, process 2 exits at once after connecting instead). The
// exit status of each process.
std::vector<int> runInProcesses(const Body& body, const std::vector<Outputs>& expected, const char* slotBytes,
                                const char* directBytes, bool dieAfter = false, const char* directMembers = "64",
                                const std::vector<std::vector<int>>& processes = kProcesses) {
  int64_t expectDirect = std::string(directBytes) == "off" || !mayReadAnotherProcess() ? -1 : std::atoll(directBytes);
  auto server = TcpStoreServer::start("127.0.0.1", 0);
  EXPECT_TRUE(server.isOk());
  std::string address = "127.0.0.1:" + std::to_string((*server)->port());
  std::string prefix = "hostshm" + std::to_string(uniqueRun++);
  std::vector<pid_t> pids;
  for (size_t p = 0; p < processes.size(); ++p) {
    pid_t pid = ::fork();
    if (pid != 0) {
      pids.push_back(pid);
      continue;
    }
    ::setenv("KILN_HOST_SHM_SLOT_BYTES", slotBytes, 1);
    ::setenv("KILN_HOST_SHM_DIRECT_BYTES", directBytes, 1);
    ::setenv("KILN_HOST_SHM_DIRECT_MEMBERS", directMembers, 1);
    auto client = TcpStoreClient::connect(address, 5s);
    if (!client) ::_exit(10);
    // Generous: with 16-byte slots one call is thousands of meetings, which a
    // loaded host stretched past 20 s once (ctest -j2, load 15). A peer that
    // leaves is found by its exit, well within this (the next test).
    auto host = HostSharedMemory::connect(**client, prefix, processes[p], kRanks, 120s);
    if (!host || !*host) {
      std::fprintf(stderr, "process %zu: %s\n", p, host ? "no segment" : host.status().message().c_str());
      ::_exit(11);
    }
    if ((*host)->directBytes() != expectDirect) {
      std::fprintf(stderr, "process %zu: reads in place from %lld bytes, not %lld\n", p,
                   (long long)(*host)->directBytes(), (long long)expectDirect);
      ::_exit(13);
    }
    if (dieAfter && p == 2) ::_exit(0);  // without marking its rank stopped
    bool ok = true;
    std::vector<std::thread> threads;
    std::mutex mutex;
    for (int rank : processes[p])
      threads.emplace_back([&, rank] {
        Outputs outputs;
        Status s = body((*host)->member(rank), outputs);
        std::lock_guard<std::mutex> lock(mutex);
        if (dieAfter) {
          // The peers of the process that left (process 2, rank 3) must fail, naming it.
          bool named = s.message().find("rank 3's process") != std::string::npos;
          if (s.isOk() || !named) std::fprintf(stderr, "rank %d: %s\n", rank, s.message().c_str());
          ok &= !s.isOk() && named;
          return;
        }
        if (!s.isOk()) std::fprintf(stderr, "rank %d: %s\n", rank, s.message().c_str());
        ok &= s.isOk() && outputs.size() == expected[rank].size();
        for (size_t i = 0; ok && i < outputs.size(); ++i)
          if (outputs[i] != expected[rank][i]) {
            std::fprintf(stderr, "rank %d, output %zu differs from the in-process communicator's\n", rank, i);
            ok = false;
          }
      });
    for (std::thread& t : threads) t.join();
    ::_exit(ok ? 0 : 12);
  }
  std::vector<int> statuses;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    statuses.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return statuses;
}

// Slot bytes, bytes from which calls read peers in place, and the largest
// group that does (KILN_HOST_SHM_SLOT_BYTES, _DIRECT_BYTES, _DIRECT_MEMBERS).
struct Setting {
  const char* slot;
  const char* direct;
  const char* members;
};

// `body` run by `processes` under each setting, every process's results the
// in-process communicator's.
void expectEverySettingMatches(const Body& body, std::initializer_list<Setting> settings,
                               const std::vector<std::vector<int>>& processes = kProcesses) {
  std::vector<Outputs> expected = runInProcess(body);
  for (Setting k : settings) {
    std::vector<int> statuses = runInProcesses(body, expected, k.slot, k.direct, false, k.members, processes);
    for (size_t p = 0; p < statuses.size(); ++p)
      EXPECT_EQ(statuses[p], 0) << "process " << p << ", slot " << k.slot << ", in place from " << k.direct
                                << " bytes in groups of up to " << k.members;
  }
}

TEST(HostSharedMemory, EveryOperationMatchesTheInProcessCommunicatorBitwise) {
  expectEverySettingMatches(everyOperation, {{"4096", "off", "64"}, {"1048576", "off", "64"}, {"16", "off", "64"}});
}

TEST(HostSharedMemory, ReadingPeersInPlaceMatchesTheInProcessCommunicatorBitwise) {
  // Every call in place; calls of 4000 bytes and more (the others in 64-byte
  // slots); the calls of pairs (the world's through 4096-byte slots).
  expectEverySettingMatches(everyOperation, {{"4096", "0", "64"}, {"64", "4000", "4"}, {"4096", "0", "2"}});
}

TEST(HostSharedMemory, FourMembersWithBigBuffersMatchTheInProcessCommunicatorBitwise) {
  // Four processes of one rank each. The default slots and reading in place
  // only in pairs (the world's calls through the slots), the slots alone,
  // and every call of 256 KiB or more in place.
  expectEverySettingMatches(bigBuffers,
                            {{"1048576", "262144", "2"}, {"100000", "off", "2"}, {"1048576", "262144", "64"}},
                            {{0}, {1}, {2}, {3}});
}

TEST(HostSharedMemory, AProcessThatLeavesFailsItsPeersAtOnce) {
  for (const char* direct : {"off", "0"}) {
    auto start = std::chrono::steady_clock::now();
    std::vector<int> statuses = runInProcesses(everyOperation, {}, "4096", direct, /*dieAfter=*/true);
    EXPECT_EQ(statuses, (std::vector<int>{0, 0, 0})) << "in place from " << direct;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);  // the timeout is 120 s
  }
}

TEST(HostSharedMemory, NoSegmentWhenDisabledOrAlone) {
  auto server = TcpStoreServer::start("127.0.0.1", 0);
  ASSERT_TRUE(server.isOk());
  auto client = TcpStoreClient::connect("127.0.0.1:" + std::to_string((*server)->port()), 5s);
  ASSERT_TRUE(client.isOk());
  // Every rank in this process: nothing to share with another process.
  const int ranks[] = {0, 1};
  auto alone = HostSharedMemory::connect(**client, "alone", ranks, 2, 5s);
  ASSERT_TRUE(alone.isOk()) << alone.status().message();
  EXPECT_EQ(*alone, nullptr);
}

}  // namespace
}  // namespace kiln::distributed
