// The optimized program reported to jaxlib (kiln/pjrt/optimized_program.h):
// kiln's kernels outlined into private functions, no kiln op left, and the
// same results as the program it came from (both run by the interpreter).
#include "kiln/pjrt/optimized_program.h"

#include <gtest/gtest.h>

#include <string>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"

namespace kiln {
namespace {

// Dot, elementwise ops and a reduction inside a loop: output and loop
// kernels, one nested in the while body.
constexpr const char* kProgram = R"(
func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<f32>) {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %1 = stablehlo.tanh %0 : tensor<8x4xf32>
  %2 = stablehlo.exponential %1 : tensor<8x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %i0, %acc = %2) : tensor<i32>, tensor<8x4xf32>
  cond {
    %three = stablehlo.constant dense<3> : tensor<i32>
    %c = stablehlo.compare LT, %i, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %s = stablehlo.sine %acc : tensor<8x4xf32>
    %t = stablehlo.multiply %s, %acc : tensor<8x4xf32>
    stablehlo.return %n, %t : tensor<i32>, tensor<8x4xf32>
  }
  %sum = stablehlo.reduce(%r#1 init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
  return %r#1, %sum : tensor<8x4xf32>, tensor<f32>
}
)";

interp::Tensor ramp(Type type, double scale) {
  interp::Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) t.setFloat(i, scale * static_cast<double>(i % 7) - 0.3);
  return t;
}

TEST(PjrtOptimizedProgram, KernelsBecomeCalledFunctionsWithTheSameResults) {
  auto module = parseModule(kProgram, "<test>");
  ASSERT_TRUE(module) << module.status().message();
  auto cpu = namedPipeline("cpu");
  ASSERT_TRUE(cpu) << cpu.status().message();
  ASSERT_TRUE(cpu->run(**module).isOk());
  std::string optimized = printModule(**module);
  ASSERT_NE(optimized.find("kiln.fusion"), std::string::npos) << "the pipeline made no kernel:\n" << optimized;

  auto forJax = pjrt::optimizedProgramForJax(optimized);
  ASSERT_TRUE(forJax) << forJax.status().message();
  EXPECT_EQ(forJax->find("kiln."), std::string::npos) << *forJax;
  EXPECT_NE(forJax->find("func.func private @output_fusion_0"), std::string::npos) << *forJax;
  EXPECT_NE(forJax->find("call @output_fusion_0("), std::string::npos) << *forJax;

  auto original = parseModule(kProgram, "<test>");
  auto outlined = parseModule(*forJax, "<for jax>");
  ASSERT_TRUE(original && outlined) << *forJax;
  std::vector<interp::Tensor> args = {ramp(Type::tensor({8, 16}, Type::f32()), 0.05),
                                      ramp(Type::tensor({16, 4}, Type::f32()), -0.04)};
  auto want = interp::runFunction(**original, "main", args);
  auto got = interp::runFunction(**outlined, "main", args);
  ASSERT_TRUE(want && got) << (got ? want.status().message() : got.status().message());
  ASSERT_EQ(got->size(), want->size());
  for (size_t r = 0; r < want->size(); ++r)
    for (int64_t i = 0; i < (*want)[r].numElements(); ++i)
      EXPECT_NEAR((*got)[r].getFloat(i), (*want)[r].getFloat(i), 1e-5) << "result " << r << " element " << i;
}

TEST(PjrtOptimizedProgram, UnreadableTextIsAnError) {
  auto forJax = pjrt::optimizedProgramForJax("func.func @main( {");
  ASSERT_FALSE(forJax);
}

}  // namespace
}  // namespace kiln
