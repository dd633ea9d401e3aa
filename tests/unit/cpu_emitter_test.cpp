// The cpu back end's elemental emitter against the interpreter (the oracle).
//
// Most tests emit a whole function body as ONE kernel (its arguments are the
// kernel's parameters, its returned values the kernel's roots), JIT it, run
// it and compare with kiln::interp::runFunction: so every op is exercised
// composed with others inside one loop, as in a fusion, and a multi-result
// function is a multi-output kernel. Integers and predicates must agree
// bitwise; floats bitwise where the computation is exact or goes through the
// same double libm call, and within a stated ULP bound for the f32
// polynomial approximations (exp, log, tanh, logistic), whose accuracy is
// also measured over a dense sweep of f32 bit patterns.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <variant>
#include <random>
#include <sstream>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "kiln/backends/cpu/cpu_executable.h"
#include "kiln/backends/cpu/emitter.h"
#include "kiln/backends/cpu/jit.h"
#include "kiln/backends/cpu/math_approx.h"
#include "kiln/codegen/loops.h"
#include "kiln/interp/interpreter.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/parse/parser.h"
#include "kiln/ir/float_formats.h"
#include "tests/unit/float_compare.h"

namespace kiln {
namespace {

using interp::Tensor;

std::unique_ptr<Module> parse(const std::string& text) {
  auto module = parseModule(text, "cpu_emitter_test.mlir");
  EXPECT_TRUE(module.isOk()) << module.status().diag().str() << "\n" << text;
  return module.isOk() ? std::move(*module) : nullptr;
}

// A function's body compiled as one kernel.
struct BodyKernel {
  std::unique_ptr<cpu::KernelJit> jit;
  cpu::KernelFn fn = nullptr;
  cpu::KernelPlan plan;
  cpu::KernelForm form;
};

// The kernel computes every returned value, or only result `onlyResult`.
Expected<BodyKernel> compileBody(const Module& module, const std::string& dumpDir = {}, int onlyResult = -1,
                                 bool streamOutputs = false) {
  Operation* fn = module.lookupFunction("main");
  if (!fn) return error("no @main");
  Block& body = func::body(*fn);
  BodyKernel k;
  for (const Value* arg : body.arguments()) k.plan.params.push_back(arg);
  for (unsigned i = 0; i < body.terminator()->numOperands(); ++i)
    if (onlyResult < 0 || int(i) == onlyResult) k.plan.roots.push_back(body.terminator()->operand(i));
  k.plan.inputs = k.plan.params;
  k.plan.outputs = k.plan.roots;
  k.plan.streamOutputs = streamOutputs;
  KILN_ASSIGN_OR_RETURN(k.jit, cpu::KernelJit::create());
  k.form = cpu::kernelFormOf(k.plan);
  KILN_RETURN_IF_ERROR(cpu::emitKernel(k.plan, k.form, "body", k.jit->module()));
  cpu::JitOptions options;
  options.dumpDir = dumpDir;
  options.moduleName = "body";
  KILN_RETURN_IF_ERROR(k.jit->finalize(options));
  KILN_ASSIGN_OR_RETURN(void* address, k.jit->lookup("body"));
  k.fn = reinterpret_cast<cpu::KernelFn>(address);
  return k;
}

std::vector<Tensor> runKernel(const BodyKernel& k, const std::vector<Tensor>& args) {
  std::vector<const uint8_t*> inputs;
  for (const Tensor& t : args) inputs.push_back(t.bytes());
  std::vector<Tensor> results;
  std::vector<uint8_t*> outputs;
  for (const Value* root : k.plan.roots) results.emplace_back(root->type());
  for (Tensor& t : results) outputs.push_back(t.bytes());
  // Two halves, as two threads would run them.
  int64_t n = cpu::kernelIterations(k.form);
  k.fn(inputs.data(), outputs.data(), 0, n / 2);
  k.fn(inputs.data(), outputs.data(), n / 2, n);
  return results;
}

// Distance in steps of the format between two values of float type `t`
// given as bit patterns (0 for two NaNs).
uint64_t formatUlps(Type t, uint64_t a, uint64_t b) {
  double x = decodeFloat(t.kind(), a), y = decodeFloat(t.kind(), b);
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y) ? 0 : UINT64_MAX;
  if (x == y) return 0;
  unsigned signBit = t.bitWidth() - 1;
  auto key = [&](uint64_t bits) {
    int64_t magnitude = int64_t(bits & ((uint64_t(1) << signBit) - 1));
    return (bits >> signBit) & 1 ? -magnitude : magnitude;
  };
  int64_t d = key(a) - key(b);
  return d < 0 ? uint64_t(-d) : uint64_t(d);
}

// Compares result tensors: integers and predicates bitwise, floats within
// `maxUlp` steps of their format (0: identical, NaNs of any payload equal).
// Returns the largest float distance seen.
uint64_t expectAgree(const Tensor& cpu, const Tensor& oracle, uint64_t maxUlp, const std::string& what) {
  EXPECT_EQ(cpu.type(), oracle.type()) << what;
  if (cpu.type() != oracle.type()) return UINT64_MAX;
  Type t = cpu.elementType();
  if (t.isComplex()) {  // part by part: the parts of element i are elements 2i and 2i + 1
    std::vector<int64_t> shape = {2 * cpu.numElements()};
    Tensor cpuParts(Type::tensor(shape, t.complexElement())), oracleParts(cpuParts.type());
    std::memcpy(cpuParts.bytes(), cpu.bytes(), cpu.numElements() * t.storageBytes());
    std::memcpy(oracleParts.bytes(), oracle.bytes(), oracle.numElements() * t.storageBytes());
    return expectAgree(cpuParts, oracleParts, maxUlp, what + " (parts)");
  }
  uint64_t worst = 0;
  int failures = 0;
  for (int64_t i = 0; i < cpu.numElements(); ++i) {
    uint64_t a = cpu.getUInt(i), b = oracle.getUInt(i);
    uint64_t d = t.isFloat() ? formatUlps(t, a, b) : (a == b ? 0 : UINT64_MAX);
    worst = std::max(worst, d);
    if (d > maxUlp && failures++ < 8)
      ADD_FAILURE() << what << " (" << t.str() << ") element " << i << ": cpu bits 0x" << std::hex << a
                    << " vs interpreter 0x" << b << std::dec
                    << (t.isFloat() ? " (" + std::to_string(decodeFloat(t.kind(), a)) + " vs " +
                                          std::to_string(decodeFloat(t.kind(), b)) + ")"
                                    : std::string());
  }
  return worst;
}

// Emits @main's body as one kernel (or, with `kernelPerResult`, one kernel
// per returned value: a kernel's roots share one element count), runs it and
// the interpreter on `args`, and compares every result within `maxUlp` (see
// expectAgree).
std::vector<Tensor> runBoth(const std::string& text, const std::vector<Tensor>& args, uint64_t maxUlp = 0,
                            bool kernelPerResult = false) {
  std::unique_ptr<Module> module = parse(text);
  if (!module) return {};
  std::vector<Tensor> cpu;
  unsigned numResults = func::body(*module->lookupFunction("main")).terminator()->numOperands();
  for (unsigned r = 0; r < (kernelPerResult ? numResults : 1); ++r) {
    Expected<BodyKernel> kernel = compileBody(*module, {}, kernelPerResult ? int(r) : -1);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message() << "\n" << text;
    if (!kernel.isOk()) return {};
    for (Tensor& t : runKernel(*kernel, args)) cpu.push_back(t);
  }
  auto oracle = interp::runFunction(*module, "main", args);
  EXPECT_TRUE(oracle.isOk()) << oracle.status().message();
  if (!oracle.isOk()) return {};
  EXPECT_EQ(cpu.size(), oracle->size());
  for (size_t i = 0; i < std::min(cpu.size(), oracle->size()); ++i)
    expectAgree(cpu[i], (*oracle)[i], maxUlp, "result " + std::to_string(i));
  return cpu;
}

Type typeOf(const std::string& text) {
  Expected<Type> t = parseType(text);
  EXPECT_TRUE(t.isOk()) << text;
  return *t;
}

// A tensor of `type` holding the raw bit patterns `bits` (truncated to the storage width).
Tensor fromBits(Type type, const std::vector<uint64_t>& bits) {
  Tensor t(type);
  unsigned width = type.elementType().storageBytes();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    uint64_t v = bits[i % bits.size()];
    std::memcpy(t.bytes() + i * width, &v, width);
  }
  return t;
}

// Interesting bit patterns of element type `t`: for integers zero, +-1, the
// extremes and their neighbours, powers of two and random values (signed
// narrow types sign-extended into their byte as kiln stores them); for
// floats every pattern of an 8-bit format, and otherwise zeros, ones,
// subnormals, extremes, infinities, NaNs, and random finite values.
std::vector<uint64_t> edgeBits(Type t, size_t randomCount = 40) {
  std::mt19937_64 rng(t.bitWidth() * 7 + unsigned(t.kind()));
  unsigned bits = t.bitWidth();
  uint64_t mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
  std::vector<uint64_t> v;
  if (t.isBool()) return {0, 1};
  if (t.isFloat() && bits <= 8) {
    for (uint64_t x = 0; x <= mask; ++x) v.push_back(x);
    return v;
  }
  if (t.isInteger()) {
    uint64_t signBit = uint64_t(1) << (bits - 1);
    for (uint64_t x : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(7), mask, mask - 1, signBit,
                       signBit - 1, signBit + 1, uint64_t(bits), uint64_t(bits - 1), uint64_t(bits + 1)})
      v.push_back(x & mask);
    for (unsigned k = 0; k < bits; k += 5) v.push_back((uint64_t(1) << k) & mask);
    for (size_t i = 0; i < randomCount; ++i) v.push_back(rng() & (i % 2 ? mask : mask & 0xFF));
    if (t.isSignedInteger() && bits < 64)  // sign-extend in storage
      for (uint64_t& x : v)
        if (x & signBit) x |= ~mask;
    return v;
  }
  auto encode = [&](double x) { return encodeFloat(t.kind(), x); };
  FloatFormatInfo info = floatFormatInfo(t.kind());
  for (double x : {0.0, 1.0, 0.5, 1.5, 2.0, 3.0, 10.0, 0.1, 1e-3, 100.5, 2.5, 0.75})
    for (double s : {1.0, -1.0}) v.push_back(encode(s * x));
  for (double s : {1.0, -1.0}) {
    v.push_back(encode(s * info.maxFinite));
    v.push_back(encode(s * info.minNormal));
    v.push_back(encode(s * info.minNormal / 2));                                     // subnormal
    v.push_back(encode(s * std::ldexp(1.0, info.mantissaBits > 40 ? -1074 : -149)));  // tiny: smallest f32/f64 subnormal
    v.push_back(encode(s * std::numeric_limits<double>::infinity()));
    v.push_back(encode(s * std::numeric_limits<double>::quiet_NaN()));
  }
  for (size_t i = 0; i < randomCount; ++i) v.push_back(rng() & mask);
  return v;
}

std::string tensorType(int64_t n, const std::string& element) {
  return "tensor<" + std::to_string(n) + "x" + element + ">";
}

// --- Element types --------------------------------------------------------------------

const std::vector<std::string> kIntTypes = {"i2", "i4", "i8", "i16", "i32", "i64", "ui2", "ui4", "ui8", "ui16", "ui32", "ui64"};

// All-pairs inputs: x[i * n + j] = a[i], y[i * n + j] = a[j].
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> allPairs(const std::vector<uint64_t>& a) {
  std::vector<uint64_t> x, y;
  for (uint64_t p : a)
    for (uint64_t q : a) x.push_back(p), y.push_back(q);
  return {x, y};
}

TEST(CpuEmitter, IntegerOpsEveryWidthSignedAndUnsigned) {
  const std::vector<std::string> binary = {"add", "subtract", "multiply", "divide", "remainder", "maximum",
                                           "minimum", "and", "or", "xor", "shift_left", "shift_right_logical",
                                           "shift_right_arithmetic", "power"};
  const std::vector<std::string> unary = {"negate", "abs", "sign", "not", "popcnt", "count_leading_zeros"};
  for (const std::string& e : kIntTypes) {
    SCOPED_TRACE(e);
    auto [xs, ys] = allPairs(edgeBits(typeOf(e), 20));
    int64_t n = int64_t(xs.size());
    std::string ty = tensorType(n, e), pty = tensorType(n, "i1");
    std::ostringstream body, results, types;
    int k = 0;
    auto result = [&](const std::string& value, const std::string& type) {
      results << (k ? ", " : "") << value;
      types << (k++ ? ", " : "") << type;
    };
    for (const std::string& op : binary) {
      body << "  %" << op << " = stablehlo." << op << " %x, %y : " << ty << "\n";
      result("%" + op, ty);
    }
    for (const std::string& op : unary) {
      body << "  %" << op << " = stablehlo." << op << " %x : " << ty << "\n";
      result("%" + op, ty);
    }
    for (const char* dir : {"LT", "GE", "EQ", "NE"}) {
      body << "  %c" << dir << " = stablehlo.compare " << dir << ", %x, %y : (" << ty << ", " << ty << ") -> " << pty << "\n";
      result(std::string("%c") + dir, pty);
    }
    body << "  %sel = stablehlo.select %cLT, %x, %y : " << pty << ", " << ty << "\n";
    result("%sel", ty);
    std::string text = "func.func @main(%x: " + ty + ", %y: " + ty + ") -> (" + types.str() + ") {\n" + body.str() +
                       "  return " + results.str() + " : " + types.str() + "\n}\n";
    runBoth(text, {fromBits(typeOf(ty), xs), fromBits(typeOf(ty), ys)});
  }
}

TEST(CpuEmitter, PredicateLogic) {
  std::string text = R"(
func.func @main(%x: tensor<4xi1>, %y: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = stablehlo.and %x, %y : tensor<4xi1>
  %1 = stablehlo.or %x, %y : tensor<4xi1>
  %2 = stablehlo.xor %x, %y : tensor<4xi1>
  %3 = stablehlo.not %x : tensor<4xi1>
  %4 = stablehlo.add %x, %y : tensor<4xi1>
  %5 = stablehlo.multiply %x, %y : tensor<4xi1>
  %6 = stablehlo.maximum %x, %y : tensor<4xi1>
  %7 = stablehlo.compare LT, %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %8 = stablehlo.compare GE, %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
})";
  runBoth(text, {fromBits(typeOf("tensor<4xi1>"), {0, 0, 1, 1}), fromBits(typeOf("tensor<4xi1>"), {0, 1, 0, 1})});
}

// Every convertible element type, to and from every other.
const std::vector<std::string> kConvertTypes = {
    "i1",   "i8",       "i16",      "i32",        "i64",    "ui8",           "ui16",
    "ui32", "ui64",     "bf16",     "f16",        "f32",    "f64",           "f8E4M3FN",
    "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3", "f8E3M4", "f8E4M3B11FNUZ", "f6E2M3FN",
    "f6E3M2FN", "f4E2M1FN", "i2",     "i4",   "ui2",      "ui4"};

TEST(CpuEmitter, ConvertBetweenAllTypesIsExact) {
  for (const std::string& from : kConvertTypes) {
    SCOPED_TRACE("from " + from);
    Type fromType = typeOf(from);
    std::vector<uint64_t> bits = edgeBits(fromType, 200);
    if (fromType.isFloat()) {  // values around every target's rounding boundaries
      std::mt19937_64 rng(5);
      std::uniform_real_distribution<double> u(-1.0, 1.0);
      for (int i = 0; i < 400; ++i) bits.push_back(encodeFloat(fromType.kind(), std::ldexp(u(rng), int(rng() % 40) - 20)));
      for (int i = 0; i < 300; ++i) bits.push_back(encodeFloat(fromType.kind(), std::ldexp(u(rng), int(rng() % 300) - 150)));
    }
    int64_t n = int64_t(bits.size());
    std::string ty = tensorType(n, from);
    std::ostringstream body, results, types;
    for (size_t k = 0; k < kConvertTypes.size(); ++k) {
      std::string to = tensorType(n, kConvertTypes[k]);
      body << "  %" << k << " = stablehlo.convert %x : (" << ty << ") -> " << to << "\n";
      results << (k ? ", %" : "%") << k;
      types << (k ? ", " : "") << to;
    }
    std::string text = "func.func @main(%x: " + ty + ") -> (" + types.str() + ") {\n" + body.str() + "  return " +
                       results.str() + " : " + types.str() + "\n}\n";
    runBoth(text, {fromBits(typeOf(ty), bits)});
  }
}

