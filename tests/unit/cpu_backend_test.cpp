// The cpu back end against the interpreter (the oracle): each program runs on
// both and the results must agree — bitwise for integers and predicates,
// within 2 ULP for floats (transcendentals go through libm in double on both
// sides, so in practice they agree to 0-1 ULP). A few results with known
// semantics (XLA's integer division, saturating conversion) are also checked
// against hand-computed values.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/backends/cpu/onednn_dot.h"
#include "tests/unit/float_compare.h"
#include "kiln/interp/interpreter.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"

namespace kiln {
namespace {

using interp::Tensor;

// Parses and verifies (the back end expects verified programs, as the tools give it).
std::unique_ptr<Module> parse(const std::string& text) {
  auto module = parseModule(text, "cpu_test.mlir");
  EXPECT_TRUE(module.isOk()) << module.status().diag().str();
  if (!module.isOk()) return nullptr;
  Status verified = verifyModule(**module);
  EXPECT_TRUE(verified.isOk()) << verified.diag().str();
  return verified.isOk() ? std::move(*module) : nullptr;
}

// A tensor of `type` (MLIR text) holding `values`, each stored as the element type.
Tensor tensorOf(const std::string& type, const std::vector<double>& values) {
  Expected<Type> t = parseType(type);
  EXPECT_TRUE(t.isOk());
  Tensor tensor(*t);
  for (size_t i = 0; i < values.size(); ++i) {
    if (t->elementType().isFloat()) tensor.setFloat(i, values[i]);
    else if (t->elementType().isBool()) tensor.setBool(i, values[i] != 0);
    else tensor.setInt(i, static_cast<int64_t>(values[i]));
  }
  return tensor;
}

using testing::ulpDistance;

constexpr uint64_t kMaxUlp = 2;
// Results that pass through a float sum: within this fraction of the result's
// largest magnitude (see expectWithin).
constexpr double kSumTolerance = 1e-5;

void expectClose(const Tensor& cpu, const Tensor& oracle, const std::string& what, uint64_t maxUlp = kMaxUlp) {
  ASSERT_EQ(cpu.type(), oracle.type()) << what;
  Type element = cpu.elementType();
  if (!element.isFloat()) {
    EXPECT_TRUE(cpu == oracle) << what << ": integers/predicates must match bitwise";
    return;
  }
  for (int64_t i = 0; i < cpu.numElements(); ++i)
    EXPECT_LE(ulpDistance(cpu.getFloat(i), oracle.getFloat(i), element.kind() == TypeKind::F32), maxUlp)
        << what << " element " << i << ": cpu " << cpu.getFloat(i) << " vs interpreter " << oracle.getFloat(i);
}

// oneDNN reorders a dot's accumulation and float sums are vectorized into
// partial sums, so their results are compared within `relative` of the
// largest magnitude in the interpreter's result.
void expectWithin(const Tensor& cpu, const Tensor& oracle, double relative, const std::string& what) {
  ASSERT_EQ(cpu.type(), oracle.type()) << what;
  double scale = 1.0;
  for (int64_t i = 0; i < oracle.numElements(); ++i) scale = std::max(scale, std::abs(oracle.getFloat(i)));
  for (int64_t i = 0; i < cpu.numElements(); ++i) {
    if (std::isnan(cpu.getFloat(i)) && std::isnan(oracle.getFloat(i))) continue;
    EXPECT_LE(std::abs(cpu.getFloat(i) - oracle.getFloat(i)), relative * scale)
        << what << " element " << i << ": cpu " << cpu.getFloat(i) << " vs interpreter " << oracle.getFloat(i);
  }
}

// Runs @main on the cpu back end and on the interpreter, compares (within
// 2 ULP, or within `relative` of the result's scale when it is given), and
// returns the cpu results.
// `text` after the cpu pass pipeline (what the back end compiles); null
// (with a test failure) if it does not parse or a pass fails.
std::unique_ptr<Module> lowerForCpu(const std::string& text) {
  std::unique_ptr<Module> module = parse(text);
  if (!module) return nullptr;
  auto pipeline = namedPipeline("cpu");
  Status run = pipeline.isOk() ? pipeline->run(*module) : pipeline.takeStatus();
  if (!run.isOk()) {
    ADD_FAILURE() << run.message();
    return nullptr;
  }
  return module;
}

std::vector<Tensor> runBoth(const std::string& text, const std::vector<Tensor>& args,
                            std::optional<double> relative = std::nullopt, uint64_t maxUlp = kMaxUlp) {
  std::unique_ptr<Module> module = parse(text);
  if (!module) return {};
  auto executable = cpu::compileForCpu(*module, "main");
  EXPECT_TRUE(executable.isOk()) << executable.status().diag().str();
  if (!executable.isOk()) return {};
  auto cpuResults = (*executable)->run(args);
  auto oracle = interp::runFunction(*module, "main", args);
  EXPECT_TRUE(cpuResults.isOk()) << cpuResults.status().diag().str();
  EXPECT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  if (!cpuResults.isOk() || !oracle.isOk()) return {};
  EXPECT_EQ(cpuResults->size(), oracle->size());
  for (size_t i = 0; i < std::min(cpuResults->size(), oracle->size()); ++i)
    if (relative) expectWithin((*cpuResults)[i], (*oracle)[i], *relative, "result " + std::to_string(i));
    else expectClose((*cpuResults)[i], (*oracle)[i], "result " + std::to_string(i), maxUlp);
  return std::move(*cpuResults);
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(CpuBackend, FloatMathMatchesInterpreter) {
  std::string text = R"(
func.func @main(%x: tensor<12xf32>, %y: tensor<12xf32>) -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  %0 = stablehlo.add %x, %y : tensor<12xf32>
  %1 = stablehlo.divide %0, %y : tensor<12xf32>
  %2 = stablehlo.maximum %x, %y : tensor<12xf32>
  %3 = stablehlo.minimum %x, %y : tensor<12xf32>
  %4 = stablehlo.exponential %x : tensor<12xf32>
  %5 = stablehlo.log %4 : tensor<12xf32>
  %6 = stablehlo.tanh %y : tensor<12xf32>
  %7 = stablehlo.logistic %x : tensor<12xf32>
  %8 = stablehlo.abs %y : tensor<12xf32>
  %9 = stablehlo.sqrt %8 : tensor<12xf32>
  %10 = stablehlo.rsqrt %8 : tensor<12xf32>
  %11 = stablehlo.negate %10 : tensor<12xf32>
  %12 = stablehlo.multiply %11, %6 : tensor<12xf32>
  %13 = stablehlo.subtract %12, %9 : tensor<12xf32>
  return %1, %2, %3, %5, %13 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
})";
  std::vector<double> x = {1.5, -2.25, 0.0, -0.0, 3.0e5, -88.0, 1e-30, kNaN, 7.0, -0.5, 40.0, 2.0};
  std::vector<double> y = {0.25, 3.0, -0.0, 0.0, 1.0, kInf, -1e-3, 1.0, kNaN, 0.0, -9.0, 1e30};
  std::vector<Tensor> r = runBoth(text, {tensorOf("tensor<12xf32>", x), tensorOf("tensor<12xf32>", y)});
  ASSERT_EQ(r.size(), 5u);
  // maximum/minimum propagate NaN and order -0 < +0.
  EXPECT_TRUE(std::isnan(r[1].getFloat(7)) && std::isnan(r[2].getFloat(8)));
  EXPECT_FALSE(std::signbit(r[1].getFloat(2)));
  EXPECT_TRUE(std::signbit(r[2].getFloat(3)));
}

TEST(CpuBackend, F64AndBroadcasts) {
  // Scalar, trailing-dim and leading-dim broadcasts in one fusion.
  std::string text = R"(
func.func @main(%x: tensor<3x4xf64>, %row: tensor<4xf64>, %col: tensor<3xf64>, %s: tensor<f64>) -> tensor<3x4xf64> {
  %r = stablehlo.broadcast_in_dim %row, dims = [1] : (tensor<4xf64>) -> tensor<3x4xf64>
  %c = stablehlo.broadcast_in_dim %col, dims = [0] : (tensor<3xf64>) -> tensor<3x4xf64>
  %k = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f64>) -> tensor<3x4xf64>
  %0 = stablehlo.multiply %x, %r : tensor<3x4xf64>
  %1 = stablehlo.add %0, %c : tensor<3x4xf64>
  %2 = stablehlo.subtract %1, %k : tensor<3x4xf64>
  %3 = stablehlo.exponential %2 : tensor<3x4xf64>
  return %3 : tensor<3x4xf64>
})";
  std::vector<Tensor> r = runBoth(text, {tensorOf("tensor<3x4xf64>", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                                         tensorOf("tensor<4xf64>", {0.5, -1, 0, 2}),
                                         tensorOf("tensor<3xf64>", {10, 20, 30}), tensorOf("tensor<f64>", {25})});
  ASSERT_EQ(r.size(), 1u);
  // Element [1][3] = exp(8 * 2 + 20 - 25) = exp(11), checked by hand.
  EXPECT_NEAR(r[0].getFloat(7), std::exp(11.0), 1e-9 * std::exp(11.0));
}

TEST(CpuBackend, MlpElementwiseParts) {
  // examples/mlp.mlir without its dots and reductions: bias add through a
  // two-step broadcast, relu, and softmax's subtract / exp / divide.
  std::string text = R"(
func.func @main(%h: tensor<2x8xf32>, %bias: tensor<8xf32>, %max: tensor<2xf32>, %sum: tensor<2xf32>) -> tensor<2x8xf32> {
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<2x8xf32>
  %3 = stablehlo.add %h, %2 : tensor<2x8xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8xf32>
  %4 = stablehlo.maximum %3, %z : tensor<2x8xf32>
  %9 = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
  %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x8xf32>
  %11 = stablehlo.subtract %4, %10 : tensor<2x8xf32>
  %12 = stablehlo.exponential %11 : tensor<2x8xf32>
  %14 = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
  %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x8xf32>
  %16 = stablehlo.divide %12, %15 : tensor<2x8xf32>
  return %16 : tensor<2x8xf32>
})";
  std::vector<double> h;
  for (int i = 0; i < 16; ++i) h.push_back(0.37 * i - 2.5);
  runBoth(text, {tensorOf("tensor<2x8xf32>", h),
                 tensorOf("tensor<8xf32>", {-0.16, 0.54, 0.21, 0.36, -0.65, -0.13, 0.78, 1.49}),
                 tensorOf("tensor<2xf32>", {1.0, 2.5}), tensorOf("tensor<2xf32>", {3.0, 0.75})});
}

TEST(CpuBackend, IntegerSemantics) {
  std::string text = R"(
func.func @main(%x: tensor<6xi32>, %y: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi64>, tensor<6xi32>) {
  %0 = stablehlo.divide %x, %y : tensor<6xi32>
  %1 = stablehlo.abs %x : tensor<6xi32>
  %2 = stablehlo.maximum %0, %1 : tensor<6xi32>
  %3 = stablehlo.convert %x : (tensor<6xi32>) -> tensor<6xi64>
  %4 = stablehlo.multiply %3, %3 : tensor<6xi64>
  %5 = stablehlo.negate %y : tensor<6xi32>
  %6 = stablehlo.minimum %5, %x : tensor<6xi32>
  return %0, %2, %4, %6 : tensor<6xi32>, tensor<6xi32>, tensor<6xi64>, tensor<6xi32>
})";
  const double intMin = std::numeric_limits<int32_t>::min();
  std::vector<Tensor> r = runBoth(text, {tensorOf("tensor<6xi32>", {7, -7, intMin, 9, 0, 100}),
                                         tensorOf("tensor<6xi32>", {2, 2, -1, 0, 5, -3})});
  ASSERT_EQ(r.size(), 4u);
  // XLA's rules: truncating division, x / 0 = -1, INT_MIN / -1 = INT_MIN.
  std::vector<int64_t> quotients = {3, -3, int64_t(intMin), -1, 0, -33};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r[0].getInt(i), quotients[i]) << i;
  EXPECT_EQ(r[2].getInt(2), int64_t(intMin) * int64_t(intMin));
}

