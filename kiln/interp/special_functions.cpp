// Special functions behind chlo.digamma, chlo.polygamma, chlo.zeta and
// chlo.bessel_i1e (ops_chlo.cpp), in double. Poles and domain errors follow
// what XLA:CPU returns for the same ops: NaN at digamma's poles (the
// non-positive integers), +inf for zeta(1, q), NaN for zeta(x < 1, q), and at
// a non-positive integer q the natural value of the sum's pole term
// ((k + q)^-x at k + q = 0: +inf for an even integer x, NaN otherwise).
#include "kiln/interp/special_functions.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace kiln::interp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// B_2, B_4, ..., B_24: the Bernoulli numbers of the asymptotic series.
constexpr double kBernoulli[] = {1.0 / 6,           -1.0 / 30,         1.0 / 42,       -1.0 / 30,
                                 5.0 / 66,          -691.0 / 2730,     7.0 / 6,        -3617.0 / 510,
                                 43867.0 / 798,     -174611.0 / 330,   854513.0 / 138, -236364091.0 / 2730};

bool isInteger(double x) { return std::isfinite(x) && x == std::floor(x); }

}  // namespace

double digamma(double x) {
  if (std::isnan(x) || x == -kInf) return kNaN;
  if (x == kInf) return kInf;
  if (x <= 0 && isInteger(x)) return kNaN;
  if (x < 0.5) {
    // Reflection: psi(x) = psi(1 - x) - pi / tan(pi x), tan's period taken
    // off exactly first so that large |x| keeps its fraction.
    double fraction = x - std::nearbyint(x);
    return digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * fraction);
  }
  // Recurrence up to y >= 10, then psi(y) = ln y - 1/(2y) - sum B_2k / (2k y^2k).
  double shift = 0;
  while (x < 10) {
    shift -= 1 / x;
    x += 1;
  }
  double inverseSquare = 1 / (x * x), power = inverseSquare, series = 0;
  for (int k = 1; k <= 6; ++k, power *= inverseSquare) series += kBernoulli[k - 1] / (2 * k) * power;
  return shift + std::log(x) - 0.5 / x - series;
}

double hurwitzZeta(double x, double q) {
  if (std::isnan(x) || std::isnan(q)) return kNaN;
  if (x == 1) return kInf;
  if (x < 1) return kNaN;
  if (q <= 0 && !isInteger(x)) return kNaN;  // a negative base to a fractional power
  if (q <= 0 && isInteger(q)) return std::fmod(x, 2) == 0 ? kInf : kNaN;
  // The first terms summed directly until a = n + q >= 10, then the tail by
  // Euler-Maclaurin: a^(1-x) / (x-1) + a^-x / 2
  //   + sum_j B_2j / (2j)! x (x+1) ... (x+2j-2) a^(-x-2j+1).
  double sum = 0, a = q;
  while (a < 10) {
    sum += std::pow(a, -x);
    a += 1;
  }
  double term = std::pow(a, -x);
  double tail = a * term / (x - 1) + term / 2;
  double rising = x, factorial = 2, power = term / a;  // x, (2j)!, a^(-x-2j+1)
  for (int j = 1; j <= 12; ++j) {
    double next = kBernoulli[j - 1] / factorial * rising * power;
    tail += next;
    if (std::abs(next) <= 1e-17 * std::abs(sum + tail)) break;
    rising *= (x + 2 * j - 1) * (x + 2 * j);
    factorial *= (2 * j + 1) * (2 * j + 2);
    power /= a * a;
  }
  return sum + tail;
}

double polygamma(double n, double x) {
  if (!isInteger(n) || n < 0) return kNaN;
  if (n == 0) return digamma(x);
  // psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x).
  double sign = std::fmod(n, 2) == 0 ? -1 : 1;
  return sign * std::exp(std::lgamma(n + 1)) * hurwitzZeta(n + 1, x);
}

double besselI1e(double x) {
  if (std::isnan(x)) return x;
  double a = std::abs(x);
  if (a == kInf) return std::copysign(0.0, x);
  double result;
  if (a <= 30) {
    // I1(a) = sum (a/2)^(2k+1) / (k! (k+1)!): positive terms, no cancellation.
    double half = a / 2, term = half, sum = term;
    for (int k = 1; k < 200 && term > 1e-17 * sum; ++k) {
      term *= half * half / (k * (k + 1.0));
      sum += term;
    }
    result = sum * std::exp(-a);
  } else {
    // e^-a I1(a) ~ 1/sqrt(2 pi a) sum_k (-1)^k prod_{j<=k} (4 - (2j-1)^2) / (k! (8a)^k).
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      double factor = -(4.0 - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * a);
      if (std::abs(factor) >= 1) break;  // the asymptotic series turns
      term *= factor;
      sum += term;
      if (std::abs(term) < 1e-17 * std::abs(sum)) break;
    }
    result = sum / std::sqrt(2 * std::numbers::pi * a);
  }
  return std::copysign(result, x);
}

}  // namespace kiln::interp
