// LLVM IR to PTX through LLVM's NVPTX back end (part of LLVM 19: no CUDA
// toolkit is needed to generate PTX; ptxas and the driver turn it into
// machine code). LLVM types are only forward-declared. Internal to
// kiln/backends/gpu.
#pragma once

#include <string>
#include <string_view>

#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::gpu {

// The GPU architectures kiln generates PTX for (A100; H100 and H200).
inline constexpr std::string_view kCudaArchs[] = {"sm_80", "sm_90"};

// The PTX ISA version of every kiln kernel: 8.0 (CUDA 12.0) is the first
// with sm_90 and is accepted by every ptxas since.
inline constexpr std::string_view kPtxIsa = "+ptx80";

// Gives `m` the nvptx64-nvidia-cuda triple and data layout, before any
// kernel is emitted into it (so its .ll compiles alone: `llc -mcpu=sm_90`).
Status setNvptxTarget(llvm::Module& m);

// `m` (whose kernels emitKernel wrote), with the libdevice functions it
// calls linked in, optimized at O3 for `arch` and compiled to PTX text. `m`
// itself is left as it was.
Expected<std::string> compileToPtx(const llvm::Module& m, std::string_view arch);

}  // namespace kiln::gpu
