// Routines shared by the interpreter's linear-algebra kernels
// (ops_linalg.cpp), the LAPACK-style custom_call targets that JAX emits for
// CPU (ops_misc.cpp) and the cpu back end's native routines. The matrix
// routines work on a batch of matrices: the last two dimensions of their
// operands, all leading dimensions being batch dimensions. Callers check
// shapes; these compute in complex<double> (or double) and round once.
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/interp/tensor.h"
#include "kiln/ir/ir.h"

namespace kiln::interp {

struct TriangularSolveSpec {
  bool leftSide = true;     // solve op(a) x = b (else x op(a) = b)
  bool lower = true;        // read a's lower triangle (else its upper one)
  bool unitDiagonal = false;
  bool transpose = false;   // op(a) = a^T ...
  bool conjugate = false;   // ... or a^H when both are set
};

// The number of matrices in a batch of them of `shape` (all but the last two dims).
int64_t matrixBatchCount(std::span<const int64_t> shape);

// "trsm" of a stablehlo.custom_call to lapack_strsm_ffi (the routine of
// any lapack_<s|d|c|z><routine>_ffi target); empty for other ops. The one
// place that reads these names: the interpreter's kernels, the cuda back
// end's and lapack_to_cusolver's.
std::string_view lapackRoutine(std::string_view callTarget);
std::string_view lapackRoutineOf(const Operation& op);

// An option character ('L', 'N', ...) of a LAPACK custom call's
// `mhlo.backend_config`, or `fallback`.
char lapackOption(const Operation& op, std::string_view name, char fallback);

// The system a stablehlo.triangular_solve or a lapack_?trsm_ffi call solves,
// read from its attributes.
TriangularSolveSpec triangularSolveSpecOf(const Operation& op);

// x of `resultType` (b's shape) solving the system for every batch element.
Tensor solveTriangular(const Tensor& a, const Tensor& b, Type resultType, const TriangularSolveSpec& spec);

// The Cholesky factor of each (Hermitian positive definite) matrix of `a`:
// L with a = L L^H read from the lower triangle, or U with a = U^H U from the
// upper one. The other triangle is zero, or `a`'s own elements when
// `keepOtherTriangle` (as LAPACK's potrf leaves it). `info` gets one entry
// per matrix: 0, or the 1-based column of the first non-positive pivot (the
// factor is then NaN from there on).
Tensor choleskyFactor(const Tensor& a, Type resultType, bool lower, bool keepOtherTriangle,
                      std::vector<int64_t>& info);

// LU factorization with partial pivoting of each m x n matrix of `a`, as
// LAPACK's getrf: P a = L U with unit-diagonal L below the diagonal and U on
// and above it, both returned in one matrix. `pivots` gets min(m, n) 1-based
// row indices per matrix (row i was swapped with pivots[i]); `info` gets 0,
// or the 1-based index of the first exactly-zero pivot.
Tensor luFactor(const Tensor& a, Type resultType, std::vector<int64_t>& pivots, std::vector<int64_t>& info);

// The decompositions behind JAX's jnp.linalg.qr, eigh and svd on CPU
// (decompositions.cpp), for real matrices, in double:
//
// QR by Householder reflections as LAPACK's geqrf: R on and above the
// diagonal of the result, reflector i's vector below the diagonal of column
// i (its leading 1 implied), its scale in `tau` (of `tauType`, min(m, n) per
// matrix).
Tensor householderQr(const Tensor& a, Type resultType, Type tauType, Tensor& tau);
// The product Q = H(0) H(1) ... of geqrf's reflectors as LAPACK's orgqr:
// the first n columns, n being `a`'s (and the result's) column count.
Tensor householderProduct(const Tensor& a, const Tensor& tau, Type resultType);
// Eigenvalues (ascending) and eigenvectors (columns, each with its largest
// entry positive) of symmetric matrices read from one triangle, by
// Householder tridiagonalization and implicit QL iterations. `info` gets 0
// per matrix, 1 if an eigenvalue took more than 60 iterations.
void symmetricEigen(const Tensor& a, bool lower, Type vectorsType, Type valuesType, Tensor& vectors, Tensor& values,
                    std::vector<int64_t>& info);
// a = U diag(s) V^T by one-sided Jacobi rotations: s descending, U and V^T
// cut to the result types' shapes (full or thin), singular vector pairs
// signed so that each left vector's largest entry is positive.
void singularValueDecomposition(const Tensor& a, Type valuesType, Type uType, Type vtType, Tensor& values, Tensor& u,
                                Tensor& vt);

// The nonsymmetric eigenproblem as LAPACK's geev (general_eigen.cpp): the
// eigenvalues of each square matrix of `a` and, when asked, its left
// (u^H a = lambda u^H) and right (a v = lambda v) eigenvectors as the columns
// of complex matrices, each of unit 2-norm with its largest entry real.
// `valueTypes` holds two real types (real and imaginary parts, real geev)
// or one complex type (complex geev). `info` gets 0 per matrix, or the
// 1-based index of an eigenvalue the QR iterations did not converge for, or
// n for a matrix with an infinite or NaN entry (the matrix's values are
// then NaN and its vectors zero; JAX turns both into NaN).
struct GeneralEigenResults {
  std::vector<Tensor> values;
  Tensor left, right, info;
};
void generalEigen(const Tensor& a, bool wantLeft, bool wantRight, std::span<const Type> valueTypes, Type leftType,
                  Type rightType, Type infoType, GeneralEigenResults& out);

// Tridiagonal systems as LAPACK's gtsv (tridiagonal_solve.cpp), in JAX's
// form: dl, d, du of shape [..., n] (dl[k] = A(k, k-1), du[k] = A(k, k+1)),
// b of shape [..., n, nrhs]. Returns LAPACK's outputs: dl, d, du overwritten
// with the factorization, the solution, and info per system (0, or the
// 1-based index of an exactly zero pivot).
std::vector<Tensor> tridiagonalSolve(const Tensor& dl, const Tensor& d, const Tensor& du, const Tensor& b,
                                     Type infoType);
// The same systems as jaxlib's tridiagonal_solve_perturbed_ffi solves them
// (tridiagonal_solve(perturb_singular=True)): pivots below eps * max |U|
// (eps of the operands' type) are raised to that size, so a singular system
// has a finite solution. Returns the solution only.
Tensor tridiagonalSolvePerturbed(const Tensor& dl, const Tensor& d, const Tensor& du, const Tensor& b);

// One 1-D discrete Fourier transform of `line`, in place:
// X[k] = sum_j x[j] e^(-+2 pi i jk/n), minus forward, plus inverse (without
// the inverse's 1/n, which the caller applies).
using LineTransform = std::function<void(std::span<std::complex<double>> line, bool inverse)>;

// The direct DFT of a line (a LineTransform): O(n^2) in double with exact
// twiddle angles -- the interpreter's, and the reference the cpu back end's
// FFT is compared with.
void directDft(std::span<std::complex<double>> line, bool inverse);

// What is wrong with a stablehlo.fft of these types and attributes, if
// anything: the checks fourierTransform relies on.
std::optional<std::string> fourierTransformProblem(Type operandType, Type resultType, std::string_view fftType,
                                                  std::span<const int64_t> fftLength);

// stablehlo.fft of `operand` (`fftType` FFT, IFFT, RFFT or IRFFT over the
// trailing fftLength.size() dims, checked by fourierTransformProblem), each
// 1-D transform done by `transform`: the interpreter's is a direct DFT, the
// cpu back end's an FFT.
Tensor fourierTransform(const Tensor& operand, Type resultType, std::string_view fftType,
                        std::span<const int64_t> fftLength, const LineTransform& transform);

}  // namespace kiln::interp
