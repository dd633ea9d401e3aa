// HostSharedMemory: the segment, its barriers and the collectives over it.
#include "kiln/distributed/host_shared_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "kiln/collectives/permute.h"

namespace kiln::distributed {

using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kMagic = 0x6b696c6e73686d31ull;  // "kilnshm1"
constexpr int64_t kLine = 64;
constexpr int64_t kDefaultSlotBytes = 1 << 20;
// Barrier polls before sleeping on the futex; every 64th yields the core (as
// the in-process communicator does: peers usually arrive within microseconds).
constexpr int kSpinsBeforeSleep = 2000;
constexpr auto kExitPoll = std::chrono::milliseconds(20);
// all_reduce folds every member's whole chunk (one barrier fewer) up to this
// many bytes, or with two members; above, each member folds a slice.
constexpr int64_t kFoldAllBytes = 64 << 10;
constexpr int64_t kTileBytes = 16 << 10;
// Calls of groups of at most KILN_HOST_SHM_DIRECT_MEMBERS members that move
// at least KILN_HOST_SHM_DIRECT_BYTES (the lowest rank's process's settings
// hold for the host) read their peers' buffers in place, a tile of
// kDirectTileBytes per system call when folding. process_vm_readv costs a
// few times a memcpy per byte (it pins each page), so it pays where it saves
// more than it costs: in pairs, where it replaces the slots' extra copies
// and per-slot barriers; with four members on a loaded host it lost to the
// slots (docs/distributed.md).
constexpr int64_t kDefaultDirectBytes = 256 << 10;
constexpr int64_t kDefaultDirectMembers = 2;
constexpr int64_t kDirectTileBytes = 512 << 10;

struct Header {
  uint64_t magic;
  uint64_t nonce;
  int64_t ranks;
  int64_t slotBytes;
  int64_t directBytes;  // -1: never
  int64_t directMembers;
};

struct alignas(kLine) RankState {
  std::atomic<uint32_t> exited;
};

// flag[i * n + j]: barriers host rank i has passed in collectives with host rank j.
struct alignas(kLine) PairFlag {
  std::atomic<uint32_t> count;
  std::atomic<uint32_t> waiting;  // host rank j sleeps on `count`
};

static_assert(std::atomic<uint32_t>::is_always_lock_free);

int64_t slotBytesFromEnvironment() {
  int64_t bytes = kDefaultSlotBytes;
  if (const char* text = std::getenv("KILN_HOST_SHM_SLOT_BYTES")) {
    char* end = nullptr;
    long long value = std::strtoll(text, &end, 10);
    if (end != text && value > 0) bytes = value;
  }
  bytes = std::max<int64_t>(bytes, kLine);
  return (bytes + kLine - 1) / kLine * kLine;
}

// KILN_HOST_SHM_DIRECT_BYTES: a size in bytes (0: every call), or "off".
int64_t directBytesFromEnvironment() {
  const char* text = std::getenv("KILN_HOST_SHM_DIRECT_BYTES");
  if (!text) return kDefaultDirectBytes;
  if (std::string(text) == "off") return -1;
  char* end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  return end != text && value >= 0 ? value : kDefaultDirectBytes;
}

int64_t directMembersFromEnvironment() {
  const char* text = std::getenv("KILN_HOST_SHM_DIRECT_MEMBERS");
  char* end = nullptr;
  long long value = text ? std::strtoll(text, &end, 10) : 0;
  return text && end != text && value >= 1 ? value : kDefaultDirectMembers;
}

bool enabledByEnvironment() {
  const char* text = std::getenv("KILN_HOST_SHARED_MEMORY");
  return !(text && std::string(text) == "0");
}

std::string readFirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

std::string readLink(const std::string& path) {
  char buffer[256] = {};
  ssize_t n = ::readlink(path.c_str(), buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, n) : std::string("?");
}

// What two processes must share for a POSIX segment and their process ids to
// mean the same thing to both.
std::string hostIdentity() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return std::string(name) + "|" + readFirstLine("/proc/sys/kernel/random/boot_id") + "|" +
         readLink("/proc/self/ns/mnt") + "|" + readLink("/proc/self/ns/ipc") + "|" + readLink("/proc/self/ns/pid");
}

// Field 22 of /proc/PID/stat (the process's start time) and its state, or
// nothing when there is no such process.
struct ProcessStat {
  bool exists = false;
  char state = '?';
  uint64_t startTime = 0;
};
ProcessStat processStat(int64_t pid) {
  std::string line = readFirstLine("/proc/" + std::to_string(pid) + "/stat");
  size_t paren = line.rfind(')');
  if (paren == std::string::npos) return {};
  std::istringstream fields(line.substr(paren + 1));
  ProcessStat stat;
  std::string field;
  fields >> stat.state;
  for (int i = 4; i < 22 && fields >> field; ++i) {}
  fields >> stat.startTime;
  stat.exists = bool(fields);
  return stat;
}

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

