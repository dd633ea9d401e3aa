// GSPMD's `mhlo.sharding` strings (kiln/ir/gspmd_sharding.h): what each form
// reads as, and the meshes and Shardy shardings they translate to. Also the
// mesh and manual-axes checks kiln/ir/sharding.h adds for the verifier.
#include "kiln/ir/gspmd_sharding.h"

#include <gtest/gtest.h>

namespace kiln::gspmd {
namespace {

HloSharding parse(std::string_view text) {
  Expected<HloSharding> s = parseHloSharding(text);
  EXPECT_TRUE(s) << s.status().message();
  return s ? *s : HloSharding{};
}

std::string translated(MeshPlanner& planner, const HloSharding& s, int64_t rank) {
  Expected<sharding::TensorSharding> t = planner.translate(s, rank);
  EXPECT_TRUE(t) << t.status().message();
  return t ? sharding::printSharding(*t) : "";
}

std::string meshList(MeshPlanner& planner) {
  std::string out;
  for (const auto& [name, mesh] : planner.meshes()) out += "@" + name + " = " + sharding::printMesh(mesh) + "\n";
  return out;
}

TEST(HloShardingText, Kinds) {
  EXPECT_EQ(parse("{replicated}").kind, HloSharding::Kind::Replicated);
  EXPECT_EQ(parse("{manual}").kind, HloSharding::Kind::Manual);
  HloSharding maximal = parse("{maximal device=3}");
  EXPECT_EQ(maximal.kind, HloSharding::Kind::Maximal);
  EXPECT_EQ(maximal.device, 3);
  HloSharding tuple = parse("{{replicated}, {devices=[2]<=[2]}}");
  ASSERT_EQ(tuple.kind, HloSharding::Kind::Tuple);
  ASSERT_EQ(tuple.tuple.size(), 2u);
  EXPECT_EQ(tuple.tuple[1].kind, HloSharding::Kind::Tiled);
  // Metadata carries no meaning for the sharding.
  EXPECT_EQ(parse(R"({devices=[2,1]<=[2] metadata={op_name="jit(f)/x" source_file="a{b}.py"}})").tileDims,
            (std::vector<int64_t>{2, 1}));
}

TEST(HloShardingText, TileAssignments) {
  HloSharding iota = parse("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  EXPECT_EQ(iota.tileDims, (std::vector<int64_t>{2, 1, 2}));
  EXPECT_TRUE(iota.lastTileDimReplicate);
  EXPECT_EQ(iota.tensorRank(), 2u);
  EXPECT_EQ(iota.devices, (std::vector<int64_t>{0, 1, 2, 3}));
  // iota(4) as 2x2, transposed: the tiles' devices run down the columns.
  HloSharding transposed = parse("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  EXPECT_EQ(transposed.devices, (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(parse("{devices=[2,2]3,1,2,0}").devices, (std::vector<int64_t>{3, 1, 2, 0}));
  EXPECT_TRUE(parse("{devices=[2,2]<=[4] last_tile_dims={replicated}}").lastTileDimReplicate);
}

TEST(HloShardingText, Malformed) {
  for (const char* text : {"{devices=[2,2]<=[3]}", "{devices=[2]0,0}", "{devices=[2]0,1,2}", "{replicated",
                           "{devices=[2,2]<=[2,2]T(0,0)}", "{devices=[2,2]<=[4] last_tile_dims={manual}}",
                           "{unknown}", "{replicated} x"}) {
    Expected<HloSharding> s = parseHloSharding(text);
    EXPECT_FALSE(s) << text;
  }
}

// JAX's shardings over a 2x2 mesh ("x", "y") meet on one mesh of two axes.
TEST(MeshPlanner, IotaShardingsShareOneMesh) {
  HloSharding xOnly = parse("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");   // P("x", None)
  HloSharding yOnly = parse("{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");  // P(None, "y")
  HloSharding both = parse("{devices=[4,1]<=[4]}");                               // P(("x", "y"))
  HloSharding swapped = parse("{devices=[2,2]<=[2,2]T(1,0)}");                    // P("y", "x")
  MeshPlanner planner;
  for (const HloSharding* s : {&xOnly, &yOnly, &both, &swapped}) planner.add(*s);
  EXPECT_EQ(translated(planner, xOnly, 2), R"(#sdy.sharding<@mesh, [{"_axis_0"}, {}]>)");
  EXPECT_EQ(translated(planner, yOnly, 2), R"(#sdy.sharding<@mesh, [{}, {"_axis_1"}]>)");
  EXPECT_EQ(translated(planner, both, 2), R"(#sdy.sharding<@mesh, [{"_axis_0", "_axis_1"}, {}]>)");
  EXPECT_EQ(translated(planner, swapped, 2), R"(#sdy.sharding<@mesh, [{"_axis_1"}, {"_axis_0"}]>)");
  EXPECT_EQ(translated(planner, parse("{replicated}"), 1), R"(#sdy.sharding<@mesh, [{}]>)");
  EXPECT_EQ(meshList(planner), "@mesh = #sdy.mesh<[\"_axis_0\"=2, \"_axis_1\"=2]>\n");
}

TEST(MeshPlanner, ExplicitDevicesAndMaximal) {
  HloSharding shuffled = parse("{devices=[2,2]0,3,1,2}");
  HloSharding identity = parse("{devices=[4]0,1,2,3}");
  MeshPlanner planner;
  planner.add(shuffled);
  planner.add(identity);
  EXPECT_EQ(translated(planner, identity, 1), R"(#sdy.sharding<@mesh, [{"_axis_0"}]>)");
  EXPECT_EQ(translated(planner, shuffled, 2), R"(#sdy.sharding<@mesh_ids_0, [{"_axis_0"}, {"_axis_1"}]>)");
  EXPECT_EQ(translated(planner, parse("{maximal device=1}"), 2), R"(#sdy.sharding<@maximal_mesh_1, []>)");
  EXPECT_EQ(meshList(planner),
            "@mesh = #sdy.mesh<[\"_axis_0\"=4]>\n"
            "@mesh_ids_0 = #sdy.mesh<[\"_axis_0\"=2, \"_axis_1\"=2], device_ids=[0, 3, 1, 2]>\n"
            "@maximal_mesh_1 = #sdy.mesh<[], device_ids=[1]>\n");
}

// [2,3] and [3,2] over 6 devices have no common chain of axes: the second
// gets a mesh of its own.
TEST(MeshPlanner, IncompatibleFactorizationsFallBackToDeviceIds) {
  HloSharding twoThree = parse("{devices=[2,3]<=[6]}");
  HloSharding threeTwo = parse("{devices=[3,2]<=[6]}");
  MeshPlanner planner;
  planner.add(twoThree);
  planner.add(threeTwo);
  EXPECT_EQ(translated(planner, twoThree, 2), R"(#sdy.sharding<@mesh, [{"_axis_0"}, {"_axis_1"}]>)");
  EXPECT_EQ(translated(planner, threeTwo, 2), R"(#sdy.sharding<@mesh_ids_0, [{"_axis_0"}, {"_axis_1"}]>)");
}

TEST(MeshPlanner, RankMismatchIsAnError) {
  MeshPlanner planner;
  HloSharding s = parse("{devices=[2,1]<=[2]}");
  planner.add(s);
  EXPECT_FALSE(planner.translate(s, 3));
}

TEST(MeshChecks, WellFormedMeshes) {
  using sharding::checkMesh;
  using sharding::parseMesh;
  EXPECT_TRUE(checkMesh(*parseMesh(R"(#sdy.mesh<["x"=2, "y"=2], device_ids=[3, 2, 1, 0]>)")).isOk());
  EXPECT_TRUE(checkMesh(*parseMesh(R"(#sdy.mesh<[], device_ids=[5]>)")).isOk());
  EXPECT_FALSE(checkMesh(*parseMesh(R"(#sdy.mesh<["x"=2, "x"=2]>)")).isOk());
  EXPECT_FALSE(checkMesh(*parseMesh(R"(#sdy.mesh<["x"=2], device_ids=[0, 2]>)")).isOk());
  EXPECT_FALSE(checkMesh(sharding::Mesh{{{"x", 0}}, {}}).isOk());
  EXPECT_FALSE(parseMesh(R"(#sdy.mesh<["x"=0]>)"));
}

TEST(MeshChecks, ManualAxesAndPriorities) {
  Expected<std::vector<std::string>> axes = sharding::parseManualAxes(R"(#sdy<manual_axes{"i", "j"}>)");
  ASSERT_TRUE(axes) << axes.status().message();
  EXPECT_EQ(*axes, (std::vector<std::string>{"i", "j"}));
  EXPECT_EQ(sharding::printManualAxes(*axes), R"(#sdy<manual_axes{"i", "j"}>)");
  EXPECT_FALSE(sharding::parseSharding(R"(#sdy.sharding<@m, [{"x"}p-1]>)"));
}

}  // namespace
}  // namespace kiln::gspmd
