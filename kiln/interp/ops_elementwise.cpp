// Kernels of the elementwise ops.
//
// Values are carried in four families: bool, integers (int64_t holding the
// sign-extended value, or the zero-extended bits of an unsigned type), floats
// (double: every float format converts to it exactly) and complex (computed
// in the component precision, see complex_math.h). Each op is a table of
// per-family scalar functions;
// the generic drivers below loop over the elements and store each result
// through Tensor's setters, which round floats to the element type and wrap
// integers to its width. Float math is done in double and rounded once: for
// f32 and narrower this is correctly rounded for + - * / sqrt and within a
// rounding of libm's double result otherwise.
//
// Where the spec leaves a result implementation-defined, these kernels do what
// XLA on the CPU does (docs/interpreter.md lists the cases).
#include <algorithm>
#include <bit>
#include <cmath>
#include <compare>
#include <complex>
#include <functional>
#include <limits>
#include <span>

#include "kiln/interp/complex_math.h"
#include "kiln/interp/interpreter.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/ir/float_formats.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;
using Complex = std::complex<double>;
using uint128 = unsigned __int128;

enum class Family { Bool, Int, Float, Complex, Other };

Family familyOf(Type elementType) {
  if (elementType.isBool()) return Family::Bool;
  if (elementType.isInteger()) return Family::Int;
  if (elementType.isFloat()) return Family::Float;
  if (elementType.isComplex()) return Family::Complex;
  return Family::Other;
}

// What integer functions need to know about their element type.
struct IntKind {
  unsigned bits;
  bool isUnsigned;

  uint64_t mask() const { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }
  // The value of the low `bits` bits of `x` read as a signed number.
  int64_t signExtend(uint64_t x) const {
    return bits >= 64 ? int64_t(x) : int64_t(x << (64 - bits)) >> (64 - bits);
  }
  int64_t minValue() const { return isUnsigned ? 0 : signExtend(uint64_t(1) << (bits - 1)); }
  // Largest value as bits (UI64's maximum does not fit int64_t).
  uint64_t maxValue() const { return isUnsigned ? mask() : mask() >> 1; }
  // Orders two carried values of this type.
  std::strong_ordering compare(int64_t a, int64_t b) const {
    return isUnsigned ? uint64_t(a) <=> uint64_t(b) : a <=> b;
  }
};

IntKind intKindOf(Type elementType) {
  return {elementType.bitWidth(), elementType.isUnsignedInteger()};
}

// Index of the element of `t` that pairs with element `i` of a result of
// `n` elements: scalars (clamp's bounds, select's predicate) broadcast.
int64_t pairedIndex(const Tensor& t, int64_t n, int64_t i) { return t.numElements() == n ? i : 0; }

Status unsupportedType(OpEval& e, Type elementType) {
  return e.error("is not defined for element type " + elementType.str());
}

// --- Quantized operands -------------------------------------------------------
//
// The spec's dequantize_op_quantize: quantized operands are dequantized to
// their expressed type, the op computes on those floats, and a quantized
// result is quantized from the float result (computed in its expressed type).

// An op on unquantized operands, producing a tensor of type `resultType`.
using UnquantizedOp =
    std::function<Expected<Tensor>(std::span<const Tensor> operands, Type resultType)>;

// `x` itself, or its dequantized values when it is quantized.
Tensor dequantized(const Tensor& x) {
  if (!x.elementType().isQuantized()) return x;
  Tensor r(Type::tensor(x.shape(), x.elementType().quant().expressedType));
  for (int64_t i = 0; i < x.numElements(); ++i) r.setFloat(i, dequantizeAt(x, i));
  return r;
}

// Evaluates `op` on the operands of `e`, around dequantize / quantize when
// an operand or the result is quantized.
Results dequantizeOpQuantize(OpEval& e, const UnquantizedOp& op) {
  Type type = e.op.result(0)->type();
  bool quantizedResult = type.elementType().isQuantized();
  bool quantizedOperand = std::any_of(e.operands.begin(), e.operands.end(), [](const Tensor& t) {
    return t.elementType().isQuantized();
  });
  if (!quantizedResult && !quantizedOperand) {
    KILN_ASSIGN_OR_RETURN(Tensor r, op(e.operands, type));
    return std::vector<Tensor>{r};
  }
  std::vector<Tensor> floats;
  for (const Tensor& operand : e.operands) floats.push_back(dequantized(operand));
  Type floatType =
      quantizedResult ? Type::tensor(type.shape(), type.elementType().quant().expressedType) : type;
  KILN_ASSIGN_OR_RETURN(Tensor floatResult, op(floats, floatType));
  if (!quantizedResult) return std::vector<Tensor>{floatResult};
  Tensor r(type);
  for (int64_t i = 0; i < r.numElements(); ++i)
    r.setInt(i, quantizeValue(floatResult.getFloat(i), type, i));
  return std::vector<Tensor>{r};
}

