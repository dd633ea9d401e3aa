// Reductions, gather/scatter and sort: the ops that index or combine slices.
#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// Variadic `inputs` followed by as many 0-dimensional `init_values` (reduce,
// reduce_window): checks (C1)-(C3) of both and returns the inputs.
Expected<Types> inputsWithInitValues(const OpTypeContext& ctx) {
  size_t n = ctx.operandTypes.size() / 2;
  if (n == 0 || ctx.operandTypes.size() % 2 != 0)
    return ctx.error("expects a positive, equal number of inputs and init_values, got " +
                     str(ctx.operandTypes.size()) + " operands");
  Types inputs;
  for (size_t i = 0; i < n; ++i) {
    KILN_ASSIGN_OR_RETURN(Type input, tensorOperand(ctx, i, "inputs", kAnyOrPerTensorQuant));
    KILN_ASSIGN_OR_RETURN(Type init, tensorOperand(ctx, n + i, "init_values", kAnyOrPerTensorQuant));
    KILN_RETURN_IF_ERROR(checkRank(ctx, init, "init_values", 0));
    if (!sameShape(input, ctx.operandTypes[0]))
      return ctx.error("expects all inputs to have the same shape, got " + ctx.operandTypes[0].str() + " and " +
                       input.str());
    if (!sameBaselineElement(input.elementType(), init.elementType()))
      return ctx.error("expects inputs and init_values to have the same element types, got " + input.str() + " and " +
                       init.str());
    inputs.push_back(input);
  }
  return inputs;
}

RuleResult reduceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Types inputs, inputsWithInitValues(ctx));
  KILN_ASSIGN_OR_RETURN(Dims dims, intListAttr(ctx, "dimensions"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "dimensions", dims, inputs[0].rank()));  // (C4)
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "dimensions", dims));                         // (C5)
  KILN_ASSIGN_OR_RETURN(Types elements, reductionBodyElements(ctx, 0, "body", elementTypesOf(inputs)));  // (C6)
  Dims shape;
  for (int64_t d = 0; d < inputs[0].rank(); ++d)
    if (!contains(dims, d)) shape.push_back(inputs[0].shape()[d]);
  Types results;
  for (Type e : elements) results.push_back(Type::tensor(shape, e));  // (C7), (C8)
  return inferredOrCompatibleDeclared(ctx, results);
}

RuleResult reduceWindowRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Types inputs, inputsWithInitValues(ctx));  // (C1)-(C3)
  int64_t rank = inputs[0].rank();
  KILN_ASSIGN_OR_RETURN(Dims window, windowAttr(ctx, "window_dimensions", rank, true));  // (C4), (C5)
  KILN_ASSIGN_OR_RETURN(Dims strides, windowAttr(ctx, "window_strides", rank));           // (C6), (C7)
  KILN_ASSIGN_OR_RETURN(Dims baseDilations, windowAttr(ctx, "base_dilations", rank));     // (C8), (C9)
  KILN_ASSIGN_OR_RETURN(Dims windowDilations, windowAttr(ctx, "window_dilations", rank)); // (C10), (C11)
  KILN_ASSIGN_OR_RETURN(Dims padding, paddingAttr(ctx, rank));                           // (C12)
  KILN_ASSIGN_OR_RETURN(Types elements, reductionBodyElements(ctx, 0, "body", elementTypesOf(inputs)));  // (C13)
  Dims shape;
  for (int64_t d = 0; d < rank; ++d) {  // (C15)
    std::optional<int64_t> n = numWindows(inputs[0].shape()[d], baseDilations[d], padding[2 * d], padding[2 * d + 1],
                                          window[d], windowDilations[d], strides[d]);
    if (!n) return ctx.error("has a result size in dimension " + str(d) + " that overflows int64");
    shape.push_back(*n);
  }
  Types results;
  for (Type e : elements) results.push_back(Type::tensor(shape, e));  // (C14), (C16)
  return inferredOrCompatibleDeclared(ctx, results);
}

