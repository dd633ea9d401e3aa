// The optimized program reported to jaxlib (kiln/pjrt/optimized_program.h):
// kiln's kernels outlined into private functions, no kiln op left, and the
// same results as the program it came from (both run by the interpreter).
#include "kiln/pjrt/optimized_program.h"
#include "kiln/pjrt/output_shardings.h"
#include "kiln/pjrt/call_chain.h"
#include "kiln/pjrt/partial_manual.h"

#include <gtest/gtest.h>

#include <string>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/sharding.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/sharding_annotations.h"

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

// Sub-axes ("x":(p)s) as HLO states them: the same tiles, on the same
// devices, as the whole axes of a mesh that cuts each axis into those parts
// (over ["x"=4], "x":(1)2 and "x":(2)2 are "a" and "b" of ["a"=2, "b"=2]);
// what no dimension uses of a cut axis replicates, major part first.
TEST(PjrtOutputShardings, SubAxesAsTheirPartsWouldBe) {
  auto hloOf = [](const char* sharding, const char* mesh, int64_t rank, std::vector<int64_t> ids = {}) {
    auto m = sharding::parseMesh(mesh);
    auto s = sharding::parseSharding(sharding);
    EXPECT_TRUE(m && s) << sharding;
    m->deviceIds = std::move(ids);
    auto hlo = pjrt::hloSharding(*s, *m, rank);
    EXPECT_TRUE(hlo) << sharding << ": " << hlo.status().message();
    return hlo ? *hlo : gspmd::HloSharding();
  };
  auto same = [&](const char* subAxes, const char* cutMesh, const char* parts, const char* partsMesh, int64_t rank,
                  std::vector<int64_t> ids = {}) {
    gspmd::HloSharding got = hloOf(subAxes, cutMesh, rank, ids), want = hloOf(parts, partsMesh, rank, ids);
    EXPECT_EQ(got.kind, want.kind) << subAxes;
    EXPECT_EQ(got.tileDims, want.tileDims) << subAxes;
    EXPECT_EQ(got.devices, want.devices) << subAxes;
    EXPECT_EQ(got.lastTileDimReplicate, want.lastTileDimReplicate) << subAxes;
  };
  const char* x4 = R"(#sdy.mesh<["x"=4]>)";
  const char* ab = R"(#sdy.mesh<["a"=2, "b"=2]>)";
  same(R"(#sdy.sharding<@mesh, [{"x":(1)2}, {}]>)", x4, R"(#sdy.sharding<@mesh, [{"a"}, {}]>)", ab, 2);
  same(R"(#sdy.sharding<@mesh, [{"x":(2)2}, {}]>)", x4, R"(#sdy.sharding<@mesh, [{"b"}, {}]>)", ab, 2);
  same(R"(#sdy.sharding<@mesh, [{"x":(2)2}, {"x":(1)2}]>)", x4, R"(#sdy.sharding<@mesh, [{"b"}, {"a"}]>)", ab, 2);
  same(R"(#sdy.sharding<@mesh, [{"x":(2)2}, {"x":(1)2}]>)", x4, R"(#sdy.sharding<@mesh, [{"b"}, {"a"}]>)", ab, 2,
       {3, 1, 0, 2});
  same(R"(#sdy.sharding<@mesh, [{"x":(1)2}, {"y"}]>)", R"(#sdy.mesh<["x"=4, "y"=2]>)",
       R"(#sdy.sharding<@mesh, [{"a"}, {"c"}]>)", R"(#sdy.mesh<["a"=2, "b"=2, "c"=2]>)", 2);
  // The middle of an axis of 8: its major and minor parts replicate.
  same(R"(#sdy.sharding<@mesh, [{"x":(2)2}]>)", R"(#sdy.mesh<["x"=8]>)", R"(#sdy.sharding<@mesh, [{"b"}]>)",
       R"(#sdy.mesh<["a"=2, "b"=2, "c"=2]>)", 1);
  same(R"(#sdy.sharding<@mesh, [{"x":(4)2, "y"}, {"x":(1)2}]>)", R"(#sdy.mesh<["x"=8, "y"=3]>)",
       R"(#sdy.sharding<@mesh, [{"c", "y"}, {"a"}]>)", R"(#sdy.mesh<["a"=2, "b"=2, "c"=2, "y"=3]>)", 2);
  // A sub-axis that is no part of the axis is an error, as an unknown axis is.
  auto x = sharding::parseMesh(x4);
  auto bad = pjrt::hloSharding(*sharding::parseSharding(R"(#sdy.sharding<@mesh, [{"x":(3)2}]>)"), *x, 1);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.status().message(), "error: the mesh has no axis 'x:(3)2'");
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

