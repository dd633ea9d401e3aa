// GlooCommunicator: kiln's collectives on Gloo's algorithms. all_reduce and
// reduce_scatter move the members' values with Gloo (alltoall, allgather) and
// fold them here in group order, so that every member, and the in-process
// communicator, computes the bitwise-same result; Gloo's own allreduce folds
// in ring order, which differs by rank and from a one-process run.
#include "kiln/distributed/gloo_communicator.h"

#include <optional>
#include <thread>

#if KILN_HAVE_GLOO

#include <gloo/allgather.h>
#include <gloo/alltoall.h>
#include <gloo/broadcast.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "kiln/support/format.h"

namespace kiln::distributed {
namespace {

// Gloo's rendezvous store over ours. Gloo reports failures by exceptions,
// which connect() turns back into a Status.
class GlooStore final : public gloo::rendezvous::Store {
 public:
  GlooStore(KeyValueStore& store, std::string prefix, std::chrono::milliseconds timeout)
      : store_(store), prefix_(std::move(prefix)), timeout_(timeout) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    Status s = store_.set(prefix_ + key, std::string_view(data.data(), data.size()));
    if (!s.isOk()) throw std::runtime_error(s.diag().message);
  }
  std::vector<char> get(const std::string& key) override {
    Expected<std::string> value = store_.get(prefix_ + key, timeout_);
    if (!value) throw std::runtime_error(value.status().diag().message);
    return std::vector<char>(value->begin(), value->end());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    for (const std::string& key : keys) {
      Expected<std::string> value = store_.get(prefix_ + key, timeout);
      if (!value) throw std::runtime_error(value.status().diag().message);
    }
  }

 private:
  KeyValueStore& store_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

// One TCP device (Gloo's event loop thread) per process and address, shared
// by every context.
std::shared_ptr<gloo::transport::Device> sharedDevice(const std::string& hostname) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<gloo::transport::Device>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  // Gloo writes to its sockets without MSG_NOSIGNAL: a write to a peer that
  // died would kill this process with SIGPIPE instead of failing the
  // collective with an error. Ignored unless the program handles it itself.
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) ::signal(SIGPIPE, SIG_IGN);
  auto& device = devices[hostname];
  if (!device) device = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr(hostname.c_str()));
  return device;
}

std::string joinRanks(std::span<const int> ranks) {
  std::string text;
  for (int r : ranks) text += (text.empty() ? "" : ",") + std::to_string(r);
  return text;
}

// Point-to-point messages of collective_permute use slots of their own,
// above those of Gloo's collectives (whose prefixes are 0x01..0x08).
constexpr uint64_t kPermuteSlotBase = uint64_t(0xF0) << 56;
// send/recv messages: the channel in bits 32..55, the message's number
// between the two ranks on that channel below.
constexpr uint64_t kSendRecvSlotBase = uint64_t(0xF1) << 56;

class GlooCommunicator final : public collectives::Communicator {
 public:
  GlooCommunicator(std::shared_ptr<KeyValueStore> store, int rank, int size, GlooOptions options)
      : store_(std::move(store)), rank_(rank), size_(size), options_(std::move(options)) {}

