// The fusion pass: what each rule fuses, what each guard refuses, and that
// fused programs compute bit-identical results in the interpreter.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "kiln/interp/interpreter_impl.h"
#include "kiln/ir/printer.h"
#include "kiln/passes/fusion_util.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/fusion.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln::interp {
void registerFusionKernels(KernelTable& t);  // ops_fusion.cpp
}  // namespace kiln::interp

namespace kiln {
namespace {

std::unique_ptr<Module> parse(const std::string& text, const std::string& name = "test.mlir") {
  auto module = parseModule(text, name);
  EXPECT_TRUE(module.isOk()) << module.status().message();
  if (!module.isOk()) return nullptr;
  Status verified = verifyModule(**module);
  EXPECT_TRUE(verified.isOk()) << verified.message();
  return std::move(*module);
}

// Runs inline + fusion (with the cpu back end's policy unless given another)
// and verifies the result.
void fuse(Module& module, FusionOptions options = {}, const FusionPolicy& policy = cpuFusionPolicy()) {
  ASSERT_TRUE(createInlinePass()->run(module).isOk());
  ASSERT_TRUE(createFusionPass(policy, std::move(options))->run(module).isOk());
  Status verified = verifyModule(module);
  ASSERT_TRUE(verified.isOk()) << verified.message() << "\n" << printModule(module);
}

Block& mainBody(const Module& m) { return func::body(*m.functions().front()); }

std::vector<Operation*> topLevel(const Module& m, std::string_view name) {
  std::vector<Operation*> ops;
  for (Operation& op : mainBody(m))
    if (op.name() == name) ops.push_back(&op);
  return ops;
}

int64_t bodyOps(const Operation& fusion) { return int64_t(fusion.region(0).front().size()) - 1; }

// Top-level values (results of ops other than constants) with `elements` elements.
int countIntermediatesOfSize(const Module& m, int64_t elements) {
  int n = 0;
  for (Operation& op : mainBody(m))
    for (Value* r : op.results())
      if (op.name() != "func.return" && r->type().isTensor() && r->type().numElements() == elements &&
          !r->uses().empty() && r->uses().front().user->name() != "func.return")
        ++n;
  return n;
}

// A chain of `length` elementwise ops on f32[n], alternating cheap ops.
std::string elementwiseChain(int length, int64_t n) {
  std::string t = "tensor<" + std::to_string(n) + "xf32>";
  std::ostringstream s;
  s << "func.func @main(%x: " << t << ", %y: " << t << ") -> " << t << " {\n  %v0 = stablehlo.add %x, %y : " << t << "\n";
  const char* ops[] = {"stablehlo.multiply", "stablehlo.subtract", "stablehlo.maximum", "stablehlo.add"};
  for (int i = 1; i < length; ++i)
    s << "  %v" << i << " = " << ops[i % 4] << " %v" << i - 1 << ", %x : " << t << "\n";
  s << "  return %v" << length - 1 << " : " << t << "\n}\n";
  return s.str();
}

// jax.jit(jax.nn.softmax).lower(x).as_text() for x: f32[rows, cols] (JAX 0.10).
std::string softmax(int64_t rows, int64_t cols) {
  std::string r = std::to_string(rows), full = "tensor<" + r + "x" + std::to_string(cols) + "xf32>",
              vec = "tensor<" + r + "xf32>", col = "tensor<" + r + "x1xf32>";
  return "func.func public @main(%arg0: " + full + ") -> " + full + " {\n" +
         "  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (" + full +
         ", tensor<f32>) -> " + vec + "\n" +
         "  %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> " + vec + "\n" +
         "  %2 = stablehlo.maximum %1, %0 : " + vec + "\n" +
         "  %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (" + vec + ") -> " + col + "\n" +
         "  %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (" + col + ") -> " + full + "\n" +
         "  %5 = stablehlo.subtract %arg0, %4 : " + full + "\n" +
         "  %6 = stablehlo.exponential %5 : " + full + "\n" +
         "  %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
         "  %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (" + full +
         ", tensor<f32>) -> " + vec + "\n" +
         "  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (" + vec + ") -> " + col + "\n" +
         "  %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (" + col + ") -> " + full + "\n" +
         "  %10 = stablehlo.divide %6, %9 : " + full + "\n" +
         "  return %10 : " + full + "\n}\n";
}

// jax.jit of layernorm as written with jnp (mean, mean of squared deviation,
// rsqrt, scale, shift); chlo.square spelled as a multiply.
std::string layernorm(int64_t rows, int64_t cols) {
  std::string r = std::to_string(rows), c = std::to_string(cols), full = "tensor<" + r + "x" + c + "xf32>",
              vec = "tensor<" + r + "xf32>", col = "tensor<" + r + "x1xf32>", par = "tensor<" + c + "xf32>",
              row = "tensor<1x" + c + "xf32>", n = std::to_string(cols) + ".0";
  return "func.func public @main(%arg0: " + full + ", %arg1: " + par + ", %arg2: " + par + ") -> " + full + " {\n" +
         "  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
         "  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (" + full +
         ", tensor<f32>) -> " + vec + "\n" +
         "  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (" + vec + ") -> " + col + "\n" +
         "  %cst_0 = stablehlo.constant dense<" + n + "> : tensor<f32>\n"
         "  %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> " + col + "\n" +
         "  %3 = stablehlo.divide %1, %2 : " + col + "\n" +
         "  %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (" + col + ") -> " + full + "\n" +
         "  %5 = stablehlo.subtract %arg0, %4 : " + full + "\n" +
         "  %6 = stablehlo.multiply %5, %5 : " + full + "\n" +
         "  %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [1] : (" + full +
         ", tensor<f32>) -> " + vec + "\n" +
         "  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (" + vec + ") -> " + col + "\n" +
         "  %10 = stablehlo.divide %8, %2 : " + col + "\n" +
         "  %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (" + col + ") -> " + full + "\n" +
         "  %12 = stablehlo.subtract %arg0, %11 : " + full + "\n" +
         "  %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>\n"
         "  %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> " + col + "\n" +
         "  %14 = stablehlo.add %10, %13 : " + col + "\n" +
         "  %15 = stablehlo.rsqrt %14 : " + col + "\n" +
         "  %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (" + col + ") -> " + full + "\n" +
         "  %17 = stablehlo.multiply %12, %16 : " + full + "\n" +
         "  %18 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (" + par + ") -> " + row + "\n" +
         "  %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1] : (" + row + ") -> " + full + "\n" +
         "  %20 = stablehlo.multiply %17, %19 : " + full + "\n" +
         "  %21 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (" + par + ") -> " + row + "\n" +
         "  %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (" + row + ") -> " + full + "\n" +
         "  %23 = stablehlo.add %20, %22 : " + full + "\n" +
         "  return %23 : " + full + "\n}\n";
}

// ---- Interpreter comparison ---------------------------------------------------

// Deterministic pseudo-random values of `type`: floats in [-2, 2), integers
// in [0, 4) (small enough to be valid indices and loop counts), random bools.
interp::Tensor randomTensor(Type type, std::mt19937& rng) {
  if (type.kind() == TypeKind::Tuple) return interp::Tensor(type);
  interp::Tensor t(type);
  if (!type.isTensor()) return t;
  Type e = type.elementType();
  std::uniform_real_distribution<double> real(-2.0, 2.0);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (e.isBool()) t.setBool(i, rng() % 2);
    else if (e.isInteger()) t.setInt(i, rng() % 4);
    else if (e.isFloat()) t.setFloat(i, real(rng));
    else if (e.isComplex()) t.setComplex(i, {real(rng), real(rng)});
  }
  return t;
}

const interp::KernelTable& kernelsWithFusion() {
  static const interp::KernelTable table = [] {
    interp::KernelTable t = interp::allKernels();
    interp::registerFusionKernels(t);
    return t;
  }();
  return table;
}

Expected<std::vector<interp::Tensor>> run(const Module& m, std::string_view fn, std::vector<interp::Tensor> args) {
  interp::Interpreter interpreter(m, kernelsWithFusion(), {});
  return interpreter.callFunction(fn, std::move(args), m.op().loc());
}

// The name of the function to run: `main` if present, else the first public one.
std::string entryPoint(const Module& m) {
  if (m.lookupFunction("main")) return "main";
  for (Operation* fn : m.functions())
    if (func::isPublic(*fn)) return std::string(func::name(*fn));
  return std::string(func::name(*m.functions().front()));
}

// Runs `text` before and after inline+fusion on the same random inputs and
// expects bit-identical results; returns an empty string or what went wrong.
// `kernelsAfter`, when given, receives the fused program's kernel count.
std::string compareBeforeAfterFusion(const std::string& text, const std::string& name,
                                     int64_t* kernelsAfter = nullptr) {
  auto before = parseModule(text, name);
  if (!before.isOk()) return "parse: " + before.status().message();
  auto after = parseModule(text, name);
  if (!createInlinePass()->run(**before).isOk()) return "inline failed";
  if (!createInlinePass()->run(**after).isOk() || !createFusionPass(cpuFusionPolicy())->run(**after).isOk())
    return "fusion failed";
  if (Status s = verifyModule(**after); !s.isOk()) return "fused module does not verify: " + s.message();
  std::string fn = entryPoint(**before);
  if (kernelsAfter) *kernelsAfter = countKernels(func::body(*(*after)->lookupFunction(fn)));
  std::mt19937 rng(1234);
  std::vector<interp::Tensor> args;
  for (Type t : func::type(*(*before)->lookupFunction(fn)).inputs()) args.push_back(randomTensor(t, rng));
  auto expected = run(**before, fn, args);
  if (!expected.isOk()) return "unfused program does not run: " + expected.status().message();
  auto actual = run(**after, fn, args);
  if (!actual.isOk()) return "fused program does not run: " + actual.status().message();
  if (expected->size() != actual->size()) return "result count differs";
  for (size_t i = 0; i < expected->size(); ++i)
    if (!((*expected)[i] == (*actual)[i])) return "result #" + std::to_string(i) + " differs";
  return "";
}

// ---- Loop fusion -------------------------------------------------------------

TEST(FusionTest, HundredElementwiseOpsOnOneMillionFloatsBecomeOneKernel) {
  auto m = parse(elementwiseChain(100, 1048576));
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u) << printModule(*m);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "loop");
  EXPECT_EQ(bodyOps(*fusions[0]), 100);
  EXPECT_EQ(countKernels(mainBody(*m)), 1);
  // Only the two inputs enter the kernel and only the result leaves it.
  EXPECT_EQ(fusions[0]->numOperands(), 2u);
  EXPECT_EQ(fusions[0]->numResults(), 1u);
}