// Narrow floats compute in f32 and round after each op: for + - * / sqrt the
// result is the correctly rounded one the interpreter gets from double; a
// libm function (cbrt) rounds once from double to the format.
TEST(CpuEmitter, NarrowFloatArithmeticIsCorrectlyRounded) {
  for (const std::string& e : {std::string("bf16"), std::string("f16")}) {
    SCOPED_TRACE(e);
    // Every bit pattern, paired with a shuffled copy of them all.
    std::vector<uint64_t> x(65536), y;
    for (uint64_t i = 0; i < x.size(); ++i) x[i] = i;
    y = x;
    std::shuffle(y.begin(), y.end(), std::mt19937_64(1));
    std::string ty = tensorType(65536, e), pty = tensorType(65536, "i1");
    std::string text = "func.func @main(%x: " + ty + ", %y: " + ty + ") -> (" + ty + ", " + ty + ", " + ty + ", " + ty +
                       ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + pty +
                       ", " + pty + ", " + ty + ", " + ty + ") {\n"
                       "  %0 = stablehlo.add %x, %y : " + ty + "\n"
                       "  %1 = stablehlo.subtract %x, %y : " + ty + "\n"
                       "  %2 = stablehlo.multiply %x, %y : " + ty + "\n"
                       "  %3 = stablehlo.divide %x, %y : " + ty + "\n"
                       "  %4 = stablehlo.sqrt %x : " + ty + "\n"
                       "  %5 = stablehlo.maximum %x, %y : " + ty + "\n"
                       "  %6 = stablehlo.floor %x : " + ty + "\n"
                       "  %7 = stablehlo.round_nearest_afz %x : " + ty + "\n"
                       "  %8 = stablehlo.round_nearest_even %x : " + ty + "\n"
                       "  %9 = stablehlo.sign %x : " + ty + "\n"
                       "  %10 = stablehlo.remainder %x, %y : " + ty + "\n"
                       "  %11 = stablehlo.compare LT, %x, %y : (" + ty + ", " + ty + ") -> " + pty + "\n"
                       "  %12 = stablehlo.is_finite %x : (" + ty + ") -> " + pty + "\n"
                       "  %13 = stablehlo.cbrt %x : " + ty + "\n"
                       "  %14 = stablehlo.multiply %0, %3 : " + ty + "\n"
                       "  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : " + ty + ", " + ty + ", " + ty +
                       ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + ty + ", " + pty +
                       ", " + pty + ", " + ty + ", " + ty + "\n}\n";
    runBoth(text, {fromBits(typeOf(ty), x), fromBits(typeOf(ty), y)});
  }
}

// An f32 rounded to bf16 and widened again inside one kernel (the value
// stays in a register): ties to even, carries into the exponent and up to
// Inf, subnormals, and NaNs, which must stay NaNs when only their low half
// is set (rounding their bits alone would make them Inf).
TEST(CpuEmitter, Bf16RoundTripInARegister) {
  std::vector<uint64_t> bits = {0x7F800001, 0xFF800001, 0x7FC00001, 0x7F80FFFF, 0xFFFFFFFF, 0x7F7FFFFF,
                                0x7F7F8000, 0x7F7F7FFF, 0x00008000, 0x00018000, 0x80007FFF, 0x3F808000,
                                0x3F818000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000};
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099) bits.push_back(u);
  std::string ty = tensorType(int64_t(bits.size()), "f32"), narrow = tensorType(int64_t(bits.size()), "bf16");
  std::string text = "func.func @main(%x: " + ty + ") -> (" + ty + ", " + ty + ") {\n"
                     "  %0 = stablehlo.convert %x : (" + ty + ") -> " + narrow + "\n"
                     "  %1 = stablehlo.convert %0 : (" + narrow + ") -> " + ty + "\n"
                     "  %2 = stablehlo.exponential %0 : " + narrow + "\n"
                     "  %3 = stablehlo.convert %2 : (" + narrow + ") -> " + ty + "\n"
                     "  return %1, %3 : " + ty + ", " + ty + "\n}\n";
  runBoth(text, {fromBits(typeOf(ty), bits)});
}

TEST(CpuEmitter, F8ArithmeticAllPairs) {
  for (const std::string& e : {std::string("f8E4M3FN"), std::string("f8E5M2"), std::string("f8E4M3FNUZ")}) {
    SCOPED_TRACE(e);
    std::vector<uint64_t> all(256);
    for (uint64_t i = 0; i < 256; ++i) all[i] = i;
    auto [x, y] = allPairs(all);
    std::string ty = tensorType(65536, e);
    std::string text = "func.func @main(%x: " + ty + ", %y: " + ty + ") -> (" + ty + ", " + ty + ", " + ty + ") {\n"
                       "  %0 = stablehlo.add %x, %y : " + ty + "\n"
                       "  %1 = stablehlo.multiply %x, %y : " + ty + "\n"
                       "  %2 = stablehlo.divide %x, %y : " + ty + "\n"
                       "  return %0, %1, %2 : " + ty + ", " + ty + ", " + ty + "\n}\n";
    runBoth(text, {fromBits(typeOf(ty), x), fromBits(typeOf(ty), y)});
  }
}

// Math that goes through libm in double (f32 too, and f64 for all math) and
// the exact float ops agree bitwise.
TEST(CpuEmitter, FloatMathBitwiseWhereExactOrLibm) {
  for (const std::string& e : {std::string("f32"), std::string("f64")}) {
    SCOPED_TRACE(e);
    auto [x, y] = allPairs(edgeBits(typeOf(e), 30));
    int64_t n = int64_t(x.size());
    std::string ty = tensorType(n, e), pty = tensorType(n, "i1");
    std::vector<std::string> unary = {"cbrt",
                                      "rsqrt", "sqrt", "floor", "ceil", "round_nearest_afz", "round_nearest_even",
                                      "sign", "abs", "negate"};
    std::vector<std::string> binary = {"atan2", "remainder", "add", "subtract", "multiply", "divide",
                                       "maximum", "minimum"};
    if (e == "f64") binary.push_back("power");  // f32's: F32PowerWithinOneUlp
    // f32's are approximated (F32ApproximationsDenseSweep).
    if (e == "f64")
      unary.insert(unary.end(), {"exponential", "exponential_minus_one", "log", "log_plus_one", "tanh", "logistic",
                                 "sine", "cosine", "tan"});
    std::ostringstream body, results, types;
    int k = 0;
    auto result = [&](const std::string& value, const std::string& type) {
      results << (k ? ", " : "") << value;
      types << (k++ ? ", " : "") << type;
    };
    std::vector<std::string> chlo = {"acos", "acosh", "asin", "asinh", "atan", "atanh", "cosh", "sinh"};
    if (e == "f64") chlo.insert(chlo.end(), {"erf", "erfc"});  // f32's are approximated, see below
    for (const std::string& op : chlo) {
      body << "  %" << op << " = chlo." << op << " %x : " << ty << " -> " << ty << "\n";
      result("%" + op, ty);
    }
    for (auto [exponent, mantissa] : {std::pair{5, 10}, std::pair{8, 7}, std::pair{4, 3}, std::pair{11, 52}}) {
      std::string name = "%rp" + std::to_string(exponent) + "_" + std::to_string(mantissa);
      body << "  " << name << " = stablehlo.reduce_precision %x, format = e" << exponent << "m" << mantissa << " : " << ty << "\n";
      result(name, ty);
    }
    std::string bits = e == "f32" ? tensorType(n, "i32") : tensorType(n, "ui64");
    body << "  %bits = stablehlo.bitcast_convert %x : (" << ty << ") -> " << bits << "\n";
    result("%bits", bits);
    for (const std::string& op : unary) {
      body << "  %" << op << " = stablehlo." << op << " %x : " << ty << "\n";
      result("%" + op, ty);
    }
    for (const std::string& op : binary) {
      body << "  %" << op << " = stablehlo." << op << " %x, %y : " << ty << "\n";
      result("%" + op, ty);
    }
    body << "  %fin = stablehlo.is_finite %x : (" << ty << ") -> " << pty << "\n";
    result("%fin", pty);
    body << "  %tot = stablehlo.compare LT, %x, %y, TOTALORDER : (" << ty << ", " << ty << ") -> " << pty << "\n";
    result("%tot", pty);
    body << "  %ne = stablehlo.compare NE, %x, %y : (" << ty << ", " << ty << ") -> " << pty << "\n";
    result("%ne", pty);
    std::string text = "func.func @main(%x: " + ty + ", %y: " + ty + ") -> (" + types.str() + ") {\n" + body.str() +
                       "  return " + results.str() + " : " + types.str() + "\n}\n";
    runBoth(text, {fromBits(typeOf(ty), x), fromBits(typeOf(ty), y)});
  }
}

// --- Polynomial approximations ------------------------------------------------------

// The largest errors (in f32 ULPs, against the double result rounded once)
// measured over the sweep below; the tests pin these bounds. (XLA:CPU's
// tanh: 5 ULP over the same inputs.)
constexpr uint64_t kExpUlp = 1, kLogUlp = 1, kTanhUlp = 2, kLogisticUlp = 2, kErfUlp = 1;
constexpr uint64_t kLog1pUlp = 2;  // through log and a quotient
constexpr uint64_t kExpm1Ulp = 1;  // tanh's fused step, without its quotient
// Softmax over rows of 1024 (exp, a sum, a division), against softmax in
// double (measured: 5; the interpreter's in-order sums: 29).
constexpr uint64_t kSoftmaxUlp = 5;
constexpr uint64_t kErfInvUlp = 3;
// Evaluated in double and rounded once (sin, cos, tan: libm from 2^24 on).
constexpr uint64_t kSinUlp = 1, kCosUlp = 1, kTanUlp = 1;
// erfc is evaluated in f32 lanes (a fit times e^(-x^2), see emitErfcF32), for
// speed: the exact gelu runs through it. 4 ULP is the documented bound
// (XLA:CPU's f32 erf is a rational approximation too); it was 1 ULP when
// erfc was evaluated in double lanes.
constexpr uint64_t kErfcUlp = 4;

struct Approximation {
  const char* op;
  double (*reference)(double);  // what the interpreter computes (in double)
  uint64_t maxUlp;
};
const Approximation kApproximations[] = {
    {"stablehlo.exponential", [](double x) { return std::exp(x); }, kExpUlp},
    {"stablehlo.exponential_minus_one", [](double x) { return std::expm1(x); }, kExpm1Ulp},
    {"stablehlo.log", [](double x) { return std::log(x); }, kLogUlp},
    {"stablehlo.log_plus_one", [](double x) { return std::log1p(x); }, kLog1pUlp},
    {"stablehlo.tanh", [](double x) { return std::tanh(x); }, kTanhUlp},
    {"stablehlo.logistic", [](double x) { return 1 / (1 + std::exp(-x)); }, kLogisticUlp},
    {"chlo.erf", [](double x) { return std::erf(x); }, kErfUlp},
    {"chlo.erf_inv", interp::erfInv, kErfInvUlp},
    {"stablehlo.sine", [](double x) { return std::sin(x); }, kSinUlp},
    {"stablehlo.cosine", [](double x) { return std::cos(x); }, kCosUlp},
    {"stablehlo.tan", [](double x) { return std::tan(x); }, kTanUlp},
    {"chlo.erfc", [](double x) { return std::erfc(x); }, kErfcUlp},
};

// @main applying approximation `a` to a tensor of type `ty`.
std::string unaryProgram(const Approximation& a, const std::string& ty) {
  std::string op = std::string(a.op) + " %x : " + (std::string(a.op).starts_with("chlo.") ? ty + " -> " + ty : ty);
  return "func.func @main(%x: " + ty + ") -> " + ty + " {\n  %0 = " + op + "\n  return %0 : " + ty + "\n}\n";
}

// Every 61st f32 bit pattern (70 million inputs: every binade, both signs,
// subnormals, infinities, NaNs) plus the special values, against the
// interpreter's formula evaluated here; the interpreter itself checks the
// special values and a sample.
TEST(CpuEmitter, F32ApproximationsDenseSweep) {
  constexpr uint64_t kStep = 61;
  const int64_t n = int64_t((uint64_t(1) << 32) / kStep) + 1;
  std::vector<uint64_t> bits;
  bits.reserve(n + 16);
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += kStep) bits.push_back(b);
  for (float special : {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.72284f, -87.33654f, -103.97208f, -104.0f, 9.0f,
                        0.625f, -0.625f, 1e-45f, 16777215.0f, 16777216.0f, 1.5707964f, 88.7f, 88.72283f, -17.5f, -17.6f, std::numeric_limits<float>::infinity(),
                        -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()})
    bits.push_back(std::bit_cast<uint32_t>(special));
  std::string ty = tensorType(int64_t(bits.size()), "f32");
  Tensor input = fromBits(typeOf(ty), bits);
  for (const Approximation& a : kApproximations) {
    SCOPED_TRACE(a.op);
    std::unique_ptr<Module> module = parse(unaryProgram(a, ty));
    ASSERT_TRUE(module);
    Expected<BodyKernel> kernel = compileBody(*module);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    Tensor cpu = runKernel(*kernel, {input})[0];
    const float* in = reinterpret_cast<const float*>(input.bytes());
    const float* out = reinterpret_cast<const float*>(cpu.bytes());
    uint64_t worst = 0;
    float worstAt = 0;
    for (int64_t i = 0; i < input.numElements(); ++i) {
      float expected = float(a.reference(double(in[i])));
      uint64_t d = testing::ulpDistance(out[i], expected, /*isF32=*/true);
      if (d > worst) worst = d, worstAt = in[i];
    }
    std::cout << "[ measured ] " << a.op << ": max " << worst << " ulp (at x = " << worstAt << ") over "
              << input.numElements() << " f32 inputs\n";
    EXPECT_LE(worst, a.maxUlp) << "at x = " << worstAt;
  }
}

// f32 power against C's pow in double rounded once (the interpreter's):
// every pair of special and edge values (zeros, +-1, infinities, NaN, odd
// and even integers, halves, 2^24, subnormals: pow's special cases) and
// random pairs whose results span f32's range, overflow and underflow.
TEST(CpuEmitter, F32PowerWithinOneUlp) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> edges = {0.0f, -0.0f, 1.0f, -1.0f, 2.0f, -2.0f, 0.5f, -0.5f, 3.0f, -3.0f, 1.5f, -1.5f,
                              0.3f, 10.0f, -7.0f, 16777216.0f, -16777215.0f, 1e-40f, -1e-45f, 1e30f, -1e30f,
                              1.0000001f, 0.99999994f, 128.0f, -149.0f, kInf, -kInf,
                              std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint64_t> xs, ys;
  for (float x : edges)
    for (float y : edges) xs.push_back(std::bit_cast<uint32_t>(x)), ys.push_back(std::bit_cast<uint32_t>(y));
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> exponent(-60.0f, 60.0f), power(-12.0f, 12.0f);
  for (int i = 0; i < 200000; ++i) {
    float x = std::exp2(exponent(rng)) * (i % 5 == 0 ? -1.0f : 1.0f);
    float y = i % 3 == 0 ? std::round(power(rng)) : power(rng);
    if (i % 7 == 0) y *= 20.0f;  // results beyond f32's range and subnormal ones
    xs.push_back(std::bit_cast<uint32_t>(x));
    ys.push_back(std::bit_cast<uint32_t>(y));
  }
  std::string ty = tensorType(int64_t(xs.size()), "f32");
  std::unique_ptr<Module> module = parse("func.func @main(%x: " + ty + ", %y: " + ty + ") -> " + ty +
                                         " {\n  %0 = stablehlo.power %x, %y : " + ty + "\n  return %0 : " + ty +
                                         "\n}\n");
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  Tensor x = fromBits(typeOf(ty), xs), y = fromBits(typeOf(ty), ys);
  Tensor cpu = runKernel(*kernel, {x, y})[0];
  const float* out = reinterpret_cast<const float*>(cpu.bytes());
  uint64_t worst = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    float a = std::bit_cast<float>(uint32_t(xs[i])), b = std::bit_cast<float>(uint32_t(ys[i]));
    float expected = float(std::pow(double(a), double(b)));
    uint64_t d = testing::ulpDistance(out[i], expected, /*isF32=*/true);
    worst = std::max(worst, d);
    EXPECT_LE(d, 1u) << "pow(" << a << ", " << b << ") = " << out[i] << ", want " << expected;
  }
  std::cout << "[ measured ] stablehlo.power: max " << worst << " ulp over " << xs.size() << " f32 pairs\n";
}

