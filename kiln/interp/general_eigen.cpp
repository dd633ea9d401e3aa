// The nonsymmetric eigenproblem behind JAX's jnp.linalg.eig / eigvals on CPU
// (LAPACK's geev): unitary reduction to upper Hessenberg form by Householder
// reflections, then the shifted QR algorithm (Wilkinson shifts, one Givens
// sweep per step) to a complex Schur form T = Q^H A Q, then the eigenvectors
// of T by back-substitution (right) or forward substitution (left), mapped
// back through Q. Everything runs in complex<double>, for real and complex
// matrices alike: one algorithm, simple enough to check by reading.
//
// LAPACK's real geev works in real arithmetic, so its real eigenvalues are
// exactly real and its complex ones come in exact conjugate pairs, the one
// with positive imaginary part first. For real input the results here are
// brought to that form afterwards (realInputCleanup): eigenvalues whose
// imaginary part is rounding noise become real, with real eigenvectors, and
// the partner of each complex eigenvalue becomes its exact conjugate.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"

namespace kiln::interp {
namespace {

using Complex = std::complex<double>;
constexpr double kEps = std::numeric_limits<double>::epsilon();

// An n x n row-major complex matrix.
struct Matrix {
  int64_t n = 0;
  std::vector<Complex> data;
  explicit Matrix(int64_t size) : n(size), data(size * size) {}
  Complex& operator()(int64_t i, int64_t j) { return data[i * n + j]; }
  Complex operator()(int64_t i, int64_t j) const { return data[i * n + j]; }
  static Matrix identity(int64_t size) {
    Matrix m(size);
    for (int64_t i = 0; i < size; ++i) m(i, i) = 1;
    return m;
  }
};

double frobeniusNorm(const Matrix& m) {
  double sum = 0;
  for (Complex x : m.data) sum += std::norm(x);
  return std::sqrt(sum);
}

// H = Q^H A Q upper Hessenberg, Q accumulated into `q` (identity on entry).
void reduceToHessenberg(Matrix& h, Matrix& q) {
  int64_t n = h.n;
  std::vector<Complex> v(n);
  for (int64_t k = 0; k + 2 < n; ++k) {
    double norm = 0;
    for (int64_t i = k + 1; i < n; ++i) norm += std::norm(h(i, k));
    norm = std::sqrt(norm);
    if (norm == 0) continue;
    // The reflector maps column k below the diagonal onto alpha e1, alpha of
    // the opposite phase to its first entry (no cancellation in v).
    Complex first = h(k + 1, k);
    Complex phase = std::abs(first) == 0 ? Complex(1) : first / std::abs(first);
    Complex alpha = -phase * norm;
    double vNorm = 0;
    for (int64_t i = k + 1; i < n; ++i) {
      v[i] = h(i, k) - (i == k + 1 ? alpha : Complex(0));
      vNorm += std::norm(v[i]);
    }
    vNorm = std::sqrt(vNorm);
    if (vNorm == 0) continue;
    for (int64_t i = k + 1; i < n; ++i) v[i] /= vNorm;
    // P = I - 2 v v^H on rows and columns k+1..n-1: H <- P H P, Q <- Q P.
    for (int64_t j = 0; j < n; ++j) {
      Complex w = 0;
      for (int64_t i = k + 1; i < n; ++i) w += std::conj(v[i]) * h(i, j);
      for (int64_t i = k + 1; i < n; ++i) h(i, j) -= 2.0 * v[i] * w;
    }
    for (Matrix* m : {&h, &q})
      for (int64_t i = 0; i < n; ++i) {
        Complex w = 0;
        for (int64_t j = k + 1; j < n; ++j) w += (*m)(i, j) * v[j];
        for (int64_t j = k + 1; j < n; ++j) (*m)(i, j) -= 2.0 * w * std::conj(v[j]);
      }
    for (int64_t i = k + 2; i < n; ++i) h(i, k) = 0;
  }
}

// A plane rotation G = [[c, s], [-conj(s), c]] (c real) with G [x; y] = [r; 0].
struct Rotation {
  double c = 1;
  Complex s = 0;
};

Rotation rotationZeroing(Complex x, Complex y) {
  double norm = std::hypot(std::abs(x), std::abs(y));
  if (std::abs(y) == 0 || norm == 0) return {};
  if (std::abs(x) == 0) return {0, std::conj(y) / std::abs(y)};
  return {std::abs(x) / norm, (x / std::abs(x)) * std::conj(y) / norm};
}

// Rows k, k+1 of m (columns [from, to)) <- G [row k; row k+1].
void rotateRows(Matrix& m, int64_t k, const Rotation& g, int64_t from, int64_t to) {
  for (int64_t j = from; j < to; ++j) {
    Complex a = m(k, j), b = m(k + 1, j);
    m(k, j) = g.c * a + g.s * b;
    m(k + 1, j) = -std::conj(g.s) * a + g.c * b;
  }
}

// Columns k, k+1 of m (rows [0, to)) <- [col k, col k+1] G^H.
void rotateColumns(Matrix& m, int64_t k, const Rotation& g, int64_t to) {
  for (int64_t i = 0; i < to; ++i) {
    Complex a = m(i, k), b = m(i, k + 1);
    m(i, k) = a * g.c + b * std::conj(g.s);
    m(i, k + 1) = -a * g.s + b * g.c;
  }
}

// The eigenvalue of the 2x2 block [[a, b], [c, d]] nearer to d (Wilkinson's shift).
Complex wilkinsonShift(Complex a, Complex b, Complex c, Complex d) {
  Complex p = (a - d) / 2.0, disc = std::sqrt(p * p + b * c);
  Complex denominator = std::abs(p + disc) >= std::abs(p - disc) ? p + disc : p - disc;
  return std::abs(denominator) == 0 ? d : d - b * c / denominator;
}

// Shifted QR iterations on the Hessenberg h until it is upper triangular
// (the Schur form), rotations accumulated into q. False when an eigenvalue
// does not converge in 100 steps; `unconverged` is then its 1-based index.
bool schurForm(Matrix& h, Matrix& q, int64_t& unconverged) {
  int64_t n = h.n;
  double norm = std::max(frobeniusNorm(h), std::numeric_limits<double>::min());
  constexpr int kMaxIterationsPerEigenvalue = 100;
  int iterations = 0;
  for (int64_t hi = n - 1; hi > 0;) {
    // The active block is [lo, hi]: its subdiagonal has no negligible entry.
    int64_t lo = hi;
    for (; lo > 0; --lo) {
      double scale = std::abs(h(lo - 1, lo - 1)) + std::abs(h(lo, lo));
      if (std::abs(h(lo, lo - 1)) <= kEps * (scale == 0 ? norm : scale)) break;
    }
    if (lo > 0) h(lo, lo - 1) = 0;
    if (lo == hi) {
      --hi;
      iterations = 0;
      continue;
    }
    if (++iterations > kMaxIterationsPerEigenvalue) {
      unconverged = hi + 1;
      return false;
    }
    // Every tenth step an exceptional shift breaks cycles Wilkinson's can fall into.
    Complex shift = iterations % 10 == 0
                        ? h(hi, hi) + std::abs(h(hi, hi - 1).real()) + std::abs(h(hi - 1, std::max(lo, hi - 2)).real())
                        : wilkinsonShift(h(hi - 1, hi - 1), h(hi - 1, hi), h(hi, hi - 1), h(hi, hi));
    // One explicit QR step on the block: H - shift I = G R, H <- R G + shift I,
    // the rotations also applied to the rows right of and columns above the
    // block so that the whole matrix stays similar to the input.
    for (int64_t i = lo; i <= hi; ++i) h(i, i) -= shift;
    std::vector<Rotation> rotations(hi - lo);
    for (int64_t k = lo; k < hi; ++k) {
      rotations[k - lo] = rotationZeroing(h(k, k), h(k + 1, k));
      rotateRows(h, k, rotations[k - lo], k, n);
      h(k + 1, k) = 0;
    }
    for (int64_t k = lo; k < hi; ++k) {
      rotateColumns(h, k, rotations[k - lo], std::min(k + 2, hi + 1));
      rotateColumns(q, k, rotations[k - lo], n);
    }
    for (int64_t i = lo; i <= hi; ++i) h(i, i) += shift;
  }
  return true;
}

// Makes the vector unit-length with its largest-magnitude entry real and
// positive, as LAPACK's geev normalizes its eigenvectors.
void normalizeLikeLapack(std::vector<Complex>& v) {
  double norm = 0;
  int64_t largest = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    norm += std::norm(v[i]);
    if (std::norm(v[i]) > std::norm(v[largest])) largest = static_cast<int64_t>(i);
  }
  if (norm == 0) return;
  Complex scale = std::conj(v[largest]) / std::abs(v[largest]) / std::sqrt(norm);
  for (Complex& x : v) x *= scale;
  v[largest] = std::abs(v[largest]);
}

// Divisions by a near-zero T(i,i) - lambda (a repeated eigenvalue) use this
// instead, as LAPACK's trevc does: the vector is then one of the (nearly)
// defective eigenvalue's approximate eigenvectors.
Complex guarded(Complex denominator, double smallest) {
  return std::abs(denominator) < smallest ? Complex(smallest) : denominator;
}

// Column k of the result: the right eigenvector of T for T(k,k), mapped by Q.
std::vector<Complex> rightEigenvector(const Matrix& t, const Matrix& q, int64_t k, double smallest) {
  int64_t n = t.n;
  std::vector<Complex> y(n, 0);
  y[k] = 1;
  for (int64_t i = k - 1; i >= 0; --i) {
    Complex sum = t(i, k);
    for (int64_t j = i + 1; j < k; ++j) sum += t(i, j) * y[j];
    y[i] = -sum / guarded(t(i, i) - t(k, k), smallest);
  }
  std::vector<Complex> v(n, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= k; ++j) v[i] += q(i, j) * y[j];
  normalizeLikeLapack(v);
  return v;
}

// The left eigenvector u (u^H A = lambda u^H) for T(k,k): T^H w = conj(lambda) w
// by forward substitution (T^H is lower triangular), u = Q w.
std::vector<Complex> leftEigenvector(const Matrix& t, const Matrix& q, int64_t k, double smallest) {
  int64_t n = t.n;
  std::vector<Complex> w(n, 0);
  w[k] = 1;
  for (int64_t i = k + 1; i < n; ++i) {
    Complex sum = 0;
    for (int64_t j = k; j < i; ++j) sum += std::conj(t(j, i)) * w[j];
    w[i] = -sum / guarded(std::conj(t(i, i) - t(k, k)), smallest);
  }
  std::vector<Complex> u(n, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = k; j < n; ++j) u[i] += q(i, j) * w[j];
  normalizeLikeLapack(u);
  return u;
}

// One matrix's results: eigenvalues and, when asked, eigenvectors as columns.
struct Eigensystem {
  std::vector<Complex> values;
  std::vector<std::vector<Complex>> left, right;  // left[k], right[k]: for values[k]
  int64_t info = 0;
};

// For a real matrix, LAPACK's form (see the file comment). An eigenvalue is
// taken as real when its imaginary part is within the rounding error of the
// Schur form; its vectors, normalized with their largest entry real, are
// then real up to that error too, and their imaginary parts are dropped.
void realInputCleanup(Eigensystem& e, double norm) {
  int64_t n = static_cast<int64_t>(e.values.size());
  double tolerance = std::sqrt(kEps) * std::max(norm, std::numeric_limits<double>::min());
  auto makeReal = [](std::vector<Complex>& v) {
    for (Complex& x : v) x = x.real();
    normalizeLikeLapack(v);
  };
  std::vector<bool> paired(n, false);
  for (int64_t k = 0; k < n; ++k) {
    if (std::abs(e.values[k].imag()) > tolerance) continue;
    e.values[k] = e.values[k].real();
    paired[k] = true;
    for (auto* vectors : {&e.left, &e.right})
      if (!vectors->empty()) makeReal((*vectors)[k]);
  }
  // Each remaining eigenvalue with a positive imaginary part takes the
  // nearest unpaired one to its conjugate as partner: that one becomes the
  // exact conjugate, its vectors the conjugates of the first one's.
  for (int64_t k = 0; k < n; ++k) {
    if (paired[k] || e.values[k].imag() < 0) continue;
    int64_t partner = -1;
    for (int64_t j = 0; j < n; ++j)
      if (!paired[j] && j != k && e.values[j].imag() < 0 &&
          (partner < 0 || std::abs(e.values[j] - std::conj(e.values[k])) <
                              std::abs(e.values[partner] - std::conj(e.values[k]))))
        partner = j;
    if (partner < 0) continue;
    paired[k] = paired[partner] = true;
    // LAPACK stores a pair next to each other, positive imaginary part first.
    int64_t first = std::min(k, partner), second = std::max(k, partner);
    Complex value = e.values[k];
    std::vector<Complex> left = e.left.empty() ? std::vector<Complex>() : e.left[k];
    std::vector<Complex> right = e.right.empty() ? std::vector<Complex>() : e.right[k];
    auto conjugated = [](std::vector<Complex> v) {
      for (Complex& x : v) x = std::conj(x);
      return v;
    };
    e.values[first] = value;
    e.values[second] = std::conj(value);
    if (!e.left.empty()) e.left[first] = left, e.left[second] = conjugated(left);
    if (!e.right.empty()) e.right[first] = right, e.right[second] = conjugated(right);
  }
}

Eigensystem eigensystem(Matrix a, bool realInput, bool wantLeft, bool wantRight) {
  int64_t n = a.n;
  Eigensystem e;
  double norm = frobeniusNorm(a);
  Matrix q = Matrix::identity(n);
  reduceToHessenberg(a, q);
  // An infinite or NaN entry fails as LAPACK's iterations do on it (JAX
  // then returns NaN), even where the matrix is already triangular.
  if (!std::isfinite(norm)) e.info = n;
  if (e.info != 0 || !schurForm(a, q, e.info)) {
    e.values.assign(n, Complex(NAN, NAN));
    return e;
  }
  double smallest = std::max(kEps * frobeniusNorm(a), std::numeric_limits<double>::min());
  for (int64_t k = 0; k < n; ++k) {
    e.values.push_back(a(k, k));
    if (wantLeft) e.left.push_back(leftEigenvector(a, q, k, smallest));
    if (wantRight) e.right.push_back(rightEigenvector(a, q, k, smallest));
  }
  if (realInput) realInputCleanup(e, norm);
  return e;
}

}  // namespace