TEST(CpuBackend, CompareSelectConvert) {
  std::string text = R"(
func.func @main(%x: tensor<7xf32>, %y: tensor<7xf32>, %p: tensor<i1>) -> (tensor<7xi1>, tensor<7xf32>, tensor<7xi32>, tensor<7xi1>, tensor<7xf64>, tensor<7xf32>) {
  %lt = stablehlo.compare LT, %x, %y, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
  %ne = stablehlo.compare NE, %x, %y, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
  %s = stablehlo.select %lt, %x, %y : tensor<7xi1>, tensor<7xf32>
  %i = stablehlo.convert %x : (tensor<7xf32>) -> tensor<7xi32>
  %b = stablehlo.convert %x : (tensor<7xf32>) -> tensor<7xi1>
  %bi = stablehlo.convert %b : (tensor<7xi1>) -> tensor<7xi32>
  %eq = stablehlo.compare EQ, %bi, %i, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
  %both = stablehlo.compare GE, %eq, %ne, UNSIGNED : (tensor<7xi1>, tensor<7xi1>) -> tensor<7xi1>
  %d = stablehlo.convert %s : (tensor<7xf32>) -> tensor<7xf64>
  %ps = stablehlo.select %p, %y, %x : tensor<i1>, tensor<7xf32>
  return %ne, %s, %i, %both, %d, %ps : tensor<7xi1>, tensor<7xf32>, tensor<7xi32>, tensor<7xi1>, tensor<7xf64>, tensor<7xf32>
})";
  std::vector<Tensor> r = runBoth(text, {tensorOf("tensor<7xf32>", {1.9, -2.7, kNaN, 3e10, -3e10, 0.0, 1.0}),
                                         tensorOf("tensor<7xf32>", {2, -3, 1, kNaN, 0, -0.0, 1}),
                                         tensorOf("tensor<i1>", {1})});
  ASSERT_EQ(r.size(), 6u);
  // Float to int truncates and saturates; NaN converts to 0.
  std::vector<int64_t> ints = {1, -2, 0, std::numeric_limits<int32_t>::max(),
                               std::numeric_limits<int32_t>::min(), 0, 1};
  for (int i = 0; i < 7; ++i) EXPECT_EQ(r[2].getInt(i), ints[i]) << i;
  // NE is unordered: true against NaN; -0 == +0.
  EXPECT_TRUE(r[0].getBool(2) && r[0].getBool(3));
  EXPECT_FALSE(r[0].getBool(5));
}

TEST(CpuBackend, HundredOpChain) {
  // 100 elementwise ops, fused into one kernel by the cpu pipeline.
  std::ostringstream text;
  text << "func.func @main(%x: tensor<1000xf32>) -> tensor<1000xf32> {\n"
       << "  %c = stablehlo.constant dense<1.0001> : tensor<1000xf32>\n"
       << "  %v0 = stablehlo.add %x, %c : tensor<1000xf32>\n";
  const char* ops[] = {"multiply", "add", "maximum", "subtract"};
  for (int i = 1; i < 100; ++i)
    text << "  %v" << i << " = stablehlo." << ops[i % 4] << " %v" << i - 1 << ", %c : tensor<1000xf32>\n";
  text << "  return %v99 : tensor<1000xf32>\n}\n";
  std::vector<double> x;
  for (int i = 0; i < 1000; ++i) x.push_back(std::sin(i) * 10);
  runBoth(text.str(), {tensorOf("tensor<1000xf32>", x)});
}

// Deterministic values of mixed signs and magnitudes, so that the order in
// which a sum is accumulated changes its rounding.
std::vector<double> mixedValues(size_t n, uint32_t seed) {
  std::vector<double> values(n);
  for (double& v : values) {
    seed = seed * 1664525u + 1013904223u;
    v = (double(seed >> 8) / double(1u << 24) - 0.5) * std::ldexp(1.0, int(seed % 11) - 5);
  }
  return values;
}

// Reductions accumulate in the element type. Maxima, minima and products
// fold in the interpreter's order (bitwise equal); float sums are vectorized
// into partial sums, so they agree within the error bound of a sum,
// n * eps * sum(|x|).
TEST(CpuBackend, RowAndColumnReductions) {
  std::string text = R"(func.func @main(%x: tensor<5x300xf32>, %y: tensor<3x4x5xf64>) -> (tensor<5xf32>, tensor<300xf32>, tensor<f32>, tensor<4xf64>, tensor<3x5xf64>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %one = stablehlo.constant dense<1.0> : tensor<f64>
  %dzero = stablehlo.constant dense<0.0> : tensor<f64>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<5x300xf32>, tensor<f32>) -> tensor<5xf32>
  %cols = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<5x300xf32>, tensor<f32>) -> tensor<300xf32>
  %all = stablehlo.reduce(%x init: %inf) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<5x300xf32>, tensor<f32>) -> tensor<f32>
  %outer = stablehlo.reduce(%y init: %one) applies stablehlo.multiply across dimensions = [0, 2] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<4xf64>
  %middle = stablehlo.reduce(%y init: %dzero) applies stablehlo.add across dimensions = [1] : (tensor<3x4x5xf64>, tensor<f64>) -> tensor<3x5xf64>
  return %rows, %cols, %all, %outer, %middle : tensor<5xf32>, tensor<300xf32>, tensor<f32>, tensor<4xf64>, tensor<3x5xf64>
})";
  std::vector<double> x = mixedValues(1500, 1);
  x[7] = kNaN;  // row 0, column 7: the row sum and the column max are NaN
  std::vector<double> y = mixedValues(60, 2);
  std::vector<Tensor> cpu = runBoth(text, {tensorOf("tensor<5x300xf32>", x), tensorOf("tensor<3x4x5xf64>", y)}, kSumTolerance);
  ASSERT_EQ(cpu.size(), 5u);
  EXPECT_TRUE(std::isnan(cpu[0].getFloat(0)));
  EXPECT_TRUE(std::isnan(cpu[1].getFloat(7)));
  EXPECT_TRUE(std::isnan(cpu[2].getFloat(0)));
  double row1 = 0.0, row1Magnitude = 0.0;  // exact enough in double, by hand
  for (int j = 0; j < 300; ++j) {
    row1 += static_cast<float>(x[300 + j]);
    row1Magnitude += std::abs(static_cast<float>(x[300 + j]));
  }
  EXPECT_NEAR(cpu[0].getFloat(1), row1, 300 * 0x1p-24 * row1Magnitude);
  double product = 1.0;  // %outer[2]: y[i][2][k] in row-major order of (i, k)
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 5; ++k) product *= y[i * 20 + 2 * 5 + k];
  EXPECT_EQ(cpu[3].getFloat(2), product);
}

TEST(CpuBackend, IntegerReductions) {
  std::string text = R"(func.func @main(%x: tensor<2x3xi32>, %y: tensor<2x3xi64>) -> (tensor<2xi32>, tensor<3xi64>, tensor<i64>) {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %min = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %rows = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
  %cols = stablehlo.reduce(%y init: %min) applies stablehlo.maximum across dimensions = [0] : (tensor<2x3xi64>, tensor<i64>) -> tensor<3xi64>
  %prod = stablehlo.reduce(%y init: %one) applies stablehlo.multiply across dimensions = [0, 1] : (tensor<2x3xi64>, tensor<i64>) -> tensor<i64>
  return %rows, %cols, %prod : tensor<2xi32>, tensor<3xi64>, tensor<i64>
})";
  std::vector<Tensor> cpu = runBoth(text, {tensorOf("tensor<2x3xi32>", {2147483647, 1, 5, -4, 7, -9}),
                                          tensorOf("tensor<2x3xi64>", {3, -8, 10, -2, 6, 1})});
  ASSERT_EQ(cpu.size(), 3u);
  EXPECT_EQ(cpu[0].getInt(0), -2147483648 + 5);  // wraps
  EXPECT_EQ(cpu[0].getInt(1), -6);
  EXPECT_EQ(cpu[1].getInt(0), 3);
  EXPECT_EQ(cpu[1].getInt(1), 6);
  EXPECT_EQ(cpu[1].getInt(2), 10);
  EXPECT_EQ(cpu[2].getInt(0), 2880);
}

// Softmax as JAX writes it: the cpu pipeline fuses it into one input fusion
// (max, sum of exp(x - max), then the division, per row).
TEST(CpuBackend, SoftmaxInputFusion) {
  std::string text = R"(func.func @main(%x: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x128xf32>, tensor<f32>) -> tensor<8xf32>
  %maxk = stablehlo.reshape %max : (tensor<8xf32>) -> tensor<8x1xf32>
  %maxb = stablehlo.broadcast_in_dim %maxk, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x128xf32>
  %shifted = stablehlo.subtract %x, %maxb : tensor<8x128xf32>
  %e = stablehlo.exponential %shifted : tensor<8x128xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x128xf32>, tensor<f32>) -> tensor<8xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<8xf32>) -> tensor<8x128xf32>
  %r = stablehlo.divide %e, %sumb : tensor<8x128xf32>
  return %r : tensor<8x128xf32>
})";
  std::unique_ptr<Module> lowered = lowerForCpu(text);
  ASSERT_TRUE(lowered);
  const Operation* fused = func::body(*lowered->lookupFunction("main")).front();
  EXPECT_EQ(fused->name(), "kiln.fusion");
  EXPECT_EQ(fused->attr("kind").stringValue(), "input");

  std::vector<double> x = mixedValues(8 * 128, 3);
  for (double& v : x) v *= 8;
  std::vector<Tensor> cpu = runBoth(text, {tensorOf("tensor<8x128xf32>", x)});
  ASSERT_EQ(cpu.size(), 1u);
  double rowSum = 0;
  for (int j = 0; j < 128; ++j) rowSum += cpu[0].getFloat(j);
  EXPECT_NEAR(rowSum, 1.0, 1e-5);
}

// Runs `text` through the cpu pipeline, expects one input fusion, and expects
// the cpu back end to agree with the interpreter on `x` within kSumTolerance:
// the row-wise emission (each reduce once per row, each after the reduces it
// reads) accumulates in the element type, its sums in vectorized partial sums.
void expectRowFusionMatches(const std::string& text, const Tensor& x) {
  std::unique_ptr<Module> lowered = lowerForCpu(text);
  ASSERT_TRUE(lowered);
  const Block& body = func::body(*lowered->lookupFunction("main"));
  int fusions = 0;
  for (const Operation& op : body)
    if (op.name() == "kiln.fusion") {
      ++fusions;
      EXPECT_EQ(op.attr("kind").stringValue(), "input");
    }
  EXPECT_EQ(fusions, 1);

  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  auto executable = cpu::compileForCpu(*module, "main");
  ASSERT_TRUE(executable.isOk()) << executable.status().diag().str();
  auto cpuResults = (*executable)->run({x});
  auto oracle = interp::runFunction(*module, "main", {x});
  ASSERT_TRUE(cpuResults.isOk()) << cpuResults.status().diag().str();
  ASSERT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  ASSERT_EQ(cpuResults->size(), 1u);
  ASSERT_EQ(oracle->size(), 1u);
  const Tensor& cpu = (*cpuResults)[0];
  const Tensor& expected = (*oracle)[0];
  expectWithin(cpu, expected, kSumTolerance, "row fusion");
}

TEST(CpuBackend, SoftmaxRowsOf1024WithinFourUlp) {
  std::string text = R"(func.func @main(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<64xf32>) -> tensor<64x1024xf32>
  %shifted = stablehlo.subtract %x, %maxb : tensor<64x1024xf32>
  %e = stablehlo.exponential %shifted : tensor<64x1024xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<64xf32>) -> tensor<64x1024xf32>
  %r = stablehlo.divide %e, %sumb : tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
})";
  std::vector<double> x = mixedValues(64 * 1024, 5);
  for (double& v : x) v *= 8;
  // exp is a polynomial on the cpu (1 ULP from the correctly rounded value),
  // libm in double on the interpreter; the sum of positive terms is in
  // partial sums on the cpu, in order on the interpreter: the sum and the
  // quotient stay within 4 ULP (measured: 4).
  runBoth(text, {tensorOf("tensor<64x1024xf32>", x)}, std::nullopt, 4);
}

