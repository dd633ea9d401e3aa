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
#include "kiln/interp/process_groups.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;

Tensor scalarU32(uint32_t v) {
  Tensor t(Type::tensor({}, Type::integer(32, /*isUnsigned=*/true)));
  t.setInt(0, v);
  return t;
}

Results replicaId(OpEval& e) { return std::vector<Tensor>{scalarU32(e.replicaId())}; }
Results partitionId(OpEval& e) { return std::vector<Tensor>{scalarU32(e.partitionId())}; }

// The process groups of `e.op`, and the group holding this instance.
Expected<std::vector<ProcessGroup>> groupsOf(const OpEval& e) { return processGroups(e.op, e.interp.instance()); }

Expected<Membership> requireSelf(const OpEval& e, const std::vector<ProcessGroup>& groups) {
  return requireMember(e.op, groups, e.interp.instance());
}

// Every instance's operands, indexed by instance.
Expected<std::vector<std::vector<Tensor>>> exchangeOperands(OpEval& e) {
  const Interpreter::Instance& self = e.interp.instance();
  if (!self.rendezvous || self.rendezvous->numInstances() == 1) return std::vector<std::vector<Tensor>>{e.operands};
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
  KILN_ASSIGN_OR_RETURN(auto groups, groupsOf(e));
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
  KILN_ASSIGN_OR_RETURN(auto groups, groupsOf(e));
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
  KILN_ASSIGN_OR_RETURN(auto groups, groupsOf(e));
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
  KILN_ASSIGN_OR_RETURN(auto groups, groupsOf(e));
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
  KILN_ASSIGN_OR_RETURN(auto groups, groupsOf(e));  // [source, target] per pair
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  int self = e.interp.instance().index();
  for (const ProcessGroup& g : groups)
    if (g[1] == self) return std::vector<Tensor>{all[g[0]][0]};
  return std::vector<Tensor>{zerosOf(e.op.result(0)->type())};
}

Results collectiveBroadcast(OpEval& e) {
  KILN_ASSIGN_OR_RETURN(auto groups, groupsOf(e));
  KILN_ASSIGN_OR_RETURN(auto all, exchangeOperands(e));
  if (auto self = findMember(groups, e.interp.instance().index())) return std::vector<Tensor>{all[self->group[0]][0]};
  return std::vector<Tensor>{zerosOf(e.op.result(0)->type())};
}

// --- send / recv ------------------------------------------------------------------
//
// Between the instances of one run (interpreter.run_parallel's programs, or a
// module's replicas and partitions), through the rendezvous by channel
// handle: a send leaves its inputs there and goes on; a recv waits for what
// was sent on its channel, oldest first. With source_target_pairs (ids as
// collective_permute's) a send goes to the pairs' targets alone and a recv
// takes from their sources alone; without, any recv on the channel takes it.
// A lone program has no peer (is_host_transfer: no host) to talk to.

Status requirePeers(const OpEval& e) {
  const Rendezvous* rendezvous = e.interp.instance().rendezvous;
  if (rendezvous && rendezvous->numInstances() > 1) return Status::ok();
  return e.error("has no peer program to talk to: send and recv run between the programs of "
                 "interpreter.run_parallel or between the instances of a multi-instance run");
}

int64_t channelOf(const OpEval& e) { return intField(e.op.attr("channel_handle"), "handle", 0); }

// The instances that are `from` (0: sources, 1: targets) of this one's pairs.
Expected<std::vector<int>> pairedWith(const OpEval& e, int self, int from) {
  KILN_ASSIGN_OR_RETURN(std::vector<ProcessGroup> pairs, processGroups(e.op, e.interp.instance()));
  std::vector<int> peers;
  for (const ProcessGroup& pair : pairs)
    if (pair[1 - from] == self) peers.push_back(pair[from]);
  return peers;
}

Results send(OpEval& e) {
  KILN_RETURN_IF_ERROR(requirePeers(e));
  const Interpreter::Instance& self = e.interp.instance();
  std::vector<Tensor> payload(e.operands.begin(), e.operands.end() - 1);
  std::vector<int> targets{-1};
  if (e.op.attr("source_target_pairs")) {
    KILN_ASSIGN_OR_RETURN(targets, pairedWith(e, self.index(), 1));
  }
  for (int target : targets) KILN_RETURN_IF_ERROR(self.rendezvous->send(e.op, channelOf(e), self.index(), target, payload));
  return std::vector<Tensor>{Tensor(Type::token())};
}

Results recv(OpEval& e) {
  KILN_RETURN_IF_ERROR(requirePeers(e));
  const Interpreter::Instance& self = e.interp.instance();
  std::vector<int> sources;
  if (e.op.attr("source_target_pairs")) {
    KILN_ASSIGN_OR_RETURN(sources, pairedWith(e, self.index(), 0));
    if (sources.empty()) return e.error("receives from no instance: no pair of its source_target_pairs targets this one");
  }
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> payload, self.rendezvous->recv(e.op, channelOf(e), self.index(), sources));
  std::string sent, wanted;
  for (const Tensor& t : payload) sent += (sent.empty() ? "" : ", ") + t.type().str();
  for (unsigned i = 0; i + 1 < e.op.numResults(); ++i) wanted += (wanted.empty() ? "" : ", ") + e.op.result(i)->type().str();
  if (sent != wanted)
    return e.error("receives (" + wanted + ") on channel " + std::to_string(channelOf(e)) + ", but (" + sent +
                   ") was sent");
  payload.emplace_back(Type::token());
  return payload;
}

}  // namespace

void registerCollectiveKernels(KernelTable& t) {
  t["stablehlo.send"] = send;
  t["stablehlo.recv"] = recv;
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