void futexWait(std::atomic<uint32_t>* word, uint32_t expected, std::chrono::milliseconds timeout) {
#if defined(__linux__)
  struct timespec ts {};
  ts.tv_sec = timeout.count() / 1000;
  ts.tv_nsec = (timeout.count() % 1000) * 1000000;
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
#else
  (void)word, (void)expected;
  std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(1)));
#endif
}

void futexWake(std::atomic<uint32_t>* word) {
#if defined(__linux__)
  ::syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
#else
  (void)word;
#endif
}

std::string rankList(std::span<const int> ranks) {
  std::string s = "{";
  for (size_t i = 0; i < ranks.size(); ++i) s += (i ? "," : "") + std::to_string(ranks[i]);
  return s + "}";
}


void plainCopy(void* to, const void* from, int64_t bytes) { std::memcpy(to, from, bytes); }

void storeFence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

std::pair<int64_t, int64_t> sliceOf(int64_t count, size_t n, size_t k) {
  return {count * int64_t(k) / int64_t(n), count * int64_t(k + 1) / int64_t(n)};
}

class Member;

}  // namespace

struct HostSharedMemory::State {
  void* base = nullptr;
  int64_t mappedBytes = 0;
  std::vector<int> ranks;                  // global ranks on this host, ascending (host rank = index)
  std::vector<int64_t> pids;               // by host rank
  std::vector<uint64_t> startTimes;        // by host rank
  int64_t slotBytes = 0;
  // Calls of at least this many bytes read peers' buffers in place; -1: none
  // (off, or some process of the host cannot read another's memory).
  int64_t directBytes = -1;
  int64_t directMembers = 0;  // and in groups of at most this many members
  int64_t pid = 0;            // this process's
  std::chrono::milliseconds timeout{0};
  std::map<int, std::unique_ptr<Member>> members;  // this process's ranks

  int hostRank(int rank) const {
    auto it = std::lower_bound(ranks.begin(), ranks.end(), rank);
    return it != ranks.end() && *it == rank ? int(it - ranks.begin()) : -1;
  }
  int64_t n() const { return int64_t(ranks.size()); }
  RankState& rankState(int h) const {
    return reinterpret_cast<RankState*>(static_cast<char*>(base) + kLine)[h];
  }
  PairFlag& flag(int i, int j) const {
    return reinterpret_cast<PairFlag*>(static_cast<char*>(base) + kLine * (1 + n()))[i * n() + j];
  }
  char* slot(int h) const { return static_cast<char*>(base) + slotsOffset(n()) + h * slotBytes; }
  static int64_t slotsOffset(int64_t n) { return kLine * (1 + n + n * n); }
  static int64_t segmentBytes(int64_t n, int64_t slotBytes) { return slotsOffset(n) + n * slotBytes; }
};

namespace {

using State = HostSharedMemory::State;

// One rank's handle: the collectives of communicator.h over the segment.
class Member final : public collectives::Communicator {
 public:
  Member(State& state, int rank, int size) : state_(state), rank_(rank), size_(size), me_(state.hostRank(rank)) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status allReduce(std::span<const int> group, TypeKind type, collectives::Reduction op, const void* in, void* out,
                   int64_t count) override {
    KILN_RETURN_IF_ERROR(checkReduction(type, op));
    KILN_ASSIGN_OR_RETURN(Call c, begin(group, "all_reduce"));
    int64_t eb = collectives::elementBytes(type);
    if (direct(c, count * eb)) return directAllReduce(c, type, op, in, out, count);
    if (c.hosts.size() > 2 && count * eb > kFoldAllBytes) return slicedAllReduce(c, type, op, in, out, count);
    // Every member folds every member's whole chunk, in group order.
    int64_t perChunk = state_.slotBytes / eb;
    for (int64_t first = 0; first < count; first += perChunk) {
      int64_t n = std::min(perChunk, count - first);
      std::memcpy(state_.slot(me_), static_cast<const char*>(in) + first * eb, n * eb);
      KILN_RETURN_IF_ERROR(barrier(c));
      char* dst = static_cast<char*>(out) + first * eb;
      std::memcpy(dst, state_.slot(c.hosts[0]), n * eb);
      for (size_t m = 1; m < c.hosts.size(); ++m) collectives::reduceInto(type, op, dst, state_.slot(c.hosts[m]), n);
      KILN_RETURN_IF_ERROR(barrier(c));  // no peer reads this slot any more
    }
    return Status::ok();
  }

