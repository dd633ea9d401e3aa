// The runtime API (kiln/runtime/runtime.h): results agree with the reference
// interpreter, buffers follow their lifetime rules (zero-copy release,
// delete, donation), bad calls are errors with codes and clear messages, and
// executions run concurrently and on several devices.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "kiln/interp/host_buffers.h"
#include "kiln/interp/interpreter.h"
#include "kiln/parse/parser.h"
#include "kiln/runtime/runtime.h"

namespace kiln::runtime {
namespace {

using interp::Tensor;

// y = tanh(x . w) + b: a dot, a transcendental and a broadcast, so the cpu
// back end emits both a library call and a fused kernel.
constexpr const char* kDense = R"(
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = stablehlo.tanh %0 : tensor<4x3xf32>
  %2 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3xf32>) -> tensor<4x3xf32>
  %3 = stablehlo.add %1, %2 : tensor<4x3xf32>
  return %3 : tensor<4x3xf32>
}
)";

constexpr const char* kIntegerMix = R"(
func.func @main(%a: tensor<16xi32>, %b: tensor<16xi32>) -> (tensor<16xi32>, tensor<16xi1>) {
  %0 = stablehlo.multiply %a, %b : tensor<16xi32>
  %1 = stablehlo.subtract %0, %a : tensor<16xi32>
  %2 = stablehlo.compare GT, %1, %b : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
  return %1, %2 : tensor<16xi32>, tensor<16xi1>
}
)";

ClientOptions options(std::string backend, int numDevices = 1) {
  ClientOptions o;
  o.backend = std::move(backend);
  o.numDevices = numDevices;
  return o;
}

std::unique_ptr<Client> makeClient(ClientOptions options = {}) {
  Expected<std::unique_ptr<Client>> client = Client::create(options);
  EXPECT_TRUE(client.isOk()) << client.status().message();
  return client.isOk() ? std::move(*client) : nullptr;
}

std::unique_ptr<Executable> compile(Client& client, const char* text) {
  Expected<std::unique_ptr<Executable>> exe = client.compile(std::string_view(text));
  EXPECT_TRUE(exe.isOk()) << exe.status().message();
  return exe.isOk() ? std::move(*exe) : nullptr;
}

// A tensor of `type` with deterministic, varied values (seeded by `seed`).
Tensor sampleTensor(Type type, int seed) {
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    int64_t v = (i * 7 + seed * 13) % 23 - 11;
    if (type.elementType().isFloat()) t.setFloat(i, static_cast<double>(v) / 8.0);
    else if (type.elementType().isBool()) t.setBool(i, v > 0);
    else t.setInt(i, v);
  }
  return t;
}

std::vector<Tensor> sampleArgs(const Executable& exe, int seed) {
  std::vector<Tensor> args;
  for (Type t : exe.parameterTypes()) args.push_back(sampleTensor(t, seed + static_cast<int>(args.size())));
  return args;
}

std::vector<Tensor> interpret(const char* text, std::vector<Tensor> args) {
  auto module = parseModule(text, "runtime_test.mlir");
  EXPECT_TRUE(module.isOk());
  Expected<std::vector<Tensor>> results = interp::runFunction(**module, "main", std::move(args));
  EXPECT_TRUE(results.isOk()) << results.status().message();
  return results.isOk() ? *results : std::vector<Tensor>{};
}

std::vector<BufferRef> upload(Client& client, const std::vector<Tensor>& tensors, Device* device = nullptr) {
  std::vector<BufferRef> buffers;
  for (const Tensor& t : tensors) {
    Expected<BufferRef> b = client.bufferFromLiteral(interp::toLiteral(t), device);
    EXPECT_TRUE(b.isOk()) << b.status().message();
    buffers.push_back(b.isOk() ? *b : nullptr);
  }
  return buffers;
}

Tensor download(const BufferRef& buffer) {
  Expected<device::Literal> literal = buffer->toLiteral();
  EXPECT_TRUE(literal.isOk()) << literal.status().message();
  return literal.isOk() ? interp::toTensor(*literal) : Tensor();
}

// Floats within 1e-5 of the largest magnitude of the result (oneDNN's dot
// sums in its own order, so the last bits differ from the interpreter's),
// everything else bitwise.
void expectAgree(const Tensor& got, const Tensor& oracle) {
  ASSERT_EQ(got.type(), oracle.type());
  if (!got.elementType().isFloat()) {
    EXPECT_TRUE(got == oracle);
    return;
  }
  double scale = 1;
  for (int64_t i = 0; i < oracle.numElements(); ++i) scale = std::max(scale, std::abs(oracle.getFloat(i)));
  for (int64_t i = 0; i < got.numElements(); ++i)
    EXPECT_LE(std::abs(got.getFloat(i) - oracle.getFloat(i)), 1e-5 * scale) << "element " << i;
}

void expectResultsAgree(const std::vector<BufferRef>& results, const std::vector<Tensor>& oracle) {
  ASSERT_EQ(results.size(), oracle.size());
  for (size_t i = 0; i < results.size(); ++i) expectAgree(download(results[i]), oracle[i]);
}

