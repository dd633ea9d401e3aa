// LLVM's default O3 pipeline for a target machine, shared by every back end
// that emits LLVM IR (the cpu JIT and the cuda back end's PTX): the four
// analysis managers registered and cross-wired once, so a back end can run
// its own passes after O3 over the same analyses. Included by back-end .cpp
// files only (it brings in LLVM's pass builder).
#pragma once

#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace kiln::codegen {

class ModuleOptimizer {
 public:
  // With `machine`'s own passes (the NVPTX machine's address-space
  // inference, the x86 cost model that sizes vector loops); `tuning` turns
  // parts of the pipeline off (the cpu back end's kernels leave out the SLP
  // vectorizer).
  explicit ModuleOptimizer(llvm::TargetMachine& machine, llvm::PipelineTuningOptions tuning = {});
  // LLVM's per-module default pipeline at O3.
  void runO3(llvm::Module& m);
  // More passes over `m` (after runO3), reusing the analyses.
  void run(llvm::ModulePassManager& passes, llvm::Module& m);

 private:
  llvm::LoopAnalysisManager loops_;
  llvm::FunctionAnalysisManager functions_;
  llvm::CGSCCAnalysisManager cgscc_;
  llvm::ModuleAnalysisManager modules_;
  llvm::PassBuilder builder_;
};

}  // namespace kiln::codegen
