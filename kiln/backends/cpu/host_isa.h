// The x86 instruction sets the cpu back end may use: the host's, capped by
// --cpu_max_isa in KILN_FLAGS (as XLA's --xla_cpu_max_isa caps XLA:CPU).
// The cap lets one AVX-512 host run and measure the code every other host
// gets: the JIT's target features, the hand-vectorized routines' tiers and
// oneDNN's kernels all follow it. LLVM-free.
#pragma once

#include <string_view>

#include "kiln/support/diagnostic.h"

namespace kiln::cpu {

// The tiers kiln's own code is written for, in order.
enum class CpuIsa {
  Sse42,   // below x86-64-v3: the plain loops
  Avx2,    // x86-64-v3 (AVX2, FMA, F16C, BMI): 256-bit vectors
  Avx512,  // x86-64-v4 (AVX-512 F, CD, BW, DQ, VL) and the host's other AVX-512 parts, no AMX
  Native,  // everything an x86-64-v4 host has, AMX included
};

// What this process uses: the host's tier, at most the cap. Read once;
// before it, oneDNN is told the same cap (so call this before oneDNN's
// first use). An invalid --cpu_max_isa reads as no cap here; the cpu back
// end refuses to compile under one (checkCpuMaxIsaFlag).
CpuIsa cpuIsa();

// An error naming the values when --cpu_max_isa in KILN_FLAGS is not one
// of sse4.2, avx2, avx512, native.
Status checkCpuMaxIsaFlag();

std::string_view cpuIsaName(CpuIsa isa);

}  // namespace kiln::cpu
