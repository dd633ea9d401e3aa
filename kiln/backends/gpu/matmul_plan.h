// A dot (stablehlo.dot_general / stablehlo.dot), or an output fusion of a
// dot and its epilogue, as one cuBLASLt matmul: which operands, their
// layouts in cuBLASLt's column-major terms, the types and the epilogue.
// Decided without a GPU or cuBLASLt (gpu_runtime_test checks every plan by
// evaluating it on the host as cuBLASLt defines the call); cublaslt.h makes
// the library's descriptors from it. Free of LLVM and CUDA headers.
// Internal to kiln/backends/gpu.
#pragma once

#include <cstdint>
#include <string>

#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::gpu {

// cuBLASLt's epilogues kiln maps a fusion's ops to: after the product,
// add a bias vector (one value per row of D: per column of kiln's row-major
// result), then relu. (cuBLASLt's GELU is the tanh approximation, which no
// op kiln fuses computes yet.)
enum class MatmulEpilogue { None, Relu, Bias, ReluBias };
const char* epilogueName(MatmulEpilogue epilogue);

// One matrix as cuBLASLt reads it: column-major `rows` x `cols`, columns
// `ld` elements apart, `batch` of them `batchStride` elements apart.
struct MatmulLayout {
  TypeKind type = TypeKind::F32;
  int64_t rows = 0, cols = 0, ld = 0, batchStride = 0;
};

// D = epilogue(alpha * op(A) op(B) + bias), batched, column-major.
// kiln's result is row-major [batch, m, n]: as column-major that is D^T,
// n x m, so D^T = op(A) op(B) with A the dot's rhs and B its lhs (each
// read in place, transposed where its contracting dims come last in
// memory...), and the bias is along kiln's last dim.
struct MatmulPlan {
  int64_t batch = 1, m = 0, n = 0, k = 0;  // kiln's [batch, m, k] x [batch, k, n]
  int aOperand = 1, bOperand = 0;          // the op's operands read as A and B
  bool transA = false, transB = false;     // CUBLAS_OP_T for A, B
  MatmulLayout a, b, d;                    // (C is D, beta = 0)
  TypeKind computeType = TypeKind::F32;    // f32 sums (f64 for f64 dots)
  double alpha = 1.0;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  int biasOperand = -1;                    // the op's operand holding the bias vector (n elements), or -1
  TypeKind biasType = TypeKind::F32;
  // What cuBLASLt writes: the op's result, or -- where an output fusion's
  // epilogue goes on past what cuBLASLt applies (tanh, a residual add, a
  // gelu) -- the value inside the fusion where it stops, from which a
  // kernel computes the rest (cuda_compiler.h).
  const Value* product = nullptr;
  bool epilogueKernel = false;             // product is inside the fusion

  // "f32 [1 x 64x32x128] A^T, epilogue bias+relu": the dumps' line.
  std::string str() const;
};

// Whether top-level `op` is a cuBLASLt matmul candidate: a dot, or a
// kiln.fusion of kind "output".
bool isMatmulOp(const Operation& op);

// `op`'s plan; an operand order cuBLASLt cannot read in place (batch dims
// not leading, contracting dims split) or an element type it does not
// multiply (integers, complex, 8-bit floats) is an error naming the op.
Expected<MatmulPlan> planMatmul(const Operation& op);

}  // namespace kiln::gpu