  Status reduceScatter(std::span<const int> group, TypeKind type, collectives::Reduction op, const void* in, void* out,
                       int64_t countPerMember) override {
    KILN_RETURN_IF_ERROR(checkReduction(type, op));
    KILN_ASSIGN_OR_RETURN(Call c, begin(group, "reduce_scatter"));
    int64_t eb = collectives::elementBytes(type);
    int64_t members = int64_t(c.hosts.size());
    if (direct(c, countPerMember * eb * members)) {
      // out = block `position` of every member's `in`, folded in group order.
      KILN_RETURN_IF_ERROR(publish(c, in, out));
      KILN_RETURN_IF_ERROR(foldDirect(c, type, op, int64_t(c.position) * countPerMember * eb, in, out, countPerMember));
      return barrier(c);  // no peer reads `in` any more
    }
    int64_t perChunk = std::max<int64_t>(1, state_.slotBytes / (eb * members));
    for (int64_t first = 0; first < countPerMember; first += perChunk) {
      int64_t n = std::min(perChunk, countPerMember - first);
      // The peers' blocks: this member folds its own block from its `in`.
      for (int64_t j = 0; j < members; ++j)
        if (j != int64_t(c.position))
          std::memcpy(state_.slot(me_) + j * n * eb, static_cast<const char*>(in) + (j * countPerMember + first) * eb,
                      n * eb);
      KILN_RETURN_IF_ERROR(barrier(c));
      char* dst = static_cast<char*>(out) + first * eb;
      int64_t offset = int64_t(c.position) * n * eb;
      auto source = [&](size_t m) -> const char* {
        return m == c.position ? static_cast<const char*>(in) + (int64_t(c.position) * countPerMember + first) * eb
                               : state_.slot(c.hosts[m]) + offset;
      };
      std::memcpy(dst, source(0), n * eb);
      for (size_t m = 1; m < c.hosts.size(); ++m) collectives::reduceInto(type, op, dst, source(m), n);
      KILN_RETURN_IF_ERROR(barrier(c));
    }
    return Status::ok();
  }

  Status allGather(std::span<const int> group, const void* in, void* out, int64_t bytesPerMember) override {
    KILN_ASSIGN_OR_RETURN(Call c, begin(group, "all_gather"));
    if (direct(c, bytesPerMember * int64_t(c.hosts.size()))) {
      KILN_RETURN_IF_ERROR(publish(c, in, out));
      for (size_t m = 0; m < c.hosts.size(); ++m)
        KILN_RETURN_IF_ERROR(
            readFrom(c, m, peerIn(c, m), in, static_cast<char*>(out) + int64_t(m) * bytesPerMember, bytesPerMember));
      return barrier(c);
    }
    for (int64_t first = 0; first < bytesPerMember; first += state_.slotBytes) {
      int64_t n = std::min(state_.slotBytes, bytesPerMember - first);
      std::memcpy(state_.slot(me_), static_cast<const char*>(in) + first, n);
      KILN_RETURN_IF_ERROR(barrier(c));
      for (size_t m = 0; m < c.hosts.size(); ++m)
        std::memcpy(static_cast<char*>(out) + m * bytesPerMember + first, state_.slot(c.hosts[m]), n);
      KILN_RETURN_IF_ERROR(barrier(c));
    }
    return Status::ok();
  }

  Status allToAll(std::span<const int> group, const void* in, void* out, int64_t bytesPerBlock) override {
    KILN_ASSIGN_OR_RETURN(Call c, begin(group, "all_to_all"));
    int64_t members = int64_t(c.hosts.size());
    if (direct(c, bytesPerBlock * members)) {
      KILN_RETURN_IF_ERROR(publish(c, in, out));
      int64_t offset = int64_t(c.position) * bytesPerBlock;
      for (int64_t m = 0; m < members; ++m)
        KILN_RETURN_IF_ERROR(readFrom(c, m, peerIn(c, m) + offset, static_cast<const char*>(in) + offset,
                                      static_cast<char*>(out) + m * bytesPerBlock, bytesPerBlock));
      return barrier(c);
    }
    int64_t perChunk = std::max<int64_t>(1, state_.slotBytes / members);
    for (int64_t first = 0; first < bytesPerBlock; first += perChunk) {
      int64_t n = std::min(perChunk, bytesPerBlock - first);
      for (int64_t j = 0; j < members; ++j)
        std::memcpy(state_.slot(me_) + j * n, static_cast<const char*>(in) + j * bytesPerBlock + first, n);
      KILN_RETURN_IF_ERROR(barrier(c));
      for (int64_t m = 0; m < members; ++m)
        std::memcpy(static_cast<char*>(out) + m * bytesPerBlock + first,
                    state_.slot(c.hosts[m]) + int64_t(c.position) * n, n);
      KILN_RETURN_IF_ERROR(barrier(c));
    }
    return Status::ok();
  }

