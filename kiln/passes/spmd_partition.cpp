// spmd_partition: turns a public function whose values carry shardings (see
// sharding_propagation.cpp) into the program every device runs on its own
// blocks -- one program for all, SPMD -- with the collectives the shardings
// require.
//
//   %x: tensor<8x4xf32> sharded [{"x"}, {}] over x=2   =>  %x: tensor<4x4xf32>
//   %y = dot_general %x, %w (contracting dim of %w split over "y")
//                                                     =>  %p = dot_general %x, %w_local
//                                                          %y = all_reduce(%p) over the "y" groups
//
// Each op runs on local blocks by its sharding rule (sharding_rules.h): the
// result's desired sharding picks how its factors are split; operands are
// resharded to match; a split reduction factor leaves partial results,
// combined by an all_reduce. An op without a rule runs whole: its operands
// are gathered first. Resharding gathers the dimensions whose split changes
// (all_gather over their axes) and then cuts out each device's block of the
// dimensions newly split (dynamic_slice at an offset read from the
// partition id). Fully manual sdy.manual_computation bodies (shard_map) are
// inlined as written, on the blocks of their operands.
//
// Devices are the points of the module's mesh; partition p is the device
// with id p. The module afterwards declares mhlo.num_partitions = the mesh's
// size, and collectives name their groups by partition id
// (use_global_device_ids). Argument and result shardings must divide their
// dimensions evenly; inside the program an uneven split is held in padded
// blocks (see Local).
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "kiln/ir/attribute_readers.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/op_builder.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/sharding_annotations.h"
#include "kiln/passes/sharding_rules.h"
#include "kiln/passes/spmd_devices.h"

namespace kiln {
namespace {

using sharding::Mesh;
using sharding::TensorSharding;
using Axes = std::vector<std::string>;
using DimAxes = std::vector<Axes>;  // per dimension: the axes it is split over

// A value of the partitioned program: the local block, how it is split, and
// the value's global type. A dimension of size n split into k blocks that k
// does not divide (an uneven sharding, as JAX's with_sharding_constraint
// allows) has blocks of ceil(n / k) elements: the blocks tile a padded
// dimension of k * ceil(n / k), whose elements from n on are padding of no
// defined value. Gathering slices the padding off; ops that would read it
// (a reduction over the dimension) mask it first.
struct Local {
  Value* value = nullptr;
  DimAxes split;
  Type global;
};

DimAxes axesOf(const TensorSharding& s) {
  DimAxes out;
  for (const sharding::DimSharding& d : s.dims) out.push_back(d.axes);
  return out;
}

class Partitioner {
 public:
  Partitioner(const Mesh& mesh, Operation& fn, int64_t& nextChannel)
      : mesh_(mesh), fn_(fn), nextChannel_(nextChannel) {}

  Status run() {
    Block& body = func::body(fn_);
    if (body.empty()) return Status::ok();
    entry_ = body.front();
    std::vector<DimAxes> argSplits;
    for (unsigned i = 0; i < body.numArguments(); ++i) {
      Type type = body.argument(i)->type();
      KILN_ASSIGN_OR_RETURN(std::optional<TensorSharding> s, sharding::argumentSharding(fn_, i));
      argSplits.push_back(s && type.isTensor() ? axesOf(*s) : DimAxes(type.isTensor() ? type.rank() : 0));
      KILN_RETURN_IF_ERROR(checkDivides(type, argSplits.back(), "argument " + std::to_string(i)));
    }
    KILN_RETURN_IF_ERROR(partitionBlock(body, argSplits, [&](unsigned i, Value* global) -> Expected<DimAxes> {
      KILN_ASSIGN_OR_RETURN(std::optional<TensorSharding> s, sharding::resultSharding(fn_, i));
      DimAxes to = s ? axesOf(*s) : DimAxes(global->type().isTensor() ? global->type().rank() : 0);
      KILN_RETURN_IF_ERROR(checkDivides(global->type(), to, "result " + std::to_string(i)));
      return to;
    }));
    fn_.setAttr("function_type", Attribute::type(Type::function(body.argumentTypes(), body.terminator()->operandTypes())));
    return Status::ok();
  }

 private:
  using ResultSplit = std::function<Expected<DimAxes>(unsigned, Value*)>;

  // Partitions `block` in place: its arguments, split as `argSplits`, are
  // replaced by local ones (appended, then the originals erased: the rules
  // read global shapes off the original ops and arguments); each op by its
  // local ops; the terminator returns value i split as `resultSplit` says.
  Status partitionBlock(Block& block, const std::vector<DimAxes>& argSplits, const ResultSplit& resultSplit) {
    std::vector<Operation*> ops = block.ops();
    unsigned numArguments = block.numArguments();
    for (unsigned i = 0; i < numArguments; ++i) {
      Value* arg = block.argument(i);
      Value* local = block.addArgument(localType(arg->type(), argSplits[i]), arg->loc);
      locals_[arg] = {local, argSplits[i], arg->type()};
    }
    for (Operation* op : ops) {
      at_ = op;
      if (op == block.terminator()) KILN_RETURN_IF_ERROR(partitionTerminator(*op, resultSplit));
      else KILN_RETURN_IF_ERROR(partition(*op));
    }
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) (*it)->erase();
    for (unsigned i = 0; i < numArguments; ++i) block.eraseArgument(0);
    return Status::ok();
  }

 private:
  // --- Shapes and device positions -----------------------------------------------------------

  int64_t parts(const Axes& axes) const { return spmd::parts(mesh_, axes); }

  Type localType(Type global, const DimAxes& split) const {
    if (!global.isTensor() || split.empty()) return global;
    std::vector<int64_t> shape(global.shape().begin(), global.shape().end());
    for (size_t d = 0; d < shape.size(); ++d) shape[d] = blockSize(shape[d], split[d]);
    return Type::tensor(shape, global.elementType());
  }

