// kiln's PJRT plugin: the PJRT C API (kiln/pjrt/pjrt_abi.h) over kiln's
// runtime API (kiln/runtime/runtime.h), so that jaxlib runs programs on kiln
// (`JAX_PLATFORMS=kiln`, docs/pjrt.md).
//
// Each PJRT handle wraps a runtime object: PJRT_Client a runtime::Client,
// PJRT_Buffer a runtime::BufferRef, PJRT_LoadedExecutable a
// runtime::Executable with the devices it runs on. Executions are as
// asynchronous as the runtime's: a result is returned at once and its ready
// event fires when the computation is done. Every entry point turns kiln
// errors into PJRT_Errors and never lets an exception or abort cross the C
// boundary.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kiln/backends/backend.h"
#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/collectives/shared_memory.h"
#include "kiln/distributed/communicator_rendezvous.h"
#include "kiln/distributed/gloo_communicator.h"
#include "kiln/distributed/process_run.h"
#include "kiln/distributed/process_group.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/bytecode_reader.h"
#include "kiln/passes/buffer_assignment.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"
#include "kiln/pjrt/call_chain.h"
#include "kiln/pjrt/compile_options.h"
#include "kiln/pjrt/distributed_options.h"
#include "kiln/pjrt/optimized_program.h"
#include "kiln/pjrt/output_shardings.h"
#include "kiln/pjrt/partial_manual.h"
#include "kiln/pjrt/pjrt_abi.h"
#include "kiln/pjrt/profiler_extension.h"
#include "kiln/pjrt/protobuf_writer.h"
#include "kiln/runtime/runtime.h"
#include "kiln/runtime/runtime_impl.h"  // Event::State: buffers whose data arrives later (transfer managers)
#include "kiln/support/flags.h"
#include "kiln/support/thread_pool.h"
#include "kiln/support/trace.h"

namespace rt = kiln::runtime;
using kiln::ErrorCode;
using kiln::Expected;
using kiln::Status;
using kiln::Type;
using kiln::TypeKind;

// ---- Handles ----------------------------------------------------------------------

struct PJRT_Error {
  PJRT_Error_Code code;
  std::string message;
};

// An event's state is shared with whatever will complete it, so the caller
// may destroy its PJRT_Event first.
struct EventState {
  std::mutex mu;
  std::condition_variable cv;
  bool ready = false;
  Status status;
  std::vector<std::function<void()>> callbacks;

  void set(Status s) {
    std::vector<std::function<void()>> run;
    {
      std::lock_guard<std::mutex> lock(mu);
      status = std::move(s);
      ready = true;
      run.swap(callbacks);
    }
    cv.notify_all();
    for (auto& fn : run) fn();
  }
};

struct PJRT_Event {
  PJRT_Event() : state(std::make_shared<EventState>()) {}
  explicit PJRT_Event(std::shared_ptr<EventState> s) : state(std::move(s)) {}
  std::shared_ptr<EventState> state;
};

struct PJRT_DeviceDescription {
  int id = 0;  // global: unique across the processes of a run
  int processIndex = 0;
  std::string kind, debugString, toString;
  std::vector<std::string> attributeNames, attributeStrings;
  std::vector<PJRT_NamedValue> attributes;
};

// Each device has the memories XLA:CPU's have: "device" (JAX's default,
// where results live unless the program says otherwise), and the host
// memories that host offloading names (`memory_kind="pinned_host"`). On the
// cpu they are all the same host memory: a buffer only remembers which it is
// in, and programs read and write every kind alike.
constexpr std::string_view kMemoryKinds[] = {"device", "pinned_host", "unpinned_host"};
constexpr std::string_view kMemoryKind = kMemoryKinds[0];

struct PJRT_Memory {
  int id = 0;
  int kindId = 0;  // index in kMemoryKinds
  std::string kind{kMemoryKind}, debugString, toString;
  std::vector<PJRT_Device*> devices;
};

// A device of this process (addressable: `device` set), or of another
// process of a multi-process run (jax.distributed.initialize), which this
// one only names in device assignments.
struct PJRT_Device {
  rt::Device* device = nullptr;
  int localId = -1;
  PJRT_DeviceDescription description;
  PJRT_Memory* memory = nullptr;  // the default one ("device"); null for another process's device
  std::vector<PJRT_Memory*> memories;  // one of each kind, in kMemoryKinds' order
  PJRT_Memory* memoryOfKind(std::string_view kind) const {
    for (PJRT_Memory* m : memories)
      if (m->kind == kind) return m;
    return nullptr;
  }
};

struct PJRT_TopologyDescription {
  PJRT_Client* client = nullptr;  // null for one made without a client (compile only)
  std::vector<PJRT_DeviceDescription*> descriptions;
  // Without a client: its own descriptions and platform version.
  std::vector<std::unique_ptr<PJRT_DeviceDescription>> owned;
  std::string platformVersion;
};

struct PJRT_SerializedTopology {
  std::string bytes;
};

struct PJRT_Client {
  std::unique_ptr<rt::Client> client;
  std::vector<std::unique_ptr<PJRT_Device>> ownedDevices;
  std::vector<std::unique_ptr<PJRT_Memory>> ownedMemories;
  std::vector<PJRT_Device*> devices;      // every process's, by global id
  std::vector<PJRT_Device*> addressable;  // this process's, by local id
  std::vector<PJRT_Memory*> memories;
  PJRT_TopologyDescription topology;
  std::string cacheDir;  // KILN_CACHE_DIR

  // A run of several processes: this one's index, JAX's key-value store
  // (null in one process), how long to wait for the others, and how many
  // times this process has connected the instances of each program (by
  // runKey), which names the keys of the next connection.
  int processIndex = 0;
  int numProcesses = 1;
  std::shared_ptr<kiln::distributed::KeyValueStore> store;
  std::chrono::milliseconds timeout{300000};
  std::mutex connectionsMutex;
  std::map<std::string, int64_t> connectionsByProgram;
  // Threads of each instance of a program that spans processes: this
  // process's share of the host's cores (the processes on one host split
  // them), or KILN_NUM_THREADS.
  int threadsAcrossProcesses = 1;
};

struct CompiledProgram;

// A run of a program, for the error of a failed one: the program (whose
// ops' locations lead to the user's lines) and where Python called it.
struct RunOrigin {
  std::shared_ptr<const CompiledProgram> program;
  // jaxlib's PJRT_ExecuteOptions.call_location (0.76): the calling line
  // ("file:line"), or the whole traceback ("file:line (function)" a line,
  // innermost first), as `jax_send_traceback_to_runtime` asks; "" when off.
  std::string callLocation;
  // The programs that made its arguments, and theirs (each program once, at
  // most kMaxUpstream, nearest first): a failed argument's error names an op
  // of one of those. Weak: a result keeps no other program alive.
  std::vector<std::weak_ptr<const CompiledProgram>> upstream;
  static constexpr size_t kMaxUpstream = 16;
};

struct PJRT_Buffer {
  PJRT_Client* client = nullptr;
  rt::BufferRef buffer;
  // The run whose result this is (null for one from the host): an error it
  // carries from a failed run names the calls that led to the op.
  std::shared_ptr<const RunOrigin> producer;
  std::vector<int64_t> dims;
  std::vector<int64_t> minorToMajor;  // kiln's layout: dense, row-major
  // External references (jaxlib's NumPy views of the buffer): each holds the
  // memory, so a view outlives a delete or a donation of the buffer, and a
  // donated buffer with a view is never computed into (the cpu back end
  // reuses only memory nobody else holds).
  std::mutex externalMutex;
  std::vector<kiln::device::Literal> externalReferences;
  PJRT_Memory* memoryKind = nullptr;  // null: the device's default memory
  PJRT_Device* device() const { return client->addressable[buffer->device().id()]; }
  PJRT_Memory* memory() const { return memoryKind ? memoryKind : device()->memory; }
};

// What compiling produced, shared by the loaded executable and the
// PJRT_Executables taken from it.
struct CompiledProgram {
  std::unique_ptr<rt::Executable> executable;  // null when the instances span processes
  // A program whose instances span processes runs its share here, with
  // collectives over Gloo (kiln/distributed/), outside the runtime.
  std::shared_ptr<const kiln::cpu::CpuExecutable> acrossProcesses;
  std::vector<Type> parameterTypes, resultTypes;
  kiln::pjrt::CompileOptions options;
  std::string optionBytes;  // the serialized CompileOptionsProto it was compiled with
  std::vector<int> donatedParameters;
  std::string name, fingerprint;
  // What names a run across processes in the key-value store: the program
  // and its instances' devices (the serialized options also hold
  // per-process fields, so `fingerprint` differs between the processes).
  std::string runKey;
  std::string source;  // the program and its options, as Serialize writes them
  std::vector<PJRT_Buffer_Type> outputTypes;
  std::vector<int64_t> outputDims;
  std::vector<size_t> outputRanks;
  std::vector<const char*> outputMemoryKinds;
  std::vector<size_t> outputMemoryKindSizes;
  std::vector<PJRT_NamedValue> costProperties;
  // The shardings kiln's partitioner chose for a program over a mesh, as the
  // shardings extension answers them: serialized OpShardings.
  struct ShardingProtos {
    std::vector<std::string> bytes;
    std::vector<const char*> data;
    std::vector<size_t> sizes;
  };
  std::optional<ShardingProtos> parameterShardings, resultShardings;
  // Their layouts, for the layouts extension.
  std::vector<PJRT_Layouts_MemoryLayout> parameterLayouts, resultLayouts;
  std::vector<PJRT_Layouts_MemoryLayout*> parameterLayoutList, resultLayoutList;
  // The optimized program as jaxlib reads it, made at its first request.
  std::once_flag optimizedOnce;
  Expected<std::string> optimizedForJax{std::string()};
  std::once_flag temporaryOnce;
  int64_t temporaryBytes = 0;  // its arena (0 when it could not be told)
};

struct PJRT_Executable {
  std::shared_ptr<CompiledProgram> program;
};

struct PJRT_LoadedExecutable {
  PJRT_Client* client = nullptr;
  std::shared_ptr<CompiledProgram> program;
  PJRT_Executable executable;
  std::vector<PJRT_Device*> devices;  // replica-major, partition-minor; global
  std::vector<PJRT_Device*> addressable;  // those of this process
  std::vector<int> localInstances;        // their places in `devices`
  // What most runs' results remember (no call location, no argument from
  // another program): shared, so that a run allocates none.
  std::shared_ptr<const RunOrigin> plainRun;
  bool deleted = false;
  // Across processes: one execution at a time, and the Gloo connections of
  // this process's instances, kept from one execution to the next (made at
  // the first, dropped by one that fails).
  std::mutex runMutex;
  std::vector<std::unique_ptr<kiln::collectives::Communicator>> communicators;
};

struct PJRT_ExecuteContext {};

// A memory layout, as the layouts extension hands it out: kiln's one layout,
// dense row-major, of some rank, serialized as HLO's layout text. Those of
// a program's parameters and results belong to the program; the others, to
// the caller, who destroys them.
struct PJRT_Layouts_MemoryLayout {
  std::string text;
  bool callerOwned = false;
};

// Buffers filled by asynchronous host-to-device transfers (below).
struct PJRT_AsyncHostToDeviceTransferManager {
  struct Slot {
    rt::BufferRef buffer;  // not ready until `finished`
    std::shared_ptr<rt::Event::State> ready;
    uint8_t* data = nullptr;  // its memory, `bytes` long
    int64_t bytes = 0;
    bool retrieved = false;
    bool finished = false;  // ready or failed
  };
  PJRT_Client* client = nullptr;
  PJRT_Device* device = nullptr;
  PJRT_Memory* memory = nullptr;
  std::mutex mu;
  std::vector<Slot> slots;

  // Makes slot `index` ready with `status`, once.
  void finish(Slot& slot, Status status) {
    if (slot.finished) return;
    slot.finished = true;
    slot.ready->set(std::move(status));
  }

  ~PJRT_AsyncHostToDeviceTransferManager() {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < slots.size(); ++i)
      finish(slots[i], kiln::error(ErrorCode::FailedPrecondition,
                                   "the transfer manager was destroyed before buffer " + std::to_string(i) +
                                       "'s last transfer"));
  }
};

namespace {

// ---- Errors -------------------------------------------------------------------------

PJRT_Error_Code codeOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::InvalidArgument: return PJRT_Error_Code_INVALID_ARGUMENT;
    case ErrorCode::NotFound: return PJRT_Error_Code_NOT_FOUND;
    case ErrorCode::FailedPrecondition: return PJRT_Error_Code_FAILED_PRECONDITION;
    case ErrorCode::Unimplemented: return PJRT_Error_Code_UNIMPLEMENTED;
    case ErrorCode::ResourceExhausted: return PJRT_Error_Code_RESOURCE_EXHAUSTED;
    case ErrorCode::Internal: return PJRT_Error_Code_INTERNAL;
  }
  return PJRT_Error_Code_UNKNOWN;
}

PJRT_Error* makeError(PJRT_Error_Code code, std::string message) {
  return new PJRT_Error{code, "kiln: " + std::move(message)};
}

PJRT_Error* toError(const Status& status) {
  if (status.isOk()) return nullptr;
  return new PJRT_Error{codeOf(status.code()), "kiln: " + status.message()};
}

PJRT_Error* invalid(std::string message) { return makeError(PJRT_Error_Code_INVALID_ARGUMENT, std::move(message)); }
PJRT_Error* unimplemented(std::string what) {
  return makeError(PJRT_Error_Code_UNIMPLEMENTED, what + " is not implemented by kiln's PJRT plugin (docs/pjrt.md)");
}

// Runs `body`, turning an escaping C++ exception (std::bad_alloc, say) into
// an error: nothing may unwind into jaxlib.
template <typename Body>
PJRT_Error* guarded(Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return makeError(PJRT_Error_Code_RESOURCE_EXHAUSTED, "out of memory");
  } catch (const std::exception& e) {
    return makeError(PJRT_Error_Code_INTERNAL, e.what());
  }
}

void setString(const std::string& value, const char*& out, size_t& outSize) {
  out = value.data();
  outSize = value.size();
}

// ---- Element types --------------------------------------------------------------------

struct TypePair {
  PJRT_Buffer_Type pjrt;
  TypeKind kiln;
};
constexpr TypePair kTypePairs[] = {
    {PJRT_Buffer_Type_PRED, TypeKind::I1},
    {PJRT_Buffer_Type_S2, TypeKind::SI2},
    {PJRT_Buffer_Type_S4, TypeKind::SI4},
    {PJRT_Buffer_Type_S8, TypeKind::SI8},
    {PJRT_Buffer_Type_S16, TypeKind::SI16},
    {PJRT_Buffer_Type_S32, TypeKind::SI32},
    {PJRT_Buffer_Type_S64, TypeKind::SI64},
    {PJRT_Buffer_Type_U2, TypeKind::UI2},
    {PJRT_Buffer_Type_U4, TypeKind::UI4},
    {PJRT_Buffer_Type_U8, TypeKind::UI8},
    {PJRT_Buffer_Type_U16, TypeKind::UI16},
    {PJRT_Buffer_Type_U32, TypeKind::UI32},
    {PJRT_Buffer_Type_U64, TypeKind::UI64},
    {PJRT_Buffer_Type_F16, TypeKind::F16},
    {PJRT_Buffer_Type_BF16, TypeKind::BF16},
    {PJRT_Buffer_Type_F32, TypeKind::F32},
    {PJRT_Buffer_Type_F64, TypeKind::F64},
    {PJRT_Buffer_Type_C64, TypeKind::Complex64},
    {PJRT_Buffer_Type_C128, TypeKind::Complex128},
    {PJRT_Buffer_Type_F8E5M2, TypeKind::F8E5M2},
    {PJRT_Buffer_Type_F8E4M3FN, TypeKind::F8E4M3FN},
    {PJRT_Buffer_Type_F8E4M3B11FNUZ, TypeKind::F8E4M3B11FNUZ},
    {PJRT_Buffer_Type_F8E5M2FNUZ, TypeKind::F8E5M2FNUZ},
    {PJRT_Buffer_Type_F8E4M3FNUZ, TypeKind::F8E4M3FNUZ},
    {PJRT_Buffer_Type_F8E4M3, TypeKind::F8E4M3},
    {PJRT_Buffer_Type_F8E3M4, TypeKind::F8E3M4},
};

