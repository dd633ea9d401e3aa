// The cpu back end's executable: programs with control flow, tuples, tokens
// and routines run natively (compared with the interpreter), one executable
// runs on many threads at once, large kernels split across the pool with the
// same results, the compile cache shares executables, and --dump-dir output;
// replicas and partitions run together and meet at their collectives.
#include "kiln/backends/cpu/cpu_executable.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <omp.h>

#include "kiln/backends/cpu/openmp_threads.h"
#include "kiln/backends/cpu/planner.h"
#include "kiln/backends/cpu/routines.h"
#include "kiln/interp/interpreter.h"
#include "kiln/ir/op_registry.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "tests/unit/float_compare.h"

namespace kiln {
namespace {

using interp::Tensor;

std::unique_ptr<Module> parse(std::string_view text) {
  auto module = parseModule(text, "test.mlir");
  EXPECT_TRUE(module.isOk()) << module.status().diag().str();
  return module.isOk() ? std::move(*module) : nullptr;
}

std::unique_ptr<cpu::CpuExecutable> compile(const Module& module, std::string_view entry = "main",
                                            const cpu::CpuCompileOptions& options = {}) {
  auto executable = cpu::compileForCpu(module, entry, options);
  EXPECT_TRUE(executable.isOk()) << executable.status().diag().str();
  return executable.isOk() ? std::move(*executable) : nullptr;
}

// Tensors of `type` with pseudo-random contents (floats in [-1, 1], small ints).
Tensor randomTensor(Type type, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (type.elementType().isFloat()) t.setFloat(i, std::uniform_real_distribution<double>(-1, 1)(rng));
    else t.setInt(i, std::uniform_int_distribution<int64_t>(-5, 5)(rng));
  }
  return t;
}

std::string describe(const Tensor& t) {
  return t.type().isTensor() ? printAttribute(t.toDense()) : t.type().str();
}

Type typeOf(std::string_view text) {
  auto type = parseType(text);
  EXPECT_TRUE(type.isOk()) << text;
  return *type;
}

// Whether `a` and `b` agree: bitwise, or for f32/f64 tensors within
// `maxUlp` units in the last place element by element.
bool agree(const Tensor& a, const Tensor& b, uint64_t maxUlp) {
  if (a == b) return true;
  if (maxUlp == 0 || a.type() != b.type() || !a.type().isTensor()) return false;
  TypeKind kind = a.elementType().kind();
  if (kind != TypeKind::F32 && kind != TypeKind::F64) return false;
  for (int64_t i = 0; i < a.numElements(); ++i)
    if (testing::ulpDistance(a.getFloat(i), b.getFloat(i), kind == TypeKind::F32) > maxUlp) return false;
  return true;
}

// Runs `entry` on both back ends and expects the same results: bitwise, or
// within `maxUlp` for programs whose kernels approximate exp/tanh (the
// emitter's vectorized f32 math, math_approx.cpp) where the interpreter
// rounds libm's double result.
void expectSameAsInterpreter(const Module& module, const cpu::CpuExecutable& executable,
                             const std::vector<Tensor>& args, uint64_t maxUlp = 0) {
  std::string_view entry = "main";
  auto oracle = interp::runFunction(module, entry, args);
  ASSERT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  auto results = executable.run(args);
  ASSERT_TRUE(results.isOk()) << results.status().diag().str();
  ASSERT_EQ(results->size(), oracle->size());
  for (size_t i = 0; i < results->size(); ++i)
    EXPECT_TRUE(agree((*results)[i], (*oracle)[i], maxUlp)) << "result " << i << ": cpu "
                                               << describe((*results)[i]) << " vs interpreter "
                                               << describe((*oracle)[i]);
}

constexpr std::string_view kWhileWithCapture = R"(
func.func @main(%x: tensor<8xf32>, %n: tensor<i32>) -> (tensor<8xf32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %half = stablehlo.constant dense<0.5> : tensor<8xf32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<8xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %scaled = stablehlo.multiply %acc, %half : tensor<8xf32>
      %shifted = stablehlo.add %scaled, %x : tensor<8xf32>
      stablehlo.return %next, %shifted : tensor<i32>, tensor<8xf32>
    }
  return %r#1, %r#0 : tensor<8xf32>, tensor<i32>
})";

TEST(CpuExecutable, WhileLoopRunsNativelyWithCapturedValues) {
  auto module = parse(kWhileWithCapture);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_GE(executable->stats().controlFlow, 1);
  EXPECT_GE(executable->stats().kernels, 2);  // the condition's compare, the body's math
  EXPECT_EQ(executable->stats().routines, 0);
  Type f32x8 = typeOf("tensor<8xf32>");
  for (int32_t n : {0, 1, 7}) {
    Tensor count(typeOf("tensor<i32>"));
    count.setInt(0, n);
    expectSameAsInterpreter(*module, *executable, {randomTensor(f32x8, n), count});
  }
}

constexpr std::string_view kBranches = R"(
func.func @main(%p: tensor<i1>, %k: tensor<i32>, %x: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %two = stablehlo.constant dense<2> : tensor<4xi32>
  %a = "stablehlo.if"(%p) ({
    %m = stablehlo.multiply %x, %two : tensor<4xi32>
    stablehlo.return %m : tensor<4xi32>
  }, {
    %s = stablehlo.subtract %x, %two : tensor<4xi32>
    stablehlo.return %s : tensor<4xi32>
  }) : (tensor<i1>) -> tensor<4xi32>
  %b = "stablehlo.case"(%k) ({
    stablehlo.return %x : tensor<4xi32>
  }, {
    %n = stablehlo.negate %x : tensor<4xi32>
    stablehlo.return %n : tensor<4xi32>
  }, {
    %q = stablehlo.add %x, %a : tensor<4xi32>
    stablehlo.return %q : tensor<4xi32>
  }) : (tensor<i32>) -> tensor<4xi32>
  return %a, %b : tensor<4xi32>, tensor<4xi32>
})";

TEST(CpuExecutable, IfAndCaseRunTheChosenBranch) {
  auto module = parse(kBranches);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().controlFlow, 2);
  EXPECT_EQ(executable->stats().routines, 0);
  Type i1 = typeOf("tensor<i1>"), i32 = typeOf("tensor<i32>");
  Tensor x = randomTensor(typeOf("tensor<4xi32>"), 3);
  for (bool p : {false, true}) {
    for (int32_t k : {-1, 0, 1, 2, 3, 100}) {  // out of range: the last branch
      Tensor pred(i1), index(i32);
      pred.setBool(0, p);
      index.setInt(0, k);
      expectSameAsInterpreter(*module, *executable, {pred, index, x});
    }
  }
}

constexpr std::string_view kTuplesAndTokens = R"(
func.func @main(%x: tensor<3xf32>, %y: tensor<2xi32>, %tok: !stablehlo.token) -> (tensor<2xi32>, tensor<3xf32>, !stablehlo.token) {
  %t = stablehlo.tuple %x, %y : tuple<tensor<3xf32>, tensor<2xi32>>
  %b:2 = stablehlo.optimization_barrier %x, %y : tensor<3xf32>, tensor<2xi32>
  %e = stablehlo.get_tuple_element %t[1] : (tuple<tensor<3xf32>, tensor<2xi32>>) -> tensor<2xi32>
  %s = stablehlo.add %b#0, %b#0 : tensor<3xf32>
  %tok2 = stablehlo.after_all %tok, %tok : !stablehlo.token
  return %e, %s, %tok2 : tensor<2xi32>, tensor<3xf32>, !stablehlo.token
})";

