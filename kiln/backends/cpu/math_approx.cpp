// Vectorizable f32 exp, expm1, log, tanh, logistic, erf, erfc, sin, cos, tan and pow.
//
// The polynomial coefficients are least-squares fits (weighted for relative
// error, on 4000 Chebyshev nodes of the reduced interval, computed in double
// with numpy and rounded to f32) of the remainder each formula leaves:
//   exp:  (e^r - 1 - r) / r^2            on [-ln2/2, ln2/2], degree 4 (also tanh's;
//         0.06 ULP of e^r from the fit, degree 5 gave 0.02)
//   log:  (log1p(f) - f + f^2/2) / f^3   on [sqrt(1/2)-1, sqrt(2)-1], degree 8
//   erf:  erf(x) / x - 1 in z=x^2         on [0, 0.921875^2], degree 6
//         erfc(x) e^(x^2) in t=x-2.42     on [0.921875, 3.92], degree 10
//   erfc: erfc(a) e^(a^2) / t, t=2/(2+a)  on [0.5, 10.06], degree 10 (at emitErfcF32)
// Polynomials are evaluated with llvm.fma (one rounding per step, one
// instruction on every x86 host with AVX2); never fmuladd, whose fusing is
// the code generator's choice, so results do not depend on the host.
#include "kiln/backends/cpu/math_approx.h"

#include <cmath>
#include <numbers>

#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

namespace kiln::cpu {
namespace {

llvm::Value* f32(llvm::IRBuilderBase& b, double v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }

llvm::Value* fma(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {x, y, z});
}

// c[0] + x * (c[1] + x * (...)), Horner's scheme with fused multiply-adds,
// in x's type (f32 or f64, scalar or vector; f32 coefficients are given as
// floats, so they convert exactly).
llvm::Value* polynomial(llvm::IRBuilderBase& b, llvm::Value* x, std::initializer_list<double> coefficients) {
  const double* c = coefficients.end();
  llvm::Value* r = llvm::ConstantFP::get(x->getType(), *--c);
  while (c != coefficients.begin())
    r = b.CreateIntrinsic(llvm::Intrinsic::fma, {x->getType()}, {r, x, llvm::ConstantFP::get(x->getType(), *--c)});
  return r;
}

llvm::Value* isNaN(llvm::IRBuilderBase& b, llvm::Value* x) { return b.CreateFCmpUNO(x, x); }

// ln 2 split for Cody-Waite reduction: kLn2Hi has 15 significant bits, so
// n * kLn2Hi is exact for the |n| <= 150 that occur.
constexpr double kLn2Hi = 0.693145751953125;
constexpr double kLn2Lo = 1.42860682030941723212e-6;

// e^r - 1 for |r| <= ln2/2, with n: e^x = 2^n e^r, n = roundeven(x / ln 2)
// (a float). r + r^2 P(r) keeps its relative accuracy as r goes to 0.
std::pair<llvm::Value*, llvm::Value*> expm1Reduced(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(x, f32(b, 1.4426950408889634)));
  llvm::Value* minusN = b.CreateFNeg(n);
  llvm::Value* r = fma(b, minusN, f32(b, kLn2Hi), x);  // exact: n * kLn2Hi is
  r = fma(b, minusN, f32(b, kLn2Lo), r);
  llvm::Value* p = polynomial(b, r, {0.4999999701976776f, 0.16666541993618011f, 0.041667595505714417f,
                                     0.00836667325347662f, 0.001385816023685038f});
  return {fma(b, b.CreateFMul(r, r), p, r), n};
}

// e^r and n as above.
std::pair<llvm::Value*, llvm::Value*> expReduced(llvm::IRBuilderBase& b, llvm::Value* x) {
  auto [m, n] = expm1Reduced(b, x);
  return {b.CreateFAdd(f32(b, 1.0), m), n};
}

// The scale functions (see emitScaleF32), each a scalar function with vector
// variants: any result, or a normal one; and sine, cosine and tangent.
constexpr const char* kScaleF32 = "kiln_scale_f32";
constexpr const char* kScaleNormalF32 = "kiln_scale_normal_f32";
constexpr const char* kSinF32 = "kiln_sin_f32";
constexpr const char* kCosF32 = "kiln_cos_f32";
constexpr const char* kTanF32 = "kiln_tan_f32";
constexpr int kVectorLanes[] = {4, 8, 16};

llvm::Type* floats(llvm::LLVMContext& ctx, int lanes) {
  llvm::Type* f = llvm::Type::getFloatTy(ctx);
  return lanes == 1 ? f : llvm::FixedVectorType::get(f, lanes);
}

// x * 2^n in plain IR, scalar or vector: two exact multiplies by 2^(n/2) and
// 2^(n - n/2), both normal for |n| <= 252, so a subnormal result is rounded
// once (by the second). A NaN n scales by 1 (x is then NaN too, see
// emitExpF32), never reaching the conversion, whose result would be poison.
llvm::Value* scaleByTwoMultiplies(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* n) {
  llvm::Type* ints = x->getType()->getWithNewType(b.getInt32Ty());
  n = b.CreateSelect(b.CreateFCmpUNO(n, n), llvm::ConstantFP::get(n->getType(), 0.0), n);
  llvm::Value* ni = b.CreateFPToSI(n, ints);
  llvm::Value* half = b.CreateAShr(ni, llvm::ConstantInt::get(ints, 1));
  auto power = [&](llvm::Value* k) {
    llvm::Value* biased = b.CreateAdd(k, llvm::ConstantInt::get(ints, 127));
    return b.CreateBitCast(b.CreateShl(biased, llvm::ConstantInt::get(ints, 23)), x->getType());
  };
  return b.CreateFMul(b.CreateFMul(x, power(half)), power(b.CreateSub(ni, half)));
}

