// The optimized program reported to jaxlib (kiln/pjrt/optimized_program.h):
// kiln's kernels outlined into private functions, no kiln op left, and the
// same results as the program it came from (both run by the interpreter).
#include "kiln/pjrt/optimized_program.h"
#include "kiln/pjrt/output_shardings.h"

#include <gtest/gtest.h>

#include <string>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/sharding.h"
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

// Shardy shardings over a 2x2 mesh as HLO states them: tiles in row-major
// order, each naming the device (mesh position, or listed id) that holds it.
TEST(PjrtOutputShardings, ShardyShardingsAsHlo) {
  auto mesh = sharding::parseMesh(R"(#sdy.mesh<["x"=2, "y"=2]>)");
  ASSERT_TRUE(mesh) << mesh.status().message();
  // The sharding kiln makes, and the one `expected` (HLO's text) reads as.
  auto same = [&](const char* sharding, int64_t rank, const sharding::Mesh& m, const char* expected) {
    auto parsed = sharding::parseSharding(sharding);
    EXPECT_TRUE(parsed) << parsed.status().message();
    auto made = pjrt::hloSharding(*parsed, m, rank);
    auto want = gspmd::parseHloSharding(expected);
    EXPECT_TRUE(made && want) << (made ? want.status().message() : made.status().message());
    if (!made || !want) return;
    EXPECT_EQ(made->kind, want->kind) << sharding;
    EXPECT_EQ(made->tileDims, want->tileDims) << sharding;
    EXPECT_EQ(made->devices, want->devices) << sharding;
    EXPECT_EQ(made->lastTileDimReplicate, want->lastTileDimReplicate) << sharding;
  };
  same(R"(#sdy.sharding<@mesh, [{}, {}]>)", 2, *mesh, "{replicated}");
  same(R"(#sdy.sharding<@mesh, [{"x"}, {"y"}]>)", 2, *mesh, "{devices=[2,2]0,1,2,3}");
  same(R"(#sdy.sharding<@mesh, [{"y"}, {"x"}]>)", 2, *mesh, "{devices=[2,2]0,2,1,3}");
  // Split over "y" only: the blocks are replicated over "x", the last tile dimension.
  same(R"(#sdy.sharding<@mesh, [{"y"}, {}]>)", 2, *mesh, "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
  same(R"(#sdy.sharding<@mesh, [{"x", "y"}]>)", 1, *mesh, "{devices=[4]0,1,2,3}");
  sharding::Mesh listed = *mesh;
  listed.deviceIds = {3, 2, 1, 0};
  same(R"(#sdy.sharding<@mesh, [{"x"}, {"y"}]>)", 2, listed, "{devices=[2,2]3,2,1,0}");
  auto unknownAxis = pjrt::hloSharding(*sharding::parseSharding(R"(#sdy.sharding<@mesh, [{"z"}, {}]>)"), *mesh, 2);
  ASSERT_FALSE(unknownAxis);
  EXPECT_EQ(unknownAxis.status().message(), "error: the mesh has no axis 'z'");
}

// As the shardings extension hands them to jaxlib: serialized
// xla.OpShardings, byte for byte what jaxlib's own xla_client.OpSharding
// serializes for them (type OTHER, packed tile dimensions and devices,
// replicate_on_last_tile_dim).
TEST(PjrtOutputShardings, OpShardingProto) {
  auto tiled = gspmd::parseHloSharding("{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");
  ASSERT_TRUE(tiled) << tiled.status().message();
  EXPECT_EQ(pjrt::opShardingProto(*tiled),
            std::string("\x08\x03\x1a\x03\x02\x01\x02\x22\x04\x00\x02\x01\x03\x30\x01", 15));
  EXPECT_EQ(pjrt::opShardingProto(gspmd::HloSharding()), "");  // REPLICATED: every field at its default
}

// memory_analysis()'s temp_size_in_bytes: the arena of the buffer assignment.
TEST(PjrtOptimizedProgram, TemporaryBytesAreTheArena) {
  auto module = parseModule(kProgram, "<test>");
  ASSERT_TRUE(module) << module.status().message();
  auto cpu = namedPipeline("cpu");
  ASSERT_TRUE(cpu->run(**module).isOk());
  auto bytes = pjrt::temporaryBytes(printModule(**module));
  ASSERT_TRUE(bytes) << bytes.status().message();
  // The while loop's carried 8x4 f32 value and its body's scratch live in the arena.
  EXPECT_GE(*bytes, 8 * 4 * 4);
  auto identity = pjrt::temporaryBytes("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> { return %a : tensor<4xf32> }");
  ASSERT_TRUE(identity) << identity.status().message();
  EXPECT_EQ(*identity, 0);
}

TEST(PjrtOptimizedProgram, UnreadableTextIsAnError) {
  auto forJax = pjrt::optimizedProgramForJax("func.func @main( {");
  ASSERT_FALSE(forJax);
}

}  // namespace
}  // namespace kiln
