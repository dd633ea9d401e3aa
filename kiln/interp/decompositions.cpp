// Matrix decompositions behind the LAPACK-style custom calls JAX's CPU
// lowering makes for jnp.linalg.qr (geqrf, then orgqr), eigh (syevd) and
// svd (gesdd): Householder QR with LAPACK's conventions (so R's signs and
// the reflectors are LAPACK's), and cyclic Jacobi rotations for the
// symmetric eigenproblem and the SVD -- simple, and accurate to double
// precision. Real matrices (f32, f64), in double, rounded once.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"

namespace kiln::interp {
namespace {

constexpr int kMaxSweeps = 100;

int64_t batchesOf(std::span<const int64_t> shape) {
  int64_t count = 1;
  for (size_t d = 0; d + 2 < shape.size(); ++d) count *= shape[d];
  return count;
}

Tensor fromDoubles(Type type, const std::vector<double>& values) {
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) t.setFloat(i, values[i]);
  return t;
}

// Applies H = I - tau v v^T (v[0] = 1 implied at row `top`, v's other
// entries in column `column` of `reflectors` below it) from the left to
// columns [from, cols) of the m x cols row-major `x`.
void applyReflector(const double* reflectors, int64_t reflectorCols, int64_t top, int64_t column, double tau,
                    double* x, int64_t m, int64_t cols, int64_t from) {
  if (tau == 0) return;
  for (int64_t j = from; j < cols; ++j) {
    double w = x[top * cols + j];
    for (int64_t r = top + 1; r < m; ++r) w += reflectors[r * reflectorCols + column] * x[r * cols + j];
    w *= tau;
    x[top * cols + j] -= w;
    for (int64_t r = top + 1; r < m; ++r) x[r * cols + j] -= w * reflectors[r * reflectorCols + column];
  }
}

// Sorts the n values ascending (or descending) and permutes the columns of
// the rows x n matrix `vectors` alike.
void sortWithColumns(double* values, int64_t n, double* vectors, int64_t rows, bool descending) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return descending ? values[a] > values[b] : values[a] < values[b]; });
  std::vector<double> sortedValues(n), sortedVectors(rows * n);
  for (int64_t j = 0; j < n; ++j) {
    sortedValues[j] = values[order[j]];
    for (int64_t i = 0; i < rows; ++i) sortedVectors[i * n + j] = vectors[i * n + order[j]];
  }
  std::copy(sortedValues.begin(), sortedValues.end(), values);
  std::copy(sortedVectors.begin(), sortedVectors.end(), vectors);
}

// Makes each column of the rows x n matrix have its largest-magnitude entry
// positive (the first such on ties): eigen- and singular vectors are defined
// up to sign, and this picks one deterministically. `partner` (n columns of
// its own, or null) flips with it, keeping u s v^T intact.
void fixSigns(double* vectors, int64_t rows, int64_t n, double* partner, int64_t partnerRows) {
  for (int64_t j = 0; j < n; ++j) {
    int64_t largest = 0;
    for (int64_t i = 1; i < rows; ++i)
      if (std::abs(vectors[i * n + j]) > std::abs(vectors[largest * n + j])) largest = i;
    if (vectors[largest * n + j] >= 0) continue;
    for (int64_t i = 0; i < rows; ++i) vectors[i * n + j] = -vectors[i * n + j];
    if (partner)
      for (int64_t i = 0; i < partnerRows; ++i) partner[i * n + j] = -partner[i * n + j];
  }
}

// Fills columns [from, cols) of the orthonormal-columned rows x cols matrix
// `q` with an orthonormal completion: standard basis vectors, orthogonalized
// twice against every column so far, the first that keeps enough length.
void completeBasis(double* q, int64_t rows, int64_t cols, int64_t from) {
  int64_t candidate = 0;
  for (int64_t j = from; j < cols; ++j) {
    for (; candidate < rows; ++candidate) {
      std::vector<double> v(rows, 0.0);
      v[candidate] = 1;
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t k = 0; k < j; ++k) {
          double dot = 0;
          for (int64_t i = 0; i < rows; ++i) dot += q[i * cols + k] * v[i];
          for (int64_t i = 0; i < rows; ++i) v[i] -= dot * q[i * cols + k];
        }
      double norm = 0;
      for (double x : v) norm += x * x;
      norm = std::sqrt(norm);
      if (norm < 0.5) continue;
      for (int64_t i = 0; i < rows; ++i) q[i * cols + j] = v[i] / norm;
      ++candidate;
      break;
    }
  }
}

