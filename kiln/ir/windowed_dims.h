// The dimension numbers of gather and scatter, read once for the back ends.
// gather and scatter relate an index of a "windowed" tensor (gather's
// result, scatter's updates) to an index of the operand the same way, so
// one reader serves both, under gather's names: scatter's
// update_window_dims, inserted_window_dims, input_batching_dims,
// scatter_indices_batching_dims and scatter_dims_to_operand_dims become
// offsetDims, the collapsed dims, operandBatchingDims, indicesBatchingDims
// and startIndexMap. (The interpreter reads them with located errors of its
// own, kiln/interp/ops_data_movement.cpp; the type rule is in
// kiln/ir/ops/reduction_ops.cpp.)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "kiln/ir/ir.h"

namespace kiln {

struct WindowedDims {
  std::vector<int64_t> offsetDims, operandBatchingDims, indicesBatchingDims, startIndexMap;
  int64_t indexVectorDim = 0;
  std::vector<int64_t> batchDims;   // windowed dims not in offsetDims, ascending: one per indices dim but the vector's
  std::vector<int64_t> windowDims;  // operand dims neither collapsed nor batching, one per offset dim
};

// The dimension numbers of `op` (stablehlo.gather, dynamic_gather or
// scatter) for operand, indices and windowed tensors of the shapes given,
// checked so that every index built from them lies within those shapes;
// nullopt when they do not fit (only an unverified program gets that).
std::optional<WindowedDims> readWindowedDims(const Operation& op, std::span<const int64_t> operand,
                                             std::span<const int64_t> indices, std::span<const int64_t> windowed);

}  // namespace kiln
