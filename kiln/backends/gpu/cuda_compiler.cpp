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
#include "kiln/codegen/element_ops.h"

namespace kiln::gpu {
namespace {

// Ops that move no data on a device: nothing to launch.
bool launchesNothing(std::string_view name) {
  static const std::set<std::string_view> kNone = {
      "stablehlo.constant", "stablehlo.reshape", "stablehlo.tuple", "stablehlo.get_tuple_element",
      "stablehlo.after_all", "stablehlo.optimization_barrier", "func.return", "stablehlo.return", "kiln.yield"};
  return kNone.count(name) > 0;
}

Status unsupported(const Operation& op, std::string_view what = {}) {
  return codegen::unsupported(gpuTargetHooks().backendName(), op, what);
}

// The kernel of `op`: a fusion's body (its arguments in, its yielded values
// out), or the op on its operands, splat constants computed in the kernel.
GpuKernelPlan planOf(const Operation& op) {
  GpuKernelPlan plan;
  plan.op = &op;
  if (op.name() == "kiln.fusion") {
    const Block& body = op.region(0).front();
    for (const Value* arg : body.arguments()) plan.params.push_back(arg);
    for (const Value* root : body.terminator()->operands()) plan.roots.push_back(root);
    return plan;
  }
  for (const Value* operand : op.operands()) {
    const Operation* def = operand->definingOp();
    Attribute value = def && def->name() == "stablehlo.constant" ? def->attr("value") : Attribute();
    if (!(value && value.is(AttrKind::DenseElements) && value.denseIsSplat())) plan.params.push_back(operand);
  }
  for (unsigned i = 0; i < op.numResults(); ++i) plan.roots.push_back(op.result(i));
  return plan;
}

class Compiler {
 public:
  void compileBlock(const Block& block) {
    for (const Operation& op : block) {
      const std::string& name = op.name();
      if (launchesNothing(name)) continue;
      if (name == "kiln.fusion") {
        Attribute kind = op.attr("kind");
        if (kind && kind.stringValue() == "output")
          record(unsupported(op, "of kind output (a dot or convolution and its epilogue: cuBLASLt and cuDNN are not wired up)"));
        else
          compileKernel(planOf(op));
      } else if (codegen::isElementalOp(name)) {
        compileKernel(planOf(op));
      } else if (name == "stablehlo.while" || name == "stablehlo.if" || name == "stablehlo.case") {
        record(unsupported(op, "(control flow runs on the host; the cuda back end has no runtime)"));
        for (const auto& region : op.regions())
          for (const auto& inner : region->blocks()) compileBlock(*inner);
      } else if (Attribute target = op.attr("call_target_name"); target && name == "stablehlo.custom_call") {
        record(unsupported(op, "to " + target.stringValue()));
      } else {
        record(unsupported(op));
      }
    }
  }

  CudaCompilation result;

 private:
  void record(const Status& status) { result.unsupported.push_back(status.diag().message); }

  // One LLVM module per kernel: its .ll and .ptx are the kernel's alone.
  void compileKernel(const GpuKernelPlan& plan) {
    llvm::LLVMContext ctx;
    llvm::Module m("kiln_cuda", ctx);
    std::string name = "k" + std::to_string(result.kernels.size());
    if (Status target = setNvptxTarget(m); !target.isOk()) return record(target);
    Expected<EmittedKernel> emitted = emitKernel(plan, name, m);
    if (!emitted) return record(emitted.status());
    CudaKernel kernel{name + "_" + shapeName(emitted->shape), plan.op->name() + " (" + plan.op->loc().str() + ")",
                      emitted->shape, emitted->launch, {}, {}};
    m.getFunction(name)->setName(kernel.name);
    // The launch, readable in the .ll (and, as a comment, in the .ptx).
    llvm::Metadata* launch = llvm::MDString::get(ctx, kernel.launch.str());
    m.getOrInsertNamedMetadata("kiln.launch")->addOperand(llvm::MDNode::get(ctx, launch));
    llvm::raw_string_ostream ir(kernel.llvmIr);
    m.print(ir, nullptr);
    for (std::string_view arch : kCudaArchs) {
      Expected<std::string> ptx = compileToPtx(m, arch);
      if (!ptx) return record(error(plan.op->loc(), ptx.status().message()));
      kernel.ptx.emplace_back(arch, "// kiln kernel " + kernel.name + " for " + kernel.source + ": " +
                                        shapeName(kernel.shape) + ", " + kernel.launch.str() + "\n" + *ptx);
    }
    result.kernels.push_back(std::move(kernel));
  }
};

Status writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !(out << text)) return error("cannot write '" + path.string() + "'");
  return Status::ok();
}

}  // namespace

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
  for (const std::string& message : compilation.unsupported) summary += "unsupported: " + message + "\n";
  return writeFile(std::filesystem::path(dir) / "cuda_kernels.txt", summary);
}

}  // namespace kiln::gpu
