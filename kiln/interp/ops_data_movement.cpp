// Kernels of the shape and data-movement ops: broadcast, reshape, transpose,
// slicing, padding, concatenation, iota, gather, scatter, sort and their
// dynamic_* twins (which, on static shapes, behave as the static ops).
//
// Each kernel follows the semantics section of its op in the StableHLO spec;
// the comments name the spec's variables where the code mirrors them.
#include <algorithm>
#include <string>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/kernel_util.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;

// The same elements under another (same-sized) tensor type.
Tensor withType(const Tensor& t, Type type) {
  if (t.byteSize() == 0) return Tensor(type);
  return Tensor(type, std::vector<uint8_t>(t.bytes(), t.bytes() + t.byteSize()));
}

// Checks that `list` has one entry per dimension of a rank-`rank` tensor.
Status checkRank(const OpEval& eval, std::string_view what, size_t size, int64_t rank) {
  if (static_cast<int64_t>(size) == rank) return Status::ok();
  return eval.error(std::string(what) + " has " + std::to_string(size) + " entries, expected " +
                    std::to_string(rank));
}

// ---- broadcast_in_dim / dynamic_broadcast_in_dim ------------------------------

Results broadcastInDim(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  std::vector<int64_t> dims = intListAttr(eval.op, "broadcast_dimensions");
  Tensor result(resultType(eval));
  KILN_RETURN_IF_ERROR(checkRank(eval, "broadcast_dimensions", dims.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkDimensionList(eval, "broadcast_dimensions", dims, result.rank()));
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (operand.shape()[d] != 1 && operand.shape()[d] != result.shape()[dims[d]])
      return eval.error("cannot broadcast dimension " + std::to_string(d));
  std::vector<int64_t> index(result.rank(), 0), operandIndex(operand.rank());
  for (int64_t i = 0; i < result.numElements(); ++i, advanceIndex(index, result.shape())) {
    for (int64_t d = 0; d < operand.rank(); ++d)
      operandIndex[d] = operand.shape()[d] == 1 ? 0 : index[dims[d]];
    result.copyElement(i, operand, operand.linearIndex(operandIndex));
  }
  return std::vector<Tensor>{result};
}

// ---- reshape / dynamic_reshape ------------------------------------------------

Results reshape(OpEval& eval) {
  // Row-major order is kept, so the bytes are unchanged.
  return std::vector<Tensor>{withType(eval.operands[0], resultType(eval))};
}

// ---- transpose ----------------------------------------------------------------

Results transpose(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  std::vector<int64_t> permutation = intListAttr(eval.op, "permutation");
  KILN_RETURN_IF_ERROR(checkRank(eval, "permutation", permutation.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkDimensionList(eval, "permutation", permutation, operand.rank()));
  Tensor result(resultType(eval));
  // result_index[d] = operand_index[permutation[d]].
  std::vector<int64_t> index(result.rank(), 0), operandIndex(operand.rank());
  for (int64_t i = 0; i < result.numElements(); ++i, advanceIndex(index, result.shape())) {
    for (int64_t d = 0; d < result.rank(); ++d) operandIndex[permutation[d]] = index[d];
    result.copyElement(i, operand, operand.linearIndex(operandIndex));
  }
  return std::vector<Tensor>{result};
}

// ---- slice, dynamic_slice, dynamic_update_slice ---------------------------------

// Copies the strided box of `operand` starting at `start` into a tensor of `type`.
Expected<Tensor> sliceBox(const OpEval& eval, const Tensor& operand, Type type, std::span<const int64_t> start,
                          std::span<const int64_t> strides) {
  Tensor result(type);
  if (result.rank() != operand.rank()) return eval.error("result rank differs from the operand's");
  for (int64_t d = 0; d < result.rank(); ++d) {
    int64_t last = start[d] + (result.shape()[d] - 1) * strides[d];
    if (result.shape()[d] > 0 && (start[d] < 0 || strides[d] < 1 || last >= operand.shape()[d]))
      return eval.error("slice of dimension " + std::to_string(d) + " is out of bounds");
  }
  std::vector<int64_t> index(result.rank(), 0), operandIndex(operand.rank());
  for (int64_t i = 0; i < result.numElements(); ++i, advanceIndex(index, result.shape())) {
    for (int64_t d = 0; d < result.rank(); ++d) operandIndex[d] = start[d] + index[d] * strides[d];
    result.copyElement(i, operand, operand.linearIndex(operandIndex));
  }
  return result;
}

Results slice(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  std::vector<int64_t> start = intListAttr(eval.op, "start_indices");
  std::vector<int64_t> strides = intListAttr(eval.op, "strides");
  KILN_RETURN_IF_ERROR(checkRank(eval, "start_indices", start.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkRank(eval, "strides", strides.size(), operand.rank()));
  KILN_ASSIGN_OR_RETURN(Tensor result, sliceBox(eval, operand, resultType(eval), start, strides));
  return std::vector<Tensor>{result};
}

// Reads the scalar start indices operands[first...] and clamps each to
// [0, dim(operand, d) - size[d]], as dynamic_slice and dynamic_update_slice do.
Expected<std::vector<int64_t>> clampedStarts(const OpEval& eval, unsigned first, const Tensor& operand,
                                             std::span<const int64_t> sizes) {
  KILN_RETURN_IF_ERROR(checkRank(eval, "start indices", eval.operands.size() - first, operand.rank()));
  std::vector<int64_t> start(operand.rank());
  for (int64_t d = 0; d < operand.rank(); ++d)
    start[d] = std::clamp(eval.operands[first + d].getInt(0), int64_t{0}, operand.shape()[d] - sizes[d]);
  return start;
}

Results dynamicSlice(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  Type type = resultType(eval);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> start, clampedStarts(eval, 1, operand, type.shape()));
  std::vector<int64_t> unitStrides(operand.rank(), 1);
  KILN_ASSIGN_OR_RETURN(Tensor result, sliceBox(eval, operand, type, start, unitStrides));
  return std::vector<Tensor>{result};
}

// real_dynamic_slice: slice with bounds from operands; the (static) result
// type must have the size the bounds give.
Results realDynamicSlice(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  Type type = resultType(eval);
  std::vector<int64_t> start = intsOf(eval.operands[1]), limit = intsOf(eval.operands[2]),
                       strides = intsOf(eval.operands[3]);
  KILN_RETURN_IF_ERROR(checkRank(eval, "start_indices", start.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkRank(eval, "limit_indices", limit.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkRank(eval, "strides", strides.size(), operand.rank()));
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (strides[d] < 1 || start[d] < 0 || start[d] > limit[d] || limit[d] > operand.shape()[d])
      return eval.error("has bounds out of range in dimension " + std::to_string(d) + ": start " +
                        std::to_string(start[d]) + ", limit " + std::to_string(limit[d]) + ", stride " +
                        std::to_string(strides[d]) + " of size " + std::to_string(operand.shape()[d]));
    if ((limit[d] - start[d] + strides[d] - 1) / strides[d] != type.shape()[d])
      return eval.error("gives dimension " + std::to_string(d) + " a size other than the result's " + type.str());
  }
  KILN_ASSIGN_OR_RETURN(Tensor result, sliceBox(eval, operand, type, start, strides));
  return std::vector<Tensor>{result};
}

// set_dimension_size on static shapes: the data is the operand's; a size
// other than the dimension's static size has no static meaning.
Results setDimensionSize(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  int64_t dim = eval.op.attr("dimension").intValue(), size = eval.operands[1].getInt(0);
  if (resultType(eval) != operand.type() || size != operand.shape()[dim])
    return eval.error("sets dimension " + std::to_string(dim) + " of " + operand.type().str() + " to " +
                      std::to_string(size) + ": only the static size is supported");
  return std::vector<Tensor>{operand};
}

Results dynamicUpdateSlice(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  const Tensor& update = eval.operands[1];
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> start, clampedStarts(eval, 2, operand, update.shape()));
  Tensor result = withType(operand, resultType(eval));
  std::vector<int64_t> index(update.rank(), 0), resultIndex(update.rank());
  for (int64_t i = 0; i < update.numElements(); ++i, advanceIndex(index, update.shape())) {
    for (int64_t d = 0; d < update.rank(); ++d) resultIndex[d] = start[d] + index[d];
    result.copyElement(result.linearIndex(resultIndex), update, i);
  }
  return std::vector<Tensor>{result};
}

// ---- concatenate ----------------------------------------------------------------

Results concatenate(OpEval& eval) {
  Attribute dimAttr = eval.op.attr("dimension");
  Tensor result(resultType(eval));
  if (!dimAttr || dimAttr.intValue() < 0 || dimAttr.intValue() >= result.rank())
    return eval.error("needs a `dimension` within the result's rank");
  int64_t dim = dimAttr.intValue();
  int64_t offset = 0;  // where the current input starts along `dim`
  for (const Tensor& input : eval.operands) {
    std::vector<int64_t> index(input.rank(), 0);
    for (int64_t i = 0; i < input.numElements(); ++i, advanceIndex(index, input.shape())) {
      std::vector<int64_t> resultIndex = index;
      resultIndex[dim] += offset;
      result.copyElement(result.linearIndex(resultIndex), input, i);
    }
    offset += input.shape()[dim];
  }
  return std::vector<Tensor>{result};
}

// ---- pad / dynamic_pad ------------------------------------------------------------

Results padWith(const OpEval& eval, std::span<const int64_t> low, std::span<const int64_t> high,
                std::span<const int64_t> interior) {
  const Tensor& operand = eval.operands[0];
  const Tensor& paddingValue = eval.operands[1];
  KILN_RETURN_IF_ERROR(checkRank(eval, "edge_padding_low", low.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkRank(eval, "edge_padding_high", high.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkRank(eval, "interior_padding", interior.size(), operand.rank()));
  Tensor result(resultType(eval));
  for (int64_t i = 0; i < result.numElements(); ++i) result.copyElement(i, paddingValue, 0);
  // Operand element `index` lands at low + index * (interior + 1); negative
  // edge padding cuts elements off, which then fall out of bounds.
  std::vector<int64_t> index(operand.rank(), 0), resultIndex(operand.rank());
  for (int64_t i = 0; i < operand.numElements(); ++i, advanceIndex(index, operand.shape())) {
    for (int64_t d = 0; d < operand.rank(); ++d) resultIndex[d] = low[d] + index[d] * (interior[d] + 1);
    if (inBounds(resultIndex, result.shape())) result.copyElement(result.linearIndex(resultIndex), operand, i);
  }
  return std::vector<Tensor>{result};
}

Results pad(OpEval& eval) {
  return padWith(eval, intListAttr(eval.op, "edge_padding_low"), intListAttr(eval.op, "edge_padding_high"),
                 intListAttr(eval.op, "interior_padding"));
}

Results dynamicPad(OpEval& eval) {
  if (eval.operands.size() != 5) return eval.error("expects 5 operands");
  return padWith(eval, intsOf(eval.operands[2]), intsOf(eval.operands[3]), intsOf(eval.operands[4]));
}

// ---- reverse ------------------------------------------------------------------------

Results reverse(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  std::vector<int64_t> dims = intListAttr(eval.op, "dimensions");
  KILN_RETURN_IF_ERROR(checkDimensionList(eval, "dimensions", dims, operand.rank()));
  Tensor result(resultType(eval));
  std::vector<int64_t> index(result.rank(), 0);
  for (int64_t i = 0; i < result.numElements(); ++i, advanceIndex(index, result.shape())) {
    std::vector<int64_t> operandIndex = index;
    for (int64_t d : dims) operandIndex[d] = operand.shape()[d] - 1 - index[d];
    result.copyElement(i, operand, operand.linearIndex(operandIndex));
  }
  return std::vector<Tensor>{result};
}

// ---- iota / dynamic_iota ---------------------------------------------------------------

Results iota(OpEval& eval) {
  Tensor result(resultType(eval));
  Attribute dimAttr = eval.op.attr("iota_dimension");
  if (!dimAttr || dimAttr.intValue() < 0 || dimAttr.intValue() >= result.rank())
    return eval.error("needs an `iota_dimension` within the result's rank");
  int64_t dim = dimAttr.intValue();
  Type et = result.elementType();
  std::vector<int64_t> index(result.rank(), 0);
  for (int64_t i = 0; i < result.numElements(); ++i, advanceIndex(index, result.shape())) {
    int64_t v = index[dim];
    switch (carrierOf(et)) {
      case Carrier::Bool: result.setBool(i, v != 0); break;
      case Carrier::Int: result.setInt(i, v); break;
      case Carrier::Float: result.setFloat(i, static_cast<double>(v)); break;
      case Carrier::Complex: result.setComplex(i, static_cast<double>(v)); break;
    }
  }
  return std::vector<Tensor>{result};
}

// ---- get_dimension_size ----------------------------------------------------------------

Results getDimensionSize(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  Attribute dimAttr = eval.op.attr("dimension");
  if (!dimAttr || dimAttr.intValue() < 0 || dimAttr.intValue() >= operand.rank())
    return eval.error("needs a `dimension` within the operand's rank");
  Tensor result(resultType(eval));
  result.setInt(0, operand.shape()[dimAttr.intValue()]);
  return std::vector<Tensor>{result};
}

// ---- gather / dynamic_gather / scatter -------------------------------------------------------
//
// gather and scatter relate an index of a "windowed" tensor (gather's result,
// scatter's updates) to an index of the operand the same way; one mapping
// serves both, under gather's names (scatter's in comments).

// The dimensions of a rank-`rank` tensor that are not in `excluded`, ascending.
std::vector<int64_t> dimsExcept(int64_t rank, std::span<const int64_t> excluded) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(excluded.begin(), excluded.end(), d) == excluded.end()) dims.push_back(d);
  return dims;
}

class WindowedIndexing {
 public:
  // The field names of the gather or scatter dimension-numbers struct.
  struct FieldNames {
    const char *offsetDims, *collapsedDims, *operandBatchingDims, *indicesBatchingDims, *startIndexMap;
  };
  static constexpr FieldNames kGather{"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                      "start_indices_batching_dims", "start_index_map"};
  static constexpr FieldNames kScatter{"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                       "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"};

  // Reads and checks the struct attribute `attrName` of `eval.op`.
  static Expected<WindowedIndexing> read(const OpEval& eval, std::string_view attrName, const FieldNames& names,
                                         int64_t windowedRank, int64_t operandRank, const Tensor& indices) {
    Attribute dn = eval.op.attr(attrName);
    if (!dn || !dn.is(AttrKind::Struct)) return eval.error("needs `" + std::string(attrName) + "`");
    WindowedIndexing m;
    m.indices_ = &indices;
    m.offsetDims_ = intListField(dn, names.offsetDims);
    m.operandBatchingDims_ = intListField(dn, names.operandBatchingDims);
    m.indicesBatchingDims_ = intListField(dn, names.indicesBatchingDims);
    m.startIndexMap_ = intListField(dn, names.startIndexMap);
    m.indexVectorDim_ = intField(dn, "index_vector_dim", indices.rank());
    std::vector<int64_t> collapsedOrBatching = intListField(dn, names.collapsedDims);
    collapsedOrBatching.insert(collapsedOrBatching.end(), m.operandBatchingDims_.begin(),
                               m.operandBatchingDims_.end());
    KILN_RETURN_IF_ERROR(checkDimensionList(eval, names.offsetDims, m.offsetDims_, windowedRank));
    KILN_RETURN_IF_ERROR(checkDimensionList(eval, "collapsed and batching dimensions", collapsedOrBatching, operandRank));
    KILN_RETURN_IF_ERROR(checkDimensionList(eval, names.startIndexMap, m.startIndexMap_, operandRank));
    KILN_RETURN_IF_ERROR(checkDimensionList(eval, names.indicesBatchingDims, m.indicesBatchingDims_, indices.rank()));
    if (m.operandBatchingDims_.size() != m.indicesBatchingDims_.size())
      return eval.error("operand and indices batching dimensions differ in number");
    if (m.indexVectorDim_ < 0 || m.indexVectorDim_ > indices.rank()) return eval.error("index_vector_dim out of range");
    m.batchDims_ = dimsExcept(windowedRank, m.offsetDims_);
    m.windowDims_ = dimsExcept(operandRank, collapsedOrBatching);
    if (m.windowDims_.size() != m.offsetDims_.size())
      return eval.error(std::string(names.offsetDims) + " do not match the operand's window dimensions");
    return m;
  }

  // The operand index for `index` of the windowed tensor: full_start_index
  // + full_batching_index + full_offset_index (full_window_index). With
  // `sliceSizes`, start indices are clamped so the slice fits `operandShape`
  // (gather); without, they are taken as they are (scatter).
  void operandIndexOf(std::span<const int64_t> index, std::span<const int64_t> operandShape,
                      std::span<const int64_t> sliceSizes, std::vector<int64_t>& out) const {
    std::vector<int64_t> batchIndex(batchDims_.size());
    for (size_t k = 0; k < batchDims_.size(); ++k) batchIndex[k] = index[batchDims_[k]];
    std::vector<int64_t> startIndex = indexVectorAt(batchIndex);
    std::fill(out.begin(), out.end(), 0);
    for (size_t k = 0; k < startIndexMap_.size() && k < startIndex.size(); ++k) {
      int64_t d = startIndexMap_[k];
      out[d] = sliceSizes.empty() ? startIndex[k]
                                  : std::clamp(startIndex[k], int64_t{0}, operandShape[d] - sliceSizes[d]);
    }
    // The batch index lacks the index vector dimension of the indices tensor.
    for (size_t k = 0; k < operandBatchingDims_.size(); ++k) {
      int64_t d = indicesBatchingDims_[k];
      out[operandBatchingDims_[k]] += batchIndex[d < indexVectorDim_ ? d : d - 1];
    }
    for (size_t k = 0; k < windowDims_.size(); ++k) out[windowDims_[k]] += index[offsetDims_[k]];
  }

 private:
  // The index vector of the indices tensor at `batchIndex`: the 1-d slice
  // along index_vector_dim, or the single element when that is the rank
  // (an implicit trailing dimension of size 1).
  std::vector<int64_t> indexVectorAt(std::span<const int64_t> batchIndex) const {
    const Tensor& indices = *indices_;
    if (indexVectorDim_ >= indices.rank()) return {indices.getInt(indices.linearIndex(batchIndex))};
    std::vector<int64_t> position(batchIndex.begin(), batchIndex.end());
    position.insert(position.begin() + indexVectorDim_, 0);
    std::vector<int64_t> vec(indices.shape()[indexVectorDim_]);
    for (size_t k = 0; k < vec.size(); ++k) {
      position[indexVectorDim_] = static_cast<int64_t>(k);
      vec[k] = indices.getInt(indices.linearIndex(position));
    }
    return vec;
  }

  const Tensor* indices_ = nullptr;
  std::vector<int64_t> offsetDims_, operandBatchingDims_, indicesBatchingDims_, startIndexMap_;
  std::vector<int64_t> batchDims_;   // dimensions of the windowed tensor not in offsetDims
  std::vector<int64_t> windowDims_;  // operand dimensions that the offset dims walk
  int64_t indexVectorDim_ = 0;
};

Results gatherWith(const OpEval& eval, std::span<const int64_t> sliceSizes) {
  const Tensor& operand = eval.operands[0];
  KILN_RETURN_IF_ERROR(checkRank(eval, "slice_sizes", sliceSizes.size(), operand.rank()));
  Tensor result(resultType(eval));
  KILN_ASSIGN_OR_RETURN(WindowedIndexing indexing,
                        WindowedIndexing::read(eval, "dimension_numbers", WindowedIndexing::kGather, result.rank(),
                                               operand.rank(), eval.operands[1]));
  std::vector<int64_t> index(result.rank(), 0), operandIndex(operand.rank());
  for (int64_t i = 0; i < result.numElements(); ++i, advanceIndex(index, result.shape())) {
    indexing.operandIndexOf(index, operand.shape(), sliceSizes, operandIndex);
    if (!inBounds(operandIndex, operand.shape())) return eval.error("gather index out of bounds");
    result.copyElement(i, operand, operand.linearIndex(operandIndex));
  }
  return std::vector<Tensor>{result};
}

Results gather(OpEval& eval) { return gatherWith(eval, intListAttr(eval.op, "slice_sizes")); }

Results dynamicGather(OpEval& eval) {
  if (eval.operands.size() != 3) return eval.error("expects 3 operands");
  return gatherWith(eval, intsOf(eval.operands[2]));
}

Results scatter(OpEval& eval) {
  size_t n = eval.operands.size() / 2;  // inputs..., scatter_indices, updates...
  if (eval.operands.size() != 2 * n + 1 || n == 0) return eval.error("expects N inputs, indices and N updates");
  KILN_RETURN_IF_ERROR(checkBody(eval, 0, 2 * n));
  std::span<const Tensor> inputs(eval.operands.data(), n);
  std::span<const Tensor> updates(eval.operands.data() + n + 1, n);
  const Tensor& update0 = updates[0];
  KILN_ASSIGN_OR_RETURN(WindowedIndexing indexing,
                        WindowedIndexing::read(eval, "scatter_dimension_numbers", WindowedIndexing::kScatter,
                                               update0.rank(), inputs[0].rank(), eval.operands[n]));

  std::vector<Tensor> results;
  for (size_t k = 0; k < n; ++k) results.push_back(withType(inputs[k], resultType(eval, k)));
  BodyFolder folder(eval, 0, results, updates);

  // The schedule is row-major order over the update index space.
  std::vector<int64_t> index(update0.rank(), 0), resultIndex(inputs[0].rank());
  for (int64_t i = 0; i < update0.numElements(); ++i, advanceIndex(index, update0.shape())) {
    indexing.operandIndexOf(index, results[0].shape(), {}, resultIndex);
    // Per the spec, updates whose result index is out of bounds are skipped
    // element by element.
    if (!inBounds(resultIndex, results[0].shape())) continue;
    KILN_RETURN_IF_ERROR(folder.fold(results[0].linearIndex(resultIndex), updates, i));
  }
  return results;
}

// ---- sort --------------------------------------------------------------------------------

// Stable bottom-up merge sort of `order` by `less`, which may fail (its
// error is returned) and need not be a strict weak order: unlike std::sort,
// a merge never reads out of bounds whatever the comparator answers.
template <typename Less>
Status mergeSort(std::vector<int64_t>& order, Less&& less) {
  std::vector<int64_t> buffer(order.size());
  size_t n = order.size();
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t a = lo, b = mid, out = lo;
      while (a < mid && b < hi) {
        // Take from the right run only if it is strictly less: keeps stability.
        KILN_ASSIGN_OR_RETURN(bool rightFirst, less(order[b], order[a]));
        buffer[out++] = rightFirst ? order[b++] : order[a++];
      }
      while (a < mid) buffer[out++] = order[a++];
      while (b < hi) buffer[out++] = order[b++];
    }
    order.swap(buffer);
  }
  return Status::ok();
}

Results sort(OpEval& eval) {
  const std::vector<Tensor>& inputs = eval.operands;
  if (inputs.empty()) return eval.error("expects at least one input");
  KILN_RETURN_IF_ERROR(checkBody(eval, 0, 2 * inputs.size()));
  int64_t rank = inputs[0].rank();
  Attribute dimAttr = eval.op.attr("dimension");
  int64_t dim = dimAttr ? dimAttr.intValue() : -1;
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank) return eval.error("`dimension` out of range");

  std::vector<Tensor> results;
  for (size_t k = 0; k < inputs.size(); ++k) results.push_back(Tensor(resultType(eval, k)));
  std::vector<int64_t> sliceShape(inputs[0].shape().begin(), inputs[0].shape().end());
  int64_t length = sliceShape[dim];
  sliceShape[dim] = 1;
  int64_t stride = rowMajorStrides(inputs[0].shape())[dim];
  // The elements of the current slice as 0-d tensors, made once per slice
  // rather than per comparison: scalars[k][j] is element j of input k.
  std::vector<std::vector<Tensor>> scalars(inputs.size(), std::vector<Tensor>(length));
  // The comparator sees (lhs0, rhs0, lhs1, rhs1, ...) for positions a and b.
  auto less = [&](int64_t a, int64_t b) -> Expected<bool> {
    std::vector<Tensor> args;
    for (const std::vector<Tensor>& slice : scalars) {
      args.push_back(slice[a]);
      args.push_back(slice[b]);
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Tensor> answer, eval.runRegion(0, std::move(args)));
    if (answer.size() != 1) return eval.error("comparator must return one tensor<i1>");
    return answer[0].getBool(0);
  };

  // Sort each 1-d slice along `dim` independently.
  std::vector<int64_t> sliceIndex(rank, 0);
  for (int64_t s = 0; s < numElementsOf(sliceShape) && length > 0; ++s, advanceIndex(sliceIndex, sliceShape)) {
    int64_t base = inputs[0].linearIndex(sliceIndex);
    for (size_t k = 0; k < inputs.size(); ++k)
      for (int64_t j = 0; j < length; ++j) scalars[k][j] = scalarAt(inputs[k], base + j * stride);
    std::vector<int64_t> order(length);
    for (int64_t j = 0; j < length; ++j) order[j] = j;
    KILN_RETURN_IF_ERROR(mergeSort(order, less));
    for (int64_t j = 0; j < length; ++j)
      for (size_t k = 0; k < inputs.size(); ++k)
        results[k].copyElement(base + j * stride, inputs[k], base + order[j] * stride);
  }
  return results;
}

}  // namespace

