// dot_general on the cpu back end through oneDNN's matmul primitive, with
// the elementwise epilogue of an output fusion attached as oneDNN post-ops.
// See docs/cpu_backend.md ("dot_general through oneDNN").
//
// Like cpu_executable.h this header is free of library headers: only
// onednn_dot.cpp includes dnnl.hpp.
#pragma once

#include <cstdint>
#include <memory>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::cpu {

// One compiled matmul (its oneDNN primitive is created once, at compile
// time, for the op's static shapes). Safe to run from several threads.
class OnednnDot {
 public:
  virtual ~OnednnDot() = default;
  // `inputs` holds one pointer per operand of the planned op (in kiln's
  // dense layout); `output` receives the op's single result.
  virtual void run(const uint8_t* const* inputs, uint8_t* output) const = 0;
};

// Whether the top-level op `op` is one this file compiles: stablehlo.dot,
// stablehlo.dot_general, or a kiln.fusion of kind "output".
bool isOnednnDot(const Operation& op);

// Whether 8-bit integer dots into i32 run on oneDNN's int8 kernels (the host
// has VNNI or AMX, whose 32-bit sums never saturate) rather than on the f32
// primitive with widened operands.
bool int8DotsAreNative();

// Compiles `op` (one isOnednnDot accepts). An operand layout, element type
// or epilogue op it cannot map is a compile error naming the op.
Expected<std::unique_ptr<const OnednnDot>> compileOnednnDot(const Operation& op);

}  // namespace kiln::cpu