RuleResult selectAndScatterRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type source, tensorOperand(ctx, 1, "source", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type init, tensorOperand(ctx, 2, "init_value", kAnyOrPerTensorQuant));
  Type e = operand.elementType();
  if (!sameBaselineElement(e, source.elementType()))  // (C1)
    return ctx.error("expects operand and source to have the same element type, got " + operand.str() + " and " +
                     source.str());
  KILN_RETURN_IF_ERROR(checkRank(ctx, init, "init_value", 0));
  if (!sameBaselineElement(e, init.elementType()))  // (C3)
    return ctx.error("expects init_value to have the element type of operand, got " + init.str());
  int64_t rank = operand.rank();
  KILN_ASSIGN_OR_RETURN(Dims window, windowAttr(ctx, "window_dimensions", rank));  // (C4), (C5)
  KILN_ASSIGN_OR_RETURN(Dims strides, windowAttr(ctx, "window_strides", rank));    // (C6), (C7)
  KILN_ASSIGN_OR_RETURN(Dims padding, paddingAttr(ctx, rank));                    // (C8)
  Dims windows;
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> n = numWindows(operand.shape()[d], 1, padding[2 * d], padding[2 * d + 1], window[d], 1,
                                          strides[d]);
    if (!n) return ctx.error("has windows in dimension " + str(d) + " whose count overflows int64");
    windows.push_back(*n);
  }
  if (!std::ranges::equal(source.shape(), windows))  // (C2)
    return ctx.error("expects source to have the shape of the windows " + dimsStr(windows) + ", got " + source.str());
  Type scalar = scalarTensor(e);
  Type boolean = scalarTensor(Type::i1());
  KILN_RETURN_IF_ERROR(checkRegionType(ctx, 0, "select", std::vector{scalar, scalar}, std::vector{boolean}));  // (C9)
  KILN_ASSIGN_OR_RETURN(Types elements, reductionBodyElements(ctx, 1, "scatter", std::vector{e}));           // (C10)
  return inferredOrCompatibleDeclared(ctx, {operand.withElementType(elements[0])});  // (C11), (C12)
}

// --- gather / dynamic_gather --------------------------------------------------

struct GatherDims {
  Dims offsetDims, collapsedSliceDims, operandBatchingDims, startIndicesBatchingDims, startIndexMap;
  int64_t indexVectorDim = 0;
};

