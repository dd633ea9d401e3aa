// The cuda back end's code generation hooks (see gpu_target_hooks.h).
#include "kiln/backends/gpu/gpu_target_hooks.h"

#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include "kiln/backends/gpu/libdevice.h"

namespace kiln::gpu {
namespace {

llvm::Value* f32(llvm::IRBuilderBase& b, double v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }

// 2^x by the hardware (ex2.approx.ftz.f32: about 2 ulp, subnormal results
// flushed; LLVM 19's NVPTX has no lowering of llvm.exp2).
llvm::Value* exp2Approx(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_ftz_f, {}, {x});
}

// e^x: n = round(x / ln 2), r = x - n ln 2 in two fma steps (exact for
// |n| < 2^12), e^x = 2^(r / ln 2) * 2^n. ex2.approx is accurate on the
// reduced |r / ln 2| <= 0.5; the scale by 2^n rounds once, so large |x|
// loses no bits to the product x * log2(e).
// x is clamped to [-104, 89] first, where e^x is already 0 or Inf, so that
// the reduction never sees an infinity.
llvm::Value* emitExp(llvm::IRBuilderBase& b, llvm::Value* x) {
  auto fma = [&](llvm::Value* p, llvm::Value* q, llvm::Value* s) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()}, {p, q, s});
  };
  llvm::Value* clamped = b.CreateBinaryIntrinsic(
      llvm::Intrinsic::minnum, b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, f32(b, -104.0)), f32(b, 89.0));
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(clamped, f32(b, 1.4426950408889634)));
  llvm::Value* r = fma(b.CreateFNeg(n), f32(b, 0.693145751953125), clamped);  // ln 2's high bits
  r = fma(b.CreateFNeg(n), f32(b, 1.428606820309417e-06), r);               // and the rest
  llvm::Value* scaled = exp2Approx(b, b.CreateFMul(r, f32(b, 1.4426950408889634)));
  // 2^n as two normal factors 2^h * 2^(n - h), h = n / 2 (n in [-151, 129]):
  // the first product is exact, the second rounds once (maybe to a subnormal).
  llvm::Value* whole = b.CreateFPToSI(n, b.getInt32Ty());
  llvm::Value* half = b.CreateAShr(whole, 1);
  auto powerOfTwo = [&](llvm::Value* k) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(k, b.getInt32(127)), 23), b.getFloatTy());
  };
  llvm::Value* e = b.CreateFMul(b.CreateFMul(scaled, powerOfTwo(half)), powerOfTwo(b.CreateSub(whole, half)));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, e);  // NaN stays NaN
}

// e^x - 1: near 0, where e^x - 1 cancels, its Taylor series (|x| < 0.25:
// terms to x^8 leave under 2^-29 relative); else from e^x.
llvm::Value* emitExpm1(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* p = f32(b, 1.0 / 40320);
  for (double c : {1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1.0})
    p = b.CreateIntrinsic(llvm::Intrinsic::fma, {b.getFloatTy()}, {p, x, f32(b, c)});
  llvm::Value* series = b.CreateFMul(p, x);
  llvm::Value* small = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), f32(b, 0.25));
  return b.CreateSelect(small, series, b.CreateFSub(emitExp(b, x), f32(b, 1.0)));
}

// ln x = log2(x) * ln 2 (lg2.approx.f32: about 2^-22 absolute error near 1,
// 2 ulp elsewhere; Inf, 0, negatives and NaN as IEEE log).
llvm::Value* emitLog(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* log2 = b.CreateIntrinsic(llvm::Intrinsic::nvvm_lg2_approx_f, {}, {x});
  return b.CreateFMul(log2, f32(b, 0.6931471805599453));
}

// ln(1 + x) = ln(u) * x / (u - 1) for u = 1 + x rounded (Goldberg's
// correction of the rounding of 1 + x); x where u is 1.
llvm::Value* emitLog1p(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* u = b.CreateFAdd(x, f32(b, 1.0));
  llvm::Value* corrected = b.CreateFMul(emitLog(b, u), b.CreateFDiv(x, b.CreateFSub(u, f32(b, 1.0))));
  llvm::Value* infinite = b.CreateFCmpOEQ(u, llvm::ConstantFP::getInfinity(b.getFloatTy()));
  return b.CreateSelect(b.CreateFCmpOEQ(u, f32(b, 1.0)), x, b.CreateSelect(infinite, u, corrected));
}