TEST(Runtime, ClientDescribesItselfAndItsDevices) {
  auto client = makeClient(options("cpu", 3));
  ASSERT_TRUE(client);
  EXPECT_EQ(client->platformName(), "cpu");
  EXPECT_NE(client->platformVersion().find("kiln"), std::string::npos);
  ASSERT_EQ(client->devices().size(), 3u);
  EXPECT_EQ(client->devices()[2]->id(), 2);
  EXPECT_EQ(client->devices()[2]->debugString(), "cpu:2");
  EXPECT_EQ(client->devices()[0]->kind(), "cpu");
  EXPECT_TRUE(client->devices()[0]->attributes().count("core_count"));
  EXPECT_FALSE(client->device(3).isOk());
}

// Devices split the cores unless a thread count is given.
TEST(Runtime, DevicesSplitTheCores) {
  auto split = makeClient(options("cpu", 3));
  ASSERT_TRUE(split);
  int64_t cores = std::get<int64_t>(split->devices()[0]->attributes().at("core_count"));
  EXPECT_EQ(std::get<int64_t>(split->devices()[1]->attributes().at("num_threads")), std::max<int64_t>(1, cores / 3));
  ClientOptions given = options("cpu", 3);
  given.numThreads = 5;
  auto fixed = makeClient(given);
  ASSERT_TRUE(fixed);
  EXPECT_EQ(std::get<int64_t>(fixed->devices()[2]->attributes().at("num_threads")), 5);
}

TEST(Runtime, BadClientOptionsAreErrors) {
  Expected<std::unique_ptr<Client>> client = Client::create(options("tpu"));
  ASSERT_FALSE(client.isOk());
  EXPECT_EQ(client.status().code(), ErrorCode::InvalidArgument);
}

TEST(Runtime, CpuResultsAgreeWithTheInterpreter) {
  auto client = makeClient();
  for (const char* program : {kDense, kIntegerMix}) {
    auto exe = compile(*client, program);
    ASSERT_TRUE(exe);
    std::vector<Tensor> args = sampleArgs(*exe, 1);
    Expected<std::vector<BufferRef>> results = exe->execute(upload(*client, args));
    ASSERT_TRUE(results.isOk()) << results.status().message();
    expectResultsAgree(*results, interpret(program, args));
  }
}

TEST(Runtime, InterpreterBackendGivesTheInterpretersResults) {
  auto client = makeClient(options("interpreter"));
  auto exe = compile(*client, kDense);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 2);
  Expected<std::vector<BufferRef>> results = exe->execute(upload(*client, args));
  ASSERT_TRUE(results.isOk()) << results.status().message();
  std::vector<Tensor> oracle = interpret(kDense, args);
  ASSERT_EQ(results->size(), 1u);
  EXPECT_TRUE(download((*results)[0]) == oracle[0]);
}

TEST(Runtime, ToHostCopiesTheDenseBytes) {
  auto client = makeClient();
  Tensor t = sampleTensor(Type::tensor({2, 5}, Type::f32()), 3);
  BufferRef b = upload(*client, {t})[0];
  EXPECT_EQ(b->byteSize(), 40);
  std::vector<uint8_t> host(40);
  ASSERT_TRUE(b->toHost(host.data(), 40).isOk());
  EXPECT_EQ(std::memcmp(host.data(), t.bytes(), 40), 0);
  Status small = b->toHost(host.data(), 39);
  ASSERT_FALSE(small.isOk());
  EXPECT_EQ(small.code(), ErrorCode::InvalidArgument);
}

TEST(Runtime, ALiteralSharesTheBuffersMemory) {
  auto client = makeClient();
  Tensor host = sampleTensor(Type::tensor({4, 8}, Type::f32()), 5);
  BufferRef buffer = upload(*client, {host})[0];
  Expected<device::Literal> first = buffer->toLiteral();
  Expected<device::Literal> second = buffer->toLiteral();
  ASSERT_TRUE(first.isOk() && second.isOk());
  EXPECT_EQ(first->bytes(), second->bytes()) << "no copy";
  EXPECT_NE(first->bytes(), host.bytes()) << "bufferFromLiteral copies";
  EXPECT_EQ(first->buffer().space(), device::MemorySpace::kHost);
  EXPECT_TRUE(interp::toTensor(*first) == host);
  // The literal keeps the memory (and its count on the device) after the buffer goes.
  Device& device = buffer->device();
  int64_t inUse = device.memoryStats().bytesInUse;
  buffer->deleteBuffer();
  EXPECT_EQ(device.memoryStats().bytesInUse, inUse);
  EXPECT_TRUE(interp::toTensor(*first) == host);
  *first = device::Literal();
  *second = device::Literal();
  EXPECT_EQ(device.memoryStats().bytesInUse, inUse - 4 * 8 * 4);
}

TEST(Runtime, ChainedExecutionsNeedNoWaiting) {
  // y = x * x, run three times on its own (not yet ready) result.
  const char* square = R"(
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)";
  auto client = makeClient();
  auto exe = compile(*client, square);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 4);
  BufferRef current = upload(*client, args)[0];
  std::vector<Tensor> oracle = args;
  for (int i = 0; i < 3; ++i) {
    Expected<std::vector<BufferRef>> next = exe->execute(std::vector<BufferRef>{current});
    ASSERT_TRUE(next.isOk()) << next.status().message();
    current = (*next)[0];
    oracle = interpret(square, oracle);
  }
  expectAgree(download(current), oracle[0]);
}

