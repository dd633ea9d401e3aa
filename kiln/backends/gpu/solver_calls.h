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
  enum class Routine { Syevd, Gesvd } routine = Routine::Syevd;
  Type element;             // the matrix's (f32, f64, complex<f32>, complex<f64>)
  int64_t rows = 0, cols = 0, batch = 0;
  bool lower = true;        // syevd: the triangle read
  char jobu = 'S', jobvt = 'S';  // gesvd: 'A' (all of U or VT) or 'S' (the first min(rows, cols))
  // "Xsyevd f32 5 x 5, batch 2, lower" (for dumps and errors).
  std::string str() const;
};
SolverProblem solverProblemOf(const Operation& call);

}  // namespace kiln::gpu
