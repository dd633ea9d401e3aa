// Loops in LLVM IR (see loops.h).
#include "kiln/codegen/loops.h"

namespace kiln::codegen {

Status emitLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name,
                const std::function<Status(llvm::Value*)>& body, const LatchHook& onLatch) {
  llvm::BasicBlock* before = b.GetInsertBlock();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), name, before->getParent());
  auto* done = llvm::BasicBlock::Create(b.getContext(), name + ".done", before->getParent());
  b.CreateCondBr(b.CreateICmpSLT(begin, end), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name + ".i");
  i->addIncoming(begin, before);
  KILN_RETURN_IF_ERROR(body(i));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(1), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b.GetInsertBlock());
  llvm::BranchInst* latch = b.CreateCondBr(b.CreateICmpSLT(next, end), loop, done);
  if (onLatch && latch->getParent() == loop) onLatch(loop, latch);
  b.SetInsertPoint(done);
  return Status::ok();
}

Expected<std::vector<llvm::Value*>> emitCarryingLoop(llvm::IRBuilder<>& b, const CarryingLoop& loop,
                                                     const CarryingBody& body, const LatchHook& onLatch) {
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* fn = before->getParent();
  auto* header = llvm::BasicBlock::Create(b.getContext(), loop.name, fn);
  auto* done = llvm::BasicBlock::Create(b.getContext(), loop.exitName, fn);
  b.CreateBr(header);
  b.SetInsertPoint(header);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, loop.counterName);
  i->addIncoming(loop.begin, before);
  std::vector<llvm::PHINode*> phis;
  std::vector<llvm::Value*> carried;
  for (const CarryingLoop::Carried& value : loop.carried) {
    phis.push_back(b.CreatePHI(value.initial->getType(), 2, value.name));
    phis.back()->addIncoming(value.initial, before);
    carried.push_back(phis.back());
  }
  KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> next, body(i, carried));
  if (next.size() != phis.size()) return error("codegen: a loop body returned " + std::to_string(next.size()) +
                                               " values for " + std::to_string(phis.size()) + " carried ones");
  llvm::BasicBlock* latchBlock = b.GetInsertBlock();  // the body may have added loops
  llvm::Value* iNext = b.CreateAdd(i, b.getInt64(loop.step), "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(iNext, latchBlock);
  for (size_t k = 0; k < phis.size(); ++k) phis[k]->addIncoming(next[k], latchBlock);
  llvm::BranchInst* latch = b.CreateCondBr(b.CreateICmpSLT(iNext, loop.end), header, done);
  if (onLatch && latchBlock == header) onLatch(header, latch);
  b.SetInsertPoint(done);
  return next;
}

}  // namespace kiln::codegen