  // The elements of a dimension of `size` each block holds when split over
  // `axes`: the last blocks of an uneven split end in padding.
  int64_t blockSize(int64_t size, const Axes& axes) const { return (size + parts(axes) - 1) / parts(axes); }
  bool splitsEvenly(int64_t size, const Axes& axes) const { return size % parts(axes) == 0; }

  Status checkDivides(Type global, const DimAxes& split, const std::string& what) const {
    for (size_t d = 0; d < split.size(); ++d)
      if (global.shape()[d] % parts(split[d]) != 0)
        return error(fn_.loc(), what + ": dimension " + std::to_string(d) + " of size " +
                                    std::to_string(global.shape()[d]) + " does not split evenly into " +
                                    std::to_string(parts(split[d])) +
                                    " blocks; kiln needs even shardings of arguments and results (as JAX's jit "
                                    "does; uneven ones inside the program are padded)");
    return Status::ok();
  }

  int64_t deviceAt(int64_t position) const { return spmd::deviceAt(mesh_, position); }
  int64_t blockIndex(int64_t position, const Axes& axes) const { return spmd::blockIndex(mesh_, position, axes); }
  std::vector<std::vector<int64_t>> groupsOver(const Axes& axes) const { return spmd::groupsOver(mesh_, axes); }

  // --- Building collectives and slices -------------------------------------------------------

  // all_to_all has no use_global_device_ids: with a channel, its groups are
  // partition ids already (one replica).
  void setCollectiveAttrs(OperationState& st, const Axes& axes) {
    st.attributes.set("replica_groups", spmd::replicaGroups(mesh_, axes));
    st.attributes.set("channel_handle",
                      Attribute::structAttr("channel_handle", {{"handle", Attribute::integer(nextChannel_++)},
                                                               {"type", Attribute::integer(1)}}));
    if (st.name != "stablehlo.all_to_all") st.attributes.set("use_global_device_ids", Attribute::unit());
  }

  Value* allGather(Value* v, int64_t dim, const Axes& axes) {
    OperationState st("stablehlo.all_gather", at_->loc());
    st.operands = {v};
    std::vector<int64_t> shape(v->type().shape().begin(), v->type().shape().end());
    shape[dim] *= parts(axes);
    st.resultTypes = {Type::tensor(shape, v->type().elementType())};
    st.attributes.set("all_gather_dim", Attribute::integer(dim));
    setCollectiveAttrs(st, axes);
    return insertBefore(at_, std::move(st))->result();
  }

  // Moves a split over `axes` from dimension `from` to dimension `to`: each
  // device sends the groups' blocks of `to` and receives their blocks of
  // `from`.
  Value* allToAll(Value* v, int64_t from, int64_t to, const Axes& axes) {
    OperationState st("stablehlo.all_to_all", at_->loc());
    st.operands = {v};
    std::vector<int64_t> shape(v->type().shape().begin(), v->type().shape().end());
    shape[from] *= parts(axes);
    shape[to] /= parts(axes);
    st.resultTypes = {Type::tensor(shape, v->type().elementType())};
    st.attributes.set("split_dimension", Attribute::integer(to));
    st.attributes.set("concat_dimension", Attribute::integer(from));
    st.attributes.set("split_count", Attribute::integer(parts(axes)));
    setCollectiveAttrs(st, axes);
    return insertBefore(at_, std::move(st))->result();
  }

  Value* allReduce(Value* v, const Axes& axes, const std::string& combiner) {
    return combine("stablehlo.all_reduce", v, v->type(), axes, combiner, {});
  }

  // Partial results summed and split at once: device i keeps block i of `dim`.
  Value* reduceScatter(Value* v, int64_t dim, const Axes& axes, const std::string& combiner) {
    std::vector<int64_t> shape(v->type().shape().begin(), v->type().shape().end());
    shape[dim] /= parts(axes);
    return combine("stablehlo.reduce_scatter", v, Type::tensor(shape, v->type().elementType()), axes, combiner,
                   {{"scatter_dimension", Attribute::integer(dim)}});
  }

  Value* combine(std::string name, Value* v, Type result, const Axes& axes, const std::string& combiner,
                 std::vector<NamedAttribute> attrs) {
    OperationState st(std::move(name), at_->loc());
    st.operands = {v};
    st.resultTypes = {result};
    for (auto& [key, value] : attrs) st.attributes.set(key, value);
    setCollectiveAttrs(st, axes);
    Type scalar = Type::tensor({}, v->type().elementType());
    Block* body = st.addRegion()->addBlock();
    Value* lhs = body->addArgument(scalar);
    Value* rhs = body->addArgument(scalar);
    OperationState combine("stablehlo." + combiner, at_->loc());
    combine.operands = {lhs, rhs};
    combine.resultTypes = {scalar};
    Operation* combined = body->push_back(Operation::create(std::move(combine)));
    OperationState ret("stablehlo.return", at_->loc());
    ret.operands = {combined->result()};
    body->push_back(Operation::create(std::move(ret)));
    return insertBefore(at_, std::move(st))->result();
  }

