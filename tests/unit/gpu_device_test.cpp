// The cuda back end on a GPU, against the interpreter: each program runs on
// both with the same inputs and every result element is compared. Needs a
// CUDA device: without one it prints why and exits 77, which ctest reports
// as skipped, not passed (scripts/gpu_check.sh runs it on a GPU machine).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>

#include "kiln/backends/backend.h"
#include "kiln/backends/gpu/cuda_driver.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/parse/parser.h"

namespace kiln::gpu {
namespace {

// Inputs of the parameter types of @main, deterministic, in [-2, 2) for
// floats and [-50, 50) for integers.
std::vector<interp::Tensor> inputsFor(const Module& module, uint64_t seed) {
  std::vector<interp::Tensor> inputs;
  const Operation* fn = module.lookupFunction("main");
  for (Type type : func::type(*fn).inputs()) {
    interp::Tensor t = interp::Tensor::uninitialized(type);
    for (int64_t i = 0; i < t.numElements(); ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      double unit = double(seed >> 11) / double(uint64_t(1) << 53);
      if (type.elementType().isFloat()) t.setFloat(i, 4 * unit - 2);
      else t.setInt(i, int64_t(100 * unit) - 50);
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

Expected<std::vector<interp::Tensor>> runOn(std::string_view backendName, const Module& module,
                                            std::vector<interp::Tensor> inputs, bool foldConstants = true) {
  KILN_ASSIGN_OR_RETURN(const backend::Backend* target, backend::findBackend(backendName));
  backend::CompileOptions options;
  options.foldConstants = foldConstants;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<backend::Program> program, target->compile(module, "main", options));
  std::vector<device::DeviceBuffer> args = interp::toDeviceBuffers(std::move(inputs));
  KILN_ASSIGN_OR_RETURN(std::vector<device::DeviceBuffer> results, program->run(std::move(args)));
  return interp::toTensors(results);
}

// Runs `text`'s @main on cuda and on the interpreter and compares: integers
// exactly, floats within `tolerance` relative (plus as much absolute).
void expectMatchesInterpreter(const std::string& text, double tolerance = 1e-5) {
  auto module = parseModule(text, "gpu_device_test.mlir");
  ASSERT_TRUE(module.isOk()) << module.status().message();
  std::vector<interp::Tensor> inputs = inputsFor(**module, 42);
  Expected<std::vector<interp::Tensor>> cuda = runOn("cuda", **module, inputs);
  ASSERT_TRUE(cuda.isOk()) << cuda.status().message();
  Expected<std::vector<interp::Tensor>> reference = runOn("interpreter", **module, inputs);
  ASSERT_TRUE(reference.isOk()) << reference.status().message();
  ASSERT_EQ(cuda->size(), reference->size());
  for (size_t r = 0; r < cuda->size(); ++r) {
    const interp::Tensor& got = (*cuda)[r];
    const interp::Tensor& want = (*reference)[r];
    ASSERT_EQ(got.type(), want.type());
    int64_t mismatches = 0;
    for (int64_t i = 0; i < want.numElements() && mismatches < 5; ++i) {
      auto close = [&](double x, double y) {
        return std::isnan(y) ? std::isnan(x) : std::abs(x - y) <= tolerance * (1 + std::abs(y));
      };
      bool same = want.elementType().isComplex()
                      ? close(got.getComplex(i).real(), want.getComplex(i).real()) &&
                            close(got.getComplex(i).imag(), want.getComplex(i).imag())
                  : want.elementType().isFloat() ? close(got.getFloat(i), want.getFloat(i))
                                                 : got.getInt(i) == want.getInt(i);
      if (!same) {
        ++mismatches;
        ADD_FAILURE() << "result " << r << " element " << i << ": cuda " << got.getFloat(i) << ", interpreter "
                      << want.getFloat(i);
      }
    }
  }
}

TEST(CudaDeviceTest, ElementwiseChainWithATailOfOddElements) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<1048579xf32>, %y: tensor<1048579xf32>) -> tensor<1048579xf32> {
      %0 = stablehlo.add %x, %y : tensor<1048579xf32>
      %1 = stablehlo.exponential %0 : tensor<1048579xf32>
      %2 = stablehlo.tanh %x : tensor<1048579xf32>
      %3 = stablehlo.multiply %1, %2 : tensor<1048579xf32>
      %4 = stablehlo.logistic %3 : tensor<1048579xf32>
      return %4 : tensor<1048579xf32>
    })");
}

TEST(CudaDeviceTest, SoftmaxLongRowsABlockPerRow) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<512x1000xf32>) -> tensor<512x1000xf32> {
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<512x1000xf32>, tensor<f32>) -> tensor<512xf32>
      %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<512xf32>) -> tensor<512x1000xf32>
      %d = stablehlo.subtract %x, %mb : tensor<512x1000xf32>
      %e = stablehlo.exponential %d : tensor<512x1000xf32>
      %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<512x1000xf32>, tensor<f32>) -> tensor<512xf32>
      %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<512xf32>) -> tensor<512x1000xf32>
      %r = stablehlo.divide %e, %sb : tensor<512x1000xf32>
      return %r : tensor<512x1000xf32>
    })");
}

