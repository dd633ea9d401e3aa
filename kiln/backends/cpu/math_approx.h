// f32 exp, expm1, log, log1p, tanh, logistic, erf, erfc, erf_inv, sin, cos, tan and pow as LLVM IR: range reduction
// plus a polynomial, special cases by selects, no libm call -- so the loops
// around them vectorize. Accuracy against the correctly rounded result (the
// interpreter computes in double and rounds once) is pinned by
// tests/unit/cpu_emitter_test.cpp; docs/cpu_backend.md states the bounds.
// Internal to kiln/backends/cpu.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace kiln::cpu {

llvm::Value* emitExpF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitExpm1F32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitLogF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitLog1pF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitLogisticF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitErfF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitErfInvF32(llvm::IRBuilderBase& b, llvm::Value* y);
// erfc in f32 lanes (4 ULP): straight-line, no call.
llvm::Value* emitErfcF32(llvm::IRBuilderBase& b, llvm::Value* x);
// x^y in double lanes, rounded once (1 ULP), with C pow's special cases.
llvm::Value* emitPowF32(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y);

// x * 2^n for f32 x and an integral f32 n with |n| <= 252 (or NaN, with x
// NaN: the result is x's NaN), rounded once: a
// call of kiln_scale_f32, which LLVM's vectorizer widens to its 4-, 8- and
// 16-lane variants (vector-function-abi-variant) and defineVectorizableFunctions
// gives bodies after optimization -- a single instruction where the host has
// one (AVX-512's vscalefps), which LLVM 19 does not select for llvm.ldexp.
// With `normalResult` (the caller knows x * 2^n is a normal number: tanh's
// 2^n for n in [0, 29]), the generic body is one multiply instead of two.
llvm::Value* emitScaleF32(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* n, bool normalResult = false);

// sin, cos and tan of f32 x, at most 1 ULP from the result rounded once:
// calls of kiln_sin_f32 (..._cos_, ..._tan_), vectorizable like the scale
// functions; the bodies reduce and evaluate in double, and lanes at or
// above 2^24 (and Inf, NaN) call libm.
llvm::Value* emitSinF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitCosF32(llvm::IRBuilderBase& b, llvm::Value* x);
llvm::Value* emitTanF32(llvm::IRBuilderBase& b, llvm::Value* x);

// Defines the vectorizable functions (scale, sin, cos, tan) `m` calls, for a
// host with (or without) AVX-512F and AVX-512VL, as always-inline bodies:
// for the scale, vscalefps, else two exact multiplies by powers of two.
void defineVectorizableFunctions(llvm::Module& m, bool avx512f, bool avx512vl);

}  // namespace kiln::cpu
