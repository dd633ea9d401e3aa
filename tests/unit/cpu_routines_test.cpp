// The cpu back end's native routines (reduce_window, select_and_scatter,
// gather, scatter, sort, rng_bit_generator, fft, f32 linear algebra) against
// the reference kernels they replace: on random operands with edge values
// (NaN, signed zeros, infinities, ties, wrapping integers, out-of-range
// indices) every result must be bitwise the reference's (fft's and linear
// algebra's within a stated error bound), and each form the routines promise to take must actually run
// natively. Forms they do not take must still run (through the reference).
#include "kiln/backends/cpu/routines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "kiln/interp/evaluate_op.h"
#include "kiln/backends/cpu/native_routine.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "kiln/support/thread_pool.h"

namespace kiln {
namespace {

using interp::Tensor;

struct Instance {
  std::unique_ptr<Module> module;
  const Operation* op = nullptr;
};

// `body` is the body of func @main (one op, then return), `signature` its arguments.
Instance parseOp(const std::string& text) {
  Instance instance;
  auto module = parseModule(text, "test.mlir");
  EXPECT_TRUE(module.isOk()) << (module.isOk() ? "" : module.status().diag().str()) << "\n" << text;
  if (!module.isOk()) return instance;
  instance.module = std::move(*module);
  instance.op = func::body(*instance.module->lookupFunction("main")).front();
  return instance;
}

// Values that make reductions and sorts interesting: ties, signed zeros,
// infinities, NaNs of both signs (and the default NaN inf - inf makes),
// subnormals.
double edgeFloat(std::mt19937_64& rng) {
  static const double kEdges[] = {0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0,
                                  std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                  std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN(), 1e-40, -1e-300, 65504.0, 1e30};
  return kEdges[rng() % std::size(kEdges)];
}

// Random operand of `type`; integer operands listed as indices get values in
// [-2, indexBound + 2) so some are out of range.
Tensor randomOperand(Type type, std::mt19937_64& rng, bool isIndex, int64_t indexBound) {
  Tensor t(type);
  Type et = type.elementType();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (isIndex) {
      t.setInt(i, std::uniform_int_distribution<int64_t>(-2, indexBound + 1)(rng));
    } else if (et.isFloat()) {
      bool edge = rng() % 4 == 0;
      t.setFloat(i, edge ? edgeFloat(rng) : std::round(std::uniform_real_distribution<double>(-8, 8)(rng) * 16) / 16);
    } else if (et.isComplex()) {
      t.setComplex(i, {edgeFloat(rng), std::uniform_real_distribution<double>(-8, 8)(rng)});
    } else if (et.isBool()) {
      t.setBool(i, rng() & 1);
    } else {
      t.setInt(i, rng() % 5 == 0 ? int64_t(rng()) : std::uniform_int_distribution<int64_t>(-6, 6)(rng));
    }
  }
  return t;
}

std::string describe(const Tensor& t) { return printAttribute(t.toDense()); }

// Changes random operands before a run (a fixed init value, say).
using AdjustOperands = std::function<void(std::vector<Tensor>&, std::mt19937_64&)>;

// Runs the op natively (through PreparedRoutine) and through the reference
// kernel on several random operand sets and expects identical bits.
void expectMatchesReference(const std::string& text, bool expectNative, int indexOperand = -1, int64_t indexBound = 0,
                            const AdjustOperands& adjust = nullptr) {
  Instance instance = parseOp(text);
  ASSERT_NE(instance.op, nullptr);
  cpu::PreparedRoutine routine(*instance.op);
  EXPECT_EQ(routine.isNative(), expectNative) << routine.kind() << "\n" << text;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed * 7919);
    std::vector<Tensor> operands;
    for (unsigned i = 0; i < instance.op->numOperands(); ++i)
      operands.push_back(randomOperand(instance.op->operand(i)->type(), rng, int(i) == indexOperand, indexBound));
    if (adjust) adjust(operands, rng);
    auto expected = interp::evaluateOp(*instance.op, operands);
    auto actual = routine.run(operands);
    ASSERT_TRUE(expected.isOk()) << expected.status().diag().str();
    ASSERT_TRUE(actual.isOk()) << actual.status().diag().str();
    ASSERT_EQ(expected->size(), actual->size());
    for (size_t k = 0; k < expected->size(); ++k)
      EXPECT_TRUE((*expected)[k] == (*actual)[k]) << routine.kind() << " seed " << seed << "\nexpected "
                                                  << describe((*expected)[k]) << "\nactual   " << describe((*actual)[k]);
  }
}

std::string binaryBody(const std::string& opName, const std::string& scalar) {
  return "  ^bb0(%a: " + scalar + ", %b: " + scalar + "):\n    %r = " + opName + " %a, %b : " + scalar +
         "\n    stablehlo.return %r : " + scalar + "\n";
}

std::string reduceWindowModule(const std::string& in, const std::string& out, const std::string& et,
                               const std::string& opName, const std::string& attrs) {
  std::string scalar = "tensor<" + et + ">";
  return "func.func @main(%x: " + in + ", %init: " + scalar + ") -> " + out + " {\n" +
         "  %0 = \"stablehlo.reduce_window\"(%x, %init) <{" + attrs + "}> ({\n" + binaryBody(opName, scalar) +
         "  }) : (" + in + ", " + scalar + ") -> " + out + "\n  return %0 : " + out + "\n}\n";
}

TEST(CpuRoutines, ReduceWindowMaxPoolNative) {
  expectMatchesReference(reduceWindowModule("tensor<2x9x9x3xf32>", "tensor<2x4x4x3xf32>", "f32", "stablehlo.maximum",
                                            "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>"),
                         true);
}

TEST(CpuRoutines, ReduceWindowPaddedSumNative) {
  // Average pooling's sum: 3x3 windows, stride 1, one element of padding.
  expectMatchesReference(reduceWindowModule("tensor<2x6x5x3xf32>", "tensor<2x6x5x3xf32>", "f32", "stablehlo.add",
                                            "window_dimensions = array<i64: 1, 3, 3, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>"),
                         true);
}

TEST(CpuRoutines, ReduceWindowCumulativeFormsNative) {
  // JAX's cumsum / cumprod / cummax lowering: a window over the whole axis, padded low.
  expectMatchesReference(reduceWindowModule("tensor<37xf32>", "tensor<37xf32>", "f32", "stablehlo.add",
                                            "window_dimensions = array<i64: 37>, padding = dense<[[36, 0]]> : tensor<1x2xi64>"),
                         true);
  expectMatchesReference(reduceWindowModule("tensor<4x9xf64>", "tensor<4x9xf64>", "f64", "stablehlo.multiply",
                                            "window_dimensions = array<i64: 1, 9>, padding = dense<[[0, 0], [8, 0]]> : tensor<2x2xi64>"),
                         true);
  expectMatchesReference(reduceWindowModule("tensor<5x6xi32>", "tensor<5x6xi32>", "i32", "stablehlo.maximum",
                                            "window_dimensions = array<i64: 5, 1>, padding = dense<[[4, 0], [0, 0]]> : tensor<2x2xi64>"),
                         true);
}

// A cumulative reduce_window whose init f leaves alone (0 for add, 1 for
// multiply: JAX's) is one running fold per row; the reference folds every
// window. Rows of one element go four at a time, so the row counts leave
// remainders.
TEST(CpuRoutines, CumulativeReduceWindowsAreRunningFolds) {
  auto initTo = [](double value) {
    return [value](std::vector<Tensor>& operands, std::mt19937_64&) { operands[1].setFloat(0, value); };
  };
  auto prefix = [](int64_t n, int dim, int rank) {
    std::string window, padding;
    for (int d = 0; d < rank; ++d) {
      window += std::string(d ? ", " : "") + (d == dim ? std::to_string(n) : "1");
      padding += std::string(d ? ", " : "") + (d == dim ? "[" + std::to_string(n - 1) + ", 0]" : "[0, 0]");
    }
    return "window_dimensions = array<i64: " + window + ">, padding = dense<[" + padding + "]> : tensor<" +
           std::to_string(rank) + "x2xi64>";
  };
  auto suffix = [&](int64_t n, int dim, int rank) {
    std::string attrs = prefix(n, dim, rank);
    std::string low = "[" + std::to_string(n - 1) + ", 0]", high = "[0, " + std::to_string(n - 1) + "]";
    return attrs.replace(attrs.find(low), low.size(), high);
  };
  auto expectCumulative = [](const std::string& text, const AdjustOperands& adjust) {
    Instance instance = parseOp(text);
    ASSERT_NE(instance.op, nullptr);
    EXPECT_EQ(cpu::PreparedRoutine(*instance.op).kind(), "native cumulative " +
              std::string(instance.op->region(0).front().front()->name().substr(std::string("stablehlo.").size())));
    expectMatchesReference(text, true, -1, 0, adjust);
  };
  expectCumulative(reduceWindowModule("tensor<37xf32>", "tensor<37xf32>", "f32", "stablehlo.add", prefix(37, 0, 1)), initTo(0.0));
  expectCumulative(reduceWindowModule("tensor<9x37xf32>", "tensor<9x37xf32>", "f32", "stablehlo.add", prefix(37, 1, 2)), initTo(-0.0));
  expectCumulative(reduceWindowModule("tensor<3x6x5xf64>", "tensor<3x6x5xf64>", "f64", "stablehlo.multiply", prefix(6, 1, 3)), initTo(1.0));
  expectCumulative(reduceWindowModule("tensor<6x7xbf16>", "tensor<6x7xbf16>", "bf16", "stablehlo.maximum", prefix(7, 1, 2)),
                   initTo(-std::numeric_limits<double>::infinity()));
  // From the end: integers fold exactly in either direction.
  expectCumulative(reduceWindowModule("tensor<7x13xi32>", "tensor<7x13xi32>", "i32", "stablehlo.add", suffix(13, 1, 2)), initTo(0));
  expectCumulative(reduceWindowModule("tensor<9x4xui8>", "tensor<9x4xui8>", "ui8", "stablehlo.maximum", suffix(9, 0, 2)), nullptr);
  // Float sums from the end are reassociated; sixteenths small enough to add exactly show it is the same sum.
  auto sixteenths = [](std::vector<Tensor>& operands, std::mt19937_64& rng) {
    for (int64_t i = 0; i < operands[0].numElements(); ++i)
      operands[0].setFloat(i, std::uniform_int_distribution<int>(-128, 128)(rng) / 16.0);
    operands[1].setFloat(0, 0.0);
  };
  expectCumulative(reduceWindowModule("tensor<5x11xf32>", "tensor<5x11xf32>", "f32", "stablehlo.add", suffix(11, 1, 2)), sixteenths);
  // An init f changes (random ones) folds each window, padding included.
  expectCumulative(reduceWindowModule("tensor<6x9xf32>", "tensor<6x9xf32>", "f32", "stablehlo.add", prefix(9, 1, 2)), nullptr);
  expectCumulative(reduceWindowModule("tensor<6x9xi64>", "tensor<6x9xi64>", "i64", "stablehlo.multiply", suffix(9, 1, 2)), nullptr);
  // Float maximum from the end would not pick the reference's zero among -0 and +0: the window walk.
  Instance maxFromEnd = parseOp(reduceWindowModule("tensor<4x9xf32>", "tensor<4x9xf32>", "f32", "stablehlo.maximum", suffix(9, 1, 2)));
  ASSERT_NE(maxFromEnd.op, nullptr);
  EXPECT_EQ(cpu::PreparedRoutine(*maxFromEnd.op).kind(), "native reduce_window maximum");
}

