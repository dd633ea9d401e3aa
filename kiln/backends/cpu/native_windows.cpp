// Native reduce_window (a single add / multiply / maximum / minimum body;
// cumulative ones as running folds) and
// select_and_scatter (a GE / GT select and such a scatter body). Both walk
// windows exactly as the reference kernels in kiln/interp/ops_reduction.cpp
// do: result (or source) elements in row-major order, window positions in
// row-major order, padding folding the init value like an element.
#include <algorithm>
#include <cstring>
#include <memory>

#include "kiln/backends/cpu/native_arith.h"
#include "kiln/backends/cpu/native_routine.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"

namespace kiln::cpu {
namespace {

using interp::Tensor;
using namespace native;

// For every dimension, where window position w of output position o reads
// the input: table[o * window + w] is the input coordinate, or -1 for
// padding and base-dilation holes. Computed once per op instance.
struct WindowPlan {
  static constexpr size_t kMaxRank = 16;  // ranks above take the reference kernel
  std::vector<int64_t> outShape, window, inStrides;
  std::vector<std::vector<int64_t>> table;
  int64_t windowSize = 1;
  // The fast path, for windows with no padding or holes (all of a max
  // pool's): interior[d][o] says dimension d of output o is such, and then
  // window position k reads input base(o) + offsets[k].
  bool hasInterior = true;
  std::vector<std::vector<uint8_t>> interior;
  std::vector<int64_t> offsets;

  // The input index of window position 0 of output `o` if every window
  // position of `o` reads the input, else -1.
  int64_t interiorBase(const std::vector<int64_t>& o) const {
    if (!hasInterior) return -1;
    int64_t linear = 0;
    for (size_t d = 0; d < window.size(); ++d) {
      if (!interior[d][o[d]]) return -1;
      linear += table[d][o[d] * window[d]] * inStrides[d];
    }
    return linear;
  }

  // Calls visit(source) for every window position of output `o` in
  // row-major order, source being the linear input index or -1 for padding.
  // partial[d + 1] holds the offset of dimensions 0..d (or -1), so a step
  // recomputes only the dimensions the odometer moved.
  template <typename Visit> void forEachSource(const std::vector<int64_t>& o, Visit&& visit) const {
    size_t rank = window.size();
    if (windowSize == 0) return;
    int64_t w[kMaxRank], partial[kMaxRank + 1];
    const int64_t* rows[kMaxRank];
    partial[0] = 0;
    for (size_t d = 0; d < rank; ++d) rows[d] = table[d].data() + o[d] * window[d], w[d] = 0;
    size_t from = 0;
    while (true) {
      for (size_t d = from; d < rank; ++d) {
        int64_t s = rows[d][w[d]];
        partial[d + 1] = partial[d] < 0 || s < 0 ? -1 : partial[d] + s * inStrides[d];
      }
      visit(partial[rank]);
      size_t d = rank;
      while (d > 0 && ++w[d - 1] == window[d - 1]) w[--d] = 0;
      if (d == 0) return;
      from = d - 1;
    }
  }
};

// Reads window attributes shared by reduce_window and select_and_scatter;
// null if any is malformed (the reference kernel reports those).
std::shared_ptr<WindowPlan> planWindows(const Operation& op, Type input, Type output, bool dilations) {
  size_t rank = static_cast<size_t>(input.rank());
  std::vector<int64_t> window = intListAttr(op, "window_dimensions");
  std::vector<int64_t> strides = intListAttrOr(op, "window_strides", rank, 1);
  std::vector<int64_t> windowDil(rank, 1), baseDil(rank, 1);
  if (dilations) {
    windowDil = intListAttrOr(op, "window_dilations", rank, 1);
    baseDil = intListAttrOr(op, "base_dilations", rank, 1);
  }
  std::vector<int64_t> low(rank, 0);
  if (Tensor padding = interp::paddingAttr(op)) {
    if (padding.numElements() != static_cast<int64_t>(2 * rank)) return nullptr;
    for (size_t d = 0; d < rank; ++d) low[d] = padding.getInt(static_cast<int64_t>(2 * d));
  }
  for (const auto* list : {&window, &strides, &windowDil, &baseDil})
    if (list->size() != rank) return nullptr;
  if (rank > WindowPlan::kMaxRank) return nullptr;
  for (size_t d = 0; d < rank; ++d)
    if (window[d] < 0 || strides[d] < 1 || windowDil[d] < 1 || baseDil[d] < 1) return nullptr;

  auto plan = std::make_shared<WindowPlan>();
  plan->outShape.assign(output.shape().begin(), output.shape().end());
  plan->window = window;
  plan->inStrides = rowMajorStrides(input.shape());
  for (size_t d = 0; d < rank; ++d) {
    plan->windowSize *= window[d];
    std::vector<int64_t>& t = plan->table.emplace_back(plan->outShape[d] * window[d], -1);
    for (int64_t o = 0; o < plan->outShape[d]; ++o)
      for (int64_t w = 0; w < window[d]; ++w) {
        int64_t q = o * strides[d] + w * windowDil[d] - low[d];
        if (q >= 0 && q % baseDil[d] == 0 && q / baseDil[d] < input.shape()[d]) t[o * window[d] + w] = q / baseDil[d];
      }
    // With base dilation 1 a window with no padding reads evenly spaced inputs.
    plan->hasInterior = plan->hasInterior && baseDil[d] == 1 && window[d] > 0;
    std::vector<uint8_t>& in = plan->interior.emplace_back(plan->outShape[d], 1);
    for (int64_t o = 0; o < plan->outShape[d]; ++o)
      for (int64_t w = 0; w < window[d]; ++w) in[o] = in[o] && t[o * window[d] + w] >= 0;
  }
  if (plan->hasInterior) {
    std::vector<int64_t> w(rank, 0);
    for (int64_t k = 0; k < plan->windowSize; ++k, nextIndex(w, window)) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d) offset += w[d] * windowDil[d] * plan->inStrides[d];
      plan->offsets.push_back(offset);
    }
  }
  return plan;
}

