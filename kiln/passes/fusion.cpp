// Fusion: groups ops into kiln.fusion ops, each run as one kernel without
// materializing the values inside it. docs/fusion.md describes the rules;
// fusion_policy.h holds the thresholds and the back end's policy.
//
// The pass works on each function body (and the bodies of while/if/case) in
// three phases:
//  1. producer/consumer fusion, from the last op backwards: each consumer
//     pulls in its producers while decide() allows it. Cheap producers with
//     other users are copied (recomputed) rather than shared; this gives loop
//     fusion, input fusion (producers of a reduce), reduction epilogues and
//     output fusion (a dot/convolution with its elementwise epilogue).
//  2. row fusion: a reduction and a consumer that reads its results only
//     per row (through broadcasts restoring the reduced dims) become one
//     kernel that, row by row, reduces and then writes the row (softmax,
//     layernorm).
//  3. sibling fusion: reductions of the same operand over the same rows share
//     one multi-output kernel (one pass over memory).
//  4. multi-output loop fusion: loop kernels over one shape that phase 1 left
//     apart (a producer with several users) become one kernel computing
//     each value once.
// Finally scalar and splat constants are copied into the fusions that read them.
//
// What depends on the back end (which epilogues its library calls run, how
// large a row stays in its cache) comes from the FusionPolicy it supplies.
#include "kiln/passes/fusion.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/fusion_policy.h"
#include "kiln/passes/fusion_util.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"

namespace kiln {
namespace {

using namespace fusion;
namespace policy = fusion_policy;

struct Decision {
  bool fuse;
  std::string reason;
};
Decision yes(std::string reason) { return {true, std::move(reason)}; }
Decision no(std::string reason) { return {false, std::move(reason)}; }

std::string describe(const Operation& op) {
  std::string s = op.name();
  if (isFusion(op)) s += "(" + op.attr("kind").stringValue() + ")";
  if (op.loc().known()) s += " at " + std::to_string(op.loc().line) + ":" + std::to_string(op.loc().col);
  return s;
}

int64_t numElements(const Value* v) { return v->type().numElements(); }

bool sameShape(std::span<const int64_t> a, std::span<const int64_t> b) { return std::ranges::equal(a, b); }

// The most elements any value of a candidate has: how many times its loop
// nest runs an op placed at the innermost level.
int64_t iterationSpace(const Operation& candidate) {
  int64_t most = 0;
  for (Operation* op : computedOps(candidate)) {
    for (Value* v : op->operands()) most = std::max(most, numElements(v));
    for (Value* v : op->results()) most = std::max(most, numElements(v));
  }
  return most;
}

bool contains(const Operation& candidate, bool (*pred)(const Operation&)) {
  auto ops = computedOps(candidate);
  return std::any_of(ops.begin(), ops.end(), [&](Operation* op) { return pred(*op); });
}
bool isReduce(const Operation& op) { return op.name() == "stablehlo.reduce"; }

// An op that can take a fused producer: what phase 1 grows fusions from.
bool isFusibleConsumer(const Operation& op) {
  return isFusion(op) || isElementwise(op) || isDataMovement(op) || isSimpleReduce(op);
}

// ---- Phase 1: producer/consumer fusion ------------------------------------

// The library call (dot/convolution) a candidate holds, if any.
const Operation* libraryCallIn(const Operation& candidate) {
  for (Operation* op : computedOps(candidate))
    if (isLibraryCall(*op)) return op;
  return nullptr;
}

// Output fusion: `dot` (a library call) into `epilogue`, which must be
// elementwise work on the dot's result that the library call can run too.
Decision decideLibraryProducer(const Operation& dot, const Operation& epilogue, const FusionPolicy& policy) {
  if (contains(epilogue, isLibraryCall) || contains(epilogue, isReduce))
    return no("the consumer already holds a dot/convolution or reduction");
  if (!onlyUsedBy(dot, epilogue)) return no("a dot/convolution with other users would be computed twice");
  Type outType = dot.result()->type();
  for (Value* r : innerResults(epilogue))
    if (!sameShape(r->type().shape(), outType.shape())) return no("the epilogue's result is not shaped like the dot's");
  // The ops reading the dot's result, directly or through each other: the
  // chain of post-ops. The policy decides which ops on and off it the
  // library call runs.
  std::set<const Operation*> chain;
  std::vector<Operation*> work = innerUsers(epilogue, dot.result());
  while (!work.empty()) {
    Operation* op = work.back();
    work.pop_back();
    if (!chain.insert(op).second) continue;
    for (Value* r : op->results())
      for (const Use& use : r->uses()) work.push_back(use.user);
  }
  for (Operation* op : computedOps(epilogue)) {
    bool onChain = chain.count(op) != 0;
    if (!policy.runsInLibraryCall(*op, onChain, outType))
      return no("the epilogue's " + op->name() +
                (onChain || !isElementwise(*op) ? " is not an elementwise post-op" : " computes a post-op operand"));
  }
  return yes("output fusion: elementwise epilogue of a dot/convolution");
}

// Reduction epilogue: `reduce` into a consumer that works on the reduced
// values only (same element count), so the kernel reduces and then finishes
// each result in place.
Decision decideReduceProducer(const Operation& reduce, const Operation& consumer) {
  if (!isSimpleReduce(reduce)) return no("the reduce is variadic or its body is not one elementwise op");
  if (contains(consumer, isLibraryCall) || contains(consumer, isReduce))
    return no("the consumer already holds a dot/convolution or reduction");
  if (!onlyUsedBy(reduce, consumer)) return no("a reduction with other users would be computed twice");
  int64_t reduced = numElements(reduce.result());
  for (Value* r : innerResults(consumer))
    if (numElements(r) != reduced)
      return no("the consumer iterates over " + std::to_string(numElements(r)) + " elements, not the " +
                std::to_string(reduced) + " reduced ones");
  return yes("input fusion: reduction epilogue");
}

// Phase 1 asks it, for a value with users besides the consumer: a user for
// which the value is stored anyway, or null.
using StoredFor = std::function<const Operation*(const Value&)>;

// Elementwise and data-movement producers: fused unless that makes the
// kernel too big, recomputes something expensive per broadcast element, or
// recomputes something that must be materialized anyway.
Decision decideCheapProducer(const Operation& producer, const Operation& consumer, int64_t duplicatedCost,
                             const FusionPolicy& policy, const StoredFor& storedFor) {
  const Value* value = producer.result();
  if (const Operation* call = libraryCallIn(consumer)) {
    for (Operation* user : innerUsers(consumer, value))
      if (isLibraryCall(*user)) return no("dot/convolution operands stay in memory for the library call");
    // Outside the fusion, the producer cannot read the call's result.
    if (isElementwise(producer) &&
        !policy.runsInLibraryCall(producer, /*readsCallResult=*/false, call->result()->type()))
      return no("post-op operands of a dot/convolution are read from memory");
  }
  if (static_cast<int64_t>(computedOps(consumer).size()) + 1 > policy::kMaxFusionOps)
    return no("the fusion would exceed " + std::to_string(policy::kMaxFusionOps) + " ops");
  int64_t space = iterationSpace(consumer);
  if (opCost(producer) >= policy::kExpensiveOpCost && numElements(value) < space)
    return no("an expensive op on " + std::to_string(numElements(value)) +
              " elements would be recomputed for each of the fusion's " + std::to_string(space));
  if (onlyUsedBy(producer, consumer)) return yes(isElementwise(producer) ? "elementwise producer" : "data movement");
  // Users after the consumer were visited first: if they still read the
  // value, it is stored for them. Users before it must be able to fuse it.
  if (const Operation* user = storedFor(*value))
    return no("it is stored anyway for " + user->name() + "; fusing would compute it twice");
  if (duplicatedCost + opCost(producer) > policy::kMaxDuplicatedCost)
    return no("recomputing it would bring the fusion's recomputed cost above " +
              std::to_string(policy::kMaxDuplicatedCost));
  return yes("cheap producer with other users, recomputed in the fusion");
}

Decision decide(const Operation& producer, const Operation& consumer, int64_t duplicatedCost,
                const FusionPolicy& policy, const StoredFor& storedFor) {
  if (producer.numResults() != 1) return no("it has several results");
  if (!producer.def() || !producer.def()->has(kPure)) return no("it may have side effects");
  if (!isStaticTensor(producer.result()->type())) return no("its result is not a statically shaped tensor");
  if (isLibraryCall(producer)) return decideLibraryProducer(producer, consumer, policy);
  if (isReduce(producer)) return decideReduceProducer(producer, consumer);
  if (isElementwise(producer) || isDataMovement(producer))
    return decideCheapProducer(producer, consumer, duplicatedCost, policy, storedFor);
  return no(producer.name() + " is not fusible");
}

class Fuser {
 public:
  Fuser(const FusionPolicy& policy, const FusionOptions& options)
      : policy_(policy), explain_(options.explain), stats_(options.stats ? *options.stats : ownStats_) {}