  Status collectivePermute(std::span<const std::pair<int, int>> pairs, const void* in, void* out,
                           int64_t bytes) override {
    collectives::PermuteRoles roles = collectives::permuteRoles(pairs, rank_);
    if (!roles.takesPart) {
      std::memset(out, 0, bytes);
      return Status::ok();
    }
    int source = roles.source;
    bool sends = roles.sends;
    KILN_ASSIGN_OR_RETURN(Call c, begin(roles.named, "collective_permute"));
    if (source < 0) std::memset(out, 0, bytes);
    if (direct(c, bytes)) {
      KILN_RETURN_IF_ERROR(publish(c, in, out));
      if (source >= 0) {
        size_t from = std::find(c.group.begin(), c.group.end(), source) - c.group.begin();
        KILN_RETURN_IF_ERROR(readFrom(c, from, peerIn(c, from), in, out, bytes));
      }
      return barrier(c);
    }
    for (int64_t first = 0; first < bytes; first += state_.slotBytes) {
      int64_t n = std::min(state_.slotBytes, bytes - first);
      if (sends) std::memcpy(state_.slot(me_), static_cast<const char*>(in) + first, n);
      KILN_RETURN_IF_ERROR(barrier(c));
      if (source >= 0) std::memcpy(static_cast<char*>(out) + first, state_.slot(state_.hostRank(source)), n);
      KILN_RETURN_IF_ERROR(barrier(c));
    }
    return Status::ok();
  }

  Status broadcast(std::span<const int> group, int rootIndexInGroup, const void* in, void* out,
                   int64_t bytes) override {
    if (rootIndexInGroup < 0 || rootIndexInGroup >= int(group.size()))
      return error(ErrorCode::InvalidArgument, "broadcast root " + std::to_string(rootIndexInGroup) +
                                                   " is not a position in a group of " +
                                                   std::to_string(group.size()));
    KILN_ASSIGN_OR_RETURN(Call c, begin(group, "broadcast"));
    bool root = int(c.position) == rootIndexInGroup;
    if (root && out != in) std::memcpy(out, in, bytes);
    if (direct(c, bytes)) {
      KILN_RETURN_IF_ERROR(publish(c, in, out));
      if (!root)
        KILN_RETURN_IF_ERROR(readFrom(c, rootIndexInGroup, peerIn(c, rootIndexInGroup), in, out, bytes));
      return barrier(c);
    }
    for (int64_t first = 0; first < bytes; first += state_.slotBytes) {
      int64_t n = std::min(state_.slotBytes, bytes - first);
      if (root) std::memcpy(state_.slot(me_), static_cast<const char*>(in) + first, n);
      KILN_RETURN_IF_ERROR(barrier(c));
      if (!root) std::memcpy(static_cast<char*>(out) + first, state_.slot(c.hosts[rootIndexInGroup]), n);
      KILN_RETURN_IF_ERROR(barrier(c));
    }
    return Status::ok();
  }

 private:
  // One collective call: its members' host ranks in group order, this
  // member's position, and when it gives up.
  struct Call {
    std::vector<int> group;
    std::vector<int> hosts;
    size_t position = 0;
    std::string_view what;
    Clock::time_point deadline;
  };

  // --- Reading peers' buffers in place (calls of directBytes and more) ----
  //
  // Each member puts the addresses of its `in` and `out` at the start of its
  // slot and meets the others (publish); each then reads what it needs from
  // its peers' memory with process_vm_readv (a plain copy for a peer in this
  // process), and they meet again before any returns, so no buffer changes
  // while a peer may read it. Two or three barriers a call, whatever its size.

  struct Buffers {
    uint64_t in;
    uint64_t out;
  };

  bool direct(const Call& c, int64_t bytes) const {
    return state_.directBytes >= 0 && bytes >= state_.directBytes && int64_t(c.hosts.size()) <= state_.directMembers;
  }

  Status publish(const Call& c, const void* in, const void* out) {
    Buffers mine{reinterpret_cast<uint64_t>(in), reinterpret_cast<uint64_t>(out)};
    std::memcpy(state_.slot(me_), &mine, sizeof mine);
    return barrier(c);
  }
  Buffers peer(const Call& c, size_t m) const {
    Buffers theirs;
    std::memcpy(&theirs, state_.slot(c.hosts[m]), sizeof theirs);
    return theirs;
  }
  uint64_t peerIn(const Call& c, size_t m) const { return peer(c, m).in; }
  uint64_t peerOut(const Call& c, size_t m) const { return peer(c, m).out; }

  // Copies `bytes` at address `remote` of member m's process to `local`;
  // `mine` is where the same bytes are when m is this member.
  Status readFrom(const Call& c, size_t m, uint64_t remote, const void* mine, void* local, int64_t bytes) {
    if (bytes == 0) return Status::ok();
    int h = c.hosts[m];
    if (h == me_) {
      if (local != mine) std::memmove(local, mine, bytes);
      return Status::ok();
    }
    if (state_.pids[h] == state_.pid) {  // a rank on another thread of this process
      std::memcpy(local, reinterpret_cast<const void*>(remote), bytes);
      return Status::ok();
    }
    for (int64_t done = 0; done < bytes;) {
      struct iovec to{static_cast<char*>(local) + done, size_t(bytes - done)};
      struct iovec from{reinterpret_cast<void*>(remote + done), size_t(bytes - done)};
      ssize_t n = ::process_vm_readv(pid_t(state_.pids[h]), &to, 1, &from, 1, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::string why = n < 0 ? std::strerror(errno) : std::string("nothing read");
        KILN_RETURN_IF_ERROR(checkRunning(c, h));
        return failure(c, "could not read rank " + std::to_string(state_.ranks[h]) + "'s buffer: " + why);
      }
      done += n;
    }
    return Status::ok();
  }