TEST(Runtime, ZeroCopyBufferCallsItsReleaseExactlyOnce) {
  auto client = makeClient();
  auto exe = compile(*client, kIntegerMix);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 5);
  std::atomic<int> released{0};
  {
    // 64-byte aligned host memory of the first argument, used in place.
    Tensor host = args[0];
    Expected<BufferRef> borrowed = client->bufferFromHost(host.bytes(), host.byteSize(), host.type(), nullptr,
                                                          Client::HostSemantics::kZeroCopy, [&] { ++released; });
    ASSERT_TRUE(borrowed.isOk()) << borrowed.status().message();
    BufferRef second = upload(*client, {args[1]})[0];
    Expected<std::vector<BufferRef>> results = exe->execute(std::vector<BufferRef>{*borrowed, second});
    ASSERT_TRUE(results.isOk());
    expectResultsAgree(*results, interpret(kIntegerMix, args));
    EXPECT_EQ(released.load(), 0) << "released while the buffer is alive";
    // In-place: the buffer reads what is in the host memory now.
    EXPECT_EQ(download(*borrowed).bytes(), host.bytes());
  }
  EXPECT_EQ(released.load(), 1);
  client.reset();
  EXPECT_EQ(released.load(), 1);
}

// Zero-copy host memory at numpy's 16-byte alignment is read in place (the
// kernels need an element's alignment, not a cache line's); memory not even
// aligned for its elements is copied first. Both give the program's results.
TEST(Runtime, ZeroCopyArgumentsAtAnyAlignmentGiveTheSameResults) {
  auto client = makeClient();
  auto exe = compile(*client, kDense);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 9);
  std::vector<Tensor> oracle = interpret(kDense, args);
  for (size_t offset : {size_t(16), size_t(2)}) {
    std::vector<uint8_t> storage(args[0].byteSize() + 64);
    uint8_t* at = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64 + offset;
    ASSERT_LE(at + args[0].byteSize(), storage.data() + storage.size());
    std::copy(args[0].bytes(), args[0].bytes() + args[0].byteSize(), at);
    Expected<BufferRef> x = client->bufferFromHost(at, args[0].byteSize(), args[0].type(), nullptr,
                                                   Client::HostSemantics::kZeroCopy, nullptr);
    ASSERT_TRUE(x.isOk()) << x.status().message();
    std::vector<BufferRef> rest = upload(*client, {args[1], args[2]});
    Expected<std::vector<BufferRef>> results = exe->execute(std::vector<BufferRef>{*x, rest[0], rest[1]});
    ASSERT_TRUE(results.isOk()) << results.status().message();
    expectResultsAgree(*results, oracle);
  }
}

TEST(Runtime, CopiedBufferReleasesTheHostMemoryAtOnce) {
  auto client = makeClient();
  Tensor host = sampleTensor(Type::tensor({4}, Type::f32()), 6);
  int released = 0;
  Expected<BufferRef> copied = client->bufferFromHost(host.bytes(), host.byteSize(), host.type(), nullptr,
                                                      Client::HostSemantics::kCopy, [&] { ++released; });
  ASSERT_TRUE(copied.isOk());
  EXPECT_EQ(released, 1);
  host.setFloat(0, 100.0);  // the buffer has its own copy
  EXPECT_NE(download(*copied).getFloat(0), 100.0);
}

// A refused zero-copy buffer gives its memory back at once (the release
// runs exactly once, on return), and an accepted one is ready at once.
TEST(Runtime, RefusedZeroCopyBufferReleasesItsMemoryOnce) {
  auto client = makeClient();
  Tensor host = sampleTensor(Type::tensor({4}, Type::f32()), 6);
  int released = 0;
  Expected<BufferRef> wrongSize = client->bufferFromHost(host.bytes(), host.byteSize() - 4, host.type(), nullptr,
                                                         Client::HostSemantics::kZeroCopy, [&] { ++released; });
  ASSERT_FALSE(wrongSize.isOk());
  EXPECT_EQ(wrongSize.status().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(released, 1);
  Expected<BufferRef> notTensor = client->bufferFromHost(host.bytes(), host.byteSize(), Type::f32(), nullptr,
                                                         Client::HostSemantics::kZeroCopy, [&] { ++released; });
  ASSERT_FALSE(notTensor.isOk());
  EXPECT_EQ(released, 2);
  Expected<BufferRef> accepted = client->bufferFromHost(host.bytes(), host.byteSize(), host.type(), nullptr,
                                                        Client::HostSemantics::kZeroCopy, [&] { ++released; });
  ASSERT_TRUE(accepted.isOk());
  EXPECT_TRUE((*accepted)->readyEvent().isReady());
  EXPECT_TRUE((*accepted)->awaitReady().isOk());
  EXPECT_EQ(download(*accepted).getFloat(2), host.getFloat(2));
  EXPECT_EQ(released, 2) << "released while the buffer is alive";
  accepted = error(ErrorCode::Internal, "dropped");
  EXPECT_EQ(released, 3);
}

TEST(Runtime, DeletedBufferIsAFailedPrecondition) {
  auto client = makeClient();
  auto exe = compile(*client, kIntegerMix);
  ASSERT_TRUE(exe);
  std::vector<BufferRef> args = upload(*client, sampleArgs(*exe, 7));
  args[1]->deleteBuffer();
  EXPECT_TRUE(args[1]->isDeleted());
  Expected<device::Literal> t = args[1]->toLiteral();
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.status().code(), ErrorCode::FailedPrecondition);
  std::vector<int32_t> host(16);
  EXPECT_EQ(args[1]->toHost(host.data(), 64).code(), ErrorCode::FailedPrecondition);
  Expected<std::vector<BufferRef>> results = exe->execute(args);
  ASSERT_FALSE(results.isOk());
  EXPECT_EQ(results.status().code(), ErrorCode::FailedPrecondition);
  EXPECT_NE(results.status().diag().message.find("argument 1 was deleted"), std::string::npos)
      << results.status().diag().message;
}

