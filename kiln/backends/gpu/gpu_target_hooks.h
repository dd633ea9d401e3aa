// The cuda back end's answers to the shared code generation's questions
// (codegen::TargetHooks): f32 math from the GPU's own approximate
// instructions (ex2.approx, lg2.approx) with range reduction, no fold or
// prefetch hints. A device has no C math library: what would call it is
// emitted as a call the kernel emitter then refuses (kernel_emitter.cpp), so
// such an op is a compile error, never a kernel with a dangling call.
// Internal to kiln/backends/gpu.
#pragma once

#include "kiln/codegen/target_hooks.h"

namespace kiln::gpu {

// The hooks of NVIDIA GPUs (stateless: one shared instance).
const codegen::TargetHooks& gpuTargetHooks();

}  // namespace kiln::gpu
