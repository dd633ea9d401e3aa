// Shape and data-movement ops.
#include <algorithm>

#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// element_type(result) = element_type(operand), except that a per-axis
// quantized result may have other scales, zero points and axis.
Status checkSameElementModuloAxis(const OpTypeContext& ctx, Type operand, Type result) {
  Type a = operand.elementType(), b = result.elementType();
  if (a == b || (isPerAxisQuantized(a) && isPerAxisQuantized(b) && sameStorageAndExpressed(a, b))) return Status::ok();
  return ctx.error("expects operand and result to have the same element type, got " + operand.str() + " and " +
                   result.str());
}

// The quantization dimension of a per-axis quantized tensor type, or -1.
int64_t quantAxis(Type t) {
  Type e = t.elementType();
  return e.isQuantized() && e.quant().quantizedDimension ? *e.quant().quantizedDimension : -1;
}

// `t` quantized along `axis` instead (a per-axis quantized tensor type).
Type withQuantAxis(Type t, int64_t axis) {
  QuantParams q = t.elementType().quant();
  q.quantizedDimension = int32_t(axis);
  return t.withElementType(Type::quantized(q));
}

// broadcast_in_dim and dynamic_broadcast_in_dim (C6): a per-axis quantized
// result is quantized along the dimension its operand's axis maps to, and an
// axis of size 1 spreads its one scale and zero point over the result's.
Status checkBroadcastQuantAxis(const OpTypeContext& ctx, Type operand, Type result, const Dims& dims) {
  int64_t in = quantAxis(operand), out = quantAxis(result);
  // An axis beyond the rank is the type's own error, reported with the types.
  if (in < 0 || out < 0 || in >= operand.rank()) return Status::ok();
  if (dims[in] != out)
    return ctx.error("expects the result to be quantized along dimension " + str(dims[in]) +
                     " (broadcast_dimensions[" + str(in) + "]), got " + str(out));
  const QuantParams &a = operand.elementType().quant(), &b = result.elementType().quant();
  if (operand.shape()[in] == 1 && !a.scales.empty() && !a.zeroPoints.empty())
    for (size_t i = 0; i < std::min(b.scales.size(), b.zeroPoints.size()); ++i)
      if (b.scales[i] != a.scales[0] || b.zeroPoints[i] != a.zeroPoints[0])
        return ctx.error("expects the result's scales and zero points to repeat the operand's one scale and zero point");
  return Status::ok();
}

// reshape and dynamic_reshape (C3): a per-axis quantized operand keeps its
// axis: the products of the dimensions before and after it, and its size.
Status checkReshapeQuantAxis(const OpTypeContext& ctx, Type operand, Type result) {
  int64_t in = quantAxis(operand), out = quantAxis(result);
  if (in < 0 || out < 0 || in >= operand.rank() || out >= result.rank() || operand.numElements() < 0 ||
      result.numElements() < 0)
    return Status::ok();
  auto product = [](Type t, int64_t from, int64_t to) {  // saturates: dims before a 0 may overflow
    int64_t p = 1;
    for (int64_t d = from; d < to; ++d)
      if (__builtin_mul_overflow(p, t.shape()[d], &p)) return INT64_MAX;
    return p;
  };
  if (product(operand, 0, in) != product(result, 0, out) || operand.shape()[in] != result.shape()[out] ||
      product(operand, in + 1, operand.rank()) != product(result, out + 1, result.rank()))
    return ctx.error("expects the quantization dimension " + str(in) + " of " + operand.str() +
                     " to stay one dimension of the result, got dimension " + str(out) + " of " + result.str());
  return Status::ok();
}

