#include "kiln/device/device_buffer.h"

namespace kiln::device {

std::string_view memorySpaceName(MemorySpace space) { return space == MemorySpace::kHost ? "host" : "device"; }

int64_t denseBytes(Type type) {
  if (!type.isTensor()) return 0;
  Type element = type.elementType();
  if (element.isQuantized()) element = element.quant().storageType;
  return type.numElements() * element.storageBytes();
}

void MemoryAccount::add(int64_t bytes) {
  int64_t now = bytesInUse_.fetch_add(bytes) + bytes;
  int64_t peak = peakBytesInUse_.load();
  while (now > peak && !peakBytesInUse_.compare_exchange_weak(peak, now)) {
  }
  numAllocations_.fetch_add(1);
}

MemoryStats MemoryAccount::stats() const {
  return {bytesInUse_.load(), peakBytesInUse_.load(), numAllocations_.load()};
}

Memory::~Memory() {
  if (account_) account_->remove(size_);
}

void Memory::countIn(std::shared_ptr<MemoryAccount> account) {
  if (account_) return;
  account_ = std::move(account);
  account_->add(size_);
}

namespace {

class BorrowedHostMemory final : public Memory {
 public:
  BorrowedHostMemory(void* data, int64_t size, std::function<void()> release)
      : Memory(data, size, MemorySpace::kHost), release_(std::move(release)) {}
  ~BorrowedHostMemory() override {
    if (release_) release_();
  }

 private:
  std::function<void()> release_;
};

}  // namespace

std::shared_ptr<Memory> borrowHostMemory(void* data, int64_t size, std::function<void()> release) {
  return std::make_shared<BorrowedHostMemory>(data, size, std::move(release));
}

Expected<Literal> Literal::of(DeviceBuffer buffer) {
  if (!buffer) return error(ErrorCode::InvalidArgument, "a literal of an empty buffer");
  if (buffer.space() != MemorySpace::kHost)
    return error(ErrorCode::InvalidArgument, "a literal needs host memory; the buffer is in " +
                                                 std::string(memorySpaceName(buffer.space())) + " memory");
  return Literal(std::move(buffer));
}

}  // namespace kiln::device
