// Elementwise ops: unary, binary, ternary, and map.
#include <numeric>

#include "kiln/ir/ops/stablehlo_op_groups.h"
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// (C1) baseline_type(operand) = baseline_type(result), operand in `Allowed`.
template <uint32_t Allowed>
RuleResult unaryRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", Allowed));
  return inferredOrCompatibleDeclared(ctx, {operand});
}

// (C1) baseline_type(lhs) = baseline_type(rhs) = baseline_type(result).
template <uint32_t Allowed>
RuleResult binaryRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", Allowed));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs", Allowed));
  if (!sameBaselineType(lhs, rhs))
    return ctx.error("expects lhs and rhs to have the same type, got " + lhs.str() + " and " + rhs.str());
  return inferredOrCompatibleDeclared(ctx, {lhs});
}

// add is the one binary op that takes per-axis quantized tensors: (C1) same
// types, or (C2)-(C4) all quantized with the same storage and expressed
// types, and (C5)-(C7) a per-axis result exactly when an operand is per-axis,
// along the same dimension.
RuleResult addRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kAnyElement));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs", kAnyElement));
  Type l = lhs.elementType(), r = rhs.elementType();
  if (!l.isQuantized() && !r.isQuantized()) return binaryRule<kAnyNonQuant>(ctx);
  if (!sameStorageAndExpressed(l, r) || !sameShape(lhs, rhs))
    return ctx.error("expects lhs and rhs to be quantized tensors of the same shape, storage and expressed types, got " +
                     lhs.str() + " and " + rhs.str());
  if (!ctx.hasDeclaredResults) return Types{lhs};
  Types results = Types(ctx.declaredResults.begin(), ctx.declaredResults.end());
  if (results.size() != 1 || !sameShape(results[0], lhs) || !sameStorageAndExpressed(results[0].elementType(), l))
    return Types{lhs};  // reported as a mismatch with the declared result
  auto axis = [](Type e) { return e.quant().quantizedDimension; };
  Type res = results[0].elementType();
  if ((axis(l) || axis(r)) != axis(res).has_value())
    return ctx.error("expects the result to be per-axis quantized exactly when an operand is");
  for (Type operand : {l, r})
    if (axis(operand) && axis(operand) != axis(res))
      return ctx.error("expects the result to be quantized along the dimension of its per-axis quantized operands");
  return results;
}

// abs: the result of a complex operand is its component type.
RuleResult absRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kSignedInt | kFloatComplexOrPerTensorQuant));
  Type e = operand.elementType();
  return inferredOrCompatibleDeclared(ctx, {operand.withElementType(e.isComplex() ? e.complexElement() : e)});
}

// real / imag: (C1) same shape, (C2) complex -> component type, float -> same.
RuleResult complexPartRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kFloatOrComplex));
  Type e = operand.elementType();
  return Types{operand.withElementType(e.isComplex() ? e.complexElement() : e)};
}

RuleResult isFiniteRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type x, tensorOperand(ctx, 0, "x", kFloatOrPerTensorQuant));
  return Types{x.withElementType(Type::i1())};
}

// convert: (C1) shape(operand) = shape(result); the element type is the op's choice.
RuleResult convertRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kAnyNonQuant));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, result, "result", kAnyNonQuant));
  if (!sameShape(operand, result))
    return ctx.error("expects operand and result to have the same shape, got " + operand.str() + " and " +
                     result.str());
  return Types{result};
}

