#include "kiln/passes/sharding_rules.h"

#include <algorithm>
#include <cmath>

#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass_util.h"

namespace kiln::sharding {
namespace {

using Positions = std::vector<FactorPosition>;

int resultIndex(const Operation& op, int result) { return static_cast<int>(op.numOperands()) + result; }

int64_t intAttrOr(const Operation& op, std::string_view name, int64_t fallback) {
  Attribute a = op.attr(name);
  return a && a.is(AttrKind::Integer) ? a.intValue() : fallback;
}

Factor passThrough(Positions positions) { return {FactorKind::PassThrough, std::move(positions)}; }

// Elementwise: dimension d of every non-scalar operand and result (select
// and clamp may take scalars beside tensors).
OpShardingRule elementwise(const Operation& op) {
  OpShardingRule rule;
  int64_t rank = op.result(0)->type().rank();
  for (int64_t d = 0; d < rank; ++d) {
    Positions positions;
    for (unsigned i = 0; i < op.numOperands(); ++i)
      if (op.operand(i)->type().rank() == rank) positions.push_back({static_cast<int>(i), d});
    for (unsigned r = 0; r < op.numResults(); ++r) positions.push_back({resultIndex(op, r), d});
    rule.factors.push_back(passThrough(std::move(positions)));
  }
  return rule;
}

OpShardingRule broadcastInDim(const Operation& op) {
  OpShardingRule rule;
  std::vector<int64_t> dims = intListAttr(op, "broadcast_dimensions");
  Type in = op.operand(0)->type(), out = op.result(0)->type();
  for (int64_t d = 0; d < out.rank(); ++d) {
    Positions positions{{resultIndex(op, 0), d}};
    for (size_t i = 0; i < dims.size(); ++i)
      if (dims[i] == d && in.shape()[i] == out.shape()[d]) positions.push_back({0, static_cast<int64_t>(i)});
    rule.factors.push_back(passThrough(std::move(positions)));
  }
  return rule;
}

OpShardingRule transpose(const Operation& op) {
  OpShardingRule rule;
  std::vector<int64_t> perm = intListAttr(op, "permutation");
  for (size_t d = 0; d < perm.size(); ++d)
    rule.factors.push_back(passThrough({{0, perm[d]}, {resultIndex(op, 0), static_cast<int64_t>(d)}}));
  return rule;
}

// A reshape regroups dimensions: consecutive runs of input and output
// dimensions with equal products. Splitting the major dimension of a run on
// both sides into n blocks cuts the run's row-major elements into the same
// n contiguous chunks, so the local reshape is correct (the partitioner
// checks that n divides both). The run's other dimensions stay whole.
OpShardingRule reshape(const Operation& op) {
  OpShardingRule rule;
  std::span<const int64_t> in = op.operand(0)->type().shape(), out = op.result(0)->type().shape();
  size_t i = 0, o = 0;
  while (i < in.size() && o < out.size()) {
    if (in[i] == 1 && out[o] != 1) { ++i; continue; }
    if (out[o] == 1 && in[i] != 1) { ++o; continue; }
    rule.factors.push_back(passThrough({{0, static_cast<int64_t>(i)}, {resultIndex(op, 0), static_cast<int64_t>(o)}}));
    int64_t inProduct = in[i++], outProduct = out[o++];
    while (inProduct != outProduct && i <= in.size() && o <= out.size()) {
      if (inProduct < outProduct) {
        if (i == in.size()) break;
        inProduct *= in[i++];
      } else {
        if (o == out.size()) break;
        outProduct *= out[o++];
      }
    }
    if (inProduct != outProduct) break;
  }
  return rule;
}

OpShardingRule dotGeneral(const Operation& op) {
  OpShardingRule rule;
  Attribute dims = op.attr("dot_dimension_numbers");
  std::vector<int64_t> lb = intListField(dims, "lhs_batching_dimensions"), rb = intListField(dims, "rhs_batching_dimensions");
  std::vector<int64_t> lc = intListField(dims, "lhs_contracting_dimensions"),
                       rc = intListField(dims, "rhs_contracting_dimensions");
  int result = resultIndex(op, 0);
  int64_t r = 0;
  for (size_t k = 0; k < lb.size(); ++k) rule.factors.push_back(passThrough({{0, lb[k]}, {1, rb[k]}, {result, r++}}));
  auto isIn = [](const std::vector<int64_t>& v, int64_t d) { return std::find(v.begin(), v.end(), d) != v.end(); };
  for (int operand : {0, 1}) {
    const std::vector<int64_t>& batch = operand ? rb : lb;
    const std::vector<int64_t>& contracting = operand ? rc : lc;
    for (int64_t d = 0; d < op.operand(operand)->type().rank(); ++d)
      if (!isIn(batch, d) && !isIn(contracting, d)) rule.factors.push_back(passThrough({{operand, d}, {result, r++}}));
  }
  for (size_t k = 0; k < lc.size(); ++k) rule.factors.push_back({FactorKind::Reduction, {{0, lc[k]}, {1, rc[k]}}});
  return rule;
}

// The binary op a reduction body applies to its two arguments, if that is
// all it does (`return op(a, b)`).
std::optional<std::string> singleBinaryOp(const Region& region) {
  if (region.numBlocks() != 1) return std::nullopt;
  Block& body = region.front();
  Operation* first = body.front();
  if (!first || body.size() != 2 || first->numOperands() != 2 || body.numArguments() != 2) return std::nullopt;
  Operation* ret = first->nextInBlock();
  if (ret->numOperands() != 1 || ret->operand(0) != first->result(0)) return std::nullopt;
  bool onArguments = (first->operand(0) == body.argument(0) && first->operand(1) == body.argument(1)) ||
                     (first->operand(0) == body.argument(1) && first->operand(1) == body.argument(0));
  if (!onArguments || !first->name().starts_with("stablehlo.")) return std::nullopt;
  return first->name().substr(std::string_view("stablehlo.").size());
}

// Whether `init` is the identity of `combiner`, so that each device may
// start its partial reduction from it.
bool isIdentity(const Value* init, const std::string& combiner) {
  bool isFloat = init->type().elementType().isFloat();
  if (combiner == "add" || combiner == "or") return isSplatConstantOf(init, 0);
  if (combiner == "multiply") return isSplatConstantOf(init, 1);
  if (combiner == "and") return init->type().elementType().bitWidth() == 1 && isSplatConstantOf(init, 1);
  if (combiner == "maximum") return isFloat && isSplatConstantOf(init, -INFINITY);
  if (combiner == "minimum") return isFloat && isSplatConstantOf(init, INFINITY);
  return false;
}

OpShardingRule reduce(const Operation& op) {
  OpShardingRule rule;
  unsigned inputs = op.numOperands() / 2;
  std::vector<int64_t> reduced = intListAttr(op, "dimensions");
  int64_t rank = op.operand(0)->type().rank(), r = 0;
  std::optional<std::string> combiner = singleBinaryOp(op.region(0));
  bool partialOk = inputs == 1 && combiner && isIdentity(op.operand(1), *combiner);
  for (int64_t d = 0; d < rank; ++d) {
    Positions positions;
    for (unsigned i = 0; i < inputs; ++i) positions.push_back({static_cast<int>(i), d});
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      for (unsigned k = 0; k < op.numResults(); ++k) positions.push_back({resultIndex(op, k), r});
      ++r;
      rule.factors.push_back(passThrough(std::move(positions)));
    } else if (partialOk) {
      rule.factors.push_back({FactorKind::Reduction, std::move(positions)});
    }
  }
  if (combiner) rule.combiner = *combiner;
  return rule;
}

// Dimensions an op keeps whole -- the result's dimension d is the operand's
// dimension d -- when `keeps(d)` says so; the others stay whole.
template <typename Keeps>
OpShardingRule sameDimensionsWhere(const Operation& op, unsigned operands, Keeps keeps) {
  OpShardingRule rule;
  for (int64_t d = 0; d < op.result(0)->type().rank(); ++d) {
    if (!keeps(d)) continue;
    Positions positions;
    for (unsigned i = 0; i < operands; ++i) positions.push_back({static_cast<int>(i), d});
    for (unsigned k = 0; k < op.numResults(); ++k) positions.push_back({resultIndex(op, k), d});
    rule.factors.push_back(passThrough(std::move(positions)));
  }
  return rule;
}

int64_t floorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// A window along a dimension of `in` input and `out` result elements, of
// `size` elements `windowDilation` apart (spanning span = (size - 1) *
// windowDilation + 1), moved by `stride`, over the input dilated by `base`
// (input element j at position j * base) and padded by `low`/`high`, whose
// result has in * base / stride elements ("SAME"-like, strided, dilated, or
// a transposed convolution's upsampling): result element i reads positions
// i * stride - low .. i * stride - low + span - 1. Split into blocks of b
// input and b * base / stride result elements, block k of the result reads
// positions k * b * base - low .. (k + 1) * b * base - stride - low + span - 1:
// its input block widened by floor(low / base) elements before and
// floor((span - 1 - stride - low) / base) + 1 after (negative: that many of
// its own last elements are not read). The local op keeps the padding that
// falls short of a whole element: low mod base before, and after what
// makes its result b * base / stride elements. The Window factor, or nullopt.
std::optional<Factor> windowFactor(int64_t in, int64_t out, int64_t size, int64_t stride, int64_t base,
                                   int64_t windowDilation, int64_t low, int64_t high) {
  int64_t span = (size - 1) * windowDilation + 1;
  if ((span == 1 && stride == 1 && base == 1) || low < 0 || high < 0 || stride < 1 || base < 1 ||
      (in * base) % stride != 0 || out != in * base / stride)
    return std::nullopt;
  Factor f{FactorKind::Window, {}};
  f.haloLow = low / base;
  f.haloHigh = floorDiv(span - 1 - stride - low, base) + 1;
  f.localLow = low - f.haloLow * base;
  f.localHigh = span - 1 - stride - low + base - f.haloHigh * base;
  return f;
}

OpShardingRule convolution(const Operation& op) {
  OpShardingRule rule;
  Attribute dims = op.attr("dimension_numbers");
  int result = resultIndex(op, 0);
  int64_t featureGroups = intAttrOr(op, "feature_group_count", 1), batchGroups = intAttrOr(op, "batch_group_count", 1);
  if (batchGroups == 1)
    rule.factors.push_back(passThrough({{0, intField(dims, "input_batch_dimension", 0)},
                                        {result, intField(dims, "output_batch_dimension", 0)}}));
  if (featureGroups == 1 && batchGroups == 1) {
    rule.factors.push_back(passThrough({{1, intField(dims, "kernel_output_feature_dimension", 0)},
                                        {result, intField(dims, "output_feature_dimension", 0)}}));
    rule.factors.push_back({FactorKind::Reduction,
                            {{0, intField(dims, "input_feature_dimension", 0)},
                             {1, intField(dims, "kernel_input_feature_dimension", 0)}}});
  }
  // Spatial dimensions of a "SAME" window: halo exchange.
  std::vector<int64_t> inputSpatial = intListField(dims, "input_spatial_dimensions"),
                       kernelSpatial = intListField(dims, "kernel_spatial_dimensions"),
                       outputSpatial = intListField(dims, "output_spatial_dimensions");
  size_t n = inputSpatial.size();
  if (kernelSpatial.size() != n || outputSpatial.size() != n) return rule;
  std::vector<int64_t> strides = intListAttrOr(op, "window_strides", n, 1);
  std::vector<int64_t> lhsDilation = intListAttrOr(op, "lhs_dilation", n, 1);
  std::vector<int64_t> rhsDilation = intListAttrOr(op, "rhs_dilation", n, 1);
  std::vector<int64_t> padding = denseIntElements(op.attr("padding")).value_or(std::vector<int64_t>(2 * n, 0));
  std::vector<int64_t> reversed;
  if (Attribute reversal = op.attr("window_reversal")) reversed = reversal.asIntList().value_or(std::vector<int64_t>(n, 1));
  if (std::any_of(reversed.begin(), reversed.end(), [](int64_t r) { return r != 0; }) || padding.size() != 2 * n)
    return rule;
  for (size_t k = 0; k < n; ++k) {
    int64_t window = op.operand(1)->type().shape()[kernelSpatial[k]];
    std::optional<Factor> f = windowFactor(op.operand(0)->type().shape()[inputSpatial[k]],
                                           op.result(0)->type().shape()[outputSpatial[k]], window, strides[k],
                                           lhsDilation[k], rhsDilation[k], padding[2 * k], padding[2 * k + 1]);
    if (!f) continue;
    f->positions = {{0, inputSpatial[k]}, {result, outputSpatial[k]}};
    rule.factors.push_back(std::move(*f));
  }
  return rule;
}

// reduce_window: a dimension whose window is one element with unit stride,
// no padding and no dilation maps element to element; a "SAME" window of
// several elements is a Window factor (halo exchange).
OpShardingRule reduceWindow(const Operation& op) {
  unsigned inputs = op.numOperands() / 2;
  size_t rank = op.operand(0)->type().rank();
  std::vector<int64_t> window = intListAttrOr(op, "window_dimensions", rank, 1);
  std::vector<int64_t> strides = intListAttrOr(op, "window_strides", rank, 1);
  std::vector<int64_t> base = intListAttrOr(op, "base_dilations", rank, 1);
  std::vector<int64_t> windowDil = intListAttrOr(op, "window_dilations", rank, 1);
  std::vector<int64_t> padding = denseIntElements(op.attr("padding")).value_or(std::vector<int64_t>(2 * rank, 0));
  if (padding.size() != 2 * rank) padding.assign(2 * rank, 0);
  OpShardingRule rule = sameDimensionsWhere(op, inputs, [&](int64_t d) {
    return window[d] == 1 && strides[d] == 1 && base[d] == 1 && windowDil[d] == 1 && padding[2 * d] == 0 &&
           padding[2 * d + 1] == 0;
  });
  for (size_t d = 0; d < rank; ++d) {
    std::optional<Factor> f =
        windowFactor(op.operand(0)->type().shape()[d], op.result(0)->type().shape()[d], window[d], strides[d],
                     base[d], windowDil[d], padding[2 * d], padding[2 * d + 1]);
    if (!f) continue;
    for (unsigned i = 0; i < inputs; ++i) f->positions.push_back({static_cast<int>(i), static_cast<int64_t>(d)});
    for (unsigned k = 0; k < op.numResults(); ++k) f->positions.push_back({resultIndex(op, k), static_cast<int64_t>(d)});
    rule.factors.push_back(std::move(*f));
  }
  return rule;
}

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The dimensions of scatter/gather indices that index (all but
// index_vector_dim), in order.
std::vector<int64_t> indexBatchDims(int64_t indicesRank, int64_t indexVectorDim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < indicesRank; ++d)
    if (d != indexVectorDim) dims.push_back(d);
  return dims;
}

// gather: a batch dimension of the indices (one row of them per result row)
// passes through to its result dimension, each device gathering its rows of
// indices from the whole operand; a batching dimension pairs with the
// operand's too. An operand dimension the slice takes whole, at a start no
// index moves, passes through to its offset dimension of the result. The
// operand's indexed dimensions stay whole.
OpShardingRule gather(const Operation& op) {
  OpShardingRule rule;
  Attribute dims = op.attr("dimension_numbers");
  std::vector<int64_t> offsetDims = intListField(dims, "offset_dims"),
                       collapsed = intListField(dims, "collapsed_slice_dims"),
                       operandBatching = intListField(dims, "operand_batching_dims"),
                       indicesBatching = intListField(dims, "start_indices_batching_dims"),
                       startIndexMap = intListField(dims, "start_index_map");
  Type operand = op.operand(0)->type(), indices = op.operand(1)->type(), out = op.result(0)->type();
  int64_t indexVectorDim = intField(dims, "index_vector_dim", indices.rank());
  std::vector<int64_t> sliceSizes = intListAttr(op, "slice_sizes");
  int result = resultIndex(op, 0);
  std::vector<int64_t> batchIndexDims = indexBatchDims(indices.rank(), indexVectorDim);
  size_t next = 0;  // the next indices batch dimension, in the result's order
  for (int64_t r = 0; r < out.rank(); ++r) {
    if (contains(offsetDims, r) || next == batchIndexDims.size()) continue;
    int64_t i = batchIndexDims[next++];
    Positions positions{{1, i}, {result, r}};
    auto k = std::find(indicesBatching.begin(), indicesBatching.end(), i);
    if (k != indicesBatching.end()) positions.push_back({0, operandBatching[k - indicesBatching.begin()]});
    rule.factors.push_back(passThrough(std::move(positions)));
  }
  size_t offset = 0;  // the next offset dimension of the result
  for (int64_t d = 0; d < operand.rank() && static_cast<size_t>(d) < sliceSizes.size(); ++d) {
    if (contains(collapsed, d) || contains(operandBatching, d)) continue;
    if (offset == offsetDims.size()) break;
    int64_t r = offsetDims[offset++];
    if (!contains(startIndexMap, d) && sliceSizes[d] == operand.shape()[d])
      rule.factors.push_back(passThrough({{0, d}, {result, r}}));
  }
  return rule;
}

// scatter (N operands, indices, N updates): an operand dimension the update
// window covers whole, at a start no index moves, passes through to the
// updates' window dimension and the result's: each device scatters its
// slab of the updates into its slab of the operand. A batching dimension
// pairs the operand's, the indices' and the updates'. The updates' other
// scatter dimensions stay whole: splitting them would leave each device
// part of the updates for the whole operand.
OpShardingRule scatter(const Operation& op) {
  OpShardingRule rule;
  Attribute dims = op.attr("scatter_dimension_numbers");
  std::vector<int64_t> windowDims = intListField(dims, "update_window_dims"),
                       inserted = intListField(dims, "inserted_window_dims"),
                       inputBatching = intListField(dims, "input_batching_dims"),
                       indicesBatching = intListField(dims, "scatter_indices_batching_dims"),
                       toOperand = intListField(dims, "scatter_dims_to_operand_dims");
  int n = static_cast<int>(op.numOperands() - 1) / 2;
  Type operand = op.operand(0)->type(), indices = op.operand(n)->type(), updates = op.operand(n + 1)->type();
  int64_t indexVectorDim = intField(dims, "index_vector_dim", indices.rank());
  auto allOf = [&](int64_t operandDim, int64_t updatesDim) {
    Positions positions;
    for (int i = 0; i < n; ++i) {
      positions.push_back({i, operandDim});
      positions.push_back({n + 1 + i, updatesDim});
      positions.push_back({resultIndex(op, i), operandDim});
    }
    return positions;
  };
  size_t window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (contains(inserted, d) || contains(inputBatching, d)) continue;
    if (window == windowDims.size()) break;
    int64_t u = windowDims[window++];
    if (!contains(toOperand, d) && updates.shape()[u] == operand.shape()[d])
      rule.factors.push_back(passThrough(allOf(d, u)));
  }
  std::vector<int64_t> batchIndexDims = indexBatchDims(indices.rank(), indexVectorDim);
  size_t next = 0;  // the updates' scatter dimensions follow the indices' batch dimensions in order
  for (int64_t u = 0; u < updates.rank() && next < batchIndexDims.size(); ++u) {
    if (contains(windowDims, u)) continue;
    int64_t i = batchIndexDims[next++];
    auto k = std::find(indicesBatching.begin(), indicesBatching.end(), i);
    if (k == indicesBatching.end()) continue;
    Positions positions = allOf(inputBatching[k - indicesBatching.begin()], u);
    positions.push_back({n, i});
    rule.factors.push_back(passThrough(std::move(positions)));
  }
  return rule;
}

}  // namespace