TEST(Runtime, DeletingAnArgumentAfterLaunchLeavesTheExecutionAlone) {
  auto client = makeClient();
  auto exe = compile(*client, kIntegerMix);
  ASSERT_TRUE(exe);
  std::vector<Tensor> host = sampleArgs(*exe, 11);
  std::vector<BufferRef> args = upload(*client, host);
  Expected<std::vector<BufferRef>> results = exe->execute(args);
  ASSERT_TRUE(results.isOk());
  for (const BufferRef& a : args) a->deleteBuffer();
  expectResultsAgree(*results, interpret(kIntegerMix, host));
}

TEST(Runtime, DonatedBufferIsUnusableAfterwards) {
  auto client = makeClient();
  auto exe = compile(*client, kIntegerMix);
  ASSERT_TRUE(exe);
  std::vector<Tensor> host = sampleArgs(*exe, 8);
  std::vector<BufferRef> args = upload(*client, host);
  Expected<std::vector<BufferRef>> results = exe->execute(args, {.donatedArguments = {0}});
  ASSERT_TRUE(results.isOk()) << results.status().message();
  expectResultsAgree(*results, interpret(kIntegerMix, host));
  EXPECT_TRUE(args[0]->isDonated());
  EXPECT_FALSE(args[1]->isDonated());
  EXPECT_EQ(args[0]->toLiteral().status().code(), ErrorCode::FailedPrecondition);
  Expected<std::vector<BufferRef>> again = exe->execute(args);
  ASSERT_FALSE(again.isOk());
  EXPECT_EQ(again.status().code(), ErrorCode::FailedPrecondition);
  EXPECT_NE(again.status().diag().message.find("argument 0 was donated"), std::string::npos);
}

// A parameter marked donor in the program and donated by the caller: the cpu
// back end computes the result into its memory, so the update is handed
// back without a new allocation or a copy.
constexpr const char* kDonorUpdate = R"(
func.func @main(%p: tensor<4096xf32> {jax.buffer_donor = true}, %g: tensor<4096xf32>) -> tensor<4096xf32> {
  %lr = stablehlo.constant dense<0.5> : tensor<4096xf32>
  %step = stablehlo.multiply %g, %lr : tensor<4096xf32>
  %next = stablehlo.subtract %p, %step : tensor<4096xf32>
  return %next : tensor<4096xf32>
}
)";

TEST(Runtime, DonatedArgumentMemoryHoldsTheResult) {
  auto client = makeClient();
  auto exe = compile(*client, kDonorUpdate);
  ASSERT_TRUE(exe);
  std::vector<Tensor> host = sampleArgs(*exe, 3);
  std::vector<BufferRef> args = upload(*client, host);
  const uint8_t* memory = download(args[0]).bytes();
  ExecuteOptions donate{.donatedArguments = {0}, .mayRunInline = false};
  Expected<std::vector<BufferRef>> results = exe->execute(args, donate);
  ASSERT_TRUE(results.isOk()) << results.status().message();
  expectResultsAgree(*results, interpret(kDonorUpdate, host));
  EXPECT_EQ(download((*results)[0]).bytes(), memory);
  // Not donated: fresh memory, the argument unchanged.
  std::vector<BufferRef> kept = upload(*client, host);
  Expected<std::vector<BufferRef>> fresh = exe->execute(kept);
  ASSERT_TRUE(fresh.isOk());
  EXPECT_NE(download((*fresh)[0]).bytes(), download(kept[0]).bytes());
  EXPECT_TRUE(download(kept[0]) == host[0]);
}

