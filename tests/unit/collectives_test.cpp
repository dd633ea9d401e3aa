// The in-process communicator (kiln/collectives/shared_memory.h): every
// operation against a sequential reference computed here, for each reduction
// and element type, over one group of all, several groups and ragged groups;
// and the failure paths: a peer that exits or never arrives makes the others
// fail, quickly, instead of hanging.
#include "kiln/collectives/shared_memory.h"
#include "kiln/collectives/permute.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace kiln::collectives {
namespace {

using Groups = std::vector<std::vector<int>>;

// Runs `body(communicator)` on one thread per member of a world of `size`,
// each member exiting when its body returns, and returns their statuses.
std::vector<Status> runMembers(int size, const std::function<Status(Communicator&)>& body,
                               double timeoutSeconds = 10) {
  SharedMemoryWorld world(size, timeoutSeconds);
  std::vector<Status> statuses(size);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < size; ++rank)
    threads.emplace_back([&, rank] {
      statuses[rank] = body(world.member(rank));
      world.memberExited(rank);
    });
  for (std::thread& t : threads) t.join();
  return statuses;
}

void expectAllOk(const std::vector<Status>& statuses) {
  for (size_t r = 0; r < statuses.size(); ++r) EXPECT_TRUE(statuses[r].isOk()) << "rank " << r << ": " << statuses[r].message();
}

const std::vector<int>& groupOf(const Groups& groups, int rank) {
  for (const auto& g : groups)
    for (int r : g)
      if (r == rank) return g;
  static const std::vector<int> none;
  return none;
}

// Member `rank`'s input: `count` values of T from a seed of its own.
template <typename T>
std::vector<T> inputOf(int rank, int64_t count, const std::function<T(std::mt19937&)>& draw) {
  std::mt19937 gen(1234 + rank);
  std::vector<T> values(count);
  for (T& v : values) v = draw(gen);
  return values;
}

// all_reduce of `count` elements per member over `groups` of a world of
// `size`, against a left fold in group order with `fold`; compared bitwise.
template <typename T>
void checkAllReduce(int size, const Groups& groups, TypeKind type, Reduction op, int64_t count,
                    const std::function<T(std::mt19937&)>& draw, const std::function<T(T, T)>& fold,
                    bool inPlace = false) {
  std::vector<std::vector<T>> inputs, outputs(size);
  for (int r = 0; r < size; ++r) inputs.push_back(inputOf<T>(r, count, draw));
  std::vector<std::vector<T>> buffers = inputs;  // in-place runs reduce these
  expectAllOk(runMembers(size, [&](Communicator& c) {
    int r = c.rank();
    outputs[r].resize(count);
    const void* in = inPlace ? buffers[r].data() : inputs[r].data();
    void* out = inPlace ? buffers[r].data() : outputs[r].data();
    return c.allReduce(groupOf(groups, r), type, op, in, out, count);
  }));
  for (int r = 0; r < size; ++r) {
    const std::vector<int>& g = groupOf(groups, r);
    std::vector<T> expected = inputs[g[0]];
    for (size_t m = 1; m < g.size(); ++m)
      for (int64_t i = 0; i < count; ++i) expected[i] = fold(expected[i], inputs[g[m]][i]);
    const std::vector<T>& got = inPlace ? buffers[r] : outputs[r];
    // (memcmp of an empty vector's null data is undefined: UBSan reported it.)
    if (count > 0)
      ASSERT_EQ(std::memcmp(got.data(), expected.data(), count * sizeof(T)), 0)
        << "rank " << r << ", " << reductionName(op) << " of " << count << " elements";
  }
}

const Groups kAllOfFour = {{0, 1, 2, 3}};
const Groups kTwoPairs = {{0, 2}, {3, 1}};
const Groups kRagged = {{2, 0, 1}, {3}};

float drawFloat(std::mt19937& g) { return std::uniform_real_distribution<float>(-10, 10)(g); }
double drawDouble(std::mt19937& g) { return std::uniform_real_distribution<double>(-10, 10)(g); }
int32_t drawInt(std::mt19937& g) { return int32_t(g()); }  // sums and products overflow: they wrap

