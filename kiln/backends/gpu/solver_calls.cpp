// The cuSOLVER calls the cuda pipeline's lapack_to_cusolver makes (see
// solver_calls.h).
#include "kiln/backends/gpu/solver_calls.h"

#include <string>

#include "kiln/interp/linalg.h"

namespace kiln::gpu {
namespace {

constexpr std::string_view kSyevd = "kiln.cusolver.syevd", kGesvd = "kiln.cusolver.gesvd";

}  // namespace

bool isSolverCallOp(const Operation& op) {
  Attribute target = op.name() == "stablehlo.custom_call" ? op.attr("call_target_name") : Attribute();
  return target && target.is(AttrKind::String) && (target.stringValue() == kSyevd || target.stringValue() == kGesvd);
}

SolverProblem solverProblemOf(const Operation& call) {
  SolverProblem p;
  Type a = call.operand(0)->type();
  p.element = a.elementType();
  p.rows = a.shape().back();
  p.cols = a.shape()[a.rank() - 2];
  p.batch = p.rows * p.cols == 0 ? 0 : a.numElements() / (p.rows * p.cols);
  if (call.attr("call_target_name").stringValue() == kSyevd) {
    p.routine = SolverProblem::Routine::Syevd;
    p.lower = interp::lapackOption(call, "uplo", 'L') == 'L';
    return p;
  }
  p.routine = SolverProblem::Routine::Gesvd;
  // U is rows x uCols column-major: its tensor is [..., uCols, rows].
  Type u = call.result(1)->type(), vt = call.result(2)->type();
  p.jobu = u.shape()[u.rank() - 2] == p.rows ? 'A' : 'S';
  p.jobvt = vt.shape().back() == p.cols ? 'A' : 'S';
  return p;
}

std::string SolverProblem::str() const {
  std::string s = routine == Routine::Syevd ? "Xsyevd " : "Xgesvd ";
  s += element.str() + " " + std::to_string(rows) + " x " + std::to_string(cols) + ", batch " + std::to_string(batch);
  if (routine == Routine::Syevd) return s + (lower ? ", lower" : ", upper");
  return s + ", jobu " + jobu + ", jobvt " + jobvt;
}

}  // namespace kiln::gpu