Expected<Type> kilnElementType(PJRT_Buffer_Type type) {
  for (const TypePair& p : kTypePairs)
    if (p.pjrt == type) return Type::element(p.kiln);
  return kiln::error(ErrorCode::Unimplemented, "PJRT element type " + std::to_string(type) + " is not supported");
}

PJRT_Buffer_Type pjrtElementType(Type type) {
  if (type.isToken()) return PJRT_Buffer_Type_TOKEN;
  if (!type.isTensor()) return PJRT_Buffer_Type_INVALID;
  for (const TypePair& p : kTypePairs)
    if (p.kiln == type.elementType().kind()) return p.pjrt;
  return PJRT_Buffer_Type_INVALID;
}

std::vector<int64_t> dimsOf(Type type) {
  if (!type.isTensor()) return {};
  return {type.shape().begin(), type.shape().end()};
}

// ---- Events ---------------------------------------------------------------------------

PJRT_Event* readyEvent(Status status = Status::ok()) {
  // Events that are ready without an error share one state: nothing waits
  // on them and nothing sets them again (Event_Set takes Event_Create's
  // events only), and jaxlib asks for one per execution and per
  // block_until_ready (docs/pjrt.md, "Per-call overhead").
  if (status.isOk()) {
    static const std::shared_ptr<EventState> ok = [] {
      auto state = std::make_shared<EventState>();
      state->ready = true;
      return state;
    }();
    return new PJRT_Event(ok);
  }
  auto* event = new PJRT_Event;
  event->state->set(std::move(status));
  return event;
}

// An event that fires when every one of `events` has: with the first error.
Status withRunCallChain(Status status, const RunOrigin& run);

// An event that fires when all of `events` have, with the first error; an
// error of a run of `producer` gets the notes of withRunCallChain.
PJRT_Event* whenAll(const std::vector<rt::Event>& events, std::shared_ptr<const RunOrigin> producer = nullptr) {
  // All ready already (the results of a program that ran inline, a buffer
  // from the host): no join, no callbacks.
  if (std::ranges::all_of(events, [](const rt::Event& e) { return e.isReady(); })) {
    for (const rt::Event& e : events) {
      Status s = e.await();
      if (s.isOk()) continue;
      if (producer) s = withRunCallChain(std::move(s), *producer);
      return readyEvent(std::move(s));
    }
    return readyEvent();
  }
  auto* event = new PJRT_Event;
  struct Join {
    std::mutex mu;
    int pending;
    Status first;
  };
  auto join = std::make_shared<Join>();
  join->pending = static_cast<int>(events.size());
  std::shared_ptr<EventState> state = event->state;
  for (const rt::Event& e : events)
    e.onReady([join, state, producer](Status s) {
      std::unique_lock<std::mutex> lock(join->mu);
      if (!s.isOk() && join->first.isOk()) join->first = std::move(s);
      if (--join->pending > 0) return;
      Status result = std::move(join->first);
      lock.unlock();
      if (!result.isOk() && producer) result = withRunCallChain(std::move(result), *producer);
      state->set(std::move(result));
    });
  return event;
}

// ---- Plugin ---------------------------------------------------------------------------

void Error_Destroy(PJRT_Error_Destroy_Args* args) { delete args->error; }

void Error_Message(PJRT_Error_Message_Args* args) {
  setString(args->error->message, args->message, args->message_size);
}

PJRT_Error* Error_GetCode(PJRT_Error_GetCode_Args* args) {
  args->code = args->error->code;
  return nullptr;
}

PJRT_Error* Plugin_Initialize(PJRT_Plugin_Initialize_Args*) { return nullptr; }

// The StableHLO versions the plugin reads: jaxlib serializes programs for a
// plugin at the newest version both sides know (docs/pjrt.md).
constexpr int64_t kStablehloNewest[] = {1, 17, 0};
constexpr int64_t kStablehloOldest[] = {1, 0, 0};

PJRT_NamedValue listValue(const char* name, const int64_t* values, size_t count) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(PJRT_NamedValue);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kInt64List;
  v.int64_array_value = values;
  v.value_size = count;
  return v;
}

PJRT_NamedValue intValue(const char* name, int64_t value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(PJRT_NamedValue);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kInt64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

PJRT_NamedValue floatValue(const char* name, float value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(PJRT_NamedValue);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kFloat;
  v.float_value = value;
  v.value_size = 1;
  return v;
}

PJRT_NamedValue stringValue(const std::string& name, const std::string& value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(PJRT_NamedValue);
  v.name = name.data();
  v.name_size = name.size();
  v.type = PJRT_NamedValue_kString;
  v.string_value = value.data();
  v.value_size = value.size();
  return v;
}

PJRT_Error* Plugin_Attributes(PJRT_Plugin_Attributes_Args* args) {
  static const PJRT_NamedValue attributes[] = {
      listValue("stablehlo_current_version", kStablehloNewest, 3),
      listValue("stablehlo_minimum_version", kStablehloOldest, 3),
  };
  args->attributes = attributes;
  args->num_attributes = std::size(attributes);
  return nullptr;
}

PJRT_Error* Event_Destroy(PJRT_Event_Destroy_Args* args) {
  delete args->event;
  return nullptr;
}

PJRT_Error* Event_IsReady(PJRT_Event_IsReady_Args* args) {
  std::lock_guard<std::mutex> lock(args->event->state->mu);
  args->is_ready = args->event->state->ready;
  return nullptr;
}

PJRT_Error* Event_Error(PJRT_Event_Error_Args* args) {
  std::lock_guard<std::mutex> lock(args->event->state->mu);
  return toError(args->event->state->status);
}

PJRT_Error* Event_Await(PJRT_Event_Await_Args* args) {
  EventState& state = *args->event->state;
  std::unique_lock<std::mutex> lock(state.mu);
  state.cv.wait(lock, [&] { return state.ready; });
  return toError(state.status);
}

PJRT_Error* Event_OnReady(PJRT_Event_OnReady_Args* args) {
  std::shared_ptr<EventState> state = args->event->state;
  auto call = [state, callback = args->callback, userArg = args->user_arg] {
    callback(toError(state->status), userArg);
  };
  {
    std::lock_guard<std::mutex> lock(state->mu);
    if (!state->ready) {
      state->callbacks.push_back(std::move(call));
      return nullptr;
    }
  }
  call();
  return nullptr;
}

// ---- Client ---------------------------------------------------------------------------

// KILN_NUM_DEVICES and KILN_NUM_THREADS, as the Python package reads them.
Expected<int> environmentCount(const char* name, int fallback, int low, int high) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < low || value > high)
    return kiln::error(ErrorCode::InvalidArgument, std::string(name) + "='" + text + "' is not a whole number in [" +
                                                       std::to_string(low) + ", " + std::to_string(high) + "]");
  return static_cast<int>(value);
}

// KILN_TRACE=out.json: the whole process's kiln work (compiles, passes,
// executions, kernels, transfers) as a Chrome trace, written at exit
// (docs/pjrt.md). jax.profiler.trace shares this session rather than
// restarting it (kiln/pjrt/profiler_extension.h).
void startTraceFromEnvironment() {
  static const char* path = std::getenv("KILN_TRACE");
  if (!path || !*path || kiln::trace::enabled()) return;
  kiln::trace::start();
  std::atexit([] {
    kiln::trace::stop();
    if (Status s = kiln::trace::writeJson(path); !s.isOk())
      std::fprintf(stderr, "kiln: KILN_TRACE: %s\n", s.message().c_str());
  });
}

// A device of this process: global id `id`.
void describeDevice(PJRT_Device& d, int id, int processIndex) {
  PJRT_DeviceDescription& desc = d.description;
  desc.id = id;
  desc.processIndex = processIndex;
  desc.kind = d.device->kind();
  desc.debugString = "kiln:" + d.device->debugString();
  desc.toString = "KilnDevice(id=" + std::to_string(desc.id) + ")";
  // Names and string values first, then the views into them (no reallocation after).
  for (const auto& [name, value] : d.device->attributes()) {
    desc.attributeNames.push_back(name);
    desc.attributeStrings.push_back(std::holds_alternative<std::string>(value) ? std::get<std::string>(value) : "");
  }
  size_t i = 0;
  for (const auto& [name, value] : d.device->attributes()) {
    if (std::holds_alternative<std::string>(value))
      desc.attributes.push_back(stringValue(desc.attributeNames[i], desc.attributeStrings[i]));
    else
      desc.attributes.push_back(intValue(desc.attributeNames[i].c_str(), std::get<int64_t>(value)));
    ++i;
  }
}

// Another process's device: what this one knows of it.
void describeRemoteDevice(PJRT_Device& d, int id, int processIndex) {
  PJRT_DeviceDescription& desc = d.description;
  desc.id = id;
  desc.processIndex = processIndex;
  desc.kind = "cpu";
  desc.debugString = "kiln:cpu (process " + std::to_string(processIndex) + ")";
  desc.toString = "KilnDevice(id=" + std::to_string(id) + ")";
}

// JAX's callbacks make their errors with this, and the plugin reads them back.
PJRT_Error* callbackError(PJRT_Error_Code code, const char* message, size_t size) {
  return new PJRT_Error{code, std::string(message, size)};
}

kiln::pjrt::PluginErrors pluginErrors() {
  return {callbackError, [](PJRT_Error* e) {
            Status s = kiln::error(ErrorCode::FailedPrecondition, e->message);
            delete e;
            return s;
          }};
}

// In a run of several processes, each publishes how many devices it has and
// reads the others': process p's devices take the global ids after those of
// processes 0 .. p-1. The counts, by process.
Expected<std::vector<int>> exchangeDeviceCounts(kiln::distributed::KeyValueStore& store, int processIndex,
                                                int numProcesses, int localCount, std::chrono::milliseconds timeout) {
  auto key = [](int p) { return "kiln_pjrt/devices/" + std::to_string(p); };
  KILN_RETURN_IF_ERROR(store.set(key(processIndex), std::to_string(localCount)));
  std::vector<int> counts;
  for (int p = 0; p < numProcesses; ++p) {
    Expected<std::string> value = store.get(key(p), timeout);
    if (!value)
      return kiln::error(ErrorCode::FailedPrecondition, "process " + std::to_string(p) + " of " +
                                                            std::to_string(numProcesses) +
                                                            " did not publish its kiln devices: " +
                                                            value.status().message());
    counts.push_back(std::atoi(value->c_str()));
    if (counts.back() < 1)
      return kiln::error(ErrorCode::Internal, "process " + std::to_string(p) + " published '" + *value +
                                                  "' as its device count");
  }
  return counts;
}

PJRT_Error* Client_Create(PJRT_Client_Create_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    Expected<std::optional<kiln::pjrt::ProcessPlace>> place =
        kiln::pjrt::processPlaceFromOptions({args->create_options, args->num_options});
    if (!place) return toError(place.status());
    rt::ClientOptions options;
    Expected<int> devices = environmentCount("KILN_NUM_DEVICES", 1, 1, 1024);
    if (!devices) return toError(devices.status());
    Expected<int> threads = environmentCount("KILN_NUM_THREADS", 0, 0, 1024);
    if (!threads) return toError(threads.status());
    options.numDevices = *devices;
    options.numThreads = *threads;
    startTraceFromEnvironment();
    if (const char* cache = std::getenv("KILN_CACHE_DIR")) options.cacheDir = cache;
    Expected<std::unique_ptr<rt::Client>> client = rt::Client::create(options);
    if (!client) return toError(client.status());
    auto c = std::make_unique<PJRT_Client>();
    c->client = std::move(*client);
    if (const char* cache = std::getenv("KILN_CACHE_DIR")) c->cacheDir = cache;
    c->timeout = std::chrono::milliseconds(int64_t(kiln::collectives::defaultTimeoutSeconds() * 1000));
    int localCount = static_cast<int>(c->client->devices().size());
    std::vector<int> counts = {localCount};
    if (*place && (*place)->numProcesses > 1) {
      c->processIndex = (*place)->processId;
      c->numProcesses = (*place)->numProcesses;
      c->store = kiln::pjrt::keyValueStoreFromCallbacks(*args, pluginErrors());
      if (!c->store)
        return invalid("the create options name process " + std::to_string(c->processIndex) + " of " +
                       std::to_string(c->numProcesses) + " but give no key-value store (kv callbacks)");
      if (!kiln::distributed::glooAvailable())
        return makeError(PJRT_Error_Code_UNIMPLEMENTED,
                         "this kiln was built without Gloo, so it runs in one process only: install libgloo-dev "
                         "and rebuild to run across processes (docs/distributed.md)");
      Expected<std::vector<int>> exchanged =
          exchangeDeviceCounts(*c->store, c->processIndex, c->numProcesses, localCount, c->timeout);
      if (!exchanged) return toError(exchanged.status());
      counts = std::move(*exchanged);
      Expected<int> sharing = kiln::distributed::processesOnThisHost(*c->store, c->processIndex, c->numProcesses,
                                                                     c->timeout, "kiln_pjrt");
      if (!sharing) return toError(sharing.status());
      c->threadsAcrossProcesses =
          *threads > 0 ? *threads : std::max(1, kiln::ThreadPool::defaultSize() / (localCount * *sharing));
    }
    int globalId = 0;
    for (int p = 0; p < static_cast<int>(counts.size()); ++p)
      for (int i = 0; i < counts[p]; ++i, ++globalId) {
        auto d = std::make_unique<PJRT_Device>();
        if (p == c->processIndex) {
          rt::Device* device = c->client->devices()[i];
          d->device = device;
          d->localId = i;
          describeDevice(*d, globalId, p);
          for (int k = 0; k < static_cast<int>(std::size(kMemoryKinds)); ++k) {
            auto m = std::make_unique<PJRT_Memory>();
            m->id = globalId * static_cast<int>(std::size(kMemoryKinds)) + k;
            m->kindId = k;
            m->kind = kMemoryKinds[k];
            m->debugString = "kiln:" + device->debugString() + ":" + m->kind;
            m->toString = "KilnMemory(device=" + std::to_string(globalId) + ", kind=" + m->kind + ")";
            m->devices = {d.get()};
            d->memories.push_back(m.get());
            c->memories.push_back(m.get());
            c->ownedMemories.push_back(std::move(m));
          }
          d->memory = d->memories.front();
          c->addressable.push_back(d.get());
        } else {
          describeRemoteDevice(*d, globalId, p);
        }
        c->devices.push_back(d.get());
        c->topology.descriptions.push_back(&d->description);
        c->ownedDevices.push_back(std::move(d));
      }
    c->topology.client = c.get();
    args->client = c.release();
    return nullptr;
  });
}

PJRT_Error* Client_Destroy(PJRT_Client_Destroy_Args* args) {
  delete args->client;
  return nullptr;
}

const std::string kPlatformName = "kiln";

PJRT_Error* Client_PlatformName(PJRT_Client_PlatformName_Args* args) {
  setString(kPlatformName, args->platform_name, args->platform_name_size);
  return nullptr;
}

PJRT_Error* Client_ProcessIndex(PJRT_Client_ProcessIndex_Args* args) {
  args->process_index = args->client->processIndex;
  return nullptr;
}

PJRT_Error* Client_PlatformVersion(PJRT_Client_PlatformVersion_Args* args) {
  setString(args->client->client->platformVersion(), args->platform_version, args->platform_version_size);
  return nullptr;
}

PJRT_Error* Client_TopologyDescription(PJRT_Client_TopologyDescription_Args* args) {
  args->topology = &args->client->topology;
  return nullptr;
}

PJRT_Error* Client_Devices(PJRT_Client_Devices_Args* args) {
  args->devices = args->client->devices.data();
  args->num_devices = args->client->devices.size();
  return nullptr;
}

Expected<PJRT_Device*> deviceById(PJRT_Client& client, int id) {
  if (id < 0 || id >= static_cast<int>(client.devices.size()))
    return kiln::error(ErrorCode::InvalidArgument, "no device " + std::to_string(id) + " (kiln has " +
                                                       std::to_string(client.devices.size()) +
                                                       "; set KILN_NUM_DEVICES for more)");
  return client.devices[id];
}