// Layernorm: the variance's reduce reads the mean's, so the mean is computed
// first in each row.
TEST(CpuBackend, LayernormRowsOf1024) {
  std::string text = R"(func.func @main(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %inv_n = stablehlo.constant dense<9.765625e-04> : tensor<64xf32>
  %eps = stablehlo.constant dense<1.0e-05> : tensor<64xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %mean = stablehlo.multiply %sum, %inv_n : tensor<64xf32>
  %meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<64xf32>) -> tensor<64x1024xf32>
  %centered = stablehlo.subtract %x, %meanb : tensor<64x1024xf32>
  %sq = stablehlo.multiply %centered, %centered : tensor<64x1024xf32>
  %sqsum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %var = stablehlo.multiply %sqsum, %inv_n : tensor<64xf32>
  %vareps = stablehlo.add %var, %eps : tensor<64xf32>
  %inv_std = stablehlo.rsqrt %vareps : tensor<64xf32>
  %inv_stdb = stablehlo.broadcast_in_dim %inv_std, dims = [0] : (tensor<64xf32>) -> tensor<64x1024xf32>
  %r = stablehlo.multiply %centered, %inv_stdb : tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
})";
  std::vector<double> x = mixedValues(64 * 1024, 6);
  for (double& v : x) v = 3 * v + 1;
  expectRowFusionMatches(text, tensorOf("tensor<64x1024xf32>", x));
}

// Column norms: the square is computed inside the reduction loop, the sqrt
// after it, all in one input fusion over a non-innermost reduced dim.
TEST(CpuBackend, ColumnNormInputFusion) {
  std::string text = R"(func.func @main(%x: tensor<64x6xf32>) -> tensor<6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sq = stablehlo.multiply %x, %x : tensor<64x6xf32>
  %sum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<64x6xf32>, tensor<f32>) -> tensor<6xf32>
  %r = stablehlo.sqrt %sum : tensor<6xf32>
  return %r : tensor<6xf32>
})";
  std::unique_ptr<Module> lowered = lowerForCpu(text);
  ASSERT_TRUE(lowered);
  const Operation* fused = func::body(*lowered->lookupFunction("main")).front();
  EXPECT_EQ(fused->name(), "kiln.fusion");
  EXPECT_EQ(fused->attr("kind").stringValue(), "input");

  std::vector<double> x = mixedValues(64 * 6, 4);
  std::vector<Tensor> cpu = runBoth(text, {tensorOf("tensor<64x6xf32>", x)});
  ASSERT_EQ(cpu.size(), 1u);
  float sumOfSquares = 0.0f;  // column 5, by hand
  for (int i = 0; i < 64; ++i) sumOfSquares += static_cast<float>(x[i * 6 + 5]) * static_cast<float>(x[i * 6 + 5]);
  EXPECT_EQ(cpu[0].getFloat(5), std::sqrt(sumOfSquares));
}

TEST(CpuBackend, AComplexSumRunsAsTheSumsOfItsParts) {
  // The expand pass splits it into real reduces (kernels, no routine); the
  // parts, multiples of 1/4, sum exactly in any order.
  std::string text = R"(func.func @main(%x: tensor<3x40xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %init = stablehlo.constant dense<(0.5, -2.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [1] : (tensor<3x40xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  return %r : tensor<3xcomplex<f32>>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  auto executable = cpu::compileForCpu(*module, "main");
  ASSERT_TRUE(executable.isOk()) << executable.status().diag().str();
  EXPECT_EQ((*executable)->stats().routines, 0);
  Tensor x(func::body(*module->lookupFunction("main")).argument(0)->type());
  for (int64_t i = 0; i < x.numElements(); ++i) x.setComplex(i, {0.25 * double(i % 17) - 1, -0.75 * double(i % 5)});
  auto cpuResult = (*executable)->run({x});
  auto oracle = interp::runFunction(*module, "main", {x});
  ASSERT_TRUE(cpuResult.isOk() && oracle.isOk());
  EXPECT_TRUE((*cpuResult)[0] == (*oracle)[0]);
  EXPECT_EQ((*cpuResult)[0].getComplex(0), std::complex<double>(0.5, -2.0) + [&] {  // row 0, by hand
    std::complex<double> s = 0;
    for (int64_t j = 0; j < 40; ++j) s += x.getComplex(j);
    return s;
  }());
}

TEST(CpuBackend, AReduceTheEmitterRejectsRunsAsARoutine) {
  // The emitter reduces no complex numbers, and a product of complex values
  // has no parts to split into; reduce takes its routine instead.
  std::string text = R"(func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<complex<f32>> {
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [0] : (tensor<4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
  return %r : tensor<complex<f32>>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  auto executable = cpu::compileForCpu(*module, "main");
  ASSERT_TRUE(executable.isOk()) << executable.status().diag().str();
  EXPECT_EQ((*executable)->stats().routines, 1);
  Tensor x(module->lookupFunction("main") ? func::body(*module->lookupFunction("main")).argument(0)->type() : Type());
  for (int64_t i = 0; i < 4; ++i) x.setComplex(i, {1.5 * double(i), -0.25 * double(i)});
  auto cpuResult = (*executable)->run({x});
  auto oracle = interp::runFunction(*module, "main", {x});
  ASSERT_TRUE(cpuResult.isOk() && oracle.isOk());
  EXPECT_TRUE((*cpuResult)[0] == (*oracle)[0]);
}

TEST(CpuBackend, HalfPrecisionArithmetic) {
  std::string text = R"(func.func @main(%x: tensor<4xf16>) -> tensor<4xf16> {
  %r = stablehlo.add %x, %x : tensor<4xf16>
  return %r : tensor<4xf16>
})";
  auto results = runBoth(text, {tensorOf("tensor<4xf16>", {1.5, -2, 40000, 0.1})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].getFloat(0), 3.0);
  EXPECT_TRUE(std::isinf(results[0].getFloat(2)));  // 80000 overflows f16
}

// --- dot_general through oneDNN ---------------------------------------------

// Tolerance for results of oneDNN matmuls (reordered f32 accumulation, and
// oneDNN's own tanh/logistic in epilogues).
constexpr double kDotTolerance = 1e-5;

// A tensor of `type` filled with reproducible values in [-1, 1).
Tensor pseudoRandom(const std::string& type, uint32_t seed) {
  Expected<Type> t = parseType(type);
  EXPECT_TRUE(t.isOk());
  Tensor tensor(*t);
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    tensor.setFloat(i, double(seed >> 8) / double(1 << 23) - 1.0);
  }
  return tensor;
}

// What compiling `text` for the cpu produced (kernels, oneDNN calls, ...).
cpu::CpuCompileStats compileStats(const std::string& text) {
  std::unique_ptr<Module> module = parse(text);
  if (!module) return {};
  auto executable = cpu::compileForCpu(*module, "main");
  EXPECT_TRUE(executable.isOk()) << executable.status().diag().str();
  return executable.isOk() ? (*executable)->stats() : cpu::CpuCompileStats{};
}

TEST(CpuBackendDot, Matmul64x128x32) {
  std::string text = R"(
func.func @main(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<64x128xf32>", 1), pseudoRandom("tensor<128x32xf32>", 2)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 1u);
}

TEST(CpuBackendDot, BatchedMatmul) {
  std::string text = R"(
func.func @main(%a: tensor<4x16x24xf32>, %b: tensor<4x24x8xf32>) -> tensor<4x16x8xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x16x24xf32>, tensor<4x24x8xf32>) -> tensor<4x16x8xf32>
  return %0 : tensor<4x16x8xf32>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<4x16x24xf32>", 3), pseudoRandom("tensor<4x24x8xf32>", 4)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 1u);
}

// bf16 with a batch dim and a transposed operand: on AMX hosts oneDNN's bf16
// matmul, elsewhere the widened f32 one (operands widened, the result rounded
// once). Either way exact products, f32 sums and one rounding to bf16, so
// within one bf16 step (2^-8 relative) of the interpreter's result.
TEST(CpuBackendDot, Bf16BatchedWithTransposedOperand) {
  std::string text = R"(
func.func @main(%a: tensor<4x16x24xbf16>, %b: tensor<4x8x24xbf16>) -> tensor<4x16x8xbf16> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<4x16x24xbf16>, tensor<4x8x24xbf16>) -> tensor<4x16x8xbf16>
  return %0 : tensor<4x16x8xbf16>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<4x16x24xbf16>", 5), pseudoRandom("tensor<4x8x24xbf16>", 6)},
                         0x1p-8);
  EXPECT_EQ(results.size(), 1u);
}

// f16 runs on the f32 matmul, widened (oneDNN's f16 matmul needs
// AVX512-FP16): exact products, f32 sums and one rounding to f16, so within
// one f16 step (2^-10 relative) of the interpreter's once-rounded result --
// and a oneDNN call, not the reference routine.
TEST(CpuBackendDot, F16RunsWidenedOnOnednn) {
  std::string text = R"(
func.func @main(%a: tensor<3x20x36xf16>, %b: tensor<3x36x12xf16>) -> tensor<3x20x12xf16> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x20x36xf16>, tensor<3x36x12xf16>) -> tensor<3x20x12xf16>
  return %0 : tensor<3x20x12xf16>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<3x20x36xf16>", 9), pseudoRandom("tensor<3x36x12xf16>", 10)},
                         0x1p-10);
  EXPECT_EQ(results.size(), 1u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.libraryCalls, 1);
  EXPECT_EQ(stats.routines, 0);
}

// 8-bit integer dots summing into i32 (quantized inference) run on the f32
// matmul with their operands widened: exact while K * max|lhs| * max|rhs| <=
// 2^24, so bitwise the interpreter's sums -- also at the bound itself, every
// product -128 * -128. Past the bound they are not oneDNN's.
// 8-bit integer dots into i32 are exact on either path: oneDNN's int8
// kernels on VNNI hosts, the f32 primitive on widened operands elsewhere.
// Each bound is crossed by a case that must then leave the path.
TEST(CpuBackendDot, Int8DotsSumExactly) {
  auto integers = [](const std::string& type, uint32_t seed, int64_t lo, int64_t hi) {
    Expected<Type> t = parseType(type);
    EXPECT_TRUE(t.isOk());
    Tensor tensor(*t);
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      seed = seed * 1664525u + 1013904223u;
      tensor.setInt(i, lo + int64_t(seed >> 8) % (hi - lo + 1));
    }
    return tensor;
  };
  auto dot = [](const std::string& lhs, const std::string& rhs, const std::string& out) {
    return "func.func @main(%a: " + lhs + ", %b: " + rhs + ") -> " + out + " {\n" +
           "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (" + lhs + ", " + rhs + ") -> " + out +
           "\n  return %0 : " + out + "\n}\n";
  };
  const bool native = kiln::cpu::int8DotsAreNative();
  std::string s8 = dot("tensor<16x1024xi8>", "tensor<1024x8xi8>", "tensor<16x8xi32>");
  runBoth(s8, {integers("tensor<16x1024xi8>", 1, -128, 127), integers("tensor<1024x8xi8>", 2, -128, 127)});
  runBoth(s8, {integers("tensor<16x1024xi8>", 3, -128, -128), integers("tensor<1024x8xi8>", 4, -128, -128)});
  runBoth(s8, {integers("tensor<16x1024xi8>", 3, 127, 127), integers("tensor<1024x8xi8>", 4, -128, -128)});
  EXPECT_EQ(compileStats(s8).libraryCalls, 1);
  // Transposed operands are read through strides as 1-byte elements.
  std::string transposed = "func.func @main(%a: tensor<64x24xi8>, %b: tensor<40x64xi8>) -> tensor<24x40xi32> {\n"
                           "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [1] : "
                           "(tensor<64x24xi8>, tensor<40x64xi8>) -> tensor<24x40xi32>\n"
                           "  return %0 : tensor<24x40xi32>\n}\n";
  runBoth(transposed, {integers("tensor<64x24xi8>", 9, -128, 127), integers("tensor<40x64xi8>", 10, -128, 127)});
  EXPECT_EQ(compileStats(transposed).libraryCalls, 1);
  std::string u8 = dot("tensor<8x256xui8>", "tensor<256x16xui8>", "tensor<8x16xi32>");  // 255 * 255 * 256 < 2^24
  runBoth(u8, {integers("tensor<8x256xui8>", 5, 0, 255), integers("tensor<256x16xui8>", 6, 0, 255)});
  runBoth(u8, {integers("tensor<8x256xui8>", 5, 255, 255), integers("tensor<256x16xui8>", 6, 255, 255)});
  EXPECT_EQ(compileStats(u8).libraryCalls, 1);
  // Past the f32 path's 2^24: only oneDNN's int8 kernels take it.
  std::string pastF32Bound = dot("tensor<4x2048xi8>", "tensor<2048x4xi8>", "tensor<4x4xi32>");
  runBoth(pastF32Bound, {integers("tensor<4x2048xi8>", 7, -128, -128), integers("tensor<2048x4xi8>", 8, -128, -128)});
  runBoth(pastF32Bound, {integers("tensor<4x2048xi8>", 7, -128, 127), integers("tensor<2048x4xi8>", 8, -128, 127)});
  EXPECT_EQ(compileStats(pastF32Bound).libraryCalls, native ? 1 : 0);
  // Past K * 255 * 128 < 2^31 as well: no oneDNN path, the reference routine.
  std::string pastInt8Bound = dot("tensor<2x70000xi8>", "tensor<70000x2xi8>", "tensor<2x2xi32>");
  runBoth(pastInt8Bound,
          {integers("tensor<2x70000xi8>", 11, -128, -128), integers("tensor<70000x2xi8>", 12, -128, -128)});
  EXPECT_EQ(compileStats(pastInt8Bound).libraryCalls, 0);
}

