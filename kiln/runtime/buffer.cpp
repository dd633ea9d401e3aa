// Events and buffers.
#include <cstring>

#include "kiln/runtime/runtime_impl.h"
#include "kiln/support/trace.h"

namespace kiln::runtime {

namespace {
Status copyOf(const Status& s) { return s.isOk() ? Status::ok() : Status(s.diag()); }
}  // namespace

void Event::State::set(Status s) {
  std::vector<std::function<void()>> toRun;
  {
    std::lock_guard<std::mutex> lock(mu);
    status = std::move(s);
    ready = true;
    toRun.swap(waiters);
  }
  cv.notify_all();
  for (auto& fn : toRun) fn();
}

void Event::State::onReady(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu);
    if (!ready) {
      waiters.push_back(std::move(fn));
      return;
    }
  }
  fn();
}

bool Event::isReady() const {
  if (!state_) return true;
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->ready;
}

Status Event::await() const {
  if (!state_) return Status::ok();
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->cv.wait(lock, [&] { return state_->ready; });
  return copyOf(state_->status);
}

void Event::onReady(std::function<void(Status)> fn) const {
  if (!state_) return fn(Status::ok());
  std::shared_ptr<State> state = state_;
  state->onReady([state, fn = std::move(fn)] { fn(copyOf(state->status)); });
}

Status checkUsable(const Buffer::State& state, std::string_view what) {
  if (state.deleted)
    return error(ErrorCode::FailedPrecondition, std::string(what) + " was deleted");
  if (state.donated)
    return error(ErrorCode::FailedPrecondition, std::string(what) + " was donated to an execution");
  return Status::ok();
}

Buffer::Buffer(Type type, Device* device, std::shared_ptr<State> state, Event ready)
    : type_(type), device_(device), state_(std::move(state)), ready_(std::move(ready)) {}

Buffer::~Buffer() = default;

int64_t Buffer::byteSize() const { return device::denseBytes(type_); }

Status Buffer::toHost(void* dst, int64_t dstBytes) const {
  KILN_ASSIGN_OR_RETURN(device::Literal literal, toLiteral());
  if (dstBytes < literal.byteSize())
    return error(ErrorCode::InvalidArgument, "toHost: the destination holds " + std::to_string(dstBytes) +
                                                 " bytes, the buffer " + std::to_string(literal.byteSize()));
  trace::Scope slice("transfer", "device to host");
  slice.arg("bytes", std::to_string(literal.byteSize()));
  if (literal.byteSize() > 0) std::memcpy(dst, literal.bytes(), literal.byteSize());
  return Status::ok();
}

Expected<device::Literal> Buffer::toLiteral() const {
  {
    // Fail fast on a deleted buffer rather than waiting for its producer.
    std::lock_guard<std::mutex> lock(state_->mu);
    KILN_RETURN_IF_ERROR(checkUsable(*state_, "the buffer"));
  }
  KILN_RETURN_IF_ERROR(ready_.await());
  std::lock_guard<std::mutex> lock(state_->mu);
  KILN_RETURN_IF_ERROR(checkUsable(*state_, "the buffer"));
  if (!state_->value) return error(ErrorCode::Internal, "a ready buffer without data");
  // The literal shares the memory (and so keeps it counted on the device).
  return device::Literal::of(state_->value);
}

void Buffer::deleteBuffer() {
  device::DeviceBuffer value;  // freed after unlocking: freeing may run a release callback
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->deleted = true;
  std::swap(value, state_->value);
}

bool Buffer::isDeleted() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->deleted;
}

bool Buffer::isDonated() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  return state_->donated;
}

}  // namespace kiln::runtime
