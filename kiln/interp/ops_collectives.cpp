// Kernels of the distribution ops: the ids of the running instance and the
// collectives.
//
// A collective first exchanges operands with every other instance at the
// Rendezvous (each instance then holds everyone's operands), and then each
// instance computes its own results from the spec's definition: it finds its
// process group, and reduces, concatenates, splits or picks from the
// operands of that group's members, in group order.
#include <algorithm>
#include <cstring>
#include <optional>

#include "kiln/interp/interpreter_impl.h"
#include "kiln/interp/kernel_util.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;
// Instances in group order, as indices replica * numPartitions + partition.
using ProcessGroup = std::vector<int>;

Tensor scalarU32(uint32_t v) {
  Tensor t(Type::tensor({}, Type::integer(32, /*isUnsigned=*/true)));
  t.setInt(0, v);
  return t;
}

Results replicaId(OpEval& e) { return std::vector<Tensor>{scalarU32(e.replicaId())}; }
Results partitionId(OpEval& e) { return std::vector<Tensor>{scalarU32(e.partitionId())}; }

// --- Process groups (spec: "Parallel execution") -------------------------------

// How a collective splits the process grid into groups.
enum class Strategy { CrossReplica, CrossPartition, CrossReplicaAndPartition, FlattenedIds };

int64_t channelId(const OpEval& e) { return intField(e.op.attr("channel_handle"), "handle", 0); }

// replica_groups and friends: all_reduce, all_gather and reduce_scatter.
Strategy reductionStrategy(const OpEval& e) {
  if (channelId(e) <= 0) return Strategy::CrossReplica;
  return boolAttr(e.op, "use_global_device_ids", false) ? Strategy::FlattenedIds
                                                        : Strategy::CrossReplicaAndPartition;
}

// all_to_all, collective_permute and collective_broadcast.
Strategy pointToPointStrategy(const OpEval& e) {
  return channelId(e) <= 0 ? Strategy::CrossReplica : Strategy::CrossPartition;
}

// The rows of a 2-d integer attribute such as replica_groups, without the -1
// entries that pad ragged groups.
Expected<std::vector<std::vector<int64_t>>> idRows(const OpEval& e, std::string_view name) {
  Attribute a = e.op.attr(name);
  if (!a) return std::vector<std::vector<int64_t>>{};
  if (!a.is(AttrKind::DenseElements) || a.valueType().rank() != 2)
    return e.error("`" + std::string(name) + "` must be a 2-d integer tensor");
  Tensor ids = Tensor::fromDense(a);
  int64_t rows = ids.shape()[0], cols = ids.shape()[1];
  std::vector<std::vector<int64_t>> result(rows);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (int64_t id = ids.getInt(r * cols + c); id >= 0) result[r].push_back(id);
  return result;
}

// The process groups of `strategy` over the grid. `idGroups` are replica,
// partition or flattened ids by strategy; with `emptyMeansAll`, none means one
// group of all ids (XLA's reading of empty replica_groups).
Expected<std::vector<ProcessGroup>> processGroups(const OpEval& e, Strategy strategy,
                                                  std::vector<std::vector<int64_t>> idGroups,
                                                  bool emptyMeansAll = true) {
  const Interpreter::Instance& grid = e.interp.instance();
  int numReplicas = grid.numReplicas, numPartitions = grid.numPartitions;
  int64_t numIds = strategy == Strategy::CrossPartition ? numPartitions
                   : strategy == Strategy::FlattenedIds ? int64_t(numReplicas) * numPartitions
                                                        : numReplicas;
  if (idGroups.empty() && emptyMeansAll) {
    idGroups.emplace_back();
    for (int64_t id = 0; id < numIds; ++id) idGroups.back().push_back(id);
  }
  for (const auto& ids : idGroups)
    for (int64_t id : ids)
      if (id >= numIds)
        return e.error("id " + std::to_string(id) + " in its groups is out of range [0, " +
                       std::to_string(numIds) + ")");

  auto index = [&](int64_t replica, int64_t partition) {
    return int(replica * numPartitions + partition);
  };
  std::vector<ProcessGroup> groups;
  for (const auto& ids : idGroups) {
    switch (strategy) {
      case Strategy::CrossReplica:
        for (int p = 0; p < numPartitions; ++p) {
          ProcessGroup& g = groups.emplace_back();
          for (int64_t r : ids) g.push_back(index(r, p));
        }
        break;
      case Strategy::CrossPartition:
        for (int r = 0; r < numReplicas; ++r) {
          ProcessGroup& g = groups.emplace_back();
          for (int64_t p : ids) g.push_back(index(r, p));
        }
        break;
      case Strategy::CrossReplicaAndPartition: {
        ProcessGroup& g = groups.emplace_back();
        for (int p = 0; p < numPartitions; ++p)
          for (int64_t r : ids) g.push_back(index(r, p));
        break;
      }
      case Strategy::FlattenedIds:
        groups.emplace_back(ids.begin(), ids.end());
        break;
    }
  }
  return groups;
}

