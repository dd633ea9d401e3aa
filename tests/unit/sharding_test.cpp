// The sdy attribute text kiln reads and writes (kiln/ir/sharding.h): what
// each part of the syntax means, that printing round-trips, and which
// shardings the checker rejects.
#include "kiln/ir/sharding.h"

#include <gtest/gtest.h>

namespace kiln::sharding {
namespace {

TEST(ShardingText, MeshAxesAndDeviceIds) {
  Expected<Mesh> mesh = parseMesh(R"(#sdy.mesh<["x"=2, "y"=4]>)");
  ASSERT_TRUE(mesh) << mesh.status().message();
  EXPECT_EQ(mesh->numDevices(), 8);
  EXPECT_EQ(mesh->axisIndex("y"), 1);
  EXPECT_EQ(mesh->axisSize("z"), 1);
  EXPECT_EQ(mesh->coordinate(6, 0), 1);  // device 6 is (x=1, y=2)
  EXPECT_EQ(mesh->coordinate(6, 1), 2);
  Expected<Mesh> ids = parseMesh(R"(#sdy.mesh<["a"=2], device_ids=[1, 0]>)");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->deviceIds, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(printMesh(*ids), R"(#sdy.mesh<["a"=2], device_ids=[1, 0]>)");
}

TEST(ShardingText, DimensionsOpenPriorityReplicated) {
  const char* text = R"(#sdy.sharding<@mesh, [{"x", "y"}, {?}, {"z", ?}p2, {}], replicated={"w"}>)";
  Expected<TensorSharding> s = parseSharding(text);
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->meshName, "mesh");
  ASSERT_EQ(s->dims.size(), 4u);
  EXPECT_EQ(s->dims[0].axes, (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(s->dims[0].open);
  EXPECT_TRUE(s->dims[1].open);
  EXPECT_TRUE(s->dims[1].axes.empty());
  EXPECT_TRUE(s->dims[2].open);
  EXPECT_EQ(s->dims[2].priority, 2);
  EXPECT_EQ(s->replicated, (std::vector<std::string>{"w"}));
  EXPECT_FALSE(s->isReplicated());
  EXPECT_EQ(printSharding(*s), text);
}

TEST(ShardingText, InlineMeshAndPerValue) {
  Expected<std::vector<TensorSharding>> v =
      parseShardingPerValue(R"(#sdy.sharding_per_value<[<mesh<["i"=4]>, [{"i"}]>, <@m, []>]>)");
  ASSERT_TRUE(v) << v.status().message();
  ASSERT_EQ(v->size(), 2u);
  ASSERT_TRUE((*v)[0].inlineMesh);
  EXPECT_EQ((*v)[0].inlineMesh->numDevices(), 4);
  EXPECT_TRUE((*v)[1].isReplicated());
  EXPECT_EQ(printShardingPerValue(*v), R"(#sdy.sharding_per_value<[<mesh<["i"=4]>, [{"i"}]>, <@m, []>]>)");
}

TEST(ShardingText, MalformedTextIsAnErrorNotACrash) {
  for (const char* bad : {R"(#sdy.sharding<@m, [{"x"})", R"(#sdy.sharding<@m [{"x"}]>)", R"(#sdy.mesh<["x"=0]>)",
                          R"(#sdy.sharding<@m, [{"x":(1)2}]>)", R"(#sdy.sharding<@m, [{x}]>)", ""}) {
    Expected<TensorSharding> s = parseSharding(bad);
    Expected<Mesh> m = parseMesh(bad);
    EXPECT_FALSE(s) << bad;
    EXPECT_FALSE(m) << bad;
  }
}

TEST(ShardingCheck, AxesExistDivideAndAreUsedOnce) {
  Mesh mesh = *parseMesh(R"(#sdy.mesh<["x"=2, "y"=3]>)");
  std::vector<int64_t> shape{4, 6};
  EXPECT_TRUE(checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{"x"}, {"y"}]>)"), mesh, shape, true).isOk());
  Status missing = checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{"z"}, {}]>)"), mesh, shape, true);
  EXPECT_NE(missing.message().find("not in the mesh"), std::string::npos) << missing.message();
  Status twice = checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{"x"}, {"x"}]>)"), mesh, shape, true);
  EXPECT_NE(twice.message().find("more than once"), std::string::npos) << twice.message();
  Status uneven = checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{"y"}, {}]>)"), mesh, shape, true);
  EXPECT_NE(uneven.message().find("does not divide"), std::string::npos) << uneven.message();
  EXPECT_TRUE(checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{"y"}, {}]>)"), mesh, shape, false).isOk());
  Status rank = checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{}]>)"), mesh, shape, true);
  EXPECT_NE(rank.message().find("rank 2"), std::string::npos) << rank.message();
}

}  // namespace
}  // namespace kiln::sharding