PJRT_Error* Client_AddressableDevices(PJRT_Client_AddressableDevices_Args* args) {
  args->devices = args->client->addressable.data();
  args->num_devices = args->client->addressable.size();
  return nullptr;
}

// An error unless `device` is this process's.
Status checkAddressable(const PJRT_Device& device) {
  if (device.device) return Status::ok();
  return kiln::error(ErrorCode::InvalidArgument, "device " + std::to_string(device.description.id) +
                                                     " belongs to process " +
                                                     std::to_string(device.description.processIndex) +
                                                     ", not to this one");
}

PJRT_Error* Client_LookupDevice(PJRT_Client_LookupDevice_Args* args) {
  Expected<PJRT_Device*> d = deviceById(*args->client, args->id);
  if (!d) return toError(d.status());
  args->device = *d;
  return nullptr;
}

PJRT_Error* Client_LookupAddressableDevice(PJRT_Client_LookupAddressableDevice_Args* args) {
  const std::vector<PJRT_Device*>& local = args->client->addressable;
  if (args->local_hardware_id < 0 || args->local_hardware_id >= static_cast<int>(local.size()))
    return invalid("no addressable device " + std::to_string(args->local_hardware_id) + " (this process has " +
                   std::to_string(local.size()) + ")");
  args->addressable_device = local[args->local_hardware_id];
  return nullptr;
}

PJRT_Error* Client_AddressableMemories(PJRT_Client_AddressableMemories_Args* args) {
  args->addressable_memories = args->client->memories.data();
  args->num_addressable_memories = args->client->memories.size();
  return nullptr;
}

PJRT_Error* Client_DefaultDeviceAssignment(PJRT_Client_DefaultDeviceAssignment_Args* args) {
  int64_t needed = int64_t(args->num_replicas) * args->num_partitions;
  if (args->num_replicas < 1 || args->num_partitions < 1 || needed > int64_t(args->client->devices.size()))
    return invalid(std::to_string(args->num_replicas) + " replica(s) x " + std::to_string(args->num_partitions) +
                   " partition(s) need more devices than kiln has (" + std::to_string(args->client->devices.size()) +
                   "; set KILN_NUM_DEVICES)");
  if (static_cast<int64_t>(args->default_assignment_size) < needed)
    return invalid("the device assignment array is too small");
  for (int64_t i = 0; i < needed; ++i) args->default_assignment[i] = static_cast<int>(i);
  return nullptr;
}

// ---- Buffers from the host ---------------------------------------------------------

PJRT_Buffer* wrap(PJRT_Client* client, rt::BufferRef buffer, PJRT_Memory* memory = nullptr) {
  auto* b = new PJRT_Buffer;
  b->client = client;
  b->memoryKind = memory;
  b->dims = dimsOf(buffer->type());
  for (int64_t d = static_cast<int64_t>(b->dims.size()) - 1; d >= 0; --d) b->minorToMajor.push_back(d);
  b->buffer = std::move(buffer);
  return b;
}

// Whether `strides` (bytes per step of each dimension) are the dense row-major ones of `dims`.
bool isDenseRowMajor(std::span<const int64_t> dims, std::span<const int64_t> strides, int64_t elementBytes) {
  int64_t expected = elementBytes;
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] != 1 && strides[d] != expected) return false;
    expected *= dims[d];
  }
  return true;
}

// Copies the strided array at `src` into dense row-major `dst`.
void gatherStrided(const char* src, char* dst, std::span<const int64_t> dims, std::span<const int64_t> strides,
                   int64_t elementBytes) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (size_t d = 0; d < dims.size(); ++d) offset += index[d] * strides[d];
    std::memcpy(dst + n * elementBytes, src + offset, elementBytes);
    for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

// A device layout other than kiln's dense row-major one is refused.
Status checkDenseLayout(const PJRT_Buffer_MemoryLayout* layout, std::span<const int64_t> dims, int64_t elementBytes) {
  if (!layout) return Status::ok();
  if (layout->type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
    const PJRT_Buffer_MemoryLayout_Tiled& tiled = layout->tiled;
    bool rowMajor = tiled.minor_to_major_size == dims.size() && tiled.num_tiles == 0;
    for (size_t i = 0; rowMajor && i < tiled.minor_to_major_size; ++i)
      rowMajor = tiled.minor_to_major[i] == static_cast<int64_t>(dims.size() - 1 - i);
    if (rowMajor) return Status::ok();
  } else if (layout->strides.num_byte_strides == dims.size() &&
             isDenseRowMajor(dims, {layout->strides.byte_strides, dims.size()}, elementBytes)) {
    return Status::ok();
  }
  return kiln::error(ErrorCode::Unimplemented, "kiln keeps arrays in the dense row-major layout only");
}

// Whether a host array may back a buffer in place (zero-copy): the caller
// allows it (kImmutableZeroCopy, kMutableZeroCopy), and the data is kiln's
// dense layout at its elements' natural alignment (up to 8 bytes; kiln's
// kernels read no wider), so no execution has to copy it either.
bool borrowsHostData(PJRT_HostBufferSemantics semantics, const void* data, int64_t bytes, bool dense,
                     int64_t elementBytes) {
  if (semantics != PJRT_HostBufferSemantics_kImmutableZeroCopy &&
      semantics != PJRT_HostBufferSemantics_kMutableZeroCopy)
    return false;
  auto alignment = static_cast<uintptr_t>(std::clamp<int64_t>(elementBytes, 1, 8));
  return dense && data && bytes > 0 && reinterpret_cast<uintptr_t>(data) % alignment == 0;
}

PJRT_Device* destinationDevice(PJRT_Client& client, PJRT_Device* device, PJRT_Memory* memory) {
  if (memory) return memory->devices.front();
  return device ? device : client.addressable.front();
}

PJRT_Error* Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    PJRT_Client& client = *args->client;
    Expected<Type> element = kilnElementType(args->type);
    if (!element) return toError(element.status());
    std::span<const int64_t> dims(args->dims, args->num_dims);
    for (int64_t d : dims)
      if (d < 0) return invalid("a host buffer has a negative dimension");
    Type type = Type::tensor(dims, *element);
    int64_t elementBytes = element->storageBytes();
    int64_t bytes = type.numElements() * elementBytes;
    if (Status s = checkDenseLayout(args->device_layout, dims, elementBytes); !s.isOk()) return toError(s);
    PJRT_Device* device = destinationDevice(client, args->device, args->memory);
    if (Status s = checkAddressable(*device); !s.isOk()) return toError(s);

    std::span<const int64_t> strides(args->byte_strides, args->num_byte_strides);
    if (!strides.empty() && strides.size() != dims.size())
      return invalid("a host buffer has " + std::to_string(strides.size()) + " strides for " +
                     std::to_string(dims.size()) + " dimensions");
    const void* data = args->data;
    bool dense = strides.empty() || isDenseRowMajor(dims, strides, elementBytes);
    if (borrowsHostData(args->host_buffer_semantics, data, bytes, dense, elementBytes)) {
      // Zero-copy: the buffer computes on the caller's memory, and
      // done_with_host_buffer fires when kiln lets go of it (the buffer and
      // every execution reading it are gone). kiln never writes it: a result
      // goes into a donated argument's memory only when kiln allocated it.
      kiln::trace::Scope slice("transfer", "host to device (borrowed, no copy)");
      slice.arg("bytes", std::to_string(bytes));
      auto* done = new PJRT_Event;
      Expected<rt::BufferRef> buffer =
          client.client->bufferFromHost(data, bytes, type, device->device, rt::Client::HostSemantics::kZeroCopy,
                                        [state = done->state] { state->set(Status::ok()); });
      if (!buffer) {
        delete done;
        return toError(buffer.status());
      }
      args->done_with_host_buffer = done;
      args->buffer = wrap(&client, std::move(*buffer), args->memory);
      return nullptr;
    }
    std::vector<char> gathered;
    if (!dense) {
      gathered.resize(bytes);
      gatherStrided(static_cast<const char*>(args->data), gathered.data(), dims, strides, elementBytes);
      data = gathered.data();
    }
    Expected<rt::BufferRef> buffer =
        client.client->bufferFromHost(data, bytes, type, device->device, rt::Client::HostSemantics::kCopy);
    if (!buffer) return toError(buffer.status());
    args->done_with_host_buffer = readyEvent();
    args->buffer = wrap(&client, std::move(*buffer), args->memory);
    return nullptr;
  });
}

// ---- Asynchronous host-to-device transfers ----------------------------------------
//
// jaxlib's transfer server (jax.experimental.transfer) receives arrays into
// buffers it creates empty and fills chunk by chunk as they arrive
// (PJRT_Client_CreateBuffersForAsyncHostToDevice, then TransferData). Each
// buffer's memory is kiln's from the start (host memory, 64-byte aligned);
// a transfer copies its chunk in at once (done_with_h2d_transfer is ready on
// return), and the buffer becomes ready with its last transfer, or fails
// with SetBufferError, or when the manager goes before its last transfer.
// An empty buffer is ready from the start.

ErrorCode kilnCode(PJRT_Error_Code code);

PJRT_Error* Client_CreateBuffersForAsyncHostToDevice(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    PJRT_Client& client = *args->client;
    if (!args->memory) return invalid("an asynchronous transfer needs the memory to put its buffers in");
    if (args->num_shape_specs == 0) return invalid("an asynchronous transfer of no buffers");
    if (args->num_device_layouts != 0 && args->num_device_layouts != args->num_shape_specs)
      return invalid(std::to_string(args->num_device_layouts) + " device layouts for " +
                     std::to_string(args->num_shape_specs) + " buffers");
    PJRT_Device* device = args->memory->devices.front();
    if (Status s = checkAddressable(*device); !s.isOk()) return toError(s);
    auto manager = std::make_unique<PJRT_AsyncHostToDeviceTransferManager>();
    manager->client = &client;
    manager->device = device;
    manager->memory = args->memory;
    for (size_t i = 0; i < args->num_shape_specs; ++i) {
      const PJRT_ShapeSpec& spec = args->shape_specs[i];
      Expected<Type> element = kilnElementType(spec.element_type);
      if (!element) return toError(element.status());
      std::span<const int64_t> dims(spec.dims, spec.num_dims);
      for (int64_t d : dims)
        if (d < 0) return invalid("buffer " + std::to_string(i) + " has a negative dimension");
      Type type = Type::tensor(dims, *element);
      int64_t elementBytes = element->storageBytes();
      if (args->num_device_layouts)
        if (Status s = checkDenseLayout(args->device_layouts[i], dims, elementBytes); !s.isOk()) return toError(s);
      int64_t bytes = type.numElements() * elementBytes;
      PJRT_AsyncHostToDeviceTransferManager::Slot slot;
      slot.bytes = bytes;
      if (bytes > 0) {
        size_t rounded = (static_cast<size_t>(bytes) + 63) / 64 * 64;
        slot.data = static_cast<uint8_t*>(std::aligned_alloc(64, rounded));
        if (!slot.data)
          return makeError(PJRT_Error_Code_RESOURCE_EXHAUSTED, "out of memory for buffer " + std::to_string(i));
      }
      Expected<rt::BufferRef> placed =
          bytes > 0 ? client.client->bufferFromHost(slot.data, bytes, type, device->device,
                                                    rt::Client::HostSemantics::kZeroCopy,
                                                    [data = slot.data] { std::free(data); })
                    : client.client->bufferFromHost(nullptr, 0, type, device->device, rt::Client::HostSemantics::kCopy);
      if (!placed) return toError(placed.status());
      // The same memory, behind an event that fires with the last transfer.
      slot.ready = std::make_shared<rt::Event::State>();
      slot.buffer = std::make_shared<rt::Buffer>(type, device->device, (*placed)->state(), rt::Event(slot.ready));
      // An empty array has nothing to wait for (jaxlib's transfer server
      // sends it no chunk: on XLA:CPU, whose buffer waits, its pull hangs).
      if (bytes == 0) manager->finish(slot, Status::ok());
      manager->slots.push_back(std::move(slot));
    }
    args->transfer_manager = manager.release();
    return nullptr;
  });
}

PJRT_Error* TransferManager_Destroy(PJRT_AsyncHostToDeviceTransferManager_Destroy_Args* args) {
  delete args->transfer_manager;
  return nullptr;
}

// The slot `index` names, or an error.
Expected<PJRT_AsyncHostToDeviceTransferManager::Slot*> slotOf(PJRT_AsyncHostToDeviceTransferManager& manager,
                                                               int index) {
  if (index < 0 || static_cast<size_t>(index) >= manager.slots.size())
    return kiln::error(ErrorCode::InvalidArgument, "buffer index " + std::to_string(index) + " is out of range: the " +
                                                       "transfer has " + std::to_string(manager.slots.size()) +
                                                       " buffer(s)");
  return &manager.slots[index];
}

// Copies `size` bytes of `data` to [offset, offset + size) of buffer `index`;
// the last transfer makes it ready.
Status transferInto(PJRT_AsyncHostToDeviceTransferManager& manager, int index, const void* data, int64_t offset,
                    int64_t size, bool last) {
  std::lock_guard<std::mutex> lock(manager.mu);
  KILN_ASSIGN_OR_RETURN(PJRT_AsyncHostToDeviceTransferManager::Slot * slot, slotOf(manager, index));
  std::string which = "buffer " + std::to_string(index);
  if (slot->bytes == 0 && size == 0) return Status::ok();  // ready from the start
  if (slot->finished) return kiln::error(ErrorCode::FailedPrecondition, which + " had its last transfer already");
  if (offset < 0 || size < 0 || offset > slot->bytes || size > slot->bytes - offset)
    return kiln::error(ErrorCode::InvalidArgument, "a transfer of " + std::to_string(size) + " bytes at offset " +
                                                       std::to_string(offset) + " does not fit " + which + "'s " +
                                                       std::to_string(slot->bytes) + " bytes");
  if (size > 0 && !data) return kiln::error(ErrorCode::InvalidArgument, "a transfer from null host data");
  kiln::trace::Scope trace("transfer", "host to device (asynchronous transfer)");
  if (size > 0) std::memcpy(slot->data + offset, data, size);
  if (last) manager.finish(*slot, Status::ok());
  return Status::ok();
}

PJRT_Error* TransferManager_TransferData(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    if (Status s = transferInto(*args->transfer_manager, args->buffer_index, args->data, args->offset,
                                args->transfer_size, args->is_last_transfer);
        !s.isOk())
      return toError(s);
    args->done_with_h2d_transfer = readyEvent();
    return nullptr;
  });
}

// A whole array (0.83): of the buffer's shape, dense row-major.
PJRT_Error* TransferManager_TransferLiteral(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    PJRT_AsyncHostToDeviceTransferManager& manager = *args->transfer_manager;
    Expected<Type> element = kilnElementType(args->shape_element_type);
    if (!element) return toError(element.status());
    std::span<const int64_t> dims(args->shape_dims, args->shape_num_dims);
    for (int64_t d : dims)
      if (d < 0) return invalid("a literal has a negative dimension");
    Type type = Type::tensor(dims, *element);
    {
      std::lock_guard<std::mutex> lock(manager.mu);
      Expected<PJRT_AsyncHostToDeviceTransferManager::Slot*> slot = slotOf(manager, args->buffer_index);
      if (!slot) return toError(slot.status());
      if ((*slot)->buffer->type() != type)
        return invalid("a literal of type " + type.str() + " for buffer " + std::to_string(args->buffer_index) +
                       " of type " + (*slot)->buffer->type().str());
    }
    if (Status s = checkDenseLayout(args->shape_layout, dims, element->storageBytes()); !s.isOk()) return toError(s);
    if (Status s = transferInto(manager, args->buffer_index, args->data, 0, type.numElements() * element->storageBytes(),
                                /*last=*/true);
        !s.isOk())
      return toError(s);
    args->done_with_h2d_transfer = readyEvent();
    return nullptr;
  });
}

