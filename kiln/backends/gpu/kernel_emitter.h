// Kernel emission for the cuda back end: one fused kernel (a kiln.fusion's
// body, or a single op) as an LLVM function for the nvptx64-nvidia-cuda
// target. The per-element computation is the shared elemental emitter's
// (kiln/codegen/elemental_emitter.h); only the thread structure is here.
// LLVM types are only forward-declared. Internal to kiln/backends/gpu.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kiln/backends/gpu/launch.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace llvm {
class Module;
}

namespace kiln::gpu {

// What one kernel computes: each of `roots` per element, from `params`
// (values inside the kernel, read from global memory). `op` is the fusion or
// op it comes from, which errors name.
struct GpuKernelPlan {
  std::vector<const Value*> params;
  std::vector<const Value*> roots;
  const Operation* op = nullptr;
};

// The thread structures the emitter has.
enum class KernelShape {
  Loop,       // every thread computes kElementsPerThread adjacent elements per grid-stride step
  RowReduce,  // a warp or block per row: reductions by warp shuffles (and shared memory), then the row
  Transpose,  // a block per tile of a transpose, through shared memory so reads and writes are both coalesced
  Gather,     // a thread per result element, reading the operand where its start indices say
  Scatter,    // a thread per update element, combined into the result by atomics
  Sort,       // a block per row, a bitonic network over the row's positions in shared memory
  SelectScatter,  // a thread per result element, folding the source of each window that selects it
  Contract,   // a thread per result element of a dot or convolution (maybe with its epilogue): a loop over its sum
  Random,     // rng_bit_generator: a thread per output element computes its Threefry or Philox block
  TriangularSolve,  // a thread per system (a column or row of b), its unknowns in shared memory
  Cholesky,   // a block per matrix, its factor in shared memory, column by column
  LuFactor,   // a block per matrix in shared memory: partial pivoting, column by column
  Householder,  // a block per matrix in shared memory: QR's reflectors made and applied, column by column
};
const char* shapeName(KernelShape shape);

struct EmittedKernel {
  KernelShape shape;
  LaunchDims launch;
};

// Whether `op` is a linear-algebra routine the cuda back end runs as a
// kernel of its own: stablehlo.triangular_solve and stablehlo.cholesky,
// and the LAPACK custom calls for them (lapack_?trsm_ffi, lapack_?potrf_ffi),
// LU with partial pivoting (lapack_?getrf_ffi) and real QR (lapack_?geqrf_ffi,
// lapack_?orgqr_ffi).
bool isRoutineKernelOp(const Operation& op);

// Emits `plan` as kernel `name` of `m` (a module for the nvptx64 triple):
// parameters are one global pointer per param, then one per root, each
// buffer 16-byte aligned and in kiln's dense row-major layout; the launch
// it expects is returned (its block size is also the kernel's maxntid). An
// op, element type or math function the back end cannot compile yet is an
// error naming it.
Expected<EmittedKernel> emitKernel(const GpuKernelPlan& plan, const std::string& name, llvm::Module& m);

}  // namespace kiln::gpu
