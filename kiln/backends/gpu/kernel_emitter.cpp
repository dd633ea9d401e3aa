// The thread structures of the cuda back end's kernels, around the shared
// elemental emitter, which computes each element with the GPU's hooks
// (gpu_target_hooks.h). docs/gpu_backend.md lists what is covered.
#include "kiln/backends/gpu/kernel_emitter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include "kiln/backends/gpu/contraction.h"
#include "kiln/backends/gpu/gather_scatter.h"
#include "kiln/backends/gpu/gpu_target_hooks.h"
#include "kiln/backends/gpu/libdevice.h"
#include "kiln/codegen/elemental_emitter.h"
#include "kiln/codegen/elementwise.h"
#include "kiln/codegen/kernel_form.h"
#include "kiln/codegen/narrow_floats.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/interp/linalg.h"
#include "kiln/ir/shape.h"

namespace kiln::gpu {
namespace {

using codegen::ElementalEmitter;

constexpr int64_t kWarp = 32;
constexpr unsigned kSharedAddressSpace = 3;

Status unsupported(const Operation& op, std::string_view what) {
  return codegen::unsupported(gpuTargetHooks().backendName(), op, what);
}

// The special registers of a one-dimensional launch, as i64.
struct ThreadIds {
  llvm::Value *thread, *block, *threadsPerBlock, *blocks;
};

ThreadIds threadIds(llvm::IRBuilder<>& b) {
  auto read = [&](llvm::Intrinsic::ID id) { return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), b.getInt64Ty()); };
  return {read(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x), read(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
          read(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x), read(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x)};
}

// for (i = begin; i < end; i += step) body(i), with a per-thread start and
// step (grid- or block-stride). It may run zero times: callers emit it in
// an ElementalEmitter::CacheScope, so nothing computed inside is used after.
Status emitStridedLoop(llvm::IRBuilder<>& b, llvm::Value* begin, llvm::Value* end, llvm::Value* step,
                       const std::string& name, const std::function<Status(llvm::Value*)>& body) {
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::Function* fn = before->getParent();
  auto* loop = llvm::BasicBlock::Create(b.getContext(), name, fn);
  auto* done = llvm::BasicBlock::Create(b.getContext(), name + ".done", fn);
  b.CreateCondBr(b.CreateICmpSLT(begin, end), loop, done);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, name + ".i");
  i->addIncoming(begin, before);
  KILN_RETURN_IF_ERROR(body(i));
  llvm::Value* next = b.CreateAdd(i, step, "", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, end), loop, done);
  b.SetInsertPoint(done);
  return Status::ok();
}

// if (condition) body(): the body's values stay inside (CacheScope).
Status emitIf(llvm::IRBuilder<>& b, ElementalEmitter& emitter, llvm::Value* condition, const std::string& name,
              const std::function<Status()>& body) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  auto* then = llvm::BasicBlock::Create(b.getContext(), name, fn);
  auto* done = llvm::BasicBlock::Create(b.getContext(), name + ".done", fn);
  b.CreateCondBr(condition, then, done);
  b.SetInsertPoint(then);
  {
    ElementalEmitter::CacheScope scope(emitter);
    KILN_RETURN_IF_ERROR(body());
  }
  b.CreateBr(done);
  b.SetInsertPoint(done);
  return Status::ok();
}

// A reduce a block computes together: one input, a body that is one
// associative and commutative op of its two arguments, on 32-bit registers
// (what shfl.sync moves in one instruction).
struct BlockReduction {
  const Operation* reduce = nullptr;
  const Operation* combiner = nullptr;  // the body's one op
  int64_t perRow = 0;                   // input elements per row
};

std::optional<BlockReduction> blockReductionOf(const Value* v, int64_t numRows, llvm::LLVMContext& ctx) {
  const Operation* op = v->definingOp();
  if (!op || op->name() != "stablehlo.reduce" || op->numOperands() != 2 || op->numRegions() != 1) return std::nullopt;
  const Block& body = op->region(0).front();
  if (body.numArguments() != 2 || !body.terminator() || body.terminator()->numOperands() != 1) return std::nullopt;
  const Operation* combiner = body.terminator()->operand(0)->definingOp();
  static const char* const kCombiners[] = {"stablehlo.add", "stablehlo.multiply", "stablehlo.maximum",
                                           "stablehlo.minimum", "stablehlo.and", "stablehlo.or"};
  if (!combiner || combiner->numOperands() != 2 ||
      !std::is_permutation(combiner->operands().begin(), combiner->operands().end(), body.arguments().begin()) ||
      std::ranges::find(kCombiners, combiner->name()) == std::end(kCombiners))
    return std::nullopt;
  Type element = v->type().elementType();
  llvm::Type* type = codegen::registerType(ctx, element);
  if (!type || !(type->isFloatTy() || type->isIntegerTy(32)) || element.isComplex()) return std::nullopt;
  int64_t inputs = op->operand(0)->type().numElements();
  if (numRows <= 0 || v->type().numElements() != numRows || inputs % numRows != 0) return std::nullopt;
  return BlockReduction{op, combiner, inputs / numRows};
}

// A complex reduce a block computes together: one input, a body that is one
// add or multiply of its two arguments (the pipeline splits complex sums
// into real ones, so this is the product's way), each lane's partial a
// {real, imaginary} pair moved by shuffles of its parts.
std::optional<BlockReduction> complexBlockReductionOf(const Value* v, int64_t numRows, llvm::LLVMContext& ctx) {
  const Operation* op = v->definingOp();
  if (!op || op->name() != "stablehlo.reduce" || op->numOperands() != 2 || op->numRegions() != 1) return std::nullopt;
  const Block& body = op->region(0).front();
  if (body.numArguments() != 2 || !body.terminator() || body.terminator()->numOperands() != 1) return std::nullopt;
  const Operation* combiner = body.terminator()->operand(0)->definingOp();
  if (!combiner || combiner->numOperands() != 2 ||
      !std::is_permutation(combiner->operands().begin(), combiner->operands().end(), body.arguments().begin()) ||
      (combiner->name() != "stablehlo.add" && combiner->name() != "stablehlo.multiply"))
    return std::nullopt;
  Type element = v->type().elementType();
  if (!element.isComplex() || !codegen::registerType(ctx, element)) return std::nullopt;
  int64_t inputs = op->operand(0)->type().numElements();
  if (numRows <= 0 || v->type().numElements() != numRows || inputs % numRows != 0) return std::nullopt;
  return BlockReduction{op, combiner, inputs / numRows};
}

// The identity of `combiner` on registers of element type `t` (what a
// thread without elements contributes).
llvm::Constant* identityOf(const Operation& combiner, Type t, llvm::Type* type) {
  const std::string& name = combiner.name();
  if (type->isFloatTy()) {
    if (name == "stablehlo.add") return llvm::ConstantFP::getNegativeZero(type);
    if (name == "stablehlo.multiply") return llvm::ConstantFP::get(type, 1.0);
    return llvm::ConstantFP::getInfinity(type, /*Negative=*/name == "stablehlo.maximum");
  }
  unsigned bits = type->getIntegerBitWidth();
  bool isUnsigned = t.isUnsignedInteger();
  if (name == "stablehlo.add" || name == "stablehlo.or") return llvm::ConstantInt::get(type, 0);
  if (name == "stablehlo.multiply") return llvm::ConstantInt::get(type, 1);
  if (name == "stablehlo.and") return llvm::ConstantInt::get(type, llvm::APInt::getAllOnes(bits));
  if (name == "stablehlo.maximum")
    return llvm::ConstantInt::get(type, isUnsigned ? llvm::APInt::getZero(bits) : llvm::APInt::getSignedMinValue(bits));
  return llvm::ConstantInt::get(type, isUnsigned ? llvm::APInt::getAllOnes(bits) : llvm::APInt::getSignedMaxValue(bits));
}

// The most elements a row kernel's threads stride over in one row: its
// output rows, or a reduce's input rows (a row sum alone outputs one
// element per row).
int64_t rowSpan(const codegen::RowsForm& form) {
  int64_t span = form.rowLength;
  for (const Value* v : form.rowValues)
    if (const Operation* op = v->definingOp(); op && op->name() == "stablehlo.reduce" && form.numRows > 0)
      span = std::max(span, op->operand(0)->type().numElements() / form.numRows);
  return span;
}