void registerDataMovementKernels(KernelTable& t) {
  t["stablehlo.broadcast_in_dim"] = broadcastInDim;
  t["stablehlo.dynamic_broadcast_in_dim"] = broadcastInDim;
  t["stablehlo.reshape"] = reshape;
  t["stablehlo.dynamic_reshape"] = reshape;
  t["stablehlo.transpose"] = transpose;
  t["stablehlo.slice"] = slice;
  t["stablehlo.dynamic_slice"] = dynamicSlice;
  t["stablehlo.dynamic_update_slice"] = dynamicUpdateSlice;
  t["stablehlo.real_dynamic_slice"] = realDynamicSlice;
  t["stablehlo.set_dimension_size"] = setDimensionSize;
  t["stablehlo.concatenate"] = concatenate;
  t["stablehlo.pad"] = pad;
  t["stablehlo.dynamic_pad"] = dynamicPad;
  t["stablehlo.reverse"] = reverse;
  t["stablehlo.iota"] = iota;
  t["stablehlo.dynamic_iota"] = iota;
  t["stablehlo.get_dimension_size"] = getDimensionSize;
  t["stablehlo.gather"] = gather;
  t["stablehlo.dynamic_gather"] = dynamicGather;
  t["stablehlo.scatter"] = scatter;
  t["stablehlo.sort"] = sort;
}

}  // namespace kiln::interp
