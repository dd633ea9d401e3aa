// The wire format: a request is an op byte ('S' set, 'G' get, 'A' add), the
// key and, for 'S', the value, for 'G', the timeout in milliseconds, for 'A'
// the amount as decimal text; strings are a 4-byte little-endian length and
// the bytes. 'S' is answered by one byte 0; 'G' by 0 and the value, or 1
// when the key stayed unset for the timeout; 'A' by 0 and the sum as decimal
// text (the key's value, unset or not a number counting as 0).
#include "kiln/distributed/tcp_store.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>

namespace kiln::distributed {
namespace {

bool writeAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

bool readAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = ::recv(fd, p, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

bool writeU32(int fd, uint32_t v) {
  unsigned char b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  return writeAll(fd, b, 4);
}

bool readU32(int fd, uint32_t& v) {
  unsigned char b[4];
  if (!readAll(fd, b, 4)) return false;
  v = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  return true;
}

bool writeString(int fd, std::string_view s) { return writeU32(fd, uint32_t(s.size())) && writeAll(fd, s.data(), s.size()); }

bool readString(int fd, std::string& s) {
  uint32_t size;
  if (!readU32(fd, size)) return false;
  s.resize(size);
  return readAll(fd, s.data(), size);
}

constexpr char kSet = 'S', kGet = 'G', kAdd = 'A';
constexpr char kFound = 0, kTimedOut = 1;

// getaddrinfo for an IPv4 TCP address.
Expected<sockaddr_in> resolve(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0)
    return error("cannot resolve host '" + host + "': " + gai_strerror(rc));
  sockaddr_in addr = *reinterpret_cast<sockaddr_in*>(found->ai_addr);
  freeaddrinfo(found);
  addr.sin_port = htons(uint16_t(port));
  return addr;
}

}  // namespace

Expected<std::pair<std::string, int>> splitHostPort(const std::string& address) {
  size_t colon = address.rfind(':');
  auto bad = [&] { return error("expected host:port, got '" + address + "'"); };
  if (colon == std::string::npos || colon == 0) return bad();
  std::string portText = address.substr(colon + 1);
  if (portText.empty() || portText.size() > 5 || portText.find_first_not_of("0123456789") != std::string::npos)
    return bad();
  int port = std::stoi(portText);
  if (port <= 0 || port > 65535) return bad();
  return std::pair{address.substr(0, colon), port};
}

// ---- Server ---------------------------------------------------------------

Expected<std::unique_ptr<TcpStoreServer>> TcpStoreServer::start(const std::string& host, int port) {
  KILN_ASSIGN_OR_RETURN(sockaddr_in addr, resolve(host, port));
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return error(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 128) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return error("cannot listen on " + host + ":" + std::to_string(port) + ": " + why);
  }
  socklen_t size = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size);
  return std::unique_ptr<TcpStoreServer>(new TcpStoreServer(fd, ntohs(addr.sin_port)));
}

TcpStoreServer::TcpStoreServer(int listenFd, int port) : listenFd_(listenFd), port_(port) {
  acceptor_ = std::thread([this] { acceptLoop(); });
}

TcpStoreServer::~TcpStoreServer() {
  stopping_ = true;
  ::shutdown(listenFd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (int fd : connections_) ::shutdown(fd, SHUT_RDWR);  // wakes recv()
  }
  changed_.notify_all();  // wakes waiting gets
  for (std::thread& t : threads_) t.join();
  for (int fd : connections_) ::close(fd);
  ::close(listenFd_);
}

void TcpStoreServer::acceptLoop() {
  while (!stopping_) {
    int fd = ::accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;  // shut down
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) {
      ::close(fd);
      return;
    }
    connections_.push_back(fd);
    threads_.emplace_back([this, fd] { serve(fd); });
  }
}

