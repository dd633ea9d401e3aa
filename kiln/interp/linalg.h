// Matrix routines shared by the stablehlo linear-algebra kernels
// (ops_linalg.cpp) and the LAPACK-style custom_call targets that JAX emits
// for CPU (ops_misc.cpp). Each works on a batch of matrices: the last two
// dimensions of its operands, all leading dimensions being batch dimensions.
// Callers check shapes; these compute in complex<double> and round once.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/interp/tensor.h"

namespace kiln::interp {

struct TriangularSolveSpec {
  bool leftSide = true;     // solve op(a) x = b (else x op(a) = b)
  bool lower = true;        // read a's lower triangle (else its upper one)
  bool unitDiagonal = false;
  bool transpose = false;   // op(a) = a^T ...
  bool conjugate = false;   // ... or a^H when both are set
};

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

}  // namespace kiln::interp
