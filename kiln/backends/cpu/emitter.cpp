// The kernel loop nests of the cpu back end: one per KernelForm, around the
// shared elemental emitter (kiln/codegen/elemental_emitter.h), which
// computes each element with the cpu's hooks (cpu_target_hooks.h).
// docs/cpu_backend.md lists what is covered.
#include "kiln/backends/cpu/emitter.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "kiln/backends/cpu/cpu_target_hooks.h"
#include "kiln/backends/cpu/host_isa.h"
#include "kiln/codegen/elemental_emitter.h"
#include "kiln/codegen/elementwise.h"
#include "kiln/codegen/loops.h"
#include "kiln/codegen/narrow_floats.h"

namespace kiln::cpu {
namespace {

using codegen::ElementalEmitter;
using codegen::emitLoadElement;
using codegen::emitLoop;
using codegen::emitStoreElement;
using codegen::registerType;

// Vectors an element loop works on side by side. LLVM's own choice for a
// long body (a chain of exp, tanh, divisions) is one: each vector's chain
// then waits on its own latencies (about 250 cycles through the 10-op bench
// chain) and the out-of-order window holds too few chains to hide them.
// Four independent chains per iteration: f32[65536] chain10 0.125 ->
// 0.087 ms, gelu 0.047 -> 0.040 ms in cache; short bodies unchanged.
constexpr unsigned kElementInterleave = 4;

// Rows shorter than this keep their loop for the vectorizer: LLVM's full
// unroll, which runs first, turned a row of 16 (a batch of 16x16 matrices
// masked after a Cholesky) into 16 scalar selects.
constexpr int64_t kShortRow = 128;

// A short body whose values live at once, times four chains, outnumber the
// vector registers works on kElementInterleaveCrowded vectors instead:
// four chains of the exact gelu (0.5x kept across the f32 erfc: 12 values
// live at once, 86 instructions) stored 17 temporaries to the stack per 64
// elements besides reloading constants. One thread hid that; two threads,
// each streaming its share from memory with non-temporal stores, waited on
// their input loads (perf) and ran f32[4M] gelu_exact only 1.3x faster than
// one. With two chains the loop stores nothing to the stack: 2.9-4.1 ->
// 1.94-2.0 ms at 2 threads, 3.8-4.0 ms at 1 either way (`kiln run
// --profile`, alternating builds). A long body keeps four even so: it is bound by its latencies,
// which two chains hide worse (eight approximations in a row, 11 values live,
// 312 instructions: 16.1 -> 21.1 ms at 1 thread with two; gelu_exact plus
// four more functions, 13 live, 200 instructions, no better with two).
// Measured on AVX-512 (32 vector registers); AVX2 hosts (16) use the same
// count, not measured there.
constexpr size_t kVectorRegisters = 32;
constexpr size_t kLongElementBody = 128;  // instructions of the scalar body
constexpr unsigned kElementInterleaveCrowded = 2;

// The most values of `body` held in vector lanes once it is vectorized
// (floats, and integers of up to 32 bits: an exp's exponent bits) that are
// live at once: defined in it and read by a later instruction of it.
// Indices, addresses and masks live elsewhere.
size_t maxLiveLaneValues(const llvm::BasicBlock& body) {
  auto inLanes = [](const llvm::Type* type) {
    return type->isFloatingPointTy() || (type->isIntegerTy() && type->getIntegerBitWidth() > 1 &&
                                         type->getIntegerBitWidth() <= 32);
  };
  std::set<const llvm::Value*> live;
  size_t most = 0;
  for (auto it = body.rbegin(); it != body.rend(); ++it) {
    live.erase(&*it);
    for (const llvm::Use& operand : it->operands())
      if (auto* inst = llvm::dyn_cast<llvm::Instruction>(operand.get());
          inst && inst->getParent() == &body && !llvm::isa<llvm::PHINode>(inst) && inLanes(inst->getType()))
        live.insert(inst);
    most = std::max(most, live.size());
  }
  return most;
}

// The vectors side by side for the element loop `body`.
unsigned elementInterleave(const llvm::BasicBlock& body) {
  bool crowded = kElementInterleave * maxLiveLaneValues(body) > kVectorRegisters && body.size() <= kLongElementBody;
  return crowded ? kElementInterleaveCrowded : kElementInterleave;
}

// Marks the loop whose one block is `body`, ending in `latch`, as free of
// loop-carried memory dependences (llvm.loop.parallel_accesses), so LLVM
// vectorizes it without runtime alias checks, kElementInterleave vectors
// at a time; with `keepRolled`, not unrolled before it is vectorized
// (llvm.loop.unroll.disable).
void markParallel(llvm::BasicBlock* body, llvm::BranchInst* latch, bool keepRolled = false) {
  llvm::LLVMContext& ctx = body->getContext();
  llvm::MDNode* group = llvm::MDNode::getDistinct(ctx, {});
  for (llvm::Instruction& inst : *body)
    if (inst.mayReadOrWriteMemory()) inst.setMetadata(llvm::LLVMContext::MD_access_group, group);
  llvm::Metadata* parallel[] = {llvm::MDString::get(ctx, "llvm.loop.parallel_accesses"), group};
  llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(ctx, {});
  llvm::Metadata* interleave[] = {
      llvm::MDString::get(ctx, "llvm.loop.interleave.count"),
      llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), elementInterleave(*body)))};
  std::vector<llvm::Metadata*> loopParts = {placeholder.get(), llvm::MDNode::get(ctx, parallel),
                                            llvm::MDNode::get(ctx, interleave)};
  if (keepRolled) loopParts.push_back(llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")}));
  llvm::MDNode* loopId = llvm::MDNode::getDistinct(ctx, loopParts);
  loopId->replaceOperandWith(0, loopId);
  latch->setMetadata(llvm::LLVMContext::MD_loop, loopId);
}

// codegen::emitLoop for a loop whose iterations are independent: if its
// body stays one block, it is marked free of loop-carried memory
// dependences (markParallel).
Status emitParallelLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name,
                        const std::function<Status(llvm::Value*)>& body, bool keepRolled = false) {
  return emitLoop(b, begin, end, name, body, [keepRolled](llvm::BasicBlock* block, llvm::BranchInst* latch) {
    markParallel(block, latch, keepRolled);
  });
}

// Rows a column fold reads per pass over its accumulators.
constexpr int64_t kColumnFoldRows = 8;

