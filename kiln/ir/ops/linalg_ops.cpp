// Linear algebra and normalization ops.
#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// dot_general and convolution compute their result shape; the element type
// may be wider than the operands' (JAX's preferred_element_type), so a
// declared result of the computed shape is taken as it is.
RuleResult shapeWithDeclaredElement(const OpTypeContext& ctx, const Dims& shape, Type defaultElement) {
  if (ctx.hasDeclaredResults && ctx.declaredResults.size() == 1 && ctx.declaredResults[0].isTensor() &&
      std::ranges::equal(ctx.declaredResults[0].shape(), shape))
    return Types{ctx.declaredResults[0]};
  return Types{Type::tensor(shape, defaultElement)};
}

// precision_config: absent, empty or one entry per operand.
Status checkPrecisionConfig(const OpTypeContext& ctx) {
  Attribute a = ctx.attr("precision_config");
  if (!a) return Status::ok();
  if (!a.is(AttrKind::Array)) return ctx.error("expects precision_config to be an array of precisions");
  size_t n = a.arrayValue().size();
  if (n != 0 && n != 2) return ctx.error("expects precision_config to have 0 or 2 elements, got " + str(n));
  for (const Attribute& p : a.arrayValue()) {
    if (!p.is(AttrKind::Enum) || (p.stringValue() != "DEFAULT" && p.stringValue() != "HIGH" &&
                                  p.stringValue() != "HIGHEST"))
      return ctx.error("expects precision_config entries to be DEFAULT, HIGH or HIGHEST");
  }
  return Status::ok();
}

// The quantization constraints shared by dot_general and convolution:
// is_quantized(lhs) = is_quantized(result) and is_quantized(rhs), same storage
// and expressed types when both are quantized, and for hybrid ops (float lhs,
// quantized rhs) element_type(lhs) = expressed_type(rhs).
Status checkQuantizedOperands(const OpTypeContext& ctx, Type lhs, Type rhs) {
  Type l = lhs.elementType(), r = rhs.elementType();
  if (!l.isQuantized() && !r.isQuantized()) {
    if (l != r)
      return ctx.error("expects lhs and rhs to have the same element type, got " + lhs.str() + " and " + rhs.str());
    return Status::ok();
  }
  if (l.isQuantized() && !r.isQuantized())
    return ctx.error("expects rhs to be quantized when lhs is, got " + rhs.str());
  // The declared result's element type (null when there is none to check).
  Type res = ctx.hasDeclaredResults && ctx.declaredResults.size() == 1 && ctx.declaredResults[0].isTensor()
                 ? ctx.declaredResults[0].elementType()
                 : Type();
  if (!l.isQuantized()) {
    if (l != r.quant().expressedType)
      return ctx.error("expects lhs element type to be the expressed type of rhs, got " + lhs.str() + " and " +
                       rhs.str());
    if (res && res != l)  // a hybrid op computes in lhs's type
      return ctx.error("expects the result element type to be lhs's " + l.str() + " when only rhs is quantized, got " +
                       res.str());
    return Status::ok();
  }
  if (l.quant().storageType != r.quant().storageType || l.quant().expressedType != r.quant().expressedType)
    return ctx.error("expects lhs and rhs to have the same storage and expressed types, got " + lhs.str() + " and " +
                     rhs.str());
  if (res && !res.isQuantized())
    return ctx.error("expects the result to be quantized when lhs is, got " + res.str());
  if (res && res.quant().expressedType != l.quant().expressedType)
    return ctx.error("expects the result to have lhs's expressed type " + l.quant().expressedType.str() + ", got " +
                     res.str());
  if (res && res.quant().quantizedDimension && !r.quant().quantizedDimension)
    return ctx.error("expects a per-tensor quantized result when rhs is per-tensor quantized, got " + res.str());
  return Status::ok();
}

// The quantization dimension of a per-axis quantized tensor, or -1.
int64_t quantAxis(Type t) {
  Type e = t.elementType();
  return e.isQuantized() && e.quant().quantizedDimension ? *e.quant().quantizedDimension : -1;
}

