// The memory a run may use, and the check that a program's buffers fit in
// it before anything is allocated (docs/limits.md): a tensor larger than the
// memory could only end in std::bad_alloc or the kernel's OOM killer.
#pragma once

#include <cstdint>
#include <string_view>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln {

// $KILN_MEMORY_LIMIT (bytes, with an optional K, M, G or T suffix of powers of
// 1024; 0 = no limit), else the machine's physical memory (or its cgroup's
// limit, when lower). A malformed value is an error naming the variable.
Expected<int64_t> memoryLimitBytes();

// "4.00 GiB", "512 B".
std::string formatBytes(int64_t bytes);

// Every value of function `entry` and of the functions it calls, each on its
// own, must fit in the memory limit: the first that does not is a
// ResourceExhausted error at its op (or function, for a parameter).
Status checkValuesFitMemory(const Module& module, std::string_view entry);

// `bytes` needed at once by `what` must fit in the memory limit.
Status checkBytesFitMemory(int64_t bytes, std::string_view what, Location loc);

}  // namespace kiln