TEST(CpuRoutines, ReduceWindowDilationsAndTypesNative) {
  std::string dilated = "window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 3, 1>, "
                        "base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>, "
                        "padding = dense<[[2, 1], [1, 2]]> : tensor<2x2xi64>";
  expectMatchesReference(reduceWindowModule("tensor<7x8xf64>", "tensor<5x7xf64>", "f64", "stablehlo.minimum", dilated), true);
  expectMatchesReference(reduceWindowModule("tensor<7x8xbf16>", "tensor<5x7xbf16>", "bf16", "stablehlo.add", dilated), true);
  expectMatchesReference(reduceWindowModule("tensor<7x8xf16>", "tensor<5x7xf16>", "f16", "stablehlo.maximum", dilated), true);
  expectMatchesReference(reduceWindowModule("tensor<7x8xi8>", "tensor<5x7xi8>", "i8", "stablehlo.add", dilated), true);
  expectMatchesReference(reduceWindowModule("tensor<7x8xui8>", "tensor<5x7xui8>", "ui8", "stablehlo.minimum", dilated), true);
  expectMatchesReference(reduceWindowModule("tensor<7x8xi64>", "tensor<5x7xi64>", "i64", "stablehlo.multiply", dilated), true);
  expectMatchesReference(reduceWindowModule("tensor<7x8xui32>", "tensor<5x7xui32>", "ui32", "stablehlo.maximum", dilated), true);
}

TEST(CpuRoutines, ReduceWindowOtherBodiesUseTheReference) {
  std::string attrs = "window_dimensions = array<i64: 2>";
  // A body that is not one binary op, and an element type without native arithmetic.
  std::string twoOps = "func.func @main(%x: tensor<6xf32>, %init: tensor<f32>) -> tensor<5xf32> {\n"
                       "  %0 = \"stablehlo.reduce_window\"(%x, %init) <{window_dimensions = array<i64: 2>}> ({\n"
                       "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                       "    %s = stablehlo.add %a, %b : tensor<f32>\n"
                       "    %t = stablehlo.multiply %s, %s : tensor<f32>\n"
                       "    stablehlo.return %t : tensor<f32>\n"
                       "  }) : (tensor<6xf32>, tensor<f32>) -> tensor<5xf32>\n  return %0 : tensor<5xf32>\n}\n";
  expectMatchesReference(twoOps, false);
  expectMatchesReference(reduceWindowModule("tensor<6xi4>", "tensor<5xi4>", "i4", "stablehlo.add", attrs), false);
}

std::string selectAndScatterModule(const std::string& operand, const std::string& source, const std::string& et,
                                   const std::string& direction, const std::string& scatterOp, const std::string& attrs) {
  std::string scalar = "tensor<" + et + ">";
  return "func.func @main(%x: " + operand + ", %s: " + source + ", %init: " + scalar + ") -> " + operand + " {\n" +
         "  %0 = \"stablehlo.select_and_scatter\"(%x, %s, %init) <{" + attrs + "}> ({\n" +
         "  ^bb0(%a: " + scalar + ", %b: " + scalar + "):\n    %c = stablehlo.compare " + direction +
         ", %a, %b : (" + scalar + ", " + scalar + ") -> tensor<i1>\n    stablehlo.return %c : tensor<i1>\n  }, {\n" +
         binaryBody(scatterOp, scalar) + "  }) : (" + operand + ", " + source + ", " + scalar + ") -> " + operand +
         "\n  return %0 : " + operand + "\n}\n";
}

TEST(CpuRoutines, SelectAndScatterMaxPoolGradientNative) {
  expectMatchesReference(selectAndScatterModule("tensor<2x8x8x3xf32>", "tensor<2x4x4x3xf32>", "f32", "GE", "stablehlo.add",
                                                "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>"),
                         true);
  // Overlapping, padded windows: elements selected by several windows accumulate.
  std::string overlapping = "window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 2, 2>, "
                            "padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>";
  expectMatchesReference(selectAndScatterModule("tensor<7x7xf32>", "tensor<4x4xf32>", "f32", "GE", "stablehlo.add", overlapping), true);
  expectMatchesReference(selectAndScatterModule("tensor<7x7xf64>", "tensor<4x4xf64>", "f64", "GT", "stablehlo.add", overlapping), true);
  expectMatchesReference(selectAndScatterModule("tensor<7x7xi32>", "tensor<4x4xi32>", "i32", "GT", "stablehlo.maximum", overlapping), true);
  expectMatchesReference(selectAndScatterModule("tensor<7x7xbf16>", "tensor<4x4xbf16>", "bf16", "GE", "stablehlo.add", overlapping), true);
  // A min-pool selection is not taken natively.
  expectMatchesReference(selectAndScatterModule("tensor<7x7xf32>", "tensor<4x4xf32>", "f32", "LE", "stablehlo.add", overlapping), false);
}

std::string gatherModule(const std::string& operand, const std::string& indices, const std::string& result,
                         const std::string& dims, const std::string& sliceSizes) {
  return "func.func @main(%x: " + operand + ", %i: " + indices + ") -> " + result + " {\n" +
         "  %0 = \"stablehlo.gather\"(%x, %i) <{dimension_numbers = #stablehlo.gather<" + dims +
         ">, slice_sizes = array<i64: " + sliceSizes + ">}> : (" + operand + ", " + indices + ") -> " + result +
         "\n  return %0 : " + result + "\n}\n";
}