  bool run(Block& block) {
    bool changed = false;
    for (Operation* op : block.ops())
      if (hasTrait(*op, kControlFlow))
        for (auto& region : op->regions())
          for (auto& nested : region->blocks()) changed |= run(*nested);
    changed |= fuseProducers(block);
    changed |= fuseRows(block);
    changed |= fuseSiblings(block);
    // A merge can free another (a dependence through a third kernel now
    // inside one of the two): to a fixed point; each merge removes a kernel.
    while (fuseLoopOutputs(block)) changed = true;
    changed |= pullInConstants(block);
    return changed;
  }

 private:
  void report(const Operation& producer, const std::string& consumer, const Decision& d) {
    ++stats_.decisions;
    if (explain_)
      explain_("fusion: " + describe(producer) + " -> " + consumer + ": " + (d.fuse ? "fused" : "not fused") +
               " (" + d.reason + ")");
  }

  // Phases 2-4: reports `d` on `first` and `op`; if it says fuse, outlines
  // the two into one fusion (then `op`), else marks `first` refused.
  bool merge(Operation& first, Operation*& op, const Decision& d, std::set<Operation*>& refused) {
    report(first, describe(*op), d);
    if (!d.fuse) {
      refused.insert(&first);
      return false;
    }
    stats_.opsWritten += bodySize(first) + bodySize(*op);
    Operation* pair[] = {&first, op};
    op = outline(pair, &stats_.opsCloned);
    return true;
  }

  // Phases 2-4: merge() with `pos` (positions()) kept up to date: the fusion
  // takes the place of `op`, the later of the two.
  bool mergeAt(Operation& first, Operation*& op, const Decision& d, std::set<Operation*>& refused,
               std::map<const Operation*, size_t>& pos) {
    Operation* old = op;
    size_t at = pos.at(old);
    if (!merge(first, op, d, refused)) return false;
    pos.erase(&first);
    pos.erase(old);
    pos[op] = at;
    return true;
  }

  static int64_t bodySize(const Operation& op) {
    return isFusion(op) ? static_cast<int64_t>(op.region(0).front().size()) - 1 : 1;
  }

