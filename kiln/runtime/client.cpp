// The client: devices, compilation, and buffers from host memory.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/bytecode_reader.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/refine_shapes.h"
#include "kiln/runtime/runtime_impl.h"
#include "kiln/support/flags.h"
#include "kiln/support/thread_pool.h"
#include "kiln/support/trace.h"

namespace kiln::runtime {

namespace {

// --cpu_devices=N in $KILN_FLAGS, if given; KILN_FLAGS is checked against
// the flag registry (kiln/support/flags.h), so a typo in it is an error.
Expected<std::optional<int>> cpuDevicesFlag() {
  KILN_ASSIGN_OR_RETURN(ParsedFlags flags, parseFlags(kRuntime, {}, environmentFlags()));
  if (const FlagValue* n = flags.last("--cpu_devices")) return std::optional<int>(static_cast<int>(n->number));
  return std::optional<int>();
}

int coreCount() { return ThreadPool::defaultSize(); }

// Devices split the cores: each runs its kernels on its share of them, so N
// devices running at once do not oversubscribe the machine N times.
int threadsPerDevice(const ClientOptions& options) {
  return options.numThreads > 0 ? options.numThreads : std::max(1, coreCount() / options.numDevices);
}

// The runtime passes whole arrays: tuples as parameters or results are not
// supported (JAX exports flat signatures). Parameters with `?` dimensions are
// made static for each call's arguments (refine_shapes).
Status checkSignature(const Operation& fn) {
  Type type = func::type(fn);
  auto check = [&](std::span<const Type> types, const char* what) -> Status {
    for (size_t i = 0; i < types.size(); ++i)
      if (!types[i].isTensor() && !types[i].isToken())
        return error(ErrorCode::Unimplemented, "@" + std::string(func::name(fn)) + ": " + what + " " +
                                                   std::to_string(i) + " has type " + types[i].str() +
                                                   "; the runtime passes tensors and tokens only");
    return Status::ok();
  };
  KILN_RETURN_IF_ERROR(check(type.inputs(), "parameter"));
  return check(type.results(), "result");
}

}  // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() { impl_->pool.reset(); }  // finish what is in flight first

Expected<std::unique_ptr<Client>> Client::create(const ClientOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  KILN_ASSIGN_OR_RETURN(std::optional<int> devices, cpuDevicesFlag());
  if (devices) impl->options.numDevices = *devices;
  const ClientOptions& o = impl->options;
  if (o.numDevices < 1 || o.numDevices > 1024)
    return error(ErrorCode::InvalidArgument, "the number of cpu devices must be in [1, 1024], got " +
                                                 std::to_string(o.numDevices));
  KILN_ASSIGN_OR_RETURN(impl->backend, backend::findBackend(o.backend));
  if (o.numThreads < 0)
    return error(ErrorCode::InvalidArgument, "numThreads must be >= 0, got " + std::to_string(o.numThreads));
  std::string_view description = impl->backend->description();
  impl->platformVersion = "kiln 0.1 (" + o.backend + (description.empty() ? "" : ": ") + std::string(description) + ")";
  for (int i = 0; i < o.numDevices; ++i) {
    std::map<std::string, std::variant<int64_t, std::string>> attributes{
        {"backend", o.backend},
        {"core_count", int64_t(coreCount())},
        {"num_threads", int64_t(threadsPerDevice(o))},
    };
    impl->devices.push_back(std::unique_ptr<Device>(new Device(i, std::move(attributes))));
    impl->devicePointers.push_back(impl->devices.back().get());
    impl->pending.push_back(std::make_unique<std::atomic<int>>(0));
  }
  // Enough threads that every device can run at once, and that several
  // callers of one device do not queue behind each other.
  impl->pool = std::make_unique<WorkerPool>(std::max(o.numDevices, std::max(coreCount(), 4)));
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const std::string& Client::platformName() const { return impl_->platformName; }
const std::string& Client::platformVersion() const { return impl_->platformVersion; }
std::span<Device* const> Client::devices() const { return impl_->devicePointers; }

Expected<Device*> Client::device(int id) const {
  if (id < 0 || id >= static_cast<int>(impl_->devices.size()))
    return error(ErrorCode::InvalidArgument, "no device " + std::to_string(id) + " (the client has " +
                                                 std::to_string(impl_->devices.size()) + ")");
  return impl_->devicePointers[id];
}

Expected<std::unique_ptr<Executable>> Client::compile(std::string_view text, const CompileOptions& options) {
  Expected<std::unique_ptr<Module>> module = [&] {
    trace::Scope slice("compile", "parse");
    return parseProgram(text, "<input>");
  }();
  if (!module) return module.takeStatus();
  return compile(**module, options);
}

Expected<std::unique_ptr<Executable>> Client::compileFile(const std::string& path, const CompileOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(ErrorCode::NotFound, "cannot open '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  Expected<std::unique_ptr<Module>> module = [&] {
    trace::Scope slice("compile", "parse " + path);
    return parseProgram(text.str(), path);
  }();
  if (!module) return module.takeStatus();
  return compile(**module, options);
}

// A program with the name and signature of function `fn` of `module`, not compiled yet.
std::shared_ptr<Program> programSignature(const Module& module, const Operation& fn, const CompileOptions& options) {
  auto program = std::make_shared<Program>();
  program->name = module.name().empty() ? options.entry : module.name();
  program->entry = options.entry;
  Type fnType = func::type(fn);
  program->parameterTypes.assign(fnType.inputs().begin(), fnType.inputs().end());
  program->resultTypes.assign(fnType.results().begin(), fnType.results().end());
  return program;
}

Expected<std::shared_ptr<Program>> compileStaticProgram(Client::Impl& client, const Module& module,
                                                        const CompileOptions& options) {
  const Operation* fn = module.lookupFunction(options.entry);
  if (!fn) return error(ErrorCode::NotFound, "no function @" + options.entry + " in the module");
  std::shared_ptr<Program> program = programSignature(module, *fn, options);

  backend::CompileOptions backendOptions;
  backendOptions.numThreads = threadsPerDevice(client.options);
  backendOptions.cacheDir = client.options.cacheDir;
  backendOptions.dumpDir = options.dumpDir;
  KILN_ASSIGN_OR_RETURN(program->compiled, client.backend->compile(module, options.entry, backendOptions));
  program->instances = program->compiled->instances();
  backend::CompileStats s = program->compiled->stats();
  program->stats = {s.pipelineSeconds, s.codegenSeconds, s.kernels, s.libraryCalls, s.routines};
  program->optimizedText = program->compiled->optimizedModuleText();
  // Cost analysis reads the optimized module; if its text does not read
  // back, fall back to the input program.
  Expected<std::unique_ptr<Module>> optimized = parseModule(program->optimizedText, "<optimized>");
  program->cost = optimized ? analyzeCost(**optimized, options.entry) : analyzeCost(module, options.entry);
  // A waiting caller runs a program itself only where it uses one thread: at
  // more, its kernels' tiles (ThreadPool::parallelFor) then ran with the
  // Python caller as the pool's calling thread, and a 256^3 dot under
  // kiln.torch at 2 threads took 1.3-1.5 ms against 0.23 ms handed to a worker
  // (loaded host; why was not found), docs/torch.md.
  program->mayRunOnCaller = program->compiled->mayRunInline() && backendOptions.numThreads == 1;
  program->runsInline = program->compiled->mayRunInline() && program->cost.flops <= kInlineMaxFlops &&
                        program->cost.bytesAccessed <= kInlineMaxBytes;
  return program;
}

Expected<std::unique_ptr<Executable>> Client::compile(const Module& module, const CompileOptions& options) {
  trace::Scope slice("compile", [&] { return "compile @" + options.entry; });
  KILN_RETURN_IF_ERROR(verifyModule(module));
  const Operation* fn = module.lookupFunction(options.entry);
  if (!fn) return error(ErrorCode::NotFound, "no function @" + options.entry + " in the module");
  KILN_RETURN_IF_ERROR(checkSignature(*fn));
  auto impl = std::make_unique<Executable::Impl>();
  impl->client = impl_.get();
  if (std::ranges::all_of(func::type(*fn).inputs(), isStaticType)) {
    KILN_ASSIGN_OR_RETURN(impl->program, compileStaticProgram(*impl_, module, options));
    return std::make_unique<Executable>(std::move(impl));
  }
  // Shape-polymorphic: the signature now, a program per argument types at the call.
  impl->program = programSignature(module, *fn, options);
  impl->polymorphic = std::make_shared<Specializations>();
  impl->polymorphic->module = std::make_unique<Module>(module.op().clone());
  impl->polymorphic->options = options;
  return std::make_unique<Executable>(std::move(impl));
}

Expected<BufferRef> Client::bufferFromHost(const void* data, int64_t dataBytes, Type type, Device* device,
                                           HostSemantics semantics, std::function<void()> release) {
  // The release callback runs exactly once: when the last user of zero-copy
  // memory goes, or on return (copies, errors). A guard on the stack, not a
  // shared holder: this runs for every argument of every kiln.torch call.
  struct ReleaseOnce {
    std::function<void()>& fn;
    ~ReleaseOnce() {
      if (fn) fn();
    }
  } releaser{release};
  if (!type.isTensor() && !type.isToken())
    return error(ErrorCode::InvalidArgument, "a buffer must have a tensor type, got " + type.str());
  if (!device) device = impl_->devicePointers[0];
  bool ours = false;
  for (Device* d : impl_->devicePointers) ours = ours || d == device;
  if (!ours) return error(ErrorCode::InvalidArgument, "the device does not belong to this client");
  int64_t bytes = device::denseBytes(type);
  if (dataBytes != bytes)
    return error(ErrorCode::InvalidArgument, type.str() + " takes " + std::to_string(bytes) + " bytes, " +
                                                 std::to_string(dataBytes) + " given");
  if (bytes > 0 && !data) return error(ErrorCode::InvalidArgument, "null host data");

  std::shared_ptr<device::Memory> memory;
  if (semantics == HostSemantics::kZeroCopy && type.isTensor()) {
    memory = device::borrowHostMemory(const_cast<void*>(data), bytes, std::exchange(release, nullptr));
  } else {
    trace::Scope slice("transfer", "host to device");
    slice.arg("bytes", std::to_string(bytes));
    KILN_ASSIGN_OR_RETURN(memory, impl_->backend->allocator().allocate(type));
    if (bytes > 0) std::memcpy(memory->data(), data, bytes);
  }
  auto state = std::make_shared<Buffer::State>();
  state->value = placeOn(device::DeviceBuffer(type, std::move(memory)), *device);
  // Ready from the start: an Event without state (no allocation) is a ready one.
  return std::make_shared<Buffer>(type, device, std::move(state), Event());
}

Expected<BufferRef> Client::bufferFromLiteral(const device::Literal& literal, Device* device) {
  if (!literal) return error(ErrorCode::InvalidArgument, "an empty literal");
  return bufferFromHost(literal.bytes(), literal.byteSize(), literal.type(), device, HostSemantics::kCopy);
}

}  // namespace kiln::runtime
