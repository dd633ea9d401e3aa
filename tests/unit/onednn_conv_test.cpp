// Convolution through oneDNN against the reference kernel: every layout the
// dimension numbers can give (JAX's NHWC/HWIO, NCHW/OIHW, the transposed
// forms that gradients produce), strides, padding, rhs dilation, feature
// groups and 1-3 spatial dims. oneDNN accumulates in f32 in its own order
// while the reference accumulates in double, so results agree to a small
// multiple of f32 epsilon times the magnitude of the sum's terms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kiln/backends/cpu/onednn_conv.h"
#include "kiln/interp/evaluate_op.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/support/thread_pool.h"

namespace kiln {
namespace {

using interp::Tensor;

Tensor randomTensor(Type type, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) t.setFloat(i, dist(rng));
  return t;
}

// The one convolution of `text`'s @main.
const Operation* findConvolution(const Module& module) {
  for (const Operation& op : func::body(*module.lookupFunction("main")))
    if (op.name() == "stablehlo.convolution") return &op;
  return nullptr;
}

// `backwardWeights`: whether the convolution runs as oneDNN's
// backward-weights primitive (the shape of a weight gradient).
void checkAgainstReference(const std::string& conv, const std::string& lhsType, const std::string& rhsType,
                           const std::string& outType, bool backwardWeights = false) {
  std::string text = "func.func @main(%a: " + lhsType + ", %b: " + rhsType + ") -> " + outType + " {\n  %0 = " +
                     conv + " : (" + lhsType + ", " + rhsType + ") -> " + outType + "\n  return %0 : " + outType +
                     "\n}\n";
  auto module = parseModule(text, "conv.mlir");
  ASSERT_TRUE(module.isOk()) << module.status().diag().str();
  Status verified = verifyModule(**module);  // the result type the test wrote is the op's
  ASSERT_TRUE(verified.isOk()) << verified.diag().str();
  const Operation* op = findConvolution(**module);
  ASSERT_NE(op, nullptr);
  ASSERT_TRUE(cpu::isOnednnConvolution(*op)) << conv;
  auto compiled = cpu::compileOnednnConvolution(*op);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().diag().str();
  EXPECT_EQ(cpu::runsAsBackwardWeights(**compiled), backwardWeights) << conv;

  std::mt19937 rng(42);
  Tensor lhs = randomTensor(op->operand(0)->type(), rng), rhs = randomTensor(op->operand(1)->type(), rng);
  auto expected = interp::evaluateOp(*op, {lhs, rhs});
  ASSERT_TRUE(expected.isOk()) << expected.status().diag().str();
  Tensor out(op->result()->type());
  const uint8_t* inputs[] = {lhs.bytes(), rhs.bytes()};
  (*compiled)->run(inputs, out.bytes());

  // Each output sums at most (kernel elements) products of values in [-1, 1].
  double terms = double(op->operand(1)->type().numElements());
  double tolerance = 4 * terms * std::ldexp(1.0, -24);
  const Tensor& want = (*expected)[0];
  double worst = 0;
  for (int64_t i = 0; i < out.numElements(); ++i) worst = std::max(worst, std::abs(out.getFloat(i) - want.getFloat(i)));
  EXPECT_LE(worst, tolerance) << conv;
}

TEST(OnednnConvolution, JaxDefaultLayoutWithPadding) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], "
      "pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<4x12x12x3xf32>", "tensor<3x3x3x8xf32>", "tensor<4x12x12x8xf32>");
}

TEST(OnednnConvolution, ChannelsFirstStridedAsymmetricPadding) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], "
      "pad = [[0, 1], [1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x5x9x9xf32>", "tensor<6x5x3x3xf32>", "tensor<2x6x4x4xf32>");
}

TEST(OnednnConvolution, RhsDilation) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {rhs_dilate = [2, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x10x10x2xf32>", "tensor<3x3x2x4xf32>", "tensor<1x6x6x4xf32>");
}

TEST(OnednnConvolution, DepthwiseFeatureGroups) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 4 : i64}",
      "tensor<2x7x7x4xf32>", "tensor<3x3x1x8xf32>", "tensor<2x7x7x8xf32>");
}

