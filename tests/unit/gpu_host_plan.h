// A cuda plan (kiln/backends/gpu/cuda_plan.h) run on the host, without a
// GPU: host copies of the three device regions, the runtime's own
// runSteps (so control flow, copies, predicates and indices are followed
// exactly as on a device), each kernel replaced by the interpreter
// evaluating the op it was compiled from on the bytes of its slots, each
// cuBLASLt matmul evaluated as cuBLASLt's documentation defines the call,
// each cuSOLVER call as cuSOLVER's documentation defines it (column-major
// matrices) with the interpreter's decompositions computing it.
// What that checks is everything of a plan but the kernels' own code: which
// slot each value is read from and written to, that no two live values
// share bytes, the arena, constants, the state of loops and the results of
// branches. (The kernels: ptxas and FileCheck here, gpu_device_test on a
// GPU.) Shared by gpu_runtime_test and gpu_matmul_test.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kiln/backends/gpu/cuda_plan.h"
#include "kiln/interp/evaluate_op.h"
#include "kiln/interp/linalg.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/float_formats.h"
#include "kiln/passes/buffer_assignment.h"

namespace kiln::gpu::testing {

inline double loadElement(const uint8_t* base, TypeKind type, int64_t index) {
  size_t bytes = Type::element(type).storageBytes();
  uint64_t bits = 0;
  std::memcpy(&bits, base + index * int64_t(bytes), bytes);
  return decodeFloat(type, bits);
}

inline void storeElement(uint8_t* base, TypeKind type, int64_t index, double v) {
  size_t bytes = Type::element(type).storageBytes();
  uint64_t bits = encodeFloat(type, v);
  std::memcpy(base + index * int64_t(bytes), &bits, bytes);
}

// cuBLASLt's matmul as its documentation defines it, on host memory:
// D(i, j) = epilogue(alpha * sum_l op(A)(i, l) op(B)(l, j) + bias(i)),
// element (r, c) of a column-major matrix at r + c * ld, batch p at
// p * batchStride.
inline void matmulAsCublasLtDefinesIt(const MatmulPlan& plan, const uint8_t* a, const uint8_t* b, const uint8_t* bias,
                                      uint8_t* d) {
  int64_t rows = plan.d.rows, cols = plan.d.cols, inner = plan.transA ? plan.a.rows : plan.a.cols;
  for (int64_t p = 0; p < plan.batch; ++p)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < inner; ++l) {
          int64_t ai = plan.transA ? l + i * plan.a.ld : i + l * plan.a.ld;
          int64_t bi = plan.transB ? j + l * plan.b.ld : l + j * plan.b.ld;
          sum += loadElement(a, plan.a.type, p * plan.a.batchStride + ai) *
                 loadElement(b, plan.b.type, p * plan.b.batchStride + bi);
        }
        double v = plan.alpha * sum;
        if (plan.epilogue == MatmulEpilogue::Bias || plan.epilogue == MatmulEpilogue::ReluBias)
          v += loadElement(bias, plan.biasType, i);
        if (plan.epilogue == MatmulEpilogue::Relu || plan.epilogue == MatmulEpilogue::ReluBias) v = std::max(v, 0.0);
        storeElement(d, plan.d.type, p * plan.d.batchStride + i + j * plan.d.ld, v);
      }
}

// The plan's steps on host copies of its regions (see the top).
class HostPlanRunner final : public StepRunner {
 public:
  explicit HostPlanRunner(const CudaPlan& plan)
      : plan_(plan), parameters_(plan.parameterBytes), arena_(plan.arenaBytes), constants_(plan.constants) {}

  // Runs the plan on `args` and returns its results (or the first error:
  // a slot outside its region, a failed assertion, an op the interpreter
  // refuses).
  Expected<std::vector<interp::Tensor>> run(const std::vector<interp::Tensor>& args) {
    if (args.size() != plan_.parameters.size()) return error("wrong number of arguments");
    for (size_t i = 0; i < args.size(); ++i) KILN_RETURN_IF_ERROR(write(plan_.parameters[i], args[i]));
    KILN_RETURN_IF_ERROR(runSteps(plan_, plan_.steps, *this));
    std::vector<interp::Tensor> results;
    for (size_t i = 0; i < plan_.results.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(interp::Tensor t, tensorAt(plan_.results[i], plan_.resultTypes[i]));
      results.push_back(std::move(t));
    }
    return results;
  }

  int launches = 0, matmuls = 0, copies = 0, reads = 0, solves = 0;  // steps run, loops unrolled

