// Kernels of the chlo.* ops that JAX exports (see kiln/ir/ops/chlo_ops.cpp).
//
// Float math is done in double and rounded once to the element type, as in
// ops_elementwise.cpp. XLA expands these ops into polynomials, so results may
// differ from XLA's by a few ULP; the kernels here aim at the correctly
// rounded value.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <numbers>
#include <numeric>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/special_functions.h"

namespace kiln::interp {

// Giles, "Approximating the erfinv function" (GPU Computing Gems, 2011): the
// single-precision polynomial, about 1e-7 relative error on (-1, 1).
static double gilesErfInv(double y) {
  double w = -std::log((1.0 - y) * (1.0 + y));
  double p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      p = c + p * w;
  }
  return p * y;
}

// A key whose signed order is the order top_k sorts by: for floats the IEEE
// total order (-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN), which is what
// XLA's TopK uses; for integers their value; for booleans false < true.
int64_t topKKey(const Tensor& t, int64_t i) {
  Type et = t.elementType();
  if (et.isFloat()) return totalOrderKey(t.getFloat(i));
  if (et.isUnsignedInteger()) return int64_t(uint64_t(t.getInt(i)) ^ (uint64_t(1) << 63));
  return t.getInt(i);
}

// erf_inv(y): Giles' approximation refined by Newton steps on erf in double.
// For y > 0.5 the residual is taken as erfc(x) - (1 - y), which keeps its
// precision as y approaches 1 (1 - y is exact for y of any float type).
double erfInv(double y) {
  if (std::isnan(y) || std::fabs(y) > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (std::fabs(y) == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  double a = std::fabs(y);
  double x = gilesErfInv(a);
  // Giles' ~1e-7 start converges to double precision in three quadratic steps.
  for (int step = 0; step < 3; ++step) {
    double residual = a > 0.5 ? (1.0 - a) - std::erfc(x) : std::erf(x) - a;
    double slope = 2.0 / std::sqrt(std::numbers::pi) * std::exp(-x * x);
    x -= residual / slope;
  }
  return std::copysign(x, y);
}

namespace {

using Results = Expected<std::vector<Tensor>>;

// A kernel applying `f` to every element of a float tensor.
Kernel unaryFloat(double (*f)(double)) {
  return [f](OpEval& e) -> Results {
    const Tensor& x = e.operands[0];
    if (!x.elementType().isFloat()) return e.error("is not defined for element type " + x.elementType().str());
    Tensor r(resultType(e));
    for (int64_t i = 0; i < x.numElements(); ++i) r.setFloat(i, f(x.getFloat(i)));
    return std::vector<Tensor>{r};
  };
}

// A kernel applying `f` to every element of a float tensor and `c` to every
// element of a complex one (computed in complex<double> and rounded once, as
// the stablehlo ops' complex kernels; std's complex functions follow C's
// Annex G branch cuts, which are NumPy's and JAX's).
Kernel unaryFloatOrComplex(double (*f)(double), std::complex<double> (*c)(const std::complex<double>&)) {
  return [f, c](OpEval& e) -> Results {
    const Tensor& x = e.operands[0];
    Type et = x.elementType();
    if (!et.isFloat() && !et.isComplex()) return e.error("is not defined for element type " + et.str());
    Tensor r(resultType(e));
    for (int64_t i = 0; i < x.numElements(); ++i) {
      if (et.isComplex())
        r.setComplex(i, c(x.getComplex(i)));
      else
        r.setFloat(i, f(x.getFloat(i)));
    }
    return std::vector<Tensor>{r};
  };
}

// A kernel applying `f` to every pair of elements of two float tensors of one type.
Kernel binaryFloat(double (*f)(double, double)) {
  return [f](OpEval& e) -> Results {
    const Tensor& x = e.operands[0];
    const Tensor& y = e.operands[1];
    if (!x.elementType().isFloat()) return e.error("is not defined for element type " + x.elementType().str());
    Tensor r(resultType(e));
    for (int64_t i = 0; i < x.numElements(); ++i) r.setFloat(i, f(x.getFloat(i), y.getFloat(i)));
    return std::vector<Tensor>{r};
  };
}

Results square(OpEval& e) {
  const Tensor& x = e.operands[0];
  Type et = x.elementType();
  Tensor r(resultType(e));
  for (int64_t i = 0; i < x.numElements(); ++i) {
    if (et.isFloat()) {
      r.setFloat(i, x.getFloat(i) * x.getFloat(i));  // exact in double for f32 and narrower
    } else if (et.isComplex()) {
      r.setComplex(i, x.getComplex(i) * x.getComplex(i));
    } else {
      return e.error("is not defined for element type " + et.str());
    }
  }
  return std::vector<Tensor>{r};
}

// Stores raw bit pattern `bits` as element `i` (little-endian storage).
void setBits(Tensor& t, int64_t i, uint64_t bits) {
  unsigned bytes = t.elementType().storageBytes();
  for (unsigned b = 0; b < bytes; ++b) t.bytes()[size_t(i) * bytes + b] = uint8_t(bits >> (8 * b));
}

// next_after(x, y): the representable neighbour of x in the direction of y,
// stepped on the element type's bit pattern (sign-magnitude), so it is exact
// for every float format.
Results nextAfter(OpEval& e) {
  const Tensor& x = e.operands[0];
  const Tensor& y = e.operands[1];
  if (!x.elementType().isFloat()) return e.error("is not defined for element type " + x.elementType().str());
  uint64_t signBit = uint64_t(1) << (x.elementType().bitWidth() - 1);
  Tensor r(resultType(e));
  for (int64_t i = 0; i < x.numElements(); ++i) {
    double a = x.getFloat(i), b = y.getFloat(i);
    if (std::isnan(a) || std::isnan(b)) {
      r.setFloat(i, std::numeric_limits<double>::quiet_NaN());
    } else if (a == b) {
      r.copyElement(i, y, i);
    } else if (a == 0) {
      setBits(r, i, (b < 0 ? signBit : 0) | 1);  // the smallest subnormal towards y
    } else {
      // Away from zero increments the magnitude bits; towards zero decrements.
      bool awayFromZero = (a < b) == (a > 0);
      uint64_t bits = x.getUInt(i);
      setBits(r, i, awayFromZero ? bits + 1 : bits - 1);
    }
  }
  return std::vector<Tensor>{r};
}

// top_k: for each row of the last dimension, the k largest entries in
// descending order and their indices; equal entries keep their order (lower
// index first), as XLA's stable sort does.
Results topK(OpEval& e) {
  const Tensor& x = e.operands[0];
  Tensor values(resultType(e, 0)), indices(resultType(e, 1));
  int64_t n = x.rank() ? x.shape().back() : 0;
  int64_t k = values.rank() ? values.shape().back() : 0;
  if (x.rank() == 0 || k > n) return e.error("expects k <= the last dimension of the operand");
  std::vector<int64_t> order(static_cast<size_t>(n)), keys(static_cast<size_t>(n));
  int64_t rows = n ? x.numElements() / n : 0;
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t j = 0; j < n; ++j) keys[size_t(j)] = topKKey(x, row * n + j);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return keys[size_t(a)] > keys[size_t(b)]; });
    for (int64_t j = 0; j < k; ++j) {
      values.copyElement(row * k + j, x, row * n + order[size_t(j)]);
      indices.setInt(row * k + j, order[size_t(j)]);
    }
  }
  return std::vector<Tensor>{values, indices};
}

}  // namespace