TEST(CpuBackendDot, TransposedAndPermutedOperands) {
  // Both operands transposed (read through strides), then batch dims in the
  // middle and two contracting dims in swapped order (packed copies, the
  // rows strided), the contraction on a middle dim of a 4-d rhs (packed,
  // whole rows copied: JAX's image resize), and a bf16 operand packed with
  // 2-byte words.
  std::string text = R"(
func.func @main(%a: tensor<192x64xf32>, %b: tensor<64x192xf32>, %c: tensor<10x3x24x8xf32>, %d: tensor<8x3x28x10xf32>, %w: tensor<48x40xf32>, %x: tensor<2x48x12x8xf32>, %e: tensor<10x3x24x8xbf16>, %f: tensor<8x3x28x10xbf16>) -> (tensor<64x64xf32>, tensor<3x24x28xf32>, tensor<40x2x12x8xf32>, tensor<3x24x28xf32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [1] : (tensor<192x64xf32>, tensor<64x192xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.dot_general %c, %d, batching_dims = [1] x [1], contracting_dims = [3, 0] x [0, 3] : (tensor<10x3x24x8xf32>, tensor<8x3x28x10xf32>) -> tensor<3x24x28xf32>
  %2 = stablehlo.dot_general %w, %x, contracting_dims = [0] x [1] : (tensor<48x40xf32>, tensor<2x48x12x8xf32>) -> tensor<40x2x12x8xf32>
  %3 = stablehlo.dot_general %e, %f, batching_dims = [1] x [1], contracting_dims = [3, 0] x [0, 3] : (tensor<10x3x24x8xbf16>, tensor<8x3x28x10xbf16>) -> tensor<3x24x28xf32>
  return %0, %1, %2, %3 : tensor<64x64xf32>, tensor<3x24x28xf32>, tensor<40x2x12x8xf32>, tensor<3x24x28xf32>
})";
  auto results = runBoth(text,
                         {pseudoRandom("tensor<192x64xf32>", 5), pseudoRandom("tensor<64x192xf32>", 6),
                          pseudoRandom("tensor<10x3x24x8xf32>", 7), pseudoRandom("tensor<8x3x28x10xf32>", 8),
                          pseudoRandom("tensor<48x40xf32>", 9), pseudoRandom("tensor<2x48x12x8xf32>", 10),
                          pseudoRandom("tensor<10x3x24x8xbf16>", 11), pseudoRandom("tensor<8x3x28x10xbf16>", 12)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 4u);
  EXPECT_EQ(compileStats(text).libraryCalls, 4);
}

// Attention with the head transposes folded into the dots: operands
// [batch, seq, heads, dim] with batch dims (0, 2), not consecutive in memory.
// oneDNN reads them in place as 4-d matmuls with strides (scores: q k^T, the
// contraction on both last dims; context: the contraction on rhs's seq).
TEST(CpuBackendDot, AttentionOperandsWithInterleavedBatchDims) {
  std::string text = R"(
func.func @main(%q: tensor<2x16x4x8xf32>, %k: tensor<2x16x4x8xf32>, %p: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) {
  %s = stablehlo.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x4x16x16xf32>
  %c = stablehlo.dot_general %p, %k, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : (tensor<2x4x16x16xf32>, tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  return %s, %c : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>
})";
  auto results = runBoth(text,
                         {pseudoRandom("tensor<2x16x4x8xf32>", 11), pseudoRandom("tensor<2x16x4x8xf32>", 12),
                          pseudoRandom("tensor<2x4x16x16xf32>", 13)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 2u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.libraryCalls, 2);
  EXPECT_EQ(stats.routines, 0);
}

// An SGD step on a weight, w - lr * (x^T g): after the cpu pipeline one
// output fusion whose epilogue subtracts the dot from w (the dot on the
// right: a negation then an add) -- one oneDNN call, no kernels. (Dots of
// at least kMinLibraryDotWork multiply-adds: smaller ones are emitted loops.)
TEST(CpuBackendDot, SgdUpdateIsOneOnednnCall) {
  std::string text = R"(
func.func @main(%x: tensor<64x96xf32>, %g: tensor<64x128xf32>, %w: tensor<96x128xf32>) -> tensor<96x128xf32> {
  %lr = stablehlo.constant dense<0.125> : tensor<96x128xf32>
  %grad = stablehlo.dot_general %x, %g, contracting_dims = [0] x [0] : (tensor<64x96xf32>, tensor<64x128xf32>) -> tensor<96x128xf32>
  %step = stablehlo.multiply %lr, %grad : tensor<96x128xf32>
  %next = stablehlo.subtract %w, %step : tensor<96x128xf32>
  return %next : tensor<96x128xf32>
})";
  auto results = runBoth(text,
                         {pseudoRandom("tensor<64x96xf32>", 21), pseudoRandom("tensor<64x128xf32>", 22),
                          pseudoRandom("tensor<96x128xf32>", 23)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 1u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.libraryCalls, 1);
  EXPECT_EQ(stats.kernels, 0);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);
}

// Two scalings after a dot: oneDNN 2.6 would apply both linear post-ops
// with the first one's factor (x * 0.5 * 3 came out x * 0.25), so the
// epilogue takes one and the fusion runs op by op. (A negation folds into
// the one linear exactly: SgdUpdateIsOneOnednnCall.)
TEST(CpuBackendDot, TwoScalingsInAnEpilogueGiveTheRightProduct) {
  // Small shapes: the oneDNN matmul implementation that got it wrong.
  std::string text = R"(
func.func @main(%x: tensor<2x3xf32>, %g: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %half = stablehlo.constant dense<0.5> : tensor<3x2xf32>
  %three = stablehlo.constant dense<3.0> : tensor<3x2xf32>
  %d = stablehlo.dot_general %x, %g, contracting_dims = [0] x [0] : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  %a = stablehlo.multiply %half, %d : tensor<3x2xf32>
  %b = stablehlo.multiply %a, %three : tensor<3x2xf32>
  return %b : tensor<3x2xf32>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<2x3xf32>", 31), pseudoRandom("tensor<2x2xf32>", 32)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 1u);
}

// Three dense layers on element type `e`, each a dot and its epilogue (three
// weights, so that CSE keeps three dots): bias + relu; tanh then a residual
// add and a scaling; logistic. Each 2^19 multiply-adds, large enough for oneDNN.
std::string denseEpilogues(const std::string& e) {
  std::string text = R"(
func.func @main(%x: tensor<64x64xE>, %w: tensor<64x128xE>, %bias: tensor<128xE>, %r: tensor<64x128xE>, %w2: tensor<64x128xE>, %w3: tensor<64x128xE>) -> (tensor<64x128xE>, tensor<64x128xE>, tensor<64x128xE>) {
  %zero = stablehlo.constant dense<0.0> : tensor<E>
  %half = stablehlo.constant dense<0.5> : tensor<64x128xE>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x64xE>, tensor<64x128xE>) -> tensor<64x128xE>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<128xE>) -> tensor<64x128xE>
  %2 = stablehlo.add %0, %1 : tensor<64x128xE>
  %3 = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<E>) -> tensor<64x128xE>
  %4 = stablehlo.maximum %2, %3 : tensor<64x128xE>
  %5 = stablehlo.dot_general %x, %w2, contracting_dims = [1] x [0] : (tensor<64x64xE>, tensor<64x128xE>) -> tensor<64x128xE>
  %6 = stablehlo.tanh %5 : tensor<64x128xE>
  %7 = stablehlo.add %r, %6 : tensor<64x128xE>
  %8 = stablehlo.multiply %7, %half : tensor<64x128xE>
  %9 = stablehlo.dot_general %x, %w3, contracting_dims = [1] x [0] : (tensor<64x64xE>, tensor<64x128xE>) -> tensor<64x128xE>
  %10 = stablehlo.logistic %9 : tensor<64x128xE>
  return %4, %8, %10 : tensor<64x128xE>, tensor<64x128xE>, tensor<64x128xE>
})";
  for (size_t at; (at = text.find("xE>")) != std::string::npos;) text.replace(at, 3, "x" + e + ">");
  for (size_t at; (at = text.find("<E>")) != std::string::npos;) text.replace(at, 3, "<" + e + ">");
  return text;
}

// denseEpilogues' arguments on element type `e`.
std::vector<Tensor> denseEpilogueArguments(const std::string& e) {
  auto type = [&](const std::string& shape) { return "tensor<" + shape + "x" + e + ">"; };
  return {pseudoRandom(type("64x64"), 9),  pseudoRandom(type("64x128"), 10), pseudoRandom(type("128"), 11),
          pseudoRandom(type("64x128"), 12), pseudoRandom(type("64x128"), 13), pseudoRandom(type("64x128"), 14)};
}

// After the cpu pipeline each dot and its epilogue is one output fusion,
// one oneDNN call with post-ops.
TEST(CpuBackendDot, DenseBiasReluAndEpilogues) {
  auto results = runBoth(denseEpilogues("f32"), denseEpilogueArguments("f32"), kDotTolerance);
  ASSERT_EQ(results.size(), 3u);
  bool someClamped = false;
  for (int64_t i = 0; i < results[0].numElements(); ++i) {
    EXPECT_GE(results[0].getFloat(i), 0.0);
    someClamped |= results[0].getFloat(i) == 0.0;
  }
  EXPECT_TRUE(someClamped) << "the test data should exercise relu";
  EXPECT_EQ(compileStats(denseEpilogues("f32")).libraryCalls, 3);
}

// The same epilogues on bf16 and f16 dots (widened to f32 on hosts without
// a faster bf16 primitive, f16 always): oneDNN post-ops on the f32 sums,
// rounded once, so every dot is one library call and no fusion runs op by
// op; within a bf16/f16 rounding or two of the interpreter, which rounds
// after every op.
TEST(CpuBackendDot, NarrowDotsTakeTheirEpilogues) {
  for (std::string e : {"bf16", "f16"}) {
    SCOPED_TRACE(e);
    auto results = runBoth(denseEpilogues(e), denseEpilogueArguments(e), e == "bf16" ? 1.6e-2 : 2e-3);
    ASSERT_EQ(results.size(), 3u);
    cpu::CpuCompileStats stats = compileStats(denseEpilogues(e));
    EXPECT_EQ(stats.libraryCalls, 3);
    EXPECT_EQ(stats.fusionsRunOpByOp, 0);
    EXPECT_EQ(stats.kernels, 0);
  }
}

