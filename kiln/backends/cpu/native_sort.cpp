// Native sort for comparators that are one compare of one operand's pair of
// elements (`compare LT, %lhs_k, %rhs_k` and its GT / swapped forms, on the
// element type's natural compare type or TOTALORDER for floats), and JAX's
// float comparator, which compares in TOTALORDER after mapping -0 to +0 and
// every NaN to one NaN (`select(x != x, nan, select(x == 0, 0, x))`). Keys are
// loaded once per slice and ordered by the same stable bottom-up merge sort
// as the reference kernel (kiln/interp/ops_data_movement.cpp), so even a
// comparator that is not a strict weak order (FLOAT compares with NaN) gives
// the reference's permutation. chlo.top_k selects each row's k largest
// (partial sort) where the reference sorts the whole row: its order -- IEEE
// total order, descending, lower index first among equal keys -- is a strict
// total order, so any selection gives the reference's k entries in its order.
#include <algorithm>
#include <memory>
#include <numeric>

#include "kiln/backends/cpu/native_arith.h"
#include "kiln/backends/cpu/native_routine.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"

namespace kiln::cpu {
namespace {

using interp::Tensor;
using namespace native;

enum class KeyKind { Float, TotalOrder, CanonicalTotalOrder, Signed, Unsigned };
enum class Direction { LT, LE, GT, GE };

struct SortPlan {
  int64_t dim = 0;
  size_t keyOperand = 0;
  bool swapped = false;  // the compare reads (rhs, lhs)
  KeyKind key = KeyKind::Float;
  Direction direction = Direction::LT;
  std::vector<Type> types;
  uint64_t nanBits = 0, zeroBits = 0;  // CanonicalTotalOrder: what NaNs and zeros become
};

// Sorting `order` by less(a, b) exactly as the reference's merge sort does.
template <typename Less> void mergeSort(std::vector<int64_t>& order, std::vector<int64_t>& buffer, Less&& less) {
  size_t n = order.size();
  buffer.resize(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t a = lo, b = mid, out = lo;
      while (a < mid && b < hi) buffer[out++] = less(order[b], order[a]) ? order[b++] : order[a++];
      while (a < mid) buffer[out++] = order[a++];
      while (b < hi) buffer[out++] = order[b++];
    }
    order.swap(buffer);
  }
}

template <typename K> bool holds(Direction d, K x, K y) {
  switch (d) {
    case Direction::LT: return x < y;
    case Direction::LE: return x <= y;
    case Direction::GT: return x > y;
    case Direction::GE: return x >= y;
  }
  return false;
}

// Element `i` of `t` as a key of the plan's kind, as the reference compare reads it.
double floatKey(const Tensor& t, int64_t i) { return t.getFloat(i); }
int64_t totalOrderOfBits(uint64_t bits, unsigned width) {
  unsigned signBit = width - 1;
  uint64_t magnitude = bits & ((uint64_t(1) << signBit) - 1);
  return (bits >> signBit) & 1 ? -int64_t(magnitude) - 1 : int64_t(magnitude);
}
int64_t totalOrderKey(const Tensor& t, int64_t i) { return totalOrderOfBits(t.getUInt(i), t.elementType().bitWidth()); }

// The defining op of `v` if it is named `name`, else null.
const Operation* producer(const Value* v, std::string_view name) {
  const Operation* op = v->definingOp();
  return op && op->name() == name ? op : nullptr;
}

// The scalar float constant `v` holds, as a 0-d tensor; null if it is not one.
Tensor constantOf(const Value* v) {
  const Operation* op = producer(v, "stablehlo.constant");
  if (!op || !op->attr("value") || v->type().numElements() != 1) return Tensor();  // not a giant splat either
  Tensor t = Tensor::fromDense(op->attr("value"));
  return t && t.numElements() == 1 && t.elementType().isFloat() ? t : Tensor();
}

bool isCompare(const Operation* op, std::string_view direction) {
  if (!op || op->numOperands() != 2) return false;
  std::string type = enumAttr(*op, "compare_type", "FLOAT");
  return type == "FLOAT" && enumAttr(*op, "comparison_direction", "") == direction;
}

// If `v` is JAX's canonicalization of a float, select(x != x, nan,
// select(x == 0, zero, x)), returns x and the bits of nan and zero.
const Value* canonicalizedFloat(const Value* v, uint64_t& nanBits, uint64_t& zeroBits) {
  const Operation* outer = producer(v, "stablehlo.select");
  if (!outer || outer->numOperands() != 3) return nullptr;
  const Operation* isNan = producer(outer->operand(0), "stablehlo.compare");
  const Operation* inner = producer(outer->operand(2), "stablehlo.select");
  Tensor nan = constantOf(outer->operand(1));
  if (!isCompare(isNan, "NE") || isNan->operand(0) != isNan->operand(1) || !inner || inner->numOperands() != 3 || !nan ||
      !std::isnan(nan.getFloat(0)))
    return nullptr;
  const Value* x = isNan->operand(0);
  const Operation* isZero = producer(inner->operand(0), "stablehlo.compare");
  Tensor zero = constantOf(inner->operand(1));
  if (!isCompare(isZero, "EQ") || !zero || zero.getFloat(0) != 0.0 || inner->operand(2) != x) return nullptr;
  const Value* other = isZero->operand(0) == x ? isZero->operand(1) : isZero->operand(1) == x ? isZero->operand(0) : nullptr;
  Tensor otherZero = other ? constantOf(other) : Tensor();
  if (!otherZero || otherZero.getFloat(0) != 0.0) return nullptr;
  nanBits = nan.getUInt(0);
  zeroBits = zero.getUInt(0);
  return x;
}

template <typename K, typename Load>
void sortSlices(const SortPlan& p, const std::vector<Tensor>& inputs, std::vector<Tensor>& results, Load&& load) {
  std::span<const int64_t> shape = inputs[0].shape();
  int64_t length = shape[p.dim];
  if (length == 0) return;
  int64_t stride = rowMajorStrides(shape)[p.dim];
  int64_t outer = 1;
  for (int64_t d = 0; d < p.dim; ++d) outer *= shape[d];
  const Tensor& keys = inputs[p.keyOperand];
  std::vector<K> key(length);
  std::vector<int64_t> order(length), buffer;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t s = 0; s < stride; ++s) {
      int64_t base = o * length * stride + s;
      for (int64_t j = 0; j < length; ++j) key[j] = load(keys, base + j * stride), order[j] = j;
      if (p.swapped)
        mergeSort(order, buffer, [&](int64_t a, int64_t b) { return holds(p.direction, key[b], key[a]); });
      else
        mergeSort(order, buffer, [&](int64_t a, int64_t b) { return holds(p.direction, key[a], key[b]); });
      for (size_t k = 0; k < inputs.size(); ++k) {
        size_t n = p.types[k].elementType().storageBytes();
        for (int64_t j = 0; j < length; ++j)
          std::memcpy(results[k].bytes() + (base + j * stride) * n, inputs[k].bytes() + (base + order[j] * stride) * n, n);
      }
    }
}

}  // namespace