TEST(Runtime, BadDonationListsAreInvalidArguments) {
  auto client = makeClient();
  auto exe = compile(*client, kIntegerMix);
  ASSERT_TRUE(exe);
  std::vector<BufferRef> args = upload(*client, sampleArgs(*exe, 9));
  EXPECT_EQ(exe->execute(args, {.donatedArguments = {2}}).status().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(exe->execute(args, {.donatedArguments = {0, 0}}).status().code(), ErrorCode::InvalidArgument);
  std::vector<BufferRef> same = {args[0], args[0]};
  EXPECT_EQ(exe->execute(same, {.donatedArguments = {0}}).status().code(), ErrorCode::InvalidArgument);
  EXPECT_FALSE(args[0]->isDonated()) << "a rejected call must not donate";
}

TEST(Runtime, WrongArgumentCountAndTypesAreNamed) {
  auto client = makeClient();
  auto exe = compile(*client, kDense);
  ASSERT_TRUE(exe);
  std::vector<BufferRef> args = upload(*client, sampleArgs(*exe, 10));

  Expected<std::vector<BufferRef>> tooFew = exe->execute(std::span(args).first(2));
  ASSERT_FALSE(tooFew.isOk());
  EXPECT_EQ(tooFew.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(tooFew.status().diag().message.find("@main takes 3 argument(s), 2 given"), std::string::npos)
      << tooFew.status().diag().message;

  args[1] = upload(*client, {sampleTensor(Type::tensor({3, 8}, Type::f32()), 0)})[0];
  Expected<std::vector<BufferRef>> wrongType = exe->execute(args);
  ASSERT_FALSE(wrongType.isOk());
  EXPECT_EQ(wrongType.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(wrongType.status().diag().message.find("argument 1: expected tensor<8x3xf32>, given tensor<3x8xf32>"),
            std::string::npos)
      << wrongType.status().diag().message;
}

TEST(Runtime, CompileErrorsCarryCodesAndLocations) {
  auto client = makeClient();
  Expected<std::unique_ptr<Executable>> bad = client->compile(std::string_view("func.func @main( {"));
  ASSERT_FALSE(bad.isOk());
  EXPECT_TRUE(bad.status().diag().loc.known());
  CompileOptions nope;
  nope.entry = "nope";
  Expected<std::unique_ptr<Executable>> missing = client->compile(std::string_view(kDense), nope);
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.status().code(), ErrorCode::NotFound);
  EXPECT_EQ(client->compileFile("/nonexistent/x.mlir").status().code(), ErrorCode::NotFound);
}

TEST(Runtime, SmallProgramsRunInlineWithTheWorkersResults) {
  // kDense is small: with its arguments ready it runs on the calling thread
  // (results ready on return); mayRunInline=false hands it to a worker. Both
  // agree with the interpreter; an execution whose argument is still being
  // computed waits for it (on a worker) rather than reading it early.
  auto client = makeClient();
  auto exe = compile(*client, kDense);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 3);
  std::vector<Tensor> oracle = interpret(kDense, args);
  std::vector<BufferRef> buffers = upload(*client, args);

  Expected<std::vector<BufferRef>> inlined = exe->execute(buffers);
  ASSERT_TRUE(inlined.isOk()) << inlined.status().message();
  EXPECT_TRUE((*inlined)[0]->readyEvent().isReady()) << "a small program with ready arguments runs inline";
  expectResultsAgree(*inlined, oracle);

  ExecuteOptions viaWorker;
  viaWorker.mayRunInline = false;
  Expected<std::vector<BufferRef>> handedOff = exe->execute(buffers, viaWorker);
  ASSERT_TRUE(handedOff.isOk()) << handedOff.status().message();
  expectResultsAgree(*handedOff, oracle);

  const char* twice = R"(
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.add %x, %x : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)";
  auto doubler = compile(*client, twice);
  ASSERT_TRUE(doubler);
  std::vector<Tensor> x = sampleArgs(*doubler, 5);
  BufferRef current = upload(*client, x)[0];
  std::vector<Tensor> expected = x;
  for (int i = 0; i < 6; ++i) {  // alternate: a worker's result feeds an inline call and back
    ExecuteOptions o;
    o.mayRunInline = i % 2 == 1;
    Expected<std::vector<BufferRef>> next = doubler->execute(std::vector<BufferRef>{current}, o);
    ASSERT_TRUE(next.isOk()) << next.status().message();
    current = (*next)[0];
    expected = interpret(twice, expected);
  }
  expectAgree(download(current), expected[0]);
}

// A 256x256x256 dot: above the inline limits (kInlineMaxFlops).
constexpr const char* kDot256 = R"(
func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}
)";

TEST(Runtime, AWaitingCallerRunsABigProgramItself) {
  // A 256x256x256 dot is above the inline limits: handed to a worker unless
  // the caller says it waits for the results anyway (callerWaits, as
  // kiln.torch's calls do) and the program uses one thread; then it runs on
  // the calling thread, results ready on return, and agrees with the
  // worker's and the interpreter's. At two threads it still goes to a worker.
  const char* dot = kDot256;
  ClientOptions oneThread;
  oneThread.numThreads = 1;
  auto client = makeClient(oneThread);
  auto exe = compile(*client, dot);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 7);
  std::vector<BufferRef> buffers = upload(*client, args);
  Expected<std::vector<BufferRef>> viaWorker = exe->execute(buffers);
  ASSERT_TRUE(viaWorker.isOk()) << viaWorker.status().message();
  ASSERT_TRUE((*viaWorker)[0]->awaitReady().isOk());
  ExecuteOptions waits;
  waits.callerWaits = true;
  Expected<std::vector<BufferRef>> onCaller = exe->execute(buffers, waits);
  ASSERT_TRUE(onCaller.isOk()) << onCaller.status().message();
  EXPECT_TRUE((*onCaller)[0]->readyEvent().isReady()) << "a waiting caller runs the program itself";
  expectResultsAgree(*onCaller, interpret(dot, args));
  expectAgree(download((*onCaller)[0]), download((*viaWorker)[0]));

  ClientOptions twoThreads;
  twoThreads.numThreads = 2;
  auto client2 = makeClient(twoThreads);
  auto exe2 = compile(*client2, dot);
  ASSERT_TRUE(exe2);
  Expected<std::vector<BufferRef>> handedOff = exe2->execute(upload(*client2, args), waits);
  ASSERT_TRUE(handedOff.isOk()) << handedOff.status().message();
  expectResultsAgree(*handedOff, interpret(dot, args));
}