// bf16 and f16 dots summing into f32 (JAX's preferred_element_type: mixed
// precision) are oneDNN calls with an f32 destination, epilogues included;
// their sums are f32, so the f32 dot tolerance holds.
TEST(CpuBackendDot, NarrowDotsWithF32Results) {
  for (std::string e : {"bf16", "f16"}) {
    SCOPED_TRACE(e);
    std::string x = "tensor<4x16x64x" + e + ">", w = "tensor<4x64x24x" + e + ">", y = "tensor<4x16x24xf32>";
    std::string text = "func.func @main(%x: " + x + ", %w: " + w + ", %b: tensor<24xf32>, %v: " + w + ") -> (" + y +
                       ", " + y + ") {\n" +
                       "  %0 = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (" +
                       x + ", " + w + ") -> " + y + "\n" +
                       "  %1 = stablehlo.dot_general %x, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (" +
                       x + ", " + w + ") -> " + y + "\n" +
                       "  %2 = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<24xf32>) -> " + y + "\n" +
                       "  %3 = stablehlo.add %1, %2 : " + y + "\n" +
                       "  %zero = stablehlo.constant dense<0.0> : " + y + "\n" +
                       "  %4 = stablehlo.maximum %3, %zero : " + y + "\n" +
                       "  return %0, %4 : " + y + ", " + y + "\n}\n";
    auto results = runBoth(
        text, {pseudoRandom(x, 1), pseudoRandom(w, 2), pseudoRandom("tensor<24xf32>", 3), pseudoRandom(w, 4)},
        kDotTolerance);
    ASSERT_EQ(results.size(), 2u);
    cpu::CpuCompileStats stats = compileStats(text);
    EXPECT_EQ(stats.libraryCalls, 2);
    EXPECT_EQ(stats.routines, 0);
    EXPECT_EQ(stats.fusionsRunOpByOp, 0);
  }
}

// An f16 constant vector in an epilogue (converted to f32 once, when the
// primitive is made) scales the dot's columns.
TEST(CpuBackendDot, F16ConstantVectorInAnEpilogue) {
  std::string text = R"(
func.func @main(%x: tensor<16x64xf16>, %w: tensor<64x8xf16>) -> tensor<16x8xf16> {
  %scale = stablehlo.constant dense<[0.5, -1.0, 2.0, 0.25, 1.0, -0.5, 3.0, 0.0]> : tensor<8xf16>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<16x64xf16>, tensor<64x8xf16>) -> tensor<16x8xf16>
  %1 = stablehlo.broadcast_in_dim %scale, dims = [1] : (tensor<8xf16>) -> tensor<16x8xf16>
  %2 = stablehlo.multiply %0, %1 : tensor<16x8xf16>
  return %2 : tensor<16x8xf16>
})";
  EXPECT_EQ(runBoth(text, {pseudoRandom("tensor<16x64xf16>", 1), pseudoRandom("tensor<64x8xf16>", 2)}, 2e-3).size(), 1u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.libraryCalls, 1);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);
}

TEST(CpuBackendDot, MlpExampleWholeProgram) {
  // CMake compiles this file by its absolute path, so __FILE__ locates the repository.
  std::ifstream file(std::filesystem::path(__FILE__).parent_path() / "../../examples/mlp.mlir");
  std::stringstream text;
  text << file.rdbuf();
  ASSERT_FALSE(text.str().empty());
  auto results = runBoth(text.str(), {tensorOf("tensor<2x4xf32>", {1, 2, 3, 4, -1, 0.5, 0, 2})}, kDotTolerance);
  ASSERT_EQ(results.size(), 1u);
  for (int64_t row = 0; row < 2; ++row)  // softmax rows sum to 1
    EXPECT_NEAR(results[0].getFloat(row * 3) + results[0].getFloat(row * 3 + 1) + results[0].getFloat(row * 3 + 2),
                1.0, 1e-6);
}

TEST(CpuBackendDot, Bf16Matmul) {
  // Small integers and halves: every product and sum is exact in bf16.
  std::string text = R"(
func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x2xbf16>) -> tensor<2x2xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xbf16>, tensor<3x2xbf16>) -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
})";
  auto results = runBoth(text, {tensorOf("tensor<2x3xbf16>", {1, 2, 3, 0.5, -1, 0.25}),
                                tensorOf("tensor<3x2xbf16>", {1, 2, 3, 4, -1.5, 0.125})});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].getFloat(0), 2.5);  // 1 + 6 - 4.5
  EXPECT_EQ(results[0].getFloat(3), -2.96875);  // 1 - 4 + 1/32
}

// Batch norm's mean over N, H and W next to the normalized activations that
// read it. Its rows (one per channel) are strided in memory, so the fusion
// pass leaves the reduce out of the activations' kernel: a column kernel and
// an elementwise one. The multi-output fusion it built before (no single
// kernel takes a column reduce and a full-shape output), given as it is,
// runs as one kernel per output, the second reading the first's mean,
// instead of one kernel per op.
TEST(CpuBackend, AMultiOutputFusionRunsAsAKernelPerOutput) {
  std::string fused = R"(func.func @main(%x: tensor<2x5x5x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<2x5x5x8xf32>) {
  %0:2 = "kiln.fusion"(%x, %b, %g) <{kind = "multi_output"}> ({
  ^bb0(%x1: tensor<2x5x5x8xf32>, %b1: tensor<8xf32>, %g1: tensor<8xf32>):
    %n = stablehlo.constant dense<5.000000e+01> : tensor<8xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %s = stablehlo.reduce(%x1 init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x5x5x8xf32>, tensor<f32>) -> tensor<8xf32>
    %mean = stablehlo.divide %s, %n : tensor<8xf32>
    %bb = stablehlo.broadcast_in_dim %b1, dims = [3] : (tensor<8xf32>) -> tensor<2x5x5x8xf32>
    %gb = stablehlo.broadcast_in_dim %g1, dims = [3] : (tensor<8xf32>) -> tensor<2x5x5x8xf32>
    %mb = stablehlo.broadcast_in_dim %mean, dims = [3] : (tensor<8xf32>) -> tensor<2x5x5x8xf32>
    %d = stablehlo.subtract %x1, %mb : tensor<2x5x5x8xf32>
    %y = stablehlo.multiply %d, %gb : tensor<2x5x5x8xf32>
    %z = stablehlo.add %y, %bb : tensor<2x5x5x8xf32>
    "kiln.yield"(%mean, %z) : (tensor<8xf32>, tensor<2x5x5x8xf32>) -> ()
  }) : (tensor<2x5x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8xf32>, tensor<2x5x5x8xf32>)
  return %0#0, %0#1 : tensor<8xf32>, tensor<2x5x5x8xf32>
})";
  cpu::CpuCompileStats fusedStats = compileStats(fused);
  EXPECT_EQ(fusedStats.fusionsSplitByRoot, 1);
  EXPECT_EQ(fusedStats.fusionsRunOpByOp, 0);
  EXPECT_EQ(fusedStats.kernels, 2);

  std::string text = R"(func.func @main(%x: tensor<2x5x5x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> (tensor<8xf32>, tensor<2x5x5x8xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x5x5x8xf32>, tensor<f32>) -> tensor<8xf32>
  %n = stablehlo.constant dense<50.0> : tensor<8xf32>
  %mean = stablehlo.divide %s, %n : tensor<8xf32>
  %mb = stablehlo.broadcast_in_dim %mean, dims = [3] : (tensor<8xf32>) -> tensor<2x5x5x8xf32>
  %d = stablehlo.subtract %x, %mb : tensor<2x5x5x8xf32>
  %gb = stablehlo.broadcast_in_dim %g, dims = [3] : (tensor<8xf32>) -> tensor<2x5x5x8xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<8xf32>) -> tensor<2x5x5x8xf32>
  %y = stablehlo.multiply %d, %gb : tensor<2x5x5x8xf32>
  %z = stablehlo.add %y, %bb : tensor<2x5x5x8xf32>
  return %mean, %z : tensor<8xf32>, tensor<2x5x5x8xf32>
})";
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.fusionsSplitByRoot, 0);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);
  EXPECT_EQ(stats.kernels, 2);
  EXPECT_EQ(stats.columnKernels, 1);
  for (const std::string* program : {&fused, &text}) {
    std::vector<Tensor> cpu = runBoth(*program, {tensorOf("tensor<2x5x5x8xf32>", mixedValues(400, 11)),
                                                 tensorOf("tensor<8xf32>", mixedValues(8, 12)),
                                                 tensorOf("tensor<8xf32>", mixedValues(8, 13))});
    EXPECT_EQ(cpu.size(), 2u);
  }
}

// An epilogue oneDNN has no post-op for (cosine, log): an f32 dot runs it in the
// emitted dot loops (in place, after each block of rows); a bf16 dot, which
// has no emitted form, runs on oneDNN alone and its epilogue as one kernel.
TEST(CpuBackendDot, AnEpilogueOneDnnCannotTakeRunsInTheDotLoopsOrOpByOp) {
  std::string text = R"(
func.func @main(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> tensor<32x48xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x48xf32>) -> tensor<32x48xf32>
  %1 = stablehlo.cosine %0 : tensor<32x48xf32>
  return %1 : tensor<32x48xf32>
})";
  EXPECT_EQ(runBoth(text, {pseudoRandom("tensor<32x64xf32>", 3), pseudoRandom("tensor<64x48xf32>", 4)}, kDotTolerance)
                .size(),
            1u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.kernels, 1);
  EXPECT_EQ(stats.libraryCalls, 0);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);

  std::string bf16 = R"(
func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x2xbf16>) -> tensor<2x2xbf16> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xbf16>, tensor<3x2xbf16>) -> tensor<2x2xbf16>
  %1 = stablehlo.log %0 : tensor<2x2xbf16>
  return %1 : tensor<2x2xbf16>
})";
  stats = compileStats(bf16);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);
  EXPECT_EQ(stats.splitOutputFusions, 1);
  EXPECT_EQ(stats.libraryCalls, 1);
  EXPECT_EQ(stats.kernels, 1);
  EXPECT_EQ(runBoth(bf16, {pseudoRandom("tensor<2x3xbf16>", 5), pseudoRandom("tensor<3x2xbf16>", 6)}, kDotTolerance).size(),
            1u);
}

// An SGD step on a convolution's gradient (w - lr * conv, the conv the
// subtrahend, which oneDNN's post-ops cannot express) runs the convolution on
// oneDNN and the update as one kernel, not an op-by-op fusion.
TEST(CpuBackendDot, AnEpilogueNoPostOpTakesRunsAsOneKernelAfterTheLibraryCall) {
  std::string text = R"(
func.func @main(%x: tensor<1x6x6x4xf32>, %k: tensor<3x3x4x8xf32>, %w: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x4xf32>, tensor<3x3x4x8xf32>) -> tensor<1x4x4x8xf32>
  %lr = stablehlo.constant dense<0.125> : tensor<1x4x4x8xf32>
  %1 = stablehlo.multiply %lr, %0 : tensor<1x4x4x8xf32>
  %2 = stablehlo.subtract %w, %1 : tensor<1x4x4x8xf32>
  return %2 : tensor<1x4x4x8xf32>
})";
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);
  EXPECT_EQ(stats.splitOutputFusions, 1);
  EXPECT_EQ(stats.libraryCalls, 1);
  EXPECT_EQ(stats.kernels, 1);
  EXPECT_EQ(runBoth(text, {pseudoRandom("tensor<1x6x6x4xf32>", 7), pseudoRandom("tensor<3x3x4x8xf32>", 8),
                           pseudoRandom("tensor<1x4x4x8xf32>", 9)},
                    kDotTolerance)
                .size(),
            1u);
}