  Status launch(const KernelLaunch& launch) override {
    ++launches;
    const CudaKernel& kernel = plan_.kernels[launch.kernel];
    const Operation& op = *kernel.op;
    size_t inputs = kernel.inputs.size();
    if (launch.args.size() != inputs + kernel.outputs.size()) return error(kernel.name + ": wrong argument count");
    bool scatter = op.name() == "stablehlo.scatter";
    if (scatter && kernel.shape != KernelShape::Scatter) {  // the copy of its operand into its result
      KILN_ASSIGN_OR_RETURN(interp::Tensor operand, operandOf(kernel, launch, op.operand(0)));
      return write(launch.args[inputs], operand);
    }
    std::vector<interp::Tensor> operands;
    for (unsigned i = 0; i < op.numOperands(); ++i) {
      // A scatter's updates combine into its result, which holds the operand by now.
      if (scatter && i == 0) {
        KILN_ASSIGN_OR_RETURN(interp::Tensor t, tensorAt(launch.args[inputs], op.operand(0)->type()));
        operands.push_back(std::move(t));
        continue;
      }
      KILN_ASSIGN_OR_RETURN(interp::Tensor t, operandOf(kernel, launch, op.operand(i)));
      operands.push_back(std::move(t));
    }
    Expected<std::vector<interp::Tensor>> results = interp::evaluateOp(op, std::move(operands));
    if (!results) return results.takeStatus();
    for (size_t j = 0; j < kernel.outputs.size(); ++j) KILN_RETURN_IF_ERROR(write(launch.args[inputs + j], (*results)[j]));
    return Status::ok();
  }

  Status matmul(const MatmulCall& call) override {
    ++matmuls;
    const MatmulPlan& m = plan_.matmuls[call.matmul].plan;
    KILN_ASSIGN_OR_RETURN(uint8_t* a, at(call.a));
    KILN_ASSIGN_OR_RETURN(uint8_t* b, at(call.b));
    KILN_ASSIGN_OR_RETURN(uint8_t* d, at(call.d));
    uint8_t* bias = nullptr;
    if (call.bias) {
      KILN_ASSIGN_OR_RETURN(bias, at(*call.bias));
    }
    matmulAsCublasLtDefinesIt(m, a, b, bias, d);
    return Status::ok();
  }

