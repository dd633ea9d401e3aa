// Dots as cuBLASLt matmuls, without a GPU: each plan (matmul_plan.h) is
// evaluated on the host the way cuBLASLt defines its call -- column-major
// matrices of the planned rows, columns and leading dimensions, op(A) op(B),
// alpha, the bias and relu epilogues, strided batches -- reading and
// writing the slots of the program's plan (cuda_plan.h), and compared with
// the interpreter. That checks kiln's side of the call (which operand is A,
// the transposes, the strides, the slots) against cuBLASLt's documented
// semantics; that cuBLASLt computes them is gpu_device_test's on a GPU.
// Where cuBLASLt is installed, its descriptors are made from the plans and
// read back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kiln/backends/gpu/cublaslt.h"
#include "kiln/backends/gpu/cuda_plan.h"
#include "kiln/interp/interpreter.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/float_formats.h"
#include "kiln/parse/parser.h"
#include "tests/unit/gpu_host_plan.h"

namespace kiln::gpu {
namespace {

using testing::matmulAsCublasLtDefinesIt;
double load(const uint8_t* base, TypeKind type, int64_t index) { return testing::loadElement(base, type, index); }
void store(uint8_t* base, TypeKind type, int64_t index, double v) { testing::storeElement(base, type, index, v); }

Expected<CudaPlan> planOf(const Module& module) {
  CudaPlanOptions options;
  options.arch = "sm_90";
  return planForCuda(module, "main", options);
}

// Runs `text`'s plan on the host (every step a matmul, evaluated as above,
// in host copies of the three regions) and the interpreter on the same
// random arguments; their results must agree within `tolerance`, relative
// to the largest magnitude. Returns the plan for further checks.
CudaPlan expectPlanMatchesInterpreter(const std::string& text, double tolerance = 1e-5) {
  auto module = parseModule(text, "gpu_matmul_test.mlir");
  EXPECT_TRUE(module.isOk()) << module.status().diag().str();
  if (!module.isOk()) return {};
  Expected<CudaPlan> plan = planOf(**module);
  EXPECT_TRUE(plan.isOk()) << plan.status().diag().str();
  if (!plan.isOk()) return {};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<interp::Tensor> args;
  std::vector<uint8_t> parameters(plan->parameterBytes), arena(plan->arenaBytes), constants = plan->constants;
  for (size_t i = 0; i < plan->parameterTypes.size(); ++i) {
    interp::Tensor t = interp::Tensor::uninitialized(plan->parameterTypes[i]);
    TypeKind kind = plan->parameterTypes[i].elementType().kind();
    for (int64_t e = 0; e < plan->parameterTypes[i].numElements(); ++e) store(t.bytes(), kind, e, uniform(rng));
    if (plan->parameters[i].bytes) std::memcpy(parameters.data() + plan->parameters[i].offset, t.bytes(), plan->parameters[i].bytes);
    args.push_back(std::move(t));
  }
  auto at = [&](const DeviceSlot& slot) -> uint8_t* {
    std::vector<uint8_t>& region = slot.region == DeviceRegion::Parameters ? parameters
                                   : slot.region == DeviceRegion::Arena    ? arena
                                                                           : constants;
    EXPECT_LE(slot.offset + slot.bytes, int64_t(region.size()));
    EXPECT_EQ(slot.offset % kSlotAlignment, 0);
    return region.data() + slot.offset;
  };
  for (const CudaStep& step : plan->steps) {
    const auto* call = std::get_if<MatmulCall>(&step);
    EXPECT_NE(call, nullptr) << "a step other than a matmul";
    if (!call) return std::move(*plan);
    matmulAsCublasLtDefinesIt(plan->matmuls[call->matmul].plan, at(call->a), at(call->b),
                              call->bias ? at(*call->bias) : nullptr, at(call->d));
  }
  Expected<std::vector<interp::Tensor>> expected = interp::runFunction(**module, "main", std::move(args));
  EXPECT_TRUE(expected.isOk()) << expected.status().diag().str();
  if (!expected.isOk()) return std::move(*plan);
  for (size_t r = 0; r < plan->results.size(); ++r) {
    TypeKind kind = plan->resultTypes[r].elementType().kind();
    int64_t count = plan->resultTypes[r].numElements();
    double scale = 1e-30, worst = 0;
    for (int64_t e = 0; e < count; ++e) scale = std::max(scale, std::fabs(load((*expected)[r].bytes(), kind, e)));
    for (int64_t e = 0; e < count; ++e)
      worst = std::max(worst, std::fabs(load(at(plan->results[r]), kind, e) - load((*expected)[r].bytes(), kind, e)));
    EXPECT_LE(worst / scale, tolerance) << "result " << r;
  }
  return std::move(*plan);
}

TEST(CudaMatmulPlanTest, PlainDotIsOneCallWithTheOperandsSwapped) {
  CudaPlan p = expectPlanMatchesInterpreter(R"(
    func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
      return %0 : tensor<8x4xf32>
    })");
  ASSERT_EQ(p.matmuls.size(), 1u);
  ASSERT_EQ(p.steps.size(), 1u);
  const MatmulPlan& m = p.matmuls[0].plan;
  EXPECT_EQ(m.m, 8);
  EXPECT_EQ(m.n, 4);
  EXPECT_EQ(m.k, 16);
  EXPECT_FALSE(m.transA);
  EXPECT_FALSE(m.transB);
  // A is %b, column-major 4 x 16 (ld 4); B is %a, 16 x 8 (ld 16); D 4 x 8.
  EXPECT_EQ(m.a.rows, 4);
  EXPECT_EQ(m.a.ld, 4);
  EXPECT_EQ(m.b.rows, 16);
  EXPECT_EQ(m.b.ld, 16);
  EXPECT_EQ(m.d.rows, 4);
  EXPECT_EQ(m.d.cols, 8);
  const MatmulCall& call = std::get<MatmulCall>(p.steps[0]);
  EXPECT_EQ(call.a, p.parameters[1]);
  EXPECT_EQ(call.b, p.parameters[0]);
  EXPECT_EQ(call.d, p.results[0]);
  EXPECT_EQ(p.matmuls[0].plan.str(), "f32 [1 x 8x4x16], epilogue none");
  EXPECT_TRUE(p.kernels.empty());
}

TEST(CudaMatmulPlanTest, TransposedOperandsAreReadInPlace) {
  // lhs [k, m] and rhs [n, k]: both transposed in cuBLASLt's terms.
  CudaPlan p = expectPlanMatchesInterpreter(R"(
    func.func @main(%a: tensor<16x8xf32>, %b: tensor<5x16xf32>) -> tensor<8x5xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [1] : (tensor<16x8xf32>, tensor<5x16xf32>) -> tensor<8x5xf32>
      return %0 : tensor<8x5xf32>
    })");
  ASSERT_EQ(p.matmuls.size(), 1u);
  EXPECT_TRUE(p.matmuls[0].plan.transA);
  EXPECT_TRUE(p.matmuls[0].plan.transB);
  for (const char* contracting : {"[1] x [1]", "[0] x [0]"}) {
    std::string lhs = contracting[1] == '1' ? "8x16" : "16x8", rhs = contracting[1] == '1' ? "5x16" : "16x5";
    expectPlanMatchesInterpreter("func.func @main(%a: tensor<" + lhs + "xf32>, %b: tensor<" + rhs +
                                 "xf32>) -> tensor<8x5xf32> {\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = " +
                                 contracting + " : (tensor<" + lhs + "xf32>, tensor<" + rhs +
                                 "xf32>) -> tensor<8x5xf32>\n  return %0 : tensor<8x5xf32>\n}");
  }
}

