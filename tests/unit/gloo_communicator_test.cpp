// The Gloo communicator (kiln/distributed/gloo_communicator.h), its ranks on
// threads of this process connected over TCP on loopback through kiln's
// key-value store: every operation gives bitwise the results of the
// in-process communicator, over the world and over sub-groups; and a rank
// that goes away makes the others fail within the timeout instead of hanging.
#include "kiln/distributed/gloo_communicator.h"

#include <gtest/gtest.h>

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

// What one rank's body produced: the bytes of each operation's output.
using Outputs = std::vector<std::vector<char>>;
using Body = std::function<Status(Communicator&, Outputs&)>;

int uniqueRun = 0;  // each run of a test uses keys of its own

// Runs `body` on `size` ranks of a Gloo run (one thread each), returning
// their statuses and outputs.
std::pair<std::vector<Status>, std::vector<Outputs>> runOverGloo(int size, const Body& body,
                                                                 std::chrono::milliseconds timeout = 20s) {
  auto server = TcpStoreServer::start("127.0.0.1", 0);
  EXPECT_TRUE(server.isOk());
  std::string address = "127.0.0.1:" + std::to_string((*server)->port());
  std::vector<Status> statuses(size);
  std::vector<Outputs> outputs(size);
  std::vector<std::thread> threads;
  std::string prefix = "test" + std::to_string(uniqueRun++);
  for (int rank = 0; rank < size; ++rank)
    threads.emplace_back([&, rank] {
      Expected<std::unique_ptr<TcpStoreClient>> client = TcpStoreClient::connect(address, 5s);
      if (!client) return void(statuses[rank] = client.takeStatus());
      GlooOptions options{.keyPrefix = prefix, .timeout = timeout};
      auto communicator = connectGloo(std::shared_ptr<KeyValueStore>(std::move(*client)), rank, size, options);
      if (!communicator) return void(statuses[rank] = communicator.takeStatus());
      statuses[rank] = body(**communicator, outputs[rank]);
    });
  for (std::thread& t : threads) t.join();
  return {std::move(statuses), std::move(outputs)};
}

std::vector<Outputs> runInProcess(int size, const Body& body) {
  collectives::SharedMemoryWorld world(size, 20);
  std::vector<Outputs> outputs(size);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank)
    threads.emplace_back([&, rank] {
      Status s = body(world.member(rank), outputs[rank]);
      EXPECT_TRUE(s.isOk()) << s.message();
      world.memberExited(rank);
    });
  for (std::thread& t : threads) t.join();
  return outputs;
}

std::vector<float> floatsOf(int rank, int count) {
  std::mt19937 gen(77 + rank);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(count);
  for (float& x : v) x = dist(gen);
  return v;
}

template <typename T>
std::vector<char> bytesOf(const std::vector<T>& v) {
  const char* p = reinterpret_cast<const char*>(v.data());
  return std::vector<char>(p, p + v.size() * sizeof(T));
}