std::optional<std::vector<std::vector<std::string>>> reshapeSplit(
    std::span<const int64_t> fromShape, const std::vector<std::vector<std::string>>& from,
    std::span<const int64_t> toShape, const std::function<int64_t(const std::string&)>& axisSize) {
  using Split = std::vector<std::vector<std::string>>;
  struct Entry {
    std::string axis;  // empty: local elements
    int64_t size;
  };
  std::vector<Entry> sequence;
  auto local = [&](int64_t n) {
    if (n == 1) return;
    if (!sequence.empty() && sequence.back().axis.empty()) sequence.back().size *= n;
    else sequence.push_back({"", n});
  };
  if (from.size() != fromShape.size()) return std::nullopt;
  for (int64_t n : fromShape)
    if (n <= 0) return std::nullopt;
  for (int64_t n : toShape)
    if (n <= 0) return std::nullopt;
  for (size_t d = 0; d < fromShape.size(); ++d) {
    int64_t parts = 1;
    for (const std::string& a : from[d]) {
      int64_t size = axisSize(a);
      if (size < 1) return std::nullopt;
      sequence.push_back({a, size});
      parts *= size;
    }
    if (fromShape[d] % parts != 0) return std::nullopt;
    local(fromShape[d] / parts);
  }
  Split to(toShape.size());
  size_t next = 0;
  for (size_t d = 0; d < toShape.size(); ++d) {
    int64_t rest = toShape[d];
    bool tookLocal = false;
    while (next < sequence.size()) {
      Entry& e = sequence[next];
      if (!e.axis.empty()) {
        if (tookLocal || rest % e.size != 0 || (rest == 1 && e.size != 1)) break;
        to[d].push_back(e.axis);
        rest /= e.size;
        ++next;
      } else if (rest == 1) {
        break;
      } else if (e.size % rest == 0) {
        e.size /= rest;
        rest = 1;
        tookLocal = true;
        if (e.size == 1) ++next;
      } else if (rest % e.size == 0) {
        rest /= e.size;
        tookLocal = true;
        ++next;
      } else {
        return std::nullopt;
      }
    }
    if (rest != 1) return std::nullopt;
  }
  if (next != sequence.size()) return std::nullopt;
  return to;
}