// jax.jit(shard_map(f)) without in/out shardings: jaxlib takes each
// parameter's and result's sharding from the executable, which for a
// program made the per-device program are the manual computation's (before,
// none: JAX then failed placing a NumPy argument with `'UnspecifiedValue'
// object has no attribute '_addressable_device_assignment'`).
TEST(PjrtOutputShardings, ManualComputationShardings) {
  const char* program = R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x6xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4xi32>) -> (tensor<8x6xf32>, tensor<4xi32>, tensor<8x6xf32>) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x"}, {"y"}]>, <@mesh, [{}]>] out_shardings=[<@mesh, [{"y"}, {}]>, <@mesh, [{"x", "y"}, {}]>] manual_axes={"x", "y"} (%a: tensor<4x3xf32>, %b: tensor<3xf32>) {
      %1 = stablehlo.add %a, %a : tensor<4x3xf32>
      %2 = stablehlo.concatenate %a, %a, dim = 0 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
      %3 = stablehlo.slice %2 [0:4, 0:3] : (tensor<8x3xf32>) -> tensor<4x3xf32>
      %4 = stablehlo.concatenate %3, %1, dim = 1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
      %5 = stablehlo.slice %4 [0:2, 0:6] : (tensor<4x6xf32>) -> tensor<2x6xf32>
      sdy.return %4, %5 : tensor<4x6xf32>, tensor<2x6xf32>
    } : (tensor<8x6xf32>, tensor<3xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>)
    return %0#1, %arg2, %0#0 : tensor<8x6xf32>, tensor<4xi32>, tensor<8x6xf32>
  }
}
)";
  auto module = parseModule(program, "<test>");
  ASSERT_TRUE(module) << module.status().message();
  auto got = pjrt::manualComputationShardings(**module, *(*module)->lookupFunction("main"));
  ASSERT_TRUE(got) << got.status().message();
  ASSERT_TRUE(got->has_value());
  auto text = [](const gspmd::HloSharding& s) {  // as HLO's text, for the comparisons below
    if (s.kind != gspmd::HloSharding::Kind::Tiled) return std::string("{replicated}");
    std::string t = "{devices=[";
    for (size_t i = 0; i < s.tileDims.size(); ++i) t += (i ? "," : "") + std::to_string(s.tileDims[i]);
    t += "]";
    for (size_t i = 0; i < s.devices.size(); ++i) t += (i ? "," : "") + std::to_string(s.devices[i]);
    return t + (s.lastTileDimReplicate ? " last_tile_dim_replicate}" : "}");
  };
  const pjrt::ProgramShardings& s = **got;
  ASSERT_EQ(s.parameters.size(), 3u);
  ASSERT_EQ(s.results.size(), 3u);
  EXPECT_EQ(text(s.parameters[0]), "{devices=[2,2]0,1,2,3}");
  EXPECT_EQ(text(s.parameters[1]), "{replicated}");
  EXPECT_EQ(text(s.parameters[2]), "{replicated}");  // not an operand of the manual computation
  EXPECT_EQ(text(s.results[0]), "{devices=[4,1]0,1,2,3}");
  EXPECT_EQ(text(s.results[1]), "{replicated}");  // a parameter passed through
  EXPECT_EQ(text(s.results[2]), "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate}");

  // Not the whole function's work: no answer (the spmd pipeline's shardings are read instead).
  auto plain = parseModule("func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n",
                           "<test>");
  ASSERT_TRUE(plain) << plain.status().message();
  auto none = pjrt::manualComputationShardings(**plain, *(*plain)->lookupFunction("main"));
  ASSERT_TRUE(none) << none.status().message();
  EXPECT_FALSE(none->has_value());
}