TEST(CpuEmitter, ApproximationsAgainstInterpreter) {
  std::vector<uint64_t> bits = edgeBits(typeOf("f32"), 2000);
  for (float v = -110; v < 100; v += 0.37f) bits.push_back(std::bit_cast<uint32_t>(v));
  int64_t n = int64_t(bits.size());
  for (const std::string& e : {std::string("f32"), std::string("bf16"), std::string("f16")}) {
    SCOPED_TRACE(e);
    std::string ty = tensorType(n, e);
    Tensor x(typeOf(ty));
    for (int64_t i = 0; i < n; ++i) x.setFloat(i, double(std::bit_cast<float>(uint32_t(bits[i]))));
    for (const Approximation& a : kApproximations) {
      SCOPED_TRACE(a.op);
      // bf16 and f16 round the f32 approximation once more: at most one step off.
      runBoth(unaryProgram(a, ty), {x}, e == "f32" ? a.maxUlp : 1);
    }
  }
}

// The optimized IR of @main's body emitted as one kernel.
// The kernel's LLVM IR as dumped after LLVM's optimization (or, with
// `optimized` false, as the emitter wrote it).
std::string optimizedIr(const std::string& text, const std::string& name, bool optimized = true,
                        bool streamOutputs = false) {
  std::string dir = ::testing::TempDir() + "/cpu_emitter_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::unique_ptr<Module> module = parse(text);
  if (!module) return {};
  Expected<BodyKernel> kernel = compileBody(*module, dir, -1, streamOutputs);
  EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
  std::string ir;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string path = entry.path().string();
    if (path.ends_with(".opt.ll") == optimized && path.ends_with(".ll")) {
      std::ifstream in(entry.path());
      ir.assign(std::istreambuf_iterator<char>(in), {});
    }
  }
  EXPECT_FALSE(ir.empty()) << "no IR dumped in " << dir;
  return ir;
}

// Calls left in `ir` must be LLVM intrinsics (roundeven, fabs...), no library function.
void expectNoLibraryCalls(const std::string& ir) {
  for (const char* call : {"call float @", "call double @", "call <"})
    for (size_t at = ir.find(call); at != std::string::npos; at = ir.find(call, at + 1)) {
      std::string callee = ir.substr(at, ir.find('(', at) - at);
      EXPECT_NE(callee.find("@llvm."), std::string::npos) << "a library call is left: " << callee;
    }
}

TEST(CpuEmitter, ApproximationsVectorize) {
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = stablehlo.exponential %x : tensor<1024xf32>
  %1 = stablehlo.log %0 : tensor<1024xf32>
  %2 = stablehlo.tanh %1 : tensor<1024xf32>
  %3 = stablehlo.logistic %2 : tensor<1024xf32>
  %4 = chlo.erf %3 : tensor<1024xf32> -> tensor<1024xf32>
  %5 = stablehlo.log_plus_one %4 : tensor<1024xf32>
  %6 = chlo.erfc %5 : tensor<1024xf32> -> tensor<1024xf32>
  %7 = stablehlo.exponential_minus_one %6 : tensor<1024xf32>
  return %7 : tensor<1024xf32>
})", "approximations");
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "the loop was not vectorized";
  expectNoLibraryCalls(ir);
}

// sin, cos and tan widen to their vector bodies (reduced and evaluated in
// double lanes); libm is called only on the branch for lanes from 2^24 on.
TEST(CpuEmitter, TrigVectorizesWithLibmOnlyForLargeLanes) {
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {
  %0 = stablehlo.sine %x : tensor<1024xf32>
  %1 = stablehlo.cosine %0 : tensor<1024xf32>
  %2 = stablehlo.tan %1 : tensor<1024xf32>
  return %2 : tensor<1024xf32>
})", "trig");
  EXPECT_NE(ir.find(" x double> @llvm.fma"), std::string::npos) << "the loop was not vectorized";
  for (const char* libm : {"@sin(", "@cos(", "@tan("}) {
    size_t call = ir.find(std::string("call double ") + libm);
    ASSERT_NE(call, std::string::npos) << libm << " has no slow-lane call";
    // The call's block (the last label line before it) is a slow-lane call.
    size_t label = call;
    do label = ir.rfind('\n', label - 1);
    while (label != std::string::npos && label > 0 && ir[label + 1] == ' ');
    EXPECT_EQ(ir.compare(label + 1, 9, "trig.call"), 0) << libm << " is called outside the slow branch";
  }
}

// codegen::emitCarryingLoop: a loop that carries values runs at least once,
// steps its counter, and returns what its last iteration produced -- here
// the sum and the largest of x[0], x[step], ... below n, and the count.
TEST(CpuEmitter, CarryingLoopFoldsValues) {
  Expected<std::unique_ptr<cpu::KernelJit>> jit = cpu::KernelJit::create();
  ASSERT_TRUE(jit.isOk());
  llvm::Module& m = (*jit)->module();
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  // void fold(const int64_t* x, int64_t n, int64_t* out): out = {sum, max, count}.
  auto* fn = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty(), b.getPtrTy()}, false),
      llvm::Function::ExternalLinkage, "fold", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  constexpr int64_t kStep = 3;
  codegen::CarryingLoop loop{"fold", "folded", "i", b.getInt64(0), fn->getArg(1), kStep};
  loop.carried = {{b.getInt64(0), "sum"}, {b.getInt64(INT64_MIN), "max"}, {b.getInt64(0), "count"}};
  Expected<std::vector<llvm::Value*>> last = codegen::emitCarryingLoop(
      b, loop, [&](llvm::Value* i, const std::vector<llvm::Value*>& carried) -> Expected<std::vector<llvm::Value*>> {
        llvm::Value* x = b.CreateLoad(b.getInt64Ty(), b.CreateGEP(b.getInt64Ty(), fn->getArg(0), i));
        return std::vector<llvm::Value*>{b.CreateAdd(carried[0], x),
                                         b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, carried[1], x),
                                         b.CreateAdd(carried[2], b.getInt64(1))};
      });
  ASSERT_TRUE(last.isOk()) << last.status().message();
  for (size_t k = 0; k < 3; ++k)
    b.CreateStore((*last)[k], b.CreateGEP(b.getInt64Ty(), fn->getArg(2), b.getInt64(int64_t(k))));
  b.CreateRetVoid();
  ASSERT_TRUE((*jit)->finalize({}).isOk());
  Expected<void*> address = (*jit)->lookup("fold");
  ASSERT_TRUE(address.isOk());
  auto fold = reinterpret_cast<void (*)(const int64_t*, int64_t, int64_t*)>(*address);
  std::vector<int64_t> x = {5, -2, 7, 40, 1, -9, 3, 8, 11, -4};
  for (int64_t n = 1; n <= int64_t(x.size()); ++n) {
    int64_t expected[3] = {0, INT64_MIN, 0};
    for (int64_t i = 0; i < n; i += kStep) expected[0] += x[i], expected[1] = std::max(expected[1], x[i]), ++expected[2];
    int64_t out[3] = {};
    fold(x.data(), n, out);
    EXPECT_EQ(std::vector<int64_t>(out, out + 3), std::vector<int64_t>(expected, expected + 3)) << "n = " << n;
  }
}

// exp's scale by 2^n (emitScaleF32) on a host without AVX-512 (here forced:
// defineVectorizableFunctions is told so): the 8-lane variant's two multiplies give
// ldexp's correctly rounded result, subnormals included, and pass a NaN on;
// the normal-result variant's one multiply is exact where results are normal.
TEST(CpuEmitter, ScaleByPowerOfTwoWithoutAvx512) {
  Expected<std::unique_ptr<cpu::KernelJit>> jit = cpu::KernelJit::create();
  ASSERT_TRUE(jit.isOk());
  llvm::Module& m = (*jit)->module();
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* ptr = b.getPtrTy();
  auto* vec = llvm::FixedVectorType::get(b.getFloatTy(), 8);
  // scale8 and scale8normal: out = x * 2^n over 8 lanes, by either function.
  for (bool normal : {false, true}) {
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false),
                                      llvm::Function::ExternalLinkage, normal ? "scale8normal" : "scale8", m);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
    cpu::emitScaleF32(b, llvm::ConstantFP::get(b.getFloatTy(), 1.0), llvm::ConstantFP::get(b.getFloatTy(), 0.0), normal);
    llvm::Value* x = b.CreateAlignedLoad(vec, fn->getArg(0), llvm::Align(4));
    llvm::Value* n = b.CreateAlignedLoad(vec, fn->getArg(1), llvm::Align(4));
    llvm::Function* variant = m.getFunction(normal ? "kiln_scale_normal_f32_v8" : "kiln_scale_f32_v8");
    b.CreateAlignedStore(b.CreateCall(variant, {x, n}), fn->getArg(2), llvm::Align(4));
    b.CreateRetVoid();
  }
  cpu::defineVectorizableFunctions(m, /*avx512f=*/false, /*avx512vl=*/false);
  ASSERT_TRUE((*jit)->finalize({}).isOk());
  using Scale = void (*)(const float*, const float*, float*);
  Expected<void*> any = (*jit)->lookup("scale8"), normal = (*jit)->lookup("scale8normal");
  ASSERT_TRUE(any.isOk() && normal.isOk());

  std::mt19937 rng(5);
  std::uniform_real_distribution<float> mantissa(0.5f, 2.0f);
  int checked = 0;
  for (int k = -160; k <= 130; k += 1) {
    float xs[8], ns[8], out[8];
    for (int i = 0; i < 8; ++i) xs[i] = mantissa(rng), ns[i] = float(k + (i % 3) - 1);
    xs[7] = std::numeric_limits<float>::quiet_NaN(), ns[7] = std::numeric_limits<float>::quiet_NaN();
    reinterpret_cast<Scale>(*any)(xs, ns, out);
    for (int i = 0; i < 7; ++i, ++checked)
      EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(std::ldexp(xs[i], int(ns[i]))))
          << xs[i] << " * 2^" << ns[i];
    EXPECT_TRUE(std::isnan(out[7]));
    if (k < -124 || k > 125) continue;  // the normal-result variant: results stay normal
    reinterpret_cast<Scale>(*normal)(xs, ns, out);
    for (int i = 0; i < 7; ++i)
      EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(std::ldexp(xs[i], int(ns[i]))))
          << "normal: " << xs[i] << " * 2^" << ns[i];
  }
  EXPECT_EQ(checked, 291 * 7);
}

// Element loops are marked free of loop-carried memory dependences, so they
// vectorize without runtime alias checks: an output computed in place over
// an input (a donated argument, an arena slot) keeps the vector loop instead
// of falling back to the scalar one.
TEST(CpuEmitter, ElementLoopsVectorizeWithoutAliasChecks) {
  std::string ir = optimizedIr(R"(
func.func @main(%p: tensor<4096xf32>, %g: tensor<4096xf32>) -> tensor<4096xf32> {
  %lr = stablehlo.constant dense<0.125> : tensor<4096xf32>
  %s = stablehlo.multiply %g, %lr : tensor<4096xf32>
  %n = stablehlo.subtract %p, %s : tensor<4096xf32>
  return %n : tensor<4096xf32>
})", "parallel");
  EXPECT_NE(ir.find("llvm.loop.parallel_accesses"), std::string::npos);
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "the loop was not vectorized";
  EXPECT_EQ(ir.find("memcheck"), std::string::npos) << "runtime alias checks are left";
  // Four vectors side by side (kElementInterleave), whatever LLVM's cost model would pick.
  std::string emitted = optimizedIr(R"(
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = stablehlo.tanh %x : tensor<4096xf32>
  return %0 : tensor<4096xf32>
})", "interleaved", false);
  EXPECT_NE(emitted.find("!\"llvm.loop.interleave.count\", i32 4}"), std::string::npos);
}

// A short element loop body with more values live at once than four chains
// of them fit in 32 vector registers (the exact gelu: 0.5x kept across the
// f32 erfc) works on two vectors side by side, not four: four spilled
// temporaries to the stack (emitter.cpp, elementInterleave). A long body (a
// chain of eight approximations) keeps four. The boundary is checked on k
// products x * c_i that a sum and a product of them both read, so that all
// k are live at once, with x: k + 1 values.
TEST(CpuEmitter, CrowdedShortElementLoopsInterleaveTwo) {
  auto interleave = [](const std::string& ir) -> int {
    const std::string key = "!\"llvm.loop.interleave.count\", i32 ";
    size_t at = ir.find(key);
    if (at == std::string::npos) return -1;
    EXPECT_EQ(ir.find(key, at + 1), std::string::npos) << "more than one element loop";
    return std::stoi(ir.substr(at + key.size()));
  };
  std::string gelu = optimizedIr(R"(
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %half = stablehlo.constant dense<5.000000e-01> : tensor<4096xf32>
  %scale = stablehlo.constant dense<0.707106769> : tensor<4096xf32>
  %0 = stablehlo.multiply %half, %x : tensor<4096xf32>
  %1 = stablehlo.negate %x : tensor<4096xf32>
  %2 = stablehlo.multiply %1, %scale : tensor<4096xf32>
  %3 = chlo.erfc %2 : tensor<4096xf32> -> tensor<4096xf32>
  %4 = stablehlo.multiply %0, %3 : tensor<4096xf32>
  return %4 : tensor<4096xf32>
})", "gelu_exact", false);
  EXPECT_EQ(interleave(gelu), 2);
  std::string approximations = optimizedIr(R"(
func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {
  %0 = stablehlo.exponential %x : tensor<4096xf32>
  %1 = stablehlo.log %0 : tensor<4096xf32>
  %2 = stablehlo.tanh %1 : tensor<4096xf32>
  %3 = stablehlo.logistic %2 : tensor<4096xf32>
  %4 = chlo.erf %3 : tensor<4096xf32> -> tensor<4096xf32>
  %5 = stablehlo.log_plus_one %4 : tensor<4096xf32>
  %6 = chlo.erfc %5 : tensor<4096xf32> -> tensor<4096xf32>
  %7 = stablehlo.exponential_minus_one %6 : tensor<4096xf32>
  return %7 : tensor<4096xf32>
})", "long_body", false);
  EXPECT_EQ(interleave(approximations), 4);
  for (int k : {7, 8}) {
    std::string text = "func.func @main(%x: tensor<4096xf32>) -> tensor<4096xf32> {\n";
    auto line = [&](const std::string& name, const std::string& rhs) {
      text += "  " + name + " = " + rhs + " : tensor<4096xf32>\n";
    };
    for (int i = 0; i < k; ++i) {
      line("%c" + std::to_string(i), "stablehlo.constant dense<" + std::to_string(i + 2) + ".5>");
      line("%v" + std::to_string(i), "stablehlo.multiply %x, %c" + std::to_string(i));
    }
    std::string sum = "%v0", product = "%v0";
    for (int i = 1; i < k; ++i) {
      line("%a" + std::to_string(i), "stablehlo.add " + sum + ", %v" + std::to_string(i));
      sum = "%a" + std::to_string(i);
    }
    for (int i = 1; i < k; ++i) {
      line("%m" + std::to_string(i), "stablehlo.multiply " + product + ", %v" + std::to_string(i));
      product = "%m" + std::to_string(i);
    }
    line("%r", "stablehlo.subtract " + sum + ", " + product);
    text += "  return %r : tensor<4096xf32>\n}";
    // k + 1 live: four chains need 4k + 4 registers, more than 32 from k = 8.
    EXPECT_EQ(interleave(optimizedIr(text, "live_" + std::to_string(k), false)), k >= 8 ? 2 : 4) << k << " products";
  }
}