  // Phase 1. Visits consumers from the last op backwards, so each producer
  // is considered after all its users have taken what they want of it.
  bool fuseProducers(Block& block) {
    bool changed = false;
    readAfter_.clear();
    unfusibleUser_.clear();
    for (Operation* op = block.back(); op; op = op->prevInBlock()) {
      ++stats_.opsVisited;
      if (isFusibleConsumer(*op) && !isFusion(*op)) {
        Operation* grown = grow(*op);
        changed |= grown != op;
        op = grown;
      }
      // Passed: the consumers still to come are all before it.
      for (Value* v : op->operands()) readAfter_.emplace(v, op);
    }
    return changed;
  }

  // Drops what phase 1 keeps about the results of `op`, which is erased
  // (their addresses may be reused).
  void forget(const Operation& op) {
    for (Value* r : op.results()) forget(r);
  }
  void forget(const Value* v) {
    readAfter_.erase(v);
    unfusibleUser_.erase(v);
  }

  // Phase 1's StoredFor: a user of `value` after the consumer (one the walk
  // has passed: they are exactly the ops after it, and never change again),
  // or one that cannot fuse it. Kept per value, not found by walking the
  // uses and the block for each consumer: cubic when m kernels read one value.
  const Operation* storedFor(const Value& value) {
    ++stats_.opsVisited;
    if (auto after = readAfter_.find(&value); after != readAfter_.end()) return after->second;
    auto [it, added] = unfusibleUser_.emplace(&value, nullptr);
    if (added)
      for (const Use& use : value.uses()) {
        ++stats_.opsVisited;
        if (!isFusibleConsumer(*use.user)) {
          it->second = use.user;
          break;
        }
      }
    return it->second;
  }

  Operation* grow(Operation& root) {
    std::string rootName = describe(root);
    std::vector<Value*> rootResults = root.results();
    Block* block = root.parentBlock();  // `root` itself is replaced by the first fusion
    Operation* consumer = &root;
    std::set<Operation*> refused;
    int64_t duplicatedCost = 0;
    // The first producer is outlined with `root`; the fusion that makes then
    // grows in place (each outline would copy its whole body).
    std::optional<FusionGrower> grower;
    for (bool grew = true; grew;) {
      grew = false;
      // In outline order, which decides what is fused first.
      std::vector<Value*> operands =
          grower ? grower->operands() : std::vector<Value*>(consumer->operands().begin(), consumer->operands().end());
      for (Value* operand : operands) {
        Operation* producer = operand->definingOp();
        if (!producer || producer->parentBlock() != block || refused.count(producer) ||
            isPulledConstant(*producer))
          continue;
        Decision d = decide(*producer, *consumer, duplicatedCost, policy_, storedFor_);
        report(*producer, rootName, d);
        if (!d.fuse) {
          refused.insert(producer);
          continue;
        }
        // The users that cannot fuse a value only change when one of them
        // (a dot into its epilogue) is fused itself; new users (fusions,
        // copies of cheap producers) all can.
        if (!isFusibleConsumer(*producer)) unfusibleUser_.clear();
        if (!onlyUsedBy(*producer, *consumer)) {
          duplicatedCost += opCost(*producer);
          producer = grower ? grower->copyProducer(*producer) : copyForConsumer(*producer, *consumer);
        } else {
          forget(*producer);  // erased once inside
        }
        if (grower) {
          grower->absorb(*producer);
        } else {
          stats_.opsWritten += bodySize(*producer) + bodySize(*consumer);
          Operation* pair[] = {producer, consumer};
          grower.emplace(*outline(pair, &stats_.opsCloned));
        }
        consumer = &grower->fusion();
        grew = true;
        break;  // the operand list changed
      }
    }
    if (!grower) return consumer;
    for (Value* r : rootResults) forget(r);  // erased by the first outline
    Operation* grown = grower->finish();
    stats_.opsWritten += grower->opsWritten();
    stats_.opsCloned += grower->opsCloned();
    return grown;
  }

  // ---- Phases 3 and 4: the readers of a value -------------------------------

  // The kernels in a block that read a value, by position, among those a
  // phase may join to another (keyed by what must match: a loop shape, a
  // row space; a reader without one is left out). A value's readers are
  // indexed when first asked for and kept up to date on each merge, so a
  // kernel finds the nearest reader it may join without going through all of
  // them again after each merge (m kernels reading one value made phases 3
  // and 4 quadratic in m).
  template <typename Key>
  class ReaderIndex {
   public:
    using KeyOf = std::function<std::optional<Key>(const Operation&)>;
    using Readers = std::map<size_t, Operation*>;  // position -> reader
    ReaderIndex(const Block& block, const std::map<const Operation*, size_t>& pos, KeyOf keyOf, FusionStats& stats)
        : block_(block), pos_(pos), keyOf_(std::move(keyOf)), stats_(stats) {}

    const Readers& of(const Value* v, const Key& key) {
      auto [it, added] = index_.try_emplace(v);
      if (added)
        for (const Use& use : v->uses()) {
          ++stats_.opsVisited;
          if (use.user->parentBlock() != &block_) continue;
          if (std::optional<Key> k = keyOf_(*use.user)) it->second[*k][pos_.at(use.user)] = use.user;
        }
      return it->second[key];
    }

    // Before `op` is merged (and erased), while its position is known. Its
    // results go too (their addresses may be reused).
    void remove(const Operation& op) {
      for (Value* r : op.results()) index_.erase(r);
      size_t at = pos_.at(&op);
      for (Value* v : op.operands())
        if (auto it = index_.find(v); it != index_.end())
          for (auto& [key, readers] : it->second)
            if (auto r = readers.find(at); r != readers.end() && r->second == &op) readers.erase(r);
    }

    // After a merge made `op`.
    void add(Operation& op) {
      std::optional<Key> key;
      bool asked = false;
      for (Value* v : op.operands())
        if (auto it = index_.find(v); it != index_.end()) {
          if (!asked) key = keyOf_(op), asked = true;
          if (key) it->second[*key][pos_.at(&op)] = &op;
        }
    }