PJRT_Error* TransferManager_RetrieveBuffer(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    PJRT_AsyncHostToDeviceTransferManager& manager = *args->transfer_manager;
    std::lock_guard<std::mutex> lock(manager.mu);
    Expected<PJRT_AsyncHostToDeviceTransferManager::Slot*> slot = slotOf(manager, args->buffer_index);
    if (!slot) return toError(slot.status());
    if ((*slot)->retrieved)
      return makeError(PJRT_Error_Code_FAILED_PRECONDITION,
                       "buffer " + std::to_string(args->buffer_index) + " was retrieved already");
    (*slot)->retrieved = true;
    args->buffer_out = wrap(manager.client, (*slot)->buffer, manager.memory);
    return nullptr;
  });
}

PJRT_Error* TransferManager_Device(PJRT_AsyncHostToDeviceTransferManager_Device_Args* args) {
  args->device_out = args->transfer_manager->device;
  return nullptr;
}

PJRT_Error* TransferManager_BufferCount(PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args* args) {
  args->buffer_count = args->transfer_manager->slots.size();
  return nullptr;
}

PJRT_Error* TransferManager_BufferSize(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    Expected<PJRT_AsyncHostToDeviceTransferManager::Slot*> slot = slotOf(*args->transfer_manager, args->buffer_index);
    if (!slot) return toError(slot.status());
    args->buffer_size = static_cast<size_t>((*slot)->bytes);
    return nullptr;
  });
}

PJRT_Error* TransferManager_SetBufferError(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    PJRT_AsyncHostToDeviceTransferManager& manager = *args->transfer_manager;
    std::lock_guard<std::mutex> lock(manager.mu);
    Expected<PJRT_AsyncHostToDeviceTransferManager::Slot*> slot = slotOf(manager, args->buffer_index);
    if (!slot) return toError(slot.status());
    if ((*slot)->finished)
      return makeError(PJRT_Error_Code_FAILED_PRECONDITION,
                       "buffer " + std::to_string(args->buffer_index) + " had its last transfer already");
    manager.finish(**slot, kiln::error(kilnCode(args->error_code),
                                       std::string(args->error_message ? args->error_message : "",
                                                   args->error_message ? args->error_message_size : 0)));
    return nullptr;
  });
}

// Metadata is a hint for other transports (XLA's own transfer code); kiln
// has no use for it.
PJRT_Error* TransferManager_AddMetadata(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args*) { return nullptr; }

// ---- Device descriptions, devices, memories --------------------------------------

PJRT_Error* DeviceDescription_Id(PJRT_DeviceDescription_Id_Args* args) {
  args->id = args->device_description->id;
  return nullptr;
}

PJRT_Error* DeviceDescription_ProcessIndex(PJRT_DeviceDescription_ProcessIndex_Args* args) {
  args->process_index = args->device_description->processIndex;
  return nullptr;
}

PJRT_Error* DeviceDescription_Attributes(PJRT_DeviceDescription_Attributes_Args* args) {
  args->attributes = args->device_description->attributes.data();
  args->num_attributes = args->device_description->attributes.size();
  return nullptr;
}