  // local[0, count) = member 0's `in` at byteOffset op member 1's op ... in
  // group order, a tile at a time (each tile whole in scratch first, so
  // `local` may be this member's `in` at byteOffset). Follows publish.
  Status foldDirect(const Call& c, TypeKind type, collectives::Reduction op, int64_t byteOffset, const void* in,
                    void* local, int64_t count) {
    int64_t eb = collectives::elementBytes(type);
    int64_t tile = std::max<int64_t>(1, kDirectTileBytes / eb);
    std::vector<char> acc(std::min(tile, std::max<int64_t>(count, 1)) * eb), theirs(acc.size());
    const char* myIn = static_cast<const char*>(in) + byteOffset;
    for (int64_t first = 0; first < count; first += tile) {
      int64_t n = std::min(tile, count - first), off = first * eb;
      for (size_t m = 0; m < c.hosts.size(); ++m) {
        char* into = m == 0 ? acc.data() : theirs.data();
        const char* from = into;
        if (c.hosts[m] == me_ && m > 0)
          from = myIn + off;  // fold straight from this member's own `in`
        else
          KILN_RETURN_IF_ERROR(readFrom(c, m, peerIn(c, m) + byteOffset + off, myIn + off, into, n * eb));
        if (m > 0) collectives::reduceInto(type, op, acc.data(), from, n);
      }
      std::memcpy(static_cast<char*>(local) + off, acc.data(), n * eb);
    }
    return Status::ok();
  }

  // --- all_reduce of three members and more through the slots -----------
  //
  // A chunk (a slot's worth) at a time: each member copies into its slot the
  // slices of its chunk that its peers fold (not its own: it folds that from
  // its `in`), each at its offset in the chunk, a barrier, folds its slice
  // of every member's chunk in group order (the same bits as folding whole
  // chunks) into its `out` and into its own slice's place in its slot (which
  // no peer reads before the next barrier), a barrier, and copies the other
  // slices from their folders' slots into its `out`. The next chunk's
  // copying-in may start at once: every peer has folded (read what it
  // overwrites) before the second barrier, and it does not touch the
  // slices peers may still be gathering (each member's own), as long as the
  // chunk is sliced alike; before a shorter last chunk the members meet
  // once more. Two barriers a chunk and one at the end, where folding into
  // the slot and gathering from there took three a chunk, and a member
  // copies its own slice neither in nor out.
  Status slicedAllReduce(const Call& c, TypeKind type, collectives::Reduction op, const void* in, void* out,
                         int64_t count) {
    int64_t eb = collectives::elementBytes(type);
    size_t members = c.hosts.size();
    int64_t perChunk = state_.slotBytes / eb;
    int64_t tile = std::max<int64_t>(1, kTileBytes / eb);
    std::vector<char> scratch(tile * eb);
    const char* input = static_cast<const char*>(in);
    char* output = static_cast<char*>(out);
    char* slot = state_.slot(me_);
    auto write = count * eb * int64_t(members) >= collectives::kStreamingBytes ? collectives::streamCopy : plainCopy;
    for (int64_t first = 0; first < count; first += perChunk) {
      int64_t n = std::min(perChunk, count - first);
      // Sliced otherwise than the last chunk: peers may still gather from
      // where this chunk's copying-in goes.
      if (first > 0 && n != perChunk) KILN_RETURN_IF_ERROR(barrier(c));
      auto [b, e] = sliceOf(n, members, c.position);
      const char* chunkIn = input + first * eb;
      char* chunkOut = output + first * eb;
      // `in` and `out` may be one buffer: the peers' slices of `in` are in
      // the slot before any of `out` is written, and each tile of this
      // member's slice is read whole before it is written.
      std::memcpy(slot, chunkIn, b * eb);
      std::memcpy(slot + e * eb, chunkIn + e * eb, (n - e) * eb);
      KILN_RETURN_IF_ERROR(barrier(c));
      for (int64_t t = b; t < e; t += tile) {
        int64_t k = std::min(tile, e - t);
        auto source = [&](size_t m) {
          return m == c.position ? chunkIn + t * eb : state_.slot(c.hosts[m]) + t * eb;
        };
        std::memcpy(scratch.data(), source(0), k * eb);
        for (size_t m = 1; m < members; ++m) collectives::reduceInto(type, op, scratch.data(), source(m), k);
        write(chunkOut + t * eb, scratch.data(), k * eb);
        std::memcpy(slot + t * eb, scratch.data(), k * eb);
      }
      KILN_RETURN_IF_ERROR(barrier(c));  // every slice folded: no peer reads the others any more
      for (size_t m = 0; m < members; ++m) {
        if (m == c.position) continue;
        auto [mb, me] = sliceOf(n, members, m);
        write(chunkOut + mb * eb, state_.slot(c.hosts[m]) + mb * eb, (me - mb) * eb);
      }
    }
    storeFence();  // the streamed stores are done before the caller reads `out`
    return barrier(c);  // no peer reads this member's slice any more
  }