TEST(FusionTest, ChainLongerThanTheOpCapIsSplit) {
  auto m = parse(elementwiseChain(300, 16));
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 2u);
  EXPECT_EQ(bodyOps(*fusions[0]) + bodyOps(*fusions[1]), 300);
  EXPECT_LE(bodyOps(*fusions[1]), 256);
}

// Straight chains of `length` elementwise ops on tensor<16xf32>, three ways:
// every op also reads the function's argument (one value with `length`
// uses), each reads only its predecessor, or each reads a splat constant of
// its own (the constants are copied into the fusions).
enum class Chain { kSharedArgument, kPredecessorOnly, kConstants };
std::string straightChain(Chain kind, int length) {
  const char* t = "tensor<16xf32>";
  std::ostringstream s;
  s << "func.func @main(%x: " << t << ") -> " << t << " {\n  %v0 = stablehlo.negate %x : " << t << "\n";
  const char* ops[] = {"stablehlo.multiply", "stablehlo.subtract", "stablehlo.maximum", "stablehlo.add"};
  for (int i = 1; i < length; ++i) {
    std::string other = kind == Chain::kSharedArgument ? "%x" : "%v" + std::to_string(i - 1);
    if (kind == Chain::kConstants) {
      s << "  %c" << i << " = stablehlo.constant dense<" << i << ".0> : " << t << "\n";
      other = "%c" + std::to_string(i);
    }
    s << "  %v" << i << " = " << ops[i % 4] << " %v" << i - 1 << ", " << other << " : " << t << "\n";
  }
  s << "  return %v" << length - 1 << " : " << t << "\n}\n";
  return s.str();
}

