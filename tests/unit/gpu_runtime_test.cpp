// The cuda runtime's parts that need no GPU: the architecture a device gets,
// the plan of a program (its steps, the launches codegen chose, the device
// regions sized from buffer assignment, constants), the argument packing of
// a launch, and the errors where no driver is installed. (Runs on a GPU:
// gpu_device_test.)
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/backends/backend.h"
#include "kiln/backends/gpu/cuda_plan.h"
#include "kiln/backends/gpu/cusolver.h"
#include "kiln/backends/gpu/launch.h"
#include "kiln/interp/interpreter.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "tests/unit/gpu_host_plan.h"

namespace kiln::gpu {
namespace {

Expected<CudaPlan> plan(const std::string& text, bool foldConstants = true) {
  auto module = parseModule(text, "gpu_runtime_test.mlir");
  if (!module) return module.takeStatus();
  CudaPlanOptions options;
  options.arch = "sm_90";
  options.foldConstants = foldConstants;
  return planForCuda(**module, "main", options);
}

// Every slot of `p` lies inside its region, aligned.
void expectSlotsInRegions(const CudaPlan& p) {
  auto check = [&](const DeviceSlot& slot) {
    EXPECT_EQ(slot.offset % kSlotAlignment, 0);
    int64_t size = slot.region == DeviceRegion::Parameters ? p.parameterBytes
                   : slot.region == DeviceRegion::Arena    ? p.arenaBytes
                                                           : int64_t(p.constants.size());
    EXPECT_LE(slot.offset + slot.bytes, size);
  };
  for (const DeviceSlot& s : p.parameters) check(s);
  for (const DeviceSlot& s : p.results) check(s);
  std::vector<const CudaStep*> steps;
  for (const CudaStep& step : p.steps) steps.push_back(&step);
  for (const CudaBody& body : p.bodies) {
    for (const CudaStep& step : body.steps) steps.push_back(&step);
    for (const DeviceSlot& s : body.results) check(s);
  }
  for (const CudaStep* stepPointer : steps) {
    const CudaStep& step = *stepPointer;
    if (const auto* launch = std::get_if<KernelLaunch>(&step))
      for (const DeviceSlot& s : launch->args) check(s);
    if (const auto* call = std::get_if<MatmulCall>(&step))
      for (const DeviceSlot& s : {call->a, call->b, call->d}) check(s);
    if (const auto* copy = std::get_if<CopyStep>(&step))
      for (const DeviceSlot& s : {copy->from, copy->to}) check(s);
    if (const auto* solve = std::get_if<SolverCall>(&step)) {
      for (const DeviceSlot& s : {solve->a, solve->work}) check(s);
      for (const DeviceSlot& s : solve->results) check(s);
    }
  }
}

// Expects results `got` to be the interpreter's `want`: the same values for
// non-float types, and for floats within `tolerance` of the largest
// magnitude of each result. `context` follows "result r" in failures.
void expectNearInterpreter(const std::vector<interp::Tensor>& got, const std::vector<interp::Tensor>& want,
                           const std::vector<Type>& types, double tolerance, const std::string& context) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < got.size(); ++r) {
    Type type = types[r];
    if (!type.elementType().isFloat()) {
      EXPECT_EQ(printAttribute(got[r].toDense()), printAttribute(want[r].toDense())) << "result " << r << context;
      continue;
    }
    TypeKind kind = type.elementType().kind();
    double scale = 1e-30, worst = 0;
    for (int64_t e = 0; e < type.numElements(); ++e)
      scale = std::max(scale, std::fabs(testing::loadElement(want[r].bytes(), kind, e)));
    for (int64_t e = 0; e < type.numElements(); ++e)
      worst = std::max(worst, std::fabs(testing::loadElement(got[r].bytes(), kind, e) -
                                        testing::loadElement(want[r].bytes(), kind, e)));
    EXPECT_LE(worst / scale, tolerance) << "result " << r << context;
  }
}

TEST(CudaArchTest, HopperAndLaterGetSm90AmpereSm80OlderAnError) {
  EXPECT_EQ(*cudaArchFor(9, 0), "sm_90");
  EXPECT_EQ(*cudaArchFor(10, 0), "sm_90");
  EXPECT_EQ(*cudaArchFor(8, 6), "sm_80");
  Expected<std::string> turing = cudaArchFor(7, 5);
  ASSERT_FALSE(turing.isOk());
  EXPECT_NE(turing.status().diag().message.find("compute capability 8.0 or newer"), std::string::npos);
  EXPECT_NE(turing.status().diag().message.find("not 7.5"), std::string::npos);
}

// A scatter is two launches: a loop kernel writing the operand into the
// result's slot, then the updates kernel reading the indices and updates
// and combining into that same slot (after the copy, in stream order).
TEST(CudaPlanTest, ScatterCopiesItsOperandThenLaunchesItsUpdatesIntoTheSameSlot) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%acc: tensor<8x3xf32>, %i: tensor<10x1xi32>, %u: tensor<10x3xf32>) -> tensor<8x3xf32> {
      %0 = "stablehlo.scatter"(%acc, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) : (tensor<8x3xf32>, tensor<10x1xi32>, tensor<10x3xf32>) -> tensor<8x3xf32>
      return %0 : tensor<8x3xf32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 2u);
  EXPECT_EQ(p->kernels[0].shape, KernelShape::Loop);
  EXPECT_EQ(p->kernels[1].shape, KernelShape::Scatter);
  ASSERT_EQ(p->steps.size(), 2u);
  const auto* copy = std::get_if<KernelLaunch>(&p->steps[0]);
  const auto* updates = std::get_if<KernelLaunch>(&p->steps[1]);
  ASSERT_TRUE(copy && updates);
  EXPECT_EQ(copy->kernel, 0u);
  EXPECT_EQ(updates->kernel, 1u);
  ASSERT_EQ(copy->args.size(), 2u);     // operand, result
  ASSERT_EQ(updates->args.size(), 3u);  // indices, updates, result
  EXPECT_EQ(copy->args[0], p->parameters[0]);
  EXPECT_EQ(updates->args[0], p->parameters[1]);
  EXPECT_EQ(updates->args[1], p->parameters[2]);
  EXPECT_EQ(copy->args[1], updates->args[2]);
  ASSERT_EQ(p->results.size(), 1u);
  EXPECT_EQ(p->results[0], updates->args[2]);
  expectSlotsInRegions(*p);
}

