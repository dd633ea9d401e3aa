// Devices and their memory accounting.
#include "kiln/runtime/runtime_impl.h"

namespace kiln::runtime {

Device::Device(int id, std::map<std::string, std::variant<int64_t, std::string>> attributes)
    : id_(id), attributes_(std::move(attributes)), memoryAccount_(std::make_shared<device::MemoryAccount>()) {}

std::string Device::debugString() const { return kind_ + ":" + std::to_string(id_); }

MemoryStats Device::memoryStats() const { return memoryAccount_->stats(); }

device::DeviceBuffer placeOn(device::DeviceBuffer value, Device& device) {
  Type type = value.type();
  std::shared_ptr<device::Memory> memory = value.takeMemory();
  memory->countIn(device.memoryAccount());
  return device::DeviceBuffer(type, std::move(memory), device.id());
}

}  // namespace kiln::runtime
