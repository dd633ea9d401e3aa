// The runtime's private state, shared by its .cpp files (not a public header).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "kiln/backends/backend.h"
#include "kiln/runtime/runtime.h"

namespace kiln::runtime {

struct Event::State {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  Status status;  // the producer's error, once ready
  std::vector<std::function<void()>> waiters;

  // Marks the event ready and runs the waiters (on this thread).
  void set(Status s);
  // Runs `fn` when the event is ready (at once if it already is).
  void onReady(std::function<void()> fn);
};

// A buffer's data is a device::DeviceBuffer whose memory is counted in its
// device's memory account (Device::memoryAccount) until the memory is freed.
// In-flight executions hold the memory too, so a buffer deleted while an
// execution reads it stays valid until that execution is done.
struct Buffer::State {
  mutable std::mutex mu;
  device::DeviceBuffer value;  // empty until the producer is done, and after delete/donate
  bool deleted = false;
  bool donated = false;
};

// `value` placed on `device`: its memory counted there.
device::DeviceBuffer placeOn(device::DeviceBuffer value, Device& device);

// A FailedPrecondition error for a deleted or donated buffer; ok otherwise.
// The caller holds state.mu.
Status checkUsable(const Buffer::State& state, std::string_view what);

// A fixed set of threads running queued tasks; the destructor runs what is
// queued and joins.
class WorkerPool {
 public:
  explicit WorkerPool(int threads);
  ~WorkerPool();
  void submit(std::function<void()> task);

 private:
  void loop();
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// What an executable runs: shared with the executions in flight, so the
// Executable may go away before they finish.
struct Program {
  std::string name;
  std::string entry;
  std::vector<Type> parameterTypes;
  std::vector<Type> resultTypes;
  std::unique_ptr<backend::Program> compiled;  // by the client's back end
  backend::Instances instances;                // the replicas x partitions the module declares
  std::string optimizedText;
  CompileStats stats;
  CostAnalysis cost;
  // Whether an execution whose arguments are ready runs on the calling
  // thread (see executable.cpp): small straight-line cpu programs.
  bool runsInline = false;
  // Whether a waiting caller may run it (ExecuteOptions::callerWaits): a
  // program that may run inline, compiled for one thread.
  bool mayRunOnCaller = false;

  // Runs every instance the module declares on `args`; instance 0's results.
  Expected<std::vector<device::DeviceBuffer>> run(std::vector<device::DeviceBuffer> args) const {
    return compiled->run(std::move(args));
  }
  // Runs instance i on argsPerInstance[i] (an SPMD execution across devices).
  Expected<std::vector<std::vector<device::DeviceBuffer>>> runInstances(
      std::vector<std::vector<device::DeviceBuffer>> argsPerInstance) const {
    return compiled->runInstances(std::move(argsPerInstance));
  }
};

struct Client::Impl {
  ClientOptions options;
  const backend::Backend* backend = nullptr;
  std::string platformName = "cpu";
  std::string platformVersion;
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<Device*> devicePointers;
  // Per device (by id): the executions handed to the workers that have not
  // made their results ready yet (ExecuteOptions::callerWaitsWhenIdle).
  std::vector<std::unique_ptr<std::atomic<int>>> pending;
  std::unique_ptr<WorkerPool> pool;  // declared last: joined before the devices go
};

// A program whose entry has `?` parameters (a shape-polymorphic jax.export):
// compiled once per distinct list of argument types, after refine_shapes
// makes it static for them.
struct Specializations {
  std::unique_ptr<Module> module;  // as given
  CompileOptions options;
  std::mutex mu;
  std::map<std::vector<const void*>, std::shared_ptr<const Program>> byArgumentTypes;
};

struct Executable::Impl {
  Client::Impl* client;
  std::shared_ptr<const Program> program;   // for a polymorphic program: its signature only
  std::shared_ptr<Specializations> polymorphic;  // null for static programs
};

// Compiles function options.entry of a verified `module` whose parameters
// are static.
Expected<std::shared_ptr<Program>> compileStaticProgram(Client::Impl& client, const Module& module,
                                                        const CompileOptions& options);
// The program of `impl` for `args`: its own, or its specialization to the
// arguments' types (compiled at the first call with them).
Expected<std::shared_ptr<const Program>> programFor(const Executable::Impl& impl, std::span<const BufferRef> args);

// Programs at most this big (cost analysis) run inline: about 100
// microseconds of work on one core (4 Mflop, or 8 MB moved). A hand-off to
// a worker and back costs about ten microseconds on an idle host, and on
// a loaded one (other processes on the cores) up to a scheduler time slice:
// a batch-1 stack of 16 layers of 64 (131 kflop, 270 KB) took 127 us a call
// from Python handed off, where the program runs in 33 us.
inline constexpr double kInlineMaxFlops = 1 << 22;
inline constexpr double kInlineMaxBytes = 1 << 23;

// The flops and bytes of each top-level op of function `entry` of `module`.
CostAnalysis analyzeCost(const Module& module, std::string_view entry);

}  // namespace kiln::runtime