  // Each member folds its slice of the elements from every member's `in`
  // into its `out`, then copies the other slices from their folders' `out`.
  Status directAllReduce(const Call& c, TypeKind type, collectives::Reduction op, const void* in, void* out,
                         int64_t count) {
    int64_t eb = collectives::elementBytes(type);
    size_t members = c.hosts.size();
    KILN_RETURN_IF_ERROR(publish(c, in, out));
    auto [b, e] = sliceOf(count, members, c.position);
    KILN_RETURN_IF_ERROR(foldDirect(c, type, op, b * eb, in, static_cast<char*>(out) + b * eb, e - b));
    KILN_RETURN_IF_ERROR(barrier(c));  // every slice folded; no peer reads `in` any more
    for (size_t m = 0; m < members; ++m) {
      if (m == c.position) continue;
      auto [mb, me] = sliceOf(count, members, m);
      char* to = static_cast<char*>(out) + mb * eb;
      KILN_RETURN_IF_ERROR(readFrom(c, m, peerOut(c, m) + mb * eb, to, to, (me - mb) * eb));
    }
    return barrier(c);  // no peer reads `out` any more
  }

  static Status checkReduction(TypeKind type, collectives::Reduction op) {
    if (collectives::reducible(type, op)) return Status::ok();
    std::string elements = type <= TypeKind::F64 ? Type::element(type).str() : "these";
    return error(ErrorCode::Unimplemented,
                 "no native " + std::string(collectives::reductionName(op)) + " of " + elements + " elements");
  }

  Expected<Call> begin(std::span<const int> group, std::string_view what) const {
    Call c{.group = {group.begin(), group.end()}, .what = what, .deadline = Clock::now() + state_.timeout};
    std::vector<int> sorted = c.group;
    std::sort(sorted.begin(), sorted.end());
    bool distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    auto self = std::find(c.group.begin(), c.group.end(), rank_);
    for (int r : c.group) c.hosts.push_back(state_.hostRank(r));
    if (!distinct || self == c.group.end() || std::count(c.hosts.begin(), c.hosts.end(), -1))
      return error(ErrorCode::InvalidArgument, std::string(what) + ": group " + rankList(c.group) + " of rank " +
                                                   std::to_string(rank_) +
                                                   " is not a list of distinct ranks on this host holding it");
    c.position = self - c.group.begin();
    return c;
  }

  Status failure(const Call& c, const std::string& why) const {
    return error(ErrorCode::FailedPrecondition, std::string(c.what) + " (rank " + std::to_string(rank_) +
                                                    ", with ranks " + rankList(c.group) +
                                                    ") failed in shared memory: " + why);
  }

  // Meets every other member of the call: counts one more barrier with each,
  // then waits until each has counted as many with this member.
  Status barrier(const Call& c) {
    for (int h : c.hosts) {
      if (h == me_) continue;
      PairFlag& mine = state_.flag(me_, h);
      mine.count.fetch_add(1, std::memory_order_seq_cst);
      if (mine.waiting.load(std::memory_order_seq_cst)) futexWake(&mine.count);
    }
    for (int h : c.hosts) {
      if (h == me_) continue;
      uint32_t target = state_.flag(me_, h).count.load(std::memory_order_relaxed);
      KILN_RETURN_IF_ERROR(waitFor(c, h, target));
    }
    return Status::ok();
  }

  static bool reached(uint32_t count, uint32_t target) { return int32_t(count - target) >= 0; }

  Status waitFor(const Call& c, int h, uint32_t target) {
    PairFlag& theirs = state_.flag(h, me_);
    for (int i = 0; i < kSpinsBeforeSleep; ++i) {
      if (reached(theirs.count.load(std::memory_order_acquire), target)) return Status::ok();
      if (i % 64 == 63) std::this_thread::yield(); else cpuRelax();
    }
    Clock::time_point nextCheck = Clock::now();
    while (true) {
      theirs.waiting.store(1, std::memory_order_seq_cst);
      uint32_t seen = theirs.count.load(std::memory_order_seq_cst);
      if (reached(seen, target)) break;
      Clock::time_point now = Clock::now();
      if (now >= nextCheck) {
        // A peer that passed this barrier and then stopped is no failure:
        // the count is looked at again once it is seen stopped.
        if (Status stopped = checkRunning(c, h); !stopped.isOk()) {
          theirs.waiting.store(0, std::memory_order_relaxed);
          // It may have counted this barrier after the look above, then stopped.
          if (reached(theirs.count.load(std::memory_order_seq_cst), target)) return Status::ok();
          return stopped;
        }
        nextCheck = now + kExitPoll;
      }
      if (now >= c.deadline) {
        theirs.waiting.store(0, std::memory_order_relaxed);
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", state_.timeout.count() / 1000.0);
        return failure(c, "rank " + std::to_string(state_.ranks[h]) + " did not arrive within " + seconds +
                              " s (KILN_COLLECTIVE_TIMEOUT_S)");
      }
      futexWait(&theirs.count, seen, kExitPoll);
    }
    theirs.waiting.store(0, std::memory_order_relaxed);
    return Status::ok();
  }