  // This device's offset into a dimension split over `axes` in blocks of
  // `blockSize`: a table indexed by partition id, built once per function.
  Value* blockOffset(const Axes& axes, int64_t blockSize) {
    std::string key = std::to_string(blockSize);
    for (const std::string& a : axes) key += "," + a;
    if (Value* cached = offsets_[key]) return cached;
    Operation* pos = entry_;
    auto build = [&](OperationState st) { return insertBefore(pos, std::move(st))->result(); };
    if (!partitionIndex_) {
      OperationState id("stablehlo.partition_id", pos->loc());
      id.resultTypes = {Type::tensor({}, Type::integer(32, /*isUnsigned=*/true))};
      Value* raw = build(std::move(id));
      OperationState convert("stablehlo.convert", pos->loc());
      convert.operands = {raw};
      convert.resultTypes = {Type::tensor({}, Type::integer(32))};
      partitionIndex_ = build(std::move(convert));
    }
    OperationState constant("stablehlo.constant", pos->loc());
    constant.attributes.set("value", spmd::blockOffsetTable(mesh_, axes, blockSize));
    constant.resultTypes = {Type::tensor({mesh_.numDevices()}, Type::integer(32))};
    Value* tableValue = build(std::move(constant));
    OperationState pick("stablehlo.dynamic_slice", pos->loc());
    pick.operands = {tableValue, partitionIndex_};
    pick.attributes.set("slice_sizes", Attribute::denseI64Array({1}));
    pick.resultTypes = {Type::tensor({1}, Type::integer(32))};
    Value* picked = build(std::move(pick));
    OperationState scalar("stablehlo.reshape", pos->loc());
    scalar.operands = {picked};
    scalar.resultTypes = {Type::tensor({}, Type::integer(32))};
    return offsets_[key] = build(std::move(scalar));
  }

  Value* zeroIndex() {
    if (zero_) return zero_;
    OperationState constant("stablehlo.constant", entry_->loc());
    constant.attributes.set("value", denseInts({}, {0}, 32));
    constant.resultTypes = {Type::tensor({}, Type::integer(32))};
    return zero_ = insertBefore(entry_, std::move(constant))->result();
  }

  Value* build(OperationState st) { return insertBefore(at_, std::move(st))->result(); }

  Value* scalarConstant(int64_t value) {
    OperationState constant("stablehlo.constant", at_->loc());
    constant.attributes.set("value", denseInts({}, {value}, 32));
    constant.resultTypes = {Type::tensor({}, Type::integer(32))};
    return build(std::move(constant));
  }

  Value* sliceAlong(Value* v, int64_t dim, int64_t begin, int64_t end) {
    return Builder(*at_).sliceAlong(v, dim, begin, end);
  }

  // Each device of the groups over `axes` sends `v` to the device `step`
  // blocks after it (before, when negative); those none sends to get zeros.
  Value* shiftBlocks(Value* v, const Axes& axes, int64_t step) {
    std::vector<int64_t> pairs;
    for (const std::vector<int64_t>& g : groupsOver(axes))
      for (int64_t j = 0; j < static_cast<int64_t>(g.size()); ++j)
        if (j + step >= 0 && j + step < static_cast<int64_t>(g.size())) {
          pairs.push_back(g[j]);
          pairs.push_back(g[j + step]);
        }
    OperationState st("stablehlo.collective_permute", at_->loc());
    st.operands = {v};
    st.resultTypes = {v->type()};
    st.attributes.set("source_target_pairs", denseInts({static_cast<int64_t>(pairs.size() / 2), 2}, pairs, 64));
    st.attributes.set("channel_handle",
                      Attribute::structAttr("channel_handle", {{"handle", Attribute::integer(nextChannel_++)},
                                                               {"type", Attribute::integer(1)}}));
    return build(std::move(st));
  }

  // `halo` where this device holds block `edge` of the dimension split over
  // `axes` (it received nothing there) is `fill` (a scalar) instead.
  Value* fillAtEdge(Value* halo, Value* fill, const Axes& axes, int64_t edge) {
    OperationState compare("stablehlo.compare", at_->loc());
    compare.operands = {blockOffset(axes, 1), scalarConstant(edge)};
    compare.attributes.set("comparison_direction", Attribute::enumAttr("comparison_direction", "EQ"));
    compare.resultTypes = {Type::tensor({}, Type::integer(1))};
    Value* atEdge = build(std::move(compare));
    OperationState broadcast("stablehlo.broadcast_in_dim", at_->loc());
    broadcast.operands = {fill};
    broadcast.attributes.set("broadcast_dimensions", Attribute::denseI64Array({}));
    broadcast.resultTypes = {halo->type()};
    Value* filled = build(std::move(broadcast));
    OperationState select("stablehlo.select", at_->loc());
    select.operands = {atEdge, filled, halo};
    select.resultTypes = {halo->type()};
    return build(std::move(select));
  }

  // `v`, this device's block of a dimension split over `axes`, widened by
  // the `low` last elements of the block before it and the `high` first of
  // the block after (collective_permute): what a "SAME" window needs to
  // compute the device's block of the result. Where there is no neighbour
  // the halo is the op's padding: zeros, or `fill` when given.
  Value* withHalo(Value* v, int64_t dim, int64_t low, int64_t high, const Axes& axes, Value* fill) {
    int64_t block = v->type().shape()[dim];
    std::vector<Value*> pieces;
    if (low > 0) {
      Value* left = shiftBlocks(sliceAlong(v, dim, block - low, block), axes, 1);
      pieces.push_back(fill ? fillAtEdge(left, fill, axes, 0) : left);
    }
    // A stride that leaves the block's last elements unread: they go.
    pieces.push_back(high < 0 ? sliceAlong(v, dim, 0, block + high) : v);
    if (high > 0) {
      Value* right = shiftBlocks(sliceAlong(v, dim, 0, high), axes, -1);
      pieces.push_back(fill ? fillAtEdge(right, fill, axes, parts(axes) - 1) : right);
    }
    if (pieces.size() == 1) return pieces.front();
    std::vector<int64_t> shape(v->type().shape().begin(), v->type().shape().end());
    shape[dim] += low + high;
    OperationState concat("stablehlo.concatenate", at_->loc());
    concat.operands = pieces;
    concat.attributes.set("dimension", Attribute::integer(dim));
    concat.resultTypes = {Type::tensor(shape, v->type().elementType())};
    return build(std::move(concat));
  }

