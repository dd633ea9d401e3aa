#include "kiln/ir/ops/type_rule_helpers.h"

#include <algorithm>
#include <set>

#include "kiln/support/format.h"

namespace kiln::rules {

namespace {
std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }
}  // namespace

// --- Categories --------------------------------------------------------------

uint32_t categoryOf(Type e) {
  if (!e) return 0;
  if (e.isBool()) return kBool;
  if (e.isSignedInteger()) return kSignedInt;
  if (e.isUnsignedInteger()) return kUnsignedInt;
  if (e.isFloat()) return kFloat;
  if (e.isComplex()) return kComplex;
  if (e.isQuantized()) return e.quant().quantizedDimension ? kPerAxisQuant : kPerTensorQuant;
  return 0;
}

std::string describeCategories(uint32_t mask) {
  if ((mask & kAnyElement) == kAnyElement) return "tensor or quantized tensor";
  std::vector<std::string> kinds;
  if ((mask & kAnyNonQuant) == kAnyNonQuant) {
    kinds.push_back("any");
  } else {
    if (mask & kBool) kinds.push_back("boolean");
    if ((mask & kInt) == kInt) kinds.push_back("integer");
    else if (mask & kSignedInt) kinds.push_back("signed integer");
    else if (mask & kUnsignedInt) kinds.push_back("unsigned integer");
    if (mask & kFloat) kinds.push_back("floating-point");
    if (mask & kComplex) kinds.push_back("complex");
  }
  std::string text;
  if (!kinds.empty()) {
    text = "tensor of ";
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (i) text += i + 1 == kinds.size() ? " or " : ", ";
      text += kinds[i];
    }
    text += " type";
  }
  const char* quant = (mask & kQuant) == kQuant ? "quantized tensor"
                      : (mask & kPerTensorQuant) ? "per-tensor quantized tensor"
                                                  : nullptr;
  if (quant) text += (text.empty() ? "" : " or ") + std::string(quant);
  return text;
}

// --- Type facts ----------------------------------------------------------------

static Type elementOf(Type t) { return t.isTensor() ? t.elementType() : t; }

bool isPerAxisQuantized(Type t) { return categoryOf(elementOf(t)) == kPerAxisQuant; }
bool isPerTensorQuantized(Type t) { return categoryOf(elementOf(t)) == kPerTensorQuant; }

Type expressedOrSelf(Type e) { return e.isQuantized() ? e.quant().expressedType : e; }

bool sameStorageAndExpressed(Type a, Type b) {
  return a.isQuantized() && b.isQuantized() && a.quant().storageType == b.quant().storageType &&
         a.quant().expressedType == b.quant().expressedType;
}

bool sameBaselineElement(Type a, Type b) {
  if (a == b) return true;
  if (!sameStorageAndExpressed(a, b)) return false;
  const QuantParams &qa = a.quant(), &qb = b.quant();
  return qa.storageMin == qb.storageMin && qa.storageMax == qb.storageMax &&
         qa.quantizedDimension == qb.quantizedDimension;
}

bool sameShape(Type a, Type b) {
  return a.isTensor() && b.isTensor() && std::ranges::equal(a.shape(), b.shape());
}

bool sameBaselineType(Type a, Type b) {
  if (a == b) return true;
  return sameShape(a, b) && sameBaselineElement(a.elementType(), b.elementType());
}

bool isPromotable(Type from, Type to) {
  if (from == to) return true;
  uint32_t cf = categoryOf(from), ct = categoryOf(to);
  // Integers promote across signedness; quantized types by storage width
  // when they express the same type.
  auto sameKind = [](uint32_t a, uint32_t b, uint32_t kind) { return (a & kind) && (b & kind); };
  if (sameKind(cf, ct, kInt) || sameKind(cf, ct, kFloat) || sameKind(cf, ct, kComplex))
    return to.bitWidth() >= from.bitWidth();
  if (sameKind(cf, ct, kQuant))
    return from.quant().expressedType == to.quant().expressedType &&
           to.quant().storageType.bitWidth() >= from.quant().storageType.bitWidth();
  return false;
}

Types elementTypesOf(std::span<const Type> tensors) {
  Types out;
  for (Type t : tensors) out.push_back(t.elementType());
  return out;
}

Type scalarTensor(Type element) { return Type::tensor(std::span<const int64_t>{}, element); }