  Status checkRunning(const Call& c, int h) const {
    std::string peer = "rank " + std::to_string(state_.ranks[h]);
    if (state_.rankState(h).exited.load(std::memory_order_acquire))
      return failure(c, peer + " stopped before reaching this collective");
    ProcessStat stat = processStat(state_.pids[h]);
    if (!stat.exists || stat.startTime != state_.startTimes[h] || stat.state == 'Z' || stat.state == 'X')
      return failure(c, "a peer process stopped: " + peer + "'s process (pid " + std::to_string(state_.pids[h]) +
                            ") exited");
    return Status::ok();
  }

  State& state_;
  int rank_;
  int size_;
  int me_;  // host rank
};

std::string randomToken() {
  std::random_device device;
  uint64_t value = (uint64_t(device()) << 32) ^ device() ^ uint64_t(Clock::now().time_since_epoch().count());
  std::ostringstream text;
  text << std::hex << value;
  return text.str();
}

}  // namespace

HostSharedMemory::HostSharedMemory(std::unique_ptr<State> state) : state_(std::move(state)) {}

HostSharedMemory::~HostSharedMemory() {
  if (state_ && state_->base) ::munmap(state_->base, state_->mappedBytes);
}

bool HostSharedMemory::covers(std::span<const int> group) const {
  return std::all_of(group.begin(), group.end(), [&](int r) { return state_->hostRank(r) >= 0; });
}

collectives::Communicator& HostSharedMemory::member(int rank) { return *state_->members.at(rank); }

int64_t HostSharedMemory::directBytes() const { return state_->directBytes; }

void HostSharedMemory::memberExited(int rank) {
  int h = state_->hostRank(rank);
  if (h < 0) return;
  state_->rankState(h).exited.store(1, std::memory_order_release);
  // Peers asleep on a barrier notice at their next look (every 20 ms).
}