TEST(CpuExecutable, TuplesTokensAndBarriers) {
  auto module = parse(kTuplesAndTokens);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().routines, 0);
  expectSameAsInterpreter(*module, *executable,
                          {randomTensor(typeOf("tensor<3xf32>"), 1),
                           randomTensor(typeOf("tensor<2xi32>"), 2), Tensor(Type::token())});
}

constexpr std::string_view kSortRoutine = R"(
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %s = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<16xf32>) -> tensor<16xf32>
  %d = stablehlo.add %s, %s : tensor<16xf32>
  return %d : tensor<16xf32>
})";

TEST(CpuExecutable, SortRunsAsARoutine) {
  auto module = parse(kSortRoutine);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().routines, 1);
  EXPECT_EQ(executable->stats().kernels, 1);
  expectSameAsInterpreter(*module, *executable, {randomTensor(typeOf("tensor<16xf32>"), 5)});
}

constexpr std::string_view kCheckFails = R"(
func.func @main() {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %y = stablehlo.add %x, %x : tensor<2xi32>
  check.expect_eq_const %y, dense<[2, 5]> : tensor<2xi32>
  return
})";

TEST(CpuExecutable, CheckOpsReportLikeTheInterpreter) {
  auto module = parse(kCheckFails);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  auto oracle = interp::runFunction(*module, "main", {});
  auto results = executable->run({});
  ASSERT_FALSE(oracle.isOk());
  ASSERT_FALSE(results.isOk());
  EXPECT_EQ(results.status().diag().message, oracle.status().diag().message);
}

// How far the emitter's f32 exp/tanh may be from the interpreter's
// correctly rounded ones, accumulated over this test's few ops.
constexpr uint64_t kApproximateMathUlp = 16;

// A large elementwise kernel (over the 64K-element threshold) and a large
// row reduction: split across 4 threads, and run from 8 threads at once.
constexpr std::string_view kLarge = R"(
func.func @main(%x: tensor<512x256xf32>, %n: tensor<i32>) -> (tensor<512x256xf32>, tensor<512xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %izero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %e = stablehlo.exponential %x : tensor<512x256xf32>
  %t = stablehlo.tanh %e : tensor<512x256xf32>
  %sum = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<512x256xf32>, tensor<f32>) -> tensor<512xf32>
  %r:2 = stablehlo.while(%i = %izero, %acc = %t) : tensor<i32>, tensor<512x256xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %m = stablehlo.multiply %acc, %x : tensor<512x256xf32>
      stablehlo.return %next, %m : tensor<i32>, tensor<512x256xf32>
    }
  return %r#1, %sum : tensor<512x256xf32>, tensor<512xf32>
})";

TEST(CpuExecutable, ThreadedKernelsMatchSingleThreaded) {
  auto module = parse(kLarge);
  ASSERT_TRUE(module);
  cpu::CpuCompileOptions one, four;
  one.numThreads = 1;
  four.numThreads = 4;
  auto serial = compile(*module, "main", one);
  auto parallel = compile(*module, "main", four);
  ASSERT_TRUE(serial && parallel);
  EXPECT_GE(parallel->stats().parallelKernels, 2);  // exp/tanh and the loop body's multiply
  Tensor x = randomTensor(typeOf("tensor<512x256xf32>"), 9);
  Tensor n(typeOf("tensor<i32>"));
  n.setInt(0, 3);
  auto a = serial->run({x, n});
  auto b = parallel->run({x, n});
  ASSERT_TRUE(a.isOk() && b.isOk());
  // Each element is computed by the same code whatever thread runs it.
  EXPECT_TRUE((*a)[0] == (*b)[0]);
  EXPECT_TRUE((*a)[1] == (*b)[1]);
  expectSameAsInterpreter(*module, *parallel, {x, n}, kApproximateMathUlp);
}

// oneDNN runs on OpenMP threads: around each library call the running
// thread's OpenMP thread count is the executable's (numThreads 1: one
// thread, not every core), and the caller's own setting comes back after.
TEST(CpuExecutable, LibraryCallsUseTheExecutablesThreadCount) {
  std::thread([] {
    omp_set_num_threads(7);
    {
      cpu::OpenMpThreads scoped(1);
      EXPECT_EQ(omp_get_max_threads(), 1);
    }
    EXPECT_EQ(omp_get_max_threads(), 7);
  }).join();

  auto module = parse(R"(
func.func @main(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
})");
  ASSERT_TRUE(module);
  cpu::CpuCompileOptions options;
  options.numThreads = 1;
  auto executable = compile(*module, "main", options);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().libraryCalls, 1);
  std::thread([&] {
    omp_set_num_threads(7);
    auto result = executable->run({randomTensor(typeOf("tensor<128x128xf32>"), 1), randomTensor(typeOf("tensor<128x128xf32>"), 2)});
    EXPECT_TRUE(result.isOk());
    EXPECT_EQ(omp_get_max_threads(), 7);
  }).join();
}

TEST(CpuExecutable, OneExecutableRunsOnEightThreadsAtOnce) {
  auto module = parse(kLarge);
  ASSERT_TRUE(module);
  cpu::CpuCompileOptions options;
  options.numThreads = 4;
  auto executable = compile(*module, "main", options);
  ASSERT_TRUE(executable);
  constexpr int kThreads = 8;
  std::vector<std::vector<Tensor>> args, expected(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    Tensor n(typeOf("tensor<i32>"));
    n.setInt(0, t % 3);
    args.push_back({randomTensor(typeOf("tensor<512x256xf32>"), 100 + t), n});
    auto serial = executable->run(args.back());
    ASSERT_TRUE(serial.isOk()) << serial.status().diag().str();
    expected[t] = std::move(*serial);
  }
  std::vector<std::vector<Tensor>> got(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round) {
        auto results = executable->run(args[t]);
        if (!results.isOk()) {
          errors[t] = results.status().diag().str();
          return;
        }
        got[t] = std::move(*results);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    ASSERT_EQ(got[t].size(), 2u) << "thread " << t;
    EXPECT_TRUE(got[t][0] == expected[t][0]) << "thread " << t;
    EXPECT_TRUE(got[t][1] == expected[t][1]) << "thread " << t;
  }
}

TEST(CpuExecutable, CompileCacheSharesExecutables) {
  auto module = parse(kSortRoutine);
  ASSERT_TRUE(module);
  auto first = cpu::compileForCpuCached(*module, "main");
  auto second = cpu::compileForCpuCached(*module, "main");
  ASSERT_TRUE(first.isOk() && second.isOk());
  EXPECT_EQ(first->get(), second->get());
  cpu::CpuCompileOptions options;
  options.numThreads = 1;
  auto other = cpu::compileForCpuCached(*module, "main", options);
  ASSERT_TRUE(other.isOk());
  EXPECT_NE(first->get(), other->get());
  auto changed = parse(std::string(kSortRoutine).replace(std::string(kSortRoutine).find("LT"), 2, "GT"));
  auto third = cpu::compileForCpuCached(*changed, "main");
  ASSERT_TRUE(third.isOk());
  EXPECT_NE(first->get(), third->get());
}

