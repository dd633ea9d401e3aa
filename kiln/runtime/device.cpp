// Devices and their memory accounting.
#include "kiln/runtime/runtime_impl.h"

namespace kiln::runtime {

Device::Device(int id, std::map<std::string, std::variant<int64_t, std::string>> attributes)
    : id_(id), attributes_(std::move(attributes)), counters_(std::make_shared<Counters>()) {}

std::string Device::debugString() const { return kind_ + ":" + std::to_string(id_); }

MemoryStats Device::memoryStats() const {
  MemoryStats stats;
  stats.bytesInUse = counters_->bytesInUse.load();
  stats.peakBytesInUse = counters_->peakBytesInUse.load();
  stats.numAllocations = counters_->numAllocations.load();
  return stats;
}

namespace {
void allocate(Device::Counters& c, int64_t bytes) {
  int64_t now = c.bytesInUse.fetch_add(bytes) + bytes;
  int64_t peak = c.peakBytesInUse.load();
  while (now > peak && !c.peakBytesInUse.compare_exchange_weak(peak, now)) {
  }
  c.numAllocations.fetch_add(1);
}
}  // namespace

void Device::onAllocate(int64_t bytes) { allocate(*counters_, bytes); }
void Device::onFree(int64_t bytes) { counters_->bytesInUse.fetch_sub(bytes); }

Payload::Payload(interp::Tensor t, std::shared_ptr<Device::Counters> c)
    : tensor(std::move(t)), counters(std::move(c)), bytes(static_cast<int64_t>(tensor.byteSize())) {
  allocate(*counters, bytes);
}

Payload::~Payload() { counters->bytesInUse.fetch_sub(bytes); }

}  // namespace kiln::runtime