// One-sided Jacobi SVD of the m x n (m >= n) row-major `a`: singular values
// descending in s (n), u (m x m: n singular vectors, then a completion) and
// v (n x n, columns).
void jacobiSvd(std::vector<double> a, int64_t m, int64_t n, double* s, double* u, double* v) {
  std::fill(v, v + n * n, 0.0);
  for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
  double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += a[i * n + p] * a[i * n + p];
          beta += a[i * n + q] * a[i * n + q];
          gamma += a[i * n + p] * a[i * n + q];
        }
        if (gamma == 0 || std::abs(gamma) <= eps * std::sqrt(alpha * beta)) continue;
        rotated = true;
        double zeta = (beta - alpha) / (2 * gamma);
        double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        for (int64_t i = 0; i < m; ++i) {
          double x = a[i * n + p], y = a[i * n + q];
          a[i * n + p] = c * x - sn * y;
          a[i * n + q] = sn * x + c * y;
        }
        for (int64_t i = 0; i < n; ++i) {
          double x = v[i * n + p], y = v[i * n + q];
          v[i * n + p] = c * x - sn * y;
          v[i * n + q] = sn * x + c * y;
        }
      }
    if (!rotated) break;
  }
  for (int64_t j = 0; j < n; ++j) {
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += a[i * n + j] * a[i * n + j];
    s[j] = std::sqrt(norm);
  }
  // Columns of a are s_j u_j; sort by s, then normalize.
  std::vector<double> values(s, s + n);
  sortWithColumns(values.data(), n, a.data(), m, /*descending=*/true);
  sortWithColumns(s, n, v, n, /*descending=*/true);
  std::fill(u, u + m * m, 0.0);
  int64_t nonzero = 0;
  double tiny = s[0] * eps * std::max(m, n);
  while (nonzero < n && s[nonzero] > tiny && s[nonzero] > 0) ++nonzero;
  for (int64_t j = 0; j < nonzero; ++j)
    for (int64_t i = 0; i < m; ++i) u[i * m + j] = a[i * n + j] / s[j];
  completeBasis(u, m, m, nonzero);
}

}  // namespace

Tensor householderQr(const Tensor& a, Type resultType, Type tauType, Tensor& tau) {
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = std::min(m, n);
  std::vector<double> x = loadAs<double>(a), taus(batchesOf(a.shape()) * k);
  for (int64_t batch = 0; batch < batchesOf(a.shape()); ++batch) {
    double* am = x.data() + batch * m * n;
    for (int64_t i = 0; i < k; ++i) {
      // LAPACK's dlarfg: beta = -sign(alpha) |(alpha, x)|, tau = (beta - alpha) / beta,
      // v = x / (alpha - beta); nothing to reflect when x is zero.
      double alpha = am[i * n + i], norm = 0;
      for (int64_t r = i + 1; r < m; ++r) norm = std::hypot(norm, am[r * n + i]);
      double t = 0;
      if (norm != 0) {
        double beta = -std::copysign(std::hypot(alpha, norm), alpha);
        t = (beta - alpha) / beta;
        double scale = 1 / (alpha - beta);
        for (int64_t r = i + 1; r < m; ++r) am[r * n + i] *= scale;
        am[i * n + i] = beta;
      }
      taus[batch * k + i] = t;
      applyReflector(am, n, i, i, t, am, m, n, i + 1);
    }
  }
  tau = fromDoubles(tauType, taus);
  return fromDoubles(resultType, x);
}

Tensor householderProduct(const Tensor& a, const Tensor& tau, Type resultType) {
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = tau.shape().back();
  std::vector<double> reflectors = loadAs<double>(a), taus = loadAs<double>(tau), q(reflectors.size());
  for (int64_t batch = 0; batch < batchesOf(a.shape()); ++batch) {
    const double* am = reflectors.data() + batch * m * n;
    double* qm = q.data() + batch * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) qm[i * n + j] = i == j ? 1.0 : 0.0;
    // Q = H(0) H(1) ... H(k-1) applied to the first n columns of I.
    for (int64_t i = std::min(k, n); i-- > 0;) applyReflector(am, n, i, i, taus[batch * k + i], qm, m, n, 0);
  }
  return fromDoubles(resultType, q);
}

