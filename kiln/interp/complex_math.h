// Complex arithmetic and functions as XLA computes them.
//
// std::complex follows C's Annex G (it recovers infinities from NaN parts,
// computes |z| with a correctly rounded hypot); XLA evaluates the textbook
// formulas below in the component precision, so complex64 rounds every step
// to f32. The interpreter is the oracle XLA-generated tests are checked
// against, so it uses the same formulas, templated on the component type T
// (float for complex64, double for complex128). Calls between these functions
// are qualified: unqualified, argument-dependent lookup would also find the
// std:: overloads of the same names.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace kiln::interp::complex_math {

template <typename T>
using C = std::complex<T>;

// NaN-propagating max/min of magnitudes.
template <typename T>
T nanMax(T a, T b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : std::max(a, b);
}
template <typename T>
T nanMin(T a, T b) {
  return std::isnan(a) || std::isnan(b) ? std::numeric_limits<T>::quiet_NaN() : std::min(a, b);
}

// (a + bi)(c + di) = (ac - bd) + (ad + bc)i, with no recovery of infinities.
// XLA's CPU code generator contracts each sum of products into one fused
// multiply-add, rounding once less; so do we, the same way round.
template <typename T>
C<T> multiply(C<T> x, C<T> y) {
  T a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  return {std::fma(a, c, -(b * d)), std::fma(b, c, a * d)};
}

// Smith's algorithm, then the three cases where it yields (NaN, NaN) but the
// quotient has a limit: a zero divisor, an infinite dividend over a finite
// divisor, and a finite dividend over an infinite divisor.
template <typename T>
C<T> divide(C<T> x, C<T> y) {
  const T inf = std::numeric_limits<T>::infinity();
  T a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  // The products-plus-sums are fused multiply-adds, as in XLA's CPU code.
  C<T> q;
  if (std::fabs(c) < std::fabs(d)) {
    T ratio = c / d, denom = std::fma(ratio, c, d);
    q = {std::fma(ratio, a, b) / denom, std::fma(ratio, b, -a) / denom};
  } else {
    T ratio = d / c, denom = std::fma(ratio, d, c);
    q = {std::fma(ratio, b, a) / denom, std::fma(-ratio, a, b) / denom};
  }
  if (!std::isnan(q.real()) || !std::isnan(q.imag())) return q;

  auto unitIf = [](bool cond, T signOf) { return std::copysign(cond ? T(1) : T(0), signOf); };
  if (c == 0 && d == 0 && (!std::isnan(a) || !std::isnan(b))) {
    T s = std::copysign(inf, c);
    return {s * a, s * b};
  }
  bool aInf = std::isinf(a), bInf = std::isinf(b), cInf = std::isinf(c), dInf = std::isinf(d);
  if ((aInf || bInf) && std::isfinite(c) && std::isfinite(d)) {
    T sa = unitIf(aInf, a), sb = unitIf(bInf, b);
    return {inf * (sa * c + sb * d), inf * (sb * c - sa * d)};
  }
  if ((cInf || dInf) && std::isfinite(a) && std::isfinite(b)) {
    T sc = unitIf(cInf, c), sd = unitIf(dInf, d);
    return {T(0) * (a * sc + b * sd), T(0) * (b * sc - a * sd)};
  }
  return q;
}

// |a + bi| = max * sqrt(1 + (min / max)^2) without overflow; when that is NaN
// ((0, 0), (Inf, Inf) or a NaN part), the result is min.
template <typename T>
T abs(C<T> z) {
  T re = std::fabs(z.real()), im = std::fabs(z.imag());
  T hi = nanMax(re, im), lo = nanMin(re, im);
  T ratio = lo / hi;
  T r = hi * std::sqrt(std::fma(ratio, ratio, T(1)));
  return std::isnan(r) ? lo : r;
}

template <typename T>
C<T> sign(C<T> z) {
  T r = complex_math::abs(z);
  return r == 0 ? C<T>(0, 0) : C<T>(z.real() / r, z.imag() / r);
}

// e^(a + bi) = e^a (cos b + i sin b); a real argument stays real (so
// e^(Inf + 0i) is Inf + 0i, not Inf + NaN i).
template <typename T>
C<T> exp(C<T> z) {
  T ea = std::exp(z.real()), b = z.imag();
  return {ea * std::cos(b), b == 0 ? b : ea * std::sin(b)};
}