// The pass's work on a straight chain grows linearly with its length:
// counted (FusionStats), not timed. Each op is written into a fusion body a
// bounded number of times, and the phases look at each op a bounded number
// of times. Before, every producer fused copied its fusion's whole body
// again (about 128 ops written per op of the chain), and the multi-output
// phase walked the dependences between every pair of kernels reading the
// shared argument (cubic in their number).
TEST(FusionTest, WorkOnStraightChainsGrowsLinearly) {
  for (Chain kind : {Chain::kSharedArgument, Chain::kPredecessorOnly, Chain::kConstants}) {
    SCOPED_TRACE(static_cast<int>(kind));
    const int kShort = 2048, kLong = 8 * kShort, kCap = static_cast<int>(fusion_policy::kMaxFusionOps);
    FusionStats work[2];
    for (int i = 0; i < 2; ++i) {
      int length = i == 0 ? kShort : kLong;
      auto m = parse(straightChain(kind, length));
      ASSERT_TRUE(m);
      FusionOptions options;
      options.stats = &work[i];
      fuse(*m, options);
      // The chain ends up in full kernels of the op cap.
      EXPECT_EQ(countKernels(mainBody(*m)), (length + kCap - 1) / kCap);
      std::cout << "chain " << static_cast<int>(kind) << " of " << length << " ops: " << work[i].opsWritten
                << " ops written, " << work[i].opsVisited << " visited, " << work[i].decisions << " decisions\n";
      // Each op (and constant) is cloned into a body once and moved at most once more.
      int64_t ops = kind == Chain::kConstants ? 2 * length : length;
      EXPECT_LE(work[i].opsWritten, 2 * ops + 2 * length / kCap + 2);
      // Of those, each op is cloned into a body once (the rest are moves).
      EXPECT_LE(work[i].opsCloned, ops);
      EXPECT_LE(work[i].decisions, 2 * ops);
      EXPECT_LE(work[i].opsVisited, 8 * ops);
    }
    // Eight times the chain, at most eight times the work (and some slack
    // for the kernels' edges): a quadratic term would make it 64.
    EXPECT_LE(work[1].opsWritten, 9 * work[0].opsWritten);
    EXPECT_LE(work[1].opsVisited, 9 * work[0].opsVisited);
    EXPECT_LE(work[1].decisions, 9 * work[0].decisions);
  }
}