Status emitColumnReduces(const std::vector<const Operation*>& reduces, const std::vector<const Value*>& roots,
                         ElementalEmitter& emitter, llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& outputs,
                         llvm::Value* begin, llvm::Value* end) {
  int64_t n = reduces.front()->result()->type().numElements();
  int64_t count = n == 0 ? 0 : reduces.front()->operand(0)->type().numElements() / n;
  std::vector<llvm::Value*> inits;
  for (const Operation* reduce : reduces) {
    KILN_ASSIGN_OR_RETURN(llvm::Value * init, emitter.emit(reduce->operand(1), b.getInt64(0)));
    inits.push_back(init);
  }
  KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "init", [&](llvm::Value* j) {
    for (size_t k = 0; k < reduces.size(); ++k)
      emitStoreElement(b, inits[k], outputs[k], reduces[k]->result()->type().elementType(), j);
    return Status::ok();
  }));
  // Rows [first, first + rows * blocks) folded `rows` at a time: each column's
  // accumulator is loaded and stored once per block, its rows folded in
  // ascending order as one row at a time would.
  auto foldRows = [&](int64_t first, int64_t blocks, int64_t rows) {
    if (blocks == 0) return Status::ok();
    ElementalEmitter::CacheScope scope(emitter);
    return emitLoop(b, b.getInt64(0), b.getInt64(blocks), "fold", [&](llvm::Value* block) {
      llvm::Value* r0 = b.CreateAdd(b.getInt64(first), b.CreateMul(block, b.getInt64(rows)));
      return emitLoop(b, begin, end, "column", [&](llvm::Value* j) -> Status {
        for (size_t k = 0; k < reduces.size(); ++k) {
          Type element = reduces[k]->result()->type().elementType();
          llvm::Value* acc = emitLoadElement(b, outputs[k], element, j);
          for (int64_t i = 0; i < rows; ++i) {
            llvm::Value* r = b.CreateAdd(r0, b.getInt64(i));
            llvm::Value* index = b.CreateAdd(b.CreateMul(r, b.getInt64(n)), j);
            emitter.knowSplit(index, r, j, n);
            KILN_ASSIGN_OR_RETURN(acc, emitter.emitFoldStep(*reduces[k], acc, index));
          }
          emitStoreElement(b, acc, outputs[k], element, j);
        }
        return Status::ok();
      });
    });
  };
  KILN_RETURN_IF_ERROR(foldRows(0, count / kColumnFoldRows, kColumnFoldRows));
  KILN_RETURN_IF_ERROR(foldRows(count / kColumnFoldRows * kColumnFoldRows, count % kColumnFoldRows, 1));
  // An output that is an epilogue of its reduce: applied in place, reading
  // the folded reduce from the output.
  for (size_t k = 0; k < roots.size(); ++k) {
    if (roots[k] == reduces[k]->result(0)) continue;
    ElementalEmitter::CacheScope scope(emitter);
    KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "epilogue", [&](llvm::Value* j) -> Status {
      Type element = reduces[k]->result()->type().elementType();
      emitter.seed(reduces[k]->result(0), j, emitLoadElement(b, outputs[k], element, j));
      KILN_ASSIGN_OR_RETURN(llvm::Value * value, emitter.emit(roots[k], j));
      emitStoreElement(b, value, outputs[k], roots[k]->type().elementType(), j);
      return Status::ok();
    }));
  }
  return Status::ok();
}

// The register tile of the emitted dot loops: kDotTileRows rows of the
// result by kDotTileVectors vectors of the host's width, held in registers
// while k runs (eight accumulators, half the AVX2 register file; each k
// loads two rhs vectors and four lhs scalars for eight vector multiply-adds).
// Wider tiles (8x2, 4x4) measured no faster on int32 and f64 512^3.
constexpr int64_t kDotTileVectors = 2;

// The most bytes of a non-contiguous rhs copied to the stack for the tile.
constexpr int64_t kDotPackBytes = 64 * 1024;

int64_t hostVectorBytes() {
  switch (cpuIsa()) {
    case CpuIsa::Sse42: return 16;
    case CpuIsa::Avx2: return 32;
    case CpuIsa::Avx512:
    case CpuIsa::Native: break;
  }
  return 64;
}