void registerChloKernels(KernelTable& t) {
  t["chlo.square"] = square;
  using C = std::complex<double>;
  t["chlo.acos"] = unaryFloatOrComplex([](double x) { return std::acos(x); }, [](const C& z) { return std::acos(z); });
  t["chlo.acosh"] =
      unaryFloatOrComplex([](double x) { return std::acosh(x); }, [](const C& z) { return std::acosh(z); });
  t["chlo.asin"] = unaryFloatOrComplex([](double x) { return std::asin(x); }, [](const C& z) { return std::asin(z); });
  t["chlo.asinh"] =
      unaryFloatOrComplex([](double x) { return std::asinh(x); }, [](const C& z) { return std::asinh(z); });
  t["chlo.atan"] = unaryFloatOrComplex([](double x) { return std::atan(x); }, [](const C& z) { return std::atan(z); });
  t["chlo.atanh"] =
      unaryFloatOrComplex([](double x) { return std::atanh(x); }, [](const C& z) { return std::atanh(z); });
  t["chlo.cosh"] = unaryFloatOrComplex([](double x) { return std::cosh(x); }, [](const C& z) { return std::cosh(z); });
  t["chlo.sinh"] = unaryFloatOrComplex([](double x) { return std::sinh(x); }, [](const C& z) { return std::sinh(z); });
  t["chlo.erf"] = unaryFloat([](double x) { return std::erf(x); });
  t["chlo.erfc"] = unaryFloat([](double x) { return std::erfc(x); });
  t["chlo.erf_inv"] = unaryFloat(erfInv);
  // lgamma_r: std::lgamma writes the global `signgam`, a race when several
  // replicas are interpreted at once.
  t["chlo.lgamma"] = unaryFloat([](double x) {
    int sign;
    return lgamma_r(x, &sign);
  });
  t["chlo.digamma"] = unaryFloat(digamma);
  t["chlo.polygamma"] = binaryFloat(polygamma);
  t["chlo.zeta"] = binaryFloat(hurwitzZeta);
  t["chlo.bessel_i1e"] = unaryFloat(besselI1e);
  t["chlo.next_after"] = nextAfter;
  t["chlo.top_k"] = topK;
}

}  // namespace kiln::interp