// Every operation once or more, over the world of 3 and sub-groups.
Status everyOperation(Communicator& c, Outputs& outputs) {
  int r = c.rank();
  const std::vector<int> world = {0, 1, 2};
  const std::vector<int> sub = r == 1 ? std::vector<int>{1} : std::vector<int>{2, 0};  // group order 2, 0
  constexpr int n = 1000;
  std::vector<float> x = floatsOf(r, 3 * n), out(3 * n);
  auto record = [&](int64_t count) { outputs.push_back(bytesOf(std::vector<float>(out.begin(), out.begin() + count))); };

  KILN_RETURN_IF_ERROR(c.allReduce(world, TypeKind::F32, Reduction::Sum, x.data(), out.data(), n));
  record(n);
  KILN_RETURN_IF_ERROR(c.allReduce(sub, TypeKind::F32, Reduction::Max, x.data(), out.data(), n));
  record(n);
  std::vector<int32_t> ints = {r + 1, -r, 7 * r}, intsOut(3);
  KILN_RETURN_IF_ERROR(c.allReduce(world, TypeKind::SI32, Reduction::Product, ints.data(), intsOut.data(), 3));
  outputs.push_back(bytesOf(intsOut));
  std::vector<float> inPlace = x;
  KILN_RETURN_IF_ERROR(c.allReduce(world, TypeKind::F32, Reduction::Sum, inPlace.data(), inPlace.data(), 3 * n));
  outputs.push_back(bytesOf(inPlace));
  KILN_RETURN_IF_ERROR(c.reduceScatter(world, TypeKind::F32, Reduction::Sum, x.data(), out.data(), n));
  record(n);
  KILN_RETURN_IF_ERROR(c.allGather(world, x.data(), out.data(), n * sizeof(float)));
  record(3 * n);
  KILN_RETURN_IF_ERROR(c.allGather(sub, x.data(), out.data(), 5 * sizeof(float)));
  record(5 * sub.size());
  KILN_RETURN_IF_ERROR(c.allToAll(world, x.data(), out.data(), n * sizeof(float)));
  record(3 * n);
  KILN_RETURN_IF_ERROR(c.broadcast(world, 1, x.data(), out.data(), n * sizeof(float)));
  record(n);
  std::vector<float> rooted = x;
  KILN_RETURN_IF_ERROR(c.broadcast(sub, 0, rooted.data(), rooted.data(), n * sizeof(float)));
  outputs.push_back(bytesOf(rooted));
  const std::pair<int, int> cycle[] = {{0, 1}, {1, 2}, {2, 0}};
  KILN_RETURN_IF_ERROR(c.collectivePermute(cycle, x.data(), out.data(), n * sizeof(float)));
  record(n);
  const std::pair<int, int> partial[] = {{2, 1}, {0, 0}};  // rank 2 receives nothing: zeros
  KILN_RETURN_IF_ERROR(c.collectivePermute(partial, x.data(), out.data(), n * sizeof(float)));
  record(n);
  // Empty buffers (a tensor with a zero dimension) move nothing and succeed.
  KILN_RETURN_IF_ERROR(c.allReduce(world, TypeKind::F32, Reduction::Sum, x.data(), out.data(), 0));
  KILN_RETURN_IF_ERROR(c.allGather(world, x.data(), out.data(), 0));
  KILN_RETURN_IF_ERROR(c.collectivePermute(cycle, x.data(), out.data(), 0));
  return Status::ok();
}

TEST(GlooCommunicator, EveryOperationMatchesTheInProcessCommunicatorBitwise) {
  if (!glooAvailable()) GTEST_SKIP() << "built without Gloo";
  std::vector<Outputs> expected = runInProcess(3, everyOperation);
  auto [statuses, outputs] = runOverGloo(3, everyOperation);
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(statuses[r].isOk()) << "rank " << r << ": " << statuses[r].message();
    ASSERT_EQ(outputs[r].size(), expected[r].size());
    for (size_t i = 0; i < outputs[r].size(); ++i) EXPECT_EQ(outputs[r][i], expected[r][i]) << "rank " << r << ", operation " << i;
  }
}

TEST(GlooCommunicator, ARankThatLeavesMakesTheOthersFailWithinTheTimeout) {
  if (!glooAvailable()) GTEST_SKIP() << "built without Gloo";
  auto start = std::chrono::steady_clock::now();
  auto [statuses, outputs] = runOverGloo(
      3,
      [](Communicator& c, Outputs&) -> Status {
        if (c.rank() == 2) return Status::ok();  // leaves without the collective
        std::vector<float> x(16, 1), out(16);
        return c.allReduce(std::vector<int>{0, 1, 2}, TypeKind::F32, Reduction::Sum, x.data(), out.data(), 16);
      },
      2s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 15s);
  EXPECT_TRUE(statuses[2].isOk());
  for (int r : {0, 1}) {
    ASSERT_FALSE(statuses[r].isOk()) << "rank " << r;
    EXPECT_NE(statuses[r].diag().message.find("failed over Gloo"), std::string::npos) << statuses[r].message();
  }
}

