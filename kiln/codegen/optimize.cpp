// LLVM's O3 pipeline (see optimize.h).
#include "kiln/codegen/optimize.h"

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace kiln::codegen {

ModuleOptimizer::ModuleOptimizer(llvm::TargetMachine& machine, llvm::PipelineTuningOptions tuning)
    : builder_(&machine, tuning) {
  builder_.registerModuleAnalyses(modules_);
  builder_.registerCGSCCAnalyses(cgscc_);
  builder_.registerFunctionAnalyses(functions_);
  builder_.registerLoopAnalyses(loops_);
  builder_.crossRegisterProxies(loops_, functions_, cgscc_, modules_);
}

void ModuleOptimizer::runO3(llvm::Module& m) {
  builder_.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, modules_);
}

void ModuleOptimizer::run(llvm::ModulePassManager& passes, llvm::Module& m) { passes.run(m, modules_); }

}  // namespace kiln::codegen
