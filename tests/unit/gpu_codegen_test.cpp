// The cuda back end's code generation without a GPU: the launch cost
// model, what a kernel's PTX must hold, and the ops it must refuse rather
// than compile wrongly. (ptxas on the corpora: scripts/cuda_ptxas_check.py;
// PTX of each kernel shape: tests/lit/gpu.)
#include <cstdlib>

#include <gtest/gtest.h>

#include "kiln/backends/gpu/cuda_compiler.h"
#include "kiln/backends/gpu/launch.h"
#include "kiln/backends/gpu/libdevice.h"
#include "kiln/backends/gpu/ptx.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"

namespace kiln::gpu {
namespace {

// `text` after the cuda pipeline, compiled; a test failure if a step fails.
CudaCompilation compile(const std::string& text) {
  auto module = parseModule(text, "gpu_test.mlir");
  EXPECT_TRUE(module.isOk()) << module.status().diag().str();
  if (!module.isOk()) return {};
  auto pipeline = namedPipeline("cuda");
  Status run = pipeline.isOk() ? pipeline->run(**module) : pipeline.takeStatus();
  EXPECT_TRUE(run.isOk()) << run.message();
  return compileForCuda(**module);
}

TEST(GpuLaunchTest, LoopKernelsFillTheGpuThenStride) {
  LaunchDims small = loopLaunch(10, 4);
  EXPECT_EQ(small.blocks, 1);
  EXPECT_EQ(small.threadsPerBlock, 32);  // never less than a warp
  LaunchDims mid = loopLaunch(1 << 20, 4);
  EXPECT_EQ(mid.blocks, 1024);
  EXPECT_EQ(mid.threadsPerBlock, 256);
  LaunchDims huge = loopLaunch(int64_t(1) << 30, 4);
  EXPECT_EQ(huge.blocks, 132 * 8);
  EXPECT_NE(huge.str().find("grid-stride"), std::string::npos);
}

TEST(GpuLaunchTest, LongRowsTakeABlockEachInWholeWarps) {
  LaunchDims rows = rowLaunch(64, 1000, 2);
  EXPECT_EQ(rows.blocks, 64);
  EXPECT_EQ(rows.threadsPerBlock, 256);
  EXPECT_EQ(rows.sharedBytes, 2 * 32 * 4);
  EXPECT_EQ(rowLaunch(8, 300, 1).threadsPerBlock, 96);  // at least 4 elements a thread
}

TEST(GpuLaunchTest, ShortRowsTakeAWarpEachEightToABlock) {
  LaunchDims rows = rowLaunch(64, 100, 2);
  EXPECT_EQ(rows.blocks, 8);
  EXPECT_EQ(rows.threadsPerBlock, 256);
  EXPECT_EQ(rows.sharedBytes, 0);  // shuffles alone
  LaunchDims few = rowLaunch(3, 10, 1);
  EXPECT_EQ(few.blocks, 1);
  EXPECT_EQ(few.threadsPerBlock, 96);
}

TEST(GpuCodegenTest, ElementwiseFusionIsOneKernelWithPtxForEachArch) {
  CudaCompilation c = compile(R"(
    func.func @main(%x: tensor<256xf32>) -> tensor<256xf32> {
      %0 = stablehlo.logistic %x : tensor<256xf32>
      %1 = stablehlo.multiply %0, %x : tensor<256xf32>
      return %1 : tensor<256xf32>
    })");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_TRUE(c.unsupported.empty());
  const CudaKernel& kernel = c.kernels[0];
  EXPECT_EQ(kernel.name, "k0_loop");
  ASSERT_EQ(kernel.ptx.size(), std::size(kCudaArchs));
  for (size_t i = 0; i < kernel.ptx.size(); ++i) {
    EXPECT_EQ(kernel.ptx[i].first, kCudaArchs[i]);
    EXPECT_NE(kernel.ptx[i].second.find(".target " + std::string(kCudaArchs[i])), std::string::npos);
    EXPECT_NE(kernel.ptx[i].second.find(".visible .entry k0_loop("), std::string::npos);
    EXPECT_EQ(kernel.ptx[i].second.find("call"), std::string::npos) << "a device kernel calls nothing";
  }
}

// KILN_LIBDEVICE set to `path` for one scope (the lookup reads it each time).
class LibdeviceOverride {
 public:
  explicit LibdeviceOverride(const char* path) { setenv("KILN_LIBDEVICE", path, 1); }
  ~LibdeviceOverride() { unsetenv("KILN_LIBDEVICE"); }
};

// Math the GPU has no approximation of (f64, trigonometry, pow, atan2, cbrt,
// erf, erf_inv) and float remainder (C's exact fmod, not NVPTX's frem) call
// libdevice, linked and inlined: the PTX declares nothing external (its
// only calls are of libdevice's own out-of-line slow paths, defined in the
// same PTX, as sin's reduction of huge arguments).
TEST(GpuCodegenTest, MathWithoutADeviceApproximationLinksLibdevice) {
  if (!findLibdevice()) GTEST_SKIP() << "no libdevice here: " << findLibdevice().status().message();
  CudaCompilation c = compile(R"(
    func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>, %d: tensor<64xf64>, %e: tensor<64xf64>)
        -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf64>, tensor<64xf64>, tensor<64xf32>) {
      %0 = stablehlo.sine %x : tensor<64xf32>
      %1 = stablehlo.atan2 %0, %y : tensor<64xf32>
      %2 = stablehlo.remainder %1, %y : tensor<64xf32>
      %3 = stablehlo.exponential %d : tensor<64xf64>
      %4 = stablehlo.power %3, %e : tensor<64xf64>
      %5 = stablehlo.remainder %4, %e : tensor<64xf64>
      %6 = stablehlo.cbrt %x : tensor<64xf32>
      %7 = chlo.erf %6 : tensor<64xf32> -> tensor<64xf32>
      %8 = chlo.erf_inv %7 : tensor<64xf32> -> tensor<64xf32>
      return %2, %0, %5, %3, %8 : tensor<64xf32>, tensor<64xf32>, tensor<64xf64>, tensor<64xf64>, tensor<64xf32>
    })");
  EXPECT_TRUE(c.unsupported.empty()) << c.unsupported[0];
  ASSERT_FALSE(c.kernels.empty());
  for (const CudaKernel& kernel : c.kernels) {
    EXPECT_NE(kernel.llvmIr.find("@__nv_"), std::string::npos) << kernel.name << " calls libdevice as emitted";
    for (const auto& [arch, ptx] : kernel.ptx) {
      EXPECT_EQ(ptx.find(".extern"), std::string::npos) << kernel.name << " for " << arch << " calls outside itself";
      EXPECT_EQ(ptx.find("__nv"), std::string::npos) << kernel.name << " for " << arch;
      EXPECT_NE(ptx.find(".visible .entry " + kernel.name + "("), std::string::npos);
    }
  }
}