// (C21)-(C24): a dot algorithm asks for DEFAULT precision (the algorithm says
// it) and positive component and operation counts.
Status checkDotAlgorithm(const OpTypeContext& ctx) {
  Attribute algorithm = ctx.attr("algorithm");
  if (!algorithm || !algorithm.is(AttrKind::Struct)) return Status::ok();
  if (Attribute precision = ctx.attr("precision_config"); precision && precision.is(AttrKind::Array))
    for (const Attribute& p : precision.arrayValue())
      if (p.is(AttrKind::Enum) && p.stringValue() != "DEFAULT")
        return ctx.error("expects precision_config to be DEFAULT when an algorithm is given, got " +
                         std::string(p.stringValue()));
  for (const char* count : {"lhs_component_count", "rhs_component_count", "num_primitive_operations"}) {
    Attribute v = algorithm.get(count);
    if (v && v.is(AttrKind::Integer) && v.intValue() <= 0)
      return ctx.error("expects the algorithm's " + std::string(count) + " to be positive, got " + str(v.intValue()));
  }
  return Status::ok();
}

RuleResult dotGeneralRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs"));
  Attribute dn = ctx.attr("dot_dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return ctx.error("requires a #stablehlo.dot 'dot_dimension_numbers' attribute");
  KILN_ASSIGN_OR_RETURN(Dims lhsBatch, structIntList(ctx, dn, "lhs_batching_dimensions"));
  KILN_ASSIGN_OR_RETURN(Dims rhsBatch, structIntList(ctx, dn, "rhs_batching_dimensions"));
  KILN_ASSIGN_OR_RETURN(Dims lhsContract, structIntList(ctx, dn, "lhs_contracting_dimensions"));
  KILN_ASSIGN_OR_RETURN(Dims rhsContract, structIntList(ctx, dn, "rhs_contracting_dimensions"));
  if (lhsBatch.size() != rhsBatch.size())  // (C1)
    return ctx.error("expects lhs_batching_dimensions and rhs_batching_dimensions to have the same size, got " +
                     str(lhsBatch.size()) + " and " + str(rhsBatch.size()));
  if (lhsContract.size() != rhsContract.size())  // (C2)
    return ctx.error("expects lhs_contracting_dimensions and rhs_contracting_dimensions to have the same size, got " +
                     str(lhsContract.size()) + " and " + str(rhsContract.size()));
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "lhs_batching_dimensions + lhs_contracting_dimensions",
                                   concat(lhsBatch, lhsContract)));  // (C3)
  KILN_RETURN_IF_ERROR(checkUnique(ctx, "rhs_batching_dimensions + rhs_contracting_dimensions",
                                   concat(rhsBatch, rhsContract)));  // (C4)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "lhs_batching_dimensions", lhsBatch, lhs.rank()));        // (C5)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "lhs_contracting_dimensions", lhsContract, lhs.rank()));  // (C6)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "rhs_batching_dimensions", rhsBatch, rhs.rank()));        // (C7)
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "rhs_contracting_dimensions", rhsContract, rhs.rank()));  // (C8)
  for (size_t i = 0; i < lhsBatch.size(); ++i)  // (C9)
    if (lhs.shape()[lhsBatch[i]] != rhs.shape()[rhsBatch[i]])
      return ctx.error("expects batching dimensions to have the same sizes, got lhs dimension " + str(lhsBatch[i]) +
                       " of " + lhs.str() + " and rhs dimension " + str(rhsBatch[i]) + " of " + rhs.str());
  for (size_t i = 0; i < lhsContract.size(); ++i)  // (C10)
    if (lhs.shape()[lhsContract[i]] != rhs.shape()[rhsContract[i]])
      return ctx.error("expects contracting dimensions to have the same sizes, got lhs dimension " +
                       str(lhsContract[i]) + " of " + lhs.str() + " and rhs dimension " + str(rhsContract[i]) +
                       " of " + rhs.str());
  KILN_RETURN_IF_ERROR(checkPrecisionConfig(ctx));          // (C11)
  KILN_RETURN_IF_ERROR(checkQuantizedOperands(ctx, lhs, rhs));  // (C13), (C14), (C17)-(C20)
  if (rhs.elementType().isQuantized()) {
    for (int64_t zeroPoint : rhs.elementType().quant().zeroPoints)  // (C15)
      if (zeroPoint != 0) return ctx.error("expects the zero points of rhs to be 0, got " + rhs.str());
    if (contains(rhsContract, quantAxis(rhs)))  // (C16)
      return ctx.error("expects rhs not to be quantized along a contracting dimension, got " + rhs.str());
  }
  KILN_RETURN_IF_ERROR(checkDotAlgorithm(ctx));  // (C21)-(C24)
  // (C12) batch dims, then lhs free dims, then rhs free dims.
  Dims shape;
  for (int64_t d : lhsBatch) shape.push_back(lhs.shape()[d]);
  for (int64_t d = 0; d < lhs.rank(); ++d)
    if (!contains(lhsBatch, d) && !contains(lhsContract, d)) shape.push_back(lhs.shape()[d]);
  for (int64_t d = 0; d < rhs.rank(); ++d)
    if (!contains(rhsBatch, d) && !contains(rhsContract, d)) shape.push_back(rhs.shape()[d]);
  return shapeWithDeclaredElement(ctx, shape, lhs.elementType());
}

