// Kernels of the reductions: reduce, reduce_window and select_and_scatter.
//
// The spec leaves the order in which a reduction combines values
// implementation-defined; these kernels combine them one at a time, in
// row-major order of the reduced positions, starting from the init value.
#include <string>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/kernel_util.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;

// Result tensors of `eval` filled with the init values.
std::vector<Tensor> filledResults(const OpEval& eval, std::span<const Tensor> initValues) {
  std::vector<Tensor> results;
  for (size_t k = 0; k < initValues.size(); ++k) {
    Tensor r(resultType(eval, k));
    Tensor init = convertScalar(initValues[k], Type::tensor({}, r.elementType()));
    for (int64_t i = 0; i < r.numElements(); ++i) r.copyElement(i, init, 0);
    results.push_back(r);
  }
  return results;
}

// ---- reduce ----------------------------------------------------------------------

Results reduce(OpEval& eval) {
  size_t n = eval.operands.size() / 2;  // inputs..., init_values...
  if (n == 0 || eval.operands.size() != 2 * n) return eval.error("expects N inputs and N init values");
  KILN_RETURN_IF_ERROR(checkBody(eval, 0, 2 * n));
  std::span<const Tensor> inputs(eval.operands.data(), n);
  std::span<const Tensor> initValues(eval.operands.data() + n, n);
  std::vector<int64_t> dims = intListAttr(eval.op, "dimensions");
  int64_t rank = inputs[0].rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return eval.error("dimension " + std::to_string(d) + " out of range");
    reduced[d] = true;
  }

  std::vector<Tensor> results = filledResults(eval, initValues);
  BodyFolder folder(eval, 0, results, inputs);
  // Walk the inputs in row-major order; each element folds into the result
  // at its index with the reduced dimensions dropped.
  std::vector<int64_t> index(rank, 0), resultIndex;
  for (int64_t i = 0; i < inputs[0].numElements(); ++i, advanceIndex(index, inputs[0].shape())) {
    resultIndex.clear();
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d]) resultIndex.push_back(index[d]);
    KILN_RETURN_IF_ERROR(folder.fold(results[0].linearIndex(resultIndex), inputs, i));
  }
  return results;
}

// ---- reduce_window -------------------------------------------------------------

// Where a window position of the padded, base-dilated input comes from: the
// linear index of the input element, or -1 for padding (and dilation holes).
struct PaddedInput {
  std::span<const int64_t> shape;
  std::vector<int64_t> low, baseDilations;

  int64_t sourceOf(std::span<const int64_t> paddedIndex, std::vector<int64_t>& scratch) const {
    int64_t linear = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t q = paddedIndex[d] - low[d];
      if (q < 0 || q % baseDilations[d] != 0 || q / baseDilations[d] >= shape[d]) return -1;
      scratch[d] = q / baseDilations[d];
      linear = linear * shape[d] + scratch[d];
    }
    return linear;
  }
};

Results reduceWindow(OpEval& eval) {
  size_t n = eval.operands.size() / 2;
  if (n == 0 || eval.operands.size() != 2 * n) return eval.error("expects N inputs and N init values");
  KILN_RETURN_IF_ERROR(checkBody(eval, 0, 2 * n));
  std::span<const Tensor> inputs(eval.operands.data(), n);
  std::span<const Tensor> initValues(eval.operands.data() + n, n);
  int64_t rank = inputs[0].rank();
  std::vector<int64_t> windowDims = intListAttr(eval.op, "window_dimensions");
  std::vector<int64_t> strides = intListAttrOr(eval.op, "window_strides", rank, 1);
  std::vector<int64_t> windowDilations = intListAttrOr(eval.op, "window_dilations", rank, 1);
  PaddedInput padded{inputs[0].shape(), {}, intListAttrOr(eval.op, "base_dilations", rank, 1)};
  std::vector<int64_t> high;
  KILN_RETURN_IF_ERROR(readPadding(eval, paddingAttr(eval.op), rank, padded.low, high));
  for (const auto* list : {&windowDims, &strides, &windowDilations, &padded.baseDilations})
    if (static_cast<int64_t>(list->size()) != rank) return eval.error("window attributes must have one entry per dimension");
  KILN_RETURN_IF_ERROR(checkPositive(eval, "window_strides", strides));
  KILN_RETURN_IF_ERROR(checkPositive(eval, "window_dilations", windowDilations));
  KILN_RETURN_IF_ERROR(checkPositive(eval, "base_dilations", padded.baseDilations));

  std::vector<Tensor> results = filledResults(eval, initValues);
  BodyFolder folder(eval, 0, results, inputs);
  std::vector<int64_t> resultIndex(rank, 0), windowIndex(rank, 0), paddedIndex(rank), scratch(rank);
  int64_t windowSize = numElementsOf(windowDims);
  for (int64_t r = 0; r < results[0].numElements(); ++r, advanceIndex(resultIndex, results[0].shape())) {
    for (int64_t w = 0; w < windowSize; ++w, advanceIndex(windowIndex, windowDims)) {
      for (int64_t d = 0; d < rank; ++d)
        paddedIndex[d] = resultIndex[d] * strides[d] + windowIndex[d] * windowDilations[d];
      // Padding takes the init value, which is reduced like any element.
      int64_t source = padded.sourceOf(paddedIndex, scratch);
      if (source < 0)
        KILN_RETURN_IF_ERROR(folder.fold(r, initValues, 0));
      else
        KILN_RETURN_IF_ERROR(folder.fold(r, inputs, source));
    }
  }
  return results;
}