  // Cuts this device's block out of `v` (whole along the dimensions `to`
  // splits).
  Value* sliceTo(Value* v, const DimAxes& to) {
    // An uneven split is cut from the padded dimension: dynamic_slice would
    // move the last block's start back to keep it inside the value.
    std::vector<int64_t> padding(to.size(), 0);
    for (size_t d = 0; d < to.size(); ++d)
      if (!to[d].empty()) padding[d] = blockSize(v->type().shape()[d], to[d]) * parts(to[d]) - v->type().shape()[d];
    if (std::any_of(padding.begin(), padding.end(), [](int64_t p) { return p > 0; })) v = padHigh(v, padding);
    std::vector<Value*> operands{v};
    std::vector<int64_t> sizes;
    for (size_t d = 0; d < to.size(); ++d) {
      int64_t block = v->type().shape()[d] / parts(to[d]);
      sizes.push_back(block);
      operands.push_back(to[d].empty() ? zeroIndex() : blockOffset(to[d], block));
    }
    OperationState st("stablehlo.dynamic_slice", at_->loc());
    st.operands = std::move(operands);
    st.attributes.set("slice_sizes", Attribute::denseI64Array(sizes));
    st.resultTypes = {Type::tensor(sizes, v->type().elementType())};
    return insertBefore(at_, std::move(st))->result();
  }

  // `v` with `high[d]` zeros after the end of each dimension d.
  Value* padHigh(Value* v, const std::vector<int64_t>& high) {
    Builder b(*at_);
    Value* zero = b.constant(Type::tensor({}, v->type().elementType()), 0.0);
    std::vector<int64_t> shape(v->type().shape().begin(), v->type().shape().end());
    for (size_t d = 0; d < shape.size(); ++d) shape[d] += high[d];
    std::vector<int64_t> none(shape.size(), 0);
    return b.op("stablehlo.pad", {v, zero},
                AttrDict({{"edge_padding_low", Attribute::denseI64Array(none)},
                          {"edge_padding_high", Attribute::denseI64Array(high)},
                          {"interior_padding", Attribute::denseI64Array(none)}}),
                Type::tensor(shape, v->type().elementType()));
  }

  // `v`, a block of a dimension of `size` elements split unevenly over
  // `axes`, with `fill` (a scalar) in place of its padding: what a reduction
  // over the dimension needs (its identity, or zero for a dot).
  Value* maskPadding(Value* v, int64_t dim, int64_t size, const Axes& axes, Value* fill) {
    Builder b(*at_);
    Type type = v->type();
    int64_t block = type.shape()[dim];
    Type indexType = type.withElementType(Type::integer(32));
    Value* offset = blockOffset(axes, block);
    Value* limit = scalarConstant(size);
    Value* index = b.op("stablehlo.iota", {}, AttrDict({{"iota_dimension", Attribute::integer(dim)}}), indexType);
    Value* global = b.binary("add", index, b.broadcast(offset, indexType, {}));
    Value* valid = b.op("stablehlo.compare", {global, b.broadcast(limit, indexType, {})},
                        AttrDict({{"comparison_direction", Attribute::enumAttr("comparison_direction", "LT")}}),
                        type.withElementType(Type::integer(1)));
    Value* filled = b.broadcast(fill, type, {});
    return b.op("stablehlo.select", {valid, v, filled}, {}, type);
  }

  // `from` resharded to `to`: a split that only moves to another dimension
  // goes by all_to_all; otherwise gather what changes, then slice.
  Local reshard(const Local& from, const DimAxes& to) {
    if (!from.value->type().isTensor() || from.split == to) return from;
    Local current = from;
    std::span<const int64_t> global = from.global.shape();
    for (size_t a = 0; a < to.size(); ++a) {
      if (current.split[a].empty() || current.split[a] == to[a]) continue;
      for (size_t b = 0; b < to.size(); ++b)
        if (b != a && current.split[b].empty() && to[b] == current.split[a] && to[a].empty() &&
            splitsEvenly(global[a], current.split[a]) && splitsEvenly(global[b], to[b])) {
          current.value = allToAll(current.value, static_cast<int64_t>(a), static_cast<int64_t>(b), to[b]);
          current.split[b] = to[b];
          current.split[a].clear();
          break;
        }
    }
    bool slice = false;
    for (size_t d = 0; d < to.size(); ++d) {
      if (current.split[d] == to[d]) continue;
      if (!current.split[d].empty()) {
        current.value = allGather(current.value, static_cast<int64_t>(d), current.split[d]);
        if (!splitsEvenly(global[d], current.split[d]))
          current.value = sliceAlong(current.value, static_cast<int64_t>(d), 0, global[d]);
        current.split[d].clear();
      }
      slice |= !to[d].empty();
    }
    if (slice) {
      DimAxes cut(to.size());
      for (size_t d = 0; d < to.size(); ++d)
        if (current.split[d] != to[d]) cut[d] = to[d];
      current.value = sliceTo(current.value, cut);
      current.split = to;
    }
    return current;
  }

  Local replicatedOf(Value* original) {
    const Local& l = locals_.at(original);
    return reshard(l, DimAxes(l.split.size()));
  }

  // --- Ops -----------------------------------------------------------------------------------

  Status partition(Operation& op) {
    const std::string& name = op.name();
    if (name == "stablehlo.while") return partitionWhile(op);
    if (name == "stablehlo.if" || name == "stablehlo.case") return partitionBranches(op);
    if (name == "sdy.sharding_constraint" || name == "sdy.reshard") {
      KILN_ASSIGN_OR_RETURN(TensorSharding s, sharding::parseSharding(op.attr("sharding").stringValue()));
      locals_[op.result(0)] = reshard(locals_.at(op.operand(0)), axesOf(s));
      return Status::ok();
    }
    if (name == "sdy.propagation_barrier") {
      locals_[op.result(0)] = locals_.at(op.operand(0));
      return Status::ok();
    }
    if (name == "sdy.sharding_group") return Status::ok();
    if (name == "sdy.manual_computation") return partitionManual(op);
    if (name == "stablehlo.reshape") {
      KILN_ASSIGN_OR_RETURN(bool done, partitionReshape(op));
      if (done) return Status::ok();
    }
    std::optional<sharding::OpShardingRule> rule = sharding::shardingRule(op);
    if (!rule || capturesOuterValues(op)) return runWhole(op);
    return partitionByRule(op, *rule);
  }