// --- convolution ------------------------------------------------------------------

struct ConvDims {
  int64_t inputBatch, inputFeature, kernelInputFeature, kernelOutputFeature, outputBatch, outputFeature;
  Dims inputSpatial, kernelSpatial, outputSpatial;
};

Expected<ConvDims> convDims(const OpTypeContext& ctx) {
  Attribute dn = ctx.attr("dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return ctx.error("requires a #stablehlo.conv 'dimension_numbers' attribute");
  ConvDims c;
  KILN_ASSIGN_OR_RETURN(c.inputBatch, structInt(ctx, dn, "input_batch_dimension"));
  KILN_ASSIGN_OR_RETURN(c.inputFeature, structInt(ctx, dn, "input_feature_dimension"));
  KILN_ASSIGN_OR_RETURN(c.inputSpatial, structIntList(ctx, dn, "input_spatial_dimensions"));
  KILN_ASSIGN_OR_RETURN(c.kernelInputFeature, structInt(ctx, dn, "kernel_input_feature_dimension"));
  KILN_ASSIGN_OR_RETURN(c.kernelOutputFeature, structInt(ctx, dn, "kernel_output_feature_dimension"));
  KILN_ASSIGN_OR_RETURN(c.kernelSpatial, structIntList(ctx, dn, "kernel_spatial_dimensions"));
  KILN_ASSIGN_OR_RETURN(c.outputBatch, structInt(ctx, dn, "output_batch_dimension"));
  KILN_ASSIGN_OR_RETURN(c.outputFeature, structInt(ctx, dn, "output_feature_dimension"));
  KILN_ASSIGN_OR_RETURN(c.outputSpatial, structIntList(ctx, dn, "output_spatial_dimensions"));
  return c;
}

// What convolution and dynamic_conv share: (C1)-(C3), (C5)-(C24), and the
// result shape except the spatial sizes when the padding is unknown.
struct ConvShape {
  ConvDims dims;
  Dims strides, lhsDilation, rhsDilation;
  Dims result;  // spatial entries filled by the caller
};

Expected<ConvShape> checkConvolution(const OpTypeContext& ctx, Type lhs, Type rhs) {
  ConvShape cs;
  const int64_t n = lhs.rank();
  if (rhs.rank() != n)  // (C1)
    return ctx.error("expects lhs and rhs to have the same rank, got " + lhs.str() + " and " + rhs.str());
  if (n < 2) return ctx.error("expects lhs to have rank at least 2, got " + lhs.str());
  const size_t spatial = n - 2;
  KILN_ASSIGN_OR_RETURN(cs.strides, windowAttr(ctx, "window_strides", spatial));  // (C2), (C3)
  KILN_ASSIGN_OR_RETURN(cs.lhsDilation, windowAttr(ctx, "lhs_dilation", spatial));  // (C5), (C6)
  KILN_ASSIGN_OR_RETURN(cs.rhsDilation, windowAttr(ctx, "rhs_dilation", spatial));  // (C7), (C8)
  if (Attribute reversal = ctx.attr("window_reversal")) {  // (C9)
    KILN_RETURN_IF_ERROR(checkAttributeElements(ctx, "window_reversal", reversal));
    std::optional<Dims> r = reversal.asIntList();
    if (!r) return ctx.error("expects window_reversal to be a list of booleans");
    KILN_RETURN_IF_ERROR(checkSize(ctx, "window_reversal", r->size(), spatial));
  }
  KILN_ASSIGN_OR_RETURN(cs.dims, convDims(ctx));
  const ConvDims& c = cs.dims;
  int64_t featureGroups = intAttrOr(ctx, "feature_group_count", 1);
  int64_t batchGroups = intAttrOr(ctx, "batch_group_count", 1);
  if (featureGroups <= 0) return ctx.error("expects feature_group_count > 0, got " + str(featureGroups));  // (C21)
  if (batchGroups <= 0) return ctx.error("expects batch_group_count > 0, got " + str(batchGroups));        // (C22)
  if (featureGroups != 1 && batchGroups != 1)                                                             // (C23)
    return ctx.error("expects feature_group_count or batch_group_count to be 1, got " + str(featureGroups) + " and " +
                     str(batchGroups));
  KILN_RETURN_IF_ERROR(checkSize(ctx, "input_spatial_dimensions", c.inputSpatial.size(), spatial));   // (C12)
  KILN_RETURN_IF_ERROR(checkSize(ctx, "kernel_spatial_dimensions", c.kernelSpatial.size(), spatial)); // (C17)
  KILN_RETURN_IF_ERROR(checkSize(ctx, "output_spatial_dimensions", c.outputSpatial.size(), spatial)); // (C19)
  Dims inputDims = concat(concat(Dims{c.inputBatch}, c.inputSpatial), Dims{c.inputFeature});
  Dims kernelDims = concat(c.kernelSpatial, Dims{c.kernelInputFeature, c.kernelOutputFeature});
  Dims outputDims = concat(concat(Dims{c.outputBatch}, c.outputSpatial), Dims{c.outputFeature});
  for (auto [dims, name] : {std::pair{&inputDims, "input dimensions"}, std::pair{&kernelDims, "kernel dimensions"},
                            std::pair{&outputDims, "output dimensions"}}) {  // (C13), (C18), (C20)
    KILN_RETURN_IF_ERROR(checkUnique(ctx, name, *dims));
    KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, name, *dims, n));
  }
  auto lhsDim = [&](int64_t d) { return lhs.shape()[d]; };
  auto rhsDim = [&](int64_t d) { return rhs.shape()[d]; };
  if (lhsDim(c.inputBatch) % batchGroups != 0)  // (C10)
    return ctx.error("expects the input batch size " + str(lhsDim(c.inputBatch)) + " to be divisible by batch_group_count " +
                     str(batchGroups));
  if (lhsDim(c.inputFeature) % featureGroups != 0)  // (C11)
    return ctx.error("expects the input feature size " + str(lhsDim(c.inputFeature)) +
                     " to be divisible by feature_group_count " + str(featureGroups));
  if (rhsDim(c.kernelInputFeature) != lhsDim(c.inputFeature) / featureGroups)  // (C14)
    return ctx.error("expects the kernel input feature size " + str(rhsDim(c.kernelInputFeature)) +
                     " to be the input feature size " + str(lhsDim(c.inputFeature)) + " / feature_group_count " +
                     str(featureGroups));
  if (rhsDim(c.kernelOutputFeature) % batchGroups != 0 || rhsDim(c.kernelOutputFeature) % featureGroups != 0)  // (C15), (C16)
    return ctx.error("expects the kernel output feature size " + str(rhsDim(c.kernelOutputFeature)) +
                     " to be divisible by batch_group_count and feature_group_count");
  KILN_RETURN_IF_ERROR(checkPrecisionConfig(ctx));  // (C24)
  KILN_RETURN_IF_ERROR(checkQuantizedOperands(ctx, lhs, rhs));  // (C27), (C28), (C31)-(C34)
  if (int64_t axis = quantAxis(rhs); axis >= 0 && axis != c.kernelOutputFeature)  // (C29)
    return ctx.error("expects rhs to be quantized along kernel_output_feature_dimension " +
                     str(c.kernelOutputFeature) + ", got " + rhs.str());
  if (ctx.hasDeclaredResults && ctx.declaredResults.size() == 1 && ctx.declaredResults[0].isTensor())
    if (int64_t axis = quantAxis(ctx.declaredResults[0]); axis >= 0 && axis != c.outputFeature)  // (C30)
      return ctx.error("expects the result to be quantized along output_feature_dimension " + str(c.outputFeature) +
                       ", got " + ctx.declaredResults[0].str());
  cs.result.assign(n, 0);  // (C25), (C26)
  cs.result[c.outputBatch] = lhsDim(c.inputBatch) / batchGroups;
  cs.result[c.outputFeature] = rhsDim(c.kernelOutputFeature);
  return cs;
}