// The thread structure of one kernel around the elemental emitter: each
// method emits at the builder's position and stores root i to outputs[i].
class ThreadNestEmitter {
 public:
  ThreadNestEmitter(const GpuKernelPlan& plan, llvm::Module& m, llvm::IRBuilder<>& b, ElementalEmitter& emitter,
                    std::vector<llvm::Value*> inputs, std::vector<llvm::Value*> outputs)
      : plan_(plan), m_(m), b_(b), emitter_(emitter), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  // Grid-stride over vectors of `width` adjacent elements, then the
  // elements after the last whole vector one per thread.
  Status emitLoop(int64_t count, int64_t width) {
    llvm::IRBuilder<>& b = b_;
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateAdd(b.CreateMul(ids.block, ids.threadsPerBlock), ids.thread);
    llvm::Value* stride = b.CreateMul(ids.blocks, ids.threadsPerBlock);
    int64_t vectors = count / width;
    {
      ElementalEmitter::CacheScope scope(emitter_);
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, first, b.getInt64(vectors), stride, "vector", [&](llvm::Value* v) {
        std::vector<llvm::Value*> indices;
        llvm::Value* base = b.CreateMul(v, b.getInt64(width), "", true, true);
        for (int64_t j = 0; j < width; ++j) indices.push_back(b.CreateAdd(base, b.getInt64(j), "", true, true));
        return emitElements(indices, plan_.roots);
      }));
    }
    if (count % width == 0) return Status::ok();
    ElementalEmitter::CacheScope scope(emitter_);
    llvm::Value* tailFirst = b.CreateAdd(first, b.getInt64(vectors * width));
    return emitStridedLoop(b, tailFirst, b.getInt64(count), stride, "tail",
                           [&](llvm::Value* i) { return emitElements({i}, plan_.roots); });
  }

  // Blocks (or warps: warpPerRow) stride over rows; in each row, every row
  // value (form.rowValues, in order) becomes a register of every thread --
  // a block reduction where blockReductionOf takes the reduce, else
  // computed by each thread alone -- then the threads stride over the row's
  // elements.
  Status emitRows(const codegen::RowsForm& form) {
    llvm::IRBuilder<>& b = b_;
    ThreadIds ids = threadIds(b);
    int64_t numRows = form.numRows, rowLength = form.rowLength;
    RowThreads threads = rowThreads(ids, warpPerRow(rowSpan(form)));
    std::vector<const Value*> perRowRoots, elementRoots;
    for (const Value* root : plan_.roots)
      (root->type().numElements() == numRows && numRows != form.count ? perRowRoots : elementRoots).push_back(root);
    ElementalEmitter::CacheScope rowScope(emitter_);
    return emitStridedLoop(b, threads.rowFirst, b.getInt64(numRows), threads.rowStep, "row", [&](llvm::Value* row) -> Status {
      for (const Value* v : form.rowValues) {
        if (std::optional<BlockReduction> reduction = blockReductionOf(v, numRows, b.getContext())) {
          KILN_ASSIGN_OR_RETURN(llvm::Value * scalar, emitBlockReduction(*reduction, ids, threads, row));
          emitter_.setRowScalar(v, scalar);
        } else if (std::optional<BlockReduction> complex = complexBlockReductionOf(v, numRows, b.getContext())) {
          KILN_ASSIGN_OR_RETURN(llvm::Value * scalar, emitComplexBlockReduction(*complex, ids, threads, row));
          emitter_.setRowScalar(v, scalar);
        } else {
          KILN_RETURN_IF_ERROR(emitter_.emitRowScalar(v, row));
        }
      }
      if (!perRowRoots.empty())
        KILN_RETURN_IF_ERROR(emitIf(b, emitter_, b.CreateICmpEQ(threads.columnFirst, b.getInt64(0)), "row.store",
                                    [&] { return emitElements({row}, perRowRoots); }));
      ElementalEmitter::CacheScope scope(emitter_);
      return emitStridedLoop(b, threads.columnFirst, b.getInt64(rowLength), threads.columnStep, "element",
                             [&](llvm::Value* column) {
                               llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(rowLength)), column);
                               emitter_.knowSplit(index, row, column, rowLength);
                               return emitElements({index}, elementRoots);
                             });
    });
  }

  // The kernel's one transpose (of a parameter, maybe reshaped after),
  // tile by tile: the block reads a tile's input rows (adjacent threads,
  // adjacent elements) into shared memory, then writes the tile's output
  // rows from its columns (adjacent again). Tiles at the edges are partial.
  Status emitTranspose(const codegen::PureTranspose& t, int64_t count) {
    llvm::IRBuilder<>& b = b_;
    ThreadIds ids = threadIds(b);
    constexpr int64_t kTile = kTransposeTile, kPasses = kTransposeTile * kTransposeTile / kTransposeThreads;
    constexpr int64_t kRowsPerPass = kTransposeThreads / kTransposeTile;
    int64_t tileRows = (t.rows + kTile - 1) / kTile, tileColumns = (t.columns + kTile - 1) / kTile;
    int64_t tiles = t.rows * t.columns == 0 ? 0 : count / (t.rows * t.columns) * tileRows * tileColumns;
    const Value* input = plan_.params[t.param];
    Type element = input->type().elementType();
    llvm::Type* type = codegen::registerType(b.getContext(), element);
    auto* rowType = llvm::ArrayType::get(type, kTile + 1);
    auto* tileType = llvm::ArrayType::get(rowType, kTile);
    auto* tile = new llvm::GlobalVariable(m_, tileType, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(tileType), "tile", nullptr,
                                          llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto at = [&](llvm::Value* row, llvm::Value* column) {
      return b.CreateInBoundsGEP(tileType, tile, {b.getInt64(0), row, column});
    };
    llvm::Value* lane = b.CreateAnd(ids.thread, b.getInt64(kTile - 1));
    llvm::Value* laneRow = b.CreateLShr(ids.thread, b.getInt64(5));
    auto i64 = [&](int64_t v) { return b.getInt64(v); };
    auto inside = [&](llvm::Value* r, llvm::Value* c) {
      return b.CreateAnd(b.CreateICmpULT(r, i64(t.rows)), b.CreateICmpULT(c, i64(t.columns)));
    };
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, ids.block, i64(tiles), ids.blocks, "tile", [&](llvm::Value* q) -> Status {
      llvm::Value* firstColumn = b.CreateMul(b.CreateURem(q, i64(tileColumns)), i64(kTile));
      llvm::Value* firstRow = b.CreateMul(b.CreateURem(b.CreateUDiv(q, i64(tileColumns)), i64(tileRows)), i64(kTile));
      llvm::Value* batch = b.CreateUDiv(q, i64(tileColumns * tileRows));
      // The batch's first input element: its coordinates (output order) times their source strides.
      llvm::Value* source = i64(0);
      llvm::Value* rest = batch;
      for (auto it = t.batch.rbegin(); it != t.batch.rend(); ++it) {
        source = b.CreateAdd(source, b.CreateMul(b.CreateURem(rest, i64(it->first)), i64(it->second)));
        rest = b.CreateUDiv(rest, i64(it->first));
      }
      llvm::Value* target = b.CreateMul(batch, i64(t.rows * t.columns));
      // Input element (column c, row r) of the batch is output element (r, c).
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});  // the last tile's readers are done with it
      for (int64_t k = 0; k < kPasses; ++k) {
        llvm::Value* tileColumn = b.CreateAdd(laneRow, i64(k * kRowsPerPass));
        llvm::Value* c = b.CreateAdd(firstColumn, tileColumn);
        llvm::Value* r = b.CreateAdd(firstRow, lane);
        KILN_RETURN_IF_ERROR(emitIf(b, emitter_, inside(r, c), "tile.read", [&] {
          llvm::Value* index = b.CreateAdd(source, b.CreateAdd(b.CreateMul(c, i64(t.rows)), r));
          b.CreateStore(codegen::emitLoadElement(b, inputs_[t.param], element, index), at(tileColumn, lane));
          return Status::ok();
        }));
      }
      b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
      for (int64_t k = 0; k < kPasses; ++k) {
        llvm::Value* tileRow = b.CreateAdd(laneRow, i64(k * kRowsPerPass));
        llvm::Value* r = b.CreateAdd(firstRow, tileRow);
        llvm::Value* c = b.CreateAdd(firstColumn, lane);
        KILN_RETURN_IF_ERROR(emitIf(b, emitter_, inside(r, c), "tile.write", [&] {
          llvm::Value* index = b.CreateAdd(target, b.CreateAdd(b.CreateMul(r, i64(t.columns)), c));
          codegen::emitStoreElement(b, b.CreateLoad(type, at(lane, tileRow)), outputs_[0], element, index);
          return Status::ok();
        }));
      }
      return Status::ok();
    });
  }

  // A thread per element of gather's result (grid-stride): the operand
  // element its start indices pick, copied.
  Status emitGather(const WindowedIndexing& m, int64_t count) {
    llvm::IRBuilder<>& b = b_;
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateAdd(b.CreateMul(ids.block, ids.threadsPerBlock), ids.thread);
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, first, b.getInt64(count), b.CreateMul(ids.blocks, ids.threadsPerBlock), "element",
                           [&](llvm::Value* i) -> Status {
                             KILN_ASSIGN_OR_RETURN(OperandIndex at, emitOperandIndex(b, emitter_, m, i));
                             KILN_ASSIGN_OR_RETURN(llvm::Value * element, emitter_.emit(m.operand, at.flat));
                             codegen::emitStoreElement(b, element, outputs_[0], plan_.roots[0]->type().elementType(), i);
                             return Status::ok();
                           });
  }

  // A thread per update element (grid-stride), applied to the result,
  // which holds the operand already (a loop kernel before this one copied
  // it): an update outside the result is skipped; an add of 32- or 64-bit
  // elements is an atomic add, any other body a compare-and-swap loop
  // around it; an update that replaces is a store (where indices repeat,
  // any one of them wins).
  Status emitScatter(const WindowedIndexing& m, ScatterUpdate update) {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    Type element = op.result(0)->type().elementType();
    llvm::Type* type = codegen::registerType(b.getContext(), element);
    if (!type || element.isComplex()) return unsupported(op, "of " + element.str());
    unsigned bits = element.storageBytes() * 8;
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateAdd(b.CreateMul(ids.block, ids.threadsPerBlock), ids.thread);
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(
        b, first, b.getInt64(m.windowed->type().numElements()), b.CreateMul(ids.blocks, ids.threadsPerBlock), "update",
        [&](llvm::Value* i) -> Status {
          KILN_ASSIGN_OR_RETURN(OperandIndex at, emitOperandIndex(b, emitter_, m, i));
          KILN_ASSIGN_OR_RETURN(llvm::Value * value, emitter_.emit(m.windowed, i));
          return emitIf(b, emitter_, at.inBounds, "inside", [&]() -> Status {
            if (update == ScatterUpdate::Replace) {
              codegen::emitStoreElement(b, value, outputs_[0], element, at.flat);
              return Status::ok();
            }
            if (bits < 32) return emitCompareAndSwapWithin32Bits(element, at.flat, value);
            llvm::Value* slot = b.CreateInBoundsGEP(type, outputs_[0], at.flat);
            if (update == ScatterUpdate::Add) {
              b.CreateAtomicRMW(type->isFloatingPointTy() ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add, slot,
                                value, llvm::Align(bits / 8), llvm::AtomicOrdering::Monotonic);
              return Status::ok();
            }
            return emitCompareAndSwap(slot, type, value);
          });
        });
  }

  // A block per row along `dimension` (blocks loop over rows): the row's
  // positions 0..padded-1 in shared memory are put in order by a bitonic
  // network -- a thread per compare-exchange pair, a barrier between
  // stages -- then every result is its operand read at the ordered
  // positions. Positions from the row length on are padding, after every
  // element. Ties go to the earlier position, so the order is the stable
  // sort's whatever is_stable says (the interpreter's is stable too); that
  // takes the comparator both ways round per pair.
  Status emitSort(int64_t dimension, int64_t padded) {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    std::span<const int64_t> shape = op.operand(0)->type().shape();
    int64_t length = shape[size_t(dimension)], inner = 1;
    for (size_t d = size_t(dimension) + 1; d < shape.size(); ++d) inner *= shape[d];
    int64_t rows = length == 0 ? 0 : op.operand(0)->type().numElements() / length;
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto* positionsType = llvm::ArrayType::get(b.getInt32Ty(), uint64_t(padded));
    auto* positions = new llvm::GlobalVariable(m_, positionsType, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                               llvm::UndefValue::get(positionsType), "positions", nullptr,
                                               llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto slot = [&](llvm::Value* p) { return b.CreateInBoundsGEP(positionsType, positions, {i64(0), p}); };
    auto barrier = [&] { b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); };
    ThreadIds ids = threadIds(b);
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, ids.block, i64(rows), ids.blocks, "row", [&](llvm::Value* row) -> Status {
      llvm::Value* base = b.CreateAdd(b.CreateMul(b.CreateUDiv(row, i64(inner)), i64(length * inner)),
                                      b.CreateURem(row, i64(inner)));
      auto elementAt = [&](llvm::Value* position) { return b.CreateAdd(base, b.CreateMul(position, i64(inner))); };
      // Whether position x goes before position y: a real element before
      // padding, then the comparator, then the earlier position.
      auto before = [&](llvm::Value* x, llvm::Value* y) -> Expected<llvm::Value*> {
        llvm::Value* xReal = b.CreateICmpULT(x, i64(length));
        llvm::Value* yReal = b.CreateICmpULT(y, i64(length));
        llvm::Value* xAt = elementAt(b.CreateSelect(xReal, x, i64(0)));
        llvm::Value* yAt = elementAt(b.CreateSelect(yReal, y, i64(0)));
        std::vector<llvm::Value*> xy, yx;
        for (size_t k = 0; k < plan_.params.size(); ++k) {
          Type element = plan_.params[k]->type().elementType();
          llvm::Value* ex = loadElement(k, element, xAt);
          llvm::Value* ey = loadElement(k, element, yAt);
          xy.insert(xy.end(), {ex, ey});
          yx.insert(yx.end(), {ey, ex});
        }
        KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> less, emitter_.emitScalarBody(op, xy));
        KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> greater, emitter_.emitScalarBody(op, yx));
        llvm::Value* ordered =
            b.CreateOr(less[0], b.CreateAnd(b.CreateNot(greater[0]), b.CreateICmpULT(x, y)));
        return b.CreateAnd(xReal, b.CreateOr(b.CreateNot(yReal), ordered));
      };
      barrier();  // the last row's readers are done with the positions
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, ids.thread, i64(padded), ids.threadsPerBlock, "init", [&](llvm::Value* p) {
        b.CreateStore(b.CreateTrunc(p, b.getInt32Ty()), slot(p));
        return Status::ok();
      }));
      barrier();
      int64_t stages = std::countr_zero(uint64_t(padded));  // log2(padded)
      // Merges of runs of 2^kLog, each in steps of distance 2^jLog (kLog - 1 down to 0).
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(1), i64(stages + 1), i64(1), "merge", [&](llvm::Value* kLog) -> Status {
        return emitStridedLoop(b, i64(0), kLog, i64(1), "step", [&](llvm::Value* t) -> Status {
          llvm::Value* jLog = b.CreateSub(b.CreateSub(kLog, i64(1)), t);
          llvm::Value* j = b.CreateShl(i64(1), jLog);
          llvm::Value* k = b.CreateShl(i64(1), kLog);
          KILN_RETURN_IF_ERROR(emitStridedLoop(b, ids.thread, i64(padded / 2), ids.threadsPerBlock, "pair",
                                               [&](llvm::Value* pair) -> Status {
            // Pair `pair` compares position i (bit jLog clear) with i + j.
            llvm::Value* low = b.CreateAnd(pair, b.CreateSub(j, i64(1)));
            llvm::Value* i = b.CreateOr(b.CreateShl(b.CreateLShr(pair, jLog), b.CreateAdd(jLog, i64(1))), low);
            llvm::Value* l = b.CreateOr(i, j);
            llvm::Value* ascending = b.CreateICmpEQ(b.CreateAnd(i, k), i64(0));
            llvm::Value* a = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(i)), b.getInt64Ty());
            llvm::Value* c = b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(l)), b.getInt64Ty());
            KILN_ASSIGN_OR_RETURN(llvm::Value * cFirst, before(c, a));
            KILN_ASSIGN_OR_RETURN(llvm::Value * aFirst, before(a, c));
            llvm::Value* swap = b.CreateSelect(ascending, cFirst, aFirst);
            b.CreateStore(b.CreateTrunc(b.CreateSelect(swap, c, a), b.getInt32Ty()), slot(i));
            b.CreateStore(b.CreateTrunc(b.CreateSelect(swap, a, c), b.getInt32Ty()), slot(l));
            return Status::ok();
          }));
          barrier();
          return Status::ok();
        });
      }));
      return emitStridedLoop(b, ids.thread, i64(length), ids.threadsPerBlock, "write", [&](llvm::Value* p) {
        llvm::Value* from = elementAt(b.CreateZExt(b.CreateLoad(b.getInt32Ty(), slot(p)), b.getInt64Ty()));
        for (size_t k = 0; k < plan_.params.size(); ++k) {
          Type element = plan_.params[k]->type().elementType();
          codegen::emitStoreElement(b, codegen::emitLoadElement(b, inputs_[k], element, from), outputs_[k], element,
                                    elementAt(p));
        }
        return Status::ok();
      });
    });
  }

  // select_and_scatter: a thread per result element x (grid-stride),
  // folding with the scatter body, from the init value, the source element
  // of every window that selects x. The windows that may hold x are walked
  // in the interpreter's order (row-major over the source), so the folds
  // are its own, in its order, and no atomics are needed; each one's
  // selection is recomputed: the first position of the window not in
  // padding, replaced by each later one that select(current, later) does
  // not keep. Work per element: the window's positions, squared.
  Status emitSelectAndScatter(int64_t count) {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    const Value* operand = op.operand(0);
    const Value* source = op.operand(1);
    std::span<const int64_t> shape = operand->type().shape(), sourceShape = source->type().shape();
    size_t rank = shape.size();
    std::vector<int64_t> window = intListAttr(op, "window_dimensions");
    std::vector<int64_t> strides = intListAttrOr(op, "window_strides", rank, 1);
    std::vector<int64_t> low(rank, 0);
    if (Attribute padding = op.attr("padding"); padding && padding.is(AttrKind::DenseElements)) {
      std::optional<std::vector<int64_t>> pairs = denseIntElements(padding);  // [rank, 2]: low, high
      if (!pairs || pairs->size() != 2 * rank) return unsupported(op, "with this padding");
      for (size_t d = 0; d < rank; ++d) low[d] = (*pairs)[2 * d];
    }
    if (window.size() != rank || strides.size() != rank || sourceShape.size() != rank)
      return unsupported(op, "with these window attributes");
    for (size_t d = 0; d < rank; ++d)
      if (window[d] < 1 || strides[d] < 1) return unsupported(op, "with these window attributes");
    Type element = op.result(0)->type().elementType();
    llvm::Type* type = codegen::registerType(b.getContext(), element);
    if (!type || element.isComplex()) return unsupported(op, "of " + element.str());
    int64_t positions = 1;
    for (int64_t w : window) positions *= w;
    std::vector<int64_t> shapeStrides = rowMajorStrides(shape), windowStrides = rowMajorStrides(window);
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto clamp = [&](llvm::Value* v, int64_t hi) {
      v = b.CreateSelect(b.CreateICmpSLT(v, i64(0)), i64(0), v);
      return b.CreateSelect(b.CreateICmpSGT(v, i64(hi)), i64(hi), v);
    };
    // Registers across loop trips, as entry-block slots (SROA makes them registers).
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::Value* accSlot = entry.CreateAlloca(type, nullptr, "acc");
    llvm::Value* selectedSlot = entry.CreateAlloca(b.getInt64Ty(), nullptr, "selected");
    llvm::Value* selectedValueSlot = entry.CreateAlloca(type, nullptr, "selected.value");
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateAdd(b.CreateMul(ids.block, ids.threadsPerBlock), ids.thread);
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, first, i64(count), b.CreateMul(ids.blocks, ids.threadsPerBlock), "element",
                           [&](llvm::Value* x) -> Status {
      ElementalEmitter::CacheScope perElement(emitter_);
      std::vector<llvm::Value*> xAt(rank);
      for (size_t d = 0; d < rank; ++d) xAt[d] = b.CreateURem(b.CreateUDiv(x, i64(shapeStrides[d])), i64(shape[d]));
      KILN_ASSIGN_OR_RETURN(llvm::Value * init, emitter_.emit(op.operand(2), i64(0)));
      b.CreateStore(init, accSlot);
      // Position p of window w holds x where w * stride + p - low = x; p
      // from the last down visits those windows in row-major order.
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(positions), i64(1), "window", [&](llvm::Value* r) -> Status {
        ElementalEmitter::CacheScope perWindow(emitter_);
        llvm::Value* p = b.CreateSub(i64(positions - 1), r);
        llvm::Value* holds = b.getTrue();
        std::vector<llvm::Value*> w(rank);
        llvm::Value* wFlat = i64(0);
        for (size_t d = 0; d < rank; ++d) {
          llvm::Value* pd = b.CreateURem(b.CreateUDiv(p, i64(windowStrides[d])), i64(window[d]));
          llvm::Value* t = b.CreateSub(b.CreateAdd(xAt[d], i64(low[d])), pd);
          llvm::Value* wd = b.CreateSDiv(t, i64(strides[d]));
          holds = b.CreateAnd(holds, b.CreateICmpSGE(t, i64(0)));
          holds = b.CreateAnd(holds, b.CreateICmpEQ(b.CreateSRem(t, i64(strides[d])), i64(0)));
          holds = b.CreateAnd(holds, b.CreateICmpSLT(wd, i64(sourceShape[d])));
          w[d] = clamp(wd, std::max<int64_t>(sourceShape[d] - 1, 0));
          wFlat = b.CreateAdd(b.CreateMul(wFlat, i64(sourceShape[d])), w[d]);
        }
        // Window w's selection (its operand index; -1 while none).
        b.CreateStore(i64(-1), selectedSlot);
        b.CreateStore(init, selectedValueSlot);  // any defined value
        KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(positions), i64(1), "select", [&](llvm::Value* q) -> Status {
          ElementalEmitter::CacheScope perPosition(emitter_);
          llvm::Value* inside = b.getTrue();
          llvm::Value* at = i64(0);
          for (size_t d = 0; d < rank; ++d) {
            llvm::Value* qd = b.CreateURem(b.CreateUDiv(q, i64(windowStrides[d])), i64(window[d]));
            llvm::Value* position = b.CreateSub(b.CreateAdd(b.CreateMul(w[d], i64(strides[d])), qd), i64(low[d]));
            inside = b.CreateAnd(inside, b.CreateICmpSGE(position, i64(0)));
            inside = b.CreateAnd(inside, b.CreateICmpSLT(position, i64(shape[d])));
            at = b.CreateAdd(b.CreateMul(at, i64(shape[d])), clamp(position, std::max<int64_t>(shape[d] - 1, 0)));
          }
          KILN_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(operand, at));
          llvm::Value* selected = b.CreateLoad(b.getInt64Ty(), selectedSlot);
          llvm::Value* current = b.CreateLoad(type, selectedValueSlot);
          std::array<llvm::Value*, 2> args = {current, v};
          KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> keep, emitter_.emitScalarBody(op, args, 0));
          llvm::Value* take =
              b.CreateAnd(inside, b.CreateOr(b.CreateICmpSLT(selected, i64(0)), b.CreateNot(keep.at(0))));
          b.CreateStore(b.CreateSelect(take, at, selected), selectedSlot);
          b.CreateStore(b.CreateSelect(take, v, current), selectedValueSlot);
          return Status::ok();
        }));
        llvm::Value* hit = b.CreateAnd(holds, b.CreateICmpEQ(b.CreateLoad(b.getInt64Ty(), selectedSlot), x));
        KILN_ASSIGN_OR_RETURN(llvm::Value * update, emitter_.emit(source, wFlat));
        llvm::Value* acc = b.CreateLoad(type, accSlot);
        std::array<llvm::Value*, 2> args = {acc, update};
        KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined, emitter_.emitScalarBody(op, args, 1));
        b.CreateStore(b.CreateSelect(hit, combined.at(0), acc), accSlot);
        return Status::ok();
      }));
      codegen::emitStoreElement(b, b.CreateLoad(type, accSlot), outputs_[0], element, x);
      return Status::ok();
    });
  }

  // rng_bit_generator: a thread per output element (grid-stride) computes
  // the Threefry or Philox block its bits come from (kiln/interp/
  // random_bits.h, arranged over the output as the interpreter's
  // ops_misc.cpp does, after XLA), and stores them as the element's bit
  // pattern; the first thread writes the new state (the key, the counter
  // advanced past the blocks used, zeros after). Bitwise the interpreter's.
  Status emitRandomBits() {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    const Value* state = op.operand(0);
    Type stateType = state->type().elementType();
    Type out = op.result(1)->type().elementType();
    std::span<const int64_t> shape = op.result(1)->type().shape();
    int64_t n = op.result(1)->type().numElements(), stateSize = state->type().numElements();
    std::string algorithm = "DEFAULT";
    if (Attribute a = op.attr("rng_algorithm")) algorithm = a.stringValue();
    if (algorithm == "DEFAULT") algorithm = "PHILOX";  // as XLA's CPU and GPU compilers
    if (algorithm != "PHILOX" && algorithm != "THREE_FRY") return unsupported(op, "with rng_algorithm " + algorithm);
    if (!stateType.isInteger() || stateSize < 2 || state->type().rank() != 1 || out.isComplex() ||
        !codegen::registerType(b.getContext(), out))
      return unsupported(op, "with a state of " + state->type().str() + " and an output of " +
                                 op.result(1)->type().str());
    unsigned bits = out.bitWidth() > 32 ? 64 : 32;
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto i32 = [&](uint32_t v) { return b.getInt32(v); };
    auto stateWord = [&](int64_t k) -> Expected<llvm::Value*> {
      KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emit(state, i64(k)));
      return x->getType()->getIntegerBitWidth() < 64 ? b.CreateZExt(x, b.getInt64Ty()) : x;
    };
    auto low = [&](llvm::Value* v) { return b.CreateTrunc(v, b.getInt32Ty()); };
    auto high = [&](llvm::Value* v) { return b.CreateTrunc(b.CreateLShr(v, i64(32)), b.getInt32Ty()); };
    auto join = [&](llvm::Value* lo, llvm::Value* hi) {
      return b.CreateOr(b.CreateShl(b.CreateZExt(hi, b.getInt64Ty()), i64(32)), b.CreateZExt(lo, b.getInt64Ty()));
    };
    auto rotl = [&](llvm::Value* v, int r) { return b.CreateOr(b.CreateShl(v, i32(uint32_t(r))), b.CreateLShr(v, i32(uint32_t(32 - r)))); };
    // Threefry-2x32, 20 rounds.
    auto threefry = [&](llvm::Value* k0, llvm::Value* k1, llvm::Value* x0, llvm::Value* x1) {
      static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
      llvm::Value* ks[3] = {k0, k1, b.CreateXor(b.CreateXor(k0, k1), i32(0x1BD11BDAu))};
      x0 = b.CreateAdd(x0, ks[0]);
      x1 = b.CreateAdd(x1, ks[1]);
      for (uint32_t group = 0; group < 5; ++group) {
        for (int r = 0; r < 4; ++r) {
          x0 = b.CreateAdd(x0, x1);
          x1 = b.CreateXor(rotl(x1, kRotations[(group % 2) * 4 + r]), x0);
        }
        x0 = b.CreateAdd(x0, ks[(group + 1) % 3]);
        x1 = b.CreateAdd(x1, b.CreateAdd(ks[(group + 2) % 3], i32(group + 1)));
      }
      return std::array<llvm::Value*, 2>{x0, x1};
    };
    // Philox-4x32, 10 rounds.
    auto philox = [&](llvm::Value* k0, llvm::Value* k1, std::array<llvm::Value*, 4> x) {
      for (int round = 0; round < 10; ++round) {
        llvm::Value* p0 = b.CreateMul(b.CreateZExt(x[0], b.getInt64Ty()), i64(0xD2511F53));
        llvm::Value* p1 = b.CreateMul(b.CreateZExt(x[2], b.getInt64Ty()), i64(0xCD9E8D57));
        x = {b.CreateXor(b.CreateXor(high(p1), x[1]), k0), low(p1), b.CreateXor(b.CreateXor(high(p0), x[3]), k1),
             low(p0)};
        k0 = b.CreateAdd(k0, i32(0x9E3779B9u));
        k1 = b.CreateAdd(k1, i32(0xBB67AE85u));
      }
      return x;
    };
    KILN_ASSIGN_OR_RETURN(llvm::Value * key, stateWord(0));
    KILN_ASSIGN_OR_RETURN(llvm::Value * counter, stateWord(1));
    llvm::Value* counterHigh = key;
    if (stateSize > 2) {
      KILN_ASSIGN_OR_RETURN(counterHigh, stateWord(2));
    }
    // Threefry of 32-bit words: the shape halved along its first even dim
    // (else its largest), counter j giving elements 2h and 2h + 1 there.
    std::vector<int64_t> dims(shape.begin(), shape.end());
    if (dims.empty()) dims = {1};
    auto even = std::find_if(dims.begin(), dims.end(), [](int64_t d) { return d % 2 == 0; });
    size_t splitDim = size_t((even != dims.end() ? even : std::max_element(dims.begin(), dims.end())) - dims.begin());
    std::vector<int64_t> halfShape = dims;
    halfShape[splitDim] = (dims[splitDim] + 1) / 2;
    int64_t halfCount = 1;
    for (int64_t extent : halfShape) halfCount *= extent;
    int64_t blocksUsed = algorithm == "THREE_FRY" ? (bits == 64 ? n : halfCount)
                                                 : ((bits == 64 ? 2 * n : n) + 3) / 4;
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateAdd(b.CreateMul(ids.block, ids.threadsPerBlock), ids.thread);
    KILN_RETURN_IF_ERROR(emitIf(b, emitter_, b.CreateICmpEQ(first, i64(0)), "state", [&]() -> Status {
      llvm::Value* advanced = b.CreateAdd(counter, i64(blocksUsed));
      llvm::Value* carried = algorithm == "PHILOX"
                                 ? b.CreateAdd(counterHigh, b.CreateZExt(b.CreateICmpULT(advanced, counter), b.getInt64Ty()))
                                 : i64(0);
      for (int64_t k = 0; k < stateSize; ++k) {
        llvm::Value* word = k == 0 ? key : k == 1 ? advanced : k == 2 ? carried : i64(0);
        codegen::emitStoreElement(b, b.CreateTrunc(word, b.getIntNTy(stateType.bitWidth())), outputs_[0], stateType,
                                  i64(k));
      }
      return Status::ok();
    }));
    std::vector<int64_t> strides = rowMajorStrides(dims), halfStrides = rowMajorStrides(halfShape);
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, first, i64(n), b.CreateMul(ids.blocks, ids.threadsPerBlock), "element",
                           [&](llvm::Value* i) -> Status {
      llvm::Value* raw = nullptr;  // the element's bits, in an i64
      if (algorithm == "THREE_FRY" && bits == 64) {
        llvm::Value* c = b.CreateAdd(counter, i);
        std::array<llvm::Value*, 2> r = threefry(low(key), high(key), low(c), high(c));
        raw = join(r[0], r[1]);
      } else if (algorithm == "THREE_FRY") {
        llvm::Value* j = i64(0);
        llvm::Value* word = nullptr;
        for (size_t d = 0; d < dims.size(); ++d) {
          llvm::Value* at = b.CreateURem(b.CreateUDiv(i, i64(strides[d])), i64(std::max<int64_t>(dims[d], 1)));
          if (d == splitDim) {
            word = b.CreateAnd(at, i64(1));
            at = b.CreateLShr(at, i64(1));
          }
          j = b.CreateAdd(j, b.CreateMul(at, i64(halfStrides[d])));
        }
        llvm::Value* c = b.CreateAdd(counter, j);
        std::array<llvm::Value*, 2> r = threefry(low(key), high(key), low(c), high(c));
        raw = b.CreateZExt(b.CreateSelect(b.CreateICmpEQ(word, i64(0)), r[0], r[1]), b.getInt64Ty());
      } else {
        // Word w of the stream is word w % 4 of block w / 4, whose counter
        // is the state's 128-bit counter plus w / 4.
        llvm::Value* w = bits == 64 ? b.CreateShl(i, i64(1)) : i;
        llvm::Value* block = b.CreateLShr(w, i64(2));
        llvm::Value* lo = b.CreateAdd(counter, block);
        llvm::Value* hi = b.CreateAdd(counterHigh, b.CreateZExt(b.CreateICmpULT(lo, counter), b.getInt64Ty()));
        std::array<llvm::Value*, 4> r = philox(low(key), high(key), {low(lo), high(lo), low(hi), high(hi)});
        auto pick = [&](llvm::Value* k) {
          llvm::Value* x = r[3];
          for (int q = 2; q >= 0; --q) x = b.CreateSelect(b.CreateICmpEQ(k, i64(q)), r[size_t(q)], x);
          return x;
        };
        llvm::Value* w0 = pick(b.CreateAnd(w, i64(3)));
        raw = bits == 64 ? join(w0, pick(b.CreateAnd(b.CreateAdd(w, i64(1)), i64(3))))
                         : b.CreateZExt(w0, b.getInt64Ty());
      }
      // The low bits as the element's bit pattern (a float's bits as they
      // are: no register round trip, which would make NaNs canonical).
      if (out.isBool()) {
        codegen::emitStoreElement(b, b.CreateTrunc(raw, b.getInt1Ty()), outputs_[1], out, i);
      } else if (out.isFloat()) {
        llvm::Type* storage = b.getIntNTy(unsigned(out.storageBytes() * 8));
        llvm::Value* masked = out.bitWidth() < 64 ? b.CreateAnd(raw, i64((int64_t(1) << out.bitWidth()) - 1)) : raw;
        b.CreateStore(b.CreateTrunc(masked, storage), b.CreateGEP(storage, outputs_[1], i));
      } else {
        codegen::emitStoreElement(b, b.CreateTrunc(raw, b.getIntNTy(out.bitWidth())), outputs_[1], out, i);
      }
      return Status::ok();
    });
  }

  // The 4-byte words of one lane's slot in the shared arrays of this
  // kernel's block reductions so far (each has its own array of a slot per
  // warp: a word for a real reduction, 2 or 4 for complex<f32> or <f64>).
  int64_t sharedWordsPerLane() const { return sharedWords_; }

  // A triangular solve (stablehlo.triangular_solve, lapack_?trsm_ffi): a
  // thread per system -- a column of b (left side) or a row (right side) --
  // grid-stride, its unknowns in its own slots of shared memory (slot k of
  // thread t at k * `threads` + t: adjacent threads, adjacent banks) in the
  // interpreter's carrier (double, complex<double>). Each unknown, in the
  // interpreter's order (kiln/interp/ops_linalg.cpp): its right-hand side
  // minus the solved unknowns times op(a)'s entries, one at a time in
  // ascending position, then divided by the diagonal entry (1 with
  // unit_diagonal; complex division as libgcc's __divdc3). No barriers: a
  // thread reads only its own slots and a.
  Status emitTriangularSolve(const interp::TriangularSolveSpec& spec, int64_t threads) {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    const Value *a = op.operand(0), *rhs = op.operand(1);
    Type aType = a->type().elementType(), bType = rhs->type().elementType(), rType = op.result(0)->type().elementType();
    std::span<const int64_t> bShape = rhs->type().shape();
    int64_t m = a->type().shape().back(), rows = bShape[bShape.size() - 2], cols = bShape.back();
    int64_t batches = rows * cols == 0 ? 0 : rhs->type().numElements() / (rows * cols);
    int64_t perMatrix = spec.leftSide ? cols : rows, systems = batches * perMatrix;
    bool complex = rType.isComplex();
    int64_t parts = complex ? 2 : 1;
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto* slotsType = llvm::ArrayType::get(b.getDoubleTy(), uint64_t(std::max<int64_t>(1, m * threads * parts)));
    auto* slots = new llvm::GlobalVariable(m_, slotsType, false, llvm::GlobalValue::InternalLinkage,
                                           llvm::UndefValue::get(slotsType), "unknowns", nullptr,
                                           llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    ThreadIds ids = threadIds(b);
    auto slot = [&](llvm::Value* k, int part) {
      llvm::Value* at = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(k, i64(threads)), ids.thread), i64(parts)), i64(part));
      return b.CreateInBoundsGEP(slotsType, slots, {i64(0), at});
    };
    auto loadSlot = [&](llvm::Value* k) {
      Num x{b.CreateLoad(b.getDoubleTy(), slot(k, 0)), nullptr};
      if (complex) x.im = b.CreateLoad(b.getDoubleTy(), slot(k, 1));
      return x;
    };
    auto storeSlot = [&](llvm::Value* k, Num x) {
      b.CreateStore(x.re, slot(k, 0));
      if (complex) b.CreateStore(x.im, slot(k, 1));
    };
    llvm::Value* first = b.CreateAdd(b.CreateMul(ids.block, ids.threadsPerBlock), ids.thread);
    llvm::Value* step = b.CreateMul(ids.blocks, ids.threadsPerBlock);
    bool opLower = spec.lower != spec.transpose, forward = spec.leftSide == opLower;
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, first, i64(systems), step, "system", [&](llvm::Value* system) -> Status {
      llvm::Value* batch = b.CreateUDiv(system, i64(perMatrix));
      llvm::Value* q = b.CreateURem(system, i64(perMatrix));
      llvm::Value* bBase = b.CreateMul(batch, i64(rows * cols));
      llvm::Value* aBase = b.CreateMul(batch, i64(m * m));
      auto bAt = [&](llvm::Value* k) {
        return spec.leftSide ? b.CreateAdd(bBase, b.CreateAdd(b.CreateMul(k, i64(cols)), q))
                             : b.CreateAdd(bBase, b.CreateAdd(b.CreateMul(q, i64(cols)), k));
      };
      // Entry (i, j) of op(a): a's (j, i) when transposed, conjugated for the adjoint.
      auto opA = [&](llvm::Value* i, llvm::Value* j) {
        llvm::Value* ai = spec.transpose ? j : i;
        llvm::Value* aj = spec.transpose ? i : j;
        Num v = widen(codegen::emitLoadElement(b, inputs_[0], aType, b.CreateAdd(aBase, b.CreateAdd(b.CreateMul(ai, i64(m)), aj))), aType);
        if (spec.conjugate && v.im) v.im = b.CreateFNeg(v.im);
        return v;
      };
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(m), i64(1), "load", [&](llvm::Value* k) {
        storeSlot(k, widen(codegen::emitLoadElement(b, inputs_[1], bType, bAt(k)), bType));
        return Status::ok();
      }));
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(m), i64(1), "unknown", [&](llvm::Value* s) -> Status {
        llvm::Value* k = forward ? s : b.CreateSub(i64(m - 1), s);
        llvm::Value* acc = entryAlloca(complex ? 2 : 1);
        storeNum(acc, loadSlot(k));
        KILN_RETURN_IF_ERROR(emitStridedLoop(b, forward ? i64(0) : b.CreateAdd(k, i64(1)), forward ? k : i64(m), i64(1),
                                             "eliminate", [&](llvm::Value* j) {
          Num c = spec.leftSide ? opA(k, j) : opA(j, k);
          storeNum(acc, sub(loadNum(acc, complex), mul(loadSlot(j), c)));
          return Status::ok();
        }));
        Num x = loadNum(acc, complex);
        Num d = spec.unitDiagonal ? Num{f64(1.0), complex ? f64(0.0) : nullptr} : opA(k, k);
        storeSlot(k, complex ? divide(x, d) : Num{b.CreateFDiv(x.re, d.re), nullptr});
        return Status::ok();
      }));
      return emitStridedLoop(b, i64(0), i64(m), i64(1), "store", [&](llvm::Value* k) {
        codegen::emitStoreElement(b, narrow(loadSlot(k), rType), outputs_[0], rType, bAt(k));
        return Status::ok();
      });
    });
  }

  // LU factorization with partial pivoting (lapack_?getrf_ffi): a block per
  // matrix (blocks loop over matrices), the m x n matrix in shared memory in
  // the interpreter's carrier, row-major. For each column j < min(m, n), as
  // the interpreter's luFactor (kiln/interp/ops_linalg.cpp): thread 0 picks
  // the pivot row, the first of largest |x| (|re| + |im| for complex) on or
  // below the diagonal, and records it; the threads swap rows j and p
  // (columns in parallel); where the pivot is exactly zero the column is
  // left alone (info: its 1-based index, the first one), else the threads
  // stride over the rows below: the multiplier x(i, j) / x(j, j), then
  // x(i, k) -= x(j, k) * multiplier for k > j, in the interpreter's order
  // for each element. A barrier after each phase.
  Status emitLuFactor() {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    const Value* a = op.operand(0);
    Type aType = a->type().elementType(), rType = op.result(0)->type().elementType();
    Type pivotType = op.result(1)->type().elementType(), infoType = op.result(2)->type().elementType();
    std::span<const int64_t> shape = a->type().shape();
    int64_t m = shape[shape.size() - 2], n = shape.back(), steps = std::min(m, n);
    int64_t matrices = m * n == 0 ? 0 : a->type().numElements() / (m * n);
    bool complex = rType.isComplex();
    int64_t parts = complex ? 2 : 1;
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto* matrixType = llvm::ArrayType::get(b.getDoubleTy(), uint64_t(std::max<int64_t>(1, m * n * parts)));
    auto* lu = new llvm::GlobalVariable(m_, matrixType, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::UndefValue::get(matrixType), "lu", nullptr,
                                        llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto* pivotSlot = new llvm::GlobalVariable(m_, b.getInt64Ty(), false, llvm::GlobalValue::InternalLinkage,
                                               llvm::UndefValue::get(b.getInt64Ty()), "pivot_row", nullptr,
                                               llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto slot = [&](llvm::Value* i, llvm::Value* k, int part) {
      llvm::Value* at = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(i, i64(n)), k), i64(parts)), i64(part));
      return b.CreateInBoundsGEP(matrixType, lu, {i64(0), at});
    };
    auto load = [&](llvm::Value* i, llvm::Value* k) {
      Num x{b.CreateLoad(b.getDoubleTy(), slot(i, k, 0)), nullptr};
      if (complex) x.im = b.CreateLoad(b.getDoubleTy(), slot(i, k, 1));
      return x;
    };
    auto store = [&](llvm::Value* i, llvm::Value* k, Num x) {
      b.CreateStore(x.re, slot(i, k, 0));
      if (complex) b.CreateStore(x.im, slot(i, k, 1));
    };
    auto magnitude = [&](Num x) {
      llvm::Value* r = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.re);
      return complex ? b.CreateFAdd(r, b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x.im)) : r;
    };
    auto barrier = [&] { b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); };
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateICmpEQ(ids.thread, i64(0));
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, ids.block, i64(matrices), ids.blocks, "matrix", [&](llvm::Value* matrix) -> Status {
      llvm::Value* base = b.CreateMul(matrix, i64(m * n));
      barrier();  // the last matrix's readers are done
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, ids.thread, i64(m * n), ids.threadsPerBlock, "load", [&](llvm::Value* e) {
        Num x = widen(codegen::emitLoadElement(b, inputs_[0], aType, b.CreateAdd(base, e)), aType);
        store(b.CreateUDiv(e, i64(n)), b.CreateURem(e, i64(n)), x);
        return Status::ok();
      }));
      llvm::Value* info = entryAlloca(1, b.getInt64Ty());
      b.CreateStore(i64(0), info);
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(steps), i64(1), "column", [&](llvm::Value* j) -> Status {
        barrier();
        KILN_RETURN_IF_ERROR(emitIf(b, emitter_, first, "choose", [&]() -> Status {
          llvm::Value* best = entryAlloca(1, b.getInt64Ty());
          b.CreateStore(j, best);
          KILN_RETURN_IF_ERROR(emitStridedLoop(b, b.CreateAdd(j, i64(1)), i64(m), i64(1), "search", [&](llvm::Value* i) {
            llvm::Value* p = b.CreateLoad(b.getInt64Ty(), best);
            llvm::Value* larger = b.CreateFCmpOGT(magnitude(load(i, j)), magnitude(load(p, j)));
            b.CreateStore(b.CreateSelect(larger, i, p), best);
            return Status::ok();
          }));
          llvm::Value* p = b.CreateLoad(b.getInt64Ty(), best);
          b.CreateStore(p, pivotSlot);
          llvm::Value* pivot = b.CreateAdd(p, i64(1));
          if (pivotType.bitWidth() < 64) pivot = b.CreateTrunc(pivot, b.getIntNTy(unsigned(pivotType.bitWidth())));
          codegen::emitStoreElement(b, pivot, outputs_[1], pivotType, b.CreateAdd(b.CreateMul(matrix, i64(steps)), j));
          return Status::ok();
        }));
        barrier();
        llvm::Value* p = b.CreateLoad(b.getInt64Ty(), pivotSlot);
        KILN_RETURN_IF_ERROR(emitIf(b, emitter_, b.CreateICmpNE(p, j), "swap", [&]() -> Status {
          return emitStridedLoop(b, ids.thread, i64(n), ids.threadsPerBlock, "exchange", [&](llvm::Value* k) {
            Num x = load(j, k), y = load(p, k);
            store(j, k, y);
            store(p, k, x);
            return Status::ok();
          });
        }));
        barrier();
        Num d = load(j, j);
        llvm::Value* zero = b.CreateFCmpOEQ(d.re, f64(0.0));
        if (complex) zero = b.CreateAnd(zero, b.CreateFCmpOEQ(d.im, f64(0.0)));
        llvm::Value* seen = b.CreateLoad(b.getInt64Ty(), info);
        b.CreateStore(b.CreateSelect(b.CreateAnd(zero, b.CreateICmpEQ(seen, i64(0))), b.CreateAdd(j, i64(1)), seen), info);
        return emitIf(b, emitter_, b.CreateNot(zero), "eliminate", [&]() -> Status {
          return emitStridedLoop(b, b.CreateAdd(b.CreateAdd(j, i64(1)), ids.thread), i64(m), ids.threadsPerBlock, "below",
                                 [&](llvm::Value* i) -> Status {
            Num x = load(i, j);
            Num factor = complex ? divide(x, d) : Num{b.CreateFDiv(x.re, d.re), nullptr};
            store(i, j, factor);
            return emitStridedLoop(b, b.CreateAdd(j, i64(1)), i64(n), i64(1), "update", [&](llvm::Value* k) {
              store(i, k, sub(load(i, k), mul(load(j, k), factor)));
              return Status::ok();
            });
          });
        });
      }));
      barrier();
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, ids.thread, i64(m * n), ids.threadsPerBlock, "write", [&](llvm::Value* e) {
        Num x = load(b.CreateUDiv(e, i64(n)), b.CreateURem(e, i64(n)));
        codegen::emitStoreElement(b, narrow(x, rType), outputs_[0], rType, b.CreateAdd(base, e));
        return Status::ok();
      }));
      return emitIf(b, emitter_, first, "info", [&]() -> Status {
        llvm::Value* value = b.CreateLoad(b.getInt64Ty(), info);
        if (infoType.bitWidth() < 64) value = b.CreateTrunc(value, b.getIntNTy(unsigned(infoType.bitWidth())));
        codegen::emitStoreElement(b, value, outputs_[2], infoType, matrix);
        return Status::ok();
      });
    });
  }

  // Householder QR (lapack_?geqrf_ffi) and the product of its reflectors
  // (lapack_?orgqr_ffi), real: a block per matrix (blocks loop over
  // matrices), the m x n matrix being transformed row-major in shared
  // memory in double, as the interpreter's householderQr and
  // householderProduct (kiln/interp/decompositions.cpp). geqrf, for each
  // column i < min(m, n): thread 0 makes the reflector as LAPACK's dlarfg
  // (the norm below the diagonal by hypot, one element at a time; beta,
  // tau, the vector scaled in place) and records tau; then the threads
  // stride over the columns j > i, each applying the reflector to its
  // column in the interpreter's order (w = x(i, j) + sum of v(r) x(r, j),
  // times tau, subtracted). orgqr: Q starts as the identity's first n
  // columns, and the reflectors (read from the operand) are applied from
  // the last to the first, the threads striding over Q's columns. A
  // barrier after each step. hypot is libdevice's (__nv_hypot), the
  // interpreter's the C library's: within rounding, not bitwise, on a
  // device.
  Status emitHouseholder(bool product) {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    const Value* a = op.operand(0);
    Type aType = a->type().elementType(), rType = op.result(0)->type().elementType();
    std::span<const int64_t> shape = a->type().shape();
    int64_t m = shape[shape.size() - 2], n = shape.back();
    int64_t k = product ? op.operand(1)->type().shape().back() : std::min(m, n);
    Type tauType = product ? op.operand(1)->type().elementType() : op.result(1)->type().elementType();
    int64_t matrices = m * n == 0 ? 0 : a->type().numElements() / (m * n);
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto* matrixType = llvm::ArrayType::get(b.getDoubleTy(), uint64_t(std::max<int64_t>(1, m * n)));
    auto* x = new llvm::GlobalVariable(m_, matrixType, false, llvm::GlobalValue::InternalLinkage,
                                       llvm::UndefValue::get(matrixType), "matrix", nullptr,
                                       llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto* tauSlot = new llvm::GlobalVariable(m_, b.getDoubleTy(), false, llvm::GlobalValue::InternalLinkage,
                                             llvm::UndefValue::get(b.getDoubleTy()), "tau", nullptr,
                                             llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto at = [&](llvm::Value* r, llvm::Value* c) {
      return b.CreateInBoundsGEP(matrixType, x, {i64(0), b.CreateAdd(b.CreateMul(r, i64(n)), c)});
    };
    auto loadX = [&](llvm::Value* r, llvm::Value* c) { return b.CreateLoad(b.getDoubleTy(), at(r, c)); };
    auto barrier = [&] { b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); };
    llvm::FunctionCallee hypot = m_.getOrInsertFunction(
        std::string(kLibdevicePrefix) + "hypot",
        llvm::FunctionType::get(b.getDoubleTy(), {b.getDoubleTy(), b.getDoubleTy()}, false));
    ThreadIds ids = threadIds(b);
    llvm::Value* first = b.CreateICmpEQ(ids.thread, i64(0));
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, ids.block, i64(matrices), ids.blocks, "matrix", [&](llvm::Value* matrix) -> Status {
      llvm::Value* base = b.CreateMul(matrix, i64(m * n));
      // The reflectors' vectors: the shared matrix (geqrf) or the operand (orgqr).
      auto vAt = [&](llvm::Value* r, llvm::Value* c) -> llvm::Value* {
        if (!product) return loadX(r, c);
        return widen(codegen::emitLoadElement(b, inputs_[0], aType, b.CreateAdd(base, b.CreateAdd(b.CreateMul(r, i64(n)), c))), aType).re;
      };
      // x(:, j) -= tau v (v^T x(:, j)), v(top) = 1, v(r) = the reflector's column `column` below.
      auto apply = [&](llvm::Value* top, llvm::Value* tau, llvm::Value* j) -> Status {
        llvm::Value* w = entryAlloca(1);
        b.CreateStore(loadX(top, j), w);
        KILN_RETURN_IF_ERROR(emitStridedLoop(b, b.CreateAdd(top, i64(1)), i64(m), i64(1), "dot", [&](llvm::Value* r) {
          b.CreateStore(b.CreateFAdd(b.CreateLoad(b.getDoubleTy(), w), b.CreateFMul(vAt(r, top), loadX(r, j))), w);
          return Status::ok();
        }));
        llvm::Value* scaled = b.CreateFMul(b.CreateLoad(b.getDoubleTy(), w), tau);
        b.CreateStore(b.CreateFSub(loadX(top, j), scaled), at(top, j));
        return emitStridedLoop(b, b.CreateAdd(top, i64(1)), i64(m), i64(1), "update", [&](llvm::Value* r) {
          b.CreateStore(b.CreateFSub(loadX(r, j), b.CreateFMul(scaled, vAt(r, top))), at(r, j));
          return Status::ok();
        });
      };
      barrier();  // the last matrix's readers are done
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, ids.thread, i64(m * n), ids.threadsPerBlock, "load", [&](llvm::Value* e) {
        llvm::Value* r = b.CreateUDiv(e, i64(n));
        llvm::Value* c = b.CreateURem(e, i64(n));
        llvm::Value* v = product ? b.CreateSelect(b.CreateICmpEQ(r, c), f64(1.0), f64(0.0))
                                 : widen(codegen::emitLoadElement(b, inputs_[0], aType, b.CreateAdd(base, e)), aType).re;
        b.CreateStore(v, at(r, c));
        return Status::ok();
      }));
      int64_t steps = product ? std::min(k, n) : k;
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(steps), i64(1), "reflector", [&](llvm::Value* s) -> Status {
        llvm::Value* i = product ? b.CreateSub(i64(steps - 1), s) : s;
        barrier();
        if (product) {
          llvm::Value* tau = widen(codegen::emitLoadElement(b, inputs_[1], tauType, b.CreateAdd(b.CreateMul(matrix, i64(k)), i)), tauType).re;
          return emitIf(b, emitter_, b.CreateFCmpUNE(tau, f64(0.0)), "reflect", [&]() -> Status {
            return emitStridedLoop(b, ids.thread, i64(n), ids.threadsPerBlock, "column",
                                   [&](llvm::Value* j) { return apply(i, tau, j); });
          });
        }
        KILN_RETURN_IF_ERROR(emitIf(b, emitter_, first, "make", [&]() -> Status {
          llvm::Value* alpha = loadX(i, i);
          llvm::Value* norm = entryAlloca(1);
          b.CreateStore(f64(0.0), norm);
          KILN_RETURN_IF_ERROR(emitStridedLoop(b, b.CreateAdd(i, i64(1)), i64(m), i64(1), "norm", [&](llvm::Value* r) {
            b.CreateStore(b.CreateCall(hypot, {b.CreateLoad(b.getDoubleTy(), norm), loadX(r, i)}), norm);
            return Status::ok();
          }));
          llvm::Value* nrm = b.CreateLoad(b.getDoubleTy(), norm);
          llvm::Value* tau = entryAlloca(1);
          b.CreateStore(f64(0.0), tau);
          KILN_RETURN_IF_ERROR(emitIf(b, emitter_, b.CreateFCmpUNE(nrm, f64(0.0)), "nonzero", [&]() -> Status {
            llvm::Value* beta = b.CreateFNeg(copySign(b.CreateCall(hypot, {alpha, nrm}), alpha));
            b.CreateStore(b.CreateFDiv(b.CreateFSub(beta, alpha), beta), tau);
            llvm::Value* scale = b.CreateFDiv(f64(1.0), b.CreateFSub(alpha, beta));
            KILN_RETURN_IF_ERROR(emitStridedLoop(b, b.CreateAdd(i, i64(1)), i64(m), i64(1), "scale", [&](llvm::Value* r) {
              b.CreateStore(b.CreateFMul(loadX(r, i), scale), at(r, i));
              return Status::ok();
            }));
            b.CreateStore(beta, at(i, i));
            return Status::ok();
          }));
          llvm::Value* t = b.CreateLoad(b.getDoubleTy(), tau);
          b.CreateStore(t, tauSlot);
          codegen::emitStoreElement(b, narrow(Num{t, nullptr}, tauType), outputs_[1], tauType,
                                    b.CreateAdd(b.CreateMul(matrix, i64(k)), i));
          return Status::ok();
        }));
        barrier();
        llvm::Value* tau = b.CreateLoad(b.getDoubleTy(), tauSlot);
        return emitIf(b, emitter_, b.CreateFCmpUNE(tau, f64(0.0)), "reflect", [&]() -> Status {
          return emitStridedLoop(b, b.CreateAdd(b.CreateAdd(i, i64(1)), ids.thread), i64(n), ids.threadsPerBlock, "column",
                                 [&](llvm::Value* j) { return apply(i, tau, j); });
        });
      }));
      barrier();
      return emitStridedLoop(b, ids.thread, i64(m * n), ids.threadsPerBlock, "write", [&](llvm::Value* e) {
        llvm::Value* v = b.CreateLoad(b.getDoubleTy(), b.CreateInBoundsGEP(matrixType, x, {i64(0), e}));
        codegen::emitStoreElement(b, narrow(Num{v, nullptr}, rType), outputs_[0], rType, b.CreateAdd(base, e));
        return Status::ok();
      });
    });
  }

  // A Cholesky factorization (stablehlo.cholesky, lapack_?potrf_ffi): a
  // block per matrix (blocks loop over matrices), L (a = L L^H, from a's
  // lower triangle or, for the upper case, the lower one of a^H) column by
  // column in shared memory in the interpreter's carrier, column-major. For
  // column j the threads stride over rows i >= j: each computes the pivot
  // sqrt(a(j, j) - sum over k < j of |L(j, k)|^2) itself (the same bits in
  // every thread), then L(i, j) = (a(i, j) - sum over k < j of L(i, k)
  // conj(L(j, k))) / pivot, the sums in ascending k as the interpreter's;
  // a barrier ends each column. Then the result: L, or U = L^H, the other
  // triangle zero (or a's own elements, `keepOther`: potrf); with two
  // results, the second is potrf's info per matrix (0, or the 1-based column
  // of the first pivot that is not positive).
  Status emitCholesky(bool lower, bool keepOther) {
    llvm::IRBuilder<>& b = b_;
    const Operation& op = *plan_.op;
    const Value* a = op.operand(0);
    Type aType = a->type().elementType(), rType = op.result(0)->type().elementType();
    int64_t n = a->type().shape().back();
    int64_t matrices = n == 0 ? 0 : a->type().numElements() / (n * n);
    bool complex = rType.isComplex();
    int64_t parts = complex ? 2 : 1;
    auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
    auto* factorType = llvm::ArrayType::get(b.getDoubleTy(), uint64_t(std::max<int64_t>(1, n * n * parts)));
    auto* factor = new llvm::GlobalVariable(m_, factorType, false, llvm::GlobalValue::InternalLinkage,
                                            llvm::UndefValue::get(factorType), "factor", nullptr,
                                            llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    auto slot = [&](llvm::Value* i, llvm::Value* k, int part) {  // L(i, k)
      llvm::Value* at = b.CreateAdd(b.CreateMul(b.CreateAdd(b.CreateMul(k, i64(n)), i), i64(parts)), i64(part));
      return b.CreateInBoundsGEP(factorType, factor, {i64(0), at});
    };
    auto loadL = [&](llvm::Value* i, llvm::Value* k) {
      Num x{b.CreateLoad(b.getDoubleTy(), slot(i, k, 0)), nullptr};
      if (complex) x.im = b.CreateLoad(b.getDoubleTy(), slot(i, k, 1));
      return x;
    };
    auto barrier = [&] { b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); };
    ThreadIds ids = threadIds(b);
    ElementalEmitter::CacheScope scope(emitter_);
    return emitStridedLoop(b, ids.block, i64(matrices), ids.blocks, "matrix", [&](llvm::Value* matrix) -> Status {
      llvm::Value* base = b.CreateMul(matrix, i64(n * n));
      auto element = [&](llvm::Value* i, llvm::Value* j) {
        return widen(codegen::emitLoadElement(b, inputs_[0], aType, b.CreateAdd(base, b.CreateAdd(b.CreateMul(i, i64(n)), j))), aType);
      };
      auto aAt = [&](llvm::Value* i, llvm::Value* j) {  // i >= j
        if (lower) return element(i, j);
        Num v = element(j, i);
        if (v.im) v.im = b.CreateFNeg(v.im);
        return v;
      };
      barrier();  // the last matrix's readers are done with the factor
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(n), i64(1), "column", [&](llvm::Value* j) -> Status {
        KILN_RETURN_IF_ERROR(emitStridedLoop(b, b.CreateAdd(j, ids.thread), i64(n), ids.threadsPerBlock, "row",
                                             [&](llvm::Value* i) -> Status {
          llvm::Value* diag = entryAlloca(1);
          b.CreateStore(aAt(j, j).re, diag);
          KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), j, i64(1), "pivot", [&](llvm::Value* k) {
            Num l = loadL(j, k);
            llvm::Value* magnitude = b.CreateFMul(l.re, l.re);
            if (complex) magnitude = b.CreateFAdd(magnitude, b.CreateFMul(l.im, l.im));
            b.CreateStore(b.CreateFSub(b.CreateLoad(b.getDoubleTy(), diag), magnitude), diag);
            return Status::ok();
          }));
          llvm::Value* pivot =
              b.CreateIntrinsic(llvm::Intrinsic::sqrt, {b.getDoubleTy()}, {b.CreateLoad(b.getDoubleTy(), diag)});
          llvm::Value* acc = entryAlloca(complex ? 2 : 1);
          storeNum(acc, aAt(i, j));
          KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), j, i64(1), "update", [&](llvm::Value* k) {
            Num c = loadL(j, k);
            if (c.im) c.im = b.CreateFNeg(c.im);
            storeNum(acc, sub(loadNum(acc, complex), mul(loadL(i, k), c)));
            return Status::ok();
          }));
          Num x = loadNum(acc, complex);
          llvm::Value* onDiagonal = b.CreateICmpEQ(i, j);
          llvm::Value* re = b.CreateSelect(onDiagonal, pivot, b.CreateFDiv(x.re, pivot));
          b.CreateStore(re, slot(i, j, 0));
          if (complex) b.CreateStore(b.CreateSelect(onDiagonal, f64(0.0), b.CreateFDiv(x.im, pivot)), slot(i, j, 1));
          return Status::ok();
        }));
        barrier();
        return Status::ok();
      }));
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, ids.thread, i64(n * n), ids.threadsPerBlock, "write", [&](llvm::Value* e) {
        llvm::Value* i = b.CreateUDiv(e, i64(n));
        llvm::Value* j = b.CreateURem(e, i64(n));
        llvm::Value* inFactor = lower ? b.CreateICmpULE(j, i) : b.CreateICmpUGE(j, i);
        // In the factor: L(i, j), or U(i, j) = conj(L(j, i)); else zero or a's.
        llvm::Value* fi = lower ? i : j;
        llvm::Value* fj = lower ? j : i;
        Num l = loadL(b.CreateSelect(inFactor, fi, i64(0)), b.CreateSelect(inFactor, fj, i64(0)));
        if (!lower && l.im) l.im = b.CreateFNeg(l.im);
        Num other = keepOther ? element(i, j) : Num{f64(0.0), complex ? f64(0.0) : nullptr};
        Num v{b.CreateSelect(inFactor, l.re, other.re), complex ? b.CreateSelect(inFactor, l.im, other.im) : nullptr};
        codegen::emitStoreElement(b, narrow(v, rType), outputs_[0], rType, b.CreateAdd(base, e));
        return Status::ok();
      }));
      if (plan_.roots.size() < 2) return Status::ok();
      Type infoType = plan_.roots[1]->type().elementType();
      return emitIf(b, emitter_, b.CreateICmpEQ(ids.thread, i64(0)), "info", [&]() -> Status {
        llvm::Value* info = entryAlloca(1, b.getInt64Ty());
        b.CreateStore(i64(0), info);
        KILN_RETURN_IF_ERROR(emitStridedLoop(b, i64(0), i64(n), i64(1), "failed", [&](llvm::Value* j) {
          llvm::Value* positive = b.CreateFCmpOGT(loadL(j, j).re, f64(0.0));
          llvm::Value* seen = b.CreateLoad(b.getInt64Ty(), info);
          llvm::Value* firstFailure = b.CreateAnd(b.CreateNot(positive), b.CreateICmpEQ(seen, i64(0)));
          b.CreateStore(b.CreateSelect(firstFailure, b.CreateAdd(j, i64(1)), seen), info);
          return Status::ok();
        }));
        llvm::Value* value = b.CreateLoad(b.getInt64Ty(), info);
        if (infoType.bitWidth() < 64) value = b.CreateTrunc(value, b.getIntNTy(unsigned(infoType.bitWidth())));
        codegen::emitStoreElement(b, value, outputs_[1], infoType, matrix);
        return Status::ok();
      });
    });
  }

 private:
  // A value in the linear-algebra kernels' carrier: double, or
  // complex<double> as two registers (im null for real values).
  struct Num {
    llvm::Value *re, *im;
  };

  llvm::Value* f64(double v) { return llvm::ConstantFP::get(b_.getDoubleTy(), v); }

  // A register value of element type `t` (a float or a complex) in the carrier.
  Num widen(llvm::Value* x, Type t) {
    auto up = [&](llvm::Value* v) { return v->getType()->isDoubleTy() ? v : b_.CreateFPExt(v, b_.getDoubleTy()); };
    if (!t.isComplex()) return {up(x), nullptr};
    return {up(b_.CreateExtractValue(x, 0)), up(b_.CreateExtractValue(x, 1))};
  }

  // The carrier value `x` as a register value of element type `t`, rounded once.
  llvm::Value* narrow(Num x, Type t) {
    auto down = [&](llvm::Value* v, Type part) -> llvm::Value* {
      if (part.kind() == TypeKind::F64) return v;
      if (part.kind() == TypeKind::F32) return b_.CreateFPTrunc(v, b_.getFloatTy());
      return codegen::emitRoundToNarrow(b_, v, part.kind());
    };
    if (!t.isComplex()) return down(x.re, t);
    llvm::Value* z = llvm::PoisonValue::get(codegen::registerType(b_.getContext(), t));
    z = b_.CreateInsertValue(z, down(x.re, t.complexElement()), 0);
    return b_.CreateInsertValue(z, down(x.im, t.complexElement()), 1);
  }

  // `count` registers of `type` (double by default) in the function's entry
  // block, which SROA makes registers again.
  llvm::Value* entryAlloca(int64_t count, llvm::Type* type = nullptr) {
    llvm::Function* fn = b_.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    return entry.CreateAlloca(type ? type : b_.getDoubleTy(), b_.getInt64(uint64_t(count)));
  }
  Num loadNum(llvm::Value* p, bool complex) {
    Num x{b_.CreateLoad(b_.getDoubleTy(), p), nullptr};
    if (complex) x.im = b_.CreateLoad(b_.getDoubleTy(), b_.CreateConstInBoundsGEP1_64(b_.getDoubleTy(), p, 1));
    return x;
  }
  void storeNum(llvm::Value* p, Num x) {
    b_.CreateStore(x.re, p);
    if (x.im) b_.CreateStore(x.im, b_.CreateConstInBoundsGEP1_64(b_.getDoubleTy(), p, 1));
  }

  // x - y and x * y as the interpreter's double and complex<double>: GCC's
  // inline complex product, (ac - bd) + (ad + bc)i, and where both parts
  // are NaN, libgcc's __muldc3 (C's Annex G: infinities recovered).
  // Compiled without contraction: no fused multiply-adds.
  Num sub(Num x, Num y) {
    return {b_.CreateFSub(x.re, y.re), x.im ? b_.CreateFSub(x.im, y.im) : nullptr};
  }
  llvm::Value* isNan(llvm::Value* v) { return b_.CreateFCmpUNO(v, v); }
  llvm::Value* isInf(llvm::Value* v) {
    return b_.CreateFCmpOEQ(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), f64(INFINITY));
  }
  llvm::Value* isFinite(llvm::Value* v) {
    return b_.CreateFCmpOLT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v), f64(INFINITY));
  }
  llvm::Value* copySign(llvm::Value* magnitude, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
  }
  // copysign(isinf(v) ? 1 : 0, v): an infinite part's direction.
  llvm::Value* boxInf(llvm::Value* v) { return copySign(b_.CreateSelect(isInf(v), f64(1.0), f64(0.0)), v); }
  // copysign(0, v) where v is NaN, else v.
  llvm::Value* zeroNan(llvm::Value* v) { return b_.CreateSelect(isNan(v), copySign(f64(0.0), v), v); }
  Num mul(Num x, Num y) {
    llvm::IRBuilder<>& b = b_;
    if (!x.im) return {b.CreateFMul(x.re, y.re), nullptr};
    llvm::Value *a = x.re, *bb = x.im, *c = y.re, *d = y.im;
    llvm::Value *ac = b.CreateFMul(a, c), *bd = b.CreateFMul(bb, d), *ad = b.CreateFMul(a, d), *bc = b.CreateFMul(bb, c);
    llvm::Value* re = b.CreateFSub(ac, bd);
    llvm::Value* im = b.CreateFAdd(ad, bc);
    // __muldc3 where both parts are NaN.
    llvm::Value* xInf = b.CreateOr(isInf(a), isInf(bb));
    llvm::Value* yInf = b.CreateOr(isInf(c), isInf(d));
    llvm::Value* a1 = b.CreateSelect(xInf, boxInf(a), a);
    llvm::Value* b1 = b.CreateSelect(xInf, boxInf(bb), bb);
    llvm::Value* c1 = b.CreateSelect(xInf, zeroNan(c), c);
    llvm::Value* d1 = b.CreateSelect(xInf, zeroNan(d), d);
    llvm::Value* c2 = b.CreateSelect(yInf, boxInf(c1), c1);
    llvm::Value* d2 = b.CreateSelect(yInf, boxInf(d1), d1);
    llvm::Value* a2 = b.CreateSelect(yInf, zeroNan(a1), a1);
    llvm::Value* b2 = b.CreateSelect(yInf, zeroNan(b1), b1);
    llvm::Value* recalc = b.CreateOr(xInf, yInf);
    llvm::Value* overflowed = b.CreateAnd(b.CreateNot(recalc), b.CreateOr(b.CreateOr(isInf(ac), isInf(bd)),
                                                                          b.CreateOr(isInf(ad), isInf(bc))));
    llvm::Value* a3 = b.CreateSelect(overflowed, zeroNan(a2), a2);
    llvm::Value* b3 = b.CreateSelect(overflowed, zeroNan(b2), b2);
    llvm::Value* c3 = b.CreateSelect(overflowed, zeroNan(c2), c2);
    llvm::Value* d3 = b.CreateSelect(overflowed, zeroNan(d2), d2);
    recalc = b.CreateAnd(b.CreateAnd(isNan(re), isNan(im)), b.CreateOr(recalc, overflowed));
    llvm::Value* reAgain = b.CreateFMul(f64(INFINITY), b.CreateFSub(b.CreateFMul(a3, c3), b.CreateFMul(b3, d3)));
    llvm::Value* imAgain = b.CreateFMul(f64(INFINITY), b.CreateFAdd(b.CreateFMul(a3, d3), b.CreateFMul(b3, c3)));
    return {b.CreateSelect(recalc, reAgain, re), b.CreateSelect(recalc, imAgain, im)};
  }

  // x / y for complex<double> as libgcc's __divdc3 (GCC 12: Smith's
  // algorithm with scaling near the ends of the range and another order
  // where the ratio is subnormal, then its recovery of infinities and
  // zeros where both parts are NaN).
  Num divide(Num x, Num y) {
    llvm::IRBuilder<>& b = b_;
    Num q = smithDivide(x, y);
    llvm::Value *a = x.re, *bb = x.im, *c = y.re, *d = y.im;
    llvm::Value* bothNan = b.CreateAnd(isNan(q.re), isNan(q.im));
    // A zero divisor of a number not all NaN: infinities.
    llvm::Value* byZero = b.CreateAnd(b.CreateAnd(b.CreateFCmpOEQ(c, f64(0.0)), b.CreateFCmpOEQ(d, f64(0.0))),
                                      b.CreateOr(b.CreateNot(isNan(a)), b.CreateNot(isNan(bb))));
    llvm::Value* inf = copySign(f64(INFINITY), c);
    Num zero{b.CreateFMul(inf, a), b.CreateFMul(inf, bb)};
    // An infinite dividend over a finite divisor.
    llvm::Value* infOverFinite = b.CreateAnd(b.CreateOr(isInf(a), isInf(bb)), b.CreateAnd(isFinite(c), isFinite(d)));
    llvm::Value *ai = boxInf(a), *bi = boxInf(bb);
    Num big{b.CreateFMul(f64(INFINITY), b.CreateFAdd(b.CreateFMul(ai, c), b.CreateFMul(bi, d))),
            b.CreateFMul(f64(INFINITY), b.CreateFSub(b.CreateFMul(bi, c), b.CreateFMul(ai, d)))};
    // A finite dividend over an infinite divisor.
    llvm::Value* finiteOverInf = b.CreateAnd(b.CreateOr(isInf(c), isInf(d)), b.CreateAnd(isFinite(a), isFinite(bb)));
    llvm::Value *ci = boxInf(c), *di = boxInf(d);
    Num small{b.CreateFMul(f64(0.0), b.CreateFAdd(b.CreateFMul(a, ci), b.CreateFMul(bb, di))),
              b.CreateFMul(f64(0.0), b.CreateFSub(b.CreateFMul(bb, ci), b.CreateFMul(a, di)))};
    auto pick = [&](llvm::Value* Num::*part) {
      llvm::Value* v = b.CreateSelect(finiteOverInf, small.*part, q.*part);
      v = b.CreateSelect(infOverFinite, big.*part, v);
      v = b.CreateSelect(byZero, zero.*part, v);
      return b.CreateSelect(bothNan, v, q.*part);
    };
    return {pick(&Num::re), pick(&Num::im)};
  }

  // __divdc3 before its recovery from NaN + NaN i.
  Num smithDivide(Num x, Num y) {
    llvm::IRBuilder<>& b = b_;
    const double rbig = std::numeric_limits<double>::max() / 2, rmin = std::numeric_limits<double>::min();
    const double rmin2 = std::numeric_limits<double>::epsilon(), rminscal = 1 / rmin2, rmax2 = rbig * rmin2;
    auto fabs = [&](llvm::Value* v) { return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v); };
    auto lt = [&](llvm::Value* v, double c) { return b.CreateFCmpOLT(fabs(v), f64(c)); };
    llvm::Value *a = x.re, *bb = x.im, *c = y.re, *d = y.im;
    llvm::Value* dBigger = b.CreateFCmpOLT(fabs(c), fabs(d));
    // The larger of |c| and |d| (p) and the other (r): Smith's roles.
    llvm::Value* p = b.CreateSelect(dBigger, d, c);
    llvm::Value* halve = b.CreateFCmpOGE(fabs(p), f64(rbig));
    auto scaleAll = [&](llvm::Value* when, llvm::Value* factor, bool divide) {
      auto one = [&](llvm::Value* v) {
        return b.CreateSelect(when, divide ? b.CreateFDiv(v, factor) : b.CreateFMul(v, factor), v);
      };
      a = one(a), bb = one(bb), c = one(c), d = one(d);
    };
    scaleAll(halve, f64(2.0), true);
    p = b.CreateSelect(dBigger, d, c);
    llvm::Value* tiny = lt(p, rmin2);
    llvm::Value* smallPart = b.CreateOr(b.CreateAnd(lt(a, rmin), b.CreateAnd(lt(bb, rmax2), lt(p, rmax2))),
                                        b.CreateAnd(lt(bb, rmin), b.CreateAnd(lt(a, rmax2), lt(p, rmax2))));
    scaleAll(b.CreateOr(tiny, smallPart), f64(rminscal), false);
    // |c| < |d|: ratio = c / d, denom = c * ratio + d.
    llvm::Value* ratio1 = b.CreateFDiv(c, d);
    llvm::Value* denom1 = b.CreateFAdd(b.CreateFMul(c, ratio1), d);
    llvm::Value* normal1 = b.CreateFCmpOGT(fabs(ratio1), f64(rmin));
    llvm::Value* x1 = b.CreateSelect(normal1, b.CreateFAdd(b.CreateFMul(a, ratio1), bb),
                                     b.CreateFAdd(b.CreateFMul(c, b.CreateFDiv(a, d)), bb));
    llvm::Value* y1 = b.CreateSelect(normal1, b.CreateFSub(b.CreateFMul(bb, ratio1), a),
                                     b.CreateFSub(b.CreateFMul(c, b.CreateFDiv(bb, d)), a));
    // Else: ratio = d / c, denom = d * ratio + c.
    llvm::Value* ratio2 = b.CreateFDiv(d, c);
    llvm::Value* denom2 = b.CreateFAdd(b.CreateFMul(d, ratio2), c);
    llvm::Value* normal2 = b.CreateFCmpOGT(fabs(ratio2), f64(rmin));
    llvm::Value* x2 = b.CreateSelect(normal2, b.CreateFAdd(b.CreateFMul(bb, ratio2), a),
                                     b.CreateFAdd(a, b.CreateFMul(d, b.CreateFDiv(bb, c))));
    llvm::Value* y2 = b.CreateSelect(normal2, b.CreateFSub(bb, b.CreateFMul(a, ratio2)),
                                     b.CreateFSub(bb, b.CreateFMul(d, b.CreateFDiv(a, c))));
    return {b.CreateFDiv(b.CreateSelect(dBigger, x1, x2), b.CreateSelect(dBigger, denom1, denom2)),
            b.CreateFDiv(b.CreateSelect(dBigger, y1, y2), b.CreateSelect(dBigger, denom1, denom2))};
  }

  // Element `index` of input k as a register value; a bf16 or f16 one's
  // bits recorded for TOTALORDER compares (ElementalEmitter::knowNarrowBits).
  llvm::Value* loadElement(size_t k, Type element, llvm::Value* index) {
    if (element.kind() != TypeKind::BF16 && element.kind() != TypeKind::F16)
      return codegen::emitLoadElement(b_, inputs_[k], element, index);
    llvm::Value* bits = b_.CreateLoad(b_.getInt16Ty(), b_.CreateGEP(b_.getInt16Ty(), inputs_[k], index));
    llvm::Value* x = codegen::emitDecodeNarrow(b_, bits, element.kind());
    emitter_.knowNarrowBits(x, bits);
    return x;
  }

  // Computes every root of `roots` at each of `indices`, then stores them
  // all: the loads of adjacent elements stay together (no store between
  // them), so LLVM's load-store vectorizer merges them into vector loads.
  Status emitElements(const std::vector<llvm::Value*>& indices, const std::vector<const Value*>& roots) {
    std::vector<std::tuple<llvm::Value*, size_t, llvm::Value*>> stores;
    for (llvm::Value* index : indices)
      for (const Value* root : roots) {
        KILN_ASSIGN_OR_RETURN(llvm::Value * value, emitter_.emit(root, index));
        stores.emplace_back(value, outputOf(root), index);
      }
    for (auto [value, k, index] : stores)
      codegen::emitStoreElement(b_, value, outputs_[k], plan_.roots[k]->type().elementType(), index);
    return Status::ok();
  }

  size_t outputOf(const Value* root) const {
    return size_t(std::find(plan_.roots.begin(), plan_.roots.end(), root) - plan_.roots.begin());
  }

  llvm::Value* combine(const BlockReduction& r, llvm::Value* x, llvm::Value* y) {
    std::array<llvm::Value*, 2> xs = {x, y};
    // The combiner is one of blockReductionOf's ops on a 32-bit register
    // type: emitElementwise takes it (checked there, so this never fails).
    Expected<llvm::Value*> combined = codegen::emitElementwise(b_, m_, gpuTargetHooks(), *r.combiner, xs);
    return combined ? *combined : nullptr;
  }

  // The compare-and-swap loop on `slot` (bits of `bitsType`, `align`ed):
  // read what is there, compute what replaces it (`next` of what was seen),
  // swap that in if nobody changed the slot meanwhile, else again from what
  // is there now.
  Status emitSwapLoop(llvm::Value* slot, llvm::Type* bitsType, llvm::Align align,
                      const std::function<Expected<llvm::Value*>(llvm::Value*)>& next) {
    llvm::IRBuilder<>& b = b_;
    llvm::LoadInst* initial = b.CreateAlignedLoad(bitsType, slot, align, /*isVolatile=*/true);
    llvm::BasicBlock* before = b.GetInsertBlock();
    llvm::Function* fn = before->getParent();
    auto* retry = llvm::BasicBlock::Create(b.getContext(), "swap", fn);
    auto* done = llvm::BasicBlock::Create(b.getContext(), "swap.done", fn);
    b.CreateBr(retry);
    b.SetInsertPoint(retry);
    llvm::PHINode* seen = b.CreatePHI(bitsType, 2, "seen");
    seen->addIncoming(initial, before);
    KILN_ASSIGN_OR_RETURN(llvm::Value * replacement, next(seen));
    llvm::Value* swapped = b.CreateAtomicCmpXchg(slot, seen, replacement, align, llvm::AtomicOrdering::Monotonic,
                                                 llvm::AtomicOrdering::Monotonic);
    seen->addIncoming(b.CreateExtractValue(swapped, 0), b.GetInsertBlock());
    b.CreateCondBr(b.CreateExtractValue(swapped, 1), done, retry);
    b.SetInsertPoint(done);
    return Status::ok();
  }

  // *slot = body(*slot, value) atomically, the scatter's body applied to the
  // element's bits as seen.
  Status emitCompareAndSwap(llvm::Value* slot, llvm::Type* type, llvm::Value* value) {
    llvm::IRBuilder<>& b = b_;
    llvm::Type* bitsType = b.getIntNTy(type->getPrimitiveSizeInBits());
    return emitSwapLoop(slot, bitsType, llvm::Align(type->getPrimitiveSizeInBits() / 8),
                        [&](llvm::Value* seen) -> Expected<llvm::Value*> {
                          std::array<llvm::Value*, 2> xs = {b.CreateBitCast(seen, type), value};
                          KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined,
                                                emitter_.emitScalarBody(*plan_.op, xs));
                          return b.CreateBitCast(combined[0], bitsType);
                        });
  }

  // The same for an element of 8 or 16 bits (there is no narrower
  // compare-and-swap): the swap is of the aligned 32-bit word holding it
  // (inside the buffer: slots are 64-byte aligned and sized), the element
  // decoded from and encoded into its bits through a register-sized slot of
  // its own (SROA makes it registers).
  Status emitCompareAndSwapWithin32Bits(Type element, llvm::Value* index, llvm::Value* value) {
    llvm::IRBuilder<>& b = b_;
    llvm::Type* word = b.getInt32Ty();
    unsigned bits = element.storageBytes() * 8;
    llvm::Type* elementBits = b.getIntNTy(bits);
    llvm::Value* slot = b.CreateInBoundsGEP(elementBits, outputs_[0], index);
    llvm::Value* address = b.CreatePtrToInt(slot, b.getInt64Ty());
    llvm::Value* byteInWord = b.CreateAnd(address, b.getInt64(3));
    // (a GEP back, not inttoptr, so that NVPTX still knows it is global memory)
    llvm::Value* wordSlot = b.CreateGEP(b.getInt8Ty(), slot, b.CreateNeg(byteInWord));
    llvm::Value* shift = b.CreateTrunc(b.CreateShl(byteInWord, b.getInt64(3)), word);
    llvm::Value* keep = b.CreateNot(b.CreateShl(b.getInt32((uint64_t(1) << bits) - 1), shift));
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* scratch = entry.CreateAlloca(elementBits, nullptr, "element.bits");
    return emitSwapLoop(wordSlot, word, llvm::Align(4), [&](llvm::Value* seen) -> Expected<llvm::Value*> {
      b.CreateStore(b.CreateTrunc(b.CreateLShr(seen, shift), elementBits), scratch);
      std::array<llvm::Value*, 2> xs = {codegen::emitLoadElement(b, scratch, element, b.getInt64(0)), value};
      KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined, emitter_.emitScalarBody(*plan_.op, xs));
      codegen::emitStoreElement(b, combined[0], scratch, element, b.getInt64(0));
      llvm::Value* placed = b.CreateShl(b.CreateZExt(b.CreateLoad(elementBits, scratch), word), shift);
      return b.CreateOr(b.CreateAnd(seen, keep), placed);
    });
  }

  // x combined over the 32 lanes of each warp (butterfly shuffles: every
  // lane ends with the warp's total).
  llvm::Value* emitWarpReduction(const BlockReduction& r, llvm::Value* x) {
    llvm::Intrinsic::ID shuffle = x->getType()->isFloatTy() ? llvm::Intrinsic::nvvm_shfl_sync_bfly_f32
                                                            : llvm::Intrinsic::nvvm_shfl_sync_bfly_i32;
    for (int lanes = kWarp / 2; lanes >= 1; lanes /= 2) {
      llvm::Value* other = b_.CreateIntrinsic(shuffle, {}, {b_.getInt32(0xffffffff), x, b_.getInt32(lanes), b_.getInt32(31)});
      x = combine(r, x, other);
    }
    return x;
  }

  // Which threads work on which rows and columns.
  struct RowThreads {
    llvm::Value *rowFirst, *rowStep;        // this thread's first row, and the step to its next
    llvm::Value *columnFirst, *columnStep;  // its first column of a row, and the step to its next
    bool warpPerRow;
  };

  RowThreads rowThreads(const ThreadIds& ids, bool warpPerRow) {
    llvm::IRBuilder<>& b = b_;
    if (!warpPerRow) return {ids.block, ids.blocks, ids.thread, ids.threadsPerBlock, false};
    llvm::Value* warpsPerBlock = b.CreateLShr(ids.threadsPerBlock, b.getInt64(5));
    llvm::Value* warp = b.CreateLShr(ids.thread, b.getInt64(5));
    return {b.CreateAdd(b.CreateMul(ids.block, warpsPerBlock), warp), b.CreateMul(ids.blocks, warpsPerBlock),
            b.CreateAnd(ids.thread, b.getInt64(kWarp - 1)), b.getInt64(kWarp), true};
  }

  // The reduce of `row`, in a register of every thread working on it: each
  // thread folds the row's elements it strides over (the input computed by
  // the elemental emitter), the warps combine theirs by shuffles; with a
  // block per row, lane 0 of each warp writes its warp's total to shared
  // memory and every warp combines those. The init value is folded in last,
  // once.
  Expected<llvm::Value*> emitBlockReduction(const BlockReduction& r, const ThreadIds& ids, const RowThreads& threads,
                                            llvm::Value* row) {
    llvm::IRBuilder<>& b = b_;
    Type element = r.reduce->result()->type().elementType();
    llvm::Type* type = codegen::registerType(b.getContext(), element);
    llvm::Constant* identity = identityOf(*r.combiner, element, type);
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* acc = entry.CreateAlloca(type, nullptr, "partial");  // promoted to a register by SROA
    b.CreateStore(identity, acc);
    {
      ElementalEmitter::CacheScope scope(emitter_);
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, threads.columnFirst, b.getInt64(r.perRow), threads.columnStep, "fold",
                                           [&](llvm::Value* column) -> Status {
        llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(r.perRow)), column);
        emitter_.knowSplit(index, row, column, r.perRow);
        KILN_ASSIGN_OR_RETURN(llvm::Value * folded, emitter_.emitFoldStep(*r.reduce, b.CreateLoad(type, acc), index));
        b.CreateStore(folded, acc);
        return Status::ok();
      }));
    }
    llvm::Value* warpTotal = emitWarpReduction(r, b.CreateLoad(type, acc));
    if (!warpTotal) return unsupported(*r.reduce, "with this body");
    KILN_ASSIGN_OR_RETURN(llvm::Value * init, emitter_.emit(r.reduce->operand(1), b.getInt64(0)));
    if (threads.warpPerRow) return combine(r, init, warpTotal);

    auto* warpsType = llvm::ArrayType::get(type, kWarp);
    auto* warps = new llvm::GlobalVariable(m_, warpsType, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                           llvm::UndefValue::get(warpsType), "warp_totals." + std::to_string(blockReductions_++),
                                           nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    sharedWords_ += 1;
    llvm::Value* lane = b.CreateAnd(ids.thread, b.getInt64(kWarp - 1));
    llvm::Value* warp = b.CreateLShr(ids.thread, b.getInt64(5));
    auto slot = [&](llvm::Value* i) { return b.CreateInBoundsGEP(warpsType, warps, {b.getInt64(0), i}); };
    b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});  // the last row's readers are done with it
    KILN_RETURN_IF_ERROR(emitIf(b, emitter_, b.CreateICmpEQ(lane, b.getInt64(0)), "warp.total", [&] {
      b.CreateStore(warpTotal, slot(warp));
      return Status::ok();
    }));
    b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
    llvm::Value* numWarps = b.CreateLShr(ids.threadsPerBlock, b.getInt64(5));
    llvm::Value* mine = b.CreateSelect(b.CreateICmpULT(lane, numWarps), b.CreateLoad(type, slot(lane)), identity);
    return combine(r, init, emitWarpReduction(r, mine));
  }

  // A partial of a complex reduction: its value, and whether it holds any
  // element (a lane past the row's end holds none; (1, 0) is no identity of
  // a complex product where infinities or signed zeros meet it).
  struct ComplexPartial {
    llvm::Value* value;
    llvm::Value* any;  // i1
  };

  // x and y combined by the reduce's body (x first), or the one holding
  // elements; either way per part, by selects.
  Expected<ComplexPartial> mergePartials(const BlockReduction& r, ComplexPartial x, ComplexPartial y) {
    llvm::IRBuilder<>& b = b_;
    std::array<llvm::Value*, 2> xs = {x.value, y.value};
    KILN_ASSIGN_OR_RETURN(std::vector<llvm::Value*> both, emitter_.emitScalarBody(*r.reduce, xs));
    llvm::Value* merged = both[0];
    for (unsigned part = 0; part < 2; ++part) {
      llvm::Value* v = b.CreateSelect(x.any, b.CreateSelect(y.any, b.CreateExtractValue(both[0], part),
                                                            b.CreateExtractValue(x.value, part)),
                                      b.CreateExtractValue(y.value, part));
      merged = b.CreateInsertValue(merged, v, part);
    }
    return ComplexPartial{merged, b.CreateOr(x.any, y.any)};
  }

  // A float or double from lane (this lane xor `lanes`) of the warp: a
  // double as two 32-bit shuffles of its bits.
  llvm::Value* shuffleBits(llvm::Value* x, int lanes) {
    llvm::IRBuilder<>& b = b_;
    auto shuffle = [&](llvm::Intrinsic::ID id, llvm::Value* v) {
      return b.CreateIntrinsic(id, {}, {b.getInt32(0xffffffff), v, b.getInt32(lanes), b.getInt32(31)});
    };
    if (x->getType()->isFloatTy()) return shuffle(llvm::Intrinsic::nvvm_shfl_sync_bfly_f32, x);
    if (x->getType()->isIntegerTy(32)) return shuffle(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, x);
    llvm::Value* bits = b.CreateBitCast(x, b.getInt64Ty());
    llvm::Value* low = shuffle(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, b.CreateTrunc(bits, b.getInt32Ty()));
    llvm::Value* high = shuffle(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32,
                                b.CreateTrunc(b.CreateLShr(bits, b.getInt64(32)), b.getInt32Ty()));
    llvm::Value* joined = b.CreateOr(b.CreateZExt(low, b.getInt64Ty()),
                                     b.CreateShl(b.CreateZExt(high, b.getInt64Ty()), b.getInt64(32)));
    return b.CreateBitCast(joined, x->getType());
  }

  // p combined over the 32 lanes of each warp (butterfly shuffles of both
  // parts and of the flag: every lane ends with the warp's total).
  Expected<ComplexPartial> emitComplexWarpReduction(const BlockReduction& r, ComplexPartial p) {
    llvm::IRBuilder<>& b = b_;
    for (int lanes = kWarp / 2; lanes >= 1; lanes /= 2) {
      llvm::Value* other = llvm::UndefValue::get(p.value->getType());
      for (unsigned part = 0; part < 2; ++part)
        other = b.CreateInsertValue(other, shuffleBits(b.CreateExtractValue(p.value, part), lanes), part);
      llvm::Value* otherAny = b.CreateTrunc(shuffleBits(b.CreateZExt(p.any, b.getInt32Ty()), lanes), b.getInt1Ty());
      KILN_ASSIGN_OR_RETURN(p, mergePartials(r, p, ComplexPartial{other, otherAny}));
    }
    return p;
  }

  // A complex reduce of `row` as emitBlockReduction's real ones: each
  // thread folds the row's elements it strides over (the reduce's body,
  // the partial first, in ascending order), the lanes of each warp combine
  // theirs by butterfly shuffles; with a block per row, lane 0 of each warp
  // writes its warp's total to shared memory and every warp combines those
  // (warp w holds elements where its first thread, 32 w, is inside the
  // row). The init value is combined last, first operand. The order of the
  // products differs from the interpreter's serial fold: within rounding.
  Expected<llvm::Value*> emitComplexBlockReduction(const BlockReduction& r, const ThreadIds& ids,
                                                   const RowThreads& threads, llvm::Value* row) {
    llvm::IRBuilder<>& b = b_;
    Type element = r.reduce->result()->type().elementType();
    llvm::Type* type = codegen::registerType(b.getContext(), element);
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
    llvm::AllocaInst* acc = entry.CreateAlloca(type, nullptr, "partial");  // promoted to registers by SROA
    llvm::AllocaInst* any = entry.CreateAlloca(b.getInt1Ty(), nullptr, "partial.any");
    b.CreateStore(llvm::Constant::getNullValue(type), acc);
    b.CreateStore(b.getFalse(), any);
    {
      ElementalEmitter::CacheScope scope(emitter_);
      KILN_RETURN_IF_ERROR(emitStridedLoop(b, threads.columnFirst, b.getInt64(r.perRow), threads.columnStep, "fold",
                                           [&](llvm::Value* column) -> Status {
        llvm::Value* index = b.CreateAdd(b.CreateMul(row, b.getInt64(r.perRow)), column);
        emitter_.knowSplit(index, row, column, r.perRow);
        KILN_ASSIGN_OR_RETURN(llvm::Value * x, emitter_.emit(r.reduce->operand(0), index));
        KILN_ASSIGN_OR_RETURN(ComplexPartial folded, mergePartials(r, {b.CreateLoad(type, acc), b.CreateLoad(b.getInt1Ty(), any)},
                                                                   {x, b.getTrue()}));
        b.CreateStore(folded.value, acc);
        b.CreateStore(b.getTrue(), any);
        return Status::ok();
      }));
    }
    KILN_ASSIGN_OR_RETURN(ComplexPartial warpTotal,
                          emitComplexWarpReduction(r, {b.CreateLoad(type, acc), b.CreateLoad(b.getInt1Ty(), any)}));
    KILN_ASSIGN_OR_RETURN(llvm::Value * init, emitter_.emit(r.reduce->operand(1), b.getInt64(0)));
    if (threads.warpPerRow) {
      KILN_ASSIGN_OR_RETURN(ComplexPartial total, mergePartials(r, {init, b.getTrue()}, warpTotal));
      return total.value;
    }

    auto* warpsType = llvm::ArrayType::get(type, kWarp);
    auto* warps = new llvm::GlobalVariable(m_, warpsType, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                           llvm::UndefValue::get(warpsType), "warp_totals." + std::to_string(blockReductions_++),
                                           nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    sharedWords_ += int64_t(element.storageBytes() / 4);
    llvm::Value* lane = b.CreateAnd(ids.thread, b.getInt64(kWarp - 1));
    llvm::Value* warp = b.CreateLShr(ids.thread, b.getInt64(5));
    auto slot = [&](llvm::Value* i) { return b.CreateInBoundsGEP(warpsType, warps, {b.getInt64(0), i}); };
    b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});  // the last row's readers are done with it
    KILN_RETURN_IF_ERROR(emitIf(b, emitter_, b.CreateICmpEQ(lane, b.getInt64(0)), "warp.total", [&] {
      b.CreateStore(warpTotal.value, slot(warp));
      return Status::ok();
    }));
    b.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
    llvm::Value* numWarps = b.CreateLShr(ids.threadsPerBlock, b.getInt64(5));
    llvm::Value* held = b.CreateAnd(b.CreateICmpULT(lane, numWarps),
                                    b.CreateICmpULT(b.CreateMul(lane, b.getInt64(kWarp)), b.getInt64(r.perRow)));
    KILN_ASSIGN_OR_RETURN(ComplexPartial blockTotal, emitComplexWarpReduction(r, {b.CreateLoad(type, slot(lane)), held}));
    KILN_ASSIGN_OR_RETURN(ComplexPartial total, mergePartials(r, {init, b.getTrue()}, blockTotal));
    return total.value;
  }

  const GpuKernelPlan& plan_;
  llvm::Module& m_;
  llvm::IRBuilder<>& b_;
  ElementalEmitter& emitter_;
  std::vector<llvm::Value*> inputs_;  // params[i]'s buffer
  std::vector<llvm::Value*> outputs_;
  int64_t blockReductions_ = 0;
  int64_t sharedWords_ = 0;
};