TEST(CpuExecutable, CompileCacheIsSharedAcrossThreads) {
  auto module = parse(kBranches);
  ASSERT_TRUE(module);
  constexpr int kThreads = 4;
  std::vector<const cpu::CpuExecutable*> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto executable = cpu::compileForCpuCached(*module, "main");
      got[t] = executable.isOk() ? executable->get() : nullptr;
    });
  for (std::thread& thread : threads) thread.join();
  ASSERT_NE(got[0], nullptr);
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(got[t], got[0]) << "thread " << t;
}

TEST(CpuExecutable, DumpDirHoldsIrAndAssembly) {
  auto module = parse(kWhileWithCapture);
  ASSERT_TRUE(module);
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kiln_dump_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                               "_" + std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())));
  std::filesystem::remove_all(dir);
  cpu::CpuCompileOptions options;
  options.dumpDir = dir.string();
  ASSERT_TRUE(compile(*module, "main", options));
  auto read = [&](const std::string& name) {
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  EXPECT_NE(read("main.ll").find("define void @kernel0("), std::string::npos);
  EXPECT_NE(read("main.opt.ll").find("define void @kernel0("), std::string::npos);
  EXPECT_NE(read("main.s").find("kernel0:"), std::string::npos);
  // A second compile does not overwrite the first's files.
  ASSERT_TRUE(compile(*module, "main", options));
  EXPECT_TRUE(std::filesystem::exists(dir / "main.1.ll"));
  std::filesystem::remove_all(dir);
}

// No kernel, library call or routine runs collective_reduce: a compile
// error naming the op and its location, not a silent fallback.
TEST(CpuExecutable, AnOpWithNoFormIsACompileError) {
  auto module = parse(R"(func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = "stablehlo.collective_reduce"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
})");
  ASSERT_TRUE(module);
  auto executable = cpu::compileForCpu(*module, "main");
  ASSERT_FALSE(executable.isOk());
  EXPECT_EQ(executable.status().diag().message,
            "the cpu back end cannot compile 'stablehlo.collective_reduce' yet (test.mlir:2:8)");
}

// A fusion holding an op no kernel can compute (a sort) runs its body op by
// op: the sort as a routine, the add as a kernel of its own.
TEST(CpuExecutable, FusionTheEmitterRejectsRunsOpByOp) {
  auto module = parse(R"(func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = "kiln.fusion"(%x) <{kind = "loop"}> ({
  ^bb0(%a: tensor<8xf32>):
    %s = "stablehlo.sort"(%a) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %lt = stablehlo.compare LT, %p, %q, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 0 : i64, is_stable = true} : (tensor<8xf32>) -> tensor<8xf32>
    %d = stablehlo.add %s, %a : tensor<8xf32>
    "kiln.yield"(%d) : (tensor<8xf32>) -> ()
  }) : (tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
})");
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().fusionsRunOpByOp, 1);
  EXPECT_EQ(executable->stats().routines, 1);
  EXPECT_EQ(executable->stats().kernels, 1);
  expectSameAsInterpreter(*module, *executable, {randomTensor(typeOf("tensor<8xf32>"), 11)});
}

// kiln test compiles with folding off, so ops on constants run on the back
// end instead of in the interpreter at compile time.
TEST(CpuExecutable, FoldingOffKeepsOpsOnConstants) {
  auto module = parse(R"(func.func @main() -> tensor<3xi32> {
  %a = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %s = stablehlo.multiply %a, %b : tensor<3xi32>
  return %s : tensor<3xi32>
})");
  ASSERT_TRUE(module);
  auto folded = compile(*module);
  cpu::CpuCompileOptions noFolding;
  noFolding.foldConstants = false;
  auto computed = compile(*module, "main", noFolding);
  ASSERT_TRUE(folded && computed);
  EXPECT_EQ(folded->stats().kernels, 0);
  EXPECT_EQ(computed->stats().kernels, 1);
  expectSameAsInterpreter(*module, *folded, {});
  expectSameAsInterpreter(*module, *computed, {});
}

TEST(CpuExecutable, DiskCacheReusesCompiledCode) {
  auto module = parse(kWhileWithCapture);
  ASSERT_TRUE(module);
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kiln_cache_" + std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())));
  std::filesystem::remove_all(dir);
  cpu::CpuCompileOptions options;
  options.cacheDir = dir.string();
  auto first = compile(*module, "main", options);
  auto second = compile(*module, "main", options);
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(first->stats().loadedFromDiskCache);
  EXPECT_TRUE(second->stats().loadedFromDiskCache);
  Tensor count(typeOf("tensor<i32>"));
  count.setInt(0, 4);
  std::vector<Tensor> args = {randomTensor(typeOf("tensor<8xf32>"), 7), count};
  expectSameAsInterpreter(*module, *second, args);
  // Different kernels do not hit the entry.
  auto other = parse(std::string(kWhileWithCapture).replace(std::string(kWhileWithCapture).find("%acc, %half"), 11, "%acc, %acc"));
  ASSERT_TRUE(other);
  auto third = compile(*other, "main", options);
  ASSERT_TRUE(third);
  EXPECT_FALSE(third->stats().loadedFromDiskCache);
  std::filesystem::remove_all(dir);
}

// A module of several kernels is optimized and compiled in parts on as many
// threads as it may use, and runs as when compiled in one piece; the parts
// go through the disk cache together.
TEST(CpuExecutable, KernelsCompileInPartsOnThreads) {
  auto module = parse(R"(func.func @main(%x: tensor<64x32xf32>, %y: tensor<7xf32>) -> (tensor<64xf32>, tensor<7xf32>, tensor<32x64xf32>) {
  %e = stablehlo.exponential %x : tensor<64x32xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x32xf32>, tensor<f32>) -> tensor<64xf32>
  %t = stablehlo.tanh %y : tensor<7xf32>
  %u = stablehlo.transpose %x, dims = [1, 0] : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %v = stablehlo.sine %u : tensor<32x64xf32>
  return %s, %t, %v : tensor<64xf32>, tensor<7xf32>, tensor<32x64xf32>
})");
  ASSERT_TRUE(module);
  std::vector<Tensor> args = {randomTensor(typeOf("tensor<64x32xf32>"), 3), randomTensor(typeOf("tensor<7xf32>"), 4)};
  cpu::CpuCompileOptions oneThread;
  oneThread.numThreads = 1;
  auto whole = compile(*module, "main", oneThread);
  ASSERT_TRUE(whole);
  EXPECT_GE(whole->stats().kernels, 3);
  EXPECT_EQ(whole->stats().codegenParts, 1);
  expectSameAsInterpreter(*module, *whole, args, /*maxUlp=*/8);  // sums of approximated exps
  auto wholeResults = whole->run(args);
  ASSERT_TRUE(wholeResults.isOk());
  auto expectSameAsWhole = [&](const cpu::CpuExecutable& executable) {
    auto results = executable.run(args);
    ASSERT_TRUE(results.isOk()) << results.status().diag().str();
    for (size_t i = 0; i < results->size(); ++i)
      EXPECT_TRUE((*results)[i] == (*wholeResults)[i]) << "result " << i;
  };

  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kiln_parts_" + std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())));
  std::filesystem::remove_all(dir);
  cpu::CpuCompileOptions threeThreads;
  threeThreads.numThreads = 3;
  threeThreads.cacheDir = dir.string();
  auto parts = compile(*module, "main", threeThreads);
  ASSERT_TRUE(parts);
  EXPECT_EQ(parts->stats().codegenParts, 3);
  expectSameAsWhole(*parts);
  auto cached = compile(*module, "main", threeThreads);
  ASSERT_TRUE(cached);
  EXPECT_TRUE(cached->stats().loadedFromDiskCache);
  EXPECT_EQ(cached->stats().codegenParts, 0);
  expectSameAsWhole(*cached);
  std::filesystem::remove_all(dir);
}