RuleResult convolutionRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs"));
  KILN_ASSIGN_OR_RETURN(ConvShape cs, checkConvolution(ctx, lhs, rhs));
  const int64_t spatial = lhs.rank() - 2;
  KILN_ASSIGN_OR_RETURN(Dims pads, paddingAttr(ctx, spatial));  // (C4)
  const ConvDims& c = cs.dims;
  for (int64_t i = 0; i < spatial; ++i) {  // (C25) num_windows
    std::optional<int64_t> n = numWindows(lhs.shape()[c.inputSpatial[i]], cs.lhsDilation[i], pads[2 * i],
                                          pads[2 * i + 1], rhs.shape()[c.kernelSpatial[i]], cs.rhsDilation[i],
                                          cs.strides[i]);
    if (!n) return ctx.error("has a result size in dimension " + str(c.outputSpatial[i]) + " that overflows int64");
    cs.result[c.outputSpatial[i]] = *n;
  }
  return shapeWithDeclaredElement(ctx, cs.result, expressedOrSelf(lhs.elementType()));
}

// dynamic_conv: the padding is an operand, so the spatial sizes of the result
// are taken as declared.
RuleResult dynamicConvRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs"));
  KILN_ASSIGN_OR_RETURN(Type padding, tensorOperand(ctx, 2, "padding", kInt));
  KILN_ASSIGN_OR_RETURN(ConvShape cs, checkConvolution(ctx, lhs, rhs));
  const int64_t spatial = lhs.rank() - 2;
  if (padding.rank() != 2 || padding.shape()[0] != spatial || padding.shape()[1] != 2)  // (C4)
    return ctx.error("expects padding to have shape [" + str(spatial) + ", 2], got " + padding.str());
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  const ConvDims& c = cs.dims;
  for (int64_t d : c.outputSpatial)
    if (d < result.rank()) cs.result[d] = result.shape()[d];
  if (!std::ranges::equal(result.shape(), cs.result))  // (C25), (C26)
    return ctx.error("expects a result of shape " + dimsStr(cs.result) + " in its batch and feature dimensions, got " +
                     result.str());
  return Types{result};
}