// --- Unary ops ----------------------------------------------------------------

// A complex function for both component types: complex64 computes in f32 and
// complex128 in f64, as XLA does (see complex_math.h). Built from one generic
// lambda, instantiated for both.
template <typename Sig64, typename Sig128>
struct ComplexFn {
  Sig64* c64 = nullptr;
  Sig128* c128 = nullptr;
  ComplexFn() = default;
  template <typename F>
  ComplexFn(F f) : c64(f), c128(f) {}
  explicit operator bool() const { return c64 != nullptr; }
};
using ComplexUnaryFn = ComplexFn<std::complex<float>(std::complex<float>), Complex(Complex)>;
using ComplexBinaryFn = ComplexFn<std::complex<float>(std::complex<float>, std::complex<float>),
                                  Complex(Complex, Complex)>;

bool isComplex64(const Tensor& t) { return t.elementType().kind() == TypeKind::Complex64; }

struct UnaryFns {
  bool (*onBool)(bool) = nullptr;
  int64_t (*onInt)(int64_t, IntKind) = nullptr;
  double (*onFloat)(double) = nullptr;
  ComplexUnaryFn onComplex{};
};

// Applies `fns` to every element of `x`, producing a tensor of type `resultType`.
Expected<Tensor> applyUnary(OpEval& e, const UnaryFns& fns, const Tensor& x, Type resultType) {
  Tensor r(resultType);
  int64_t n = x.numElements();
  Family family = familyOf(x.elementType());
  if ((family == Family::Bool && !fns.onBool) || (family == Family::Int && !fns.onInt) ||
      (family == Family::Float && !fns.onFloat) ||
      (family == Family::Complex && !fns.onComplex) || family == Family::Other)
    return unsupportedType(e, x.elementType());
  switch (family) {
    case Family::Bool:
      for (int64_t i = 0; i < n; ++i) r.setBool(i, fns.onBool(x.getBool(i)));
      break;
    case Family::Int: {
      IntKind kind = intKindOf(x.elementType());
      for (int64_t i = 0; i < n; ++i) r.setInt(i, fns.onInt(x.getInt(i), kind));
      break;
    }
    case Family::Float:
      for (int64_t i = 0; i < n; ++i) r.setFloat(i, fns.onFloat(x.getFloat(i)));
      break;
    case Family::Complex:
      // abs of a complex is real: its function returns the magnitude as
      // the real part, and setFloat of a float result stores just that.
      for (int64_t i = 0; i < n; ++i) {
        Complex z = x.getComplex(i);
        Complex v = isComplex64(x) ? Complex(fns.onComplex.c64(std::complex<float>(z)))
                                   : fns.onComplex.c128(z);
        if (r.elementType().isComplex())
          r.setComplex(i, v);
        else
          r.setFloat(i, v.real());
      }
      break;
    case Family::Other:
      break;
  }
  return r;
}

Kernel unary(UnaryFns fns) {
  return [fns](OpEval& e) -> Results {
    return dequantizeOpQuantize(e, [&](std::span<const Tensor> x, Type resultType) {
      return applyUnary(e, fns, x[0], resultType);
    });
  };
}

double floatSign(double x) { return std::isnan(x) || x == 0 ? x : std::copysign(1.0, x); }

int64_t countLeadingZeros(int64_t x, IntKind k) {
  return std::countl_zero(uint64_t(x) & k.mask()) - (64 - int(k.bits));
}

namespace cm = complex_math;

const UnaryFns kAbs = {
    .onInt = [](int64_t x,
                IntKind k) { return k.isUnsigned || x >= 0 ? x : int64_t(0 - uint64_t(x)); },
    .onFloat = [](double x) { return std::fabs(x); },
    .onComplex = [](auto z) { return decltype(z)(cm::abs(z)); }};
const UnaryFns kNegate = {.onInt = [](int64_t x, IntKind) { return int64_t(0 - uint64_t(x)); },
                          .onFloat = [](double x) { return -x; },
                          .onComplex = [](auto z) { return -z; }};
const UnaryFns kNot = {.onBool = [](bool x) { return !x; },
                       .onInt = [](int64_t x, IntKind) { return ~x; }};
const UnaryFns kSign = {.onInt = [](int64_t x, IntKind k) -> int64_t {
                          return k.isUnsigned ? x != 0 : (x > 0) - (x < 0);
                        },
                        .onFloat = floatSign,
                        .onComplex = [](auto z) { return cm::sign(z); }};