std::string dimsStr(std::span<const int64_t> dims) { return "[" + joinInts(dims) + "]"; }

std::string typeListStr(std::span<const Type> types) {
  std::string s = "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].str();
  return s + ")";
}

// --- Operands ------------------------------------------------------------------

Status checkOperandCount(const OpTypeContext& ctx, size_t expected) {
  if (ctx.operandTypes.size() == expected) return Status::ok();
  return ctx.error("expects " + str(expected) + " operands, got " + str(ctx.operandTypes.size()));
}

Status checkMinOperandCount(const OpTypeContext& ctx, size_t minimum) {
  if (ctx.operandTypes.size() >= minimum) return Status::ok();
  return ctx.error("expects at least " + str(minimum) + " operands, got " + str(ctx.operandTypes.size()));
}

Status checkTensorOf(const OpTypeContext& ctx, Type t, std::string_view name, uint32_t allowed) {
  if (t.isTensor() && (categoryOf(t.elementType()) & allowed)) return Status::ok();
  return ctx.error("expects " + std::string(name) + " to be a " + describeCategories(allowed) + ", got " +
                   t.str());
}

Expected<Type> tensorOperand(const OpTypeContext& ctx, size_t i, std::string_view name, uint32_t allowed) {
  if (i >= ctx.operandTypes.size()) return ctx.error("expects an operand '" + std::string(name) + "'");
  KILN_RETURN_IF_ERROR(checkTensorOf(ctx, ctx.operandTypes[i], name, allowed));
  return ctx.operandTypes[i];
}

Status checkRank(const OpTypeContext& ctx, Type t, std::string_view name, int64_t rank) {
  if (t.isTensor() && t.rank() == rank) return Status::ok();
  return ctx.error("expects " + std::string(name) + " to be a " + str(rank) + "-dimensional tensor, got " +
                   t.str());
}

// --- Attributes ------------------------------------------------------------------

Expected<int64_t> intAttr(const OpTypeContext& ctx, std::string_view name) {
  Attribute a = ctx.attr(name);
  if (!a) return ctx.error("requires attribute " + quoted(name));
  if (!a.is(AttrKind::Integer)) return ctx.error("expects attribute " + quoted(name) + " to be an integer");
  return a.intValue();
}

int64_t intAttrOr(const OpTypeContext& ctx, std::string_view name, int64_t fallback) {
  Attribute a = ctx.attr(name);
  return a && a.is(AttrKind::Integer) ? a.intValue() : fallback;
}

bool boolAttrOr(const OpTypeContext& ctx, std::string_view name, bool fallback) {
  Attribute a = ctx.attr(name);
  if (!a) return fallback;
  if (a.is(AttrKind::Unit)) return true;
  return a.is(AttrKind::Bool) || a.is(AttrKind::Integer) ? a.intValue() != 0 : fallback;
}

Status checkAttributeElements(const OpTypeContext& ctx, std::string_view name, const Attribute& a) {
  if (!a.is(AttrKind::DenseElements)) return Status::ok();
  // numElements() saturates (types.h), and a `?` dimension is not a count.
  Type t = a.valueType();
  int64_t n = t.numElements();
  if (n >= 0 && n <= kMaxAttributeElements) return Status::ok();
  return ctx.error("expects attribute " + quoted(name) + " (" + t.str() + ") to have at most " +
                   str(kMaxAttributeElements) + " elements");
}

Expected<Dims> intListAttr(const OpTypeContext& ctx, std::string_view name) {
  Attribute a = ctx.attr(name);
  if (!a) return ctx.error("requires attribute " + quoted(name));
  KILN_RETURN_IF_ERROR(checkAttributeElements(ctx, name, a));
  std::optional<Dims> v = a.asIntList();
  if (!v) return ctx.error("expects attribute " + quoted(name) + " to be a list of integers");
  return *v;
}

Expected<Dims> intListAttrOr(const OpTypeContext& ctx, std::string_view name, Dims fallback) {
  Attribute a = ctx.attr(name);
  if (!a) return fallback;
  KILN_RETURN_IF_ERROR(checkAttributeElements(ctx, name, a));
  std::optional<Dims> v = a.asIntList();
  return v ? *v : fallback;
}