std::optional<NativeRoutine> nativeSort(const Operation& op) {
  size_t n = op.numOperands();
  if (n == 0 || op.numResults() != n || op.numRegions() != 1 || op.region(0).numBlocks() != 1) return std::nullopt;
  auto plan = std::make_shared<SortPlan>();
  Type first = op.operand(0)->type();
  if (!isStaticTensor(first) || first.rank() == 0) return std::nullopt;
  for (size_t k = 0; k < n; ++k) {
    Type t = op.operand(static_cast<unsigned>(k))->type();
    if (!isStaticTensor(t) || op.result(static_cast<unsigned>(k))->type() != t ||
        !std::equal(t.shape().begin(), t.shape().end(), first.shape().begin(), first.shape().end()))
      return std::nullopt;
    plan->types.push_back(t);
  }
  Attribute dimAttr = op.attr("dimension");
  plan->dim = dimAttr ? dimAttr.intValue() : -1;
  if (plan->dim < 0) plan->dim += first.rank();
  if (plan->dim < 0 || plan->dim >= first.rank()) return std::nullopt;

  const Block& body = op.region(0).front();
  const Operation& ret = *body.back();
  if (body.numArguments() != 2 * n || ret.name() != "stablehlo.return" || ret.numOperands() != 1) return std::nullopt;
  const Operation* comparePtr = producer(ret.operand(0), "stablehlo.compare");
  if (!comparePtr || comparePtr->numOperands() != 2) return std::nullopt;
  const Operation& compare = *comparePtr;
  const Value* lhs = compare.operand(0);
  const Value* rhs = compare.operand(1);
  // JAX's float comparator: both sides canonicalized the same way.
  bool canonical = false;
  uint64_t nanL = 0, zeroL = 0, nanR = 0, zeroR = 0;
  if (const Value* l = canonicalizedFloat(lhs, nanL, zeroL)) {
    const Value* r = canonicalizedFloat(rhs, nanR, zeroR);
    if (!r || nanL != nanR || zeroL != zeroR) return std::nullopt;
    lhs = l, rhs = r, canonical = true;
    plan->nanBits = nanL, plan->zeroBits = zeroL;
  } else if (body.size() != 2) {
    return std::nullopt;
  }
  bool found = false;
  for (unsigned k = 0; k < n && !found; ++k) {
    const Value* a = body.argument(2 * k);
    const Value* b = body.argument(2 * k + 1);
    if ((lhs == a && rhs == b) || (lhs == b && rhs == a)) {
      found = true;
      plan->keyOperand = k;
      plan->swapped = lhs == b;
    }
  }
  if (!found) return std::nullopt;
  Type elementType = plan->types[plan->keyOperand].elementType();
  if (lhs->type() != Type::tensor({}, elementType)) return std::nullopt;
  std::string direction = enumAttr(compare, "comparison_direction", "");
  std::string type = enumAttr(compare, "compare_type", "");
  if (direction == "LT") plan->direction = Direction::LT;
  else if (direction == "LE") plan->direction = Direction::LE;
  else if (direction == "GT") plan->direction = Direction::GT;
  else if (direction == "GE") plan->direction = Direction::GE;
  else return std::nullopt;
  TypeKind kind = elementType.kind();
  bool floatKind = kind == TypeKind::F32 || kind == TypeKind::F64 || kind == TypeKind::BF16 || kind == TypeKind::F16;
  if (canonical) {
    if (!floatKind || type != "TOTALORDER") return std::nullopt;
    plan->key = KeyKind::CanonicalTotalOrder;
  } else if (floatKind && (type.empty() || type == "FLOAT")) plan->key = KeyKind::Float;
  else if (floatKind && type == "TOTALORDER") plan->key = KeyKind::TotalOrder;
  else if (elementType.isSignedInteger() && (type.empty() || type == "SIGNED")) plan->key = KeyKind::Signed;
  else if (elementType.isUnsignedInteger() && (type.empty() || type == "SIGNED" || type == "UNSIGNED"))
    plan->key = KeyKind::Unsigned;
  else return std::nullopt;

  static constexpr const char* kKeyNames[] = {"float", "totalorder", "canonical totalorder", "signed", "unsigned"};
  NativeRoutine routine{"native sort " + direction + " " + kKeyNames[int(plan->key)], {}};
  routine.run = [plan](const std::vector<Tensor>& inputs) {
    std::vector<Tensor> results;
    for (const Type& t : plan->types) results.emplace_back(t);
    switch (plan->key) {
      case KeyKind::Float: sortSlices<double>(*plan, inputs, results, floatKey); break;
      case KeyKind::TotalOrder: sortSlices<int64_t>(*plan, inputs, results, totalOrderKey); break;
      case KeyKind::CanonicalTotalOrder: {
        uint64_t nanBits = plan->nanBits, zeroBits = plan->zeroBits;
        unsigned width = plan->types[plan->keyOperand].elementType().bitWidth();
        sortSlices<int64_t>(*plan, inputs, results, [=](const Tensor& t, int64_t i) {
          double x = t.getFloat(i);
          uint64_t bits = std::isnan(x) ? nanBits : x == 0.0 ? zeroBits : t.getUInt(i);
          return totalOrderOfBits(bits, width);
        });
        break;
      }
      case KeyKind::Signed:
        sortSlices<int64_t>(*plan, inputs, results, [](const Tensor& t, int64_t i) { return t.getInt(i); });
        break;
      case KeyKind::Unsigned:
        sortSlices<uint64_t>(*plan, inputs, results, [](const Tensor& t, int64_t i) { return t.getUInt(i); });
        break;
    }
    return std::optional<std::vector<Tensor>>(std::move(results));
  };
  return routine;
}