// The group holding this instance, and this instance's position in it.
struct Membership {
  ProcessGroup group;
  size_t position;
};

std::optional<Membership> findSelf(const OpEval& e, const std::vector<ProcessGroup>& groups) {
  int self = e.interp.instance().index();
  for (const ProcessGroup& g : groups)
    if (auto it = std::find(g.begin(), g.end(), self); it != g.end())
      return Membership{g, size_t(it - g.begin())};
  return std::nullopt;
}

Expected<Membership> requireSelf(const OpEval& e, const std::vector<ProcessGroup>& groups) {
  if (auto m = findSelf(e, groups)) return *m;
  return e.error("replica " + std::to_string(e.replicaId()) + ", partition " +
                 std::to_string(e.partitionId()) + " is in no process group");
}

// Every instance's operands, indexed by instance.
Expected<std::vector<std::vector<Tensor>>> exchangeOperands(OpEval& e) {
  const Interpreter::Instance& self = e.interp.instance();
  if (!self.rendezvous) return std::vector<std::vector<Tensor>>{e.operands};
  return self.rendezvous->exchange(e.op, e.interp.nextOccurrence(e.op), self.index(), e.operands);
}

// --- Tensor helpers ------------------------------------------------------------

// A tensor viewed as [outer, dim(d), inner] rows of contiguous bytes.
struct Blocks {
  int64_t outer = 1, inner = 1;
  size_t elementBytes;
  Blocks(Type type, int64_t d) : elementBytes(type.elementType().storageBytes()) {
    std::span<const int64_t> shape = type.shape();
    for (int64_t i = 0; i < d; ++i) outer *= shape[i];
    for (int64_t i = d + 1; i < int64_t(shape.size()); ++i) inner *= shape[i];
  }
};

// Concatenates `pieces` (same shape) along dimension `d` into `resultType`.
Tensor concatenate(const std::vector<Tensor>& pieces, int64_t d, Type resultType) {
  Tensor r(resultType);
  Blocks b(resultType, d);
  size_t offset = 0;
  for (int64_t o = 0; o < b.outer; ++o)
    for (const Tensor& piece : pieces) {
      size_t bytes = size_t(piece.shape()[d] * b.inner) * b.elementBytes;
      std::memcpy(r.bytes() + offset, piece.bytes() + o * bytes, bytes);
      offset += bytes;
    }
  return r;
}

// Part `k` of `count` equal parts of `t` along dimension `d`.
Tensor splitPart(const Tensor& t, int64_t count, int64_t d, int64_t k) {
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  shape[d] /= count;
  Tensor part(Type::tensor(shape, t.elementType()));
  Blocks b(t.type(), d);
  size_t partBytes = size_t(shape[d] * b.inner) * b.elementBytes;
  for (int64_t o = 0; o < b.outer; ++o)
    std::memcpy(part.bytes() + o * partBytes, t.bytes() + (o * count + k) * partBytes, partBytes);
  return part;
}

// Zeros of `type`: for quantized types, the stored zero point.
Tensor zerosOf(Type type) {
  Tensor t(type);
  Type element = type.elementType();
  if (element.isQuantized() && !element.quant().zeroPoints.empty())
    for (int64_t i = 0; i < t.numElements(); ++i) t.setInt(i, element.quant().zeroPoints[0]);
  return t;
}

// Reduces operand `k` of the group members elementwise with region 0,
// converting to the region's argument type first, in group order.
Expected<Tensor> reduceAcross(OpEval& e, const std::vector<std::vector<Tensor>>& all,
                              const ProcessGroup& group, size_t k) {
  if (e.op.numRegions() != 1 || e.op.region(0).empty() ||
      e.op.region(0).front().numArguments() != 2)
    return e.error("needs a computation region of two arguments");
  Type scalarType = e.op.region(0).front().argument(0)->type();
  const Tensor& first = all[group[0]][k];
  Tensor result(first.type().withElementType(scalarType.elementType()));
  for (int64_t i = 0; i < first.numElements(); ++i) {
    Tensor acc = convertScalar(scalarAt(first, i), scalarType);
    for (size_t m = 1; m < group.size(); ++m) {
      Tensor next = convertScalar(scalarAt(all[group[m]][k], i), scalarType);
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> out, e.runRegion(0, {acc, next}));
      if (out.size() != 1 || out[0].type() != scalarType)
        return e.error("computation must return one " + scalarType.str());
      acc = out[0];
    }
    result.copyElement(i, acc, 0);
  }
  return result;
}

int64_t intAttr(const OpEval& e, std::string_view name) {
  Attribute a = e.op.attr(name);
  return a && a.is(AttrKind::Integer) ? a.intValue() : 0;
}

// --- Collectives ---------------------------------------------------------------

