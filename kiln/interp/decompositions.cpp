// Matrix decompositions behind the LAPACK-style custom calls JAX's CPU
// lowering makes for jnp.linalg.qr (geqrf, then orgqr), eigh (syevd) and
// svd (gesdd): Householder QR with LAPACK's conventions (so R's signs and
// the reflectors are LAPACK's); the symmetric eigenproblem by Householder
// tridiagonalization and implicit QL iterations (the classic tred2/tql2
// scheme); the SVD by one-sided Jacobi rotations. Real matrices (f32, f64),
// in double, rounded once.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"

namespace kiln::interp {
namespace {

constexpr int kMaxSweeps = 100;

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
void jacobiSvd(const std::vector<double>& a, int64_t m, int64_t n, double* s, double* u, double* v) {
  // Rotations mix pairs of columns: kept as rows (at: a's columns, vt: v's),
  // so that each is one contiguous pass.
  std::vector<double> at(n * m), vt(n * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) at[j * m + i] = a[i * n + j];
  for (int64_t i = 0; i < n; ++i) vt[i * n + i] = 1;
  double eps = std::numeric_limits<double>::epsilon();
  auto rotate = [](double* x, double* y, int64_t length, double c, double sn) {
    for (int64_t i = 0; i < length; ++i) {
      double xi = x[i], yi = y[i];
      x[i] = c * xi - sn * yi;
      y[i] = sn * xi + c * yi;
    }
  };
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double* cp = at.data() + p * m;
        double* cq = at.data() + q * m;
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += cp[i] * cp[i];
          beta += cq[i] * cq[i];
          gamma += cp[i] * cq[i];
        }
        if (gamma == 0 || std::abs(gamma) <= eps * std::sqrt(alpha * beta)) continue;
        rotated = true;
        double zeta = (beta - alpha) / (2 * gamma);
        double t = std::copysign(1.0, zeta) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), sn = c * t;
        rotate(cp, cq, m, c, sn);
        rotate(vt.data() + p * n, vt.data() + q * n, n, c, sn);
      }
    if (!rotated) break;
  }
  // Column j of the rotated a is s_j u_j: sort by s, then normalize.
  for (int64_t j = 0; j < n; ++j) {
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += at[j * m + i] * at[j * m + i];
    s[j] = std::sqrt(norm);
  }
  std::vector<double> columns(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) columns[i * n + j] = at[j * m + i];
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) v[i * n + j] = vt[j * n + i];
  std::vector<double> values(s, s + n);
  sortWithColumns(values.data(), n, columns.data(), m, /*descending=*/true);
  sortWithColumns(s, n, v, n, /*descending=*/true);
  std::fill(u, u + m * m, 0.0);
  int64_t nonzero = 0;
  double tiny = s[0] * eps * std::max(m, n);
  while (nonzero < n && s[nonzero] > tiny && s[nonzero] > 0) ++nonzero;
  for (int64_t j = 0; j < nonzero; ++j)
    for (int64_t i = 0; i < m; ++i) u[i * m + j] = columns[i * n + j] / s[j];
  completeBasis(u, m, m, nonzero);
}

}  // namespace

