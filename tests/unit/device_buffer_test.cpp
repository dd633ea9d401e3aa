// Device buffers below the interpreter (kiln/device/device_buffer.h) and the
// interpreter's tensors over them (kiln/interp/host_buffers.h): memory is
// counted once on its device until freed, conversions between tensors,
// buffers and literals share memory instead of copying, and a buffer nobody
// else holds gives its tensor back as its sole owner (donation).
#include <gtest/gtest.h>

#include "kiln/device/device_buffer.h"
#include "kiln/interp/host_buffers.h"

namespace kiln {
namespace {

using device::DeviceBuffer;
using device::Memory;
using device::MemorySpace;
using interp::Tensor;

Type f32x16() { return Type::tensor({16}, Type::f32()); }

// Device memory a host cannot read: what a GPU back end would hand out.
class FakeDeviceMemory final : public Memory {
 public:
  explicit FakeDeviceMemory(int64_t size) : Memory(reinterpret_cast<void*>(0x1000), size, MemorySpace::kDevice) {}
};

TEST(DeviceBuffer, MemoryIsCountedOnceUntilFreed) {
  auto account = std::make_shared<device::MemoryAccount>();
  {
    std::shared_ptr<Memory> memory = *interp::tensorAllocator().allocate(f32x16());
    EXPECT_EQ(memory->size(), 64);
    EXPECT_EQ(memory->space(), MemorySpace::kHost);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(memory->data()) % 64, 0u);
    memory->countIn(account);
    memory->countIn(account);  // already counted: stays counted once
    EXPECT_EQ(account->stats().bytesInUse, 64);
    EXPECT_EQ(account->stats().numAllocations, 1);
  }
  EXPECT_EQ(account->stats().bytesInUse, 0);
  EXPECT_EQ(account->stats().peakBytesInUse, 64);
}

TEST(DeviceBuffer, BorrowedHostMemoryReleasesOnceWhenTheLastUserGoes) {
  float data[16] = {};
  int releases = 0;
  Tensor tensor;
  {
    DeviceBuffer buffer(f32x16(), device::borrowHostMemory(data, sizeof data, [&] { ++releases; }));
    tensor = *interp::toTensor(buffer);
    EXPECT_EQ(tensor.bytes(), reinterpret_cast<uint8_t*>(data)) << "a tensor over the buffer's memory";
    EXPECT_FALSE(tensor.isSoleOwner()) << "memory the caller lent is never a result's";
  }
  EXPECT_EQ(releases, 0) << "the tensor still reads it";
  tensor = Tensor();
  EXPECT_EQ(releases, 1);
}

TEST(DeviceBuffer, ATensorRoundTripsWithoutACopy) {
  Tensor t(f32x16());
  t.setFloat(3, 2.5);
  const uint8_t* bytes = t.bytes();
  DeviceBuffer buffer = interp::toDeviceBuffer(t, 2);
  EXPECT_EQ(buffer.type(), f32x16());
  EXPECT_EQ(buffer.device(), 2);
  EXPECT_EQ(buffer.byteSize(), 64);
  EXPECT_EQ(buffer.data(), bytes);
  device::Literal literal = *device::Literal::of(buffer);
  EXPECT_EQ(literal.bytes(), bytes);
  Tensor back = interp::toTensor(literal);
  EXPECT_EQ(back.bytes(), bytes);
  EXPECT_EQ(back.getFloat(3), 2.5);
}

TEST(DeviceBuffer, ABufferNobodyElseHoldsGivesItsTensorBackAsSoleOwner) {
  std::shared_ptr<Memory> memory = *interp::tensorAllocator().allocate(f32x16());
  const void* bytes = memory->data();
  DeviceBuffer held(f32x16(), memory);
  Tensor shared = *interp::toTensor(held);
  EXPECT_FALSE(shared.isSoleOwner()) << "`held` and `memory` still hold it";
  shared = Tensor();
  held = DeviceBuffer();
  Tensor given = *interp::toTensor(DeviceBuffer(f32x16(), std::move(memory)));
  EXPECT_EQ(given.bytes(), bytes);
  EXPECT_TRUE(given.isSoleOwner()) << "a donated argument: the program may compute into it";
}

TEST(DeviceBuffer, TokensAndTuplesConvertToo) {
  Tensor token(Type::token());
  DeviceBuffer buffer = interp::toDeviceBuffer(token);
  EXPECT_EQ(buffer.byteSize(), 0);
  EXPECT_EQ(interp::toTensor(buffer)->type(), Type::token());
  Tensor tuple = Tensor::tuple({Tensor(f32x16()), token});
  Tensor back = *interp::toTensor(interp::toDeviceBuffer(tuple));
  EXPECT_EQ(back.type(), tuple.type());
  EXPECT_EQ(back.tupleElements()[0].bytes(), tuple.tupleElements()[0].bytes());
}

TEST(DeviceBuffer, DeviceMemoryIsNoLiteralNorTensor) {
  DeviceBuffer buffer(f32x16(), std::make_shared<FakeDeviceMemory>(64));
  EXPECT_EQ(buffer.space(), MemorySpace::kDevice);
  Expected<device::Literal> literal = device::Literal::of(buffer);
  ASSERT_FALSE(literal.isOk());
  EXPECT_EQ(literal.status().code(), ErrorCode::InvalidArgument);
  EXPECT_NE(literal.status().message().find("device memory"), std::string::npos) << literal.status().message();
  EXPECT_FALSE(interp::toTensor(buffer).isOk());
}

}  // namespace
}  // namespace kiln