Expected<Dims> structIntList(const OpTypeContext& ctx, Attribute s, std::string_view field) {
  Attribute f = s.get(field);
  if (!f) return Dims{};
  KILN_RETURN_IF_ERROR(checkAttributeElements(ctx, field, f));
  std::optional<Dims> v = f.asIntList();
  if (!v) return ctx.error("expects " + std::string(field) + " to be a list of integers");
  return *v;
}

Expected<int64_t> structInt(const OpTypeContext& ctx, Attribute s, std::string_view field) {
  Attribute f = s.get(field);
  if (!f || !f.is(AttrKind::Integer)) return ctx.error("requires an integer " + std::string(field));
  return f.intValue();
}

Expected<std::optional<std::string>> enumAttr(const OpTypeContext& ctx, std::string_view name,
                                              std::initializer_list<std::string_view> allowed) {
  Attribute a = ctx.attr(name);
  if (!a) return std::optional<std::string>();
  if (!a.is(AttrKind::Enum) && !a.is(AttrKind::String))
    return ctx.error("expects attribute " + quoted(name) + " to be an enum");
  const std::string& v = a.stringValue();
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string list;
    for (std::string_view s : allowed) list += (list.empty() ? "" : ", ") + std::string(s);
    return ctx.error("expects " + std::string(name) + " to be one of " + list + ", got " + v);
  }
  return std::optional<std::string>(v);
}

Status checkEnumAttr(const OpTypeContext& ctx, std::string_view name,
                     std::initializer_list<std::string_view> allowed) {
  Expected<std::optional<std::string>> value = enumAttr(ctx, name, allowed);
  return value ? Status::ok() : value.takeStatus();
}

Expected<std::optional<DenseInts>> denseIntsAttr(const OpTypeContext& ctx, std::string_view name) {
  Attribute a = ctx.attr(name);
  if (!a) return std::optional<DenseInts>();
  if (!a.is(AttrKind::DenseElements) || !a.valueType().elementType().isInteger())
    return ctx.error("expects attribute " + quoted(name) + " to be a dense integer tensor");
  KILN_RETURN_IF_ERROR(checkAttributeElements(ctx, name, a));
  Type t = a.valueType();
  Type e = t.elementType();
  unsigned bytes = e.storageBytes();
  std::span<const uint8_t> data = a.denseData();
  DenseInts out{Dims(t.shape().begin(), t.shape().end()), {}};
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const uint8_t* p = data.data() + (a.denseIsSplat() ? 0 : i * bytes);
    uint64_t raw = 0;
    for (unsigned b = 0; b < bytes; ++b) raw |= uint64_t(p[b]) << (8 * b);
    // Sign-extend signed values narrower than 64 bits.
    if (e.isSignedInteger() && bytes < 8 && (raw >> (8 * bytes - 1)) & 1) raw |= ~uint64_t(0) << (8 * bytes);
    out.values.push_back(static_cast<int64_t>(raw));
  }
  return std::optional<DenseInts>(std::move(out));
}

// --- Dimension lists ---------------------------------------------------------------

Status checkSize(const OpTypeContext& ctx, std::string_view what, size_t size, size_t expected) {
  if (size == expected) return Status::ok();
  return ctx.error("expects " + std::string(what) + " to have " + str(expected) + " elements, got " + str(size));
}

Status checkDimsInRange(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> dims,
                        int64_t rank) {
  for (int64_t d : dims)
    if (d < 0 || d >= rank)
      return ctx.error("expects " + std::string(what) + " to be in [0, " + str(rank) + "), got " + str(d));
  return Status::ok();
}

Status checkUnique(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> dims) {
  std::set<int64_t> seen;
  for (int64_t d : dims)
    if (!seen.insert(d).second)
      return ctx.error("expects " + std::string(what) + " to be unique, got " + dimsStr(dims));
  return Status::ok();
}

Status checkSorted(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> dims) {
  if (std::ranges::is_sorted(dims)) return Status::ok();
  return ctx.error("expects " + std::string(what) + " to be sorted, got " + dimsStr(dims));
}

Status checkAllPositive(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> values) {
  for (int64_t v : values)
    if (v <= 0) return ctx.error("expects " + std::string(what) + " to be positive, got " + dimsStr(values));
  return Status::ok();
}