TEST(CpuRoutines, GatherNative) {
  // x[idx] on rows (JAX's numpy-style indexing), indices clamped when out of range.
  expectMatchesReference(gatherModule("tensor<50x8xf32>", "tensor<30x1xi32>", "tensor<30x8xf32>",
                                      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1, 8"),
                         true, 1, 50);
  // Partial slices with a two-element index vector, 64-bit and unsigned indices.
  expectMatchesReference(gatherModule("tensor<6x7x5xf64>", "tensor<4x3x2xi64>", "tensor<4x3x2x5xf64>",
                                      "offset_dims = [2, 3], collapsed_slice_dims = [1], start_index_map = [1, 0], index_vector_dim = 2", "2, 1, 5"),
                         true, 1, 7);
  expectMatchesReference(gatherModule("tensor<6x7xi8>", "tensor<5xui16>", "tensor<5x3xi8>",
                                      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1, 3"),
                         true, 1, 6);
  // Offset dims before batch dims, and batching dims (take_along_axis / vmap).
  expectMatchesReference(gatherModule("tensor<6x7xbf16>", "tensor<5x1xi32>", "tensor<7x5xbf16>",
                                      "offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1, 7"),
                         true, 1, 6);
  expectMatchesReference(gatherModule("tensor<3x4x2xf32>", "tensor<2x3x2xi64>", "tensor<2x3x2xf32>",
                                      "offset_dims = [2], collapsed_slice_dims = [0], operand_batching_dims = [2], "
                                      "start_indices_batching_dims = [0], start_index_map = [1, 0], index_vector_dim = 2", "1, 2, 1"),
                         true, 1, 3);
  expectMatchesReference(gatherModule("tensor<4x5xcomplex<f32>>", "tensor<3x1xi32>", "tensor<3x5xcomplex<f32>>",
                                      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1, 5"),
                         true, 1, 4);
}

// Slices' starts computed straight from the typed indices (no operand
// batching dims): single elements as jnp.searchsorted's binary search reads
// them (ui32 indices, a unit window kept), points x[i, j] with the index
// vector leading, clamping of out-of-range starts, and batching dims.
TEST(CpuRoutines, GatherStartsFromTypedIndicesNative) {
  expectMatchesReference(gatherModule("tensor<40xf32>", "tensor<300x1xui32>", "tensor<300x1xf32>",
                                      "offset_dims = [1], start_index_map = [0], index_vector_dim = 1", "1"),
                         true, 1, 40);
  // The same with signed indices (negative ones clamped to 0), and a column
  // x[i, 0] (an index stride of 6): one vector gather per 16 (AVX-512) or 8
  // (AVX2) elements, then the remainder.
  expectMatchesReference(gatherModule("tensor<40xi32>", "tensor<301x1xi32>", "tensor<301xi32>",
                                      "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1"),
                         true, 1, 40);
  expectMatchesReference(gatherModule("tensor<9x6xf32>", "tensor<100xui32>", "tensor<100xf32>",
                                      "collapsed_slice_dims = [0, 1], start_index_map = [0], index_vector_dim = 1", "1, 1"),
                         true, 1, 9);
  expectMatchesReference(gatherModule("tensor<6x9xi16>", "tensor<2x200xi64>", "tensor<200xi16>",
                                      "collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 0", "1, 1"),
                         true, 1, 8);
  expectMatchesReference(gatherModule("tensor<10x7xf64>", "tensor<25x1xi8>", "tensor<25x3xf64>",
                                      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [1], index_vector_dim = 1",
                                      "1, 3"),
                         true, 1, 7);
  // jnp.take_along_axis: each row's own indices (operand and indices batching dims).
  expectMatchesReference(gatherModule("tensor<12x40xf32>", "tensor<12x30x1xi32>", "tensor<12x30xf32>",
                                      "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], "
                                      "start_index_map = [1], index_vector_dim = 2", "1, 1"),
                         true, 1, 40);
  // The batching dim inner to another batch dim (its coordinate wraps around).
  expectMatchesReference(gatherModule("tensor<5x8xf32>", "tensor<7x5x1xi32>", "tensor<7x5xf32>",
                                      "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], "
                                      "start_index_map = [1], index_vector_dim = 2", "1, 1"),
                         true, 1, 8);
}

std::string scatterModule(const std::string& input, const std::string& indices, const std::string& updates,
                          const std::string& et, const std::string& dims, const std::string& body) {
  std::string scalar = "tensor<" + et + ">";
  return "func.func @main(%x: " + input + ", %i: " + indices + ", %u: " + updates + ") -> " + input + " {\n" +
         "  %0 = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<" + dims +
         ">}> ({\n" + body + "  }) : (" + input + ", " + indices + ", " + updates + ") -> " + input +
         "\n  return %0 : " + input + "\n}\n";
}

std::string replaceBody(const std::string& scalar) {
  return "  ^bb0(%a: " + scalar + ", %b: " + scalar + "):\n    stablehlo.return %b : " + scalar + "\n";
}

TEST(CpuRoutines, ScatterNative) {
  std::string rows = "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1";
  // x.at[idx].add(u) with repeated and out-of-range indices (skipped).
  expectMatchesReference(scatterModule("tensor<20x4xf32>", "tensor<30x1xi32>", "tensor<30x4xf32>", "f32", rows,
                                       binaryBody("stablehlo.add", "tensor<f32>")),
                         true, 1, 20);
  expectMatchesReference(scatterModule("tensor<20x4xf32>", "tensor<30x1xi8>", "tensor<30x4xf32>", "f32", rows, replaceBody("tensor<f32>")),
                         true, 1, 20);
  expectMatchesReference(scatterModule("tensor<20x4xi32>", "tensor<30x1xui32>", "tensor<30x4xi32>", "i32", rows,
                                       binaryBody("stablehlo.maximum", "tensor<i32>")),
                         true, 1, 20);
  expectMatchesReference(scatterModule("tensor<20x4xbf16>", "tensor<30x1xi64>", "tensor<30x4xbf16>", "bf16", rows,
                                       binaryBody("stablehlo.minimum", "tensor<bf16>")),
                         true, 1, 20);
  // Rows long enough for the vectorized fold's body and its remainder at every
  // vector width (37 = 2 x 16 + 5 floats); NaNs of both signs meet in it, so
  // its two-NaN rule shows in the result's sign bits.
  expectMatchesReference(scatterModule("tensor<20x37xf32>", "tensor<60x1xi32>", "tensor<60x37xf32>", "f32", rows,
                                       binaryBody("stablehlo.add", "tensor<f32>")),
                         true, 1, 20);
  expectMatchesReference(scatterModule("tensor<20x37xf64>", "tensor<60x1xi32>", "tensor<60x37xf64>", "f64", rows,
                                       binaryBody("stablehlo.multiply", "tensor<f64>")),
                         true, 1, 20);
  // Whole rows shorter than the operand's (its first 20 columns), and rows
  // placed by a two-element index vector into a rank-3 operand.
  expectMatchesReference(scatterModule("tensor<20x37xf32>", "tensor<50x1xi64>", "tensor<50x20xf32>", "f32", rows,
                                       binaryBody("stablehlo.add", "tensor<f32>")),
                         true, 1, 20);
  expectMatchesReference(scatterModule("tensor<5x4x19xf32>", "tensor<40x2xi32>", "tensor<40x19xf32>", "f32",
                                       "update_window_dims = [1], inserted_window_dims = [0, 1], "
                                       "scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 1",
                                       binaryBody("stablehlo.add", "tensor<f32>")),
                         true, 1, 4);
  // Partial windows that run off the end (skipped element by element), scalar indices.
  expectMatchesReference(scatterModule("tensor<6x7xf64>", "tensor<5xi32>", "tensor<5x3xf64>", "f64",
                                       "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1",
                                       binaryBody("stablehlo.add", "tensor<f64>")),
                         true, 1, 7);
  // Batching dims.
  expectMatchesReference(scatterModule("tensor<3x4x2xf32>", "tensor<2x3x2xi64>", "tensor<2x3x2xf32>", "f32",
                                       "update_window_dims = [2], inserted_window_dims = [0], input_batching_dims = [2], "
                                       "scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2",
                                       binaryBody("stablehlo.add", "tensor<f32>")),
                         true, 1, 3);
  // Replace works on any element type; arithmetic bodies on types without native arithmetic do not.
  expectMatchesReference(scatterModule("tensor<5x2xi1>", "tensor<4x1xi32>", "tensor<4x2xi1>", "i1", rows, replaceBody("tensor<i1>")),
                         true, 1, 5);
  expectMatchesReference(scatterModule("tensor<5x2xi4>", "tensor<4x1xi32>", "tensor<4x2xi4>", "i4", rows,
                                       binaryBody("stablehlo.add", "tensor<i4>")),
                         false, 1, 5);
}

// One element per index vector (x.at[i].add(u), x.at[i, j].max(u)): all
// targets first, straight from the typed indices, then their folds; the
// updates repeat targets and include out-of-range ones (skipped).
TEST(CpuRoutines, ScatterOfSingleElementsNative) {
  std::string add = binaryBody("stablehlo.add", "tensor<f32>");
  expectMatchesReference(scatterModule("tensor<50xf32>", "tensor<3000x1xi32>", "tensor<3000xf32>", "f32",
                                       "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1", add),
                         true, 1, 50);
  // Two index components, the index vector leading (each component a row of the indices).
  expectMatchesReference(scatterModule("tensor<6x9xf32>", "tensor<2x3000xi64>", "tensor<3000xf32>", "f32",
                                       "inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 0",
                                       binaryBody("stablehlo.maximum", "tensor<f32>")),
                         true, 1, 8);
  // Unsigned 8-bit indices; batching dims take the table of starts.
  expectMatchesReference(scatterModule("tensor<40xi32>", "tensor<1500xui8>", "tensor<1500xi32>", "i32",
                                       "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
                                       binaryBody("stablehlo.add", "tensor<i32>")),
                         true, 1, 40);
  expectMatchesReference(scatterModule("tensor<3x7xf64>", "tensor<3x500x1xi32>", "tensor<3x500xf64>", "f64",
                                       "inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], "
                                       "scatter_dims_to_operand_dims = [1], index_vector_dim = 2",
                                       binaryBody("stablehlo.add", "tensor<f64>")),
                         true, 1, 7);
}

// Scatters of whole rows large enough (at least 2^19 update elements) to be
// split across the routine's threads (native_gather_scatter.cpp,
// scatterRowsToTargets), against the reference bit for bit: sorted indices
// in bounds (jax.ops.segment_sum; runs of update rows, boundaries past equal
// targets), sorted indices crowded onto three rows, and unsorted ones with
// some out of bounds (rows sorted stably into operand-row ranges). A replace
// body shows the order in which duplicates land (the last one wins).
TEST(CpuRoutines, ScatterOfWholeRowsAcrossThreads) {
  static ThreadPool pool(4);
  cpu::RoutineThreads scope(&pool);
  std::string rows = "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1";
  auto sortedInto = [](int64_t bound) {
    return [bound](std::vector<Tensor>& operands, std::mt19937_64& rng) {
      Tensor& indices = operands[1];
      std::vector<int64_t> values(static_cast<size_t>(indices.numElements()));
      for (int64_t& v : values) v = std::uniform_int_distribution<int64_t>(0, bound - 1)(rng);
      std::sort(values.begin(), values.end());
      for (size_t i = 0; i < values.size(); ++i) indices.setInt(int64_t(i), values[i]);
    };
  };
  std::string in = "tensor<300x64xf32>", idx = "tensor<8200x1xi32>", upd = "tensor<8200x64xf32>";
  for (const std::string& body : {binaryBody("stablehlo.add", "tensor<f32>"), replaceBody("tensor<f32>")}) {
    expectMatchesReference(scatterModule(in, idx, upd, "f32", rows, body), true, 1, 300, sortedInto(300));
    expectMatchesReference(scatterModule(in, idx, upd, "f32", rows, body), true, 1, 300, sortedInto(3));
    expectMatchesReference(scatterModule(in, idx, upd, "f32", rows, body), true, 1, 300);
    // Unsorted ids onto two rows: runs of consecutive rows within a range.
    expectMatchesReference(scatterModule(in, idx, upd, "f32", rows, body), true, 1, 1);
  }
  // Rows shorter than the operand's, into a rank-3 operand by two index components, unsorted.
  expectMatchesReference(scatterModule("tensor<7x9x40xf64>", "tensor<20000x2xi64>", "tensor<20000x33xf64>", "f64",
                                       "update_window_dims = [1], inserted_window_dims = [0, 1], "
                                       "scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 1",
                                       binaryBody("stablehlo.add", "tensor<f64>")),
                         true, 1, 7);
}

// On one thread, a run of update rows with one target (sorted segment ids)
// is folded with the operand row in registers, four vectors of columns at a
// time, the columns past the last whole block one row at a time. Bit for bit
// the reference kernel's order: rows of whole blocks, whole blocks and a
// remainder, a remainder alone, for f32 and f64, add, multiply and replace;
// ids sorted into a few rows, with runs out of bounds at both ends, and
// unsorted ones (runs of one or two).
TEST(CpuRoutines, ScatterOfWholeRowRunsOnOneThread) {
  std::string rows = "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1";
  auto sorted = [](int64_t low, int64_t high) {
    return [low, high](std::vector<Tensor>& operands, std::mt19937_64& rng) {
      Tensor& indices = operands[1];
      std::vector<int64_t> values(static_cast<size_t>(indices.numElements()));
      for (int64_t& v : values) v = std::uniform_int_distribution<int64_t>(low, high)(rng);
      std::sort(values.begin(), values.end());
      for (size_t i = 0; i < values.size(); ++i) indices.setInt(int64_t(i), values[i]);
    };
  };
  for (const std::string& et : {std::string("f32"), std::string("f64")}) {
    std::string scalar = "tensor<" + et + ">";
    for (int64_t width : {64, 70, 5, 200}) {
      std::string w = std::to_string(width);
      std::string in = "tensor<6x" + w + "x" + et + ">", idx = "tensor<120x1xi32>", upd = "tensor<120x" + w + "x" + et + ">";
      for (const std::string& body : {binaryBody("stablehlo.add", scalar), binaryBody("stablehlo.multiply", scalar),
                                      replaceBody(scalar)}) {
        expectMatchesReference(scatterModule(in, idx, upd, et, rows, body), true, 1, 6, sorted(0, 5));
        expectMatchesReference(scatterModule(in, idx, upd, et, rows, body), true, 1, 6, sorted(-3, 8));
        expectMatchesReference(scatterModule(in, idx, upd, et, rows, body), true, 1, 2);
      }
    }
  }
}

// An embedding gradient scatters into splat zeros: the routine fills its
// result with the splat element instead of copying the constant. Pinned for
// zero and nonzero splats, f32 and i16 (whose element fills by doubling).
TEST(CpuRoutines, ScatterIntoSplatConstantNative) {
  for (auto [et, splat] : {std::pair<std::string, std::string>{"f32", "0.0"}, {"f32", "-1.5"}, {"i16", "7"}}) {
    std::string input = "tensor<9x5x" + et + ">", scalar = "tensor<" + et + ">";
    std::string text = "func.func @main(%i: tensor<12x1xi32>, %u: tensor<12x5x" + et + ">) -> " + input + " {\n" +
                       "  %x = stablehlo.constant dense<" + splat + "> : " + input + "\n" +
                       "  %0 = \"stablehlo.scatter\"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<"
                       "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                       "index_vector_dim = 1>}> ({\n" + binaryBody("stablehlo.add", scalar) + "  }) : (" + input +
                       ", tensor<12x1xi32>, tensor<12x5x" + et + ">) -> " + input + "\n  return %0 : " + input + "\n}\n";
    Instance instance = parseOp(text);
    ASSERT_NE(instance.op, nullptr);
    const Operation* constant = instance.op;
    const Operation* scatter = constant->nextInBlock();
    cpu::PreparedRoutine routine(*scatter);
    EXPECT_TRUE(routine.isNative()) << routine.kind();
    auto constantValue = interp::evaluateOp(*constant, {});
    ASSERT_TRUE(constantValue.isOk());
    std::mt19937_64 rng(17);
    std::vector<Tensor> operands = {(*constantValue)[0], randomOperand(scatter->operand(1)->type(), rng, true, 9),
                                    randomOperand(scatter->operand(2)->type(), rng, false, 0)};
    auto expected = interp::evaluateOp(*scatter, operands);
    auto actual = routine.run(operands);
    ASSERT_TRUE(expected.isOk() && actual.isOk());
    EXPECT_TRUE((*expected)[0] == (*actual)[0]) << et << " " << splat << "\nexpected " << describe((*expected)[0])
                                                << "\nactual   " << describe((*actual)[0]);
  }
}

// `body` is the comparator up to its return, which returns %c.
std::string sortModule(const std::vector<std::string>& types, int64_t dimension, const std::string& body) {
  std::string args, operands, results, blockArgs;
  for (size_t k = 0; k < types.size(); ++k) {
    std::string sep = k ? ", " : "";
    args += sep + "%x" + std::to_string(k) + ": " + types[k];
    operands += sep + "%x" + std::to_string(k);
    results += sep + types[k];
    std::string scalar = "tensor<" + types[k].substr(types[k].rfind('x') + 1);
    blockArgs += sep + "%l" + std::to_string(k) + ": " + scalar + ", %r" + std::to_string(k) + ": " + scalar;
  }
  return "func.func @main(" + args + ") -> (" + results + ") {\n  %0:" + std::to_string(types.size()) +
         " = \"stablehlo.sort\"(" + operands + ") <{dimension = " + std::to_string(dimension) +
         " : i64, is_stable = true}> ({\n  ^bb0(" + blockArgs + "):\n    " + body +
         "\n    stablehlo.return %c : tensor<i1>\n  }) : (" + results + ") -> (" + results + ")\n  return " +
         [&] {
           std::string r;
           for (size_t k = 0; k < types.size(); ++k) r += (k ? ", %0#" : "%0#") + std::to_string(k);
           return r;
         }() +
         " : " + results + "\n}\n";
}

TEST(CpuRoutines, SortNative) {
  std::string f32Lt = "%c = stablehlo.compare LT, %l0, %r0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>";
  expectMatchesReference(sortModule({"tensor<64xf32>"}, 0, f32Lt), true);
  expectMatchesReference(sortModule({"tensor<5x33xf32>"}, 1, f32Lt), true);
  expectMatchesReference(sortModule({"tensor<33x5xf32>", "tensor<33x5xi32>"}, 0, f32Lt), true);
  // Descending on the second operand's key, written both ways.
  expectMatchesReference(sortModule({"tensor<3x40xi32>", "tensor<3x40xf64>"}, 1,
                                    "%c = stablehlo.compare GT, %l1, %r1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>"),
                         true);
  expectMatchesReference(sortModule({"tensor<40xi32>", "tensor<40xbf16>"}, 0,
                                    "%c = stablehlo.compare LT, %r1, %l1 : (tensor<bf16>, tensor<bf16>) -> tensor<i1>"),
                         true);
  expectMatchesReference(sortModule({"tensor<4x3x20xf32>"}, -1,
                                    "%c = stablehlo.compare GT, %l0, %r0, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>"),
                         true);
  expectMatchesReference(sortModule({"tensor<50xui32>", "tensor<50xi32>"}, 0,
                                    "%c = stablehlo.compare LT, %l0, %r0, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>"),
                         true);
  expectMatchesReference(sortModule({"tensor<50xi8>"}, 0, "%c = stablehlo.compare GE, %l0, %r0, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>"), true);
  // JAX's comparator for floats (jnp.sort / argsort): -0 and NaNs canonicalized, then TOTALORDER.
  std::string canonical = "%z = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
                          "    %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>\n";
  for (std::string side : {"l0", "r0"}) {
    canonical += "    %e" + side + " = stablehlo.compare EQ, %" + side + ", %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
                 "    %s" + side + " = stablehlo.select %e" + side + ", %z, %" + side + " : tensor<i1>, tensor<f32>\n" +
                 "    %n" + side + " = stablehlo.compare NE, %" + side + ", %" + side + ", FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
                 "    %k" + side + " = stablehlo.select %n" + side + ", %nan, %s" + side + " : tensor<i1>, tensor<f32>\n";
  }
  canonical += "    %c = stablehlo.compare LT, %kl0, %kr0, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>";
  expectMatchesReference(sortModule({"tensor<4x45xf32>", "tensor<4x45xi32>"}, 1, canonical), true);
  // Signed order on a signed type read as UNSIGNED is the reference's business.
  expectMatchesReference(sortModule({"tensor<50xi32>"}, 0, "%c = stablehlo.compare LT, %l0, %r0, UNSIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>"),
                         false);
}

std::string topKModule(const std::string& in, const std::string& values, const std::string& indices, int64_t k) {
  return "func.func @main(%x: " + in + ") -> (" + values + ", " + indices + ") {\n  %v, %i = chlo.top_k(%x, k = " +
         std::to_string(k) + ") : " + in + " -> (" + values + ", " + indices + ")\n  return %v, %i : " + values +
         ", " + indices + "\n}\n";
}

// top_k selects each row's k largest (one pass over a buffer of the best k,
// or a partial sort) where the reference sorts the whole row: the same entries in the same order, ties (equal
// keys; signed zeros and NaNs of both signs apart, by the total order) by
// lower index first.
TEST(CpuRoutines, TopKNative) {
  expectMatchesReference(topKModule("tensor<3x20xf32>", "tensor<3x5xf32>", "tensor<3x5xi32>", 5), true);
  expectMatchesReference(topKModule("tensor<4x2x33xf64>", "tensor<4x2x33xf64>", "tensor<4x2x33xi32>", 33), true);
  expectMatchesReference(topKModule("tensor<64xbf16>", "tensor<1xbf16>", "tensor<1xi32>", 1), true);
  expectMatchesReference(topKModule("tensor<5x40xi32>", "tensor<5x7xi32>", "tensor<5x7xi32>", 7), true);
  expectMatchesReference(topKModule("tensor<5x40xui8>", "tensor<5x9xui8>", "tensor<5x9xi32>", 9), true);
  expectMatchesReference(topKModule("tensor<3x6xf32>", "tensor<3x0xf32>", "tensor<3x0xi32>", 0), true);
  // Past kSmallTopK a partial sort instead of the one-pass buffer.
  expectMatchesReference(topKModule("tensor<3x100xf32>", "tensor<3x70xf32>", "tensor<3x70xi32>", 70), true);
  expectMatchesReference(topKModule("tensor<2x90xi16>", "tensor<2x65xi16>", "tensor<2x65xi32>", 65), true);
}

// Every reduce_window, select_and_scatter, gather, scatter and sort of the
// JAX corpus, on random operands: native or not, the result is the
// reference's. Prints which routine each form got.
TEST(CpuRoutines, JaxCorpusInstancesMatchTheReference) {
  std::map<std::string, int> kinds;
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(__FILE__).parent_path() / "../corpus/jax")) {
    if (entry.path().extension() != ".mlir") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto module = parseModule(text.str(), entry.path().filename().string());
    ASSERT_TRUE(module.isOk()) << entry.path();
    std::vector<const Operation*> ops;
    (*module)->op().walk([&](Operation& op) {
      static const std::set<std::string_view> kNames = {"stablehlo.reduce_window", "stablehlo.select_and_scatter",
                                                        "stablehlo.gather", "stablehlo.scatter", "stablehlo.sort"};
      if (kNames.count(op.name())) ops.push_back(&op);
    });
    for (const Operation* op : ops) {
      cpu::PreparedRoutine routine(*op);
      ++kinds[std::string(op->name()) + " -> " + routine.kind()];
      Type first = op->operand(0)->type();
      int64_t bound = first.isTensor() && first.rank() > 0 ? *std::max_element(first.shape().begin(), first.shape().end()) : 1;
      std::mt19937_64 rng(checked + 1);
      std::vector<Tensor> operands;
      for (unsigned i = 0; i < op->numOperands(); ++i) {
        bool isIndex = (op->name() == "stablehlo.gather" || op->name() == "stablehlo.scatter") && i == 1;
        operands.push_back(randomOperand(op->operand(i)->type(), rng, isIndex, bound));
      }
      auto expected = interp::evaluateOp(*op, operands);
      auto actual = routine.run(operands);
      ASSERT_TRUE(expected.isOk() && actual.isOk()) << entry.path() << " " << op->name();
      for (size_t k = 0; k < expected->size(); ++k)
        EXPECT_TRUE((*expected)[k] == (*actual)[k]) << entry.path() << " " << routine.kind();
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
  for (const auto& [kind, count] : kinds) std::printf("[corpus] %3d x %s\n", count, kind.c_str());
}

std::string rngModule(const std::string& state, const std::string& out, const std::string& algorithm) {
  return "func.func @main(%s: " + state + ") -> (" + state + ", " + out + ") {\n  %0:2 = stablehlo.rng_bit_generator %s, algorithm = " +
         algorithm + " : (" + state + ") -> (" + state + ", " + out + ")\n  return %0#0, %0#1 : " + state + ", " + out +
         "\n}\n";
}

// Both generators over every element width, odd and even shapes (Threefry
// splits its shape along the first even dim, else the largest), scalars,
// 3-element Philox states; booleans stay with the reference.
TEST(CpuRoutines, RngBitGeneratorNative) {
  for (const char* algorithm : {"THREE_FRY", "PHILOX", "DEFAULT"})
    for (const char* out : {"tensor<5x6xui32>", "tensor<7x3xui8>", "tensor<3x5x7xi16>", "tensor<ui32>", "tensor<9xf32>",
                            "tensor<4x3xbf16>", "tensor<3x5xui64>", "tensor<6xf64>", "tensor<2x129xf16>"}) {
      SCOPED_TRACE(std::string(algorithm) + " " + out);
      expectMatchesReference(rngModule("tensor<2xui64>", out, algorithm), true);
      expectMatchesReference(rngModule("tensor<3xui64>", out, algorithm), true);
    }
  expectMatchesReference(rngModule("tensor<2xui64>", "tensor<4x4xi1>", "THREE_FRY"), false);
}

// Counters that wrap past 2^64 (and carry into Philox's high word) on the way.
TEST(CpuRoutines, RngBitGeneratorCounterWraps) {
  for (const char* algorithm : {"THREE_FRY", "PHILOX"}) {
    Instance instance = parseOp(rngModule("tensor<3xui64>", "tensor<300xui32>", algorithm));
    ASSERT_NE(instance.op, nullptr);
    cpu::PreparedRoutine routine(*instance.op);
    EXPECT_TRUE(routine.isNative());
    Tensor state(instance.op->operand(0)->type());
    state.setInt(0, 12345);
    state.setInt(1, -7);  // 2^64 - 7
    state.setInt(2, 99);
    auto expected = interp::evaluateOp(*instance.op, {state});
    auto actual = routine.run({state});
    ASSERT_TRUE(expected.isOk() && actual.isOk());
    for (size_t k = 0; k < 2; ++k)
      EXPECT_TRUE((*expected)[k] == (*actual)[k]) << algorithm << " result " << k << "\nexpected "
                                                  << describe((*expected)[k]) << "\nactual   " << describe((*actual)[k]);
  }
}

std::string fftModule(const std::string& in, const std::string& out, const std::string& type, const std::string& lengths) {
  return "func.func @main(%x: " + in + ") -> " + out + " {\n  %0 = stablehlo.fft %x, type = " + type +
         ", length = [" + lengths + "] : (" + in + ") -> " + out + "\n  return %0 : " + out + "\n}\n";
}

// Random finite operand (an FFT spreads one NaN over its whole line, which
// would hide every other difference).
Tensor finiteOperand(Type type, std::mt19937_64& rng) {
  Tensor t(type);
  std::uniform_real_distribution<double> values(-4, 4);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (type.elementType().isComplex()) t.setComplex(i, {values(rng), values(rng)});
    else t.setFloat(i, values(rng));
  }
  return t;
}

// How far the native FFT may be from the direct DFT: both compute in
// double, so results in f32 are the same float or its neighbour, and every
// result is within 1e-12 of the largest magnitude (the FFT's error in double
// grows as log n times the double epsilon).
void expectFftClose(const Tensor& expected, const Tensor& actual, const std::string& what) {
  ASSERT_EQ(expected.type(), actual.type()) << what;
  bool isComplex = expected.elementType().isComplex();
  auto parts = [&](const Tensor& t, int64_t i) {
    return isComplex ? std::array<double, 2>{t.getComplex(i).real(), t.getComplex(i).imag()}
                     : std::array<double, 2>{t.getFloat(i), 0.0};
  };
  bool single = expected.elementType() == Type::f32() || expected.elementType() == Type::complex(Type::f32());
  double scale = 0;
  for (int64_t i = 0; i < expected.numElements(); ++i)
    for (double x : parts(expected, i)) scale = std::max(scale, std::abs(x));
  int64_t far = 0;
  for (int64_t i = 0; i < expected.numElements(); ++i)
    for (int p = 0; p < 2; ++p) {
      double want = parts(expected, i)[p], got = parts(actual, i)[p];
      double neighbour = single ? std::abs(std::nextafter(float(want), INFINITY) - float(want)) : 0.0;
      if (std::abs(got - want) > std::max(neighbour, 1e-12 * scale) && far++ < 3)
        ADD_FAILURE() << what << ": element " << i << " part " << p << " is " << got << ", the direct DFT gives " << want;
    }
}

// Each line length the native FFT plans differently (1, powers of two, past
// the cached part, short direct sums, Bluestein above 64 elements, primes;
// an even RFFT through its half-length transform), every fft_type,
// f32 and f64, transforms over one to three trailing dims.
TEST(CpuRoutines, FftMatchesTheDirectDft) {
  struct Case {
    std::string in, out, type, lengths;
  };
  std::vector<Case> cases;
  for (int n : {1, 2, 3, 5, 8, 12, 17, 64, 65, 100, 127, 128, 1000, 1024}) {
    std::string N = std::to_string(n);
    for (const char* c : {"complex<f32>", "complex<f64>"}) {
      cases.push_back({"tensor<3x" + N + "x" + c + ">", "tensor<3x" + N + "x" + c + ">", "FFT", N});
      cases.push_back({"tensor<3x" + N + "x" + c + ">", "tensor<3x" + N + "x" + c + ">", "IFFT", N});
    }
    std::string H = std::to_string(n / 2 + 1);
    for (auto [f, c] : {std::pair{"f32", "complex<f32>"}, std::pair{"f64", "complex<f64>"}}) {
      cases.push_back({"tensor<2x" + N + "x" + f + ">", "tensor<2x" + H + "x" + c + ">", "RFFT", N});
      cases.push_back({"tensor<2x" + H + "x" + c + ">", "tensor<2x" + N + "x" + f + ">", "IRFFT", N});
    }
  }
  // Lines past the 8192-point parts whose passes run together.
  cases.push_back({"tensor<16384xcomplex<f64>>", "tensor<16384xcomplex<f64>>", "FFT", "16384"});
  cases.push_back({"tensor<32768xf32>", "tensor<16385xcomplex<f32>>", "RFFT", "32768"});
  cases.push_back({"tensor<6x10x96xcomplex<f32>>", "tensor<6x10x96xcomplex<f32>>", "FFT", "6, 10, 96"});
  cases.push_back({"tensor<4x70x33xcomplex<f64>>", "tensor<4x70x33xcomplex<f64>>", "IFFT", "70, 33"});
  cases.push_back({"tensor<9x80xf32>", "tensor<9x41xcomplex<f32>>", "RFFT", "9, 80"});
  cases.push_back({"tensor<9x41xcomplex<f32>>", "tensor<9x80xf32>", "IRFFT", "9, 80"});
  for (const Case& c : cases) {
    std::string text = fftModule(c.in, c.out, c.type, c.lengths);
    Instance instance = parseOp(text);
    ASSERT_NE(instance.op, nullptr);
    cpu::PreparedRoutine routine(*instance.op);
    EXPECT_TRUE(routine.isNative()) << text;
    std::mt19937_64 rng(7);
    std::vector<Tensor> operands = {finiteOperand(instance.op->operand(0)->type(), rng)};
    auto expected = interp::evaluateOp(*instance.op, operands);
    auto actual = routine.run(operands);
    ASSERT_TRUE(expected.isOk() && actual.isOk()) << text;
    expectFftClose(expected->front(), actual->front(), c.type + " " + c.in);
  }
}

// Sizes where the direct DFT is slow: the times are printed for the record.
TEST(CpuRoutines, FftRepresentativeSizes) {
  for (const auto& [in, out, type, lengths] :
       {std::array<std::string, 4>{"tensor<16x4096xcomplex<f32>>", "tensor<16x4096xcomplex<f32>>", "FFT", "4096"},
        std::array<std::string, 4>{"tensor<16x1000xf32>", "tensor<16x501xcomplex<f32>>", "RFFT", "1000"}}) {
    Instance instance = parseOp(fftModule(in, out, type, lengths));
    ASSERT_NE(instance.op, nullptr);
    cpu::PreparedRoutine routine(*instance.op);
    std::mt19937_64 rng(11);
    std::vector<Tensor> operands = {finiteOperand(instance.op->operand(0)->type(), rng)};
    auto start = std::chrono::steady_clock::now();
    auto expected = interp::evaluateOp(*instance.op, operands);
    auto middle = std::chrono::steady_clock::now();
    auto actual = routine.run(operands);
    auto end = std::chrono::steady_clock::now();
    ASSERT_TRUE(expected.isOk() && actual.isOk()) << in;
    expectFftClose(expected->front(), actual->front(), type + " " + in);
    std::printf("[routine] %-45s reference %9.2f ms  native %8.3f ms  (%s)\n", (type + " of " + in).c_str(),
                std::chrono::duration<double, std::milli>(middle - start).count(),
                std::chrono::duration<double, std::milli>(end - middle).count(), routine.kind().c_str());
  }
}

// Representative sizes: the native routine must still match the reference;
// the times are printed for the record (no assertion on them). Set
// KILN_ROUTINE_BENCH=1 for the full sizes.
TEST(CpuRoutines, RepresentativeSizesMatchTheReference) {
  bool full = std::getenv("KILN_ROUTINE_BENCH") != nullptr;
  struct Case {
    std::string what, text;
    int indexOperand;
    int64_t indexBound;
  };
  int64_t n = full ? 100000 : 5000, rows = full ? 10000 : 1000;
  std::string N = std::to_string(n), R = std::to_string(rows), B = full ? "32" : "4", C = full ? "512" : "64";
  std::vector<Case> cases = {
      {"max pool 2x2 f32[" + B + ",28,28,16]",
       reduceWindowModule(full ? "tensor<32x28x28x16xf32>" : "tensor<4x28x28x16xf32>",
                          full ? "tensor<32x14x14x16xf32>" : "tensor<4x14x14x16xf32>", "f32", "stablehlo.maximum",
                          "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>"),
       -1, 0},
      {"cumsum (JAX's reduce_window) of f32[16," + C + "]",
       reduceWindowModule("tensor<16x" + C + "xf32>", "tensor<16x" + C + "xf32>", "f32", "stablehlo.add",
                          "window_dimensions = array<i64: 1, " + C + ">, padding = dense<[[0, 0], [" +
                              std::to_string(std::stoi(C) - 1) + ", 0]]> : tensor<2x2xi64>"),
       -1, 0},
      {"max pool 2x2 gradient f32[" + B + ",28,28,16]",
       selectAndScatterModule(full ? "tensor<32x28x28x16xf32>" : "tensor<4x28x28x16xf32>",
                              full ? "tensor<32x14x14x16xf32>" : "tensor<4x14x14x16xf32>", "f32", "GE", "stablehlo.add",
                              "window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>"),
       -1, 0},
      {"gather " + R + " rows of f32[" + N + ",64]",
       gatherModule("tensor<" + N + "x64xf32>", "tensor<" + R + "x1xi32>", "tensor<" + R + "x64xf32>",
                    "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1, 64"),
       1, n},
      {"scatter-add " + N + " updates into f32[1000]",
       scatterModule("tensor<1000xf32>", "tensor<" + N + "x1xi32>", "tensor<" + N + "xf32>", "f32",
                     "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
                     binaryBody("stablehlo.add", "tensor<f32>")),
       1, 1000},
      {"rng_bit_generator THREE_FRY ui32[" + R + ",256]",
       rngModule("tensor<2xui64>", "tensor<" + R + "x256xui32>", "THREE_FRY"), -1, 0},
      {"rng_bit_generator PHILOX f32[" + R + ",256]", rngModule("tensor<3xui64>", "tensor<" + R + "x256xf32>", "PHILOX"),
       -1, 0},
      {"sort of " + N + " f32", sortModule({"tensor<" + N + "xf32>"}, 0,
                                           "%c = stablehlo.compare LT, %l0, %r0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>"),
       -1, 0},
  };
  for (const Case& c : cases) {
    Instance instance = parseOp(c.text);
    ASSERT_NE(instance.op, nullptr);
    cpu::PreparedRoutine routine(*instance.op);
    EXPECT_TRUE(routine.isNative()) << c.what;
    std::mt19937_64 rng(42);
    std::vector<Tensor> operands;
    for (unsigned i = 0; i < instance.op->numOperands(); ++i)
      operands.push_back(randomOperand(instance.op->operand(i)->type(), rng, int(i) == c.indexOperand, c.indexBound));
    auto time = [](auto&& f) {
      auto start = std::chrono::steady_clock::now();
      auto result = f();
      return std::make_pair(std::move(result), std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    };
    auto [expected, referenceMs] = time([&] { return interp::evaluateOp(*instance.op, operands); });
    auto [actual, nativeMs] = time([&] { return routine.run(operands); });
    ASSERT_TRUE(expected.isOk() && actual.isOk()) << c.what;
    for (size_t k = 0; k < expected->size(); ++k) EXPECT_TRUE((*expected)[k] == (*actual)[k]) << c.what;
    std::printf("[routine] %-45s reference %9.2f ms  native %8.3f ms  (%s)\n", c.what.c_str(), referenceMs, nativeMs,
                routine.kind().c_str());
  }
}

// ---- f32 linear algebra (native_linalg.cpp) ------------------------------------------------

// A batch of well-conditioned f32 matrices: a random matrix scaled by
// `offDiagonal` plus `diagonal` on the diagonal.
Tensor conditionedMatrices(Type type, std::mt19937_64& rng, double diagonal, double offDiagonal) {
  Tensor t = Tensor::uninitialized(type);
  int64_t n = type.shape().back(), rows = type.shape()[type.rank() - 2];
  std::normal_distribution<double> normal;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    int64_t r = (i / n) % rows, c = i % n;
    t.setFloat(i, offDiagonal * normal(rng) + (r == c ? diagonal : 0.0));
  }
  return t;
}

// Symmetric positive definite: b b^T / n + I for a random b.
Tensor positiveDefinite(Type type, std::mt19937_64& rng) {
  int64_t n = type.shape().back(), batches = type.numElements() / (n * n);
  Tensor b = conditionedMatrices(type, rng, 0.0, 1.0), a = Tensor::uninitialized(type);
  for (int64_t k = 0; k < batches; ++k)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = i == j ? 1.0 : 0.0;
        for (int64_t p = 0; p < n; ++p) sum += b.getFloat(k * n * n + i * n + p) * b.getFloat(k * n * n + j * n + p) / n;
        a.setFloat(k * n * n + i * n + j, sum);
      }
  return a;
}

// The native routine's results against the reference's (which substitutes in
// double and rounds once): integers bitwise (pivots, info), floats within
// 2e-5 of the largest magnitude -- f32 work on these well-conditioned
// matrices, a few hundred epsilons.
void expectLinearAlgebraCloseOnce(const std::string& text, const std::vector<Tensor>& operands, double tolerance) {
  Instance instance = parseOp(text);
  ASSERT_NE(instance.op, nullptr);
  cpu::PreparedRoutine routine(*instance.op);
  EXPECT_TRUE(routine.isNative()) << text;
  auto expected = interp::evaluateOp(*instance.op, operands);
  auto actual = routine.run(operands);
  ASSERT_TRUE(expected.isOk() && actual.isOk()) << text;
  ASSERT_EQ(expected->size(), actual->size());
  for (size_t k = 0; k < expected->size(); ++k) {
    const Tensor &want = (*expected)[k], &got = (*actual)[k];
    ASSERT_EQ(want.type(), got.type());
    if (!want.elementType().isFloat()) {
      EXPECT_TRUE(want == got) << "result " << k << " of\n" << text;
      continue;
    }
    double scale = 1;
    for (int64_t i = 0; i < want.numElements(); ++i) scale = std::max(scale, std::abs(want.getFloat(i)));
    int64_t far = 0;
    for (int64_t i = 0; i < want.numElements(); ++i)
      if (!(std::abs(got.getFloat(i) - want.getFloat(i)) <= tolerance * scale) && far++ < 3)
        ADD_FAILURE() << "result " << k << " element " << i << ": " << got.getFloat(i) << ", the reference gives "
                      << want.getFloat(i) << "\n" << text;
  }
}

// expectLinearAlgebraCloseOnce on the calling thread and split across a
// pool of 4 threads (RoutineThreads: batches, block rows, panels and column
// ranges on different threads).
void expectLinearAlgebraClose(const std::string& text, const std::vector<Tensor>& operands, double tolerance = 2e-5) {
  static ThreadPool pool(4);
  for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
    SCOPED_TRACE(threads ? "on 4 threads" : "on the calling thread");
    cpu::RoutineThreads scope(threads);
    expectLinearAlgebraCloseOnce(text, operands, tolerance);
  }
}