// bitcast_convert: (C1) shapes agree up to the ratio of bit widths, (C2)
// complex only to complex.
RuleResult bitcastConvertRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand"));
  KILN_ASSIGN_OR_RETURN(Type result, singleDeclaredTensor(ctx));
  auto storage = [](Type t) { Type e = t.elementType(); return e.isQuantized() ? e.quant().storageType : e; };
  unsigned from = storage(operand).bitWidth(), to = storage(result).bitWidth();
  std::span<const int64_t> in = operand.shape(), out = result.shape();
  bool ok;
  if (from == to) {
    ok = std::ranges::equal(in, out);
  } else if (to < from) {
    ok = out.size() == in.size() + 1 && std::equal(in.begin(), in.end(), out.begin()) &&
         out.back() * to == from;
  } else {
    ok = in.size() == out.size() + 1 && std::equal(out.begin(), out.end(), in.begin()) &&
         in.back() * from == to;
  }
  if (!ok)
    return ctx.error("expects the shapes of " + operand.str() + " and " + result.str() +
                     " to agree up to the ratio of their element bit widths");
  if (storage(operand).isComplex() != storage(result).isComplex())
    return ctx.error("expects operand and result to be both complex or both not complex");
  return Types{result};
}

RuleResult reducePrecisionRule(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types results, unaryRule<kFloatOrPerTensorQuant>(ctx));
  KILN_ASSIGN_OR_RETURN(int64_t exponentBits, intAttr(ctx, "exponent_bits"));
  KILN_ASSIGN_OR_RETURN(int64_t mantissaBits, intAttr(ctx, "mantissa_bits"));
  if (exponentBits < 1) return ctx.error("expects exponent_bits >= 1, got " + std::to_string(exponentBits));
  if (mantissaBits < 0) return ctx.error("expects mantissa_bits >= 0, got " + std::to_string(mantissaBits));
  return results;
}

RuleResult compareRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs", kAnyOrPerTensorQuant));
  // (C1), (C2)
  if (!sameBaselineElement(lhs.elementType(), rhs.elementType()) || !sameShape(lhs, rhs))
    return ctx.error("expects lhs and rhs to have the same type, got " + lhs.str() + " and " + rhs.str());
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> direction,
                        enumAttr(ctx, "comparison_direction", {"EQ", "NE", "GE", "GT", "LE", "LT"}));
  if (!direction) return ctx.error("requires attribute 'comparison_direction'");
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> compareType,
                        enumAttr(ctx, "compare_type", {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}));
  // (C3) compare_type matches the element type.
  Type e = lhs.elementType();
  if (compareType && !e.isQuantized()) {
    const std::string& ct = *compareType;
    bool ok = e.isSignedInteger()                        ? ct == "SIGNED"
              : e.isUnsignedInteger() || e.isBool()      ? ct == "UNSIGNED"
              : e.isFloat()                              ? ct == "FLOAT" || ct == "TOTALORDER"
                                                         : ct == "FLOAT";
    if (!ok) return ctx.error("expects compare_type " + ct + " to suit element type " + e.str());
  }
  return Types{lhs.withElementType(Type::i1())};
}

RuleResult complexRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type lhs, tensorOperand(ctx, 0, "lhs", kFloat));
  KILN_ASSIGN_OR_RETURN(Type rhs, tensorOperand(ctx, 1, "rhs", kFloat));
  if (lhs != rhs) return ctx.error("expects lhs and rhs to have the same type, got " + lhs.str() + " and " + rhs.str());
  Type e = lhs.elementType();
  if (e != Type::f32() && e != Type::f64()) return ctx.error("expects lhs to be a tensor of f32 or f64, got " + lhs.str());
  return Types{lhs.withElementType(Type::complex(e))};
}

// select: (C1) rank(pred) = 0 or shape(pred) = shape(on_true), (C2) same baseline types.
RuleResult selectRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  KILN_ASSIGN_OR_RETURN(Type pred, tensorOperand(ctx, 0, "pred", kBool));
  KILN_ASSIGN_OR_RETURN(Type onTrue, tensorOperand(ctx, 1, "on_true", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type onFalse, tensorOperand(ctx, 2, "on_false", kAnyOrPerTensorQuant));
  if (pred.rank() != 0 && !sameShape(pred, onTrue))
    return ctx.error("expects pred to be 0-dimensional or to have the shape of on_true, got " + pred.str() +
                     " and " + onTrue.str());
  if (!sameBaselineType(onTrue, onFalse))
    return ctx.error("expects on_true and on_false to have the same type, got " + onTrue.str() + " and " +
                     onFalse.str());
  return inferredOrCompatibleDeclared(ctx, {onTrue});
}

