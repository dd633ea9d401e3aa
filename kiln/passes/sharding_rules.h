// Sharding rules: which dimensions of an op's operands and results may be
// split over the same mesh axes, in Shardy's terms of factors.
//
// A factor is a set of dimensions, across the op's operands and results,
// that one split applies to at once: for `add`, dimension i of every operand
// and of the result; for `dot_general`, a batch dimension of lhs, rhs and
// result, or a contracting dimension of lhs and rhs. Splitting a
// pass-through factor splits the work, each device computing its block of
// the result from its blocks of the operands. Splitting a reduction factor
// (contracting or reduced dimensions, which the result lacks) leaves each
// device a partial result, to be combined by an all-reduce.
//
// A dimension in no factor must stay whole (a sort's sorted dimension, a
// concatenation's, the minor dimensions of a reshape's merged group). An op
// with no rule runs whole on every device. Propagation and the partitioner
// share these rules, so what propagation proposes the partitioner can do.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln::sharding {

// Window: a pass-through factor of a windowed op (convolution, reduce_window)
// whose window spans several elements of the dimension, strides over it or
// dilates it (window and base dilation), padded so that the result has the
// input's size times the base dilation over the stride ("SAME", or a
// transposed convolution's upsampling): each device's block of the result
// needs `haloLow` elements of the block before its own and `haloHigh` of the
// block after (negative: its own last -haloHigh elements are not read),
// which the partitioner exchanges with its neighbours (collective_permute)
// before running the op on the widened block, padded by `localLow` and
// `localHigh` (what of the padding falls between dilated elements).
enum class FactorKind { PassThrough, Reduction, Window };

// Dimension `dim` of value `value`: operands first (0 .. numOperands-1),
// then results.
struct FactorPosition {
  int value;
  int64_t dim;
};

struct Factor {
  FactorKind kind = FactorKind::PassThrough;
  std::vector<FactorPosition> positions;
  int64_t haloLow = 0, haloHigh = 0;    // Window factors: the elements read before and after the block
  int64_t localLow = 0, localHigh = 0;  // and the local op's padding along the dimension
};

struct OpShardingRule {
  std::vector<Factor> factors;
  // How partial results of reduction factors combine: the name of a
  // stablehlo binary op ("add", "maximum", ...).
  std::string combiner = "add";
};

// A reshape's split carried across it as a whole. Row-major, each dimension
// of `fromShape` reads as its axes (`from[d]`, major to minor; each device
// holds one coordinate on each) and then its local elements; the whole
// value reads as those sequences one after the other. The split of
// `toShape` whose sequence is the same -- each of its dimensions taking the
// next axes whose sizes divide it, then local elements -- gives every device
// the same elements in the same order, so that reshaping its block gives
// its block of the result:
//
//   f32[8] over {"x"} (x = x1 x x2 = 2 x 2, parts of an axis of 4)  ->  f32[2, 4] over [{x1}, {x2}]
//   f32[2, 4] over [{"a"}, {"b"}]                                     ->  f32[8] over [{"a", "b"}]
//
// nullopt where there is none: a dimension split unevenly, an axis that
// would have to be cut (split further into sub-axes first), or one that
// would fall after a dimension's local elements.
std::optional<std::vector<std::vector<std::string>>> reshapeSplit(
    std::span<const int64_t> fromShape, const std::vector<std::vector<std::string>>& from,
    std::span<const int64_t> toShape, const std::function<int64_t(const std::string&)>& axisSize);

// The rule of `op`, or nullopt when kiln knows none (the op then runs whole
// on every device: control flow, custom calls, ...).
std::optional<OpShardingRule> shardingRule(const Operation& op);

}  // namespace kiln::sharding