// Every op kiln knows has a form on the cpu back end (planned structurally,
// or a routine, which covers the emitted ops' other instances too), except
// these, which the interpreter does not run either (a manual computation
// is lowered to the per-device program before a back end sees it:
// kiln/passes/inline_manual_computation.cpp; the cpu pipeline's
// drop_sharding removes sdy.sharding_group and sdy.propagation_barrier, which
// have no routine yet; interpreter.run_parallel is a test harness's op, which
// `kiln test` runs on the interpreter, its programs on the back end: see
// kiln/interp/run_parallel.h), and the deprecated ops the legalize pass
// rewrites before any back end sees them (kLegalized).
TEST(CpuExecutable, EveryRegisteredOpHasAForm) {
  const std::set<std::string_view> kNoForm = {"stablehlo.async_start",   "stablehlo.async_done",
                                              "stablehlo.collective_reduce", "sdy.manual_computation",
                                              "sdy.return",              "sdy.sharding_group",
                                              "sdy.propagation_barrier", "interpreter.run_parallel"};
  for (const OpDef* def : allOpDefs()) {
    std::string_view name = def->name;
    if (name == "builtin.module" || name == "func.func" || name == "sdy.mesh") continue;  // module-level symbols
    if (def->has(kLegalized)) {
      EXPECT_EQ(cpu::findRoutine(name), nullptr) << name << " is rewritten by legalize";
      continue;
    }
    bool covered = cpu::isStructuralOp(name) || cpu::findRoutine(name) != nullptr;
    EXPECT_EQ(covered, !kNoForm.count(name)) << name;
  }
  // And the routine table names only real ops, each once.
  std::set<std::string_view> seen;
  for (const cpu::RoutineEntry& entry : cpu::routineTable()) {
    EXPECT_NE(lookupOpDef(entry.op), nullptr) << entry.op;
    EXPECT_TRUE(seen.insert(entry.op).second) << entry.op << " is listed twice";
    EXPECT_FALSE(entry.reason.empty()) << entry.op;
  }
}

// Two replicas x two partitions. In a loop of three trips (so each collective
// runs three times and every trip must meet the same trip of the others),
// an all_reduce across replicas and a collective_permute around the
// partitions mix each instance's values with its peers'.
constexpr std::string_view kSpmdLoop = R"(
module attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 2 : i32} {
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<ui32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %rid = stablehlo.replica_id : tensor<ui32>
  %pid = stablehlo.partition_id : tensor<ui32>
  %rf = stablehlo.convert %rid : (tensor<ui32>) -> tensor<f32>
  %pf = stablehlo.convert %pid : (tensor<ui32>) -> tensor<f32>
  %ten = stablehlo.constant dense<10.0> : tensor<f32>
  %p10 = stablehlo.multiply %pf, %ten : tensor<f32>
  %k = stablehlo.add %rf, %p10 : tensor<f32>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<8xf32>
  %start = stablehlo.add %x, %kb : tensor<8xf32>
  %r:2 = stablehlo.while(%i = %zero, %acc = %start) : tensor<i32>, tensor<8xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<i32>
      %sum = "stablehlo.all_reduce"(%acc) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<8xf32>) -> tensor<8xf32>
      %moved = "stablehlo.collective_permute"(%sum) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>} : (tensor<8xf32>) -> tensor<8xf32>
      %mixed = stablehlo.subtract %moved, %kb : tensor<8xf32>
      stablehlo.return %next, %mixed : tensor<i32>, tensor<8xf32>
    }
  %both = stablehlo.add %rid, %pid : tensor<ui32>
  return %r#1, %both : tensor<8xf32>, tensor<ui32>
}
})";

TEST(CpuExecutable, ReplicasAndPartitionsRunTheirCollectivesTogether) {
  auto module = parse(kSpmdLoop);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  Tensor x = randomTensor(typeOf("tensor<8xf32>"), 7);
  auto instances = interp::declaredInstances(*module);
  ASSERT_TRUE(instances.isOk());
  auto oracle = interp::runFunctionOnAllInstances(*module, "main", {x}, *instances);
  ASSERT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  auto results = executable->runOnAllInstances({x});
  ASSERT_TRUE(results.isOk()) << results.status().diag().str();
  ASSERT_EQ(results->size(), 4u);
  for (size_t instance = 0; instance < 4; ++instance) {
    ASSERT_EQ((*results)[instance].size(), 2u);
    for (size_t i = 0; i < 2; ++i)
      EXPECT_EQ((*results)[instance][i], (*oracle)[instance][i])
          << "instance " << instance << " result " << i << ": cpu " << describe((*results)[instance][i])
          << " vs interpreter " << describe((*oracle)[instance][i]);
    // replica_id + partition_id of instance replica * 2 + partition.
    EXPECT_EQ((*results)[instance][1].getInt(0), int64_t(instance / 2 + instance % 2));
  }
  // run() runs every instance too and hands back instance 0's results.
  auto first = executable->run({x});
  ASSERT_TRUE(first.isOk()) << first.status().diag().str();
  EXPECT_EQ((*first)[0], (*results)[0][0]);
}

// Replica 1 fails (an infeed, which has no host to read from) before the all_reduce
// its peer waits in: the run reports replica 1's error instead of hanging.
constexpr std::string_view kOneReplicaFails = R"(
module attributes {mhlo.num_replicas = 2 : i32} {
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %rid = stablehlo.replica_id : tensor<ui32>
  %one = stablehlo.constant dense<1> : tensor<ui32>
  %is1 = stablehlo.compare EQ, %rid, %one, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %y = "stablehlo.if"(%is1) ({
    %token = stablehlo.after_all : !stablehlo.token
    %bad:2 = "stablehlo.infeed"(%token) <{infeed_config = ""}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    stablehlo.return %bad#0 : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %sum = "stablehlo.all_reduce"(%y) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
})";

TEST(CpuExecutable, AFailingReplicaStopsTheRunWithItsError) {
  auto module = parse(kOneReplicaFails);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  auto results = executable->runOnAllInstances({randomTensor(typeOf("tensor<4xf32>"), 1)});
  ASSERT_FALSE(results.isOk());
  EXPECT_NE(results.status().diag().message.find("infeed"), std::string::npos) << results.status().diag().str();
}

// Dots with tanh epilogues, one after the other: each intermediate is a
// oneDNN output read only by the next oneDNN call, so it lives in the run's
// arena (where buffer assignment reuses the memory of the dead ones); the
// result, returned, gets memory of its own. Reshapes are views.
constexpr std::string_view kArenaChain = R"(
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %b = stablehlo.tanh %a : tensor<64x64xf32>
  %c = stablehlo.dot_general %b, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %d = stablehlo.tanh %c : tensor<64x64xf32>
  %flat = stablehlo.reshape %d : (tensor<64x64xf32>) -> tensor<4096xf32>
  %back = stablehlo.reshape %flat : (tensor<4096xf32>) -> tensor<64x64xf32>
  %e = stablehlo.dot_general %back, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %f = stablehlo.tanh %e : tensor<64x64xf32>
  %g = stablehlo.dot_general %f, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
})";