TEST(SharedMemoryCommunicator, AllReduceF32EveryReductionAndLayout) {
  for (const Groups& groups : {kAllOfFour, kTwoPairs, kRagged})
    for (int64_t count : {0, 1, 3, 1003, 40000}) {  // fewer than members, ragged slices, several tiles
      checkAllReduce<float>(4, groups, TypeKind::F32, Reduction::Sum, count, drawFloat, [](float a, float b) { return a + b; });
      checkAllReduce<float>(4, groups, TypeKind::F32, Reduction::Product, count, drawFloat, [](float a, float b) { return a * b; });
      checkAllReduce<float>(4, groups, TypeKind::F32, Reduction::Min, count, drawFloat, [](float a, float b) { return std::fmin(a, b); });
      checkAllReduce<float>(4, groups, TypeKind::F32, Reduction::Max, count, drawFloat, [](float a, float b) { return std::fmax(a, b); });
    }
}

TEST(SharedMemoryCommunicator, AllReduceF64AndInPlace) {
  auto sum = [](double a, double b) { return a + b; };
  checkAllReduce<double>(4, kAllOfFour, TypeKind::F64, Reduction::Sum, 5000, drawDouble, sum);
  checkAllReduce<double>(4, kRagged, TypeKind::F64, Reduction::Sum, 5000, drawDouble, sum, /*inPlace=*/true);
  checkAllReduce<double>(3, {{0, 1, 2}}, TypeKind::F64, Reduction::Max, 77, drawDouble,
                         [](double a, double b) { return std::fmax(a, b); }, /*inPlace=*/true);
}

TEST(SharedMemoryCommunicator, AllReduceIntegersWrapAndCombineBits) {
  auto asU = [](int32_t v) { return uint32_t(v); };
  std::vector<std::pair<Reduction, std::function<int32_t(int32_t, int32_t)>>> cases = {
      {Reduction::Sum, [&](int32_t a, int32_t b) { return int32_t(asU(a) + asU(b)); }},
      {Reduction::Product, [&](int32_t a, int32_t b) { return int32_t(asU(a) * asU(b)); }},
      {Reduction::Min, [](int32_t a, int32_t b) { return std::min(a, b); }},
      {Reduction::Max, [](int32_t a, int32_t b) { return std::max(a, b); }},
      {Reduction::And, [](int32_t a, int32_t b) { return a & b; }},
      {Reduction::Or, [](int32_t a, int32_t b) { return a | b; }},
      {Reduction::Xor, [](int32_t a, int32_t b) { return a ^ b; }}};
  for (const Groups& groups : {kAllOfFour, kTwoPairs, kRagged})
    for (auto& [op, fold] : cases) checkAllReduce<int32_t>(4, groups, TypeKind::SI32, op, 2049, drawInt, fold);
  // Unsigned order differs from signed order.
  checkAllReduce<uint32_t>(2, {{0, 1}}, TypeKind::UI32, Reduction::Max, 100, [](std::mt19937& g) { return uint32_t(g()); },
                           [](uint32_t a, uint32_t b) { return std::max(a, b); });
  checkAllReduce<uint8_t>(4, kAllOfFour, TypeKind::UI8, Reduction::Sum, 300, [](std::mt19937& g) { return uint8_t(g()); },
                          [](uint8_t a, uint8_t b) { return uint8_t(a + b); });
  checkAllReduce<uint8_t>(4, kAllOfFour, TypeKind::I1, Reduction::Xor, 300, [](std::mt19937& g) { return uint8_t(g() & 1); },
                          [](uint8_t a, uint8_t b) { return uint8_t(a ^ b); });
}

// bf16 as bits: every step rounds the f32 result to nearest even.
float bf16Value(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}
uint16_t bf16Bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t lsb = (bits >> 16) & 1;
  return uint16_t((bits + 0x7fff + lsb) >> 16);
}