// Short rows under a broadcast -- a value per matrix of a batch of small
// matrices, as JAX selects NaN after a batched Cholesky -- still vectorize:
// the row loop is kept from LLVM's full unroll (which made 16 scalar
// selects of it), and trailing dims shorter than a vector are one row.
TEST(CpuEmitter, ShortRowsUnderBroadcastsVectorize) {
  for (const char* shape : {"64x16x16", "256x4x4"}) {
    std::string batch = std::string(shape).substr(0, std::string(shape).find('x'));
    std::string text = R"(
func.func @main(%ok: tensor<BATCHxi1>, %x: tensor<SHAPExf32>) -> tensor<SHAPExf32> {
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<SHAPExf32>
  %b = stablehlo.broadcast_in_dim %ok, dims = [0] : (tensor<BATCHxi1>) -> tensor<SHAPExi1>
  %y = stablehlo.select %b, %x, %nan : tensor<SHAPExi1>, tensor<SHAPExf32>
  return %y : tensor<SHAPExf32>
})";
    for (auto [from, to] : {std::pair<std::string, std::string>{"SHAPE", shape}, {"BATCH", batch}})
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) text.replace(at, from.size(), to);
    std::string ir = optimizedIr(text, std::string("short_rows_") + shape);
    EXPECT_NE(ir.find("x float> <float 0x7FF8"), std::string::npos) << shape << ": the row loop was not vectorized";
  }
}

// bf16 loads, f32 math and the rounding back to bf16 are all integer and
// float vector ops.
TEST(CpuEmitter, NarrowFloatLoopsVectorize) {
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<1024xbf16>, %y: tensor<1024xbf16>) -> tensor<1024xbf16> {
  %0 = stablehlo.multiply %x, %y : tensor<1024xbf16>
  %1 = stablehlo.exponential %0 : tensor<1024xbf16>
  %2 = stablehlo.add %1, %x : tensor<1024xbf16>
  return %2 : tensor<1024xbf16>
})", "bf16");
  EXPECT_NE(ir.find(" x i16>"), std::string::npos) << "the bf16 loads were not vectorized";
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "the f32 math was not vectorized";
  expectNoLibraryCalls(ir);
}

// --- Data movement ------------------------------------------------------------------------

TEST(CpuEmitter, DataMovementComposes) {
  std::string text = R"(
func.func @main(%x: tensor<3x4xf32>, %y: tensor<2x4xf32>, %i: tensor<i32>, %j: tensor<ui8>, %u: tensor<2x2xf32>) -> (tensor<4x3xf32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x9xf32>, tensor<3x4xi32>, tensor<2x3xf32>, tensor<3x4xf32>, tensor<3x4xbf16>, tensor<3x4xf32>) {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %s = stablehlo.slice %x [1:3, 0:4:2] : (tensor<3x4xf32>) -> tensor<2x2xf32>
  %r = stablehlo.reverse %x, dims = [0, 1] : tensor<3x4xf32>
  %c = stablehlo.concatenate %x, %y, dim = 0 : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %zero = stablehlo.constant dense<-7.5> : tensor<f32>
  %p = stablehlo.pad %x, %zero, low = [1, -1], high = [1, 0], interior = [0, 2] : (tensor<3x4xf32>, tensor<f32>) -> tensor<5x9xf32>
  %io = stablehlo.iota dim = 1 : tensor<3x4xi32>
  %ds = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 3] : (tensor<3x4xf32>, tensor<i32>, tensor<ui8>) -> tensor<2x3xf32>
  %dus = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<3x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<ui8>) -> tensor<3x4xf32>
  %iof = stablehlo.iota dim = 0 : tensor<3x4xbf16>
  %e = stablehlo.exponential %r : tensor<3x4xf32>
  %tt = stablehlo.transpose %t, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %sum = stablehlo.add %e, %tt : tensor<3x4xf32>
  return %t, %s, %r, %c, %p, %io, %ds, %dus, %iof, %sum : tensor<4x3xf32>, tensor<2x2xf32>, tensor<3x4xf32>, tensor<5x4xf32>, tensor<5x9xf32>, tensor<3x4xi32>, tensor<2x3xf32>, tensor<3x4xf32>, tensor<3x4xbf16>, tensor<3x4xf32>
})";
  // Start indices in range, beyond the end, and negative (clamped as the spec says).
  for (auto [i, j] : {std::pair<int64_t, int64_t>{1, 1}, {5, 200}, {-3, 0}, {0, 255}}) {
    SCOPED_TRACE("start " + std::to_string(i) + ", " + std::to_string(j));
    Tensor x(typeOf("tensor<3x4xf32>")), y(typeOf("tensor<2x4xf32>")), u(typeOf("tensor<2x2xf32>"));
    for (int64_t k = 0; k < 12; ++k) x.setFloat(k, 0.5 * k - 2);
    for (int64_t k = 0; k < 8; ++k) y.setFloat(k, 100 + k);
    for (int64_t k = 0; k < 4; ++k) u.setFloat(k, -50 - k);
    Tensor ti(typeOf("tensor<i32>")), tj(typeOf("tensor<ui8>"));
    ti.setInt(0, i);
    tj.setInt(0, j);
    runBoth(text, {x, y, ti, tj, u}, /*maxUlp=*/kExpUlp, /*kernelPerResult=*/true);
  }
}

// A scalar integer input (here a dynamic_slice's start index) is read once,
// before the loops: read in the element loop, through a pointer the output
// stores might alias, its load stayed there and the slice of a scan step's
// rows at a run-time start was a gather per vector. Now plain vector loads,
// and the values the interpreter's (starts in range, past the end, negative).
TEST(CpuEmitter, DynamicSliceAtARunTimeStartReadsContiguously) {
  std::string text = R"(
func.func @main(%x: tensor<16x8x128xf32>, %i: tensor<i32>) -> tensor<1x8x128xf32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.dynamic_slice %x, %i, %z, %z, sizes = [1, 8, 128] : (tensor<16x8x128xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x8x128xf32>
  return %0 : tensor<1x8x128xf32>
})";
  std::string ir = optimizedIr(text, "dynamic_slice_rows");
  EXPECT_NE(ir.find("load <"), std::string::npos) << "the slice was not vectorized";
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << "the slice gathers its elements";
  for (int64_t start : {3, 15, 40, -2}) {
    SCOPED_TRACE("start " + std::to_string(start));
    Tensor x(typeOf("tensor<16x8x128xf32>"));
    for (int64_t k = 0; k < x.numElements(); ++k) x.setFloat(k, 0.25 * double(k % 997) - 3);
    Tensor i(typeOf("tensor<i32>"));
    i.setInt(0, start);
    runBoth(text, {x, i}, /*maxUlp=*/0);
  }
}

// The emitted f32 dot tiles fuse each product into its sum (llvm.fmuladd,
// an FMA instruction where the JIT's instruction set has one); f64 dots keep
// a multiply then an add, the interpreter's roundings.
TEST(CpuEmitter, F32DotTilesFuseTheirMultiplyAdds) {
  std::string f32 = optimizedIr(R"(
func.func @main(%a: tensor<8x128xf32>, %b: tensor<128x128xf32>) -> tensor<8x128xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x128xf32>, tensor<128x128xf32>) -> tensor<8x128xf32>
  return %0 : tensor<8x128xf32>
})", "dot_f32", /*optimized=*/false);
  EXPECT_NE(f32.find("@llvm.fmuladd"), std::string::npos) << "the f32 dot does not fuse its products";
  std::string f64 = optimizedIr(R"(
func.func @main(%a: tensor<8x64xf64>, %b: tensor<64x64xf64>) -> tensor<8x64xf64> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x64xf64>, tensor<64x64xf64>) -> tensor<8x64xf64>
  return %0 : tensor<8x64xf64>
})", "dot_f64", /*optimized=*/false);
  EXPECT_NE(f64.find("fmul"), std::string::npos);
  EXPECT_EQ(f64.find("@llvm.fmuladd"), std::string::npos) << "the f64 dot fuses its products";
}

// Reads through a transpose, slice, pad or reverse run row by row: the
// source coordinates of a row are worked out once, and a transpose that
// keeps the last dim (attention's heads split) reads its rows with plain
// vector loads, not gathers; one that moves it runs in tiles. Odd row counts put the two halves' boundary
// (runKernel) inside a row, so the flat head and tail loops run too.
TEST(CpuEmitter, ReindexingReadsRunRowByRow) {
  std::string text = R"(
func.func @main(%x: tensor<3x5x7x32xf32>) -> (tensor<3x7x5x32xf32>, tensor<3x5x7x20xf32>, tensor<3x5x7x40xf32>, tensor<3x5x7x32xf32>) {
  %t = stablehlo.transpose %x, dims = [0, 2, 1, 3] : (tensor<3x5x7x32xf32>) -> tensor<3x7x5x32xf32>
  %te = stablehlo.exponential %t : tensor<3x7x5x32xf32>
  %s = stablehlo.slice %x [0:3, 0:5, 0:7, 3:23] : (tensor<3x5x7x32xf32>) -> tensor<3x5x7x20xf32>
  %two = stablehlo.constant dense<2.0> : tensor<3x5x7x20xf32>
  %sm = stablehlo.multiply %s, %two : tensor<3x5x7x20xf32>
  %zero = stablehlo.constant dense<-1.0> : tensor<f32>
  %p = stablehlo.pad %x, %zero, low = [0, 0, 0, 3], high = [0, 0, 0, 5], interior = [0, 0, 0, 0] : (tensor<3x5x7x32xf32>, tensor<f32>) -> tensor<3x5x7x40xf32>
  %r = stablehlo.reverse %x, dims = [1, 3] : tensor<3x5x7x32xf32>
  %ra = stablehlo.add %r, %x : tensor<3x5x7x32xf32>
  return %te, %sm, %p, %ra : tensor<3x7x5x32xf32>, tensor<3x5x7x20xf32>, tensor<3x5x7x40xf32>, tensor<3x5x7x32xf32>
})";
  Tensor x(typeOf("tensor<3x5x7x32xf32>"));
  for (int64_t k = 0; k < x.numElements(); ++k) x.setFloat(k, 0.01 * (k % 977) - 3);
  runBoth(text, {x}, /*maxUlp=*/kExpUlp, /*kernelPerResult=*/true);
  // A transpose that moves the last dim runs in tiles of rows and columns;
  // 45 rows and 37 columns leave partial tiles both ways.
  Tensor y(typeOf("tensor<37x45xf32>"));
  for (int64_t k = 0; k < y.numElements(); ++k) y.setFloat(k, 0.5 * k - 100);
  runBoth(R"(
func.func @main(%y: tensor<37x45xf32>) -> tensor<45x37xf32> {
  %t = stablehlo.transpose %y, dims = [1, 0] : (tensor<37x45xf32>) -> tensor<45x37xf32>
  %one = stablehlo.constant dense<1.0> : tensor<45x37xf32>
  %s = stablehlo.add %t, %one : tensor<45x37xf32>
  return %s : tensor<45x37xf32>
})", {y});
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<8x128x8x64xf32>) -> tensor<8x8x128x64xf32> {
  %t = stablehlo.transpose %x, dims = [0, 2, 1, 3] : (tensor<8x128x8x64xf32>) -> tensor<8x8x128x64xf32>
  %two = stablehlo.constant dense<2.0> : tensor<8x8x128x64xf32>
  %m = stablehlo.multiply %t, %two : tensor<8x8x128x64xf32>
  return %m : tensor<8x8x128x64xf32>
})", "heads_split");
  EXPECT_NE(ir.find("load <"), std::string::npos) << "the rows were not read with vector loads";
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << "the rows were read element by element";
}

// A kernel that only transposes a parameter, swapping its last two groups
// of dims (the groups before them in any order), moves tiles of a cache line by a cache line of elements through
// registers (emitTransposeTile): bitwise the interpreter's for every element
// width (a tile of 16 f32, 8 f64, 32 bf16, 64 i8), with batches, merged
// dims, columns past the last whole tile, and the two halves' boundary
// inside a group of rows.
TEST(CpuEmitter, PureTransposesMoveTilesThroughRegisters) {
  struct Case {
    std::string in, out, dims;
  };
  std::vector<Case> cases = {
      {"3x96x272xf32", "3x272x96xf32", "0, 2, 1"},    // batch, whole tiles
      {"100x48xf32", "48x100xf32", "1, 0"},           // columns past the last tile
      {"4x5x32xf32", "32x4x5xf32", "2, 0, 1"},        // merged source dims as columns
      {"40x64xf64", "64x40xf64", "1, 0"},
      {"48x64xbf16", "64x48xbf16", "1, 0"},
      {"130x192xi8", "192x130xi8", "1, 0"},
      {"2x24x64xui32", "2x64x24xui32", "0, 2, 1"},
      {"6x3x20x32xf32", "3x6x32x20xf32", "1, 0, 3, 2"},      // batch dims swapped too (JAX's resize)
      {"2x3x4x16x48xf32", "4x2x3x48x16xf32", "2, 0, 1, 4, 3"},  // a merged batch group after another
  };
  for (const Case& c : cases) {
    std::string text = "func.func @main(%x: tensor<" + c.in + ">) -> tensor<" + c.out +
                       "> {\n  %t = stablehlo.transpose %x, dims = [" + c.dims + "] : (tensor<" + c.in + ">) -> tensor<" +
                       c.out + ">\n  return %t : tensor<" + c.out + ">\n}";
    Tensor x(typeOf("tensor<" + c.in + ">"));
    std::vector<uint64_t> bits;
    for (int64_t k = 0; k < x.numElements(); ++k) bits.push_back(uint64_t(k) * 2654435761u);
    runBoth(text, {fromBits(x.type(), bits)});
  }
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<256x512xf32>) -> tensor<512x256xf32> {
  %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<256x512xf32>) -> tensor<512x256xf32>
  return %t : tensor<512x256xf32>
})", "pure_transpose");
  // (Rows and columns outside whole tiles still run element by element.)
  EXPECT_NE(ir.find("shufflevector <16 x i32>"), std::string::npos) << "the tiles were not transposed in registers";
}

TEST(CpuEmitter, ClampAndSelect) {
  std::string text = R"(
func.func @main(%x: tensor<6xf32>, %lo: tensor<f32>, %hi: tensor<6xf32>, %a: tensor<6xui16>, %b: tensor<ui16>, %p: tensor<i1>) -> (tensor<6xf32>, tensor<6xui16>, tensor<6xf32>) {
  %0 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %1 = stablehlo.clamp %b, %a, %b : (tensor<ui16>, tensor<6xui16>, tensor<ui16>) -> tensor<6xui16>
  %2 = stablehlo.select %p, %x, %0 : tensor<i1>, tensor<6xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<6xui16>, tensor<6xf32>
})";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x(typeOf("tensor<6xf32>")), lo(typeOf("tensor<f32>")), hi(typeOf("tensor<6xf32>"));
  std::vector<double> xs = {-5, 0.5, nan, 7, -0.0, 2}, his = {1, 1, 1, nan, 0.0, 3};
  for (int k = 0; k < 6; ++k) x.setFloat(k, xs[k]), hi.setFloat(k, his[k]);
  lo.setFloat(0, -1);
  Tensor a = fromBits(typeOf("tensor<6xui16>"), {0, 1, 40000, 65535, 300, 299});
  Tensor b = fromBits(typeOf("tensor<ui16>"), {300});
  for (uint64_t p : {0, 1}) runBoth(text, {x, lo, hi, a, b, fromBits(typeOf("tensor<i1>"), {p})});
}

