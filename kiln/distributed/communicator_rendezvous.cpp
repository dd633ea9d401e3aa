#include "kiln/distributed/communicator_rendezvous.h"

#include <cstring>

namespace kiln::distributed {

CommunicatorRendezvous::CommunicatorRendezvous(int numInstances,
                                               std::span<collectives::Communicator* const> communicators)
    : interp::Rendezvous(numInstances) {
  for (collectives::Communicator* c : communicators) byRank_[c->rank()] = c;
}

Expected<std::vector<std::vector<interp::Tensor>>> CommunicatorRendezvous::exchange(
    const Operation& op, int64_t occurrence, int instance, std::vector<interp::Tensor> operands) {
  auto found = byRank_.find(instance);
  collectives::Communicator* communicator = found == byRank_.end() ? nullptr : found->second;
  if (!communicator)
    return error(ErrorCode::Internal, "instance " + std::to_string(instance) + " has no communicator in this process");
  // Every instance runs the same program, so their operands have the same
  // types: each sends its operands' bytes, end to end, and reads the others'
  // as tensors of its own operands' types.
  int64_t bytes = 0;
  for (const interp::Tensor& t : operands) {
    if (t.type().isTuple()) return error(op.loc(), "'" + op.name() + "' op: tuple operands cannot cross processes");
    bytes += t.type().isTensor() ? t.byteSize() : 0;
  }
  std::vector<uint8_t> mine(bytes), everyone(bytes * numInstances());
  int64_t offset = 0;
  for (const interp::Tensor& t : operands) {
    if (!t.type().isTensor()) continue;
    std::memcpy(mine.data() + offset, t.bytes(), t.byteSize());
    offset += t.byteSize();
  }
  std::vector<int> world(numInstances());
  for (int r = 0; r < numInstances(); ++r) world[r] = r;
  if (Status s = communicator->allGather(world, mine.data(), everyone.data(), bytes); !s.isOk())
    return error(op.loc(), "'" + op.name() + "' op: " + s.diag().message);
  std::vector<std::vector<interp::Tensor>> all(numInstances());
  for (int r = 0; r < numInstances(); ++r) {
    const uint8_t* from = everyone.data() + r * bytes;
    for (const interp::Tensor& t : operands) {
      if (!t.type().isTensor()) {
        all[r].push_back(t);
        continue;
      }
      all[r].emplace_back(t.type(), std::vector<uint8_t>(from, from + t.byteSize()));
      from += t.byteSize();
    }
  }
  return all;
}

namespace {
Status notAcrossProcesses(const Operation& op) {
  Status s = error(op.loc(), "'" + op.name() +
                                 "' op: send and recv between processes are not supported yet; they run between "
                                 "the instances of one process (kiln run --all-instances, interpreter.run_parallel)");
  s.diag().code = ErrorCode::Unimplemented;
  return s;
}
}  // namespace

Status CommunicatorRendezvous::send(const Operation& op, int64_t, int, int, std::vector<interp::Tensor>) {
  return notAcrossProcesses(op);
}

Expected<std::vector<interp::Tensor>> CommunicatorRendezvous::recv(const Operation& op, int64_t, int, std::vector<int>) {
  return notAcrossProcesses(op);
}

}  // namespace kiln::distributed