Results allReduce(OpEval& e) {
  KILN_ASSIGN_OR_RETURN(auto ids, idRows(e, "replica_groups"));
  KILN_ASSIGN_OR_RETURN(auto groups, processGroups(e, reductionStrategy(e), std::move(ids)));
  KILN_ASSIGN_OR_RETURN(Membership self, requireSelf(e, groups));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  std::vector<Tensor> results;
  for (size_t k = 0; k < e.operands.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(Tensor r, reduceAcross(e, all, self.group, k));
    results.push_back(std::move(r));
  }
  return results;
}

Results allGather(OpEval& e) {
  int64_t d = intAttr(e, "all_gather_dim");
  KILN_ASSIGN_OR_RETURN(auto ids, idRows(e, "replica_groups"));
  KILN_ASSIGN_OR_RETURN(auto groups, processGroups(e, reductionStrategy(e), std::move(ids)));
  KILN_ASSIGN_OR_RETURN(Membership self, requireSelf(e, groups));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  std::vector<Tensor> results;
  for (size_t k = 0; k < e.operands.size(); ++k) {
    std::vector<Tensor> pieces;
    for (int member : self.group) pieces.push_back(all[member][k]);
    results.push_back(concatenate(pieces, d, e.op.result(k)->type()));
  }
  return results;
}

Results reduceScatter(OpEval& e) {
  int64_t d = intAttr(e, "scatter_dimension");
  KILN_ASSIGN_OR_RETURN(auto ids, idRows(e, "replica_groups"));
  KILN_ASSIGN_OR_RETURN(auto groups, processGroups(e, reductionStrategy(e), std::move(ids)));
  KILN_ASSIGN_OR_RETURN(Membership self, requireSelf(e, groups));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  std::vector<Tensor> results;
  for (size_t k = 0; k < e.operands.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(Tensor reduced, reduceAcross(e, all, self.group, k));
    if (reduced.shape()[d] % int64_t(self.group.size()) != 0)
      return e.error("scatter dimension is not divisible by the group size");
    results.push_back(splitPart(reduced, self.group.size(), d, self.position));
  }
  return results;
}

Results allToAll(OpEval& e) {
  int64_t splitDim = intAttr(e, "split_dimension"), concatDim = intAttr(e, "concat_dimension");
  int64_t splitCount = intAttr(e, "split_count");
  KILN_ASSIGN_OR_RETURN(auto ids, idRows(e, "replica_groups"));
  KILN_ASSIGN_OR_RETURN(auto groups, processGroups(e, pointToPointStrategy(e), std::move(ids)));
  KILN_ASSIGN_OR_RETURN(Membership self, requireSelf(e, groups));
  if (int64_t(self.group.size()) != splitCount)
    return e.error("split_count " + std::to_string(splitCount) + " differs from the group size " +
                   std::to_string(self.group.size()));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  std::vector<Tensor> results;
  for (size_t k = 0; k < e.operands.size(); ++k) {
    std::vector<Tensor> received;
    for (int sender : self.group)
      received.push_back(splitPart(all[sender][k], splitCount, splitDim, self.position));
    results.push_back(concatenate(received, concatDim, e.op.result(k)->type()));
  }
  return results;
}

Results collectivePermute(OpEval& e) {
  KILN_ASSIGN_OR_RETURN(auto pairs, idRows(e, "source_target_pairs"));
  for (const auto& pair : pairs)
    if (pair.size() != 2) return e.error("source_target_pairs must have two ids per row");
  // Each pair is a process group [source, target] of the strategy.
  KILN_ASSIGN_OR_RETURN(auto groups, processGroups(e, pointToPointStrategy(e), pairs,
                                                   /*emptyMeansAll=*/false));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  int self = e.interp.instance().index();
  for (const ProcessGroup& g : groups)
    if (g[1] == self) return std::vector<Tensor>{all[g[0]][0]};
  return std::vector<Tensor>{zerosOf(e.op.result(0)->type())};
}

Results collectiveBroadcast(OpEval& e) {
  KILN_ASSIGN_OR_RETURN(auto ids, idRows(e, "replica_groups"));
  KILN_ASSIGN_OR_RETURN(auto groups, processGroups(e, pointToPointStrategy(e), std::move(ids),
                                                   /*emptyMeansAll=*/false));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  if (auto self = findSelf(e, groups)) return std::vector<Tensor>{all[self->group[0]][0]};
  return std::vector<Tensor>{zerosOf(e.op.result(0)->type())};
}

}  // namespace

void registerCollectiveKernels(KernelTable& t) {
  t["stablehlo.replica_id"] = replicaId;
  t["stablehlo.partition_id"] = partitionId;
  t["stablehlo.all_reduce"] = allReduce;
  t["stablehlo.all_gather"] = allGather;
  t["stablehlo.reduce_scatter"] = reduceScatter;
  t["stablehlo.all_to_all"] = allToAll;
  t["stablehlo.collective_permute"] = collectivePermute;
  t["stablehlo.collective_broadcast"] = collectiveBroadcast;
}

}  // namespace kiln::interp
