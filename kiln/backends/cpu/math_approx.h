// f32 exp, log, tanh, logistic and erf as straight-line LLVM IR: range reduction
// plus a polynomial, special cases by selects, no libm call -- so the loops
// around them vectorize. Accuracy against the correctly rounded result (the
// interpreter computes in double and rounds once) is pinned by
// tests/unit/cpu_emitter_test.cpp; docs/cpu_backend.md states the bounds.
// Internal to kiln/backends/cpu.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace kiln::cpu {

llvm::Value* emitExpF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitLogF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitLogisticF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitErfF32(llvm::IRBuilderBase& b, llvm::Value* x);

}  // namespace kiln::cpu