// A rank that is alive but never reaches the collective (a deadlock, a
// different program): the others fail after the timeout.
TEST(GlooCommunicator, ARankThatNeverArrivesMakesTheOthersFailAfterTheTimeout) {
  if (!glooAvailable()) GTEST_SKIP() << "built without Gloo";
  auto start = std::chrono::steady_clock::now();
  auto [statuses, outputs] = runOverGloo(
      2,
      [](Communicator& c, Outputs&) -> Status {
        if (c.rank() == 1) {
          std::this_thread::sleep_for(3s);  // connected, but late
          return Status::ok();
        }
        std::vector<float> x(16, 1), out(16);
        return c.allGather(std::vector<int>{0, 1}, x.data(), out.data(), 16 * sizeof(float));
      },
      1s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  ASSERT_FALSE(statuses[0].isOk());
  EXPECT_NE(statuses[0].diag().message.find("all_gather (rank 0, with ranks {0,1}) failed over Gloo"),
            std::string::npos)
      << statuses[0].message();
}

// A build without Gloo still links and says what is missing at use.
TEST(GlooCommunicator, WithoutGlooConnectingSaysWhatToInstall) {
  if (glooAvailable()) GTEST_SKIP() << "built with Gloo";
  auto communicator = connectGloo(nullptr, 0, 2, {});
  ASSERT_FALSE(communicator.isOk());
  EXPECT_EQ(communicator.status().code(), ErrorCode::Unimplemented);
  EXPECT_NE(communicator.status().diag().message.find("install libgloo-dev"), std::string::npos);
}

TEST(GlooCommunicator, ARankThatNeverConnectsMakesTheOthersFailToConnect) {
  if (!glooAvailable()) GTEST_SKIP() << "built without Gloo";
  auto server = TcpStoreServer::start("127.0.0.1", 0);
  ASSERT_TRUE(server.isOk());
  auto client = TcpStoreClient::connect("127.0.0.1:" + std::to_string((*server)->port()), 5s);
  ASSERT_TRUE(client.isOk());
  GlooOptions options{.keyPrefix = "alone", .timeout = 500ms};
  auto communicator = connectGloo(std::shared_ptr<KeyValueStore>(std::move(*client)), 0, 2, options);
  ASSERT_FALSE(communicator.isOk());
  EXPECT_NE(communicator.status().diag().message.find("connecting"), std::string::npos)
      << communicator.status().message();
}

// send/recv's messages: sendTo returns before the peer receives (both ranks
// send first, then receive), messages on one channel arrive in the order
// sent, channels are apart, and finishSends returns once all were received.
TEST(GlooCommunicator, PointToPointMessagesArriveInOrderPerChannel) {
  if (!glooAvailable()) GTEST_SKIP() << "built without Gloo";
  auto [statuses, outputs] = runOverGloo(3, [](Communicator& c, Outputs& out) -> Status {
    int next = (c.rank() + 1) % 3, previous = (c.rank() + 2) % 3;
    for (int k = 0; k < 3; ++k) {
      std::vector<int32_t> message{c.rank(), k, 100 * c.rank() + k};
      KILN_RETURN_IF_ERROR(c.sendTo(next, 7, message.data(), 12));
    }
    std::vector<int32_t> other{-c.rank()};
    KILN_RETURN_IF_ERROR(c.sendTo(next, 9, other.data(), 4));
    // Channel 9 first: a message of another channel does not block it.
    std::vector<int32_t> got9(1);
    KILN_RETURN_IF_ERROR(c.recvFrom(previous, 9, got9.data(), 4));
    out.push_back(bytesOf(got9));
    for (int k = 0; k < 3; ++k) {
      std::vector<int32_t> got(3);
      KILN_RETURN_IF_ERROR(c.recvFrom(previous, 7, got.data(), 12));
      out.push_back(bytesOf(got));
    }
    return c.finishSends();
  });
  for (int rank = 0; rank < 3; ++rank) {
    ASSERT_TRUE(statuses[rank].isOk()) << statuses[rank].message();
    int previous = (rank + 2) % 3;
    ASSERT_EQ(outputs[rank].size(), 4u);
    EXPECT_EQ(outputs[rank][0], bytesOf(std::vector<int32_t>{-previous}));
    for (int k = 0; k < 3; ++k)
      EXPECT_EQ(outputs[rank][1 + k], bytesOf(std::vector<int32_t>{previous, k, 100 * previous + k})) << rank << " " << k;
  }
}

// A message nobody receives fails its sender's finishSends within the
// timeout; the in-process communicator has no messages of this kind.
TEST(GlooCommunicator, AMessageNeverReceivedFailsItsSender) {
  if (!glooAvailable()) GTEST_SKIP() << "built without Gloo";
  auto [statuses, outputs] = runOverGloo(
      2,
      [](Communicator& c, Outputs&) -> Status {
        if (c.rank() == 1) {
          std::this_thread::sleep_for(1500ms);  // stays connected, never receives
          return Status::ok();
        }
        int32_t value = 5;
        KILN_RETURN_IF_ERROR(c.sendTo(1, 1, &value, 4));
        return c.finishSends();
      },
      500ms);
  ASSERT_FALSE(statuses[0].isOk());
  EXPECT_NE(statuses[0].diag().message.find("a send not received before the sender stopped"), std::string::npos)
      << statuses[0].message();
  collectives::SharedMemoryWorld world(1, 20);
  int32_t value = 0;
  EXPECT_EQ(world.member(0).sendTo(0, 1, &value, 4).code(), ErrorCode::Unimplemented);
}

}  // namespace
}  // namespace kiln::distributed