// --- Solvers and transforms ------------------------------------------------------

RuleResult triangularSolveRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type a, tensorOperand(ctx, 0, "a", kFloatComplexOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type b, tensorOperand(ctx, 1, "b", kFloatComplexOrPerTensorQuant));
  if (!sameBaselineElement(a.elementType(), b.elementType()))  // (C1)
    return ctx.error("expects a and b to have the same element type, got " + a.str() + " and " + b.str());
  if (a.rank() < 2 || a.rank() != b.rank())  // (C2)
    return ctx.error("expects a and b to have the same rank of at least 2, got " + a.str() + " and " + b.str());
  int64_t r = a.rank();
  bool leftSide = boolAttrOr(ctx, "left_side", false);
  // (C3) equal batch dimensions, and a is square and matches b's side.
  bool ok = std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin()) &&
            a.shape()[r - 2] == a.shape()[r - 1] && a.shape()[r - 1] == b.shape()[leftSide ? r - 2 : r - 1];
  if (!ok)
    return ctx.error("expects a to be a batch of square matrices matching the " +
                     std::string(leftSide ? "rows" : "columns") + " of b, got " + a.str() + " and " + b.str());
  KILN_RETURN_IF_ERROR(checkEnumAttr(ctx, "transpose_a", {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}));
  return inferredOrCompatibleDeclared(ctx, {b});  // (C4)
}