// JAX's gradients with respect to the kernel (jax.vjp of
// conv_general_dilated): the input's features act as the batch, its batch
// is contracted, and the kernel has more positions than the result, so they
// run as oneDNN's backward-weights convolution of the forward convolution
// they came from. Forward strides are their rhs dilation, forward rhs
// dilation their window strides.
TEST(OnednnConvolution, WeightGradients) {
  // NHWC/HWIO 'SAME', stride 1 (the forward reads one position past the end).
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<4x8x8x3xf32>", "tensor<4x8x8x5xf32>", "tensor<3x3x3x5xf32>", true);
  // Stride 2, 'SAME' on an odd and an even size.
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = "
      "{pad = [[1, 1], [0, 1]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x9x8x3xf32>", "tensor<2x5x4x4xf32>", "tensor<3x3x3x4xf32>", true);
  // NCHW/OIHW, strides (2, 3), explicit padding ((1, 0), (2, 1)).
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = "
      "{pad = [[1, 0], [2, 0]], rhs_dilate = [2, 3]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x3x10x9xf32>", "tensor<2x4x5x4xf32>", "tensor<4x3x3x2xf32>", true);
  // Stride 2 with rhs dilation (1, 2): a negative high padding; the last row
  // of the input is never read (described one row short).
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = "
      "{stride = [1, 2], pad = [[1, -1], [0, 0]], rhs_dilate = [2, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x4x9x9xf32>", "tensor<2x6x4x3xf32>", "tensor<6x4x3x3xf32>", true);
  // 'VALID' with forward rhs dilation 2 (window stride 2 here).
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [2, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x11x11x2xf32>", "tensor<2x7x7x3xf32>", "tensor<3x3x2x3xf32>", true);
  // One spatial dim (stride 3) and three (stride 2 in one of them, 'SAME').
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, b]x[i, 0, o]->[0, b, f], window = {rhs_dilate = [3]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x20x4xf32>", "tensor<3x6x6xf32>", "tensor<5x4x6xf32>", true);
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, 2, b]x[i, 0, 1, 2, o]->[0, 1, 2, b, f], window = "
      "{pad = [[0, 1], [0, 1], [0, 1]], rhs_dilate = [1, 2, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x6x6x6x2xf32>", "tensor<2x6x3x6x3xf32>", "tensor<2x3x2x2x3xf32>", true);
}

// A kernel with no more positions than the result is a forward convolution,
// even in a weight gradient's layout; a feature-grouped one too (oneDNN's
// backward weights groups the features, not the contracted batch).
TEST(OnednnConvolution, WeightGradientLayoutsRunForward) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<4x4x4x3xf32>", "tensor<4x3x3x5xf32>", "tensor<4x4x3x5xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 2 : i64}",
      "tensor<4x8x8x3xf32>", "tensor<2x8x8x6xf32>", "tensor<3x3x3x6xf32>");
}

TEST(OnednnConvolution, OneAndThreeSpatialDims) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [3]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x20x4xf32>", "tensor<5x4x6xf32>", "tensor<3x6x6xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = {} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x5x5x5x2xf32>", "tensor<2x2x2x2x3xf32>", "tensor<1x4x4x4x3xf32>");
}