TEST(SharedMemoryCommunicator, AllReduceBf16RoundsEachStep) {
  auto draw = [](std::mt19937& g) { return bf16Bits(std::uniform_real_distribution<float>(-3, 3)(g)); };
  for (const Groups& groups : {kAllOfFour, kRagged}) {
    checkAllReduce<uint16_t>(4, groups, TypeKind::BF16, Reduction::Sum, 9000, draw,
                             [](uint16_t a, uint16_t b) { return bf16Bits(bf16Value(a) + bf16Value(b)); });
    checkAllReduce<uint16_t>(4, groups, TypeKind::BF16, Reduction::Max, 9000, draw,
                             [](uint16_t a, uint16_t b) { return bf16Bits(std::fmax(bf16Value(a), bf16Value(b))); });
  }
}

TEST(SharedMemoryCommunicator, FloatMinMaxPropagateNanAndOrderSignedZeros) {
  float nan = std::nanf("");
  std::vector<std::vector<float>> inputs = {{1, nan, -0.0f, 0.0f}, {2, 5, 0.0f, -0.0f}};
  std::vector<std::vector<float>> maxima(2, std::vector<float>(4)), minima = maxima;
  expectAllOk(runMembers(2, [&](Communicator& c) {
    int r = c.rank();
    std::vector<int> all = {0, 1};
    KILN_RETURN_IF_ERROR(c.allReduce(all, TypeKind::F32, Reduction::Max, inputs[r].data(), maxima[r].data(), 4));
    return c.allReduce(all, TypeKind::F32, Reduction::Min, inputs[r].data(), minima[r].data(), 4);
  }));
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(maxima[r][0], 2);
    EXPECT_TRUE(std::isnan(maxima[r][1]) && std::isnan(minima[r][1]));
    EXPECT_FALSE(std::signbit(maxima[r][2]) || std::signbit(maxima[r][3]));
    EXPECT_TRUE(std::signbit(minima[r][2]) && std::signbit(minima[r][3]));
  }
}

TEST(SharedMemoryCommunicator, ReduceScatterGivesEachMemberItsBlockOfTheSum) {
  const int64_t perMember = 1001;
  for (const Groups& groups : {kAllOfFour, kTwoPairs, kRagged}) {
    std::vector<std::vector<int32_t>> inputs, outputs(4, std::vector<int32_t>(perMember));
    for (int r = 0; r < 4; ++r) inputs.push_back(inputOf<int32_t>(r, perMember * groupOf(groups, r).size(), drawInt));
    expectAllOk(runMembers(4, [&](Communicator& c) {
      int r = c.rank();
      return c.reduceScatter(groupOf(groups, r), TypeKind::SI32, Reduction::Sum, inputs[r].data(), outputs[r].data(), perMember);
    }));
    for (int r = 0; r < 4; ++r) {
      const std::vector<int>& g = groupOf(groups, r);
      size_t position = std::find(g.begin(), g.end(), r) - g.begin();
      for (int64_t i = 0; i < perMember; ++i) {
        uint32_t sum = 0;
        for (int m : g) sum += uint32_t(inputs[m][position * perMember + i]);
        ASSERT_EQ(outputs[r][i], int32_t(sum)) << "rank " << r << " element " << i;
      }
    }
  }
}

TEST(SharedMemoryCommunicator, AllGatherConcatenatesInGroupOrder) {
  for (const Groups& groups : {kAllOfFour, kTwoPairs, kRagged}) {
    std::vector<std::vector<int32_t>> outputs(4);
    expectAllOk(runMembers(4, [&](Communicator& c) {
      int r = c.rank();
      int32_t mine[3] = {r * 10, r * 10 + 1, r * 10 + 2};
      outputs[r].resize(3 * groupOf(groups, r).size());
      return c.allGather(groupOf(groups, r), mine, outputs[r].data(), sizeof mine);
    }));
    for (int r = 0; r < 4; ++r) {
      std::vector<int32_t> expected;
      for (int m : groupOf(groups, r)) expected.insert(expected.end(), {m * 10, m * 10 + 1, m * 10 + 2});
      EXPECT_EQ(outputs[r], expected) << "rank " << r;
    }
  }
}

