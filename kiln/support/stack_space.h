// How much of the calling thread's stack is left: recursive evaluators (the
// interpreter's regions and calls) stop with an error while there is still
// room, instead of overflowing the stack, whatever size the thread's stack
// has (the main thread's ulimit -s, a worker's 8 MiB, a Python thread's).
#pragma once

#include <cstddef>

namespace kiln {

// Bytes between the current frame and the end of this thread's stack; a
// large number where the stack's bounds are unknown.
size_t stackSpaceLeft();

// What an evaluator keeps in reserve for the work between its checks.
inline constexpr size_t kStackReserveBytes = size_t(256) << 10;

}  // namespace kiln
