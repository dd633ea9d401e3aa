// The import_gspmd_shardings pass run directly (tests/lit/passes has its
// FileCheck tests): JAX's GSPMD form of a sharded matmul and of a shard_map
// comes out in Shardy's form and verifies.
#include "kiln/passes/import_gspmd_shardings.h"

#include <gtest/gtest.h>

#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"

namespace kiln {
namespace {

// The module after the pass, printed; fails the test if the pass or the verifier does.
std::string imported(const std::string& text) {
  Expected<std::unique_ptr<Module>> module = parseModule(text, "gspmd.mlir");
  EXPECT_TRUE(module) << module.status().message();
  if (!module) return "";
  Expected<bool> changed = createImportGspmdShardingsPass()->run(**module);
  EXPECT_TRUE(changed) << changed.status().message();
  Status verified = verifyModule(**module);
  EXPECT_TRUE(verified.isOk()) << verified.message();
  return printModule(**module);
}

TEST(ImportGspmdShardings, ArgumentsResultsAndConstraints) {
  std::string out = imported(R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
})");
  EXPECT_NE(out.find(R"(sdy.mesh @mesh = <["_axis_0"=2, "_axis_1"=2]>)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0"}, {}]>})"),
            std::string::npos) << out;
  EXPECT_NE(out.find(R"({sdy.sharding = #sdy.sharding<@mesh, [{"_axis_0", "_axis_1"}, {}]>})"), std::string::npos)
      << out;
  EXPECT_NE(out.find(R"(sdy.sharding_constraint %arg0 <@mesh, [{}, {"_axis_1"}]>)"), std::string::npos) << out;
  EXPECT_EQ(out.find("mhlo.sharding"), std::string::npos) << out;
}

TEST(ImportGspmdShardings, ShardMapBecomesManualComputation) {
  std::string out = imported(R"(
module @jit_g attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<8xf32>) -> tensor<8xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<8xf32>) -> tensor<4xf32>
    %2 = stablehlo.negate %1 : tensor<4xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {mhlo.sharding = "{manual}"} : (tensor<4xf32>) -> tensor<4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {mhlo.sharding = "{devices=[2]<=[2]}"} : (tensor<4xf32>) -> tensor<8xf32>
    return %4 : tensor<8xf32>
  }
})");
  EXPECT_NE(out.find(R"(sdy.manual_computation(%0) in_shardings=[<@mesh, [{"_axis_0"}]>] out_shardings=[<@mesh, [{"_axis_0"}]>] manual_axes={"_axis_0"} (%arg1: tensor<4xf32>) {)"),
            std::string::npos) << out;
  EXPECT_NE(out.find("stablehlo.negate %arg1 : tensor<4xf32>"), std::string::npos) << out;
  EXPECT_EQ(out.find("custom_call"), std::string::npos) << out;
}

TEST(ImportGspmdShardings, NothingToImportIsNoChange) {
  Expected<std::unique_ptr<Module>> module =
      parseModule("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n", "t.mlir");
  ASSERT_TRUE(module);
  Expected<bool> changed = createImportGspmdShardingsPass()->run(**module);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace kiln