// Row blocks [begin, end) of a dot's result, block t = b * blocks + q being
// rows [4q, 4q + 4) of batch b. Where the rhs rows are contiguous (or are
// made so on the stack), a block runs the register tile over its columns in
// tiles of 2 vectors, then maybe one of 1 vector, then maybe one masked to
// the last columns (a partial block's tiles have its rows: a batch-1 dot is
// one row of vectors). Otherwise each row runs a loop: zeroed, then for each
// k lhs[b, i, k] times row k of rhs[b] added in. Every result element adds
// its products k ascending, a multiply then an add.
Status emitDotRows(const DotForm& dot, ElementalEmitter& emitter, llvm::IRBuilder<>& b, llvm::Value* lhs,
                   llvm::Value* rhs, llvm::Value* out, llvm::Value* begin, llvm::Value* end) {
  Type element = dot.dot->result()->type().elementType();
  bool isFloat = element.isFloat();
  llvm::Type* type = registerType(b.getContext(), element);
  auto i64 = [&](int64_t v) { return b.getInt64(v); };
  // The tile loads whole vectors: element types stored as they are held.
  int64_t bytes = element.storageBytes();
  bool plainStorage = element.kind() == TypeKind::F32 || element.kind() == TypeKind::F64 ||
                      (element.isInteger() && element.bitWidth() == 8 * bytes);

  // An rhs whose rows are not contiguous (a transposed operand: x . w^T in
  // a backward pass) is copied into a row-major stack buffer first, where
  // it is small, so the register tile can read it: row by row, its columns
  // were strided scalar loads (32x128 k 10: 15 -> 1.2 us). The copy moves
  // values only, so the sums are unchanged.
  int64_t rhsElements = dot.batch * dot.k * dot.n;
  if (plainStorage && dot.rhsColumnStride != 1 && dot.k > 0 && dot.n > 1 && dot.m > 1 &&
      rhsElements * bytes <= kDotPackBytes) {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* packed = entry.CreateAlloca(type, entry.getInt64(rhsElements), "dot.rhs.rows");
    packed->setAlignment(llvm::Align(64));
    KILN_RETURN_IF_ERROR(emitLoop(b, i64(0), i64(dot.batch), "dot.pack.batch", [&](llvm::Value* p) {
      return emitLoop(b, i64(0), i64(dot.n), "dot.pack.column", [&](llvm::Value* j) {
        llvm::Value* from = b.CreateAdd(b.CreateMul(p, i64(dot.rhsBatchStride)), b.CreateMul(j, i64(dot.rhsColumnStride)));
        llvm::Value* to = b.CreateAdd(b.CreateMul(p, i64(dot.k * dot.n)), j);
        return emitLoop(b, i64(0), i64(dot.k), "dot.pack.k", [&](llvm::Value* k) {
          llvm::Value* x = emitLoadElement(b, rhs, element, b.CreateAdd(from, b.CreateMul(k, i64(dot.rhsKStride))));
          emitStoreElement(b, x, packed, element, b.CreateAdd(to, b.CreateMul(k, i64(dot.n))));
          return Status::ok();
        });
      });
    }));
    DotForm rowMajor = dot;
    rowMajor.rhsBatchStride = dot.k * dot.n;
    rowMajor.rhsKStride = dot.n;
    rowMajor.rhsColumnStride = 1;
    return emitDotRows(rowMajor, emitter, b, lhs, packed, out, begin, end);
  }
  // f32 products are fused into their sums where the host has fused
  // multiply-adds (llvm.fmuladd; a multiply then an add elsewhere): one
  // instruction per product instead of two dependent ones, and one rounding
  // (f32 sums are within the dot tolerance either way, as oneDNN's; the
  // interpreter sums in double). 8x128x128 with its tanh epilogue 3.6 ->
  // 2.6 us (one thread, AMD host). f64 keeps a multiply then an add: the
  // interpreter's roundings.
  bool fuse = element.kind() == TypeKind::F32;
  auto multiplyAdd = [&](llvm::Value* acc, llvm::Value* a, llvm::Value* x) -> llvm::Value* {
    if (fuse) return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {acc->getType()}, {a, x, acc});
    return isFloat ? b.CreateFAdd(acc, b.CreateFMul(a, x)) : b.CreateAdd(acc, b.CreateMul(a, x));
  };
  llvm::Value* zero = llvm::Constant::getNullValue(type);
  // Columns [first, n) of row i of batch `batch`, one row at a time.
  auto emitRow = [&](llvm::Value* batch, llvm::Value* i, int64_t first) -> Status {
    llvm::Value* lhsRow = b.CreateAdd(b.CreateMul(batch, i64(dot.lhsBatchStride)), b.CreateMul(i, i64(dot.lhsRowStride)));
    llvm::Value* rhsMatrix = b.CreateMul(batch, i64(dot.rhsBatchStride));
    llvm::Value* outRow = b.CreateMul(b.CreateAdd(b.CreateMul(batch, i64(dot.m)), i), i64(dot.n));
    KILN_RETURN_IF_ERROR(emitParallelLoop(b, i64(first), i64(dot.n), "dot.zero", [&](llvm::Value* j) {
      emitStoreElement(b, zero, out, element, b.CreateAdd(outRow, j));
      return Status::ok();
    }));
    return emitLoop(b, i64(0), i64(dot.k), "dot.k", [&](llvm::Value* k) {
      llvm::Value* a = emitLoadElement(b, lhs, element, b.CreateAdd(lhsRow, b.CreateMul(k, i64(dot.lhsKStride))));
      llvm::Value* rhsRow = b.CreateAdd(rhsMatrix, b.CreateMul(k, i64(dot.rhsKStride)));
      return emitParallelLoop(b, i64(first), i64(dot.n), "dot.column", [&](llvm::Value* j) {
        llvm::Value* at = b.CreateAdd(outRow, j);
        llvm::Value* x = emitLoadElement(b, rhs, element, b.CreateAdd(rhsRow, b.CreateMul(j, i64(dot.rhsColumnStride))));
        emitStoreElement(b, multiplyAdd(emitLoadElement(b, out, element, at), a, x), out, element, at);
        return Status::ok();
      });
    });
  };

  int64_t lanes = hostVectorBytes() / bytes;
  int64_t tileColumns = lanes * kDotTileVectors;
  bool tileable = plainStorage && dot.rhsColumnStride == 1 && dot.k > 0;
  int64_t tiles = tileable ? dot.n / tileColumns : 0;
  auto* vector = llvm::FixedVectorType::get(type, unsigned(lanes));
  llvm::Align align(bytes);
  int64_t blocks = dot.rowBlocks;
  // Row block t: its batch, first row, number of rows (kDotTileRows but in
  // a partial last block) and the output offset of its first row.
  struct Block {
    llvm::Value *batch, *i0, *rows, *first;
  };
  auto blockOf = [&](llvm::Value* t) {
    llvm::Value* batch = b.CreateUDiv(t, i64(blocks));
    llvm::Value* i0 = b.CreateMul(b.CreateURem(t, i64(blocks)), i64(kDotTileRows));
    llvm::Value* rows = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateSub(i64(std::max<int64_t>(dot.m, 1)), i0),
                                                i64(kDotTileRows));
    return Block{batch, i0, rows, b.CreateMul(b.CreateAdd(b.CreateMul(batch, i64(dot.m)), i0), i64(dot.n))};
  };
  // Steps [kBegin, kEnd) (at least one) of the tile of `rows` rows of row
  // block `block` by `vectors` vectors from column `column`, added to the
  // sums already in the output (zero before the first steps): each element's
  // products still come k ascending, one block of k after another.
  // A `mask` (one vector) covers the columns past the last whole vector.
  auto emitTile = [&](const Block& block, llvm::Value* column, llvm::Value* kBegin, llvm::Value* kEnd, int64_t rows,
                      int64_t vectors, llvm::Value* mask = nullptr) -> Status {
    auto load = [&](llvm::Value* from, llvm::Value* at) -> llvm::Value* {
      llvm::Value* address = b.CreateGEP(type, from, at);
      if (mask) return b.CreateMaskedLoad(vector, address, align, mask, llvm::Constant::getNullValue(vector));
      return b.CreateAlignedLoad(vector, address, align);
    };
    llvm::Value* lhsRows = b.CreateAdd(b.CreateMul(block.batch, i64(dot.lhsBatchStride)),
                                       b.CreateMul(block.i0, i64(dot.lhsRowStride)));
    llvm::Value* rhsColumns = b.CreateAdd(b.CreateMul(block.batch, i64(dot.rhsBatchStride)), column);
    llvm::Value* outRows = b.CreateAdd(block.first, column);
    std::vector<llvm::Value*> sums;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v)
        sums.push_back(load(out, b.CreateAdd(outRows, i64(r * dot.n + v * lanes))));
    codegen::CarryingLoop loop{"dot.tile.k", "dot.tile.done", "k", kBegin, kEnd};
    for (llvm::Value* sum : sums) loop.carried.push_back({sum, "acc"});
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> sumsAfter, codegen::emitCarryingLoop(
        b, loop, [&](llvm::Value* k, const std::vector<llvm::Value*>& accs) -> Expected<std::vector<llvm::Value*>> {
          llvm::Value* rhsRow = b.CreateAdd(rhsColumns, b.CreateMul(k, i64(dot.rhsKStride)));
          std::vector<llvm::Value*> xs;
          for (int64_t v = 0; v < vectors; ++v)
            xs.push_back(load(rhs, b.CreateAdd(rhsRow, i64(v * lanes))));
          llvm::Value* lhsColumn = b.CreateAdd(lhsRows, b.CreateMul(k, i64(dot.lhsKStride)));
          std::vector<llvm::Value*> next;
          for (int64_t r = 0; r < rows; ++r) {
            llvm::Value* at = b.CreateAdd(lhsColumn, i64(r * dot.lhsRowStride));
            llvm::Value* a = b.CreateVectorSplat(unsigned(lanes), b.CreateLoad(type, b.CreateGEP(type, lhs, at)));
            for (int64_t v = 0; v < vectors; ++v) next.push_back(multiplyAdd(accs[r * vectors + v], a, xs[v]));
          }
          return next;
        }));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t v = 0; v < vectors; ++v) {
        llvm::Value* address = b.CreateGEP(type, out, b.CreateAdd(outRows, i64(r * dot.n + v * lanes)));
        if (mask)
          b.CreateMaskedStore(sumsAfter[r * vectors + v], address, align, mask);
        else
          b.CreateAlignedStore(sumsAfter[r * vectors + v], address, align);
      }
    return Status::ok();
  };

  // Emits `full(kDotTileRows)` for a full row block, `partial(rows)` (if
  // any) for the others, whose row count is the same for all (the rows of a
  // batch past its last full block).
  int64_t partialRows = dot.m % kDotTileRows;
  auto ifFull = [&](const Block& block, const std::function<Status(int64_t rows)>& full,
                    const std::function<Status(int64_t rows)>& partial = nullptr) -> Status {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    auto* fullBlock = llvm::BasicBlock::Create(b.getContext(), "dot.full", fn);
    auto* partialBlock = partial ? llvm::BasicBlock::Create(b.getContext(), "dot.partial", fn) : nullptr;
    auto* after = llvm::BasicBlock::Create(b.getContext(), "dot.block.done", fn);
    b.CreateCondBr(b.CreateICmpEQ(block.rows, i64(kDotTileRows)), fullBlock, partial ? partialBlock : after);
    b.SetInsertPoint(fullBlock);
    KILN_RETURN_IF_ERROR(full(kDotTileRows));
    b.CreateBr(after);
    if (partial) {
      b.SetInsertPoint(partialBlock);
      KILN_RETURN_IF_ERROR(partial(partialRows));
      b.CreateBr(after);
    }
    b.SetInsertPoint(after);
    return Status::ok();
  };

  // Columns [0, tiledColumns) run register tiles, of two vectors, then
  // maybe one, then maybe one masked to the last columns, in every row
  // block (a partial block's tile has its rows). (A short row was otherwise
  // a loop LLVM unrolls whole before it can vectorize: scalar code, 0.35 us
  // for 1x32x32; 32x10 k 128 row by row took 12 us, masked 1 us.) Without a
  // tile (a strided rhs too big to copy) the columns run row by row.
  bool singleVectorTile = tileable && dot.n - tiles * tileColumns >= lanes;
  int64_t wholeColumns = tiles * tileColumns + (singleVectorTile ? lanes : 0);
  int64_t maskedColumns = tileable ? dot.n - wholeColumns : 0;
  int64_t tiledColumns = wholeColumns + maskedColumns;
  if (tiledColumns > 0) {
    // The tiled columns, zeroed, then summed a block of k and columns at a
    // time over all of [begin, end)'s row blocks: that rhs block
    // (kPanelBytes: stays in L2) is read from memory once, not once per row
    // block (f64 1024^3: 118 -> 57 ms).
    constexpr int64_t kPanelColumns = 256, kPanelBytes = 256 * 1024;
    int64_t panelTiles = std::max<int64_t>(1, kPanelColumns / tileColumns);
    int64_t panels = (tiles + panelTiles - 1) / panelTiles;
    int64_t kBlock = std::max<int64_t>(16, kPanelBytes / (panelTiles * tileColumns * bytes));
    int64_t kBlocks = (dot.k + kBlock - 1) / kBlock;
    KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "dot.zero.block", [&](llvm::Value* t) -> Status {
      Block block = blockOf(t);
      std::function<Status(int64_t)> zeroRows = [&](int64_t rows) {
        return emitLoop(b, i64(0), i64(rows), "dot.zero.row", [&](llvm::Value* r) {
          llvm::Value* row = b.CreateAdd(block.first, b.CreateMul(r, i64(dot.n)));
          return emitParallelLoop(b, i64(0), i64(tiledColumns), "dot.zero", [&](llvm::Value* j) {
            emitStoreElement(b, zero, out, element, b.CreateAdd(row, j));
            return Status::ok();
          });
        });
      };
      return ifFull(block, zeroRows, partialRows ? zeroRows : nullptr);
    }));
    if (tiles > 0)
      KILN_RETURN_IF_ERROR(emitLoop(b, i64(0), i64(panels), "dot.panel", [&](llvm::Value* panel) {
        llvm::Value* firstTile = b.CreateMul(panel, i64(panelTiles));
        llvm::Value* lastTile = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateAdd(firstTile, i64(panelTiles)), i64(tiles));
        return emitLoop(b, i64(0), i64(kBlocks), "dot.kblock", [&](llvm::Value* kb) {
          llvm::Value* kBegin = b.CreateMul(kb, i64(kBlock));
          llvm::Value* kEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.CreateAdd(kBegin, i64(kBlock)), i64(dot.k));
          return emitLoop(b, begin, end, "dot.block", [&](llvm::Value* t) -> Status {
            Block block = blockOf(t);
            std::function<Status(int64_t)> tileRows = [&](int64_t rows) {
              return emitLoop(b, firstTile, lastTile, "dot.tile", [&](llvm::Value* tile) {
                return emitTile(block, b.CreateMul(tile, i64(tileColumns)), kBegin, kEnd, rows, kDotTileVectors);
              });
            };
            return ifFull(block, tileRows, partialRows ? tileRows : nullptr);
          });
        });
      }));
    if (singleVectorTile)
      KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "dot.block", [&](llvm::Value* t) -> Status {
        Block block = blockOf(t);
        std::function<Status(int64_t)> tileRows = [&](int64_t rows) {
          return emitTile(block, i64(tiles * tileColumns), i64(0), i64(dot.k), rows, 1);
        };
        return ifFull(block, tileRows, partialRows ? tileRows : nullptr);
      }));
    if (maskedColumns > 0) {
      std::vector<llvm::Constant*> lanesOn;
      for (int64_t l = 0; l < lanes; ++l) lanesOn.push_back(b.getInt1(l < maskedColumns));
      llvm::Value* mask = llvm::ConstantVector::get(lanesOn);
      KILN_RETURN_IF_ERROR(emitLoop(b, begin, end, "dot.block", [&](llvm::Value* t) -> Status {
        Block block = blockOf(t);
        std::function<Status(int64_t)> tileRows = [&](int64_t rows) {
          return emitTile(block, i64(wholeColumns), i64(0), i64(dot.k), rows, 1, mask);
        };
        return ifFull(block, tileRows, partialRows ? tileRows : nullptr);
      }));
    }
  }
  // Per row block: the columns the tiles leave, then the epilogue.
  return emitLoop(b, begin, end, "dot.block", [&](llvm::Value* t) -> Status {
    Block block = blockOf(t);
    if (tiledColumns < dot.n)
      KILN_RETURN_IF_ERROR(emitLoop(b, i64(0), block.rows, "dot.row", [&](llvm::Value* r) {
        return emitRow(block.batch, b.CreateAdd(block.i0, r), tiledColumns);
      }));
    // An output fusion's epilogue, applied in place to the block's rows once
    // their sums are complete, reading the dot's elements from the output:
    // row by row, the column the loop's counter (a bias read at the column,
    // unit-stride, rather than at the flat index's remainder: 8x128 + bias
    // then tanh 3.2 -> 0.3 us).
    const Value* product = dot.dot->result();
    if (dot.root == product) return Status::ok();
    return emitLoop(b, i64(0), block.rows, "dot.epilogue.row", [&](llvm::Value* r) -> Status {
      llvm::Value* row = b.CreateAdd(b.CreateAdd(b.CreateMul(block.batch, i64(dot.m)), block.i0), r);
      ElementalEmitter::CacheScope scope(emitter);
      return emitParallelLoop(b, i64(0), i64(dot.n), "dot.epilogue", [&](llvm::Value* j) -> Status {
        llvm::Value* e = b.CreateAdd(b.CreateMul(row, i64(dot.n)), j);
        emitter.knowSplit(e, row, j, dot.n);
        emitter.seed(product, e, emitLoadElement(b, out, element, e));
        KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter.emit(dot.root, e));
        emitStoreElement(b, x, out, element, e);
        return Status::ok();
      });
    });
  });
}