// x * 2^n in plain IR for a normal result: one exact multiply.
llvm::Value* scaleByOneMultiply(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* n) {
  llvm::Type* ints = x->getType()->getWithNewType(b.getInt32Ty());
  llvm::Value* biased = b.CreateAdd(b.CreateFPToSI(n, ints), llvm::ConstantInt::get(ints, 127));
  return b.CreateFMul(x, b.CreateBitCast(b.CreateShl(biased, llvm::ConstantInt::get(ints, 23)), x->getType()));
}

// The f32 function `scalar` of `arity` arguments, declared (once) with
// 4-, 8- and 16-lane variants that LLVM's vectorizer widens its calls to;
// defineVectorizableFunctions gives them bodies after optimization.
llvm::Function* declareVectorizable(llvm::Module& m, const char* scalar, int arity) {
  if (llvm::Function* fn = m.getFunction(scalar)) return fn;
  auto declare = [&](const std::string& name, int lanes) {
    llvm::Type* t = floats(m.getContext(), lanes);
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(t, std::vector<llvm::Type*>(arity, t), false),
                                      llvm::Function::ExternalLinkage, name, m);
    fn->setDoesNotAccessMemory();
    fn->setDoesNotThrow();
    fn->setWillReturn();
    return fn;
  };
  llvm::Function* fn = declare(scalar, 1);
  std::string variants;
  std::vector<llvm::GlobalValue*> kept;
  for (int lanes : kVectorLanes) {
    std::string name = std::string(scalar) + "_v" + std::to_string(lanes);
    kept.push_back(declare(name, lanes));
    variants += (variants.empty() ? "" : ",") + ("_ZGV_LLVM_N" + std::to_string(lanes) + std::string(arity, 'v') +
                                                 "_" + scalar + "(" + name + ")");
  }
  fn->addFnAttr("vector-function-abi-variant", variants);
  // Unused declarations would be dropped before the vectorizer looks for them.
  llvm::appendToCompilerUsed(m, kept);
  return fn;
}

}  // namespace

llvm::Value* emitScaleF32(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* n, bool normalResult) {
  return b.CreateCall(declareVectorizable(*b.GetInsertBlock()->getModule(), normalResult ? kScaleNormalF32 : kScaleF32, 2),
                      {x, n});
}

namespace {

// The body of a scale function's variant of `lanes` (1: the scalar one).
llvm::Value* scaleBody(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* n, int lanes, bool normalResult,
                       bool avx512f, bool avx512vl) {
  llvm::Value* all = llvm::Constant::getAllOnesValue(lanes == 16 ? b.getInt16Ty() : b.getInt8Ty());
  if (avx512f && lanes == 16)
    return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
                             {x, n, x, all, b.getInt32(4 /* the current rounding mode */)});
  if (avx512vl && lanes == 8)
    return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_ps_256, {}, {x, n, x, all});
  if (avx512vl && lanes == 4) return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_ps_128, {}, {x, n, x, all});
  return normalResult ? scaleByOneMultiply(b, x, n) : scaleByTwoMultiplies(b, x, n);
}

enum class Trig { Sin, Cos, Tan };

// Above this magnitude (and for Inf and NaN) a lane calls libm; below it the
// reduction by pi/2 in double with a two-part constant leaves r within
// 2^-50 of its value relative to it (the closest f32 below 2^24 comes to a
// multiple of pi/2 is far above that error).
constexpr double kTrigReducedBelow = 16777216.0;  // 2^24

