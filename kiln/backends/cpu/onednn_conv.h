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

// Whether `op` is a convolution oneDNN runs, alone or in an output fusion:
// f32 or bf16, 1 to 3 spatial dims, any dimension numbers, strides,
// non-negative padding, rhs and lhs dilation and feature groups; no batch
// groups or window reversal (the expand pass rewrites those). A convolution
// in the shape of a weight gradient (a kernel with more positions than the
// output) runs as oneDNN's backward-weights convolution where oneDNN has one
// for it (ungrouped, no lhs dilation; its high padding may be negative).
bool isOnednnConvolution(const Operation& op);

// Compiles `op` (one isOnednnConvolution accepts) into a library call with
// the same interface as a oneDNN dot: one pointer per operand of `op`, one
// output. An output fusion's epilogue becomes the convolution's bias and
// post-ops where oneDNN has them (else an error: the fusion runs op by op).
//
// With several `threads`, the result is also split into tiles, each computed
// by a primitive made for one thread, that runOn's pool threads claim one at
// a time (as a dot's, compileOnednnDot): runs of batch elements, else (no
// feature groups) of output features in multiples of 16; a weight
// gradient's by its output features, else its input features. Each output
// element is then the same sum, in the same order, as on one thread, so the
// results do not depend on the thread count. Else an f32 weight gradient is
// split by the batch it sums over, the tiles' results added after (rounding
// differently from one thread's, by the tile count). Without tiles (too few to split, or only reference code for a
// tile) it runs whole on oneDNN's OpenMP team, sized when the primitive is
// made: `threads` threads, whatever the caller's OpenMP setting at run time.
Expected<std::unique_ptr<const OnednnDot>> compileOnednnConvolution(const Operation& op, int threads = 1);

// Whether a convolution compileOnednnConvolution made runs oneDNN's
// backward-weights primitive (tests ask).
bool runsAsBackwardWeights(const OnednnDot& compiled);

}  // namespace kiln::cpu