const UnaryFns kPopcnt = {
    .onInt = [](int64_t x, IntKind k) -> int64_t { return std::popcount(uint64_t(x) & k.mask()); }};
const UnaryFns kCountLeadingZeros = {.onInt = countLeadingZeros};

// A float function and its complex counterpart.
#define KILN_MATH_FNS(floatExpr, complexExpr)                \
  UnaryFns {                                                 \
    .onFloat = [](double x) -> double { return floatExpr; }, \
    .onComplex = [](auto x) { return complexExpr; }          \
  }

const UnaryFns kCbrt = KILN_MATH_FNS(std::cbrt(x), cm::cbrt(x));
const UnaryFns kCosine = KILN_MATH_FNS(std::cos(x), cm::cos(x));
const UnaryFns kSine = KILN_MATH_FNS(std::sin(x), cm::sin(x));
const UnaryFns kTan = KILN_MATH_FNS(std::tan(x), cm::tan(x));
const UnaryFns kTanh = KILN_MATH_FNS(std::tanh(x), cm::tanh(x));
const UnaryFns kExp = KILN_MATH_FNS(std::exp(x), cm::exp(x));
const UnaryFns kExpm1 = KILN_MATH_FNS(std::expm1(x), cm::expm1(x));
const UnaryFns kLog = KILN_MATH_FNS(std::log(x), cm::log(x));
const UnaryFns kLog1p = KILN_MATH_FNS(std::log1p(x), cm::log1p(x));
const UnaryFns kLogistic = KILN_MATH_FNS(1 / (1 + std::exp(-x)), cm::logistic(x));
const UnaryFns kSqrt = KILN_MATH_FNS(std::sqrt(x), std::sqrt(x));
const UnaryFns kRsqrt = KILN_MATH_FNS(1 / std::sqrt(x), cm::rsqrt(x));
#undef KILN_MATH_FNS

const UnaryFns kCeil = {.onFloat = [](double x) { return std::ceil(x); }};
const UnaryFns kFloor = {.onFloat = [](double x) { return std::floor(x); }};
const UnaryFns kRoundAfz = {.onFloat = [](double x) { return std::round(x); }};
// nearbyint rounds in the current mode, which is the default to-nearest-even.
const UnaryFns kRoundEven = {.onFloat = [](double x) { return std::nearbyint(x); }};

// real / imag of a complex operand; of a float operand, the operand and zero.
Kernel complexPart(bool imaginary) {
  return [imaginary](OpEval& e) -> Results {
    const Tensor& x = e.operands[0];
    Tensor r(e.op.result(0)->type());
    for (int64_t i = 0; i < x.numElements(); ++i) {
      Complex z = x.getComplex(i);
      r.setFloat(i, imaginary ? z.imag() : z.real());
    }
    return std::vector<Tensor>{r};
  };
}

Results isFinite(OpEval& e) {
  const Tensor& x = e.operands[0];
  Tensor r(e.op.result(0)->type());
  for (int64_t i = 0; i < x.numElements(); ++i) r.setBool(i, std::isfinite(x.getFloat(i)));
  return std::vector<Tensor>{r};
}

// --- Binary ops ---------------------------------------------------------------

struct BinaryFns {
  bool (*onBool)(bool, bool) = nullptr;
  int64_t (*onInt)(int64_t, int64_t, IntKind) = nullptr;
  double (*onFloat)(double, double) = nullptr;
  ComplexBinaryFn onComplex{};
};

// Applies `fns` to `a` and `b` (either may be a scalar that broadcasts),
// producing a tensor of type `resultType`.
Expected<Tensor> applyBinary(OpEval& e, const BinaryFns& fns, const Tensor& a, const Tensor& b,
                             Type resultType) {
  Tensor r(resultType);
  int64_t n = r.numElements();
  auto ai = [&](int64_t i) { return pairedIndex(a, n, i); };
  auto bi = [&](int64_t i) { return pairedIndex(b, n, i); };
  switch (familyOf(a.elementType())) {
    case Family::Bool:
      if (!fns.onBool) break;
      for (int64_t i = 0; i < n; ++i) r.setBool(i, fns.onBool(a.getBool(ai(i)), b.getBool(bi(i))));
      return r;
    case Family::Int: {
      if (!fns.onInt) break;
      IntKind kind = intKindOf(a.elementType());
      for (int64_t i = 0; i < n; ++i)
        r.setInt(i, fns.onInt(a.getInt(ai(i)), b.getInt(bi(i)), kind));
      return r;
    }
    case Family::Float:
      if (!fns.onFloat) break;
      for (int64_t i = 0; i < n; ++i)
        r.setFloat(i, fns.onFloat(a.getFloat(ai(i)), b.getFloat(bi(i))));
      return r;
    case Family::Complex:
      if (!fns.onComplex) break;
      for (int64_t i = 0; i < n; ++i) {
        Complex x = a.getComplex(ai(i)), y = b.getComplex(bi(i));
        r.setComplex(i, isComplex64(a) ? Complex(fns.onComplex.c64(std::complex<float>(x),
                                                                   std::complex<float>(y)))
                                       : fns.onComplex.c128(x, y));
      }
      return r;
    case Family::Other:
      break;
  }
  return unsupportedType(e, a.elementType());
}