// sin, cos or tan of f32 lanes x (a scalar float or a vector), rounded once
// from double: a = |x| = j pi/2 + r with |r| <= pi/4 (pi/2 as two doubles,
// fused steps), then r + r^3 P(r^2) or 1 - r^2/2 + r^4 Q(r^2) by j's quadrant
// (least-squares fits, relative error 2^-37 and 2^-42: one final rounding
// gives at most 1 ULP), and the sign of x for the odd sin and tan. Lanes at
// or above 2^24, Inf and NaN call libm's function in double, as the
// interpreter does, one lane at a time.
llvm::Value* trigBody(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* slow, Trig trig) {
  llvm::Type* floatTy = x->getType();
  llvm::Type* doubleTy = floatTy->getWithNewType(b.getDoubleTy());
  llvm::Type* intTy = floatTy->getWithNewType(b.getInt32Ty());
  auto d = [&](double v) { return llvm::ConstantFP::get(doubleTy, v); };
  auto i32 = [&](uint32_t v) { return llvm::ConstantInt::get(intTy, v); };
  // Slow lanes (see withSlowLanes) reduce 0 instead, keeping j in int range.
  llvm::Value* a = b.CreateSelect(slow, llvm::ConstantFP::get(floatTy, 0.0), b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x));
  llvm::Value* ad = b.CreateFPExt(a, doubleTy);
  llvm::Value* j = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(ad, d(2 / std::numbers::pi)));
  llvm::Value* minusJ = b.CreateFNeg(j);
  llvm::Value* r = b.CreateIntrinsic(llvm::Intrinsic::fma, {doubleTy}, {minusJ, d(1.5707963267948966), ad});
  r = b.CreateIntrinsic(llvm::Intrinsic::fma, {doubleTy}, {minusJ, d(6.123233995736766e-17), r});
  llvm::Value* quadrant = b.CreateFPToSI(j, intTy);
  if (trig == Trig::Cos) quadrant = b.CreateAdd(quadrant, i32(1));  // cos a = sin(a + pi/2)
  llvm::Value* z = b.CreateFMul(r, r);
  llvm::Value* sinR = b.CreateIntrinsic(
      llvm::Intrinsic::fma, {doubleTy},
      {b.CreateFMul(r, z),
       polynomial(b, z, {-0.16666666639894331, 0.008333329222825205, -0.000198392899063995, 2.71793275202818e-06}), r});
  llvm::Value* cosR = b.CreateIntrinsic(
      llvm::Intrinsic::fma, {doubleTy},
      {b.CreateFMul(z, z),
       polynomial(b, z, {0.04166666661723293, -0.001388888333729258, 2.4799422840287243e-05, -2.72030050435067e-07}),
       b.CreateIntrinsic(llvm::Intrinsic::fma, {doubleTy}, {z, d(-0.5), d(1.0)})});
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(quadrant, i32(1)), i32(0));
  llvm::Value* result;
  if (trig == Trig::Tan) {  // sin r / cos r, or -cos r / sin r a quadrant on
    result = b.CreateFDiv(b.CreateSelect(odd, b.CreateFNeg(cosR), sinR), b.CreateSelect(odd, sinR, cosR));
  } else {
    result = b.CreateSelect(odd, cosR, sinR);
    result = b.CreateSelect(b.CreateICmpNE(b.CreateAnd(quadrant, i32(2)), i32(0)), b.CreateFNeg(result), result);
  }
  result = b.CreateFPTrunc(result, floatTy);
  if (trig != Trig::Cos) {  // odd functions: the sign of x (sin -0 is -0)
    llvm::Value* sign = b.CreateAnd(b.CreateBitCast(x, intTy), i32(0x80000000u));
    result = b.CreateBitCast(b.CreateXor(b.CreateBitCast(result, intTy), sign), floatTy);
  }
  return result;
}

// Replaces the lanes of `result` where `slow` holds by libm's `name` of x's
// lane in double, rounded once; one branch when no lane is slow.
llvm::Value* withSlowLanes(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* slow, llvm::Value* result,
                           const char* name) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::FunctionCallee libm =
      m.getOrInsertFunction(name, llvm::FunctionType::get(b.getDoubleTy(), {b.getDoubleTy()}, false));
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  int lanes = vector ? int(vector->getNumElements()) : 1;
  llvm::Value* any = vector ? b.CreateOrReduce(slow) : slow;
  llvm::BasicBlock* entry = b.GetInsertBlock();
  llvm::BasicBlock* done = llvm::BasicBlock::Create(m.getContext(), "trig.done", fn);
  llvm::BasicBlock* lane = llvm::BasicBlock::Create(m.getContext(), "trig.slow", fn, done);
  b.CreateCondBr(any, lane, done);
  llvm::Value* current = result;
  for (int i = 0; i < lanes; ++i) {
    // lane: if slow[i], result[i] = libm(x[i]); then the next lane.
    b.SetInsertPoint(lane);
    llvm::BasicBlock* call = llvm::BasicBlock::Create(m.getContext(), "trig.call", fn, done);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(m.getContext(), "trig.next", fn, done);
    b.CreateCondBr(vector ? b.CreateExtractElement(slow, i) : slow, call, next);
    b.SetInsertPoint(call);
    llvm::Value* xi = vector ? b.CreateExtractElement(x, i) : x;
    llvm::Value* ri = b.CreateFPTrunc(b.CreateCall(libm, {b.CreateFPExt(xi, b.getDoubleTy())}), b.getFloatTy());
    llvm::Value* replaced = vector ? b.CreateInsertElement(current, ri, i) : ri;
    b.CreateBr(next);
    b.SetInsertPoint(next);
    llvm::PHINode* phi = b.CreatePHI(result->getType(), 2);
    phi->addIncoming(current, lane);
    phi->addIncoming(replaced, call);
    current = phi;
    lane = next;
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* out = b.CreatePHI(result->getType(), 2);
  out->addIncoming(result, entry);
  out->addIncoming(current, lane);
  return out;
}

}  // namespace