// The same chain as a while loop's body, run 5 times with a captured weight:
// each trip's intermediates live in that trip's arena; the value carried to
// the next trip (placed in the arena too) outlives it.
constexpr std::string_view kArenaLoop = R"(
func.func @main(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %five = stablehlo.constant dense<5> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<64x64xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %five : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %a = stablehlo.dot_general %v, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %b = stablehlo.tanh %a : tensor<64x64xf32>
    %c = stablehlo.dot_general %b, %w, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
    %d = stablehlo.tanh %c : tensor<64x64xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %d : tensor<i32>, tensor<64x64xf32>
  }
  return %r#1 : tensor<64x64xf32>
})";

TEST(CpuExecutable, LoopBodiesUseAnArenaPerTrip) {
  auto module = parse(kArenaLoop);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().arenaValues, 1);  // in the body: tanh(first dot), which only the second dot reads
  Type f32x64x64 = typeOf("tensor<64x64xf32>");
  std::vector<Tensor> args = {randomTensor(f32x64x64, 1), randomTensor(f32x64x64, 2)};
  Tensor& w = args[1];
  for (int64_t i = 0; i < w.numElements(); ++i) w.setFloat(i, w.getFloat(i) / 8);  // keep tanh off its plateau
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(oracle.isOk());
  auto result = executable->run(args);
  ASSERT_TRUE(result.isOk()) << result.status().diag().str();
  for (int64_t i = 0; i < (*oracle)[0].numElements(); ++i)
    ASSERT_NEAR((*result)[0].getFloat(i), (*oracle)[0].getFloat(i), 1e-4) << "element " << i;
  auto repeat = executable->run(args);
  ASSERT_TRUE(repeat.isOk());
  EXPECT_TRUE((*repeat)[0] == (*result)[0]);
}

// While loops whose regions are only kernels, oneDNN calls and views run
// flat (flat_loop.h): the same kernels as through the step interpreter, so
// the same bits. A scan of a recurrent cell stacking its outputs with
// dynamic_update_slice (a variable written in place by its last writer);
// variables passed through, read before they are rewritten (copied),
// yielded twice, set to a capture or to a constant; oneDNN dots in the body;
// zero trips; a loop inside a loop (the inner one flat); a swap of two
// variables (run generically).
constexpr std::string_view kScanWithOutputs = R"(
func.func @main(%xs: tensor<6x2x16xf32>, %h0: tensor<2x16xf32>, %w: tensor<16x16xf32>, %u: tensor<16x16xf32>) -> (tensor<2x16xf32>, tensor<6x2x16xf32>, tensor<i32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %six = stablehlo.constant dense<6> : tensor<i32>
  %ys0 = stablehlo.constant dense<0.0> : tensor<6x2x16xf32>
  %r:3 = stablehlo.while(%i = %zero, %h = %h0, %ys = %ys0) : tensor<i32>, tensor<2x16xf32>, tensor<6x2x16xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %six, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %x3 = stablehlo.dynamic_slice %xs, %i, %zero, %zero, sizes = [1, 2, 16] : (tensor<6x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x16xf32>
    %x = stablehlo.reshape %x3 : (tensor<1x2x16xf32>) -> tensor<2x16xf32>
    %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %b = stablehlo.dot_general %h, %u, contracting_dims = [1] x [0] : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
    %c = stablehlo.add %a, %b : tensor<2x16xf32>
    %hn = stablehlo.tanh %c : tensor<2x16xf32>
    %y = stablehlo.reshape %hn : (tensor<2x16xf32>) -> tensor<1x2x16xf32>
    %ysn = stablehlo.dynamic_update_slice %ys, %y, %i, %zero, %zero : (tensor<6x2x16xf32>, tensor<1x2x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x2x16xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %hn, %ysn : tensor<i32>, tensor<2x16xf32>, tensor<6x2x16xf32>
  }
  return %r#1, %r#2, %r#0 : tensor<2x16xf32>, tensor<6x2x16xf32>, tensor<i32>
})";

constexpr std::string_view kLoopVariablesOfEveryKind = R"(
func.func @main(%x: tensor<4xf32>, %k: tensor<4xf32>, %n: tensor<i32>) -> (tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %r:7 = stablehlo.while(%i = %zero, %p = %x, %q = %x, %s = %x, %c = %x, %d = %x, %t = %x) : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i32>
    %m = stablehlo.multiply %q, %k : tensor<4xf32>
    %s2 = stablehlo.add %s, %m : tensor<4xf32>
    %t2 = stablehlo.multiply %m, %p : tensor<4xf32>
    %ti = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %tb = stablehlo.broadcast_in_dim %ti, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %t3 = stablehlo.add %t2, %tb : tensor<4xf32>
    %half = stablehlo.constant dense<[0.5, 1.5, 2.5, 3.5]> : tensor<4xf32>
    stablehlo.return %next, %p, %m, %s2, %m, %half, %t3 : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6 : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
})";

constexpr std::string_view kNestedLoopsAndASwap = R"(
func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %r:3 = stablehlo.while(%i = %zero, %a = %x, %b = %y) : tensor<i32>, tensor<8xf32>, tensor<8xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %inner:2 = stablehlo.while(%j = %zero, %v = %a) : tensor<i32>, tensor<8xf32>
     cond {
      %lt = stablehlo.compare LT, %j, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %w = stablehlo.add %v, %b : tensor<8xf32>
      %jn = stablehlo.add %j, %one : tensor<i32>
      stablehlo.return %jn, %w : tensor<i32>, tensor<8xf32>
    }
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %b, %inner#1 : tensor<i32>, tensor<8xf32>, tensor<8xf32>
  }
  return %r#1, %r#2 : tensor<8xf32>, tensor<8xf32>
})";

constexpr std::string_view kLibraryLoop = R"(
func.func @main(%x: tensor<128x64xf32>, %w: tensor<64x64xf32>) -> tensor<128x64xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %five = stablehlo.constant dense<5> : tensor<i32>
  %r:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<128x64xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %five : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %a = stablehlo.dot_general %v, %w, contracting_dims = [1] x [0] : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
    %b = stablehlo.tanh %a : tensor<128x64xf32>
    %c = stablehlo.dot_general %b, %w, contracting_dims = [1] x [0] : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %c : tensor<i32>, tensor<128x64xf32>
  }
  return %r#1 : tensor<128x64xf32>
})";