Kernel binary(BinaryFns fns) {
  return [fns](OpEval& e) -> Results {
    return dequantizeOpQuantize(e, [&](std::span<const Tensor> xy, Type resultType) {
      return applyBinary(e, fns, xy[0], xy[1], resultType);
    });
  };
}

// Integer ops wrap: compute on the bits, and the store truncates to the width.
int64_t wrapAdd(int64_t a, int64_t b, IntKind) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapSub(int64_t a, int64_t b, IntKind) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b, IntKind) { return int64_t(uint64_t(a) * uint64_t(b)); }

// As XLA: x / 0 is -1 (all bits set), INT_MIN / -1 is INT_MIN (wraps).
int64_t intDivide(int64_t a, int64_t b, IntKind k) {
  if (b == 0) return -1;
  if (k.isUnsigned) return int64_t(uint64_t(a) / uint64_t(b));
  if (b == -1) return int64_t(0 - uint64_t(a));
  return a / b;
}

// As XLA: x % 0 is x, INT_MIN % -1 is 0; the sign follows the dividend.
int64_t intRemainder(int64_t a, int64_t b, IntKind k) {
  if (b == 0) return a;
  if (k.isUnsigned) return int64_t(uint64_t(a) % uint64_t(b));
  if (b == -1) return 0;
  return a % b;
}

