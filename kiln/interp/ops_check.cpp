// Kernels of the check.* test ops, of the `custom_call @check.*` forms, and of
// the interpreter.print / interpreter.probe debugging ops.
//
// Semantics follow StableHLO's check dialect (stablehlo/tests/CheckOps.td):
//   - expect_eq / expect_eq_const: exact; floats bitwise equal except that
//     every NaN equals every NaN;
//   - expect_almost_eq / expect_almost_eq_const: |got - want| <= tolerance
//     (default 1e-4), NaN equals NaN, infinities must be equal;
//   - expect_close: min_ulp_difference <= ULP distance <= max_ulp_difference
//     for finite values; non-finite values must be bitwise equal or both NaN.
// Integer, boolean and quantized elements are always compared exactly.
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "kiln/interp/check_kernels.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/float_formats.h"
#include "kiln/support/format.h"

namespace kiln::interp {
namespace {

// How two elements of the same type must relate for a check to hold.
struct Criterion {
  enum Kind { kExact, kAlmostEqual, kUlpClose } kind = kExact;
  double tolerance = 0;                 // kAlmostEqual
  uint64_t minUlp = 0, maxUlp = 0;      // kUlpClose
};

constexpr double kDefaultTolerance = 1e-4;  // check.expect_almost_eq, @check.eq
constexpr double kCustomCallAlmostEqTolerance = 1e-3;  // @check.expect_almost_eq
constexpr uint64_t kDefaultMaxUlp = 1;                 // check.expect_close
constexpr uint64_t kCustomCallMaxUlp = 3;              // @check.expect_close

// --- Raw element access -----------------------------------------------------

// The little-endian bits of `bytes` bytes at `p`.
uint64_t loadBits(const uint8_t* p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned b = 0; b < bytes; ++b) v |= uint64_t(p[b]) << (8 * b);
  return v;
}

// One float value: its type, bit pattern and value. Complex elements are
// compared as two of these.
struct FloatBits {
  TypeKind kind;
  uint64_t bits;
  double value;
  FloatBits(TypeKind kind, uint64_t bits) : kind(kind), bits(bits), value(decodeFloat(kind, bits)) {}
  bool isNaN() const { return std::isnan(value); }
  bool isFinite() const { return std::isfinite(value); }
};

// The float components of element `i` of a float (one) or complex (two) tensor.
struct FloatComponents {
  std::array<std::optional<FloatBits>, 2> parts;
  size_t size() const { return parts[1] ? 2 : 1; }
  const FloatBits& operator[](size_t k) const { return *parts[k]; }
};

FloatComponents floatComponents(const Tensor& t, int64_t i) {
  Type elt = t.elementType();
  Type component = elt.isComplex() ? elt.complexElement() : elt;
  unsigned width = component.storageBytes();
  const uint8_t* p = t.bytes() + i * elt.storageBytes();
  FloatComponents c;
  c.parts[0].emplace(component.kind(), loadBits(p, width));
  if (elt.isComplex()) c.parts[1].emplace(component.kind(), loadBits(p + width, width));
  return c;
}

// --- ULP distance -----------------------------------------------------------

// Distance of |x| from zero in representable values. Subnormals count as
// zero or as the smallest normal, whichever is nearer: XLA:CPU flushes
// denormals to zero, so expected values produced by JAX may differ from an
// exact result by a subnormal, and StableHLO's checker forgives that too.
uint64_t magnitudeSteps(TypeKind kind, uint64_t magnitudeBits) {
  uint64_t smallestNormal = encodeFloat(kind, floatFormatInfo(kind).minNormal);
  if (smallestNormal == 0) return magnitudeBits;  // no subnormals (f8E8M0FNU)
  uint64_t subnormals = smallestNormal - 1;
  if (magnitudeBits > subnormals) return magnitudeBits - subnormals;
  return 2 * magnitudeBits < subnormals ? 0 : 1;
}

// Number of representable values between two finite values of one format.
uint64_t ulpDistance(FloatBits a, FloatBits b) {
  FloatFormatInfo info = floatFormatInfo(a.kind);
  unsigned width = Type::element(a.kind).bitWidth();
  bool hasSignBit = unsigned(info.exponentBits + info.mantissaBits) < width;
  uint64_t signBit = hasSignBit ? uint64_t(1) << (width - 1) : 0;
  uint64_t ma = magnitudeSteps(a.kind, a.bits & ~signBit);
  uint64_t mb = magnitudeSteps(a.kind, b.bits & ~signBit);
  bool aNegative = (a.bits & signBit) != 0, bNegative = (b.bits & signBit) != 0;
  if (aNegative == bNegative) return ma > mb ? ma - mb : mb - ma;
  if (ma > std::numeric_limits<uint64_t>::max() - mb) return std::numeric_limits<uint64_t>::max();
  return ma + mb;
}

// --- Element comparison -----------------------------------------------------

bool floatsMatch(FloatBits got, FloatBits want, const Criterion& c) {
  if (got.isNaN() || want.isNaN()) return got.isNaN() && want.isNaN();
  switch (c.kind) {
    case Criterion::kExact:
      return got.bits == want.bits;
    case Criterion::kAlmostEqual: {
      if (got.value == want.value) return true;  // also equal infinities and -0 == +0
      if (!got.isFinite() || !want.isFinite()) return false;
      return std::fabs(got.value - want.value) <= c.tolerance;
    }
    case Criterion::kUlpClose: {
      if (!got.isFinite() || !want.isFinite()) return got.bits == want.bits;
      uint64_t d = ulpDistance(got, want);
      return c.minUlp <= d && d <= c.maxUlp;
    }
  }
  return false;
}

bool elementsMatch(const Tensor& got, const Tensor& want, int64_t i, const Criterion& c) {
  Type elt = got.elementType();
  if (elt.isFloat() || elt.isComplex()) {
    FloatComponents g = floatComponents(got, i), w = floatComponents(want, i);
    for (size_t k = 0; k < g.size(); ++k)
      if (!floatsMatch(g[k], w[k], c)) return false;
    return true;
  }
  // Integers (sub-byte ones are stored sign-/zero-extended, so equal values
  // have equal bytes), booleans and quantized storage values.
  unsigned n = elt.storageBytes();
  return std::memcmp(got.bytes() + i * n, want.bytes() + i * n, n) == 0;
}

// --- Messages ---------------------------------------------------------------

std::string formatFloat(FloatBits f) {
  // f32 values print as the shortest float text ("0.1", not "0.100000001...").
  if (f.kind == TypeKind::F32) {
    float v = static_cast<float>(f.value);
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, res.ptr);
  }
  return formatDouble(f.value);
}