// broadcast_in_dim and dynamic_broadcast_in_dim: (C2)-(C6).
Status checkBroadcastDims(const OpTypeContext& ctx, Type operand, Type result, const Dims& dims) {
  KILN_RETURN_IF_ERROR(checkSize(ctx, "broadcast_dimensions", dims.size(), operand.rank()));  // (C2)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "broadcast_dimensions", dims, result.rank()));   // (C3)
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "broadcast_dimensions", dims));                      // (C4)
  for (size_t d = 0; d < dims.size(); ++d) {                                                 // (C5)
    int64_t in = operand.shape()[d], out = result.shape()[dims[d]];
    if (in != 1 && in != out && in != Type::kDynamic && out != Type::kDynamic)
      return ctx.error("expects operand dimension " + str(d) + " (size " + str(in) + ") to be 1 or to match result dimension " +
                       str(dims[d]) + " (size " + str(out) + ")");
  }
  return checkBroadcastQuantAxis(ctx, operand, result, dims);  // (C6)
}

RuleResult broadcastInDimRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkSameElementModuloAxis(ctx, operand, result));  // (C1)
  KILN_ASSIGN_OR_RETURN(Dims dims, intListAttr(ctx, "broadcast_dimensions"));
  KILN_RETURN_IF_ERROR(checkBroadcastDims(ctx, operand, result, dims));
  return Types{result};
}

RuleResult concatenateRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 1));  // (C3)
  KILN_ASSIGN_OR_RETURN(Type first, tensorOperand(ctx, 0, "inputs", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(int64_t dimension, intAttr(ctx, "dimension"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "dimension", {&dimension, 1}, first.rank()));  // (C4)
  Dims shape(first.shape().begin(), first.shape().end());
  for (size_t i = 1; i < ctx.operandTypes.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(Type input, tensorOperand(ctx, i, "inputs", kAnyOrPerTensorQuant));
    if (!sameBaselineElement(input.elementType(), first.elementType()))  // (C1)
      return ctx.error("expects all inputs to have the same element type, got " + first.str() + " and " + input.str());
    bool sameExceptDim = input.rank() == first.rank();
    for (int64_t d = 0; sameExceptDim && d < first.rank(); ++d)
      sameExceptDim = d == dimension || input.shape()[d] == first.shape()[d] || input.shape()[d] == Type::kDynamic ||
                      first.shape()[d] == Type::kDynamic;
    if (!sameExceptDim)  // (C2)
      return ctx.error("expects all inputs to have the same shape except in dimension " + str(dimension) + ", got " +
                       first.str() + " and " + input.str());
    bool dynamic = shape[dimension] == Type::kDynamic || input.shape()[dimension] == Type::kDynamic;
    if (dynamic)
      shape[dimension] = Type::kDynamic;
    else if (__builtin_add_overflow(shape[dimension], input.shape()[dimension], &shape[dimension]))
      return ctx.error("has a result size in dimension " + str(dimension) + " that overflows int64");
  }
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(shape, first.elementType())});  // (C5), (C6)
}

RuleResult constantRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 0));
  Attribute value = ctx.attr("value");
  if (!value || !value.is(AttrKind::DenseElements)) return ctx.error("requires a dense 'value' attribute");
  Type valueType = value.valueType();
  // A quantized constant is written with its storage values.
  if (ctx.hasDeclaredResults && ctx.declaredResults.size() == 1) {
    Type declared = ctx.declaredResults[0];
    if (declared.isTensor() && declared.elementType().isQuantized() && sameShape(declared, valueType) &&
        declared.elementType().quant().storageType == valueType.elementType())
      return Types{declared};
    // (C1) asks for equal types: a `?` that would match the value's size is
    // not enough (a constant is statically shaped; MLIR refuses it too).
    if (declared != valueType)
      return ctx.error("result #0 has type " + declared.str() + " but its operands and attributes give " +
                       valueType.str());
  }
  return Types{valueType};  // (C1)
}

RuleResult iotaRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 0));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, result, "output", kNumericOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(int64_t dimension, intAttr(ctx, "iota_dimension"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "iota_dimension", {&dimension, 1}, result.rank()));  // (C1)
  return Types{result};
}

// pad and dynamic_pad share (C1) and (C2).
Status checkPadOperands(const OpTypeContext& ctx, Type operand, Type paddingValue) {
  KILN_RETURN_IF_ERROR(checkRank(ctx, paddingValue, "padding_value", 0));
  if (!sameBaselineElement(operand.elementType(), paddingValue.elementType()))
    return ctx.error("expects operand and padding_value to have the same element type, got " + operand.str() +
                     " and " + paddingValue.str());
  return Status::ok();
}