// frem as libdevice's fmod: NVPTX would expand it to x - trunc(x / y) * y,
// which is not C's exact fmod (the interpreter's).
void fremAsFmod(llvm::Function& fn) {
  std::vector<llvm::Instruction*> frems;
  for (llvm::Instruction& inst : llvm::instructions(fn))
    if (inst.getOpcode() == llvm::Instruction::FRem && (inst.getType()->isFloatTy() || inst.getType()->isDoubleTy()))
      frems.push_back(&inst);
  for (llvm::Instruction* frem : frems) {
    llvm::Type* type = frem->getType();
    llvm::FunctionCallee fmod = fn.getParent()->getOrInsertFunction(
        std::string(kLibdevicePrefix) + (type->isFloatTy() ? "fmodf" : "fmod"), type, type, type);
    llvm::IRBuilder<> b(frem);
    frem->replaceAllUsesWith(b.CreateCall(fmod, {frem->getOperand(0), frem->getOperand(1)}));
    frem->eraseFromParent();
  }
}

// What a device cannot run: a call of a function that is neither an
// intrinsic nor libdevice's (C's complex sqrt, see gpu_target_hooks.h), a
// libdevice call where no libdevice is installed, or a remaining frem.
Status checkDeviceCompilable(const llvm::Function& fn, const Operation& op) {
  for (const llvm::Instruction& inst : llvm::instructions(fn)) {
    if (inst.getOpcode() == llvm::Instruction::FRem)
      return unsupported(op, "with a float remainder outside f32 and f64 (NVPTX's frem is not an exact fmod)");
    const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst);
    const llvm::Function* callee = call ? call->getCalledFunction() : nullptr;
    if (!callee || callee->isIntrinsic()) continue;
    std::string name = callee->getName().str();
    if (!callee->getName().starts_with(kLibdevicePrefix))
      return unsupported(op, "calling the C library's " + name + " (libdevice has no such function)");
    if (Expected<std::string> libdevice = findLibdevice(); !libdevice)
      return unsupported(op, "calling libdevice's " + name + ": " + libdevice.status().diag().message);
  }
  return Status::ok();
}

