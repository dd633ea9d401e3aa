// The cpu back end's answers to the shared code generation's questions
// (codegen::TargetHooks): its vectorizable f32 math (math_approx.h), libm
// and the x86-64 System V convention for C calls, x86's cheap max/min
// folds, AVX-512-width fold vectorization and prefetches into L2.
// Internal to kiln/backends/cpu.
#pragma once

#include "kiln/codegen/target_hooks.h"

namespace kiln::cpu {

// The hooks of the host CPU (stateless: one shared instance).
const codegen::TargetHooks& cpuTargetHooks();

}  // namespace kiln::cpu
