// The dimension numbers of a dot (stablehlo.dot_general, or stablehlo.dot:
// lhs's last dim against rhs's first) as the back ends' dot paths read them:
// the cpu's oneDNN matmul and emitted loops, and the kernel-form analysis.
// Free of LLVM and library headers.
#pragma once

#include <cstdint>
#include <vector>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::codegen {

struct DotDims {
  std::vector<int64_t> lhsBatch, rhsBatch, lhsContracting, rhsContracting;
};

// An absent list is empty; a malformed one is an error naming the op.
Expected<DotDims> dotDims(const Operation& dot);

// The dims of a rank-`rank` operand that are neither batch nor contracting, ascending.
std::vector<int64_t> freeDims(int64_t rank, const std::vector<int64_t>& batch, const std::vector<int64_t>& contracting);

}  // namespace kiln::codegen