// Complex arithmetic (division, abs, exp and log too), parts and conversions on every pair of edge values
// (zeros, subnormals, infinities, NaNs, ...) as real and imaginary parts:
// bitwise equal to the interpreter (products are the same fused
// multiply-adds), NaNs of any payload equal.
TEST(CpuEmitter, ComplexOpsBitwise) {
  for (std::string part : {"f32", "f64"}) {
    std::string other = part == "f32" ? "f64" : "f32";
    std::vector<uint64_t> values = edgeBits(typeOf(part), 12);
    auto [re, im] = allPairs(values);
    int64_t n = int64_t(re.size());
    std::string c = tensorType(n, "complex<" + part + ">"), cOther = tensorType(n, "complex<" + other + ">"),
                f = tensorType(n, part), i32 = tensorType(n, "i32"), i1 = tensorType(n, "i1");
    std::string text = "func.func @main(%x: " + c + ", %y: " + c + ", %p: " + i1 + ", %r: " + f + ") -> (" + c +
                       ", " + c + ", " + c + ", " + c + ", " + f + ", " + f + ", " + c + ", " + c + ", " + cOther +
                       ", " + f + ", " + i32 + ", " + i1 + ", " + c + ", " + c + ", " + f + ") {\n" +
                       "  %k = stablehlo.constant dense<(1.5, -0.25)> : tensor<complex<" + part + ">>\n" +
                       "  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<complex<" + part + ">>) -> " + c + "\n" +
                       "  %0 = stablehlo.add %x, %y : " + c + "\n" +
                       "  %1 = stablehlo.subtract %x, %y : " + c + "\n" +
                       "  %2 = stablehlo.multiply %x, %y : " + c + "\n" +
                       "  %3 = stablehlo.negate %x : " + c + "\n" +
                       "  %4 = stablehlo.real %x : (" + c + ") -> " + f + "\n" +
                       "  %5 = stablehlo.imag %y : (" + c + ") -> " + f + "\n" +
                       "  %6 = stablehlo.complex %4, %5 : " + c + "\n" +
                       "  %7 = stablehlo.select %p, %x, %y : " + i1 + ", " + c + "\n" +
                       "  %8 = stablehlo.convert %x : (" + c + ") -> " + cOther + "\n" +
                       "  %9 = stablehlo.convert %x : (" + c + ") -> " + f + "\n" +
                       "  %10 = stablehlo.convert %x : (" + c + ") -> " + i32 + "\n" +
                       "  %11 = stablehlo.convert %x : (" + c + ") -> " + i1 + "\n" +
                       "  %12 = stablehlo.convert %r : (" + f + ") -> " + c + "\n" +
                       "  %13 = stablehlo.multiply %x, %kb : " + c + "\n" +
                       "  %14 = stablehlo.imag %r : (" + f + ") -> " + f + "\n" +
                       "  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14 : " + c + ", " + c +
                       ", " + c + ", " + c + ", " + f + ", " + f + ", " + c + ", " + c + ", " + cOther + ", " + f +
                       ", " + i32 + ", " + i1 + ", " + c + ", " + c + ", " + f + "\n}\n";
    std::vector<uint64_t> xParts, yParts, predicates;
    for (int64_t k = 0; k < n; ++k) {
      xParts.insert(xParts.end(), {re[k], im[k]});
      yParts.insert(yParts.end(), {im[(k * 7 + 3) % n], re[(k * 5 + 1) % n]});
      predicates.push_back(k % 3 == 0);
    }
    Type partType = typeOf(part);
    std::vector<int64_t> partsShape = {2 * n};
    Tensor x(typeOf(c)), y(typeOf(c));
    Tensor xBits = fromBits(Type::tensor(partsShape, partType), xParts);
    Tensor yBits = fromBits(Type::tensor(partsShape, partType), yParts);
    std::memcpy(x.bytes(), xBits.bytes(), 2 * n * partType.storageBytes());
    std::memcpy(y.bytes(), yBits.bytes(), 2 * n * partType.storageBytes());
    std::vector<Tensor> r = runBoth(text, {x, y, fromBits(typeOf(i1), predicates), fromBits(typeOf(f), re)});
    EXPECT_EQ(r.size(), 15u) << part;
    // Division (Smith's algorithm and its limits: zero and infinite
    // operands), abs and the functions (sqrt and rsqrt through libm's csqrt), on the same pairs.
    std::string quotient = "func.func @main(%x: " + c + ", %y: " + c + ") -> (" + c + ", " + f + ", " + c + ", " + c +
                           ") {\n" + "  %0 = stablehlo.divide %x, %y : " + c + "\n" +
                           "  %1 = stablehlo.abs %x : (" + c + ") -> " + f + "\n" +
                           "  %2 = stablehlo.exponential %x : " + c + "\n" + "  %3 = stablehlo.log %x : " + c + "\n" +
                           "  return %0, %1, %2, %3 : " + c + ", " + f + ", " + c + ", " + c + "\n}\n";
    EXPECT_EQ(runBoth(quotient, {x, y}).size(), 4u) << part;
    std::string functions = "func.func @main(%x: " + c + ") -> (" + c + ", " + c + ", " + c + ", " + c + ", " + c +
                            ", " + c + ", " + c + ", " + c + ", " + c + ") {\n" +
                            "  %0 = stablehlo.exponential_minus_one %x : " + c + "\n" +
                            "  %1 = stablehlo.log_plus_one %x : " + c + "\n" +
                            "  %2 = stablehlo.sine %x : " + c + "\n" + "  %3 = stablehlo.cosine %x : " + c + "\n" +
                            "  %4 = stablehlo.tanh %x : " + c + "\n" + "  %5 = stablehlo.tan %x : " + c + "\n" +
                            "  %6 = stablehlo.logistic %x : " + c + "\n" + "  %7 = stablehlo.sqrt %x : " + c + "\n" +
                            "  %8 = stablehlo.rsqrt %x : " + c + "\n" +
                            "  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : " + c + ", " + c + ", " + c + ", " + c +
                            ", " + c + ", " + c + ", " + c + ", " + c + ", " + c + "\n}\n";
    EXPECT_EQ(runBoth(functions, {x}, 0, /*kernelPerResult=*/true).size(), 9u) << part;
  }
}

// --- Multi-output kernels and reductions ------------------------------------------------

TEST(CpuEmitter, MultiOutputKernelSharesOneLoop) {
  std::string text = R"(
func.func @main(%x: tensor<2x8xbf16>, %y: tensor<16xi64>) -> (tensor<2x8xbf16>, tensor<16xf32>, tensor<8x2xi1>, tensor<16xui32>) {
  %0 = stablehlo.multiply %x, %x : tensor<2x8xbf16>
  %1 = stablehlo.reshape %0 : (tensor<2x8xbf16>) -> tensor<16xbf16>
  %2 = stablehlo.convert %1 : (tensor<16xbf16>) -> tensor<16xf32>
  %3 = stablehlo.convert %y : (tensor<16xi64>) -> tensor<16xbf16>
  %4 = stablehlo.compare GT, %1, %3 : (tensor<16xbf16>, tensor<16xbf16>) -> tensor<16xi1>
  %5 = stablehlo.reshape %4 : (tensor<16xi1>) -> tensor<8x2xi1>
  %6 = stablehlo.convert %y : (tensor<16xi64>) -> tensor<16xui32>
  return %0, %2, %5, %6 : tensor<2x8xbf16>, tensor<16xf32>, tensor<8x2xi1>, tensor<16xui32>
})";
  Tensor x(typeOf("tensor<2x8xbf16>"));
  for (int64_t k = 0; k < 16; ++k) x.setFloat(k, 1.37 * k - 9.1);
  // Large i64 values that round differently through a double rounding.
  Tensor y = fromBits(typeOf("tensor<16xi64>"),
                      {0, 1, uint64_t(-1), (uint64_t(1) << 62) + (uint64_t(1) << 54) + 1, (uint64_t(1) << 40) + 1,
                       uint64_t(INT64_MIN), uint64_t(INT64_MAX), 33, 100000, uint64_t(-100000), 7, 8, 9, 10, 11, 12});
  runBoth(text, {x, y});
}

TEST(CpuEmitter, ReductionsOnNewElementTypes) {
  std::string text = R"(
func.func @main(%p: tensor<4x5xi1>, %u: tensor<4x5xui32>, %h: tensor<4x5xbf16>) -> (tensor<4xi1>, tensor<5xi1>, tensor<4xui32>, tensor<4xbf16>) {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %f = stablehlo.constant dense<false> : tensor<i1>
  %z = stablehlo.constant dense<0> : tensor<ui32>
  %hz = stablehlo.constant dense<0.0> : tensor<bf16>
  %all = stablehlo.reduce(%p init: %t) applies stablehlo.and across dimensions = [1] : (tensor<4x5xi1>, tensor<i1>) -> tensor<4xi1>
  %any = stablehlo.reduce(%p init: %f) applies stablehlo.or across dimensions = [0] : (tensor<4x5xi1>, tensor<i1>) -> tensor<5xi1>
  %max = stablehlo.reduce(%u init: %z) applies stablehlo.maximum across dimensions = [1] : (tensor<4x5xui32>, tensor<ui32>) -> tensor<4xui32>
  %sum = stablehlo.reduce(%h init: %hz) applies stablehlo.add across dimensions = [1] : (tensor<4x5xbf16>, tensor<bf16>) -> tensor<4xbf16>
  return %all, %any, %max, %sum : tensor<4xi1>, tensor<5xi1>, tensor<4xui32>, tensor<4xbf16>
})";
  std::vector<uint64_t> p;
  for (int k = 0; k < 20; ++k) p.push_back(k % 7 != 3);
  Tensor h(typeOf("tensor<4x5xbf16>"));
  for (int64_t k = 0; k < 20; ++k) h.setFloat(k, 1.0 / (k + 1) + 100 * (k % 3));
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  // Each result is its own kernel here (reduces of different shapes).
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE("result " + std::to_string(r));
    std::string one = text;
    std::vector<std::string> names = {"%all", "%any", "%max", "%sum"};
    std::vector<std::string> types = {"tensor<4xi1>", "tensor<5xi1>", "tensor<4xui32>", "tensor<4xbf16>"};
    one.replace(one.find("-> (tensor<4xi1>, tensor<5xi1>, tensor<4xui32>, tensor<4xbf16>) {"),
                std::string("-> (tensor<4xi1>, tensor<5xi1>, tensor<4xui32>, tensor<4xbf16>) {").size(),
                "-> " + types[r] + " {");
    one.replace(one.find("  return"), std::string::npos, "  return " + names[r] + " : " + types[r] + "\n}\n");
    runBoth(one, {fromBits(typeOf("tensor<4x5xi1>"), p),
                  fromBits(typeOf("tensor<4x5xui32>"), {5, 0xFFFFFFF0u, 3, 0x80000000u, 9, 1, 2}), h});
  }
}

// Float max and min folds of 32 elements or more run x86's plain max with
// NaNs and signed zeros handled on the side (emitMinMaxFold); they keep
// maximum's rules, bit for bit: a NaN anywhere wins (any NaN), +0 beats -0 in
// a max and -0 beats +0 in a min, whatever their order, an init value takes
// part (max with 0, a ReLU), and a computed input too.
TEST(CpuEmitter, FloatMaxMinFoldsKeepMaximumsRules) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  constexpr int kRows = 12, kLength = 40;
  std::vector<std::vector<double>> rows(kRows);
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(-50, 50);
  for (auto& row : rows)
    for (int k = 0; k < kLength; ++k) row.push_back(uniform(rng));
  rows[1][0] = nan;                                 // NaN first
  rows[2][kLength - 1] = -nan;                      // a negative NaN last
  rows[3][17] = nan, rows[3][18] = inf;             // NaN next to infinity
  for (double& v : rows[4]) v = -0.0;               // all -0
  for (int k = 0; k < kLength; ++k) rows[5][k] = k == 29 ? 0.0 : -0.0;          // one +0 among -0
  for (int k = 0; k < kLength; ++k) rows[6][k] = k == 3 ? -0.0 : k % 2 ? 0.0 : 1.0 + k;  // one -0 among +0
  for (int k = 0; k < kLength; ++k) rows[7][k] = k % 5 ? -1.0 - k : -0.0;      // negatives and -0
  for (int k = 0; k < kLength; ++k) rows[8][k] = k % 5 ? 1.0 + k : 0.0;        // positives and +0
  rows[9][20] = inf, rows[9][21] = -inf;
  for (double& v : rows[10]) v = -inf;
  for (double& v : rows[11]) v = -1 - std::abs(v);  // all negative: max with init 0 is +0
  for (const std::string e : {"f32", "f64", "bf16", "f16"}) {
    SCOPED_TRACE(e);
    std::string t = "tensor<" + std::to_string(kRows) + "x" + std::to_string(kLength) + "x" + e + ">";
    std::string r = "tensor<" + std::to_string(kRows) + "x" + e + ">";
    Tensor x(typeOf(t));
    for (int i = 0; i < kRows; ++i)
      for (int k = 0; k < kLength; ++k) x.setFloat(i * kLength + k, rows[i][k]);
    for (const char* op : {"maximum", "minimum"})
      for (const char* init : {"0xFF800000", "0x7F800000", "0.0", "-0.0"}) {
        SCOPED_TRACE(std::string(op) + " from " + init);
        std::string initValue = std::string(init).starts_with("0x") && e != "f32"
                                    ? (std::string(init) == "0xFF800000" ? "-1.0e30" : "1.0e30")
                                    : init;
        if (e == "bf16" || e == "f16")
          initValue = initValue == "-1.0e30" ? "-6.0e4" : initValue == "1.0e30" ? "6.0e4" : initValue;
        std::string text = "func.func @main(%x: " + t + ") -> (" + r + ", " + r + ") {\n"
                "  %i = stablehlo.constant dense<" + initValue + "> : tensor<" + e + ">\n"
                "  %0 = stablehlo.reduce(%x init: %i) applies stablehlo." + op + " across dimensions = [1] : (" +
                    t + ", tensor<" + e + ">) -> " + r + "\n"
                "  %d = stablehlo.add %x, %x : " + t + "\n"
                "  %1 = stablehlo.reduce(%d init: %i) applies stablehlo." + op + " across dimensions = [1] : (" +
                    t + ", tensor<" + e + ">) -> " + r + "\n"
                "  return %0, %1 : " + r + ", " + r + "\n}\n";
        std::vector<Tensor> cpu = runBoth(text, {x}, 0, /*kernelPerResult=*/true);
        // expectAgree counts -0 and +0 as equal: the sign of zero separately.
        auto oracle = interp::runFunction(*parse(text), "main", {x});
        ASSERT_TRUE(oracle.isOk() && cpu.size() == 2);
        for (int j = 0; j < 2; ++j)
          for (int64_t k = 0; k < kRows; ++k)
            if (cpu[j].getFloat(k) == 0) {
              EXPECT_EQ(std::signbit(cpu[j].getFloat(k)), std::signbit((*oracle)[j].getFloat(k))) << "row " << k;
            }
      }
  }
  // The f32 fold is vectorized.
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<8x1024xf32>) -> tensor<8xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x1024xf32>, tensor<f32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
})", "max_fold");
  EXPECT_NE(ir.find("<16 x float>"), std::string::npos) << "the max fold was not vectorized";
}

// Two outputs reading two row reductions: one kernel, a loop over the 8
// rows that computes each reduce once per row (not per element).
TEST(CpuEmitter, MultiOutputRowKernel) {
  std::string text = R"(
func.func @main(%x: tensor<8x128xf32>) -> (tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xi32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<8x128xf32>, tensor<f32>) -> tensor<8xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x128xf32>, tensor<f32>) -> tensor<8xf32>
  %bm = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<8xf32>) -> tensor<8x128xf32>
  %bs = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<8xf32>) -> tensor<8x128xf32>
  %0 = stablehlo.subtract %x, %bm : tensor<8x128xf32>
  %1 = stablehlo.divide %x, %bs : tensor<8x128xf32>
  %2 = stablehlo.iota dim = 1 : tensor<8x128xi32>
  return %0, %1, %2 : tensor<8x128xf32>, tensor<8x128xf32>, tensor<8x128xi32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  EXPECT_EQ(cpu::kernelIterations(kernel->form), 8);
  Tensor x(typeOf("tensor<8x128xf32>"));
  // Non-negative, so the row sums have no cancellation: the quotients differ
  // from the interpreter's only by the two sums' rounding (partial sums
  // against in order; measured: 5 ULP).
  for (int64_t k = 0; k < x.numElements(); ++k) x.setFloat(k, std::abs(std::sin(0.37 * k)) * (k % 17));
  runBoth(text, {x}, 8);
}