PJRT_Error* DeviceDescription_Kind(PJRT_DeviceDescription_String_Args* args) {
  setString(args->device_description->kind, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* DeviceDescription_DebugString(PJRT_DeviceDescription_String_Args* args) {
  setString(args->device_description->debugString, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* DeviceDescription_ToString(PJRT_DeviceDescription_String_Args* args) {
  setString(args->device_description->toString, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* Device_GetDescription(PJRT_Device_GetDescription_Args* args) {
  args->device_description = &args->device->description;
  return nullptr;
}

PJRT_Error* Device_IsAddressable(PJRT_Device_IsAddressable_Args* args) {
  args->is_addressable = args->device->device != nullptr;
  return nullptr;
}

PJRT_Error* Device_LocalHardwareId(PJRT_Device_LocalHardwareId_Args* args) {
  args->local_hardware_id = args->device->localId;
  return nullptr;
}

PJRT_Error* Device_AddressableMemories(PJRT_Device_AddressableMemories_Args* args) {
  args->memories = args->device->memories.data();
  args->num_memories = args->device->memories.size();
  return nullptr;
}

PJRT_Error* Device_DefaultMemory(PJRT_Device_DefaultMemory_Args* args) {
  if (Status s = checkAddressable(*args->device); !s.isOk()) return toError(s);
  args->memory = args->device->memory;
  return nullptr;
}

PJRT_Error* Device_MemoryStats(PJRT_Device_MemoryStats_Args* args) {
  if (Status s = checkAddressable(*args->device); !s.isOk()) return toError(s);
  rt::MemoryStats stats = args->device->device->memoryStats();
  args->bytes_in_use = stats.bytesInUse;
  args->peak_bytes_in_use = stats.peakBytesInUse;
  args->peak_bytes_in_use_is_set = true;
  args->num_allocs = stats.numAllocations;
  args->num_allocs_is_set = true;
  // The caller's struct is not zeroed: every statistic kiln does not keep is marked unset.
  args->largest_alloc_size_is_set = args->bytes_limit_is_set = args->bytes_reserved_is_set = false;
  args->peak_bytes_reserved_is_set = args->bytes_reservable_limit_is_set = false;
  args->largest_free_block_bytes_is_set = args->pool_bytes_is_set = args->peak_pool_bytes_is_set = false;
  return nullptr;
}

PJRT_Error* Memory_Id(PJRT_Memory_Id_Args* args) {
  args->id = args->memory->id;
  return nullptr;
}

PJRT_Error* Memory_Kind(PJRT_Memory_String_Args* args) {
  setString(args->memory->kind, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* Memory_Kind_Id(PJRT_Memory_Kind_Id_Args* args) {
  args->kind_id = args->memory->kindId;
  return nullptr;
}

PJRT_Error* Memory_DebugString(PJRT_Memory_String_Args* args) {
  setString(args->memory->debugString, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* Memory_ToString(PJRT_Memory_String_Args* args) {
  setString(args->memory->toString, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* Memory_AddressableByDevices(PJRT_Memory_AddressableByDevices_Args* args) {
  args->devices = args->memory->devices.data();
  args->num_devices = args->memory->devices.size();
  return nullptr;
}

PJRT_Error* ExecuteContext_Create(PJRT_ExecuteContext_Args* args) {
  args->context = new PJRT_ExecuteContext;
  return nullptr;
}

PJRT_Error* ExecuteContext_Destroy(PJRT_ExecuteContext_Args* args) {
  delete args->context;
  return nullptr;
}

// ---- Compilation ----------------------------------------------------------------------

std::string hexFingerprint(std::string_view bytes) {
  // FNV-1a, 64 bits: the same program and options give the same fingerprint.
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  static const char* digits = "0123456789abcdef";
  std::string out = "kiln-";
  for (int shift = 60; shift >= 0; shift -= 4) out += digits[(h >> shift) & 15];
  return out;
}

// Serialize's format: "kiln-pjrt-1\n", then the program and the compile
// options, each as "<bytes>\n" + bytes.
constexpr std::string_view kSerializedMagic = "kiln-pjrt-1\n";

std::string serializeSource(std::string_view code, std::string_view options) {
  std::string out(kSerializedMagic);
  for (std::string_view part : {code, options}) {
    out += std::to_string(part.size()) + "\n";
    out.append(part);
  }
  return out;
}

Expected<std::pair<std::string_view, std::string_view>> deserializeSource(std::string_view bytes) {
  auto bad = [] {
    return kiln::error(ErrorCode::InvalidArgument, "not an executable serialized by this version of kiln's plugin");
  };
  if (!bytes.starts_with(kSerializedMagic)) return bad();
  bytes.remove_prefix(kSerializedMagic.size());
  std::string_view parts[2];
  for (std::string_view& part : parts) {
    size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos || newline == 0 || newline > 19) return bad();
    uint64_t size = 0;
    for (char c : bytes.substr(0, newline)) {
      if (c < '0' || c > '9') return bad();
      size = size * 10 + (c - '0');
    }
    bytes.remove_prefix(newline + 1);
    if (size > bytes.size()) return bad();
    part = bytes.substr(0, size);
    bytes.remove_prefix(size);
  }
  if (!bytes.empty()) return bad();
  return std::make_pair(parts[0], parts[1]);
}

// kiln's layout of a rank-`rank` array as jaxlib's PjRtLayout::Deserialize
// reads one: HLO's layout text, minor to major, "{2,1,0}" (it CHECK-fails
// on anything else).
std::string rowMajorLayoutText(size_t rank) {
  std::string text = "{";
  for (size_t d = rank; d-- > 0;) text += std::to_string(d) + (d ? "," : "");
  return text + "}";
}

// Calls `visit(i, value)` for each argument (`list` "arg_attrs") or result
// ("res_attrs") i of @main, of `count`, whose attribute dictionary holds a
// string `key`; stops at the first error.
template <typename Visit>
Status forEachStringAttr(const kiln::Operation& main, std::string_view list, size_t count, std::string_view key,
                         Visit visit) {
  kiln::Attribute all = main.attr(list);
  if (!all || !all.is(kiln::AttrKind::Array)) return Status::ok();
  for (size_t i = 0; i < all.arrayValue().size() && i < count; ++i) {
    kiln::Attribute dict = all.arrayValue()[i];
    kiln::Attribute value = dict && dict.is(kiln::AttrKind::Dictionary) ? dict.get(key) : kiln::Attribute();
    if (value && value.is(kiln::AttrKind::String)) KILN_RETURN_IF_ERROR(visit(i, value.stringValue()));
  }
  return Status::ok();
}

// JAX asks for a layout through `mhlo.layout_mode` on @main's arguments and
// results: "default", "auto", or HLO layout text. kiln computes in
// row-major only, so any other layout is refused here, naming it, rather
// than left to a JAX assertion after compiling.
Status checkRequestedLayouts(const kiln::Operation& main) {
  kiln::Type type = kiln::func::type(main);
  auto check = [&](std::string_view list, std::span<const Type> types, std::string_view what) {
    return forEachStringAttr(main, list, types.size(), "mhlo.layout_mode", [&](size_t i, const std::string& text) {
      std::string rowMajor = rowMajorLayoutText(dimsOf(types[i]).size());
      if (text == "default" || text == "auto" || text == rowMajor) return Status::ok();
      return kiln::error(main.loc(), std::string(what) + " " + std::to_string(i) + " of @main asks for layout " + text +
                                         " (minor to major); kiln lays out arrays row-major only (" + rowMajor +
                                         ", docs/pjrt.md)");
    });
  };
  KILN_RETURN_IF_ERROR(check("arg_attrs", type.inputs(), "argument"));
  return check("res_attrs", type.results(), "result");
}

// The memory each result of @main goes to: its `mhlo.memory_kind` (JAX's
// out_shardings with a memory kind), else "device". Arguments may name a
// kind too; every kind must be one kiln's devices have.
Expected<std::vector<std::string_view>> resultMemoryKinds(const kiln::Operation& main) {
  kiln::Type type = kiln::func::type(main);
  auto kindsOf = [&](std::string_view list, size_t count, std::string_view what) -> Expected<std::vector<std::string_view>> {
    std::vector<std::string_view> kinds(count, kMemoryKind);
    KILN_RETURN_IF_ERROR(forEachStringAttr(main, list, count, "mhlo.memory_kind", [&](size_t i, const std::string& kind) {
      auto known = std::ranges::find(kMemoryKinds, std::string_view(kind));
      if (known == std::end(kMemoryKinds))
        return kiln::error(main.loc(), std::string(what) + " " + std::to_string(i) + " of @main is placed in memory kind '" +
                                           kind + "'; kiln's devices have device, pinned_host and unpinned_host");
      kinds[i] = *known;
      return Status::ok();
    }));
    return kinds;
  };
  if (Expected<std::vector<std::string_view>> arguments = kindsOf("arg_attrs", type.inputs().size(), "argument"); !arguments)
    return arguments.takeStatus();
  return kindsOf("res_attrs", type.results().size(), "result");
}

// With `client` null, compiles for a topology of `topologyDevices` devices
// without any (PJRT_Compile): the result has no devices and runs nothing;
// it serializes, and loading it on a client compiles it there.
Expected<PJRT_LoadedExecutable*> compileProgram(PJRT_Client* client, std::string_view code, std::string_view optionBytes,
                                                int topologyDevices = 0) {
  KILN_ASSIGN_OR_RETURN(kiln::pjrt::CompileOptions options, kiln::pjrt::parseCompileOptions(optionBytes));
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<kiln::Module> module, kiln::parseProgram(code, "<jax program>"));
  std::vector<std::string_view> memoryKinds;
  if (const kiln::Operation* main = module->lookupFunction("main")) {
    KILN_RETURN_IF_ERROR(checkRequestedLayouts(*main));
    KILN_ASSIGN_OR_RETURN(memoryKinds, resultMemoryKinds(*main));
  }
  // $KILN_PJRT_DUMP_DIR/<module>.mlir: each program as kiln read it, for
  // `kiln-opt` and `kiln run` (docs/pjrt.md).
  if (const char* dumpDir = std::getenv("KILN_PJRT_DUMP_DIR"); dumpDir && *dumpDir) {
    std::string name = module->name().empty() ? "program" : std::string(module->name());
    std::ofstream(std::string(dumpDir) + "/" + name + ".mlir") << kiln::printModule(*module);
  }
  // shard_map and pmap: each device runs the body on its shards, which is
  // what PJRT passes (the arguments' local shapes). Any other program over a
  // mesh (jit with shardings) is partitioned into the program each device
  // runs on its blocks.
  kiln::pjrt::foldEmptyMeshes(*module);
  // shard_map manual over some mesh axes only: kiln/pjrt/partial_manual.h.
  if (Expected<int> widened = kiln::pjrt::widenPartialManualComputations(*module); !widened) return widened.takeStatus();
  std::optional<kiln::pjrt::ProgramShardings> manualShardings;
  if (const kiln::Operation* main = module->lookupFunction("main")) {
    KILN_ASSIGN_OR_RETURN(manualShardings, kiln::pjrt::manualComputationShardings(*module, *main));
  }
  // Unless main states other shardings for them than the manual
  // computation's (an argument committed to another sharding): then the
  // partitioner reshards the blocks between the two.
  bool inlineable = true;
  if (const kiln::Operation* main = module->lookupFunction("main"); main && manualShardings) {
    KILN_ASSIGN_OR_RETURN(inlineable, kiln::pjrt::statedShardingsAgree(*module, *main, *manualShardings));
  }
  bool inlined = false;
  if (inlineable) {
    KILN_ASSIGN_OR_RETURN(inlined, kiln::createInlineManualComputationPass()->run(*module));
  }
  if (!inlined) {
    KILN_ASSIGN_OR_RETURN(kiln::PassManager spmd, kiln::namedPipeline("spmd"));
    KILN_RETURN_IF_ERROR(spmd.run(*module));
  }
  const kiln::Operation* main = module->lookupFunction("main");
  if (!main) return kiln::error(ErrorCode::NotFound, "the program has no function @main");
  // What the partitioner chose, for jaxlib's get_output_shardings (the
  // shardings extension, below).
  // shard_map made the per-device program: its in and out shardings (jaxlib
  // asks for them when jax.jit was given none).
  std::optional<kiln::pjrt::ProgramShardings> shardings;
  if (!inlined) {
    KILN_ASSIGN_OR_RETURN(shardings, kiln::pjrt::programShardings(*module, *main));
  } else {
    shardings = std::move(manualShardings);
  }

  // The devices: the caller's assignment (global ids), else the first
  // replicas x partitions.
  int instances = options.numReplicas * options.numPartitions;
  std::vector<int> ids = options.deviceAssignment;
  if (ids.empty())
    for (int i = 0; i < instances; ++i) ids.push_back(i);
  auto loaded = std::make_unique<PJRT_LoadedExecutable>();
  for (int id : ids) {
    if (!client) {
      if (id < 0 || id >= topologyDevices)
        return kiln::error(ErrorCode::InvalidArgument, "no device " + std::to_string(id) + " (the topology has " +
                                                           std::to_string(topologyDevices) + ")");
      continue;
    }
    KILN_ASSIGN_OR_RETURN(PJRT_Device * device, deviceById(*client, id));
    if (device->device) {
      loaded->localInstances.push_back(static_cast<int>(loaded->devices.size()));
      loaded->addressable.push_back(device);
    }
    loaded->devices.push_back(device);
  }
  bool acrossProcesses = client && loaded->addressable.size() != loaded->devices.size();

  auto program = std::make_shared<CompiledProgram>();
  program->options = options;
  program->optionBytes = std::string(optionBytes);
  if (shardings) {
    // Made in place: `data` points into `bytes` (short strings' own storage).
    auto protos = [](const std::vector<kiln::gspmd::HloSharding>& from, std::optional<CompiledProgram::ShardingProtos>& to) {
      to.emplace();
      for (const kiln::gspmd::HloSharding& s : from) to->bytes.push_back(kiln::pjrt::opShardingProto(s));
      for (const std::string& b : to->bytes) {
        to->data.push_back(b.data());
        to->sizes.push_back(b.size());
      }
    };
    protos(shardings->parameters, program->parameterShardings);
    protos(shardings->results, program->resultShardings);
  }
  kiln::Type mainType = kiln::func::type(*main);
  program->parameterTypes.assign(mainType.inputs().begin(), mainType.inputs().end());
  program->resultTypes.assign(mainType.results().begin(), mainType.results().end());
  for (unsigned i = 0; i < mainType.inputs().size(); ++i)
    if (kiln::isDonatedParameter(*main, i)) program->donatedParameters.push_back(static_cast<int>(i));
  program->source = serializeSource(code, optionBytes);
  program->fingerprint = hexFingerprint(program->source);
  if (acrossProcesses) {
    std::string placement = std::to_string(options.numReplicas) + "x" + std::to_string(options.numPartitions);
    for (int id : ids) placement += "," + std::to_string(id);
    program->runKey = hexFingerprint(serializeSource(code, placement));
    // Its share of the instances runs with Gloo communicators, which the
    // runtime does not take: compiled for the cpu back end directly, each
    // instance on its share of the host's cores.
    if (loaded->addressable.empty())
      return kiln::error(ErrorCode::InvalidArgument, "the device assignment names no device of this process");
    if (instances != static_cast<int>(ids.size()))
      return kiln::error(ErrorCode::InvalidArgument, "the device assignment names " + std::to_string(ids.size()) +
                                                         " devices for " + std::to_string(instances) + " instances");
    kiln::cpu::CpuCompileOptions cpuOptions;
    cpuOptions.numThreads = client->threadsAcrossProcesses;
    cpuOptions.cacheDir = client->cacheDir;
    KILN_ASSIGN_OR_RETURN(program->acrossProcesses, kiln::cpu::compileForCpuCached(*module, "main", cpuOptions));
    if (program->acrossProcesses->numInstances() != instances)
      return kiln::error(ErrorCode::InvalidArgument,
                         "the program declares " + std::to_string(program->acrossProcesses->numInstances()) +
                             " instance(s) (mhlo.num_replicas x mhlo.num_partitions), its compile options " +
                             std::to_string(instances));
    program->name = module->name().empty() ? "main" : std::string(module->name());
  } else if (!client) {
    // Compiled for the cpu back end directly, as a client's runtime would,
    // so that the optimized program and memory statistics can be read.
    kiln::cpu::CpuCompileOptions cpuOptions;
    if (const char* dir = std::getenv("KILN_CACHE_DIR")) cpuOptions.cacheDir = dir;
    KILN_ASSIGN_OR_RETURN(program->acrossProcesses, kiln::cpu::compileForCpuCached(*module, "main", cpuOptions));
    program->name = module->name().empty() ? "main" : std::string(module->name());
  } else {
    KILN_ASSIGN_OR_RETURN(program->executable, client->client->compile(*module));
    program->name = program->executable->name();
    rt::CostAnalysis cost = program->executable->costAnalysis();
    program->costProperties = {floatValue("flops", static_cast<float>(cost.flops)),
                               floatValue("bytes accessed", static_cast<float>(cost.bytesAccessed))};
  }
  auto layoutsOf = [](const std::vector<Type>& types, std::vector<PJRT_Layouts_MemoryLayout>& layouts,
                      std::vector<PJRT_Layouts_MemoryLayout*>& list) {
    for (Type t : types) layouts.push_back({rowMajorLayoutText(dimsOf(t).size())});
    for (PJRT_Layouts_MemoryLayout& layout : layouts) list.push_back(&layout);
  };
  layoutsOf(program->parameterTypes, program->parameterLayouts, program->parameterLayoutList);
  layoutsOf(program->resultTypes, program->resultLayouts, program->resultLayoutList);
  for (size_t i = 0; i < program->resultTypes.size(); ++i) {
    Type t = program->resultTypes[i];
    std::string_view memoryKind = i < memoryKinds.size() ? memoryKinds[i] : kMemoryKind;
    program->outputTypes.push_back(pjrtElementType(t));
    std::vector<int64_t> dims = dimsOf(t);
    program->outputDims.insert(program->outputDims.end(), dims.begin(), dims.end());
    program->outputRanks.push_back(dims.size());
    program->outputMemoryKinds.push_back(memoryKind.data());
    program->outputMemoryKindSizes.push_back(memoryKind.size());
  }
  loaded->client = client;
  loaded->program = program;
  loaded->plainRun = std::make_shared<const RunOrigin>(RunOrigin{program, {}, {}});
  loaded->executable.program = std::move(program);
  return loaded.release();
}

// A compile error about an op of the program also names the user's line of
// each call that led to it (kiln/pjrt/call_chain.h), read off the program
// as JAX handed it over (kiln's passes have inlined the calls by then).
Status withCallChain(Status status, std::string_view code) {
  if (status.isOk() || !status.diag().loc.known()) return status;
  if (Expected<std::unique_ptr<kiln::Module>> module = kiln::parseProgram(code, "<jax program>"))
    kiln::pjrt::addCallChain(status.diag(), **module);
  return status;
}

// The same for an error while running a program (a collective whose peer
// process is gone, a step out of memory): it names the op's line, and now
// each call that led to it, then the Python call of this run when jaxlib
// sent it (kiln/pjrt/call_chain.h). Skipped when the error already has
// those notes (it came from an argument that another run produced).
Status withRunCallChain(Status status, const RunOrigin& run) {
  if (status.isOk()) return status;
  for (const kiln::Diagnostic& note : status.diag().notes)
    if (note.message.starts_with("called from here") || kiln::pjrt::isCallLocationNote(note)) return status;
  if (status.diag().loc.known()) {
    std::vector<std::shared_ptr<const CompiledProgram>> programs{run.program};
    for (const auto& weak : run.upstream)
      if (std::shared_ptr<const CompiledProgram> p = weak.lock()) programs.push_back(std::move(p));
    for (const auto& program : programs) {
      Expected<std::pair<std::string_view, std::string_view>> parts = deserializeSource(program->source);
      if (!parts) continue;
      size_t notes = status.diag().notes.size();
      status = withCallChain(std::move(status), parts->first);
      if (status.diag().notes.size() > notes) break;
    }
  }
  kiln::pjrt::addCallLocation(status.diag(), run.callLocation);
  return status;
}

// A buffer's contents once it is ready; a failed run's error with the notes
// of withRunCallChain.
Expected<kiln::device::Literal> readyLiteral(const PJRT_Buffer& buffer) {
  Expected<kiln::device::Literal> literal = buffer.buffer->toLiteral();
  if (!literal && buffer.producer) return withRunCallChain(literal.takeStatus(), *buffer.producer);
  return literal;
}

PJRT_Error* Client_Compile(PJRT_Client_Compile_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    std::string_view format(args->program->format, args->program->format_size);
    if (format != "mlir")
      return invalid("programs must be StableHLO (format \"mlir\"), not \"" + std::string(format) + "\"");
    Expected<PJRT_LoadedExecutable*> loaded =
        compileProgram(args->client, {args->program->code, args->program->code_size},
                       {args->compile_options, args->compile_options_size});
    if (!loaded) return toError(withCallChain(loaded.takeStatus(), {args->program->code, args->program->code_size}));
    args->executable = *loaded;
    return nullptr;
  });
}

PJRT_Error* Executable_DeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    auto parts = deserializeSource({args->serialized_executable, args->serialized_executable_size});
    if (!parts) return toError(parts.status());
    // jaxlib may load a cached executable with other options (0.71).
    std::string_view options = parts->second;
    if (args->struct_size >= offsetof(PJRT_Executable_DeserializeAndLoad_Args, overridden_serialized_compile_options_size) +
                                 sizeof(size_t) &&
        args->overridden_serialized_compile_options)
      options = {args->overridden_serialized_compile_options, args->overridden_serialized_compile_options_size};
    Expected<PJRT_LoadedExecutable*> loaded = compileProgram(args->client, parts->first, options);
    if (!loaded) return toError(withCallChain(loaded.takeStatus(), parts->first));
    args->loaded_executable = *loaded;
    return nullptr;
  });
}

// Compiling for a topology (jax.experimental.topologies, and JAX's
// compile-only clients): the executable is not loaded on any device.
PJRT_Error* Compile(PJRT_Compile_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    std::string_view format(args->program->format, args->program->format_size);
    if (format != "mlir")
      return invalid("programs must be StableHLO (format \"mlir\"), not \"" + std::string(format) + "\"");
    std::string_view code(args->program->code, args->program->code_size);
    int devices = static_cast<int>(args->topology->descriptions.size());
    Expected<PJRT_LoadedExecutable*> loaded =
        compileProgram(nullptr, code, {args->compile_options, args->compile_options_size}, devices);
    if (!loaded) return toError(withCallChain(loaded.takeStatus(), code));
    std::unique_ptr<PJRT_LoadedExecutable> owner(*loaded);
    args->executable = new PJRT_Executable{owner->program};
    return nullptr;
  });
}

// ---- Executables -----------------------------------------------------------------------

PJRT_Error* Executable_Destroy(PJRT_Executable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* Executable_Name(PJRT_Executable_String_Args* args) {
  setString(args->executable->program->name, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* Executable_Fingerprint(PJRT_Executable_String_Args* args) {
  setString(args->executable->program->fingerprint, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* Executable_NumReplicas(PJRT_Executable_Count_Args* args) {
  args->value = args->executable->program->options.numReplicas;
  return nullptr;
}

PJRT_Error* Executable_NumPartitions(PJRT_Executable_Count_Args* args) {
  args->value = args->executable->program->options.numPartitions;
  return nullptr;
}

PJRT_Error* Executable_NumOutputs(PJRT_Executable_Count_Args* args) {
  args->value = args->executable->program->outputTypes.size();
  return nullptr;
}

PJRT_Error* Executable_SizeOfGeneratedCodeInBytes(PJRT_Executable_SizeOfGeneratedCodeInBytes_Args* args) {
  args->size_in_bytes = 0;  // not measured: kiln's code lives in its JIT's memory
  return nullptr;
}

PJRT_Error* Executable_GetCostAnalysis(PJRT_Executable_GetCostAnalysis_Args* args) {
  args->properties = args->executable->program->costProperties.data();
  args->num_properties = args->executable->program->costProperties.size();
  return nullptr;
}

int64_t bytesOf(std::span<const Type> types) {
  int64_t total = 0;
  for (Type t : types)
    if (t.isTensor()) total += t.numElements() * t.elementType().storageBytes();
  return total;
}

const std::string& optimizedModuleText(const CompiledProgram& program) {
  return program.executable ? program.executable->optimizedModuleText() : program.acrossProcesses->optimizedModuleText();
}

PJRT_Error* Executable_GetCompiledMemoryStats(PJRT_Executable_GetCompiledMemoryStats_Args* args) {
  CompiledProgram& program = *args->executable->program;
  std::call_once(program.temporaryOnce, [&program] {
    Expected<int64_t> bytes = kiln::pjrt::temporaryBytes(optimizedModuleText(program));
    program.temporaryBytes = bytes ? *bytes : 0;
  });
  args->generated_code_size_in_bytes = 0;
  args->argument_size_in_bytes = bytesOf(program.parameterTypes);
  args->output_size_in_bytes = bytesOf(program.resultTypes);
  args->alias_size_in_bytes = 0;
  args->temp_size_in_bytes = program.temporaryBytes;
  args->host_generated_code_size_in_bytes = 0;
  args->host_argument_size_in_bytes = 0;
  args->host_output_size_in_bytes = 0;
  args->host_alias_size_in_bytes = 0;
  args->host_temp_size_in_bytes = 0;
  // Fields of later versions, when the caller's struct has them. kiln does
  // not track the peak of a run: arguments, results and arena all live at
  // once at most, so their sum bounds it.
  int64_t total = args->argument_size_in_bytes + args->output_size_in_bytes + args->temp_size_in_bytes;
  if (args->struct_size > offsetof(PJRT_Executable_GetCompiledMemoryStats_Args, peak_memory_in_bytes))
    args->peak_memory_in_bytes = total;
  if (args->struct_size > offsetof(PJRT_Executable_GetCompiledMemoryStats_Args, total_size_in_bytes))
    args->total_size_in_bytes = total;
  return nullptr;
}

PJRT_Error* Executable_OutputElementTypes(PJRT_Executable_OutputElementTypes_Args* args) {
  args->output_types = args->executable->program->outputTypes.data();
  args->num_output_types = args->executable->program->outputTypes.size();
  return nullptr;
}

PJRT_Error* Executable_OutputDimensions(PJRT_Executable_OutputDimensions_Args* args) {
  const CompiledProgram& p = *args->executable->program;
  args->num_outputs = p.outputRanks.size();
  args->dims = p.outputDims.data();
  args->dim_sizes = p.outputRanks.data();
  return nullptr;
}

PJRT_Error* Executable_OutputMemoryKinds(PJRT_Executable_OutputMemoryKinds_Args* args) {
  const CompiledProgram& p = *args->executable->program;
  args->num_outputs = p.outputMemoryKinds.size();
  args->memory_kinds = p.outputMemoryKinds.data();
  args->memory_kind_sizes = p.outputMemoryKindSizes.data();
  return nullptr;
}

// kiln's optimized module, kernels outlined (kiln/pjrt/optimized_program.h),
// as format "mlir": jaxlib converts it to HLO for compile().as_text().
// Called twice: for the size, then with a buffer of that size.
PJRT_Error* Executable_OptimizedProgram(PJRT_Executable_OptimizedProgram_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    CompiledProgram& program = *args->executable->program;
    std::call_once(program.optimizedOnce, [&program] {
      program.optimizedForJax = kiln::pjrt::optimizedProgramForJax(
          program.executable ? program.executable->optimizedModuleTextWithLocations()
                             : program.acrossProcesses->optimizedModuleTextWithLocations());
    });
    if (!program.optimizedForJax) return toError(program.optimizedForJax.status());
    const std::string& text = *program.optimizedForJax;
    PJRT_Program& out = *args->program;
    out.format = "mlir";
    out.format_size = 4;
    if (out.code) {
      if (out.code_size < text.size())
        return invalid("the optimized program takes " + std::to_string(text.size()) + " bytes, " +
                       std::to_string(out.code_size) + " given");
      std::memcpy(out.code, text.data(), text.size());
    }
    out.code_size = text.size();
    return nullptr;
  });
}

// Bytes handed to jaxlib with a deleter it calls when done with them.
struct OwnedBytes {
  std::string bytes;
};

PJRT_Error* Executable_Serialize(PJRT_Executable_Serialize_Args* args) {
  auto* serialized = new OwnedBytes{args->executable->program->source};
  args->serialized_bytes = serialized->bytes.data();
  args->serialized_bytes_size = serialized->bytes.size();
  args->serialized_executable = reinterpret_cast<PJRT_SerializedExecutable*>(serialized);
  args->serialized_executable_deleter = [](PJRT_SerializedExecutable* e) {
    delete reinterpret_cast<OwnedBytes*>(e);
  };
  return nullptr;
}

PJRT_Error* LoadedExecutable_Destroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error* LoadedExecutable_GetExecutable(PJRT_LoadedExecutable_GetExecutable_Args* args) {
  args->executable = new PJRT_Executable{args->loaded_executable->program};
  return nullptr;
}

PJRT_Error* LoadedExecutable_AddressableDevices(PJRT_LoadedExecutable_AddressableDevices_Args* args) {
  args->addressable_devices = args->executable->addressable.data();
  args->num_addressable_devices = args->executable->addressable.size();
  return nullptr;
}

PJRT_Error* LoadedExecutable_Delete(PJRT_LoadedExecutable_Delete_Args* args) {
  args->executable->deleted = true;
  return nullptr;
}

PJRT_Error* LoadedExecutable_IsDeleted(PJRT_LoadedExecutable_IsDeleted_Args* args) {
  args->is_deleted = args->executable->deleted;
  return nullptr;
}

PJRT_Error* LoadedExecutable_Fingerprint(PJRT_LoadedExecutable_Fingerprint_Args* args) {
  setString(args->executable->program->fingerprint, args->value, args->value_size);
  return nullptr;
}

// The address the other processes reach this one's Gloo connections at:
// $KILN_GLOO_HOST, else loopback (every process on this host).
std::string glooHost() {
  const char* host = std::getenv("KILN_GLOO_HOST");
  return host && *host ? host : "127.0.0.1";
}

// Connects this process's instances of `loaded` to the others': every
// instance is a rank of one Gloo communicator (local peers included), met
// through JAX's key-value store under keys that name the program and how
// many times this process has connected it, which every process advances
// alike. A process that runs another program, or none, leaves the others
// waiting for its keys, and they fail after the collective timeout.
Status connectAcrossProcesses(PJRT_LoadedExecutable& loaded) {
  PJRT_Client& client = *loaded.client;
  const CompiledProgram& program = *loaded.program;
  int64_t connection;
  {
    std::lock_guard<std::mutex> lock(client.connectionsMutex);
    connection = client.connectionsByProgram[program.runKey]++;
  }
  std::string prefix = "kiln_pjrt/" + program.runKey + "/" + std::to_string(connection);
  int numInstances = static_cast<int>(loaded.devices.size());
  kiln::distributed::GlooOptions gloo{.keyPrefix = prefix, .timeout = client.timeout, .hostname = glooHost()};
  Expected<std::vector<std::unique_ptr<kiln::collectives::Communicator>>> connected =
      kiln::distributed::connectGlooRanks(client.store, loaded.localInstances, numInstances, gloo);
  if (!connected)
    return kiln::error(ErrorCode::FailedPrecondition,
                       "process " + std::to_string(client.processIndex) + " could not meet the other processes to run '" +
                           program.name + "' (" + program.runKey + ", connection " + std::to_string(connection) +
                           "): " + connected.status().message() +
                           " -- every process must run the same programs in the same order");
  // Collectives among this process's own devices, and among the devices of
  // this host's processes, meet in shared memory, not over Gloo.
  KILN_RETURN_IF_ERROR(kiln::distributed::shareHostCollectives(*connected, loaded.localInstances, numInstances,
                                                               *client.store, prefix, client.timeout));
  loaded.communicators = std::move(*connected);
  return Status::ok();
}

// Runs this process's instances of a program whose instances span
// processes, on argsPerDevice[k] for loaded.addressable[k], and waits for
// them, with collectives over the connections of connectAcrossProcesses.
Expected<std::vector<std::vector<rt::BufferRef>>> executeAcrossProcesses(
    PJRT_LoadedExecutable& loaded, const std::vector<std::vector<rt::BufferRef>>& argsPerDevice) {
  PJRT_Client& client = *loaded.client;
  const CompiledProgram& program = *loaded.program;
  std::vector<std::vector<kiln::interp::Tensor>> args(argsPerDevice.size());
  for (size_t k = 0; k < argsPerDevice.size(); ++k)
    for (const rt::BufferRef& b : argsPerDevice[k]) {
      KILN_ASSIGN_OR_RETURN(kiln::device::Literal literal, b->toLiteral());  // waits for it
      args[k].push_back(kiln::interp::toTensor(literal));
    }
  std::lock_guard<std::mutex> lock(loaded.runMutex);
  if (loaded.communicators.empty()) KILN_RETURN_IF_ERROR(connectAcrossProcesses(loaded));
  std::vector<kiln::collectives::Communicator*> communicators;
  for (auto& c : loaded.communicators) communicators.push_back(c.get());
  kiln::distributed::CommunicatorRendezvous rendezvous(static_cast<int>(loaded.devices.size()), communicators);
  Expected<std::vector<std::vector<kiln::interp::Tensor>>> results = program.acrossProcesses->runSomeInstances(
      loaded.localInstances, std::move(args), communicators, rendezvous, [&](size_t k, bool failed) {
        // A failed instance closes its connections as it stops, which fails
        // its peers' next collective with it at once, not at a timeout.
        if (failed) loaded.communicators[k].reset();
      });
  if (!results) {
    loaded.communicators.clear();  // the next execution connects afresh
    return results.takeStatus();
  }
  std::vector<std::vector<rt::BufferRef>> out(results->size());
  for (size_t k = 0; k < results->size(); ++k)
    for (kiln::interp::Tensor& t : (*results)[k]) {
      kiln::device::Literal literal = kiln::interp::toLiteral(std::move(t));
      // The buffer keeps the result's memory (no copy).
      KILN_ASSIGN_OR_RETURN(rt::BufferRef buffer,
                            client.client->bufferFromHost(literal.bytes(), literal.byteSize(), literal.type(),
                                                          loaded.addressable[k]->device,
                                                          rt::Client::HostSemantics::kZeroCopy, [literal] {}));
      out[k].push_back(std::move(buffer));
    }
  return out;
}

PJRT_Error* LoadedExecutable_Execute(PJRT_LoadedExecutable_Execute_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    PJRT_LoadedExecutable& loaded = *args->executable;
    if (loaded.deleted) return makeError(PJRT_Error_Code_FAILED_PRECONDITION, "the executable was deleted");
    const CompiledProgram& program = *loaded.program;
    std::vector<PJRT_Device*> devices = loaded.addressable;
    if (args->execute_device) {
      if (program.acrossProcesses)
        return invalid("a program whose devices span processes runs on all of them, not on one (execute_device)");
      devices = {args->execute_device};
    }
    if (args->num_devices != devices.size())
      return invalid("the executable runs on " + std::to_string(devices.size()) + " device(s), " +
                     std::to_string(args->num_devices) + " argument lists given");

    // jaxlib sends "" unless jax_send_traceback_to_runtime is "on" or "full".
    const char* callLocation =
        args->options &&
                args->options->struct_size >= offsetof(PJRT_ExecuteOptions, call_location) + sizeof(const char*) &&
                args->options->call_location
            ? args->options->call_location
            : "";
    std::vector<std::weak_ptr<const CompiledProgram>> upstream;
    rt::ExecuteOptions options;
    std::vector<int64_t> keep;
    if (args->options && args->options->num_non_donatable_input_indices)
      keep.assign(args->options->non_donatable_input_indices,
                  args->options->non_donatable_input_indices + args->options->num_non_donatable_input_indices);
    for (int p : program.donatedParameters)
      if (p < static_cast<int>(args->num_args) && std::find(keep.begin(), keep.end(), p) == keep.end())
        options.donatedArguments.push_back(p);

    std::vector<std::vector<rt::BufferRef>> argsPerDevice(devices.size());
    for (size_t d = 0; d < devices.size(); ++d)
      for (size_t i = 0; i < args->num_args; ++i) {
        PJRT_Buffer* b = args->argument_lists[d][i];
        if (!b) return invalid("argument " + std::to_string(i) + " is null");
        argsPerDevice[d].push_back(b->buffer);
        if (const RunOrigin* from = b->producer.get()) {
          auto add = [&](const std::weak_ptr<const CompiledProgram>& p) {
            auto same = [&](const std::weak_ptr<const CompiledProgram>& q) {
              return !p.owner_before(q) && !q.owner_before(p);
            };
            std::weak_ptr<const CompiledProgram> self = loaded.program;
            if (upstream.size() < RunOrigin::kMaxUpstream && !same(self) && std::ranges::none_of(upstream, same))
              upstream.push_back(p);
          };
          add(from->program);
          for (const auto& p : from->upstream) add(p);
        }
      }
    std::shared_ptr<const RunOrigin> origin =
        *callLocation || !upstream.empty()
            ? std::make_shared<const RunOrigin>(RunOrigin{loaded.program, callLocation, std::move(upstream)})
            : loaded.plainRun;

    std::vector<std::vector<rt::BufferRef>> results;
    if (program.acrossProcesses) {
      Expected<std::vector<std::vector<rt::BufferRef>>> r = executeAcrossProcesses(loaded, argsPerDevice);
      if (!r) return toError(withRunCallChain(r.takeStatus(), *origin));
      results = std::move(*r);
      // As the runtime does with a donated argument: it is unusable afterwards.
      for (int p : options.donatedArguments)
        for (auto& list : argsPerDevice) list[p]->deleteBuffer();
    } else if (devices.size() == 1) {
      options.device = devices[0]->device;
      Expected<std::vector<rt::BufferRef>> r = program.executable->execute(argsPerDevice[0], options);
      if (!r) return toError(withRunCallChain(r.takeStatus(), *origin));
      results.push_back(std::move(*r));
    } else {
      for (PJRT_Device* d : devices) options.devices.push_back(d->device);
      Expected<std::vector<std::vector<rt::BufferRef>>> r = program.executable->executeSharded(argsPerDevice, options);
      if (!r) return toError(withRunCallChain(r.takeStatus(), *origin));
      results = std::move(*r);
    }
    for (size_t d = 0; d < results.size(); ++d) {
      std::vector<rt::Event> done;
      for (size_t j = 0; j < results[d].size(); ++j) {
        done.push_back(results[d][j]->readyEvent());
        PJRT_Device* device = loaded.client->addressable[results[d][j]->device().id()];
        args->output_lists[d][j] =
            wrap(loaded.client, std::move(results[d][j]), device->memoryOfKind(program.outputMemoryKinds[j]));
        args->output_lists[d][j]->producer = origin;
      }
      if (args->device_complete_events) args->device_complete_events[d] = whenAll(done, origin);
    }
    return nullptr;
  });
}

// ---- Buffers ---------------------------------------------------------------------------

PJRT_Error* Buffer_Destroy(PJRT_Buffer_Args* args) {
  delete args->buffer;
  return nullptr;
}

PJRT_Error* Buffer_ElementType(PJRT_Buffer_ElementType_Args* args) {
  args->type = pjrtElementType(args->buffer->buffer->type());
  return nullptr;
}

PJRT_Error* Buffer_Dimensions(PJRT_Buffer_Dimensions_Args* args) {
  args->dims = args->buffer->dims.data();
  args->num_dims = args->buffer->dims.size();
  return nullptr;
}

PJRT_Error* Buffer_DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args* args) {
  args->dynamic_dim_indices = nullptr;
  args->num_dynamic_dims = 0;
  return nullptr;
}

PJRT_Error* Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args* args) {
  PJRT_Buffer_MemoryLayout& layout = args->layout;
  layout.struct_size = sizeof(PJRT_Buffer_MemoryLayout);
  layout.extension_start = nullptr;
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled = {};
  layout.tiled.struct_size = sizeof(PJRT_Buffer_MemoryLayout_Tiled);
  layout.tiled.minor_to_major = args->buffer->minorToMajor.data();
  layout.tiled.minor_to_major_size = args->buffer->minorToMajor.size();
  layout.tiled.num_tiles = 0;
  return nullptr;
}

PJRT_Error* Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args* args) {
  args->on_device_size_in_bytes = args->buffer->buffer->byteSize();
  return nullptr;
}

PJRT_Error* Buffer_Device(PJRT_Buffer_Device_Args* args) {
  args->device = args->buffer->device();
  return nullptr;
}

PJRT_Error* Buffer_Memory(PJRT_Buffer_Memory_Args* args) {
  args->memory = args->buffer->memory();
  return nullptr;
}

PJRT_Error* Buffer_Delete(PJRT_Buffer_Args* args) {
  args->buffer->buffer->deleteBuffer();
  return nullptr;
}

PJRT_Error* Buffer_IsDeleted(PJRT_Buffer_Bool_Args* args) {
  const rt::Buffer& b = *args->buffer->buffer;
  args->value = b.isDeleted() || b.isDonated();
  return nullptr;
}

PJRT_Error* Buffer_IsOnCpu(PJRT_Buffer_Bool_Args* args) {
  // The plugin's devices are the cpu back end's, whose memory is the
  // host's: jaxlib then reads a buffer as a NumPy view of it (np.asarray
  // without a copy), through an external reference (below), after awaiting
  // the buffer's ready event.
  args->value = true;
  return nullptr;
}

PJRT_Error* Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    const rt::Buffer& b = *args->buffer->buffer;
    if (b.isDeleted() || b.isDonated()) {
      args->event = readyEvent(kiln::error(ErrorCode::FailedPrecondition,
                                           b.isDeleted() ? "the buffer was deleted" : "the buffer was donated"));
      return nullptr;
    }
    args->event = whenAll({b.readyEvent()}, args->buffer->producer);
    return nullptr;
  });
}

