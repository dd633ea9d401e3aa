// The cuda back end's compiler, as far as it goes without a runtime: every
// kernel of a module lowered by the "cuda" pipeline as LLVM IR and as PTX
// for each of kCudaArchs, and every op it cannot compile yet, named. Free of
// LLVM headers (kiln-opt --pipeline=cuda --dump-dir uses it).
#pragma once

#include <string>
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
  std::vector<std::pair<std::string, std::string>> ptx;  // {arch, PTX} for each of kCudaArchs
};

struct CudaCompilation {
  std::vector<CudaKernel> kernels;
  // One error per op the back end cannot compile yet ("the cuda back end
  // cannot compile 'stablehlo.sort' yet (file:line:col)").
  std::vector<std::string> unsupported;
};

// The kernels of every function of `lowered` (after the "cuda" pipeline);
// the bodies of control flow ops are compiled too, the op itself is
// unsupported (it would run on the host).
CudaCompilation compileForCuda(const Module& lowered);

// Writes <dir>/<kernel>.ll, <dir>/<kernel>.<arch>.ptx for every kernel and
// <dir>/cuda_kernels.txt: each kernel's source, shape and launch, then the
// unsupported ops.
Status writeCudaDumps(const CudaCompilation& compilation, const std::string& dir);

}  // namespace kiln::gpu
