// kiln's TCP key-value store (what `kiln launch` serves): values set by one
// client reach the others, a get waits for a later set, and a get that
// cannot be answered fails with an error naming the key instead of hanging.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "kiln/distributed/process_group.h"
#include "kiln/distributed/tcp_store.h"

namespace kiln::distributed {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<TcpStoreServer> startServer() {
  auto server = TcpStoreServer::start("127.0.0.1", 0);
  EXPECT_TRUE(server.isOk()) << server.status().message();
  return std::move(*server);
}

std::unique_ptr<TcpStoreClient> connectTo(const TcpStoreServer& server) {
  auto client = TcpStoreClient::connect("127.0.0.1:" + std::to_string(server.port()), 5s);
  EXPECT_TRUE(client.isOk()) << client.status().message();
  return std::move(*client);
}

TEST(TcpStore, ValuesSetByOneClientReachAnother) {
  auto server = startServer();
  auto a = connectTo(*server), b = connectTo(*server);
  ASSERT_TRUE(a->set("k", std::string("v\0x", 3)).isOk());
  Expected<std::string> value = b->get("k", 1s);
  ASSERT_TRUE(value.isOk()) << value.status().message();
  EXPECT_EQ(*value, std::string("v\0x", 3));
}

TEST(TcpStore, GetWaitsForALaterSet) {
  auto server = startServer();
  auto a = connectTo(*server), b = connectTo(*server);
  std::thread setter([&] {
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(a->set("late", "here").isOk());
  });
  Expected<std::string> value = b->get("late", 10s);
  setter.join();
  ASSERT_TRUE(value.isOk()) << value.status().message();
  EXPECT_EQ(*value, "here");
}

// Threads of one process share a client: one waiting for a key must not
// keep another from setting it (two instances of a process connecting to
// Gloo wait for each other so).
TEST(TcpStore, AWaitingGetLetsAnotherThreadOfTheClientSet) {
  auto server = startServer();
  auto client = connectTo(*server);
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(client->set("mine", "1").isOk());
  });
  auto start = std::chrono::steady_clock::now();
  Expected<std::string> value = client->get("mine", 10s);
  setter.join();
  ASSERT_TRUE(value.isOk()) << value.status().message();
  // Blocked, the set would land only after the get's 10 s; the bound leaves
  // room for a loaded machine (2 s was missed at load average 15).
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
}

// The shared counter of kiln test's infeed queue across processes: clients
// adding at once each get a different sum, every one from 1 to the total
// once; the value reads back as the total.
TEST(TcpStore, AddHandsEachCallerItsOwnSum) {
  auto server = startServer();
  constexpr int kClients = 4, kAdds = 50;
  std::vector<std::unique_ptr<TcpStoreClient>> clients;
  for (int c = 0; c < kClients; ++c) clients.push_back(connectTo(*server));
  std::vector<std::vector<int64_t>> sums(kClients);
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c)
    threads.emplace_back([&, c] {
      for (int i = 0; i < kAdds; ++i) {
        Expected<int64_t> sum = clients[c]->add("counter", 1);
        ASSERT_TRUE(sum.isOk()) << sum.status().message();
        sums[c].push_back(*sum);
      }
    });
  for (std::thread& t : threads) t.join();
  std::vector<int64_t> all;
  for (const auto& s : sums) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), size_t(kClients * kAdds));
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i], int64_t(i + 1));
  Expected<std::string> total = clients[0]->get("counter", 1s);
  ASSERT_TRUE(total.isOk());
  EXPECT_EQ(*total, std::to_string(kClients * kAdds));
  Expected<int64_t> back = clients[1]->add("counter", -kClients * kAdds);
  ASSERT_TRUE(back.isOk());
  EXPECT_EQ(*back, 0);
}

TEST(KeyValueStore, ACallbackStoreHasNoCounter) {
  CallbackKeyValueStore store([](std::string_view, std::chrono::milliseconds) -> Expected<std::string> { return std::string(); },
                              [](std::string_view, std::string_view) { return Status::ok(); });
  Expected<int64_t> sum = store.add("counter", 1);
  ASSERT_FALSE(sum.isOk());
  EXPECT_NE(sum.status().message().find("no shared counter ('counter')"), std::string::npos) << sum.status().message();
}

TEST(TcpStore, GetOfAnUnsetKeyTimesOutNamingIt) {
  auto server = startServer();
  auto client = connectTo(*server);
  auto start = std::chrono::steady_clock::now();
  Expected<std::string> value = client->get("never", 200ms);
  ASSERT_FALSE(value.isOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_NE(value.status().diag().message.find("no 'never' after 0.2 s"), std::string::npos)
      << value.status().diag().message;
}

TEST(TcpStore, AClientOfAStoppedServerFailsClearly) {
  auto server = startServer();
  auto client = connectTo(*server);
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    server.reset();
  });
  Expected<std::string> value = client->get("never", 30s);  // the server stops meanwhile
  stopper.join();
  ASSERT_FALSE(value.isOk());
  EXPECT_NE(value.status().diag().message.find("lost the connection to the key-value store"), std::string::npos)
      << value.status().diag().message;
}

TEST(TcpStore, ConnectingToNoServerFailsAfterTheTimeout) {
  int port;
  {
    auto server = startServer();
    port = server->port();
  }
  auto client = TcpStoreClient::connect("127.0.0.1:" + std::to_string(port), 200ms);
  ASSERT_FALSE(client.isOk());
  EXPECT_NE(client.status().diag().message.find("cannot connect to the key-value store"), std::string::npos);
  EXPECT_FALSE(TcpStoreClient::connect("no-port-here", 1s).isOk());
}

TEST(ProcessGroup, ReadsTheLaunchersEnvironment) {
  ::unsetenv("KILN_NUM_PROCESSES");
  auto none = processGroupFromEnvironment();
  ASSERT_TRUE(none.isOk());
  EXPECT_FALSE(none->has_value());
  ::setenv("KILN_NUM_PROCESSES", "2", 1);
  ::setenv("KILN_PROCESS_ID", "1", 1);
  ::setenv("KILN_COORDINATOR", "127.0.0.1:1234", 1);
  ::setenv("KILN_COLLECTIVE_TIMEOUT_S", "2.5", 1);
  auto info = processGroupFromEnvironment();
  ASSERT_TRUE(info.isOk()) << info.status().message();
  EXPECT_EQ((*info)->processId, 1);
  EXPECT_EQ((*info)->numProcesses, 2);
  EXPECT_EQ((*info)->coordinator, "127.0.0.1:1234");
  EXPECT_EQ((*info)->timeout, 2500ms);
  ::setenv("KILN_PROCESS_ID", "2", 1);
  auto bad = processGroupFromEnvironment();
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().diag().message.find("KILN_PROCESS_ID=2 is not in 0..1"), std::string::npos);
  for (const char* name : {"KILN_NUM_PROCESSES", "KILN_PROCESS_ID", "KILN_COORDINATOR", "KILN_COLLECTIVE_TIMEOUT_S"})
    ::unsetenv(name);
}

}  // namespace
}  // namespace kiln::distributed