// jax.jit(f, out_shardings=NamedSharding(mesh, ...))(key) with a key placed
// on one device: JAX states the key's sharding over `@empty_mesh = <[]>`
// next to the program's mesh, and kiln refused the program (`the module's
// meshes @empty_mesh and @mesh differ`). Folded, it is replicated over @mesh.
TEST(PjrtOutputShardings, EmptyMeshFoldsIntoTheProgramsMesh) {
  const char* program = R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @empty_mesh = <[]>
  sdy.mesh @mesh = <["d"=4]>
  func.func public @main(%arg0: tensor<2xui32> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}) -> (tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}]>}) {
    %0 = stablehlo.convert %arg0 : (tensor<2xui32>) -> tensor<2xf32>
    %1 = sdy.sharding_constraint %0 <@empty_mesh, [{}]> : tensor<2xf32>
    %2 = stablehlo.concatenate %1, %1, %1, %1, dim = 0 : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}
)";
  auto module = parseModule(program, "<test>");
  ASSERT_TRUE(module) << module.status().message();
  EXPECT_TRUE(pjrt::foldEmptyMeshes(**module));
  std::string printed = printModule(**module);
  EXPECT_EQ(printed.find("empty_mesh"), std::string::npos) << printed;
  EXPECT_NE(printed.find("sdy.sharding = #sdy.sharding<@mesh, [{}]>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("sdy.sharding_constraint %0 <@mesh, [{}]>"), std::string::npos) << printed;
  auto mesh = sharding::moduleMesh(**module);
  ASSERT_TRUE(mesh) << mesh.status().message();
  EXPECT_EQ((*mesh)->first, "mesh");
  // A maximal mesh (one device, JAX's host callbacks) is no empty mesh, and
  // with it the module has two meshes: nothing is folded.
  auto maximal = parseModule(std::string(program).replace(std::string(program).find("  sdy.mesh @mesh"), 0,
                                                          "  sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]>\n"),
                             "<test>");
  ASSERT_TRUE(maximal) << maximal.status().message();
  EXPECT_FALSE(pjrt::foldEmptyMeshes(**maximal));
  // With only an empty mesh there is nothing to fold it into.
  auto alone = parseModule("sdy.mesh @empty_mesh = <[]>\nfunc.func public @main(%a: tensor<4xf32> {sdy.sharding = "
                           "#sdy.sharding<@empty_mesh, [{}]>}) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n",
                           "<test>");
  ASSERT_TRUE(alone) << alone.status().message();
  EXPECT_FALSE(pjrt::foldEmptyMeshes(**alone));
}

// An error about an op in a scan body JAX made a function: the op's own
// frames (the body's lines), then the call of the body and the loop holding
// it (the caller's line, once), out to @main.
TEST(PjrtCallChain, NotesNameEachCallersLine) {
  const char* program = R"(
module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.while(%i = %0, %x = %arg0) : tensor<i32>, tensor<4xf32>
    cond {
      %c = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %y = func.call @body(%x) : (tensor<4xf32>) -> tensor<4xf32> loc(#call)
      %one = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %j, %y : tensor<i32>, tensor<4xf32>
    } loc(#loop)
    return %1#1 : tensor<4xf32>
  }
  func.func private @body(%a: tensor<4xf32>) -> tensor<4xf32> {
    %r = stablehlo.custom_call @unknown_target(%a) : (tensor<4xf32>) -> tensor<4xf32> loc(#failing)
    return %r : tensor<4xf32>
  }
}
#f1 = loc("m.py":4:11 to :40)
#f2 = loc("m.py":8:15)
#f3 = loc("m.py":9:11)
#f4 = loc("m.py":20:8)
#n1 = loc("unknown"(#f1))
#n2 = loc("body"(#f2))
#n3 = loc("scan_body"(#f3))
#n4 = loc("<module>"(#f4))
#failing = loc("ffi_call"(callsite(#n1 at #n2)))
#call = loc("while/body/closed_call"(#n3))
#loop = loc("jit(f)/while"(callsite(#n3 at #n4)))
)";
  auto module = parseModule(program, "<test>");
  ASSERT_TRUE(module) << module.status().message();
  // As the bytecode reader does: each op at its innermost frame.
  (*module)->op().walk([](Operation& op) {
    std::vector<pjrt::Frame> frames = pjrt::framesOf(op.debugLoc());
    op.setLoc(frames.empty() ? Location() : frames.front().loc);
  });
  const Operation* failing = nullptr;
  (*module)->op().walk([&](Operation& op) {
    if (op.name() == "stablehlo.custom_call") failing = &op;
  });
  ASSERT_NE(failing, nullptr);
  std::vector<pjrt::Frame> chain = pjrt::callChain(**module, *failing);
  std::vector<std::string> lines;
  for (const pjrt::Frame& f : chain) lines.push_back(f.loc.str() + " " + f.function);
  EXPECT_EQ(lines, (std::vector<std::string>{"m.py:4:11 unknown", "m.py:8:15 body", "m.py:9:11 scan_body",
                                             "m.py:20:8 <module>"}));

  Status status = error(failing->loc(), "'stablehlo.custom_call' op target @unknown_target is not supported");
  pjrt::addCallChain(status.diag(), **module);
  EXPECT_EQ(status.message(),
            "m.py:4:11: error: 'stablehlo.custom_call' op target @unknown_target is not supported\n"
            "m.py:8:15: note: called from here (in body)\n"
            "m.py:9:11: note: called from here (in scan_body)\n"
            "m.py:20:8: note: called from here (in <module>)");

  // A location no op of the program has: no notes.
  Status elsewhere = error(Location{internFileName("m.py"), 5, 1}, "something else");
  pjrt::addCallChain(elsewhere.diag(), **module);
  EXPECT_TRUE(elsewhere.diag().notes.empty());
}

// Parses `program` and widens its partially manual computations, expecting
// `count` of them widened: the module, or null after reporting a failure.
std::unique_ptr<Module> widened(std::string_view program, int count) {
  auto module = parseModule(program, "<test>");
  if (!module) {
    ADD_FAILURE() << module.status().message();
    return nullptr;
  }
  auto n = pjrt::widenPartialManualComputations(**module);
  if (!n) {
    ADD_FAILURE() << n.status().message();
    return nullptr;
  }
  EXPECT_EQ(*n, count) << program;
  return std::move(*module);
}

// `text` with its one occurrence of `from` replaced by `to`.
std::string replacedOnce(std::string text, std::string_view from, std::string_view to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// shard_map manual over "y" only, as JAX lowers it (axis_index as a nested
// computation manual over the free axis "x"): widened to manual over both
// axes, the nest inlined and the body's sharding constraints dropped. One
// whose shardings name the free axis stays for the partitioner to refuse.
TEST(PjrtPartialManual, WidenedToEveryAxisWhenFreeAxesCarryOnlyHints) {
  const char* program = R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {"y", ?}]>] out_shardings=[<@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%a: tensor<8x2xf32>) {
      %1 = sdy.manual_computation() in_shardings=[] out_shardings=[<@mesh, []>] manual_axes={"x"} () {
        %p = stablehlo.partition_id : tensor<ui32>
        sdy.return %p : tensor<ui32>
      } : () -> tensor<ui32>
      %2 = stablehlo.convert %1 : (tensor<ui32>) -> tensor<f32>
      %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<f32>) -> tensor<8x2xf32>
      %4 = sdy.sharding_constraint %3 <@mesh, [{?}, {?}]> : tensor<8x2xf32>
      %5 = stablehlo.multiply %a, %4 : tensor<8x2xf32>
      sdy.return %5 : tensor<8x2xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
)";
  auto module = widened(program, 1);
  ASSERT_TRUE(module);
  std::string printed = printModule(*module);
  EXPECT_NE(printed.find(R"(manual_axes={"x", "y"})"), std::string::npos) << printed;
  EXPECT_NE(printed.find(R"(in_shardings=[<@mesh, [{}, {"y"}]>])"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("sharding_constraint"), std::string::npos) << printed;
  EXPECT_EQ(printed.find(R"(manual_axes={"x"})"), std::string::npos) << printed;
  EXPECT_NE(printed.find("stablehlo.partition_id"), std::string::npos) << printed;
  // Now whole-function and fully manual: the per-device program, its
  // shardings the manual computation's (main states none of its own).
  const Operation& main = *module->lookupFunction("main");
  auto shardings = pjrt::manualComputationShardings(*module, main);
  ASSERT_TRUE(shardings && shardings->has_value());
  auto agree = pjrt::statedShardingsAgree(*module, main, **shardings);
  ASSERT_TRUE(agree) << agree.status().message();
  EXPECT_TRUE(*agree);

  // A constraint that names the free axis is a hint about splitting the
  // work along it, not about values: dropped too, the computation widened.
  auto hinted = widened(replacedOnce(program, "%4 = sdy.sharding_constraint %3 <@mesh, [{?}, {?}]>",
                                     R"(%4 = sdy.sharding_constraint %3 <@mesh, [{"x"}, {?}]>)"),
                        1);
  ASSERT_TRUE(hinted);
  std::string printedHinted = printModule(*hinted);
  EXPECT_NE(printedHinted.find(R"(manual_axes={"x", "y"})"), std::string::npos) << printedHinted;
  EXPECT_EQ(printedHinted.find("sharding_constraint"), std::string::npos) << printedHinted;
}