// Copies `buffer`'s bytes [offset, offset + size) to `dst` once it is ready;
// the returned event fires when they are there.
// A failed run's error names the calls that led to its op (withRunCallChain).
PJRT_Event* copyToHostWhenReady(const PJRT_Buffer& src, void* dst, int64_t offset, int64_t size) {
  auto* event = new PJRT_Event;
  std::shared_ptr<EventState> state = event->state;
  const rt::BufferRef& buffer = src.buffer;
  buffer->readyEvent().onReady([buffer, producer = src.producer, dst, offset, size, state](Status ready) {
    if (!ready.isOk()) return state->set(producer ? withRunCallChain(std::move(ready), *producer) : std::move(ready));
    Expected<kiln::device::Literal> literal = buffer->toLiteral();
    if (!literal) return state->set(literal.takeStatus());
    std::memcpy(dst, reinterpret_cast<const char*>(literal->bytes()) + offset, size);
    state->set(Status::ok());
  });
  return event;
}

PJRT_Error* Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    const rt::BufferRef& buffer = args->src->buffer;
    int64_t bytes = buffer->byteSize();
    if (!args->dst) {
      args->dst_size = bytes;
      return nullptr;
    }
    Type type = buffer->type();
    int64_t elementBytes = type.isTensor() ? type.elementType().storageBytes() : 1;
    if (Status s = checkDenseLayout(args->host_layout, args->src->dims, elementBytes); !s.isOk()) return toError(s);
    if (static_cast<int64_t>(args->dst_size) < bytes)
      return invalid("the host buffer has " + std::to_string(args->dst_size) + " bytes, " + std::to_string(bytes) +
                     " needed");
    if (buffer->isDeleted() || buffer->isDonated())
      return makeError(PJRT_Error_Code_FAILED_PRECONDITION,
                       buffer->isDeleted() ? "the buffer was deleted" : "the buffer was donated to an execution");
    args->event = copyToHostWhenReady(*args->src, args->dst, 0, bytes);
    return nullptr;
  });
}

PJRT_Error* Buffer_CopyRawToHost(PJRT_Buffer_CopyRawToHost_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    const rt::BufferRef& buffer = args->buffer->buffer;
    if (args->offset < 0 || args->transfer_size < 0 || args->offset + args->transfer_size > buffer->byteSize())
      return invalid("the raw copy's range is outside the buffer's " + std::to_string(buffer->byteSize()) + " bytes");
    args->event = copyToHostWhenReady(*args->buffer, args->dst, args->offset, args->transfer_size);
    return nullptr;
  });
}

Expected<PJRT_Buffer*> copyTo(PJRT_Buffer& src, PJRT_Device& dst, PJRT_Memory* memory = nullptr) {
  if (Status ready = src.buffer->awaitReady(); !ready.isOk())
    return src.producer ? withRunCallChain(std::move(ready), *src.producer) : std::move(ready);
  KILN_ASSIGN_OR_RETURN(kiln::device::Literal literal, src.buffer->toLiteral());
  KILN_ASSIGN_OR_RETURN(rt::BufferRef copy, src.client->client->bufferFromLiteral(literal, dst.device));
  return wrap(src.client, std::move(copy), memory);
}