// Integer value of `bits` holding a `width`-bit integer of the given signedness.
std::string formatInteger(uint64_t bits, unsigned width, bool isSigned) {
  if (width < 64) bits &= (uint64_t(1) << width) - 1;
  if (isSigned && width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t(0) << width;
  return isSigned ? std::to_string(static_cast<int64_t>(bits)) : std::to_string(bits);
}

std::string formatElement(const Tensor& t, int64_t i) {
  Type elt = t.elementType();
  if (elt.isFloat()) return formatFloat(floatComponents(t, i)[0]);
  if (elt.isComplex()) {
    FloatComponents parts = floatComponents(t, i);
    return "(" + formatFloat(parts[0]) + ", " + formatFloat(parts[1]) + ")";
  }
  uint64_t bits = loadBits(t.bytes() + i * elt.storageBytes(), elt.storageBytes());
  if (elt.isBool()) return bits ? "true" : "false";
  Type storage = elt.isQuantized() ? elt.quant().storageType : elt;
  return formatInteger(bits, storage.bitWidth(), storage.isSignedInteger());
}

// The failure text for the first element that does not match, or nullopt.
std::optional<std::string> firstMismatch(std::string_view check, const Tensor& got,
                                         const Tensor& want, const Criterion& c) {
  if (got.type() != want.type())
    return std::string(check) + ": got " + got.type().str() + ", expected " + want.type().str();
  for (int64_t i = 0; i < got.numElements(); ++i) {
    if (elementsMatch(got, want, i, c)) continue;
    return std::string(check) + " at index [" + joinInts(got.multiIndex(i), ",") +
           "]: got " + formatElement(got, i) + ", expected " + formatElement(want, i);
  }
  return std::nullopt;
}

Status checkFailure(const OpEval& eval, std::string text) {
  return error(eval.op.loc(), std::string(kCheckFailedMarker) + std::move(text));
}

// --- Kernels ----------------------------------------------------------------

double toleranceOf(const Operation& op, double fallback) {
  Attribute a = op.attr("tolerance");
  if (a.is(AttrKind::Float)) return a.floatValue();
  if (a.is(AttrKind::Integer)) return static_cast<double>(a.intValue());
  return fallback;
}

uint64_t ulpAttr(const Operation& op, std::string_view name, uint64_t fallback) {
  Attribute a = op.attr(name);
  return a.is(AttrKind::Integer) ? static_cast<uint64_t>(a.intValue()) : fallback;
}

// Where a check finds the expected value.
enum class Reference { kSecondOperand, kValueAttribute };
// What a check returns when it holds: nothing, or (@check.eq) a true tensor<i1>.
enum class Returns { kNothing, kTrue };

// The kernel of check `check`: compares operand 0 with its reference under
// the criterion `criterion` picks for the op and the operand.
Kernel comparisonKernel(std::string check, Reference reference,
                        std::function<Criterion(const Operation&, const Tensor&)> criterion,
                        Returns returns = Returns::kNothing) {
  return [=](OpEval& eval) -> Expected<std::vector<Tensor>> {
    size_t numOperands = reference == Reference::kSecondOperand ? 2 : 1;
    if (eval.operands.size() != numOperands)
      return eval.error("expects " + std::to_string(numOperands) + " operand(s), got " +
                        std::to_string(eval.operands.size()));
    const Tensor& got = eval.operands[0];
    Tensor want;
    if (reference == Reference::kValueAttribute) {
      Attribute value = eval.op.attr("value");
      if (!value.is(AttrKind::DenseElements)) return eval.error("expects a dense `value` attribute");
      want = Tensor::fromDense(value);
    } else {
      want = eval.operands[1];
    }
    if (!got.type().isTensor() || !want.type().isTensor())
      return eval.error("compares tensors, got " + got.type().str() + " and " + want.type().str());
    if (auto mismatch = firstMismatch(check, got, want, criterion(eval.op, got)))
      return checkFailure(eval, *mismatch);
    std::vector<Tensor> results;
    if (returns == Returns::kTrue) results.push_back(Tensor(Type::tensor({}, Type::i1()), {1}));
    return results;
  };
}

Criterion exact(const Operation&, const Tensor&) { return {Criterion::kExact}; }

Criterion almostEqual(const Operation& op, const Tensor&) {
  return {Criterion::kAlmostEqual, toleranceOf(op, kDefaultTolerance)};
}

Criterion ulpClose(const Operation& op, const Tensor&) {
  return {Criterion::kUlpClose, 0, ulpAttr(op, "min_ulp_difference", 0),
          ulpAttr(op, "max_ulp_difference", kDefaultMaxUlp)};
}

// @check.eq, as StableHLO's test runner defines it: integers and booleans
// exactly, floats and complex numbers within the default tolerance.
Criterion customCallEq(const Operation&, const Tensor& got) {
  Type elt = got.elementType();
  if (elt.isFloat() || elt.isComplex()) return {Criterion::kAlmostEqual, kDefaultTolerance};
  return {Criterion::kExact};
}

Expected<std::vector<Tensor>> expectSerializedEq(OpEval& eval) {
  return eval.error("is not supported: it compares with probe files written by "
                    "`stablehlo-translate --probe`, which kiln does not produce");
}

// interpreter.print: writes `interpreter.print <value> : <type>` to stdout
// and returns its operand.
Expected<std::vector<Tensor>> printValue(OpEval& eval) {
  const Tensor& x = eval.operands[0];
  std::string line = "interpreter.print " + printAttribute(x.toDense()) + "\n";
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fflush(stdout);
  return std::vector<Tensor>{x};
}

// interpreter.probe: passes its operand through (kiln writes no probe files).
Expected<std::vector<Tensor>> probe(OpEval& eval) { return std::vector<Tensor>{eval.operands[0]}; }

}  // namespace