template <typename E, BinaryFn Fn>
void reduceWindows(const WindowPlan& plan, const Tensor& input, const Tensor& init, Tensor& result) {
  const auto* in = dataOf<E>(input);
  auto* out = dataOf<E>(result);
  ValueOf<E> initValue = E::load(*dataOf<E>(init));
  std::vector<int64_t> o(plan.outShape.size(), 0);
  for (int64_t r = 0; r < result.numElements(); ++r, nextIndex(o, plan.outShape)) {
    ValueOf<E> acc = initValue;
    if (int64_t base = plan.interiorBase(o); base >= 0) {
      for (int64_t offset : plan.offsets) acc = apply<E, Fn>(acc, E::load(in[base + offset]));
      out[r] = E::store(acc);
      continue;
    }
    plan.forEachSource(o, [&](int64_t s) { acc = apply<E, Fn>(acc, s < 0 ? initValue : E::load(in[s])); });
    out[r] = E::store(acc);
  }
}

// A reduce_window that is a cumulative reduction along one dimension (JAX's
// cumsum, cumprod, cummax, cummin): stride and dilations 1, windows of 1
// elsewhere, and along `dim` a window at least as long as the dimension,
// padded before it by window - 1 (a prefix: output k folds inputs 0..k) or
// after it (a suffix: inputs k..n-1). Its windows overlap almost wholly, so
// one running fold replaces n window folds (a row of 4096: 45 s -> ms).
struct ScanPlan {
  int64_t outer = 1, length = 1, inner = 1;  // the shape around `dim`, merged
  int64_t window = 1;                         // along `dim`
  bool suffix = false;
};

std::optional<ScanPlan> planScan(const Operation& op, Type input) {
  size_t rank = static_cast<size_t>(input.rank());
  std::vector<int64_t> window = intListAttr(op, "window_dimensions");
  if (window.size() != rank) return std::nullopt;
  for (const char* name : {"window_strides", "window_dilations", "base_dilations"})
    for (int64_t v : intListAttrOr(op, name, rank, 1))
      if (v != 1) return std::nullopt;
  Tensor padding = interp::paddingAttr(op);
  auto pad = [&](size_t d, int side) { return padding ? padding.getInt(static_cast<int64_t>(2 * d + side)) : 0; };
  if (padding && padding.numElements() != static_cast<int64_t>(2 * rank)) return std::nullopt;
  std::optional<size_t> dim;
  for (size_t d = 0; d < rank; ++d) {
    if (window[d] == 1 && pad(d, 0) == 0 && pad(d, 1) == 0) continue;
    if (dim || window[d] < input.shape()[d] || window[d] < 2) return std::nullopt;
    bool prefix = pad(d, 0) == window[d] - 1 && pad(d, 1) == 0;
    bool suffix = pad(d, 0) == 0 && pad(d, 1) == window[d] - 1;
    if (!prefix && !suffix) return std::nullopt;
    dim = d;
  }
  if (!dim) return std::nullopt;
  ScanPlan plan;
  for (size_t d = 0; d < rank; ++d) (d < *dim ? plan.outer : d == *dim ? plan.length : plan.inner) *= input.shape()[d];
  plan.window = window[*dim];
  plan.suffix = pad(*dim, 1) > 0;
  return plan;
}