TEST(CudaPlanTest, ElementwiseChainIsOneLaunchOverParametersIntoTheArena) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<1000xf32>, %y: tensor<1000xf32>) -> tensor<1000xf32> {
      %0 = stablehlo.add %x, %y : tensor<1000xf32>
      %1 = stablehlo.multiply %0, %x : tensor<1000xf32>
      return %1 : tensor<1000xf32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().message();
  ASSERT_EQ(p->kernels.size(), 1u);
  ASSERT_EQ(p->kernels[0].ptx.size(), 1u);  // for the device's arch alone
  EXPECT_EQ(p->kernels[0].ptx[0].first, "sm_90");
  // The launch is the one codegen chose (launch.cpp's model).
  LaunchDims expected = loopLaunch(1000, kElementsPerThread);
  EXPECT_EQ(p->kernels[0].launch.blocks, expected.blocks);
  EXPECT_EQ(p->kernels[0].launch.threadsPerBlock, expected.threadsPerBlock);
  // Parameters packed at aligned offsets; the result in the arena.
  ASSERT_EQ(p->parameters.size(), 2u);
  EXPECT_EQ(p->parameters[0], (DeviceSlot{DeviceRegion::Parameters, 0, 4000}));
  EXPECT_EQ(p->parameters[1], (DeviceSlot{DeviceRegion::Parameters, 4032, 4000}));
  EXPECT_EQ(p->parameterBytes, 8064);
  ASSERT_EQ(p->results.size(), 1u);
  EXPECT_EQ(p->results[0].region, DeviceRegion::Arena);
  EXPECT_EQ(p->results[0].bytes, 4000);
  EXPECT_GE(p->arenaBytes, 4000);
  // One step: x, y in, the result out, in the kernel's parameter order.
  ASSERT_EQ(p->steps.size(), 1u);
  const KernelLaunch& launch = std::get<KernelLaunch>(p->steps[0]);
  EXPECT_EQ(launch.kernel, 0u);
  ASSERT_EQ(launch.args.size(), 3u);
  EXPECT_EQ(launch.args[0], p->parameters[0]);
  EXPECT_EQ(launch.args[1], p->parameters[1]);
  EXPECT_EQ(launch.args[2], p->results[0]);
  expectSlotsInRegions(*p);
}

TEST(CudaPlanTest, ArenaIsBufferAssignmentsAndSlotsStayInside) {
  // Two kernels (a row reduction feeds a transpose): an intermediate in the arena.
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<64x128xf32>) -> (tensor<128x64xf32>, tensor<64xf32>) {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %e = stablehlo.exponential %x : tensor<64x128xf32>
      %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x128xf32>, tensor<f32>) -> tensor<64xf32>
      %t = stablehlo.transpose %e, dims = [1, 0] : (tensor<64x128xf32>) -> tensor<128x64xf32>
      return %t, %s : tensor<128x64xf32>, tensor<64xf32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().message();
  EXPECT_GE(p->kernels.size(), 2u);
  EXPECT_EQ(p->steps.size(), p->kernels.size());
  for (const CudaKernel& k : p->kernels) EXPECT_LE(k.launch.threadsPerBlock, 1024);
  EXPECT_GE(p->arenaBytes, 128 * 64 * 4 + 64 * 4);
  expectSlotsInRegions(*p);
}

TEST(CudaPlanTest, ConstantsLiveInTheConstantsRegionWithTheirBytes) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      %0 = stablehlo.add %x, %c : tensor<4xf32>
      return %0 : tensor<4xf32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().message();
  ASSERT_EQ(p->constants.size(), size_t(kSlotAlignment));
  float values[4];
  std::memcpy(values, p->constants.data(), sizeof(values));
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[3], 4.0f);
  const KernelLaunch& launch = std::get<KernelLaunch>(p->steps.at(0));
  ASSERT_EQ(launch.args.size(), 3u);
  EXPECT_EQ(launch.args[1], (DeviceSlot{DeviceRegion::Constants, 0, 16}));
}

TEST(CudaPlanTest, AReturnedParameterIsReadFromTheParameters) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<3xi32>) -> tensor<3xi32> {
      return %x : tensor<3xi32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().message();
  EXPECT_TRUE(p->steps.empty());
  ASSERT_EQ(p->results.size(), 1u);
  EXPECT_EQ(p->results[0], p->parameters[0]);
}

TEST(CudaPlanTest, ConformanceAssertionsRunOnTheHost) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main() {
      %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %b = stablehlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
      %r = stablehlo.add %a, %b : tensor<2xf32>
      %e = stablehlo.constant dense<[4.0, 6.0]> : tensor<2xf32>
      stablehlo.custom_call @check.expect_eq(%r, %e) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      func.return
    })",
                              /*foldConstants=*/false);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  ASSERT_EQ(p->steps.size(), 2u);
  const KernelLaunch& add = std::get<KernelLaunch>(p->steps[0]);
  const HostCheck& check = std::get<HostCheck>(p->steps[1]);
  ASSERT_EQ(check.operands.size(), 2u);
  EXPECT_EQ(check.operands[0], add.args.back());  // the sum, where the kernel wrote it
  EXPECT_EQ(check.operands[1].region, DeviceRegion::Constants);
  expectSlotsInRegions(*p);
}

// A dot is a cuBLASLt call, never loops; an epilogue cuBLASLt has not (exp)
// is a kernel reading the product from scratch; a dot cuBLASLt cannot take
// (integers) is a located error. (The calls' layouts: gpu_matmul_test.)
TEST(CudaPlanTest, DotsAreCublasLtCallsOrACleanErrorNeverLoops) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
      %1 = stablehlo.exponential %0 : tensor<8x4xf32>
      return %1 : tensor<8x4xf32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().diag().message;
  ASSERT_EQ(p->steps.size(), 2u);
  ASSERT_EQ(p->matmuls.size(), 1u);
  const MatmulCall& call = std::get<MatmulCall>(p->steps[0]);
  const KernelLaunch& exp = std::get<KernelLaunch>(p->steps[1]);
  EXPECT_EQ(call.d, exp.args.front()) << "the kernel reads the product where cuBLASLt wrote it";
  EXPECT_EQ(call.d.region, DeviceRegion::Arena);
  EXPECT_EQ(call.d.bytes, 8 * 4 * 4);
  EXPECT_EQ(exp.args.back(), p->results[0]);
  EXPECT_NE(exp.args.back(), call.d);
  EXPECT_EQ(p->matmuls[0].epilogueKernel, p->kernels[exp.kernel].name);
  expectSlotsInRegions(*p);
  Expected<CudaPlan> integer = plan(R"(
    func.func @main(%a: tensor<8x16xi32>, %b: tensor<16x4xi32>) -> tensor<8x4xi32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xi32>, tensor<16x4xi32>) -> tensor<8x4xi32>
      return %0 : tensor<8x4xi32>
    })");
  // What cuBLASLt does not take (an integer dot) is a contraction kernel
  // reading the operands and writing the result in place: no matmul.
  ASSERT_TRUE(integer.isOk()) << integer.status().message();
  EXPECT_TRUE(integer->matmuls.empty());
  ASSERT_EQ(integer->steps.size(), 1u);
  const KernelLaunch& dot = std::get<KernelLaunch>(integer->steps[0]);
  EXPECT_EQ(integer->kernels[dot.kernel].shape, KernelShape::Contract);
  ASSERT_EQ(dot.args.size(), 3u);
  EXPECT_EQ(dot.args[0], integer->parameters[0]);
  EXPECT_EQ(dot.args[1], integer->parameters[1]);
  EXPECT_EQ(dot.args[2], integer->results[0]);
}