// lhs_dilation (the input gradient of a strided convolution, a transposed
// convolution). With window strides 1 it is oneDNN's deconvolution on the
// flipped kernel: channels-last with symmetric padding, JAX's conv_transpose
// ('SAME', stride 2: pads [2, 1]), its input gradient (kernel [o, i]), an
// rhs dilation, feature groups, kernels with spatial dims last (each
// element flipped alone) in 1 and 3 spatial dims, and no padding at all
// (the deconvolution's padding K - 1 on both sides).
// Otherwise the input is spread into a zero-filled dilated buffer first:
// window strides, and padding beyond the kernel's reach (a negative
// deconvolution padding).
TEST(OnednnConvolution, LhsDilation) {
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x5x4x3xf32>", "tensor<3x3x3x5xf32>", "tensor<2x10x8x5xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = "
      "{pad = [[2, 1], [1, 2]], lhs_dilate = [2, 3]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x4x3x6xf32>", "tensor<3x3x7x6xf32>", "tensor<1x8x8x7xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{pad = [[3, 4], [1, 0]], lhs_dilate = [2, 2], rhs_dilate = [2, 1]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x4x4x2xf32>", "tensor<3x2x2x3xf32>", "tensor<1x10x7x3xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
      "{pad = [[1, 1], [2, 0]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64}",
      "tensor<2x4x3x3xf32>", "tensor<6x2x3x3xf32>", "tensor<2x6x5x5xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = "
      "{lhs_dilate = [3]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x3x5xf32>", "tensor<4x3x2xf32>", "tensor<2x4x12xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, 0, 1, 2, f], window = "
      "{pad = [[1, 1], [1, 0], [0, 1]], lhs_dilate = [2, 1, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x3x3x3x2xf32>", "tensor<2x2x2x2x3xf32>", "tensor<1x6x3x5x3xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{pad = [[3, 0], [0, 0]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x3x3x2xf32>", "tensor<2x2x2x3xf32>", "tensor<1x7x4x3xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{pad = [[2, 2], [2, 2]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<2x4x4x3xf32>", "tensor<3x3x3x5xf32>", "tensor<2x9x9x5xf32>");
  checkAgainstReference(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
      "{stride = [1, 2], pad = [[1, 2], [0, 1]], lhs_dilate = [3, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x2x3x5xf32>", "tensor<4x2x2x3xf32>", "tensor<1x4x9x4xf32>");
}

// Compiled for several threads, a convolution splits its result into tiles
// that single-threaded primitives compute on a ThreadPool's threads (runOn):
// the same results as the interpreter's, and bit for bit those of the
// convolution compiled for one thread (untiled): each output element is the
// same sum in the same order -- but where tiles of a weight gradient's batch
// are added up (not `exact`). Below 16M multiply-adds, one tile per thread
// (the last may be shorter: odd batches).
void checkTiled(const std::string& conv, const std::string& lhsType, const std::string& rhsType,
                const std::string& outType, bool backwardWeights = false, bool exact = true) {
  std::string text = "func.func @main(%a: " + lhsType + ", %b: " + rhsType + ") -> " + outType + " {\n  %0 = " +
                     conv + " : (" + lhsType + ", " + rhsType + ") -> " + outType + "\n  return %0 : " + outType +
                     "\n}\n";
  auto module = parseModule(text, "conv.mlir");
  ASSERT_TRUE(module.isOk()) << module.status().diag().str();
  ASSERT_TRUE(verifyModule(**module).isOk());
  const Operation* op = findConvolution(**module);
  ASSERT_NE(op, nullptr);
  ASSERT_TRUE(cpu::isOnednnConvolution(*op)) << conv;
  std::mt19937 rng(7);
  Tensor lhs = randomTensor(op->operand(0)->type(), rng), rhs = randomTensor(op->operand(1)->type(), rng);
  const uint8_t* inputs[] = {lhs.bytes(), rhs.bytes()};
  auto expected = interp::evaluateOp(*op, {lhs, rhs});
  ASSERT_TRUE(expected.isOk()) << expected.status().diag().str();
  const Tensor& want = (*expected)[0];
  bool bf16 = op->result()->type().elementType().kind() == TypeKind::BF16;
  double terms = double(op->operand(1)->type().numElements());
  double largest = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) largest = std::max(largest, std::abs(want.getFloat(i)));
  // f32 sums in oneDNN's order; a bf16 result is also rounded to 8 bits.
  double tolerance = 4 * terms * std::ldexp(1.0, -24) + (bf16 ? largest * std::ldexp(1.0, -7) : 0.0);

  auto single = cpu::compileOnednnConvolution(*op, 1);
  ASSERT_TRUE(single.isOk()) << single.status().diag().str();
  EXPECT_EQ((*single)->numTiles(), 0u) << conv;
  Tensor untiled(op->result()->type());
  (*single)->run(inputs, untiled.bytes());
  for (int threads : {2, 3}) {
    auto compiled = cpu::compileOnednnConvolution(*op, threads);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().diag().str();
    EXPECT_EQ(cpu::runsAsBackwardWeights(**compiled), backwardWeights) << conv;
    EXPECT_EQ((*compiled)->numTiles(), size_t(threads)) << conv << " on " << threads << " threads";
    ThreadPool pool(threads);
    Tensor out(op->result()->type());
    std::memset(out.bytes(), 0xff, size_t(out.numElements()) * op->result()->type().elementType().storageBytes());
    (*compiled)->runOn(inputs, out.bytes(), pool);
    double worst = 0;
    int64_t differ = 0;
    for (int64_t i = 0; i < out.numElements(); ++i) {
      worst = std::max(worst, std::abs(out.getFloat(i) - want.getFloat(i)));
      differ += out.getFloat(i) != untiled.getFloat(i);
    }
    EXPECT_LE(worst, tolerance) << conv << " on " << threads << " threads";
    if (exact) EXPECT_EQ(differ, 0) << conv << " on " << threads << " threads: elements not equal to one thread's";
  }
}