// The prefix form folds in the reference's order: output k is init, then
// init for each padding position (the same as init when f(init, init) is
// init, checked by the caller), then inputs 0..k: output k - 1 folded with
// input k. Rows of one element are latency-bound chains, so kRows of them
// advance together; four, not eight: rows a multiple of 4 KB apart share L1
// sets, and eight input and eight output streams thrashed them (3x slower).
template <typename E, BinaryFn Fn>
void scanPrefix(const ScanPlan& plan, const typename E::Storage* in, typename E::Storage* out,
                typename E::Storage init) {
  int64_t n = plan.length, inner = plan.inner;
  constexpr int64_t kRows = 2;
  if (inner == 1) {
    int64_t o = 0;
    for (; o + kRows <= plan.outer; o += kRows) {
      ValueOf<E> acc[kRows];
      for (int64_t r = 0; r < kRows; ++r) acc[r] = E::load(init);
      for (int64_t k = 0; k < n; ++k)
        for (int64_t r = 0; r < kRows; ++r) {
          acc[r] = apply<E, Fn>(acc[r], E::load(in[(o + r) * n + k]));
          out[(o + r) * n + k] = E::store(acc[r]);
        }
    }
    for (; o < plan.outer; ++o) {
      ValueOf<E> acc = E::load(init);
      for (int64_t k = 0; k < n; ++k) out[o * n + k] = E::store(acc = apply<E, Fn>(acc, E::load(in[o * n + k])));
    }
    return;
  }
  for (int64_t o = 0; o < plan.outer; ++o) {
    const auto* x = in + o * n * inner;
    auto* y = out + o * n * inner;
    for (int64_t j = 0; j < inner; ++j) y[j] = E::store(apply<E, Fn>(E::load(init), E::load(x[j])));
    for (int64_t k = 1; k < n; ++k)
      for (int64_t j = 0; j < inner; ++j)
        y[k * inner + j] = E::store(apply<E, Fn>(E::load(y[(k - 1) * inner + j]), E::load(x[k * inner + j])));
  }
}

// The suffix form runs from the end: output k is input k folded with output
// k + 1. The reference folds left to right (init, inputs k..n-1, padding),
// so this is its result for associative, commutative folds (integers),
// and a reassociated sum or product for floats, as a vectorized reduce is.
template <typename E, BinaryFn Fn>
void scanSuffix(const ScanPlan& plan, const typename E::Storage* in, typename E::Storage* out,
                typename E::Storage init) {
  int64_t n = plan.length, inner = plan.inner;
  for (int64_t o = 0; o < plan.outer; ++o) {
    const auto* x = in + o * n * inner;
    auto* y = out + o * n * inner;
    for (int64_t j = 0; j < inner; ++j)
      y[(n - 1) * inner + j] = E::store(apply<E, Fn>(E::load(x[(n - 1) * inner + j]), E::load(init)));
    for (int64_t k = n - 1; k-- > 0;)
      for (int64_t j = 0; j < inner; ++j)
        y[k * inner + j] = E::store(apply<E, Fn>(E::load(x[k * inner + j]), E::load(y[(k + 1) * inner + j])));
  }
}

// Every window of a scan folded on its own, in the reference's order: for
// an init that f(init, init) changes, where padding positions count.
template <typename E, BinaryFn Fn>
void scanWindows(const ScanPlan& plan, const typename E::Storage* in, typename E::Storage* out,
                 typename E::Storage init) {
  int64_t n = plan.length, inner = plan.inner, w = plan.window;
  ValueOf<E> initValue = E::load(init);
  for (int64_t o = 0; o < plan.outer; ++o)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < inner; ++j) {
        ValueOf<E> acc = initValue;
        // Window position p reads input k - (w - 1) + p (prefix) or k + p (suffix).
        int64_t first = plan.suffix ? k : k - (w - 1);
        for (int64_t p = 0; p < w; ++p) {
          int64_t q = first + p;
          acc = apply<E, Fn>(acc, q >= 0 && q < n ? E::load(in[(o * n + q) * inner + j]) : initValue);
        }
        out[(o * n + k) * inner + j] = E::store(acc);
      }
}