   private:
    const Block& block_;
    const std::map<const Operation*, size_t>& pos_;
    KeyOf keyOf_;
    FusionStats& stats_;
    std::map<const Value*, std::map<Key, Readers>> index_;
  };

  // ---- Phase 2: row fusion --------------------------------------------------

  // The rows a reduction kernel walks: every reduce in it reads `input`
  // shaped values and reduces `dims`; the other dims are the row index.
  struct RowSpace {
    std::vector<int64_t> input;
    std::vector<int64_t> dims;
    auto operator<=>(const RowSpace&) const = default;
    std::vector<int64_t> keptDims() const {
      std::vector<int64_t> kept;
      for (int64_t d = 0; d < static_cast<int64_t>(input.size()); ++d)
        if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
      return kept;
    }
  };

  static std::optional<RowSpace> rowSpace(const Operation& candidate) {
    std::optional<RowSpace> space;
    for (Operation* op : computedOps(candidate)) {
      if (!isReduce(*op)) continue;
      if (!isSimpleReduce(*op) || !isStaticTensor(op->operand(0)->type())) return std::nullopt;
      auto shape = op->operand(0)->type().shape();
      RowSpace s{{shape.begin(), shape.end()}, intListAttr(*op, "dimensions")};
      if (space && !(*space == s)) return std::nullopt;
      space = s;
    }
    return space;
  }

  // For a value inside a row kernel: which iteration dim each of its dims
  // follows (kUnit for size-1 dims that every iteration reads at index 0).
  using IndexMap = std::vector<int64_t>;
  static constexpr int64_t kUnit = -1;

  // The iteration dims an index map really depends on, in order.
  static std::vector<int64_t> significantDims(const IndexMap& map, const RowSpace& rows) {
    std::vector<int64_t> dims;
    for (int64_t d : map)
      if (d != kUnit && rows.input[d] != 1) dims.push_back(d);
    return dims;
  }

  // The index map of a value of `type` that holds one element per row, in row order.
  static std::optional<IndexMap> perRowMap(Type type, const RowSpace& rows) {
    std::vector<int64_t> kept;
    for (int64_t d : rows.keptDims())
      if (rows.input[d] != 1) kept.push_back(d);
    IndexMap map;
    size_t next = 0;
    for (int64_t size : type.shape()) {
      if (size == 1) {
        map.push_back(kUnit);
        continue;
      }
      if (next == kept.size() || rows.input[kept[next]] != size) return std::nullopt;
      map.push_back(kept[next++]);
    }
    if (next != kept.size()) return std::nullopt;
    return map;
  }

  // The index map of a reshape's operand, for reshapes that only add or drop
  // unit dims (the others mix dims); nullopt for those others.
  static std::optional<IndexMap> unitReshapeOperandMap(Type operand, Type result, const IndexMap& resultMap) {
    std::vector<int64_t> carriedSizes, carriedDims;  // the result's non-unit dims
    for (size_t d = 0; d < result.shape().size(); ++d)
      if (result.shape()[d] != 1) {
        carriedSizes.push_back(result.shape()[d]);
        carriedDims.push_back(resultMap[d]);
      }
    IndexMap map;
    size_t next = 0;
    for (int64_t size : operand.shape()) {
      if (size == 1) {
        map.push_back(kUnit);
        continue;
      }
      if (next == carriedSizes.size() || carriedSizes[next] != size) return std::nullopt;
      map.push_back(carriedDims[next++]);
    }
    if (next != carriedSizes.size()) return std::nullopt;
    return map;
  }

  // Index maps of every value of `candidate` when run as a row kernel over
  // `rows`: results either span the whole row space or hold one value per
  // row; ops may only relate indices by elementwise identity, broadcasts,
  // unit-dim reshapes and the row space's own reductions. nullopt when the
  // candidate cannot run row by row.
  static std::optional<std::map<const Value*, IndexMap>> rowMaps(const Operation& candidate, const RowSpace& rows) {
    std::map<const Value*, IndexMap> maps;
    auto assign = [&](const Value* v, const IndexMap& m) {
      auto [it, inserted] = maps.emplace(v, m);
      return inserted || it->second == m;
    };
    IndexMap identity(rows.input.size());
    for (size_t d = 0; d < identity.size(); ++d) identity[d] = static_cast<int64_t>(d);
    for (Value* r : innerResults(candidate)) {
      std::optional<IndexMap> m = sameShape(r->type().shape(), rows.input)
                                      ? std::optional<IndexMap>(identity)
                                      : perRowMap(r->type(), rows);
      if (!m || !assign(r, *m)) return std::nullopt;
    }
    std::vector<Operation*> ops = computedOps(candidate);
    for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
      Operation& op = **it;
      auto found = maps.find(op.result());
      if (op.numResults() != 1 || found == maps.end()) {
        if (op.name() == "stablehlo.constant") continue;
        return std::nullopt;  // several results, or an op whose value no result needs
      }
      IndexMap out = found->second;
      if (op.name() == "stablehlo.constant" || op.name() == "stablehlo.iota") continue;
      if (isElementwise(op)) {
        for (Value* v : op.operands())
          if (!assign(v, v->type().rank() == 0 ? IndexMap{} : out)) return std::nullopt;
      } else if (op.name() == "stablehlo.broadcast_in_dim") {
        auto dims = intListAttr(op, "broadcast_dimensions");
        auto inShape = op.operand(0)->type().shape();
        IndexMap in;
        for (size_t j = 0; j < dims.size(); ++j)
          in.push_back(inShape[j] == 1 ? kUnit : out[dims[j]]);
        if (!assign(op.operand(0), in)) return std::nullopt;
      } else if (op.name() == "stablehlo.reshape") {
        std::optional<IndexMap> in = unitReshapeOperandMap(op.operand(0)->type(), op.result()->type(), out);
        if (!in || !assign(op.operand(0), *in)) return std::nullopt;
      } else if (isReduce(op)) {
        std::optional<IndexMap> perRow = perRowMap(op.result()->type(), rows);
        if (!perRow || significantDims(out, rows) != significantDims(*perRow, rows)) return std::nullopt;
        if (!assign(op.operand(0), identity) || !assign(op.operand(1), {})) return std::nullopt;
      } else {
        return std::nullopt;
      }
    }
    return maps;
  }