// Dots below kMinLibraryDotWork multiply-adds (a batch-1 layer of a small
// MLP) are emitted loops, epilogue included, instead of oneDNN calls (whose
// fixed cost is microseconds); the same program a size up is one oneDNN
// call per layer.
TEST(CpuBackendDot, TinyDotsAreEmittedWithTheirEpilogues) {
  auto layer = [](int64_t batch) {
    std::string x = "tensor<" + std::to_string(batch) + "x32xf32>", y = "tensor<" + std::to_string(batch) + "x16xf32>";
    return "func.func @main(%x: " + x + ", %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> " + y + " {\n" +
           "  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (" + x + ", tensor<32x16xf32>) -> " + y + "\n" +
           "  %1 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> " + y + "\n" +
           "  %2 = stablehlo.add %0, %1 : " + y + "\n" +
           "  %zero = stablehlo.constant dense<0.0> : " + y + "\n" +
           "  %3 = stablehlo.maximum %2, %zero : " + y + "\n" +
           "  return %3 : " + y + "\n}\n";
  };
  std::string tiny = layer(2);  // 1,024 multiply-adds
  EXPECT_EQ(runBoth(tiny, {pseudoRandom("tensor<2x32xf32>", 1), pseudoRandom("tensor<32x16xf32>", 2),
                           pseudoRandom("tensor<16xf32>", 3)},
                    kDotTolerance)
                .size(),
            1u);
  cpu::CpuCompileStats stats = compileStats(tiny);
  EXPECT_EQ(stats.kernels, 1);
  EXPECT_EQ(stats.libraryCalls, 0);
  cpu::CpuCompileStats larger = compileStats(layer(1024));  // 524,288
  EXPECT_EQ(larger.kernels, 0);
  EXPECT_EQ(larger.libraryCalls, 1);
}

// Small f32 dots are emitted register tiles (4 rows, or the rows of a
// partial block, by two vectors, then one, then one masked to the last
// columns; a strided rhs copied to rows first): every element sums its products k ascending in f32, each product
// fused into the sum where the JIT's instructions have fused multiply-adds
// (a multiply then an add elsewhere), so the results are bitwise those of
// one of the two loops written here (the same one for every element), and
// within the dot tolerance of the interpreter (which sums in double).
// CpuEmitter.F32DotTilesFuseTheirMultiplyAdds pins the fusing itself.
// Batch-1 rows (a recurrent cell's step), partial blocks, columns short of a
// vector and past the tiles, a transposed lhs and rhs, a batch dim.
TEST(CpuBackendDot, SmallF32DotsAreRegisterTilesSummingInOrder) {
  struct Shape {
    int64_t batch, m, n, k;
    bool lhsTransposed, rhsTransposed;
  };
  for (Shape shape : {Shape{0, 1, 32, 32, false, false}, Shape{0, 1, 128, 64, false, false}, Shape{0, 8, 64, 128, false, false},
                      Shape{0, 3, 48, 7, false, false}, Shape{0, 5, 17, 9, false, false}, Shape{0, 2, 100, 33, false, false},
                      Shape{0, 9, 8, 40, false, false}, Shape{0, 6, 40, 16, true, false}, Shape{0, 4, 36, 12, false, true},
                      Shape{3, 5, 50, 20, false, false}, Shape{2, 1, 16, 1, false, false},
                      // Fewer columns than a vector (a masked tile), rhs rows
                      // strided (copied to the stack first): an MLP's
                      // 128 -> 10 layer and its gradients.
                      Shape{0, 32, 10, 128, false, false}, Shape{0, 128, 10, 32, true, false},
                      Shape{0, 32, 128, 10, false, true}, Shape{0, 7, 3, 5, false, true},
                      Shape{2, 6, 21, 9, true, true}, Shape{0, 4, 1, 64, false, true}}) {
    std::string batch = shape.batch ? std::to_string(shape.batch) + "x" : "";
    auto dims = [](int64_t a, int64_t b) { return std::to_string(a) + "x" + std::to_string(b); };
    std::string lhs = "tensor<" + batch + (shape.lhsTransposed ? dims(shape.k, shape.m) : dims(shape.m, shape.k)) + "xf32>";
    std::string rhs = "tensor<" + batch + (shape.rhsTransposed ? dims(shape.n, shape.k) : dims(shape.k, shape.n)) + "xf32>";
    std::string out = "tensor<" + batch + dims(shape.m, shape.n) + "xf32>";
    int64_t first = shape.batch ? 1 : 0;
    std::string text = "func.func @main(%a: " + lhs + ", %b: " + rhs + ") -> " + out + " {\n" +
                       "  %0 = stablehlo.dot_general %a, %b, " + (shape.batch ? "batching_dims = [0] x [0], " : "") +
                       "contracting_dims = [" + std::to_string(first + (shape.lhsTransposed ? 0 : 1)) + "] x [" +
                       std::to_string(first + (shape.rhsTransposed ? 1 : 0)) + "] : (" + lhs + ", " + rhs + ") -> " + out +
                       "\n  return %0 : " + out + "\n}\n";
    std::string what = batch + dims(shape.m, shape.n) + " k " + std::to_string(shape.k) +
                       (shape.lhsTransposed ? " lhs transposed" : "") + (shape.rhsTransposed ? " rhs transposed" : "");
    Tensor a = pseudoRandom(lhs, 11), b = pseudoRandom(rhs, 12);
    std::vector<Tensor> results = runBoth(text, {a, b}, kDotTolerance);
    ASSERT_EQ(results.size(), 1u) << what;
    const float* x = reinterpret_cast<const float*>(a.bytes());
    const float* y = reinterpret_cast<const float*>(b.bytes());
    const float* got = reinterpret_cast<const float*>(results[0].bytes());
    int64_t batches = std::max<int64_t>(shape.batch, 1), m = shape.m, n = shape.n, k = shape.k;
    int fusedWay = -1;  // 1: the kernel fused its products, 0: it did not
    for (int64_t p = 0; p < batches; ++p)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          // Both sums: fused where the JIT's instruction set has FMA (a
          // --cpu_max_isa cap may leave it out), each product rounded else.
          float fusedSum = 0, sum = 0;
          for (int64_t q = 0; q < k; ++q) {
            float xq = x[p * m * k + (shape.lhsTransposed ? q * m + i : i * k + q)];
            float yq = y[p * k * n + (shape.rhsTransposed ? j * k + q : q * n + j)];
            fusedSum = std::fma(xq, yq, fusedSum);
            volatile float product = xq * yq;
            sum = sum + product;  // (volatile: rounded, never fused into an FMA by the compiler)
          }
          uint32_t bits = std::bit_cast<uint32_t>(got[(p * m + i) * n + j]);
          if (fusedSum != sum) {  // the element tells which the kernel did: all must agree
            int way = bits == std::bit_cast<uint32_t>(fusedSum) ? 1 : bits == std::bit_cast<uint32_t>(sum) ? 0 : -1;
            ASSERT_NE(way, -1) << what << ": element " << p << "," << i << "," << j << " is " << got[(p * m + i) * n + j]
                               << ", summed in order " << sum << ", fused " << fusedSum;
            if (fusedWay < 0) fusedWay = way;
            ASSERT_EQ(way, fusedWay) << what << ": element " << p << "," << i << "," << j << " mixes fused and unfused sums";
            continue;
          }
          ASSERT_EQ(bits, std::bit_cast<uint32_t>(sum))
              << what << ": element " << p << "," << i << "," << j << " is " << got[(p * m + i) * n + j] << ", summed in order "
              << sum;
        }
    cpu::CpuCompileStats stats = compileStats(text);
    EXPECT_EQ(stats.kernels, 1) << what;
    EXPECT_EQ(stats.libraryCalls, 0) << what;
  }
}

// Dots oneDNN has no matmul for (integer types, f64) are emitted loop
// nests (DotForm), bitwise equal to the interpreter: integer sums
// wrap, f64 ones add in the interpreter's order with its roundings. Plain,
// transposed and batched layouts, a vector dot, narrow and unsigned
// integers, a result large enough to split across threads, the register
// tile's edges; a dot with two contracting dims (not taken) still runs, as a
// routine.
TEST(CpuBackendDot, IntegerAndF64DotsAreEmittedLoopsBitwiseEqualToTheInterpreter) {
  std::string text = R"(
func.func @main(%a: tensor<2x3xi32>, %b: tensor<3x2xi32>, %c: tensor<4x96x64xi32>, %d: tensor<48x4x96xi32>, %e: tensor<96x64xf64>, %f: tensor<96x33xf64>, %g: tensor<37xi8>, %h: tensor<37xi8>, %p: tensor<5x7xui16>, %q: tensor<7x9xui16>, %x: tensor<128x64xi64>, %y: tensor<64x256xi64>) -> (tensor<2x2xi32>, tensor<4x64x48xi32>, tensor<64x33xf64>, tensor<i8>, tensor<5x9xui16>, tensor<128x256xi64>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2x2xi32>
  %1 = stablehlo.dot_general %c, %d, batching_dims = [0] x [1], contracting_dims = [1] x [2] : (tensor<4x96x64xi32>, tensor<48x4x96xi32>) -> tensor<4x64x48xi32>
  %2 = stablehlo.dot_general %e, %f, contracting_dims = [0] x [0] : (tensor<96x64xf64>, tensor<96x33xf64>) -> tensor<64x33xf64>
  %3 = stablehlo.dot_general %g, %h, contracting_dims = [0] x [0] : (tensor<37xi8>, tensor<37xi8>) -> tensor<i8>
  %4 = stablehlo.dot_general %p, %q, contracting_dims = [1] x [0] : (tensor<5x7xui16>, tensor<7x9xui16>) -> tensor<5x9xui16>
  %5 = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<128x64xi64>, tensor<64x256xi64>) -> tensor<128x256xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xi32>, tensor<4x64x48xi32>, tensor<64x33xf64>, tensor<i8>, tensor<5x9xui16>, tensor<128x256xi64>
})";
  std::mt19937_64 rng(5);
  auto randomInts = [&](const std::string& type) {
    Tensor t = pseudoRandom(type, 0);
    for (int64_t i = 0; i < t.numElements(); ++i) t.setInt(i, int64_t(rng()));  // wraps to the width
    return t;
  };
  std::vector<Tensor> args = {tensorOf("tensor<2x3xi32>", {1, -2, 3, 2147483647, 5, -6}),
                              tensorOf("tensor<3x2xi32>", {7, 8, 9, -10, 11, 12}),
                              randomInts("tensor<4x96x64xi32>"), randomInts("tensor<48x4x96xi32>"),
                              pseudoRandom("tensor<96x64xf64>", 3), pseudoRandom("tensor<96x33xf64>", 4),
                              randomInts("tensor<37xi8>"), randomInts("tensor<37xi8>"),
                              randomInts("tensor<5x7xui16>"), randomInts("tensor<7x9xui16>"),
                              randomInts("tensor<128x64xi64>"), randomInts("tensor<64x256xi64>")};
  EXPECT_EQ(runBoth(text, args, std::nullopt, /*maxUlp=*/0).size(), 6u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.kernels, 6);
  EXPECT_EQ(stats.routines, 0);
  EXPECT_GE(stats.parallelKernels, 1);

  // The register tile (4 rows by two 64-byte vectors) with the rows of a
  // partial block and the columns past the last tile, batched, for 8-, 16-,
  // 32- and 64-bit elements; a k of 1.
  std::string tiled = R"(
