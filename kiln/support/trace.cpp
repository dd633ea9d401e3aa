#include "kiln/support/trace.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>

#include "kiln/support/format.h"

namespace kiln::trace {

namespace detail {
std::atomic<bool> recording{false};
}

namespace {

using Clock = std::chrono::steady_clock;

// The session: its events, its clock's origin, the threads' tracks. One lock
// for all of it: slices are recorded at their end, a few per kernel at most.
struct Recorder {
  std::mutex mutex;
  std::vector<Event> events;
  Clock::time_point origin = Clock::now();
  int64_t originUnixNs = 0;
  std::atomic<uint64_t> session{0};
  uint32_t nextThread = 1;
  std::map<uint32_t, std::string> names;
};

Recorder& recorder() {
  static Recorder* r = new Recorder;  // never destroyed: threads may record during exit
  return *r;
}

// This thread's track number, assigned on first use (under the lock).
thread_local uint32_t tlsThread = 0;

uint32_t threadLocked(Recorder& r) {
  if (tlsThread == 0) tlsThread = r.nextThread++;
  return tlsThread;
}

std::string micros(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(ns) / 1000.0);
  return buf;
}

}  // namespace

void start() {
  Recorder& r = recorder();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.events.clear();
    r.origin = Clock::now();
    r.originUnixNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch()).count();
    r.session.fetch_add(1, std::memory_order_relaxed);
    uint32_t thread = threadLocked(r);
    r.names.try_emplace(thread, "main");
  }
  detail::recording.store(true, std::memory_order_release);
}

void stop() { detail::recording.store(false, std::memory_order_release); }

int64_t now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - recorder().origin).count();
}

int64_t originUnixNs() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.originUnixNs;
}

void setThreadName(std::string_view name) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.names[threadLocked(r)] = std::string(name);
}

void record(std::string_view category, std::string name, int64_t startNs, int64_t durationNs,
            std::vector<std::pair<std::string, std::string>> args) {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.events.push_back(
      {std::move(name), std::string(category), startNs, durationNs, threadLocked(r), std::move(args)});
}

void Scope::begin(std::string_view category, std::string name) {
  open_.emplace(Open{});  // (clang 14 rejects emplace() of a nested struct with member initializers)
  open_->category = category;
  open_->name = std::move(name);
  open_->session = recorder().session.load(std::memory_order_relaxed);
  open_->startNs = now();
}

void Scope::end() {
  int64_t endNs = now();
  Recorder& r = recorder();
  if (r.session.load(std::memory_order_relaxed) != open_->session) return;
  record(open_->category, std::move(open_->name), open_->startNs, endNs - open_->startNs, std::move(open_->args));
}

std::vector<Event> events() {
  Recorder& r = recorder();
  std::vector<Event> out;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    out = r.events;
  }
  // A parent starts no later than its children and lasts longer: on equal
  // starts the longer slice comes first, so nesting reads in order.
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    if (a.thread != b.thread) return a.thread < b.thread;
    if (a.startNs != b.startNs) return a.startNs < b.startNs;
    return a.durationNs > b.durationNs;
  });
  return out;
}

std::vector<std::pair<uint32_t, std::string>> threadNames() {
  Recorder& r = recorder();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::pair<uint32_t, std::string>> out;
  for (uint32_t t = 1; t < r.nextThread; ++t) {
    auto it = r.names.find(t);
    out.emplace_back(t, it != r.names.end() ? it->second : "thread " + std::to_string(t));
  }
  return out;
}

std::string toJson() {
  constexpr int kPid = 1;
  std::string out = "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  out += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"tid\": 0, \"args\": {\"name\": \"kiln\"}}";
  for (const auto& [thread, name] : threadNames())
    out += ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(kPid) +
           ", \"tid\": " + std::to_string(thread) + ", \"args\": {\"name\": " + jsonQuote(name) + "}}";
  for (const Event& e : events()) {
    out += ",\n{\"ph\": \"X\", \"name\": " + jsonQuote(e.name) + ", \"cat\": " + jsonQuote(e.category) +
           ", \"pid\": " + std::to_string(kPid) + ", \"tid\": " + std::to_string(e.thread) +
           ", \"ts\": " + micros(e.startNs) + ", \"dur\": " + micros(e.durationNs);
    if (!e.args.empty()) {
      out += ", \"args\": {";
      for (size_t i = 0; i < e.args.size(); ++i)
        out += (i ? ", " : "") + jsonQuote(e.args[i].first) + ": " + jsonQuote(e.args[i].second);
      out += "}";
    }
    out += "}";
  }
  return out + "\n]}\n";
}

Status writeJson(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << toJson())) return error("cannot write trace file '" + path + "'");
  return Status::ok();
}

}  // namespace kiln::trace
