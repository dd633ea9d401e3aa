// Gather and scatter on the device: their dimension numbers read once, and
// the operand index of one element of the windowed tensor (gather's result,
// scatter's updates) computed in LLVM IR from the start indices it reads.
// The thread structure around it (a thread per element; atomics for
// scatter) is kernel_emitter.cpp's. The meaning is the interpreter's
// (kiln/interp/ops_data_movement.cpp): gather clamps each start index so the
// slice fits; scatter skips an update element whose index falls outside.
// Internal to kiln/backends/gpu.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/ir/windowed_dims.h"
#include "kiln/support/diagnostic.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace kiln::codegen {
class ElementalEmitter;
}

namespace kiln::gpu {

// The dimension numbers of one gather or single-input scatter, under
// gather's names.
struct WindowedIndexing : WindowedDims {
  const Value* operand = nullptr;   // what is read (gather) or updated (scatter)
  const Value* indices = nullptr;
  const Value* windowed = nullptr;  // gather's result, scatter's updates
  std::vector<int64_t> sliceSizes;  // gather's; empty for scatter (no clamping)
};

// The indexing of `op` (stablehlo.gather, or stablehlo.scatter of one
// input), or an error naming what the cuda back end does not take.
Expected<WindowedIndexing> readWindowedIndexing(const Operation& op);

// How a scatter combines an update with the element it lands on.
enum class ScatterUpdate {
  Replace,  // the body returns the update
  Add,      // the body is one add of its two arguments
  Body,     // any other body (of elementwise ops: the emitter refuses others)
};

// Which of these the body of single-input scatter `op` is; an error for a
// body not of two arguments and one result.
Expected<ScatterUpdate> scatterUpdateOf(const Operation& op);

// Where element `index` (flat, row-major) of the windowed tensor goes in
// the operand, and (scatter) whether it is inside it.
struct OperandIndex {
  llvm::Value* flat = nullptr;
  llvm::Value* inBounds = nullptr;  // an i1; always true for gather
};

// Emits the operand index of windowed element `index`, reading the start
// indices through `emitter` (so a parameter or a constant alike).
Expected<OperandIndex> emitOperandIndex(llvm::IRBuilderBase& b, codegen::ElementalEmitter& emitter,
                                        const WindowedIndexing& m, llvm::Value* index);

}  // namespace kiln::gpu