TEST(CudaDeviceTest, RowSumsShortRowsAWarpPerRowAndIntegers) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<4099x100xf32>, %k: tensor<77x300xi32>) -> (tensor<4099xf32>, tensor<77xi32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %izero = stablehlo.constant dense<0> : tensor<i32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4099x100xf32>, tensor<f32>) -> tensor<4099xf32>
      %t = stablehlo.reduce(%k init: %izero) applies stablehlo.add across dimensions = [1] : (tensor<77x300xi32>, tensor<i32>) -> tensor<77xi32>
      return %s, %t : tensor<4099xf32>, tensor<77xi32>
    })");
}

TEST(CudaDeviceTest, TransposeThroughSharedMemoryTiles) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<3x1000x700xf32>) -> tensor<3x700x1000xf32> {
      %t = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<3x1000x700xf32>) -> tensor<3x700x1000xf32>
      return %t : tensor<3x700x1000xf32>
    })");
}

TEST(CudaDeviceTest, ColumnSums) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<300x257xf32>) -> tensor<257xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<300x257xf32>, tensor<f32>) -> tensor<257xf32>
      return %s : tensor<257xf32>
    })");
}

TEST(CudaDeviceTest, ConstantsAndSeveralKernelsThroughTheArena) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<64x128xf32>) -> (tensor<128x64xf32>, tensor<64xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %c = stablehlo.constant dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>
      %cb = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<4xf32>) -> tensor<64x4xf32>
      %cr = stablehlo.reshape %cb : (tensor<64x4xf32>) -> tensor<256xf32>
      %xs = stablehlo.slice %x [0:64, 0:4] : (tensor<64x128xf32>) -> tensor<64x4xf32>
      %e = stablehlo.exponential %x : tensor<64x128xf32>
      %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x128xf32>, tensor<f32>) -> tensor<64xf32>
      %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
      return %t, %s : tensor<128x64xf32>, tensor<64xf32>
    })");
}

TEST(CudaDeviceTest, AProgramRunsAgainOnNewInputs) {
  auto module = parseModule(R"(
    func.func @main(%x: tensor<1000xi32>) -> tensor<1000xi32> {
      %0 = stablehlo.multiply %x, %x : tensor<1000xi32>
      return %0 : tensor<1000xi32>
    })", "again.mlir");
  ASSERT_TRUE(module.isOk());
  Expected<const backend::Backend*> cuda = backend::findBackend("cuda");
  ASSERT_TRUE(cuda.isOk());
  Expected<std::unique_ptr<backend::Program>> program = (*cuda)->compile(**module, "main", {});
  ASSERT_TRUE(program.isOk()) << program.status().message();
  for (uint64_t seed : {1, 2, 3}) {
    std::vector<interp::Tensor> inputs = inputsFor(**module, seed);
    interp::Tensor x = inputs[0];
    Expected<std::vector<device::DeviceBuffer>> results = (*program)->run(interp::toDeviceBuffers(std::move(inputs)));
    ASSERT_TRUE(results.isOk()) << results.status().message();
    Expected<std::vector<interp::Tensor>> tensors = interp::toTensors(*results);
    ASSERT_TRUE(tensors.isOk());
    for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ((*tensors)[0].getInt(i), x.getInt(i) * x.getInt(i)) << i;
  }
  // A wrong argument is an error, not a fault.
  Expected<std::vector<device::DeviceBuffer>> wrong = (*program)->run({});
  ASSERT_FALSE(wrong.isOk());
  EXPECT_NE(wrong.status().diag().message.find("takes 1 arguments, 0 given"), std::string::npos);
}

TEST(CudaDeviceTest, AFailingAssertionFailsTheRunAndAPassingOneDoesNot) {
  const char* text = R"(
    func.func @main() {
      %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
      %r = stablehlo.add %a, %b : tensor<2xf32>
      %e = stablehlo.constant dense<[4.0, EXPECTED]> : tensor<2xf32>
      stablehlo.custom_call @check.expect_eq(%r, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      func.return
    })";
  for (const char* expected : {"6.0", "7.0"}) {
    std::string program(text);
    program.replace(program.find("EXPECTED"), 8, expected);
    auto module = parseModule(program, "check.mlir");
    ASSERT_TRUE(module.isOk());
    Expected<std::vector<interp::Tensor>> run = runOn("cuda", **module, {}, /*foldConstants=*/false);
    EXPECT_EQ(run.isOk(), std::string(expected) == "6.0") << (run ? "" : run.status().message());
  }
}

// libdevice: f32 math computed in double (sin, atan2, cbrt, erf, erf_inv), f64 math
// (exp, pow, log1p) and C's exact fmod (remainder); libdevice's double
// functions are within 1-2 ulp of glibc's, so f32 results match to the last
// bit or one, f64 ones to 1e-14.
TEST(CudaDeviceTest, LibdeviceMathInF32AndF64AndExactRemainder) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<1000xf32>, %y: tensor<1000xf32>) -> (tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>) {
      %0 = stablehlo.sine %x : tensor<1000xf32>
      %1 = stablehlo.atan2 %0, %y : tensor<1000xf32>
      %2 = stablehlo.cbrt %1 : tensor<1000xf32>
      %e = chlo.erf %2 : tensor<1000xf32> -> tensor<1000xf32>
      %h = stablehlo.constant dense<0.5> : tensor<1000xf32>
      %s = stablehlo.multiply %e, %h : tensor<1000xf32>
      %3 = chlo.erf_inv %s : tensor<1000xf32> -> tensor<1000xf32>
      %4 = stablehlo.remainder %x, %y : tensor<1000xf32>
      %5 = stablehlo.cosine %y : tensor<1000xf32>
      return %3, %4, %5 : tensor<1000xf32>, tensor<1000xf32>, tensor<1000xf32>
    })", 1e-6);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<1000xf64>, %y: tensor<1000xf64>) -> (tensor<1000xf64>, tensor<1000xf64>) {
      %0 = stablehlo.exponential %x : tensor<1000xf64>
      %1 = stablehlo.power %0, %y : tensor<1000xf64>
      %2 = stablehlo.log_plus_one %1 : tensor<1000xf64>
      %3 = stablehlo.remainder %x, %y : tensor<1000xf64>
      return %2, %3 : tensor<1000xf64>, tensor<1000xf64>
    })", 1e-13);
}

