// Shared vocabulary of the type rules: the predicates and checks that the
// StableHLO specification's constraints are written in ("same shape", "is a
// permutation", "is_promotable", "baseline_type", ...). Each fact lives here
// once so every op's rule reads like its (C1), (C2), ... list.
// Internal to kiln/ir/ops.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kiln/ir/op_registry.h"
#include "kiln/support/format.h"

namespace kiln::rules {

using Types = std::vector<Type>;
using RuleResult = Expected<Types>;
using Dims = std::vector<int64_t>;

// ---------------------------------------------------------------------------
// Element-type categories, combined as a mask to say what an operand may be.
enum ElementCategory : uint32_t {
  kBool = 1u << 0,
  kSignedInt = 1u << 1,
  kUnsignedInt = 1u << 2,
  kFloat = 1u << 3,
  kComplex = 1u << 4,
  kPerTensorQuant = 1u << 5,
  kPerAxisQuant = 1u << 6,

  kInt = kSignedInt | kUnsignedInt,
  kBoolOrInt = kBool | kInt,
  kFloatOrComplex = kFloat | kComplex,
  kNumeric = kInt | kFloat | kComplex,          // "integer, floating-point, or complex"
  kAnyNonQuant = kBool | kNumeric,              // "tensor"
  kQuant = kPerTensorQuant | kPerAxisQuant,
  kAnyElement = kAnyNonQuant | kQuant,          // "tensor or quantized tensor"

