// Native collectives: the cpu back end's collective routines over the run's
// Communicator (kiln/collectives/communicator.h). Each reads the op's process
// groups (kiln/interp/process_groups.h), lays every operand out as the
// contiguous blocks the communicator moves (copying only where the split or
// concatenated dimension has dimensions of more than one element before
// it), and calls the communicator. Results equal the interpreter's bit for
// bit: reductions fold in group order with the interpreter's rounding.
#include <cstring>

#include "kiln/backends/cpu/native_routine.h"
#include "kiln/collectives/communicator.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/process_groups.h"

namespace kiln::cpu {
namespace {

using collectives::Communicator;
using collectives::Reduction;
using interp::Membership;
using interp::ProcessGroup;
using interp::Tensor;

using Results = Expected<std::vector<Tensor>>;

std::optional<Reduction> reductionNamed(std::string_view opName) {
  if (opName == "stablehlo.add") return Reduction::Sum;
  if (opName == "stablehlo.multiply") return Reduction::Product;
  if (opName == "stablehlo.minimum") return Reduction::Min;
  if (opName == "stablehlo.maximum") return Reduction::Max;
  if (opName == "stablehlo.and") return Reduction::And;
  if (opName == "stablehlo.or") return Reduction::Or;
  if (opName == "stablehlo.xor") return Reduction::Xor;
  return std::nullopt;
}

// The reduction of `op`'s body when it is one op the communicator combines
// on every operand's own element type.
std::optional<Reduction> reductionOf(const Operation& op) {
  const Operation* body = interp::binaryBodyOp(op, 0);
  if (!body) return std::nullopt;
  std::optional<Reduction> reduction = reductionNamed(body->name());
  Type element = body->result(0)->type().elementType();
  if (!reduction || !collectives::reducible(element.kind(), *reduction)) return std::nullopt;
  for (const Value* operand : op.operands())
    if (operand->type().elementType() != element) return std::nullopt;
  return reduction;
}

int64_t intAttr(const Operation& op, std::string_view name) {
  Attribute a = op.attr(name);
  return a && a.is(AttrKind::Integer) ? a.intValue() : 0;
}

int64_t byteCount(Type type) { return type.numElements() * type.elementType().storageBytes(); }

// Elements of `type` before dimension `d`: the rows a split or
// concatenation along d interleaves.
int64_t rowsBefore(Type type, int64_t d) {
  int64_t rows = 1;
  for (int64_t i = 0; i < d; ++i) rows *= type.shape()[i];
  return rows;
}

// Part j of n equal parts along a dimension with `rows` rows before it
// becomes contiguous block j of `blocks`.
void packParts(const uint8_t* tensor, int64_t bytes, int64_t rows, int64_t n, uint8_t* blocks) {
  int64_t rowBytes = bytes / (rows * n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(blocks + (j * rows + r) * rowBytes, tensor + (r * n + j) * rowBytes, rowBytes);
}

// The inverse: n contiguous blocks concatenated along a dimension with `rows` rows before it.
void unpackBlocks(const uint8_t* blocks, int64_t bytes, int64_t rows, int64_t n, uint8_t* tensor) {
  int64_t rowBytes = bytes / (rows * n);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      std::memcpy(tensor + (r * n + j) * rowBytes, blocks + (j * rows + r) * rowBytes, rowBytes);
}

// A communicator's error, placed at `op`.
Status atOp(const Operation& op, Status status) {
  if (status.isOk()) return status;
  status.diag().loc = op.loc();
  status.diag().message = "'" + op.name() + "' op " + status.diag().message;
  return status;
}

Expected<Membership> groupOf(const Operation& op, const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(std::vector<ProcessGroup> groups, interp::processGroups(op, instance));
  return interp::requireMember(op, groups, instance);
}

// Several operands (all of one element type: reductionOf) go as one buffer,
// in one call: across processes every call costs round trips.
Results allReduce(const Operation& op, Reduction reduction, std::vector<Tensor> operands,
                  const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(Membership self, groupOf(op, instance));
  std::vector<Tensor> results;
  if (operands.empty()) return results;
  if (operands.size() > 1) {
    int64_t count = 0;
    for (const Tensor& in : operands) count += in.type().numElements();
    TypeKind element = op.result(0)->type().elementType().kind();
    int64_t elementBytes = collectives::elementBytes(element);
    std::vector<uint8_t> packed(count * elementBytes);
    int64_t at = 0;
    for (const Tensor& in : operands) {
      std::memcpy(packed.data() + at, in.bytes(), in.byteSize());
      at += in.byteSize();
    }
    if (count > 0)
      KILN_RETURN_IF_ERROR(atOp(op, instance.communicator->allReduce(self.group, element, reduction, packed.data(),
                                                                     packed.data(), count)));
    at = 0;
    for (size_t k = 0; k < operands.size(); ++k) {
      Tensor out = Tensor::uninitialized(op.result(k)->type());
      std::memcpy(out.bytes(), packed.data() + at, out.byteSize());
      at += out.byteSize();
      results.push_back(std::move(out));
    }
    return results;
  }
  Tensor& in = operands[0];
  Type type = op.result(0)->type();
  const uint8_t* source = in.bytes();
  // An operand nobody else holds takes the sum in place.
  Tensor out = in.isSoleOwner() && in.type() == type ? std::move(in) : Tensor::uninitialized(type);
  if (type.numElements() > 0)
    KILN_RETURN_IF_ERROR(atOp(op, instance.communicator->allReduce(self.group, type.elementType().kind(), reduction,
                                                                   source, out.bytes(), type.numElements())));
  results.push_back(std::move(out));
  return results;
}

Results reduceScatter(const Operation& op, Reduction reduction, std::vector<Tensor> operands,
                      const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(Membership self, groupOf(op, instance));
  int64_t d = intAttr(op, "scatter_dimension"), n = int64_t(self.group.size());
  std::vector<Tensor> results;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Tensor& in = operands[k];
    Type type = op.result(k)->type();
    if (in.shape()[d] % n != 0 || in.shape()[d] / n != type.shape()[d])
      return error(op.loc(), "'" + op.name() + "' op scatter dimension does not split into the group's " +
                                 std::to_string(n) + " results");
    Tensor out = Tensor::uninitialized(type);
    if (type.numElements() > 0) {
      int64_t rows = rowsBefore(in.type(), d);
      std::vector<uint8_t> packed(rows == 1 ? 0 : byteCount(in.type()));
      if (rows > 1) packParts(in.bytes(), packed.size(), rows, n, packed.data());
      KILN_RETURN_IF_ERROR(atOp(op, instance.communicator->reduceScatter(
                                        self.group, type.elementType().kind(), reduction,
                                        rows == 1 ? in.bytes() : packed.data(), out.bytes(), type.numElements())));
    }
    results.push_back(std::move(out));
  }
  return results;
}

Results allGather(const Operation& op, std::vector<Tensor> operands, const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(Membership self, groupOf(op, instance));
  int64_t d = intAttr(op, "all_gather_dim"), n = int64_t(self.group.size());
  std::vector<Tensor> results;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Tensor& in = operands[k];
    Type type = op.result(k)->type();
    Tensor out = Tensor::uninitialized(type);
    int64_t bytes = byteCount(in.type()), rows = rowsBefore(type, d);
    if (bytes > 0) {
      std::vector<uint8_t> blocks(rows == 1 ? 0 : bytes * n);
      KILN_RETURN_IF_ERROR(atOp(op, instance.communicator->allGather(self.group, in.bytes(),
                                                                     rows == 1 ? out.bytes() : blocks.data(), bytes)));
      if (rows > 1) unpackBlocks(blocks.data(), blocks.size(), rows, n, out.bytes());
    }
    results.push_back(std::move(out));
  }
  return results;
}

Results allToAll(const Operation& op, std::vector<Tensor> operands, const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(Membership self, groupOf(op, instance));
  int64_t splitDim = intAttr(op, "split_dimension"), concatDim = intAttr(op, "concat_dimension");
  int64_t n = int64_t(self.group.size());
  if (intAttr(op, "split_count") != n)
    return error(op.loc(), "'" + op.name() + "' op split_count " + std::to_string(intAttr(op, "split_count")) +
                               " differs from the group size " + std::to_string(n));
  std::vector<Tensor> results;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Tensor& in = operands[k];
    Type type = op.result(k)->type();
    Tensor out = Tensor::uninitialized(type);
    int64_t bytes = byteCount(in.type());
    int64_t splitRows = rowsBefore(in.type(), splitDim), concatRows = rowsBefore(type, concatDim);
    if (bytes > 0) {
      std::vector<uint8_t> packed(splitRows == 1 ? 0 : bytes), received(concatRows == 1 ? 0 : bytes);
      if (splitRows > 1) packParts(in.bytes(), bytes, splitRows, n, packed.data());
      KILN_RETURN_IF_ERROR(atOp(op, instance.communicator->allToAll(
                                        self.group, splitRows == 1 ? in.bytes() : packed.data(),
                                        concatRows == 1 ? out.bytes() : received.data(), bytes / n)));
      if (concatRows > 1) unpackBlocks(received.data(), bytes, concatRows, n, out.bytes());
    }
    results.push_back(std::move(out));
  }
  return results;
}