TEST(Runtime, ACallerThatMayWaitRunsABigProgramOnlyWhenTheDeviceIsIdle) {
  // callerWaitsWhenIdle (kiln.jit's calls): at one thread, a big program
  // whose arguments are ready runs on the calling thread when nothing is
  // pending on the device; while an execution handed to a worker (a loop
  // whose trip count is an argument) is pending, it is handed off too, and
  // once that one is done the device is idle again.
  const char* dot = kDot256;
  const char* loop = R"(
func.func @main(%x: tensor<64xf32>, %n: tensor<i32>) -> tensor<64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<64xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %s = stablehlo.sine %acc : tensor<64xf32>
      stablehlo.return %next, %s : tensor<i32>, tensor<64xf32>
    }
  return %r#1 : tensor<64xf32>
}
)";
  ClientOptions oneThread;
  oneThread.numThreads = 1;
  auto client = makeClient(oneThread);
  auto exe = compile(*client, dot);
  auto slow = compile(*client, loop);
  ASSERT_TRUE(exe && slow);
  std::vector<Tensor> args = sampleArgs(*exe, 11);
  std::vector<BufferRef> buffers = upload(*client, args);
  ExecuteOptions mayWait;
  mayWait.callerWaitsWhenIdle = true;
  Expected<std::vector<BufferRef>> idle = exe->execute(buffers, mayWait);
  ASSERT_TRUE(idle.isOk()) << idle.status().message();
  EXPECT_TRUE((*idle)[0]->readyEvent().isReady()) << "idle device: run on the calling thread";
  expectResultsAgree(*idle, interpret(dot, args));

  // Pending: a loop of many trips, on a worker.
  int32_t trips = 200000;
  std::vector<uint8_t> tripBytes(sizeof trips);
  std::memcpy(tripBytes.data(), &trips, sizeof trips);
  std::vector<Tensor> loopArgs = {sampleTensor(Type::tensor({64}, Type::f32()), 3),
                                  Tensor(Type::tensor({}, Type::si32()), std::move(tripBytes))};
  Expected<std::vector<BufferRef>> pending = slow->execute(upload(*client, loopArgs));
  ASSERT_TRUE(pending.isOk()) << pending.status().message();
  Expected<std::vector<BufferRef>> handedOff = exe->execute(buffers, mayWait);
  ASSERT_TRUE(handedOff.isOk()) << handedOff.status().message();
  expectResultsAgree(*handedOff, interpret(dot, args));
  ASSERT_TRUE((*pending)[0]->awaitReady().isOk());
  // Both done: idle again, so the next call runs on the caller.
  Expected<std::vector<BufferRef>> idleAgain = exe->execute(buffers, mayWait);
  ASSERT_TRUE(idleAgain.isOk()) << idleAgain.status().message();
  EXPECT_TRUE((*idleAgain)[0]->readyEvent().isReady()) << "the pending count went back to zero";
  expectAgree(download((*idleAgain)[0]), download((*idle)[0]));
}

TEST(Runtime, SmallCountedLoopsRunInline) {
  // A loop of a fixed count of small trips (a scan of a small cell) runs
  // on the calling thread like straight-line code; one whose count is an
  // argument cannot be bounded at compile time and goes to a worker.
  const char* counted = R"(
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<8xf32>
   cond {
    %ten = stablehlo.constant dense<10> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %ten, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %w = stablehlo.multiply %v, %half : tensor<8xf32>
    %u = stablehlo.add %w, %x : tensor<8xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %u : tensor<i32>, tensor<8xf32>
  }
  return %r#1 : tensor<8xf32>
}
)";
  auto client = makeClient();
  auto exe = compile(*client, counted);
  ASSERT_TRUE(exe);
  std::vector<Tensor> args = sampleArgs(*exe, 4);
  Expected<std::vector<BufferRef>> results = exe->execute(upload(*client, args));
  ASSERT_TRUE(results.isOk()) << results.status().message();
  EXPECT_TRUE((*results)[0]->readyEvent().isReady()) << "a small counted loop with ready arguments runs inline";
  expectResultsAgree(*results, interpret(counted, args));
}

TEST(Runtime, ExecutionErrorsReachTheResultsAndTheirConsumers) {
  // An infeed compiles and fails when it runs (there is no host to read from).
  const char* failing = R"(
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %token = stablehlo.after_all : !stablehlo.token
  %0:2 = "stablehlo.infeed"(%token) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
  %1 = stablehlo.add %0#0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}
)";
  auto client = makeClient(options("interpreter"));
  auto exe = compile(*client, failing);
  ASSERT_TRUE(exe);
  Expected<std::vector<BufferRef>> first = exe->execute(upload(*client, sampleArgs(*exe, 0)));
  ASSERT_TRUE(first.isOk()) << "the failure is the execution's, reported through its results";
  Expected<std::vector<BufferRef>> second = exe->execute(*first);
  ASSERT_TRUE(second.isOk());
  Status firstError = (*first)[0]->awaitReady();
  ASSERT_FALSE(firstError.isOk());
  EXPECT_NE(firstError.diag().message.find("infeed"), std::string::npos);
  EXPECT_TRUE(firstError.diag().loc.known());
  Expected<device::Literal> secondValue = (*second)[0]->toLiteral();
  ASSERT_FALSE(secondValue.isOk());
  EXPECT_NE(secondValue.status().diag().message.find("argument 0: "), std::string::npos);
}

// A custom_call target kiln has no kernel for fails compiling, on both back
// ends, with the target and the op's location: never later, when a result
// (even one that does not depend on the call) is read.
TEST(Runtime, UnknownCustomCallTargetsFailAtCompileTime) {
  const char* program = R"(
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.custom_call @no_such_target(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
)";
  for (const char* backend : {"cpu", "interpreter"}) {
    auto client = makeClient(options(backend));
    Expected<std::unique_ptr<Executable>> exe = client->compile(std::string_view(program));
    ASSERT_FALSE(exe.isOk()) << backend;
    EXPECT_EQ(exe.status().code(), ErrorCode::Unimplemented) << backend;
    EXPECT_NE(exe.status().diag().message.find("@no_such_target"), std::string::npos) << backend;
    EXPECT_EQ(exe.status().diag().loc.line, 4u) << backend;
  }
}