// Softmax as one row kernel: with the polynomial exp (1 ULP) and the sum in
// vectorized partial sums the result is no longer bitwise the interpreter's.
// Both are measured against softmax computed in double: the cpu's error is
// pinned (kSoftmaxUlp) and must not exceed the interpreter's (whose in-order
// f32 sum of 1024 terms drifts further than partial sums do).
TEST(CpuEmitter, SoftmaxRowKernelWithinUlps) {
  std::string text = R"(
func.func @main(%x: tensor<64x1024xf32>) -> tensor<64x1024xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<64xf32>) -> tensor<64x1024xf32>
  %shifted = stablehlo.subtract %x, %maxb : tensor<64x1024xf32>
  %e = stablehlo.exponential %shifted : tensor<64x1024xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<64xf32>) -> tensor<64x1024xf32>
  %r = stablehlo.divide %e, %sumb : tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
})";
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 8.0);
  Tensor x(typeOf("tensor<64x1024xf32>"));
  for (int64_t k = 0; k < x.numElements(); ++k) x.setFloat(k, normal(rng));
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  EXPECT_EQ(cpu::kernelIterations(kernel->form), 64);  // row by row
  Tensor cpu = runKernel(*kernel, {x})[0];
  auto oracle = interp::runFunction(*module, "main", {x});
  ASSERT_TRUE(oracle.isOk());
  // In double from the program's f32 `x - max` on, rounded once to f32.
  Tensor exact(x.type());
  for (int64_t row = 0; row < 64; ++row) {
    double max = -INFINITY, sum = 0;
    for (int64_t j = 0; j < 1024; ++j) max = std::max(max, x.getFloat(row * 1024 + j));
    auto shiftedExp = [&](int64_t j) { return std::exp(double(float(x.getFloat(row * 1024 + j) - max))); };
    for (int64_t j = 0; j < 1024; ++j) sum += shiftedExp(j);
    for (int64_t j = 0; j < 1024; ++j) exact.setFloat(row * 1024 + j, shiftedExp(j) / sum);
  }
  uint64_t worst = expectAgree(cpu, exact, kSoftmaxUlp, "softmax");
  uint64_t interpreterWorst = 0;
  for (int64_t k = 0; k < x.numElements(); ++k)
    interpreterWorst = std::max(interpreterWorst, formatUlps(exact.elementType(), (*oracle)[0].getUInt(k), exact.getUInt(k)));
  EXPECT_LE(worst, interpreterWorst);
  std::cout << "[ measured ] softmax rows of 1024 against double: cpu max " << worst << " ulp, interpreter max "
            << interpreterWorst << " ulp\n";
}

// argmax as XLA writes it: a two-input reduce whose body compares and selects.
TEST(CpuEmitter, VariadicReduceArgmax) {
  std::string text = R"(
func.func @main(%x: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %i = stablehlo.iota dim = 1 : tensor<4x6xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%x init: %cst), (%i init: %c) across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ai: tensor<i32>, %bi: tensor<i32>)  {
    %2 = stablehlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %3 = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.or %2, %3 : tensor<i1>
    %5 = stablehlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.compare LT, %ai, %bi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %5, %6 : tensor<i1>
    %8 = stablehlo.or %4, %7 : tensor<i1>
    %9 = stablehlo.select %4, %a, %b : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %8, %ai, %bi : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }
  return %1#0, %1#1 : tensor<4xf32>, tensor<4xi32>
})";
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Ties (first index wins), a NaN (wins), all equal, -inf everywhere.
  std::vector<double> xs = {1, 5, 2, 5, 0, -1,  3, nan, 9, 9, nan, 0,  7, 7, 7, 7, 7, 7,
                            -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  Tensor x(typeOf("tensor<4x6xf32>"));
  for (size_t k = 0; k < xs.size(); ++k) x.setFloat(int64_t(k), xs[k]);
  std::vector<Tensor> r = runBoth(text, {x});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].getInt(0), 1);  // checked by hand: the first 5
  EXPECT_EQ(r[1].getInt(1), 1);  // the first NaN
}

// --- Which ops are emitted, and the errors for the rest ------------------------------------

TEST(CpuEmitter, UnsupportedFormsAreErrorsNamingTheOp) {
  std::unique_ptr<Module> module = parse(R"(
func.func @main(%x: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  %0 = stablehlo.cbrt %x : tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
})");
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_FALSE(kernel.isOk());
  EXPECT_NE(kernel.status().message().find("'stablehlo.cbrt'"), std::string::npos) << kernel.status().message();
  EXPECT_NE(kernel.status().message().find("cpu_emitter_test.mlir:3"), std::string::npos) << kernel.status().message();

  // A reduce in row form checks its types too (it is emitted before any element).
  module = parse(R"(
func.func @main(%x: tensor<2x3xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
})");
  ASSERT_TRUE(module);
  Expected<BodyKernel> reduce = compileBody(*module);
  ASSERT_FALSE(reduce.isOk());
  EXPECT_NE(reduce.status().message().find("'stablehlo.reduce' on tensor<2x3xcomplex<f32>>"), std::string::npos)
      << reduce.status().message();

  module = parse(R"(
func.func @main(%x: tensor<4xbf16>) -> tensor<4xi16> {
  %0 = stablehlo.bitcast_convert %x : (tensor<4xbf16>) -> tensor<4xi16>
  %1 = stablehlo.reverse %0, dims = [0] : tensor<4xi16>
  return %1 : tensor<4xi16>
})");
  ASSERT_TRUE(module);
  Expected<BodyKernel> bitcast = compileBody(*module);
  ASSERT_FALSE(bitcast.isOk());
  EXPECT_NE(bitcast.status().message().find("'stablehlo.bitcast_convert' from bf16 to i16"), std::string::npos)
      << bitcast.status().message();
  // Through the back end, the bitcast the emitter declines is a view of its
  // operand's bytes (one width: no step at all) and the reverse a kernel,
  // with the interpreter's results.
  auto executable = cpu::compileForCpu(*module, "main");
  ASSERT_TRUE(executable.isOk()) << executable.status().message();
  EXPECT_EQ((*executable)->stats().routines, 0);
  EXPECT_EQ((*executable)->stats().kernels, 1);
  std::vector<Tensor> args = {fromBits(typeOf("tensor<4xbf16>"), {0x3f80, 0xc000, 0x7fc1, 0x0001})};
  auto cpuResults = (*executable)->run(args);
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(cpuResults.isOk() && oracle.isOk());
  expectAgree((*cpuResults)[0], (*oracle)[0], 0, "bitcast then reverse");
}

TEST(CpuEmitter, EmittedOpsThroughTheBackEnd) {
  // The whole back end (pipeline, fusion, planner): every op here must run
  // in emitted kernels, none through a routine or op by op.
  std::string text = R"(
func.func @main(%x: tensor<4x6xbf16>, %y: tensor<6x4xbf16>, %k: tensor<4x6xui8>) -> (tensor<4x6xbf16>, tensor<4x6xui8>) {
  %t = stablehlo.transpose %y, dims = [1, 0] : (tensor<6x4xbf16>) -> tensor<4x6xbf16>
  %a = stablehlo.add %x, %t : tensor<4x6xbf16>
  %e = stablehlo.exponential %a : tensor<4x6xbf16>
  %r = stablehlo.reverse %e, dims = [1] : tensor<4x6xbf16>
  %two = stablehlo.constant dense<2> : tensor<4x6xui8>
  %s = stablehlo.shift_right_logical %k, %two : tensor<4x6xui8>
  %d = stablehlo.divide %k, %s : tensor<4x6xui8>
  return %r, %d : tensor<4x6xbf16>, tensor<4x6xui8>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  auto executable = cpu::compileForCpu(*module, "main");
  ASSERT_TRUE(executable.isOk()) << executable.status().message();
  EXPECT_EQ((*executable)->stats().routines, 0);
  EXPECT_EQ((*executable)->stats().fusionsRunOpByOp, 0);
  EXPECT_GE((*executable)->stats().kernels, 1);
  Tensor x(typeOf("tensor<4x6xbf16>")), y(typeOf("tensor<6x4xbf16>"));
  for (int64_t k = 0; k < 24; ++k) x.setFloat(k, 0.3 * k - 3), y.setFloat(k, 0.1 * k);
  std::vector<uint64_t> ks;
  for (uint64_t k = 0; k < 24; ++k) ks.push_back(k * 11);
  std::vector<Tensor> args = {x, y, fromBits(typeOf("tensor<4x6xui8>"), ks)};
  auto cpuResults = (*executable)->run(args);
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(cpuResults.isOk() && oracle.isOk());
  ASSERT_EQ(cpuResults->size(), 2u);
  expectAgree((*cpuResults)[0], (*oracle)[0], 1, "bf16 chain");
  expectAgree((*cpuResults)[1], (*oracle)[1], 0, "ui8 division");
}


// --- Row and column forms of reductions ----------------------------------------------------

// Layernorm as JAX writes it: the per-row mean and variance go through
// [rows, 1] shapes and a broadcast with dims [0, 1], the square is
// chlo.square. One row kernel (each reduce and each per-row value once per
// row).
const char* kJaxLayernorm = R"(
func.func @main(%x: tensor<16x96xf32>, %g: tensor<96xf32>, %b: tensor<96xf32>) -> tensor<16x96xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x96xf32>, tensor<f32>) -> tensor<16xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
  %n = stablehlo.constant dense<96.0> : tensor<16x1xf32>
  %mean = stablehlo.divide %1, %n : tensor<16x1xf32>
  %4 = stablehlo.broadcast_in_dim %mean, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x96xf32>
  %c = stablehlo.subtract %x, %4 : tensor<16x96xf32>
  %sq = chlo.square %c : tensor<16x96xf32> -> tensor<16x96xf32>
  %7 = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x96xf32>, tensor<f32>) -> tensor<16xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<16xf32>) -> tensor<16x1xf32>
  %var = stablehlo.divide %8, %n : tensor<16x1xf32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<16x1xf32>
  %12 = stablehlo.add %var, %eps : tensor<16x1xf32>
  %13 = stablehlo.sqrt %12 : tensor<16x1xf32>
  %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<16x1xf32>) -> tensor<16x96xf32>
  %15 = stablehlo.divide %c, %14 : tensor<16x96xf32>
  %16 = stablehlo.broadcast_in_dim %g, dims = [1] : (tensor<96xf32>) -> tensor<1x96xf32>
  %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x96xf32>) -> tensor<16x96xf32>
  %18 = stablehlo.multiply %15, %17 : tensor<16x96xf32>
  %19 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<96xf32>) -> tensor<16x96xf32>
  %21 = stablehlo.add %18, %19 : tensor<16x96xf32>
  return %21 : tensor<16x96xf32>
})";

Tensor wavy(const std::string& type, double scale) {
  Tensor t(typeOf(type));
  for (int64_t k = 0; k < t.numElements(); ++k) t.setFloat(k, scale * std::sin(0.37 * k) * (1 + k % 7));
  return t;
}

TEST(CpuEmitter, JaxLayernormIsOneRowKernel) {
  std::unique_ptr<Module> module = parse(kJaxLayernorm);
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  EXPECT_EQ(cpu::kernelIterations(kernel->form), 16);  // rows, not elements
  // The variance is summed as it is computed, in vectorized partial sums,
  // not in the interpreter's order: the normalized values agree within
  // rounding (b = 0; measured 2 ULP), and an offset b is added at the right
  // columns (b around 1000, which hides no wrong read).
  Tensor x = wavy("tensor<16x96xf32>", 3.0), g = wavy("tensor<96xf32>", 0.5);
  runBoth(kJaxLayernorm, {x, g, wavy("tensor<96xf32>", 0.0)}, 4);
  Tensor b = wavy("tensor<96xf32>", 10.0);
  for (int64_t k = 0; k < b.numElements(); ++k) b.setFloat(k, 1000 + b.getFloat(k));
  runBoth(kJaxLayernorm, {x, g, b}, 4);
  // The row's elements read g and b at the column counter: the inner loop vectorizes.
  std::string ir = optimizedIr(kJaxLayernorm, "jax_layernorm");
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "the row's element loop was not vectorized";
}

// A kernel whose parameter was produced by a reduce in another step: the row
// analysis stops at the kernel's parameters (it used to look through them,
// pick a row form and then fail: "a kernel reads a value it was not given").
TEST(CpuEmitter, RowAnalysisStopsAtKernelParameters) {
  std::string text = R"(
func.func @main(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<8xf32>) -> tensor<8x32xf32>
  return %b : tensor<8x32xf32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  Block& body = func::body(*module->lookupFunction("main"));
  const Value* sum = body.terminator()->operand(0)->definingOp()->operand(0);
  BodyKernel k;
  k.plan.params = {sum};  // the broadcast alone, given the reduce's result
  k.plan.roots = {body.terminator()->operand(0)};
  k.plan.inputs = k.plan.params;
  k.plan.outputs = k.plan.roots;
  auto jit = cpu::KernelJit::create();
  ASSERT_TRUE(jit.isOk());
  k.jit = std::move(*jit);
  k.form = cpu::kernelFormOf(k.plan);
  Status emitted = cpu::emitKernel(k.plan, k.form, "body", k.jit->module());
  ASSERT_TRUE(emitted.isOk()) << emitted.message();
  EXPECT_EQ(cpu::kernelIterations(k.form), 8 * 32);  // element by element: no reduce inside
  ASSERT_TRUE(k.jit->finalize({}).isOk());
  auto address = k.jit->lookup("body");
  ASSERT_TRUE(address.isOk());
  k.fn = reinterpret_cast<cpu::KernelFn>(*address);
  Tensor x = wavy("tensor<8x32xf32>", 1.0);
  auto oracle = interp::runFunction(*module, "main", {x});
  ASSERT_TRUE(oracle.isOk());
  Tensor sums(typeOf("tensor<8xf32>"));
  for (int64_t r = 0; r < 8; ++r) {
    float acc = 0;
    for (int64_t c = 0; c < 32; ++c) acc += float(x.getFloat(r * 32 + c));
    sums.setFloat(r, acc);
  }
  expectAgree(runKernel(k, {sums})[0], (*oracle)[0], 0, "broadcast of a given reduce result");
}

// A training step's softmax keeps its per-row max and sum next to the result:
// one row kernel stores those once per row and the result per element.
TEST(CpuEmitter, RowKernelWithPerRowOutputs) {
  std::string text = R"(
func.func @main(%x: tensor<2x3x40xf32>) -> (tensor<2x3xf32>, tensor<2x3x40xf32>, tensor<2x3x1xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<2x3x40xf32>, tensor<f32>) -> tensor<2x3xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3x40xf32>
  %shifted = stablehlo.subtract %x, %maxb : tensor<2x3x40xf32>
  %sq = stablehlo.multiply %shifted, %shifted : tensor<2x3x40xf32>
  %sum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<2x3x40xf32>, tensor<f32>) -> tensor<2x3xf32>
  %sum1 = stablehlo.reshape %sum : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %sumb = stablehlo.broadcast_in_dim %sum1, dims = [0, 1, 2] : (tensor<2x3x1xf32>) -> tensor<2x3x40xf32>
  %r = stablehlo.divide %sq, %sumb : tensor<2x3x40xf32>
  return %max, %r, %sum1 : tensor<2x3xf32>, tensor<2x3x40xf32>, tensor<2x3x1xf32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  EXPECT_EQ(cpu::kernelIterations(kernel->form), 6);
  runBoth(text, {wavy("tensor<2x3x40xf32>", 2.0)});
}

// A reduce whose input is computed stages it: the inputs of a chunk are
// computed in one loop (vectorized: the exp polynomial on vectors) and then
// folded in order, so the sum is still the interpreter's to the bit but for
// exp's own rounding (1 ULP per element, bounded here over the whole sum).
TEST(CpuEmitter, StagedReduceVectorizesItsInput) {
  std::string text = R"(
func.func @main(%x: tensor<6x1100xf32>) -> tensor<6xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %e = stablehlo.exponential %x : tensor<6x1100xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<6x1100xf32>, tensor<f32>) -> tensor<6xf32>
  return %sum : tensor<6xf32>
})";
  // 1100 elements: two full chunks of 512 and a partial one. Partial sums
  // against the interpreter's in-order f32 sum, which drifts by up to
  // n/2 ULP in the worst case (15 seen here).
  runBoth(text, {wavy("tensor<6x1100xf32>", 0.5)}, 32);
  std::string ir = optimizedIr(text, "staged_reduce");
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "the staged inputs were not computed on vectors";
  expectNoLibraryCalls(ir);
}