// Whether `plan` computes a dot or a convolution (contraction.h): one its
// roots are computed from, not through a parameter (an epilogue kernel
// after a cuBLASLt matmul holds the dot, but reads its product).
bool computesContraction(const GpuKernelPlan& plan) {
  std::set<const Value*> seen(plan.params.begin(), plan.params.end());
  std::vector<const Value*> work(plan.roots.begin(), plan.roots.end());
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    const Operation* op = v->definingOp();
    if (!op) continue;
    if (isContraction(*op)) return true;
    for (const Value* operand : op->operands()) work.push_back(operand);
  }
  return false;
}

// Whether computing an element of `plan` folds many inputs (a reduce or a
// reduce_window in the kernel body, a dot or a convolution).
bool foldsPerElement(const GpuKernelPlan& plan) {
  if (computesContraction(plan)) return true;
  auto folds = [](const Operation& op) { return op.name() == "stablehlo.reduce" || op.name() == "stablehlo.reduce_window"; };
  if (plan.op->name() != "kiln.fusion") return folds(*plan.op);
  const Block& body = plan.op->region(0).front();
  return std::any_of(body.begin(), body.end(), folds);
}

// What a sort kernel sorts: rows of `length` along `dimension`, each
// ordered as `padded` positions (the next power of two).
struct SortRows {
  int64_t dimension = 0, length = 0, padded = 1, rows = 0;
};