std::optional<Kernel> checkCustomCallKernel(std::string_view target) {
  constexpr Reference operand = Reference::kSecondOperand;
  if (target == "check.expect_eq") return comparisonKernel("check.expect_eq", operand, exact);
  // The custom-call forms take the same attributes as the check ops, with
  // looser defaults (those of JAX-generated test files).
  if (target == "check.expect_almost_eq")
    return comparisonKernel("check.expect_almost_eq", operand, [](const Operation& op, const Tensor&) {
      return Criterion{Criterion::kAlmostEqual, toleranceOf(op, kCustomCallAlmostEqTolerance)};
    });
  if (target == "check.expect_close")
    return comparisonKernel("check.expect_close", operand, [](const Operation& op, const Tensor&) {
      return Criterion{Criterion::kUlpClose, 0, ulpAttr(op, "min_ulp_difference", 0),
                       ulpAttr(op, "max_ulp_difference", kCustomCallMaxUlp)};
    });
  if (target == "check.eq") return comparisonKernel("check.eq", operand, customCallEq, Returns::kTrue);
  return std::nullopt;
}

std::optional<std::string_view> checkFailureText(const Diagnostic& diag) {
  // Search rather than test the prefix: an enclosing op (func.call, while)
  // may have put context in front of the kernel's message.
  size_t pos = diag.message.find(kCheckFailedMarker);
  if (pos == std::string::npos) return std::nullopt;
  return std::string_view(diag.message).substr(pos + kCheckFailedMarker.size());
}

void registerCheckKernels(KernelTable& t) {
  constexpr Reference operand = Reference::kSecondOperand, value = Reference::kValueAttribute;
  t["check.expect_eq"] = comparisonKernel("check.expect_eq", operand, exact);
  t["check.expect_eq_const"] = comparisonKernel("check.expect_eq_const", value, exact);
  t["check.expect_almost_eq"] = comparisonKernel("check.expect_almost_eq", operand, almostEqual);
  t["check.expect_almost_eq_const"] = comparisonKernel("check.expect_almost_eq_const", value, almostEqual);
  t["check.expect_close"] = comparisonKernel("check.expect_close", operand, ulpClose);
  t["check.expect_serialized_eq"] = expectSerializedEq;
  t["interpreter.print"] = printValue;
  t["interpreter.probe"] = probe;
}

}  // namespace kiln::interp
