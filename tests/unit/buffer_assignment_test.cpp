// Buffer assignment: liveness, reuse, in-place updates, donation, the
// memory statistics, and the schedule pass's effect on peak memory.
#include "kiln/passes/buffer_assignment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kiln/parse/parser.h"
#include "kiln/passes/memory_stats.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

std::unique_ptr<Module> parse(const std::string& text) {
  auto module = parseModule(text, "test.mlir");
  EXPECT_TRUE(module.isOk()) << (module.isOk() ? "" : module.status().message());
  return module.isOk() ? std::move(*module) : std::make_unique<Module>();
}

BufferAssignment assignEntry(const Module& module) { return assignBuffers(func::body(*entryFunction(module))); }

// The result of the op at schedule position `p`.
const Value* resultAt(const BufferAssignment& ba, int p) { return ba.order[p]->result(); }
int bufferAt(const BufferAssignment& ba, int p) { return ba.bufferOf.at(resultAt(ba, p)); }

// The value of `key` in memoryStatsLines' output.
int64_t stat(const Module& module, const std::string& key) {
  std::istringstream lines(memoryStatsLines(module));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(key + "=", 0) == 0) return std::stoll(line.substr(key.size() + 1));
  ADD_FAILURE() << "no statistic " << key;
  return -1;
}

constexpr int64_t kF32x1024 = 1024 * 4;

// --- Liveness ---------------------------------------------------------------

TEST(BufferAssignmentTest, ValueUsedOnlyInsideWhileBodyStaysLiveAcrossTheWhile) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32>, %n: tensor<i32>) -> tensor<1024xf32> {
  %a = stablehlo.exponential %arg0 : tensor<1024xf32>
  %r:2 = stablehlo.while(%i = %n, %acc = %arg0) : tensor<i32>, tensor<1024xf32>
    cond {
      %c0 = stablehlo.constant dense<0> : tensor<i32>
      %p = stablehlo.compare GT, %i, %c0 : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %c1 = stablehlo.constant dense<1> : tensor<i32>
      %j = stablehlo.subtract %i, %c1 : tensor<i32>
      %s = stablehlo.add %acc, %a : tensor<1024xf32>
      stablehlo.return %j, %s : tensor<i32>, tensor<1024xf32>
    }
  %b = stablehlo.negate %r#1 : tensor<1024xf32>
  return %b : tensor<1024xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  ASSERT_EQ(ba.order[1]->name(), "stablehlo.while");
  const Buffer& a = ba.buffers[bufferAt(ba, 0)];
  EXPECT_EQ(a.lastUse, 1) << "%a is read by the while body, so it lives until the while ends";
  // The while's loop state is a new buffer: neither %a (live across the while)
  // nor %arg0 (the caller's) may hold it.
  int loopState = ba.bufferOf.at(ba.order[1]->result(1));
  EXPECT_NE(loopState, bufferAt(ba, 0));
  EXPECT_EQ(ba.buffers[loopState].kind, Buffer::Kind::Temp);
  // The body's sum is assigned in the body's own assignment.
  ASSERT_EQ(ba.nested.at(ba.order[1]).size(), 2u);
  EXPECT_GT(ba.nested.at(ba.order[1])[1].arenaBytes, 0);
}

