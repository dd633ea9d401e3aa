// What `kiln-opt --stats` and `--memory-report` print about a module: kernel
// counts and the buffer assignment of its entry function (see
// buffer_assignment.h and docs/memory.md).
#pragma once

#include <string>

#include "kiln/ir/ir.h"

namespace kiln {

// `key=value` lines, one per statistic, each ending in a newline:
//   kernels=N                   kernels and library calls the entry function runs (countKernels)
//   fusions=N                   kiln.fusion ops in the entry function, nested ones included
//   peak_bytes=N                most bytes live at once, parameters and results included
//   arena_bytes=N               size of the arena holding the executable's own buffers
//   buffers=N                   buffers in that arena (bodies' buffers included)
//   parameter_bytes=N           bytes of the parameters
//   intermediate_bytes_total=N  bytes of every stored value, as if nothing were reused
std::string memoryStatsLines(const Module& module);

// A readable listing of the entry function's buffers: kind, size, arena
// offset, live range and the values that share each one, then the donated
// parameters and the outputs they alias.
std::string memoryReport(const Module& module);

}  // namespace kiln