// Tiles of the batch (an odd count: a shorter last tile) with strides and
// padding, rhs dilation, feature groups, channels-first layouts, a
// transposed convolution (oneDNN's deconvolution) and an lhs-dilated one
// with strides (spread out first), bf16; of the output features (in 16s)
// where the batch is too small to split.
TEST(OnednnConvolution, TilesOnThePoolsThreads) {
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], "
      "pad = [[1, 1], [0, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<5x11x10x8xf32>", "tensor<3x3x8x16xf32>", "tensor<5x6x5x16xf32>");
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
      "{pad = [[2, 2], [2, 2]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x6x9x9xf32>", "tensor<8x6x3x3xf32>", "tensor<3x8x9x9xf32>");
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 16 : i64}",
      "tensor<7x8x8x16xf32>", "tensor<3x3x1x32xf32>", "tensor<7x8x8x32xf32>");
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x5x4x8xf32>", "tensor<3x3x8x16xf32>", "tensor<3x10x8x16xf32>");
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = "
      "{stride = [1, 2], pad = [[1, 2], [0, 1]], lhs_dilate = [3, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x4x3x5xf32>", "tensor<8x4x2x3xf32>", "tensor<3x8x9x4xf32>");
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [3]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<9x20x4xf32>", "tensor<5x4x6xf32>", "tensor<9x6x6xf32>");
  // Batch 1: 48 output features in tiles of 32 and 16 (16 each on three
  // threads). cpu_backend_test has tiles with an epilogue's bias.
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x12x12x8xf32>", "tensor<3x3x8x48xf32>", "tensor<1x12x12x48xf32>");
  // A transposed convolution (deconvolution, flipped kernel) of one image:
  // tiles of its 48 output features.
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = "
      "{pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<1x5x4x8xf32>", "tensor<3x3x8x48xf32>", "tensor<1x10x8x48xf32>");
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x10x10x16xbf16>", "tensor<3x3x16x16xbf16>", "tensor<3x10x10x16xbf16>");
}

// Weight gradients (oneDNN's backward-weights convolution, as in
// WeightGradients): tiles of the result's output features, else of its
// input features, in 16s; else, of its batch, each tile's sum added up.
TEST(OnednnConvolution, WeightGradientTilesOnThePoolsThreads) {
  // NHWC/HWIO 'SAME', batch 5, 48 output features: tiles of 32 and 16 (of
  // 16 on three threads).
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<5x10x10x8xf32>", "tensor<5x10x10x48xf32>", "tensor<3x3x8x48xf32>", true);
  // Stride 2 ('SAME' on an odd size); 8 output features, 48 input features.
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = "
      "{pad = [[1, 1], [0, 1]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x9x8x48xf32>", "tensor<3x5x4x8xf32>", "tensor<3x3x48x8xf32>", true);
  // NCHW/OIHW with forward rhs dilation 2 (window stride 2 here).
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, b, 0, 1]x[i, o, 0, 1]->[f, b, 0, 1], window = {stride = [2, 2]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<3x16x11x11xf32>", "tensor<3x48x7x7xf32>", "tensor<48x16x3x3xf32>", true);
  // 16 input and output features: tiles of the batch (5: 3 and 2 images on
  // two threads, 2, 2 and 1 on three), the partial results added.
  checkTiled(
      "stablehlo.convolution(%a, %b) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[1, 1], [1, 1]]} "
      "{batch_group_count = 1 : i64, feature_group_count = 1 : i64}",
      "tensor<5x10x10x16xf32>", "tensor<5x10x10x16xf32>", "tensor<3x3x16x16xf32>", true, /*exact=*/false);
}

}  // namespace
}  // namespace kiln