// cuBLASLt: a plain f32 dot (operands swapped into its column-major terms),
// transposed operands read in place, a strided batch, f64, bf16 summed into
// f32, and output fusions: scale, bias and relu as its epilogue, tanh as a
// kernel after it. f32 sums in another order than the interpreter's.
TEST(CudaDeviceTest, DotsThroughCublasLt) {
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>) -> tensor<64x80xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x96xf32>, tensor<96x80xf32>) -> tensor<64x80xf32>
      return %0 : tensor<64x80xf32>
    })", 1e-4);
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<96x64xf32>, %b: tensor<80x96xf32>) -> tensor<64x80xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [1] : (tensor<96x64xf32>, tensor<80x96xf32>) -> tensor<64x80xf32>
      return %0 : tensor<64x80xf32>
    })", 1e-4);
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<6x33x17xf32>, %b: tensor<6x17x40xf32>) -> tensor<6x33x40xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<6x33x17xf32>, tensor<6x17x40xf32>) -> tensor<6x33x40xf32>
      return %0 : tensor<6x33x40xf32>
    })", 1e-4);
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<16x32xf64>, %b: tensor<32x8xf64>) -> tensor<16x8xf64> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<16x32xf64>, tensor<32x8xf64>) -> tensor<16x8xf64>
      return %0 : tensor<16x8xf64>
    })", 1e-12);
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<32x64xbf16>, %b: tensor<64x48xbf16>) -> tensor<32x48xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<32x64xbf16>, tensor<64x48xbf16>) -> tensor<32x48xf32>
      return %0 : tensor<32x48xf32>
    })", 1e-4);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %bias: tensor<256xf32>, %v: tensor<256x128xf32>)
        -> (tensor<64x256xf32>, tensor<64x256xf32>) {
      %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
      %s = stablehlo.constant dense<0.5> : tensor<64x256xf32>
      %1 = stablehlo.multiply %0, %s : tensor<64x256xf32>
      %2 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<256xf32>) -> tensor<64x256xf32>
      %3 = stablehlo.add %1, %2 : tensor<64x256xf32>
      %z = stablehlo.constant dense<0.0> : tensor<64x256xf32>
      %4 = stablehlo.maximum %3, %z : tensor<64x256xf32>
      %5 = stablehlo.dot_general %x, %v, contracting_dims = [1] x [1] : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
      %6 = stablehlo.add %5, %2 : tensor<64x256xf32>
      %7 = stablehlo.tanh %6 : tensor<64x256xf32>
      return %4, %7 : tensor<64x256xf32>, tensor<64x256xf32>
    })", 1e-4);
}

// Gather: rows of a table by random indices in [-50, 50) (clamped into the
// table), and a batched gather (operand_batching_dims, as vmap writes it).
TEST(CudaDeviceTest, GatherAThreadPerElement) {
  expectMatchesInterpreter(R"(
    func.func @main(%table: tensor<300x64xf32>, %rows: tensor<1000x1xi32>) -> tensor<1000x64xf32> {
      %0 = "stablehlo.gather"(%table, %rows) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>}> : (tensor<300x64xf32>, tensor<1000x1xi32>) -> tensor<1000x64xf32>
      return %0 : tensor<1000x64xf32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<4x60x8xi32>, %i: tensor<4x6x1xi64>) -> tensor<4x6x8xi32> {
      %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 8>}> : (tensor<4x60x8xi32>, tensor<4x6x1xi64>) -> tensor<4x6x8xi32>
      return %0 : tensor<4x6x8xi32>
    })", 0);
}