  // A reshape whose wanted result split carries back onto its operand as a
  // whole (sharding::reshapeSplit: a dimension split over "x" of 4 into 2 x
  // 4 over the halves of "x", two split dimensions merged over both axes)
  // runs on blocks: the operand resharded to that split, each device
  // reshaping its block into its block of the result. false where it does
  // not carry (uneven, nothing wanted split): the rule's factors decide.
  Expected<bool> partitionReshape(Operation& op) {
    KILN_ASSIGN_OR_RETURN(std::optional<std::vector<TensorSharding>> desired, sharding::opShardings(op));
    if (!desired || !op.operand(0)->type().isTensor() || !op.result(0)->type().isTensor()) return false;
    DimAxes want = axesOf((*desired)[0]);
    if (std::all_of(want.begin(), want.end(), [](const Axes& a) { return a.empty(); })) return false;
    std::optional<DimAxes> operandSplit =
        sharding::reshapeSplit(op.result(0)->type().shape(), want, op.operand(0)->type().shape(),
                               [&](const std::string& a) { return mesh_.axisSize(a); });
    if (!operandSplit) return false;
    Value* in = reshard(locals_.at(op.operand(0)), *operandSplit).value;
    std::vector<std::pair<Value*, Value*>> mapping{{op.operand(0), in}};
    std::unique_ptr<Operation> local = op.clone(&mapping);
    local->setOperand(0, in);
    local->attrs().erase("sdy.sharding");
    local->result(0)->setType(localType(op.result(0)->type(), want));
    Operation* placed = at_->parentBlock()->insertBefore(at_, std::move(local));
    locals_[op.result(0)] = {placed->result(0), want, op.result(0)->type()};
    return true;
  }

  Value* valueAt(Operation& op, int index) {
    return index < static_cast<int>(op.numOperands()) ? op.operand(index) : op.result(index - op.numOperands());
  }

  Status partitionByRule(Operation& op, const sharding::OpShardingRule& rule) {
    KILN_ASSIGN_OR_RETURN(std::optional<std::vector<TensorSharding>> desired, sharding::opShardings(op));
    int numOperands = static_cast<int>(op.numOperands());
    std::vector<DimAxes> splits;  // per operand and result
    for (int i = 0; i < numOperands + static_cast<int>(op.numResults()); ++i)
      splits.emplace_back(valueAt(op, i)->type().rank());
    std::set<std::string> used;
    Axes partialAxes;
    std::vector<const sharding::Factor*> halos;   // split Window factors
    std::vector<const sharding::Factor*> masked;  // unevenly split Reduction factors
    // Reduction factors choose first: keeping a contracting split and
    // reduce-scattering beats gathering the operands.
    std::vector<const sharding::Factor*> order;
    for (const sharding::Factor& f : rule.factors)
      if (f.kind == sharding::FactorKind::Reduction) order.push_back(&f);
    for (const sharding::Factor& f : rule.factors)
      if (f.kind != sharding::FactorKind::Reduction) order.push_back(&f);
    for (const sharding::Factor* factorPtr : order) {
      const sharding::Factor& factor = *factorPtr;
      Axes axes;
      for (const sharding::FactorPosition& p : factor.positions) {
        if (p.value >= numOperands) {
          if (desired) axes = (*desired)[p.value - numOperands].dims[p.dim].axes;
          break;
        }
      }
      if (factor.kind == sharding::FactorKind::Reduction || !hasResultPosition(factor, numOperands))
        for (const sharding::FactorPosition& p : factor.positions)
          if (const Axes& a = locals_.at(valueAt(op, p.value)).split[p.dim]; !a.empty()) {
            axes = a;
            break;
          }
      bool usable = std::none_of(axes.begin(), axes.end(), [&](const std::string& a) { return used.count(a); });
      bool even = true, sameSize = true;
      for (const sharding::FactorPosition& p : factor.positions) {
        int64_t size = valueAt(op, p.value)->type().shape()[p.dim];
        even &= splitsEvenly(size, axes);
        sameSize &= size == valueAt(op, factor.positions.front().value)->type().shape()[factor.positions.front().dim];
        // A halo comes from the neighbouring block of the input only.
        if (factor.kind == sharding::FactorKind::Window && even && p.value < numOperands)
          usable &= std::max(factor.haloLow, factor.haloHigh) <= size / parts(axes);
      }
      // An uneven split works where every position pads alike (the same
      // size) and the op's local form reads padding only where it is masked.
      if (!even) usable &= sameSize && factor.kind != sharding::FactorKind::Window && takesUnevenSplits(op);
      if (!usable) axes.clear();
      if (factor.kind == sharding::FactorKind::Window && !axes.empty()) halos.push_back(factorPtr);
      if (factor.kind == sharding::FactorKind::Reduction && !even && !axes.empty()) masked.push_back(factorPtr);
      used.insert(axes.begin(), axes.end());
      for (const sharding::FactorPosition& p : factor.positions) splits[p.value][p.dim] = axes;
      if (factor.kind == sharding::FactorKind::Reduction) partialAxes.insert(partialAxes.end(), axes.begin(), axes.end());
    }
    std::vector<std::pair<Value*, Value*>> mapping;
    for (int i = 0; i < numOperands; ++i)
      mapping.emplace_back(op.operand(i), reshard(locals_.at(op.operand(i)), splits[i]).value);
    for (const sharding::Factor* f : halos)
      for (const sharding::FactorPosition& p : f->positions) {
        if (p.value >= numOperands) continue;
        // reduce_window pads input i with its init value (operand inputs + i).
        Value* fill = op.name() == "stablehlo.reduce_window" ? mapping[numOperands / 2 + p.value].second : nullptr;
        mapping[p.value].second =
            withHalo(mapping[p.value].second, p.dim, f->haloLow, f->haloHigh, splits[p.value][p.dim], fill);
      }
    // A reduction over an uneven split must not fold the padding in: it
    // becomes the reduction's identity (the init value of a reduce, zero for
    // a dot or convolution, on both operands since padding may be NaN).
    for (const sharding::Factor* f : masked)
      for (const sharding::FactorPosition& p : f->positions) {
        if (p.value >= numOperands) continue;
        Value* fill = op.name() == "stablehlo.reduce"
                          ? mapping[numOperands / 2 + p.value].second
                          : Builder(*at_).constant(Type::tensor({}, op.operand(p.value)->type().elementType()), 0.0);
        mapping[p.value].second = maskPadding(mapping[p.value].second, p.dim, op.operand(p.value)->type().shape()[p.dim],
                                              splits[p.value][p.dim], fill);
      }
    std::unique_ptr<Operation> local = op.clone(&mapping);
    // The mapping is per operand, not per value: an op reading one value
    // twice (dot_general %v, %v) may need it split differently at each use,
    // and clone would map both uses to the first entry.
    for (int i = 0; i < numOperands; ++i) local->setOperand(i, mapping[i].second);
    local->attrs().erase("sdy.sharding");
    for (const sharding::Factor* f : halos) padLocally(*local, f->positions.front().dim, f->localLow, f->localHigh);
    for (unsigned r = 0; r < op.numResults(); ++r)
      local->result(r)->setType(localType(op.result(r)->type(), splits[numOperands + r]));
    localizeShapeAttributes(*local);
    Operation* placed = at_->parentBlock()->insertBefore(at_, std::move(local));
    for (unsigned r = 0; r < op.numResults(); ++r) {
      Value* v = placed->result(r);
      DimAxes split = splits[numOperands + r];
      if (!partialAxes.empty()) {
        // Where the result is wanted split over the very axes it is partial
        // over, one reduce_scatter sums and splits.
        int64_t scatter = -1;
        for (size_t d = 0; desired && d < split.size() && scatter < 0; ++d)
          if (split[d].empty() && (*desired)[r].dims[d].axes == partialAxes &&
              v->type().shape()[d] % parts(partialAxes) == 0)
            scatter = static_cast<int64_t>(d);
        if (scatter >= 0) {
          v = reduceScatter(v, scatter, partialAxes, rule.combiner);
          split[scatter] = partialAxes;
        } else {
          v = allReduce(v, partialAxes, rule.combiner);
        }
      }
      locals_[op.result(r)] = {v, split, op.result(r)->type()};
    }
    return Status::ok();
  }