Results collectivePermute(const Operation& op, std::vector<Tensor> operands, const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(std::vector<ProcessGroup> groups, interp::processGroups(op, instance));
  std::vector<std::pair<int, int>> pairs;  // each group is [source, target]
  for (const ProcessGroup& g : groups) pairs.emplace_back(g[0], g[1]);
  Type type = op.result(0)->type();
  Tensor out = Tensor::uninitialized(type);
  if (int64_t bytes = byteCount(type); bytes > 0)
    KILN_RETURN_IF_ERROR(
        atOp(op, instance.communicator->collectivePermute(pairs, operands[0].bytes(), out.bytes(), bytes)));
  return std::vector<Tensor>{std::move(out)};
}

Results collectiveBroadcast(const Operation& op, std::vector<Tensor> operands, const interp::Instance& instance) {
  KILN_ASSIGN_OR_RETURN(std::vector<ProcessGroup> groups, interp::processGroups(op, instance));
  Type type = op.result(0)->type();
  std::optional<Membership> self = interp::findMember(groups, instance.index());
  if (!self) return std::vector<Tensor>{Tensor(type)};  // in no group: zeros
  Tensor out = Tensor::uninitialized(type);
  if (int64_t bytes = byteCount(type); bytes > 0)
    KILN_RETURN_IF_ERROR(atOp(op, instance.communicator->broadcast(self->group, /*rootIndexInGroup=*/0,
                                                                   operands[0].bytes(), out.bytes(), bytes)));
  return std::vector<Tensor>{std::move(out)};
}