// Scatter: random indices in [-50, 50), so most rows take many updates and
// the negative ones are skipped (ui32 indices wrap to huge values: skipped
// too). f32 adds are atomic adds in any order (hence the tolerance); i32
// maximum, f64 multiply and a two-op body compare-and-swap loops, exact and
// to rounding.
TEST(CudaDeviceTest, ScatterWithAtomics) {
  expectMatchesInterpreter(R"(
    func.func @main(%acc: tensor<64x16xf32>, %i: tensor<5000x1xi32>, %u: tensor<5000x16xf32>) -> tensor<64x16xf32> {
      %0 = "stablehlo.scatter"(%acc, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<64x16xf32>, tensor<5000x1xi32>, tensor<5000x16xf32>) -> tensor<64x16xf32>
      return %0 : tensor<64x16xf32>
    })", 1e-4);
  expectMatchesInterpreter(R"(
    func.func @main(%m: tensor<50x7xi32>, %i: tensor<3000x1xui32>, %u: tensor<3000x7xi32>) -> tensor<50x7xi32> {
      %0 = "stablehlo.scatter"(%m, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %s = stablehlo.maximum %a, %b : tensor<i32>
        stablehlo.return %s : tensor<i32>
      }) : (tensor<50x7xi32>, tensor<3000x1xui32>, tensor<3000x7xi32>) -> tensor<50x7xi32>
      return %0 : tensor<50x7xi32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%p: tensor<50xf64>, %i: tensor<400x1xi32>, %u: tensor<400xf64>) -> tensor<50xf64> {
      %0 = "stablehlo.scatter"(%p, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %s = stablehlo.multiply %a, %b : tensor<f64>
        stablehlo.return %s : tensor<f64>
      }) : (tensor<50xf64>, tensor<400x1xi32>, tensor<400xf64>) -> tensor<50xf64>
      return %0 : tensor<50xf64>
    })", 1e-12);
  // A body of two ops (x + y * y, exact in i32 whatever the order).
  expectMatchesInterpreter(R"(
    func.func @main(%m: tensor<50xi32>, %i: tensor<700x1xi32>, %u: tensor<700xi32>) -> tensor<50xi32> {
      %0 = "stablehlo.scatter"(%m, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %sq = stablehlo.multiply %b, %b : tensor<i32>
        %s = stablehlo.add %a, %sq : tensor<i32>
        stablehlo.return %s : tensor<i32>
      }) : (tensor<50xi32>, tensor<700x1xi32>, tensor<700xi32>) -> tensor<50xi32>
      return %0 : tensor<50xi32>
    })", 0);
  // 16- and 8-bit elements: compare-and-swap of the 32-bit word holding each.
  expectMatchesInterpreter(R"(
    func.func @main(%m: tensor<50x3xbf16>, %i: tensor<999x1xi32>, %u: tensor<999x3xbf16>, %n: tensor<45xui8>, %v: tensor<999xui8>)
        -> (tensor<50x3xbf16>, tensor<45xui8>) {
      %0 = "stablehlo.scatter"(%m, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
        %s = stablehlo.maximum %a, %b : tensor<bf16>
        stablehlo.return %s : tensor<bf16>
      }) : (tensor<50x3xbf16>, tensor<999x1xi32>, tensor<999x3xbf16>) -> tensor<50x3xbf16>
      %1 = "stablehlo.scatter"(%n, %i, %v) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<ui8>, %b: tensor<ui8>):
        %s = stablehlo.add %a, %b : tensor<ui8>
        stablehlo.return %s : tensor<ui8>
      }) : (tensor<45xui8>, tensor<999x1xi32>, tensor<999xui8>) -> tensor<45xui8>
      return %0, %1 : tensor<50x3xbf16>, tensor<45xui8>
    })", 0);
}

// Sort: i32 keys in [-50, 50) with many ties and an f32 payload (the
// order of tied keys must be the stable one, as the interpreter's), rows of
// 1000 (padded to 1024); descending along the first of two dims (a row is
// strided); f64 rows of 8192, the longest sorted in shared memory.
TEST(CudaDeviceTest, SortBitonicPerRow) {
  expectMatchesInterpreter(R"(
    func.func @main(%k: tensor<37x1000xi32>, %v: tensor<37x1000xf32>) -> (tensor<37x1000xi32>, tensor<37x1000xf32>) {
      %0:2 = "stablehlo.sort"(%k, %v) <{dimension = 1 : i64, is_stable = true}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<f32>):
        %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      }) : (tensor<37x1000xi32>, tensor<37x1000xf32>) -> (tensor<37x1000xi32>, tensor<37x1000xf32>)
      return %0#0, %0#1 : tensor<37x1000xi32>, tensor<37x1000xf32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<300x5xf32>) -> tensor<300x5xf32> {
      %0 = "stablehlo.sort"(%x) <{dimension = 0 : i64, is_stable = false}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %gt = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %gt : tensor<i1>
      }) : (tensor<300x5xf32>) -> tensor<300x5xf32>
      return %0 : tensor<300x5xf32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<2x8192xf64>) -> tensor<2x8192xf64> {
      %0 = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = true}> ({
      ^bb0(%a: tensor<f64>, %b: tensor<f64>):
        %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      }) : (tensor<2x8192xf64>) -> tensor<2x8192xf64>
      return %0 : tensor<2x8192xf64>
    })", 0);
}