Type typeOf(const std::string& text) {
  auto type = parseType(text);
  EXPECT_TRUE(type.isOk()) << text;
  return *type;
}

std::string matrixType(int64_t batch, int64_t rows, int64_t cols, const std::string& element = "f32") {
  return "tensor<" + std::to_string(batch) + "x" + std::to_string(rows) + "x" + std::to_string(cols) + "x" + element + ">";
}

// LAPACK's letter for an element type: lapack_<letter>potrf_ffi.
std::string lapackLetter(const std::string& element) { return element == "f32" ? "s" : "d"; }

// stablehlo.cholesky and lapack_?potrf_ffi of order n, both triangles.
void checkCholesky(int64_t n, const std::string& element, double tolerance) {
  for (bool lower : {true, false}) {
    std::string t = matrixType(2, n, n, element);
    std::string text = "func.func @main(%a: " + t + ") -> " + t + " {\n  %r = stablehlo.cholesky %a, lower = " +
                       (lower ? "true" : "false") + " : " + t + "\n  return %r : " + t + "\n}";
    std::mt19937_64 rng(n);
    expectLinearAlgebraClose(text, {positiveDefinite(typeOf(t), rng)}, tolerance);
    std::string potrf = "func.func @main(%a: " + t + ") -> (" + t + ", tensor<2xi32>) {\n  %r:2 = stablehlo.custom_call @lapack_" +
                        lapackLetter(element) + "potrf_ffi(%a) {mhlo.backend_config = {uplo = " + std::to_string(lower ? 'L' : 'U') +
                        " : ui8}} : (" + t + ") -> (" + t + ", tensor<2xi32>)\n  return %r#0, %r#1 : " + t + ", tensor<2xi32>\n}";
    expectLinearAlgebraClose(potrf, {positiveDefinite(typeOf(t), rng)}, tolerance);
  }
}

