// The optimized program a compiled executable reports to jaxlib
// (PJRT_Executable_OptimizedProgram), which `jax.jit(f).lower(x).compile()
// .as_text()` prints (docs/pjrt.md, "The optimized program").
//
// jaxlib takes a program of format "mlir" only if MLIR's StableHLO parser
// reads it: it converts it to an HLO module and prints that. kiln's
// optimized module (after its cpu pipeline) is StableHLO except for its
// kernels, `kiln.fusion` ops, which no registered MLIR dialect has. So each
// kernel becomes a private function, `@<kind>_fusion_<n>` with the kernel's
// ops, that its place calls: the HLO text then shows kiln's kernels as
// called computations, in the order kiln runs them. A composite becomes the
// call of its decomposition that kiln runs.
#pragma once

#include <string>
#include <string_view>

#include "kiln/support/diagnostic.h"

namespace kiln::pjrt {

// `optimizedModule` (kiln IR text, as runtime::Executable::
// optimizedModuleTextWithLocations prints it) as StableHLO and func MLIR
// text, kernels outlined, each op's `loc(...)` kept (jaxlib makes them the
// HLO ops' source_file/source_line metadata).
Expected<std::string> optimizedProgramForJax(std::string_view optimizedModule);

// The bytes of the arena an execution of `optimizedModule` allocates for its
// intermediate values (its buffer assignment, docs/memory.md): what jaxlib's
// memory_analysis() reports as temp_size_in_bytes.
Expected<int64_t> temporaryBytes(std::string_view optimizedModule);

}  // namespace kiln::pjrt