RuleResult padRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type paddingValue, tensorOperand(ctx, 1, "padding_value", kAnyOrPerTensorQuant));
  KILN_RETURN_IF_ERROR(checkPadOperands(ctx, operand, paddingValue));
  KILN_ASSIGN_OR_RETURN(Dims low, intListAttr(ctx, "edge_padding_low"));
  KILN_ASSIGN_OR_RETURN(Dims high, intListAttr(ctx, "edge_padding_high"));
  KILN_ASSIGN_OR_RETURN(Dims interior, intListAttr(ctx, "interior_padding"));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "edge_padding_low", low.size(), operand.rank()));  // (C2)
  KILN_RETURN_IF_ERROR(checkSize(ctx, "edge_padding_high", high.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "interior_padding", interior.size(), operand.rank()));
  Dims shape;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (interior[d] < 0)  // (C3)
      return ctx.error("expects interior_padding to be non-negative, got " + dimsStr(interior));
    int64_t size = operand.shape()[d];
    if (size == Type::kDynamic) {
      shape.push_back(Type::kDynamic);
      continue;
    }
    int64_t padded, gaps;
    bool overflow = __builtin_mul_overflow(std::max<int64_t>(size - 1, 0), interior[d], &gaps) ||
                    __builtin_add_overflow(size, gaps, &padded) || __builtin_add_overflow(padded, low[d], &padded) ||
                    __builtin_add_overflow(padded, high[d], &padded);  // (C4)
    if (overflow) return ctx.error("has a result size in dimension " + str(d) + " that overflows int64");
    if (padded < 0) return ctx.error("expects a non-negative result size in dimension " + str(d) + ", got " + str(padded));
    shape.push_back(padded);
  }
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(shape, operand.elementType())});
}

RuleResult reshapeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkSameElementModuloAxis(ctx, operand, result));  // (C1)
  // (C2); a `?` dimension (numElements() < 0) is checked once refined.
  if (operand.numElements() >= 0 && result.numElements() >= 0 && operand.numElements() != result.numElements())
    return ctx.error("expects operand and result to have the same number of elements, got " + operand.str() +
                     " and " + result.str());
  KILN_RETURN_IF_ERROR(checkReshapeQuantAxis(ctx, operand, result));  // (C3)
  return Types{result};
}

RuleResult reverseRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Dims dims, intListAttr(ctx, "dimensions"));
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "dimensions", dims));                       // (C2)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "dimensions", dims, operand.rank()));  // (C3)
  return Types{operand};                                                            // (C1)
}

RuleResult sliceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Dims start, intListAttr(ctx, "start_indices"));
  KILN_ASSIGN_OR_RETURN(Dims limit, intListAttr(ctx, "limit_indices"));
  KILN_ASSIGN_OR_RETURN(Dims strides, intListAttrOr(ctx, "strides", Dims(operand.rank(), 1)));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "start_indices", start.size(), operand.rank()));  // (C2)
  KILN_RETURN_IF_ERROR(checkSize(ctx, "limit_indices", limit.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "strides", strides.size(), operand.rank()));
  KILN_RETURN_IF_ERROR(checkAllPositive(ctx, "strides", strides));  // (C4)
  Dims shape;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    bool beyond = limit[d] > operand.shape()[d] && operand.shape()[d] != Type::kDynamic;
    if (start[d] < 0 || start[d] > limit[d] || beyond)  // (C3)
      return ctx.error("expects 0 <= start_indices <= limit_indices <= shape(operand) in dimension " + str(d) +
                       ", got " + str(start[d]) + ", " + str(limit[d]) + " and " + str(operand.shape()[d]));
    // (C5) ceil((limit - start) / stride), without the overflow of
    // limit + stride - 1 (a `?` dimension leaves limit unbounded).
    int64_t extent = limit[d] - start[d];
    shape.push_back(extent / strides[d] + (extent % strides[d] != 0));
  }
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(shape, operand.elementType())});
}