  Status connectWorld() {
    std::vector<int> everyone(size_);
    for (int r = 0; r < size_; ++r) everyone[r] = r;
    Expected<std::shared_ptr<gloo::Context>> world = contextFor(everyone);
    if (!world) return world.takeStatus();
    // A barrier: without it a rank whose program needs no collective could
    // finish, and close its connections, while a peer is still connecting
    // to it, failing the peer's start.
    char mine = 0;
    std::vector<char> all(size_);
    return gather("connecting", everyone, &mine, all.data(), 1);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  // Two ways, both folding every member's value in group order (so every
  // member, and the in-process communicator, gets the same bits):
  // - small buffers, and any buffer between two members: one all-gather of
  //   the whole values, each member folding all of them. One round of
  //   messages; between two members it moves the same bytes as the other way.
  // - otherwise a reduce-scatter then an all-gather, as a ring all-reduce
  //   moves data (each member sends and receives about twice the buffer,
  //   whatever the group's size): member m folds slice m of every member's
  //   value, then every member gathers the folded slices. The buffer is
  //   padded to a whole number of slices.
  // Across processes each round is a wake-up of Gloo's event loop and of the
  // waiting thread, which a loaded host makes cost milliseconds.
  static constexpr int64_t kOneRoundAllReduceBytes = 64 << 10;

  Status allReduce(std::span<const int> group, TypeKind type, collectives::Reduction op, const void* in, void* out,
                   int64_t count) override {
    int64_t n = int64_t(group.size()), elementBytes = collectives::elementBytes(type);
    if (n == 1 || count == 0) return copy(out, in, count * elementBytes);
    int64_t bytes = count * elementBytes;
    if (n == 2 || bytes <= kOneRoundAllReduceBytes) {
      std::vector<char>& all = scratch(0, n * bytes);  // member j's value at j * bytes
      KILN_RETURN_IF_ERROR(gather("all_reduce", group, in, all.data(), bytes));
      for (int64_t j = 1; j < n; ++j) collectives::reduceInto(type, op, all.data(), all.data() + j * bytes, count);
      std::memcpy(out, all.data(), bytes);
      return Status::ok();
    }
    int64_t slice = (count + n - 1) / n, sliceBytes = slice * elementBytes;
    std::vector<char>& padded = scratch(0, n * sliceBytes);
    std::memcpy(padded.data(), in, bytes);
    std::vector<char>& parts = scratch(1, n * sliceBytes);  // part j: member j's slice for us
    KILN_RETURN_IF_ERROR(exchange("all_reduce", group, padded.data(), parts.data(), sliceBytes));
    for (int64_t j = 1; j < n; ++j) collectives::reduceInto(type, op, parts.data(), parts.data() + j * sliceBytes, slice);
    KILN_RETURN_IF_ERROR(gather("all_reduce", group, parts.data(), padded.data(), sliceBytes));
    std::memcpy(out, padded.data(), bytes);
    return Status::ok();
  }

  Status reduceScatter(std::span<const int> group, TypeKind type, collectives::Reduction op, const void* in,
                       void* out, int64_t countPerMember) override {
    // Block j of `parts` is member j's block for us; fold them in group order.
    int64_t bytes = countPerMember * collectives::elementBytes(type);
    if (bytes == 0) return Status::ok();  // Gloo takes no empty buffers
    std::vector<char> parts(group.size() * bytes);
    KILN_RETURN_IF_ERROR(exchange("reduce_scatter", group, in, parts.data(), bytes));
    std::memcpy(out, parts.data(), bytes);
    for (size_t j = 1; j < group.size(); ++j)
      collectives::reduceInto(type, op, out, parts.data() + j * bytes, countPerMember);
    return Status::ok();
  }

  Status allGather(std::span<const int> group, const void* in, void* out, int64_t bytesPerMember) override {
    return gather("all_gather", group, in, out, bytesPerMember);
  }

  Status allToAll(std::span<const int> group, const void* in, void* out, int64_t bytesPerBlock) override {
    return exchange("all_to_all", group, in, out, bytesPerBlock);
  }

  // allGather and allToAll, with the name of the operation they serve for
  // errors (all_reduce and reduce_scatter run on them).
  Status gather(std::string_view what, std::span<const int> group, const void* in, void* out,
                int64_t bytesPerMember) {
    if (group.size() == 1 || bytesPerMember == 0) return copy(out, in, bytesPerMember);
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> context, contextFor(group));
    std::vector<char> input = separateFrom(in, bytesPerMember, out, group.size() * bytesPerMember);
    return guarded(what, group, [&] {
      gloo::AllgatherOptions opts(context);
      opts.setInput(const_cast<char*>(input.empty() ? static_cast<const char*>(in) : input.data()),
                    size_t(bytesPerMember));
      opts.setOutput(static_cast<char*>(out), group.size() * size_t(bytesPerMember));
      opts.setTag(nextTag(group));
      gloo::allgather(opts);
    });
  }

