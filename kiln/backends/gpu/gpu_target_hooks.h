// The cuda back end's answers to the shared code generation's questions
// (codegen::TargetHooks): f32 math from the GPU's own approximate
// instructions (ex2.approx, lg2.approx) with range reduction, the rest of
// the math (f64, sin, pow, erf, ...) as calls of libdevice (libdevice.h),
// no fold or prefetch hints. A device has no C library: what libdevice does
// not have (complex sqrt) is emitted as a call the kernel emitter refuses
// (kernel_emitter.cpp), so such an op is a compile error, never a kernel
// with a dangling call.
// Internal to kiln/backends/gpu.
#pragma once

#include "kiln/codegen/target_hooks.h"

namespace kiln::gpu {

// The hooks of NVIDIA GPUs (stateless: one shared instance).
const codegen::TargetHooks& gpuTargetHooks();

}  // namespace kiln::gpu