// Sizes on both sides of the element-by-element path's largest order (16),
// below, at and across the small path's 8-row blocks and its largest order
// (128), and the blocked path's 64-column panels; both triangles.
TEST(CpuRoutines, CholeskyF32Native) {
  for (int64_t n : {1, 5, 8, 16, 17, 37, 64, 128, 129, 150, 300}) checkCholesky(n, "f32", 2e-5);
}

// triangular_solve and lapack_?trsm_ffi of order m with `other` right-hand
// sides: every side, triangle, transposition and diagonal.
void checkTriangularSolve(int64_t m, int64_t other, const std::string& element, double tolerance) {
  for (int variant = 0; variant < 16; ++variant) {
    bool left = variant & 1, lower = variant & 2, transpose = variant & 4, unit = variant & 8;
    std::string a = matrixType(2, m, m, element), b = left ? matrixType(2, m, other, element) : matrixType(2, other, m, element);
    std::string text = "func.func @main(%a: " + a + ", %b: " + b + ") -> " + b + " {\n  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = " +
                       (left ? "true" : "false") + ", lower = " + (lower ? "true" : "false") + ", transpose_a = #stablehlo<transpose " +
                       (transpose ? "TRANSPOSE" : "NO_TRANSPOSE") + ">, unit_diagonal = " + (unit ? "true" : "false") +
                       "}> : (" + a + ", " + b + ") -> " + b + "\n  return %x : " + b + "\n}";
    std::mt19937_64 rng(m * 16 + variant);
    Tensor matrix = conditionedMatrices(typeOf(a), rng, 2.0, 0.5 / m);
    expectLinearAlgebraClose(text, {matrix, conditionedMatrices(typeOf(b), rng, 0.0, 1.0)}, tolerance);
    std::string trsm = "func.func @main(%a: " + a + ", %b: " + b + ") -> " + b + " {\n  %x = stablehlo.custom_call @lapack_" +
                       lapackLetter(element) + "trsm_ffi(%a, %b) {mhlo.backend_config = {diag = " + std::to_string(unit ? 'U' : 'N') +
                       " : ui8, side = " + std::to_string(left ? 'L' : 'R') + " : ui8, trans_x = " + std::to_string(transpose ? 'T' : 'N') +
                       " : ui8, uplo = " + std::to_string(lower ? 'L' : 'U') + " : ui8}} : (" + a + ", " + b + ") -> " + b +
                       "\n  return %x : " + b + "\n}";
    expectLinearAlgebraClose(trsm, {matrix, conditionedMatrices(typeOf(b), rng, 0.0, 1.0)}, tolerance);
  }
}