// dynamic_slice / dynamic_update_slice: start indices are 0-d integer
// tensors of one type, one per dimension.
Status checkStartIndices(const OpTypeContext& ctx, size_t first, int64_t rank) {
  KILN_RETURN_IF_ERROR(checkSize(ctx, "start_indices", ctx.operandTypes.size() - first, rank));
  for (size_t i = first; i < ctx.operandTypes.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(Type index, tensorOperand(ctx, i, "start_indices", kInt));
    KILN_RETURN_IF_ERROR(checkRank(ctx, index, "start_indices", 0));
    if (index != ctx.operandTypes[first])
      return ctx.error("expects all start_indices to have the same type, got " + ctx.operandTypes[first].str() +
                       " and " + index.str());
  }
  return Status::ok();
}

RuleResult dynamicSliceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_RETURN_IF_ERROR(checkStartIndices(ctx, 1, operand.rank()));  // (C2), (C3)
  KILN_ASSIGN_OR_RETURN(Dims sizes, intListAttr(ctx, "slice_sizes"));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "slice_sizes", sizes.size(), operand.rank()));
  for (int64_t d = 0; d < operand.rank(); ++d)  // (C4)
    if (sizes[d] < 0 || (sizes[d] > operand.shape()[d] && operand.shape()[d] != Type::kDynamic))
      return ctx.error("expects 0 <= slice_sizes <= shape(operand), got " + dimsStr(sizes) + " for " + operand.str());
  return inferredOrCompatibleDeclared(ctx, {Type::tensor(sizes, operand.elementType())});  // (C1), (C5)
}

RuleResult dynamicUpdateSliceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type update, tensorOperand(ctx, 1, "update", kAnyOrPerTensorQuant));
  if (!sameBaselineElement(update.elementType(), operand.elementType()))  // (C2)
    return ctx.error("expects update and operand to have the same element type, got " + update.str() + " and " +
                     operand.str());
  if (update.rank() != operand.rank())  // (C3)
    return ctx.error("expects update and operand to have the same rank, got " + update.str() + " and " + operand.str());
  KILN_RETURN_IF_ERROR(checkStartIndices(ctx, 2, operand.rank()));  // (C4), (C5)
  for (int64_t d = 0; d < operand.rank(); ++d)                      // (C6)
    if (update.shape()[d] > operand.shape()[d])
      return ctx.error("expects the update " + update.str() + " to fit in the operand " + operand.str());
  return inferredOrCompatibleDeclared(ctx, {operand});  // (C1)
}

RuleResult transposeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Dims perm, intListAttr(ctx, "permutation"));
  KILN_RETURN_IF_ERROR(checkPermutation(ctx, "permutation", perm, operand.rank()));  // (C2)
  Dims shape;
  for (int64_t p : perm) shape.push_back(operand.shape()[p]);  // (C3)
  Type inferred = Type::tensor(shape, operand.elementType());  // (C1)
  // (C4) a per-axis quantized result is quantized along the dimension the
  // operand's axis moves to: quantization_dimension(operand) = permutation[it].
  if (int64_t axis = quantAxis(operand); axis >= 0 && axis < operand.rank())
    inferred = withQuantAxis(inferred, std::find(perm.begin(), perm.end(), axis) - perm.begin());
  return inferredOrCompatibleDeclared(ctx, {inferred});
}

RuleResult getDimensionSizeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(int64_t dimension, intAttr(ctx, "dimension"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "dimension", {&dimension, 1}, operand.rank()));  // (C1)
  return Types{scalarTensor(Type::si32())};
}

// A 1-dimensional integer tensor operand holding a shape or padding amounts;
// returns its static length.
Expected<int64_t> shapeOperand(const OpTypeContext& ctx, size_t i, std::string_view name) {
  KILN_ASSIGN_OR_RETURN(Type t, tensorOperand(ctx, i, name, kInt));
  KILN_RETURN_IF_ERROR(checkRank(ctx, t, name, 1));
  return t.shape()[0];
}

RuleResult dynamicBroadcastInDimRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(int64_t outputRank, shapeOperand(ctx, 1, "output_dimensions"));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkSameElementModuloAxis(ctx, operand, result));  // (C1)
  KILN_ASSIGN_OR_RETURN(Dims dims, intListAttr(ctx, "broadcast_dimensions"));
  KILN_RETURN_IF_ERROR(checkBroadcastDims(ctx, operand, result, dims));  // (C2)-(C5)
  if (outputRank != result.rank())                                      // (C7)
    return ctx.error("expects output_dimensions to have " + str(result.rank()) + " elements, got " + str(outputRank));
  KILN_ASSIGN_OR_RETURN(Dims expanding, intListAttrOr(ctx, "known_expanding_dimensions", {}));
  KILN_ASSIGN_OR_RETURN(Dims nonexpanding, intListAttrOr(ctx, "known_nonexpanding_dimensions", {}));
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "known_expanding_dimensions + known_nonexpanding_dimensions",
                                   concat(expanding, nonexpanding)));  // (C8)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "known_expanding_dimensions", expanding, operand.rank()));       // (C9)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "known_nonexpanding_dimensions", nonexpanding, operand.rank())); // (C10)
  return Types{result};
}

RuleResult dynamicIotaRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(int64_t rank, shapeOperand(ctx, 0, "output_shape"));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, result, "result", kNumericOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(int64_t dimension, intAttr(ctx, "iota_dimension"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "iota_dimension", {&dimension, 1}, rank));  // (C1)
  if (rank != result.rank())                                                            // (C2)
    return ctx.error("expects the result rank to be the size of output_shape (" + str(rank) + "), got " + result.str());
  return Types{result};
}

RuleResult dynamicPadRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 5));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type paddingValue, tensorOperand(ctx, 1, "padding_value", kAnyOrPerTensorQuant));
  KILN_RETURN_IF_ERROR(checkPadOperands(ctx, operand, paddingValue));  // (C1)
  for (auto [i, name] : {std::pair{2, "edge_padding_low"}, {3, "edge_padding_high"}, {4, "interior_padding"}}) {
    KILN_ASSIGN_OR_RETURN(int64_t size, shapeOperand(ctx, i, name));
    KILN_RETURN_IF_ERROR(checkSize(ctx, name, size, operand.rank()));  // (C2)
  }
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  if (result.rank() != operand.rank() || !sameBaselineElement(result.elementType(), operand.elementType()))
    return ctx.error("expects the result to have the rank and element type of the operand, got " + result.str());
  return Types{result};
}

RuleResult dynamicReshapeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(int64_t rank, shapeOperand(ctx, 1, "output_shape"));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkSameElementModuloAxis(ctx, operand, result));  // (C1)
  // (C2); a `?` dimension (numElements() < 0) is checked once refined.
  if (operand.numElements() >= 0 && result.numElements() >= 0 && operand.numElements() != result.numElements())
    return ctx.error("expects operand and result to have the same number of elements, got " + operand.str() +
                     " and " + result.str());
  KILN_RETURN_IF_ERROR(checkReshapeQuantAxis(ctx, operand, result));  // (C3)
  if (rank != result.rank())  // (C4)
    return ctx.error("expects output_shape to have " + str(result.rank()) + " elements, got " + str(rank));
  return Types{result};
}

// real_dynamic_slice(operand, start, limit, strides): slice with run-time
// bounds, each a 1-dimensional integer tensor of rank(operand) entries of one
// type; the result has the operand's rank and element type.
RuleResult realDynamicSliceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 4));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  for (auto [i, name] : {std::pair{1, "start_indices"}, {2, "limit_indices"}, {3, "strides"}}) {
    KILN_ASSIGN_OR_RETURN(int64_t size, shapeOperand(ctx, i, name));
    KILN_RETURN_IF_ERROR(checkSize(ctx, name, size, operand.rank()));
    if (ctx.operandTypes[i] != ctx.operandTypes[1])
      return ctx.error("expects start_indices, limit_indices and strides of one type, got " +
                       typeListStr(ctx.operandTypes.subspan(1)));
  }
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  if (result.rank() != operand.rank() || result.elementType() != operand.elementType())
    return ctx.error("expects the result to have the rank and element type of the operand, got " + result.str());
  return Types{result};
}

