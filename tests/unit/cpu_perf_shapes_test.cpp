// The shapes the benchmark found slow (bench/workloads.py, as JAX lowers
// them), through the whole cpu back end: each must compile to the loop nest
// that makes it linear and vectorizable -- layernorm, rmsnorm and softmax as
// row kernels (every reduce once per row), column sums as a fold of input rows
// into the output -- with no routine and no fusion run op by op, and must
// agree with the interpreter. No timings here: bench/run measures those.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/interp/interpreter.h"
#include "kiln/parse/parser.h"
#include "tests/unit/float_compare.h"

namespace kiln {
namespace {

using interp::Tensor;

// The forms a program's kernels must take.
struct Expect {
  int rowKernels = 0;
  int columnKernels = 0;
};

// Row sums are vectorized into partial sums on the cpu and folded in order by
// the interpreter; results computed from them (a layernorm's x - mean near
// the mean) may differ by more ULPs than this tolerance of the result's
// largest magnitude, which is all a sum's rounding accounts for.
constexpr double kSumTolerance = 1e-6;

// Compiles `text`, checks its kernels against `expect`, runs it on normal
// random inputs and compares every float with the interpreter: within
// `maxUlp` (0: bitwise) or, for programs with a float sum (`sums`), within
// kSumTolerance.
void checkProgram(const std::string& text, Expect expect, uint64_t maxUlp, bool sums = true) {
  uint64_t worst = 0;
  auto module = parseModule(text, "cpu_perf_shapes_test.mlir");
  ASSERT_TRUE(module.isOk()) << module.status().diag().str();
  auto executable = cpu::compileForCpu(**module, "main");
  ASSERT_TRUE(executable.isOk()) << executable.status().message();
  const cpu::CpuCompileStats& stats = (*executable)->stats();
  EXPECT_EQ(stats.routines, 0);
  EXPECT_EQ(stats.fusionsRunOpByOp, 0);
  EXPECT_EQ(stats.rowKernels, expect.rowKernels);
  EXPECT_EQ(stats.columnKernels, expect.columnKernels);

  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 2.0);
  std::vector<Tensor> args;
  for (const Value* arg : func::body(*(*module)->lookupFunction("main")).arguments()) {
    Tensor t(arg->type());
    for (int64_t k = 0; k < t.numElements(); ++k) t.setFloat(k, normal(rng));
    args.push_back(t);
  }
  auto cpu = (*executable)->run(args);
  auto oracle = interp::runFunction(**module, "main", args);
  ASSERT_TRUE(cpu.isOk()) << cpu.status().message();
  ASSERT_TRUE(oracle.isOk()) << oracle.status().message();
  ASSERT_EQ(cpu->size(), oracle->size());
  for (size_t r = 0; r < cpu->size(); ++r) {
    const Tensor &a = (*cpu)[r], &b = (*oracle)[r];
    ASSERT_EQ(a.type(), b.type());
    int failures = 0;
    double scale = 1.0;
    for (int64_t k = 0; k < b.numElements(); ++k) scale = std::max(scale, std::abs(b.getFloat(k)));
    for (int64_t k = 0; k < a.numElements(); ++k) {
      uint64_t d = testing::ulpDistance(a.getFloat(k), b.getFloat(k), /*isF32=*/true);
      worst = std::max(worst, d);
      bool withinSumTolerance = sums && std::abs(a.getFloat(k) - b.getFloat(k)) <= kSumTolerance * scale;
      if (d > maxUlp && !withinSumTolerance && failures++ < 8)
        ADD_FAILURE() << "result " << r << " element " << k << ": " << a.getFloat(k) << " vs " << b.getFloat(k);
    }
  }
  std::cout << "[ measured ] max " << worst << " ulp from the interpreter\n";
}

TEST(CpuPerfShapes, LayernormIsOneRowKernel) {
  checkProgram(R"(
func.func public @main(%arg0: tensor<64x256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256xf32>) -> tensor<64x256xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<64xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
  %cst_0 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
  %3 = stablehlo.divide %1, %2 : tensor<64x1xf32>
  %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x256xf32>
  %5 = stablehlo.subtract %arg0, %4 : tensor<64x256xf32>
  %6 = stablehlo.multiply %5, %5 : tensor<64x256xf32>
  %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<64x256xf32>, tensor<f32>) -> tensor<64xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<64xf32>) -> tensor<64x1xf32>
  %10 = stablehlo.divide %8, %2 : tensor<64x1xf32>
  %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
  %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
  %12 = stablehlo.add %10, %11 : tensor<64x1xf32>
  %13 = stablehlo.sqrt %12 : tensor<64x1xf32>
  %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<64x1xf32>) -> tensor<64x256xf32>
  %15 = stablehlo.divide %5, %14 : tensor<64x256xf32>
  %16 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
  %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<64x256xf32>
  %18 = stablehlo.multiply %15, %17 : tensor<64x256xf32>
  %19 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
  %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<64x256xf32>
  %21 = stablehlo.add %18, %20 : tensor<64x256xf32>
  return %21 : tensor<64x256xf32>
})", {.rowKernels = 1}, 0);
}