// The linear-algebra routines are kernels of their own: every operand a
// parameter (nothing computed in the kernel), every result an output
// (potrf's info, getrf's pivots and info), in the op's order.
TEST(CudaPlanTest, LinearAlgebraRoutinesAreKernelsOfTheirOwn) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%a: tensor<2x4x4xf32>, %b: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x4xf32>, tensor<2xi32>,
                                                                 tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2xi32>) {
      %0 = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
      %1:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2xi32>)
      %2:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%a) {mhlo.backend_config = {}} : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2xi32>)
      return %0, %1#0, %1#1, %2#0, %2#1, %2#2 : tensor<2x4x3xf32>, tensor<2x4x4xf32>, tensor<2xi32>, tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2xi32>
    })");
  ASSERT_TRUE(p.isOk()) << p.status().message();
  ASSERT_EQ(p->steps.size(), 3u);
  // The launches by shape (the schedule may order them otherwise).
  std::map<KernelShape, const KernelLaunch*> launches;
  for (const auto& step : p->steps) {
    const KernelLaunch& launch = std::get<KernelLaunch>(step);
    launches[p->kernels[launch.kernel].shape] = &launch;
  }
  const KernelLaunch* solve = launches[KernelShape::TriangularSolve];
  const KernelLaunch* potrf = launches[KernelShape::Cholesky];
  const KernelLaunch* getrf = launches[KernelShape::LuFactor];
  ASSERT_TRUE(solve && potrf && getrf);
  ASSERT_EQ(solve->args.size(), 3u);
  ASSERT_EQ(potrf->args.size(), 3u);
  ASSERT_EQ(getrf->args.size(), 4u);
  EXPECT_EQ(solve->args[0], p->parameters[0]);
  EXPECT_EQ(solve->args[1], p->parameters[1]);
  EXPECT_EQ(potrf->args[0], p->parameters[0]);
  EXPECT_EQ(getrf->args[0], p->parameters[0]);
  EXPECT_EQ(solve->args[2], p->results[0]);
  EXPECT_EQ(potrf->args[1], p->results[1]);
  EXPECT_EQ(potrf->args[2], p->results[2]);
  for (size_t r = 3; r < 6; ++r) EXPECT_EQ(getrf->args[r - 2], p->results[r]) << r;
  expectSlotsInRegions(*p);
}

TEST(CudaPlanTest, EveryUnsupportedOpIsCounted) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%b: tensor<8x8xf32>, %a: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
      %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x8xcomplex<f32>>, tensor<8x8xcomplex<f32>>, tensor<i32>)
      %1:5 = stablehlo.custom_call @lapack_sgeev_ffi(%b) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<8x8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x8xcomplex<f32>>, tensor<8x8xcomplex<f32>>, tensor<i32>)
      return %0#0, %1#0 : tensor<8xf32>, tensor<8xf32>
    })");
  ASSERT_FALSE(p.isOk());
  EXPECT_NE(p.status().diag().message.find("(and 1 more ops the cuda back end cannot compile yet)"),
            std::string::npos)
      << p.status().diag().message;
}