Status checkPermutation(const OpTypeContext& ctx, std::string_view what, std::span<const int64_t> perm,
                        int64_t rank) {
  Dims sorted(perm.begin(), perm.end());
  std::ranges::sort(sorted);
  bool isIota = static_cast<int64_t>(sorted.size()) == rank;
  for (int64_t i = 0; isIota && i < rank; ++i) isIota = sorted[i] == i;
  if (isIota) return Status::ok();
  return ctx.error("expects " + std::string(what) + " to be a permutation of [0, " + str(rank) + "), got " +
                   dimsStr(perm));
}

Dims concat(std::span<const int64_t> a, std::span<const int64_t> b) {
  Dims out(a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

bool contains(std::span<const int64_t> dims, int64_t d) { return std::ranges::find(dims, d) != dims.end(); }

// --- Results -------------------------------------------------------------------------

RuleResult inferredOrCompatibleDeclared(const OpTypeContext& ctx, Types inferred) {
  if (!ctx.hasDeclaredResults || ctx.declaredResults.size() != inferred.size()) return inferred;
  for (size_t i = 0; i < inferred.size(); ++i)
    if (!sameBaselineType(ctx.declaredResults[i], inferred[i])) return inferred;
  return Types(ctx.declaredResults.begin(), ctx.declaredResults.end());
}

RuleResult declaredResults(const OpTypeContext& ctx, std::optional<size_t> count) {
  if (count && *count > 0 && !ctx.hasDeclaredResults)
    return ctx.error("requires explicit result types (they cannot be inferred)");
  if (count && ctx.declaredResults.size() != *count)
    return ctx.error("expects " + str(*count) + " results, got " + str(ctx.declaredResults.size()));
  return Types(ctx.declaredResults.begin(), ctx.declaredResults.end());
}

Expected<Type> singleDeclaredTensor(const OpTypeContext& ctx) {
  KILN_ASSIGN_OR_RETURN(Types results, declaredResults(ctx, 1));
  if (!results[0].isTensor()) return ctx.error("expects its result to be a tensor, got " + results[0].str());
  return results[0];
}

// --- Regions -------------------------------------------------------------------------

Status checkRegionCount(const OpTypeContext& ctx, size_t expected) {
  if (ctx.regions.size() == expected) return Status::ok();
  return ctx.error("expects " + str(expected) + " regions, got " + str(ctx.regions.size()));
}

static Expected<const Block*> entryBlock(const OpTypeContext& ctx, size_t i, std::string_view name) {
  if (i >= ctx.regions.size()) return ctx.error("expects a region '" + std::string(name) + "'");
  const Region& r = *ctx.regions[i];
  if (r.empty()) return ctx.error("expects " + std::string(name) + " to have a block");
  return &r.front();
}

Expected<Types> regionArgTypes(const OpTypeContext& ctx, size_t i, std::string_view name) {
  KILN_ASSIGN_OR_RETURN(const Block* b, entryBlock(ctx, i, name));
  return b->argumentTypes();
}

Expected<Types> regionReturnTypes(const OpTypeContext& ctx, size_t i, std::string_view name) {
  KILN_ASSIGN_OR_RETURN(const Block* b, entryBlock(ctx, i, name));
  const Operation* term = b->terminator();
  if (!term || term->name() != "stablehlo.return")
    return ctx.error("expects " + std::string(name) + " to end with 'stablehlo.return'");
  return term->operandTypes();
}

static std::string functionTypeStr(std::span<const Type> args, std::span<const Type> results) {
  return typeListStr(args) + " -> " + typeListStr(results);
}

Status checkRegionType(const OpTypeContext& ctx, size_t i, std::string_view name, std::span<const Type> args,
                       std::span<const Type> results) {
  KILN_ASSIGN_OR_RETURN(Types actualArgs, regionArgTypes(ctx, i, name));
  KILN_ASSIGN_OR_RETURN(Types actualResults, regionReturnTypes(ctx, i, name));
  if (std::ranges::equal(actualArgs, args) && std::ranges::equal(actualResults, results)) return Status::ok();
  return ctx.error("expects " + std::string(name) + " to have type " + functionTypeStr(args, results) +
                   ", got " + functionTypeStr(actualArgs, actualResults));
}

Expected<Types> reductionBodyElements(const OpTypeContext& ctx, size_t i, std::string_view name,
                                      std::span<const Type> inputElements) {
  KILN_ASSIGN_OR_RETURN(Types args, regionArgTypes(ctx, i, name));
  KILN_ASSIGN_OR_RETURN(Types results, regionReturnTypes(ctx, i, name));
  const size_t n = inputElements.size();
  auto fail = [&](std::string why) {
    return ctx.error("expects " + std::string(name) + " to have type (tensor<E0>, ..., tensor<E0>, ...) -> " +
                     "(tensor<E0>, ...) with " + str(n) + " inputs, got " + functionTypeStr(args, results) + ": " +
                     why);
  };
  if (args.size() != 2 * n) return fail("expected " + str(2 * n) + " arguments");
  if (results.size() != n) return fail("expected " + str(n) + " results");
  Types elements;
  for (size_t k = 0; k < n; ++k) {
    Type t = args[k];
    if (!t.isTensor() || t.rank() != 0) return fail("arguments must be 0-dimensional tensors");
    if (args[n + k] != t || results[k] != t) return fail("argument " + str(k) + " and its pair differ");
    if (!isPromotable(inputElements[k], t.elementType()))
      return fail(inputElements[k].str() + " is not promotable to " + t.elementType().str());
    elements.push_back(t.elementType());
  }
  return elements;
}

// --- Windows and process groups ------------------------------------------------------

Expected<Dims> windowAttr(const OpTypeContext& ctx, std::string_view name, int64_t size, bool required) {
  Dims values;
  if (required) {
    KILN_ASSIGN_OR_RETURN(values, intListAttr(ctx, name));
  } else {
    KILN_ASSIGN_OR_RETURN(values, intListAttrOr(ctx, name, Dims(size, 1)));
  }
  KILN_RETURN_IF_ERROR(checkSize(ctx, name, values.size(), size));
  KILN_RETURN_IF_ERROR(checkAllPositive(ctx, name, values));
  return values;
}

Expected<Dims> paddingAttr(const OpTypeContext& ctx, int64_t size) {
  KILN_ASSIGN_OR_RETURN(std::optional<DenseInts> padding, denseIntsAttr(ctx, "padding"));
  if (!padding) return Dims(2 * size, 0);
  if (padding->shape != Dims{size, 2})
    return ctx.error("expects padding to have shape [" + str(size) + ", 2], got " + dimsStr(padding->shape));
  return padding->values;
}

std::optional<int64_t> numWindows(int64_t inputSize, int64_t baseDilation, int64_t padLow, int64_t padHigh,
                                  int64_t windowSize, int64_t windowDilation, int64_t stride) {
  if (inputSize == Type::kDynamic || windowSize == Type::kDynamic) return Type::kDynamic;
  // In 128 bits: each term is below 2^127 for any int64 operands.
  using Wide = __int128;
  Wide dilatedInput = inputSize == 0 ? 0 : Wide(inputSize - 1) * baseDilation + 1;
  Wide paddedInput = Wide(padLow) + dilatedInput + padHigh;
  Wide dilatedWindow = windowSize == 0 ? 0 : Wide(windowSize - 1) * windowDilation + 1;
  if (paddedInput <= 0 || dilatedWindow > paddedInput) return int64_t(0);
  Wide windows = (paddedInput - dilatedWindow) / stride + 1;
  if (windows > INT64_MAX) return std::nullopt;
  return int64_t(windows);
}

Expected<std::optional<int64_t>> checkReplicaGroups(const OpTypeContext& ctx, bool ragged, bool denseIds) {
  KILN_ASSIGN_OR_RETURN(std::optional<DenseInts> groups, denseIntsAttr(ctx, "replica_groups"));
  if (!groups) return std::optional<int64_t>();
  if (groups->shape.size() != 2)
    return ctx.error("expects replica_groups to be a 2-dimensional tensor");
  std::set<int64_t> seen;
  for (int64_t v : groups->values) {
    if (v == -1 && ragged) continue;  // padding of ragged groups
    if (v < 0) return ctx.error("expects replica_groups to be non-negative, got " + str(v));
    if (!seen.insert(v).second) return ctx.error("expects replica_groups to be unique, got " + str(v) + " twice");
  }
  // The ids are unique, so they are 0..N-1 exactly when the largest is N-1.
  if (denseIds && !seen.empty() && *seen.rbegin() >= int64_t(seen.size()))
    return ctx.error("expects replica_groups to hold the ids 0 to " + str(int64_t(seen.size()) - 1) + ", got " +
                     str(*seen.rbegin()));
  if (groups->values.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(groups->shape[1]);
}

}  // namespace kiln::rules
