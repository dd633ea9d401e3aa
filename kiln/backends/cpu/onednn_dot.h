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

namespace kiln {
class ThreadPool;
}

namespace kiln::cpu {

// One compiled matmul (its oneDNN primitive is created once, at compile
// time, for the op's static shapes). Safe to run from several threads.
class OnednnDot {
 public:
  virtual ~OnednnDot() = default;
  // `inputs` holds one pointer per operand of the planned op (in kiln's
  // dense layout); `output` receives the op's single result.
  virtual void run(const uint8_t* const* inputs, uint8_t* output) const = 0;
  // The same on every thread of `pool`. By default oneDNN's own OpenMP
  // threads run it, as many as the pool has; a dot compiled for several
  // threads instead splits its result into tiles that the pool's threads
  // claim one at a time (see compileOnednnDot).
  virtual void runOn(const uint8_t* const* inputs, uint8_t* output, ThreadPool& pool) const;
  // How many tiles runOn splits the result into (0: not split).
  virtual size_t numTiles() const { return 0; }

  // Weights packed once for many runs. oneDNN's matmul kernels read the
  // weights (the rhs, input `weightsInput()`) in a blocked layout, and copy
  // plain weights into it on every run; a loop whose dot reads the same
  // weight every trip packs it once instead (flat_loop.h). `tiled`: for
  // runs split across a pool of several threads (where runOn would split
  // into numTiles() > 0 tiles), else for one call. packedWeightsBytes makes
  // the packed primitives on its first call (at compile time) and gives the
  // size of the packed buffer, the same for both kinds of run where both
  // are offered; 0: not offered for that kind.
  virtual int weightsInput() const { return -1; }
  virtual size_t packedWeightsBytes(bool /*tiled*/) const { return 0; }
  // `weights` (as inputs[weightsInput()] would be) into `packed`, 64-byte aligned.
  virtual void packWeights(const uint8_t* /*weights*/, uint8_t* /*packed*/, bool /*tiled*/) const {}
  // run() (null `pool`) or the tiles of runOn() on `pool`, reading the
  // weights from `packed` rather than inputs[weightsInput()].
  virtual void runPacked(const uint8_t* const* /*inputs*/, const uint8_t* /*packed*/, uint8_t* /*output*/,
                         ThreadPool* /*pool*/) const {}
};

// Whether the top-level op `op` is one this file compiles: stablehlo.dot,
// stablehlo.dot_general, or a kiln.fusion of kind "output".
bool isOnednnDot(const Operation& op);

// Whether 8-bit integer dots into i32 run on oneDNN's int8 kernels (the host
// has VNNI or AMX, whose 32-bit sums never saturate) rather than on the f32
// primitive with widened operands.
bool int8DotsAreNative();

// Compiles `op` (one isOnednnDot accepts) to run on up to `threads` threads.
// An operand layout, element type or epilogue op it cannot map is a compile
// error naming the op.
//
// With several threads, a large enough dot is split into tiles of its result
// (runs of batch elements, of columns or of rows), each computed by a
// single-threaded primitive, claimed by the pool's threads as each finishes
// one. oneDNN's OpenMP team splits the work statically instead, so one
// thread that starts late (woken from idle, or descheduled by other load on
// the host) delays the whole dot by as much; and its threads, spinning after
// each call, competed for the cores with the pool's threads running the
// kernels in between.
Expected<std::unique_ptr<const OnednnDot>> compileOnednnDot(const Operation& op, int threads = 1);

}  // namespace kiln::cpu