  static int64_t rowBytes(const RowSpace& rows, Type elementType) {
    int64_t n = elementType.storageBytes();
    for (int64_t d : rows.dims) n *= rows.input[d];
    return n;
  }

  std::map<const Operation*, size_t> positions(const Block& block) {
    std::map<const Operation*, size_t> pos;
    size_t i = 0;
    for (const Operation& op : block) pos[&op] = i++;
    stats_.opsVisited += static_cast<int64_t>(i);
    return pos;
  }

  // True if every use of `op`'s results is by `consumer` or after it.
  static bool usesEndAt(const Operation& op, const Operation& consumer, const std::map<const Operation*, size_t>& pos) {
    for (Value* r : op.results())
      for (const Use& use : r->uses()) {
        auto it = pos.find(use.user);
        if (use.user != &consumer && (it == pos.end() || it->second < pos.at(&consumer))) return false;
      }
    return true;
  }

  // Whether each row is contiguous in memory: every reduced dim (of more
  // than one element) inside every kept one. A row kernel over strided rows
  // -- columns, when dim 0 is reduced -- reads each element of a row from
  // another cache line and page: jnp.var(x, axis=0) of f32[512,1024] took 82
  // ms as one, 0.07 ms as a column reduction and a second one reading its mean.
  static bool rowsAreContiguous(const RowSpace& rows) {
    int64_t lastKept = -1, firstReduced = static_cast<int64_t>(rows.input.size());
    for (int64_t d = 0; d < static_cast<int64_t>(rows.input.size()); ++d) {
      if (rows.input[d] == 1) continue;
      if (std::find(rows.dims.begin(), rows.dims.end(), d) != rows.dims.end()) firstReduced = std::min(firstReduced, d);
      else lastKept = d;
    }
    return lastKept < firstReduced;
  }

  // The ops between `reduction` and `consumer` that read its results,
  // directly or through each other, in block order: logsumexp's max and sum
  // feed the loss before they feed the gradient. Moved past `consumer`, they
  // let the two become one row kernel. None if one cannot move: `consumer`
  // reads it, or it is not a pure op that runs as a kernel.
  static std::optional<std::vector<Operation*>> usersToSink(const Operation& reduction, const Operation& consumer) {
    std::set<const Operation*> moved{&reduction};
    std::vector<Operation*> users;
    auto readsMoved = [&](const Operation& op) { return readsResultOf(op, moved); };
    for (Operation* op = reduction.nextInBlock(); op && op != &consumer; op = op->nextInBlock()) {
      if (!readsMoved(*op)) continue;
      if (!isFusion(*op) && !isSimpleReduce(*op) && !isElementwise(*op) && !isDataMovement(*op)) return std::nullopt;
      moved.insert(op);
      users.push_back(op);
    }
    moved.erase(&reduction);
    if (readsMoved(consumer)) return std::nullopt;
    return users;
  }

  // Whether `op` or an op nested in its regions reads a result of one of
  // `ops`: a while whose body reads a value from outside reads it through
  // its region, not through an operand, and moving that value past the
  // while would leave the body reading it before it is computed.
  static bool readsResultOf(const Operation& op, const std::set<const Operation*>& ops) {
    if (std::ranges::any_of(op.operands(), [&](Value* v) { return ops.count(v->definingOp()) > 0; })) return true;
    for (unsigned r = 0; r < op.numRegions(); ++r)
      for (const auto& block : op.region(r).blocks())
        for (const Operation* inner : block->ops())
          if (readsResultOf(*inner, ops)) return true;
    return false;
  }

  static void sinkPast(const std::vector<Operation*>& users, Operation& consumer) {
    Block* block = consumer.parentBlock();
    Operation* before = consumer.nextInBlock();
    for (Operation* op : users) block->insertBefore(before, op->remove());
  }

  Decision decideRow(const Operation& reduction, const Operation& consumer,
                     const std::map<const Operation*, size_t>& pos) {
    std::optional<RowSpace> rows = rowSpace(reduction);
    if (!rows) return no("not a reduction over one row space");
    if (!rowsAreContiguous(*rows)) return no("its rows are strided in memory (the reduced dims are not the innermost)");
    std::optional<RowSpace> consumerRows = rowSpace(consumer);
    if (consumerRows && !(*consumerRows == *rows)) return no("the consumer reduces over other rows");
    Type element = innerResults(reduction).front()->type().elementType();
    if (rowBytes(*rows, element) > policy_.maxRowBytes)
      return no("a row of " + std::to_string(rowBytes(*rows, element)) + " bytes exceeds " +
                std::to_string(policy_.maxRowBytes));
    if (computedOps(reduction).size() + computedOps(consumer).size() > policy::kMaxFusionOps)
      return no("the fusion would exceed " + std::to_string(policy::kMaxFusionOps) + " ops");
    if (!usesEndAt(reduction, consumer, pos) && !usersToSink(reduction, consumer))
      return no("its results are used before the consumer by ops it depends on or that must stay");
    if (!rowMaps(reduction, *rows)) return no("the reduction's results are not one value per row");
    auto maps = rowMaps(consumer, *rows);
    if (!maps) return no("the consumer cannot run row by row");
    std::vector<int64_t> kept;
    for (int64_t d : rows->keptDims())
      if (rows->input[d] != 1) kept.push_back(d);
    for (unsigned i = 0; i < consumer.numOperands(); ++i) {
      if (consumer.operand(i)->definingOp() != &reduction) continue;
      auto m = maps->find(innerOperand(consumer, i));
      if (m != maps->end() && significantDims(m->second, *rows) != kept)
        return no("the consumer reads the reduction's results across rows");
    }
    return yes("row fusion: the consumer reads the reduction's results only per row");
  }

