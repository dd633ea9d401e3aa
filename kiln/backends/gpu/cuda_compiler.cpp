// The cuda back end's compiler (see cuda_compiler.h).
#include "kiln/backends/gpu/cuda_compiler.h"

#include <filesystem>
#include <fstream>
#include <set>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "kiln/backends/gpu/gpu_target_hooks.h"
#include "kiln/backends/gpu/ptx.h"
#include "kiln/backends/gpu/solver_calls.h"
#include "kiln/interp/linalg.h"
#include "kiln/codegen/element_ops.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/buffer_assignment.h"

namespace kiln::gpu {
namespace {

Status unsupported(const Operation& op, std::string_view what = {}) {
  return codegen::unsupported(gpuTargetHooks().backendName(), op, what);
}

// Whether `v` is a splat constant, which a kernel computes rather than reads.
bool isSplatConstant(const Value* v) {
  const Operation* def = v->definingOp();
  Attribute value = def && def->name() == "stablehlo.constant" ? def->attr("value") : Attribute();
  return value && value.is(AttrKind::DenseElements) && value.denseIsSplat();
}

// The kernel of `op`: a fusion's body (its arguments in, its yielded values
// out), or the op on its operands, splat constants computed in the kernel.
// `inputs` receives the values outside the kernel its params are bound to.
GpuKernelPlan planOf(const Operation& op, std::vector<const Value*>& inputs) {
  GpuKernelPlan plan;
  plan.op = &op;
  if (op.name() == "kiln.fusion") {
    const Block& body = op.region(0).front();
    for (const Value* arg : body.arguments()) plan.params.push_back(arg);
    for (unsigned i = 0; i < op.numOperands(); ++i) inputs.push_back(op.operand(i));
    for (const Value* root : body.terminator()->operands()) plan.roots.push_back(root);
    return plan;
  }
  for (const Value* operand : op.operands()) {
    if (isSplatConstant(operand)) continue;
    plan.params.push_back(operand);
    inputs.push_back(operand);
  }
  for (unsigned i = 0; i < op.numResults(); ++i) plan.roots.push_back(op.result(i));
  return plan;
}

// "cond", "body"; "true", "false"; "branch 2".
std::string regionName(const Operation& op, size_t region) {
  if (op.name() == "stablehlo.while") return region == 0 ? "cond" : "body";
  if (op.name() == "stablehlo.if") return region == 0 ? "true" : "false";
  return "branch " + std::to_string(region);
}

class Compiler {
 public:
  void compileBlock(const Block& block) {
    for (const Operation& op : block) {
      if (launchesNothing(op)) continue;
      if (isSolverCallOp(op)) {
        result.solverCalls.push_back(op.name() + " (" + op.loc().str() + "), cuSOLVER " + solverProblemOf(op).str());
        continue;
      }
      if (isMatmulOp(op)) {
        Expected<CudaMatmul> matmul = compileMatmul(op);
        if (!matmul) {
          // What cuBLASLt does not take runs as a contraction kernel (contraction.h).
          Expected<std::vector<CudaKernel>> kernels = compileKernels(op, result.kernels.size(), kCudaArchs);
          if (!kernels) record(kernels.status());
          else for (CudaKernel& kernel : *kernels) result.kernels.push_back(std::move(kernel));
          continue;
        }
        if (matmul->plan.epilogueKernel) {
          Expected<CudaKernel> rest = compileEpilogueKernel(op, matmul->plan.product,
                                                            "k" + std::to_string(result.kernels.size()), kCudaArchs);
          if (!rest) {
            record(rest.status());
            continue;
          }
          matmul->epilogueKernel = rest->name;
          result.kernels.push_back(std::move(*rest));
        }
        result.matmuls.push_back(std::move(*matmul));
        continue;
      }
      if (isKernelOp(op)) {
        Expected<std::vector<CudaKernel>> kernels = compileKernels(op, result.kernels.size(), kCudaArchs);
        if (!kernels) record(kernels.status());
        else for (CudaKernel& kernel : *kernels) result.kernels.push_back(std::move(kernel));
        continue;
      }
      if (!hasTrait(op, kControlFlow)) {
        record(unsupportedOnCuda(op));
        continue;
      }
      if (Status refused = controlFlowOnCuda(op); !refused.isOk()) record(refused);
      // The regions' kernels run as the host chooses.
      std::string line = op.name() + " (" + op.loc().str() + ") on the host:";
      size_t at = result.controlFlow.size();
      result.controlFlow.emplace_back();
      for (size_t r = 0; r < op.numRegions(); ++r) {
        size_t kernels = result.kernels.size(), matmuls = result.matmuls.size();
        for (const auto& inner : op.region(r).blocks()) compileBlock(*inner);
        line += std::string(r ? ";" : "") + " " + regionName(op, r);
        for (size_t k = kernels; k < result.kernels.size(); ++k) line += " " + result.kernels[k].name;
        for (size_t m = matmuls; m < result.matmuls.size(); ++m) line += " m" + std::to_string(m);
        if (kernels == result.kernels.size() && matmuls == result.matmuls.size()) line += " (copies only)";
      }
      result.controlFlow[at] = line;
    }
  }

