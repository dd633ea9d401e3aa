// Loops in LLVM IR, for any back end that emits LLVM IR: a counted loop,
// and a loop that carries values from one iteration to the next (a fold's
// accumulators) without hand-built PHI nodes. Target-neutral: a back end
// attaches its own loop metadata (vectorization hints) through the latch
// branch these return or the hook they call.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "kiln/support/diagnostic.h"

namespace kiln::codegen {

// Called with a loop's one block and the branch that ends it (its latch),
// when the loop's body added no blocks of its own.
using LatchHook = std::function<void(llvm::BasicBlock* body, llvm::BranchInst* latch)>;

// Emits `for (i = begin; i < end; ++i) body(i)` (signed compare; blocks
// `name` and `name.done`, the counter `name.i`) at the builder's position
// and leaves the builder after it. `body` may add blocks (inner loops).
Status emitLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name,
                const std::function<Status(llvm::Value*)>& body, const LatchHook& onLatch = {});

// A loop that runs at least once -- the caller knows begin < end -- so its
// blocks dominate the code after it (an element cache stays valid across
// it), and that carries values: counter i runs begin, begin + step, ...
// while below `end` (signed), and each iteration maps the carried values to
// the next ones.
struct CarryingLoop {
  std::string name;      // of the loop's block
  std::string exitName;  // of the block after it
  std::string counterName;
  llvm::Value* begin = nullptr;
  llvm::Value* end = nullptr;
  int64_t step = 1;
  struct Carried {
    llvm::Value* initial;  // into the first iteration
    std::string name;
  };
  std::vector<Carried> carried;
};

// Emits `loop` at the builder's position, leaves the builder after it and
// returns the values the last iteration produced. body(i, carried) returns
// the next iteration's values (one per carried value, of its type); it may
// add blocks (inner loops). `onLatch` as for emitLoop.
using CarryingBody =
    std::function<Expected<std::vector<llvm::Value*>>(llvm::Value* i, const std::vector<llvm::Value*>& carried)>;
Expected<std::vector<llvm::Value*>> emitCarryingLoop(llvm::IRBuilder<>& b, const CarryingLoop& loop,
                                                     const CarryingBody& body, const LatchHook& onLatch = {});

}  // namespace kiln::codegen
