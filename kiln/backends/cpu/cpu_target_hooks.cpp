// The cpu back end's code generation hooks (see cpu_target_hooks.h).
#include "kiln/backends/cpu/cpu_target_hooks.h"

#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include "kiln/backends/cpu/math_approx.h"

namespace kiln::cpu {
namespace {

class CpuTargetHooks final : public codegen::TargetHooks {
 public:
  std::string_view backendName() const override { return "cpu"; }

  // Range reduction plus a polynomial, no libm call, so the loops around
  // them vectorize (math_approx.h).
  llvm::Value* emitF32Math(llvm::IRBuilderBase& b, std::string_view name,
                           std::span<llvm::Value* const> xs) const override {
    llvm::Value* x = xs[0];
    if (name == "stablehlo.exponential") return emitExpF32(b, x);
    if (name == "stablehlo.exponential_minus_one") return emitExpm1F32(b, x);
    if (name == "stablehlo.log") return emitLogF32(b, x);
    if (name == "stablehlo.log_plus_one") return emitLog1pF32(b, x);
    if (name == "stablehlo.tanh") return emitTanhF32(b, x);
    if (name == "stablehlo.logistic") return emitLogisticF32(b, x);
    if (name == "chlo.erf") return emitErfF32(b, x);
    if (name == "chlo.erf_inv") return emitErfInvF32(b, x);
    if (name == "chlo.erfc") return emitErfcF32(b, x);
    if (name == "stablehlo.power") return emitPowF32(b, x, xs[1]);
    if (name == "stablehlo.sine") return emitSinF32(b, x);
    if (name == "stablehlo.cosine") return emitCosF32(b, x);
    if (name == "stablehlo.tan") return emitTanF32(b, x);
    return nullptr;
  }

  // libm, which the JIT resolves in the process.
  llvm::Value* callMathLibrary(llvm::IRBuilderBase& b, llvm::Module& m, std::string_view name,
                               std::span<llvm::Value* const> args) const override {
    llvm::Type* type = args[0]->getType();
    std::vector<llvm::Type*> params(args.size(), type);
    llvm::FunctionCallee callee = m.getOrInsertFunction(name, llvm::FunctionType::get(type, params, false));
    auto* fn = llvm::cast<llvm::Function>(callee.getCallee());
    fn->setDoesNotThrow();
    fn->setWillReturn();
    return b.CreateCall(callee, llvm::ArrayRef<llvm::Value*>(args.data(), args.size()));
  }

  // The x86-64 System V convention: a float complex in one register as
  // <2 x float>, a double complex as two doubles returned as a pair.
  std::pair<llvm::Value*, llvm::Value*> callComplexSqrt(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* re,
                                                        llvm::Value* im) const override {
    llvm::Type* partType = re->getType();
    if (partType->isFloatTy()) {
      auto* pair = llvm::FixedVectorType::get(partType, 2);
      llvm::FunctionCallee csqrtf = m.getOrInsertFunction("csqrtf", llvm::FunctionType::get(pair, {pair}, false));
      llvm::Value* z = b.CreateInsertElement(b.CreateInsertElement(llvm::PoisonValue::get(pair), re, uint64_t(0)), im,
                                             uint64_t(1));
      llvm::Value* r = b.CreateCall(csqrtf, {z});
      return {b.CreateExtractElement(r, uint64_t(0)), b.CreateExtractElement(r, uint64_t(1))};
    }
    auto* pair = llvm::StructType::get(partType, partType);
    llvm::FunctionCallee csqrt = m.getOrInsertFunction("csqrt", llvm::FunctionType::get(pair, {partType, partType}, false));
    llvm::Value* r = b.CreateCall(csqrt, {re, im});
    return {b.CreateExtractValue(r, 0), b.CreateExtractValue(r, 1)};
  }

  // IEEE maximum is six vector instructions per step on x86; maxps one.
  bool foldMinMaxBySelect() const override { return true; }

  // 16 elements at a time (AVX-512's f32 lanes; two vectors of 8 on AVX2),
  // interleaved 4 times.
  void vectorizeFold(llvm::BranchInst* latch) const override {
    llvm::LLVMContext& ctx = latch->getContext();
    auto hint = [&](const char* name, unsigned value) {
      llvm::Metadata* parts[] = {llvm::MDString::get(ctx, name),
                                 llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
      return llvm::MDNode::get(ctx, parts);
    };
    llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(ctx, {});
    llvm::Metadata* loopParts[] = {placeholder.get(), hint("llvm.loop.vectorize.width", 16),
                                   hint("llvm.loop.interleave.count", 4)};
    llvm::MDNode* loopId = llvm::MDNode::getDistinct(ctx, loopParts);
    loopId->replaceOperandWith(0, loopId);
    latch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
  }

  int64_t prefetchBytes() const override { return 64; }  // a cache line

  // A read of data into L2 (prefetcht1): the next row would crowd this row
  // and its scratch out of L1 (measured: faster than t0).
  void emitPrefetch(llvm::IRBuilderBase& b, llvm::Value* address) const override {
    b.CreateIntrinsic(llvm::Intrinsic::prefetch, {b.getPtrTy()}, {address, b.getInt32(0), b.getInt32(2), b.getInt32(1)});
  }
};

}  // namespace

const codegen::TargetHooks& cpuTargetHooks() {
  static const CpuTargetHooks hooks;
  return hooks;
}

}  // namespace kiln::cpu