// A softmax row of up to 65536 elements (256 KiB, in L2; a vocabulary's
// 32000 logits among them) keeps its exp(x - max) from the staged sum for
// the division (one exp per element, the same values); longer rows are
// staged in chunks and compute exp again. exp's polynomial rounds
// once with llvm.roundeven, so the emitted IR holds one such call per exp.
TEST(CpuEmitter, SoftmaxRowKeepsItsExpForTheOutput) {
  auto softmax = [](int64_t n) {
    std::string t = "tensor<4x" + std::to_string(n) + "xf32>";
    return "func.func @main(%x: " + t + ") -> " + t + R"( {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : ()" + t + R"(, tensor<f32>) -> tensor<4xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xf32>) -> )" + t + R"(
  %shifted = stablehlo.subtract %x, %maxb : )" + t + R"(
  %e = stablehlo.exponential %shifted : )" + t + R"(
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : ()" + t + R"(, tensor<f32>) -> tensor<4xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> )" + t + R"(
  %r = stablehlo.divide %e, %sumb : )" + t + R"(
  return %r : )" + t + R"(
})";
  };
  auto expCalls = [](const std::string& ir) {
    int calls = 0;
    for (size_t at = ir.find("call float @llvm.roundeven"); at != std::string::npos;
         at = ir.find("call float @llvm.roundeven", at + 1))
      ++calls;
    return calls;
  };
  EXPECT_EQ(expCalls(optimizedIr(softmax(1000), "softmax_kept", false)), 1);
  EXPECT_EQ(expCalls(optimizedIr(softmax(32000), "softmax_kept_vocabulary", false)), 1);
  EXPECT_EQ(expCalls(optimizedIr(softmax(70000), "softmax_chunked", false)), 2);
  EXPECT_NE(optimizedIr(softmax(1000), "softmax_kept_row", false).find("alloca float, i64 1000"), std::string::npos);
  // Accuracy: SoftmaxRowKernelWithinUlps (rows of 1024, the kept form).

  // Short rows from kShortRowReduceMin (12) on: the exp is staged and kept,
  // emitted once, and runs on vectors (folded as it was computed, it was
  // emitted twice and ran as scalar code: f32[256,12] 30 -> 6 us). Rows of
  // 10 still fold as they compute.
  for (int64_t n : {10, 12, 24}) {
    std::string name = "softmax_short_" + std::to_string(n);
    EXPECT_EQ(expCalls(optimizedIr(softmax(n), name, false)), n < 12 ? 2 : 1) << n << " elements a row";
    if (n >= 12)
      EXPECT_NE(optimizedIr(softmax(n), name).find("x float> @llvm.roundeven"), std::string::npos) << n << " elements";
    runBoth(softmax(n), {wavy("tensor<4x" + std::to_string(n) + "xf32>", 3.0)}, kSoftmaxUlp);
  }

  // JAX's bf16 softmax sums the exp widened to f32: the kept f32 row is the
  // bf16 exp's too (one exp per element), and the output is bitwise the
  // interpreter's.
  std::string bf16 = R"(
func.func @main(%x: tensor<4x1000xbf16>) -> tensor<4x1000xbf16> {
  %ninf = stablehlo.constant dense<0xFF80> : tensor<bf16>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x1000xbf16>, tensor<bf16>) -> tensor<4xbf16>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xbf16>) -> tensor<4x1000xbf16>
  %shifted = stablehlo.subtract %x, %maxb : tensor<4x1000xbf16>
  %e = stablehlo.exponential %shifted : tensor<4x1000xbf16>
  %ew = stablehlo.convert %e : (tensor<4x1000xbf16>) -> tensor<4x1000xf32>
  %sum = stablehlo.reduce(%ew init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x1000xf32>, tensor<f32>) -> tensor<4xf32>
  %sumn = stablehlo.convert %sum : (tensor<4xf32>) -> tensor<4xbf16>
  %sumb = stablehlo.broadcast_in_dim %sumn, dims = [0] : (tensor<4xbf16>) -> tensor<4x1000xbf16>
  %r = stablehlo.divide %e, %sumb : tensor<4x1000xbf16>
  return %r : tensor<4x1000xbf16>
})";
  EXPECT_EQ(expCalls(optimizedIr(bf16, "softmax_bf16_kept", false)), 1);
  runBoth(bf16, {wavy("tensor<4x1000xbf16>", 3.0)});

  // rmsnorm's x * x is read by its reduce only, a sum: added up as it is
  // computed, with no scratch at all (a whole row of scratch next to the
  // input's row would crowd L1).
  std::string rms = optimizedIr(R"(
func.func @main(%x: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sq = stablehlo.multiply %x, %x : tensor<4x1000xf32>
  %sum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x1000xf32>, tensor<f32>) -> tensor<4xf32>
  %rs = stablehlo.rsqrt %sum : tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %rs, dims = [0] : (tensor<4xf32>) -> tensor<4x1000xf32>
  %r = stablehlo.multiply %x, %b : tensor<4x1000xf32>
  return %r : tensor<4x1000xf32>
})", "rmsnorm_chunked", false);
  EXPECT_EQ(rms.find("alloca float"), std::string::npos);
}

// Compiles @main's body (one output) as a plain kernel and as a streaming one
// (KernelPlan::streamOutputs) and checks that the streaming kernel, its range
// split in two at each of `splits`, writes the plain kernel's bits into a
// 64-byte-aligned output and into one 4 bytes off (a donated argument).
void expectStreamingWritesPlainBits(const std::string& text, const std::vector<Tensor>& args,
                                    const std::vector<int64_t>& splits) {
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  Expected<BodyKernel> plain = compileBody(*module);
  Expected<BodyKernel> streaming = compileBody(*module, {}, -1, /*streamOutputs=*/true);
  ASSERT_TRUE(plain.isOk() && streaming.isOk());
  std::vector<Tensor> expected = runKernel(*plain, args);
  size_t bytes = expected[0].byteSize();
  int64_t iterations = cpu::kernelIterations(streaming->form);
  std::vector<const uint8_t*> in;
  for (const Tensor& t : args) in.push_back(t.bytes());
  std::vector<uint8_t> memory(bytes + 128);
  uint8_t* aligned = memory.data() + (64 - reinterpret_cast<uintptr_t>(memory.data()) % 64);
  for (uint8_t* out : {aligned, aligned + 4})
    for (int64_t split : splits) {
      std::fill(memory.begin(), memory.end(), 0xAB);
      streaming->fn(in.data(), &out, 0, split);
      streaming->fn(in.data(), &out, split, iterations);
      EXPECT_EQ(std::memcmp(out, expected[0].bytes(), bytes), 0) << "split at " << split << ", offset " << (out - aligned);
    }
}

// A row kernel told to stream its outputs (KernelPlan::streamOutputs: the
// planner's choice for kernels that move more than the last-level cache)
// writes rows that start on 64 bytes with non-temporal stores and ends with a
// fence; outputs that are not 64-byte aligned (a donated argument) run the
// plain copy. Both give the plain kernel's bits, rows of 1024 and of 1000
// (whose vector stores are not all aligned) alike.
TEST(CpuEmitter, StreamingRowKernelWritesAroundTheCache) {
  for (int64_t n : {1024, 1000}) {
    SCOPED_TRACE(n);
    std::string t = "tensor<16x" + std::to_string(n) + "xf32>";
    std::string text = "func.func @main(%x: " + t + ") -> " + t + R"( {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sq = stablehlo.multiply %x, %x : )" + t + R"(
  %sum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : ()" + t + R"(, tensor<f32>) -> tensor<16xf32>
  %rs = stablehlo.rsqrt %sum : tensor<16xf32>
  %b = stablehlo.broadcast_in_dim %rs, dims = [0] : (tensor<16xf32>) -> )" + t + R"(
  %r = stablehlo.multiply %x, %b : )" + t + R"(
  return %r : )" + t + R"(
})";
    expectStreamingWritesPlainBits(text, {wavy(t, 0.5)}, {0});
  }
#if defined(__x86_64__)
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<16x1024xf32>) -> tensor<16x1024xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x1024xf32>, tensor<f32>) -> tensor<16xf32>
  %b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<16xf32>) -> tensor<16x1024xf32>
  %r = stablehlo.divide %x, %b : tensor<16x1024xf32>
  return %r : tensor<16x1024xf32>
})", "streaming", true, /*streamOutputs=*/true);
  EXPECT_NE(ir.find("!nontemporal"), std::string::npos);
  EXPECT_NE(ir.find("@llvm.x86.sse.sfence"), std::string::npos);
#endif
}

// An element loop told to stream its outputs aligns its main loop itself
// (the thread's range may start anywhere): the elements up to the next
// multiple of 16 run first. Any split of the range, into aligned or
// misaligned outputs, gives the plain kernel's bits.
TEST(CpuEmitter, StreamingElementLoopAlignsItsMainLoop) {
  std::string text = R"(
func.func @main(%w: tensor<1000xf32>, %g: tensor<1000xf32>) -> tensor<1000xf32> {
  %lr = stablehlo.constant dense<0.01> : tensor<1000xf32>
  %s = stablehlo.multiply %g, %lr : tensor<1000xf32>
  %n = stablehlo.subtract %w, %s : tensor<1000xf32>
  return %n : tensor<1000xf32>
})";
  expectStreamingWritesPlainBits(text, {wavy("tensor<1000xf32>", 1.0), wavy("tensor<1000xf32>", 2.0)},
                                 {0, 7, 16, 500, 993, 1000});
#if defined(__x86_64__)
  std::string ir = optimizedIr(text, "streaming_elements", true, /*streamOutputs=*/true);
  EXPECT_NE(ir.find("!nontemporal"), std::string::npos);
#endif
}

// Runs `kernel` over its iterations as three ranges, split at each pair of
// `splits` (as two threads' ranges would cut it, rows included), and expects
// the interpreter's `expected` every time.
void expectSplitRunsMatch(const BodyKernel& kernel, const std::vector<Tensor>& args, const Tensor& expected,
                          const std::vector<std::pair<int64_t, int64_t>>& splits) {
  int64_t iterations = cpu::kernelIterations(kernel.form);
  std::vector<const uint8_t*> in;
  for (const Tensor& a : args) in.push_back(a.bytes());
  for (auto [first, second] : splits) {
    Tensor out(expected.type());
    uint8_t* o = out.bytes();
    kernel.fn(in.data(), &o, 0, first);
    kernel.fn(in.data(), &o, first, second);
    kernel.fn(in.data(), &o, second, iterations);
    EXPECT_TRUE(out == expected) << "split at " << first << ", " << second;
  }
}

// An element loop reading operands through broadcasts (a bias along the
// rows, a per-row scale, a scalar parameter) runs its whole rows as nested
// loops whose inner counter is the column: every split of the range (partial
// first and last rows, none, all) gives the interpreter's bits, for f32 and
// bf16, and the optimized rows loop has no remainder left in it. Streaming
// (with the scalar parameter read in each of its loops) gives the same bits.
TEST(CpuEmitter, ElementLoopsUnderBroadcastsRunRowByRow) {
  for (std::string e : {"f32", "bf16"}) {
    SCOPED_TRACE(e);
    std::string t = "tensor<7x48x" + e + ">";
    std::string text = "func.func @main(%x: " + t + ", %bias: tensor<48x" + e + ">, %row: tensor<7x" + e + ">, %s: tensor<" +
                       e + ">) -> " + t + " {\n" +
                       "  %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<48x" + e + ">) -> " + t + "\n" +
                       "  %r = stablehlo.broadcast_in_dim %row, dims = [0] : (tensor<7x" + e + ">) -> " + t + "\n" +
                       "  %c = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<" + e + ">) -> " + t + "\n" +
                       "  %0 = stablehlo.add %x, %b : " + t + "\n" +
                       "  %1 = stablehlo.multiply %0, %r : " + t + "\n" +
                       "  %2 = stablehlo.subtract %1, %c : " + t + "\n" +
                       "  return %2 : " + t + "\n}\n";
    std::unique_ptr<Module> module = parse(text);
    ASSERT_TRUE(module);
    std::vector<Tensor> args = {wavy(t, 1.0), wavy("tensor<48x" + e + ">", 0.5), wavy("tensor<7x" + e + ">", 2.0),
                                wavy("tensor<" + e + ">", 1.0)};
    args[3].setFloat(0, 0.75);
    auto oracle = interp::runFunction(*module, "main", args);
    ASSERT_TRUE(oracle.isOk());
    Expected<BodyKernel> kernel = compileBody(*module);
    ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
    expectSplitRunsMatch(*kernel, args, (*oracle)[0], {{0, 336}, {0, 0}, {5, 5}, {47, 49}, {48, 96}, {50, 300}});
    expectStreamingWritesPlainBits(text, args, {0, 1, 47, 48, 100, 336});
  }
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<64x256xf32>, %bias: tensor<256xf32>) -> tensor<64x256xf32> {
  %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<256xf32>) -> tensor<64x256xf32>
  %0 = stablehlo.add %x, %b : tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
})", "element_rows");
  EXPECT_NE(ir.find("rows"), std::string::npos);
  EXPECT_EQ(ir.find("urem"), std::string::npos) << "the rows loop should read the bias at its column";
  EXPECT_NE(ir.find("x float>"), std::string::npos) << "the rows loop should vectorize";
}

// A kernel that reshapes its result (a conv's bias and relu, flattened for a
// dense layer) runs rows as long as the last dim of every full-size value
// has in common (32 here, not the output's 512), so the bias is read at the
// column, with vector loads, and no remainder in the loop. The kernel's
// results match the interpreter wherever two threads' ranges split the rows.
TEST(CpuEmitter, ReshapedOutputsRunRowsEveryValueShares) {
  std::string text = R"(
func.func @main(%x: tensor<6x4x4x32xf32>, %bias: tensor<32xf32>) -> tensor<6x512xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<6x4x4x32xf32>
  %b = stablehlo.broadcast_in_dim %bias, dims = [3] : (tensor<32xf32>) -> tensor<6x4x4x32xf32>
  %0 = stablehlo.add %x, %b : tensor<6x4x4x32xf32>
  %1 = stablehlo.maximum %0, %zero : tensor<6x4x4x32xf32>
  %2 = stablehlo.reshape %1 : (tensor<6x4x4x32xf32>) -> tensor<6x512xf32>
  return %2 : tensor<6x512xf32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  std::vector<Tensor> args = {wavy("tensor<6x4x4x32xf32>", 1.0), wavy("tensor<32xf32>", 0.5)};
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(oracle.isOk());
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  const auto* elements = std::get_if<cpu::ElementsForm>(&kernel->form);
  ASSERT_NE(elements, nullptr);
  EXPECT_EQ(elements->rowLength, 32);
  expectSplitRunsMatch(*kernel, args, (*oracle)[0], {{0, 3072}, {5, 5}, {31, 33}, {32, 512}, {700, 2050}});
  std::string ir = optimizedIr(text, "reshaped_rows");
  EXPECT_EQ(ir.find("urem"), std::string::npos);
  EXPECT_NE(ir.find("x float>"), std::string::npos) << "the rows loop should vectorize";
}