// A backend and a program for it.
struct Concurrent {
  const char* backend;
  const char* program;
};

class RuntimeConcurrency : public ::testing::TestWithParam<Concurrent> {};

TEST_P(RuntimeConcurrency, EightThreadsShareOneExecutable) {
  const char* program = GetParam().program;
  auto client = makeClient(options(GetParam().backend));
  auto exe = compile(*client, program);
  ASSERT_TRUE(exe);
  constexpr int kThreads = 8, kRuns = 10;
  std::vector<std::vector<Tensor>> inputs, oracle;
  for (int i = 0; i < kThreads * kRuns; ++i) {
    inputs.push_back(sampleArgs(*exe, i));
    oracle.push_back(interpret(program, inputs.back()));
  }
  std::vector<std::vector<Tensor>> got(inputs.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        int i = t * kRuns + r;
        Expected<std::vector<BufferRef>> results = exe->execute(upload(*client, inputs[i]));
        if (!results.isOk()) continue;  // reported below as a missing result
        for (const BufferRef& b : *results) {
          Expected<device::Literal> value = b->toLiteral();
          if (value.isOk()) got[i].push_back(interp::toTensor(*value));
        }
      }
    });
  for (std::thread& t : threads) t.join();
  for (size_t i = 0; i < inputs.size(); ++i) {
    ASSERT_EQ(got[i].size(), oracle[i].size()) << "run " << i << " failed";
    for (size_t j = 0; j < got[i].size(); ++j) expectAgree(got[i][j], oracle[i][j]);
  }
}

// {"cpu", kDense} runs one oneDNN matmul from 8 threads at once: each run
// has its own oneDNN scratchpad (onednn_dot.cpp); with oneDNN's shared one,
// about one run in 5000 went wrong.
INSTANTIATE_TEST_SUITE_P(Backends, RuntimeConcurrency,
                         ::testing::Values(Concurrent{"cpu", kDense}, Concurrent{"cpu", kIntegerMix},
                                           Concurrent{"interpreter", kDense},
                                           Concurrent{"interpreter", kIntegerMix}),
                         [](const ::testing::TestParamInfo<Concurrent>& info) {
                           return std::string(info.param.backend) + std::to_string(info.index);
                         });

TEST(Runtime, ExecuteShardedRunsOneListPerDevice) {
  constexpr int kDevices = 4;
  auto client = makeClient(options("cpu", kDevices));
  auto exe = compile(*client, kDense);
  ASSERT_TRUE(exe);
  std::vector<std::vector<Tensor>> inputs;
  std::vector<std::vector<BufferRef>> perDevice;
  for (int d = 0; d < kDevices; ++d) {
    inputs.push_back(sampleArgs(*exe, 20 + d));
    perDevice.push_back(upload(*client, inputs.back(), client->devices()[d]));
  }
  Expected<std::vector<std::vector<BufferRef>>> results = exe->executeSharded(perDevice);
  ASSERT_TRUE(results.isOk()) << results.status().message();
  ASSERT_EQ(results->size(), size_t(kDevices));
  for (int d = 0; d < kDevices; ++d) {
    ASSERT_EQ((*results)[d].size(), 1u);
    EXPECT_EQ((*results)[d][0]->device().id(), d);
    expectResultsAgree((*results)[d], interpret(kDense, inputs[d]));
  }
  // An argument on the wrong device is named.
  std::swap(perDevice[0][0], perDevice[1][0]);
  Expected<std::vector<std::vector<BufferRef>>> misplaced = exe->executeSharded(perDevice);
  ASSERT_FALSE(misplaced.isOk());
  EXPECT_EQ(misplaced.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(misplaced.status().diag().message.find("argument 0 is on cpu:1, expected cpu:0"), std::string::npos)
      << misplaced.status().diag().message;
}

// Data parallelism over four replicas: each device holds a shard of the
// batch, computes its partial x^T x and all-reduces the partials, so every
// device ends with the whole batch's product.
constexpr const char* kDataParallel = R"(
module attributes {mhlo.num_replicas = 4 : i32} {
func.func @main(%x: tensor<8x3xf32>) -> tensor<3x3xf32> {
  %p = stablehlo.dot_general %x, %x, contracting_dims = [0] x [0] : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<3x3xf32>
  %sum = "stablehlo.all_reduce"(%p) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %sum : tensor<3x3xf32>
}
}
)";

class RuntimeSpmd : public ::testing::TestWithParam<std::string> {};

