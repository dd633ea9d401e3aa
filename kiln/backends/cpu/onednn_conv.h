// stablehlo.convolution on the cpu back end through oneDNN's direct
// convolution. See docs/cpu_backend.md ("convolution through oneDNN").
//
// Free of library headers, like onednn_dot.h: only onednn_conv.cpp
// includes dnnl.hpp.
#pragma once

#include <memory>

#include "kiln/backends/cpu/onednn_dot.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::cpu {

// Whether `op` is a convolution oneDNN runs: f32 or bf16, 1 to 3 spatial
// dims, any dimension numbers, strides, non-negative padding, rhs dilation
// and feature groups; no lhs dilation, batch groups or window reversal
// (those take the reference routine).
bool isOnednnConvolution(const Operation& op);

// Compiles `op` (one isOnednnConvolution accepts) into a library call with
// the same interface as a oneDNN dot: inputs {lhs, rhs}, one output.
Expected<std::unique_ptr<const OnednnDot>> compileOnednnConvolution(const Operation& op);

}  // namespace kiln::cpu
