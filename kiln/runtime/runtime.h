// kiln's runtime API, in the shape of OpenXLA's PJRT: a Client owns the
// Devices of one process, compiles StableHLO into Executables and moves data
// in Buffers. Every fallible call returns a Status / Expected whose error
// carries an ErrorCode and a message; nothing here throws or aborts on bad
// input. See docs/runtime.md.
//
// LLVM-free and interpreter-free: back ends are reached through the back-end
// interface (kiln/backends/backend.h), and a buffer's data is a
// device::DeviceBuffer; host data comes and goes as bytes or as a
// device::Literal (kiln/device/device_buffer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "kiln/device/device_buffer.h"
#include "kiln/ir/ir.h"
#include "kiln/ir/types.h"
#include "kiln/support/diagnostic.h"

namespace kiln::runtime {

class Client;
class Device;

struct ClientOptions {
  int numDevices = 1;              // CPU devices in this process (KILN_FLAGS --cpu_devices=N overrides)
  std::string backend = "cpu";     // "cpu" (native code) or "interpreter" (the reference interpreter)
  int numThreads = 0;              // kernel threads of each device; 0 = the cores split among the devices
  std::string cacheDir;            // on-disk compile cache of the cpu back end; empty = none
};

struct CompileOptions {
  std::string entry = "main";      // the function to compile
  std::string dumpDir;             // the cpu back end's dumps (each kernel's LLVM IR and assembly), empty = none
};

// bytesInUse: the live buffers on the device; peakBytesInUse; numAllocations.
using MemoryStats = device::MemoryStats;

class Device {
 public:
  int id() const { return id_; }
  const std::string& kind() const { return kind_; }  // "cpu"
  std::string debugString() const;                    // "cpu:0"
  // PJRT-style attributes: "core_count", "backend", ...
  const std::map<std::string, std::variant<int64_t, std::string>>& attributes() const { return attributes_; }
  MemoryStats memoryStats() const;

  // Internal: counts the memory of the buffers placed on this device; shared
  // with that memory, which may outlive the Device.
  const std::shared_ptr<device::MemoryAccount>& memoryAccount() const { return memoryAccount_; }

 private:
  friend class Client;
  Device(int id, std::map<std::string, std::variant<int64_t, std::string>> attributes);
  int id_;
  std::string kind_ = "cpu";
  std::map<std::string, std::variant<int64_t, std::string>> attributes_;
  std::shared_ptr<device::MemoryAccount> memoryAccount_;
};

// Completes when the computation producing a buffer has finished.
class Event {
 public:
  bool isReady() const;
  Status await() const;  // the producer's error, if it failed
  // Calls `fn` with the producer's status once the event is ready: at once
  // on this thread if it is, else on the thread that completes it.
  void onReady(std::function<void(Status)> fn) const;
  struct State;
  explicit Event(std::shared_ptr<State> state) : state_(std::move(state)) {}
  Event() = default;  // an event that is ready
  const std::shared_ptr<State>& state() const { return state_; }  // internal

 private:
  std::shared_ptr<State> state_;
};

// An array on a device. Buffers are shared (std::shared_ptr<Buffer>); the
// data is freed when the last reference goes or on deleteBuffer(). After
// deleteBuffer() or after being donated to an execution, every data access
// is a FailedPrecondition error.
class Buffer {
 public:
  Type type() const { return type_; }        // a ranked tensor type (or a token)
  Device& device() const { return *device_; }
  int64_t byteSize() const;
  const Event& readyEvent() const { return ready_; }
  Status awaitReady() const { return ready_.await(); }

  // Copies the data to `dst` (byteSize() bytes, kiln's dense layout),
  // waiting for it to be ready.
  Status toHost(void* dst, int64_t dstBytes) const;
  // The data as a host literal sharing the buffer's memory (no copy: the
  // memory is the host's); waits.
  Expected<device::Literal> toLiteral() const;

  void deleteBuffer();
  bool isDeleted() const;
  bool isDonated() const;

  struct State;
  Buffer(Type type, Device* device, std::shared_ptr<State> state, Event ready);
  ~Buffer();
  const std::shared_ptr<State>& state() const { return state_; }  // internal