TEST_P(RuntimeSpmd, ShardedExecutionAllReducesAcrossDevices) {
  constexpr int kDevices = 4;
  auto client = makeClient(options(GetParam(), kDevices));
  auto exe = compile(*client, kDataParallel);
  ASSERT_TRUE(exe);
  auto module = parseModule(kDataParallel, "runtime_test.mlir");
  ASSERT_TRUE(module.isOk());
  std::vector<std::vector<Tensor>> inputs;
  std::vector<std::vector<BufferRef>> perDevice;
  for (int d = 0; d < kDevices; ++d) {
    inputs.push_back(sampleArgs(*exe, 40 + d));
    perDevice.push_back(upload(*client, inputs.back(), client->devices()[d]));
  }
  auto oracle = interp::runFunctionOnInstances(**module, "main", inputs, {kDevices, 1});
  ASSERT_TRUE(oracle.isOk()) << oracle.status().message();
  Expected<std::vector<std::vector<BufferRef>>> results = exe->executeSharded(perDevice);
  ASSERT_TRUE(results.isOk()) << results.status().message();
  ASSERT_EQ(results->size(), size_t(kDevices));
  for (int d = 0; d < kDevices; ++d) {
    EXPECT_EQ((*results)[d][0]->device().id(), d);
    expectResultsAgree((*results)[d], (*oracle)[d]);
    // All replicas hold the same sum.
    expectAgree(download((*results)[d][0]), download((*results)[0][0]));
  }
  // One instance per device: three lists for four replicas is an error.
  perDevice.pop_back();
  Expected<std::vector<std::vector<BufferRef>>> short_ = exe->executeSharded(perDevice);
  ASSERT_FALSE(short_.isOk());
  EXPECT_EQ(short_.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(short_.status().message().find("4 replica(s) x 1 partition(s)"), std::string::npos)
      << short_.status().message();
}

INSTANTIATE_TEST_SUITE_P(Backends, RuntimeSpmd, ::testing::Values("cpu", "interpreter"));

TEST(Runtime, MemoryStatsFollowBuffers) {
  auto client = makeClient(options("cpu", 2));
  Device* device = client->devices()[1];
  MemoryStats before = device->memoryStats();
  Tensor t = sampleTensor(Type::tensor({64, 16}, Type::f32()), 0);
  BufferRef b = upload(*client, {t}, device)[0];
  MemoryStats during = device->memoryStats();
  EXPECT_EQ(during.bytesInUse, before.bytesInUse + 64 * 16 * 4);
  EXPECT_GE(during.peakBytesInUse, during.bytesInUse);
  EXPECT_EQ(during.numAllocations, before.numAllocations + 1);
  EXPECT_EQ(client->devices()[0]->memoryStats().bytesInUse, 0) << "another device's buffer";
  b->deleteBuffer();
  MemoryStats after = device->memoryStats();
  EXPECT_EQ(after.bytesInUse, before.bytesInUse);
  EXPECT_EQ(after.peakBytesInUse, during.peakBytesInUse);
}

TEST(Runtime, AResultDroppedOnceReadyIsFreedAtOnce) {
  // Large enough to run on a worker, not inline. The worker must let go of
  // the result before making it ready: else the caller's next execution
  // finds the memory still taken and writes its result elsewhere (cold).
  const char* square = R"(
func.func @main(%x: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}
)";
  auto client = makeClient(options("cpu"));
  auto exe = compile(*client, square);
  ASSERT_TRUE(exe);
  std::vector<BufferRef> args = upload(*client, sampleArgs(*exe, 1));
  Device* device = client->devices()[0];
  int64_t argumentBytes = device->memoryStats().bytesInUse;
  for (int i = 0; i < 200; ++i) {  // a race: a few hundred rounds catch it most times
    Expected<std::vector<BufferRef>> results = exe->execute(args);
    ASSERT_TRUE(results.isOk()) << results.status().message();
    ASSERT_TRUE((*results)[0]->readyEvent().await().isOk());
    results = std::vector<BufferRef>{};
    ASSERT_EQ(device->memoryStats().bytesInUse, argumentBytes) << "execution " << i;
  }
}

TEST(Runtime, CostOfADotIsTwoFlopsPerMultiplyAdd) {
  constexpr int64_t M = 16, N = 24, K = 40;
  const char* dot = R"(
func.func @main(%a: tensor<16x40xf32>, %b: tensor<40x24xf32>) -> tensor<16x24xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x40xf32>, tensor<40x24xf32>) -> tensor<16x24xf32>
  return %0 : tensor<16x24xf32>
}
)";
  for (const char* backend : {"cpu", "interpreter"}) {
    auto client = makeClient(options(backend));
    auto exe = compile(*client, dot);
    ASSERT_TRUE(exe);
    CostAnalysis cost = exe->costAnalysis();
    EXPECT_EQ(cost.flops, double(2 * M * N * K)) << backend;
    EXPECT_EQ(cost.bytesAccessed, double((M * K + K * N + M * N) * 4)) << backend;
    ASSERT_EQ(cost.kernels.size(), 1u) << exe->optimizedModuleText();
    EXPECT_EQ(cost.kernels[0].flops, cost.flops);
  }
}

TEST(Runtime, CompileStatsAndOptimizedTextDescribeTheProgram) {
  auto client = makeClient();
  auto exe = compile(*client, kDense);
  ASSERT_TRUE(exe);
  EXPECT_EQ(exe->name(), "main");
  ASSERT_EQ(exe->parameterTypes().size(), 3u);
  EXPECT_EQ(exe->resultTypes()[0].str(), "tensor<4x3xf32>");
  CompileStats stats = exe->compileStats();
  EXPECT_GE(stats.kernels + stats.libraryCalls, 1);
  EXPECT_NE(exe->optimizedModuleText().find("func.func @main"), std::string::npos);
  CostAnalysis cost = exe->costAnalysis();
  EXPECT_GE(cost.flops, 2.0 * 4 * 3 * 8);
  double sum = 0;
  for (const KernelCost& k : cost.kernels) sum += k.flops;
  EXPECT_EQ(sum, cost.flops);
}

}  // namespace
}  // namespace kiln::runtime