// Transposes the `lanes` x `lanes` block whose first input element is
// `firstSource` (its rows `sourceStride` elements apart) into the output
// from `firstOutput` (rows `outputStride` apart): one vector load per input
// row, the block transposed in registers -- log2(lanes) stages, each
// swapping the off-diagonal d x d blocks of every 2d x 2d block -- and one
// vector store per output row.
void emitTransposeTile(llvm::IRBuilder<>& b, llvm::Value* input, llvm::Value* output, llvm::Type* vector,
                       int64_t lanes, llvm::Value* firstSource, int64_t sourceStride, llvm::Value* firstOutput,
                       int64_t outputStride) {
  llvm::Type* element = llvm::cast<llvm::FixedVectorType>(vector)->getElementType();
  llvm::Align align(element->getPrimitiveSizeInBits() / 8);
  std::vector<llvm::Value*> rows(lanes);
  for (int64_t r = 0; r < lanes; ++r) {
    llvm::Value* at = b.CreateAdd(firstSource, b.getInt64(r * sourceStride));
    rows[r] = b.CreateAlignedLoad(vector, b.CreateGEP(element, input, at), align);
  }
  for (int64_t d = lanes / 2; d >= 1; d /= 2) {
    std::vector<int> low(lanes), high(lanes);
    for (int64_t c = 0; c < lanes; ++c) {
      low[c] = int((c & d) ? lanes + (c - d) : c);
      high[c] = int((c & d) ? lanes + c : c + d);
    }
    for (int64_t r = 0; r < lanes; ++r) {
      if (r & d) continue;
      llvm::Value* a = rows[r];
      llvm::Value* c = rows[r + d];
      rows[r] = b.CreateShuffleVector(a, c, low);
      rows[r + d] = b.CreateShuffleVector(a, c, high);
    }
  }
  for (int64_t r = 0; r < lanes; ++r) {
    llvm::Value* at = b.CreateAdd(firstOutput, b.getInt64(r * outputStride));
    b.CreateAlignedStore(rows[r], b.CreateGEP(element, output, at), align);
  }
}

