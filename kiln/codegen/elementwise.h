// The per-element expressions of the elementwise ops, on register values:
// each op written once, for every element type; what depends on the target
// (its f32 math, calls into the C library) goes through its TargetHooks.
// The elemental emitter (elemental_emitter.h) composes them over a kernel's
// body.
// Semantics are the interpreter's (kiln/interp/ops_elementwise.cpp): integer
// math wraps, unsigned types compare/divide/shift/convert as unsigned, narrow
// floats (bf16, f16, f8, f6, f4) compute in f32 registers holding exactly a
// value of the format and are rounded after every op (see
// kiln/codegen/narrow_floats.h).
#pragma once

#include <span>
#include <string_view>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "kiln/codegen/element_ops.h"
#include "kiln/codegen/target_hooks.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::codegen {

// The register type of element type `t`: i1 for predicates, iN for the
// N-bit integers (2 to 64; signedness lives in `t`), f32 for f32 and the
// narrow floats, f64. Null for the types the emitter does not compile
// (complex, quantized, f8E8M0FNU).
llvm::Type* registerType(llvm::LLVMContext& ctx, Type t);

// Element `index` of the buffer at `base` (kiln's dense layout), as a register value.
llvm::Value* emitLoadElement(llvm::IRBuilderBase& b, llvm::Value* base, Type element, llvm::Value* index);
void emitStoreElement(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* base, Type element, llvm::Value* index);

// One element of kiln's dense storage (`bytes`) as a register constant.
llvm::Constant* elementConstant(llvm::LLVMContext& ctx, Type element, const uint8_t* bytes);

// `op` applied to the register values `xs` of its operands (in operand
// order; isElementwiseOp says which ops it knows); the result is a register
// value of op's result element type.
// Unsupported element types or attributes are compile errors naming `op`.
Expected<llvm::Value*> emitElementwise(llvm::IRBuilderBase& b, llvm::Module& m, const TargetHooks& target,
                                       const Operation& op, std::span<llvm::Value* const> xs);

// Whether `op` is a TOTALORDER compare of bf16 or f16, which
// emitTotalOrderCompareBits computes from the operands' bits where the
// caller has them (an f32 register has lost a NaN's payload).
bool isTotalOrderCompareOfBits(const Operation& op);

// TOTALORDER compare `op` of the elements whose bits (integers of the
// storage width) are `xBits` and `yBits`, as the interpreter compares.
Expected<llvm::Value*> emitTotalOrderCompareBits(llvm::IRBuilderBase& b, const TargetHooks& target,
                                                 const Operation& op, llvm::Value* xBits, llvm::Value* yBits);

// unsupported() of `target`'s back end.
Status unsupported(const TargetHooks& target, const Operation& op, std::string_view what = {});

// `x` of element type `from` converted to element type `to`, as the
// interpreter's convert does it.
llvm::Value* emitConvert(llvm::IRBuilderBase& b, llvm::Value* x, Type from, Type to);

// `value` (a non-negative i64) as element type `t`, as iota stores it.
llvm::Value* emitIndexAs(llvm::IRBuilderBase& b, llvm::Value* value, Type t);

}  // namespace kiln::codegen