PJRT_Error* Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    if (Status s = checkAddressable(*args->dst_device); !s.isOk()) return toError(s);
    Expected<PJRT_Buffer*> copy = copyTo(*args->buffer, *args->dst_device);
    if (!copy) return toError(copy.status());
    args->dst_buffer = *copy;
    return nullptr;
  });
}

PJRT_Error* Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    Expected<PJRT_Buffer*> copy = copyTo(*args->buffer, *args->dst_memory->devices.front(), args->dst_memory);
    if (!copy) return toError(copy.status());
    args->dst_buffer = *copy;
    return nullptr;
  });
}

PJRT_Error* Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args* args) {
  Expected<kiln::device::Literal> literal = readyLiteral(*args->buffer);
  if (!literal) return toError(literal.status());
  args->buffer_pointer = reinterpret_cast<uintptr_t>(literal->bytes());
  return nullptr;
}

// The buffer's memory, once it is ready; while an external reference is
// held, the memory it holds (the buffer may since have been deleted).
PJRT_Error* Buffer_OpaqueDeviceMemoryDataPointer(PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args* args) {
  PJRT_Buffer& buffer = *args->buffer;
  {
    std::lock_guard<std::mutex> lock(buffer.externalMutex);
    if (!buffer.externalReferences.empty()) {
      args->device_memory_ptr = const_cast<uint8_t*>(buffer.externalReferences.back().bytes());
      return nullptr;
    }
  }
  Expected<kiln::device::Literal> literal = readyLiteral(buffer);
  if (!literal) return toError(literal.status());
  args->device_memory_ptr = const_cast<uint8_t*>(literal->bytes());
  return nullptr;
}

// An external reference holds the buffer's memory (waiting for it to be
// ready), kiln never moves it, so the pointer above stays valid until the
// reference is released.
PJRT_Error* Buffer_IncreaseExternalReferenceCount(PJRT_Buffer_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    kiln::trace::Scope slice("transfer", "device to host (a view, no copy)");
    Expected<kiln::device::Literal> literal = readyLiteral(*args->buffer);
    if (!literal) return toError(literal.status());
    std::lock_guard<std::mutex> lock(args->buffer->externalMutex);
    args->buffer->externalReferences.push_back(std::move(*literal));
    return nullptr;
  });
}

PJRT_Error* Buffer_DecreaseExternalReferenceCount(PJRT_Buffer_Args* args) {
  std::lock_guard<std::mutex> lock(args->buffer->externalMutex);
  if (args->buffer->externalReferences.empty())
    return makeError(PJRT_Error_Code_FAILED_PRECONDITION, "the buffer holds no external reference to release");
  args->buffer->externalReferences.pop_back();
  return nullptr;
}

// ---- Topology ----------------------------------------------------------------------------

// A topology without a client: device i in process processOf[i].
PJRT_TopologyDescription* compileOnlyTopology(std::string platformVersion, const std::vector<int>& processOf) {
  auto topology = std::make_unique<PJRT_TopologyDescription>();
  topology->platformVersion = std::move(platformVersion);
  for (size_t i = 0; i < processOf.size(); ++i) {
    auto d = std::make_unique<PJRT_DeviceDescription>();
    d->id = static_cast<int>(i);
    d->processIndex = processOf[i];
    d->kind = "cpu";
    d->debugString = "kiln:cpu:" + std::to_string(i);
    d->toString = "KilnDevice(id=" + std::to_string(i) + ")";
    topology->descriptions.push_back(d.get());
    topology->owned.push_back(std::move(d));
  }
  return topology.release();
}

// A topology without a client, to compile for (jax.experimental.topologies.
// get_topology_desc(platform="kiln", num_devices=N)): N cpu devices (option
// `num_devices`, else KILN_NUM_DEVICES, else 1), as a client would have.
PJRT_Error* TopologyDescription_Create(PJRT_TopologyDescription_Create_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    std::string_view name(args->topology_name, args->topology_name_size);
    if (!name.empty() && name != "kiln" && name != "cpu")
      return invalid("unknown topology '" + std::string(name) + "': kiln's topologies are its cpu devices (name \"\", "
                     "\"kiln\" or \"cpu\", with the option num_devices)");
    Expected<int> count = environmentCount("KILN_NUM_DEVICES", 1, 1, 1024);
    if (!count) return toError(count.status());
    int devices = *count;
    for (size_t i = 0; i < args->num_options; ++i) {
      const PJRT_NamedValue& option = args->create_options[i];
      std::string_view key(option.name, option.name_size);
      if (key != "num_devices" || option.type != PJRT_NamedValue_kInt64)
        return invalid("unknown topology option '" + std::string(key) + "' (kiln's topologies take num_devices, an integer)");
      if (option.int64_value < 1 || option.int64_value > 1024)
        return invalid("num_devices must be in [1, 1024], got " + std::to_string(option.int64_value));
      devices = static_cast<int>(option.int64_value);
    }
    Expected<const kiln::backend::Backend*> cpu = kiln::backend::findBackend("cpu");
    if (!cpu) return toError(cpu.status());
    std::string_view description = (*cpu)->description();
    std::vector<int> processes(devices, 0);
    args->topology = compileOnlyTopology(
        "kiln 0.1 (cpu" + std::string(description.empty() ? "" : ": ") + std::string(description) + ")", processes);
    return nullptr;
  });
}

PJRT_Error* TopologyDescription_Destroy(PJRT_TopologyDescription_Destroy_Args* args) {
  if (args->topology && !args->topology->client) delete args->topology;  // a client's belongs to the client
  return nullptr;
}

PJRT_Error* TopologyDescription_PlatformName(PJRT_TopologyDescription_String_Args* args) {
  setString(kPlatformName, args->value, args->value_size);
  return nullptr;
}

PJRT_Error* TopologyDescription_PlatformVersion(PJRT_TopologyDescription_String_Args* args) {
  setString(args->topology->client ? args->topology->client->client->platformVersion() : args->topology->platformVersion,
            args->value, args->value_size);
  return nullptr;
}

PJRT_Error* TopologyDescription_GetDeviceDescriptions(PJRT_TopologyDescription_GetDeviceDescriptions_Args* args) {
  args->descriptions = args->topology->descriptions.data();
  args->num_descriptions = args->topology->descriptions.size();
  return nullptr;
}

// A serialized topology is text: a header line, the platform version, then
// one line per device with its global id (0, 1, ... in order) and process:
//   kiln-topology 1
//   platform_version kiln 0.1 (cpu: ...)
//   devices 2
//   device 0 process 0
//   device 1 process 0
// Deserializing gives a topology without a client with those devices, to
// compile for as TopologyDescription_Create's.
constexpr std::string_view kTopologyHeader = "kiln-topology 1\n";
constexpr int kMaxTopologyDevices = 1 << 16;

PJRT_Error* TopologyDescription_Serialize(PJRT_TopologyDescription_Serialize_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    const PJRT_TopologyDescription& topology = *args->topology;
    std::string version =
        topology.client ? topology.client->client->platformVersion() : topology.platformVersion;
    if (version.find('\n') != std::string::npos) version.resize(version.find('\n'));
    auto* out = new PJRT_SerializedTopology;
    out->bytes = std::string(kTopologyHeader) + "platform_version " + version + "\ndevices " +
                 std::to_string(topology.descriptions.size()) + "\n";
    for (size_t i = 0; i < topology.descriptions.size(); ++i)
      out->bytes += "device " + std::to_string(i) + " process " +
                    std::to_string(topology.descriptions[i]->processIndex) + "\n";
    args->serialized_bytes = out->bytes.data();
    args->serialized_bytes_size = out->bytes.size();
    args->serialized_topology = out;
    args->serialized_topology_deleter = [](PJRT_SerializedTopology* t) { delete t; };
    return nullptr;
  });
}

// A non-negative decimal below `limit` at the start of `text`, consumed.
std::optional<int64_t> takeCount(std::string_view& text, int64_t limit) {
  size_t n = 0;
  int64_t value = 0;
  while (n < text.size() && n < 12 && text[n] >= '0' && text[n] <= '9') value = value * 10 + (text[n++] - '0');
  if (n == 0 || n >= 12 || value >= limit) return std::nullopt;
  text.remove_prefix(n);
  return value;
}

bool takePrefix(std::string_view& text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return false;
  text.remove_prefix(prefix.size());
  return true;
}

PJRT_Error* TopologyDescription_Deserialize(PJRT_TopologyDescription_Deserialize_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    std::string_view text(args->serialized_topology, args->serialized_topology ? args->serialized_topology_size : 0);
    size_t line = 1;
    auto bad = [&](std::string what) {
      return invalid("not a topology serialized by kiln's plugin (line " + std::to_string(line) + "): " + what);
    };
    if (!takePrefix(text, kTopologyHeader)) return bad("expected 'kiln-topology 1'");
    ++line;
    if (!takePrefix(text, "platform_version ")) return bad("expected 'platform_version <text>'");
    size_t end = text.find('\n');
    if (end == std::string_view::npos) return bad("the platform version line does not end");
    std::string version(text.substr(0, end));
    text.remove_prefix(end + 1);
    ++line;
    std::optional<int64_t> count;
    if (!takePrefix(text, "devices ") || !(count = takeCount(text, kMaxTopologyDevices + 1)) || *count < 1 ||
        !takePrefix(text, "\n"))
      return bad("expected 'devices N' with N in [1, " + std::to_string(kMaxTopologyDevices) + "]");
    std::vector<int> processOf;
    for (int64_t i = 0; i < *count; ++i) {
      ++line;
      std::optional<int64_t> id, process;
      if (!takePrefix(text, "device ") || !(id = takeCount(text, kMaxTopologyDevices)) ||
          !takePrefix(text, " process ") || !(process = takeCount(text, kMaxTopologyDevices)) ||
          !takePrefix(text, "\n"))
        return bad("expected 'device " + std::to_string(i) + " process P'");
      if (*id != i) return bad("device " + std::to_string(*id) + " where device " + std::to_string(i) + " belongs");
      processOf.push_back(static_cast<int>(*process));
    }
    ++line;
    if (!text.empty()) return bad("text after the last device");
    args->topology = compileOnlyTopology(std::move(version), processOf);
    return nullptr;
  });
}

PJRT_Error* TopologyDescription_Attributes(PJRT_TopologyDescription_Attributes_Args* args) {
  args->attributes = nullptr;
  args->num_attributes = 0;
  return nullptr;
}

// ---- Past 0.60 ------------------------------------------------------------------------

// jaxlib reports which processes are up (from its coordination service);
// kiln learns of a peer that went away from its Gloo connections instead.
PJRT_Error* Client_UpdateGlobalProcessInfo(PJRT_Client_UpdateGlobalProcessInfo_Args*) { return nullptr; }

// The executable's devices as an xla.DeviceAssignmentProto: replica_count
// (1), computation_count (2), and per computation (partition) the device
// ids of its replicas (3, each a message with packed field 1).
PJRT_Error* LoadedExecutable_GetDeviceAssignment(PJRT_LoadedExecutable_GetDeviceAssignment_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    const PJRT_LoadedExecutable& loaded = *args->executable;
    int replicas = loaded.program->options.numReplicas, partitions = loaded.program->options.numPartitions;
    if (static_cast<size_t>(replicas) * partitions != loaded.devices.size())
      return makeError(PJRT_Error_Code_INTERNAL, "the executable runs on " + std::to_string(loaded.devices.size()) +
                                                     " devices, not its " + std::to_string(replicas) + "x" +
                                                     std::to_string(partitions) + " instances");
    kiln::pjrt::ProtoWriter proto;
    proto.integer(1, replicas);
    proto.integer(2, partitions);
    for (int p = 0; p < partitions; ++p) {
      std::vector<int64_t> ids;
      for (int r = 0; r < replicas; ++r) ids.push_back(loaded.devices[r * partitions + p]->description.id);
      kiln::pjrt::ProtoWriter computation;
      computation.packed(1, ids);
      proto.message(3, computation);
    }
    auto* owned = new OwnedBytes{proto.data()};
    args->serialized_bytes = owned->bytes.data();
    args->serialized_bytes_size = owned->bytes.size();
    args->serialized_device_assignment = reinterpret_cast<PJRT_DeviceAssignmentSerialized*>(owned);
    args->serialized_device_assignment_deleter = [](PJRT_DeviceAssignmentSerialized* d) {
      delete reinterpret_cast<OwnedBytes*>(d);
    };
    return nullptr;
  });
}

// jaxlib brackets some work with tracking events for its own accounting;
// kiln keeps none (null is "no event", which jaxlib accepts).
PJRT_Error* Device_CreateAsyncTrackingEvent(PJRT_Device_CreateAsyncTrackingEvent_Args* args) {
  args->event = nullptr;
  return nullptr;
}

PJRT_Error* AsyncTrackingEvent_Destroy(PJRT_AsyncTrackingEvent_Destroy_Args*) { return nullptr; }

PJRT_Error* Executable_GetCompileOptions(PJRT_Executable_GetCompileOptions_Args* args) {
  return guarded([&]() -> PJRT_Error* {
    auto* owned = new OwnedBytes{args->executable->program->optionBytes};
    args->serialized_bytes = owned->bytes.data();
    args->serialized_bytes_size = owned->bytes.size();
    args->serialized_compile_options = reinterpret_cast<PJRT_SerializedCompileOptions*>(owned);
    args->serialized_compile_options_deleter = [](PJRT_SerializedCompileOptions* o) {
      delete reinterpret_cast<OwnedBytes*>(o);
    };
    return nullptr;
  });
}

PJRT_Error* Event_Create(PJRT_Event_Create_Args* args) {
  args->event = new PJRT_Event;
  return nullptr;
}

ErrorCode kilnCode(PJRT_Error_Code code) {
  switch (code) {
    case PJRT_Error_Code_INVALID_ARGUMENT: return ErrorCode::InvalidArgument;
    case PJRT_Error_Code_NOT_FOUND: return ErrorCode::NotFound;
    case PJRT_Error_Code_FAILED_PRECONDITION: return ErrorCode::FailedPrecondition;
    case PJRT_Error_Code_UNIMPLEMENTED: return ErrorCode::Unimplemented;
    case PJRT_Error_Code_RESOURCE_EXHAUSTED: return ErrorCode::ResourceExhausted;
    default: return ErrorCode::Internal;
  }
}

PJRT_Error* Event_Set(PJRT_Event_Set_Args* args) {
  EventState& state = *args->event->state;
  {
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.ready) return makeError(PJRT_Error_Code_FAILED_PRECONDITION, "the event was set already");
  }
  constexpr int kOk = 0;
  state.set(args->error_code == kOk
                ? Status::ok()
                : kiln::error(kilnCode(args->error_code), std::string(args->error_message, args->error_message_size)));
  return nullptr;
}

// The description's attributes, which live as long as the device.
PJRT_Error* Device_GetAttributes(PJRT_Device_GetAttributes_Args* args) {
  args->attributes = args->device->description.attributes.data();
  args->num_attributes = args->device->description.attributes.size();
  args->device_attributes = nullptr;
  args->attributes_deleter = [](PJRT_Device_Attributes*) {};
  return nullptr;
}

// ---- The shardings extension (0.91) -------------------------------------------------

// What kiln's partitioner chose for the parameters and results of a program
// over a mesh (kiln/pjrt/output_shardings.h); null for any other program,
// which jaxlib takes as "no shardings" (it then gives the results the
// single device's sharding).
void setShardings(const std::optional<CompiledProgram::ShardingProtos>& protos, PJRT_Shardings_Args* args) {
  args->num_shardings = protos ? protos->bytes.size() : 0;
  args->shardings = protos ? protos->data.data() : nullptr;
  args->sharding_sizes = protos ? protos->sizes.data() : nullptr;
}

PJRT_Error* Executable_ParameterShardings(PJRT_Shardings_Args* args) {
  setShardings(args->executable->program->parameterShardings, args);
  return nullptr;
}

PJRT_Error* Executable_OutputShardings(PJRT_Shardings_Args* args) {
  setShardings(args->executable->program->resultShardings, args);
  return nullptr;
}

PJRT_Shardings_Extension shardingsExtension{
    {sizeof(PJRT_Shardings_Extension), PJRT_Extension_Type_Shardings, nullptr},
    Executable_ParameterShardings,
    Executable_OutputShardings,
};

