// kiln's own key-value store over TCP: `kiln launch` serves one
// (TcpStoreServer) and every process it starts is a client (TcpStoreClient)
// at $KILN_COORDINATOR. A handful of keys per process, so one thread per
// connection and a map under a mutex are plenty.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kiln/distributed/key_value_store.h"

namespace kiln::distributed {

class TcpStoreServer {
 public:
  // Listens on `host`:`port` (port 0: a free one, see port()).
  static Expected<std::unique_ptr<TcpStoreServer>> start(const std::string& host, int port);
  ~TcpStoreServer();  // stops serving: clients waiting on a key get an error
  int port() const { return port_; }

 private:
  TcpStoreServer(int listenFd, int port);
  void acceptLoop();
  void serve(int fd);

  int listenFd_;
  int port_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
  std::vector<int> connections_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

class TcpStoreClient final : public KeyValueStore {
 public:
  // Connects to `address` ("host:port"), retrying until `timeout` (the
  // server may still be starting).
  static Expected<std::unique_ptr<TcpStoreClient>> connect(const std::string& address,
                                                           std::chrono::milliseconds timeout);
  ~TcpStoreClient() override;
  Status set(std::string_view key, std::string_view value) override;
  Expected<std::string> get(std::string_view key, std::chrono::milliseconds timeout) override;
  Expected<int64_t> add(std::string_view key, int64_t delta) override;

 private:
  TcpStoreClient(int fd, std::string address) : fd_(fd), address_(std::move(address)) {}
  Status lostServer() const;

  int fd_;
  std::string address_;
  std::mutex mutex_;  // one request at a time on the connection
};

// Splits "host:port"; an error that quotes `address` otherwise.
Expected<std::pair<std::string, int>> splitHostPort(const std::string& address);

}  // namespace kiln::distributed
