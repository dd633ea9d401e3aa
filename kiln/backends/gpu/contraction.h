// Dots and convolutions as kernels: one element of a dot_general, dot or
// convolution computed by one thread, as a loop over its contracting
// positions (a dot) or its window positions and input features (a
// convolution), in the interpreter's order and carrier
// (kiln/interp/ops_linalg.cpp): floats multiply and add in double and round
// once into the result type, integers wrap in 64 bits and are truncated,
// predicates are an or of ands. So a kernel's results are the interpreter's
// bits. The cuda back end runs these where cuBLASLt does not (integer,
// 8-bit-float and mixed dots, operands it cannot read in place, empty
// dots, output fusions it cannot take) and for every convolution (cuDNN is
// not wired up). The thread structure is kernel_emitter.cpp's loop kernel,
// one element per thread; the element reaches the shared emitter through
// its element provider. Internal to kiln/backends/gpu.
#pragma once

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace llvm {
class IRBuilderBase;
class Value;
}  // namespace llvm

namespace kiln::codegen {
class ElementalEmitter;
}

namespace kiln::gpu {

// stablehlo.dot_general, stablehlo.dot, stablehlo.convolution.
bool isContraction(const Operation& op);

// Element `index` (row-major) of contraction `op`'s result, its operands'
// elements read through `emitter` (kernel parameters, or values computed
// in the same kernel); nullptr where `op` is no contraction. An element
// type or form the kernel does not take is a located refusal.
Expected<llvm::Value*> emitContractionElement(llvm::IRBuilderBase& b, codegen::ElementalEmitter& emitter,
                                              const Operation& op, llvm::Value* index);

}  // namespace kiln::gpu
