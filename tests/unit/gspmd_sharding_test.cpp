// GSPMD's `mhlo.sharding` strings (kiln/ir/gspmd_sharding.h): what each form
// reads as, and the meshes and Shardy shardings they translate to. Also the
// mesh and manual-axes checks kiln/ir/sharding.h adds for the verifier.
#include "kiln/ir/gspmd_sharding.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

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

// Past kiln's limits (docs/limits.md): more than 2^20 devices, whose iota
// would be written out or whose count overflows int64, and tuples nested so
// deep that the recursive reader would overflow the stack.
TEST(HloShardingText, Limits) {
  EXPECT_TRUE(parseHloSharding("{devices=[1024,1024]<=[1048576]}"));
  std::string deep = std::string(256, '{') + "replicated" + std::string(256, '}');
  EXPECT_TRUE(parseHloSharding(deep)) << "256 levels: 255 tuples of one";
  for (std::string text : {std::string("{devices=[1048577]<=[1048577]}"),
                           std::string("{devices=[1099511627776]<=[1099511627776]}"),
                           std::string("{devices=[4294967296,4294967296]<=[4294967296,4294967296]}"),
                           std::string("{devices=[2]<=[4294967296,4294967296]}"),
                           std::string(100000, '{') + "replicated" + std::string(100000, '}')}) {
    Expected<HloSharding> s = parseHloSharding(text);
    EXPECT_FALSE(s) << text.substr(0, 64);
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

// Which tile of each tensor dimension every device holds, as GSPMD says it:
// tile position t (row-major over the tile dimensions) is on devices[t].
std::map<int64_t, std::vector<int64_t>> tilesByDevice(const HloSharding& s) {
  std::map<int64_t, std::vector<int64_t>> tiles;
  for (size_t t = 0; t < s.devices.size(); ++t) {
    std::vector<int64_t> index(s.tileDims.size());
    for (size_t d = s.tileDims.size(), rest = t; d-- > 0; rest /= s.tileDims[d]) index[d] = rest % s.tileDims[d];
    index.resize(s.tensorRank());
    tiles[s.devices[t]] = index;
  }
  return tiles;
}

// The same, as a Shardy sharding over its mesh says it: device at mesh
// position p (device_ids[p], or p) has coordinate c_a on each axis a, and
// dimension d's tile mixes the coordinates of its axes, major first.
std::map<int64_t, std::vector<int64_t>> tilesByDevice(const sharding::TensorSharding& s, const sharding::Mesh& mesh) {
  std::map<int64_t, std::vector<int64_t>> tiles;
  for (int64_t p = 0; p < mesh.numDevices(); ++p) {
    std::vector<int64_t> index;
    for (const sharding::DimSharding& dim : s.dims) {
      int64_t tile = 0;
      for (const std::string& axis : dim.axes) {
        int a = mesh.axisIndex(axis);
        tile = tile * mesh.axes[a].size + mesh.coordinate(p, a);
      }
      index.push_back(tile);
    }
    tiles[mesh.deviceIds.empty() ? p : mesh.deviceIds[p]] = index;
  }
  return tiles;
}

// The tile assignments JAX can write for a rank-2 tensor over `n` devices
// from `reshapes`: every transpose, tiles of every shape, with and without a
// replicated last dimension.
std::vector<std::string> iotaShardings(int64_t n, const std::vector<std::vector<int64_t>>& reshapes) {
  std::vector<std::string> texts;
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) divisors.push_back(d);
  for (const std::vector<int64_t>& reshape : reshapes) {
    std::vector<int64_t> perm(reshape.size());
    std::iota(perm.begin(), perm.end(), 0);
    do {
      std::string iota = "<=[";
      for (size_t i = 0; i < reshape.size(); ++i) iota += (i ? "," : "") + std::to_string(reshape[i]);
      iota += "]";
      if (reshape.size() > 1) {
        iota += "T(";
        for (size_t i = 0; i < perm.size(); ++i) iota += (i ? "," : "") + std::to_string(perm[i]);
        iota += ")";
      }
      for (int64_t a : divisors)
        for (int64_t b : divisors) {
          std::string tiles = "{devices=[" + std::to_string(a) + "," + std::to_string(b);
          if (a * b == n) texts.push_back(tiles + "]" + iota + "}");
          else if (n % (a * b) == 0)
            texts.push_back(tiles + "," + std::to_string(n / (a * b)) + "]" + iota + " last_tile_dim_replicate}");
        }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  return texts;
}

// All those of 8 and of 6 devices, and two explicit lists, planned together:
// every translation puts every device on the same tile as GSPMD does. The
// 8-device ones share one mesh (8's divisors make one chain of axes); of the
// 6-device ones, 2x3 and 3x2 splits cannot share one, so some get meshes of
// their own with device_ids.
TEST(MeshPlanner, TranslationsKeepEveryDeviceOnItsTile) {
  std::vector<std::string> texts = iotaShardings(8, {{8}, {2, 4}, {4, 2}, {2, 2, 2}});
  std::vector<std::string> six = iotaShardings(6, {{6}, {2, 3}, {3, 2}});
  texts.insert(texts.end(), six.begin(), six.end());
  texts.push_back("{devices=[2,4]7,6,5,4,3,2,1,0}");
  texts.push_back("{devices=[3,1,2]5,3,1,4,2,0 last_tile_dim_replicate}");
  std::vector<HloSharding> shardings;
  MeshPlanner planner;
  for (const std::string& text : texts) {
    shardings.push_back(parse(text));
    planner.add(shardings.back());
  }
  std::vector<Expected<sharding::TensorSharding>> translated;
  for (const HloSharding& s : shardings) translated.push_back(planner.translate(s, 2));
  std::map<std::string, sharding::Mesh> meshes;
  for (auto& [name, mesh] : planner.meshes()) meshes[name] = mesh;
  std::map<std::string, int> perMesh;
  for (size_t i = 0; i < shardings.size(); ++i) {
    ASSERT_TRUE(translated[i]) << texts[i] << ": " << translated[i].status().message();
    const sharding::Mesh& mesh = meshes.at(translated[i]->meshName);
    EXPECT_TRUE(sharding::checkMesh(mesh).isOk()) << translated[i]->meshName;
    EXPECT_TRUE(sharding::checkSharding(*translated[i], mesh, std::vector<int64_t>{48, 48}, true).isOk()) << texts[i];
    EXPECT_EQ(tilesByDevice(shardings[i]), tilesByDevice(*translated[i], mesh))
        << texts[i] << " -> " << sharding::printSharding(*translated[i]);
    ++perMesh[translated[i]->meshName];
  }
  EXPECT_EQ(perMesh["mesh_8"], static_cast<int>(iotaShardings(8, {{8}, {2, 4}, {4, 2}, {2, 2, 2}}).size()));
  EXPECT_GT(perMesh["mesh_6"], 0);
  EXPECT_LT(perMesh["mesh_6"], static_cast<int>(six.size()));
  EXPECT_EQ(meshes.at("mesh_8").axes.size(), 3u);
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
  // At most 2^20 devices; 2^40 x 2^40 would count 0 in int64.
  EXPECT_TRUE(checkMesh(*parseMesh(R"(#sdy.mesh<["x"=1024, "y"=1024]>)")).isOk());
  EXPECT_FALSE(checkMesh(*parseMesh(R"(#sdy.mesh<["x"=1024, "y"=1025]>)")).isOk());
  EXPECT_FALSE(checkMesh(*parseMesh(R"(#sdy.mesh<["x"=1099511627776, "y"=1099511627776]>)")).isOk());
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