// LAPACK's syevd and gesdd become cuSOLVER calls between transposes
// and a sign fix-up (lapack_to_cusolver): each program planned and run on
// the host, every cuSOLVER call as its documentation defines it on
// column-major matrices (computed by the interpreter's decompositions, with
// every other vector negated: cuSOLVER's signs are its own), against the
// interpreter on the original program: every result bitwise equal (the
// host model decomposes the matrix the interpreter does: a itself, or a^T
// for a wide gesdd, as the interpreter does too). This checks the layouts,
// the transposes, the sign fix-up, the slots and the job letters, not
// cuSOLVER (unproven here). Batches of more than one matrix of at most
// 32 x 32 are one call of the batched Jacobi routines (syevjBatched,
// gesvdjBatched: the full U and V, sliced and transposed by the program);
// larger ones, and single matrices, a call per matrix.
TEST(CudaSolverTest, SyevdAndGesddMatchTheInterpreterOnTheHost) {
  struct Case {
    const char* name;
    const char* text;
    const char* call;  // the cuSOLVER call planned
  };
  const Case cases[] = {
      {"syevd lower f32, batch 2", R"(
    func.func @main(%a: tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>) {
      %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x5x5xf32>) -> (tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>)
      return %0#0, %0#1, %0#2 : tensor<2x5x5xf32>, tensor<2x5xf32>, tensor<2xi32>
    })", "syevjBatched f32 5 x 5, batch 2, lower"},
      {"syevd upper f64", R"(
    func.func @main(%a: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<i32>) {
      %0:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<i32>)
      return %0#0, %0#1, %0#2 : tensor<4x4xf64>, tensor<4xf64>, tensor<i32>
    })", "Xsyevd f64 4 x 4, batch 1, upper"},
      {"syevd upper f64, batch 3 of order 32", R"(
    func.func @main(%a: tensor<3x32x32xf64>) -> (tensor<3x32x32xf64>, tensor<3x32xf64>, tensor<3xi32>) {
      %0:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 85 : ui8}} : (tensor<3x32x32xf64>) -> (tensor<3x32x32xf64>, tensor<3x32xf64>, tensor<3xi32>)
      return %0#0, %0#1, %0#2 : tensor<3x32x32xf64>, tensor<3x32xf64>, tensor<3xi32>
    })", "syevjBatched f64 32 x 32, batch 3, upper"},
      {"syevd lower f32, batch 2 of order 33", R"(
    func.func @main(%a: tensor<2x33x33xf32>) -> (tensor<2x33x33xf32>, tensor<2x33xf32>, tensor<2xi32>) {
      %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x33x33xf32>) -> (tensor<2x33x33xf32>, tensor<2x33xf32>, tensor<2xi32>)
      return %0#0, %0#1, %0#2 : tensor<2x33x33xf32>, tensor<2x33xf32>, tensor<2xi32>
    })", "Xsyevd f32 33 x 33, batch 2, lower"},
      {"gesdd tall thin f32", R"(
    func.func @main(%a: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<i32>) {
      %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<i32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<5x3xf32>, tensor<3xf32>, tensor<5x3xf32>, tensor<3x3xf32>, tensor<i32>
    })", "Xgesvd f32 5 x 3, batch 1, jobu S, jobvt A"},
      {"gesdd tall thin f32, batch 3", R"(
    func.func @main(%a: tensor<3x5x3xf32>) -> (tensor<3x5x3xf32>, tensor<3x3xf32>, tensor<3x5x3xf32>, tensor<3x3x3xf32>, tensor<3xi32>) {
      %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<3x5x3xf32>) -> (tensor<3x5x3xf32>, tensor<3x3xf32>, tensor<3x5x3xf32>, tensor<3x3x3xf32>, tensor<3xi32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<3x5x3xf32>, tensor<3x3xf32>, tensor<3x5x3xf32>, tensor<3x3x3xf32>, tensor<3xi32>
    })", "gesvdjBatched f32 5 x 3, batch 3"},
      {"gesdd tall thin f64, batch 2 of 40 x 3", R"(
    func.func @main(%a: tensor<2x40x3xf64>) -> (tensor<2x40x3xf64>, tensor<2x3xf64>, tensor<2x40x3xf64>, tensor<2x3x3xf64>, tensor<2xi32>) {
      %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<2x40x3xf64>) -> (tensor<2x40x3xf64>, tensor<2x3xf64>, tensor<2x40x3xf64>, tensor<2x3x3xf64>, tensor<2xi32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x40x3xf64>, tensor<2x3xf64>, tensor<2x40x3xf64>, tensor<2x3x3xf64>, tensor<2xi32>
    })", "Xgesvd f64 40 x 3, batch 2, jobu S, jobvt A"},
      {"gesdd tall full f64, batch 2", R"(
    func.func @main(%a: tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xf64>, tensor<2x5x5xf64>, tensor<2x3x3xf64>, tensor<2xi32>) {
      %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x3xf64>, tensor<2x5x5xf64>, tensor<2x3x3xf64>, tensor<2xi32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x5x3xf64>, tensor<2x3xf64>, tensor<2x5x5xf64>, tensor<2x3x3xf64>, tensor<2xi32>
    })", "gesvdjBatched f64 5 x 3, batch 2"},
      {"gesdd wide thin f32, batch 2", R"(
    func.func @main(%a: tensor<2x3x6xf32>) -> (tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3x6xf32>, tensor<2xi32>) {
      %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<2x3x6xf32>) -> (tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3x6xf32>, tensor<2xi32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x3x6xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3x6xf32>, tensor<2xi32>
    })", "gesvdjBatched f32 3 x 6, batch 2"},
      {"gesdd wide full f64, batch 2", R"(
    func.func @main(%a: tensor<2x3x5xf64>) -> (tensor<2x3x5xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<2x5x5xf64>, tensor<2xi32>) {
      %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<2x3x5xf64>) -> (tensor<2x3x5xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<2x5x5xf64>, tensor<2xi32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x3x5xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>, tensor<2x5x5xf64>, tensor<2xi32>
    })", "gesvdjBatched f64 3 x 5, batch 2"},
      {"gesdd wide thin f32, batch 2 of 3 x 40", R"(
    func.func @main(%a: tensor<2x3x40xf32>) -> (tensor<2x3x40xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3x40xf32>, tensor<2xi32>) {
      %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%a) {mhlo.backend_config = {mode = 83 : ui8}} : (tensor<2x3x40xf32>) -> (tensor<2x3x40xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3x40xf32>, tensor<2xi32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x3x40xf32>, tensor<2x3xf32>, tensor<2x3x3xf32>, tensor<2x3x40xf32>, tensor<2xi32>
    })", "Xgesvd f32 40 x 3, batch 2, jobu S, jobvt A"},
      {"gesdd wide full f64", R"(
    func.func @main(%a: tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<5x5xf64>, tensor<i32>) {
      %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<5x5xf64>, tensor<i32>)
      return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<3x5xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<5x5xf64>, tensor<i32>
    })", "Xgesvd f64 5 x 3, batch 1, jobu A, jobvt A"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto module = parseModule(c.text, "gpu_runtime_test.mlir");
    ASSERT_TRUE(module.isOk()) << module.status().diag().str();
    Expected<CudaPlan> p = planForCuda(**module, "main", CudaPlanOptions{});
    ASSERT_TRUE(p.isOk()) << p.status().diag().str();
    expectSlotsInRegions(*p);
    ASSERT_EQ(solverCalls(*p).size(), 1u);
    const SolverCall& call = *solverCalls(*p).front();
    EXPECT_EQ(call.problem.str(), c.call);
    for (const DeviceSlot& slot : call.results) EXPECT_FALSE(slot.region == DeviceRegion::Constants);
    // A symmetric draw for syevd (the triangle not read holds garbage: 7s),
    // a general one for gesdd.
    Type type = p->parameterTypes[0];
    TypeKind kind = type.elementType().kind();
    int64_t n = type.shape().back(), m = type.shape()[type.rank() - 2];
    bool syevd = call.problem.eigen();
    interp::Tensor a = interp::Tensor::uninitialized(type);
    for (int64_t e = 0; e < type.numElements(); ++e) {
      int64_t i = e / n % m, j = e % n, base = e - (i * n + j);
      int64_t lo = std::min(i, j), hi = std::max(i, j);
      uint32_t hash = uint32_t((base + lo * n + hi) * 2654435761u + 12345u);
      hash ^= hash >> 15;
      double v = (hash % 2001) / 1000.0 - 1.0;
      bool unread = syevd && (call.problem.lower ? j > i : j < i);
      testing::storeElement(a.bytes(), kind, e, unread ? 7.0 : v);
    }
    testing::HostPlanRunner host(*p);
    Expected<std::vector<interp::Tensor>> got = host.run({a});
    ASSERT_TRUE(got.isOk()) << got.status().diag().str();
    EXPECT_EQ(host.solves, 1);
    Expected<std::vector<interp::Tensor>> want = interp::runFunction(**module, "main", {a});
    ASSERT_TRUE(want.isOk()) << want.status().diag().str();
    ASSERT_EQ(got->size(), want->size());
    for (size_t r = 0; r < got->size(); ++r)
      EXPECT_EQ(printAttribute((*got)[r].toDense()), printAttribute((*want)[r].toDense())) << "result " << r;
  }
}