// ---- select_and_scatter ------------------------------------------------------------

Results selectAndScatter(OpEval& eval) {
  if (eval.operands.size() != 3) return eval.error("expects operand, source and init_value");
  KILN_RETURN_IF_ERROR(checkBody(eval, 0, 2));
  KILN_RETURN_IF_ERROR(checkBody(eval, 1, 2));
  const Tensor& operand = eval.operands[0];
  const Tensor& source = eval.operands[1];
  int64_t rank = operand.rank();
  std::vector<int64_t> windowDims = intListAttr(eval.op, "window_dimensions");
  std::vector<int64_t> strides = intListAttrOr(eval.op, "window_strides", rank, 1);
  PaddedInput padded{operand.shape(), {}, std::vector<int64_t>(rank, 1)};
  std::vector<int64_t> high;
  KILN_RETURN_IF_ERROR(readPadding(eval, paddingAttr(eval.op), rank, padded.low, high));
  if (static_cast<int64_t>(windowDims.size()) != rank || static_cast<int64_t>(strides.size()) != rank)
    return eval.error("window attributes must have one entry per dimension");
  KILN_RETURN_IF_ERROR(checkPositive(eval, "window_strides", strides));

  std::vector<Tensor> results = filledResults(eval, std::span<const Tensor>(&eval.operands[2], 1));
  std::span<const Tensor> sources(&source, 1);
  BodyFolder scatterFolder(eval, 1, results, sources);
  std::vector<int64_t> sourceIndex(rank, 0), windowIndex(rank, 0), paddedIndex(rank), scratch(rank);
  int64_t windowSize = numElementsOf(windowDims);
  for (int64_t s = 0; s < source.numElements(); ++s, advanceIndex(sourceIndex, source.shape())) {
    // Select within the window: the first operand element is the candidate;
    // each later one replaces it unless select(candidate, element) holds.
    // Padding positions are never selected.
    int64_t selected = -1;
    for (int64_t w = 0; w < windowSize; ++w, advanceIndex(windowIndex, windowDims)) {
      for (int64_t d = 0; d < rank; ++d) paddedIndex[d] = sourceIndex[d] * strides[d] + windowIndex[d];
      int64_t candidate = padded.sourceOf(paddedIndex, scratch);
      if (candidate < 0) continue;
      if (selected < 0) {
        selected = candidate;
        continue;
      }
      KILN_ASSIGN_OR_RETURN(std::vector<Tensor> keep,
                            eval.runRegion(0, {scalarAt(operand, selected), scalarAt(operand, candidate)}));
      if (keep.size() != 1) return eval.error("select must return one tensor<i1>");
      if (!keep[0].getBool(0)) selected = candidate;
    }
    if (selected >= 0) KILN_RETURN_IF_ERROR(scatterFolder.fold(selected, sources, s));
  }
  return results;
}

}  // namespace

void registerReductionKernels(KernelTable& t) {
  t["stablehlo.reduce"] = reduce;
  t["stablehlo.reduce_window"] = reduceWindow;
  t["stablehlo.select_and_scatter"] = selectAndScatter;
}

}  // namespace kiln::interp