Expected<GatherDims> gatherDims(const OpTypeContext& ctx) {
  Attribute dn = ctx.attr("dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return ctx.error("requires a #stablehlo.gather 'dimension_numbers' attribute");
  GatherDims g;
  KILN_ASSIGN_OR_RETURN(g.offsetDims, structIntList(ctx, dn, "offset_dims"));
  KILN_ASSIGN_OR_RETURN(g.collapsedSliceDims, structIntList(ctx, dn, "collapsed_slice_dims"));
  KILN_ASSIGN_OR_RETURN(g.operandBatchingDims, structIntList(ctx, dn, "operand_batching_dims"));
  KILN_ASSIGN_OR_RETURN(g.startIndicesBatchingDims, structIntList(ctx, dn, "start_indices_batching_dims"));
  KILN_ASSIGN_OR_RETURN(g.startIndexMap, structIntList(ctx, dn, "start_index_map"));
  KILN_ASSIGN_OR_RETURN(g.indexVectorDim, structInt(ctx, dn, "index_vector_dim"));
  return g;
}

// The batch dimension sizes of scatter/gather indices: their shape without
// index_vector_dim.
Dims batchDimSizes(Type indices, int64_t indexVectorDim) {
  Dims sizes;
  for (int64_t d = 0; d < indices.rank(); ++d)
    if (d != indexVectorDim) sizes.push_back(indices.shape()[d]);
  return sizes;
}

// The shared index constraints of gather and scatter, in gather's terms:
// `windowDims`/`collapsedDims`/`batchingDims`/`indexMap` are
// offset_dims/collapsed_slice_dims/operand_batching_dims/start_index_map for
// gather and update_window_dims/inserted_window_dims/input_batching_dims/
// scatter_dims_to_operand_dims for scatter.
struct IndexingNames {
  std::string windowName, collapsedName, batchingName, indicesBatchingName, mapName;
};
const IndexingNames kGatherNames = {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                                    "start_indices_batching_dims", "start_index_map"};
const IndexingNames kScatterNames = {"update_window_dims", "inserted_window_dims", "input_batching_dims",
                                     "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"};

Status checkIndexingDims(const OpTypeContext& ctx, Type operand, Type indices, const GatherDims& g,
                         const IndexingNames& names) {
  const auto& [windowName, collapsedName, batchingName, indicesBatchingName, mapName] = names;
  const std::string ivdName = "index_vector_dim";
  int64_t rank = operand.rank();
  if (rank != static_cast<int64_t>(g.offsetDims.size() + g.collapsedSliceDims.size() + g.operandBatchingDims.size()))
    return ctx.error("expects rank(operand) = size(" + windowName + ") + size(" +
                     collapsedName + ") + size(" + batchingName + "), got " + str(rank));
  if (g.indexVectorDim < 0 || g.indexVectorDim > indices.rank())
    return ctx.error("expects " + ivdName + " to be in [0, " + str(indices.rank()) + "], got " +
                     str(g.indexVectorDim));
  int64_t indexVectorSize = g.indexVectorDim < indices.rank() ? indices.shape()[g.indexVectorDim] : 1;
  if (static_cast<int64_t>(g.startIndexMap.size()) != indexVectorSize)
    return ctx.error("expects " + mapName + " to have " + str(indexVectorSize) + " elements, got " +
                     str(g.startIndexMap.size()));
  KILN_RETURN_IF_ERROR(checkUnique(ctx, windowName, g.offsetDims));
  KILN_RETURN_IF_ERROR(checkSorted(ctx, windowName, g.offsetDims));
  KILN_RETURN_IF_ERROR(checkUnique(ctx, collapsedName + " + " + batchingName,
                                   concat(g.collapsedSliceDims, g.operandBatchingDims)));
  KILN_RETURN_IF_ERROR(checkSorted(ctx, collapsedName, g.collapsedSliceDims));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, collapsedName, g.collapsedSliceDims, rank));
  KILN_RETURN_IF_ERROR(checkSorted(ctx, batchingName, g.operandBatchingDims));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, batchingName, g.operandBatchingDims, rank));
  KILN_RETURN_IF_ERROR(checkUnique(ctx, indicesBatchingName, g.startIndicesBatchingDims));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, indicesBatchingName, g.startIndicesBatchingDims, indices.rank()));
  if (contains(g.startIndicesBatchingDims, g.indexVectorDim))
    return ctx.error("expects " + ivdName + " not to be in " + indicesBatchingName);
  if (g.operandBatchingDims.size() != g.startIndicesBatchingDims.size())
    return ctx.error("expects " + batchingName + " and " + indicesBatchingName +
                     " to have the same size, got " + str(g.operandBatchingDims.size()) + " and " +
                     str(g.startIndicesBatchingDims.size()));
  for (size_t i = 0; i < g.operandBatchingDims.size(); ++i)
    if (operand.shape()[g.operandBatchingDims[i]] != indices.shape()[g.startIndicesBatchingDims[i]])
      return ctx.error("expects the batching dimensions of operand and indices to have the same sizes");
  KILN_RETURN_IF_ERROR(checkUnique(ctx, mapName + " + " + batchingName,
                                   concat(g.startIndexMap, g.operandBatchingDims)));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, mapName, g.startIndexMap, rank));
  return Status::ok();
}

// combine(batch_dim_sizes, offset_dim_sizes): offsets at `offsetDims`, batch
// sizes everywhere else.
Dims combine(const Dims& batchSizes, const Dims& offsetSizes, const Dims& offsetDims) {
  Dims shape;
  size_t b = 0, o = 0;
  for (size_t d = 0; d < batchSizes.size() + offsetSizes.size(); ++d)
    shape.push_back(contains(offsetDims, static_cast<int64_t>(d)) ? offsetSizes[o++] : batchSizes[b++]);
  return shape;
}

RuleResult gatherRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type indices, tensorOperand(ctx, 1, "start_indices", kInt));
  KILN_ASSIGN_OR_RETURN(GatherDims g, gatherDims(ctx));
  KILN_RETURN_IF_ERROR(checkIndexingDims(ctx, operand, indices, g, kGatherNames));  // (C1)-(C4), (C6)-(C8), (C10)-(C19)
  KILN_ASSIGN_OR_RETURN(Dims sliceSizes, intListAttr(ctx, "slice_sizes"));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "slice_sizes", sliceSizes.size(), operand.rank()));  // (C20)
  Dims offsetSizes;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (sliceSizes[d] < 0 || (sliceSizes[d] > operand.shape()[d] && operand.shape()[d] != Type::kDynamic))  // (C21)
      return ctx.error("expects 0 <= slice_sizes <= shape(operand), got " + dimsStr(sliceSizes) + " for " + operand.str());
    bool dropped = contains(g.collapsedSliceDims, d) || contains(g.operandBatchingDims, d);
    if (dropped && sliceSizes[d] > 1)  // (C9), (C12)
      return ctx.error("expects slice_sizes of collapsed and batching dimensions to be at most 1, got " +
                       str(sliceSizes[d]) + " in dimension " + str(d));
    if (!dropped) offsetSizes.push_back(sliceSizes[d]);
  }
  Dims batchSizes = batchDimSizes(indices, g.indexVectorDim);
  int64_t resultRank = static_cast<int64_t>(batchSizes.size() + offsetSizes.size());
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "offset_dims", g.offsetDims, resultRank));  // (C5)
  Dims shape = combine(batchSizes, offsetSizes, g.offsetDims);                          // (C22)
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(shape, operand.elementType())});  // (C23)
}

