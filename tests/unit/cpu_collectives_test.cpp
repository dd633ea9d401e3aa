// The cpu back end's native collectives (native_collectives.cpp) against the
// interpreter's kernels: each op runs on every instance of a grid through
// the shared-memory communicator and through the interpreter's rendezvous,
// on per-instance random operands, and every instance's results must be
// bitwise equal. Covers each reduction and element type, group layouts
// (all, several, ragged, flattened ids, cross-partition) and split or
// concatenated dimensions that are not the outermost. Forms the native path
// does not take must say so and still run (through the rendezvous).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kiln/backends/cpu/routines.h"
#include "kiln/collectives/shared_memory.h"
#include "kiln/interp/evaluate_op.h"
#include "kiln/ir/printer.h"
#include "kiln/parse/parser.h"

namespace kiln {
namespace {

using interp::Tensor;

// Instance i's operands: small integers (so sums stay exact in any order
// would not hide an order bug in floats: the fraction bits below make f32
// sums order-sensitive), an occasional signed zero, infinity or NaN.
Tensor randomOperand(Type type, std::mt19937_64& rng) {
  Tensor t(type);
  Type et = type.elementType();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (et.isFloat()) {
      static const double kEdges[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-3, 3.0e38};
      bool edge = rng() % 16 == 0;
      t.setFloat(i, edge ? kEdges[rng() % std::size(kEdges)] : std::uniform_real_distribution<double>(-8, 8)(rng));
    } else if (et.isBool()) {
      t.setBool(i, rng() & 1);
    } else {
      t.setInt(i, rng() % 4 == 0 ? int64_t(rng()) : std::uniform_int_distribution<int64_t>(-6, 6)(rng));
    }
  }
  return t;
}

// Runs `text`'s one op (the body of func @main) on every instance of a
// numReplicas x numPartitions grid, natively and by the interpreter, and
// expects equal results on every instance.
void expectMatchesInterpreter(const std::string& text, int numReplicas, int numPartitions, bool expectNative) {
  auto module = parseModule(text, "test.mlir");
  ASSERT_TRUE(module.isOk()) << module.status().diag().str() << "\n" << text;
  const Operation& op = *func::body(*(*module)->lookupFunction("main")).front();
  cpu::PreparedRoutine routine(op);
  EXPECT_EQ(routine.isNative(), expectNative) << routine.kind() << "\n" << text;

  int numInstances = numReplicas * numPartitions;
  std::vector<std::vector<Tensor>> operands(numInstances);
  for (int i = 0; i < numInstances; ++i) {
    std::mt19937_64 rng(7919 * (i + 1));
    for (const Value* operand : op.operands()) operands[i].push_back(randomOperand(operand->type(), rng));
  }
  auto expected = interp::runAllInstances(numReplicas, numPartitions, [&](const interp::Instance& instance) {
    return interp::evaluateOp(op, operands[instance.index()], instance, 0);
  });
  ASSERT_TRUE(expected.isOk()) << expected.status().diag().str();
  collectives::SharedMemoryWorld world(numInstances, /*timeoutSeconds=*/60);
  auto actual = interp::runAllInstances(numReplicas, numPartitions, [&](const interp::Instance& instance) {
    interp::Instance member = instance;
    member.communicator = &world.member(instance.index());
    auto results = routine.run(operands[instance.index()], member, 0);
    world.memberExited(instance.index());
    return results;
  });
  ASSERT_TRUE(actual.isOk()) << actual.status().diag().str();
  for (int i = 0; i < numInstances; ++i)
    for (size_t k = 0; k < (*expected)[i].size(); ++k)
      EXPECT_TRUE((*expected)[i][k] == (*actual)[i][k])
          << routine.kind() << ", instance " << i << "\nexpected " << printAttribute((*expected)[i][k].toDense())
          << "\nactual   " << printAttribute((*actual)[i][k].toDense()) << "\n" << text;
}

std::string opModule(const std::string& in, const std::string& out, const std::string& op) {
  return "func.func @main(%x: " + in + ") -> " + out + " {\n  %0 = " + op + " : (" + in + ") -> " + out +
         "\n  return %0 : " + out + "\n}\n";
}

std::string reduction(const std::string& name, const std::string& in, const std::string& out,
                      const std::string& bodyOp, const std::string& et, const std::string& attrs) {
  std::string scalar = "tensor<" + et + ">";
  return opModule(in, out, "\"stablehlo." + name + "\"(%x) ({\n  ^bb0(%a: " + scalar + ", %b: " + scalar +
                               "):\n    %r = " + bodyOp + " %a, %b : " + scalar + "\n    stablehlo.return %r : " +
                               scalar + "\n  }) {" + attrs + "}");
}

const char* kAllOfFour = "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>";
const char* kTwoPairs = "replica_groups = dense<[[0, 2], [3, 1]]> : tensor<2x2xi64>";
const char* kRagged = "replica_groups = dense<[[2, 0, 1], [3, -1, -1]]> : tensor<2x3xi64>";

TEST(CpuCollectives, AllReduceEveryReductionTypeAndLayout) {
  struct Case { const char* et; std::vector<const char*> ops; };
  std::vector<Case> cases = {
      {"f32", {"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum"}},
      {"f64", {"stablehlo.add", "stablehlo.maximum"}},
      {"bf16", {"stablehlo.add", "stablehlo.multiply", "stablehlo.minimum"}},
      {"f16", {"stablehlo.add"}},
      {"i32", {"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.and",
               "stablehlo.or", "stablehlo.xor"}},
      {"ui8", {"stablehlo.add", "stablehlo.maximum"}},
      {"i64", {"stablehlo.add"}},
      {"i1", {"stablehlo.and", "stablehlo.or", "stablehlo.xor"}}};
  for (const Case& c : cases)
    for (const char* bodyOp : c.ops)
      for (const char* groups : {kAllOfFour, kTwoPairs, kRagged}) {
        std::string type = std::string("tensor<5x7x") + c.et + ">";
        expectMatchesInterpreter(reduction("all_reduce", type, type, bodyOp, c.et, groups), 4, 1, true);
      }
}

TEST(CpuCollectives, AllReduceAcrossPartitionsAndFlattenedIds) {
  std::string t = "tensor<3x5xf32>";
  // channel_handle without use_global_device_ids: replica groups across every partition.
  expectMatchesInterpreter(reduction("all_reduce", t, t, "stablehlo.add", "f32",
                                     "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
                                     "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>"),
                           2, 2, true);
  // use_global_device_ids: groups of flattened ids.
  expectMatchesInterpreter(reduction("all_reduce", t, t, "stablehlo.add", "f32",
                                     "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
                                     "replica_groups = dense<[[0, 3], [2, 1]]> : tensor<2x2xi64>, use_global_device_ids"),
                           2, 2, true);
}

// Several operands go through the communicator as one buffer
// (native_collectives.cpp): each result must still be its own operands'.
TEST(CpuCollectives, VariadicAllReduceSendsOneBuffer) {
  for (const char* groups : {kAllOfFour, kTwoPairs, kRagged}) {
    std::string text =
        "func.func @main(%x: tensor<5x7xf32>, %y: tensor<f32>, %z: tensor<0xf32>, %w: tensor<3xf32>) -> "
        "(tensor<5x7xf32>, tensor<f32>, tensor<0xf32>, tensor<3xf32>) {\n"
        "  %0:4 = \"stablehlo.all_reduce\"(%x, %y, %z, %w) ({\n"
        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
        "    %r = stablehlo.add %a, %b : tensor<f32>\n"
        "    stablehlo.return %r : tensor<f32>\n"
        "  }) {" + std::string(groups) + "} : (tensor<5x7xf32>, tensor<f32>, tensor<0xf32>, tensor<3xf32>) -> "
        "(tensor<5x7xf32>, tensor<f32>, tensor<0xf32>, tensor<3xf32>)\n"
        "  return %0#0, %0#1, %0#2, %0#3 : tensor<5x7xf32>, tensor<f32>, tensor<0xf32>, tensor<3xf32>\n}\n";
    expectMatchesInterpreter(text, 4, 1, true);
  }
}

TEST(CpuCollectives, ReduceScatterAlongInnerAndOuterDimensions) {
  expectMatchesInterpreter(reduction("reduce_scatter", "tensor<8x3xf32>", "tensor<2x3xf32>", "stablehlo.add", "f32",
                                     std::string(kAllOfFour) + ", scatter_dimension = 0 : i64"),
                           4, 1, true);
  expectMatchesInterpreter(reduction("reduce_scatter", "tensor<3x8xi32>", "tensor<3x4xi32>", "stablehlo.maximum", "i32",
                                     std::string(kTwoPairs) + ", scatter_dimension = 1 : i64"),
                           4, 1, true);
  expectMatchesInterpreter(reduction("reduce_scatter", "tensor<2x4x3xbf16>", "tensor<2x1x3xbf16>", "stablehlo.add",
                                     "bf16", std::string(kAllOfFour) + ", scatter_dimension = 1 : i64"),
                           4, 1, true);
}

TEST(CpuCollectives, AllGatherAlongInnerAndOuterDimensions) {
  expectMatchesInterpreter(opModule("tensor<2x3xf32>", "tensor<8x3xf32>",
                                    std::string("\"stablehlo.all_gather\"(%x) {all_gather_dim = 0 : i64, ") + kAllOfFour + "}"),
                           4, 1, true);
  expectMatchesInterpreter(opModule("tensor<2x3xi8>", "tensor<2x6xi8>",
                                    std::string("\"stablehlo.all_gather\"(%x) {all_gather_dim = 1 : i64, ") + kTwoPairs + "}"),
                           4, 1, true);
}

TEST(CpuCollectives, AllToAllAcrossSplitAndConcatDimensions) {
  auto allToAll = [](int split, int concat) {
    return "\"stablehlo.all_to_all\"(%x) {split_dimension = " + std::to_string(split) +
           " : i64, concat_dimension = " + std::to_string(concat) + " : i64, split_count = 4 : i64, " + kAllOfFour + "}";
  };
  expectMatchesInterpreter(opModule("tensor<8x3xf32>", "tensor<8x3xf32>", allToAll(0, 0)), 4, 1, true);
  expectMatchesInterpreter(opModule("tensor<3x8xf32>", "tensor<12x2xf32>", allToAll(1, 0)), 4, 1, true);
  expectMatchesInterpreter(opModule("tensor<8x3xi32>", "tensor<2x12xi32>", allToAll(0, 1)), 4, 1, true);
}

TEST(CpuCollectives, CollectivePermuteAndBroadcast) {
  // Replica 3 is no pair's target: zeros.
  expectMatchesInterpreter(
      opModule("tensor<4x2xf32>", "tensor<4x2xf32>",
               "\"stablehlo.collective_permute\"(%x) {source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : tensor<3x2xi64>}"),
      4, 1, true);
  // Across partitions (a channel): within each replica.
  expectMatchesInterpreter(
      opModule("tensor<3xi32>", "tensor<3xi32>",
               "\"stablehlo.collective_permute\"(%x) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, "
               "source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}"),
      2, 2, true);
  // Replicas 0 and 3 are in no group: zeros; 2 is the root of {2, 1}.
  expectMatchesInterpreter(
      opModule("tensor<2x2xf64>", "tensor<2x2xf64>",
               "\"stablehlo.collective_broadcast\"(%x) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>}"),
      4, 1, true);
}

TEST(CpuCollectives, OtherBodiesGoThroughTheRendezvous) {
  // A body of two ops, and an i1 add (or), are not reductions the communicator takes.
  std::string twoOps = opModule("tensor<4xf32>", "tensor<4xf32>",
                                "\"stablehlo.all_reduce\"(%x) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                                "    %s = stablehlo.add %a, %b : tensor<f32>\n    %t = stablehlo.add %s, %b : tensor<f32>\n"
                                "    stablehlo.return %t : tensor<f32>\n  }) {" + std::string(kAllOfFour) + "}");
  expectMatchesInterpreter(twoOps, 4, 1, false);
  expectMatchesInterpreter(reduction("all_reduce", "tensor<6xi1>", "tensor<6xi1>", "stablehlo.add", "i1", kTwoPairs), 4, 1,
                           false);
}

}  // namespace
}  // namespace kiln