// The variance through chlo.square, as other JAX versions write it.
TEST(CpuPerfShapes, RmsnormWithChloSquareIsOneRowKernel) {
  checkProgram(R"(
func.func public @main(%arg0: tensor<4x32x128xf32>, %arg1: tensor<128xf32>) -> tensor<4x32x128xf32> {
  %0 = chlo.square %arg0 : tensor<4x32x128xf32> -> tensor<4x32x128xf32>
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<4x32x128xf32>, tensor<f32>) -> tensor<4x32xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<4x32xf32>) -> tensor<4x32x1xf32>
  %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
  %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x32x1xf32>
  %4 = stablehlo.divide %2, %3 : tensor<4x32x1xf32>
  %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
  %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x32x1xf32>
  %6 = stablehlo.add %4, %5 : tensor<4x32x1xf32>
  %7 = stablehlo.sqrt %6 : tensor<4x32x1xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<4x32x1xf32>) -> tensor<4x32x128xf32>
  %9 = stablehlo.divide %arg0, %8 : tensor<4x32x128xf32>
  %10 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
  %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<4x32x128xf32>
  %12 = stablehlo.multiply %9, %11 : tensor<4x32x128xf32>
  return %12 : tensor<4x32x128xf32>
})", {.rowKernels = 1}, 0);
}

// exp is the 1-ULP polynomial; the sum of 128 of them and the division add
// the difference between partial sums and the interpreter's in-order sum.
TEST(CpuPerfShapes, SoftmaxIsOneRowKernel) {
  checkProgram(R"(
func.func public @main(%arg0: tensor<4x32x128xf32>) -> tensor<4x32x128xf32> {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<4x32x128xf32>, tensor<f32>) -> tensor<4x32xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<4x32xf32>) -> tensor<4x32x1xf32>
  %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2] : (tensor<4x32x1xf32>) -> tensor<4x32x128xf32>
  %3 = stablehlo.subtract %arg0, %2 : tensor<4x32x128xf32>
  %4 = stablehlo.exponential %3 : tensor<4x32x128xf32>
  %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<4x32x128xf32>, tensor<f32>) -> tensor<4x32xf32>
  %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x32xf32>) -> tensor<4x32x1xf32>
  %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<4x32x1xf32>) -> tensor<4x32x128xf32>
  %8 = stablehlo.divide %4, %7 : tensor<4x32x128xf32>
  return %8 : tensor<4x32x128xf32>
})", {.rowKernels = 1}, 4);
}

// Column sums and maxima: the same per-element order as the interpreter, so bitwise.
TEST(CpuPerfShapes, ColumnReductionsFoldRows) {
  checkProgram(R"(
func.func public @main(%arg0: tensor<512x512xf32>) -> (tensor<512xf32>, tensor<512xf32>) {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %1 = stablehlo.reduce(%arg0 init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  return %0, %1 : tensor<512xf32>, tensor<512xf32>
})", {.columnKernels = 1}, 0, /*sums=*/false);  // siblings: one kernel, one pass over the input
}

}  // namespace
}  // namespace kiln