// Where the toolkit's cuSOLVER is installed, it loads (no GPU needed) and
// every function kiln calls resolves by the name kiln gives it (the ABI
// test checks their types against cusolverDn.h, not the names dlsym is
// asked for).
TEST(CudaSolverTest, CusolverLoadsWithEveryFunction) {
  std::vector<std::string> homes;
  if (const char* home = std::getenv("CUDA_HOME")) homes.push_back(home);
  homes.push_back("/usr/local/cuda");
  bool installed = false;
  for (const std::string& home : homes)
    for (const char* name : {"libcusolver.so.12", "libcusolver.so.11"})
      installed |= std::filesystem::exists(std::filesystem::path(home) / "lib64" / name);
  if (!installed) GTEST_SKIP() << "no cuSOLVER installed under $CUDA_HOME or /usr/local/cuda";
  Expected<const Cusolver*> s = cusolverLibrary();
  ASSERT_TRUE(s.isOk()) << s.status().diag().str();
  EXPECT_NE((*s)->xgesvd, nullptr);
  EXPECT_NE((*s)->z.gesvdj, nullptr);
  EXPECT_NE((*s)->c.syevjBufferSize, nullptr);
}

// A batched Jacobi call outside the routines' range (hand-written: the pass
// makes none) is refused when planned, named and located.
TEST(CudaSolverTest, JacobiBatchedOutsideItsRangeIsRefused) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%a: tensor<2x33x33xf32>) -> (tensor<2x33x33xf32>, tensor<2x33xf32>, tensor<2xi32>) {
      %0:3 = stablehlo.custom_call @kiln.cusolver.syevj_batched(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x33x33xf32>) -> (tensor<2x33x33xf32>, tensor<2x33xf32>, tensor<2xi32>)
      return %0#0, %0#1, %0#2 : tensor<2x33x33xf32>, tensor<2x33xf32>, tensor<2xi32>
    })");
  ASSERT_FALSE(p.isOk());
  EXPECT_NE(p.status().diag().message.find("cuSOLVER syevjBatched f32 33 x 33, batch 2, lower): cuSOLVER's batched "
                                           "Jacobi routines take matrices of at most 32 x 32"),
            std::string::npos)
      << p.status().diag().str();
}

// The JAX corpus's syevd and gesdd (lapack_decompositions.mlir) become
// cuSOLVER calls: nothing of it is refused any more, and the whole
// program's plan runs on the host as the interpreter runs it.
TEST(CudaSolverTest, JaxCorpusDecompositionsPlan) {
  std::filesystem::path file = std::filesystem::path(__FILE__).parent_path() / "../corpus/jax/lapack_decompositions.mlir";
  std::ifstream in(file);
  ASSERT_TRUE(in) << file;
  std::stringstream text;
  text << in.rdbuf();
  auto module = parseModule(text.str(), "lapack_decompositions.mlir");
  ASSERT_TRUE(module.isOk()) << module.status().diag().str();
  Expected<CudaPlan> p = planForCuda(**module, "main", CudaPlanOptions{});
  ASSERT_TRUE(p.isOk()) << p.status().diag().str();
  std::vector<const SolverCall*> calls = solverCalls(*p);
  ASSERT_EQ(calls.size(), 2u);
  std::set<std::string> problems;
  for (const SolverCall* call : calls) problems.insert(call->problem.str());
  EXPECT_EQ(problems, (std::set<std::string>{"Xgesvd f32 5 x 3, batch 1, jobu S, jobvt A", "Xsyevd f32 5 x 5, batch 1, lower"}));
  expectSlotsInRegions(*p);
  // The whole program on the host (its other kernels by the interpreter,
  // its dot as cuBLASLt defines it, cuSOLVER as the host model) against
  // the interpreter: floats within 1e-5 of the largest magnitude (the dot
  // sums in another order), the rest bitwise.
  std::vector<interp::Tensor> args;
  for (size_t i = 0; i < p->parameterTypes.size(); ++i) {
    Type type = p->parameterTypes[i];
    interp::Tensor t = interp::Tensor::uninitialized(type);
    for (int64_t e = 0; e < type.numElements(); ++e) {
      uint32_t hash = uint32_t(7919 + i * 104729 + e * 2654435761u);
      hash ^= hash >> 13;
      testing::storeElement(t.bytes(), type.elementType().kind(), e, (hash % 2001) / 1000.0 - 1.0);
    }
    args.push_back(std::move(t));
  }
  testing::HostPlanRunner host(*p);
  Expected<std::vector<interp::Tensor>> got = host.run(args);
  ASSERT_TRUE(got.isOk()) << got.status().diag().str();
  EXPECT_EQ(host.solves, 2);
  Expected<std::vector<interp::Tensor>> want = interp::runFunction(**module, "main", args);
  ASSERT_TRUE(want.isOk()) << want.status().diag().str();
  expectNearInterpreter(*got, *want, p->resultTypes, 1e-5, "");
}

TEST(CudaPlanTest, SeveralInstancesAreRefused) {
  Expected<CudaPlan> p = plan(R"(
    module attributes {mhlo.num_replicas = 2 : i32} {
      func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
        return %x : tensor<4xf32>
      }
    })");
  ASSERT_FALSE(p.isOk());
  EXPECT_NE(p.status().diag().message.find("runs one instance"), std::string::npos);
}

// ---- Control flow, driven from the host. Each plan is also run on the
// host (gpu_host_plan.h: the runtime's runSteps, kernels replaced by the
// interpreter on the bytes of their slots) and compared bitwise with the
// interpreter: a state slot, a copy or a branch result in the wrong place
// shows as a wrong value.

interp::Tensor tensorOf(const std::string& dense) {
  Expected<Attribute> attr = parseAttribute(dense);
  EXPECT_TRUE(attr.isOk()) << dense;
  return interp::Tensor::fromDense(*attr);
}

// `p` run on the host with `args` agrees bitwise with the interpreter
// running `text`; returns the host runner for its counts.
testing::HostPlanRunner expectHostRunMatchesInterpreter(const CudaPlan& p, const std::string& text,
                                                        const std::vector<interp::Tensor>& args) {
  testing::HostPlanRunner host(p);
  Expected<std::vector<interp::Tensor>> got = host.run(args);
  EXPECT_TRUE(got.isOk()) << got.status().diag().str();
  auto module = parseModule(text, "gpu_runtime_test.mlir");
  Expected<std::vector<interp::Tensor>> want = interp::runFunction(**module, "main", args);
  EXPECT_TRUE(want.isOk()) << want.status().diag().str();
  if (!got.isOk() || !want.isOk()) return host;
  EXPECT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size() && i < want->size(); ++i) {
    EXPECT_EQ(printAttribute((*got)[i].toDense()), printAttribute((*want)[i].toDense())) << "result " << i;
  }
  return host;
}

const char* kWhileLoop = R"(
    func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %n: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<4xf32>
      cond {
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        %twice = stablehlo.add %acc, %acc : tensor<4xf32>
        %plus = stablehlo.add %twice, %y : tensor<4xf32>
        stablehlo.return %next, %plus : tensor<i32>, tensor<4xf32>
      }
      return %0#1, %0#0 : tensor<4xf32>, tensor<i32>
    })";