  // cusolverDnXsyevd / Xgesvd, and the batched Jacobi routines
  // syevjBatched (whose operand and results are Xsyevd's) and
  // gesvdjBatched (the full U, rows x rows, and V, not V^T, cols x cols,
  // of any rows x cols), as their documentation defines them, for each of
  // the call's matrices: element (r, c) of a column-major matrix at
  // r + c * ld (ld: its rows), a's copy in `work` first; computed by the
  // interpreter's decompositions (real matrices only, as the
  // interpreter's). cuSOLVER's vectors' signs are its own: here every
  // other vector (pair) of the interpreter's is negated, so that the
  // program's own sign fix-up (lapack_to_cusolver) is what restores them.
  // An SVD destroys its copy of a (cuSOLVER's documentation): here it is
  // left holding NaNs, so that nothing may read it after.
  Status solve(const SolverCall& call) override {
    ++solves;
    const SolverProblem& p = call.problem;
    if (p.element.isComplex()) return error("the host model of cuSOLVER takes real matrices (the interpreter's do)");
    TypeKind kind = p.element.kind();
    KILN_ASSIGN_OR_RETURN(uint8_t* a, at(call.a));
    KILN_ASSIGN_OR_RETURN(uint8_t* work, at(call.work));
    std::memmove(work, a, call.a.bytes);
    std::vector<uint8_t*> out;
    for (const DeviceSlot& slot : call.results) {
      KILN_ASSIGN_OR_RETURN(uint8_t* bytes, at(slot));
      out.push_back(bytes);
    }
    int64_t rows = p.rows, cols = p.cols, k = std::min(rows, cols);
    Type element = Type::element(kind);
    for (int64_t b = 0; b < p.batch; ++b) {
      interp::Tensor m(Type::tensor({rows, cols}, element));  // row-major, for the interpreter
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) m.setFloat(i * cols + j, loadElement(work, kind, b * rows * cols + i + j * rows));
      // A row-major matrix `t` stored column-major at `base` (leading dim: its rows).
      auto storeColumnMajor = [&](const interp::Tensor& t, uint8_t* base, int64_t offset) {
        int64_t r = t.type().shape()[0], c = t.type().shape()[1];
        for (int64_t i = 0; i < r; ++i)
          for (int64_t j = 0; j < c; ++j) storeElement(base, kind, offset + i + j * r, t.getFloat(i * c + j));
      };
      if (p.eigen()) {
        interp::Tensor vectors, values;
        std::vector<int64_t> info;
        interp::symmetricEigen(m, p.lower, m.type(), Type::tensor({rows}, element), vectors, values, info);
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 1; j < rows; j += 2) vectors.setFloat(i * rows + j, -vectors.getFloat(i * rows + j));
        storeColumnMajor(vectors, work, b * rows * rows);
        for (int64_t i = 0; i < rows; ++i) storeElement(out[1], kind, b * rows + i, values.getFloat(i));
        int32_t code = int32_t(info.at(0));
        std::memcpy(out[2] + b * 4, &code, 4);
        continue;
      }
      int64_t uCols = p.jobu == 'A' ? rows : k, vtRows = p.jobvt == 'A' ? cols : k;
      bool jacobi = p.routine == SolverProblem::Routine::GesvdjBatched;  // V (cols x cols), not VT
      interp::Tensor values, u, vt;
      interp::singularValueDecomposition(m, Type::tensor({k}, element), Type::tensor({rows, uCols}, element),
                                         Type::tensor({vtRows, cols}, element), values, u, vt);
      for (int64_t j = 1; j < k; j += 2) {
        for (int64_t i = 0; i < rows; ++i) u.setFloat(i * uCols + j, -u.getFloat(i * uCols + j));
        for (int64_t i = 0; i < cols; ++i) vt.setFloat(j * cols + i, -vt.getFloat(j * cols + i));
      }
      for (int64_t i = 0; i < k; ++i) storeElement(out[0], kind, b * k + i, values.getFloat(i));
      storeColumnMajor(u, out[1], b * rows * uCols);
      if (jacobi) {
        for (int64_t i = 0; i < cols; ++i)  // V(i, j) = VT(j, i), at i + j * cols
          for (int64_t j = 0; j < cols; ++j) storeElement(out[2], kind, b * cols * cols + i + j * cols, vt.getFloat(j * cols + i));
      } else {
        storeColumnMajor(vt, out[2], b * vtRows * cols);
      }
      for (int64_t e = 0; e < rows * cols; ++e) storeElement(work, kind, b * rows * cols + e, std::nan(""));
      int32_t zero = 0;
      std::memcpy(out[3] + b * 4, &zero, 4);
    }
    return Status::ok();
  }

  Status copy(const CopyStep& copy) override {
    ++copies;
    if (copy.from.bytes != copy.to.bytes) return error("a copy between slots of different sizes");
    KILN_ASSIGN_OR_RETURN(uint8_t* from, at(copy.from));
    KILN_ASSIGN_OR_RETURN(uint8_t* to, at(copy.to));
    std::memmove(to, from, copy.from.bytes);
    return Status::ok();
  }

  Status check(const HostCheck& check) override {
    std::vector<interp::Tensor> operands;
    for (size_t i = 0; i < check.operands.size(); ++i) {
      KILN_ASSIGN_OR_RETURN(interp::Tensor t, tensorAt(check.operands[i], check.op->operand(i)->type()));
      operands.push_back(std::move(t));
    }
    Expected<std::vector<interp::Tensor>> checked = interp::evaluateOp(*check.op, std::move(operands));
    return checked ? Status::ok() : checked.takeStatus();
  }

  Status read(const DeviceSlot& slot, void* host) override {
    ++reads;
    KILN_ASSIGN_OR_RETURN(uint8_t* bytes, at(slot));
    std::memcpy(host, bytes, slot.bytes);
    return Status::ok();
  }

 private:
  Expected<uint8_t*> at(const DeviceSlot& slot) {
    std::vector<uint8_t>& region = slot.region == DeviceRegion::Parameters ? parameters_
                                   : slot.region == DeviceRegion::Arena    ? arena_
                                                                           : constants_;
    if (slot.offset < 0 || slot.offset % kSlotAlignment || slot.offset + slot.bytes > int64_t(region.size()))
      return error("a slot of " + std::to_string(slot.bytes) + " bytes at " + std::to_string(slot.offset) +
                   " outside its region of " + std::to_string(region.size()) + " or unaligned");
    return region.data() + slot.offset;
  }

  Expected<interp::Tensor> tensorAt(const DeviceSlot& slot, Type type) {
    if (storageBytes(type) != slot.bytes) return error("a slot of " + std::to_string(slot.bytes) + " bytes for " + type.str());
    interp::Tensor t = interp::Tensor::uninitialized(type);
    if (slot.bytes == 0) return t;
    KILN_ASSIGN_OR_RETURN(uint8_t* bytes, at(slot));
    std::memcpy(t.bytes(), bytes, slot.bytes);
    return t;
  }

  Status write(const DeviceSlot& slot, const interp::Tensor& t) {
    if (int64_t(t.byteSize()) != slot.bytes) return error("a value of " + std::to_string(t.byteSize()) + " bytes for a slot of " + std::to_string(slot.bytes));
    if (slot.bytes == 0) return Status::ok();
    KILN_ASSIGN_OR_RETURN(uint8_t* bytes, at(slot));
    std::memcpy(bytes, t.bytes(), slot.bytes);
    return Status::ok();
  }

  // Operand `v` of the kernel's op: from the slot of the kernel parameter
  // bound to it, or, a splat constant the kernel computes, from its value.
  Expected<interp::Tensor> operandOf(const CudaKernel& kernel, const KernelLaunch& launch, const Value* v) {
    auto found = std::find(kernel.inputs.begin(), kernel.inputs.end(), v);
    if (found != kernel.inputs.end()) return tensorAt(launch.args[found - kernel.inputs.begin()], v->type());
    const Operation* def = v->definingOp();
    if (def && def->name() == "stablehlo.constant") return interp::Tensor::fromDense(def->attr("value"));
    return error(kernel.name + " has no parameter for an operand of " + kernel.source);
  }

  const CudaPlan& plan_;
  std::vector<uint8_t> parameters_, arena_, constants_;
};

}  // namespace kiln::gpu::testing
