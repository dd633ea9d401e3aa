// PTX from LLVM IR (see ptx.h).
#include "kiln/backends/gpu/ptx.h"

#include <memory>
#include <mutex>

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "kiln/backends/gpu/libdevice.h"
#include "kiln/codegen/optimize.h"

namespace kiln::gpu {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";

Expected<std::unique_ptr<llvm::TargetMachine>> nvptxMachine(std::string_view arch) {
  static std::once_flag initialized;
  std::call_once(initialized, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string message;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, message);
  if (!target) return error("cuda back end: LLVM has no NVPTX target: " + message);
  // Floating-point contraction: FPOpFusion::Standard (LLVM's default, spelled
  // out because results depend on it), as the cpu back end's JIT. Only the
  // fused multiply-adds the IR asks for (llvm.fma: complex products as the
  // interpreter's complex_math::multiply, the f32 math approximations)
  // become fma.rn; NVPTX emits every other multiply and add with an explicit
  // rounding (mul.rn, add.rn), which ptxas may not contract. Under Fast it
  // would fuse any multiply into the add after it and emit bare add.f32 that
  // ptxas fuses too: not the interpreter's roundings
  // (tests/lit/gpu/fp_contraction.mlir).
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      kTriple, std::string(arch), std::string(kPtxIsa), options, std::nullopt, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) return error("cuda back end: LLVM cannot target " + std::string(arch));
  return machine;
}

}  // namespace

Status setNvptxTarget(llvm::Module& m) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine, nvptxMachine(kCudaArchs[0]));
  m.setTargetTriple(kTriple);
  m.setDataLayout(machine->createDataLayout());
  return Status::ok();
}

Expected<std::string> compileToPtx(const llvm::Module& original, std::string_view arch) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine, nvptxMachine(arch));
  std::unique_ptr<llvm::Module> m = llvm::CloneModule(original);
  std::string problems;
  llvm::raw_string_ostream problemStream(problems);
  if (llvm::verifyModule(*m, &problemStream)) return error("cuda back end: invalid LLVM IR: " + problems);
  KILN_RETURN_IF_ERROR(linkLibdevice(*m));
  // O3 with the NVPTX machine's own passes (address-space inference, so
  // loads from kernel parameters become ld.global).
  codegen::ModuleOptimizer(*machine).runO3(*m);
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream out(ptx);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return error("cuda back end: LLVM cannot emit PTX for " + std::string(arch));
  codegen.run(*m);
  return std::string(ptx.str());
}

}  // namespace kiln::gpu
