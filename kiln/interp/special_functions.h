// Special functions of the chlo dialect the interpreter evaluates in double
// (special_functions.cpp): digamma, polygamma, the Hurwitz zeta function and
// the exponentially scaled modified Bessel function of order one.
#pragma once

namespace kiln::interp {

// psi(x) = d/dx ln Gamma(x).
double digamma(double x);
// psi^(n)(x), the n-th derivative of digamma (n a non-negative integer, else NaN).
double polygamma(double n, double x);
// zeta(x, q) = sum over k >= 0 of (k + q)^-x.
double hurwitzZeta(double x, double q);
// e^-|x| I1(x).
double besselI1e(double x);

}  // namespace kiln::interp