// By squaring, wrapping. A negative exponent (signed types) gives what XLA
// gives: 1 for base 1, +-1 for base -1, and 0 for any other base.
int64_t intPower(int64_t base, int64_t exponent, IntKind k) {
  if (!k.isUnsigned && exponent < 0) {
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    return 0;
  }
  uint64_t result = 1, b = uint64_t(base);
  for (uint64_t e = uint64_t(exponent); e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return int64_t(result);
}

// Shift amounts are read as unsigned: a negative amount is a huge one.
int64_t shiftLeft(int64_t a, int64_t amount, IntKind k) {
  return (uint64_t(amount) & k.mask()) >= k.bits ? 0 : int64_t(uint64_t(a) << amount);
}
int64_t shiftRightLogical(int64_t a, int64_t amount, IntKind k) {
  return (uint64_t(amount) & k.mask()) >= k.bits ? 0 : int64_t((uint64_t(a) & k.mask()) >> amount);
}
// Fills with the sign bit of the value read as signed, whatever the type.
int64_t shiftRightArithmetic(int64_t a, int64_t amount, IntKind k) {
  uint64_t by = uint64_t(amount) & k.mask();
  return k.signExtend(uint64_t(a)) >> (by >= k.bits ? 63 : by);
}

int64_t intMax(int64_t a, int64_t b, IntKind k) { return k.compare(a, b) < 0 ? b : a; }
int64_t intMin(int64_t a, int64_t b, IntKind k) { return k.compare(a, b) < 0 ? a : b; }

// IEEE 754-2019 maximum/minimum: NaN wins, and -0 < +0.
double floatMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
double floatMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  if (a == 0 && b == 0) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Complex numbers order lexicographically by (real, imag), as the spec says.
template <typename T>
bool complexLess(std::complex<T> a, std::complex<T> b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}

const BinaryFns kAdd = {.onBool = [](bool a, bool b) { return a || b; },
                        .onInt = wrapAdd,
                        .onFloat = [](double a, double b) { return a + b; },
                        .onComplex = [](auto a, auto b) { return a + b; }};
const BinaryFns kSubtract = {.onInt = wrapSub,
                             .onFloat = [](double a, double b) { return a - b; },
                             .onComplex = [](auto a, auto b) { return a - b; }};
const BinaryFns kMultiply = {.onBool = [](bool a, bool b) { return a && b; },
                             .onInt = wrapMul,
                             .onFloat = [](double a, double b) { return a * b; },
                             .onComplex = [](auto a, auto b) { return cm::multiply(a, b); }};
const BinaryFns kDivide = {.onInt = intDivide,
                           .onFloat = [](double a, double b) { return a / b; },
                           .onComplex = [](auto a, auto b) { return cm::divide(a, b); }};
const BinaryFns kRemainder = {.onInt = intRemainder,
                              .onFloat = [](double a, double b) { return std::fmod(a, b); }};
const BinaryFns kPower = {.onInt = intPower,
                          .onFloat = [](double a, double b) { return std::pow(a, b); },
                          .onComplex = [](auto a, auto b) { return std::pow(a, b); }};
const BinaryFns kAtan2 = {.onFloat = [](double y, double x) { return std::atan2(y, x); },
                          .onComplex = [](auto y, auto x) { return cm::atan2(y, x); }};
const BinaryFns kMaximum = {.onBool = [](bool a, bool b) { return a || b; },
                            .onInt = intMax,
                            .onFloat = floatMax,
                            .onComplex = [](auto a, auto b) { return complexLess(a, b) ? b : a; }};
const BinaryFns kMinimum = {.onBool = [](bool a, bool b) { return a && b; },
                            .onInt = intMin,
                            .onFloat = floatMin,
                            .onComplex = [](auto a, auto b) { return complexLess(a, b) ? a : b; }};
const BinaryFns kAnd = {.onBool = [](bool a, bool b) { return a && b; },
                        .onInt = [](int64_t a, int64_t b, IntKind) { return a & b; }};
const BinaryFns kOr = {.onBool = [](bool a, bool b) { return a || b; },
                       .onInt = [](int64_t a, int64_t b, IntKind) { return a | b; }};
const BinaryFns kXor = {.onBool = [](bool a, bool b) { return a != b; },
                        .onInt = [](int64_t a, int64_t b, IntKind) { return a ^ b; }};
const BinaryFns kShiftLeft = {.onInt = shiftLeft};
const BinaryFns kShiftRightLogical = {.onInt = shiftRightLogical};
const BinaryFns kShiftRightArithmetic = {.onInt = shiftRightArithmetic};

// --- Compare ------------------------------------------------------------------

// A float's bits as a signed key whose integer order is the IEEE total order:
// -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN.
int64_t totalOrderKey(const Tensor& t, int64_t i) {
  uint64_t bits = t.getUInt(i);
  unsigned signBit = t.elementType().bitWidth() - 1;
  if (t.elementType().kind() == TypeKind::F8E8M0FNU) return int64_t(bits);  // no sign bit
  uint64_t magnitude = bits & ((uint64_t(1) << signBit) - 1);
  return (bits >> signBit) & 1 ? -int64_t(magnitude) - 1 : int64_t(magnitude);
}

Results compare(OpEval& e) {
  const Tensor& a = e.operands[0];
  const Tensor& b = e.operands[1];
  Type elementType = a.elementType();
  Attribute dirAttr = e.op.attr("comparison_direction");
  if (!dirAttr) return e.error("needs a comparison_direction");
  std::string direction = dirAttr.stringValue();
  std::string defaultType = elementType.isFloat() || elementType.isComplex() ? "FLOAT"
                            : elementType.isSignedInteger()                  ? "SIGNED"
                                                                             : "UNSIGNED";
  std::string compareType = enumAttr(e.op, "compare_type", defaultType);

  // How element i of a compares to element i of b.
  std::function<std::partial_ordering(int64_t)> order;
  if (elementType.isComplex()) {
    // Lexicographic on (real, imag), as the spec defines it.
    order = [&](int64_t i) {
      Complex x = a.getComplex(i), y = b.getComplex(i);
      std::partial_ordering re = x.real() <=> y.real();
      return re != 0 ? re : x.imag() <=> y.imag();
    };
  } else if (compareType == "TOTALORDER") {
    if (!elementType.isFloat()) return e.error("TOTALORDER compares floats only");
    order = [&](int64_t i) -> std::partial_ordering {
      return totalOrderKey(a, i) <=> totalOrderKey(b, i);
    };
  } else if (compareType == "FLOAT") {
    order = [&](int64_t i) { return a.getFloat(i) <=> b.getFloat(i); };
  } else if (compareType == "SIGNED") {
    order = [&](int64_t i) -> std::partial_ordering { return a.getInt(i) <=> b.getInt(i); };
  } else if (compareType == "UNSIGNED") {
    order = [&](int64_t i) -> std::partial_ordering { return a.getUInt(i) <=> b.getUInt(i); };
  } else {
    return e.error("unknown compare_type " + compareType);
  }

  bool (*holds)(std::partial_ordering);
  if (direction == "EQ")
    holds = [](std::partial_ordering o) { return o == 0; };
  else if (direction == "NE")
    holds = [](std::partial_ordering o) { return o != 0; };
  else if (direction == "LT")
    holds = [](std::partial_ordering o) { return o < 0; };
  else if (direction == "LE")
    holds = [](std::partial_ordering o) { return o <= 0; };
  else if (direction == "GT")
    holds = [](std::partial_ordering o) { return o > 0; };
  else if (direction == "GE")
    holds = [](std::partial_ordering o) { return o >= 0; };
  else
    return e.error("unknown comparison_direction " + direction);

  Tensor r(e.op.result(0)->type());
  for (int64_t i = 0; i < r.numElements(); ++i) r.setBool(i, holds(order(i)));
  return std::vector<Tensor>{r};
}

// --- Ternary ops --------------------------------------------------------------

Results select(OpEval& e) {
  const Tensor& pred = e.operands[0];
  const Tensor& onTrue = e.operands[1];
  const Tensor& onFalse = e.operands[2];
  Tensor r(e.op.result(0)->type());
  int64_t n = r.numElements();
  for (int64_t i = 0; i < n; ++i)
    r.copyElement(i, pred.getBool(pairedIndex(pred, n, i)) ? onTrue : onFalse, i);
  return std::vector<Tensor>{r};
}

// min(max(operand, min), max) with maximum/minimum's NaN rules.
Results clamp(OpEval& e) {
  return dequantizeOpQuantize(e, [&](std::span<const Tensor> operands,
                                     Type resultType) -> Expected<Tensor> {
    const Tensor& lo = operands[0];
    const Tensor& x = operands[1];
    const Tensor& hi = operands[2];
    KILN_ASSIGN_OR_RETURN(Tensor raised, applyBinary(e, kMaximum, x, lo, resultType));
    return applyBinary(e, kMinimum, raised, hi, resultType);
  });
}

Results makeComplex(OpEval& e) {
  const Tensor& re = e.operands[0];
  const Tensor& im = e.operands[1];
  Tensor r(e.op.result(0)->type());
  for (int64_t i = 0; i < r.numElements(); ++i) r.setComplex(i, {re.getFloat(i), im.getFloat(i)});
  return std::vector<Tensor>{r};
}

// map: runs the computation on the scalars at each index.
Results map(OpEval& e) {
  Tensor r(e.op.result(0)->type());
  for (int64_t i = 0; i < r.numElements(); ++i) {
    std::vector<Tensor> args;
    for (const Tensor& operand : e.operands) args.push_back(scalarAt(operand, i));
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> out, e.runRegion(0, std::move(args)));
    if (out.size() != 1 || out[0].type() != Type::tensor({}, r.elementType()))
      return e.error("computation must return one " + r.elementType().str() + " scalar");
    r.copyElement(i, out[0], 0);
  }
  return std::vector<Tensor>{r};
}