 private:
  friend class Executable;
  Type type_;
  Device* device_;
  std::shared_ptr<State> state_;
  Event ready_;
};

using BufferRef = std::shared_ptr<Buffer>;

struct KernelCost {
  std::string name;        // the top-level op of the optimized module ("kiln.fusion", "stablehlo.dot_general", ...)
  std::string location;    // its file:line:col
  double flops = 0;
  double bytesAccessed = 0;
};

struct CostAnalysis {
  double flops = 0;
  double bytesAccessed = 0;
  std::vector<KernelCost> kernels;
};

struct CompileStats {
  double pipelineSeconds = 0;
  double codegenSeconds = 0;
  int kernels = 0;
  int libraryCalls = 0;
  int routines = 0;
};

struct ExecuteOptions {
  // Arguments whose buffers the execution may consume (their memory may back
  // a result); afterwards they are donated and unusable.
  std::vector<int> donatedArguments;
  // A small program whose arguments are ready runs on the calling thread,
  // its results ready on return (docs/runtime.md); false always hands the
  // execution to a worker thread and returns at once.
  bool mayRunInline = true;
  // The caller waits for the results at once (a synchronous call, as
  // kiln.torch's): a program whose arguments are ready runs on the calling
  // thread whatever its size, if it is compiled for one thread and its back
  // end lets it run inline at all (cpu; loops only flat and bounded,
  // docs/runtime.md). A worker would cost two thread wake-ups a call for a
  // caller that only sleeps.
  bool callerWaits = false;
  // The caller may well wait for the results (kiln.jit's calls): a program
  // that a waiting caller may run (above) runs on the calling thread when its
  // arguments are ready and no earlier execution on its device is still
  // pending (queued or running on a worker). So the call runs after every
  // earlier one, as it would have on a worker, minus the two thread
  // wake-ups; with work pending it is handed off as before.
  bool callerWaitsWhenIdle = false;
  // Where to run. execute: the device of the arguments if null (device 0 for
  // a program without arguments); if set, the arguments must be on it.
  // executeSharded: list i runs on devices[i]; empty = devices 0, 1, ...
  Device* device = nullptr;
  std::vector<Device*> devices;
};

class Executable {
 public:
  ~Executable();
  const std::string& name() const;
  std::span<const Type> parameterTypes() const;
  std::span<const Type> resultTypes() const;

  // Runs on the device of the arguments (all on one device). The results are
  // returned at once and become ready when the computation finishes.
  Expected<std::vector<BufferRef>> execute(std::span<const BufferRef> args, const ExecuteOptions& options = {});
  // One argument list per device; runs them concurrently.
  Expected<std::vector<std::vector<BufferRef>>> executeSharded(std::span<const std::vector<BufferRef>> argsPerDevice,
                                                               const ExecuteOptions& options = {});

  CostAnalysis costAnalysis() const;
  const std::string& optimizedModuleText() const;
  // With `loc(...)` locations kept from the source (backend::Program's).
  std::string optimizedModuleTextWithLocations() const;
  CompileStats compileStats() const;

  struct Impl;
  explicit Executable(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// The client must outlive its buffers and executables; its destructor waits
// for the executions in flight.
class Client {
 public:
  static Expected<std::unique_ptr<Client>> create(const ClientOptions& options = {});
  ~Client();

  const std::string& platformName() const;     // "cpu"
  const std::string& platformVersion() const;  // kiln's version and the back end
  std::span<Device* const> devices() const;
  Expected<Device*> device(int id) const;

  Expected<std::unique_ptr<Executable>> compile(std::string_view stablehloText, const CompileOptions& options = {});
  Expected<std::unique_ptr<Executable>> compileFile(const std::string& path, const CompileOptions& options = {});
  Expected<std::unique_ptr<Executable>> compile(const Module& module, const CompileOptions& options = {});

  enum class HostSemantics {
    kCopy,      // the buffer copies `data` before returning
    kZeroCopy,  // the buffer uses `data` in place until the last reference goes, then calls `release`
  };
  // A buffer of tensor type `type` from `data` (kiln's dense layout,
  // `dataBytes` bytes) on `device` (nullptr = device 0).
  Expected<BufferRef> bufferFromHost(const void* data, int64_t dataBytes, Type type, Device* device,
                                     HostSemantics semantics, std::function<void()> release = {});
  // A copy of `literal` on `device` (nullptr = device 0).
  Expected<BufferRef> bufferFromLiteral(const device::Literal& literal, Device* device = nullptr);

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln::runtime