  Status exchange(std::string_view what, std::span<const int> group, const void* in, void* out,
                  int64_t bytesPerBlock) {
    if (group.size() == 1 || bytesPerBlock == 0) return copy(out, in, bytesPerBlock);
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> context, contextFor(group));
    int64_t total = group.size() * bytesPerBlock;
    std::vector<char> input = separateFrom(in, total, out, total);
    return guarded(what, group, [&] {
      gloo::AlltoallOptions opts(context);
      opts.setInput(const_cast<char*>(input.empty() ? static_cast<const char*>(in) : input.data()), size_t(total));
      opts.setOutput(static_cast<char*>(out), size_t(total));
      opts.setTag(nextTag(group));
      gloo::alltoall(opts);
    });
  }

  Status broadcast(std::span<const int> group, int rootIndexInGroup, const void* in, void* out,
                   int64_t bytes) override {
    KILN_ASSIGN_OR_RETURN(int position, positionIn(group));
    if (position == rootIndexInGroup) KILN_RETURN_IF_ERROR(copy(out, in, bytes));
    if (group.size() == 1 || bytes == 0) return Status::ok();
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> context, contextFor(group));
    return guarded("broadcast", group, [&] {
      gloo::BroadcastOptions opts(context);
      opts.setOutput(static_cast<char*>(out), size_t(bytes));  // the root sends its output
      opts.setRoot(rootIndexInGroup);
      opts.setTag(nextTag(group));
      gloo::broadcast(opts);
    });
  }

  Status collectivePermute(std::span<const std::pair<int, int>> pairs, const void* in, void* out,
                           int64_t bytes) override {
    int target = -1, source = -1;
    for (auto [from, to] : pairs) {
      if (from == rank_) target = to;
      if (to == rank_) source = from;
    }
    if (source == rank_ || bytes == 0) return copy(out, in, bytes);  // to itself, or nothing
    std::vector<int> everyone(size_);
    for (int r = 0; r < size_; ++r) everyone[r] = r;
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> world, contextFor(everyone));
    // (zeroing `out` below must not clear what we send from it either)
    std::vector<char> input = target >= 0 ? separateFrom(in, bytes, out, bytes) : std::vector<char>();
    const void* sendFrom = input.empty() ? in : input.data();
    if (source < 0) std::memset(out, 0, bytes);
    int peers[2] = {source, target};
    return guarded("collective_permute", peers, [&] {
      std::unique_ptr<gloo::transport::UnboundBuffer> sendBuffer, recvBuffer;
      uint64_t sendSlot = 0, recvSlot = 0;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (target >= 0) sendSlot = kPermuteSlotBase + sendCount_[target]++;
        if (source >= 0) recvSlot = kPermuteSlotBase + recvCount_[source]++;
      }
      if (target >= 0) {
        sendBuffer = world->createUnboundBuffer(const_cast<void*>(sendFrom), size_t(bytes));
        sendBuffer->send(target, sendSlot);
      }
      if (source >= 0) {
        recvBuffer = world->createUnboundBuffer(out, size_t(bytes));
        recvBuffer->recv(source, recvSlot);
      }
      if (sendBuffer) sendBuffer->waitSend(options_.timeout);
      if (recvBuffer) recvBuffer->waitRecv(options_.timeout);
    });
  }

  Status sendTo(int target, int64_t channel, const void* in, int64_t bytes) override {
    if (target < 0 || target >= size_ || target == rank_)
      return error(ErrorCode::InvalidArgument, "send from rank " + std::to_string(rank_) + " to rank " +
                                                   std::to_string(target) + " of " + std::to_string(size_));
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> world, contextFor(everyone()));
    auto pending = std::make_unique<PendingSend>();
    pending->target = target;
    pending->data.assign(static_cast<const char*>(in), static_cast<const char*>(in) + bytes);
    int peers[2] = {rank_, target};
    KILN_RETURN_IF_ERROR(guarded("send", peers, [&] {
      uint64_t slot = messageSlot(sendMessages_, target, channel);
      pending->buffer = world->createUnboundBuffer(pending->data.data(), pending->data.size());
      pending->buffer->send(target, slot);
    }));
    std::lock_guard<std::mutex> lock(mutex_);
    pendingSends_.push_back(std::move(pending));
    return Status::ok();
  }

  Status recvFrom(int source, int64_t channel, void* out, int64_t bytes) override {
    if (source < 0 || source >= size_ || source == rank_)
      return error(ErrorCode::InvalidArgument, "recv on rank " + std::to_string(rank_) + " from rank " +
                                                   std::to_string(source) + " of " + std::to_string(size_));
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> world, contextFor(everyone()));
    int peers[2] = {source, rank_};
    return guarded("recv", peers, [&] {
      uint64_t slot = messageSlot(recvMessages_, source, channel);
      std::unique_ptr<gloo::transport::UnboundBuffer> buffer = world->createUnboundBuffer(out, size_t(bytes));
      buffer->recv(source, slot);
      buffer->waitRecv(options_.timeout);
    });
  }

  Status finishSends() override {
    std::vector<std::unique_ptr<PendingSend>> pending;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending.swap(pendingSends_);
    }
    for (const std::unique_ptr<PendingSend>& p : pending) {
      int peers[2] = {rank_, p->target};
      KILN_RETURN_IF_ERROR(guarded("a send not received before the sender stopped", peers,
                                   [&] { p->buffer->waitSend(options_.timeout); }));
    }
    return Status::ok();
  }

 private:
  Expected<int> positionIn(std::span<const int> group) const {
    for (size_t i = 0; i < group.size(); ++i)
      if (group[i] == rank_) return int(i);
    return error(ErrorCode::Internal, "rank " + std::to_string(rank_) + " is not in group {" + joinRanks(group) + "}");
  }

  std::vector<int> everyone() const {
    std::vector<int> ranks(size_);
    for (int r = 0; r < size_; ++r) ranks[r] = r;
    return ranks;
  }

  // The slot of the next message with `peer` on `channel` (`counts`: sent or received).
  uint64_t messageSlot(std::map<std::pair<int, int64_t>, uint64_t>& counts, int peer, int64_t channel) {
    std::lock_guard<std::mutex> lock(mutex_);
    uint64_t n = counts[{peer, channel}]++;
    return kSendRecvSlotBase + ((uint64_t(channel) & 0xFFFFFF) << 32) + (n & 0xFFFFFFFF);
  }

  // A message on its way: its bytes stay here until the peer has them.
  struct PendingSend {
    int target = -1;
    std::vector<char> data;
    std::unique_ptr<gloo::transport::UnboundBuffer> buffer;
  };

  static Status copy(void* out, const void* in, int64_t bytes) {
    if (out != in) std::memmove(out, in, bytes);
    return Status::ok();
  }

  // Scratch buffer `which` of at least `bytes`, kept between calls (a rank's
  // collectives run on one thread, one at a time).
  std::vector<char>& scratch(int which, int64_t bytes) {
    if (int64_t(scratch_[which].size()) < bytes) scratch_[which].resize(bytes);
    return scratch_[which];
  }

  // A copy of `in` when it overlaps `out` (Gloo reads its input while it
  // writes its output); empty when it does not.
  static std::vector<char> separateFrom(const void* in, int64_t inBytes, const void* out, int64_t outBytes) {
    auto a = reinterpret_cast<uintptr_t>(in), b = reinterpret_cast<uintptr_t>(out);
    if (a + inBytes <= b || b + outBytes <= a) return {};
    const char* p = static_cast<const char*>(in);
    return std::vector<char>(p, p + inBytes);
  }

  // The next tag for an operation on `group` (its members count alike).
  uint32_t nextTag(std::span<const int> group) {
    std::lock_guard<std::mutex> lock(mutex_);
    return tags_[std::vector<int>(group.begin(), group.end())]++;
  }

  // The Gloo context of `group` (rank = position in group), made at first use.
  Expected<std::shared_ptr<gloo::Context>> contextFor(std::span<const int> group) {
    KILN_ASSIGN_OR_RETURN(int position, positionIn(group));
    std::vector<int> key(group.begin(), group.end());
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = contexts_.find(key); it != contexts_.end()) return it->second;
    }
    auto context = std::make_shared<gloo::rendezvous::Context>(position, int(group.size()));
    context->setTimeout(options_.timeout);
    GlooStore store(*store_, options_.keyPrefix + "/group " + joinRanks(group) + "/", options_.timeout);
    KILN_RETURN_IF_ERROR(guarded("connecting", group, [&] {
      auto device = sharedDevice(options_.hostname);
      context->connectFullMesh(store, device);
    }));
    std::lock_guard<std::mutex> lock(mutex_);
    contexts_[key] = context;
    return std::shared_ptr<gloo::Context>(context);
  }

  // Runs `body`, turning Gloo's exceptions into an error that says which
  // collective failed among which ranks.
  template <typename Body>
  Status guarded(std::string_view what, std::span<const int> ranks, Body&& body) {
    try {
      body();
      return Status::ok();
    } catch (const std::exception& e) {
      return error(ErrorCode::FailedPrecondition,
                   std::string(what) + " (rank " + std::to_string(rank_) + ", with ranks {" + joinRanks(ranks) +
                       "}) failed over Gloo: " + e.what() + " -- a peer process stopped, or did not arrive within " +
                       formatDouble(options_.timeout.count() / 1000.0) + " s (KILN_COLLECTIVE_TIMEOUT_S)");
    }
  }

  std::shared_ptr<KeyValueStore> store_;
  int rank_, size_;
  GlooOptions options_;
  std::mutex mutex_;
  std::map<std::vector<int>, std::shared_ptr<gloo::Context>> contexts_;
  std::map<std::vector<int>, uint32_t> tags_;
  std::map<int, uint64_t> sendCount_, recvCount_;  // collective_permute messages per peer
  std::map<std::pair<int, int64_t>, uint64_t> sendMessages_, recvMessages_;  // send/recv, per peer and channel
  std::vector<std::unique_ptr<PendingSend>> pendingSends_;
  std::vector<char> scratch_[2];
};

}  // namespace