// `readers` kernels that all read one value and nothing else of each other,
// all returned, three ways: elementwise ops on the function's argument (the
// multi-output phase joins them), on a computed value every reader copies
// (phase 1 asks, for each reader, where the value's other users stand), and
// row reductions of the argument (the sibling phase joins them).
enum class Readers { kArgument, kComputed, kReductions };
std::string manyReaders(Readers kind, int readers) {
  const char* t = "tensor<16x16xf32>";
  const char* out = kind == Readers::kReductions ? "tensor<16xf32>" : t;
  std::ostringstream s, results, types;
  s << "func.func @main(%a: " << t << ") -> (";
  for (int i = 0; i < readers; ++i) s << (i ? ", " : "") << out;
  s << ") {\n";
  if (kind == Readers::kComputed) s << "  %x = stablehlo.exponential %a : " << t << "\n";
  if (kind == Readers::kReductions) s << "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n";
  const char* x = kind == Readers::kComputed ? "%x" : "%a";
  const char* ops[] = {"stablehlo.multiply", "stablehlo.subtract", "stablehlo.maximum", "stablehlo.add"};
  for (int i = 0; i < readers; ++i) {
    if (kind == Readers::kReductions)
      s << "  %r" << i << " = stablehlo.reduce(" << x << " init: %zero) applies " << ops[i % 4]
        << " across dimensions = [1] : (" << t << ", tensor<f32>) -> " << out << "\n";
    else
      s << "  %r" << i << " = " << ops[i % 4] << " " << x << ", " << x << " : " << t << "\n";
    results << (i ? ", " : "") << "%r" << i;
    types << (i ? ", " : "") << out;
  }
  s << "  return " << results.str() << " : " << types.str() << "\n}\n";
  return s.str();
}

// The pass's work when many kernels read one value grows (near) linearly
// with their number: counted (FusionStats), not timed. Before, each kernel
// of the multi-output and sibling phases looked again at every other reader
// after each merge, and phase 1 walked the rest of the block for each other
// user of a shared producer.
TEST(FusionTest, WorkOnManyReadersOfOneValueGrowsLinearly) {
  for (Readers kind : {Readers::kArgument, Readers::kComputed, Readers::kReductions}) {
    SCOPED_TRACE(static_cast<int>(kind));
    const int kFew = 1024, kMany = 8 * kFew, kCap = static_cast<int>(fusion_policy::kMaxFusionOps);
    FusionStats work[2];
    for (int i = 0; i < 2; ++i) {
      int readers = i == 0 ? kFew : kMany;
      auto m = parse(manyReaders(kind, readers));
      ASSERT_TRUE(m);
      FusionOptions options;
      options.stats = &work[i];
      fuse(*m, options);
      // The readers end up in multi-output kernels at the op cap (each
      // reader of the computed value holds its own copy of it).
      int perReader = kind == Readers::kComputed ? 2 : 1;
      EXPECT_EQ(countKernels(mainBody(*m)), (readers * perReader + kCap - 1) / kCap);
      std::cout << "readers " << static_cast<int>(kind) << ", " << readers << " of them: " << work[i].opsWritten
                << " ops written (" << work[i].opsCloned << " cloned), " << work[i].opsVisited << " visited, "
                << work[i].decisions << " decisions\n";
      // The kernels are merged a reader at a time, each merge moving the
      // bodies of the two into one: every op is cloned into a body once
      // (a copy of the computed value per reader, the reductions' zero
      // constant per kernel), never again. When a merge copied both bodies,
      // every op written was a clone (opsWritten: about kCap / 2 per reader).
      int64_t kernels = (readers * perReader + kCap - 1) / kCap;
      EXPECT_LE(work[i].opsCloned, readers * perReader + kernels);
    }
    // Eight times the readers, at most nine times the work (a log factor
    // and the kernels' edges): a quadratic term would make it 64.
    EXPECT_LE(work[1].opsWritten, 9 * work[0].opsWritten);
    EXPECT_LE(work[1].opsVisited, 9 * work[0].opsVisited);
    EXPECT_LE(work[1].decisions, 9 * work[0].decisions);
  }
}

