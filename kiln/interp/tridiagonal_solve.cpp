// Tridiagonal systems as LAPACK's gtsv solves them (behind JAX's
// lax.linalg.tridiagonal_solve on CPU): Gaussian elimination with partial
// pivoting by adjacent row interchanges, which fills in a second
// superdiagonal, then back substitution. The algorithm follows zgtsv step by
// step (for real types dgtsv makes the same choices), so the factors left in
// dl, d and du are LAPACK's; it runs in complex<double> and rounds once.
// jaxlib's tridiagonal_solve_perturbed_ffi (perturb_singular=True, behind
// jax.scipy.linalg.eigh_tridiagonal's inverse iteration) eliminates alike
// without stopping at zero pivots and raises tiny pivots to
// eps * max |U(i, j)| before the back substitution.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"

namespace kiln::interp {
namespace {

using Complex = std::complex<double>;

// LAPACK's pivot measure: |re| + |im| (|x| for real values).
double magnitude(Complex x) { return std::abs(x.real()) + std::abs(x.imag()); }

// Gaussian elimination with partial pivoting of one system of order n with
// `nrhs` right-hand sides, b row-major n x nrhs; dl[k] is A(k+1, k) for
// k < n-1, d[k] = A(k, k), du[k] = A(k, k+1). Leaves U in d, du and dl (its
// second superdiagonal) and L^-1 P b in b. Returns 0, or -- when
// `stopAtZeroPivot`, as LAPACK does -- the 1-based index of an exactly zero
// pivot (info), the arrays left as far as elimination went.
int64_t eliminate(Complex* dl, Complex* d, Complex* du, Complex* b, int64_t n, int64_t nrhs, bool stopAtZeroPivot) {
  for (int64_t k = 0; k + 1 < n; ++k) {
    if (dl[k] == 0.0) {
      // The subdiagonal is already zero: nothing to eliminate.
      if (d[k] == 0.0 && stopAtZeroPivot) return k + 1;
    } else if (magnitude(d[k]) >= magnitude(dl[k])) {
      Complex multiplier = dl[k] / d[k];
      d[k + 1] -= multiplier * du[k];
      for (int64_t j = 0; j < nrhs; ++j) b[(k + 1) * nrhs + j] -= multiplier * b[k * nrhs + j];
      if (k + 2 < n) dl[k] = 0;
    } else {
      // Interchange rows k and k+1; dl[k] then holds the fill-in A(k, k+2).
      Complex multiplier = d[k] / dl[k];
      d[k] = dl[k];
      Complex temp = d[k + 1];
      d[k + 1] = du[k] - multiplier * temp;
      if (k + 2 < n) {
        dl[k] = du[k + 1];
        du[k + 1] = -multiplier * dl[k];
      }
      du[k] = temp;
      for (int64_t j = 0; j < nrhs; ++j) {
        Complex top = b[k * nrhs + j];
        b[k * nrhs + j] = b[(k + 1) * nrhs + j];
        b[(k + 1) * nrhs + j] = top - multiplier * b[(k + 1) * nrhs + j];
      }
    }
  }
  if (n > 0 && d[n - 1] == 0.0 && stopAtZeroPivot) return n;
  return 0;
}

// Solves U x = b in place (U: diagonal d, superdiagonals du and dl).
void backSubstitute(const Complex* dl, const Complex* d, const Complex* du, Complex* b, int64_t n, int64_t nrhs) {
  for (int64_t j = 0; j < nrhs; ++j) {
    auto x = [&](int64_t i) -> Complex& { return b[i * nrhs + j]; };
    x(n - 1) /= d[n - 1];
    if (n > 1) x(n - 2) = (x(n - 2) - du[n - 2] * x(n - 1)) / d[n - 2];
    for (int64_t i = n - 3; i >= 0; --i) x(i) = (x(i) - du[i] * x(i + 1) - dl[i] * x(i + 2)) / d[i];
  }
}

// Raises every pivot of U smaller than eps * max |U(i, j)| to that size,
// keeping its sign (phase): a singular system then has a large but finite
// solution, which is what inverse iteration needs.
void perturbTinyPivots(const Complex* dl, Complex* d, const Complex* du, int64_t n, double eps) {
  double largest = 0;
  for (int64_t i = 0; i < n; ++i) {
    largest = std::max(largest, std::abs(d[i]));
    if (i + 1 < n) largest = std::max(largest, std::abs(du[i]));
    if (i + 2 < n) largest = std::max(largest, std::abs(dl[i]));
  }
  double tiny = std::max(eps * largest, std::numeric_limits<double>::min());
  for (int64_t i = 0; i < n; ++i)
    if (std::abs(d[i]) < tiny) d[i] = d[i] == 0.0 ? Complex(tiny) : tiny * d[i] / std::abs(d[i]);
}

}  // namespace

std::vector<Tensor> tridiagonalSolve(const Tensor& dlIn, const Tensor& dIn, const Tensor& duIn, const Tensor& bIn,
                                     Type infoType) {
  std::vector<Complex> dl = loadAs<Complex>(dlIn), d = loadAs<Complex>(dIn), du = loadAs<Complex>(duIn),
                       b = loadAs<Complex>(bIn);
  int64_t n = dIn.shape().back(), nrhs = bIn.shape().back();
  int64_t batches = n == 0 ? 0 : dIn.numElements() / n;
  Tensor info(infoType);
  for (int64_t batch = 0; batch < batches; ++batch) {
    // JAX passes A(k, k-1) as dl[k] (dl[0] unused), so LAPACK's DL starts at
    // dl[1]; its output overwrites dl[1..n-1] alike.
    Complex *l = dl.data() + batch * n + 1, *m = d.data() + batch * n, *u = du.data() + batch * n,
            *x = b.data() + batch * n * nrhs;
    int64_t status = eliminate(l, m, u, x, n, nrhs, /*stopAtZeroPivot=*/true);
    if (status == 0) backSubstitute(l, m, u, x, n, nrhs);
    info.setInt(batch, status);
  }
  return {tensorFromComplex(dlIn.type(), dl), tensorFromComplex(dIn.type(), d), tensorFromComplex(duIn.type(), du),
          tensorFromComplex(bIn.type(), b), info};
}

Tensor tridiagonalSolvePerturbed(const Tensor& dlIn, const Tensor& dIn, const Tensor& duIn, const Tensor& bIn) {
  std::vector<Complex> dl = loadAs<Complex>(dlIn), d = loadAs<Complex>(dIn), du = loadAs<Complex>(duIn),
                       b = loadAs<Complex>(bIn);
  int64_t n = dIn.shape().back(), nrhs = bIn.shape().back();
  int64_t batches = n == 0 ? 0 : dIn.numElements() / n;
  // The perturbation is relative to the precision of the operands' type.
  Type element = dIn.elementType();
  bool wide = element.isComplex() ? element.complexElement().bitWidth() == 64 : element.bitWidth() == 64;
  double eps = wide ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  for (int64_t batch = 0; batch < batches; ++batch) {
    Complex *l = dl.data() + batch * n + 1, *m = d.data() + batch * n, *u = du.data() + batch * n,
            *x = b.data() + batch * n * nrhs;
    static_cast<void>(eliminate(l, m, u, x, n, nrhs, /*stopAtZeroPivot=*/false));
    perturbTinyPivots(l, m, u, n, eps);
    backSubstitute(l, m, u, x, n, nrhs);
  }
  return tensorFromComplex(bIn.type(), b);
}

}  // namespace kiln::interp