// A shard_map over the free axis "y" nested in one manual over "x", its
// operand split over "y" and its second result too: inlined between a
// dynamic_slice (each device's block, at an offset read by partition id)
// and an all_gather over "y" ({0,1} and {2,3}); the first result, a partial
// sum over "y", summed over it. A partial sum over "y" in the body
// (unreduced) is dropped. One whose shardings name the outer computation's
// axis (invalid Shardy) stays for the partitioner to refuse.
TEST(PjrtPartialManual, ANestOverAFreeAxisBecomesSlicesAndGathers) {
  const char* program = R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x6xf32>) -> tensor<8x6xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%a: tensor<4x6xf32>) {
      %1:2 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{?}, {"y", ?}]>] out_shardings=[<@mesh, [{?}, {?}], unreduced={"y"}>, <@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%b: tensor<4x3xf32>) {
        %2 = stablehlo.sine %b : tensor<4x3xf32>
        sdy.return %2, %b : tensor<4x3xf32>, tensor<4x3xf32>
      } : (tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<4x6xf32>)
      %3 = sdy.sharding_constraint %1#0 <@mesh, [{}, {}], unreduced={"y"}> : tensor<4x3xf32>
      %4 = stablehlo.concatenate %3, %3, dim = 1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>
      %5 = stablehlo.add %4, %1#1 : tensor<4x6xf32>
      sdy.return %5 : tensor<4x6xf32>
    } : (tensor<8x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
}
)";
  auto module = widened(program, 1);
  ASSERT_TRUE(module);
  std::string printed = printModule(*module);
  EXPECT_NE(printed.find(R"(manual_axes={"x", "y"})"), std::string::npos) << printed;
  EXPECT_EQ(printed.find(R"(manual_axes={"y"})"), std::string::npos) << printed;
  EXPECT_EQ(printed.find("unreduced"), std::string::npos) << printed;
  EXPECT_NE(printed.find("stablehlo.partition_id"), std::string::npos) << printed;
  EXPECT_NE(printed.find("stablehlo.dynamic_slice"), std::string::npos) << printed;
  // Device offsets along "y" in blocks of 3, by partition id: 0, 3, 0, 3.
  EXPECT_NE(printed.find("dense<[0, 3, 0, 3]> : tensor<4xi32>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("stablehlo.all_gather"), std::string::npos) << printed;
  EXPECT_NE(printed.find("stablehlo.all_reduce"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>"), std::string::npos) << printed;

  EXPECT_TRUE(widened(replacedOnce(program, R"(out_shardings=[<@mesh, [{?}, {?}], unreduced={"y"}>)",
                                   R"(out_shardings=[<@mesh, [{?}, {?}], unreduced={"x"}>)"),
                      0));
}

// The same nest on a 2x2x2 mesh, its operand's sharding naming the axis
// "z" (free in both computations) after "y": how the nest's operand is held
// over "z", not what it is, so dropped. Its block along "y" is cut by the
// position along "y" alone (offsets 0, 0, 3, 3, ... by partition id) and
// gathered over "y" in groups of devices that agree on "x" and "z".
// Naming "z" before "y" (the blocks of "y" not contiguous) stays refused.
TEST(PjrtPartialManual, ANestNamingAnAxisFreeInBothDropsIt) {
  std::string program = R"(
module @jit_f attributes {mhlo.num_partitions = 8 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2, "z"=2]>
  func.func public @main(%arg0: tensor<8x6xf32>) -> tensor<8x6xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x", ?}, {?}]>] out_shardings=[<@mesh, [{"x", ?}, {?}]>] manual_axes={"x"} (%a: tensor<4x6xf32>) {
      %1 = sdy.manual_computation(%a) in_shardings=[<@mesh, [{?}, {"y", "z"}]>] out_shardings=[<@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%b: tensor<4x3xf32>) {
        %2 = stablehlo.sine %b : tensor<4x3xf32>
        sdy.return %2 : tensor<4x3xf32>
      } : (tensor<4x6xf32>) -> tensor<4x6xf32>
      sdy.return %1 : tensor<4x6xf32>
    } : (tensor<8x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
}
)";
  auto module = widened(program, 1);
  ASSERT_TRUE(module);
  std::string printed = printModule(*module);
  EXPECT_NE(printed.find(R"(manual_axes={"x", "y", "z"})"), std::string::npos) << printed;
  EXPECT_EQ(printed.find(R"(manual_axes={"y"})"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense<[0, 0, 3, 3, 0, 0, 3, 3]> : tensor<8xi32>"), std::string::npos) << printed;
  EXPECT_NE(printed.find("dense<[[0, 2], [1, 3], [4, 6], [5, 7]]> : tensor<4x2xi64>"), std::string::npos) << printed;

  EXPECT_TRUE(widened(replacedOnce(program, R"({"y", "z"})", R"({"z", "y"})"), 0));
}

// A main argument stated split over ("x", "y") while the fully manual body
// takes blocks split over "x": not the per-device program as it stands.
TEST(PjrtPartialManual, StatedShardingsThatDifferKeepThePartitioner) {
  auto module = parseModule(R"(
module @jit_f attributes {mhlo.num_partitions = 4 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%arg0: tensor<8x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> tensor<8x6xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x", "y"} (%a: tensor<4x6xf32>) {
      sdy.return %a : tensor<4x6xf32>
    } : (tensor<8x6xf32>) -> tensor<8x6xf32>
    return %0 : tensor<8x6xf32>
  }
}
)",
                            "<test>");
  ASSERT_TRUE(module) << module.status().message();
  const Operation& main = *(*module)->lookupFunction("main");
  auto shardings = pjrt::manualComputationShardings(**module, main);
  ASSERT_TRUE(shardings && shardings->has_value());
  auto agree = pjrt::statedShardingsAgree(**module, main, **shardings);
  ASSERT_TRUE(agree) << agree.status().message();
  EXPECT_FALSE(*agree);
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