  bool fuseRows(Block& block) {
    bool changed = false;
    auto pos = positions(block);  // kept up to date by mergeAt, rebuilt when users are sunk
    for (Operation* op = block.back(); op; op = op->prevInBlock()) {
      ++stats_.opsVisited;
      if (!isFusion(*op) && !isSimpleReduce(*op)) continue;
      std::set<Operation*> refused;
      for (bool merged = true; merged;) {
        merged = false;
        for (Value* operand : op->operands()) {
          Operation* producer = operand->definingOp();
          if (!producer || producer->parentBlock() != &block || !(isFusion(*producer) || isSimpleReduce(*producer)) ||
              !rowSpace(*producer) || refused.count(producer))
            continue;
          ++stats_.opsVisited;
          Decision d = decideRow(*producer, *op, pos);
          if (d.fuse && !usesEndAt(*producer, *op, pos)) {
            sinkPast(*usersToSink(*producer, *op), *op);
            pos = positions(block);  // the moved users now come after the consumer
            d.reason += " (its other users moved after the consumer)";
          }
          if (!mergeAt(*producer, op, d, refused, pos)) continue;
          // A producer refused before may fit now (the max of a softmax, once
          // the sum that read it is part of the consumer).
          refused.clear();
          merged = changed = true;
          break;
        }
      }
    }
    return changed;
  }

  // ---- Phase 3: sibling fusion ---------------------------------------------

  // True if `later` reads, directly or through ops between them, a result of `earlier`.
  bool dependsOn(const Operation& later, const Operation& earlier, const std::map<const Operation*, size_t>& pos) {
    std::vector<const Operation*> work{&later};
    std::set<const Operation*> seen;
    size_t floor = pos.at(&earlier);
    while (!work.empty()) {
      const Operation* op = work.back();
      work.pop_back();
      ++stats_.opsVisited;
      for (Value* v : op->operands()) {
        const Operation* def = v->definingOp();
        if (!def || def->parentBlock() != earlier.parentBlock() || pos.at(def) < floor) continue;
        if (def == &earlier) return true;
        if (seen.insert(def).second) work.push_back(def);
      }
    }
    return false;
  }

  static bool sharesOperand(const Operation& a, const Operation& b) {
    for (Value* v : a.operands())
      if (std::find(b.operands().begin(), b.operands().end(), v) != b.operands().end()) return true;
    return false;
  }

  bool fuseSiblings(Block& block) {
    bool changed = false;
    auto pos = positions(block);  // kept up to date by mergeAt (the only change to the block)
    ReaderIndex<RowSpace> readers(
        block, pos,
        [](const Operation& op) -> std::optional<RowSpace> {
          // A reduction kernel at the op cap takes no sibling.
          if (!(isFusion(op) || isSimpleReduce(op)) ||
              static_cast<int64_t>(computedOps(op).size()) >= policy::kMaxFusionOps)
            return std::nullopt;
          return rowSpace(op);
        },
        stats_);
    for (Operation* op = block.back(); op; op = op->prevInBlock()) {
      ++stats_.opsVisited;
      std::optional<RowSpace> rows = rowSpace(*op);
      if (!rows || !(isFusion(*op) || isSimpleReduce(*op))) continue;
      std::set<Operation*> refused;
      // Per operand, the position down to which its readers were looked at:
      // those were refused or have joined.
      std::map<const Value*, size_t> lookedAt;
      size_t at = pos.at(op);
      for (bool merged = true; merged;) {
        merged = false;
        // Nothing joins a kernel at the op cap.
        if (static_cast<int64_t>(computedOps(*op).size()) >= policy::kMaxFusionOps) break;
        // The siblings: other readers of op's operands before it, nearest
        // first (not every op before it: that made the phase quadratic).
        for (;;) {
          Operation* sibling = nullptr;
          for (Value* v : op->operands()) {
            const auto& before = readers.of(v, *rows);
            size_t& cursor = lookedAt.emplace(v, at).first->second;
            for (auto it = before.lower_bound(cursor); it != before.begin();) {
              --it;
              ++stats_.opsVisited;
              if (refused.count(it->second)) {
                cursor = it->first;
                continue;
              }
              if (!sibling || it->first > pos.at(sibling)) sibling = it->second;
              break;
            }
          }
          if (!sibling) break;
          Decision d = dependsOn(*op, *sibling, pos) ? no("one depends on the other")
                       : !usesEndAt(*sibling, *op, pos) ? no("its results are used between the two")
                       : computedOps(*sibling).size() + computedOps(*op).size() > policy::kMaxFusionOps
                           ? no("the fusion would exceed " + std::to_string(policy::kMaxFusionOps) + " ops")
                           : yes("sibling fusion: reductions of a shared operand in one pass");
          if (d.fuse) {
            readers.remove(*sibling);
            readers.remove(*op);
          }
          if (!mergeAt(*sibling, op, d, refused, pos)) continue;
          readers.add(*op);
          merged = changed = true;
          break;
        }
      }
    }
    return changed;
  }

