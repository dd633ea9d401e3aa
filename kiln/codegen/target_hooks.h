// What the target-neutral code generation (the elemental emitter, the
// elementwise ops) asks of the target it emits for: each back end that
// emits LLVM IR implements these hooks (the cpu's: cpu_target_hooks.h), and
// the shared emitter stays free of host features, x86 specifics and math
// library conventions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace llvm {
class BranchInst;
class IRBuilderBase;
class Module;
class Value;
}  // namespace llvm

namespace kiln::codegen {

class TargetHooks {
 public:
  virtual ~TargetHooks() = default;

  // The back end's name, as its compile errors say it ("the cpu back end
  // cannot compile ...").
  virtual std::string_view backendName() const = 0;

  // f32 elementwise op `name` (stablehlo.exponential, chlo.erf, ...) on the
  // f32 register values `xs`, computed the target's own way (a vectorizable
  // approximation); null where the target has none, and the op is computed
  // in double through the math library and rounded once.
  virtual llvm::Value* emitF32Math(llvm::IRBuilderBase& b, std::string_view name,
                                   std::span<llvm::Value* const> xs) const = 0;

  // A call of the C math library's function `name` ("exp", "atan2f") on
  // arguments of one type, double or float, returning that type.
  virtual llvm::Value* callMathLibrary(llvm::IRBuilderBase& b, llvm::Module& m, std::string_view name,
                                       std::span<llvm::Value* const> args) const = 0;

  // The C library's complex square root (csqrtf for float parts, csqrt for
  // double) of re + im i, as {real, imaginary}: how a complex travels
  // through a call is the target's calling convention.
  virtual std::pair<llvm::Value*, llvm::Value*> callComplexSqrt(llvm::IRBuilderBase& b, llvm::Module& m,
                                                                llvm::Value* re, llvm::Value* im) const = 0;

  // Whether a long float max (or min) fold runs as an unordered compare and
  // select plus a NaN and signed-zero fix-up after the loop (cheaper where
  // IEEE maximum is several instructions per vector, as on x86) rather than
  // folding llvm.maximum.
  virtual bool foldMinMaxBySelect() const = 0;

  // Marks the fold loop ending in `latch` (its one block) to be vectorized
  // at the target's width, where LLVM's cost model would not.
  virtual void vectorizeFold(llvm::BranchInst* latch) const = 0;

  // Whether reduces of complex values are emitted (a serial fold of the
  // {real, imaginary} pairs through the body); where not (the cpu back end,
  // whose native routine folds them), they are refused.
  virtual bool emitsComplexReduces() const { return false; }

  // Bytes per prefetch of the next row's input (a cache line); 0: the
  // target does not prefetch.
  virtual int64_t prefetchBytes() const = 0;

  // Prefetches the line at `address` (only called when prefetchBytes() > 0).
  virtual void emitPrefetch(llvm::IRBuilderBase& b, llvm::Value* address) const = 0;
};

}  // namespace kiln::codegen