// Attention's head split: a projection plus its bias (over 192 = 3 x 4 x 16
// columns) reshaped, sliced to one of q, k, v and transposed to heads. The
// bias is read at the coordinates the transpose knows, merged back into its
// column (no remainder per element: main's kernel had 14 urem and no vector
// code, 0.9 ms a call in transformer_fwd), and the results match the
// interpreter wherever two threads' ranges split the kernel.
TEST(CpuEmitter, ReshapesMergingKnownCoordinatesReadTheirColumn) {
  std::string text = R"(
func.func @main(%bias: tensor<192xf32>, %x: tensor<2x16x192xf32>) -> tensor<2x4x16x16xf32> {
  %b = stablehlo.broadcast_in_dim %bias, dims = [2] : (tensor<192xf32>) -> tensor<2x16x192xf32>
  %0 = stablehlo.add %x, %b : tensor<2x16x192xf32>
  %1 = stablehlo.reshape %0 : (tensor<2x16x192xf32>) -> tensor<2x16x3x4x16xf32>
  %2 = stablehlo.slice %1 [0:2, 0:16, 1:2, 0:4, 0:16] : (tensor<2x16x3x4x16xf32>) -> tensor<2x16x1x4x16xf32>
  %3 = stablehlo.transpose %2, dims = [0, 3, 1, 4, 2] : (tensor<2x16x1x4x16xf32>) -> tensor<2x4x16x16x1xf32>
  %4 = stablehlo.reshape %3 : (tensor<2x4x16x16x1xf32>) -> tensor<2x4x16x16xf32>
  return %4 : tensor<2x4x16x16xf32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  std::vector<Tensor> args = {wavy("tensor<192xf32>", 0.5), wavy("tensor<2x16x192xf32>", 1.0)};
  auto oracle = interp::runFunction(*module, "main", args);
  ASSERT_TRUE(oracle.isOk());
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  int64_t iterations = cpu::kernelIterations(kernel->form);
  expectSplitRunsMatch(*kernel, args, (*oracle)[0], {{0, iterations}, {3, 3}, {15, 17}, {iterations / 2, iterations - 1}});
  std::string ir = optimizedIr(text, "head_split");
  EXPECT_EQ(ir.find("urem"), std::string::npos);
  EXPECT_NE(ir.find("x float>"), std::string::npos) << "the rows should vectorize";
}

// Staged reduces in a row kernel prefetch the next row of the kernel's
// row-shaped parameters, chunk by chunk, while they compute this row's
// inputs (the squares of an rmsnorm): its memory traffic overlaps the
// computation.
TEST(CpuEmitter, StagedReducesPrefetchTheNextRow) {
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<16x1024xf32>) -> tensor<16x1024xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sq = stablehlo.multiply %x, %x : tensor<16x1024xf32>
  %sum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<16x1024xf32>, tensor<f32>) -> tensor<16xf32>
  %b = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<16xf32>) -> tensor<16x1024xf32>
  %r = stablehlo.divide %x, %b : tensor<16x1024xf32>
  return %r : tensor<16x1024xf32>
})", "prefetch", false);
  EXPECT_NE(ir.find("call void @llvm.prefetch"), std::string::npos);
}

// Reduces of the leading dims fold whole rows of the input into the output
// (out[j] = body(out[j], in[r * n + j])): per element the same order as the
// interpreter, so bitwise equal, with unit-stride inner loops.
TEST(CpuEmitter, ColumnReducesFoldRowsIntoTheOutput) {
  std::string text = R"(
func.func @main(%x: tensor<37x100xf32>, %y: tensor<3x5x7xbf16>) -> (tensor<100xf32>, tensor<100xf32>, tensor<7xbf16>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %two = stablehlo.constant dense<2.5> : tensor<37x100xf32>
  %x2 = stablehlo.multiply %x, %two : tensor<37x100xf32>
  %sum = stablehlo.reduce(%x2 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<37x100xf32>, tensor<f32>) -> tensor<100xf32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<37x100xf32>, tensor<f32>) -> tensor<100xf32>
  %bzero = stablehlo.constant dense<0.0> : tensor<bf16>
  %s3 = stablehlo.reduce(%y init: %bzero) applies stablehlo.add across dimensions = [1, 0] : (tensor<3x5x7xbf16>, tensor<bf16>) -> tensor<7xbf16>
  return %sum, %max, %s3 : tensor<100xf32>, tensor<100xf32>, tensor<7xbf16>
})";
  runBoth(text, {wavy("tensor<37x100xf32>", 10.0), wavy("tensor<3x5x7xbf16>", 4.0)}, 0, /*kernelPerResult=*/true);
  std::string ir = optimizedIr(R"(
func.func @main(%x: tensor<512x512xf32>) -> tensor<512xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<512x512xf32>, tensor<f32>) -> tensor<512xf32>
  return %sum : tensor<512xf32>
})", "column_sum");
  EXPECT_NE(ir.find(" x float>"), std::string::npos) << "the column fold was not vectorized";
}

// An SGD update of a bias, b - lr * sum(g over the batch): the column sum
// folds into the output, then the epilogue runs over it in place -- bitwise
// the interpreter's (the same order of accumulation, exact elementwise ops),
// in the column form (not one strided loop over the batch per element).
TEST(CpuEmitter, ColumnReduceWithAnEpilogueFoldsIntoItsOutput) {
  std::string text = R"(
func.func @main(%g: tensor<6x33x70xf32>, %b: tensor<70xf32>) -> tensor<70xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %lr = stablehlo.constant dense<0.01> : tensor<70xf32>
  %sum = stablehlo.reduce(%g init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x33x70xf32>, tensor<f32>) -> tensor<70xf32>
  %step = stablehlo.multiply %lr, %sum : tensor<70xf32>
  %next = stablehlo.subtract %b, %step : tensor<70xf32>
  return %next : tensor<70xf32>
})";
  // The form the emitter picks for @main's body as one kernel.
  auto formOf = [](const std::string& program) -> cpu::KernelForm {
    std::unique_ptr<Module> module = parse(program);
    if (!module) return {};
    Expected<BodyKernel> kernel = compileBody(*module);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    return kernel.isOk() ? kernel->form : cpu::KernelForm{};
  };
  EXPECT_TRUE(std::holds_alternative<cpu::ColumnFoldForm>(formOf(text)));
  runBoth(text, {wavy("tensor<6x33x70xf32>", 3.0), wavy("tensor<70xf32>", 1.0)}, 0);
  // An epilogue that converts cannot fold in its output (a bf16 output
  // cannot hold the f32 sum): the per-element form, still correct.
  std::string converting = R"(
func.func @main(%g: tensor<6x33x70xf32>) -> tensor<70xbf16> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%g init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x33x70xf32>, tensor<f32>) -> tensor<70xf32>
  %c = stablehlo.convert %sum : (tensor<70xf32>) -> tensor<70xbf16>
  return %c : tensor<70xbf16>
})";
  EXPECT_TRUE(std::holds_alternative<cpu::ElementsForm>(formOf(converting)));
  runBoth(converting, {wavy("tensor<6x33x70xf32>", 3.0)}, 1);

  // Several outputs, each an epilogue of its own reduce (a training step's
  // bias and norm-scale updates), share one column kernel; their inputs
  // share computed values. It was the per-element form: 23 ms of the
  // transformer training step's 135.
  std::string siblings = R"(
func.func @main(%g: tensor<6x33x70xf32>, %h: tensor<6x33x70xf32>, %b: tensor<70xf32>, %c: tensor<70xf32>) -> (tensor<70xf32>, tensor<70xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %lr = stablehlo.constant dense<0.01> : tensor<70xf32>
  %gh = stablehlo.multiply %g, %h : tensor<6x33x70xf32>
  %s1 = stablehlo.reduce(%gh init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x33x70xf32>, tensor<f32>) -> tensor<70xf32>
  %s2 = stablehlo.reduce(%g init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x33x70xf32>, tensor<f32>) -> tensor<70xf32>
  %d1 = stablehlo.multiply %lr, %s1 : tensor<70xf32>
  %n1 = stablehlo.subtract %b, %d1 : tensor<70xf32>
  %d2 = stablehlo.multiply %lr, %s2 : tensor<70xf32>
  %n2 = stablehlo.subtract %c, %d2 : tensor<70xf32>
  return %n1, %n2 : tensor<70xf32>, tensor<70xf32>
})";
  EXPECT_TRUE(std::holds_alternative<cpu::ColumnFoldForm>(formOf(siblings)));
  runBoth(siblings, {wavy("tensor<6x33x70xf32>", 3.0), wavy("tensor<6x33x70xf32>", 0.5), wavy("tensor<70xf32>", 1.0),
                     wavy("tensor<70xf32>", 2.0)}, 0);
}

// An edge pad is emitted row by row: the padding, one input row (the work
// fused before the pad computed on it, read unit-stride), the padding again;
// a row wholly in an outer dim's padding is the padding value. Interior
// padding and input rows shorter than 16 keep the per-element form.
TEST(CpuEmitter, EdgePadRunsRowByRow) {
  auto formAndIterations = [](const std::string& text) {
    std::unique_ptr<Module> module = parse(text);
    EXPECT_TRUE(module);
    Expected<BodyKernel> kernel = compileBody(*module);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().message();
    return std::pair{kernel->form, cpu::kernelIterations(kernel->form)};
  };
  std::string text = R"(
func.func @main(%x: tensor<5x3x20xf32>, %p: tensor<f32>) -> tensor<8x100xf32> {
  %e = stablehlo.exponential %x : tensor<5x3x20xf32>
  %0 = stablehlo.pad %e, %p, low = [1, 0, 2], high = [2, 1, 3], interior = [0, 0, 0] : (tensor<5x3x20xf32>, tensor<f32>) -> tensor<8x4x25xf32>
  %r = stablehlo.reshape %0 : (tensor<8x4x25xf32>) -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
})";
  auto [form, iterations] = formAndIterations(text);
  EXPECT_TRUE(std::holds_alternative<cpu::PadRowsForm>(form));
  EXPECT_EQ(iterations, 32);  // 8 x 4 output rows
  Tensor p(typeOf("tensor<f32>"));
  p.setFloat(0, -7.5);
  runBoth(text, {wavy("tensor<5x3x20xf32>", 1.0), p}, kExpUlp);
  std::string bytes = R"(
func.func @main(%x: tensor<4x17xi8>) -> tensor<4x22xi8> {
  %c = stablehlo.constant dense<9> : tensor<i8>
  %0 = stablehlo.pad %x, %c, low = [0, 5], high = [0, 0], interior = [0, 0] : (tensor<4x17xi8>, tensor<i8>) -> tensor<4x22xi8>
  return %0 : tensor<4x22xi8>
})";
  EXPECT_TRUE(std::holds_alternative<cpu::PadRowsForm>(formAndIterations(bytes).first));
  Tensor x(typeOf("tensor<4x17xi8>"));
  for (int64_t k = 0; k < x.numElements(); ++k) x.setInt(k, k * 37 % 256 - 128);
  runBoth(bytes, {x});
  std::string interior = R"(
func.func @main(%x: tensor<3x20xf32>, %p: tensor<f32>) -> tensor<3x41xf32> {
  %0 = stablehlo.pad %x, %p, low = [0, 1], high = [0, 1], interior = [0, 1] : (tensor<3x20xf32>, tensor<f32>) -> tensor<3x41xf32>
  return %0 : tensor<3x41xf32>
})";
  EXPECT_TRUE(std::holds_alternative<cpu::ElementsForm>(formAndIterations(interior).first));
  runBoth(interior, {wavy("tensor<3x20xf32>", 1.0), p});
}

// A concatenation (reshaped or not) is emitted slab by slab: for each index
// before the concatenated dim, one loop per operand over its contiguous run
// of the output, computing that operand only. Operands here are transposed
// reads (the gradient of splitting q, k and v) and a computed value.
TEST(CpuEmitter, ConcatenationRunsOneLoopPerOperand) {
  std::string text = R"(
func.func @main(%a: tensor<4x3x5x8xf32>, %b: tensor<4x5x3x8xf32>, %c: tensor<4x3x8x5xf32>) -> tensor<4x5x72xf32> {
  %ta = stablehlo.transpose %a, dims = [0, 2, 1, 3] : (tensor<4x3x5x8xf32>) -> tensor<4x5x3x8xf32>
  %two = stablehlo.constant dense<2.0> : tensor<4x5x3x8xf32>
  %tb = stablehlo.multiply %b, %two : tensor<4x5x3x8xf32>
  %tc = stablehlo.transpose %c, dims = [0, 3, 1, 2] : (tensor<4x3x8x5xf32>) -> tensor<4x5x3x8xf32>
  %cat = stablehlo.concatenate %ta, %tb, %tc, dim = 2 : (tensor<4x5x3x8xf32>, tensor<4x5x3x8xf32>, tensor<4x5x3x8xf32>) -> tensor<4x5x9x8xf32>
  %r = stablehlo.reshape %cat : (tensor<4x5x9x8xf32>) -> tensor<4x5x72xf32>
  return %r : tensor<4x5x72xf32>
})";
  std::unique_ptr<Module> module = parse(text);
  ASSERT_TRUE(module);
  Expected<BodyKernel> kernel = compileBody(*module);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  EXPECT_TRUE(std::holds_alternative<cpu::SlabsForm>(kernel->form));
  EXPECT_EQ(cpu::kernelIterations(kernel->form), 20);  // 4 x 5 runs of 24 per operand
  runBoth(text, {wavy("tensor<4x3x5x8xf32>", 1.0), wavy("tensor<4x5x3x8xf32>", 2.0), wavy("tensor<4x3x8x5xf32>", 3.0)});
  // Runs shorter than 16 elements keep the per-element form.
  std::string shortRuns = R"(
func.func @main(%a: tensor<6x2xf32>, %b: tensor<6x3xf32>) -> tensor<6x5xf32> {
  %cat = stablehlo.concatenate %a, %b, dim = 1 : (tensor<6x2xf32>, tensor<6x3xf32>) -> tensor<6x5xf32>
  return %cat : tensor<6x5xf32>
})";
  std::unique_ptr<Module> small = parse(shortRuns);
  ASSERT_TRUE(small);
  Expected<BodyKernel> elements = compileBody(*small);
  ASSERT_TRUE(elements.isOk());
  EXPECT_TRUE(std::holds_alternative<cpu::ElementsForm>(elements->form));
  runBoth(shortRuns, {wavy("tensor<6x2xf32>", 1.0), wavy("tensor<6x3xf32>", 2.0)});
}

// jnp.pad(x, 3, mode="edge") as JAX writes it: a concatenate of edge rows
// along dim 0 inside one of edge columns along the last dim, here under an
// elementwise op. Each row runs as one loop per stretch between the
// concatenate's column breaks, where the column compares fold: plain vector
// loads, no gathers (it gathered every candidate before: f32[512,1024]
// 1.37 -> 0.16 ms). Bitwise the interpreter's.
TEST(CpuEmitter, ConcatenatesAlongTheLastDimRunRowsInStretches) {
  std::string text = R"(
func.func @main(%x: tensor<40x100xf32>) -> tensor<46x106xf32> {
  %0 = stablehlo.slice %x [0:1, 0:100] : (tensor<40x100xf32>) -> tensor<1x100xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 2] : (tensor<1x100xf32>) -> tensor<1x3x100xf32>
  %2 = stablehlo.reshape %1 : (tensor<1x3x100xf32>) -> tensor<3x100xf32>
  %3 = stablehlo.slice %x [39:40, 0:100] : (tensor<40x100xf32>) -> tensor<1x100xf32>
  %4 = stablehlo.broadcast_in_dim %3, dims = [0, 2] : (tensor<1x100xf32>) -> tensor<1x3x100xf32>
  %5 = stablehlo.reshape %4 : (tensor<1x3x100xf32>) -> tensor<3x100xf32>
  %6 = stablehlo.concatenate %2, %x, %5, dim = 0 : (tensor<3x100xf32>, tensor<40x100xf32>, tensor<3x100xf32>) -> tensor<46x100xf32>
  %7 = stablehlo.slice %6 [0:46, 0:1] : (tensor<46x100xf32>) -> tensor<46x1xf32>
  %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<46x1xf32>) -> tensor<46x1x3xf32>
  %9 = stablehlo.reshape %8 : (tensor<46x1x3xf32>) -> tensor<46x3xf32>
  %10 = stablehlo.slice %6 [0:46, 99:100] : (tensor<46x100xf32>) -> tensor<46x1xf32>
  %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<46x1xf32>) -> tensor<46x1x3xf32>
  %12 = stablehlo.reshape %11 : (tensor<46x1x3xf32>) -> tensor<46x3xf32>
  %13 = stablehlo.concatenate %9, %6, %12, dim = 1 : (tensor<46x3xf32>, tensor<46x100xf32>, tensor<46x3xf32>) -> tensor<46x106xf32>
  %two = stablehlo.constant dense<2.0> : tensor<46x106xf32>
  %14 = stablehlo.multiply %13, %two : tensor<46x106xf32>
  return %14 : tensor<46x106xf32>
})";
  runBoth(text, {wavy("tensor<40x100xf32>", 1.0)});
  std::string ir = optimizedIr(text, "edge_pad");
  EXPECT_NE(ir.find("load <"), std::string::npos) << "the rows were not read with vector loads";
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << "the rows gathered every candidate";
}

}  // namespace
}  // namespace kiln
