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

Status atOp(const Operation& op, const Status& status) {
  Status s = error(op.loc(), "'" + op.name() + "' op: " + status.diag().message);
  s.diag().code = status.diag().code;
  return s;
}

std::string typesText(const std::vector<Type>& types) {
  std::string text;
  for (const Type& t : types) text += (text.empty() ? "" : ", ") + t.str();
  return text;
}

}  // namespace

collectives::Communicator* CommunicatorRendezvous::communicatorOf(int instance) const {
  auto found = byRank_.find(instance);
  return found == byRank_.end() ? nullptr : found->second;
}

Status CommunicatorRendezvous::send(const Operation& op, int64_t channel, int instance, int target,
                                    std::vector<interp::Tensor> payload) {
  if (target < 0)
    return error(op.loc(), "'" + op.name() + "' op: a send to whichever instance receives first cannot cross "
                                             "processes; name the receiver with source_target_pairs");
  if (target == instance) {
    std::lock_guard<std::mutex> lock(mutex_);
    toSelf_[{instance, channel}].push_back(std::move(payload));
    return Status::ok();
  }
  collectives::Communicator* communicator = communicatorOf(instance);
  if (!communicator)
    return error(ErrorCode::Internal, "instance " + std::to_string(instance) + " has no communicator in this process");
  // [types as text][bytes of each tensor], preceded by a message of its size.
  std::vector<Type> types;
  int64_t bytes = 0;
  for (const interp::Tensor& t : payload) {
    if (t.type().isTuple()) return error(op.loc(), "'" + op.name() + "' op: tuple operands cannot cross processes");
    types.push_back(t.type());
    bytes += t.type().isTensor() ? t.byteSize() : 0;
  }
  std::string header = typesText(types);
  std::vector<char> message(sizeof(uint64_t) + header.size() + bytes);
  uint64_t headerSize = header.size();
  std::memcpy(message.data(), &headerSize, sizeof headerSize);
  std::memcpy(message.data() + sizeof headerSize, header.data(), header.size());
  char* at = message.data() + sizeof headerSize + header.size();
  for (const interp::Tensor& t : payload) {
    if (!t.type().isTensor()) continue;
    std::memcpy(at, t.bytes(), t.byteSize());
    at += t.byteSize();
  }
  uint64_t size = message.size();
  if (Status s = communicator->sendTo(target, channel, &size, sizeof size); !s.isOk()) return atOp(op, s);
  if (Status s = communicator->sendTo(target, channel, message.data(), int64_t(message.size())); !s.isOk())
    return atOp(op, s);
  return Status::ok();
}

Expected<std::vector<interp::Tensor>> CommunicatorRendezvous::recv(const Operation& op, int64_t channel, int instance,
                                                                   std::vector<int> sources) {
  if (sources.size() != 1)
    return error(op.loc(), "'" + op.name() + "' op: a recv from " +
                               (sources.empty() ? std::string("any instance") : "several instances") +
                               " cannot cross processes; name its one sender with source_target_pairs");
  int source = sources[0];
  if (source == instance) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto queue = toSelf_.find({instance, channel});
    if (queue == toSelf_.end() || queue->second.empty())
      return error(op.loc(), "'" + op.name() + "' op: receives from this instance itself on channel " +
                                 std::to_string(channel) + ", which has sent nothing there before");
    std::vector<interp::Tensor> payload = std::move(queue->second.front());
    queue->second.pop_front();
    return payload;
  }
  collectives::Communicator* communicator = communicatorOf(instance);
  if (!communicator)
    return error(ErrorCode::Internal, "instance " + std::to_string(instance) + " has no communicator in this process");
  uint64_t size = 0;
  if (Status s = communicator->recvFrom(source, channel, &size, sizeof size); !s.isOk()) return atOp(op, s);
  std::vector<char> message(size);
  if (Status s = communicator->recvFrom(source, channel, message.data(), int64_t(size)); !s.isOk())
    return atOp(op, s);
  uint64_t headerSize = 0;
  if (size < sizeof headerSize) return error(op.loc(), "'" + op.name() + "' op: a malformed message");
  std::memcpy(&headerSize, message.data(), sizeof headerSize);
  if (headerSize > size - sizeof headerSize) return error(op.loc(), "'" + op.name() + "' op: a malformed message");
  std::string sent(message.data() + sizeof headerSize, headerSize);
  // What this recv wants: its results but the token.
  std::vector<Type> wanted;
  for (unsigned i = 0; i + 1 < op.numResults(); ++i) wanted.push_back(op.result(i)->type());
  if (sent != typesText(wanted))
    return error(op.loc(), "'" + op.name() + "' op: receives (" + typesText(wanted) + ") on channel " +
                               std::to_string(channel) + ", but (" + sent + ") was sent");
  std::vector<interp::Tensor> payload;
  const char* at = message.data() + sizeof headerSize + headerSize;
  const char* end = message.data() + size;
  for (const Type& t : wanted) {
    if (!t.isTensor()) {
      payload.emplace_back(t);
      continue;
    }
    interp::Tensor tensor(t);
    if (int64_t(end - at) < int64_t(tensor.byteSize()))
      return error(op.loc(), "'" + op.name() + "' op: a message shorter than its types");
    std::memcpy(tensor.bytes(), at, tensor.byteSize());
    at += tensor.byteSize();
    payload.push_back(std::move(tensor));
  }
  return payload;
}

void CommunicatorRendezvous::shareInfeed(std::vector<std::vector<interp::Tensor>> queue,
                                         std::shared_ptr<KeyValueStore> store, std::string key) {
  setInfeed({});  // the run has host queues: every instance gets the rendezvous
  std::lock_guard<std::mutex> lock(mutex_);
  infeedQueue_ = std::move(queue);
  infeedStore_ = std::move(store);
  infeedKey_ = std::move(key);
}

Expected<std::vector<interp::Tensor>> CommunicatorRendezvous::infeed(const Operation& op) {
  std::shared_ptr<KeyValueStore> store;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    store = infeedStore_;
  }
  if (!store) return Rendezvous::infeed(op);
  Expected<int64_t> taken = store->add(infeedKey_, 1);
  if (!taken) return atOp(op, taken.status());
  std::lock_guard<std::mutex> lock(mutex_);
  size_t index = size_t(*taken - 1);
  if (*taken < 1 || index >= infeedQueue_.size())
    return error(op.loc(), "'" + op.name() + "' op: the run's infeed queue is empty (" +
                               std::to_string(infeedQueue_.size()) +
                               (infeedQueue_.size() == 1 ? " element was" : " elements were") +
                               " queued, by run_parallel's `infeed`, for the processes to share)");
  return infeedQueue_[index];
}

}  // namespace kiln::distributed