TEST(CudaMatmulPlanTest, BatchedDotsWithSeveralFreeAndContractingDimsAreStridedBatches) {
  CudaPlan p = expectPlanMatchesInterpreter(R"(
    func.func @main(%a: tensor<3x2x4x3x5xf32>, %b: tensor<3x2x3x5x6xf32>) -> tensor<3x2x4x6xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0, 1] x [0, 1], contracting_dims = [3, 4] x [2, 3]
          : (tensor<3x2x4x3x5xf32>, tensor<3x2x3x5x6xf32>) -> tensor<3x2x4x6xf32>
      return %0 : tensor<3x2x4x6xf32>
    })");
  ASSERT_EQ(p.matmuls.size(), 1u);
  const MatmulPlan& m = p.matmuls[0].plan;
  EXPECT_EQ(m.batch, 6);
  EXPECT_EQ(m.k, 15);
  EXPECT_EQ(m.a.batchStride, 15 * 6);
  EXPECT_EQ(m.b.batchStride, 4 * 15);
  EXPECT_EQ(m.d.batchStride, 4 * 6);
}

TEST(CudaMatmulPlanTest, F64AndNarrowFloatDotsKeepTheirTypes) {
  CudaPlan f64 = expectPlanMatchesInterpreter(R"(
    func.func @main(%a: tensor<8x16xf64>, %b: tensor<16x4xf64>) -> tensor<8x4xf64> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf64>, tensor<16x4xf64>) -> tensor<8x4xf64>
      return %0 : tensor<8x4xf64>
    })", 1e-12);
  ASSERT_EQ(f64.matmuls.size(), 1u);
  EXPECT_EQ(f64.matmuls[0].plan.computeType, TypeKind::F64);
  // bf16 operands summed into f32 (JAX's preferred_element_type).
  CudaPlan mixed = expectPlanMatchesInterpreter(R"(
    func.func @main(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>) -> tensor<8x4xf32> {
      %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xf32>
      return %0 : tensor<8x4xf32>
    })");
  ASSERT_EQ(mixed.matmuls.size(), 1u);
  EXPECT_EQ(mixed.matmuls[0].plan.a.type, TypeKind::BF16);
  EXPECT_EQ(mixed.matmuls[0].plan.d.type, TypeKind::F32);
  EXPECT_EQ(mixed.matmuls[0].plan.computeType, TypeKind::F32);
}