void TcpStoreServer::serve(int fd) {
  for (;;) {
    char op;
    std::string key;
    if (!readAll(fd, &op, 1) || !readString(fd, key)) return;  // the client went
    if (op == kSet) {
      std::string value;
      if (!readString(fd, value)) return;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        values_[key] = std::move(value);
      }
      changed_.notify_all();
      if (!writeAll(fd, &kFound, 1)) return;
    } else if (op == kGet) {
      uint32_t timeoutMs;
      if (!readU32(fd, timeoutMs)) return;
      std::unique_lock<std::mutex> lock(mutex_);
      bool found = changed_.wait_for(lock, std::chrono::milliseconds(timeoutMs),
                                     [&] { return stopping_ || values_.count(key); });
      if (stopping_) return;
      std::string value = found ? values_[key] : std::string();
      lock.unlock();
      if (!writeAll(fd, found ? &kFound : &kTimedOut, 1) || (found && !writeString(fd, value))) return;
    } else if (op == kAdd) {
      std::string delta;
      if (!readString(fd, delta)) return;
      std::string sum;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        std::string& value = values_[key];
        int64_t current = 0, amount = 0;
        std::from_chars(value.data(), value.data() + value.size(), current);
        std::from_chars(delta.data(), delta.data() + delta.size(), amount);
        value = sum = std::to_string(current + amount);
      }
      changed_.notify_all();
      if (!writeAll(fd, &kFound, 1) || !writeString(fd, sum)) return;
    } else {
      return;  // not a client of ours
    }
  }
}

// ---- Client ---------------------------------------------------------------

Expected<std::unique_ptr<TcpStoreClient>> TcpStoreClient::connect(const std::string& address,
                                                                  std::chrono::milliseconds timeout) {
  KILN_ASSIGN_OR_RETURN(auto hostPort, splitHostPort(address));
  KILN_ASSIGN_OR_RETURN(sockaddr_in addr, resolve(hostPort.first, hostPort.second));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return error(std::string("socket: ") + std::strerror(errno));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return std::unique_ptr<TcpStoreClient>(new TcpStoreClient(fd, address));
    }
    std::string why = std::strerror(errno);
    ::close(fd);
    if (std::chrono::steady_clock::now() >= deadline)
      return error(ErrorCode::FailedPrecondition,
                   "cannot connect to the key-value store at " + address + ": " + why);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

TcpStoreClient::~TcpStoreClient() { ::close(fd_); }

Status TcpStoreClient::lostServer() const {
  return error(ErrorCode::FailedPrecondition, "lost the connection to the key-value store at " + address_ +
                                                  " (did `kiln launch` stop?)");
}

Status TcpStoreClient::set(std::string_view key, std::string_view value) {
  std::lock_guard<std::mutex> lock(mutex_);
  char reply;
  if (!writeAll(fd_, &kSet, 1) || !writeString(fd_, key) || !writeString(fd_, value) || !readAll(fd_, &reply, 1))
    return lostServer();
  return Status::ok();
}

Expected<std::string> TcpStoreClient::get(std::string_view key, std::chrono::milliseconds timeout) {
  // The wait goes in short slices, letting go of the connection in between:
  // threads of one process share the client, and one waiting for a key that
  // another is about to set must not keep it from setting it.
  constexpr auto kSlice = std::chrono::milliseconds(100);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    auto wait = std::max(std::chrono::milliseconds(0), std::min(left, kSlice));
    std::lock_guard<std::mutex> lock(mutex_);
    char reply;
    if (!writeAll(fd_, &kGet, 1) || !writeString(fd_, key) || !writeU32(fd_, uint32_t(wait.count())) ||
        !readAll(fd_, &reply, 1))
      return lostServer();
    if (reply == kFound) {
      std::string value;
      if (!readString(fd_, value)) return lostServer();
      return value;
    }
    if (left <= kSlice) return keyTimeoutError(key, timeout);
  }
}

Expected<int64_t> TcpStoreClient::add(std::string_view key, int64_t delta) {
  std::lock_guard<std::mutex> lock(mutex_);
  char reply;
  std::string sum;
  if (!writeAll(fd_, &kAdd, 1) || !writeString(fd_, key) || !writeString(fd_, std::to_string(delta)) ||
      !readAll(fd_, &reply, 1) || !readString(fd_, sum))
    return lostServer();
  int64_t value = 0;
  std::from_chars(sum.data(), sum.data() + sum.size(), value);
  return value;
}

}  // namespace kiln::distributed