// A while's state lives in its result slots: its operands are copied there,
// the condition and the body read their arguments there, the body's last
// steps copy the next state there; the predicate is read back once per trip.
TEST(CudaControlFlowTest, WhileStateLivesInItsResultSlots) {
  Expected<CudaPlan> p = plan(kWhileLoop);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  expectSlotsInRegions(*p);
  const WhileStep* loop = nullptr;
  std::vector<const CopyStep*> init;
  for (const CudaStep& step : p->steps) {
    if (const auto* copy = std::get_if<CopyStep>(&step)) init.push_back(copy);
    if (const auto* w = std::get_if<WhileStep>(&step)) loop = w;
  }
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(p->results.size(), 2u);
  // The initial state: the counter's constant and x, into the result slots.
  ASSERT_EQ(init.size(), 2u);
  EXPECT_EQ(init[0]->from.region, DeviceRegion::Constants);
  EXPECT_EQ(init[0]->to, p->results[1]);
  EXPECT_EQ(init[1]->from, p->parameters[0]);
  EXPECT_EQ(init[1]->to, p->results[0]);
  const CudaBody& cond = p->bodies[loop->cond];
  ASSERT_EQ(cond.results.size(), 1u);
  EXPECT_EQ(cond.results[0].bytes, 1);  // the i1 predicate, read back
  ASSERT_EQ(cond.steps.size(), 1u);     // the compare
  const KernelLaunch& compare = std::get<KernelLaunch>(cond.steps[0]);
  EXPECT_EQ(compare.args[0], p->results[1]);     // the counter, where the state is
  EXPECT_EQ(compare.args[1], p->parameters[2]);  // n, read from the enclosing function
  const CudaBody& body = p->bodies[loop->body];
  ASSERT_GE(body.steps.size(), 2u);
  const auto* last = std::get_if<CopyStep>(&body.steps.back());
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->to, p->results[0]);

  for (const char* n : {"dense<3> : tensor<i32>", "dense<0> : tensor<i32>", "dense<-2> : tensor<i32>"}) {
    testing::HostPlanRunner host = expectHostRunMatchesInterpreter(
        *p, kWhileLoop,
        {tensorOf("dense<[1.0, -2.0, 0.5, 3.0]> : tensor<4xf32>"), tensorOf("dense<[0.25, 1.0, -1.0, 2.0]> : tensor<4xf32>"),
         tensorOf(n)});
    int trips = std::string(n) == "dense<3> : tensor<i32>" ? 3 : 0;
    EXPECT_EQ(host.reads, trips + 1) << n;  // one predicate per trip, and the last
  }
}

// A body returning its state swapped (a Fibonacci step, and a plain swap)
// copies through bytes of its own: copying b into a's slot first would
// lose a.
TEST(CudaControlFlowTest, StateReturnedSwappedIsCopiedThroughStaging) {
  const char* text = R"(
    func.func @main(%a: tensor<3xi32>, %b: tensor<3xi32>, %n: tensor<i32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0:3 = stablehlo.while(%i = %zero, %p = %a, %q = %b) : tensor<i32>, tensor<3xi32>, tensor<3xi32>
      cond {
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        %sum = stablehlo.add %p, %q : tensor<3xi32>
        stablehlo.return %next, %q, %sum : tensor<i32>, tensor<3xi32>, tensor<3xi32>
      }
      %1:3 = stablehlo.while(%i = %zero, %p = %a, %q = %b) : tensor<i32>, tensor<3xi32>, tensor<3xi32>
      cond {
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        stablehlo.return %next, %q, %p : tensor<i32>, tensor<3xi32>, tensor<3xi32>
      }
      return %0#1, %0#2, %1#1, %1#2 : tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>
    })";
  Expected<CudaPlan> p = plan(text);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  expectSlotsInRegions(*p);
  // The swap's body: no kernel but the counter's, and its p and q each
  // staged (into bytes that are no state slot) before either is written.
  ASSERT_EQ(p->bodies.size(), 4u);
  int staged = 0;
  for (const CudaStep& step : p->bodies[3].steps)
    if (const auto* copy = std::get_if<CopyStep>(&step))
      staged += copy->from == p->results[2] || copy->from == p->results[3];
  EXPECT_EQ(staged, 2);
  for (const char* n : {"dense<5> : tensor<i32>", "dense<4> : tensor<i32>", "dense<1> : tensor<i32>"})
    expectHostRunMatchesInterpreter(
        *p, text, {tensorOf("dense<[0, 1, 7]> : tensor<3xi32>"), tensorOf("dense<[1, 1, -3]> : tensor<3xi32>"), tensorOf(n)});
}