// --- Conversions --------------------------------------------------------------

// The integer `x` (of `k`) as a double that rounds correctly to any format of
// at most 51 significand bits: beyond 2^53 it is rounded to odd (truncated,
// with a sticky low bit), so the second rounding to the narrow format is not
// a double rounding.
double intToDoubleForNarrowing(int64_t x, IntKind k) {
  bool negative = !k.isUnsigned && x < 0;
  uint64_t magnitude = negative ? 0 - uint64_t(x) : uint64_t(x);
  int width = 64 - std::countl_zero(magnitude);
  if (width > 53) {
    int dropped = width - 53;
    bool sticky = (magnitude & ((uint64_t(1) << dropped) - 1)) != 0;
    magnitude = (magnitude >> dropped << dropped) | (uint64_t(sticky) << dropped);
  }
  double v = double(magnitude);  // exact: at most 53 significant bits
  return negative ? -v : v;
}

// Float to integer: toward zero, saturating at the type's bounds, NaN to 0
// (XLA's behaviour for the cases the spec leaves implementation-defined).
int64_t floatToInt(double v, IntKind k) {
  if (std::isnan(v)) return 0;
  double t = std::trunc(v);
  if (k.isUnsigned) {
    if (t <= 0) return 0;
    if (t >= std::ldexp(1.0, k.bits)) return int64_t(k.maxValue());
    return int64_t(uint64_t(t));
  }
  if (t < -std::ldexp(1.0, k.bits - 1)) return k.minValue();
  if (t >= std::ldexp(1.0, k.bits - 1)) return int64_t(k.maxValue());
  return int64_t(t);
}