// ---- The layouts extension (0.81, 0.93) ---------------------------------------------
//
// Without it jaxlib would take a program's layouts from the HLO module it
// makes of the optimized program, whose conversion lays a transpose's
// result out column-major: compile().output_formats would then name a
// layout kiln's results do not have.

PJRT_Error* Layouts_MemoryLayout_Destroy(PJRT_Layouts_MemoryLayout_Destroy_Args* args) {
  if (args->layout && args->layout->callerOwned) delete args->layout;
  return nullptr;
}

PJRT_Error* Layouts_MemoryLayout_Serialize(PJRT_Layouts_MemoryLayout_Serialize_Args* args) {
  auto* owned = new OwnedBytes{args->layout->text};
  args->serialized_bytes = owned->bytes.data();
  args->serialized_bytes_size = owned->bytes.size();
  args->serialized_layout = reinterpret_cast<PJRT_Layouts_SerializedLayout*>(owned);
  args->serialized_layout_deleter = [](PJRT_Layouts_SerializedLayout* s) { delete reinterpret_cast<OwnedBytes*>(s); };
  return nullptr;
}

PJRT_Error* Layouts_Client_GetDefaultLayout(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args* args) {
  args->layout = new PJRT_Layouts_MemoryLayout{rowMajorLayoutText(args->num_dims), true};
  return nullptr;
}

PJRT_Error* Layouts_Buffer_MemoryLayout(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args* args) {
  args->layout = new PJRT_Layouts_MemoryLayout{rowMajorLayoutText(args->buffer->dims.size()), true};
  return nullptr;
}

PJRT_Error* Layouts_Executable_GetOutputLayouts(PJRT_Layouts_PJRT_Executable_Layouts_Args* args) {
  std::vector<PJRT_Layouts_MemoryLayout*>& list = args->executable->program->resultLayoutList;
  args->num_layouts = list.size();
  args->layouts = list.data();
  return nullptr;
}

PJRT_Error* Layouts_Executable_GetParameterLayouts(PJRT_Layouts_PJRT_Executable_Layouts_Args* args) {
  std::vector<PJRT_Layouts_MemoryLayout*>& list = args->executable->program->parameterLayoutList;
  args->num_layouts = list.size();
  args->layouts = list.data();
  return nullptr;
}

PJRT_Layouts_Extension layoutsExtension{
    {sizeof(PJRT_Layouts_Extension), PJRT_Extension_Type_Layouts, nullptr},
    Layouts_MemoryLayout_Destroy,
    Layouts_MemoryLayout_Serialize,
    Layouts_Client_GetDefaultLayout,
    Layouts_Buffer_MemoryLayout,
    nullptr,
    Layouts_Executable_GetOutputLayouts,
    Layouts_Executable_GetParameterLayouts,
};
static_assert(offsetof(PJRT_Layouts_Extension, PJRT_Layouts_PJRT_Executable_GetOutputLayouts) == 0x40);
static_assert(offsetof(PJRT_Layouts_Extension, PJRT_Layouts_PJRT_Executable_GetParameterLayouts) == 0x48);

// ---- The table -------------------------------------------------------------------------

// The table is followed by null slots, so a caller probing a function past
// 0.93 (after checking the version, as jaxlib does) finds null rather than
// whatever memory would follow.
struct PaddedApi {
  PJRT_Api api;
  void* nullSlots[256];
};
// Where the spec puts them (offsets in the 0.93 table jaxlib reads).
static_assert(offsetof(PJRT_Api, PJRT_Client_UpdateGlobalProcessInfo) == 0x3B0);
static_assert(sizeof(PJRT_Api) == offsetof(PJRT_Api, PJRT_Device_GetAttributes) + sizeof(void*));

// A slot kiln does not implement: UNIMPLEMENTED, naming the function.
#define KILN_UNIMPLEMENTED(name) \
  a.name = [](void*) -> PJRT_Error* { return unimplemented(#name); }

PaddedApi makeApi() {
  PaddedApi padded{};
  PJRT_Api& a = padded.api;
  a.struct_size = sizeof(PJRT_Api);
  layoutsExtension.base.next = kiln::pjrt::profilerExtension();
  shardingsExtension.base.next = &layoutsExtension.base;
  a.extension_start = &shardingsExtension.base;
  a.pjrt_api_version.struct_size = sizeof(PJRT_Api_Version);
  a.pjrt_api_version.major_version = kPjrtApiMajor;
  a.pjrt_api_version.minor_version = kPjrtApiMinor;
  a.PJRT_Error_Destroy = Error_Destroy;
  a.PJRT_Error_Message = Error_Message;
  a.PJRT_Error_GetCode = Error_GetCode;
  a.PJRT_Plugin_Initialize = Plugin_Initialize;
  a.PJRT_Plugin_Attributes = Plugin_Attributes;
  a.PJRT_Event_Destroy = Event_Destroy;
  a.PJRT_Event_IsReady = Event_IsReady;
  a.PJRT_Event_Error = Event_Error;
  a.PJRT_Event_Await = Event_Await;
  a.PJRT_Event_OnReady = Event_OnReady;
  a.PJRT_Client_Create = Client_Create;
  a.PJRT_Client_Destroy = Client_Destroy;
  a.PJRT_Client_PlatformName = Client_PlatformName;
  a.PJRT_Client_ProcessIndex = Client_ProcessIndex;
  a.PJRT_Client_PlatformVersion = Client_PlatformVersion;
  a.PJRT_Client_Devices = Client_Devices;
  a.PJRT_Client_AddressableDevices = Client_AddressableDevices;
  a.PJRT_Client_LookupDevice = Client_LookupDevice;
  a.PJRT_Client_LookupAddressableDevice = Client_LookupAddressableDevice;
  a.PJRT_Client_AddressableMemories = Client_AddressableMemories;
  a.PJRT_Client_Compile = Client_Compile;
  a.PJRT_Client_DefaultDeviceAssignment = Client_DefaultDeviceAssignment;
  a.PJRT_Client_BufferFromHostBuffer = Client_BufferFromHostBuffer;
  a.PJRT_DeviceDescription_Id = DeviceDescription_Id;
  a.PJRT_DeviceDescription_ProcessIndex = DeviceDescription_ProcessIndex;
  a.PJRT_DeviceDescription_Attributes = DeviceDescription_Attributes;
  a.PJRT_DeviceDescription_Kind = DeviceDescription_Kind;
  a.PJRT_DeviceDescription_DebugString = DeviceDescription_DebugString;
  a.PJRT_DeviceDescription_ToString = DeviceDescription_ToString;
  a.PJRT_Device_GetDescription = Device_GetDescription;
  a.PJRT_Device_IsAddressable = Device_IsAddressable;
  a.PJRT_Device_LocalHardwareId = Device_LocalHardwareId;
  a.PJRT_Device_AddressableMemories = Device_AddressableMemories;
  a.PJRT_Device_DefaultMemory = Device_DefaultMemory;
  a.PJRT_Device_MemoryStats = Device_MemoryStats;
  a.PJRT_Memory_Id = Memory_Id;
  a.PJRT_Memory_Kind = Memory_Kind;
  a.PJRT_Memory_DebugString = Memory_DebugString;
  a.PJRT_Memory_ToString = Memory_ToString;
  a.PJRT_Memory_AddressableByDevices = Memory_AddressableByDevices;
  a.PJRT_Executable_Destroy = Executable_Destroy;
  a.PJRT_Executable_Name = Executable_Name;
  a.PJRT_Executable_NumReplicas = Executable_NumReplicas;
  a.PJRT_Executable_NumPartitions = Executable_NumPartitions;
  a.PJRT_Executable_NumOutputs = Executable_NumOutputs;
  a.PJRT_Executable_SizeOfGeneratedCodeInBytes = Executable_SizeOfGeneratedCodeInBytes;
  a.PJRT_Executable_GetCostAnalysis = Executable_GetCostAnalysis;
  a.PJRT_Executable_OutputMemoryKinds = Executable_OutputMemoryKinds;
  a.PJRT_Executable_OptimizedProgram = Executable_OptimizedProgram;
  a.PJRT_Executable_Serialize = Executable_Serialize;
  a.PJRT_LoadedExecutable_Destroy = LoadedExecutable_Destroy;
  a.PJRT_LoadedExecutable_GetExecutable = LoadedExecutable_GetExecutable;
  a.PJRT_LoadedExecutable_AddressableDevices = LoadedExecutable_AddressableDevices;
  a.PJRT_LoadedExecutable_Delete = LoadedExecutable_Delete;
  a.PJRT_LoadedExecutable_IsDeleted = LoadedExecutable_IsDeleted;
  a.PJRT_LoadedExecutable_Execute = LoadedExecutable_Execute;
  a.PJRT_Executable_DeserializeAndLoad = Executable_DeserializeAndLoad;
  a.PJRT_LoadedExecutable_Fingerprint = LoadedExecutable_Fingerprint;
  a.PJRT_Buffer_Destroy = Buffer_Destroy;
  a.PJRT_Buffer_ElementType = Buffer_ElementType;
  a.PJRT_Buffer_Dimensions = Buffer_Dimensions;
  a.PJRT_Buffer_UnpaddedDimensions = Buffer_Dimensions;
  a.PJRT_Buffer_DynamicDimensionIndices = Buffer_DynamicDimensionIndices;
  a.PJRT_Buffer_GetMemoryLayout = Buffer_GetMemoryLayout;
  a.PJRT_Buffer_OnDeviceSizeInBytes = Buffer_OnDeviceSizeInBytes;
  a.PJRT_Buffer_Device = Buffer_Device;
  a.PJRT_Buffer_Memory = Buffer_Memory;
  a.PJRT_Buffer_Delete = Buffer_Delete;
  a.PJRT_Buffer_IsDeleted = Buffer_IsDeleted;
  a.PJRT_Buffer_CopyToDevice = Buffer_CopyToDevice;
  a.PJRT_Buffer_ToHostBuffer = Buffer_ToHostBuffer;
  a.PJRT_Buffer_IsOnCpu = Buffer_IsOnCpu;
  a.PJRT_Buffer_ReadyEvent = Buffer_ReadyEvent;
  a.PJRT_Buffer_UnsafePointer = Buffer_UnsafePointer;
  a.PJRT_Buffer_IncreaseExternalReferenceCount = Buffer_IncreaseExternalReferenceCount;
  a.PJRT_Buffer_DecreaseExternalReferenceCount = Buffer_DecreaseExternalReferenceCount;
  a.PJRT_Buffer_OpaqueDeviceMemoryDataPointer = Buffer_OpaqueDeviceMemoryDataPointer;
  a.PJRT_TopologyDescription_Create = TopologyDescription_Create;
  a.PJRT_TopologyDescription_Destroy = TopologyDescription_Destroy;
  a.PJRT_TopologyDescription_PlatformName = TopologyDescription_PlatformName;
  a.PJRT_TopologyDescription_PlatformVersion = TopologyDescription_PlatformVersion;
  a.PJRT_TopologyDescription_GetDeviceDescriptions = TopologyDescription_GetDeviceDescriptions;
  a.PJRT_TopologyDescription_Serialize = TopologyDescription_Serialize;
  a.PJRT_TopologyDescription_Attributes = TopologyDescription_Attributes;
  a.PJRT_Compile = Compile;
  a.PJRT_Executable_OutputElementTypes = Executable_OutputElementTypes;
  a.PJRT_Executable_OutputDimensions = Executable_OutputDimensions;
  a.PJRT_Buffer_CopyToMemory = Buffer_CopyToMemory;
  a.PJRT_Executable_Fingerprint = Executable_Fingerprint;
  a.PJRT_Client_TopologyDescription = Client_TopologyDescription;
  a.PJRT_Executable_GetCompiledMemoryStats = Executable_GetCompiledMemoryStats;
  a.PJRT_Memory_Kind_Id = Memory_Kind_Id;
  a.PJRT_ExecuteContext_Create = ExecuteContext_Create;
  a.PJRT_ExecuteContext_Destroy = ExecuteContext_Destroy;
  a.PJRT_Buffer_CopyRawToHost = Buffer_CopyRawToHost;
  KILN_UNIMPLEMENTED(PJRT_CopyToDeviceStream_Destroy);
  KILN_UNIMPLEMENTED(PJRT_CopyToDeviceStream_AddChunk);
  KILN_UNIMPLEMENTED(PJRT_CopyToDeviceStream_TotalBytes);
  KILN_UNIMPLEMENTED(PJRT_CopyToDeviceStream_GranuleSize);
  KILN_UNIMPLEMENTED(PJRT_CopyToDeviceStream_CurrentBytes);
  KILN_UNIMPLEMENTED(PJRT_Client_CreateViewOfDeviceBuffer);
  a.PJRT_AsyncHostToDeviceTransferManager_Destroy = TransferManager_Destroy;
  a.PJRT_AsyncHostToDeviceTransferManager_TransferData = TransferManager_TransferData;
  a.PJRT_Client_CreateBuffersForAsyncHostToDevice = Client_CreateBuffersForAsyncHostToDevice;
  a.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer = TransferManager_RetrieveBuffer;
  a.PJRT_AsyncHostToDeviceTransferManager_Device = TransferManager_Device;
  a.PJRT_AsyncHostToDeviceTransferManager_BufferCount = TransferManager_BufferCount;
  a.PJRT_AsyncHostToDeviceTransferManager_BufferSize = TransferManager_BufferSize;
  a.PJRT_AsyncHostToDeviceTransferManager_SetBufferError = TransferManager_SetBufferError;
  a.PJRT_AsyncHostToDeviceTransferManager_AddMetadata = TransferManager_AddMetadata;
  KILN_UNIMPLEMENTED(PJRT_Client_DmaMap);
  KILN_UNIMPLEMENTED(PJRT_Client_DmaUnmap);
  KILN_UNIMPLEMENTED(PJRT_Client_CreateUninitializedBuffer);
  a.PJRT_Client_UpdateGlobalProcessInfo = Client_UpdateGlobalProcessInfo;
  a.PJRT_TopologyDescription_Deserialize = TopologyDescription_Deserialize;
  KILN_UNIMPLEMENTED(PJRT_Client_CreateAliasBuffer);
  KILN_UNIMPLEMENTED(PJRT_Client_FulfillAliasBuffer);
  a.PJRT_LoadedExecutable_GetDeviceAssignment = LoadedExecutable_GetDeviceAssignment;
  KILN_UNIMPLEMENTED(PJRT_Client_CreateErrorBuffer);
  a.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral = TransferManager_TransferLiteral;
  KILN_UNIMPLEMENTED(PJRT_Buffer_CopyRawToHostFuture);
  KILN_UNIMPLEMENTED(PJRT_Device_PoisonExecution);
  a.PJRT_Device_CreateAsyncTrackingEvent = Device_CreateAsyncTrackingEvent;
  a.PJRT_AsyncTrackingEvent_Destroy = AsyncTrackingEvent_Destroy;
  a.PJRT_Executable_GetCompileOptions = Executable_GetCompileOptions;
  KILN_UNIMPLEMENTED(PJRT_Buffer_DonateWithControlDependency);
  a.PJRT_Event_Create = Event_Create;
  a.PJRT_Event_Set = Event_Set;
  a.PJRT_Device_GetAttributes = Device_GetAttributes;
  return padded;
}

#undef KILN_UNIMPLEMENTED

}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  static const PaddedApi api = makeApi();
  return &api.api;
}

// kiln.profile's hooks (python/kiln/profile.py): the plugin is a copy of
// kiln with a tracer of its own, so a profile around plugin calls starts and
// collects it too. Start returns false when a trace already records (one
// session at a time, as kiln.profile's own); write returns an error message,
// empty on success (valid until the next call).
extern "C" __attribute__((visibility("default"))) bool KilnPjrt_TraceStart() {
  if (kiln::trace::enabled()) return false;
  kiln::trace::start();
  return true;
}

extern "C" __attribute__((visibility("default"))) const char* KilnPjrt_TraceStopAndWrite(const char* path) {
  static std::string message;
  kiln::trace::stop();
  Status s = kiln::trace::writeJson(path);
  message = s.isOk() ? "" : s.message();
  return message.c_str();
}