// A body yielding its variables permuted (threefry's key words rotated, its
// rotation constants swapped) and a multi-output fusion updating x and y,
// which it reads at the element it writes; x0 dies at the loop (taken over),
// y0 is returned too (copied). Large enough for kernels split across threads.
constexpr std::string_view kPermutedCarries = R"(
func.func @main(%a: tensor<65536xui32>, %b: tensor<65536xui32>, %k0: tensor<ui32>, %k1: tensor<ui32>, %k2: tensor<ui32>, %n: tensor<i32>) -> (tensor<65536xui32>, tensor<65536xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>, tensor<65536xui32>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %x0 = stablehlo.add %a, %b : tensor<65536xui32>
  %y0 = stablehlo.xor %a, %b : tensor<65536xui32>
  %r0 = stablehlo.constant dense<[13, 15]> : tensor<2xui32>
  %r1 = stablehlo.constant dense<[17, 29]> : tensor<2xui32>
  %r:8 = stablehlo.while(%i = %zero, %x = %x0, %y = %y0, %p = %k0, %q = %k1, %s = %k2, %u = %r0, %v = %r1) : tensor<i32>, tensor<65536xui32>, tensor<65536xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %u1 = stablehlo.slice %u [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %u0 = stablehlo.reshape %u1 : (tensor<1xui32>) -> tensor<ui32>
    %ub = stablehlo.broadcast_in_dim %u0, dims = [] : (tensor<ui32>) -> tensor<65536xui32>
    %sum = stablehlo.add %x, %y : tensor<65536xui32>
    %rot = stablehlo.shift_left %y, %ub : tensor<65536xui32>
    %pb = stablehlo.broadcast_in_dim %p, dims = [] : (tensor<ui32>) -> tensor<65536xui32>
    %y2 = stablehlo.xor %sum, %rot : tensor<65536xui32>
    %y3 = stablehlo.add %y2, %pb : tensor<65536xui32>
    %qb = stablehlo.broadcast_in_dim %q, dims = [] : (tensor<ui32>) -> tensor<65536xui32>
    %x2 = stablehlo.add %sum, %qb : tensor<65536xui32>
    %next = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %next, %x2, %y3, %q, %s, %p, %v, %u : tensor<i32>, tensor<65536xui32>, tensor<65536xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>
  }
  return %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %y0 : tensor<65536xui32>, tensor<65536xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>, tensor<65536xui32>
})";

// Runs `module` flat and through the step interpreter on `args`: the same
// bits, the interpreter's (or within `tolerance` of its floats: f32 dot
// sums and tanh), and the arguments untouched. Returns how many loops ran
// flat.
int expectFlatLoopsMatch(const Module& module, const std::vector<Tensor>& args, double tolerance = 0) {
  cpu::CpuCompileOptions generic;
  generic.flatLoops = false;
  auto flat = compile(module), stepByStep = compile(module, "main", generic);
  if (!flat || !stepByStep) return -1;
  EXPECT_EQ(stepByStep->stats().flatLoops, 0);
  std::vector<Tensor> before;
  for (const Tensor& arg : args) before.push_back(Tensor(arg.type(), std::vector<uint8_t>(arg.bytes(), arg.bytes() + arg.byteSize())));
  auto flatResults = flat->run(args);
  auto genericResults = stepByStep->run(args);
  EXPECT_TRUE(flatResults.isOk()) << flatResults.status().diag().str();
  EXPECT_TRUE(genericResults.isOk()) << genericResults.status().diag().str();
  if (!flatResults.isOk() || !genericResults.isOk()) return -1;
  EXPECT_EQ(flatResults->size(), genericResults->size());
  for (size_t i = 0; i < std::min(flatResults->size(), genericResults->size()); ++i)
    EXPECT_TRUE((*flatResults)[i] == (*genericResults)[i]) << "result " << i << ": flat " << describe((*flatResults)[i])
                                                           << " vs step by step " << describe((*genericResults)[i]);
  for (size_t i = 0; i < args.size(); ++i) EXPECT_TRUE(args[i] == before[i]) << "argument " << i << " was written";
  auto oracle = interp::runFunction(module, "main", args);
  EXPECT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  if (!oracle.isOk() || oracle->size() != flatResults->size()) return -1;
  for (size_t i = 0; i < oracle->size(); ++i) {
    const Tensor &got = (*flatResults)[i], &want = (*oracle)[i];
    if (tolerance == 0 || !want.elementType().isFloat()) {
      EXPECT_TRUE(got == want) << "result " << i << ": cpu " << describe(got) << " vs interpreter " << describe(want);
      continue;
    }
    for (int64_t e = 0; e < want.numElements(); ++e)
      EXPECT_NEAR(got.getFloat(e), want.getFloat(e), tolerance) << "result " << i << " element " << e;
  }
  return flat->stats().flatLoops;
}

TEST(CpuExecutable, LoopsOfKernelsRunFlatWithTheSameResults) {
  auto scan = parse(kScanWithOutputs);
  ASSERT_TRUE(scan);
  Type f32x16x16 = typeOf("tensor<16x16xf32>");
  Tensor w = randomTensor(f32x16x16, 3), u = randomTensor(f32x16x16, 4);
  for (int64_t i = 0; i < w.numElements(); ++i) w.setFloat(i, w.getFloat(i) / 4), u.setFloat(i, u.getFloat(i) / 4);
  EXPECT_EQ(expectFlatLoopsMatch(*scan, {randomTensor(typeOf("tensor<6x2x16xf32>"), 1),
                                         randomTensor(typeOf("tensor<2x16xf32>"), 2), w, u},
                                 /*tolerance=*/1e-5),
            1);
  // The stacked outputs (dynamic_update_slice) are written in place. The
  // state is not: with x_t @ w hoisted out of the loop (while_simplify), one
  // kernel reads the whole state in its dot and writes the next. The
  // counter, read after its increment, is copied.
  EXPECT_EQ(compile(*scan)->stats().loopVariablesInPlace, 1);
  // Its 6 trips are known at compile time (the cost of all of them decides
  // whether the runtime may run it on the caller's thread); twice the trips,
  // twice the cost.
  cpu::CpuCompileStats six = compile(*scan)->stats();
  EXPECT_EQ(six.boundedLoops, 1);
  EXPECT_GT(six.boundedLoopFlops, 0);
  std::string twelveTrips(kScanWithOutputs);
  twelveTrips.replace(twelveTrips.find("dense<6>"), 8, "dense<12>");
  auto twelve = parse(twelveTrips);
  ASSERT_TRUE(twelve);
  EXPECT_DOUBLE_EQ(compile(*twelve)->stats().boundedLoopFlops, 2 * six.boundedLoopFlops);

  auto variables = parse(kLoopVariablesOfEveryKind);
  ASSERT_TRUE(variables);
  Type f32x4 = typeOf("tensor<4xf32>");
  for (int32_t n : {-1, 0, 1, 5}) {
    Tensor count(typeOf("tensor<i32>"));
    count.setInt(0, n);
    EXPECT_EQ(expectFlatLoopsMatch(*variables, {randomTensor(f32x4, 5), randomTensor(f32x4, 6), count}), 1)
        << n << " trips";
  }
  // The three outputs of the multi-output fusion are written in place: q's
  // and s's new values over q and s, which it reads only at the element it
  // writes (every output's element is computed before any is stored), and
  // t's. c (q's new value again), the counter (read after its increment)
  // and the constant are copied.
  EXPECT_EQ(compile(*variables)->stats().loopVariablesInPlace, 3);
  EXPECT_EQ(compile(*variables)->stats().boundedLoops, 0);  // its trip count is an argument

  auto nested = parse(kNestedLoopsAndASwap);
  ASSERT_TRUE(nested);
  Type f32x8 = typeOf("tensor<8xf32>");
  EXPECT_EQ(expectFlatLoopsMatch(*nested, {randomTensor(f32x8, 7), randomTensor(f32x8, 8)}), 1);

  // oneDNN calls in the body (2^19 multiply-adds each), one with an epilogue.
  auto library = parse(kLibraryLoop);
  ASSERT_TRUE(library);
  Tensor x = randomTensor(typeOf("tensor<128x64xf32>"), 1), weight = randomTensor(typeOf("tensor<64x64xf32>"), 2);
  for (int64_t i = 0; i < weight.numElements(); ++i) weight.setFloat(i, weight.getFloat(i) / 8);
  EXPECT_EQ(expectFlatLoopsMatch(*library, {x, weight}, /*tolerance=*/1e-5), 1);
  EXPECT_EQ(compile(*library)->stats().libraryCalls, 2);
}

