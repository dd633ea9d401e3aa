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
                          R"(#sdy.sharding<@m, [{"x":(1}]>)", R"(#sdy.sharding<@m, [{"x":2}]>)",
                          R"(#sdy.sharding<@m, [{x}]>)", ""}) {
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

TEST(ShardingText, SubAxes) {
  const char* text = R"(#sdy.sharding<@mesh, [{"x":(1)2, "y"}, {"x":(2)4, ?}], replicated={"z":(2)2}>)";
  Expected<TensorSharding> s = parseSharding(text);
  ASSERT_TRUE(s) << s.status().message();
  EXPECT_EQ(s->dims[0].axes, (std::vector<std::string>{"x:(1)2", "y"}));
  EXPECT_EQ(s->dims[1].axes, (std::vector<std::string>{"x:(2)4"}));
  EXPECT_EQ(s->replicated, (std::vector<std::string>{"z:(2)2"}));
  EXPECT_EQ(printSharding(*s), text);
  std::optional<SubAxis> sub = parseSubAxisRef("x:(2)4");
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->axis, "x");
  EXPECT_EQ(sub->preSize, 2);
  EXPECT_EQ(sub->size, 4);
  EXPECT_FALSE(parseSubAxisRef("x"));
  EXPECT_FALSE(parseSubAxisRef("x:(a)4"));
  Mesh mesh = *parseMesh(R"(#sdy.mesh<["x"=8, "y"=2]>)");
  EXPECT_EQ(mesh.axisSize("x:(2)4"), 4);
  EXPECT_EQ(mesh.axisSize("w:(2)4"), 1);  // no axis "w"
}

TEST(ShardingCheck, SubAxesArePartsOfTheirAxisAndDoNotOverlap) {
  Mesh mesh = *parseMesh(R"(#sdy.mesh<["x"=8, "y"=2]>)");
  std::vector<int64_t> shape{8, 8};
  auto check = [&](const char* text) { return checkSharding(*parseSharding(text), mesh, shape, true); };
  EXPECT_TRUE(check(R"(#sdy.sharding<@m, [{"x":(1)2}, {"x":(2)4}]>)").isOk());
  EXPECT_TRUE(check(R"(#sdy.sharding<@m, [{"x":(4)2, "x":(1)2}, {"y"}], replicated={"x":(2)2}>)").isOk());
  auto fails = [&](const char* text, const char* why) {
    Status st = check(text);
    EXPECT_NE(st.message().find(why), std::string::npos) << text << ": " << st.message();
  };
  fails(R"(#sdy.sharding<@m, [{"x":(0)2}, {}]>)", "pre-size below 1");
  fails(R"(#sdy.sharding<@m, [{"x":(2)1}, {}]>)", "size below 2");
  fails(R"(#sdy.sharding<@m, [{"x":(3)2}, {}]>)", "does not divide the size 8");
  fails(R"(#sdy.sharding<@m, [{"x":(4)4}, {}]>)", "does not divide the size 8");
  fails(R"(#sdy.sharding<@m, [{"x":(1)8}, {}]>)", "is the whole axis");
  fails(R"(#sdy.sharding<@m, [{"x"}, {"x":(2)2}]>)", "overlap");
  fails(R"(#sdy.sharding<@m, [{"x":(1)4}, {}], replicated={"x":(2)2}>)", "overlap");
  fails(R"(#sdy.sharding<@m, [{"x":(2)2}, {"x":(2)2}]>)", "more than once");
  fails(R"(#sdy.sharding<@m, [{"x":(1)2, "x":(2)2}, {}]>)", "write them as one");
  fails(R"(#sdy.sharding<@m, [{"w":(1)2}, {}]>)", "axis \"w\" is not in the mesh");
  // Uneven: 8 rows over "x":(2)4 and "y" (8 devices) divide; 6 would not.
  std::vector<int64_t> six{6, 8};
  Status uneven = checkSharding(*parseSharding(R"(#sdy.sharding<@m, [{"x":(2)4}, {}]>)"), mesh, six, true);
  EXPECT_NE(uneven.message().find("does not divide into 4"), std::string::npos) << uneven.message();
}

}  // namespace
}  // namespace kiln::sharding
