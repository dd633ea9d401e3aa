// Index arithmetic of the one tensor layout kiln uses everywhere: row-major,
// dense (dense literals, interpreter tensors, the cpu back end's buffers).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace kiln {

// Row-major strides of `shape`, in elements (the last dimension has stride 1).
std::vector<int64_t> rowMajorStrides(std::span<const int64_t> shape);

}  // namespace kiln