// What cuBLASLt does not take, convolutions and ffts as contraction
// kernels (a thread per result element, its sum in double as the
// interpreter's): an i8 dot into i32 with a multiply-add epilogue, an f32
// dot whose batch dims come last, a grouped, strided, dilated convolution
// and one with a bias and a relu in the same kernel (bitwise: the same
// double sums), and an RFFT then an IRFFT (libdevice's cos and sin:
// within rounding).
TEST(CudaDeviceTest, ContractionKernelsDotsConvolutionsAndFfts) {
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<60x90xi32>, %b: tensor<90x50xi32>, %c: tensor<60x50xi32>) -> tensor<60x50xi32> {
      %a8 = stablehlo.convert %a : (tensor<60x90xi32>) -> tensor<60x90xi8>
      %b8 = stablehlo.convert %b : (tensor<90x50xi32>) -> tensor<90x50xi8>
      %0 = stablehlo.dot_general %a8, %b8, contracting_dims = [1] x [0] : (tensor<60x90xi8>, tensor<90x50xi8>) -> tensor<60x50xi32>
      %1 = stablehlo.multiply %0, %c : tensor<60x50xi32>
      %2 = stablehlo.add %1, %0 : tensor<60x50xi32>
      return %2 : tensor<60x50xi32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<40x80x3xf32>, %b: tensor<3x80x50xf32>) -> tensor<3x40x50xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [2] x [0], contracting_dims = [1] x [1] : (tensor<40x80x3xf32>, tensor<3x80x50xf32>) -> tensor<3x40x50xf32>
      return %0 : tensor<3x40x50xf32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<4x33x32x16xf32>, %w: tensor<3x3x8x32xf32>, %w2: tensor<3x3x16x8xf32>, %bias: tensor<8xf32>)
        -> (tensor<4x17x15x32xf32>, tensor<4x31x30x8xf32>) {
      %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [0, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<4x33x32x16xf32>, tensor<3x3x8x32xf32>) -> tensor<4x17x15x32xf32>
      %1 = stablehlo.convolution(%x, %w2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x33x32x16xf32>, tensor<3x3x16x8xf32>) -> tensor<4x31x30x8xf32>
      %b = stablehlo.broadcast_in_dim %bias, dims = [3] : (tensor<8xf32>) -> tensor<4x31x30x8xf32>
      %2 = stablehlo.add %1, %b : tensor<4x31x30x8xf32>
      %z = stablehlo.constant dense<0.0> : tensor<4x31x30x8xf32>
      %3 = stablehlo.maximum %2, %z : tensor<4x31x30x8xf32>
      return %0, %3 : tensor<4x17x15x32xf32>, tensor<4x31x30x8xf32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<5x6x16xf32>) -> (tensor<5x6x9xcomplex<f32>>, tensor<5x6x16xf32>) {
      %0 = stablehlo.fft %x, type = RFFT, length = [6, 16] : (tensor<5x6x16xf32>) -> tensor<5x6x9xcomplex<f32>>
      %1 = stablehlo.fft %0, type = IRFFT, length = [6, 16] : (tensor<5x6x9xcomplex<f32>>) -> tensor<5x6x16xf32>
      return %0, %1 : tensor<5x6x9xcomplex<f32>>, tensor<5x6x16xf32>
    })", 1e-5);
}

// rng_bit_generator as a kernel, bitwise the interpreter's: Philox with a
// 3-word state into ui32 and ui64 words, Threefry into ui32 (split along
// the first even dim) and ui8; then the state each leaves.
TEST(CudaDeviceTest, RngBitGeneratorBitwise) {
  expectMatchesInterpreter(R"(
    func.func @main(%s: tensor<3xui64>, %t: tensor<2xui64>) -> (tensor<3xui64>, tensor<1000x37xui32>, tensor<3xui64>, tensor<999xui64>,
                                                                tensor<2xui64>, tensor<77x64xui32>, tensor<2xui64>, tensor<5x7xui8>) {
      %0, %1 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<1000x37xui32>)
      %2, %3 = stablehlo.rng_bit_generator %0, algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<999xui64>)
      %4, %5 = stablehlo.rng_bit_generator %t, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<77x64xui32>)
      %6, %7 = stablehlo.rng_bit_generator %4, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5x7xui8>)
      return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<3xui64>, tensor<1000x37xui32>, tensor<3xui64>, tensor<999xui64>, tensor<2xui64>, tensor<77x64xui32>, tensor<2xui64>, tensor<5x7xui8>
    })", 0);
}