RuleResult choleskyRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type a, tensorOperand(ctx, 0, "a", kFloatComplexOrPerTensorQuant));
  if (a.rank() < 2) return ctx.error("expects a to have rank at least 2, got " + a.str());  // (C2)
  if (a.shape()[a.rank() - 2] != a.shape()[a.rank() - 1])                                  // (C3)
    return ctx.error("expects a to be a batch of square matrices, got " + a.str());
  return inferredOrCompatibleDeclared(ctx, {a});  // (C1)
}

RuleResult fftRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kFloatOrComplex));
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> type, enumAttr(ctx, "fft_type", {"FFT", "IFFT", "RFFT", "IRFFT"}));
  if (!type) return ctx.error("requires attribute 'fft_type'");
  KILN_ASSIGN_OR_RETURN(Dims length, intListAttr(ctx, "fft_length"));
  if (length.empty() || length.size() > 3)  // (C3)
    return ctx.error("expects fft_length to have 1 to 3 elements, got " + str(length.size()));
  if (static_cast<int64_t>(length.size()) > operand.rank())  // (C1)
    return ctx.error("expects fft_length to have at most rank(operand) elements, got " + str(length.size()));
  Type e = operand.elementType();
  if (e.isFloat() && e != Type::f32() && e != Type::f64())
    return ctx.error("expects f32 or f64 for a real fft operand, got " + operand.str());
  bool realInput = *type == "RFFT";
  if (realInput != e.isFloat())  // (C2)
    return ctx.error("expects a " + std::string(realInput ? "floating-point" : "complex") + " operand for " + *type +
                     ", got " + operand.str());
  // (C4) the trailing dimensions of the real side are fft_length.
  auto checkRealShape = [&](Type real) -> Status {
    if (!std::equal(length.begin(), length.end(), real.shape().end() - length.size()))
      return ctx.error("expects the trailing dimensions of " + real.str() + " to be fft_length " + dimsStr(length));
    return Status::ok();
  };
  Dims shape(operand.shape().begin(), operand.shape().end());
  Type resultElement = e;
  if (*type == "RFFT") {
    KILN_RETURN_IF_ERROR(checkRealShape(operand));
    shape.back() = shape.back() == 0 ? 0 : shape.back() / 2 + 1;  // (C5)
    resultElement = Type::complex(e);
  } else if (*type == "IRFFT") {
    shape.back() = length.back();
    resultElement = e.complexElement();
    Type result = Type::tensor(shape, resultElement);
    KILN_RETURN_IF_ERROR(checkRealShape(result));
    if (operand.shape().back() != (length.back() == 0 ? 0 : length.back() / 2 + 1))  // (C5)
      return ctx.error("expects the last dimension of the operand to be fft_length / 2 + 1, got " + operand.str());
  }
  return Types{Type::tensor(shape, resultElement)};
}

// --- Batch normalization --------------------------------------------------------