// clamp: (C1)/(C2) min and max are scalars or of the operand's shape, (C3)
// same baseline element types.
RuleResult clampRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 3));
  KILN_ASSIGN_OR_RETURN(Type min, tensorOperand(ctx, 0, "min", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 1, "operand", kAnyOrPerTensorQuant));
  KILN_ASSIGN_OR_RETURN(Type max, tensorOperand(ctx, 2, "max", kAnyOrPerTensorQuant));
  for (auto [bound, name] : {std::pair{min, "min"}, std::pair{max, "max"}}) {
    if (bound.rank() != 0 && !sameShape(bound, operand))
      return ctx.error("expects " + std::string(name) + " to be 0-dimensional or to have the shape of operand, got " +
                       bound.str() + " and " + operand.str());
    if (!sameBaselineElement(bound.elementType(), operand.elementType()))
      return ctx.error("expects " + std::string(name) + " and operand to have the same element type, got " +
                       bound.str() + " and " + operand.str());
  }
  return inferredOrCompatibleDeclared(ctx, {operand});
}

// map: (C1) same shapes, (C2) at least one input, (C3) dimensions =
// range(rank), (C4) computation: (tensor<E0>, ...) -> tensor<E'>.
RuleResult mapRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkMinOperandCount(ctx, 1));
  KILN_RETURN_IF_ERROR(checkRegionCount(ctx, 1));
  Types argTypes;
  Type first = ctx.operandTypes[0];
  for (size_t i = 0; i < ctx.operandTypes.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(Type input, tensorOperand(ctx, i, "inputs", kAnyOrPerTensorQuant));
    if (!sameShape(input, first))
      return ctx.error("expects all inputs to have the same shape, got " + first.str() + " and " + input.str());
    argTypes.push_back(scalarTensor(input.elementType()));
  }
  KILN_ASSIGN_OR_RETURN(Dims dimensions, intListAttr(ctx, "dimensions"));
  Dims allDims(first.rank());
  std::iota(allDims.begin(), allDims.end(), 0);
  if (dimensions != allDims)
    return ctx.error("expects dimensions to be [0, ..., rank - 1], got " + dimsStr(dimensions));
  KILN_ASSIGN_OR_RETURN(Types bodyResults, regionReturnTypes(ctx, 0, "computation"));
  if (bodyResults.size() != 1 || !bodyResults[0].isTensor() || bodyResults[0].rank() != 0)
    return ctx.error("expects computation to return one 0-dimensional tensor");
  KILN_RETURN_IF_ERROR(checkRegionType(ctx, 0, "computation", argTypes, bodyResults));
  return Types{first.withElementType(bodyResults[0].elementType())};
}

}  // namespace