// Cholesky and triangular solves (a block per matrix; a thread per system,
// left and right side, transposed), on matrices made positive definite on
// the device (x x^T + 48 I through cuBLASLt): cho_solve's two solves after
// the factorization. The products come from cuBLASLt (f32 sums in another
// order than the interpreter's), so within rounding; potrf on the raw
// inputs (not positive definite: its info, exact, and NaNs where the
// interpreter has them), getrf of them (pivots and info exact) and QR
// (geqrf, then orgqr: libdevice's hypot, within rounding).
TEST(CudaDeviceTest, CholeskyAndTriangularSolves) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<3x48x48xf32>, %b: tensor<3x48x200xf32>, %r: tensor<3x7x48xf32>, %raw: tensor<5x6x6xf64>)
        -> (tensor<3x48x48xf32>, tensor<3x48x200xf32>, tensor<3x7x48xf32>, tensor<5x6x6xf64>, tensor<5xi32>,
            tensor<5x6x6xf64>, tensor<5x6xi32>, tensor<5xi32>, tensor<5x6x6xf64>, tensor<5x6xf64>, tensor<5x6x6xf64>) {
      %xx = stablehlo.dot_general %x, %x, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<3x48x48xf32>, tensor<3x48x48xf32>) -> tensor<3x48x48xf32>
      %i = stablehlo.iota dim = 1 : tensor<3x48x48xi32>
      %j = stablehlo.iota dim = 2 : tensor<3x48x48xi32>
      %eq = stablehlo.compare EQ, %i, %j : (tensor<3x48x48xi32>, tensor<3x48x48xi32>) -> tensor<3x48x48xi1>
      %n = stablehlo.constant dense<48.0> : tensor<3x48x48xf32>
      %z = stablehlo.constant dense<0.0> : tensor<3x48x48xf32>
      %d = stablehlo.select %eq, %n, %z : tensor<3x48x48xi1>, tensor<3x48x48xf32>
      %spd = stablehlo.add %xx, %d : tensor<3x48x48xf32>
      %l = stablehlo.cholesky %spd, lower = true : tensor<3x48x48xf32>
      %y = "stablehlo.triangular_solve"(%l, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x48x48xf32>, tensor<3x48x200xf32>) -> tensor<3x48x200xf32>
      %s = "stablehlo.triangular_solve"(%l, %y) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<3x48x48xf32>, tensor<3x48x200xf32>) -> tensor<3x48x200xf32>
      %t = "stablehlo.triangular_solve"(%l, %r) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = true}> : (tensor<3x48x48xf32>, tensor<3x7x48xf32>) -> tensor<3x7x48xf32>
      %p:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%raw) {mhlo.backend_config = {uplo = 85 : ui8}} : (tensor<5x6x6xf64>) -> (tensor<5x6x6xf64>, tensor<5xi32>)
      %g:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%raw) {mhlo.backend_config = {}} : (tensor<5x6x6xf64>) -> (tensor<5x6x6xf64>, tensor<5x6xi32>, tensor<5xi32>)
      %q:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%raw) {mhlo.backend_config = {}} : (tensor<5x6x6xf64>) -> (tensor<5x6x6xf64>, tensor<5x6xf64>)
      %o = stablehlo.custom_call @lapack_dorgqr_ffi(%q#0, %q#1) {mhlo.backend_config = {}} : (tensor<5x6x6xf64>, tensor<5x6xf64>) -> tensor<5x6x6xf64>
      return %l, %s, %t, %p#0, %p#1, %g#0, %g#1, %g#2, %q#0, %q#1, %o : tensor<3x48x48xf32>, tensor<3x48x200xf32>, tensor<3x7x48xf32>, tensor<5x6x6xf64>, tensor<5xi32>, tensor<5x6x6xf64>, tensor<5x6xi32>, tensor<5xi32>, tensor<5x6x6xf64>, tensor<5x6xf64>, tensor<5x6x6xf64>
    })", 1e-3);
}

// LAPACK's syevd and gesdd through cuSOLVER (between transposes): the
// vectors' signs are made the interpreter's, but where two entries are
// within rounding of each other in magnitude either may decide, so what is
// compared is what signs do not change -- the eigen and singular values, info, the reconstructions
// V diag(w) V^T and U diag(s) VT, and U^T U -- a batch of 2 tall f64 SVDs
// (one gesvdjBatched: the full U and V, sliced), a wide f32 one (Xgesvd:
// cuSOLVER's U and VT are vt's and u's) and a batch of 3 symmetric f32
// matrices (one syevjBatched).
TEST(CudaDeviceTest, EigenAndSingularValueDecompositionsThroughCusolver) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<3x6x6xf32>, %g: tensor<2x7x4xf64>, %h: tensor<4x7xf32>)
        -> (tensor<3x6xf32>, tensor<3x6x6xf32>, tensor<3xi32>, tensor<2x4xf64>, tensor<2x7x4xf64>, tensor<2x4x4xf64>,
            tensor<2xi32>, tensor<4xf32>, tensor<4x7xf32>, tensor<i32>) {
      %xt = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
      %sym = stablehlo.add %x, %xt : tensor<3x6x6xf32>
      %e:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%sym) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<3x6x6xf32>) -> (tensor<3x6x6xf32>, tensor<3x6xf32>, tensor<3xi32>)
      %wb = stablehlo.broadcast_in_dim %e#1, dims = [0, 2] : (tensor<3x6xf32>) -> tensor<3x6x6xf32>
      %vw = stablehlo.multiply %e#0, %wb : tensor<3x6x6xf32>
      %rx = stablehlo.dot_general %vw, %e#0, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<3x6x6xf32>, tensor<3x6x6xf32>) -> tensor<3x6x6xf32>
      %d:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%g) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<2x7x4xf64>) -> (tensor<2x7x4xf64>, tensor<2x4xf64>, tensor<2x7x4xf64>, tensor<2x4x4xf64>, tensor<2xi32>)
      %sb = stablehlo.broadcast_in_dim %d#1, dims = [0, 2] : (tensor<2x4xf64>) -> tensor<2x7x4xf64>
      %us = stablehlo.multiply %d#2, %sb : tensor<2x7x4xf64>
      %rg = stablehlo.dot_general %us, %d#3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x7x4xf64>, tensor<2x4x4xf64>) -> tensor<2x7x4xf64>
      %utu = stablehlo.dot_general %d#2, %d#2, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x7x4xf64>, tensor<2x7x4xf64>) -> tensor<2x4x4xf64>
      %f:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%h) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x7xf32>, tensor<i32>)
      %fb = stablehlo.broadcast_in_dim %f#1, dims = [1] : (tensor<4xf32>) -> tensor<4x4xf32>
      %fu = stablehlo.multiply %f#2, %fb : tensor<4x4xf32>
      %rh = stablehlo.dot_general %fu, %f#3, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x7xf32>) -> tensor<4x7xf32>
      return %e#1, %rx, %e#2, %d#1, %rg, %utu, %d#4, %f#1, %rh, %f#4 : tensor<3x6xf32>, tensor<3x6x6xf32>, tensor<3xi32>, tensor<2x4xf64>, tensor<2x7x4xf64>, tensor<2x4x4xf64>, tensor<2xi32>, tensor<4xf32>, tensor<4x7xf32>, tensor<i32>
    })", 1e-3);
}

