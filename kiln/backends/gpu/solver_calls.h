// The LAPACK calls the cuda back end runs through cuSOLVER (cusolver.h):
// the cuda pipeline's lapack_to_cusolver (kiln/passes/lapack_to_cusolver.cpp)
// rewrites lapack_{s,d}syevd_ffi / {c,z}heevd_ffi and lapack_?gesdd_ffi into
// transposes around custom_call @kiln.cusolver.syevd / @kiln.cusolver.gesvd,
// whose operand and results are cuSOLVER's column-major buffers (typed as
// the row-major tensors of the same bytes): the operand holds `batch`
// column-major matrices of rows x cols (its last two dims, reversed);
// syevd's results are W (column-major, the eigenvectors), w and info,
// gesvd's s, U (rows x uCols column-major: tensor [..., uCols, rows]), VT
// (vtRows x cols: tensor [..., cols, vtRows]) and info.
//
// For a batch of small matrices (more than one, of at most 32 x 32: what
// cuSOLVER's batched Jacobi routines take) the pass calls
// @kiln.cusolver.syevj_batched, syevd's operand and results, run as one
// cusolverDn<t>syevjBatched (heevjBatched) for the whole batch, and
// @kiln.cusolver.gesvdj_batched, one cusolverDn<t>gesvdjBatched: its
// operand a's column-major rows x cols matrices (any shape up to 32 x 32),
// its results s, the full U (rows x rows column-major: tensor [..., rows,
// rows]), the full V (not V^H: cols x cols column-major, whose bytes are
// V^T row-major: tensor [..., cols, cols]) and info (0, or min(rows,
// cols) + 1 where the Jacobi sweeps did not converge; syevjBatched's
// rows + 1).
//
// Singular and eigenvalues come out in LAPACK's order (descending,
// ascending); the vectors' signs are cuSOLVER's, which the pass then makes
// the interpreter's for real matrices. Internal to kiln/backends/gpu.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/ir/ir.h"

namespace kiln::gpu {

// One of those calls.
bool isSolverCallOp(const Operation& op);

// What such a call asks of cuSOLVER, read from its types and attributes.
struct SolverProblem {
  enum class Routine { Syevd, Gesvd, SyevjBatched, GesvdjBatched } routine = Routine::Syevd;
  Type element;             // the matrix's (f32, f64, complex<f32>, complex<f64>)
  int64_t rows = 0, cols = 0, batch = 0;
  bool lower = true;        // syevd: the triangle read
  char jobu = 'S', jobvt = 'S';  // gesvd: 'A' (all of U or VT) or 'S' (the first min(rows, cols))
  // An eigendecomposition (syevd or syevjBatched: the same operand and results).
  bool eigen() const { return routine == Routine::Syevd || routine == Routine::SyevjBatched; }
  bool jacobiBatched() const { return routine == Routine::SyevjBatched || routine == Routine::GesvdjBatched; }
  // "Xsyevd f32 5 x 5, batch 2, lower", "syevjBatched f32 5 x 5, batch 8,
  // lower" (for dumps and errors).
  std::string str() const;
};
SolverProblem solverProblemOf(const Operation& call);

// The largest rows and cols cuSOLVER's batched Jacobi routines take
// (syevjBatched, gesvdjBatched: "no greater than 32"); lapack_to_cusolver
// uses them for batches of more than one matrix within it.
inline constexpr int64_t kJacobiBatchedMaxOrder = 32;

// Why cuSOLVER's batched Jacobi routines cannot run `p` (its rows, cols or
// batch out of their range), or "" where they can.
std::string jacobiBatchedProblem(const SolverProblem& p);

}  // namespace kiln::gpu