TEST(BufferAssignmentTest, PeakCountsParametersResultsAndBothSidesOfACopy) {
  // transpose cannot work in place: %arg0 (kept by the caller), %t and %u
  // are all live at the second transpose.
  auto m = parse(R"(
func.func @main(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %t = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %u = stablehlo.transpose %t, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %u : tensor<32x32xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_EQ(ba.peakBytes, 3 * kF32x1024);
  EXPECT_EQ(ba.peakPosition, 1);
  EXPECT_EQ(ba.intermediateBytes, 2 * kF32x1024);
}

// --- Reuse ------------------------------------------------------------------

TEST(BufferAssignmentTest, DeadBufferIsReusedBestFit) {
  // When %d is computed, %small's buffer (1 KiB) and %big's (4 KiB, which
  // %c reused) are both free; %d (1 KiB) takes the smallest that fits.
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32>, %arg1: tensor<256xf32>) -> tensor<256xf32> {
  %big = stablehlo.exponential %arg0 : tensor<1024xf32>
  %small = stablehlo.exponential %arg1 : tensor<256xf32>
  %bs = stablehlo.slice %big [0:256] : (tensor<1024xf32>) -> tensor<256xf32>
  %c = stablehlo.reverse %small, dims = [0] : tensor<256xf32>
  %sum = stablehlo.add %bs, %c : tensor<256xf32>
  %d = stablehlo.reverse %sum, dims = [0] : tensor<256xf32>
  return %d : tensor<256xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  ASSERT_EQ(ba.order[5]->name(), "stablehlo.reverse");
  // %sum is computed in place in %bs's buffer (add, %bs dies there).
  EXPECT_EQ(bufferAt(ba, 4), bufferAt(ba, 2));
  // %sum's buffer is still read by %d itself.
  EXPECT_EQ(bufferAt(ba, 5), bufferAt(ba, 1));
  EXPECT_EQ(ba.buffers[bufferAt(ba, 5)].size, 1024);
}

TEST(BufferAssignmentTest, ArenaPacksBuffersWhoseLifetimesDoNotOverlap) {
  // %a (1 KiB) dies before %c (4 KiB) is born; %c is too big for %a's buffer
  // but can start at the same arena offset.
  auto m = parse(R"(
func.func @main(%arg0: tensor<256xf32>, %arg1: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = stablehlo.exponential %arg0 : tensor<256xf32>
  %b = stablehlo.reverse %a, dims = [0] : tensor<256xf32>
  %c = stablehlo.reverse %arg1, dims = [0] : tensor<1024xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [0] : (tensor<256xf32>) -> tensor<4x256xf32>
  %br = stablehlo.reshape %bb : (tensor<4x256xf32>) -> tensor<1024xf32>
  %d = stablehlo.add %c, %br : tensor<1024xf32>
  return %d : tensor<1024xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_NE(bufferAt(ba, 2), bufferAt(ba, 0));
  EXPECT_EQ(ba.buffers[bufferAt(ba, 2)].offset, ba.buffers[bufferAt(ba, 0)].offset);
  // The reshape is a view of the broadcast's buffer.
  EXPECT_EQ(bufferAt(ba, 4), bufferAt(ba, 3));
}

// --- In-place updates ------------------------------------------------------

TEST(BufferAssignmentTest, ElementwiseIsInPlaceOnlyWhenTheOperandDies) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32>) -> tensor<1024xf32> {
  %a = stablehlo.exponential %arg0 : tensor<1024xf32>
  %b = stablehlo.negate %a : tensor<1024xf32>
  %c = stablehlo.add %a, %b : tensor<1024xf32>
  return %c : tensor<1024xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_NE(bufferAt(ba, 0), ba.bufferOf.at(func::body(*entryFunction(*m)).argument(0)))
      << "a parameter the caller keeps is never overwritten";
  EXPECT_NE(bufferAt(ba, 1), bufferAt(ba, 0)) << "%a is still read by %c";
  EXPECT_EQ(bufferAt(ba, 2), bufferAt(ba, 0)) << "%a dies at %c";
  EXPECT_EQ(ba.peakBytes, 3 * kF32x1024);
}

TEST(BufferAssignmentTest, DynamicUpdateSliceIsInPlaceOnlyWhenTheOperandDies) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32>, %u: tensor<8xf32>, %i: tensor<i32>) -> (tensor<1024xf32>, tensor<1024xf32>) {
  %a = stablehlo.exponential %arg0 : tensor<1024xf32>
  %b = stablehlo.dynamic_update_slice %a, %u, %i : (tensor<1024xf32>, tensor<8xf32>, tensor<i32>) -> tensor<1024xf32>
  %c = stablehlo.dynamic_update_slice %b, %u, %i : (tensor<1024xf32>, tensor<8xf32>, tensor<i32>) -> tensor<1024xf32>
  return %b, %c : tensor<1024xf32>, tensor<1024xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_EQ(bufferAt(ba, 1), bufferAt(ba, 0)) << "%a dies at the first update";
  EXPECT_NE(bufferAt(ba, 2), bufferAt(ba, 1)) << "%b is returned, so the second update needs a copy";
}

TEST(BufferAssignmentTest, LoopFusionIsInPlaceOnlyWhenItReadsAtTheOutputIndex) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %a = stablehlo.exponential %arg0 : tensor<32x32xf32>
  %b = "kiln.fusion"(%a) <{kind = "loop"}> ({
  ^bb0(%x: tensor<32x32xf32>):
    %y = stablehlo.negate %x : tensor<32x32xf32>
    %z = stablehlo.multiply %y, %x : tensor<32x32xf32>
    "kiln.yield"(%z) : (tensor<32x32xf32>) -> ()
  }) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %c = "kiln.fusion"(%b) <{kind = "loop"}> ({
  ^bb0(%x: tensor<32x32xf32>):
    %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %y = stablehlo.negate %t : tensor<32x32xf32>
    "kiln.yield"(%y) : (tensor<32x32xf32>) -> ()
  }) : (tensor<32x32xf32>) -> tensor<32x32xf32>
  return %c : tensor<32x32xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_EQ(bufferAt(ba, 1), bufferAt(ba, 0)) << "an elementwise body reads %a only at the index it writes";
  EXPECT_NE(bufferAt(ba, 2), bufferAt(ba, 1)) << "a transposing body reads elements it has overwritten";
}

TEST(BufferAssignmentTest, HundredElementwiseOpsNeedOnlyInputAndOutputBuffersFusedOrNot) {
  constexpr int kOps = 100;
  const std::string type = "tensor<1048576xf32>";
  std::string text = "func.func @main(%arg0: " + type + ") -> " + type + " {\n";
  std::string previous = "%arg0";
  for (int i = 0; i < kOps; ++i) {
    const char* op = i % 2 ? "stablehlo.negate" : "stablehlo.exponential";
    text += "  %" + std::to_string(i) + " = " + op + " " + previous + " : " + type + "\n";
    previous = "%" + std::to_string(i);
  }
  text += "  return " + previous + " : " + type + "\n}\n";
  auto m = parse(text);
  constexpr int64_t kMiB4 = 4 << 20;
  EXPECT_EQ(stat(*m, "peak_bytes"), 2 * kMiB4);
  EXPECT_EQ(stat(*m, "buffers"), 1);
  EXPECT_EQ(stat(*m, "arena_bytes"), kMiB4);
  EXPECT_EQ(stat(*m, "intermediate_bytes_total"), kOps * kMiB4);
  EXPECT_EQ(stat(*m, "kernels"), kOps);
  EXPECT_EQ(stat(*m, "fusions"), 0);
  // Fused, the chain is one kernel with the same two buffers.
  ASSERT_TRUE(createFusionPass()->run(*m).isOk());
  EXPECT_EQ(stat(*m, "kernels"), 1);
  EXPECT_EQ(stat(*m, "fusions"), 1);
  EXPECT_EQ(stat(*m, "peak_bytes"), 2 * kMiB4);
  EXPECT_EQ(stat(*m, "buffers"), 1);
}

// --- Donation ----------------------------------------------------------------

TEST(BufferAssignmentTest, DonatedParameterIsUpdatedInPlaceAndAliasesTheOutput) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32> {jax.buffer_donor = true}) -> tensor<1024xf32> {
  %a = stablehlo.exponential %arg0 : tensor<1024xf32>
  return %a : tensor<1024xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_EQ(bufferAt(ba, 0), ba.bufferOf.at(func::body(*entryFunction(*m)).argument(0)));
  ASSERT_EQ(ba.aliases.size(), 1u);
  EXPECT_TRUE(ba.aliases[0].realized);
  EXPECT_EQ(ba.peakBytes, kF32x1024);
  EXPECT_EQ(ba.arenaBytes, 0);
}