void symmetricEigen(const Tensor& a, bool lower, Type vectorsType, Type valuesType, Tensor& vectors, Tensor& values,
                    std::vector<int64_t>& info) {
  int64_t n = a.shape().back();
  std::vector<double> in = loadAs<double>(a), vs(in.size()), ws(batchesOf(a.shape()) * n);
  double eps = std::numeric_limits<double>::epsilon();
  for (int64_t batch = 0; batch < batchesOf(a.shape()); ++batch) {
    const double* am = in.data() + batch * n * n;
    std::vector<double> s(n * n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        bool stored = lower ? j <= i : j >= i;
        s[i * n + j] = stored ? am[i * n + j] : am[j * n + i];
      }
    double* v = vs.data() + batch * n * n;
    for (int64_t i = 0; i < n; ++i) v[i * n + i] = 1;
    // Sweeps until none rotates: an off-diagonal entry is left alone once it
    // is below double's epsilon relative to its two diagonal entries.
    bool converged = false;
    for (int sweep = 0; sweep < kMaxSweeps && !converged; ++sweep) {
      converged = true;
      for (int64_t p = 0; p < n; ++p)
        for (int64_t q = p + 1; q < n; ++q) {
          double apq = s[p * n + q];
          if (std::abs(apq) <= eps * std::sqrt(std::abs(s[p * n + p] * s[q * n + q])) || apq == 0) continue;
          converged = false;
          double theta = (s[q * n + q] - s[p * n + p]) / (2 * apq);
          double t = std::copysign(1.0, theta) / (std::abs(theta) + std::sqrt(1 + theta * theta));
          double c = 1 / std::sqrt(1 + t * t), sn = c * t;
          for (int64_t k = 0; k < n; ++k) {  // columns p and q
            double x = s[k * n + p], y = s[k * n + q];
            s[k * n + p] = c * x - sn * y;
            s[k * n + q] = sn * x + c * y;
          }
          for (int64_t k = 0; k < n; ++k) {  // rows p and q
            double x = s[p * n + k], y = s[q * n + k];
            s[p * n + k] = c * x - sn * y;
            s[q * n + k] = sn * x + c * y;
          }
          for (int64_t k = 0; k < n; ++k) {
            double x = v[k * n + p], y = v[k * n + q];
            v[k * n + p] = c * x - sn * y;
            v[k * n + q] = sn * x + c * y;
          }
        }
    }
    double* w = ws.data() + batch * n;
    for (int64_t i = 0; i < n; ++i) w[i] = s[i * n + i];
    sortWithColumns(w, n, v, n, /*descending=*/false);
    fixSigns(v, n, n, nullptr, 0);
    info.push_back(converged || n <= 1 ? 0 : 1);
  }
  vectors = fromDoubles(vectorsType, vs);
  values = fromDoubles(valuesType, ws);
}

void singularValueDecomposition(const Tensor& a, Type valuesType, Type uType, Type vtType, Tensor& values, Tensor& u,
                                Tensor& vt) {
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = std::min(m, n);
  std::vector<double> in = loadAs<double>(a);
  int64_t uRows = uType.shape()[uType.rank() - 2], uCols = uType.shape().back();
  int64_t vtRows = vtType.shape()[vtType.rank() - 2], vtCols = vtType.shape().back();
  std::vector<double> ss(batchesOf(a.shape()) * k), us(batchesOf(a.shape()) * uRows * uCols),
      vts(batchesOf(a.shape()) * vtRows * vtCols);
  for (int64_t batch = 0; batch < batchesOf(a.shape()); ++batch) {
    const double* am = in.data() + batch * m * n;
    // a = U S V^T: with m >= n from a's columns; else from a^T = V S U^T.
    bool tall = m >= n;
    int64_t rows = tall ? m : n, cols = k;
    std::vector<double> work(rows * cols), left(rows * rows), right(cols * cols), s(cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) work[i * cols + j] = tall ? am[i * n + j] : am[j * n + i];
    jacobiSvd(work, rows, cols, s.data(), left.data(), right.data());
    // Sign: the first k columns of the left vectors, the right ones flipping with them.
    std::vector<double> leading(rows * cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) leading[i * cols + j] = left[i * rows + j];
    fixSigns(leading.data(), rows, cols, right.data(), cols);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) left[i * rows + j] = leading[i * cols + j];
    // U (m x m) and V (n x n) of a.
    std::vector<double> uFull(m * m), vFull(n * n);
    if (tall) {
      uFull = left;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) vFull[i * n + j] = right[i * n + j];
    } else {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < m; ++j) uFull[i * m + j] = right[i * m + j];
      vFull = left;
    }
    std::copy(s.begin(), s.end(), ss.begin() + batch * k);
    double* ub = us.data() + batch * uRows * uCols;
    for (int64_t i = 0; i < uRows && i < m; ++i)
      for (int64_t j = 0; j < uCols && j < m; ++j) ub[i * uCols + j] = uFull[i * m + j];
    double* vb = vts.data() + batch * vtRows * vtCols;
    for (int64_t i = 0; i < vtRows && i < n; ++i)
      for (int64_t j = 0; j < vtCols && j < n; ++j) vb[i * vtCols + j] = vFull[j * n + i];
  }
  values = fromDoubles(valuesType, ss);
  u = fromDoubles(uType, us);
  vt = fromDoubles(vtType, vts);
}

}  // namespace kiln::interp