// feature_index in range, and every 1-D operand in `features` (from `first`)
// has dim(operand, feature_index) elements of the operand's baseline element.
Expected<int64_t> checkBatchNorm(const OpTypeContext& ctx, Type operand, size_t first, size_t last,
                                 std::initializer_list<const char*> names) {
  KILN_ASSIGN_OR_RETURN(int64_t featureIndex, intAttr(ctx, "feature_index"));
  KILN_RETURN_IF_ERROR(checkDimsInRange(ctx, "feature_index", {&featureIndex, 1}, operand.rank()));  // (C1)
  int64_t features = operand.shape()[featureIndex];
  const char* const* name = names.begin();
  for (size_t i = first; i <= last; ++i, ++name) {
    KILN_ASSIGN_OR_RETURN(Type t, tensorOperand(ctx, i, *name, kFloatOrPerTensorQuant));
    if (t.rank() != 1 || t.shape()[0] != features || !sameBaselineElement(t.elementType(), operand.elementType()))
      return ctx.error("expects " + std::string(*name) + " to be a 1-dimensional tensor of " + str(features) +
                       " elements of the operand's element type, got " + t.str());
  }
  return features;
}

RuleResult batchNormTrainingRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kFloatOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(int64_t features, checkBatchNorm(ctx, operand, 1, 2, {"scale", "offset"}));
  Type stats = Type::tensor({features}, operand.elementType());
  return inferredOrCompatibleDeclared(ctx, {operand, stats, stats});
}

RuleResult batchNormInferenceRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 5));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kFloatOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN([[maybe_unused]] int64_t features,
                        checkBatchNorm(ctx, operand, 1, 4, {"scale", "offset", "mean", "variance"}));
  return inferredOrCompatibleDeclared(ctx, {operand});
}

RuleResult batchNormGradRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 5));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kFloatOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(int64_t features, checkBatchNorm(ctx, operand, 1, 3, {"scale", "mean", "variance"}));
  KILN_ASSIGN_OR_RETURN(Type gradOutput, tensorOperand(ctx, 4, "grad_output", kFloatOrPerTensorQuant));
  if (!sameBaselineType(gradOutput, operand))  // (C2), (C3)
    return ctx.error("expects grad_output to have the type of operand, got " + gradOutput.str() + " and " +
                     operand.str());
  Type stats = Type::tensor({features}, operand.elementType());
  return inferredOrCompatibleDeclared(ctx, {operand, stats, stats});
}

}  // namespace

void registerLinalgOps(std::vector<OpDef>& defs) {
  defs.push_back({"stablehlo.dot_general", kPure, dotGeneralRule,
                  {"dot_dimension_numbers", "precision_config", "algorithm"}, "Generalized matrix product.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.convolution", kPure, convolutionRule,
                  {"window_strides", "padding", "lhs_dilation", "rhs_dilation", "window_reversal", "dimension_numbers",
                   "feature_group_count", "batch_group_count", "precision_config"},
                  "Convolution.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.dynamic_conv", kPure, dynamicConvRule,
                  {"window_strides", "lhs_dilation", "rhs_dilation", "window_reversal", "dimension_numbers",
                   "feature_group_count", "batch_group_count", "precision_config"},
                  "Convolution with runtime padding."});
  defs.push_back({"stablehlo.triangular_solve", kPure, triangularSolveRule,
                  {"left_side", "lower", "unit_diagonal", "transpose_a"}, "Solves triangular systems."});
  defs.push_back({"stablehlo.cholesky", kPure, choleskyRule, {"lower"}, "Cholesky decomposition.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.fft", kPure, fftRule, {"fft_type", "fft_length"}, "Fast Fourier transform.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.batch_norm_training", kPure, batchNormTrainingRule, {"epsilon", "feature_index"},
                  "Batch normalization, training."});
  defs.push_back({"stablehlo.batch_norm_inference", kPure, batchNormInferenceRule, {"epsilon", "feature_index"},
                  "Batch normalization, inference."});
  defs.push_back({"stablehlo.batch_norm_grad", kPure, batchNormGradRule, {"epsilon", "feature_index"},
                  "Gradients of batch normalization."});
}

}  // namespace kiln