void defineVectorizableFunctions(llvm::Module& m, bool avx512f, bool avx512vl) {
  llvm::LLVMContext& ctx = m.getContext();
  // Bodies the inliner may drop once inlined.
  llvm::removeFromUsedLists(m, [](llvm::Constant* c) { return c->getName().starts_with("kiln_"); });
  const std::pair<const char*, Trig> trigs[] = {{kSinF32, Trig::Sin}, {kCosF32, Trig::Cos}, {kTanF32, Trig::Tan}};
  for (const char* scalar : {kScaleF32, kScaleNormalF32, kSinF32, kCosF32, kTanF32}) {
    for (int lanes : {1, 4, 8, 16}) {
      std::string name = lanes == 1 ? scalar : std::string(scalar) + "_v" + std::to_string(lanes);
      llvm::Function* fn = m.getFunction(name);
      if (!fn || !fn->isDeclaration()) continue;
      fn->setLinkage(llvm::Function::InternalLinkage);
      fn->addFnAttr(llvm::Attribute::AlwaysInline);
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
      llvm::Value* x = fn->getArg(0);
      llvm::Value* result = nullptr;
      for (auto [trigName, trig] : trigs) {
        if (scalar != trigName) continue;
        llvm::Value* slow = b.CreateFCmpUGE(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x),
                                            llvm::ConstantFP::get(x->getType(), kTrigReducedBelow));
        result = trigBody(b, x, slow, trig);
        result = withSlowLanes(b, x, slow, result, trig == Trig::Sin ? "sin" : trig == Trig::Cos ? "cos" : "tan");
      }
      if (!result) result = scaleBody(b, x, fn->getArg(1), lanes, scalar == kScaleNormalF32, avx512f, avx512vl);
      b.CreateRet(result);
    }
  }
}

llvm::Value* emitSinF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateCall(declareVectorizable(*b.GetInsertBlock()->getModule(), kSinF32, 1), {x});
}

llvm::Value* emitCosF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateCall(declareVectorizable(*b.GetInsertBlock()->getModule(), kCosF32, 1), {x});
}

llvm::Value* emitTanF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  return b.CreateCall(declareVectorizable(*b.GetInsertBlock()->getModule(), kTanF32, 1), {x});
}

// e^x = 2^n * e^r with n = roundeven(x / ln 2) and |r| <= ln2/2; the scale by
// 2^n rounds once (emitScaleF32), so results in the subnormal range are
// correctly rounded products.
llvm::Value* emitExpF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  // Beyond these bounds the result is already Inf / 0. A NaN passes both
  // selects (x86's minps / maxps in this operand order) and every step after
  // them, down to the scale, which returns it (quieted, as libm's exp does).
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOLT(f32(b, 89.0), x), f32(b, 89.0), x);
  xc = b.CreateSelect(b.CreateFCmpOLT(xc, f32(b, -104.0)), f32(b, -104.0), xc);
  auto [p, n] = expReduced(b, xc);
  return emitScaleF32(b, p, n);
}

// log x = e ln2 + log1p(f) with x = 2^e (1 + f), 1 + f in [sqrt(1/2), sqrt(2));
// subnormal inputs are first scaled by 2^23.
llvm::Value* emitLogF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* tiny = b.CreateFCmpOLT(x, f32(b, std::ldexp(1.0, -126)));
  llvm::Value* xs = b.CreateSelect(tiny, b.CreateFMul(x, f32(b, std::ldexp(1.0, 23))), x);
  llvm::Value* u = b.CreateBitCast(xs, i32);
  llvm::Value* e = b.CreateSub(b.CreateLShr(u, b.getInt32(23)), b.CreateSelect(tiny, b.getInt32(127 + 23), b.getInt32(127)));
  llvm::Value* mantissa = b.CreateAnd(u, b.getInt32(0x7FFFFF));
  // Mantissas above sqrt(2)'s (0x3504F3) take the next exponent: 1 + f = m / 2.
  llvm::Value* high = b.CreateICmpUGT(mantissa, b.getInt32(0x3504F3));
  e = b.CreateAdd(e, b.CreateZExt(high, i32));
  llvm::Value* m = b.CreateBitCast(
      b.CreateOr(mantissa, b.CreateSelect(high, b.getInt32(0x3F000000), b.getInt32(0x3F800000))), b.getFloatTy());
  llvm::Value* f = b.CreateFSub(m, f32(b, 1.0));  // exact (Sterbenz)
  llvm::Value* f2 = b.CreateFMul(f, f);
  llvm::Value* p = polynomial(b, f, {0.3333331048488617f, -0.25000014901161194f, 0.20002204179763794f,
                                     -0.16667643189430237f, 0.14217890799045563f, -0.12411268800497055f,
                                     0.1190471202135086f, -0.11646434664726257f, 0.06675271689891815f});
  llvm::Value* ef = b.CreateSIToFP(e, b.getFloatTy());
  llvm::Value* y = b.CreateFSub(b.CreateFMul(b.CreateFMul(f2, f), p), b.CreateFMul(f2, f32(b, 0.5)));
  y = b.CreateFAdd(y, b.CreateFMul(ef, f32(b, kLn2Lo)));
  llvm::Value* r = b.CreateFAdd(b.CreateFAdd(f, y), b.CreateFMul(ef, f32(b, kLn2Hi)));

  r = b.CreateSelect(b.CreateFCmpOEQ(x, f32(b, INFINITY)), x, r);
  r = b.CreateSelect(b.CreateFCmpOEQ(x, f32(b, 0.0)), f32(b, -INFINITY), r);
  // The NaN of a negative input is x86's default NaN (sign set), as libm's log gives.
  llvm::Value* defaultNaN = b.CreateBitCast(b.getInt32(0xFFC00000u), b.getFloatTy());
  r = b.CreateSelect(b.CreateFCmpOLT(x, f32(b, 0.0)), defaultNaN, r);
  return b.CreateSelect(isNaN(b, x), x, r);
}