// The rows of sort `plan` (its params are the sort's operands, in order),
// or why the cuda back end does not sort them.
Expected<SortRows> sortRowsOf(const GpuKernelPlan& plan, llvm::LLVMContext& ctx) {
  const Operation& op = *plan.op;
  if (plan.params.size() != op.numOperands() || plan.roots.size() != op.numResults() || op.numOperands() == 0)
    return unsupported(op, "with these operands");
  for (const Value* operand : op.operands()) {
    Type element = operand->type().elementType();
    if (!operand->type().isTensor() || !codegen::registerType(ctx, element))
      return unsupported(op, "of " + operand->type().str());
  }
  SortRows rows;
  std::span<const int64_t> shape = op.operand(0)->type().shape();
  Attribute dimension = op.attr("dimension");
  rows.dimension = dimension ? dimension.intValue() : -1;
  if (rows.dimension < 0) rows.dimension += int64_t(shape.size());
  if (rows.dimension < 0 || rows.dimension >= int64_t(shape.size())) return unsupported(op, "along this dimension");
  rows.length = shape[size_t(rows.dimension)];
  if (rows.length > kSortRowMax)
    return unsupported(op, "along rows of " + std::to_string(rows.length) + " elements (at most " +
                               std::to_string(kSortRowMax) + " are sorted in shared memory)");
  rows.padded = int64_t(std::bit_ceil(uint64_t(std::max<int64_t>(rows.length, 1))));
  rows.rows = rows.length == 0 ? 0 : op.operand(0)->type().numElements() / rows.length;
  return rows;
}

}  // namespace