// Merging two kernels moves their bodies into the new one: the ops inside
// are the same objects afterwards, in the same order (the first kernel's,
// then the second's), the merged kernel reads each outer value once, yields
// what is used outside both, and computes what the two did.
TEST(FusionTest, MergingTwoKernelsMovesTheirBodiesWithoutCopying) {
  const char* text = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %x, %y : tensor<4xf32>
  %1 = stablehlo.multiply %0, %x : tensor<4xf32>
  %2 = stablehlo.subtract %x, %1 : tensor<4xf32>
  %3 = stablehlo.maximum %2, %y : tensor<4xf32>
  return %1, %3 : tensor<4xf32>, tensor<4xf32>
})";
  auto m = parse(text);
  ASSERT_TRUE(m);
  auto reference = parse(text);
  ASSERT_TRUE(reference);
  std::vector<Operation*> ops = mainBody(*m).ops();
  int64_t cloned = 0;
  Operation* firstPair[] = {ops[0], ops[1]};
  Operation* first = fusion::outline(firstPair, &cloned);
  Operation* secondPair[] = {ops[2], ops[3]};
  Operation* second = fusion::outline(secondPair, &cloned);
  EXPECT_EQ(cloned, 4);  // plain ops are cloned
  std::vector<Operation*> inside = fusion::computedOps(*first);
  for (Operation* op : fusion::computedOps(*second)) inside.push_back(op);
  ASSERT_EQ(inside.size(), 4u);

  Operation* pair[] = {first, second};
  Operation* merged = fusion::outline(pair, &cloned);
  EXPECT_EQ(cloned, 4) << "a merge of two kernels cloned ops";
  EXPECT_EQ(fusion::computedOps(*merged), inside) << printModule(*m);
  ASSERT_TRUE(verifyModule(*m).isOk()) << printModule(*m);
  ASSERT_EQ(topLevel(*m, "kiln.fusion").size(), 1u);
  EXPECT_EQ(merged->numOperands(), 2u);  // %x and %y, once each
  EXPECT_EQ(merged->numResults(), 2u);   // %1 (returned) and %3
  EXPECT_EQ(merged->attr("kind").stringValue(), "multi_output");
  // The moved ops read the merged kernel's arguments and each other.
  Block& body = merged->region(0).front();
  for (Operation* op : inside)
    for (Value* v : op->operands())
      EXPECT_TRUE(v->ownerBlock() == &body || (v->definingOp() && v->definingOp()->parentBlock() == &body))
          << printModule(*m);

  std::mt19937 rng(7);
  std::vector<interp::Tensor> args;
  for (Type t : func::type(*reference->functions().front()).inputs()) args.push_back(randomTensor(t, rng));
  auto expected = run(*reference, "main", args);
  auto actual = run(*m, "main", args);
  ASSERT_TRUE(expected.isOk()) << expected.status().message();
  ASSERT_TRUE(actual.isOk()) << actual.status().message();
  ASSERT_EQ(actual->size(), 2u);
  EXPECT_TRUE((*actual)[0] == (*expected)[0]);
  EXPECT_TRUE((*actual)[1] == (*expected)[1]);
}

TEST(FusionTest, DataMovementAndSplatConstantsJoinTheLoop) {
  auto m = parse(R"(
func.func @main(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x4xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
  %0 = stablehlo.multiply %x, %cb : tensor<4x8xf32>
  %1 = stablehlo.add %0, %bb : tensor<4x8xf32>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %3 = stablehlo.convert %2 : tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
})");
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->numOperands(), 2u);  // x and b; the constant is inside
  EXPECT_TRUE(topLevel(*m, "stablehlo.constant").empty());
  EXPECT_EQ(countKernels(mainBody(*m)), 1);
}

// ---- Input fusion and row fusion ---------------------------------------------

TEST(FusionTest, SoftmaxOver1024x4096IsAtMostTwoKernelsWithoutFullSizeIntermediates) {
  auto m = parse(softmax(1024, 4096));
  fuse(*m);
  EXPECT_LE(countKernels(mainBody(*m)), 2) << printModule(*m);
  EXPECT_EQ(countIntermediatesOfSize(*m, 1024 * 4096), 0) << printModule(*m);
}