// log1p x = log(u) * (x / (u - 1)) with u = 1 + x rounded (Goldberg's
// formula: u's rounding error cancels in the quotient to first order). u ==
// 1 (|x| under half an f32 step of 1) gives x itself, -0 included; x = +Inf
// gives +Inf (the quotient would be Inf / Inf); x = -1 gives log 0 = -Inf,
// below it log's NaN; the quotient first keeps x * log(u) from overflowing
// for x near the largest float.
llvm::Value* emitLog1pF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* u = b.CreateFAdd(f32(b, 1.0), x);
  llvm::Value* r = b.CreateFMul(emitLogF32(b, u), b.CreateFDiv(x, b.CreateFSub(u, f32(b, 1.0))));
  r = b.CreateSelect(b.CreateFCmpOEQ(u, f32(b, 1.0)), x, r);
  return b.CreateSelect(b.CreateFCmpOEQ(x, f32(b, INFINITY)), x, r);
}

// e^x - 1 = 2 (2^(n-1) expm1(r) + (2^(n-1) - 1/2)) with x = n ln 2 + r, in
// one fused step as tanh's e: expm1(r) = r + r^2 P(r) keeps its relative
// accuracy as x goes to 0 (n = 0 gives 2 (expm1(r) / 2), expm1(r) itself),
// and 2^(n-1) stays a normal number over the whole clamp [-17.5, 88.72],
// the doubling exact. Below -17.5 the result is -1 in f32; above 88.72,
// Inf; zeros are their own result; a NaN passes the clamps and the
// arithmetic.
llvm::Value* emitExpm1F32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOLT(x, f32(b, -17.5)), f32(b, -17.5), x);
  xc = b.CreateSelect(b.CreateFCmpOGT(xc, f32(b, 88.72283)), f32(b, 88.72283), xc);
  auto [expm1r, n] = expm1Reduced(b, xc);
  // 2^(n-1) built directly (0.5 * 2^n would build 2^128 on the way).
  llvm::Value* half = emitScaleF32(b, f32(b, 1.0), b.CreateFSub(n, f32(b, 1.0)), /*normalResult=*/true);
  llvm::Value* e = b.CreateFMul(f32(b, 2.0), fma(b, half, expm1r, b.CreateFSub(half, f32(b, 0.5))));
  e = b.CreateSelect(b.CreateFCmpOEQ(x, f32(b, 0.0)), x, e);  // -0 stays -0 (r would be +0)
  // Above the clamp (the largest f32 below ln of the largest float) e^x - 1 overflows.
  return b.CreateSelect(b.CreateFCmpOGT(x, f32(b, 88.72283)), f32(b, INFINITY), e);
}

// tanh x = sign(x) tanh a, a = |x|, as e / (e + 2) with e = e^(2a) - 1.
// With 2a = n ln 2 + r, e = 2^n expm1(r) + (2^n - 1) in one fused step
// (2^n - 1 is exact up to n = 24; beyond, tanh a is within a ULP of 1 and
// that rounding cannot show), and expm1(r) = r + r^2 P(r) (expm1Reduced)
// keeps its relative accuracy as a goes to 0: no separate branch for small
// arguments. 2 ULP (the roundings of e + 2 and of the quotient) where a
// polynomial branch for a < 0.625 kept 1 ULP in 14 more instructions a vector
// (gelu f32[4M] 2.52 -> 2.15 ms). Below 2^-12 the result rounds back to a;
// a NaN passes the clamp (its compare is false) and the arithmetic with its
// payload; the final copysign gives -0 and every other sign.
llvm::Value* emitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // tanh is 1 in f32 from 9.1 on; clamping keeps e finite.
  llvm::Value* ac = b.CreateSelect(b.CreateFCmpOGT(a, f32(b, 10.0)), f32(b, 10.0), a);
  auto [expm1r, n] = expm1Reduced(b, b.CreateFAdd(ac, ac));
  llvm::Value* scale = emitScaleF32(b, f32(b, 1.0), n, /*normalResult=*/true);
  llvm::Value* e = fma(b, scale, expm1r, b.CreateFSub(scale, f32(b, 1.0)));
  llvm::Value* result = b.CreateFDiv(e, b.CreateFAdd(e, f32(b, 2.0)));
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, result, x);
}

// logistic x = 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below, both from
// e = e^-|x| <= 1: no overflow, and subnormal results for very negative x.
llvm::Value* emitLogisticF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* e = emitExpF32(b, b.CreateFNeg(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x)));
  llvm::Value* d = b.CreateFAdd(f32(b, 1.0), e);
  // One division: the numerator is chosen before it.
  llvm::Value* r = b.CreateFDiv(b.CreateSelect(b.CreateFCmpOGE(x, f32(b, 0.0)), f32(b, 1.0), e), d);
  return b.CreateSelect(isNaN(b, x), x, r);
}