func.func @main(%a: tensor<3x10x40xi32>, %b: tensor<3x40x70xi32>, %c: tensor<9x50xi8>, %d: tensor<50x300xi8>, %e: tensor<7x20xui16>, %f: tensor<20x64xui16>, %g: tensor<5x1xf64>, %h: tensor<1x17xf64>) -> (tensor<3x10x70xi32>, tensor<9x300xi8>, tensor<7x64xui16>, tensor<5x17xf64>) {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x10x40xi32>, tensor<3x40x70xi32>) -> tensor<3x10x70xi32>
  %1 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<9x50xi8>, tensor<50x300xi8>) -> tensor<9x300xi8>
  %2 = stablehlo.dot_general %e, %f, contracting_dims = [1] x [0] : (tensor<7x20xui16>, tensor<20x64xui16>) -> tensor<7x64xui16>
  %3 = stablehlo.dot_general %g, %h, contracting_dims = [1] x [0] : (tensor<5x1xf64>, tensor<1x17xf64>) -> tensor<5x17xf64>
  return %0, %1, %2, %3 : tensor<3x10x70xi32>, tensor<9x300xi8>, tensor<7x64xui16>, tensor<5x17xf64>
})";
  EXPECT_EQ(runBoth(tiled, {randomInts("tensor<3x10x40xi32>"), randomInts("tensor<3x40x70xi32>"),
                            randomInts("tensor<9x50xi8>"), randomInts("tensor<50x300xi8>"),
                            randomInts("tensor<7x20xui16>"), randomInts("tensor<20x64xui16>"),
                            pseudoRandom("tensor<5x1xf64>", 5), pseudoRandom("tensor<1x17xf64>", 6)},
                    std::nullopt, /*maxUlp=*/0)
                .size(),
            4u);
  EXPECT_EQ(compileStats(tiled).kernels, 4);

  // Large enough for several column panels and blocks of k (each block of
  // rhs reused by every row block from L2; the sums reloaded from the
  // output between blocks of k, still k ascending): batched f64 with an
  // epilogue after the blocked phases, and i32.
  std::string blocked = R"(
func.func @main(%a: tensor<2x10x300xf64>, %b: tensor<2x300x600xf64>, %s: tensor<2x10x600xf64>, %c: tensor<9x600xi32>, %d: tensor<600x700xi32>) -> (tensor<2x10x600xf64>, tensor<9x700xi32>) {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x10x300xf64>, tensor<2x300x600xf64>) -> tensor<2x10x600xf64>
  %1 = stablehlo.add %0, %s : tensor<2x10x600xf64>
  %2 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<9x600xi32>, tensor<600x700xi32>) -> tensor<9x700xi32>
  return %1, %2 : tensor<2x10x600xf64>, tensor<9x700xi32>
})";
  EXPECT_EQ(runBoth(blocked, {pseudoRandom("tensor<2x10x300xf64>", 7), pseudoRandom("tensor<2x300x600xf64>", 8),
                              pseudoRandom("tensor<2x10x600xf64>", 9), randomInts("tensor<9x600xi32>"),
                              randomInts("tensor<600x700xi32>")},
                    std::nullopt, /*maxUlp=*/0)
                .size(),
            2u);
  EXPECT_EQ(compileStats(blocked).kernels, 2);

  std::string twoContracting = R"(
func.func @main(%a: tensor<3x4x5xi32>, %b: tensor<4x5x2xi32>) -> tensor<3x2xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1, 2] x [0, 1] : (tensor<3x4x5xi32>, tensor<4x5x2xi32>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
})";
  rng.seed(9);
  runBoth(twoContracting, {randomInts("tensor<3x4x5xi32>"), randomInts("tensor<4x5x2xi32>")});
  EXPECT_EQ(compileStats(twoContracting).routines, 1);
}

// Kernels with sibling loops (a concatenation's slabs, each behind its own
// trip check) that read the same scalar parameter: each loop reads it
// itself (an element cached in the first loop does not dominate the
// second; this was invalid IR).
TEST(CpuBackend, SiblingLoopsEachReadAScalarParameter) {
  std::string text = R"(
func.func @main(%a: tensor<8x32xf32>, %b: tensor<8x16xf32>, %s: tensor<f32>) -> tensor<8x48xf32> {
  %sa = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
  %0 = stablehlo.multiply %a, %sa : tensor<8x32xf32>
  %1 = stablehlo.multiply %b, %sb : tensor<8x16xf32>
  %2 = stablehlo.concatenate %0, %1, dim = 1 : (tensor<8x32xf32>, tensor<8x16xf32>) -> tensor<8x48xf32>
  return %2 : tensor<8x48xf32>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<8x32xf32>", 1), pseudoRandom("tensor<8x16xf32>", 2),
                                tensorOf("tensor<f32>", {2.5})});
  EXPECT_EQ(results.size(), 1u);
  EXPECT_EQ(compileStats(text).kernels, 1);
}

// Convolutions with batch groups (JAX's weight gradient of a grouped or
// depthwise convolution, in its layouts) and with window reversal: the
// expand pass turns them into forms oneDNN takes, so they run as library
// calls, not as the reference routine, and still match the interpreter.
TEST(CpuBackendConv, BatchGroupsAndWindowReversalRunOnOnednn) {
  std::string text = R"(
func.func @main(%x: tensor<8x5x5x6xf32>, %dy: tensor<8x3x3x6xf32>, %y: tensor<4x6x7x7xf32>, %dz: tensor<4x6x5x5xf32>, %w: tensor<3x2x3x6xf32>) -> (tensor<3x3x1x6xf32>, tensor<4x3x3x2xf32>, tensor<4x6x5x7xf32>) {
  %0 = stablehlo.convolution(%x, %dy) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 6 : i64, feature_group_count = 1 : i64} : (tensor<8x5x5x6xf32>, tensor<8x3x3x6xf32>) -> tensor<3x3x1x6xf32>
  %1 = stablehlo.convolution(%y, %dz) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[f, b, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<4x6x7x7xf32>, tensor<4x6x5x5xf32>) -> tensor<4x2x3x3xf32>
  %2 = stablehlo.transpose %1, dims = [0, 2, 3, 1] : (tensor<4x2x3x3xf32>) -> tensor<4x3x3x2xf32>
  %3 = stablehlo.convolution(%y, %w) dim_numbers = [b, f, 0, 1]x[0, i, 1, o]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [true, true]} {batch_group_count = 1 : i64, feature_group_count = 3 : i64} : (tensor<4x6x7x7xf32>, tensor<3x2x3x6xf32>) -> tensor<4x6x5x7xf32>
  return %0, %2, %3 : tensor<3x3x1x6xf32>, tensor<4x3x3x2xf32>, tensor<4x6x5x7xf32>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<8x5x5x6xf32>", 1), pseudoRandom("tensor<8x3x3x6xf32>", 2),
                                pseudoRandom("tensor<4x6x7x7xf32>", 3), pseudoRandom("tensor<4x6x5x5xf32>", 4),
                                pseudoRandom("tensor<3x2x3x6xf32>", 5)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 3u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.libraryCalls, 3);
  EXPECT_EQ(stats.routines, 0);
}

// reduce_window is an emitted kernel (the window unrolled, folded in the
// interpreter's order, padding and base-dilation holes folding the init
// value): max and average pools, window and base dilation, padding, integer
// sums, a min fold over NaNs and signed zeros -- bitwise. A window of more
// than 64 positions (a cumulative sum) stays a routine.
TEST(CpuBackend, ReduceWindowIsAnEmittedKernel) {
  std::string text = R"(
func.func @main(%x: tensor<2x8x8x16xf32>, %i: tensor<3x10xi32>, %m: tensor<12xf32>) -> (tensor<2x4x4x16xf32>, tensor<2x8x8x16xf32>, tensor<3x9xi32>, tensor<12xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %izero = stablehlo.constant dense<0> : tensor<i32>
  %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>} : (tensor<2x8x8x16xf32>, tensor<f32>) -> tensor<2x4x4x16xf32>
  %1 = "stablehlo.reduce_window"(%x, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 3, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<2x8x8x16xf32>, tensor<f32>) -> tensor<2x8x8x16xf32>
  %2 = "stablehlo.reduce_window"(%i, %izero) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %r = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %r : tensor<i32>
  }) {window_dimensions = array<i64: 2, 3>, window_dilations = array<i64: 1, 2>, base_dilations = array<i64: 1, 2>, padding = dense<[[0, 1], [2, 0]]> : tensor<2x2xi64>, window_strides = array<i64: 1, 2>} : (tensor<3x10xi32>, tensor<i32>) -> tensor<3x9xi32>
  %3 = "stablehlo.reduce_window"(%m, %inf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.minimum %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 3>, padding = dense<[[1, 1]]> : tensor<1x2xi64>} : (tensor<12xf32>, tensor<f32>) -> tensor<12xf32>
  return %0, %1, %2, %3 : tensor<2x4x4x16xf32>, tensor<2x8x8x16xf32>, tensor<3x9xi32>, tensor<12xf32>
})";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor edges = tensorOf("tensor<12xf32>", {0.0, -0.0, 1.0, nan, 2.0, -0.0, 0.0, 0.0, -1.0, INFINITY, -0.0, 3.0});
  std::vector<Tensor> results =
      runBoth(text, {pseudoRandom("tensor<2x8x8x16xf32>", 1), pseudoRandom("tensor<3x10xi32>", 2), edges},
              std::nullopt, /*maxUlp=*/0);
  EXPECT_EQ(results.size(), 4u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.routines, 0);
  EXPECT_EQ(stats.kernels, 4);

  std::string cumulative = R"(
func.func @main(%x: tensor<128xf32>) -> tensor<128xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {window_dimensions = array<i64: 128>, padding = dense<[[127, 0]]> : tensor<1x2xi64>} : (tensor<128xf32>, tensor<f32>) -> tensor<128xf32>
  return %0 : tensor<128xf32>
})";
  EXPECT_EQ(runBoth(cumulative, {pseudoRandom("tensor<128xf32>", 3)}, std::nullopt, /*maxUlp=*/0).size(), 1u);
  EXPECT_EQ(compileStats(cumulative).routines, 1);
}

// A convolution's epilogue in its output fusion becomes oneDNN's bias and
// post-ops (a per-feature vector added first, relu, tanh, a splat scale): one
// library call each, NHWC and NCHW; an epilogue oneDNN has no post-op for
// (cosine) runs after the library call as one kernel.
TEST(CpuBackendConv, EpiloguesBecomeBiasAndPostOps) {
  std::string text = R"(
func.func @main(%x: tensor<2x9x9x3xf32>, %w: tensor<3x3x3x8xf32>, %b: tensor<8xf32>, %y: tensor<2x3x9x9xf32>, %v: tensor<8x3x3x3xf32>) -> (tensor<2x9x9x8xf32>, tensor<2x8x7x7xf32>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x9x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x9x9x8xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<8xf32>) -> tensor<2x9x9x8xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x9x9x8xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<2x9x9x8xf32>
  %3 = stablehlo.maximum %2, %zero : tensor<2x9x9x8xf32>
  %4 = stablehlo.convolution(%y, %v) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9x9xf32>, tensor<8x3x3x3xf32>) -> tensor<2x8x7x7xf32>
  %c = stablehlo.constant dense<[0.5, -1.0, 2.0, 0.25, 1.5, -0.5, 3.0, 1.0]> : tensor<8xf32>
  %5 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<8xf32>) -> tensor<2x8x7x7xf32>
  %6 = stablehlo.add %4, %5 : tensor<2x8x7x7xf32>
  %7 = stablehlo.tanh %6 : tensor<2x8x7x7xf32>
  %half = stablehlo.constant dense<0.5> : tensor<2x8x7x7xf32>
  %8 = stablehlo.multiply %7, %half : tensor<2x8x7x7xf32>
  return %3, %8 : tensor<2x9x9x8xf32>, tensor<2x8x7x7xf32>
})";
  auto results = runBoth(text, {pseudoRandom("tensor<2x9x9x3xf32>", 1), pseudoRandom("tensor<3x3x3x8xf32>", 2),
                                pseudoRandom("tensor<8xf32>", 3), pseudoRandom("tensor<2x3x9x9xf32>", 4),
                                pseudoRandom("tensor<8x3x3x3xf32>", 5)},
                         kDotTolerance);
  EXPECT_EQ(results.size(), 2u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.libraryCalls, 2);
  EXPECT_EQ(stats.kernels, 0);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);

  std::string cosine = R"(
func.func @main(%x: tensor<2x9x9x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<2x7x7x8xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x9x9x3xf32>, tensor<3x3x3x8xf32>) -> tensor<2x7x7x8xf32>
  %1 = stablehlo.cosine %0 : tensor<2x7x7x8xf32>
  return %1 : tensor<2x7x7x8xf32>
})";
  EXPECT_EQ(runBoth(cosine, {pseudoRandom("tensor<2x9x9x3xf32>", 6), pseudoRandom("tensor<3x3x3x8xf32>", 7)},
                    kDotTolerance)
                .size(),
            1u);
  cpu::CpuCompileStats fallback = compileStats(cosine);  // the convolution, then the cosine as one kernel
  EXPECT_EQ(fallback.libraryCalls, 1);
  EXPECT_EQ(fallback.splitOutputFusions, 1);
  EXPECT_EQ(fallback.fusionsRunOpByOp, 0);
}