// Ops whose results may be zeros (instances no pair or group reaches): the
// zeros of a quantized type are its zero point, which the reference writes.
bool zerosAreZeroBytes(const Operation& op) {
  return op.numOperands() == 1 && op.numResults() == 1 && !op.result(0)->type().elementType().isQuantized();
}

}  // namespace

std::optional<NativeCollective> nativeCollective(const Operation& op) {
  std::string_view name = op.name();
  auto bind = [&](std::string label, auto fn) {
    return NativeCollective{"native " + std::move(label),
                            [&op, fn](std::vector<Tensor> operands, const interp::Instance& instance) {
                              return fn(op, std::move(operands), instance);
                            }};
  };
  if (name == "stablehlo.all_reduce" || name == "stablehlo.reduce_scatter") {
    std::optional<Reduction> reduction = reductionOf(op);
    if (!reduction) return std::nullopt;
    Reduction r = *reduction;
    std::string label = std::string(name.substr(10)) + " " + std::string(collectives::reductionName(r));
    if (name == "stablehlo.all_reduce")
      return bind(label, [r](const Operation& o, std::vector<Tensor> a, const interp::Instance& i) {
        return allReduce(o, r, std::move(a), i);
      });
    return bind(label, [r](const Operation& o, std::vector<Tensor> a, const interp::Instance& i) {
      return reduceScatter(o, r, std::move(a), i);
    });
  }
  if (name == "stablehlo.all_gather") return bind("all_gather", allGather);
  if (name == "stablehlo.all_to_all") return bind("all_to_all", allToAll);
  if (name == "stablehlo.collective_permute" && zerosAreZeroBytes(op)) return bind("collective_permute", collectivePermute);
  if (name == "stablehlo.collective_broadcast" && zerosAreZeroBytes(op))
    return bind("collective_broadcast", collectiveBroadcast);
  return std::nullopt;
}

}  // namespace kiln::cpu