  CudaCompilation result;

 private:
  void record(const Status& status) { result.unsupported.push_back(status.diag().message); }
};

Status writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) return error("cannot write '" + path.string() + "'");
  return Status::ok();
}

}  // namespace

bool launchesNothing(const Operation& op) {
  static const std::set<std::string_view> kNone = {
      "stablehlo.constant", "stablehlo.tuple", "stablehlo.get_tuple_element", "stablehlo.after_all",
      "stablehlo.optimization_barrier", "func.return", "stablehlo.return", "kiln.yield"};
  return kNone.count(op.name()) > 0 || isViewOp(op);  // a view's bytes are its operand's
}

bool isKernelOp(const Operation& op) {
  if (op.name() == "kiln.fusion") {
    Attribute kind = op.attr("kind");
    return !(kind && kind.stringValue() == "output");
  }
  return codegen::isElementalOp(op.name()) || op.name() == "stablehlo.gather" || op.name() == "stablehlo.scatter" ||
         op.name() == "stablehlo.sort" || op.name() == "stablehlo.select_and_scatter" ||
         op.name() == "stablehlo.convolution" || op.name() == "stablehlo.rng_bit_generator" ||
         op.name() == "stablehlo.fft" || isRoutineKernelOp(op);
}

Status unsupportedOnCuda(const Operation& op) {
  const std::string& name = op.name();
  if (Status refused = hasTrait(op, kControlFlow) ? controlFlowOnCuda(op) : Status::ok(); !refused.isOk()) return refused;
  if (Attribute target = op.attr("call_target_name"); target && name == "stablehlo.custom_call") {
    // LAPACK's other routines (geev, gtsv, complex geqrf and ungqr) have
    // no device kernel or cuSOLVER call yet.
    if (!interp::lapackRoutineOf(op).empty())
      return unsupported(op, "to " + target.stringValue() +
                                 " (of the LAPACK routines trsm, potrf, getrf, geqrf and orgqr run as kernels, syevd, "
                                 "heevd and gesdd through cuSOLVER)");
    return unsupported(op, "to " + target.stringValue());
  }
  return unsupported(op);
}

Status controlFlowOnCuda(const Operation& op) {
  for (const Value* v : op.operands())
    if (!v->type().isTensor()) return unsupported(op, "over a " + v->type().str() + " (the host drives tensors only)");
  for (unsigned i = 0; i < op.numResults(); ++i)
    if (!op.result(i)->type().isTensor())
      return unsupported(op, "over a " + op.result(i)->type().str() + " (the host drives tensors only)");
  return Status::ok();
}

namespace {

// The kernel of `plan` (from `op`), its parameters bound to `inputs`.
Expected<CudaKernel> compilePlan(const GpuKernelPlan& plan, std::vector<const Value*> inputs, const std::string& name,
                                 std::span<const std::string_view> archs) {
  const Operation& op = *plan.op;
  // One LLVM module per kernel: its .ll and .ptx are the kernel's alone.
  llvm::LLVMContext ctx;
  llvm::Module m("kiln_cuda", ctx);
  KILN_RETURN_IF_ERROR(setNvptxTarget(m));
  CudaKernel kernel;
  kernel.inputs = std::move(inputs);
  for (unsigned i = 0; i < op.numResults(); ++i) kernel.outputs.push_back(op.result(i));
  KILN_ASSIGN_OR_RETURN(EmittedKernel emitted, emitKernel(plan, name, m));
  kernel.name = name + "_" + shapeName(emitted.shape);
  kernel.source = op.name() + " (" + op.loc().str() + ")";
  kernel.op = &op;
  kernel.shape = emitted.shape;
  kernel.launch = emitted.launch;
  m.getFunction(name)->setName(kernel.name);
  // The launch, readable in the .ll (and, as a comment, in the .ptx).
  llvm::Metadata* launch = llvm::MDString::get(ctx, kernel.launch.str());
  m.getOrInsertNamedMetadata("kiln.launch")->addOperand(llvm::MDNode::get(ctx, launch));
  llvm::raw_string_ostream ir(kernel.llvmIr);
  m.print(ir, nullptr);
  for (std::string_view arch : archs) {
    Expected<std::string> ptx = compileToPtx(m, arch);
    if (!ptx) return error(op.loc(), ptx.status().message());
    kernel.ptx.emplace_back(arch, "// kiln kernel " + kernel.name + " for " + kernel.source + ": " +
                                      shapeName(kernel.shape) + ", " + kernel.launch.str() + "\n" + *ptx);
  }
  return kernel;
}

}  // namespace