  // ---- Phase 4: multi-output loop fusion -------------------------------------

  // A loop kernel: elementwise work and data movement over one shape, every
  // result of it. Transposes and windows stay out: their kernels have loop
  // structures of their own (register tiles, window walks) that a merged
  // element loop would lose.
  static std::optional<std::vector<int64_t>> loopShape(const Operation& op) {
    if (!isFusion(op) && !isElementwise(op) && !isDataMovement(op)) return std::nullopt;
    for (Operation* inner : computedOps(op)) {
      std::string_view name = inner->name();
      if (!isElementwise(*inner) && !isDataMovement(*inner) && name != "stablehlo.constant") return std::nullopt;
      if (name == "stablehlo.transpose" || name == "stablehlo.reduce_window") return std::nullopt;
    }
    std::optional<std::vector<int64_t>> shape;
    for (Value* r : op.results()) {
      if (!isStaticTensor(r->type()) || r->type().numElements() <= 1) return std::nullopt;
      std::vector<int64_t> s(r->type().shape().begin(), r->type().shape().end());
      if (shape && *shape != s) return std::nullopt;
      shape = s;
    }
    return shape;
  }

  // True if `consumer` reads every result of `producer` it reads only at the
  // element it computes (by elementwise ops of the same shape, or yields it):
  // merged, the producer's values are then reused from registers, never
  // recomputed at another index.
  static bool readsAtSameElement(const Operation& consumer, const Operation& producer) {
    for (unsigned i = 0; i < consumer.numOperands(); ++i) {
      const Value* operand = consumer.operand(i);
      if (operand->definingOp() != &producer) continue;
      for (Operation* user : innerUsers(consumer, operand)) {
        if (user->name() == "kiln.yield") continue;
        if (!isElementwise(*user) || user->numResults() != 1 ||
            !sameShape(user->result()->type().shape(), operand->type().shape()))
          return false;
      }
    }
    return true;
  }

  // True if `later` depends on `earlier` through some op other than reading
  // its results directly (merging the two would then leave that op reading a
  // value computed after it).
  bool dependsIndirectly(const Operation& later, const Operation& earlier,
                                const std::map<const Operation*, size_t>& pos) {
    for (Value* v : later.operands()) {
      const Operation* def = v->definingOp();
      if (def && def != &earlier && def->parentBlock() == earlier.parentBlock() && pos.at(def) > pos.at(&earlier) &&
          dependsOn(*def, earlier, pos))
        return true;
    }
    return false;
  }

  // Whether loop kernel `other` (of `otherOps` ops), before `op` (of `ops`)
  // over the same shape, joins it.
  Decision decideLoopOutputs(const Operation& other, int64_t otherOps, const Operation& op, int64_t ops,
                             const std::map<const Operation*, size_t>& pos) {
    // The cap first: it is cheap, and the dependence walks below are not
    // (with it last, m kernels reading one argument cost O(m^3)).
    if (otherOps + ops > policy::kMaxFusionOps)
      return no("the fusion would exceed " + std::to_string(policy::kMaxFusionOps) + " ops");
    bool producer = std::ranges::any_of(op.operands(), [&](Value* v) { return v->definingOp() == &other; });
    if (producer && !readsAtSameElement(op, other))
      return no("the consumer reads its results at other elements (they would be recomputed)");
    if (producer && dependsIndirectly(op, other, pos)) return no("the consumer also depends on it through other ops");
    if (!producer && dependsOn(op, other, pos)) return no("one depends on the other");
    if (!usesEndAt(other, op, pos)) return no("its results are used between the two");
    return yes(producer ? "multi-output loop fusion: producer kept as an output"
                        : "multi-output loop fusion: loops reading a shared value");
  }

  // Loop kernels over one shape where one reads another's results, or both
  // read a value, become one kernel with several outputs: each value is
  // computed once per element and what they share is read once. Phase 1
  // leaves such pairs when a producer has several users and recomputing it
  // in each is refused (a random-bits generator's rounds: each feeds both
  // halves of the next).
  bool fuseLoopOutputs(Block& block) {
    bool changed = false;
    auto pos = positions(block);  // kept up to date by mergeAt (the only change to the block)
    // Each op's loop shape and size, computed once (both walk a fusion's
    // body; an op is a candidate of every later kernel reading its operands).
    std::map<const Operation*, std::pair<std::optional<std::vector<int64_t>>, int64_t>> facts;
    auto factsOf = [&](const Operation* op) -> const auto& {
      auto it = facts.find(op);
      if (it == facts.end()) it = facts.emplace(op, std::pair(loopShape(*op), bodySize(*op))).first;
      return it->second;
    };
    ReaderIndex<std::vector<int64_t>> readers(
        block, pos,
        [&](const Operation& op) -> std::optional<std::vector<int64_t>> {
          // A kernel at the op cap takes nothing more.
          const auto& [shape, ops] = factsOf(&op);
          return ops < policy::kMaxFusionOps ? shape : std::nullopt;
        },
        stats_);
    for (Operation* op = block.back(); op; op = op->prevInBlock()) {
      ++stats_.opsVisited;
      std::optional<std::vector<int64_t>> shape = factsOf(op).first;
      // A kernel at the op cap takes nothing more: its candidates go
      // unlooked at (a long chain's full kernels all read its argument, and
      // comparing each with every other one was quadratic in their number).
      if (!shape || factsOf(op).second >= policy::kMaxFusionOps) continue;
      std::set<Operation*> refused;
      // Per operand, the position down to which its readers were looked at:
      // those were refused or have joined.
      std::map<const Value*, size_t> lookedAt;
      size_t at = pos.at(op);
      // Whether `other` joins op: reports the decision and merges.
      auto join = [&](Operation* other) {
        const auto& [otherShape, otherOps] = factsOf(other);
        Decision d = *otherShape != *shape ? no("their loops run over different shapes")
                                           : decideLoopOutputs(*other, otherOps, *op, factsOf(op).second, pos);
        if (d.fuse) {
          readers.remove(*other);
          readers.remove(*op);
        }
        Operation* old = op;
        if (!mergeAt(*other, op, d, refused, pos)) return false;
        facts.erase(other);
        facts.erase(old);
        readers.add(*op);
        return true;
      };
      for (bool merged = true; merged;) {
        merged = false;
        if (factsOf(op).second >= policy::kMaxFusionOps) break;  // nothing more fits
        // Candidates: the producers of op's operands, and their other users
        // before op (of op's shape). The users nearest first: the order of a
        // use list is an accident of the rewrites that made it.
        for (Value* v : op->operands()) {
          if (Operation* def = v->definingOp(); def && def->parentBlock() == &block) {
            ++stats_.opsVisited;
            const auto& [otherShape, otherOps] = factsOf(def);
            if (!refused.count(def) && pos.at(def) < at && otherShape && otherOps < policy::kMaxFusionOps &&
                join(def)) {
              merged = changed = true;
              break;
            }
          }
          const auto& before = readers.of(v, *shape);
          size_t& cursor = lookedAt.emplace(v, at).first->second;
          for (auto it = before.lower_bound(cursor); it != before.begin();) {
            --it;
            ++stats_.opsVisited;
            cursor = it->first;
            if (refused.count(it->second)) continue;
            if (join(it->second)) {  // the index changed: look again
              merged = changed = true;
              break;
            }
          }
          if (merged) break;
        }
      }
    }
    return changed;
  }