// dynamic_gather: gather with slice_sizes as an operand, so only its rank and
// the batch dimensions of the result are known statically.
RuleResult dynamicGatherRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type indices, tensorOperand(ctx, 1, "start_indices", kInt));
  KILN_ASSIGN_OR_RETURN(Type sliceSizes, tensorOperand(ctx, 2, "slice_sizes", kInt));
  KILN_RETURN_IF_ERROR(checkRank(ctx, sliceSizes, "slice_sizes", 1));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "slice_sizes", sliceSizes.shape()[0], operand.rank()));  // (C11)
  KILN_ASSIGN_OR_RETURN(GatherDims g, gatherDims(ctx));
  KILN_RETURN_IF_ERROR(checkIndexingDims(ctx, operand, indices, g, kGatherNames));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  Dims batchSizes = batchDimSizes(indices, g.indexVectorDim);
  if (result.rank() != static_cast<int64_t>(batchSizes.size() + g.offsetDims.size()))  // (C13)
    return ctx.error("expects the result to have rank " + str(batchSizes.size() + g.offsetDims.size()) + ", got " +
                     result.str());
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "offset_dims", g.offsetDims, result.rank()));  // (C5)
  if (!sameBaselineElement(result.elementType(), operand.elementType()))                    // (C14)
    return ctx.error("expects the result to have the element type of operand, got " + result.str());
  return Types{result};
}

// --- scatter -----------------------------------------------------------------------

RuleResult scatterRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  size_t n = (ctx.operandTypes.size() - 1) / 2;
  if (ctx.operandTypes.size() < 3 || ctx.operandTypes.size() % 2 == 0)  // (C5)
    return ctx.error("expects N inputs, scatter_indices and N updates with N > 0, got " +
                     str(ctx.operandTypes.size()) + " operands");
  Types inputs, updates;
  for (size_t i = 0; i < n; ++i) {
    KILN_ASSIGN_OR_RETURN(Type input, tensorOperand(ctx, i, "inputs", kAnyOrPerTensorQuant));
    KILN_ASSIGN_OR_RETURN(Type update, tensorOperand(ctx, n + 1 + i, "updates", kAnyOrPerTensorQuant));
    inputs.push_back(input);
    updates.push_back(update);
    if (!sameShape(input, inputs[0]))  // (C1)
      return ctx.error("expects all inputs to have the same shape, got " + inputs[0].str() + " and " + input.str());
    if (!sameShape(update, updates[0]))  // (C3)
      return ctx.error("expects all updates to have the same shape, got " + updates[0].str() + " and " + update.str());
    if (!sameBaselineElement(update.elementType(), input.elementType()))  // (C6)
      return ctx.error("expects updates and inputs to have the same element types, got " + update.str() + " and " +
                       input.str());
  }
  KILN_ASSIGN_OR_RETURN(Type indices, tensorOperand(ctx, n, "scatter_indices", kInt));
  Attribute dn = ctx.attr("scatter_dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct))
    return ctx.error("requires a #stablehlo.scatter 'scatter_dimension_numbers' attribute");
  GatherDims g;  // in gather's terms, see checkIndexingDims
  KILN_ASSIGN_OR_RETURN(g.offsetDims, structIntList(ctx, dn, "update_window_dims"));
  KILN_ASSIGN_OR_RETURN(g.collapsedSliceDims, structIntList(ctx, dn, "inserted_window_dims"));
  KILN_ASSIGN_OR_RETURN(g.operandBatchingDims, structIntList(ctx, dn, "input_batching_dims"));
  KILN_ASSIGN_OR_RETURN(g.startIndicesBatchingDims, structIntList(ctx, dn, "scatter_indices_batching_dims"));
  KILN_ASSIGN_OR_RETURN(g.startIndexMap, structIntList(ctx, dn, "scatter_dims_to_operand_dims"));
  KILN_ASSIGN_OR_RETURN(g.indexVectorDim, structInt(ctx, dn, "index_vector_dim"));
  KILN_RETURN_IF_ERROR(checkIndexingDims(ctx, inputs[0], indices, g, kScatterNames));  // (C2), (C7), (C9)-(C22)
  Type update = updates[0];
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "update_window_dims", g.offsetDims, update.rank()));  // (C8)
  // (C4) shape(updates[0]) = combine(update_scatter_dim_sizes, update_window_dim_sizes).
  Dims scatterSizes = batchDimSizes(indices, g.indexVectorDim);
  if (update.rank() != static_cast<int64_t>(scatterSizes.size() + g.offsetDims.size()))
    return ctx.error("expects updates to have rank " + str(scatterSizes.size() + g.offsetDims.size()) + ", got " +
                     update.str());
  Dims windowBounds;
  for (int64_t d = 0; d < inputs[0].rank(); ++d)
    if (!contains(g.collapsedSliceDims, d) && !contains(g.operandBatchingDims, d))
      windowBounds.push_back(inputs[0].shape()[d]);
  size_t s = 0, w = 0;
  for (int64_t d = 0; d < update.rank(); ++d) {
    int64_t size = update.shape()[d];
    bool ok = contains(g.offsetDims, d) ? size <= windowBounds[w++] : size == scatterSizes[s++];
    if (!ok)
      return ctx.error("expects dimension " + str(d) + " of updates " + update.str() +
                       " to match scatter_indices or fit in the input window");
  }
  KILN_ASSIGN_OR_RETURN(Types elements, reductionBodyElements(ctx, 0, "update_computation",
                                                              elementTypesOf(inputs)));  // (C23)
  Types results;
  for (size_t i = 0; i < n; ++i) results.push_back(inputs[i].withElementType(elements[i]));  // (C24), (C25)
  return inferredOrCompatibleDeclared(ctx, results);
}