// e^z - 1 = (expm1(a) cos b + cosm1(b)) + i e^a sin b, with
// cosm1(b) = cos b - 1 = -2 sin^2(b / 2) to keep small arguments accurate.
template <typename T>
C<T> expm1(C<T> z) {
  T a = z.real(), b = z.imag();
  T em1 = std::expm1(a);
  T s = std::sin(b / 2);
  T cosm1 = T(-2) * s * s;
  T im = b == 0 ? T(0) : (em1 + T(1)) * std::sin(b);
  return {em1 * (cosm1 + T(1)) + cosm1, im};
}

// log z = log|z| + i atan2(b, a).
template <typename T>
C<T> log(C<T> z) {
  return {std::log(complex_math::abs(z)), std::atan2(z.imag(), z.real())};
}

// log(1 + z): the real part is log(max) + log1p((min/max)^2) / 2 over the
// magnitudes of 1 + a and b, with log(max) as log1p(a) when 1 + a dominates.
template <typename T>
C<T> log1p(C<T> z) {
  T a = z.real(), b = z.imag();
  T a1 = a + T(1);
  T hi = nanMax(std::fabs(a1), std::fabs(b)), lo = nanMin(std::fabs(a1), std::fabs(b));
  T hiMinusOne = a1 > std::fabs(b) ? a : hi - T(1);
  T ratio = lo / hi;
  T re = T(0.5) * std::log1p(ratio * ratio) + std::log1p(hiMinusOne);
  return {std::isnan(re) ? lo : re, std::atan2(b, a1)};
}

// sin and cos through sinh y and cosh y computed from one exp.
template <typename T>
C<T> sin(C<T> z) {
  T halfExp = T(0.5) * std::exp(z.imag()), halfExpNeg = T(0.5) / std::exp(z.imag());
  return {std::sin(z.real()) * (halfExp + halfExpNeg), std::cos(z.real()) * (halfExp - halfExpNeg)};
}
template <typename T>
C<T> cos(C<T> z) {
  T halfExp = T(0.5) * std::exp(z.imag()), halfExpNeg = T(0.5) / std::exp(z.imag());
  return {std::cos(z.real()) * (halfExp + halfExpNeg),
          -(std::sin(z.real()) * (halfExp - halfExpNeg))};
}

// tanh(a + bi) = (e^2a - e^-2a + 2i sin 2b) / (e^2a + e^-2a + 2 cos 2b),
// written with expm1 and 2 cos 2b + 2 = 4 cos^2 b, 2 sin 2b = 4 cos b sin b.
template <typename T>
C<T> tanh(C<T> z) {
  T a = z.real(), b = z.imag();
  T em1 = std::expm1(a + a), emNeg1 = std::expm1(-(a + a));
  T cb = std::cos(b), sb = std::sin(b);
  T imagNumerator = T(4) * (cb * sb);
  T expSumMinus2 = em1 + emNeg1;
  T denom = expSumMinus2 + cb * cb * T(4);
  bool saturated = expSumMinus2 == std::numeric_limits<T>::infinity();
  T re = saturated ? std::copysign(T(1), a) : (em1 - emNeg1) / denom;
  T im = imagNumerator / denom;
  // Corner cases: a finite a with an infinite or NaN b gives NaN; b = 0, or
  // an infinite a with such a b, gives an imaginary part of +0.
  bool sin2bNaN = std::isnan(imagNumerator), aInf = std::isinf(a);
  if (sin2bNaN && !aInf) re = std::numeric_limits<T>::quiet_NaN();
  if (b == 0 || (aInf && sin2bNaN)) im = 0;
  return {re, im};
}

// tan z = -i tanh(iz), with iz = -b + ai.
template <typename T>
C<T> tan(C<T> z) {
  C<T> t = complex_math::tanh(C<T>(-z.imag(), z.real()));
  return {t.imag(), -t.real()};
}

template <typename T>
C<T> cbrt(C<T> z) {
  return std::pow(z, T(1) / T(3));
}

template <typename T>
C<T> rsqrt(C<T> z) {
  return complex_math::divide(C<T>(1), std::sqrt(z));
}

// 1 / (1 + e^-z).
template <typename T>
C<T> logistic(C<T> z) {
  return complex_math::divide(C<T>(1), C<T>(1) + complex_math::exp(-z));
}

// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)).
template <typename T>
C<T> atan2(C<T> y, C<T> x) {
  const C<T> i(0, 1);
  C<T> norm = std::sqrt(complex_math::multiply(x, x) + complex_math::multiply(y, y));
  C<T> unit = complex_math::divide(x + complex_math::multiply(i, y), norm);
  return complex_math::multiply(-i, complex_math::log(unit));
}

}  // namespace kiln::interp::complex_math