Results convert(OpEval& e) {
  const Tensor& x = e.operands[0];
  Tensor r(e.op.result(0)->type());
  Type from = x.elementType(), to = r.elementType();
  Family fromFamily = familyOf(from), toFamily = familyOf(to);
  if (fromFamily == Family::Other) return unsupportedType(e, from);
  if (toFamily == Family::Other) return unsupportedType(e, to);
  int64_t n = x.numElements();
  for (int64_t i = 0; i < n; ++i) {
    // Read the source in its own family; complex sources convert to real
    // types through their real part, as XLA does.
    switch (toFamily) {
      case Family::Bool:
        r.setBool(i, fromFamily == Family::Complex ? x.getComplex(i) != Complex(0)
                     : fromFamily == Family::Int   ? x.getInt(i) != 0
                                                   : x.getFloat(i) != 0);
        break;
      case Family::Int:
        r.setInt(i, fromFamily == Family::Float || fromFamily == Family::Complex
                        ? floatToInt(x.getComplex(i).real(), intKindOf(to))
                        : x.getInt(i));
        break;
      case Family::Float:
      case Family::Complex: {
        Complex v;
        if (fromFamily == Family::Int)
          v = to.kind() == TypeKind::F64 || to.kind() == TypeKind::Complex128
                  ? Complex(from.isUnsignedInteger() ? double(x.getUInt(i)) : double(x.getInt(i)))
                  : Complex(intToDoubleForNarrowing(x.getInt(i), intKindOf(from)));
        else
          v = fromFamily == Family::Bool ? Complex(x.getBool(i) ? 1 : 0) : x.getComplex(i);
        if (toFamily == Family::Complex)
          r.setComplex(i, v);
        else
          r.setFloat(i, v.real());
        break;
      }
      case Family::Other:
        break;
    }
  }
  return std::vector<Tensor>{r};
}

// The bit pattern of element i: the low bitWidth() bits of its storage.
uint128 rawBits(const Tensor& t, int64_t i) {
  unsigned bytes = t.elementType().storageBytes();
  const uint8_t* p = t.bytes() + i * bytes;
  uint128 v = 0;
  for (unsigned b = 0; b < bytes; ++b) v |= uint128(p[b]) << (8 * b);
  unsigned bits = t.elementType().bitWidth();
  return bits >= 128 ? v : v & ((uint128(1) << bits) - 1);
}

// Stores a bit pattern, sign-extending narrow signed integers into their byte.
void setRawBits(Tensor& t, int64_t i, uint128 v) {
  Type type = t.elementType();
  if (type.isSignedInteger() || type.isBool()) return t.setInt(i, int64_t(uint64_t(v)));
  unsigned bytes = type.storageBytes();
  uint8_t* p = t.bytes() + i * bytes;
  for (unsigned b = 0; b < bytes; ++b) p[b] = uint8_t(v >> (8 * b));
}

// bitcast_convert between widths: a wider element splits into a trailing
// dimension of narrower ones, least significant bits first (the element order
// of a little-endian machine, as on XLA's CPU), and the reverse.
Results bitcastConvert(OpEval& e) {
  const Tensor& x = e.operands[0];
  Tensor r(e.op.result(0)->type());
  unsigned fromBits = x.elementType().bitWidth(), toBits = r.elementType().bitWidth();
  if (fromBits == 0 || toBits == 0 || (fromBits % toBits != 0 && toBits % fromBits != 0))
    return e.error("cannot reinterpret " + x.elementType().str() + " as " + r.elementType().str());
  if (fromBits >= toBits) {
    unsigned parts = fromBits / toBits;
    uint128 mask = toBits >= 128 ? ~uint128(0) : (uint128(1) << toBits) - 1;
    for (int64_t i = 0; i < x.numElements(); ++i) {
      uint128 bits = rawBits(x, i);
      for (unsigned p = 0; p < parts; ++p)
        setRawBits(r, i * parts + p, (bits >> (p * toBits)) & mask);
    }
  } else {
    unsigned parts = toBits / fromBits;
    for (int64_t i = 0; i < r.numElements(); ++i) {
      uint128 bits = 0;
      for (unsigned p = 0; p < parts; ++p) bits |= rawBits(x, i * parts + p) << (p * fromBits);
      setRawBits(r, i, bits);
    }
  }
  return std::vector<Tensor>{r};
}