  // The common "... or per-tensor quantized tensor" sets of the operand tables.
  kAnyOrPerTensorQuant = kAnyNonQuant | kPerTensorQuant,
  kFloatOrPerTensorQuant = kFloat | kPerTensorQuant,
  kFloatComplexOrPerTensorQuant = kFloatOrComplex | kPerTensorQuant,
  kNumericOrPerTensorQuant = kNumeric | kPerTensorQuant,
};

// The category of one element type (0 for index/opaque and non-element types).
uint32_t categoryOf(Type element);
// "floating-point or complex type or per-tensor quantized tensor".
std::string describeCategories(uint32_t mask);

// ---------------------------------------------------------------------------
// Type facts of the specification.
bool isPerAxisQuantized(Type t);   // tensor or element
bool isPerTensorQuantized(Type t);
// The expressed type of a quantized element, or the element itself.
Type expressedOrSelf(Type element);
// Both quantized, with the same storage and expressed types.
bool sameStorageAndExpressed(Type a, Type b);
// baseline_element_type(a) = baseline_element_type(b): quantized elements
// compare without their scales and zero points.
bool sameBaselineElement(Type a, Type b);
// baseline_type(a) = baseline_type(b): same shape and same baseline element.
bool sameBaselineType(Type a, Type b);
// is_promotable(from, to): same kind of element (integers of either
// signedness) and `to` at least as wide.
bool isPromotable(Type from, Type to);
bool sameShape(Type a, Type b);
// element_type(tensors...).
Types elementTypesOf(std::span<const Type> tensors);
// A 0-dimensional tensor of `element`.
Type scalarTensor(Type element);
inline std::string str(int64_t v) { return std::to_string(v); }
// "[1, 2]".
std::string dimsStr(std::span<const int64_t> dims);
// "(tensor<f32>, tensor<f32>)".
std::string typeListStr(std::span<const Type> types);

// ---------------------------------------------------------------------------
// Operands.
Status checkOperandCount(const OpTypeContext& ctx, size_t expected);
Status checkMinOperandCount(const OpTypeContext& ctx, size_t minimum);
// Operand `i` must be a tensor whose element is in `allowed`; `name` is the
// spec's name for it ("lhs", "operand").
Expected<Type> tensorOperand(const OpTypeContext& ctx, size_t i, std::string_view name,
                             uint32_t allowed = kAnyElement);
Status checkTensorOf(const OpTypeContext& ctx, Type t, std::string_view name, uint32_t allowed);
Status checkRank(const OpTypeContext& ctx, Type t, std::string_view name, int64_t rank);

// ---------------------------------------------------------------------------
// Attributes. Required ones fail with "requires attribute 'x'".
Expected<int64_t> intAttr(const OpTypeContext& ctx, std::string_view name);
int64_t intAttrOr(const OpTypeContext& ctx, std::string_view name, int64_t fallback);
bool boolAttrOr(const OpTypeContext& ctx, std::string_view name, bool fallback);
// The most elements the rules read out of one dense tensor attribute (an
// integer list, replica_groups, padding): a splat stores one element
// whatever its shape, so `dense<0> : tensor<1099511627776xi64>` is a short
// text that would expand to 8 TiB. Longer ones are errors, before anything
// is read (docs/limits.md).
constexpr int64_t kMaxAttributeElements = int64_t(1) << 20;
// The error for attribute `name` when it is a dense tensor of more elements.
Status checkAttributeElements(const OpTypeContext& ctx, std::string_view name, const Attribute& a);
// An integer list (array<i64: ...>, [1, 2], or a rank-1 dense tensor).
Expected<Dims> intListAttr(const OpTypeContext& ctx, std::string_view name);
// The same, or `fallback` when absent or not an integer list.
Expected<Dims> intListAttrOr(const OpTypeContext& ctx, std::string_view name, Dims fallback);
// A field of a struct attribute (#stablehlo.dot<...>), as an integer list;
// absent fields are empty.
Expected<Dims> structIntList(const OpTypeContext& ctx, Attribute s, std::string_view field);
Expected<int64_t> structInt(const OpTypeContext& ctx, Attribute s, std::string_view field);
// The value of an enum attribute ("LT"), or nullopt when absent.
Expected<std::optional<std::string>> enumAttr(const OpTypeContext& ctx, std::string_view name,
                                              std::initializer_list<std::string_view> allowed);
// The same, for an optional enum whose value is not needed.
Status checkEnumAttr(const OpTypeContext& ctx, std::string_view name,
                     std::initializer_list<std::string_view> allowed);
// A dense integer tensor attribute (padding, replica_groups): shape + values.
struct DenseInts {
  Dims shape;
  Dims values;  // row-major
};
Expected<std::optional<DenseInts>> denseIntsAttr(const OpTypeContext& ctx, std::string_view name);

// ---------------------------------------------------------------------------
// Checks on dimension lists; `what` names the list in messages.
Status checkSize(const OpTypeContext& ctx, std::string_view what, size_t size, size_t expected);
Status checkDimsInRange(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> dims,
                        int64_t rank);
Status checkUnique(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> dims);
Status checkSorted(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> dims);
Status checkAllPositive(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> values);
Status checkPermutation(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> perm,
                        int64_t rank);
Dims concat(std::span<const int64_t> a, std::span<const int64_t> b);
bool contains(std::span<const int64_t> dims, int64_t d);

// ---------------------------------------------------------------------------
// Results.
// The results when they are inferred as `inferred`, except that declared
// results whose baseline type matches are kept (quantization parameters of a
// result are free in the spec). Mismatches are reported by the caller of the
// rule (inferOrCheckResultTypes / the verifier).
RuleResult inferredOrCompatibleDeclared(const OpTypeContext& ctx, Types inferred);
// For ops whose result types cannot be derived: the declared results, of which
// there must be `count` (when given).
RuleResult declaredResults(const OpTypeContext& ctx, std::optional<size_t> count = std::nullopt);
Expected<Type> singleDeclaredTensor(const OpTypeContext& ctx);

// ---------------------------------------------------------------------------
// Regions ("functions" in the spec).
// Argument types of region `i` (its entry block) and the operand types of its
// terminator; fails if the region is empty or does not end in a return.
Expected<Types> regionArgTypes(const OpTypeContext& ctx, size_t i, std::string_view name);
Expected<Types> regionReturnTypes(const OpTypeContext& ctx, size_t i, std::string_view name);
Status checkRegionCount(const OpTypeContext& ctx, size_t expected);
// `name` has type `args -> results`.
Status checkRegionType(const OpTypeContext& ctx, size_t i, std::string_view name, std::span<const Type> args,
                       std::span<const Type> results);
// A reduction body: `(tensor<E0>, ..., tensor<EN-1>, tensor<E0>, ..., tensor<EN-1>)
// -> (tensor<E0>, ..., tensor<EN-1>)` with is_promotable(inputElements[i], Ei).
// Returns the Ei.
Expected<Types> reductionBodyElements(const OpTypeContext& ctx, size_t i, std::string_view name,
                                      std::span<const Type> inputElements);

// ---------------------------------------------------------------------------
// Windows (reduce_window, select_and_scatter, convolution).
// A per-dimension window attribute (window_strides, dilations, ...) of `size`
// positive entries; all ones when absent unless `required`.
Expected<Dims> windowAttr(const OpTypeContext& ctx, std::string_view name, int64_t size, bool required = false);
// The `padding` attribute: `size` (low, high) pairs, flattened; zeros when absent.
Expected<Dims> paddingAttr(const OpTypeContext& ctx, int64_t size);
// The number of windows along one dimension, as the spec's num_windows;
// Type::kDynamic for a `?` input or window size; nullopt when the padded,
// dilated sizes or the count overflow int64 (dilations and padding come from
// attributes, any int64).
std::optional<int64_t> numWindows(int64_t inputSize, int64_t baseDilation, int64_t padLow, int64_t padHigh,
                                  int64_t windowSize, int64_t windowDilation, int64_t stride);

// Process groups of collectives (replica_groups): is_unique and 0 <= id.
// `denseIds`: the ids are 0 to N-1 for the N ids named (0 <= replica_groups <
// size(replica_groups)); collective_broadcast's groups may name a subset.
// -1 pads ragged groups, except where every group must have the same size
// (`ragged` false): there a padded slot would be counted in the group size.
// Returns the group size (dim 1), or nullopt when unknown (empty).
Expected<std::optional<int64_t>> checkReplicaGroups(const OpTypeContext& ctx, bool ragged, bool denseIds);

}  // namespace kiln::rules