template <typename E, BinaryFn Fn>
void scan(const ScanPlan& plan, const Tensor& input, const Tensor& init, Tensor& result) {
  if (result.numElements() == 0) return;
  typename E::Storage initBits = *dataOf<E>(init);
  typename E::Storage twice = E::store(apply<E, Fn>(E::load(initBits), E::load(initBits)));
  if (std::memcmp(&twice, &initBits, sizeof initBits) != 0) return scanWindows<E, Fn>(plan, dataOf<E>(input), dataOf<E>(result), initBits);
  if (plan.suffix) return scanSuffix<E, Fn>(plan, dataOf<E>(input), dataOf<E>(result), initBits);
  scanPrefix<E, Fn>(plan, dataOf<E>(input), dataOf<E>(result), initBits);
}

// The compare of a select body `return compare(arg0, arg1)` with direction
// GE or GT and the element type's natural compare type; empty otherwise.
std::string selectDirection(const Operation& op, Type elementType) {
  if (op.numRegions() < 1 || op.region(0).numBlocks() != 1) return "";
  const Block& body = op.region(0).front();
  if (body.numArguments() != 2 || body.size() != 2) return "";
  const Operation& compare = *body.front();
  const Operation& ret = *body.back();
  if (compare.name() != "stablehlo.compare" || compare.numOperands() != 2) return "";
  if (compare.operand(0) != body.argument(0) || compare.operand(1) != body.argument(1)) return "";
  if (ret.name() != "stablehlo.return" || ret.numOperands() != 1 || ret.operand(0) != compare.result(0)) return "";
  for (unsigned i = 0; i < 2; ++i)
    if (body.argument(i)->type() != Type::tensor({}, elementType)) return "";
  std::string type = enumAttr(compare, "compare_type", "");
  bool natural = type.empty() || (elementType.isFloat() ? type == "FLOAT"
                                                         : type == "SIGNED" || (elementType.isUnsignedInteger() && type == "UNSIGNED"));
  std::string direction = enumAttr(compare, "comparison_direction", "");
  if (!natural || (direction != "GE" && direction != "GT")) return "";
  return direction;
}

template <typename E, BinaryFn Fn, bool Strict>
void selectAndScatter(const WindowPlan& plan, const Tensor& operand, const Tensor& source, Tensor& result) {
  const auto* in = dataOf<E>(operand);
  const auto* src = dataOf<E>(source);
  auto* out = dataOf<E>(result);
  std::vector<int64_t> o(plan.outShape.size(), 0);
  for (int64_t s = 0; s < source.numElements(); ++s, nextIndex(o, plan.outShape)) {
    // The first element is the candidate; a later one replaces it unless
    // select(candidate, element) holds.
    int64_t selected = -1;
    ValueOf<E> best{};
    if (int64_t base = plan.interiorBase(o); base >= 0 && !plan.offsets.empty()) {
      // Branch-free: which element wins is data, and a mispredicted branch
      // per element cost more than the selects (max-pool gradients).
      selected = base + plan.offsets[0];
      best = E::load(in[selected]);
      for (size_t k = 1; k < plan.offsets.size(); ++k) {
        int64_t at = base + plan.offsets[k];
        ValueOf<E> v = E::load(in[at]);
        bool keep = Strict ? best > v : best >= v;
        selected = keep ? selected : at;
        best = keep ? best : v;
      }
    } else {
      plan.forEachSource(o, [&](int64_t c) {
        if (c < 0) return;
        ValueOf<E> v = E::load(in[c]);
        bool keep = selected >= 0 && (Strict ? best > v : best >= v);
        if (!keep) selected = c, best = v;
      });
    }
    if (selected >= 0) out[selected] = E::store(apply<E, Fn>(E::load(out[selected]), E::load(src[s])));
  }
}

}  // namespace

