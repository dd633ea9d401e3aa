// Values on devices, below every back end and the interpreter: blocks of
// memory in a memory space (Memory), where they come from (Allocator), how
// many bytes a device holds (MemoryAccount), an array in such memory
// (DeviceBuffer) and a value in host memory (Literal).
//
// The runtime moves DeviceBuffers between the caller and a back end's
// Program (kiln/backends/backend.h); the cpu back end and the interpreter
// compute on host memory, a GPU back end would hand out device memory
// through the same types. The interpreter's tensors convert to and from host
// buffers without a copy (kiln/interp/host_buffers.h).
//
// Layout: kiln's dense layout (interp/tensor.h): row-major, little-endian,
// one element per Type::storageBytes() bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "kiln/ir/types.h"
#include "kiln/support/diagnostic.h"

namespace kiln::device {

enum class MemorySpace {
  kHost,    // the host's memory: the cpu back end's and the interpreter's
  kDevice,  // an accelerator's own memory, not addressable by the host
};

std::string_view memorySpaceName(MemorySpace space);  // "host", "device"

// Bytes a value of `type` takes in kiln's dense layout (0 for tokens and
// tuples, which hold no bytes of their own).
int64_t denseBytes(Type type);

struct MemoryStats {
  int64_t bytesInUse = 0;  // live blocks counted in the account
  int64_t peakBytesInUse = 0;
  int64_t numAllocations = 0;
};

// The bytes of memory one device holds: every block counted in it from when
// it is placed on the device until it is freed. Thread-safe.
class MemoryAccount {
 public:
  void add(int64_t bytes);
  void remove(int64_t bytes) { bytesInUse_.fetch_sub(bytes); }
  MemoryStats stats() const;

 private:
  std::atomic<int64_t> bytesInUse_{0};
  std::atomic<int64_t> peakBytesInUse_{0};
  std::atomic<int64_t> numAllocations_{0};
};

// A block of memory in one memory space, shared (std::shared_ptr<Memory>)
// by the buffers over it and freed when the last one goes. Whoever made it
// (an allocator, a back end, a caller lending its memory) decides how it is
// freed, in the subclass's destructor.
class Memory {
 public:
  Memory(void* data, int64_t size, MemorySpace space) : data_(data), size_(size), space_(space) {}
  virtual ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  void* data() const { return data_; }
  int64_t size() const { return size_; }
  MemorySpace space() const { return space_; }

  // Counts the block's bytes in `account` until the block is freed. A block
  // is counted once: one already counted stays where it is. Called before
  // the block is shared between threads.
  void countIn(std::shared_ptr<MemoryAccount> account);

 private:
  void* data_;
  int64_t size_;
  MemorySpace space_;
  std::shared_ptr<MemoryAccount> account_;
};

// Where a device's memory comes from. Each back end gives the allocator of
// its devices (backend::Backend::allocator): host memory for cpu and the
// interpreter; a CUDA back end would implement one over its driver.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual MemorySpace space() const = 0;
  // A block for a value of `type` (denseBytes(type) bytes, contents
  // unspecified; a tensor's 64-byte aligned).
  virtual Expected<std::shared_ptr<Memory>> allocate(Type type) const = 0;
};

// Host memory someone else owns, used in place: `release` runs once, when
// the block goes.
std::shared_ptr<Memory> borrowHostMemory(void* data, int64_t size, std::function<void()> release);

// An array of a tensor type (or a token) in memory of some space on device
// number `device` of its back end. A value: copies share the memory. An
// empty buffer (default-constructed, or after takeMemory) has no memory:
// only its type and operator bool may be asked.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(Type type, std::shared_ptr<Memory> memory, int device = 0)
      : type_(type), memory_(std::move(memory)), device_(device) {}

  explicit operator bool() const { return static_cast<bool>(memory_); }
  Type type() const { return type_; }
  int device() const { return device_; }
  MemorySpace space() const { return memory_->space(); }
  int64_t byteSize() const { return denseBytes(type_); }
  void* data() const { return memory_->data(); }
  const std::shared_ptr<Memory>& memory() const { return memory_; }
  // Lets go of the memory, handing this buffer's reference to the caller.
  std::shared_ptr<Memory> takeMemory() { return std::move(memory_); }

 private:
  Type type_;
  std::shared_ptr<Memory> memory_;
  int device_ = 0;
};

// A value in host memory: how data enters and leaves the runtime. A
// DeviceBuffer in host memory is one already, without a copy.
class Literal {
 public:
  Literal() = default;
  // `buffer` in host memory, shared; an InvalidArgument error for other memory.
  static Expected<Literal> of(DeviceBuffer buffer);

  explicit operator bool() const { return static_cast<bool>(buffer_); }
  Type type() const { return buffer_.type(); }
  const uint8_t* bytes() const { return static_cast<const uint8_t*>(buffer_.data()); }
  int64_t byteSize() const { return buffer_.byteSize(); }
  const DeviceBuffer& buffer() const { return buffer_; }

 private:
  explicit Literal(DeviceBuffer buffer) : buffer_(std::move(buffer)) {}
  DeviceBuffer buffer_;
};

}  // namespace kiln::device
