// Executables: argument checks, donation, and asynchronous execution.
//
// An execution starts when every argument is ready (each argument's event
// counts down a shared counter), runs on one of the client's worker threads,
// and makes its result buffers ready when it finishes. The results are
// returned before that, so callers can chain executions without waiting.
//
// Small programs (Program::runsInline) whose arguments are all ready run on
// the calling thread instead: handing a few microseconds of work to a worker
// and waiting for it would cost more than the work. Their results are ready
// when execute returns. So do programs of any size compiled for one thread
// when the caller waits (ExecuteOptions::callerWaits), or may wait and the
// device has no execution pending (callerWaitsWhenIdle, kiln.jit's calls):
// Client::Impl::pending counts, per device, the launches handed to the
// workers until release().
#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "kiln/passes/refine_shapes.h"
#include "kiln/runtime/runtime_impl.h"
#include "kiln/support/trace.h"

namespace kiln::runtime {

Executable::Executable(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Executable::~Executable() = default;

const std::string& Executable::name() const { return impl_->program->name; }
std::span<const Type> Executable::parameterTypes() const { return impl_->program->parameterTypes; }
std::span<const Type> Executable::resultTypes() const { return impl_->program->resultTypes; }
CostAnalysis Executable::costAnalysis() const { return impl_->program->cost; }
const std::string& Executable::optimizedModuleText() const { return impl_->program->optimizedText; }
std::string Executable::optimizedModuleTextWithLocations() const {
  return impl_->program->compiled->optimizedModuleTextWithLocations();
}
CompileStats Executable::compileStats() const { return impl_->program->stats; }

namespace {

// One execution of a program on one device.
struct Launch {
  std::shared_ptr<const Program> program;
  Device* device = nullptr;
  const device::Allocator* allocator = nullptr;  // the memory of the device
  std::vector<BufferRef> args;
  std::vector<bool> donated;
  // The data of the arguments that were ready when the execution was
  // launched: deleting such an argument afterwards does not affect it.
  std::vector<device::DeviceBuffer> captured;
  std::vector<BufferRef> results;
  // The device's count of pending executions, while this one is counted in
  // it (handed to the workers and not done).
  std::atomic<int>* pending = nullptr;
};

Status invalid(std::string message) { return error(ErrorCode::InvalidArgument, std::move(message)); }

// Checks count, types, placement and liveness of `args` for `program`, and
// the donation list. Returns the device they are on (`required` if given).
Expected<Device*> checkArguments(const Program& program, std::span<const BufferRef> args,
                                 const ExecuteOptions& options, Device* required, Device* fallback) {
  const std::vector<Type>& params = program.parameterTypes;
  if (args.size() != params.size())
    return invalid("@" + program.entry + " takes " + std::to_string(params.size()) + " argument(s), " +
                   std::to_string(args.size()) + " given");
  Device* device = required;
  for (size_t i = 0; i < args.size(); ++i) {
    auto which = [i] { return "argument " + std::to_string(i); };  // for errors only: this runs every call
    if (!args[i]) return invalid(which() + " is null");
    if (args[i]->type() != params[i])
      return invalid(which() + ": expected " + params[i].str() + ", given " + args[i]->type().str());
    Device* on = &args[i]->device();
    if (!device) device = on;
    if (on != device)
      return invalid(which() + " is on " + on->debugString() + ", expected " + device->debugString() +
                     " (all arguments of one execution must be on one device)");
    std::lock_guard<std::mutex> lock(args[i]->state()->mu);
    if (args[i]->state()->deleted || args[i]->state()->donated)
      return checkUsable(*args[i]->state(), which());
  }
  std::set<int> donated;
  for (int d : options.donatedArguments) {
    if (d < 0 || d >= static_cast<int>(args.size()))
      return invalid("donated argument index " + std::to_string(d) + " is out of range (" +
                     std::to_string(args.size()) + " arguments)");
    if (!donated.insert(d).second) return invalid("argument " + std::to_string(d) + " is donated twice");
  }
  for (int d : donated)
    for (size_t j = 0; j < args.size(); ++j)
      if (static_cast<int>(j) != d && args[j] == args[d])
        return invalid("argument " + std::to_string(d) + " is donated and also passed as argument " +
                       std::to_string(j));
  return device ? device : fallback;
}

// Marks the donated arguments; from now on they are unusable to everyone
// else, while this execution still reads their data.
Status markDonated(std::span<const BufferRef> args, const ExecuteOptions& options) {
  for (int d : options.donatedArguments) {
    std::lock_guard<std::mutex> lock(args[d]->state()->mu);
    KILN_RETURN_IF_ERROR(checkUsable(*args[d]->state(), "argument " + std::to_string(d)));
    args[d]->state()->donated = true;
  }
  return Status::ok();
}

// Lets go of everything `launch` holds, then makes its results ready with
// `status`. In that order: a caller who drops a result as soon as it is ready
// must free its memory there and then, so that the next execution's result
// takes the same block back (warm in cache) instead of a second one (a
// worker still holding the buffer made an embedding gather's results
// alternate between two blocks, 1.6x slower).
void release(Launch& launch, const Status& status) {
  launch.args.clear();
  launch.captured.clear();
  std::vector<Event> ready;
  for (const BufferRef& r : launch.results) ready.push_back(r->readyEvent());
  launch.results.clear();
  // Not pending any more before anyone can see the results: a caller who
  // waited for them finds the device idle at its next call.
  if (launch.pending) std::exchange(launch.pending, nullptr)->fetch_sub(1, std::memory_order_acq_rel);
  for (const Event& e : ready) e.state()->set(status.isOk() ? Status::ok() : Status(status.diag()));
}

// The data of argument `i` as a buffer the program can read: shared with
// the argument, or handed over if it is donated.
Expected<device::DeviceBuffer> argumentBuffer(Launch& launch, size_t i) {
  Buffer& arg = *launch.args[i];
  auto which = [i] { return "argument " + std::to_string(i); };  // for errors only: this runs every call
  Status producer = arg.readyEvent().await();  // ready already; its producer may have failed
  if (!producer.isOk()) {
    producer.diag().message = which() + ": " + producer.diag().message;
    return producer;
  }
  // A donated argument's memory goes to the program, which may compute a
  // result into it; the launch keeps sharing any other argument's until the
  // run is over, so the program only ever borrows it.
  device::DeviceBuffer value = launch.donated[i] ? std::move(launch.captured[i]) : launch.captured[i];
  if (!value) {
    std::lock_guard<std::mutex> lock(arg.state()->mu);
    value = arg.state()->value;
    if (launch.donated[i]) arg.state()->value = {};
    else launch.captured[i] = value;
  }
  if (!value)
    return error(ErrorCode::FailedPrecondition, which() + " was deleted before the execution could read it");
  // kiln's kernels read elements at their natural alignment (an element's
  // size, up to 8 bytes); zero-copy host memory is usually more aligned
  // (numpy's: 16 bytes), but a view into a byte buffer may not be.
  Type type = arg.type();
  if (!type.isTensor() || value.space() != device::MemorySpace::kHost) return value;
  size_t alignment = std::min<size_t>(std::max<int64_t>(type.elementType().storageBytes(), 1), 8);
  if (reinterpret_cast<uintptr_t>(value.data()) % alignment != 0) {
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<device::Memory> aligned, launch.allocator->allocate(type));
    std::memcpy(aligned->data(), value.data(), value.byteSize());
    value = device::DeviceBuffer(type, std::move(aligned), value.device());
  }
  return value;
}

// The buffers of the arguments of `launch`. On failure lets go of the
// arguments (nothing will run).
Expected<std::vector<device::DeviceBuffer>> readArguments(Launch& launch) {
  std::vector<device::DeviceBuffer> buffers;
  buffers.reserve(launch.args.size());
  for (size_t i = 0; i < launch.args.size(); ++i) {
    Expected<device::DeviceBuffer> b = argumentBuffer(launch, i);
    if (!b) {
      launch.args.clear();
      launch.captured.clear();
      return b.takeStatus();
    }
    buffers.push_back(std::move(*b));
  }
  return buffers;
}

// Whether `results` match the signature of `program`.
Status checkResults(const Program& program, const std::vector<device::DeviceBuffer>& results) {
  const std::vector<Type>& types = program.resultTypes;
  if (results.size() != types.size())
    return error(ErrorCode::Internal, "the program returned " + std::to_string(results.size()) +
                                          " results, its signature says " + std::to_string(types.size()));
  for (size_t j = 0; j < types.size(); ++j)
    if (!results[j] || results[j].type() != types[j])
      return error(ErrorCode::Internal, "result " + std::to_string(j) + " has type " +
                                            (results[j] ? results[j].type().str() : "(none)") + ", expected " +
                                            types[j].str());
  return Status::ok();
}

// Reads the arguments, runs the program and checks what it returned. Lets go
// of the arguments before returning, so that a caller who waited for the
// results knows the execution holds nothing any more.
Expected<std::vector<device::DeviceBuffer>> compute(Launch& launch) {
  trace::Scope slice("run", [&] { return "execute " + launch.program->name + " on " + launch.device->debugString(); });
  KILN_ASSIGN_OR_RETURN(std::vector<device::DeviceBuffer> buffers, readArguments(launch));
  Expected<std::vector<device::DeviceBuffer>> results = launch.program->run(std::move(buffers));
  launch.args.clear();
  launch.captured.clear();
  if (!results) return results;
  KILN_RETURN_IF_ERROR(checkResults(*launch.program, *results));
  return results;
}

// Makes the results of `launch` ready: with `results`, or failed.
void deliver(Launch& launch, Expected<std::vector<device::DeviceBuffer>> results) {
  if (!results) return release(launch, results.status());
  for (size_t j = 0; j < results->size(); ++j) {
    device::DeviceBuffer value = placeOn(std::move((*results)[j]), *launch.device);
    Buffer::State& state = *launch.results[j]->state();
    std::lock_guard<std::mutex> lock(state.mu);
    if (!state.deleted) state.value = std::move(value);
  }
  release(launch, Status::ok());
}

// Runs `launch` on this thread (a worker) and makes its results ready.
void run(Launch& launch) { deliver(launch, compute(launch)); }

using Launches = std::vector<std::shared_ptr<Launch>>;

// Runs an SPMD execution on this thread (a worker): launch i is instance i
// of the program, and all instances run at once, each on a thread of its own
// (their collectives wait for each other, so they cannot queue behind one
// another on the workers).
void runInstances(const Launches& launches) {
  trace::Scope slice("run", [&] {
    return "execute " + launches.front()->program->name + " on " + std::to_string(launches.size()) + " devices";
  });
  std::vector<std::vector<device::DeviceBuffer>> argsPerInstance;
  for (size_t i = 0; i < launches.size(); ++i) {
    Expected<std::vector<device::DeviceBuffer>> args = readArguments(*launches[i]);
    if (!args) {
      Status failure = args.takeStatus();
      failure.diag().message = launches[i]->device->debugString() + ": " + failure.diag().message;
      for (const auto& launch : launches) release(*launch, failure);
      return;
    }
    argsPerInstance.push_back(std::move(*args));
  }
  Expected<std::vector<std::vector<device::DeviceBuffer>>> results =
      launches.front()->program->runInstances(std::move(argsPerInstance));
  for (size_t i = 0; i < launches.size(); ++i) {
    Launch& launch = *launches[i];
    if (!results) {
      release(launch, results.status());
      continue;
    }
    launch.args.clear();
    launch.captured.clear();
    Status valid = checkResults(*launch.program, (*results)[i]);
    if (valid.isOk()) deliver(launch, std::move((*results)[i]));
    else deliver(launch, std::move(valid));
  }
}

// Runs `launch` on the calling thread; its results are ready on return (and
// carry the error if it failed, as asynchronous results would).
std::vector<BufferRef> runInline(Launch& launch) {
  Expected<std::vector<device::DeviceBuffer>> results = compute(launch);
  const std::vector<Type>& types = launch.program->resultTypes;
  std::vector<BufferRef> buffers;
  buffers.reserve(types.size());
  if (!results) {
    for (Type type : types) {
      auto failed = std::make_shared<Event::State>();
      failed->ready = true;
      failed->status = Status(results.status().diag());
      buffers.push_back(std::make_shared<Buffer>(type, launch.device, std::make_shared<Buffer::State>(),
                                                 Event(std::move(failed))));
    }
    return buffers;
  }
  for (size_t j = 0; j < types.size(); ++j) {
    auto state = std::make_shared<Buffer::State>();
    state->value = placeOn(std::move((*results)[j]), *launch.device);
    buffers.push_back(std::make_shared<Buffer>(types[j], launch.device, std::move(state), Event()));
  }
  return buffers;
}

bool allReady(std::span<const BufferRef> args) {
  for (const BufferRef& arg : args)
    if (!arg->readyEvent().isReady()) return false;
  return true;
}

// Creates the result buffers of `launches` and, once every argument of every
// launch is ready, runs `body` on a worker.
std::vector<std::vector<BufferRef>> startWhenReady(Launches launches, WorkerPool& pool,
                                                   std::function<void(const Launches&)> body) {
  int numArgs = 0;
  std::vector<std::vector<BufferRef>> results;
  for (const auto& launch : launches) {
    if (launch->pending) launch->pending->fetch_add(1, std::memory_order_acq_rel);
    for (Type type : launch->program->resultTypes)
      launch->results.push_back(std::make_shared<Buffer>(type, launch->device, std::make_shared<Buffer::State>(),
                                                         Event(std::make_shared<Event::State>())));
    results.push_back(launch->results);
    numArgs += static_cast<int>(launch->args.size());
  }
  auto shared = std::make_shared<Launches>(std::move(launches));
  auto pending = std::make_shared<std::atomic<int>>(numArgs + 1);
  auto countDown = [shared, pending, body = std::move(body), &pool] {
    if (pending->fetch_sub(1) == 1) pool.submit([shared, body] { body(*shared); });
  };
  for (const auto& launch : *shared)
    for (const BufferRef& arg : launch->args) {
      Event ready = arg->readyEvent();
      if (ready.state())
        ready.state()->onReady(countDown);
      else
        countDown();
    }
  countDown();
  return results;
}

// Starts `launch` once its arguments are ready.
std::vector<BufferRef> start(std::shared_ptr<Launch> launch, WorkerPool& pool) {
  return startWhenReady({std::move(launch)}, pool, [](const Launches& one) { run(*one.front()); }).front();
}

// Fills `launch` (fresh) with an execution of `program` on `args`.
void fillLaunch(Launch& launch, const Client::Impl& client, std::shared_ptr<const Program> program, Device* device,
                std::span<const BufferRef> args, const ExecuteOptions& options) {
  launch.program = std::move(program);
  launch.device = device;
  launch.allocator = &client.backend->allocator();
  launch.args.assign(args.begin(), args.end());
  launch.donated.assign(args.size(), false);
  for (int d : options.donatedArguments) launch.donated[d] = true;
  launch.captured.resize(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    std::lock_guard<std::mutex> lock(args[i]->state()->mu);
    launch.captured[i] = args[i]->state()->value;
    if (launch.donated[i]) args[i]->state()->value = {};
  }
}

std::shared_ptr<Launch> makeLaunch(const Client::Impl& client, std::shared_ptr<const Program> program,
                                   Device* device, std::span<const BufferRef> args, const ExecuteOptions& options) {
  auto launch = std::make_shared<Launch>();
  fillLaunch(*launch, client, std::move(program), device, args, options);
  launch->pending = client.pending[device->id()].get();  // counted while with the workers
  return launch;
}

}  // namespace

Expected<std::shared_ptr<const Program>> programFor(const Executable::Impl& impl, std::span<const BufferRef> args) {
  if (!impl.polymorphic) return impl.program;
  Specializations& poly = *impl.polymorphic;
  std::vector<Type> types;
  std::vector<const void*> key;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]) return invalid("argument " + std::to_string(i) + " is null");
    types.push_back(args[i]->type());
    key.push_back(types.back().impl());
  }
  std::lock_guard<std::mutex> lock(poly.mu);
  auto it = poly.byArgumentTypes.find(key);
  if (it != poly.byArgumentTypes.end()) return it->second;
  Module refined(poly.module->op().clone());
  KILN_RETURN_IF_ERROR(refineShapes(refined, poly.options.entry, std::span<const Type>(types)));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Program> program, compileStaticProgram(*impl.client, refined, poly.options));
  poly.byArgumentTypes.emplace(std::move(key), program);
  return std::shared_ptr<const Program>(std::move(program));
}