// Square and tall right-hand sides; one and 16 right-hand sides (each
// solved on its own, up to order 256) and more (substitution along rows).
TEST(CpuRoutines, TriangularSolveF32Native) {
  for (int64_t m : {1, 5, 64, 150, 200, 300}) checkTriangularSolve(m, m == 300 ? 7 : m == 64 ? 1 : m == 200 ? 16 : m + 3, "f32", 2e-5);
}

// The blocked solve reads a in place when it is not transposed: only the
// triangle the solve names (and the diagonal unless it is unit), so NaN in
// the rest of a must not reach the result.
TEST(CpuRoutines, TriangularSolveReadsOnlyItsTriangle) {
  std::string a = matrixType(1, 300, 300), b = matrixType(1, 300, 200);
  for (int variant = 0; variant < 4; ++variant) {
    bool lower = variant & 1, unit = variant & 2;
    std::string text = "func.func @main(%a: " + a + ", %b: " + b + ") -> " + b + " {\n  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = " +
                       (lower ? "true" : "false") + ", transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = " +
                       (unit ? "true" : "false") + "}> : (" + a + ", " + b + ") -> " + b + "\n  return %x : " + b + "\n}";
    std::mt19937_64 rng(variant);
    Tensor matrix = conditionedMatrices(typeOf(a), rng, 2.0, 0.5 / 300), rhs = conditionedMatrices(typeOf(b), rng, 0.0, 1.0);
    Tensor clean = Tensor::uninitialized(typeOf(a));  // a Tensor copy would share matrix's elements
    for (int64_t i = 0; i < clean.numElements(); ++i) clean.setFloat(i, matrix.getFloat(i));
    for (int64_t i = 0; i < 300; ++i)
      for (int64_t j = 0; j < 300; ++j)
        if ((lower ? j > i : j < i) || (unit && i == j)) {
          matrix.setFloat(i * 300 + j, std::nan(""));
          clean.setFloat(i * 300 + j, i == j ? 1.0 : 0.0);
        }
    Instance instance = parseOp(text);
    ASSERT_NE(instance.op, nullptr);
    cpu::PreparedRoutine routine(*instance.op);
    ASSERT_TRUE(routine.isNative());
    auto withNan = routine.run({matrix, rhs});
    auto expected = interp::evaluateOp(*instance.op, {clean, rhs});
    ASSERT_TRUE(withNan.isOk() && expected.isOk());
    for (int64_t i = 0; i < (*withNan)[0].numElements(); ++i)
      ASSERT_NEAR((*withNan)[0].getFloat(i), (*expected)[0].getFloat(i), 1e-4) << "element " << i << " of\n" << text;
  }
}