TEST(CpuExecutable, LoopsYieldingPermutedVariablesRunFlat) {
  auto module = parse(kPermutedCarries);
  ASSERT_TRUE(module);
  Type words = typeOf("tensor<65536xui32>"), word = typeOf("tensor<ui32>");
  std::vector<Tensor> args = {randomTensor(words, 1), randomTensor(words, 2)};
  for (int64_t k : {11, 22, 33}) {
    Tensor key(word);
    key.setInt(0, k);
    args.push_back(key);
  }
  args.emplace_back(typeOf("tensor<i32>"));
  for (int32_t trips : {0, 1, 2, 3, 7}) {
    args.back().setInt(0, trips);
    SCOPED_TRACE(std::to_string(trips) + " trips");
    EXPECT_EQ(expectFlatLoopsMatch(*module, args), 1);
  }
  // The counter, x and y in place; the key words and the constants copied
  // through snapshots of their old values.
  EXPECT_EQ(compile(*module)->stats().loopVariablesInPlace, 3);
}

// A loop variable accumulating a dot's result (a scan's weight gradient:
// acc = acc + x_i^T g_i, the add fused into the dot as its epilogue). Each
// trip must read the sum of the trips before it: it once read the first
// trip's, so any count above one gave twice the dot.
constexpr std::string_view kDotAccumulatedInALoop = R"(
func.func @main(%a: tensor<16x4xf32>, %b: tensor<4x16xf32>, %n: tensor<i32>) -> tensor<16x16xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %z = stablehlo.constant dense<0.0> : tensor<16x16xf32>
  %r:2 = stablehlo.while(%i = %c0, %acc = %z) : tensor<i32>, tensor<16x16xf32>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x4xf32>, tensor<4x16xf32>) -> tensor<16x16xf32>
    %s = stablehlo.add %acc, %d : tensor<16x16xf32>
    %next = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %next, %s : tensor<i32>, tensor<16x16xf32>
  }
  return %r#1 : tensor<16x16xf32>
})";

TEST(CpuExecutable, ALoopAccumulatingADotSumsEveryTrip) {
  auto module = parse(kDotAccumulatedInALoop);
  ASSERT_TRUE(module);
  Tensor a = randomTensor(typeOf("tensor<16x4xf32>"), 5), b = randomTensor(typeOf("tensor<4x16xf32>"), 6);
  for (int32_t trips : {1, 2, 3, 7}) {
    Tensor n(typeOf("tensor<i32>"));
    n.setInt(0, trips);
    SCOPED_TRACE(std::to_string(trips) + " trips");
    EXPECT_EQ(expectFlatLoopsMatch(*module, {a, b, n}, /*tolerance=*/1e-4), 1);
  }
}

// A recurrent cell whose weights the loop never changes: h = tanh(h . w + b),
// n trips. JAX passes w as a loop variable the body yields unchanged (the
// pipeline may make it a capture). The dot's w is the weights oneDNN packs
// once per loop run (flat_loop.h); @{MUL} in place of `w` makes a variant
// whose w changes every trip, which must not be packed.
constexpr std::string_view kRecurrentCell = R"(
func.func @main(%h0: tensor<@Mx@Kx@T>, %w0: tensor<@Kx@Kx@T>, %b: tensor<@Kx@T>, %n: tensor<i32>) -> tensor<@Mx@Kx@T> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:3 = stablehlo.while(%i = %c0, %w = %w0, %h = %h0) : tensor<i32>, tensor<@Kx@Kx@T>, tensor<@Mx@Kx@T>
   cond {
    %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %d = stablehlo.dot_general %h, %w, contracting_dims = [1] x [@C] : (tensor<@Mx@Kx@T>, tensor<@Kx@Kx@T>) -> tensor<@Mx@Kx@T>
    %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<@Kx@T>) -> tensor<@Mx@Kx@T>
    %s = stablehlo.add %d, %bb : tensor<@Mx@Kx@T>
    %t = stablehlo.tanh %s : tensor<@Mx@Kx@T>
    %next = stablehlo.add %i, %c1 : tensor<i32>
    %half = stablehlo.constant dense<0.5> : tensor<@Kx@Kx@T>
    %wh = stablehlo.multiply %w, %half : tensor<@Kx@Kx@T>
    stablehlo.return %next, @W, %t : tensor<i32>, tensor<@Kx@Kx@T>, tensor<@Mx@Kx@T>
  }
  return %r#2 : tensor<@Mx@Kx@T>
})";