Expected<std::vector<CudaKernel>> compileKernels(const Operation& op, size_t firstIndex,
                                                 std::span<const std::string_view> archs) {
  std::vector<CudaKernel> kernels;
  auto nameOf = [&] { return "k" + std::to_string(firstIndex + kernels.size()); };
  if (op.name() == "stablehlo.scatter") {
    if (op.numOperands() != 3) return unsupported(op, "of several inputs");
    // The result starts as the operand: a loop kernel copies it (of a
    // constant operand, computes it), then the updates kernel combines
    // into it. Buffer assignment may give the result the operand's own
    // buffer; the copy then writes each element onto itself.
    GpuKernelPlan copy;
    copy.op = &op;
    copy.roots = {op.operand(0)};
    std::vector<const Value*> copyInputs;
    if (!isSplatConstant(op.operand(0))) {
      copy.params = {op.operand(0)};
      copyInputs = {op.operand(0)};
    }
    KILN_ASSIGN_OR_RETURN(CudaKernel first, compilePlan(copy, std::move(copyInputs), nameOf(), archs));
    kernels.push_back(std::move(first));
    GpuKernelPlan updates;
    updates.op = &op;
    updates.roots = {op.result(0)};
    std::vector<const Value*> updateInputs;
    for (const Value* operand : {op.operand(1), op.operand(2)}) {
      if (isSplatConstant(operand)) continue;
      updates.params.push_back(operand);
      updateInputs.push_back(operand);
    }
    KILN_ASSIGN_OR_RETURN(CudaKernel second, compilePlan(updates, std::move(updateInputs), nameOf(), archs));
    kernels.push_back(std::move(second));
    return kernels;
  }
  std::vector<const Value*> inputs;
  GpuKernelPlan plan;
  if (op.name() == "stablehlo.sort" || isRoutineKernelOp(op)) {  // every operand read from memory, in order
    plan.op = &op;
    for (unsigned i = 0; i < op.numOperands(); ++i) plan.params.push_back(op.operand(i));
    for (unsigned i = 0; i < op.numResults(); ++i) plan.roots.push_back(op.result(i));
    inputs = plan.params;
  } else {
    plan = planOf(op, inputs);
  }
  KILN_ASSIGN_OR_RETURN(CudaKernel kernel, compilePlan(plan, std::move(inputs), nameOf(), archs));
  kernels.push_back(std::move(kernel));
  return kernels;
}

Expected<CudaKernel> compileEpilogueKernel(const Operation& fusion, const Value* product, const std::string& name,
                                           std::span<const std::string_view> archs) {
  GpuKernelPlan plan;
  plan.op = &fusion;
  const Block& body = fusion.region(0).front();
  plan.params.push_back(product);
  std::vector<const Value*> inputs = {product};
  for (const Value* arg : body.arguments()) plan.params.push_back(arg);
  for (unsigned i = 0; i < fusion.numOperands(); ++i) inputs.push_back(fusion.operand(i));
  for (const Value* root : body.terminator()->operands()) plan.roots.push_back(root);
  return compilePlan(plan, std::move(inputs), name, archs);
}

Expected<CudaMatmul> compileMatmul(const Operation& op) {
  KILN_ASSIGN_OR_RETURN(MatmulPlan plan, planMatmul(op));
  return CudaMatmul{op.name() + " (" + op.loc().str() + ")", plan};
}

CudaCompilation compileForCuda(const Module& lowered) {
  Compiler compiler;
  for (const Operation* fn : lowered.definedFunctions()) compiler.compileBlock(func::body(*fn));
  return std::move(compiler.result);
}

Status writeCudaDumps(const CudaCompilation& compilation, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return error("cannot create '" + dir + "': " + ec.message());
  std::string summary;
  for (const CudaKernel& kernel : compilation.kernels) {
    KILN_RETURN_IF_ERROR(writeFile(std::filesystem::path(dir) / (kernel.name + ".ll"), kernel.llvmIr));
    for (const auto& [arch, ptx] : kernel.ptx)
      KILN_RETURN_IF_ERROR(writeFile(std::filesystem::path(dir) / (kernel.name + "." + arch + ".ptx"), ptx));
    summary += "kernel " + kernel.name + ": " + kernel.source + ", " + kernel.launch.str() + "\n";
  }
  for (size_t i = 0; i < compilation.matmuls.size(); ++i)
    summary += "matmul m" + std::to_string(i) + ": " + compilation.matmuls[i].source + ", cuBLASLt " +
               compilation.matmuls[i].plan.str() +
               (compilation.matmuls[i].epilogueKernel.empty() ? "" : ", then kernel " + compilation.matmuls[i].epilogueKernel) +
               "\n";
  for (const std::string& line : compilation.controlFlow) summary += "control " + line + "\n";
  for (size_t i = 0; i < compilation.solverCalls.size(); ++i)
    summary += "solver s" + std::to_string(i) + ": " + compilation.solverCalls[i] + "\n";
  for (const std::string& message : compilation.unsupported) summary += "unsupported: " + message + "\n";
  return writeFile(std::filesystem::path(dir) / "cuda_kernels.txt", summary);
}

}  // namespace kiln::gpu