TEST(FusionTest, LayernormIsAtMostTwoKernelsWithoutFullSizeIntermediates) {
  auto m = parse(layernorm(1024, 4096));
  fuse(*m);
  EXPECT_LE(countKernels(mainBody(*m)), 2) << printModule(*m);
  EXPECT_EQ(countIntermediatesOfSize(*m, 1024 * 4096), 0) << printModule(*m);
}

TEST(FusionTest, SoftmaxAndLayernormKeepTheirResultsBitForBit) {
  EXPECT_EQ(compareBeforeAfterFusion(softmax(8, 16), "softmax"), "");
  EXPECT_EQ(compareBeforeAfterFusion(layernorm(8, 16), "layernorm"), "");
}

TEST(FusionTest, RowsLargerThanTheCacheBudgetAreNotRowFused) {
  // A row of 131072 f32 is 512 KiB, above the cpu's maxRowBytes: the reduce-sum and the
  // divide stay separate kernels (exp is recomputed in both, not stored).
  auto m = parse(softmax(4, 131072));
  fuse(*m);
  EXPECT_EQ(countKernels(mainBody(*m)), 3) << printModule(*m);
  EXPECT_EQ(countIntermediatesOfSize(*m, 4 * 131072), 0);
}

TEST(FusionTest, RowsInTheCacheBudgetAreRowFused) {
  // 32000 f32 (a vocabulary's logits, 125 KiB) fit the cpu's maxRowBytes: one row kernel.
  auto m = parse(softmax(4, 32000));
  fuse(*m);
  EXPECT_EQ(countKernels(mainBody(*m)), 1) << printModule(*m);
}

TEST(FusionTest, TheBackEndsPolicySetsTheRowBudget) {
  // The same 512 KiB rows, for a back end whose cache holds them: one row kernel.
  FusionPolicy largeCache = cpuFusionPolicy();
  largeCache.maxRowBytes = 512 * 1024;
  auto m = parse(softmax(4, 131072));
  fuse(*m, {}, largeCache);
  EXPECT_LE(countKernels(mainBody(*m)), 2) << printModule(*m);
}

// A loss and its gradient shaped like jax.value_and_grad's cross-entropy:
// the row max (made finite, as logsumexp does) and the sum of exp(x - max)
// feed the loss (a sum over the rows, an op before the gradient) and the
// gradient, exp(x - max) times a per-row scale. The scale reads the max
// before the sum, so that row fusion meets the max first, as in JAX's
// program. With `lossInGradient` the gradient also reads the loss.
std::string lossAndGradient(int64_t rows, int64_t cols, bool lossInGradient) {
  std::string full = "tensor<" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>",
              vec = "tensor<" + std::to_string(rows) + "xf32>";
  std::string gradient = lossInGradient ? "  %lb = stablehlo.broadcast_in_dim %loss, dims = [] : (tensor<f32>) -> " + full +
                                              "\n  %q = stablehlo.multiply %sb, %e : " + full + "\n  %g = stablehlo.multiply %q, %lb : " + full + "\n"
                                        : "  %g = stablehlo.multiply %sb, %e : " + full + "\n";
  return "func.func @main(%x: " + full + ") -> (tensor<f32>, " + full + ") {\n"
         "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n"
         "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
         "  %m0 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (" + full + ", tensor<f32>) -> " + vec + "\n"
         "  %ninfs = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> " + vec + "\n"
         "  %zeros = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> " + vec + "\n"
         "  %m1 = stablehlo.maximum %ninfs, %m0 : " + vec + "\n"
         "  %finite = stablehlo.is_finite %m1 : (" + vec + ") -> tensor<" + std::to_string(rows) + "xi1>\n"
         "  %m = stablehlo.select %finite, %m1, %zeros : tensor<" + std::to_string(rows) + "xi1>, " + vec + "\n"
         "  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (" + vec + ") -> " + full + "\n"
         "  %d = stablehlo.subtract %x, %mb : " + full + "\n"
         "  %e = stablehlo.exponential %d : " + full + "\n"
         "  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (" + full + ", tensor<f32>) -> " + vec + "\n"
         "  %l = stablehlo.log %s : " + vec + "\n"
         "  %lm = stablehlo.add %l, %m : " + vec + "\n"
         "  %loss = stablehlo.reduce(%lm init: %zero) applies stablehlo.add across dimensions = [0] : (" + vec + ", tensor<f32>) -> tensor<f32>\n"
         "  %scale = stablehlo.divide %m1, %s : " + vec + "\n"
         "  %sb = stablehlo.broadcast_in_dim %scale, dims = [0] : (" + vec + ") -> " + full + "\n" + gradient +
         "  return %loss, %g : tensor<f32>, " + full + "\n}\n";
}