// if and case: the selector is read back and one branch runs, ending by
// copying its values (its own, an enclosing block's, a constant) into the
// op's result slots; a case index outside [0, N) runs the last branch.
TEST(CudaControlFlowTest, IfAndCaseRunTheChosenBranch) {
  const char* text = R"(
    func.func @main(%pred: tensor<i1>, %index: tensor<i32>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
      %0:2 = "stablehlo.if"(%pred) ({
        %m = stablehlo.multiply %x, %y : tensor<8xf32>
        stablehlo.return %m, %x : tensor<8xf32>, tensor<8xf32>
      }, {
        %c = stablehlo.constant dense<2.5> : tensor<8xf32>
        %s = stablehlo.subtract %y, %x : tensor<8xf32>
        stablehlo.return %c, %s : tensor<8xf32>, tensor<8xf32>
      }) : (tensor<i1>) -> (tensor<8xf32>, tensor<8xf32>)
      %1 = "stablehlo.case"(%index) ({
        stablehlo.return %y : tensor<8xf32>
      }, {
        %e = stablehlo.exponential %x : tensor<8xf32>
        stablehlo.return %e : tensor<8xf32>
      }, {
        %n = stablehlo.negate %0#0 : tensor<8xf32>
        stablehlo.return %n : tensor<8xf32>
      }) : (tensor<i32>) -> tensor<8xf32>
      return %0#0, %0#1, %1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    })";
  Expected<CudaPlan> p = plan(text);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  expectSlotsInRegions(*p);
  const BranchStep* branchIf = nullptr;
  const BranchStep* branchCase = nullptr;
  for (const CudaStep& step : p->steps)
    if (const auto* b = std::get_if<BranchStep>(&step)) (branchIf ? branchCase : branchIf) = b;
  ASSERT_TRUE(branchIf && branchCase);
  EXPECT_EQ(branchIf->selector, p->parameters[0]);
  EXPECT_EQ(branchIf->branches.size(), 2u);
  EXPECT_EQ(branchCase->selector, p->parameters[1]);
  EXPECT_EQ(branchCase->branches.size(), 3u);
  // Case branch 0 only copies y into the result.
  const CudaBody& first = p->bodies[branchCase->branches[0]];
  ASSERT_EQ(first.steps.size(), 1u);
  EXPECT_EQ(std::get<CopyStep>(first.steps[0]).from, p->parameters[3]);
  EXPECT_EQ(std::get<CopyStep>(first.steps[0]).to, p->results[2]);
  std::vector<interp::Tensor> args = {
      tensorOf("dense<true> : tensor<i1>"), tensorOf("dense<0> : tensor<i32>"),
      tensorOf("dense<[1.0, 2.0, 3.0, -4.0, 0.5, 0.0, -1.5, 8.0]> : tensor<8xf32>"),
      tensorOf("dense<[2.0, -1.0, 0.25, 4.0, 1.0, 3.0, 2.0, -0.5]> : tensor<8xf32>")};
  for (const char* pred : {"dense<true> : tensor<i1>", "dense<false> : tensor<i1>"})
    for (const char* index : {"dense<0> : tensor<i32>", "dense<1> : tensor<i32>", "dense<2> : tensor<i32>",
                              "dense<3> : tensor<i32>", "dense<-1> : tensor<i32>", "dense<2147483647> : tensor<i32>"}) {
      args[0] = tensorOf(pred);
      args[1] = tensorOf(index);
      SCOPED_TRACE(std::string(pred) + ", " + index);
      expectHostRunMatchesInterpreter(*p, text, args);
    }
}

// Control flow inside control flow, with a row reduction and a sort in the
// body: the inner bodies' buffers lie in the outer body's scratch.
TEST(CudaControlFlowTest, NestedControlFlowKeepsItsBuffersApart) {
  const char* text = R"(
    func.func @main(%x: tensor<4x16xf32>, %n: tensor<i32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %init = stablehlo.constant dense<0.0> : tensor<4xf32>
      %0:3 = stablehlo.while(%i = %zero, %v = %x, %s = %init) : tensor<i32>, tensor<4x16xf32>, tensor<4xf32>
      cond {
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %two = stablehlo.constant dense<2> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        %f0 = stablehlo.constant dense<0.0> : tensor<f32>
        %rows = stablehlo.reduce(%v init: %f0) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
        %acc = stablehlo.add %s, %rows : tensor<4xf32>
        %rem = stablehlo.remainder %i, %two : tensor<i32>
        %even = stablehlo.compare EQ, %rem, %zero, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %w = "stablehlo.if"(%even) ({
          %sorted = "stablehlo.sort"(%v) <{dimension = 1 : i64, is_stable = true}> ({
          ^bb0(%l: tensor<f32>, %r: tensor<f32>):
            %c = stablehlo.compare GT, %l, %r, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
            stablehlo.return %c : tensor<i1>
          }) : (tensor<4x16xf32>) -> tensor<4x16xf32>
          stablehlo.return %sorted : tensor<4x16xf32>
        }, {
          %h = stablehlo.constant dense<0.5> : tensor<4x16xf32>
          %t = stablehlo.multiply %v, %h : tensor<4x16xf32>
          %u = stablehlo.add %t, %x : tensor<4x16xf32>
          stablehlo.return %u : tensor<4x16xf32>
        }) : (tensor<i1>) -> tensor<4x16xf32>
        stablehlo.return %next, %w, %acc : tensor<i32>, tensor<4x16xf32>, tensor<4xf32>
      }
      return %0#1, %0#2 : tensor<4x16xf32>, tensor<4xf32>
    })";
  Expected<CudaPlan> p = plan(text);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  expectSlotsInRegions(*p);
  std::string values = "dense<[";
  for (int i = 0; i < 64; ++i)
    values += std::string(i % 16 ? ", " : i ? "], [" : "[") + std::to_string((i * 37 % 23) - 11) + ".25";
  values += "]]> : tensor<4x16xf32>";
  for (const char* n : {"dense<0> : tensor<i32>", "dense<1> : tensor<i32>", "dense<4> : tensor<i32>"})
    expectHostRunMatchesInterpreter(*p, text, {tensorOf(values), tensorOf(n)});
}

TEST(CudaControlFlowTest, ControlFlowOverTuplesIsRefusedNamingIt) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<f32>, %pred: tensor<i1>) -> tuple<tensor<f32>> {
      %t = stablehlo.tuple %x : tuple<tensor<f32>>
      %0 = "stablehlo.if"(%pred) ({
        stablehlo.return %t : tuple<tensor<f32>>
      }, {
        stablehlo.return %t : tuple<tensor<f32>>
      }) : (tensor<i1>) -> tuple<tensor<f32>>
      return %0 : tuple<tensor<f32>>
    })");
  ASSERT_FALSE(p.isOk());
  EXPECT_NE(p.status().diag().message.find("the cuda back end cannot compile 'stablehlo.if' over a tuple<tensor<f32>>"),
            std::string::npos)
      << p.status().diag().message;
}

// An op that cannot run inside a region fails the plan naming it and where
// it is, counted with the others, never a partial loop.
TEST(CudaControlFlowTest, AnOpThatCannotRunInsideALoopIsNamed) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<100x100xf32>, %n: tensor<i32>) -> tensor<100x100xf32> {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0:2 = stablehlo.while(%i = %zero, %v = %x) : tensor<i32>, tensor<100x100xf32>
      cond {
        %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      } do {
        %one = stablehlo.constant dense<1> : tensor<i32>
        %next = stablehlo.add %i, %one : tensor<i32>
        %f = stablehlo.cholesky %v, lower = true : tensor<100x100xf32>
        stablehlo.return %next, %f : tensor<i32>, tensor<100x100xf32>
      }
      return %0#1 : tensor<100x100xf32>
    })");
  ASSERT_FALSE(p.isOk());
  EXPECT_EQ(p.status().code(), ErrorCode::Unimplemented);
  EXPECT_NE(p.status().diag().message.find("the cuda back end cannot compile 'stablehlo.cholesky' of order 100"), std::string::npos)
      << p.status().diag().message;
  EXPECT_NE(p.status().diag().message.find("gpu_runtime_test.mlir:11"), std::string::npos) << p.status().diag().message;
}