void registerElementwiseOps(std::vector<OpDef>& defs) {
  constexpr uint32_t kEw = kPure | kElementwise;
  constexpr uint32_t kEwSame = kEw | kSameOperandsAndResultType;
  constexpr uint32_t kEwComm = kEwSame | kCommutative;
  // Unary.
  defs.push_back({"stablehlo.abs", kEw, absRule, {}, "Absolute value.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.bitcast_convert", kPure, bitcastConvertRule, {}, "Reinterprets bits as another type.",
                  PrettyForm::kFunctional});
  defs.push_back({"stablehlo.cbrt", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Cube root.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.ceil", kEwSame, unaryRule<kFloatOrPerTensorQuant>, {}, "Ceiling.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.convert", kEw, convertRule, {}, "Converts element type.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.cosine", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Cosine.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.count_leading_zeros", kEwSame, unaryRule<kInt>, {}, "Counts leading zero bits.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.exponential", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "e^x.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.exponential_minus_one", kEwSame | kTranscendental,
                  unaryRule<kFloatComplexOrPerTensorQuant>, {"result_accuracy"}, "e^x - 1.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.floor", kEwSame, unaryRule<kFloatOrPerTensorQuant>, {}, "Floor.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.imag", kEw, complexPartRule, {}, "Imaginary part.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.is_finite", kEw, isFiniteRule, {}, "Tests for finite values.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.log", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Natural logarithm.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.log_plus_one", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "log(1 + x).", PrettyForm::kSameType});
  defs.push_back({"stablehlo.logistic", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Logistic sigmoid.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.negate", kEwSame, unaryRule<kNumericOrPerTensorQuant>, {}, "Negation.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.not", kEwSame, unaryRule<kBoolOrInt>, {}, "Logical or bitwise NOT.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.popcnt", kEwSame, unaryRule<kInt>, {}, "Counts set bits.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.real", kEw, complexPartRule, {}, "Real part.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.reduce_precision", kEwSame, reducePrecisionRule, {"exponent_bits", "mantissa_bits"},
                  "Rounds to a narrower float format.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.round_nearest_afz", kEwSame, unaryRule<kFloatOrPerTensorQuant>, {},
                  "Rounds half away from zero.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.round_nearest_even", kEwSame, unaryRule<kFloatOrPerTensorQuant>, {},
                  "Rounds half to even.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.rsqrt", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Reciprocal square root.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.sign", kEwSame, unaryRule<kSignedInt | kFloatComplexOrPerTensorQuant>, {}, "Sign.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.sine", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Sine.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.sqrt", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Square root.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.tan", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Tangent.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.tanh", kEwSame | kTranscendental, unaryRule<kFloatComplexOrPerTensorQuant>,
                  {"result_accuracy"}, "Hyperbolic tangent.", PrettyForm::kSameType});
  // Binary and ternary.
  defs.push_back({"stablehlo.add", kEwComm, addRule, {}, "Addition.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.and", kEwComm, binaryRule<kBoolOrInt>, {}, "Logical or bitwise AND.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.atan2", kEwSame | kTranscendental, binaryRule<kFloatComplexOrPerTensorQuant>, {},
                  "atan2(lhs, rhs).", PrettyForm::kSameType});
  defs.push_back({"stablehlo.clamp", kEw, clampRule, {}, "Clamps between min and max.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.compare", kEw, compareRule, {"comparison_direction", "compare_type"},
                  "Elementwise comparison.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.complex", kEw, complexRule, {}, "Builds complex numbers.", PrettyForm::kCustom});
  defs.push_back({"stablehlo.divide", kEwSame, binaryRule<kNumericOrPerTensorQuant>, {}, "Division.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.maximum", kEwComm, binaryRule<kAnyOrPerTensorQuant>, {}, "Maximum.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.minimum", kEwComm, binaryRule<kAnyOrPerTensorQuant>, {}, "Minimum.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.multiply", kEwComm, binaryRule<kAnyOrPerTensorQuant>, {}, "Multiplication.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.or", kEwComm, binaryRule<kBoolOrInt>, {}, "Logical or bitwise OR.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.power", kEwSame | kTranscendental, binaryRule<kNumericOrPerTensorQuant>, {},
                  "Exponentiation.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.remainder", kEwSame, binaryRule<kNumericOrPerTensorQuant>, {}, "Remainder.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.select", kEw, selectRule, {}, "Selects between two tensors by a predicate.",
                  PrettyForm::kCustom});
  defs.push_back({"stablehlo.shift_left", kEwSame, binaryRule<kInt>, {}, "Left shift.", PrettyForm::kSameType});
  defs.push_back({"stablehlo.shift_right_arithmetic", kEwSame, binaryRule<kInt>, {}, "Arithmetic right shift.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.shift_right_logical", kEwSame, binaryRule<kInt>, {}, "Logical right shift.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.subtract", kEwSame, binaryRule<kNumericOrPerTensorQuant>, {}, "Subtraction.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.xor", kEwComm, binaryRule<kBoolOrInt>, {}, "Logical or bitwise XOR.",
                  PrettyForm::kSameType});
  defs.push_back({"stablehlo.map", kPure, mapRule, {"dimensions"}, "Applies a function elementwise."});
}

}  // namespace kiln