// Up to this k a row is one pass over a sorted buffer of the best k; above,
// a partial sort.
constexpr int64_t kSmallTopK = 64;

std::optional<NativeRoutine> nativeTopK(const Operation& op) {
  if (op.name() != "chlo.top_k" || op.numOperands() != 1 || op.numResults() != 2) return std::nullopt;
  Type input = op.operand(0)->type(), values = op.result(0)->type(), indices = op.result(1)->type();
  if (!isStaticTensor(input) || !isStaticTensor(values) || !isStaticTensor(indices) || input.rank() == 0 ||
      values.rank() != input.rank() || values.elementType() != input.elementType() ||
      !indices.elementType().isInteger() || !std::ranges::equal(indices.shape(), values.shape()))
    return std::nullopt;
  Type element = input.elementType();
  if (!element.isFloat() && !element.isInteger() && !element.isBool()) return std::nullopt;
  int64_t n = input.shape().back(), k = values.shape().back();
  if (k > n) return std::nullopt;
  NativeRoutine routine{"native top_k", {}};
  routine.run = [n, k, values, indices, element](const std::vector<Tensor>& operands)
      -> std::optional<std::vector<Tensor>> {
    const Tensor& x = operands[0];
    Tensor topValues = Tensor::uninitialized(values), topIndices = Tensor::uninitialized(indices);
    int64_t rows = n && k ? x.numElements() / n : 0;  // k = 0: empty results
    std::vector<int64_t> keys(static_cast<size_t>(n)), order(static_cast<size_t>(n));
    auto before = [&](int64_t a, int64_t b) { return keys[a] > keys[b] || (keys[a] == keys[b] && a < b); };
    const auto* f32 = element.kind() == TypeKind::F32 ? reinterpret_cast<const float*>(x.bytes()) : nullptr;
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t j = 0; j < n; ++j) {
        // interp::topKKey's key; f32 without its per-element decode.
        keys[j] = f32 ? interp::totalOrderKey(f32[row * n + j]) : interp::topKKey(x, row * n + j);
      }
      int64_t kept = 0;
      if (k <= kSmallTopK) {
        // One pass keeping the best k in order: entries come in index order,
        // so one equal to the last kept comes after it and stays out.
        for (int64_t j = 0; j < n; ++j) {
          if (kept == k && !before(j, order[k - 1])) continue;
          int64_t at = kept < k ? kept++ : k - 1;
          while (at > 0 && before(j, order[at - 1])) order[at] = order[at - 1], --at;
          order[at] = j;
        }
      } else {
        std::iota(order.begin(), order.end(), int64_t{0});
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      }
      for (int64_t j = 0; j < k; ++j) {
        topValues.copyElement(row * k + j, x, row * n + order[j]);
        topIndices.setInt(row * k + j, order[j]);
      }
    }
    return std::vector<Tensor>{topValues, topIndices};
  };
  return routine;
}

}  // namespace kiln::cpu
