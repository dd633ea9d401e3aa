// The cuSOLVER calls the cuda pipeline's lapack_to_cusolver makes (see
// solver_calls.h).
#include "kiln/backends/gpu/solver_calls.h"

#include <limits>
#include <string>

#include "kiln/interp/linalg.h"

namespace kiln::gpu {
namespace {

constexpr std::string_view kSyevd = "kiln.cusolver.syevd", kGesvd = "kiln.cusolver.gesvd",
                           kSyevjBatched = "kiln.cusolver.syevj_batched", kGesvdjBatched = "kiln.cusolver.gesvdj_batched";

}  // namespace

bool isSolverCallOp(const Operation& op) {
  Attribute target = op.name() == "stablehlo.custom_call" ? op.attr("call_target_name") : Attribute();
  if (!target || !target.is(AttrKind::String)) return false;
  std::string_view name = target.stringValue();
  return name == kSyevd || name == kGesvd || name == kSyevjBatched || name == kGesvdjBatched;
}

SolverProblem solverProblemOf(const Operation& call) {
  SolverProblem p;
  Type a = call.operand(0)->type();
  p.element = a.elementType();
  p.rows = a.shape().back();
  p.cols = a.shape()[a.rank() - 2];
  p.batch = p.rows * p.cols == 0 ? 0 : a.numElements() / (p.rows * p.cols);
  std::string_view target = call.attr("call_target_name").stringValue();
  if (target == kSyevd || target == kSyevjBatched) {
    p.routine = target == kSyevd ? SolverProblem::Routine::Syevd : SolverProblem::Routine::SyevjBatched;
    p.lower = interp::lapackOption(call, "uplo", 'L') == 'L';
    return p;
  }
  if (target == kGesvdjBatched) {
    p.routine = SolverProblem::Routine::GesvdjBatched;  // always all of U and V
    p.jobu = p.jobvt = 'A';
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
  const char* names[] = {"Xsyevd ", "Xgesvd ", "syevjBatched ", "gesvdjBatched "};
  std::string s = names[int(routine)];
  s += element.str() + " " + std::to_string(rows) + " x " + std::to_string(cols) + ", batch " + std::to_string(batch);
  if (eigen()) return s + (lower ? ", lower" : ", upper");
  if (routine == Routine::GesvdjBatched) return s;
  return s + ", jobu " + jobu + ", jobvt " + jobvt;
}

std::string jacobiBatchedProblem(const SolverProblem& p) {
  if (p.rows > kJacobiBatchedMaxOrder || p.cols > kJacobiBatchedMaxOrder)
    return "cuSOLVER's batched Jacobi routines take matrices of at most " + std::to_string(kJacobiBatchedMaxOrder) +
           " x " + std::to_string(kJacobiBatchedMaxOrder);
  if (p.batch > std::numeric_limits<int>::max()) return "a batch of more matrices than an int counts";
  return "";
}

}  // namespace kiln::gpu
