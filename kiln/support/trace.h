// Tracing: a process-wide recorder of timed slices that any part of kiln (or
// a library built on it, such as the PJRT plugin) can write to, and that
// writes the Chrome trace event format Perfetto and chrome://tracing open.
//
//   kiln::trace::start();
//   { kiln::trace::Scope s("kernel", "fusion @ model.py:3"); ... }
//   kiln::trace::stop();
//   kiln::trace::writeJson("out.json");
//
// While no session is recording, a Scope costs one relaxed atomic load and a
// branch: names are string_views or built by a lambda only while recording,
// and nothing is constructed or allocated. While recording, each slice takes a lock and a
// vector append at its end; slices are kept in memory until the next start().
// Each thread is a track of its own, numbered in the order threads first
// record; setThreadName() names a track. See docs/profiling.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "kiln/support/diagnostic.h"

namespace kiln::trace {

// One slice (a "complete event", ph 'X').
struct Event {
  std::string name;
  std::string category;  // "compile", "pass", "codegen", "run", "kernel", "transfer", ...
  int64_t startNs = 0;   // since start()
  int64_t durationNs = 0;
  uint32_t thread = 0;   // the track: threads are numbered from 1 in the order they first record
  std::vector<std::pair<std::string, std::string>> args;  // shown when the slice is selected
};

namespace detail {
extern std::atomic<bool> recording;
}

// Whether a session is recording; what callers test before building names.
inline bool enabled() { return detail::recording.load(std::memory_order_relaxed); }

// Starts a session, dropping the events of an earlier one; the thread that
// calls it is named "main" unless it has a name already.
void start();
// Stops recording; the events stay until the next start().
void stop();
// The events recorded so far, sorted by thread, then start time (a slice
// before the slices nested in it).
std::vector<Event> events();
// The name of each thread that recorded, by track number.
std::vector<std::pair<uint32_t, std::string>> threadNames();

// The events as a Chrome trace event format JSON object ("traceEvents" with
// thread names, times in microseconds).
std::string toJson();
Status writeJson(const std::string& path);

// Names the calling thread's track ("kiln pool worker", "PJRT execute").
void setThreadName(std::string_view name);

// Records a slice now (ending now, started `durationNs` ago); for slices
// timed elsewhere.
void record(std::string_view category, std::string name, int64_t startNs, int64_t durationNs,
            std::vector<std::pair<std::string, std::string>> args = {});
// Nanoseconds since start() on the session's clock.
int64_t now();
// When start() ran, in nanoseconds since the Unix epoch (the system clock):
// where other profilers' timelines, such as jax.profiler's, place the session.
int64_t originUnixNs();

// Records the time from construction to destruction as a slice, when a
// session was recording at construction.
class Scope {
 public:
  // `category` is a string literal (it is kept as a view).
  Scope(std::string_view category, std::string_view name) {
    if (enabled()) begin(category, std::string(name));
  }
  Scope(std::string_view category, std::string&& name) {
    if (enabled()) begin(category, std::move(name));
  }
  // For a name worth building only while recording:
  // `Scope s("kernel", [&] { return label(op); })` calls the lambda only then.
  template <typename MakeName, typename = std::enable_if_t<std::is_invocable_r_v<std::string, MakeName&>>>
  Scope(std::string_view category, MakeName&& makeName) {
    if (enabled()) begin(category, makeName());
  }
  Scope(std::string_view category, const char* name) : Scope(category, std::string_view(name)) {}
  ~Scope() {
    if (open_) end();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  bool active() const { return open_.has_value(); }
  // Adds an argument shown with the slice; a no-op when not recording.
  void arg(std::string key, std::string value) {
    if (open_) open_->args.emplace_back(std::move(key), std::move(value));
  }

 private:
  void begin(std::string_view category, std::string name);
  void end();

  // A slice being recorded. Kept apart so that an inactive Scope is one flag
  // to set and test, with no members to construct or destroy.
  struct Open {
    std::string_view category;
    std::string name;
    int64_t startNs = 0;
    uint64_t session = 0;  // a slice still open when a new session starts is dropped
    std::vector<std::pair<std::string, std::string>> args;
  };
  std::optional<Open> open_;
};

}  // namespace kiln::trace