// TOTALORDER on bf16 in a sort comparator (top_k's form: the raw elements
// compared by their bits), an i32 payload.
TEST(CudaDeviceTest, SortBf16InTotalOrder) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<20x300xf32>) -> (tensor<20x300xbf16>, tensor<20x300xi32>) {
      %k = stablehlo.convert %x : (tensor<20x300xf32>) -> tensor<20x300xbf16>
      %i = stablehlo.iota dim = 1 : tensor<20x300xi32>
      %0:2 = "stablehlo.sort"(%k, %i) <{dimension = 1 : i64, is_stable = true}> ({
      ^bb0(%a: tensor<bf16>, %b: tensor<bf16>, %c: tensor<i32>, %d: tensor<i32>):
        %gt = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
        stablehlo.return %gt : tensor<i1>
      }) : (tensor<20x300xbf16>, tensor<20x300xi32>) -> (tensor<20x300xbf16>, tensor<20x300xi32>)
      return %0#0, %0#1 : tensor<20x300xbf16>, tensor<20x300xi32>
    })", 0);
}

// select_and_scatter as a thread per result element: a max-pool's
// gradient with padding and a window taller than its stride (windows
// overlap: a result element folds several sources, in the interpreter's
// order); integers with many ties in a 3x3 window of stride 1 (the first
// of equal elements is selected) combined by maximum.
TEST(CudaDeviceTest, SelectAndScatterAThreadPerResultElement) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<8x30x32x16xf32>, %g: tensor<8x15x16x16xf32>) -> tensor<8x30x32x16xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = "stablehlo.select_and_scatter"(%x, %g, %zero) <{padding = dense<[[0, 0], [1, 1], [0, 0], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %ge = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %ge : tensor<i1>
      }, {
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<8x30x32x16xf32>, tensor<8x15x16x16xf32>, tensor<f32>) -> tensor<8x30x32x16xf32>
      return %0 : tensor<8x30x32x16xf32>
    })", 0);
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<61x47xi32>, %g: tensor<59x45xi32>) -> tensor<61x47xi32> {
      %low = stablehlo.constant dense<-100> : tensor<i32>
      %0 = "stablehlo.select_and_scatter"(%x, %g, %low) <{window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>}> ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %le = stablehlo.compare LE, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %le : tensor<i1>
      }, {
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %m = stablehlo.maximum %a, %b : tensor<i32>
        stablehlo.return %m : tensor<i32>
      }) : (tensor<61x47xi32>, tensor<59x45xi32>, tensor<i32>) -> tensor<61x47xi32>
      return %0 : tensor<61x47xi32>
    })");
}

// Control flow driven from the host: the state of a while in its result
// slots, the predicate read back every trip, the next state copied on the
// compute stream (through staging where the body swaps it), a row
// reduction and a cuBLASLt matmul inside the loop; if and case choosing a
// branch from values computed on the device, a case index out of range
// running the last branch.
TEST(CudaDeviceTest, WhileLoopsDrivenFromTheHost) {
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<100003xf32>, %y: tensor<100003xf32>) -> (tensor<100003xf32>, tensor<i32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<100003xf32>
      cond {
        %ten = stablehlo.constant dense<10> : tensor<i32>
        %lt = stablehlo.compare LT, %i, %ten, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %half = stablehlo.constant dense<0.5> : tensor<100003xf32>
        %next = stablehlo.add %i, %one : tensor<i32>
        %h = stablehlo.multiply %v, %half : tensor<100003xf32>
        %w = stablehlo.add %h, %y : tensor<100003xf32>
        stablehlo.return %next, %w : tensor<i32>, tensor<100003xf32>
      }
      return %0#1, %0#0 : tensor<100003xf32>, tensor<i32>
    })");
  expectMatchesInterpreter(R"(
    func.func @main(%a: tensor<1000xi32>, %b: tensor<1000xi32>) -> (tensor<1000xi32>, tensor<1000xi32>, tensor<1000xi32>, tensor<1000xi32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0:3 = stablehlo.while(%i = %zero, %p = %a, %q = %b) : tensor<i32>, tensor<1000xi32>, tensor<1000xi32>
      cond {
        %n = stablehlo.constant dense<7> : tensor<i32>
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        %sum = stablehlo.add %p, %q : tensor<1000xi32>
        stablehlo.return %next, %q, %sum : tensor<i32>, tensor<1000xi32>, tensor<1000xi32>
      }
      %1:3 = stablehlo.while(%i = %zero, %p = %a, %q = %b) : tensor<i32>, tensor<1000xi32>, tensor<1000xi32>
      cond {
        %n = stablehlo.constant dense<5> : tensor<i32>
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %next, %q, %p : tensor<i32>, tensor<1000xi32>, tensor<1000xi32>
      }
      return %0#1, %0#2, %1#1, %1#2 : tensor<1000xi32>, tensor<1000xi32>, tensor<1000xi32>, tensor<1000xi32>
    })");
  // An RNN-like loop: h = tanh(W h + x[t]) for each of 6 rows of x, and the
  // rows' sums, until the step counter runs out.
  expectMatchesInterpreter(R"(
    func.func @main(%w: tensor<64x64xf32>, %x: tensor<6x64xf32>) -> (tensor<64xf32>, tensor<6xf32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %h0 = stablehlo.constant dense<0.0> : tensor<64xf32>
      %s0 = stablehlo.constant dense<0.0> : tensor<6xf32>
      %0:3 = stablehlo.while(%t = %zero, %h = %h0, %s = %s0) : tensor<i32>, tensor<64xf32>, tensor<6xf32>
      cond {
        %n = stablehlo.constant dense<6> : tensor<i32>
        %lt = stablehlo.compare LT, %t, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %c0 = stablehlo.constant dense<0> : tensor<i32>
        %f0 = stablehlo.constant dense<0.0> : tensor<f32>
        %row = stablehlo.dynamic_slice %x, %t, %c0, sizes = [1, 64] : (tensor<6x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
        %r = stablehlo.reshape %row : (tensor<1x64xf32>) -> tensor<64xf32>
        %wh = stablehlo.dot_general %w, %h, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64xf32>
        %a = stablehlo.add %wh, %r : tensor<64xf32>
        %hn = stablehlo.tanh %a : tensor<64xf32>
        %sum = stablehlo.reduce(%hn init: %f0) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
        %sum1 = stablehlo.reshape %sum : (tensor<f32>) -> tensor<1xf32>
        %sn = stablehlo.dynamic_update_slice %s, %sum1, %t : (tensor<6xf32>, tensor<1xf32>, tensor<i32>) -> tensor<6xf32>
        %next = stablehlo.add %t, %one : tensor<i32>
        stablehlo.return %next, %hn, %sn : tensor<i32>, tensor<64xf32>, tensor<6xf32>
      }
      return %0#1, %0#2 : tensor<64xf32>, tensor<6xf32>
    })", 1e-4);
}

