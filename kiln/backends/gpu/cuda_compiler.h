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
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::gpu {

struct CudaKernel {
  std::string name;    // its .entry and file name: k<i>_<shape>
  std::string source;  // what it computes: the fusion or op, and where
  KernelShape shape;
  LaunchDims launch;
  std::string llvmIr;  // as emitted, before optimization
  std::vector<std::pair<std::string, std::string>> ptx;  // {arch, PTX} for each arch asked for
  // The values of the function its parameters are bound to: one pointer per
  // input, then one per output (the op's results), in this order.
  std::vector<const Value*> inputs, outputs;
};

struct CudaCompilation {
  std::vector<CudaKernel> kernels;
  // One error per op the back end cannot compile yet ("the cuda back end
  // cannot compile 'stablehlo.sort' yet (file:line:col)").
  std::vector<std::string> unsupported;
};

// Whether `op` launches nothing on a device (constants, which live in the
// program's constant memory; views, whose bytes are their operand's:
// reshape, bitcast_convert; tuples; terminators).
bool launchesNothing(const Operation& op);

// Whether `op`, in a lowered function, is one kernel: a kiln.fusion other
// than an output fusion, or an elemental op.
bool isKernelOp(const Operation& op);

// The error for an op the cuda back end cannot compile ("the cuda back end
// cannot compile 'stablehlo.sort' yet (loc)"), saying why where it is known
// (dots and convolutions: cuBLASLt and cuDNN are not wired up).
Status unsupportedOnCuda(const Operation& op);

// The kernel of `op` (isKernelOp), named `name`, with PTX for each of `archs`.
Expected<CudaKernel> compileKernel(const Operation& op, const std::string& name,
                                   std::span<const std::string_view> archs);

// The kernels of every function of `lowered` (after the "cuda" pipeline);
// the bodies of control flow ops are compiled too, the op itself is
// unsupported (it would run on the host).
CudaCompilation compileForCuda(const Module& lowered);

// Writes <dir>/<kernel>.ll, <dir>/<kernel>.<arch>.ptx for every kernel and
// <dir>/cuda_kernels.txt: each kernel's source, shape and launch, then the
// unsupported ops.
Status writeCudaDumps(const CudaCompilation& compilation, const std::string& dir);

}  // namespace kiln::gpu