// With several threads, a convolution of at least 1M multiply-adds is split
// into tiles of its result that single-threaded primitives compute on the
// pool's threads (onednn_conv.h): runs of batch elements (an odd count here)
// with the epilogue's bias and relu, of 16 output features where the batch
// is 1 (the bias read at each tile's offset), a weight gradient's output
// features (two threads) or input features (three), or with 16 of each its
// batch (the tiles' sums added), a transposed convolution's batch: the
// interpreter's results at every thread count.
TEST(CpuBackendConv, LargeConvolutionsSplitIntoTilesOnThePoolsThreads) {
  std::string text = R"(
func.func @main(%x: tensor<3x12x12x48xf32>, %w: tensor<3x3x48x32xf32>, %b: tensor<32xf32>, %p: tensor<1x16x16x16xf32>, %q: tensor<3x3x16x48xf32>, %c: tensor<48xf32>, %dy: tensor<3x12x12x32xf32>, %t: tensor<3x6x6x32xf32>, %k: tensor<3x3x32x32xf32>, %u: tensor<5x16x16x16xf32>, %du: tensor<5x16x16x16xf32>) -> (tensor<3x12x12x32xf32>, tensor<1x16x16x48xf32>, tensor<3x3x48x32xf32>, tensor<3x12x12x32xf32>, tensor<3x3x16x16xf32>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<3x12x12x48xf32>, tensor<3x3x48x32xf32>) -> tensor<3x12x12x32xf32>
  %1 = stablehlo.broadcast_in_dim %b, dims = [3] : (tensor<32xf32>) -> tensor<3x12x12x32xf32>
  %2 = stablehlo.add %0, %1 : tensor<3x12x12x32xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<3x12x12x32xf32>
  %3 = stablehlo.maximum %2, %zero : tensor<3x12x12x32xf32>
  %4 = stablehlo.convolution(%p, %q) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x16x16x16xf32>, tensor<3x3x16x48xf32>) -> tensor<1x16x16x48xf32>
  %5 = stablehlo.broadcast_in_dim %c, dims = [3] : (tensor<48xf32>) -> tensor<1x16x16x48xf32>
  %6 = stablehlo.add %4, %5 : tensor<1x16x16x48xf32>
  %7 = stablehlo.convolution(%x, %dy) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<3x12x12x48xf32>, tensor<3x12x12x32xf32>) -> tensor<3x3x48x32xf32>
  %8 = stablehlo.convolution(%t, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<3x6x6x32xf32>, tensor<3x3x32x32xf32>) -> tensor<3x12x12x32xf32>
  %9 = stablehlo.convolution(%u, %du) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<5x16x16x16xf32>, tensor<5x16x16x16xf32>) -> tensor<3x3x16x16xf32>
  return %3, %6, %7, %8, %9 : tensor<3x12x12x32xf32>, tensor<1x16x16x48xf32>, tensor<3x3x48x32xf32>, tensor<3x12x12x32xf32>, tensor<3x3x16x16xf32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  std::vector<Tensor> args;
  uint32_t seed = 40;
  for (const Value* param : module->lookupFunction("main")->region(0).front().arguments())
    args.push_back(pseudoRandom(param->type().str(), seed++));
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  for (int threads : {1, 2, 3}) {
    cpu::CpuCompileOptions options;
    options.numThreads = threads;
    auto executable = cpu::compileForCpu(*module, "main", options);
    ASSERT_TRUE(executable.isOk()) << executable.status().diag().str();
    const cpu::CpuCompileStats& stats = (*executable)->stats();
    EXPECT_EQ(stats.libraryCalls, 5) << threads << " threads";
    EXPECT_EQ(stats.kernels, 0) << threads << " threads";
    EXPECT_EQ(stats.tiledLibraryCalls, threads == 1 ? 0 : 5) << threads << " threads";
    auto results = (*executable)->run(args);
    ASSERT_TRUE(results.isOk()) << results.status().diag().str();
    ASSERT_EQ(results->size(), oracle->size());
    for (size_t i = 0; i < results->size(); ++i)
      expectWithin((*results)[i], (*oracle)[i], kDotTolerance,
                   "result " + std::to_string(i) + " on " + std::to_string(threads) + " threads");
  }
}

// Convolutions no library takes -- integers (strided, padded, dilated, in
// NCHW) and unpadded f64 -- become window slices and a dot (expand), which
// run as emitted kernels bitwise equal to the interpreter's convolution; a
// complex128 one too, through its parts' f64 convolutions (within the dot
// tolerance: the parts are summed on their own).
TEST(CpuBackendConv, IntegerAndF64ConvolutionsAreEmittedDots) {
  std::string text = R"(
func.func @main(%x: tensor<2x3x9x9xi32>, %w: tensor<4x3x3x3xi32>, %y: tensor<2x7x7x5xf64>, %v: tensor<3x3x5x6xf64>, %b: tensor<1x10x4xi8>, %k: tensor<3x4x8xi8>) -> (tensor<2x4x5x3xi32>, tensor<2x5x5x6xf64>, tensor<1x8x8xi8>) {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[1, 1], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x9x9xi32>, tensor<4x3x3x3xi32>) -> tensor<2x4x5x3xi32>
  %1 = stablehlo.convolution(%y, %v) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x7x7x5xf64>, tensor<3x3x5x6xf64>) -> tensor<2x5x5x6xf64>
  %2 = stablehlo.convolution(%b, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [1], pad = [[0, 0]], lhs_dilate = [1], rhs_dilate = [1], reverse = [true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x10x4xi8>, tensor<3x4x8xi8>) -> tensor<1x8x8xi8>
  return %0, %1, %2 : tensor<2x4x5x3xi32>, tensor<2x5x5x6xf64>, tensor<1x8x8xi8>
})";
  std::mt19937_64 rng(11);
  auto randomInts = [&](const std::string& type) {
    Tensor t = pseudoRandom(type, 0);
    for (int64_t i = 0; i < t.numElements(); ++i) t.setInt(i, int64_t(rng()));  // wraps to the width
    return t;
  };
  auto results = runBoth(text, {randomInts("tensor<2x3x9x9xi32>"), randomInts("tensor<4x3x3x3xi32>"),
                                pseudoRandom("tensor<2x7x7x5xf64>", 1), pseudoRandom("tensor<3x3x5x6xf64>", 2),
                                randomInts("tensor<1x10x4xi8>"), randomInts("tensor<3x4x8xi8>")},
                         std::nullopt, /*maxUlp=*/0);
  EXPECT_EQ(results.size(), 3u);
  cpu::CpuCompileStats stats = compileStats(text);
  EXPECT_EQ(stats.routines, 0);
  EXPECT_EQ(stats.libraryCalls, 0);

  std::string complex = R"(
func.func @main(%x: tensor<1x6x6x2xcomplex<f64>>, %w: tensor<3x3x2x3xcomplex<f64>>) -> tensor<1x4x4x3xcomplex<f64>> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x2xcomplex<f64>>, tensor<3x3x2x3xcomplex<f64>>) -> tensor<1x4x4x3xcomplex<f64>>
  return %0 : tensor<1x4x4x3xcomplex<f64>>
})";
  EXPECT_EQ(runBoth(complex, {pseudoRandom("tensor<1x6x6x2xcomplex<f64>>", 3), pseudoRandom("tensor<3x3x2x3xcomplex<f64>>", 4)},
                    kDotTolerance)
                .size(),
            1u);
  EXPECT_EQ(compileStats(complex).routines, 0);
}

// With several threads, a large dot is split into tiles of its result that
// single-threaded primitives compute on the pool's threads (runs of columns,
// of rows or of batch elements; the last tile shorter), with the epilogue's
// bias, residual and scaling read at each tile's offset, and transposed or
// bf16 operands: the same results as the interpreter at every thread count.
TEST(CpuBackendDot, LargeDotsSplitIntoTilesOnThePoolsThreads) {
  std::string text = R"(
func.func @main(%a: tensor<96x200xf32>, %b: tensor<200x300xf32>, %bias: tensor<300xf32>, %b2: tensor<200x300xf32>, %r: tensor<96x300xf32>, %c: tensor<512x256xf32>, %d: tensor<256x40xf32>, %e: tensor<6x64x96xf32>, %f: tensor<6x96x64xf32>, %t: tensor<200x96xf32>, %w: tensor<96x300xf32>, %p: tensor<128x256xbf16>, %q: tensor<256x160xbf16>) -> (tensor<96x300xf32>, tensor<96x300xf32>, tensor<512x40xf32>, tensor<6x64x64xf32>, tensor<96x300xf32>, tensor<128x160xbf16>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<96x200xf32>, tensor<200x300xf32>) -> tensor<96x300xf32>
  %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<300xf32>) -> tensor<96x300xf32>
  %2 = stablehlo.add %0, %1 : tensor<96x300xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<96x300xf32>
  %3 = stablehlo.maximum %2, %zero : tensor<96x300xf32>
  %4 = stablehlo.dot_general %a, %b2, contracting_dims = [1] x [0] : (tensor<96x200xf32>, tensor<200x300xf32>) -> tensor<96x300xf32>
  %5 = stablehlo.add %4, %r : tensor<96x300xf32>
  %6 = stablehlo.dot_general %c, %d, contracting_dims = [1] x [0] : (tensor<512x256xf32>, tensor<256x40xf32>) -> tensor<512x40xf32>
  %7 = stablehlo.dot_general %e, %f, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x64x96xf32>, tensor<6x96x64xf32>) -> tensor<6x64x64xf32>
  %8 = stablehlo.dot_general %t, %b, contracting_dims = [0] x [0] : (tensor<200x96xf32>, tensor<200x300xf32>) -> tensor<96x300xf32>
  %lr = stablehlo.constant dense<0.125> : tensor<96x300xf32>
  %9 = stablehlo.multiply %8, %lr : tensor<96x300xf32>
  %10 = stablehlo.subtract %w, %9 : tensor<96x300xf32>
  %11 = stablehlo.dot_general %p, %q, contracting_dims = [1] x [0] : (tensor<128x256xbf16>, tensor<256x160xbf16>) -> tensor<128x160xbf16>
  return %3, %5, %6, %7, %10, %11 : tensor<96x300xf32>, tensor<96x300xf32>, tensor<512x40xf32>, tensor<6x64x64xf32>, tensor<96x300xf32>, tensor<128x160xbf16>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  std::vector<Tensor> args;
  uint32_t seed = 20;
  for (const Value* param : module->lookupFunction("main")->region(0).front().arguments())
    args.push_back(pseudoRandom(param->type().str(), seed++));
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(oracle.isOk()) << oracle.status().diag().str();
  for (int threads : {1, 2, 3, 4}) {
    cpu::CpuCompileOptions options;
    options.numThreads = threads;
    auto executable = cpu::compileForCpu(*module, "main", options);
    ASSERT_TRUE(executable.isOk()) << executable.status().diag().str();
    const cpu::CpuCompileStats& stats = (*executable)->stats();
    EXPECT_EQ(stats.libraryCalls, 6) << threads << " threads";
    EXPECT_EQ(stats.tiledLibraryCalls, threads == 1 ? 0 : 6) << threads << " threads";
    auto results = (*executable)->run(args);
    ASSERT_TRUE(results.isOk()) << results.status().diag().str();
    ASSERT_EQ(results->size(), oracle->size());
    for (size_t i = 0; i < results->size(); ++i) {
      bool bf16 = (*results)[i].elementType().kind() == TypeKind::BF16;
      expectWithin((*results)[i], (*oracle)[i], bf16 ? 1e-2 : kDotTolerance,
                   "result " + std::to_string(i) + " on " + std::to_string(threads) + " threads");
    }
  }
}

}  // namespace
}  // namespace kiln