  // Ops whose local form on padded blocks computes the valid elements right
  // (padding in, padding out): all with rules but those that move elements
  // across a dimension's blocks by their positions -- a reshape regroups
  // the padding into the middle, a gather or scatter reads or writes where
  // indices say.
  static bool takesUnevenSplits(const Operation& op) {
    return op.name() != "stablehlo.reshape" && op.name() != "stablehlo.gather" && op.name() != "stablehlo.scatter";
  }

  static bool hasResultPosition(const sharding::Factor& factor, int numOperands) {
    return std::any_of(factor.positions.begin(), factor.positions.end(),
                       [&](const sharding::FactorPosition& p) { return p.value >= numOperands; });
  }

  // Attributes that spell out sizes of dimensions the rule keeps whole
  // (slice limits, dynamic_slice sizes) follow the local operand.
  static void localizeShapeAttributes(Operation& local) {
    Type in = local.operand(0)->type();
    if (local.name() == "stablehlo.slice") {
      std::vector<int64_t> limits = intListAttr(local, "limit_indices");
      Type out = local.result(0)->type();
      for (size_t d = 0; d < limits.size(); ++d)
        if (out.shape()[d] == in.shape()[d]) limits[d] = in.shape()[d];
      local.setAttr("limit_indices", Attribute::denseI64Array(limits));
    } else if (local.name() == "stablehlo.dynamic_slice") {
      std::vector<int64_t> sizes(local.result(0)->type().shape().begin(), local.result(0)->type().shape().end());
      local.setAttr("slice_sizes", Attribute::denseI64Array(sizes));
    } else if (local.name() == "stablehlo.gather") {
      // A dimension the slice takes whole may be split (sharding_rules.cpp):
      // it then takes the whole local block. Others are unsplit, their
      // sizes at most the dimension's.
      std::vector<int64_t> sizes = intListAttr(local, "slice_sizes");
      for (size_t d = 0; d < sizes.size() && d < static_cast<size_t>(in.rank()); ++d)
        sizes[d] = std::min(sizes[d], in.shape()[d]);
      local.setAttr("slice_sizes", Attribute::denseI64Array(sizes));
    }
  }

  // The local windowed op reads its halo where the whole op read padding:
  // along input dimension `dim` only what falls between dilated elements.
  static void padLocally(Operation& local, int64_t dim, int64_t low, int64_t high) {
    int64_t row = dim, rows = local.operand(0)->type().rank();  // reduce_window: one row per dimension
    if (local.name() == "stablehlo.convolution") {
      std::vector<int64_t> spatial = intListField(local.attr("dimension_numbers"), "input_spatial_dimensions");
      row = std::find(spatial.begin(), spatial.end(), dim) - spatial.begin();
      rows = static_cast<int64_t>(spatial.size());
    }
    std::vector<int64_t> padding =
        denseIntElements(local.attr("padding")).value_or(std::vector<int64_t>(2 * rows, 0));
    if (2 * row + 1 >= static_cast<int64_t>(padding.size())) return;
    padding[2 * row] = low;
    padding[2 * row + 1] = high;
    local.setAttr("padding", denseInts({static_cast<int64_t>(padding.size() / 2), 2}, padding, 64));
  }