std::optional<OpShardingRule> shardingRule(const Operation& op) {
  const std::string& name = op.name();
  if (op.numResults() == 0 || !op.result(0)->type().isTensor()) return std::nullopt;
  for (Value* v : op.operands())
    if (!v->type().isTensor()) return std::nullopt;
  if (op.def() && (op.def()->traits & kElementwise) && op.numRegions() == 0) return elementwise(op);
  if (name == "sdy.sharding_constraint" || name == "sdy.reshard" || name == "stablehlo.convert" ||
      name == "stablehlo.bitcast_convert" && op.operand(0)->type().elementType().bitWidth() ==
                                                 op.result(0)->type().elementType().bitWidth())
    return elementwise(op);
  if (name == "stablehlo.broadcast_in_dim") return broadcastInDim(op);
  if (name == "stablehlo.transpose") return transpose(op);
  if (name == "stablehlo.reshape") return reshape(op);
  if (name == "stablehlo.dot_general") return dotGeneral(op);
  if (name == "stablehlo.reduce") return reduce(op);
  if (name == "stablehlo.convolution") return convolution(op);
  if (name == "stablehlo.reduce_window") return reduceWindow(op);
  if (name == "stablehlo.gather") return gather(op);
  if (name == "stablehlo.scatter") return scatter(op);
  Type out = op.result(0)->type();
  if (name == "stablehlo.concatenate") {
    int64_t along = intAttrOr(op, "dimension", 0);
    return sameDimensionsWhere(op, op.numOperands(), [&](int64_t d) { return d != along; });
  }
  if (name == "stablehlo.sort") {
    int64_t along = intAttrOr(op, "dimension", -1);
    if (along < 0) along += out.rank();
    return sameDimensionsWhere(op, op.numOperands(), [&](int64_t d) { return d != along; });
  }
  if (op.numOperands() == 0) return std::nullopt;
  Type in = op.operand(0)->type();
  auto whole = [&](int64_t d) { return in.shape()[d] == out.shape()[d]; };
  if (name == "stablehlo.slice") {
    std::vector<int64_t> strides = intListAttrOr(op, "strides", in.rank(), 1);
    return sameDimensionsWhere(op, 1, [&](int64_t d) { return whole(d) && strides[d] == 1; });
  }
  if (name == "stablehlo.pad") {
    std::vector<int64_t> low = intListAttr(op, "edge_padding_low"), high = intListAttr(op, "edge_padding_high"),
                         interior = intListAttr(op, "interior_padding");
    auto zero = [&](const std::vector<int64_t>& v, int64_t d) { return v.empty() || v[d] == 0; };
    return sameDimensionsWhere(op, 1, [&](int64_t d) { return zero(low, d) && zero(high, d) && zero(interior, d); });
  }
  if (name == "stablehlo.reverse") {
    std::vector<int64_t> reversed = intListAttr(op, "dimensions");
    return sameDimensionsWhere(op, 1, [&](int64_t d) {
      return std::find(reversed.begin(), reversed.end(), d) == reversed.end();
    });
  }
  if (name == "stablehlo.dynamic_slice") return sameDimensionsWhere(op, 1, whole);
  if (name == "stablehlo.dynamic_update_slice") {
    Type update = op.operand(1)->type();
    return sameDimensionsWhere(op, 2, [&](int64_t d) { return update.shape()[d] == in.shape()[d]; });
  }
  return std::nullopt;
}

}  // namespace kiln::sharding