// Without libdevice the same ops are a located refusal naming the function
// and where kiln looked, never a kernel with a dangling call.
TEST(GpuCodegenTest, WithoutLibdeviceItsMathIsRefused) {
  LibdeviceOverride missing("/nonexistent/libdevice.10.bc");
  CudaCompilation c = compile(R"(
    func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
      %0 = stablehlo.remainder %x, %y : tensor<8xf32>
      return %0 : tensor<8xf32>
    })");
  EXPECT_TRUE(c.kernels.empty());
  ASSERT_EQ(c.unsupported.size(), 1u);
  EXPECT_NE(c.unsupported[0].find("the cuda back end cannot compile 'stablehlo.remainder' calling libdevice's "
                                  "__nv_fmodf: no libdevice at KILN_LIBDEVICE=/nonexistent/libdevice.10.bc"),
            std::string::npos)
      << c.unsupported[0];
  EXPECT_NE(c.unsupported[0].find("gpu_test.mlir:"), std::string::npos) << c.unsupported[0];
}

// Complex square root is C's csqrt, which libdevice lacks: refused.
TEST(GpuCodegenTest, ComplexSqrtIsRefusedNamingTheFunction) {
  CudaCompilation c = compile(R"(
    func.func @main(%x: tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>> {
      %0 = stablehlo.sqrt %x : tensor<8xcomplex<f32>>
      return %0 : tensor<8xcomplex<f32>>
    })");
  EXPECT_TRUE(c.kernels.empty());
  ASSERT_EQ(c.unsupported.size(), 1u);
  EXPECT_NE(c.unsupported[0].find("calling the C library's csqrtf (libdevice has no such function)"), std::string::npos)
      << c.unsupported[0];
}

TEST(GpuCodegenTest, IntegerRowSumIsABlockReduction) {
  CudaCompilation c = compile(R"(
    func.func @main(%x: tensor<16x300xi32>) -> tensor<16xi32> {
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x300xi32>, tensor<i32>) -> tensor<16xi32>
      return %0 : tensor<16xi32>
    })");
  ASSERT_EQ(c.kernels.size(), 1u);
  EXPECT_EQ(c.kernels[0].shape, KernelShape::RowReduce);
  EXPECT_EQ(c.kernels[0].launch.blocks, 16);
  EXPECT_NE(c.kernels[0].ptx[0].second.find("shfl.sync.bfly.b32"), std::string::npos);
  EXPECT_NE(c.kernels[0].ptx[0].second.find("add.s32"), std::string::npos);
}

}  // namespace
}  // namespace kiln::gpu