bool glooAvailable() { return true; }

Expected<std::unique_ptr<collectives::Communicator>> connectGloo(std::shared_ptr<KeyValueStore> store, int rank,
                                                                 int size, const GlooOptions& options) {
  if (rank < 0 || rank >= size)
    return error(ErrorCode::InvalidArgument, "rank " + std::to_string(rank) + " of " + std::to_string(size));
  auto communicator = std::make_unique<GlooCommunicator>(std::move(store), rank, size, options);
  KILN_RETURN_IF_ERROR(communicator->connectWorld());
  return std::unique_ptr<collectives::Communicator>(std::move(communicator));
}

}  // namespace kiln::distributed

#endif  // KILN_HAVE_GLOO

namespace kiln::distributed {

Expected<std::vector<std::unique_ptr<collectives::Communicator>>> connectGlooRanks(
    std::shared_ptr<KeyValueStore> store, std::span<const int> ranks, int size, const GlooOptions& options) {
  std::vector<std::optional<Expected<std::unique_ptr<collectives::Communicator>>>> connected(ranks.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ranks.size(); ++i)
    threads.emplace_back([&, i] { connected[i].emplace(connectGloo(store, ranks[i], size, options)); });
  for (std::thread& t : threads) t.join();
  std::vector<std::unique_ptr<collectives::Communicator>> communicators;
  for (auto& c : connected) {
    if (!*c) return c->takeStatus();
    communicators.push_back(std::move(**c));
  }
  return communicators;
}

}  // namespace kiln::distributed

#if !KILN_HAVE_GLOO

namespace kiln::distributed {

bool glooAvailable() { return false; }

Expected<std::unique_ptr<collectives::Communicator>> connectGloo(std::shared_ptr<KeyValueStore>, int, int,
                                                                 const GlooOptions&) {
  return error(ErrorCode::Unimplemented,
               "this kiln was built without Gloo, which runs across processes: install libgloo-dev "
               "(scripts/setup.sh does) and build again");
}

}  // namespace kiln::distributed

#endif