TEST(FusionTest, ALossReadingTheRowReductionsMovesAfterTheRowKernel) {
  // The max, the exp-sum and the gradient are one row kernel that computes exp
  // once per element; the loss, which reads the max and the sum, runs after it.
  auto m = parse(lossAndGradient(4, 32000, false));
  fuse(*m);
  EXPECT_EQ(countKernels(mainBody(*m)), 2) << printModule(*m);
  EXPECT_EQ(countIntermediatesOfSize(*m, 4 * 32000), 0) << printModule(*m);
  std::vector<Operation*> fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 2u) << printModule(*m);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "multi_output") << printModule(*m);
  EXPECT_EQ(fusions[0]->numResults(), 3u) << printModule(*m);  // the max, the sum, the gradient
  EXPECT_EQ(compareBeforeAfterFusion(lossAndGradient(4, 300, false), "loss and gradient"), "");
}

TEST(FusionTest, AReductionsUserTheConsumerReadsStaysBeforeIt) {
  // The gradient reads the loss: the loss cannot move after it, so the row
  // reductions it reads stay kernels of their own.
  auto m = parse(lossAndGradient(4, 32000, true));
  fuse(*m);
  EXPECT_GE(countKernels(mainBody(*m)), 3) << printModule(*m);
  EXPECT_EQ(compareBeforeAfterFusion(lossAndGradient(4, 300, true), "loss in the gradient"), "");
}

TEST(FusionTest, ProducersOfAReductionAreFusedIntoIt) {
  auto m = parse(R"(
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.multiply %x, %y : tensor<4x8xf32>
  %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
})");
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "input");
  EXPECT_EQ(countKernels(mainBody(*m)), 1);
}

// ---- Sibling fusion -----------------------------------------------------------

TEST(FusionTest, ReductionsOfTheSameInputShareOneMultiOutputKernel) {
  auto m = parse(R"(
func.func @main(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %2 = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
})");
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u) << printModule(*m);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "multi_output");
  EXPECT_EQ(fusions[0]->numResults(), 2u);
  EXPECT_EQ(fusions[0]->numOperands(), 1u);
}

// ---- Output fusion -----------------------------------------------------------

const char* kDenseRelu = R"(
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %2 = stablehlo.add %0, %1 : tensor<4x16xf32>
  %c = stablehlo.constant dense<0.0> : tensor<4x16xf32>
  %3 = stablehlo.maximum %2, %c : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
})";

TEST(FusionTest, BiasAndReluAreFusedIntoTheDotAsAnOutputFusion) {
  auto m = parse(kDenseRelu);
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u) << printModule(*m);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "output");
  EXPECT_EQ(fusions[0]->region(0).front().front()->name(), "stablehlo.dot_general");
  EXPECT_EQ(compareBeforeAfterFusion(kDenseRelu, "dense_relu"), "");
}

TEST(FusionTest, DotOperandsAreNotFusedIntoTheOutputFusion) {
  auto m = parse(R"(
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %t = stablehlo.exponential %x : tensor<4x8xf32>
  %0 = stablehlo.dot_general %t, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.tanh %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
})");
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "output");
  EXPECT_EQ(topLevel(*m, "stablehlo.exponential").size(), 1u);
}

TEST(FusionTest, TheBackEndsPolicySaysWhichEpiloguesItsLibraryCallsRun) {
  // A back end whose library calls run no epilogue: the dot stays a plain call.
  FusionPolicy noEpilogues = cpuFusionPolicy();
  noEpilogues.runsInLibraryCall = [](const Operation&, bool, Type) { return false; };
  auto m = parse(kDenseRelu);
  fuse(*m, {}, noEpilogues);
  EXPECT_EQ(topLevel(*m, "stablehlo.dot_general").size(), 1u) << printModule(*m);
  for (Operation* fusion : topLevel(*m, "kiln.fusion")) EXPECT_NE(fusion->attr("kind").stringValue(), "output");
}

// ---- Guards ------------------------------------------------------------------

TEST(FusionTest, ADotWithTwoUsersIsNeverDuplicated) {
  auto m = parse(R"(
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = stablehlo.tanh %0 : tensor<4x16xf32>
  %2 = stablehlo.logistic %0 : tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
})");
  std::vector<std::string> lines;
  fuse(*m, FusionOptions{[&](const std::string& line) { lines.push_back(line); }});
  EXPECT_EQ(topLevel(*m, "stablehlo.dot_general").size(), 1u);
  // The two epilogues read the dot: one kernel with both outputs, no dot inside.
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u);
  EXPECT_EQ(fusions[0]->attr("kind").stringValue(), "multi_output");
  EXPECT_EQ(fusions[0]->operand(0)->definingOp()->name(), "stablehlo.dot_general");
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("not fused (a dot/convolution with other users would be computed twice)"),
            std::string::npos)
      << lines[0];
}