// set_dimension_size(operand, size, dimension): XLA's dynamic size of one
// dimension; the data is the operand's. size is a tensor<i32>.
RuleResult setDimensionSizeRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Type size, tensorOperand(ctx, 1, "size", kInt));
  if (size != scalarTensor(Type::si32())) return ctx.error("expects size to be a tensor<i32>, got " + size.str());
  KILN_ASSIGN_OR_RETURN(int64_t dimension, intAttr(ctx, "dimension"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "dimension", {&dimension, 1}, operand.rank()));
  if (!ctx.hasDeclaredResults) return Types{operand};
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  if (result.rank() != operand.rank() || result.elementType() != operand.elementType())
    return ctx.error("expects the result to have the rank and element type of the operand, got " + result.str());
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (d != dimension && result.shape()[d] != operand.shape()[d])
      return ctx.error("expects the result to differ from the operand only in dimension " + str(dimension) +
                       ", got " + result.str());
  return Types{result};
}

}  // namespace

void registerShapeOps(std::vector<OpDef>& defs) {
  defs.push_back({"stablehlo.broadcast_in_dim", kPure | kIndexMap, broadcastInDimRule, {"broadcast_dimensions"},
                  "Broadcasts into a larger shape.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.concatenate", kPure | kIndexMap, concatenateRule, {"dimension"},
                  "Concatenates along a dimension.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.constant", kPure, constantRule, {"value"}, "A constant tensor.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.iota", kPure | kIndexMap, iotaRule, {"iota_dimension"}, "0, 1, 2, ... along a dimension.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.pad", kPure | kIndexMap, padRule,
                  {"edge_padding_low", "edge_padding_high", "interior_padding"}, "Pads with a value.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.reshape", kPure | kIndexMap, reshapeRule, {}, "Changes the shape.",
                  PrettyForm::kFunctional});
  defs.push_back({"stablehlo.reverse", kPure | kIndexMap, reverseRule, {"dimensions"}, "Reverses along dimensions.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.slice", kPure | kIndexMap, sliceRule, {"start_indices", "limit_indices", "strides"},
                  "Static slice.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.dynamic_slice", kPure | kDynamicIndexMap, dynamicSliceRule, {"slice_sizes"},
                  "Slice at runtime offsets.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.dynamic_update_slice", kPure | kDynamicIndexMap, dynamicUpdateSliceRule, {},
                  "Updates a slice at runtime offsets.", PrettyForm::kFunctional});
  defs.push_back({"stablehlo.transpose", kPure | kIndexMap, transposeRule, {"permutation"}, "Permutes dimensions.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.get_dimension_size", kPure, getDimensionSizeRule, {"dimension"}, "Size of a dimension.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.dynamic_broadcast_in_dim", kPure, dynamicBroadcastInDimRule,
                  {"broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"},
                  "broadcast_in_dim to a runtime shape.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.dynamic_iota", kPure, dynamicIotaRule, {"iota_dimension"}, "iota of a runtime shape.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.dynamic_pad", kPure, dynamicPadRule, {}, "pad with runtime amounts.",
                  PrettyForm::kFunctional});
  defs.push_back({"stablehlo.dynamic_reshape", kPure, dynamicReshapeRule, {}, "reshape to a runtime shape.",
                  PrettyForm::kFunctional});
  defs.push_back({"stablehlo.real_dynamic_slice", kPure, realDynamicSliceRule, {}, "slice with runtime bounds.",
                  PrettyForm::kFunctional});
  defs.push_back({"stablehlo.set_dimension_size", kPure, setDimensionSizeRule, {"dimension"},
                  "Sets the dynamic size of a dimension (XLA's SetDimensionSize).", PrettyForm::kCustom});
}

}  // namespace kiln