TEST(SharedMemoryCommunicator, AllToAllSwapsBlocks) {
  for (const Groups& groups : {kAllOfFour, kTwoPairs, kRagged}) {
    std::vector<std::vector<int32_t>> outputs(4);
    expectAllOk(runMembers(4, [&](Communicator& c) {
      int r = c.rank();
      size_t n = groupOf(groups, r).size();
      std::vector<int32_t> in;  // block j holds 100 * sender + j
      for (size_t j = 0; j < n; ++j) in.insert(in.end(), {int32_t(100 * r + j), int32_t(100 * r + j)});
      outputs[r].resize(2 * n);
      return c.allToAll(groupOf(groups, r), in.data(), outputs[r].data(), 2 * sizeof(int32_t));
    }));
    for (int r = 0; r < 4; ++r) {
      const std::vector<int>& g = groupOf(groups, r);
      int32_t position = std::find(g.begin(), g.end(), r) - g.begin();
      std::vector<int32_t> expected;
      for (int m : g) expected.insert(expected.end(), {100 * m + position, 100 * m + position});
      EXPECT_EQ(outputs[r], expected) << "rank " << r;
    }
  }
}

TEST(SharedMemoryCommunicator, CollectivePermuteSendsAlongPairsAndZeroesTheRest) {
  // 0 -> 1 -> 2 and 3 -> 3: rank 0 is no pair's target, rank 4 is named nowhere.
  std::vector<std::pair<int, int>> pairs = {{0, 1}, {1, 2}, {3, 3}};
  std::vector<int64_t> outputs(5, -1);
  expectAllOk(runMembers(5, [&](Communicator& c) {
    int64_t mine = 1000 + c.rank();
    return c.collectivePermute(pairs, &mine, &outputs[c.rank()], sizeof mine);
  }));
  EXPECT_EQ(outputs, (std::vector<int64_t>{0, 1000, 1001, 1003, 0}));
}

TEST(PermuteRoles, EveryNamedRankComputesTheSameGroup) {
  const std::pair<int, int> pairs[] = {{5, 1}, {1, 5}, {3, 3}, {7, 9}};
  for (int rank : {1, 3, 5, 7, 9}) {
    PermuteRoles roles = permuteRoles(pairs, rank);
    EXPECT_EQ(roles.named, (std::vector<int>{1, 3, 5, 7, 9})) << rank;
    EXPECT_TRUE(roles.takesPart) << rank;
  }
  EXPECT_EQ(permuteRoles(pairs, 1).source, 5);
  EXPECT_TRUE(permuteRoles(pairs, 1).sends);
  EXPECT_EQ(permuteRoles(pairs, 3).source, 3);
  EXPECT_EQ(permuteRoles(pairs, 7).source, -1);
  EXPECT_TRUE(permuteRoles(pairs, 7).sends);
  EXPECT_EQ(permuteRoles(pairs, 9).source, 7);
  EXPECT_FALSE(permuteRoles(pairs, 9).sends);
  PermuteRoles outside = permuteRoles(pairs, 2);
  EXPECT_FALSE(outside.takesPart);
  EXPECT_FALSE(outside.sends);
  EXPECT_EQ(outside.source, -1);
  EXPECT_TRUE(permuteRoles({}, 0).named.empty());
}

TEST(SharedMemoryCommunicator, BroadcastCopiesTheRootsBuffer) {
  std::vector<std::vector<double>> outputs(4, std::vector<double>(2));
  expectAllOk(runMembers(4, [&](Communicator& c) {
    const std::vector<int>& g = groupOf(kTwoPairs, c.rank());
    double mine[2] = {double(c.rank()), -double(c.rank())};
    return c.broadcast(g, /*rootIndexInGroup=*/1, mine, outputs[c.rank()].data(), sizeof mine);
  }));
  EXPECT_EQ(outputs, (std::vector<std::vector<double>>{{2, -2}, {1, -1}, {2, -2}, {1, -1}}));
}

TEST(SharedMemoryCommunicator, ManyCallsInARowMeetInOrder) {
  std::vector<int64_t> totals(3);
  expectAllOk(runMembers(3, [&](Communicator& c) {
    std::vector<int> all = {0, 1, 2}, pair = {0, 1};
    int64_t acc = c.rank();
    for (int step = 0; step < 200; ++step) {
      int64_t in = acc + step, out = 0;
      KILN_RETURN_IF_ERROR(c.allReduce(all, TypeKind::SI64, Reduction::Sum, &in, &out, 1));
      if (c.rank() < 2) KILN_RETURN_IF_ERROR(c.allReduce(pair, TypeKind::SI64, Reduction::Max, &out, &out, 1));
      acc = out % 1000;
    }
    totals[c.rank()] = acc;
    return Status::ok();
  }));
  EXPECT_EQ(totals[0], totals[1]);
}