std::optional<NativeRoutine> nativeReduceWindow(const Operation& op) {
  if (op.numOperands() != 2 || op.numResults() != 1) return std::nullopt;
  Type input = op.operand(0)->type(), init = op.operand(1)->type(), output = op.result(0)->type();
  if (!isStaticTensor(input) || !isStaticTensor(output) || init != Type::tensor({}, input.elementType()) ||
      output.elementType() != input.elementType() || output.rank() != input.rank())
    return std::nullopt;
  BinaryFn fn = interp::recognizeBinaryBody(op, 0);
  Type elementType = input.elementType();
  if (fn == BinaryFn::None || op.region(0).front().argument(0)->type() != init || !hasArithmetic(elementType))
    return std::nullopt;
  if (std::optional<ScanPlan> scanPlan = planScan(op, input)) {
    // Maximum and minimum of floats from the end would not pick the
    // reference's element among equal ones (-0 and +0).
    bool exactFromEnd = !elementType.isFloat() || fn == BinaryFn::Add || fn == BinaryFn::Multiply;
    if (!scanPlan->suffix || exactFromEnd) {
      NativeRoutine routine{std::string("native cumulative ") + fnName(fn), {}};
      routine.run = [plan = *scanPlan, fn, output, elementType](const std::vector<Tensor>& operands) {
        Tensor result = Tensor::uninitialized(output);  // every element is written
        visitArithmetic(elementType, [&](auto e) {
          withFn(fn, [&](auto f) { scan<decltype(e), decltype(f)::value>(plan, operands[0], operands[1], result); });
        });
        return std::optional<std::vector<Tensor>>(std::vector<Tensor>{result});
      };
      return routine;
    }
  }
  std::shared_ptr<WindowPlan> plan = planWindows(op, input, output, /*dilations=*/true);
  if (!plan) return std::nullopt;
  NativeRoutine routine{std::string("native reduce_window ") + fnName(fn), {}};
  routine.run = [plan, fn, output, elementType](const std::vector<Tensor>& operands) {
    Tensor result(output);
    visitArithmetic(elementType, [&](auto e) {
      withFn(fn, [&](auto f) { reduceWindows<decltype(e), decltype(f)::value>(*plan, operands[0], operands[1], result); });
    });
    return std::optional<std::vector<Tensor>>(std::vector<Tensor>{result});
  };
  return routine;
}

std::optional<NativeRoutine> nativeSelectAndScatter(const Operation& op) {
  if (op.numOperands() != 3 || op.numResults() != 1 || op.numRegions() != 2) return std::nullopt;
  Type operand = op.operand(0)->type(), source = op.operand(1)->type(), output = op.result(0)->type();
  Type elementType = operand.elementType();
  Type scalar = Type::tensor({}, elementType);
  if (!isStaticTensor(operand) || !isStaticTensor(source) || output != operand || op.operand(2)->type() != scalar ||
      source.elementType() != elementType || source.rank() != operand.rank() || !hasArithmetic(elementType))
    return std::nullopt;
  std::string direction = selectDirection(op, elementType);
  BinaryFn fn = interp::recognizeBinaryBody(op, 1);
  if (direction.empty() || fn == BinaryFn::None || op.region(1).front().argument(0)->type() != scalar)
    return std::nullopt;
  std::shared_ptr<WindowPlan> plan = planWindows(op, operand, source, /*dilations=*/false);
  if (!plan) return std::nullopt;
  bool strict = direction == "GT";
  NativeRoutine routine{"native select_and_scatter " + direction + " " + fnName(fn), {}};
  routine.run = [plan, fn, strict, output, elementType](const std::vector<Tensor>& operands) {
    Tensor result(output);
    size_t bytes = elementType.storageBytes();
    size_t total = size_t(result.numElements()) * bytes;
    // The init value in the first element, then doubling copies.
    if (total > 0) std::memcpy(result.bytes(), operands[2].bytes(), bytes);
    for (size_t filled = bytes; filled < total; filled *= 2)
      std::memcpy(result.bytes() + filled, result.bytes(), std::min(filled, total - filled));
    visitArithmetic(elementType, [&](auto e) {
      withFn(fn, [&](auto f) {
        if (strict)
          selectAndScatter<decltype(e), decltype(f)::value, true>(*plan, operands[0], operands[1], result);
        else
          selectAndScatter<decltype(e), decltype(f)::value, false>(*plan, operands[0], operands[1], result);
      });
    });
    return std::optional<std::vector<Tensor>>(std::vector<Tensor>{result});
  };
  return routine;
}

}  // namespace kiln::cpu