std::string recurrentCell(int64_t m, int64_t k, std::string_view type, bool transposed, bool changingWeights) {
  std::string text(kRecurrentCell);
  auto replaceAll = [&](std::string_view from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replaceAll("@M", std::to_string(m));
  replaceAll("@K", std::to_string(k));
  replaceAll("@T", std::string(type));
  replaceAll("@C", transposed ? "1" : "0");
  replaceAll("@W", changingWeights ? "%wh" : "%w");
  return text;
}

TEST(CpuExecutable, ALoopPacksItsInvariantWeightsOnceAndAgrees) {
  struct Case {
    int64_t m, k;
    const char* type;
    bool transposed, changingWeights;
    int threads;
  };
  // 40x128x128 is above the emitted dots' limit (2^19 multiply-adds): a
  // oneDNN step. 32x256x256 and up are split across several threads (row
  // tiles of the packed weights); 200 pads oneDNN's blocks of 64 and 16.
  const Case cases[] = {{40, 128, "f32", false, false, 1}, {40, 128, "f32", true, false, 1},
                        {24, 200, "f32", false, false, 1}, {32, 256, "f32", false, false, 2},
                        {32, 256, "f32", true, false, 4},  {40, 200, "f32", false, false, 4},
                        {32, 256, "bf16", false, false, 2}, {40, 128, "bf16", true, false, 1},
                        {32, 256, "f32", false, true, 2},  {40, 128, "f32", false, true, 1}};
  for (const Case& c : cases) {
    std::string text = recurrentCell(c.m, c.k, c.type, c.transposed, c.changingWeights);
    SCOPED_TRACE(std::to_string(c.m) + "x" + std::to_string(c.k) + " " + c.type + (c.transposed ? " transposed" : "") +
                 (c.changingWeights ? " changing weights" : "") + ", " + std::to_string(c.threads) + " threads");
    auto module = parse(text);
    ASSERT_TRUE(module);
    cpu::CpuCompileOptions options;
    options.numThreads = c.threads;
    auto executable = compile(*module, "main", options);
    ASSERT_TRUE(executable);
    EXPECT_EQ(executable->stats().flatLoops, 1);
    EXPECT_EQ(executable->stats().libraryCalls, 1);
    EXPECT_EQ(executable->stats().loopWeightsPacked, c.changingWeights ? 0 : 1);
    bool bf16 = std::string_view(c.type) == "bf16";
    Type hType = typeOf("tensor<" + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" + c.type + ">");
    Type wType = typeOf("tensor<" + std::to_string(c.k) + "x" + std::to_string(c.k) + "x" + c.type + ">");
    Type bType = typeOf("tensor<" + std::to_string(c.k) + "x" + c.type + ">");
    // Two runs with different weights and trip counts: the packed weights
    // are the run's own, not the first run's.
    for (uint64_t seed : {1, 2}) {
      Tensor w = randomTensor(wType, 10 * seed + 1);
      for (int64_t i = 0; i < w.numElements(); ++i) w.setFloat(i, w.getFloat(i) * 2 / std::sqrt(double(c.k)));
      Tensor n(typeOf("tensor<i32>"));
      for (int32_t trips : {0, 1, 3}) {
        n.setInt(0, trips + int32_t(seed) - 1);
        std::vector<Tensor> args = {randomTensor(hType, 10 * seed), w, randomTensor(bType, 10 * seed + 2), n};
        auto got = executable->run(args);
        ASSERT_TRUE(got.isOk()) << got.status().diag().str();
        auto want = interp::runFunction(*module, "main", args);
        ASSERT_TRUE(want.isOk()) << want.status().diag().str();
        double tolerance = bf16 ? 2e-2 : 2e-5;
        for (int64_t e = 0; e < (*want)[0].numElements(); ++e)
          ASSERT_NEAR((*got)[0].getFloat(e), (*want)[0].getFloat(e), tolerance)
              << "element " << e << ", seed " << seed << ", " << n.getInt(0) << " trips";
      }
    }
  }
}

TEST(CpuExecutable, IntermediatesLiveInTheArenaAndResultsOutliveTheRun) {
  auto module = parse(kArenaChain);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().arenaValues, 3);
  // Three 16 KiB values, at most two alive at once (the one read and the one
  // written): buffer assignment packs them into two slots.
  EXPECT_EQ(executable->stats().arenaBytes, 2 * 64 * 64 * 4);
  // Four dots with their tanh as an epilogue (emitted loops: 2^18
  // multiply-adds each); the reshapes are views.
  EXPECT_EQ(executable->stats().kernels + executable->stats().libraryCalls, 4);
  Type f32x64x64 = typeOf("tensor<64x64xf32>");
  std::vector<Tensor> first = {randomTensor(f32x64x64, 1), randomTensor(f32x64x64, 2)};
  auto oracle = interp::runFunction(*module, "main", first);
  ASSERT_TRUE(oracle.isOk());
  auto kept = executable->run(first);
  ASSERT_TRUE(kept.isOk()) << kept.status().diag().str();
  std::vector<uint8_t> keptBytes((*kept)[0].bytes(), (*kept)[0].bytes() + (*kept)[0].byteSize());
  for (int64_t i = 0; i < (*oracle)[0].numElements(); ++i)
    ASSERT_NEAR((*kept)[0].getFloat(i), (*oracle)[0].getFloat(i), 1e-4) << "element " << i;
  // Later runs (reusing the arena's memory, from the allocator's cache) leave
  // the first result alone.
  for (uint64_t seed = 3; seed < 7; ++seed) {
    auto again = executable->run({randomTensor(f32x64x64, seed), randomTensor(f32x64x64, seed + 10)});
    ASSERT_TRUE(again.isOk());
  }
  EXPECT_TRUE(std::equal(keptBytes.begin(), keptBytes.end(), (*kept)[0].bytes()));
  // And the same inputs give the same bits again.
  auto repeat = executable->run(first);
  ASSERT_TRUE(repeat.isOk());
  EXPECT_TRUE((*repeat)[0] == (*kept)[0]);
}

// An SGD update of donated parameters: the new parameters are computed into
// the donated argument's memory when the caller gave it away (no other
// tensor holds it), and into fresh memory when the caller kept it.
constexpr std::string_view kDonatedUpdate = R"(
func.func @main(%p: tensor<1024xf32> {jax.buffer_donor = true}, %g: tensor<1024xf32>) -> tensor<1024xf32> {
  %lr = stablehlo.constant dense<0.125> : tensor<1024xf32>
  %step = stablehlo.multiply %g, %lr : tensor<1024xf32>
  %next = stablehlo.subtract %p, %step : tensor<1024xf32>
  return %next : tensor<1024xf32>
})";

TEST(CpuExecutable, ResultsAreComputedIntoDonatedArgumentsGivenAway) {
  auto module = parse(kDonatedUpdate);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_EQ(executable->stats().valuesInDonatedArguments, 1);
  Type f32x1024 = typeOf("tensor<1024xf32>");
  Tensor p = randomTensor(f32x1024, 1), g = randomTensor(f32x1024, 2);
  Tensor kept = p;  // the caller holds on to p: it must not change
  std::vector<uint8_t> before(p.bytes(), p.bytes() + p.byteSize());
  auto oracle = interp::runFunction(*module, "main", {p, g});
  ASSERT_TRUE(oracle.isOk());
  auto fresh = executable->run({p, g});
  ASSERT_TRUE(fresh.isOk()) << fresh.status().diag().str();
  EXPECT_TRUE((*fresh)[0] == (*oracle)[0]);
  EXPECT_NE((*fresh)[0].bytes(), kept.bytes());
  EXPECT_TRUE(std::equal(before.begin(), before.end(), kept.bytes()));
  // Given away: the result lives where the argument was.
  const uint8_t* memory = p.bytes();
  kept = Tensor();
  std::vector<Tensor> args;
  args.push_back(std::move(p));
  args.push_back(g);
  auto inPlace = executable->run(std::move(args));
  ASSERT_TRUE(inPlace.isOk()) << inPlace.status().diag().str();
  EXPECT_EQ((*inPlace)[0].bytes(), memory);
  EXPECT_TRUE((*inPlace)[0] == (*oracle)[0]);
}

// x + 1 outside any fusion: the splat 1 is an immediate of the kernel's code,
// not a materialized tensor the kernel reads (which doubled its traffic).
TEST(CpuExecutable, SplatConstantOperandsAreKernelCode) {
  auto module = parse(R"(
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %one = stablehlo.constant dense<1.0> : tensor<4096xf32>
  %r = stablehlo.add %x, %one : tensor<4096xf32>
  return %r : tensor<4096xf32>
})");
  ASSERT_TRUE(module);
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("kiln_splat_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  cpu::CpuCompileOptions options;
  options.dumpDir = dir.string();
  auto executable = compile(*module, "main", options);
  ASSERT_TRUE(executable);
  std::ifstream in(dir / "main.ll");
  std::stringstream ir;
  ir << in.rdbuf();
  EXPECT_NE(ir.str().find("fadd float %"), std::string::npos) << ir.str();
  EXPECT_NE(ir.str().find(", 1.000000e+00"), std::string::npos) << ir.str();
  EXPECT_EQ(ir.str().find("ptr %0, i64 1"), std::string::npos) << "the kernel reads a second input:\n" << ir.str();
  expectSameAsInterpreter(*module, *executable, {randomTensor(typeOf("tensor<4096xf32>"), 4)});
  std::filesystem::remove_all(dir);
}

TEST(CpuExecutable, ArgumentsAreChecked) {
  auto module = parse(kSortRoutine);
  ASSERT_TRUE(module);
  auto executable = compile(*module);
  ASSERT_TRUE(executable);
  EXPECT_FALSE(executable->run({}).isOk());
  EXPECT_FALSE(executable->run({Tensor(typeOf("tensor<15xf32>"))}).isOk());
}

}  // namespace
}  // namespace kiln