// --- sort -------------------------------------------------------------------------

RuleResult sortRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 1));  // (C1)
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  Types inputs, comparatorArgs;
  for (size_t i = 0; i < ctx.operandTypes.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(Type input, tensorOperand(ctx, i, "inputs", kAnyOrPerTensorQuant));
    if (!sameShape(input, ctx.operandTypes[0]))  // (C3)
      return ctx.error("expects all inputs to have the same shape, got " + ctx.operandTypes[0].str() + " and " +
                       input.str());
    inputs.push_back(input);
    comparatorArgs.push_back(scalarTensor(input.elementType()));
    comparatorArgs.push_back(scalarTensor(input.elementType()));
  }
  int64_t rank = inputs[0].rank();
  int64_t dimension = intAttrOr(ctx, "dimension", -1);
  if (dimension < -rank || dimension >= rank)  // (C4)
    return ctx.error("expects dimension to be in [" + str(-rank) + ", " + str(rank) + "), got " + str(dimension));
  KILN_RETURN_IF_ERROR(checkRegionType(ctx, 0, "comparator", comparatorArgs,
                                       std::vector{scalarTensor(Type::i1())}));  // (C5)
  return inferredOrCompatibleDeclared(ctx, inputs);  // (C2)
}

}  // namespace

void registerReductionOps(std::vector<OpDef>& defs) {
  defs.push_back({"stablehlo.reduce", kPure, reduceRule, {"dimensions"}, "Reduces along dimensions.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.reduce_window", kPure, reduceWindowRule,
                  {"window_dimensions", "window_strides", "base_dilations", "window_dilations", "padding"},
                  "Reduces over sliding windows."});
  defs.push_back({"stablehlo.select_and_scatter", kPure, selectAndScatterRule,
                  {"window_dimensions", "window_strides", "padding"},
                  "Scatters a source to the selected element of each window."});
  defs.push_back({"stablehlo.gather", kPure, gatherRule, {"dimension_numbers", "slice_sizes", "indices_are_sorted"},
                  "Gathers slices at indices."});
  defs.push_back({"stablehlo.dynamic_gather", kPure, dynamicGatherRule, {"dimension_numbers", "indices_are_sorted"},
                  "gather with runtime slice sizes."});
  defs.push_back({"stablehlo.scatter", kPure, scatterRule,
                  {"scatter_dimension_numbers", "indices_are_sorted", "unique_indices"},
                  "Scatters updates at indices."});
  defs.push_back({"stablehlo.sort", kPure, sortRule, {"dimension", "is_stable"}, "Sorts along a dimension."});
}

}  // namespace kiln