// erf x = x + x P(x^2) for |x| < 0.921875; above, sign(x) (1 - e^(-x^2) R(|x|))
// with R = erfc e^(x^2), a smooth function fitted around |x| = 2.42; from
// |x| = 3.92 on erf is 1 in f32.
llvm::Value* emitErfF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* z = b.CreateFMul(x, x);
  llvm::Value* p = polynomial(b, z, {0.12837916612625122f, -0.37612634897232056f, 0.11283694207668304f,
                                     -0.02685934118926525f, 0.005200905259698629f, -0.0008141392027027905f,
                                     8.365006215171888e-05f});
  llvm::Value* small = b.CreateFAdd(x, b.CreateFMul(x, p));
  llvm::Value* ac = b.CreateSelect(b.CreateFCmpOLT(a, f32(b, 3.92)), a, f32(b, 3.92));
  llvm::Value* r = polynomial(b, b.CreateFSub(ac, f32(b, 2.42)),
                              {0.21691790223121643f, -0.07849668711423874f, 0.02695762738585472f,
                               -0.00883222185075283f, 0.0027940813452005386f, -0.0008528787293471396f,
                               0.00020951213082298636f, -9.452727681491524e-05f, 3.0055474780965596e-05f,
                               1.3795466657029465e-05f, 8.345457899849862e-06f});
  llvm::Value* e = emitExpF32(b, b.CreateFNeg(b.CreateFMul(ac, ac)));
  llvm::Value* large = b.CreateFSub(f32(b, 1.0), b.CreateFMul(e, r));
  large = b.CreateSelect(b.CreateFCmpOLT(a, f32(b, 3.92)), large, f32(b, 1.0));
  large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
  llvm::Value* result = b.CreateSelect(b.CreateFCmpOLT(a, f32(b, 0.921875)), small, large);
  return b.CreateSelect(isNaN(b, x), x, result);
}

namespace {

// e^y in double for |y| <= 700, whose results are normal: 2^n e^r with
// n = roundeven(y / ln 2) and ln 2 in two parts (fdlibm's: n * the first is
// exact), e^r = 1 + r + r^2 P(r) with P a degree-6 least-squares fit
// (relative error 2^-39), and 2^n built from its exponent bits.
llvm::Value* expNormalF64(llvm::IRBuilderBase& b, llvm::Value* y) {
  llvm::Type* t = y->getType();
  auto d = [&](double v) { return llvm::ConstantFP::get(t, v); };
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, b.CreateFMul(y, d(1.4426950408889634)));
  llvm::Value* minusN = b.CreateFNeg(n);
  llvm::Value* r = b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {minusN, d(6.93147180369123816490e-01), y});
  r = b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {minusN, d(1.90821492927058770002e-10), r});
  llvm::Value* p = polynomial(b, r, {0.5000000000804088, 0.1666666679445693, 0.04166666283889913, 0.008333279112048238,
                                     0.001388938978535369, 0.00019910613799735852, 2.4635493920564083e-05});
  llvm::Value* er = b.CreateFAdd(d(1.0), b.CreateIntrinsic(llvm::Intrinsic::fma, {t}, {b.CreateFMul(r, r), p, r}));
  llvm::Type* ints = t->getWithNewType(b.getInt64Ty());
  llvm::Value* biased = b.CreateAdd(b.CreateFPToSI(n, ints), llvm::ConstantInt::get(ints, 1023));
  return b.CreateFMul(er, b.CreateBitCast(b.CreateShl(biased, llvm::ConstantInt::get(ints, 52)), t));
}

}  // namespace

// erfc x in f32 lanes (4 ULP at most; the double-lane form it replaced was
// 1 ULP at about twice the cost a lane). Below |x| = 0.5, 1 - erf x =
// (1 - x) - x P(x^2) with erf's P, one fused step. Above, for a = |x|
// (clamped to 10.1: erfc is 0 in f32 from 10.06 on),
//   erfc a = e^(-a^2) g(a),  g = erfc e^(a^2) ~= t S(t - 0.48291874),
// t = 2 / (2 + a), S our degree-10 least-squares fit of g / t over
// [0.5, 10.06] (relative error 2^-25.1 with the coefficients rounded to f32,
// each refitted after the previous were rounded). Two small corrections go
// into the one fused step t S + c: a^2 = hi + lo exactly (lo by a fused
// step) and e^(-a^2) = e^(-hi) (1 - lo), which keeps the exponent's rounding
// (up to 100 * 2^-24 relative at a = 10) out of the result; and t's rounding,
// which moves the a that t S stands for by da = (2 - t (2 + a)) / t (2 + a
// as a two-term sum, the residual by fused steps), corrected with
// g' = 2a g - 2 / sqrt(pi). Below 0, 2 - erfc|x|.
llvm::Value* emitErfcF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* p = polynomial(b, b.CreateFMul(x, x),
                              {0.12837916612625122f, -0.37612634897232056f, 0.11283694207668304f,
                               -0.02685934118926525f, 0.005200905259698629f, -0.0008141392027027905f,
                               8.365006215171888e-05f});
  llvm::Value* small = fma(b, b.CreateFNeg(x), p, b.CreateFSub(f32(b, 1.0), x));
  llvm::Value* ac = b.CreateSelect(b.CreateFCmpOGT(a, f32(b, 10.1)), f32(b, 10.1), a);
  llvm::Value* d = b.CreateFAdd(f32(b, 2.0), ac);
  // d's rounding error (two-sum with the larger operand known by a compare).
  llvm::Value* dLo = b.CreateSelect(b.CreateFCmpOGT(ac, f32(b, 2.0)),
                                    b.CreateFAdd(b.CreateFSub(ac, d), f32(b, 2.0)),
                                    b.CreateFAdd(b.CreateFSub(f32(b, 2.0), d), ac));
  llvm::Value* t = b.CreateFDiv(f32(b, 2.0), d);
  llvm::Value* minusT = b.CreateFNeg(t);
  llvm::Value* rho = fma(b, minusT, dLo, fma(b, minusT, d, f32(b, 2.0)));  // 2 - t (2 + a)
  llvm::Value* s = polynomial(b, b.CreateFSub(t, f32(b, 0.48291873931884766)),
                              {0.49921610951423645f, 0.6681967377662659f, 0.5511812567710876f, 0.15721295773983002f,
                               -0.16296187043190002f, -0.11341192573308945f, 0.09523523598909378f,
                               0.06476612389087677f, -0.11566193401813507f, -0.023517262190580368f,
                               0.18907587230205536f});
  llvm::Value* g0 = b.CreateFMul(t, s);
  llvm::Value* hi = b.CreateFMul(ac, ac);
  llvm::Value* lo = fma(b, ac, ac, b.CreateFNeg(hi));
  llvm::Value* slope = fma(b, b.CreateFAdd(ac, ac), g0, f32(b, -1.1283791670955126));  // g'
  llvm::Value* correction = fma(b, b.CreateFNeg(slope), b.CreateFMul(b.CreateFMul(rho, d), f32(b, 0.5)),
                                b.CreateFMul(b.CreateFNeg(lo), g0));
  llvm::Value* g = fma(b, t, s, correction);
  llvm::Value* large = b.CreateFMul(emitExpF32(b, b.CreateFNeg(hi)), g);
  large = b.CreateSelect(b.CreateFCmpOLT(x, f32(b, 0.0)), b.CreateFSub(f32(b, 2.0), large), large);
  llvm::Value* result = b.CreateSelect(b.CreateFCmpOLT(a, f32(b, 0.5)), small, large);
  return b.CreateSelect(isNaN(b, x), x, result);
}