std::string getrfModule(int64_t rows, int64_t cols, const std::string& element = "f32") {
  std::string t = matrixType(2, rows, cols, element), p = "tensor<2x" + std::to_string(std::min(rows, cols)) + "xi32>";
  return "func.func @main(%a: " + t + ") -> (" + t + ", " + p + ", tensor<2xi32>) {\n  %r:3 = stablehlo.custom_call @lapack_" +
         lapackLetter(element) + "getrf_ffi(%a) : (" + t + ") -> (" + t + ", " + p + ", tensor<2xi32>)\n  return %r#0, %r#1, %r#2 : " +
         t + ", " + p + ", tensor<2xi32>\n}";
}

// LU with partial pivoting, square, wide and tall: the same pivots as the
// reference (these matrices have no near ties), factors within the bound.
TEST(CpuRoutines, LuF32Native) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {5, 5}, {64, 64}, {150, 150}, {200, 70}, {70, 200}, {300, 300}}) {
    std::mt19937_64 rng(rows * 1000 + cols);
    expectLinearAlgebraClose(getrfModule(rows, cols), {conditionedMatrices(typeOf(matrixType(2, rows, cols)), rng, 0.0, 1.0)});
  }
}

// Ties of magnitude in a pivot column (small integers, either sign): the
// first row of the largest magnitude is the pivot, as the reference's scan
// picks it, in the first columns of every panel and across the 16-wide
// search.
TEST(CpuRoutines, LuF32PivotTies) {
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{37, 37}, {300, 300}, {200, 70}}) {
    Type type = typeOf(matrixType(2, rows, cols));
    Tensor a = Tensor::uninitialized(type);
    std::mt19937_64 rng(rows + cols);
    for (int64_t i = 0; i < a.numElements(); ++i) a.setFloat(i, static_cast<double>(static_cast<int64_t>(rng() % 7) - 3));
    expectLinearAlgebraClose(getrfModule(rows, cols), {a}, 1e-4);
  }
}