// The conformance corpus's control flow (tests/conformance/control_flow:
// while, if, case; random/jax_random: JAX's threefry in loops), each test planned as `kiln test --backend cuda` plans
// it (no constant folding) and run on the host: its own assertions
// (computed by XLA) must pass.
TEST(CudaControlFlowTest, ConformanceControlFlowPassesOnTheHost) {
  // CMake compiles this file by its absolute path, so __FILE__ locates the repository.
  std::filesystem::path dir = std::filesystem::path(__FILE__).parent_path() / "../conformance";
  int ran = 0;
  for (const char* name : {"control_flow/while.mlir", "control_flow/if.mlir", "control_flow/case.mlir",
                           "random/jax_random.mlir"}) {
    std::ifstream file(dir / name);
    ASSERT_TRUE(file) << (dir / name);
    std::stringstream text;
    text << file.rdbuf();
    for (const SourceChunk& chunk : splitInputFile(text.str())) {
      auto module = parseModule(chunk.text, name);
      ASSERT_TRUE(module.isOk()) << module.status().diag().str();
      for (const Operation* fn : (*module)->definedFunctions()) {
        if (!func::isPublic(*fn) || !func::type(*fn).inputs().empty()) continue;
        std::string test = std::string(name) + ": @" + fn->attr("sym_name").stringValue();
        CudaPlanOptions options;
        options.foldConstants = false;
        Expected<CudaPlan> p = planForCuda(**module, fn->attr("sym_name").stringValue(), options);
        ASSERT_TRUE(p.isOk()) << test << ": " << p.status().diag().str();
        expectSlotsInRegions(*p);
        testing::HostPlanRunner host(*p);
        Expected<std::vector<interp::Tensor>> ran_ = host.run({});
        EXPECT_TRUE(ran_.isOk()) << test << ": " << ran_.status().diag().str();
        ++ran;
      }
    }
  }
  EXPECT_EQ(ran, 5 + 3 + 5 + 20);  // every test of the four files
}

// The JAX corpus's programs with control flow (tests/corpus/jax: lax.cond,
// lax.switch, fori_loop, while_loop, scan and its gradient, with dots in
// their bodies), planned as `kiln run --backend cuda` plans them and run
// on the host on the same arguments as the interpreter: floats agree
// within 1e-5 of the largest magnitude (a dot sums in another order),
// everything else bitwise.
TEST(CudaControlFlowTest, JaxCorpusControlFlowMatchesTheInterpreterOnTheHost) {
  std::filesystem::path dir = std::filesystem::path(__FILE__).parent_path() / "../corpus/jax";
  for (const char* name : {"cond.mlir", "switch.mlir", "fori_power_iteration.mlir", "while_newton_sqrt.mlir",
                           "scan_rnn.mlir", "scan_rnn_grad.mlir", "random_draws.mlir", "dropout.mlir"}) {
    SCOPED_TRACE(name);
    std::ifstream file(dir / name);
    ASSERT_TRUE(file) << (dir / name);
    std::stringstream text;
    text << file.rdbuf();
    auto module = parseModule(text.str(), name);
    ASSERT_TRUE(module.isOk()) << module.status().diag().str();
    CudaPlanOptions options;
    Expected<CudaPlan> p = planForCuda(**module, "main", options);
    ASSERT_TRUE(p.isOk()) << p.status().diag().str();
    expectSlotsInRegions(*p);
    bool hasControlFlow = false;
    for (const CudaStep& step : p->steps)
      hasControlFlow |= std::holds_alternative<WhileStep>(step) || std::holds_alternative<BranchStep>(step);
    EXPECT_TRUE(hasControlFlow);
    // Every matmul, in a body or not, has the one step calling it (the
    // runtime prepares its descriptors from that).
    std::vector<const MatmulCall*> calls = matmulCalls(*p);
    for (size_t m = 0; m < calls.size(); ++m) {
      ASSERT_NE(calls[m], nullptr) << "matmul " << m;
      EXPECT_EQ(calls[m]->matmul, m);
    }
    for (int seed : {1, 2}) {
      // Positive floats (Newton's square root), small integers (a switch index, a trip count).
      std::vector<interp::Tensor> args;
      for (size_t i = 0; i < p->parameterTypes.size(); ++i) {
        Type type = p->parameterTypes[i];
        interp::Tensor t = interp::Tensor::uninitialized(type);
        TypeKind kind = type.elementType().kind();
        for (int64_t e = 0; e < type.numElements(); ++e) {
          uint32_t hash = uint32_t(seed * 7919 + i * 104729 + e * 2654435761u);
          hash ^= hash >> 13;
          if (type.elementType().isFloat())
            testing::storeElement(t.bytes(), kind, e, 0.5 + (hash % 1000) / 1000.0);
          else if (type.elementType().isBool())
            t.bytes()[e] = hash & 1;
          else {  // little-endian: the low byte
            uint8_t* element = t.bytes() + e * type.elementType().storageBytes();
            std::memset(element, 0, type.elementType().storageBytes());
            element[0] = uint8_t(hash % 4);
          }
        }
        args.push_back(std::move(t));
      }
      testing::HostPlanRunner host(*p);
      Expected<std::vector<interp::Tensor>> got = host.run(args);
      ASSERT_TRUE(got.isOk()) << got.status().diag().str();
      EXPECT_GT(host.reads, 0);  // a predicate or index was read back
      Expected<std::vector<interp::Tensor>> want = interp::runFunction(**module, "main", args);
      ASSERT_TRUE(want.isOk()) << want.status().diag().str();
      expectNearInterpreter(*got, *want, p->resultTypes, 1e-5, " (seed " + std::to_string(seed) + ")");
    }
  }
}

TEST(CudaLaunchArgumentsTest, OneDeviceAddressPerParameterFromItsRegion) {
  KernelLaunch launch{0,
                      {{DeviceRegion::Parameters, 64, 4}, {DeviceRegion::Constants, 0, 16}, {DeviceRegion::Arena, 128, 8}}};
  DeviceRegions regions{0x7f0000000000, 0x7f1000000000, 0x7f2000000000};
  std::vector<uint64_t> args = launchArguments(launch, regions);
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0], 0x7f0000000040u);
  EXPECT_EQ(args[1], 0x7f2000000000u);
  EXPECT_EQ(args[2], 0x7f1000000080u);
}

// Where libcuda.so.1 is missing: the back end is listed, says it cannot run
// here, and compile fails with that error (no crash).
TEST(CudaBackendTest, WithoutADriverSaysSoAndNeverCrashes) {
  if (void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(library);
    GTEST_SKIP() << "a CUDA driver is installed: the no-driver path is not reachable here";
  }
  Expected<const backend::Backend*> cuda = backend::findBackend("cuda");
  ASSERT_TRUE(cuda.isOk());
  Status here = (*cuda)->available();
  ASSERT_FALSE(here.isOk());
  EXPECT_EQ(here.diag().message.rfind("the cuda back end cannot run here: no CUDA driver (libcuda.so.1", 0), 0u)
      << here.diag().message;
  auto module = parseModule("func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }", "t");
  ASSERT_TRUE(module.isOk());
  Expected<std::unique_ptr<backend::Program>> program = (*cuda)->compile(**module, "main", {});
  ASSERT_FALSE(program.isOk());
  EXPECT_EQ(program.status().code(), ErrorCode::FailedPrecondition);
  EXPECT_NE(program.status().diag().message.find("no CUDA driver"), std::string::npos);
}

}  // namespace
}  // namespace kiln::gpu