TEST(CudaDeviceTest, IfAndCaseDrivenFromTheHost) {
  // Both predicates are computed on the device: one if takes its true
  // branch, the other its false one; the case indices are the sum of k
  // (in [-50, 50) per element: out of range, the last branch), 1 and 0.
  expectMatchesInterpreter(R"(
    func.func @main(%x: tensor<4096xf32>, %k: tensor<3xi32>) -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
      %f0 = stablehlo.constant dense<0.0> : tensor<f32>
      %i0 = stablehlo.constant dense<0> : tensor<i32>
      %sq = stablehlo.multiply %x, %x : tensor<4096xf32>
      %norm = stablehlo.reduce(%sq init: %f0) applies stablehlo.add across dimensions = [0] : (tensor<4096xf32>, tensor<f32>) -> tensor<f32>
      %pos = stablehlo.compare GT, %norm, %f0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %neg = stablehlo.not %pos : tensor<i1>
      %a = "stablehlo.if"(%pos) ({
        %e = stablehlo.exponential %x : tensor<4096xf32>
        stablehlo.return %e : tensor<4096xf32>
      }, {
        stablehlo.return %x : tensor<4096xf32>
      }) : (tensor<i1>) -> tensor<4096xf32>
      %b = "stablehlo.if"(%neg) ({
        stablehlo.return %x : tensor<4096xf32>
      }, {
        %t = stablehlo.tanh %x : tensor<4096xf32>
        stablehlo.return %t : tensor<4096xf32>
      }) : (tensor<i1>) -> tensor<4096xf32>
      %ks = stablehlo.reduce(%k init: %i0) applies stablehlo.add across dimensions = [0] : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
      %big = stablehlo.constant dense<1000> : tensor<i32>
      %index = stablehlo.add %ks, %big : tensor<i32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %c0 = "stablehlo.case"(%index) ({
        stablehlo.return %x : tensor<4096xf32>
      }, {
        %n = stablehlo.negate %x : tensor<4096xf32>
        stablehlo.return %n : tensor<4096xf32>
      }, {
        %s = stablehlo.sine %x : tensor<4096xf32>
        stablehlo.return %s : tensor<4096xf32>
      }) : (tensor<i32>) -> tensor<4096xf32>
      %one_r = stablehlo.multiply %one, %one : tensor<i32>
      %c1 = "stablehlo.case"(%one_r) ({
        stablehlo.return %x : tensor<4096xf32>
      }, {
        %n = stablehlo.negate %x : tensor<4096xf32>
        stablehlo.return %n : tensor<4096xf32>
      }, {
        %s = stablehlo.sine %x : tensor<4096xf32>
        stablehlo.return %s : tensor<4096xf32>
      }) : (tensor<i32>) -> tensor<4096xf32>
      %zero_r = stablehlo.subtract %one_r, %one : tensor<i32>
      %c2 = "stablehlo.case"(%zero_r) ({
        %m = stablehlo.multiply %x, %a : tensor<4096xf32>
        stablehlo.return %m : tensor<4096xf32>
      }, {
        stablehlo.return %x : tensor<4096xf32>
      }) : (tensor<i32>) -> tensor<4096xf32>
      return %a, %b, %c0, %c1, %c2 : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
    })");
}

}  // namespace
}  // namespace kiln::gpu

int main(int argc, char** argv) {
  kiln::Expected<int> devices = kiln::gpu::cudaDeviceCount();
  if (!devices || *devices == 0) {
    std::cout << "gpu_device_test: skipped: "
              << (devices ? std::string("the CUDA driver sees no device") : devices.status().diag().message) << "\n";
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