bool isRoutineKernelOp(const Operation& op) {
  std::string_view routine = interp::lapackRoutineOf(op);
  return op.name() == "stablehlo.triangular_solve" || op.name() == "stablehlo.cholesky" || routine == "trsm" ||
         routine == "potrf" || routine == "getrf" || routine == "geqrf" || routine == "orgqr";
}

namespace {

// The linear-algebra routines the cuda back end runs as kernels.
enum class Routine { None, TriangularSolve, Cholesky, LuFactor, Qr, QrProduct };

Routine routineOf(const Operation& op) {
  if (op.name() == "stablehlo.triangular_solve") return Routine::TriangularSolve;
  if (op.name() == "stablehlo.cholesky") return Routine::Cholesky;
  std::string_view target = interp::lapackRoutineOf(op);
  if (target == "trsm") return Routine::TriangularSolve;
  if (target == "potrf") return Routine::Cholesky;
  if (target == "getrf") return Routine::LuFactor;
  if (target == "geqrf") return Routine::Qr;
  if (target == "orgqr") return Routine::QrProduct;
  return Routine::None;
}

// Why the cuda back end does not run routine `op` (its operands and
// results), if it does not: batches of float or complex matrices of one
// element type, square where they must be, and shared memory enough.
std::optional<std::string> routineProblem(const Operation& op, Routine routine) {
  bool custom = op.name() == "stablehlo.custom_call";
  size_t operands = routine == Routine::TriangularSolve || routine == Routine::QrProduct ? 2 : 1;
  size_t results = routine == Routine::LuFactor ? 3 : (routine == Routine::Cholesky && custom) || routine == Routine::Qr ? 2 : 1;
  if (op.numOperands() != operands || op.numResults() != results) return "in this form";
  for (unsigned i = 0; i < op.numOperands(); ++i)
    if (!op.operand(i)->type().isTensor()) return "in this form";
  Type a = op.operand(0)->type(), r = op.result(0)->type();
  if (routine == Routine::Qr || routine == Routine::QrProduct) {
    if (!r.isTensor() || r != a || a.rank() < 2 || !a.elementType().isFloat())
      return "on " + a.str() + " -> " + r.str() + " (real matrices: the interpreter's QR is real)";
    int64_t rows = a.shape()[a.rank() - 2], cols = a.shape().back();
    int64_t matrices = rows * cols == 0 ? 0 : a.numElements() / (rows * cols);
    Type tau = routine == Routine::Qr ? op.result(1)->type() : op.operand(1)->type();
    if (!tau.isTensor() || !tau.elementType().isFloat() || tau.rank() < 1 ||
        (routine == Routine::Qr && tau.numElements() != matrices * std::min(rows, cols)) ||
        (routine == Routine::QrProduct && tau.numElements() != matrices * tau.shape().back()))
      return "with a tau of " + tau.str();
    if (rows * cols * 8 + 8 > kLinalgSharedBytes)
      return "of " + std::to_string(rows) + " x " + std::to_string(cols) + " matrices (the matrix, in double, must fit in " +
             std::to_string(kLinalgSharedBytes / 1024) + " KiB of shared memory)";
    return std::nullopt;
  }
  if (routine == Routine::LuFactor) {
    if (!r.isTensor() || r != a || a.rank() < 2 || !(a.elementType().isFloat() || a.elementType().isComplex()))
      return "on " + a.str() + " -> " + r.str();
    int64_t rows = a.shape()[a.rank() - 2], cols = a.shape().back();
    int64_t matrices = rows * cols == 0 ? 0 : a.numElements() / (rows * cols);
    for (unsigned k = 1; k < 3; ++k) {
      Type t = op.result(k)->type();
      if (!t.isTensor() || !t.elementType().isInteger() ||
          t.numElements() != matrices * (k == 1 ? std::min(rows, cols) : 1))
        return "with a " + std::string(k == 1 ? "pivots" : "info") + " result of " + t.str();
    }
    int64_t carrier = a.elementType().isComplex() ? 16 : 8;
    if (rows * cols * carrier + 8 > kLinalgSharedBytes)
      return "of " + std::to_string(rows) + " x " + std::to_string(cols) + " matrices (the matrix, in double, must fit in " +
             std::to_string(kLinalgSharedBytes / 1024) + " KiB of shared memory)";
    return std::nullopt;
  }
  if (!r.isTensor() || a.rank() < 2 || a.shape()[a.rank() - 1] != a.shape()[a.rank() - 2])
    return "of matrices that are not square";
  Type e = r.elementType();
  bool complex = e.isComplex();
  if (!(e.isFloat() || complex) || a.elementType() != e) return "on " + a.str() + " -> " + r.str();
  int64_t m = a.shape().back(), carrier = complex ? 16 : 8;
  if (routine == Routine::TriangularSolve) {
    Type bt = op.operand(1)->type();
    bool left = interp::triangularSolveSpecOf(op).leftSide;
    if (bt != r || bt.rank() != a.rank() || bt.shape()[bt.rank() - (left ? 2 : 1)] != m ||
        !std::equal(a.shape().begin(), a.shape().end() - 2, bt.shape().begin()))
      return "with a and b that do not match";
    if (m * carrier > kLinalgSharedBytes)
      return "of order " + std::to_string(m) + " (a system's unknowns, in double, must fit in " +
             std::to_string(kLinalgSharedBytes / 1024) + " KiB of shared memory: order " +
             std::to_string(kLinalgSharedBytes / carrier) + " at most)";
    return std::nullopt;
  }
  if (r != a) return "on " + a.str() + " -> " + r.str();
  if (results == 2 && !(op.result(1)->type().isTensor() && op.result(1)->type().elementType().isInteger() &&
                        op.result(1)->type().numElements() * m * m == a.numElements()))
    return "with an info result of " + op.result(1)->type().str();
  if (m * m * carrier > kLinalgSharedBytes)
    return "of order " + std::to_string(m) + " (the factor, in double, must fit in " +
           std::to_string(kLinalgSharedBytes / 1024) + " KiB of shared memory: order " +
           std::to_string(int64_t(std::sqrt(double(kLinalgSharedBytes / carrier)))) + " at most)";
  return std::nullopt;
}

// Marks `fn` a kernel entry (.entry) of at most `threads` threads per block.
void markKernel(llvm::Function* fn, int64_t threads) {
  llvm::Module& m = *fn->getParent();
  llvm::LLVMContext& ctx = m.getContext();
  fn->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::NamedMDNode* annotations = m.getOrInsertNamedMetadata("nvvm.annotations");
  auto annotate = [&](const char* key, int64_t value) {
    llvm::Metadata* parts[] = {llvm::ValueAsMetadata::get(fn), llvm::MDString::get(ctx, key),
                               llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), value))};
    annotations->addOperand(llvm::MDNode::get(ctx, parts));
  };
  annotate("kernel", 1);
  annotate("maxntidx", threads);
}

}  // namespace