// reduce_precision, on the operand's own bits as XLA does it: round the
// mantissa to `mantissa_bits` (nearest even), then send exponents beyond the
// reduced range to Inf or zero. NaNs stay NaNs.
Results reducePrecision(OpEval& e) {
  const Tensor& x = e.operands[0];
  Attribute expAttr = e.op.attr("exponent_bits"), mantAttr = e.op.attr("mantissa_bits");
  if (!expAttr || !mantAttr) return e.error("needs exponent_bits and mantissa_bits");
  int64_t exponentBits = expAttr.intValue(), mantissaBits = mantAttr.intValue();
  if (exponentBits < 1 || mantissaBits < 0)
    return e.error("has invalid exponent_bits/mantissa_bits");
  Type type = x.elementType();
  if (!type.isFloat()) return unsupportedType(e, type);
  FloatFormatInfo f = floatFormatInfo(type.kind());
  unsigned width = type.bitWidth();
  uint64_t signMask = uint64_t(1) << (width - 1);
  uint64_t expMask = ((uint64_t(1) << f.exponentBits) - 1) << f.mantissaBits;

  Tensor r(x.type());
  for (int64_t i = 0; i < x.numElements(); ++i) {
    uint64_t bits = x.getUInt(i);
    if (!std::isnan(x.getFloat(i))) {
      if (mantissaBits < f.mantissaBits) {
        int dropped = f.mantissaBits - int(mantissaBits);
        uint64_t lastKept = uint64_t(1) << dropped;
        // Adding 0111...1 plus the last kept bit rounds half to even; a carry
        // into the exponent is the correct result.
        bits += (lastKept >> 1) - 1 + ((bits & lastKept) >> dropped);
        bits &= ~(lastKept - 1);
      }
      if (exponentBits < f.exponentBits) {
        int64_t reducedBias = (int64_t(1) << (exponentBits - 1)) - 1;
        uint64_t exponent = bits & expMask;
        uint64_t maxExponent = uint64_t(f.bias + reducedBias) << f.mantissaBits;
        uint64_t minExponent = uint64_t(f.bias - reducedBias) << f.mantissaBits;
        if (exponent > maxExponent)
          bits = (bits & signMask) | expMask;  // Inf
        else if (exponent <= minExponent)
          bits &= signMask;  // zero
      }
    }
    setRawBits(r, i, bits);
  }
  return std::vector<Tensor>{r};
}

}  // namespace

void registerElementwiseKernels(KernelTable& t) {
  // Unary.
  t["stablehlo.abs"] = unary(kAbs);
  t["stablehlo.cbrt"] = unary(kCbrt);
  t["stablehlo.ceil"] = unary(kCeil);
  t["stablehlo.cosine"] = unary(kCosine);
  t["stablehlo.count_leading_zeros"] = unary(kCountLeadingZeros);
  t["stablehlo.exponential"] = unary(kExp);
  t["stablehlo.exponential_minus_one"] = unary(kExpm1);
  t["stablehlo.floor"] = unary(kFloor);
  t["stablehlo.log"] = unary(kLog);
  t["stablehlo.log_plus_one"] = unary(kLog1p);
  t["stablehlo.logistic"] = unary(kLogistic);
  t["stablehlo.negate"] = unary(kNegate);
  t["stablehlo.not"] = unary(kNot);
  t["stablehlo.popcnt"] = unary(kPopcnt);
  t["stablehlo.round_nearest_afz"] = unary(kRoundAfz);
  t["stablehlo.round_nearest_even"] = unary(kRoundEven);
  t["stablehlo.rsqrt"] = unary(kRsqrt);
  t["stablehlo.sign"] = unary(kSign);
  t["stablehlo.sine"] = unary(kSine);
  t["stablehlo.sqrt"] = unary(kSqrt);
  t["stablehlo.tan"] = unary(kTan);
  t["stablehlo.tanh"] = unary(kTanh);
  t["stablehlo.real"] = complexPart(/*imaginary=*/false);
  t["stablehlo.imag"] = complexPart(/*imaginary=*/true);
  t["stablehlo.is_finite"] = isFinite;
  t["stablehlo.convert"] = convert;
  t["stablehlo.bitcast_convert"] = bitcastConvert;
  t["stablehlo.reduce_precision"] = reducePrecision;
  // Binary.
  t["stablehlo.add"] = binary(kAdd);
  t["stablehlo.subtract"] = binary(kSubtract);
  t["stablehlo.multiply"] = binary(kMultiply);
  t["stablehlo.divide"] = binary(kDivide);
  t["stablehlo.remainder"] = binary(kRemainder);
  t["stablehlo.power"] = binary(kPower);
  t["stablehlo.atan2"] = binary(kAtan2);
  t["stablehlo.maximum"] = binary(kMaximum);
  t["stablehlo.minimum"] = binary(kMinimum);
  t["stablehlo.and"] = binary(kAnd);
  t["stablehlo.or"] = binary(kOr);
  t["stablehlo.xor"] = binary(kXor);
  t["stablehlo.shift_left"] = binary(kShiftLeft);
  t["stablehlo.shift_right_logical"] = binary(kShiftRightLogical);
  t["stablehlo.shift_right_arithmetic"] = binary(kShiftRightArithmetic);
  t["stablehlo.compare"] = compare;
  t["stablehlo.complex"] = makeComplex;
  // Ternary and regions.
  t["stablehlo.select"] = select;
  t["stablehlo.clamp"] = clamp;
  t["stablehlo.map"] = map;
}

}  // namespace kiln::interp
