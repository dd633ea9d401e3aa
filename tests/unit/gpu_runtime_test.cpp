// The cuda runtime's parts that need no GPU: the architecture a device gets,
// the plan of a program (its steps, the launches codegen chose, the device
// regions sized from buffer assignment, constants), the argument packing of
// a launch, and the errors where no driver is installed. (Runs on a GPU:
// gpu_device_test.)
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>

#include "kiln/backends/backend.h"
#include "kiln/backends/gpu/cuda_plan.h"
#include "kiln/backends/gpu/launch.h"
#include "kiln/parse/parser.h"

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
  for (const CudaStep& step : p.steps) {
    if (const auto* launch = std::get_if<KernelLaunch>(&step))
      for (const DeviceSlot& s : launch->args) check(s);
    if (const auto* call = std::get_if<MatmulCall>(&step))
      for (const DeviceSlot& s : {call->a, call->b, call->d}) check(s);
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
  ASSERT_FALSE(integer.isOk());
  EXPECT_EQ(integer.status().code(), ErrorCode::Unimplemented);
  const std::string& message = integer.status().diag().message;
  EXPECT_NE(message.find("the cuda back end cannot compile 'stablehlo.dot_general'"), std::string::npos) << message;
  EXPECT_NE(message.find("cuBLASLt takes f32, f64, f16 and bf16"), std::string::npos) << message;
  EXPECT_NE(message.find("gpu_runtime_test.mlir:3"), std::string::npos) << message;  // located
}

TEST(CudaPlanTest, EveryUnsupportedOpIsCounted) {
  Expected<CudaPlan> p = plan(R"(
    func.func @main(%x: tensor<8xcomplex<f32>>, %a: tensor<8x8xi32>) -> (tensor<8xcomplex<f32>>, tensor<8x8xi32>) {
      %0 = stablehlo.fft %x, type = FFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
      %1 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
      return %0, %1 : tensor<8xcomplex<f32>>, tensor<8x8xi32>
    })");
  ASSERT_FALSE(p.isOk());
  EXPECT_NE(p.status().diag().message.find("(and 1 more ops the cuda back end cannot compile yet)"),
            std::string::npos)
      << p.status().diag().message;
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