const char* shapeName(KernelShape shape) {
  switch (shape) {
    case KernelShape::Loop: return "loop";
    case KernelShape::RowReduce: return "row_reduce";
    case KernelShape::Transpose: return "transpose";
    case KernelShape::Gather: return "gather";
    case KernelShape::Scatter: return "scatter";
    case KernelShape::Sort: return "sort";
    case KernelShape::SelectScatter: return "select_scatter";
    case KernelShape::Contract: return "contract";
    case KernelShape::Random: return "random";
    case KernelShape::TriangularSolve: return "triangular_solve";
    case KernelShape::Cholesky: return "cholesky";
    case KernelShape::LuFactor: return "lu";
    case KernelShape::Householder: return "householder";
  }
  return "?";
}

Expected<EmittedKernel> emitKernel(const GpuKernelPlan& plan, const std::string& name, llvm::Module& m) {
  const Operation& op = *plan.op;
  if (plan.roots.empty()) return unsupported(op, "without results");
  int64_t count = 0;
  for (const Value* root : plan.roots) {
    if (!root->type().isTensor()) return unsupported(op, "with a result of type " + root->type().str());
    count = std::max(count, root->type().numElements());
  }
  // Gather, the updates of a scatter (whose copy of the operand into the
  // result before is a loop kernel) and sort have their own thread
  // structures.
  bool indexed = op.name() == "stablehlo.gather" ||
                 (op.name() == "stablehlo.scatter" && plan.roots.size() == 1 && plan.roots[0] == op.result(0));
  bool sorting = op.name() == "stablehlo.sort";
  bool selectScatter = op.name() == "stablehlo.select_and_scatter";
  // Dots and convolutions (with an output fusion's epilogue): a thread per
  // result element, each a loop over its sum (contraction.h).
  bool contracting = computesContraction(plan);
  bool random = op.name() == "stablehlo.rng_bit_generator";
  Routine routine = routineOf(op);
  if (routine != Routine::None)
    if (std::optional<std::string> problem = routineProblem(op, routine)) return unsupported(op, *problem);
  std::optional<SortRows> sortRows;
  if (sorting) {
    KILN_ASSIGN_OR_RETURN(sortRows, sortRowsOf(plan, m.getContext()));
  }
  codegen::KernelPlan cpuPlan{plan.params, plan.roots, {}, {}};
  codegen::KernelForm form = indexed || sorting || selectScatter || contracting || random ||
                                   routine != Routine::None ? codegen::KernelForm(codegen::ElementsForm{count})
                                                : codegen::kernelFormOf(cpuPlan);
  const codegen::RowsForm* rows = std::get_if<codegen::RowsForm>(&form);
  for (const Value* root : plan.roots)
    if (root->type().numElements() != count && !(rows && root->type().numElements() == rows->numRows) && !random &&
        routine == Routine::None)
      return unsupported(op, "with results of different element counts (outside a row kernel)");

  llvm::LLVMContext& ctx = m.getContext();
  llvm::IRBuilder<> b(ctx);
  std::vector<llvm::Type*> paramTypes(plan.params.size() + plan.roots.size(), b.getPtrTy());
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), paramTypes, false),
                                    llvm::Function::ExternalLinkage, name, m);
  for (unsigned i = 0; i < fn->arg_size(); ++i) fn->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(16)));
  b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::map<const Value*, llvm::Value*> buffers;
  std::vector<llvm::Value*> inputs;
  for (size_t i = 0; i < plan.params.size(); ++i) inputs.push_back(buffers[plan.params[i]] = fn->getArg(i));
  std::vector<llvm::Value*> outputs;
  for (size_t i = 0; i < plan.roots.size(); ++i) outputs.push_back(fn->getArg(plan.params.size() + i));

  ElementalEmitter emitter(b, m, gpuTargetHooks(), std::move(buffers));
  emitter.setElementProvider([&](const Operation& inner, llvm::Value* index) {
    return emitContractionElement(b, emitter, inner, index);
  });
  ThreadNestEmitter nest(plan, m, b, emitter, std::move(inputs), std::move(outputs));
  const codegen::ElementsForm* elements = std::get_if<codegen::ElementsForm>(&form);
  const codegen::PureTranspose* transpose = elements && elements->transpose ? &*elements->transpose : nullptr;
  EmittedKernel kernel{rows          ? KernelShape::RowReduce
                       : transpose   ? KernelShape::Transpose
                       : contracting ? KernelShape::Contract
                                     : KernelShape::Loop,
                       {}};
  if (routine == Routine::TriangularSolve) {
    interp::TriangularSolveSpec spec = interp::triangularSolveSpecOf(op);
    Type bt = op.operand(1)->type();
    int64_t m = op.operand(0)->type().shape().back(), rows = bt.shape()[bt.rank() - 2], cols = bt.shape().back();
    int64_t systems = bt.numElements() == 0 ? 0 : bt.numElements() / (rows * cols) * (spec.leftSide ? cols : rows);
    int64_t carrier = bt.elementType().isComplex() ? 16 : 8;
    kernel.shape = KernelShape::TriangularSolve;
    kernel.launch = solveLaunch(systems, m, carrier);
    KILN_RETURN_IF_ERROR(nest.emitTriangularSolve(spec, kernel.launch.threadsPerBlock));
  } else if (routine == Routine::LuFactor) {
    Type at = op.operand(0)->type();
    int64_t rows = at.shape()[at.rank() - 2], cols = at.shape().back();
    kernel.shape = KernelShape::LuFactor;
    kernel.launch = luLaunch(rows * cols == 0 ? 0 : at.numElements() / (rows * cols), rows, cols,
                             at.elementType().isComplex() ? 16 : 8);
    KILN_RETURN_IF_ERROR(nest.emitLuFactor());
  } else if (routine == Routine::Qr || routine == Routine::QrProduct) {
    Type at = op.operand(0)->type();
    int64_t rows = at.shape()[at.rank() - 2], cols = at.shape().back();
    kernel.shape = KernelShape::Householder;
    kernel.launch = luLaunch(rows * cols == 0 ? 0 : at.numElements() / (rows * cols), rows, cols, 8);
    KILN_RETURN_IF_ERROR(nest.emitHouseholder(routine == Routine::QrProduct));
  } else if (routine == Routine::Cholesky) {
    Type at = op.operand(0)->type();
    int64_t n = at.shape().back();
    bool lower = op.name() == "stablehlo.custom_call" ? interp::lapackOption(op, "uplo", 'L') == 'L'
                                                      : boolAttr(op, "lower", false);
    kernel.shape = KernelShape::Cholesky;
    kernel.launch = choleskyLaunch(n == 0 ? 0 : at.numElements() / (n * n), n, at.elementType().isComplex() ? 16 : 8);
    KILN_RETURN_IF_ERROR(nest.emitCholesky(lower, /*keepOther=*/op.name() == "stablehlo.custom_call"));
  } else if (random) {
    if (plan.roots.size() != 2 || op.numResults() != 2) return unsupported(op, "in this form");
    kernel.shape = KernelShape::Random;
    KILN_RETURN_IF_ERROR(nest.emitRandomBits());
    kernel.launch = loopLaunch(op.result(1)->type().numElements(), 1);
  } else if (sortRows) {
    kernel.shape = KernelShape::Sort;
    KILN_RETURN_IF_ERROR(nest.emitSort(sortRows->dimension, sortRows->padded));
    kernel.launch = sortLaunch(sortRows->rows, sortRows->length, sortRows->padded);
  } else if (selectScatter) {
    if (plan.roots.size() != 1 || plan.roots[0] != op.result(0) || op.numOperands() != 3)
      return unsupported(op, "in this form");
    kernel.shape = KernelShape::SelectScatter;
    KILN_RETURN_IF_ERROR(nest.emitSelectAndScatter(count));
    kernel.launch = loopLaunch(count, 1);
  } else if (indexed) {
    KILN_ASSIGN_OR_RETURN(WindowedIndexing indexing, readWindowedIndexing(op));
    if (op.name() == "stablehlo.gather") {
      kernel.shape = KernelShape::Gather;
      KILN_RETURN_IF_ERROR(nest.emitGather(indexing, count));
      kernel.launch = loopLaunch(count, 1);
    } else {
      KILN_ASSIGN_OR_RETURN(ScatterUpdate update, scatterUpdateOf(op));
      kernel.shape = KernelShape::Scatter;
      KILN_RETURN_IF_ERROR(nest.emitScatter(indexing, update));
      kernel.launch = loopLaunch(indexing.windowed->type().numElements(), 1);
    }
  } else if (rows) {
    KILN_RETURN_IF_ERROR(nest.emitRows(*rows));
    kernel.launch = rowLaunch(rows->numRows, rowSpan(*rows), nest.sharedWordsPerLane());
  } else if (transpose) {
    KILN_RETURN_IF_ERROR(nest.emitTranspose(*transpose, count));
    int64_t tiles = count / std::max<int64_t>(1, transpose->rows * transpose->columns) *
                    ((transpose->rows + kTransposeTile - 1) / kTransposeTile) *
                    ((transpose->columns + kTransposeTile - 1) / kTransposeTile);
    kernel.launch = transposeLaunch(tiles, plan.params[transpose->param]->type().elementType().storageBytes());
  } else {
    // A thread folding whole reductions (a column reduce: one output per
    // column) takes one element, so a warp's reads stay adjacent.
    int64_t width = foldsPerElement(plan) ? 1 : kElementsPerThread;
    KILN_RETURN_IF_ERROR(nest.emitLoop(count, width));
    kernel.launch = loopLaunch(count, width);
  }
  b.CreateRetVoid();
  fremAsFmod(*fn);
  KILN_RETURN_IF_ERROR(checkDeviceCompilable(*fn, op));
  markKernel(fn, kernel.launch.threadsPerBlock);
  return kernel;
}

}  // namespace kiln::gpu