TEST(CudaMatmulPlanTest, OutputFusionsScaleBiasAndReluBecomeTheEpilogue) {
  CudaPlan p = expectPlanMatchesInterpreter(R"(
    func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<8x32xf32> {
      %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      %s = stablehlo.constant dense<0.5> : tensor<8x32xf32>
      %1 = stablehlo.multiply %0, %s : tensor<8x32xf32>
      %2 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
      %3 = stablehlo.add %1, %2 : tensor<8x32xf32>
      %z = stablehlo.constant dense<0.0> : tensor<8x32xf32>
      %4 = stablehlo.maximum %3, %z : tensor<8x32xf32>
      return %4 : tensor<8x32xf32>
    })");
  ASSERT_EQ(p.matmuls.size(), 1u);
  ASSERT_EQ(p.steps.size(), 1u) << "the epilogue is the call's, not a kernel of its own";
  const MatmulPlan& m = p.matmuls[0].plan;
  EXPECT_EQ(m.epilogue, MatmulEpilogue::ReluBias);
  EXPECT_EQ(m.alpha, 0.5);
  const MatmulCall& call = std::get<MatmulCall>(p.steps[0]);
  ASSERT_TRUE(call.bias.has_value());
  EXPECT_EQ(*call.bias, p.parameters[2]);
  EXPECT_NE(p.matmuls[0].source.find("kiln.fusion"), std::string::npos);
  // Bias alone, relu alone.
  EXPECT_EQ(expectPlanMatchesInterpreter(R"(
    func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<8x32xf32> {
      %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
      %2 = stablehlo.add %0, %1 : tensor<8x32xf32>
      return %2 : tensor<8x32xf32>
    })").matmuls.at(0).plan.epilogue, MatmulEpilogue::Bias);
  EXPECT_EQ(expectPlanMatchesInterpreter(R"(
    func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
      %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      %z = stablehlo.constant dense<0.0> : tensor<8x32xf32>
      %1 = stablehlo.maximum %0, %z : tensor<8x32xf32>
      return %1 : tensor<8x32xf32>
    })").matmuls.at(0).plan.epilogue, MatmulEpilogue::Relu);
}

std::string planError(const std::string& text) {
  auto module = parseModule(text, "gpu_matmul_test.mlir");
  if (!module.isOk()) return "parse: " + module.status().diag().str();
  Expected<CudaPlan> plan = planOf(**module);
  return plan.isOk() ? "planned" : plan.status().diag().message;
}

// compileMatmul's refusal of what cuBLASLt cannot do, located.
std::string matmulError(const std::string& text) {
  auto module = parseModule(text, "gpu_matmul_test.mlir");
  if (!module.isOk()) return "parse: " + module.status().diag().str();
  for (const Operation& op : func::body(*(*module)->lookupFunction("main")))
    if (isMatmulOp(op)) {
      Expected<CudaMatmul> matmul = compileMatmul(op);
      return matmul.isOk() ? "planned" : matmul.status().diag().message;
    }
  return "no dot";
}

// What cuBLASLt cannot do is a located refusal of the matmul; the program
// still plans, the dot being a contraction kernel (contraction.h).
TEST(CudaMatmulPlanTest, WhatCublasLtCannotDoIsALocatedRefusal) {
  EXPECT_EQ(planError(R"(
    func.func @main(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
      %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
      return %0 : tensor<8x8xi32>
    })"), "planned");
  std::string integer = matmulError(R"(
    func.func @main(%a: tensor<8x8xi32>) -> tensor<8x8xi32> {
      %0 = stablehlo.dot_general %a, %a, contracting_dims = [1] x [0] : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
      return %0 : tensor<8x8xi32>
    })");
  EXPECT_NE(integer.find("cannot compile 'stablehlo.dot_general' on tensor<8x8xi32> x tensor<8x8xi32>"), std::string::npos)
      << integer;
  EXPECT_NE(integer.find("gpu_matmul_test.mlir:3"), std::string::npos) << integer;
  std::string batchLast = matmulError(R"(
    func.func @main(%a: tensor<4x8x3xf32>, %b: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [2] x [0], contracting_dims = [1] x [1] : (tensor<4x8x3xf32>, tensor<3x8x5xf32>) -> tensor<3x4x5xf32>
      return %0 : tensor<3x4x5xf32>
    })");
  EXPECT_NE(batchLast.find("batch dims do not lead"), std::string::npos) << batchLast;
}

// An epilogue going on past cuBLASLt's (tanh after the bias; a gelu, which
// reads the product several times) runs as a kernel after the call: the
// call writes to scratch after the arena, the kernel reads it there.
TEST(CudaMatmulPlanTest, EpiloguesBeyondCublasLtsRunAsAKernelAfterTheCall) {
  auto module = parseModule(R"(
    func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %bias: tensor<32xf32>, %v: tensor<16x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>) {
      %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      %1 = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<32xf32>) -> tensor<8x32xf32>
      %2 = stablehlo.add %0, %1 : tensor<8x32xf32>
      %3 = stablehlo.tanh %2 : tensor<8x32xf32>
      %4 = stablehlo.dot_general %x, %v, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      %5 = stablehlo.multiply %4, %4 : tensor<8x32xf32>
      %6 = stablehlo.add %5, %4 : tensor<8x32xf32>
      return %3, %6 : tensor<8x32xf32>, tensor<8x32xf32>
    })", "gpu_matmul_test.mlir");
  ASSERT_TRUE(module.isOk());
  Expected<CudaPlan> p = planOf(**module);
  ASSERT_TRUE(p.isOk()) << p.status().diag().message;
  ASSERT_EQ(p->matmuls.size(), 2u);
  ASSERT_EQ(p->kernels.size(), 2u);
  ASSERT_EQ(p->steps.size(), 4u);
  int64_t arenaEnd = 0;
  for (size_t i = 0; i < 2; ++i) {
    const MatmulCall& call = std::get<MatmulCall>(p->steps[2 * i]);
    const KernelLaunch& rest = std::get<KernelLaunch>(p->steps[2 * i + 1]);
    const CudaMatmul& matmul = p->matmuls[call.matmul];
    EXPECT_TRUE(matmul.plan.epilogueKernel);
    EXPECT_EQ(matmul.epilogueKernel, p->kernels[rest.kernel].name);
    EXPECT_EQ(rest.args.front(), call.d);
    EXPECT_EQ(call.d.region, DeviceRegion::Arena);
    EXPECT_GE(call.d.offset, arenaEnd) << "each product has scratch of its own";
    arenaEnd = call.d.offset + call.d.bytes;
    EXPECT_EQ(rest.args.back(), p->results[i]);
    EXPECT_FALSE(p->kernels[rest.kernel].ptx.empty());
  }
  EXPECT_LE(arenaEnd, p->arenaBytes);
  EXPECT_EQ(p->matmuls[0].plan.epilogue, MatmulEpilogue::Bias);  // the add is cuBLASLt's, tanh the kernel's
  EXPECT_EQ(p->matmuls[1].plan.epilogue, MatmulEpilogue::None);  // the product is read twice
}