  bool capturesOuterValues(Operation& op) {
    bool captures = false;
    for (auto& region : op.regions())
      for (auto& block : region->blocks())
        for (Operation* inner : block->ops())
          inner->walk([&](Operation& nested) {
            for (Value* v : nested.operands()) captures |= !isInside(v, op);
          });
    return captures;
  }

  static bool isInside(Value* v, const Operation& op) {
    Operation* owner = v->isBlockArgument() ? v->ownerBlock()->parentOp() : v->definingOp();
    for (; owner; owner = owner->parentOp())
      if (owner == &op) return true;
    return false;
  }

  // An op without a rule: every device runs it whole on gathered operands.
  Status runWhole(Operation& op) {
    std::vector<std::pair<Value*, Value*>> mapping;
    auto mapOuter = [&](Value* v) {
      if (isInside(v, op) || std::any_of(mapping.begin(), mapping.end(), [&](auto& m) { return m.first == v; })) return;
      mapping.emplace_back(v, replicatedOf(v).value);
    };
    for (Value* v : op.operands()) mapOuter(v);
    op.walk([&](Operation& nested) {
      if (&nested != &op)
        for (Value* v : nested.operands()) mapOuter(v);
    });
    std::unique_ptr<Operation> local = op.clone(&mapping);
    local->attrs().erase("sdy.sharding");
    Operation* placed = at_->parentBlock()->insertBefore(at_, std::move(local));
    for (unsigned r = 0; r < op.numResults(); ++r)
      locals_[op.result(r)] = {placed->result(r), DimAxes(op.result(r)->type().isTensor() ? op.result(r)->type().rank() : 0),
                                op.result(r)->type()};
    return Status::ok();
  }

  // shard_map over every mesh axis: the body already is per-device code.
  Status partitionManual(Operation& op) {
    Attribute manualAxes = op.attr("manual_axes");
    std::string text = manualAxes && manualAxes.is(AttrKind::Opaque) ? manualAxes.stringValue() : "";
    for (const sharding::MeshAxis& axis : mesh_.axes)
      if (text.find("\"" + axis.name + "\"") == std::string::npos)
        return error(op.loc(), "sdy.manual_computation is manual over some mesh axes only (not \"" + axis.name +
                                   "\"); kiln partitions fully manual computations only");
    KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> in,
                          sharding::parseShardingPerValue(op.attr("in_shardings").stringValue()));
    KILN_ASSIGN_OR_RETURN(std::vector<TensorSharding> out,
                          sharding::parseShardingPerValue(op.attr("out_shardings").stringValue()));
    if (in.size() != op.numOperands() || out.size() != op.numResults())
      return error(op.loc(), "sdy.manual_computation: in/out shardings do not match its operands/results");
    std::vector<Value*> operands;
    for (unsigned i = 0; i < op.numOperands(); ++i)
      operands.push_back(reshard(locals_.at(op.operand(i)), axesOf(in[i])).value);
    std::vector<Value*> results = cloneBodyBefore(at_, op.region(0).front(), operands);
    for (unsigned r = 0; r < op.numResults(); ++r) locals_[op.result(r)] = {results[r], axesOf(out[r]), op.result(r)->type()};
    return Status::ok();
  }

  Status partitionTerminator(Operation& op, const ResultSplit& resultSplit) {
    OperationState ret(op.name(), op.loc());
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      KILN_ASSIGN_OR_RETURN(DimAxes to, resultSplit(i, op.operand(i)));
      ret.operands.push_back(reshard(locals_.at(op.operand(i)), to).value);
    }
    op.parentBlock()->insertBefore(&op, Operation::create(std::move(ret)));
    return Status::ok();
  }

  // A while loop runs on local blocks of its carried values, split as
  // propagation decided; its condition and body are partitioned in place
  // like a function's body. An uneven split is carried in padded blocks: the
  // padding goes round the loop with no defined value (it may turn NaN), and
  // a reduction in the condition or body masks it as anywhere else.
  Status partitionWhile(Operation& op) {
    KILN_ASSIGN_OR_RETURN(std::optional<std::vector<TensorSharding>> desired, sharding::opShardings(op));
    std::vector<DimAxes> carried;
    for (unsigned i = 0; i < op.numResults(); ++i) {
      Type type = op.result(i)->type();
      carried.push_back(desired && type.isTensor() ? axesOf((*desired)[i]) : DimAxes(type.isTensor() ? type.rank() : 0));
    }
    std::unique_ptr<Operation> local = op.clone();
    local->attrs().erase("sdy.sharding");
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      local->setOperand(i, reshard(locals_.at(op.operand(i)), carried[i]).value);
      local->result(i)->setType(localType(op.result(i)->type(), carried[i]));
    }
    // Partitioned before it is placed, as in partitionBranches.
    KILN_RETURN_IF_ERROR(partitionBlock(local->region(0).front(), carried, [&](unsigned, Value* v) {
      return Expected<DimAxes>(DimAxes(v->type().rank()));
    }));
    KILN_RETURN_IF_ERROR(partitionBlock(local->region(1).front(), carried,
                                        [&](unsigned i, Value*) { return Expected<DimAxes>(carried[i]); }));
    at_ = &op;
    Operation* placed = op.parentBlock()->insertBefore(&op, std::move(local));
    for (unsigned i = 0; i < op.numResults(); ++i) locals_[op.result(i)] = {placed->result(i), carried[i], op.result(i)->type()};
    return Status::ok();
  }

  // if/case: every device takes the same branch (the predicate or index is
  // replicated), so a branch runs on local blocks like a function's body,
  // returning its values split as propagation decided for the results
  // (an uneven split in padded blocks, as anywhere). Values a branch reads
  // from outside are resharded inside it, as the branch's ops need them.
  Status partitionBranches(Operation& op) {
    KILN_ASSIGN_OR_RETURN(std::optional<std::vector<TensorSharding>> desired, sharding::opShardings(op));
    std::vector<DimAxes> splits;
    for (unsigned i = 0; i < op.numResults(); ++i) {
      Type type = op.result(i)->type();
      splits.push_back(desired && type.isTensor() ? axesOf((*desired)[i]) : DimAxes(type.isTensor() ? type.rank() : 0));
    }
    std::vector<std::pair<Value*, Value*>> mapping{{op.operand(0), replicatedOf(op.operand(0)).value}};
    std::unique_ptr<Operation> local = op.clone(&mapping);
    local->attrs().erase("sdy.sharding");
    for (unsigned i = 0; i < op.numResults(); ++i) local->result(i)->setType(localType(op.result(i)->type(), splits[i]));
    // Partitioned before it is placed: the offset tables the branches build
    // go before the function's first op, which this op may be.
    for (const auto& region : local->regions())
      KILN_RETURN_IF_ERROR(
          partitionBlock(region->front(), {}, [&](unsigned i, Value*) { return Expected<DimAxes>(splits[i]); }));
    at_ = &op;
    Operation* placed = op.parentBlock()->insertBefore(&op, std::move(local));
    for (unsigned i = 0; i < op.numResults(); ++i) locals_[op.result(i)] = {placed->result(i), splits[i], op.result(i)->type()};
    return Status::ok();
  }

  const Mesh& mesh_;
  Operation& fn_;
  int64_t& nextChannel_;
  Operation* entry_ = nullptr;  // the function's first original op: shared values are built before it
  Operation* at_ = nullptr;     // the op being partitioned: its local ops are built before it
  Value* partitionIndex_ = nullptr;
  Value* zero_ = nullptr;
  std::map<std::string, Value*> offsets_;
  std::map<Value*, Local> locals_;
};

