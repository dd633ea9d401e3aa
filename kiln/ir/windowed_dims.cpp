#include "kiln/ir/windowed_dims.h"

#include <algorithm>

#include "kiln/ir/attribute_readers.h"

namespace kiln {
namespace {

// Each of `dims` in [0, rank), none twice.
bool distinctInRange(std::span<const int64_t> dims, int64_t rank) {
  std::vector<bool> seen(size_t(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[size_t(d)]) return false;
    seen[size_t(d)] = true;
  }
  return true;
}

// The dims of a rank-`rank` tensor not in `excluded`, ascending.
std::vector<int64_t> dimsExcept(int64_t rank, std::span<const int64_t> excluded) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (std::ranges::find(excluded, d) == excluded.end()) dims.push_back(d);
  return dims;
}

}  // namespace

std::optional<WindowedDims> readWindowedDims(const Operation& op, std::span<const int64_t> operand,
                                             std::span<const int64_t> indices, std::span<const int64_t> windowed) {
  bool isScatter = op.name() == "stablehlo.scatter";
  Attribute dn = op.attr(isScatter ? "scatter_dimension_numbers" : "dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return std::nullopt;
  WindowedDims m;
  m.offsetDims = intListField(dn, isScatter ? "update_window_dims" : "offset_dims");
  m.operandBatchingDims = intListField(dn, isScatter ? "input_batching_dims" : "operand_batching_dims");
  m.indicesBatchingDims = intListField(dn, isScatter ? "scatter_indices_batching_dims" : "start_indices_batching_dims");
  m.startIndexMap = intListField(dn, isScatter ? "scatter_dims_to_operand_dims" : "start_index_map");
  std::vector<int64_t> collapsed = intListField(dn, isScatter ? "inserted_window_dims" : "collapsed_slice_dims");
  int64_t operandRank = int64_t(operand.size()), indicesRank = int64_t(indices.size());
  int64_t windowedRank = int64_t(windowed.size());
  m.indexVectorDim = intField(dn, "index_vector_dim", indicesRank);
  collapsed.insert(collapsed.end(), m.operandBatchingDims.begin(), m.operandBatchingDims.end());
  if (!distinctInRange(m.offsetDims, windowedRank) || !distinctInRange(collapsed, operandRank) ||
      !distinctInRange(m.startIndexMap, operandRank) || !distinctInRange(m.indicesBatchingDims, indicesRank) ||
      m.operandBatchingDims.size() != m.indicesBatchingDims.size() || m.indexVectorDim < 0 ||
      m.indexVectorDim > indicesRank)
    return std::nullopt;
  // Start indices never move a batching dim.
  for (int64_t d : m.startIndexMap)
    if (std::ranges::count(m.operandBatchingDims, d)) return std::nullopt;
  // One start index per element of an index vector (a vector dim past the last is of length 1).
  int64_t vectorLength = m.indexVectorDim < indicesRank ? indices[size_t(m.indexVectorDim)] : 1;
  if (int64_t(m.startIndexMap.size()) != vectorLength) return std::nullopt;
  m.batchDims = dimsExcept(windowedRank, m.offsetDims);
  m.windowDims = dimsExcept(operandRank, collapsed);
  if (m.windowDims.size() != m.offsetDims.size() ||
      int64_t(m.batchDims.size()) != indicesRank - (m.indexVectorDim < indicesRank ? 1 : 0))
    return std::nullopt;
  // The windowed tensor's batch dims walk the indices' dims but the index
  // vector's, in order; a batching dim's coordinate is also an operand
  // coordinate.
  for (size_t j = 0; j < m.batchDims.size(); ++j) {
    int64_t d = int64_t(j) < m.indexVectorDim ? int64_t(j) : int64_t(j) + 1;
    if (windowed[size_t(m.batchDims[j])] != indices[size_t(d)]) return std::nullopt;
  }
  for (size_t k = 0; k < m.operandBatchingDims.size(); ++k)
    if (m.indicesBatchingDims[k] == m.indexVectorDim ||
        indices[size_t(m.indicesBatchingDims[k])] > operand[size_t(m.operandBatchingDims[k])])
      return std::nullopt;
  return m;
}

}  // namespace kiln
