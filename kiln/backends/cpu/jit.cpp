#include "kiln/backends/cpu/jit.h"

#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

namespace kiln::cpu {

struct KernelJit::Impl {
  llvm::orc::JITTargetMachineBuilder machineBuilder{llvm::Triple()};
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::LLVMContext> ctx;
  std::unique_ptr<llvm::Module> module;  // until finalize()
  std::unique_ptr<llvm::orc::LLJIT> jit;  // after finalize(); owns the code
};

namespace {

Status fromLlvm(llvm::Error err, std::string_view context) {
  return error(ErrorCode::Internal, "cpu back end: " + std::string(context) + ": " + llvm::toString(std::move(err)));
}

// The host as LLVM sees it: triple, CPU name and the CPU features detected
// at run time (the name alone can be wrong under a hypervisor).
llvm::orc::JITTargetMachineBuilder hostMachine() {
  llvm::orc::JITTargetMachineBuilder machine{llvm::Triple(llvm::sys::getProcessTriple())};
  machine.setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    features.AddFeature(feature.getKey(), feature.getValue());
  machine.addFeatures(features.getFeatures());
  machine.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  return machine;
}

// LLVM's default O3 pipeline (which vectorizes the kernel loops).
void optimize(llvm::Module& m, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

}  // namespace

KernelJit::KernelJit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
KernelJit::~KernelJit() = default;

Expected<std::unique_ptr<KernelJit>> KernelJit::create() {
  static std::once_flag llvmInitialized;
  std::call_once(llvmInitialized, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto impl = std::make_unique<Impl>();
  impl->machineBuilder = hostMachine();
  auto machine = impl->machineBuilder.createTargetMachine();
  if (!machine) return fromLlvm(machine.takeError(), "no target machine for the host");
  impl->machine = std::move(*machine);
  impl->ctx = std::make_unique<llvm::LLVMContext>();
  impl->module = std::make_unique<llvm::Module>("kiln_kernels", *impl->ctx);
  impl->module->setDataLayout(impl->machine->createDataLayout());
  impl->module->setTargetTriple(impl->machine->getTargetTriple().str());
  return std::unique_ptr<KernelJit>(new KernelJit(std::move(impl)));
}

llvm::Module& KernelJit::module() { return *impl_->module; }

Status KernelJit::finalize(const JitOptions& options) {
  (void)options;  // dumps: not yet
  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (llvm::verifyModule(*impl_->module, &verifierStream))
    return error(ErrorCode::Internal, "cpu back end: emitted invalid LLVM IR: " + verifierMessage);
  optimize(*impl_->module, *impl_->machine);

  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(impl_->machineBuilder).create();
  if (!jit) return fromLlvm(jit.takeError(), "cannot create the JIT");
  // Kernels call libm (exp, log, tanh), resolved in this process.
  auto libm = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!libm) return fromLlvm(libm.takeError(), "cannot search this process for symbols");
  (*jit)->getMainJITDylib().addGenerator(std::move(*libm));
  if (llvm::Error err = (*jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(impl_->module), std::move(impl_->ctx))))
    return fromLlvm(std::move(err), "cannot add the kernels");
  impl_->jit = std::move(*jit);
  return Status::ok();
}

Expected<void*> KernelJit::lookup(const std::string& name) {
  if (!impl_->jit) return error(ErrorCode::Internal, "cpu back end: lookup before the kernels were compiled");
  auto address = impl_->jit->lookup(name);
  if (!address) return fromLlvm(address.takeError(), "cannot compile the kernels");
  return address->toPtr<void*>();
}

}  // namespace kiln::cpu
