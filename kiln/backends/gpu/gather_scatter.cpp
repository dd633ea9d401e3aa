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

bool validDims(std::span<const int64_t> dims, int64_t rank) {
  std::vector<bool> seen(size_t(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[size_t(d)]) return false;
    seen[size_t(d)] = true;
  }
  return true;
}

std::vector<int64_t> dimsExcept(int64_t rank, std::span<const int64_t> excluded) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(excluded.begin(), excluded.end(), d) == excluded.end()) dims.push_back(d);
  return dims;
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
  Attribute dn = op.attr(isGather ? "dimension_numbers" : "scatter_dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return unsupported(op, "without dimension numbers");
  m.offsetDims = intListField(dn, isGather ? "offset_dims" : "update_window_dims");
  std::vector<int64_t> collapsed = intListField(dn, isGather ? "collapsed_slice_dims" : "inserted_window_dims");
  m.operandBatchingDims = intListField(dn, isGather ? "operand_batching_dims" : "input_batching_dims");
  m.indicesBatchingDims = intListField(dn, isGather ? "start_indices_batching_dims" : "scatter_indices_batching_dims");
  m.startIndexMap = intListField(dn, isGather ? "start_index_map" : "scatter_dims_to_operand_dims");
  int64_t indicesRank = m.indices->type().rank(), operandRank = m.operand->type().rank();
  int64_t windowedRank = m.windowed->type().rank();
  m.indexVectorDim = intField(dn, "index_vector_dim", indicesRank);
  if (isGather) m.sliceSizes = intListAttr(op, "slice_sizes");
  collapsed.insert(collapsed.end(), m.operandBatchingDims.begin(), m.operandBatchingDims.end());
  m.batchDims = dimsExcept(windowedRank, m.offsetDims);
  m.windowDims = dimsExcept(operandRank, collapsed);
  // What the verifier guarantees, checked again so that no index below
  // reads out of its shape.
  bool valid = validDims(m.offsetDims, windowedRank) && validDims(collapsed, operandRank) &&
               validDims(m.startIndexMap, operandRank) && validDims(m.indicesBatchingDims, indicesRank) &&
               m.operandBatchingDims.size() == m.indicesBatchingDims.size() && m.indexVectorDim >= 0 &&
               m.indexVectorDim <= indicesRank && m.windowDims.size() == m.offsetDims.size() &&
               (!isGather || int64_t(m.sliceSizes.size()) == operandRank) &&
               int64_t(m.batchDims.size()) == indicesRank - (m.indexVectorDim < indicesRank ? 1 : 0) &&
               int64_t(m.startIndexMap.size()) ==
                   (m.indexVectorDim < indicesRank ? m.indices->type().shape()[size_t(m.indexVectorDim)] : 1);
  if (!valid) return unsupported(op, "with these dimension numbers");
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