namespace {

// log|x| in double for f32 x, to a relative error of 2^-43: |x| = 2^e m with
// m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23 first), log m =
// 2 atanh(s) = 2s + s^3 P(s^2) with s = (m - 1) / (m + 1), |s| <= 0.1716, P a
// degree-4 least-squares fit; -Inf for zeros and +Inf for infinities.
llvm::Value* logAbsInF64(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* floatTy = x->getType();
  llvm::Type* doubleTy = floatTy->getWithNewType(b.getDoubleTy());
  llvm::Type* intTy = floatTy->getWithNewType(b.getInt32Ty());
  auto d = [&](double v) { return llvm::ConstantFP::get(doubleTy, v); };
  auto i32 = [&](uint32_t v) { return llvm::ConstantInt::get(intTy, v); };
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* tiny = b.CreateFCmpOLT(a, llvm::ConstantFP::get(floatTy, std::ldexp(1.0, -126)));
  llvm::Value* as = b.CreateSelect(tiny, b.CreateFMul(a, llvm::ConstantFP::get(floatTy, std::ldexp(1.0, 23))), a);
  llvm::Value* bits = b.CreateBitCast(as, intTy);
  llvm::Value* mantissa = b.CreateAnd(bits, i32(0x7FFFFF));
  llvm::Value* high = b.CreateICmpUGT(mantissa, i32(0x3504F3));  // m / 2 and the next exponent
  llvm::Value* e = b.CreateSub(b.CreateLShr(bits, i32(23)), b.CreateSelect(tiny, i32(127 + 23), i32(127)));
  e = b.CreateAdd(e, b.CreateZExt(high, intTy));
  llvm::Value* m = b.CreateFPExt(
      b.CreateBitCast(b.CreateOr(mantissa, b.CreateSelect(high, i32(0x3F000000), i32(0x3F800000))), floatTy), doubleTy);
  llvm::Value* sum = b.CreateFAdd(m, d(1.0));
  llvm::Value* s = b.CreateFDiv(b.CreateFSub(m, d(1.0)), sum);
  llvm::Value* z = b.CreateFMul(s, s);
  llvm::Value* p = polynomial(b, z, {0.6666666666745673, 0.3999999868874353, 0.28571776285677786, 0.22190042780381375,
                                     0.19388646086685096});
  llvm::Value* logM = b.CreateIntrinsic(llvm::Intrinsic::fma, {doubleTy}, {b.CreateFMul(s, z), p, b.CreateFAdd(s, s)});
  llvm::Value* r = b.CreateIntrinsic(llvm::Intrinsic::fma, {doubleTy},
                                     {b.CreateSIToFP(e, doubleTy), d(std::numbers::ln2), logM});
  r = b.CreateSelect(b.CreateFCmpOEQ(a, llvm::ConstantFP::get(floatTy, 0.0)), d(-INFINITY), r);
  return b.CreateSelect(b.CreateFCmpOEQ(a, llvm::ConstantFP::get(floatTy, INFINITY)), d(INFINITY), r);
}

}  // namespace