Expected<std::shared_ptr<HostSharedMemory>> HostSharedMemory::connect(KeyValueStore& store,
                                                                      const std::string& keyPrefix,
                                                                      std::span<const int> instances,
                                                                      int numInstances,
                                                                      std::chrono::milliseconds timeout) {
  // 1. Every rank's host, process and the process's start time.
  int64_t pid = ::getpid();
  uint64_t startTime = processStat(pid).startTime;
  std::string identity = enabledByEnvironment() ? hostIdentity() : "off|" + std::to_string(pid) + "|" + randomToken();
  std::string mine = std::to_string(pid) + " " + std::to_string(startTime) + " " + identity;
  auto hostKey = [&](int r) { return keyPrefix + "/shm/host/" + std::to_string(r); };
  for (int r : instances) KILN_RETURN_IF_ERROR(store.set(hostKey(r), mine));
  auto state = std::make_unique<State>();
  state->timeout = timeout;
  state->pid = pid;
  bool otherProcess = false;
  for (int r = 0; r < numInstances; ++r) {
    KILN_ASSIGN_OR_RETURN(std::string value, store.get(hostKey(r), timeout));
    std::istringstream fields(value);
    int64_t theirPid = 0;
    uint64_t theirStart = 0;
    fields >> theirPid >> theirStart;
    std::string theirIdentity;
    std::getline(fields, theirIdentity);
    if (theirIdentity.empty() || theirIdentity.substr(1) != identity) continue;
    state->ranks.push_back(r);
    state->pids.push_back(theirPid);
    state->startTimes.push_back(theirStart);
    otherProcess |= theirPid != pid;
  }
  if (!otherProcess) return std::shared_ptr<HostSharedMemory>();

  // 2. The lowest rank's process makes the segment and names it in the store.
  // A slot holds at least one element (8 bytes at most) per member of a group.
  state->slotBytes = std::max<int64_t>(slotBytesFromEnvironment(), (state->n() * 8 + kLine - 1) / kLine * kLine);
  int64_t bytes = State::segmentBytes(state->n(), state->slotBytes);
  int leader = state->ranks.front();
  bool leading = std::find(instances.begin(), instances.end(), leader) != instances.end();
  std::string segmentKey = keyPrefix + "/shm/segment/" + std::to_string(leader);
  std::string name;
  if (leading) {
    std::string nonce = randomToken();
    name = "/kiln-" + std::to_string(pid) + "-" + nonce;
    int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    bool made = fd >= 0 && ::ftruncate(fd, bytes) == 0 && ::posix_fallocate(fd, 0, bytes) == 0;
    if (made) {
      state->base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      made = state->base != MAP_FAILED;
      if (!made) state->base = nullptr;
    }
    if (fd >= 0) ::close(fd);
    if (made) {
      state->mappedBytes = bytes;
      auto* header = static_cast<Header*>(state->base);
      *header = {kMagic,           std::stoull(nonce, nullptr, 16), state->n(), state->slotBytes,
                 directBytesFromEnvironment(), directMembersFromEnvironment()};
    } else if (fd >= 0) {
      ::shm_unlink(name.c_str());
    }
    KILN_RETURN_IF_ERROR(store.set(segmentKey, made ? name + " " + nonce : std::string("none")));
    if (!made) name.clear();
  } else {
    KILN_ASSIGN_OR_RETURN(std::string value, store.get(segmentKey, timeout));
    std::istringstream fields(value);
    std::string nonce;
    fields >> name >> nonce;
    if (name != "none" && !nonce.empty()) {
      int fd = ::shm_open(name.c_str(), O_RDWR, 0600);
      struct stat st {};
      if (fd >= 0 && ::fstat(fd, &st) == 0 && st.st_size == bytes) {
        void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (base != MAP_FAILED) {
          auto* header = static_cast<Header*>(base);
          if (header->magic == kMagic && header->nonce == std::stoull(nonce, nullptr, 16) &&
              header->ranks == state->n() && header->slotBytes == state->slotBytes) {
            state->base = base;
            state->mappedBytes = bytes;
          } else {
            ::munmap(base, bytes);
          }
        }
      }
      if (fd >= 0) ::close(fd);
    }
  }

  // 3. Whether every process of the host mapped it: all use it, or none. Each
  // says where it mapped it, for step 4.
  auto attachedKey = [&](int r) { return keyPrefix + "/shm/attached/" + std::to_string(r); };
  std::string attached = state->base ? "1 " + std::to_string(reinterpret_cast<uint64_t>(state->base)) : "0";
  for (int r : instances)
    if (state->hostRank(r) >= 0) KILN_RETURN_IF_ERROR(store.set(attachedKey(r), attached));
  bool everyone = true;
  Status status = Status::ok();
  std::vector<uint64_t> bases(state->ranks.size());
  for (size_t h = 0; h < state->ranks.size(); ++h) {
    Expected<std::string> value = store.get(attachedKey(state->ranks[h]), timeout);
    if (!value) {
      status = value.takeStatus();
      break;
    }
    std::istringstream fields(*value);
    int yes = 0;
    fields >> yes >> bases[h];
    everyone &= yes == 1;
  }
  if (leading && !name.empty()) ::shm_unlink(name.c_str());  // the mappings stay

  // 4. Whether this process can read every other's memory (process_vm_readv:
  // ptrace's permission, which a Yama policy or a sandbox may refuse): the
  // segment's header where each mapped it. Large calls read peers' buffers
  // in place only when every process of the host can.
  if (status.isOk() && everyone) {
    state->directBytes = static_cast<Header*>(state->base)->directBytes;
    state->directMembers = static_cast<Header*>(state->base)->directMembers;
    const Header& ours = *static_cast<Header*>(state->base);
    bool readable = state->directBytes >= 0;
    for (size_t h = 0; readable && h < state->ranks.size(); ++h) {
      if (state->pids[h] == pid) continue;
      Header theirs{};
      struct iovec to{&theirs, sizeof theirs};
      struct iovec from{reinterpret_cast<void*>(bases[h]), sizeof theirs};
      readable = ::process_vm_readv(pid_t(state->pids[h]), &to, 1, &from, 1, 0) == ssize_t(sizeof theirs) &&
                 theirs.magic == ours.magic && theirs.nonce == ours.nonce;
    }
    auto directKey = [&](int r) { return keyPrefix + "/shm/direct/" + std::to_string(r); };
    for (int r : instances)
      if (status.isOk() && state->hostRank(r) >= 0) status = store.set(directKey(r), readable ? "1" : "0");
    for (int r : state->ranks) {
      if (!status.isOk()) break;
      Expected<std::string> value = store.get(directKey(r), timeout);
      if (!value) status = value.takeStatus();
      readable &= value && *value == "1";
    }
    if (!readable) state->directBytes = -1;
  }
  auto host = std::shared_ptr<HostSharedMemory>(new HostSharedMemory(std::move(state)));
  if (!status.isOk()) return status;
  if (!everyone) return std::shared_ptr<HostSharedMemory>();
  for (int r : instances)
    host->state_->members[r] = std::make_unique<Member>(*host->state_, r, numInstances);
  return host;
}

}  // namespace kiln::distributed
