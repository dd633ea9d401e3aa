// Gather and scatter indexing for the cuda back end (see gather_scatter.h).
#include "kiln/backends/gpu/gather_scatter.h"

#include <algorithm>

#include <llvm/IR/IRBuilder.h>

#include "kiln/backends/gpu/gpu_target_hooks.h"
#include "kiln/codegen/element_ops.h"
#include "kiln/codegen/elemental_emitter.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"

namespace kiln::gpu {
namespace {

Status unsupported(const Operation& op, std::string_view what) {
  return codegen::unsupported(gpuTargetHooks().backendName(), op, what);
}

}  // namespace

Expected<WindowedIndexing> readWindowedIndexing(const Operation& op) {
  bool isGather = op.name() == "stablehlo.gather";
  if (!isGather && op.numOperands() != 3) return unsupported(op, "of several inputs");
  WindowedIndexing m;
  m.operand = op.operand(0);
  m.indices = op.operand(1);
  m.windowed = isGather ? op.result(0) : op.operand(2);
  for (const Value* v : {m.operand, m.indices, m.windowed})
    if (!v->type().isTensor()) return unsupported(op, "of a " + v->type().str());
  if (!m.indices->type().elementType().isInteger()) return unsupported(op, "with indices that are not integers");
  if (isGather) m.sliceSizes = intListAttr(op, "slice_sizes");
  // What the verifier guarantees, checked again so that no index below
  // reads out of its shape.
  std::optional<WindowedDims> dims =
      readWindowedDims(op, m.operand->type().shape(), m.indices->type().shape(), m.windowed->type().shape());
  if (!dims || (isGather && m.sliceSizes.size() != m.operand->type().shape().size()))
    return unsupported(op, "with these dimension numbers");
  static_cast<WindowedDims&>(m) = std::move(*dims);
  return m;
}

Expected<ScatterUpdate> scatterUpdateOf(const Operation& op) {
  if (op.numRegions() != 1 || op.region(0).blocks().empty()) return unsupported(op, "without a body");
  const Block& body = op.region(0).front();
  const Operation* terminator = body.terminator();
  if (body.numArguments() != 2 || !terminator || terminator->numOperands() != 1)
    return unsupported(op, "with this body");
  const Value* returned = terminator->operand(0);
  if (returned == body.argument(1)) return ScatterUpdate::Replace;
  const Operation* add = returned->definingOp();
  if (add && add->name() == "stablehlo.add" && add->numOperands() == 2 &&
      std::is_permutation(add->operands().begin(), add->operands().end(), body.arguments().begin()))
    return ScatterUpdate::Add;
  return ScatterUpdate::Body;
}

Expected<OperandIndex> emitOperandIndex(llvm::IRBuilderBase& b, codegen::ElementalEmitter& emitter,
                                        const WindowedIndexing& m, llvm::Value* index) {
  std::span<const int64_t> windowedShape = m.windowed->type().shape(), operandShape = m.operand->type().shape();
  std::span<const int64_t> indicesShape = m.indices->type().shape();
  std::vector<int64_t> windowedStrides = rowMajorStrides(windowedShape), operandStrides = rowMajorStrides(operandShape);
  std::vector<int64_t> indicesStrides = rowMajorStrides(indicesShape);
  auto i64 = [&](int64_t v) { return b.getInt64(uint64_t(v)); };
  auto coordinate = [&](int64_t d) {
    return b.CreateURem(b.CreateUDiv(index, i64(windowedStrides[size_t(d)])), i64(windowedShape[size_t(d)]));
  };
  // The batch coordinates, and where their index vector starts in the indices.
  std::vector<llvm::Value*> batch;
  llvm::Value* vectorStart = i64(0);
  for (size_t k = 0; k < m.batchDims.size(); ++k) {
    batch.push_back(coordinate(m.batchDims[k]));
    size_t indicesDim = int64_t(k) < m.indexVectorDim ? k : k + 1;
    vectorStart = b.CreateAdd(vectorStart, b.CreateMul(batch.back(), i64(indicesStrides[indicesDim])));
  }
  Type indexType = m.indices->type().elementType();
  std::vector<llvm::Value*> full(operandShape.size(), i64(0));
  for (size_t k = 0; k < m.startIndexMap.size(); ++k) {
    int64_t vectorStride = m.indexVectorDim < int64_t(indicesShape.size()) ? indicesStrides[size_t(m.indexVectorDim)] : 0;
    llvm::Value* at = b.CreateAdd(vectorStart, i64(int64_t(k) * vectorStride));
    KILN_ASSIGN_OR_RETURN(llvm::Value * raw, emitter.emit(m.indices, at));
    llvm::Value* start = indexType.isUnsignedInteger() ? b.CreateZExtOrTrunc(raw, b.getInt64Ty())
                                                       : b.CreateSExtOrTrunc(raw, b.getInt64Ty());
    size_t d = size_t(m.startIndexMap[k]);
    if (!m.sliceSizes.empty()) {  // gather: the slice must fit
      int64_t last = std::max<int64_t>(0, operandShape[d] - m.sliceSizes[d]);
      start = b.CreateSelect(b.CreateICmpSLT(start, i64(0)), i64(0), start);
      start = b.CreateSelect(b.CreateICmpSGT(start, i64(last)), i64(last), start);
    }
    full[d] = start;
  }
  for (size_t k = 0; k < m.operandBatchingDims.size(); ++k) {
    int64_t d = m.indicesBatchingDims[k];
    size_t at = size_t(d < m.indexVectorDim ? d : d - 1);
    full[size_t(m.operandBatchingDims[k])] = b.CreateAdd(full[size_t(m.operandBatchingDims[k])], batch[at]);
  }
  for (size_t k = 0; k < m.windowDims.size(); ++k)
    full[size_t(m.windowDims[k])] = b.CreateAdd(full[size_t(m.windowDims[k])], coordinate(m.offsetDims[k]));
  OperandIndex result{i64(0), b.getTrue()};
  for (size_t d = 0; d < full.size(); ++d) {
    result.flat = b.CreateAdd(result.flat, b.CreateMul(full[d], i64(operandStrides[d])));
    // Unsigned: a negative coordinate is out too.
    if (m.sliceSizes.empty()) result.inBounds = b.CreateAnd(result.inBounds, b.CreateICmpULT(full[d], i64(operandShape[d])));
  }
  return result;
}

}  // namespace kiln::gpu