Tensor householderQr(const Tensor& a, Type resultType, Type tauType, Tensor& tau) {
  int64_t m = a.shape()[a.rank() - 2], n = a.shape().back(), k = std::min(m, n);
  std::vector<double> x = loadAs<double>(a), taus(matrixBatchCount(a.shape()) * k);
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
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
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
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
  std::vector<double> in = loadAs<double>(a), vs(in.size()), ws(matrixBatchCount(a.shape()) * n);
  double eps = std::numeric_limits<double>::epsilon();
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
    const double* am = in.data() + batch * n * n;
    std::vector<double> s(n * n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        bool stored = lower ? j <= i : j >= i;
        s[i * n + j] = stored ? am[i * n + j] : am[j * n + i];
      }
    // 1. Householder reflections H = I - 2 v v^T make s tridiagonal:
    // H s H = s - 2 v w^T - 2 w v^T with p = s v, w = p - (v^T p) v. qt
    // accumulates Q^T (s = Q T Q^T), row by row.
    std::vector<double> qt(n * n, 0.0), v(n), p(n), w(n);
    for (int64_t i = 0; i < n; ++i) qt[i * n + i] = 1;
    for (int64_t k = 0; k + 2 < n; ++k) {
      double norm = 0;
      for (int64_t i = k + 1; i < n; ++i) norm = std::hypot(norm, s[i * n + k]);
      if (norm == 0) continue;
      double alpha = -std::copysign(norm, s[(k + 1) * n + k]);
      std::fill(v.begin(), v.end(), 0.0);
      for (int64_t i = k + 1; i < n; ++i) v[i] = s[i * n + k];
      v[k + 1] -= alpha;
      double vnorm = 0;
      for (int64_t i = k + 1; i < n; ++i) vnorm = std::hypot(vnorm, v[i]);
      if (vnorm == 0) continue;
      for (int64_t i = k + 1; i < n; ++i) v[i] /= vnorm;
      double vp = 0;
      for (int64_t i = k; i < n; ++i) {
        p[i] = 0;
        for (int64_t j = k + 1; j < n; ++j) p[i] += s[i * n + j] * v[j];
        vp += v[i] * p[i];
      }
      for (int64_t i = k; i < n; ++i) w[i] = p[i] - vp * v[i];
      for (int64_t i = k; i < n; ++i)
        for (int64_t j = k; j < n; ++j) s[i * n + j] -= 2 * (v[i] * w[j] + w[i] * v[j]);
      // Q <- Q H: rows of Q^T mix as qt[j] -= 2 v_j (sum_i v_i qt[i]).
      for (int64_t c = 0; c < n; ++c) {
        double dot = 0;
        for (int64_t i = k + 1; i < n; ++i) dot += v[i] * qt[i * n + c];
        for (int64_t i = k + 1; i < n; ++i) qt[i * n + c] -= 2 * v[i] * dot;
      }
    }
    // 2. Implicit QL with Wilkinson-style shifts on the diagonal d and the
    // off-diagonal e (e[i] couples d[i] and d[i+1]), each rotation applied to
    // two rows of qt.
    std::vector<double> d(n), e(n, 0.0);
    for (int64_t i = 0; i < n; ++i) d[i] = s[i * n + i];
    for (int64_t i = 0; i + 1 < n; ++i) e[i] = s[(i + 1) * n + i];
    bool converged = true;
    for (int64_t l = 0; l < n && converged; ++l) {
      for (int iteration = 0;; ++iteration) {
        int64_t m = l;
        for (; m + 1 < n; ++m)
          if (std::abs(e[m]) <= eps * (std::abs(d[m]) + std::abs(d[m + 1]))) break;
        if (m == l) break;
        if (iteration == 60) {
          converged = false;
          break;
        }
        double g = (d[l + 1] - d[l]) / (2 * e[l]);
        double r = std::hypot(g, 1.0);
        g = d[m] - d[l] + e[l] / (g + std::copysign(r, g));
        double sn = 1, c = 1, shift = 0;
        bool underflow = false;
        for (int64_t i = m - 1; i >= l; --i) {
          double f = sn * e[i], b = c * e[i];
          r = std::hypot(f, g);
          e[i + 1] = r;
          if (r == 0) {  // recover from underflow
            d[i + 1] -= shift;
            e[m] = 0;
            underflow = true;
            break;
          }
          sn = f / r;
          c = g / r;
          g = d[i + 1] - shift;
          r = (d[i] - g) * sn + 2 * c * b;
          shift = sn * r;
          d[i + 1] = g + shift;
          g = c * r - b;
          double* upper = qt.data() + (i + 1) * n;
          double* lowerRow = qt.data() + i * n;
          for (int64_t k = 0; k < n; ++k) {
            double x = upper[k];
            upper[k] = sn * lowerRow[k] + c * x;
            lowerRow[k] = c * lowerRow[k] - sn * x;
          }
        }
        if (underflow) continue;
        d[l] -= shift;
        e[l] = g;
        e[m] = 0;
      }
    }
    // Eigenvectors are the rows of qt; as columns, sorted by eigenvalue.
    double* vectorsOut = vs.data() + batch * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) vectorsOut[i * n + j] = qt[j * n + i];
    double* valuesOut = ws.data() + batch * n;
    std::copy(d.begin(), d.end(), valuesOut);
    sortWithColumns(valuesOut, n, vectorsOut, n, /*descending=*/false);
    fixSigns(vectorsOut, n, n, nullptr, 0);
    info.push_back(converged ? 0 : 1);
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
  std::vector<double> ss(matrixBatchCount(a.shape()) * k), us(matrixBatchCount(a.shape()) * uRows * uCols),
      vts(matrixBatchCount(a.shape()) * vtRows * vtCols);
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
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