// The tile of an element loop over a transpose that moves the last dim:
// kTileRows output rows advance together over kTileColumns columns, so each
// source line fetched (16 f32 of one source row) serves 16 output rows
// before it leaves the cache. (32 x 32 measured best of 16 x 16, 32 x 32 and
// 8 x 128 on f32[4096,4096].)
constexpr int64_t kTileRows = 32, kTileColumns = 32;

// The loop nest of one kernel, one method per KernelForm: each emits a loop
// over outer iterations [begin, end) at the builder's position, computing
// the plan's roots with the elemental emitter and storing root i to
// outputs[i]. LLVM's O3 pipeline vectorizes the loops later.
class LoopNestEmitter {
 public:
  LoopNestEmitter(const KernelPlan& plan, llvm::Function* fn, llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                  std::vector<llvm::Value*> outputs, int64_t numRows, int64_t count, bool alignedOutputs)
      : plan_(plan), fn_(fn), b_(b), emitter_(emitter), outputs_(std::move(outputs)), numRows_(numRows), count_(count),
        alignedOutputs_(alignedOutputs), begin_(fn->getArg(2)), end_(fn->getArg(3)) {}

  Status emit(const RowsForm& form) {
    llvm::IRBuilder<>& b = b_;
    int64_t rowLength = form.rowLength;
    // The computed input of a reduce, in rows as long as the kernel's and
    // read by more than reduces, is kept per row for the element loop
    // (softmax's exp(x - max)).
    for (const Value* v : form.rowValues) {
      const Operation* op = v->definingOp();
      if (!op || op->name() != "stablehlo.reduce" || op->numOperands() != 2 ||
          op->operand(0)->type().numElements() != count_)
        continue;
      // Only worth a row of scratch if something besides reduces reads it.
      const Value* input = op->operand(0);
      if (std::any_of(input->uses().begin(), input->uses().end(),
                      [](const Use& use) { return use.user->name() != "stablehlo.reduce"; }))
        emitter_.keepStagedRows(input);
      // A bf16 or f16 value summed in f32 (JAX's bf16 softmax sums
      // convert(exp(x - max)) to f32): the widening holds the same float in
      // its register, so the kept f32 row is the narrow value's as well.
      const Operation* widen = input->definingOp();
      if (widen && widen->name() == "stablehlo.convert" && input->type().elementType().kind() == TypeKind::F32 &&
          widen->operand(0)->type().elementType().isFloat() &&
          codegen::isNarrowFloat(widen->operand(0)->type().elementType().kind()) && widen->operand(0)->uses().size() > 1) {
        emitter_.keepStagedRows(input);
        emitter_.seedAlsoFromKeptRows(widen->operand(0), input);
      }
    }
    return emitLoop(b, begin_, end_, "row", [&](llvm::Value* row) -> Status {
      std::vector<const Value*> rowParams;
      for (const Value* param : plan_.params)
        if (param->type().isTensor() && param->type().numElements() == count_) rowParams.push_back(param);
      emitter_.prefetchNextRows(row, rowLength, std::move(rowParams));
      for (const Value* v : form.rowValues) KILN_RETURN_IF_ERROR(emitter_.emitRowScalar(v, row));
      for (size_t i = 0; i < plan_.roots.size(); ++i) {
        if (!isPerRow(plan_.roots[i])) continue;
        KILN_ASSIGN_OR_RETURN(llvm::Value * element, emitter_.emit(plan_.roots[i], row));
        emitStoreElement(b, element, outputs_[i], plan_.roots[i]->type().elementType(), row);
      }
      return emitLoop(b, b.getInt64(0), b.getInt64(rowLength), "element", [&](llvm::Value* column) {
        llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(rowLength)), column);
        emitter_.knowSplit(index, row, column, rowLength);
        emitter_.seedFromKeptRows(index, column);
        return emitElement(index);
      });
    });
  }

  Status emit(const DotForm& dot) {
    llvm::IRBuilder<>& b = b_;
    auto param = [&](const Value* v) {
      size_t index = size_t(std::find(plan_.params.begin(), plan_.params.end(), v) - plan_.params.begin());
      return b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn_->getArg(0), index));
    };
    return emitDotRows(dot, emitter_, b, param(dot.dot->operand(0)), param(dot.dot->operand(1)), outputs_[0], begin_,
                       end_);
  }

  Status emit(const ColumnFoldForm& fold) {
    return emitColumnReduces(fold.reduces, plan_.roots, emitter_, b_, outputs_, begin_, end_);
  }

  Status emit(const PadRowsForm& pad) {
    llvm::IRBuilder<>& b = b_;
    size_t rank = pad.outShape.size();
    int64_t width = pad.outShape.back(), n = pad.inShape.back(), low = pad.low.back();
    Type element = plan_.roots[0]->type().elementType();
    return emitLoop(b, begin_, end_, "pad.rows", [&](llvm::Value* o) -> Status {
      // Output row o's coordinates (row-major over the dims before the
      // last) minus the low padding: the input row, if every one is inside.
      llvm::Value* inside = b.getTrue();
      llvm::Value* inRow = b.getInt64(0);
      llvm::Value* rest = o;
      int64_t inStride = 1;
      for (size_t d = rank - 1; d-- > 0;) {
        llvm::Value* t = b.CreateSub(b.CreateSRem(rest, b.getInt64(pad.outShape[d])), b.getInt64(pad.low[d]));
        rest = b.CreateSDiv(rest, b.getInt64(pad.outShape[d]));
        inside = b.CreateAnd(inside, b.CreateICmpSGE(t, b.getInt64(0)));
        inside = b.CreateAnd(inside, b.CreateICmpSLT(t, b.getInt64(pad.inShape[d])));
        inRow = b.CreateAdd(inRow, b.CreateMul(t, b.getInt64(inStride)));
        inStride *= pad.inShape[d];
      }
      ElementalEmitter::CacheScope rowScope(emitter_);
      KILN_ASSIGN_OR_RETURN(llvm::Value * padding, emitter_.emit(pad.pad->operand(1), b.getInt64(0)));
      llvm::Value* outStart = b.CreateMul(o, b.getInt64(width));
      auto fill = [&](int64_t from, int64_t to) {
        return emitParallelLoop(b, b.getInt64(from), b.getInt64(to), "pad.fill", [&](llvm::Value* j) {
          emitStoreElement(b, padding, outputs_[0], element, b.CreateAdd(outStart, j));
          return Status::ok();
        });
      };
      llvm::BasicBlock* copyRow = llvm::BasicBlock::Create(b.getContext(), "pad.row", fn_);
      llvm::BasicBlock* padRow = llvm::BasicBlock::Create(b.getContext(), "pad.all", fn_);
      llvm::BasicBlock* next = llvm::BasicBlock::Create(b.getContext(), "pad.next", fn_);
      b.CreateCondBr(inside, copyRow, padRow);
      b.SetInsertPoint(copyRow);
      KILN_RETURN_IF_ERROR(fill(0, low));
      {
        ElementalEmitter::CacheScope copyScope(emitter_);
        KILN_RETURN_IF_ERROR(emitParallelLoop(b, b.getInt64(0), b.getInt64(n), "pad.copy", [&](llvm::Value* j) -> Status {
          llvm::Value* index = b.CreateAdd(b.CreateMul(inRow, b.getInt64(n)), j);
          emitter_.knowSplit(index, inRow, j, n);
          KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emit(pad.pad->operand(0), index));
          emitStoreElement(b, x, outputs_[0], element, b.CreateAdd(outStart, b.CreateAdd(j, b.getInt64(low))));
          return Status::ok();
        }));
      }
      KILN_RETURN_IF_ERROR(fill(low + n, width));
      b.CreateBr(next);
      b.SetInsertPoint(padRow);
      KILN_RETURN_IF_ERROR(fill(0, width));
      b.CreateBr(next);
      b.SetInsertPoint(next);
      return Status::ok();
    });
  }

  Status emit(const SlabsForm& slabs) {
    llvm::IRBuilder<>& b = b_;
    int64_t rowLength = 0;
    for (int64_t length : slabs.lengths) rowLength += length;
    Type element = plan_.roots[0]->type().elementType();
    return emitLoop(b, begin_, end_, "slabs", [&](llvm::Value* o) -> Status {
      int64_t start = 0;
      for (size_t k = 0; k < slabs.lengths.size(); ++k) {
        int64_t length = slabs.lengths[k];
        llvm::Value* outStart = b.CreateAdd(b.CreateMul(o, b.getInt64(rowLength)), b.getInt64(start));
        ElementalEmitter::CacheScope scope(emitter_);
        KILN_RETURN_IF_ERROR(emitParallelLoop(b, b.getInt64(0), b.getInt64(length), "slab", [&](llvm::Value* j) -> Status {
          llvm::Value* index = b.CreateAdd(b.CreateMul(o, b.getInt64(length)), j);
          emitter_.knowSplit(index, o, j, length);
          KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emit(slabs.concat->operand(k), index));
          emitStoreElement(b, x, outputs_[0], element, b.CreateAdd(outStart, j));
          return Status::ok();
        }));
        start += length;
      }
      return Status::ok();
    });
  }

  // Element i is written once, and an output shares memory with an input
  // only where buffer assignment put it in place, which it does only when
  // every read of that input is at index i: no loop-carried dependence.
  // Without the mark, LLVM's runtime alias checks would send an in-place
  // update (an optimizer step into a donated argument) to the scalar loop.
  Status emit(const ElementsForm& form) {
    if (form.transpose) return emitTransposeTiles(*form.transpose);
    if (form.rowLength > 0) return emitElementRows(form);
    llvm::IRBuilder<>& b = b_;
    llvm::Value* begin = begin_;
    if (alignedOutputs_) {
      // The thread's range may start anywhere: its elements up to the next
      // multiple of 16 run in a loop of their own, so the main loop's
      // vector stores are provably aligned (and become non-temporal).
      llvm::Value* alignedBegin = b.CreateAnd(b.CreateAdd(begin, b.getInt64(15)), b.getInt64(~int64_t(15)));
      llvm::Value* headEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end_, alignedBegin);
      KILN_RETURN_IF_ERROR(emitLoop(b, begin, headEnd, "element.head", elementFn()));
      begin = alignedBegin;  // past `end` when the head did everything: the loop below then does nothing
    }
    ElementalEmitter::CacheScope scope(emitter_);
    return emitParallelLoop(b, begin, end_, "element", elementFn());
  }

 private:
  // In row form, outputs with one element per row (a softmax's saved max and
  // sum next to its result) are stored once per row, not per element.
  bool isPerRow(const Value* root) const { return numRows_ != count_ && root->type().numElements() == numRows_; }

  // Computes every root's element `index`, then stores them: an output may
  // overwrite an input that another root reads at the same element
  // (fusion::updatesInPlace), so no store comes before the last load.
  Status emitElement(llvm::Value* index) {
    std::vector<llvm::Value*> elements(plan_.roots.size(), nullptr);
    for (size_t i = 0; i < plan_.roots.size(); ++i) {
      if (isPerRow(plan_.roots[i])) continue;
      KILN_ASSIGN_OR_RETURN(elements[i], emitter_.emit(plan_.roots[i], index));
    }
    for (size_t i = 0; i < plan_.roots.size(); ++i)
      if (elements[i]) emitStoreElement(b_, elements[i], outputs_[i], plan_.roots[i]->type().elementType(), index);
    return Status::ok();
  }
  std::function<Status(llvm::Value*)> elementFn() {
    return [this](llvm::Value* index) { return emitElement(index); };
  }
  // A loop of elements [begin, end) in a cache scope of its own.
  Status emitLoopInScope(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, const std::string& name) {
    ElementalEmitter::CacheScope scope(emitter_);
    return emitLoop(b, begin, end, name, elementFn());
  }

  // The transpose's output rows (`columns` long) in groups of `lanes`, all
  // in one batch (rows is a multiple of lanes), each as tiles through
  // registers. The range's partial rows, its rows outside whole groups and
  // the columns past the last whole tile run element by element.
  Status emitTransposeTiles(const PureTranspose& transpose) {
    llvm::IRBuilder<>& b = b_;
    llvm::Value* begin = begin_;
    llvm::Value* end = end_;
    int64_t lanes = transpose.lanes, rows = transpose.rows, columns = transpose.columns;
    auto ceilDiv = [&](llvm::Value* x, int64_t d) { return b.CreateSDiv(b.CreateAdd(x, b.getInt64(d - 1)), b.getInt64(d)); };
    auto smin = [&](llvm::Value* x, llvm::Value* y) { return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y); };
    auto smax = [&](llvm::Value* x, llvm::Value* y) { return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y); };
    llvm::Value* rowsBegin = ceilDiv(begin, columns);
    llvm::Value* rowsEnd = smax(rowsBegin, b.CreateSDiv(end, b.getInt64(columns)));
    llvm::Value* groupsBegin = ceilDiv(rowsBegin, lanes);
    llvm::Value* groupsEnd = smax(groupsBegin, b.CreateSDiv(rowsEnd, b.getInt64(lanes)));
    llvm::Value* groupedBegin = b.CreateMul(smin(rowsEnd, b.CreateMul(groupsBegin, b.getInt64(lanes))), b.getInt64(columns));
    llvm::Value* groupedEnd = smax(groupedBegin, b.CreateMul(b.CreateMul(groupsEnd, b.getInt64(lanes)), b.getInt64(columns)));
    KILN_RETURN_IF_ERROR(emitLoopInScope(b, begin, smin(end, groupedBegin), "element.head"));
    Type element = plan_.roots[0]->type().elementType();
    llvm::Type* vector = llvm::FixedVectorType::get(b.getIntNTy(unsigned(element.bitWidth())), unsigned(lanes));
    llvm::Value* input = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn_->getArg(0), transpose.param));
    int64_t wholeColumns = columns / lanes * lanes;
    KILN_RETURN_IF_ERROR(emitLoop(b, groupsBegin, groupsEnd, "transpose.rows", [&](llvm::Value* group) -> Status {
      llvm::Value* firstRow = b.CreateMul(group, b.getInt64(lanes));
      llvm::Value* batch = b.CreateSDiv(firstRow, b.getInt64(rows));
      llvm::Value* row = b.CreateSRem(firstRow, b.getInt64(rows));
      // Input element (batch', column, row); output element (firstRow, column).
      llvm::Value* batchBase = b.getInt64(0);
      for (size_t k = transpose.batch.size(); k-- > 0;) {
        auto [extent, stride] = transpose.batch[k];
        batchBase = b.CreateAdd(batchBase, b.CreateMul(b.CreateSRem(batch, b.getInt64(extent)), b.getInt64(stride)));
        batch = b.CreateSDiv(batch, b.getInt64(extent));
      }
      KILN_RETURN_IF_ERROR(emitLoop(b, b.getInt64(0), b.getInt64(columns / lanes), "transpose.tiles", [&](llvm::Value* tile) {
        llvm::Value* column = b.CreateMul(tile, b.getInt64(lanes));
        llvm::Value* source = b.CreateAdd(batchBase, b.CreateAdd(b.CreateMul(column, b.getInt64(rows)), row));
        llvm::Value* target = b.CreateAdd(b.CreateMul(firstRow, b.getInt64(columns)), column);
        emitTransposeTile(b, input, outputs_[0], vector, lanes, source, rows, target, columns);
        return Status::ok();
      }));
      if (wholeColumns == columns) return Status::ok();
      return emitLoop(b, b.getInt64(0), b.getInt64(lanes), "transpose.rest", [&](llvm::Value* r) {
        llvm::Value* rowStart = b.CreateMul(b.CreateAdd(firstRow, r), b.getInt64(columns));
        return emitLoopInScope(b, b.CreateAdd(rowStart, b.getInt64(wholeColumns)),
                               b.CreateAdd(rowStart, b.getInt64(columns)), "element");
      });
    }));
    return emitLoopInScope(b, smax(begin, groupedEnd), end, "element.tail");
  }

  // Rows of the output's last dim: the range's partial first and last rows
  // run flat, the whole rows in between as nested loops whose inner counter
  // is the column itself (knowSplit), so operands broadcast along the rows
  // are read at the column, unit-stride, with no remainder. (In one flat
  // loop that remainder keeps LLVM from vectorizing ranges longer than a
  // row.)
  Status emitElementRows(const ElementsForm& form) {
    llvm::IRBuilder<>& b = b_;
    llvm::Value* begin = begin_;
    llvm::Value* end = end_;
    int64_t n = form.rowLength;
    llvm::Value* rowsBegin = b.CreateSDiv(b.CreateAdd(begin, b.getInt64(n - 1)), b.getInt64(n));
    llvm::Value* rowsEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, rowsBegin, b.CreateSDiv(end, b.getInt64(n)));
    llvm::Value* headEnd = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, end, b.CreateMul(rowsBegin, b.getInt64(n)));
    llvm::Value* tailBegin = b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, headEnd, b.CreateMul(rowsEnd, b.getInt64(n)));
    KILN_RETURN_IF_ERROR(emitLoopInScope(b, begin, headEnd, "element.head"));
    auto emitRow = [&](llvm::Value* row, llvm::Value* columnsBegin, llvm::Value* columnsEnd) {
      ElementalEmitter::CacheScope scope(emitter_);
      return emitParallelLoop(b, columnsBegin, columnsEnd, "element", [&](llvm::Value* column) {
        llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(n)), column);
        emitter_.knowSplit(index, row, column, n);
        return emitElement(index);
      }, /*keepRolled=*/n < kShortRow);
    };
    if (form.tiled) {
      llvm::Value* tiles = b.CreateSDiv(b.CreateAdd(b.CreateSub(rowsEnd, rowsBegin), b.getInt64(kTileRows - 1)),
                                        b.getInt64(kTileRows));
      KILN_RETURN_IF_ERROR(emitLoop(b, b.getInt64(0), tiles, "tile", [&](llvm::Value* tile) {
        llvm::Value* first = b.CreateAdd(rowsBegin, b.CreateMul(tile, b.getInt64(kTileRows)));
        llvm::Value* last = b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, rowsEnd, b.CreateAdd(first, b.getInt64(kTileRows)));
        int64_t chunks = (n + kTileColumns - 1) / kTileColumns;
        return emitLoop(b, b.getInt64(0), b.getInt64(chunks), "tile.columns", [&](llvm::Value* chunk) {
          llvm::Value* columnsBegin = b.CreateMul(chunk, b.getInt64(kTileColumns));
          llvm::Value* columnsEnd =
              b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, b.getInt64(n), b.CreateAdd(columnsBegin, b.getInt64(kTileColumns)));
          return emitLoop(b, first, last, "tile.rows", [&](llvm::Value* row) { return emitRow(row, columnsBegin, columnsEnd); });
        });
      }));
    } else {
      const std::vector<int64_t>& stretches = form.columnBreaks;
      KILN_RETURN_IF_ERROR(emitLoop(b, rowsBegin, rowsEnd, "rows", [&](llvm::Value* row) {
        for (size_t k = 0; k + 1 < stretches.size(); ++k) {
          KILN_RETURN_IF_ERROR(emitRow(row, b.getInt64(stretches[k]), b.getInt64(stretches[k + 1])));
        }
        return Status::ok();
      }));
    }
    return emitLoopInScope(b, tailBegin, end, "element.tail");
  }

  const KernelPlan& plan_;
  llvm::Function* fn_;
  llvm::IRBuilder<>& b_;
  ElementalEmitter& emitter_;
  std::vector<llvm::Value*> outputs_;
  int64_t numRows_, count_;
  bool alignedOutputs_;
  llvm::Value* begin_;
  llvm::Value* end_;
};

