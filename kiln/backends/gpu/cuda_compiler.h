// The cuda back end's compiler: every kernel of a module lowered by the
// "cuda" pipeline as LLVM IR and as PTX, and every op it cannot compile yet,
// named. Free of LLVM headers (kiln-opt --pipeline=cuda --dump-dir and the
// runtime's plan, cuda_plan.h, use it).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kiln/backends/gpu/kernel_emitter.h"
#include "kiln/backends/gpu/matmul_plan.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::gpu {

struct CudaKernel {
  std::string name;    // its .entry and file name: k<i>_<shape>
  std::string source;  // what it computes: the fusion or op, and where
  const Operation* op = nullptr;  // that fusion or op
  KernelShape shape;
  LaunchDims launch;
  std::string llvmIr;  // as emitted, before optimization
  std::vector<std::pair<std::string, std::string>> ptx;  // {arch, PTX} for each arch asked for
  // The values of the function its parameters are bound to: one pointer per
  // input, then one per output (the op's results), in this order.
  std::vector<const Value*> inputs, outputs;
};

// A dot or output fusion that runs as one cuBLASLt call.
struct CudaMatmul {
  std::string source;  // what it computes: the op, and where
  MatmulPlan plan;
  std::string epilogueKernel;  // the kernel finishing its epilogue (plan.epilogueKernel), by name
};

struct CudaCompilation {
  std::vector<CudaKernel> kernels;
  std::vector<CudaMatmul> matmuls;
  // One line per while/if/case the host drives: the op, where, and the
  // kernels and matmuls of each of its regions.
  std::vector<std::string> controlFlow;
  // One line per cuSOLVER call (solver_calls.h): the op, where, and what
  // it asks of cuSOLVER.
  std::vector<std::string> solverCalls;
  // One error per op the back end cannot compile yet ("the cuda back end
  // cannot compile 'stablehlo.sort' yet (file:line:col)").
  std::vector<std::string> unsupported;
};

// Whether `op` launches nothing on a device (constants, which live in the
// program's constant memory; views, whose bytes are their operand's:
// reshape, bitcast_convert; tuples; terminators).
bool launchesNothing(const Operation& op);

// Whether `op`, in a lowered function, runs as kernels: a kiln.fusion
// other than an output fusion, an elemental op, a gather, a scatter, a
// sort, a select_and_scatter or a convolution (contraction.h). A dot or an
// output fusion cuBLASLt does not take (compileMatmul) runs as kernels too.
bool isKernelOp(const Operation& op);

// The error for an op the cuda back end cannot compile ("the cuda back end
// cannot compile 'stablehlo.fft' yet (loc)"), saying why where it is known.
Status unsupportedOnCuda(const Operation& op);

// Whether while/if/case `op` can run, driven from the host (cuda_plan.h):
// when its operands and results are tensors (not tuples or tokens).
Status controlFlowOnCuda(const Operation& op);

// The kernels of `op` (isKernelOp), launched in this order and named
// k<firstIndex>, k<firstIndex + 1>, ..., with PTX for each of `archs`: one,
// or for a scatter two (a loop copying its operand into its result, then
// the updates).
Expected<std::vector<CudaKernel>> compileKernels(const Operation& op, size_t firstIndex,
                                                 std::span<const std::string_view> archs);

// The kernel of the ops of output fusion `fusion` after `product` (where
// its cuBLASLt epilogue stops: MatmulPlan::product), named `name`: its
// parameters are `product` (its inputs[0], the value itself, which the
// matmul writes to scratch) and then the fusion's operands.
Expected<CudaKernel> compileEpilogueKernel(const Operation& fusion, const Value* product, const std::string& name,
                                           std::span<const std::string_view> archs);

// `op` (isMatmulOp) as a cuBLASLt call, or why it cannot be one.
Expected<CudaMatmul> compileMatmul(const Operation& op);

// The kernels and cuBLASLt matmuls of every function of `lowered` (after
// the "cuda" pipeline), the bodies of while/if/case included (those ops run
// on the host, controlFlowOnCuda).
CudaCompilation compileForCuda(const Module& lowered);

// Writes <dir>/<kernel>.ll, <dir>/<kernel>.<arch>.ptx for every kernel and
// <dir>/cuda_kernels.txt: each kernel's source, shape and launch, each
// cuBLASLt matmul's source and plan, the control flow, the cuSOLVER
// calls, then the unsupported ops.
Status writeCudaDumps(const CudaCompilation& compilation, const std::string& dir);

}  // namespace kiln::gpu
