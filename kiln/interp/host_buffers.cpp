#include "kiln/interp/host_buffers.h"

#include <typeinfo>

namespace kiln::interp {
namespace {

// Host memory held by a tensor.
class TensorMemory final : public device::Memory {
 public:
  explicit TensorMemory(Tensor t)
      : Memory(t.bytes(), static_cast<int64_t>(t.byteSize()), device::MemorySpace::kHost), tensor(std::move(t)) {}
  Tensor tensor;
};

class TensorAllocator final : public device::Allocator {
 public:
  device::MemorySpace space() const override { return device::MemorySpace::kHost; }
  Expected<std::shared_ptr<device::Memory>> allocate(Type type) const override {
    if (!type.isTensor() && !type.isToken())
      return error(ErrorCode::InvalidArgument, "no memory for a value of type " + type.str());
    return std::shared_ptr<device::Memory>(std::make_shared<TensorMemory>(Tensor::uninitialized(type)));
  }
};

// The tensor over `buffer`'s memory, which is the host's (toTensor's work,
// without its checks: executions convert every argument this way).
Tensor tensorOver(device::DeviceBuffer& buffer) {
  Type type = buffer.type();
  std::shared_ptr<device::Memory> memory = buffer.takeMemory();
  // (typeid, not dynamic_cast: a final class compares in a few instructions.)
  if (typeid(*memory) == typeid(TensorMemory)) {
    auto* held = static_cast<TensorMemory*>(memory.get());
    if (held->tensor.type() == type) {
      if (memory.use_count() == 1) return std::move(held->tensor);
      if (!type.isTensor()) return held->tensor;  // a token or tuple: copies share
    }
  }
  if (!type.isTensor()) return Tensor(type);
  auto* data = static_cast<uint8_t*>(memory->data());
  return Tensor::borrow(type, data, std::move(memory));
}

Status checkHost(const device::DeviceBuffer& buffer) {
  if (!buffer) return error(ErrorCode::InvalidArgument, "an empty buffer has no tensor");
  if (buffer.space() != device::MemorySpace::kHost)
    return error(ErrorCode::InvalidArgument, "a tensor needs host memory; the buffer of " + buffer.type().str() +
                                                 " is in " + std::string(memorySpaceName(buffer.space())) +
                                                 " memory");
  return Status::ok();
}

}  // namespace

device::DeviceBuffer toDeviceBuffer(Tensor tensor, int device) {
  Type type = tensor.type();
  return device::DeviceBuffer(type, std::make_shared<TensorMemory>(std::move(tensor)), device);
}

Expected<Tensor> toTensor(device::DeviceBuffer buffer) {
  KILN_RETURN_IF_ERROR(checkHost(buffer));
  return tensorOver(buffer);
}

Expected<std::vector<Tensor>> toTensors(std::vector<device::DeviceBuffer>& buffers) {
  for (const device::DeviceBuffer& b : buffers) KILN_RETURN_IF_ERROR(checkHost(b));
  std::vector<Tensor> tensors;
  tensors.reserve(buffers.size());
  for (device::DeviceBuffer& b : buffers) tensors.push_back(tensorOver(b));
  buffers.clear();
  return tensors;
}

std::vector<device::DeviceBuffer> toDeviceBuffers(std::vector<Tensor> tensors,
                                                  std::vector<device::DeviceBuffer> storage) {
  storage.clear();
  storage.reserve(tensors.size());
  for (Tensor& t : tensors) storage.push_back(toDeviceBuffer(std::move(t)));
  return storage;
}

Expected<std::vector<std::vector<Tensor>>> toTensors(std::vector<std::vector<device::DeviceBuffer>> lists) {
  std::vector<std::vector<Tensor>> tensors;
  tensors.reserve(lists.size());
  for (std::vector<device::DeviceBuffer>& list : lists) {
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> t, toTensors(list));
    tensors.push_back(std::move(t));
  }
  return tensors;
}

std::vector<std::vector<device::DeviceBuffer>> toDeviceBuffers(std::vector<std::vector<Tensor>> lists) {
  std::vector<std::vector<device::DeviceBuffer>> buffers;
  buffers.reserve(lists.size());
  for (std::vector<Tensor>& list : lists) buffers.push_back(toDeviceBuffers(std::move(list)));
  return buffers;
}

device::Literal toLiteral(Tensor tensor) { return *device::Literal::of(toDeviceBuffer(std::move(tensor))); }

Tensor toTensor(const device::Literal& literal) {
  if (!literal) return Tensor();
  return *toTensor(literal.buffer());  // host memory: cannot fail
}

const device::Allocator& tensorAllocator() {
  static const TensorAllocator allocator;
  return allocator;
}

}  // namespace kiln::interp