// The descriptors made from a plan say what the plan says, read back from
// cuBLASLt itself (making them needs no GPU).
TEST(CudaMatmulDescriptorsTest, CublasLtHoldsThePlannedLayouts) {
  Expected<const CublasLt*> lt = cublasLt();
  if (!lt) GTEST_SKIP() << lt.status().diag().message;
  CudaPlan p = expectPlanMatchesInterpreter(R"(
    func.func @main(%a: tensor<2x16x8xf32>, %b: tensor<2x5x16xf32>, %bias: tensor<5xf32>) -> tensor<2x8x5xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [1] x [2] : (tensor<2x16x8xf32>, tensor<2x5x16xf32>) -> tensor<2x8x5xf32>
      %1 = stablehlo.broadcast_in_dim %bias, dims = [2] : (tensor<5xf32>) -> tensor<2x8x5xf32>
      %2 = stablehlo.add %0, %1 : tensor<2x8x5xf32>
      return %2 : tensor<2x8x5xf32>
    })");
  ASSERT_EQ(p.matmuls.size(), 1u);
  const MatmulPlan& plan = p.matmuls[0].plan;
  Expected<std::unique_ptr<MatmulDescriptors>> made = MatmulDescriptors::make(**lt, plan);
  ASSERT_TRUE(made.isOk()) << made.status().diag().message;
  auto layoutAttr = [&](CublasLtMatrixLayout layout, int attribute, size_t bytes) {
    int64_t value = 0;
    size_t written = 0;
    EXPECT_EQ((*lt)->matrixLayoutGetAttribute(layout, attribute, &value, bytes, &written), cublaslt::kSuccess);
    EXPECT_EQ(written, bytes);
    return bytes == 4 ? int64_t(int32_t(value)) : value;
  };
  auto descAttr = [&](int attribute) {
    int32_t value = 0;
    size_t written = 0;
    EXPECT_EQ((*lt)->matmulDescGetAttribute((*made)->desc, attribute, &value, sizeof(value), &written),
              cublaslt::kSuccess);
    return value;
  };
  constexpr int kType = 0, kRows = 2, kCols = 3, kLd = 4;  // cublasLtMatrixLayoutAttribute_t
  const std::pair<CublasLtMatrixLayout, const MatmulLayout*> layouts[] = {
      {(*made)->a, &plan.a}, {(*made)->b, &plan.b}, {(*made)->d, &plan.d}};
  for (const auto& [layout, planned] : layouts) {
    EXPECT_EQ(layoutAttr(layout, kType, 4), cublaslt::kR32F);
    EXPECT_EQ(layoutAttr(layout, kRows, 8), planned->rows);
    EXPECT_EQ(layoutAttr(layout, kCols, 8), planned->cols);
    EXPECT_EQ(layoutAttr(layout, kLd, 8), planned->ld);
    EXPECT_EQ(layoutAttr(layout, cublaslt::kLayoutBatchCount, 4), 2);
    EXPECT_EQ(layoutAttr(layout, cublaslt::kLayoutStridedBatchOffset, 8), planned->batchStride);
  }
  EXPECT_EQ(descAttr(cublaslt::kDescTransA), plan.transA ? cublaslt::kOpT : cublaslt::kOpN);
  EXPECT_EQ(descAttr(cublaslt::kDescTransB), cublaslt::kOpT);
  EXPECT_EQ(descAttr(cublaslt::kDescEpilogue), cublaslt::kEpilogueBias);
  EXPECT_EQ(descAttr(cublaslt::kDescBiasDataType), cublaslt::kR32F);
  ASSERT_TRUE((*made)->setBias(0x7f0000000040).isOk());
  const void* bias = nullptr;
  size_t written = 0;
  EXPECT_EQ((*lt)->matmulDescGetAttribute((*made)->desc, cublaslt::kDescBiasPointer, &bias, sizeof(bias), &written),
            cublaslt::kSuccess);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bias), 0x7f0000000040u);
}

}  // namespace
}  // namespace kiln::gpu