TEST(FusionTest, AnExpensivePerRowValueIsNotRecomputedPerElement) {
  auto m = parse(R"(
func.func @main(%x: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4x8xf32> {
  %0 = stablehlo.rsqrt %s : tensor<4xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
  %2 = stablehlo.multiply %x, %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
})");
  fuse(*m);
  EXPECT_EQ(topLevel(*m, "stablehlo.rsqrt").size(), 1u);
  EXPECT_EQ(countKernels(mainBody(*m)), 2);
}

// Returned, the exp is stored anyway: not recomputed in the negate's
// kernel but computed by it once, as one of its outputs.
TEST(FusionTest, ACheapProducerStoredAnywayIsAnOutputOfItsConsumersKernel) {
  auto m = parse(R"(
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.negate %0 : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
})");
  fuse(*m);
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u) << printModule(*m);
  EXPECT_EQ(fusions[0]->numResults(), 2u);
  int exps = 0;
  for (Operation* op : fusion::computedOps(*fusions[0])) exps += op->name() == "stablehlo.exponential";
  EXPECT_EQ(exps, 1) << printModule(*m);
}

TEST(FusionTest, RecomputationIsCappedByCost) {
  // Three exps in a chain (cost 60) are recomputed by both consumers at most
  // up to kMaxDuplicatedCost; a fourth would exceed it.
  auto m = parse(R"(
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = stablehlo.exponential %x : tensor<8xf32>
  %1 = stablehlo.exponential %0 : tensor<8xf32>
  %2 = stablehlo.exponential %1 : tensor<8xf32>
  %3 = stablehlo.exponential %2 : tensor<8xf32>
  %4 = stablehlo.negate %3 : tensor<8xf32>
  %5 = stablehlo.abs %3 : tensor<8xf32>
  return %4, %5 : tensor<8xf32>, tensor<8xf32>
})");
  std::vector<std::string> lines;
  fuse(*m, FusionOptions{[&](const std::string& line) { lines.push_back(line); }});
  EXPECT_NE(std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
              return l.find("stablehlo.exponential at 3:") != std::string::npos &&
                     l.find("not fused (recomputing it would bring the fusion's recomputed cost above 60)") != std::string::npos;
            }),
            lines.end());
  // The abs kernel recomputed three exps, not the fourth; the last phase
  // merged the kernels, so the first exp is computed once: 4 + 3 in all.
  auto fusions = topLevel(*m, "kiln.fusion");
  ASSERT_EQ(fusions.size(), 1u) << printModule(*m);
  int exps = 0;
  for (Operation* op : fusion::computedOps(*fusions[0])) exps += op->name() == "stablehlo.exponential";
  EXPECT_EQ(exps, 7) << printModule(*m);
}

TEST(FusionTest, RegistryPassUsesTheExplainSink) {
  std::vector<std::string> lines;
  setFusionExplainSink([&](const std::string& line) { lines.push_back(line); });
  auto m = parse(elementwiseChain(2, 4));
  ASSERT_TRUE(lookupPass("fusion")->create()->run(*m).isOk());
  setFusionExplainSink(nullptr);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("fusion: stablehlo.add at 2:"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("-> stablehlo.subtract at 3:"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(": fused (elementwise producer)"), std::string::npos) << lines[0];
}

// ---- Semantic preservation on the JAX corpus -----------------------------------

TEST(FusionTest, EveryJaxCorpusProgramGivesBitIdenticalResultsAfterFusion) {
  std::filesystem::path dir = std::filesystem::path(__FILE__).parent_path() / ".." / "corpus" / "jax";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no programs in " << dir;
  int64_t fusedPrograms = 0;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    int64_t kernelsAfter = -1;
    EXPECT_EQ(compareBeforeAfterFusion(text.str(), file.string(), &kernelsAfter), "") << file.filename();
    auto unfused = parseModule(text.str(), file.string());
    if (!unfused.isOk() || kernelsAfter < 0) continue;
    ASSERT_TRUE(createInlinePass()->run(**unfused).isOk());
    int64_t kernelsBefore = countKernels(func::body(*(*unfused)->lookupFunction(entryPoint(**unfused))));
    std::cout << file.filename().string() << ": " << kernelsBefore << " -> " << kernelsAfter << " kernels\n";
    fusedPrograms += kernelsAfter < kernelsBefore;
  }
  // The comparison means something only if fusion actually happened.
  EXPECT_GE(fusedPrograms, int64_t(files.size()) / 2);
}

}  // namespace
}  // namespace kiln