// Large reductions split across each member's threads: the fold order, and
// so every bit, stays the sequential reference's (32 MB of outputs: the
// streaming stores too).
TEST(SharedMemoryCommunicator, AllReduceOnEachMembersThreadsKeepsTheOrder) {
  const int64_t count = 4 << 20;
  std::vector<std::vector<float>> inputs, outputs(2, std::vector<float>(count));
  for (int r = 0; r < 2; ++r) inputs.push_back(inputOf<float>(r, count, drawFloat));
  SharedMemoryWorld world(2, 60);
  std::vector<Status> statuses(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank)
    threads.emplace_back([&, rank] {
      ThreadPool pool(3);
      world.setThreads(rank, &pool);
      std::vector<int> all = {0, 1};
      statuses[rank] = world.member(rank).allReduce(all, TypeKind::F32, Reduction::Sum, inputs[rank].data(),
                                                    outputs[rank].data(), count);
      world.memberExited(rank);
    });
  for (std::thread& t : threads) t.join();
  expectAllOk(statuses);
  for (int r = 0; r < 2; ++r)
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(outputs[r][i], inputs[0][i] + inputs[1][i]) << "rank " << r << " element " << i;
}

// --- Failures ------------------------------------------------------------------

using std::chrono::steady_clock;

double secondsSince(steady_clock::time_point start) {
  return std::chrono::duration<double>(steady_clock::now() - start).count();
}

TEST(SharedMemoryCommunicator, PeerThatExitsMakesTheOthersFail) {
  auto start = steady_clock::now();
  std::vector<Status> statuses = runMembers(4, [](Communicator& c) {
    if (c.rank() == 3) return error("rank 3's program failed");  // exits without reaching the collective
    std::vector<float> data(16, 1.0f);
    std::vector<int> all = {0, 1, 2, 3};
    return c.allReduce(all, TypeKind::F32, Reduction::Sum, data.data(), data.data(), 16);
  }, /*timeoutSeconds=*/300);
  for (int r = 0; r < 3; ++r) {
    ASSERT_FALSE(statuses[r].isOk());
    EXPECT_NE(statuses[r].message().find("rank 3 stopped before reaching this collective"), std::string::npos)
        << statuses[r].message();
  }
  EXPECT_LT(secondsSince(start), 30);  // far below the timeout: the exit, not the timeout, ended the wait
}

TEST(SharedMemoryCommunicator, PeerThatNeverArrivesTimesOut) {
  SharedMemoryWorld world(3, /*timeoutSeconds=*/0.2);
  std::vector<Status> statuses(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank)
    threads.emplace_back([&, rank] {
      int32_t in = rank, out = 0;
      std::vector<int> all = {0, 1, 2};
      statuses[rank] = world.member(rank).allReduce(all, TypeKind::SI32, Reduction::Sum, &in, &out, 1);
    });
  for (std::thread& t : threads) t.join();  // rank 2 is alive but never calls
  for (const Status& s : statuses) {
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("timed out"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("waiting for ranks [2]"), std::string::npos) << s.message();
  }
}

TEST(SharedMemoryCommunicator, RejectsGroupsWithoutTheCallerAndUnknownReductions) {
  SharedMemoryWorld world(2, 1);
  int32_t in = 0, out = 0;
  std::vector<int> other = {1}, outOfRange = {0, 7};
  Status notMember = world.member(0).allGather(other, &in, &out, 4);
  EXPECT_EQ(notMember.code(), ErrorCode::InvalidArgument);
  Status badRank = world.member(0).allGather(outOfRange, &in, &out, 4);
  EXPECT_EQ(badRank.code(), ErrorCode::InvalidArgument);
  std::vector<int> self = {0};
  Status floatXor = world.member(0).allReduce(self, TypeKind::F32, Reduction::Xor, &in, &out, 1);
  EXPECT_EQ(floatXor.code(), ErrorCode::Unimplemented);
}

}  // namespace
}  // namespace kiln::collectives