  // ---- Constants ------------------------------------------------------------

  // Copies the scalar and splat constants each fusion reads into its body, so
  // they are immediates of the kernel rather than buffers. Not those a
  // library call reads: it reads its operands from buffers, and outline()
  // puts it first in the body, where a copied constant would come after it.
  bool pullInConstants(Block& block) {
    bool changed = false;
    for (Operation* op = block.back(); op; op = op->prevInBlock()) {
      ++stats_.opsVisited;
      if (!isFusion(*op)) continue;
      std::optional<FusionGrower> grower;
      for (bool pulled = true; pulled;) {
        pulled = false;
        // In outline order, which decides the order of the copies in the body.
        std::vector<Value*> operands =
            grower ? grower->operands() : std::vector<Value*>(op->operands().begin(), op->operands().end());
        for (Value* v : operands) {
          Operation* constant = v->definingOp();
          if (!constant || !isPulledConstant(*constant)) continue;
          unsigned i = static_cast<unsigned>(std::find(op->operands().begin(), op->operands().end(), v) -
                                             op->operands().begin());
          if (readByLibraryCall(*op, i)) continue;
          if (!grower) grower.emplace(*op);
          grower->absorb(*grower->copyProducer(*constant));
          if (constant->resultsUnused()) constant->erase();
          pulled = changed = true;
          break;
        }
      }
      if (grower) {
        op = grower->finish();
        stats_.opsWritten += grower->opsWritten();
        stats_.opsCloned += grower->opsCloned();
      }
    }
    return changed;
  }

  static bool readByLibraryCall(const Operation& fusion, unsigned operand) {
    const std::vector<Use>& uses = fusion.region(0).front().argument(operand)->uses();
    return std::any_of(uses.begin(), uses.end(), [](const Use& u) { return isLibraryCall(*u.user); });
  }

  const FusionPolicy& policy_;
  const std::function<void(const std::string&)>& explain_;
  FusionStats ownStats_;
  FusionStats& stats_;
  // Phase 1: each value a passed op reads, with the first such op; and for
  // each value asked about, a user that is no fusible consumer (or null).
  std::unordered_map<const Value*, const Operation*> readAfter_;
  std::unordered_map<const Value*, const Operation*> unfusibleUser_;
  StoredFor storedFor_ = [this](const Value& v) { return storedFor(v); };
};

std::function<void(const std::string&)>& registryExplainSink() {
  static std::function<void(const std::string&)> sink;
  return sink;
}

class FusionPass : public FunctionPass {
 public:
  FusionPass(FusionPolicy policy, FusionOptions options) : policy_(std::move(policy)), options_(std::move(options)) {}
  std::string_view name() const override { return "fusion"; }

 private:
  bool runOnBody(Block& body) override { return Fuser(policy_, options_).run(body); }

  FusionPolicy policy_;
  FusionOptions options_;
};

}  // namespace

std::unique_ptr<Pass> createFusionPass(FusionPolicy policy, FusionOptions options) {
  return std::make_unique<FusionPass>(std::move(policy), std::move(options));
}
std::unique_ptr<Pass> createFusionPass() { return createFusionPass(cpuFusionPolicy(), {registryExplainSink()}); }

void setFusionExplainSink(std::function<void(const std::string&)> sink) { registryExplainSink() = std::move(sink); }

int64_t countKernels(const Block& body) {
  int64_t kernels = 0;
  for (const Operation& op : body) {
    if (op.name() == "stablehlo.constant" || op.name() == "stablehlo.reshape" || op.name() == "stablehlo.tuple" ||
        op.name() == "stablehlo.get_tuple_element" || (op.def() && op.def()->has(kReturnLike)))
      continue;
    ++kernels;
    if (!hasTrait(op, kControlFlow)) continue;
    for (auto& region : op.regions())
      for (auto& block : region->blocks()) kernels += countKernels(*block);
  }
  return kernels;
}

}  // namespace kiln