// f64 through the small-matrix loops (Cholesky to order 128, triangular
// solves with up to 16 right-hand sides to order 256, LU to 64 columns),
// within 1e-12 of the largest magnitude: the reference works in double
// too, in another order. Beyond those sizes f64 stays with the reference.
TEST(CpuRoutines, LinearAlgebraF64Native) {
  for (int64_t n : {1, 5, 8, 37, 64, 128}) checkCholesky(n, "f64", 1e-12);
  for (int64_t m : {1, 5, 64, 200}) checkTriangularSolve(m, m == 200 ? 16 : m == 64 ? 1 : m + 3, "f64", 1e-12);
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{1, 1}, {5, 5}, {64, 64}, {150, 40}, {40, 64}}) {
    std::mt19937_64 rng(rows * 1000 + cols);
    expectLinearAlgebraClose(getrfModule(rows, cols, "f64"),
                             {conditionedMatrices(typeOf(matrixType(2, rows, cols, "f64")), rng, 0.0, 1.0)}, 1e-12);
  }
  std::string big = matrixType(1, 129, 129, "f64"), rhs = matrixType(1, 8, 17, "f64"), eight = matrixType(1, 8, 8, "f64");
  for (std::string text : {"func.func @main(%a: " + big + ") -> " + big + " {\n  %r = stablehlo.cholesky %a, lower = true : " + big +
                               "\n  return %r : " + big + "\n}",
                           getrfModule(65, 65, "f64"),
                           "func.func @main(%a: " + eight + ", %b: " + rhs + ") -> " + rhs +
                               " {\n  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = true, transpose_a = "
                               "#stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (" + eight + ", " + rhs + ") -> " + rhs +
                               "\n  return %x : " + rhs + "\n}"}) {
    Instance instance = parseOp(text);
    ASSERT_NE(instance.op, nullptr) << text;
    EXPECT_FALSE(cpu::PreparedRoutine(*instance.op).isNative()) << text;
  }
}

// One matrix at a time, so that the work within a matrix is what is split
// across threads: the trailing updates' block rows, the panels' row ranges,
// the solves' columns and the sgemms' blocks of rows.
TEST(CpuRoutines, LinearAlgebraOfOneMatrixAcrossThreads) {
  std::string t = "tensor<1x300x300xf32>", b = "tensor<1x300x260xf32>";
  std::mt19937_64 rng(300);
  std::string potrf = "func.func @main(%a: " + t + ") -> (" + t + ", tensor<1xi32>) {\n  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (" +
                      t + ") -> (" + t + ", tensor<1xi32>)\n  return %r#0, %r#1 : " + t + ", tensor<1xi32>\n}";
  expectLinearAlgebraClose(potrf, {positiveDefinite(typeOf(t), rng)});
  for (bool lower : {true, false}) {
    std::string solve = "func.func @main(%a: " + t + ", %b: " + b + ") -> " + b + " {\n  %x = \"stablehlo.triangular_solve\"(%a, %b) <{left_side = true, lower = " +
                        std::string(lower ? "true" : "false") + ", transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (" +
                        t + ", " + b + ") -> " + b + "\n  return %x : " + b + "\n}";
    expectLinearAlgebraClose(solve, {conditionedMatrices(typeOf(t), rng, 2.0, 0.5 / 300), conditionedMatrices(typeOf(b), rng, 0.0, 1.0)});
  }
  std::string p = "tensor<1x300xi32>";
  std::string getrf = "func.func @main(%a: " + t + ") -> (" + t + ", " + p + ", tensor<1xi32>) {\n  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) : (" +
                      t + ") -> (" + t + ", " + p + ", tensor<1xi32>)\n  return %r#0, %r#1, %r#2 : " + t + ", " + p + ", tensor<1xi32>\n}";
  expectLinearAlgebraClose(getrf, {conditionedMatrices(typeOf(t), rng, 0.0, 1.0)});
  // Wide and tall: the last panel with columns right of it (swaps and rows
  // of U, no rows below), and with rows below but no columns right.
  for (auto [rows, cols] : {std::pair<int64_t, int64_t>{200, 420}, {420, 200}}) {
    std::string m = "tensor<1x" + std::to_string(rows) + "x" + std::to_string(cols) + "xf32>",
                q = "tensor<1x" + std::to_string(std::min(rows, cols)) + "xi32>";
    std::string lu = "func.func @main(%a: " + m + ") -> (" + m + ", " + q + ", tensor<1xi32>) {\n  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) : (" +
                     m + ") -> (" + m + ", " + q + ", tensor<1xi32>)\n  return %r#0, %r#1, %r#2 : " + m + ", " + q + ", tensor<1xi32>\n}";
    expectLinearAlgebraClose(lu, {conditionedMatrices(typeOf(m), rng, 0.0, 1.0)});
  }
}

// Matrices the reference reports on go to it whole: a Cholesky of a matrix
// that is not positive definite (NaN from the failed column, info) and an LU
// with an exactly zero column (info), bitwise the reference's.
TEST(CpuRoutines, LinearAlgebraFailuresGoToTheReference) {
  std::string t = matrixType(2, 70, 70);
  std::mt19937_64 rng(3);
  Tensor notDefinite = positiveDefinite(typeOf(t), rng);
  notDefinite.setFloat(70 * 70 + 65 * 70 + 65, -1.0f);  // second matrix, pivot 66
  Tensor singular = conditionedMatrices(typeOf(t), rng, 0.0, 1.0);
  for (int64_t i = 0; i < 70; ++i) singular.setFloat(i * 70 + 3, 0.0f);  // first matrix, column 4
  std::string potrf = "func.func @main(%a: " + t + ") -> (" + t + ", tensor<2xi32>) {\n  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (" +
                      t + ") -> (" + t + ", tensor<2xi32>)\n  return %r#0, %r#1 : " + t + ", tensor<2xi32>\n}";
  // One matrix of 300 failing in a later panel, on the calling thread and
  // on 4 (the panel that fails is then factored while the rest is updated).
  std::string one = "tensor<1x300x300xf32>", p = "tensor<1x300xi32>";
  Tensor lateNotDefinite = positiveDefinite(typeOf(one), rng);
  lateNotDefinite.setFloat(200 * 300 + 200, -1.0f);  // pivot 201, the fourth panel
  Tensor lateSingular = conditionedMatrices(typeOf(one), rng, 0.0, 1.0);
  for (int64_t i = 0; i < 300; ++i) lateSingular.setFloat(i * 300 + 150, 0.0f);  // column 151, the third panel
  std::string latePotrf = "func.func @main(%a: " + one + ") -> (" + one + ", tensor<1xi32>) {\n  %r:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (" +
                          one + ") -> (" + one + ", tensor<1xi32>)\n  return %r#0, %r#1 : " + one + ", tensor<1xi32>\n}";
  std::string lateGetrf = "func.func @main(%a: " + one + ") -> (" + one + ", " + p + ", tensor<1xi32>) {\n  %r:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) : (" +
                          one + ") -> (" + one + ", " + p + ", tensor<1xi32>)\n  return %r#0, %r#1, %r#2 : " + one + ", " + p + ", tensor<1xi32>\n}";
  static ThreadPool pool(4);
  for (auto [text, operand] : {std::pair{potrf, notDefinite}, std::pair{getrfModule(70, 70), singular},
                               std::pair{latePotrf, lateNotDefinite}, std::pair{lateGetrf, lateSingular}})
    for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
      SCOPED_TRACE(threads ? "on 4 threads" : "on the calling thread");
      cpu::RoutineThreads scope(threads);
      Instance instance = parseOp(text);
      ASSERT_NE(instance.op, nullptr);
      cpu::PreparedRoutine routine(*instance.op);
      auto expected = interp::evaluateOp(*instance.op, {operand});
      auto actual = routine.run({operand});
      ASSERT_TRUE(expected.isOk() && actual.isOk());
      int64_t info = 0;
      for (int64_t i = 0; i < expected->back().numElements(); ++i) info += expected->back().getInt(i);
      EXPECT_NE(info, 0) << "the case must fail in the reference";
      for (size_t k = 0; k < expected->size(); ++k) EXPECT_TRUE((*expected)[k] == (*actual)[k]) << "result " << k << "\n" << text;
    }
}

}  // namespace
}  // namespace kiln