TEST(BufferAssignmentTest, AliasedOutputPrefersTheDonatedBufferOverInPlace) {
  // %t cannot be computed in place (transpose), so it gets a new buffer and
  // %arg0 dies. The output %o then goes to %arg0's buffer, as
  // tf.aliasing_output asks, rather than in place over %t.
  auto m = parse(R"(
func.func @main(%arg0: tensor<32x32xf32> {tf.aliasing_output = 0 : i32}) -> tensor<32x32xf32> {
  %t = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<32x32xf32>) -> tensor<32x32xf32>
  %o = stablehlo.negate %t : tensor<32x32xf32>
  return %o : tensor<32x32xf32>
})");
  BufferAssignment ba = assignEntry(*m);
  int param = ba.bufferOf.at(func::body(*entryFunction(*m)).argument(0));
  EXPECT_NE(bufferAt(ba, 0), param);
  EXPECT_EQ(bufferAt(ba, 1), param);
  ASSERT_EQ(ba.aliases.size(), 1u);
  EXPECT_EQ(ba.aliases[0].output, 0);
  EXPECT_TRUE(ba.aliases[0].realized);
}

TEST(BufferAssignmentTest, DonationNeedsAnOutputOfTheSameType) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32> {jax.buffer_donor = true}) -> tensor<1024xi32> {
  %a = stablehlo.convert %arg0 : (tensor<1024xf32>) -> tensor<1024xi32>
  return %a : tensor<1024xi32>
})");
  BufferAssignment ba = assignEntry(*m);
  EXPECT_TRUE(ba.aliases.empty());
  // The donated buffer still belongs to the executable: convert of the same
  // size works in place in it.
  EXPECT_EQ(bufferAt(ba, 0), ba.bufferOf.at(func::body(*entryFunction(*m)).argument(0)));
}

