// The chlo.* ops that JAX leaves in its exported StableHLO
// (`jax.jit(f).lower(...).as_text()`): square, top_k, erf_inv and the
// special functions that XLA expands late. The trigonometric and hyperbolic
// ops (acos ... sinh, tan) and square take complex operands too; the special
// functions (erf, lgamma, ...) are real-float only, as in chlo. Ops of this
// dialect that kiln does not register stay unregistered ops.
#include "kiln/ir/ops/type_rule_helpers.h"

namespace kiln {
namespace {
using namespace rules;

// Result type = operand type, operand element in `Allowed`.
template <uint32_t Allowed>
RuleResult unaryRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", Allowed));
  return Types{operand};
}

// next_after(x, y), polygamma(n, x), zeta(x, q): both operands of one float
// type, which is the result's.
RuleResult binaryFloatRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 2));
  KILN_ASSIGN_OR_RETURN(Type x, tensorOperand(ctx, 0, "lhs", kFloat));
  KILN_ASSIGN_OR_RETURN(Type y, tensorOperand(ctx, 1, "rhs", kFloat));
  if (x != y) return ctx.error("expects both operands to have the same type, got " + x.str() + " and " + y.str());
  return Types{x};
}

// top_k(operand, k): the k largest entries along the last dimension and their
// indices (i32), both of the operand's shape with the last dimension k.
// Booleans order false < true.
RuleResult topKRule(const OpTypeContext& ctx) {
  KILN_RETURN_IF_ERROR(checkOperandCount(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Type operand, tensorOperand(ctx, 0, "operand", kBool | kInt | kFloat));
  KILN_ASSIGN_OR_RETURN(int64_t k, intAttr(ctx, "k"));
  if (operand.rank() < 1) return ctx.error("expects operand to have rank >= 1, got " + operand.str());
  Dims shape(operand.shape().begin(), operand.shape().end());
  if (k < 0 || k > shape.back())
    return ctx.error("expects k in [0, " + str(shape.back()) + "] (the last dimension), got " + str(k));
  shape.back() = k;
  Type values = Type::tensor(shape, operand.elementType());
  return Types{values, values.withElementType(Type::si32())};
}

}  // namespace

void registerChloOps(std::vector<OpDef>& defs) {
  constexpr uint32_t kEw = kPure | kElementwise;
  defs.push_back({"chlo.square", kEw, unaryRule<kFloatOrComplex>, {}, "x * x.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.acos", kEw, unaryRule<kFloatOrComplex>, {}, "Arc cosine.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.acosh", kEw, unaryRule<kFloatOrComplex>, {}, "Inverse hyperbolic cosine.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.asin", kEw, unaryRule<kFloatOrComplex>, {}, "Arc sine.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.asinh", kEw, unaryRule<kFloatOrComplex>, {}, "Inverse hyperbolic sine.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.atan", kEw, unaryRule<kFloatOrComplex>, {}, "Arc tangent.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.atanh", kEw, unaryRule<kFloatOrComplex>, {}, "Inverse hyperbolic tangent.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.cosh", kEw, unaryRule<kFloatOrComplex>, {}, "Hyperbolic cosine.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.sinh", kEw, unaryRule<kFloatOrComplex>, {}, "Hyperbolic sine.", PrettyForm::kChloElementwise});
  // chlo.tan predates stablehlo.tan; the legalize pass rewrites it into that.
  defs.push_back({"chlo.tan", kEw | kLegalized, unaryRule<kFloatOrComplex>, {}, "Tangent.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.erf", kEw | kTranscendental, unaryRule<kFloat>, {}, "Error function.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.erfc", kEw, unaryRule<kFloat>, {}, "Complementary error function.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.erf_inv", kEw, unaryRule<kFloat>, {}, "Inverse error function.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.lgamma", kEw, unaryRule<kFloat>, {}, "log |Gamma(x)|.", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.next_after", kEw, binaryFloatRule, {}, "The next float after x towards y.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.digamma", kEw, unaryRule<kFloat>, {}, "psi(x), the derivative of ln Gamma.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.polygamma", kEw, binaryFloatRule, {}, "psi^(n)(x), the n-th derivative of digamma.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.zeta", kEw, binaryFloatRule, {}, "Hurwitz zeta(x, q) = sum over k of (k + q)^-x.",
                  PrettyForm::kChloElementwise});
  defs.push_back({"chlo.bessel_i1e", kEw, unaryRule<kFloat>, {}, "e^-|x| I1(x).", PrettyForm::kChloElementwise});
  defs.push_back({"chlo.top_k", kPure, topKRule, {"k"}, "The k largest entries of the last dimension.",
                  PrettyForm::kCustom});
}

}  // namespace kiln