// x^y = e^(y log|x|) in double, rounded once, with the sign and the special
// cases of C's pow (which the interpreter calls in double): y = 0 or x = 1
// give 1 (NaNs included), then NaNs give NaN, a finite x < 0 with a finite
// non-integral y is NaN, and a negative x (-0, -Inf included) with an odd
// integral y negates the result. Zeros and infinities of x, and infinite y,
// come out of the general formula through log's +-Inf; -1^+-Inf (Inf * 0,
// taken as 0) gives e^0 = 1. y log|x| has an absolute error of about 2^-36,
// so the result is within 1 ULP.
llvm::Value* emitPowF32(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y) {
  llvm::Type* floatTy = x->getType();
  llvm::Type* doubleTy = floatTy->getWithNewType(b.getDoubleTy());
  llvm::Type* intTy = floatTy->getWithNewType(b.getInt32Ty());
  auto f = [&](double v) { return llvm::ConstantFP::get(floatTy, v); };
  auto d = [&](double v) { return llvm::ConstantFP::get(doubleTy, v); };
  llvm::Value* z = b.CreateFMul(b.CreateFPExt(y, doubleTy), logAbsInF64(b, x));
  // Beyond +-300 the f32 result is Inf or 0 already; a NaN product (0 * Inf)
  // is taken as 0 (-1^+-Inf = 1), or a special case below decides.
  z = b.CreateSelect(b.CreateFCmpUNO(z, z), d(0.0), z);
  z = b.CreateSelect(b.CreateFCmpOGT(z, d(300.0)), d(300.0), z);
  z = b.CreateSelect(b.CreateFCmpOLT(z, d(-300.0)), d(-300.0), z);
  llvm::Value* r = b.CreateFPTrunc(expNormalF64(b, z), floatTy);

  llvm::Value* ay = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
  llvm::Value* finiteY = b.CreateFCmpOLT(ay, f(INFINITY));
  llvm::Value* integralY = b.CreateAnd(finiteY, b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, y), y));
  // f32 values from 2^24 on are even.
  llvm::Value* small = b.CreateFCmpOLT(ay, f(16777216.0));
  llvm::Value* low = b.CreateFPToSI(b.CreateSelect(small, y, f(0.0)), intTy);
  llvm::Value* oddY = b.CreateAnd(b.CreateAnd(integralY, small),
                                  b.CreateICmpNE(b.CreateAnd(low, llvm::ConstantInt::get(intTy, 1)),
                                                 llvm::ConstantInt::get(intTy, 0)));
  llvm::Value* negativeX = b.CreateICmpSLT(b.CreateBitCast(x, intTy), llvm::ConstantInt::get(intTy, 0));
  r = b.CreateSelect(b.CreateAnd(negativeX, oddY), b.CreateFNeg(r), r);
  llvm::Value* finiteNegativeX = b.CreateAnd(b.CreateFCmpOLT(x, f(0.0)), b.CreateFCmpOGT(x, f(-INFINITY)));
  r = b.CreateSelect(b.CreateAnd(finiteNegativeX, b.CreateAnd(finiteY, b.CreateNot(integralY))), f(NAN), r);
  r = b.CreateSelect(b.CreateOr(isNaN(b, x), isNaN(b, y)), b.CreateFAdd(x, y), r);
  return b.CreateSelect(b.CreateOr(b.CreateFCmpOEQ(y, f(0.0)), b.CreateFCmpOEQ(x, f(1.0))), f(1.0), r);
}

// erf_inv(y) by Giles' single-precision polynomials (the interpreter's
// starting point, before its Newton steps in double): in w = -log(1 - y^2),
// one for w < 5 (|y| below about 0.9966), one in sqrt(w) beyond; +-1 give
// +-Inf, |y| > 1 and NaN the default NaN.
llvm::Value* emitErfInvF32(llvm::IRBuilderBase& b, llvm::Value* y) {
  llvm::Value* one = f32(b, 1.0);
  llvm::Value* w = b.CreateFNeg(emitLogF32(b, b.CreateFMul(b.CreateFSub(one, y), b.CreateFAdd(one, y))));
  llvm::Value* central =
      polynomial(b, b.CreateFSub(w, f32(b, 2.5)),
                 {1.50140941f, 0.246640727f, -0.00417768164f, -0.00125372503f, 0.00021858087f, -4.39150654e-06f,
                  -3.5233877e-06f, 3.43273939e-07f, 2.81022636e-08f});
  llvm::Value* tail =
      polynomial(b, b.CreateFSub(b.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, w), f32(b, 3.0)),
                 {2.83297682f, 1.00167406f, 0.00943887047f, -0.0076224613f, 0.00573950773f, -0.00367342844f,
                  0.00134934322f, 0.000100950558f, -0.000200214257f});
  llvm::Value* r = b.CreateFMul(b.CreateSelect(b.CreateFCmpOLT(w, f32(b, 5.0)), central, tail), y);
  llvm::Value* a = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, y);
  // One Newton step on erf(r) = y below |y| = 0.9, where f32's erf still
  // resolves the residual (above, erf(r) - y cancels down to its rounding).
  llvm::Value* slope = b.CreateFMul(f32(b, 2.0 / std::sqrt(std::numbers::pi)),
                                    emitExpF32(b, b.CreateFNeg(b.CreateFMul(r, r))));
  llvm::Value* newton = b.CreateFSub(r, b.CreateFDiv(b.CreateFSub(emitErfF32(b, r), y), slope));
  r = b.CreateSelect(b.CreateFCmpOLT(a, f32(b, 0.9)), newton, r);
  r = b.CreateSelect(b.CreateFCmpOEQ(a, one),
                     b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, f32(b, INFINITY), y), r);
  return b.CreateSelect(b.CreateFCmpUGT(a, one), f32(b, NAN), r);  // also NaN inputs
}

}  // namespace kiln::cpu