// --- Whole programs ----------------------------------------------------------

// A JAX corpus program.
std::string readCorpus(const std::string& name) {
  std::ifstream in(std::filesystem::path(__FILE__).parent_path() / "../corpus/jax" / name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(BufferAssignmentTest, TransformerEncoderLayerPeakIsBelowTheSumOfItsIntermediates) {
  auto m = parse(readCorpus("transformer_encoder_layer.mlir"));
  ASSERT_TRUE(createInlinePass()->run(*m).isOk());
  int64_t before = stat(*m, "peak_bytes");
  ASSERT_TRUE(createSchedulePass()->run(*m).isOk());
  int64_t peak = stat(*m, "peak_bytes");
  EXPECT_LE(peak, before) << "scheduling never raises the peak";
  EXPECT_GT(peak, stat(*m, "parameter_bytes"));
  EXPECT_LT(peak, stat(*m, "intermediate_bytes_total"));
  EXPECT_LE(stat(*m, "arena_bytes"), stat(*m, "intermediate_bytes_total"));
}

TEST(BufferAssignmentTest, ScheduleRunsTheConsumerOfABigValueEarly) {
  // As written, %big1 and %big2 are both live at the add; computing and
  // reducing one before the other needs one big buffer less.
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32>, %arg1: tensor<1024xf32>) -> tensor<f32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %big1 = stablehlo.exponential %arg0 : tensor<1024xf32>
  %big2 = stablehlo.exponential %arg1 : tensor<1024xf32>
  %s1 = stablehlo.reduce(%big1 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024xf32>, tensor<f32>) -> tensor<f32>
  %s2 = stablehlo.reduce(%big2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<1024xf32>, tensor<f32>) -> tensor<f32>
  %r = stablehlo.add %s1, %s2 : tensor<f32>
  return %r : tensor<f32>
})");
  int64_t before = stat(*m, "peak_bytes");
  EXPECT_EQ(before, 4 * kF32x1024 + 4);
  auto changed = createSchedulePass()->run(*m);
  ASSERT_TRUE(changed.isOk());
  EXPECT_TRUE(*changed);
  // The two parameters, %big2, and the scalars %s1 and %s2.
  EXPECT_EQ(stat(*m, "peak_bytes"), 3 * kF32x1024 + 8);
  // Running it again finds nothing better.
  EXPECT_FALSE(*createSchedulePass()->run(*m));
}

TEST(MemoryStatsTest, ReportListsBuffersAndWhatSharesThem) {
  auto m = parse(R"(
func.func @main(%arg0: tensor<1024xf32> {jax.buffer_donor = true}) -> tensor<1024xf32> {
  %a = stablehlo.exponential %arg0 : tensor<1024xf32>
  %b = stablehlo.negate %a : tensor<1024xf32>
  return %b : tensor<1024xf32>
})");
  std::string report = memoryReport(*m);
  EXPECT_NE(report.find("buffer 0: parameter 0 (donated), 4096 bytes, live -1..2: %arg0, #0 stablehlo.exponential, "
                        "#1 stablehlo.negate"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("parameter 0 aliases output 0\n"), std::string::npos) << report;
}

}  // namespace
}  // namespace kiln