// Emits the loop nest of `plan` (of form `form`) at `b`'s position in `fn`
// (with the KernelFn ABI), ending in a return. Several roots (a
// multi-output fusion; all of one element count) are computed in the one
// loop, sharing the emitter's cache. With `alignedOutputs`, every output
// pointer is assumed 64-byte aligned, so LLVM proves the vector stores of
// rows that start on 64 bytes aligned (see makeStreamingStoresNonTemporal
// in jit.cpp).
Status emitKernelBody(const KernelPlan& plan, const KernelForm& form, llvm::Function* fn, llvm::IRBuilder<>& b,
                      bool alignedOutputs) {
  llvm::Module& m = *fn->getParent();
  int64_t count = 0;
  for (const Value* root : plan.roots) {
    if (!root->type().isTensor()) return error("cpu back end: a kernel output that is not a tensor");
    count = std::max(count, root->type().numElements());
  }
  const RowsForm* rows = std::get_if<RowsForm>(&form);
  int64_t numRows = rows ? rows->numRows : count;
  for (const Value* root : plan.roots)
    if (root->type().numElements() != count && !(numRows != count && root->type().numElements() == numRows))
      return error("cpu back end: a multi-output kernel's outputs differ in element count");
  std::map<const Value*, llvm::Value*> buffers;
  for (size_t i = 0; i < plan.params.size(); ++i)
    buffers[plan.params[i]] = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(0), i));
  // A scalar integer input (a dynamic_slice's start index, a loop counter)
  // is read once, before the loops, into a stack slot that LLVM promotes to
  // a register: read through the input's pointer in the element loop, the
  // load could not be hoisted (the output stores might alias it), so a
  // slice at a run-time start became a gather per vector instead of
  // contiguous loads (a scan's f32[1,8,128] row of a [64,8,128] input: 0.44
  // -> 0.07 us). No output overlaps such an input unless it is its own
  // one element, computed in place from it.
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().getFirstInsertionPt());
  for (const Value* param : plan.params) {
    Type type = param->type();
    if (!type.isTensor() || type.numElements() != 1 || !type.elementType().isInteger() || type.elementType().isBool())
      continue;
    unsigned bits = unsigned(type.elementType().bitWidth());
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) continue;
    llvm::Type* scalar = b.getIntNTy(bits);
    llvm::AllocaInst* slot = entry.CreateAlloca(scalar);
    b.CreateStore(b.CreateLoad(scalar, buffers[param]), slot);
    buffers[param] = slot;
  }
  std::vector<llvm::Value*> outputs;
  for (size_t i = 0; i < plan.roots.size(); ++i)
    outputs.push_back(b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(1), i)));
  if (alignedOutputs)
    for (llvm::Value* output : outputs) b.CreateAlignmentAssumption(m.getDataLayout(), output, kStreamingAlignment);
  ElementalEmitter emitter(b, m, cpuTargetHooks(), std::move(buffers));
  LoopNestEmitter nest(plan, fn, b, emitter, std::move(outputs), numRows, count, alignedOutputs);
  KILN_RETURN_IF_ERROR(std::visit([&](const auto& loops) { return nest.emit(loops); }, form));
  b.CreateRetVoid();
  return Status::ok();
}

}  // namespace

