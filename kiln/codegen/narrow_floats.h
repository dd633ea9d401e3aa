// The narrow float formats (bf16, f16, the f8 family, f6, f4) in emitted
// code: the emitter computes on them in f32 registers that always hold a
// value of the format exactly, and these helpers move between a format's
// bits in memory and such a register with integer ops only (no libcalls, so
// loops over them vectorize). They reproduce kiln/ir/float_formats.h
// bit for bit: rounding to nearest even, each format's overflow rule (Inf,
// NaN, or saturation), its NaN encodings and its lack of -0 (FNUZ).
// Target-neutral: any back end emitting LLVM IR.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include "kiln/ir/types.h"

namespace kiln::codegen {

// Whether `kind` is a float format computed in f32 registers through the
// helpers below (every float kind narrower than f32; f8E8M0FNU, an exponent
// only, is decoded and encoded by integer ops of its own).
bool isNarrowFloat(TypeKind kind);

// The bits (an integer of the format's storage width) of the f32 or f64
// register value `x` rounded to format `kind`.
llvm::Value* emitEncodeNarrow(llvm::IRBuilderBase& b, llvm::Value* x, TypeKind kind);

// The f32 value (exact) of the format-`kind` bits `bits` (an integer of the
// storage width); NaNs become the canonical quiet NaN of their sign.
llvm::Value* emitDecodeNarrow(llvm::IRBuilderBase& b, llvm::Value* bits, TypeKind kind);

// `x` (f32 or f64) rounded to format `kind`, as an f32 register value.
llvm::Value* emitRoundToNarrow(llvm::IRBuilderBase& b, llvm::Value* x, TypeKind kind);

}  // namespace kiln::codegen