Expected<std::vector<BufferRef>> Executable::execute(std::span<const BufferRef> args, const ExecuteOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const Program> chosen, programFor(*impl_, args));
  const Program& program = *chosen;
  KILN_ASSIGN_OR_RETURN(Device* device,
                        checkArguments(program, args, options, options.device, impl_->client->devicePointers[0]));
  KILN_RETURN_IF_ERROR(markDonated(args, options));
  std::atomic<int>& pending = *impl_->client->pending[device->id()];
  bool onCaller = program.runsInline ||
                  (program.mayRunOnCaller && (options.callerWaits || (options.callerWaitsWhenIdle &&
                                                                      pending.load(std::memory_order_acquire) == 0)));
  if (onCaller && options.mayRunInline && allReady(args)) {
    Launch launch;  // on the stack: nothing outlives this call
    fillLaunch(launch, *impl_->client, std::move(chosen), device, args, options);
    return runInline(launch);
  }
  return start(makeLaunch(*impl_->client, std::move(chosen), device, args, options), *impl_->client->pool);
}

Expected<std::vector<std::vector<BufferRef>>> Executable::executeSharded(
    std::span<const std::vector<BufferRef>> argsPerDevice, const ExecuteOptions& options) {
  const std::vector<Device*>& devices = options.devices.empty() ? impl_->client->devicePointers : options.devices;
  if (impl_->polymorphic)
    return error(ErrorCode::Unimplemented, "executeSharded of a program with dynamic parameter shapes");
  // A module declaring several replicas or partitions is one SPMD execution:
  // device i runs instance i (replica i / partitions, partition i % partitions).
  int instances = impl_->program->instances.count();
  bool spmd = instances > 1;
  if (spmd && argsPerDevice.size() != static_cast<size_t>(instances))
    return invalid("the module declares " + std::to_string(impl_->program->instances.numReplicas) +
                   " replica(s) x " + std::to_string(impl_->program->instances.numPartitions) +
                   " partition(s): executeSharded takes " + std::to_string(instances) + " argument lists, " +
                   std::to_string(argsPerDevice.size()) + " given" +
                   (static_cast<size_t>(instances) > devices.size()
                        ? " (the client has " + std::to_string(devices.size()) + " devices)"
                        : std::string()));
  if (argsPerDevice.empty() || argsPerDevice.size() > devices.size() ||
      (!options.devices.empty() && argsPerDevice.size() != devices.size()))
    return invalid("executeSharded takes one argument list per device (1 to " + std::to_string(devices.size()) +
                   "), " + std::to_string(argsPerDevice.size()) + " given");
  // Check every list before donating anything, so a bad call changes nothing.
  for (size_t d = 0; d < argsPerDevice.size(); ++d) {
    Expected<Device*> checked = checkArguments(*impl_->program, argsPerDevice[d], options, devices[d], devices[d]);
    if (!checked) {
      Status s = checked.takeStatus();
      s.diag().message = devices[d]->debugString() + ": " + s.diag().message;
      return s;
    }
  }
  for (const std::vector<BufferRef>& args : argsPerDevice) KILN_RETURN_IF_ERROR(markDonated(args, options));
  Launches launches;
  for (size_t d = 0; d < argsPerDevice.size(); ++d)
    launches.push_back(makeLaunch(*impl_->client, impl_->program, devices[d], argsPerDevice[d], options));
  if (spmd) return startWhenReady(std::move(launches), *impl_->client->pool, runInstances);
  std::vector<std::vector<BufferRef>> results;
  for (std::shared_ptr<Launch>& launch : launches) results.push_back(start(std::move(launch), *impl_->client->pool));
  return results;
}

}  // namespace kiln::runtime