Status emitKernel(const KernelPlan& plan, const KernelForm& form, const std::string& name, llvm::Module& m) {
  if (plan.roots.empty()) return error("cpu back end: a kernel without outputs");
  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  auto* fnType = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty()}, false);
  auto* fn = llvm::Function::Create(fnType, llvm::Function::ExternalLinkage, name, m);
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  if (!plan.streamOutputs) return emitKernelBody(plan, form, fn, b, /*alignedOutputs=*/false);

  // Streaming outputs: a second copy of the kernel, for aligned outputs,
  // whose aligned vector stores become non-temporal after optimization. It
  // stays a function of its own (noinline) so that the late pass finds it by
  // its attribute. Outputs in a caller's memory (a donated argument) may be
  // aligned to their element only: those run the plain copy.
  auto* streaming = llvm::Function::Create(fnType, llvm::Function::InternalLinkage, name + ".streaming", m);
  streaming->addFnAttr(llvm::Attribute::NoInline);
  streaming->addFnAttr(kStreamingStoresAttr);
  llvm::IRBuilder<> sb(llvm::BasicBlock::Create(ctx, "entry", streaming));
  KILN_RETURN_IF_ERROR(emitKernelBody(plan, form, streaming, sb, /*alignedOutputs=*/true));

  llvm::Value* misaligned = b.getInt64(0);
  for (size_t i = 0; i < plan.roots.size(); ++i) {
    llvm::Value* output = b.CreateLoad(b.getPtrTy(), b.CreateConstGEP1_64(b.getPtrTy(), fn->getArg(1), i));
    misaligned = b.CreateOr(misaligned, b.CreatePtrToInt(output, b.getInt64Ty()));
  }
  misaligned = b.CreateAnd(misaligned, b.getInt64(kStreamingAlignment - 1));
  auto* callStreaming = llvm::BasicBlock::Create(ctx, "aligned", fn);
  auto* plain = llvm::BasicBlock::Create(ctx, "plain", fn);
  b.CreateCondBr(b.CreateICmpEQ(misaligned, b.getInt64(0)), callStreaming, plain);
  b.SetInsertPoint(callStreaming);
  std::vector<llvm::Value*> args;
  for (llvm::Argument& arg : fn->args()) args.push_back(&arg);
  b.CreateCall(streaming, args);
  b.CreateRetVoid();
  b.SetInsertPoint(plain);
  return emitKernelBody(plan, form, fn, b, /*alignedOutputs=*/false);
}

Status unsupported(const Operation& op, std::string_view what) {
  return codegen::unsupported(cpuTargetHooks().backendName(), op, what);
}

}  // namespace kiln::cpu