class SpmdPartitionPass : public Pass {
 public:
  std::string_view name() const override { return "spmd_partition"; }
  Expected<bool> run(Module& module) override {
    // Over sub-axes made whole axes (the devices keep their numbers).
    KILN_ASSIGN_OR_RETURN(auto original, sharding::refineSubAxes(module));
    KILN_ASSIGN_OR_RETURN(auto mesh, sharding::moduleMesh(module));
    if (!mesh || mesh->second.numDevices() == 1) {
      if (original) KILN_RETURN_IF_ERROR(sharding::foldSubAxes(module, *original));
      return false;
    }
    Attribute replicas = module.op().attr("mhlo.num_replicas");
    if (replicas && replicas.is(AttrKind::Integer) && replicas.intValue() > 1)
      return error(module.op().loc(), "spmd_partition: the module declares " + std::to_string(replicas.intValue()) +
                                          " replicas; kiln partitions programs of one replica");
    int64_t nextChannel = 1;
    for (Operation* fn : module.definedFunctions()) {
      if (!func::isPublic(*fn)) continue;
      Partitioner partitioner(mesh->second, *fn, nextChannel);
      KILN_RETURN_IF_ERROR(partitioner.run());
    }
    if (original) KILN_RETURN_IF_ERROR(sharding::foldSubAxes(module, *original));
    module.op().setAttr("mhlo.num_partitions", Attribute::integer(mesh->second.numDevices(), Type::si32()));
    module.op().setAttr("mhlo.num_replicas", Attribute::integer(1, Type::si32()));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createSpmdPartitionPass() { return std::make_unique<SpmdPartitionPass>(); }

namespace spmd {

int64_t deviceAt(const Mesh& mesh, int64_t position) {
  return mesh.deviceIds.empty() ? position : mesh.deviceIds[position];
}

int64_t parts(const Mesh& mesh, const Axes& axes) {
  int64_t n = 1;
  for (const std::string& a : axes) n *= mesh.axisSize(a);
  return n;
}

int64_t blockIndex(const Mesh& mesh, int64_t position, const Axes& axes) {
  int64_t index = 0;
  for (const std::string& a : axes) index = index * mesh.axisSize(a) + mesh.coordinate(position, mesh.axisIndex(a));
  return index;
}

std::vector<std::vector<int64_t>> groupsOver(const Mesh& mesh, const Axes& axes) {
  std::map<std::vector<int64_t>, std::vector<int64_t>> byOthers;
  std::vector<std::vector<int64_t>> order;
  for (int64_t p = 0; p < mesh.numDevices(); ++p) {
    std::vector<int64_t> others;
    for (size_t a = 0; a < mesh.axes.size(); ++a)
      if (std::find(axes.begin(), axes.end(), mesh.axes[a].name) == axes.end())
        others.push_back(mesh.coordinate(p, static_cast<int>(a)));
    auto [it, inserted] = byOthers.try_emplace(others, std::vector<int64_t>(parts(mesh, axes)));
    if (inserted) order.push_back(others);
    it->second[blockIndex(mesh, p, axes)] = deviceAt(mesh, p);
  }
  std::vector<std::vector<int64_t>> groups;
  for (const std::vector<int64_t>& key : order) groups.push_back(byOthers[key]);
  return groups;
}

Attribute replicaGroups(const Mesh& mesh, const Axes& axes) {
  std::vector<std::vector<int64_t>> groups = groupsOver(mesh, axes);
  std::vector<int64_t> flat;
  for (const auto& g : groups) flat.insert(flat.end(), g.begin(), g.end());
  return denseInts({static_cast<int64_t>(groups.size()), parts(mesh, axes)}, flat, 64);
}

Attribute blockOffsetTable(const Mesh& mesh, const Axes& axes, int64_t blockSize) {
  std::vector<int64_t> table(mesh.numDevices());
  for (int64_t p = 0; p < mesh.numDevices(); ++p) table[deviceAt(mesh, p)] = blockIndex(mesh, p, axes) * blockSize;
  return denseInts({mesh.numDevices()}, table, 32);
}

}  // namespace spmd

}  // namespace kiln