void generalEigen(const Tensor& a, bool wantLeft, bool wantRight, std::span<const Type> valueTypes, Type leftType,
                  Type rightType, Type infoType, GeneralEigenResults& out) {
  int64_t n = a.shape().back(), batches = matrixBatchCount(a.shape());
  std::vector<Complex> input = loadAs<Complex>(a);
  bool realInput = !a.elementType().isComplex();
  out.values.clear();
  for (Type t : valueTypes) out.values.emplace_back(t);
  out.left = Tensor(leftType);
  out.right = Tensor(rightType);
  out.info = Tensor(infoType);
  for (int64_t b = 0; b < batches; ++b) {
    Matrix m(n);
    std::copy(input.begin() + b * n * n, input.begin() + (b + 1) * n * n, m.data.begin());
    Eigensystem e = eigensystem(std::move(m), realInput, wantLeft, wantRight);
    out.info.setInt(b, e.info);
    for (int64_t k = 0; k < n; ++k) {
      // Real geev returns the eigenvalues as real and imaginary parts, the
      // complex one as complex numbers.
      if (out.values.size() == 2) {
        out.values[0].setFloat(b * n + k, e.values[k].real());
        out.values[1].setFloat(b * n + k, e.values[k].imag());
      } else {
        out.values[0].setComplex(b * n + k, e.values[k]);
      }
      // Column k of each vector matrix holds the vectors of eigenvalue k;
      // a matrix not asked for (or of a failed matrix) stays zero.
      for (int64_t i = 0; i < n; ++i) {
        if (!e.left.empty()) out.left.setComplex(b * n * n + i * n + k, e.left[k][i]);
        if (!e.right.empty()) out.right.setComplex(b * n * n + i * n + k, e.right[k][i]);
      }
    }
  }
}

}  // namespace kiln::interp