// tanh x = e / (e + 2) for e = expm1(2x), by |x| with x's sign (no
// cancellation near 0; 1 from |x| >= 10, where e / (e + 2) rounds to 1).
llvm::Value* emitTanh(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* e = emitExpm1(b, b.CreateFMul(b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, a, f32(b, 10.0)), f32(b, 2.0)));
  llvm::Value* t = b.CreateFDiv(e, b.CreateFAdd(e, f32(b, 2.0)));
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, b.CreateSelect(b.CreateFCmpUNO(x, x), x, t), x);
}

// 1 / (1 + e^-x).
llvm::Value* emitLogistic(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateFDiv(f32(b, 1.0), b.CreateFAdd(f32(b, 1.0), emitExp(b, b.CreateFNeg(x))));
}

class GpuTargetHooks final : public codegen::TargetHooks {
 public:
  std::string_view backendName() const override { return "cuda"; }

  // A thread folds a complex reduce's positions in order (no warp
  // shuffles of {real, imaginary} pairs): the interpreter's order.
  bool emitsComplexReduces() const override { return true; }

  // The ops above; the rest (sin, pow, erf, ...) call libdevice.
  llvm::Value* emitF32Math(llvm::IRBuilderBase& b, std::string_view name,
                           std::span<llvm::Value* const> xs) const override {
    llvm::Value* x = xs[0];
    if (name == "stablehlo.exponential") return emitExp(b, x);
    if (name == "stablehlo.exponential_minus_one") return emitExpm1(b, x);
    if (name == "stablehlo.log") return emitLog(b, x);
    if (name == "stablehlo.log_plus_one") return emitLog1p(b, x);
    if (name == "stablehlo.tanh") return emitTanh(b, x);
    if (name == "stablehlo.logistic") return emitLogistic(b, x);
    // C has no inverse erf (so no double path through the math library);
    // libdevice's, in double and rounded once, as the interpreter's
    // Newton-refined one in double.
    if (name == "chlo.erf_inv") {
      llvm::Value* wide = b.CreateFPExt(x, b.getDoubleTy());
      return b.CreateFPTrunc(callMathLibrary(b, *b.GetInsertBlock()->getModule(), "erfinv", {&wide, 1}), b.getFloatTy());
    }
    return nullptr;
  }

  // libdevice's function of the C name ("sin" -> __nv_sin, "sinf" ->
  // __nv_sinf), linked when the kernel is compiled to PTX (libdevice.h).
  llvm::Value* callMathLibrary(llvm::IRBuilderBase& b, llvm::Module& m, std::string_view name,
                               std::span<llvm::Value* const> args) const override {
    llvm::Type* type = args[0]->getType();
    std::vector<llvm::Type*> params(args.size(), type);
    llvm::FunctionCallee callee =
        m.getOrInsertFunction(std::string(kLibdevicePrefix) + std::string(name), llvm::FunctionType::get(type, params, false));
    return b.CreateCall(callee, llvm::ArrayRef<llvm::Value*>(args.data(), args.size()));
  }

  // libdevice has no complex square root: a call of C's, which the kernel
  // emitter refuses.
  std::pair<llvm::Value*, llvm::Value*> callComplexSqrt(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* re,
                                                        llvm::Value* im) const override {
    llvm::Type* part = re->getType();
    auto* pair = llvm::StructType::get(part, part);
    llvm::FunctionCallee csqrt = m.getOrInsertFunction(part->isFloatTy() ? "csqrtf" : "csqrt",
                                                       llvm::FunctionType::get(pair, {part, part}, false));
    llvm::Value* r = b.CreateCall(csqrt, {re, im});
    return {b.CreateExtractValue(r, 0), b.CreateExtractValue(r, 1)};
  }

  // max.NaN.f32 is one instruction on sm_80 and later.
  bool foldMinMaxBySelect() const override { return false; }

  // A thread's fold is serial; the parallelism is across threads.
  void vectorizeFold(llvm::BranchInst*) const override {}

  int64_t prefetchBytes() const override { return 0; }
  void emitPrefetch(llvm::IRBuilderBase&, llvm::Value*) const override {}
};

}  // namespace

const codegen::TargetHooks& gpuTargetHooks() {
  static const GpuTargetHooks hooks;
  return hooks;
}

}  // namespace kiln::gpu
