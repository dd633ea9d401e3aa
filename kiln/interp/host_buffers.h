// The interpreter's tensors as device buffers in host memory and back,
// without a copy (kiln/device/device_buffer.h): how the interpreter and the
// cpu back end, which compute on tensors, run on the runtime's buffers.
#pragma once

#include "kiln/device/device_buffer.h"
#include "kiln/interp/tensor.h"

namespace kiln::interp {

// A host buffer over `tensor`'s memory (any value: a tensor, a token, a
// tuple), which it keeps alive.
device::DeviceBuffer toDeviceBuffer(Tensor tensor, int device = 0);

// The tensor over `buffer`'s host memory; an InvalidArgument error for other
// memory. A buffer made by toDeviceBuffer or tensorAllocator() whose memory
// nobody else holds gives its tensor back as it was, so that a tensor kiln
// allocated stays its sole owner (a back end may compute a result into a
// donated argument); any other buffer is borrowed, kept alive by the tensor.
Expected<Tensor> toTensor(device::DeviceBuffer buffer);

// Each of `buffers` as a tensor (toTensor). Takes their memory and clears
// `buffers`, whose storage toDeviceBuffers can then reuse for the results:
// an execution allocates no second vector.
Expected<std::vector<Tensor>> toTensors(std::vector<device::DeviceBuffer>& buffers);
// Each of `tensors` as a buffer, in `storage` (cleared first; its capacity reused).
std::vector<device::DeviceBuffer> toDeviceBuffers(std::vector<Tensor> tensors,
                                                  std::vector<device::DeviceBuffer> storage = {});
// The same for one list per instance of a multi-instance run.
Expected<std::vector<std::vector<Tensor>>> toTensors(std::vector<std::vector<device::DeviceBuffer>> lists);
std::vector<std::vector<device::DeviceBuffer>> toDeviceBuffers(std::vector<std::vector<Tensor>> lists);

// A literal over `tensor`'s memory (no copy), and back (no copy).
device::Literal toLiteral(Tensor tensor);
Tensor toTensor(const device::Literal& literal);

// Host memory as the interpreter allocates its tensors (64-byte aligned,
// cached blocks; interp/tensor.cpp): the allocator of the cpu and
// interpreter back ends' devices.
const device::Allocator& tensorAllocator();

}  // namespace kiln::interp
