// Native gather and scatter. The dimension mapping (which dimensions of the
// result / updates are batch or window dimensions, the strides each walks)
// is worked out once per op instance; a run reads the index vectors once,
// then copies (gather) or folds (scatter) elements in row-major order of the
// result / updates, the order of the reference kernels in
// kiln/interp/ops_data_movement.cpp.
#include <algorithm>
#include <bit>
#include <limits>
#include <type_traits>
#include <cstring>
#include <immintrin.h>
#include <memory>

#include "kiln/backends/cpu/host_isa.h"
#include "kiln/backends/cpu/native_arith.h"
#include "kiln/backends/cpu/native_routine.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"
#include "kiln/ir/windowed_dims.h"
#include "kiln/support/thread_pool.h"

namespace kiln::cpu {
namespace {

using interp::Tensor;
using namespace native;

// The dimension numbers of gather or scatter, under gather's names, with
// the shapes they index.
struct Mapping : WindowedDims {
  std::vector<int64_t> operandShape, windowedShape, indicesShape;

  int64_t numBatches() const {
    int64_t n = 1;
    for (int64_t d : batchDims) n *= windowedShape[d];
    return n;
  }
  // Length of one index vector and the indices' layout around it.
  int64_t vectorLength() const { return indexVectorDim < int64_t(indicesShape.size()) ? indicesShape[indexVectorDim] : 1; }
  int64_t innerSize() const {
    int64_t n = 1;
    for (size_t d = indexVectorDim + 1; d < indicesShape.size(); ++d) n *= indicesShape[d];
    return n;
  }
};

std::shared_ptr<Mapping> readMapping(const Operation& op, Type operand, Type indices, Type windowed) {
  std::optional<WindowedDims> dims = readWindowedDims(op, operand.shape(), indices.shape(), windowed.shape());
  if (!dims) return nullptr;
  auto m = std::make_shared<Mapping>();
  static_cast<WindowedDims&>(*m) = std::move(*dims);
  m->operandShape.assign(operand.shape().begin(), operand.shape().end());
  m->windowedShape.assign(windowed.shape().begin(), windowed.shape().end());
  m->indicesShape.assign(indices.shape().begin(), indices.shape().end());
  return m;
}

// Calls f(const T*) with the indices' data for the integer types stored in
// whole bytes; false for the others (sub-byte, i1), read element by element.
template <typename F> bool withIndexType(const Tensor& indices, F&& f) {
  switch (indices.elementType().kind()) {
    case TypeKind::SI8: f(reinterpret_cast<const int8_t*>(indices.bytes())); return true;
    case TypeKind::SI16: f(reinterpret_cast<const int16_t*>(indices.bytes())); return true;
    case TypeKind::SI32: f(reinterpret_cast<const int32_t*>(indices.bytes())); return true;
    case TypeKind::SI64: f(reinterpret_cast<const int64_t*>(indices.bytes())); return true;
    case TypeKind::UI8: f(reinterpret_cast<const uint8_t*>(indices.bytes())); return true;
    case TypeKind::UI16: f(reinterpret_cast<const uint16_t*>(indices.bytes())); return true;
    case TypeKind::UI32: f(reinterpret_cast<const uint32_t*>(indices.bytes())); return true;
    case TypeKind::UI64: f(reinterpret_cast<const uint64_t*>(indices.bytes())); return true;
    default: return false;
  }
}

// The operand start of every batch position: start index (clamped to fit
// `sliceSizes` when given) plus batching index, one row of operand-rank
// coordinates per batch position.
std::vector<int64_t> batchStarts(const Mapping& m, const Tensor& indices, std::span<const int64_t> sliceSizes) {
  // The indices widened in one typed pass: a type switch per element cost
  // more than the rest of a gather or scatter of single elements.
  std::vector<int64_t> values(static_cast<size_t>(indices.numElements()));
  if (!withIndexType(indices, [&](const auto* typed) { std::copy_n(typed, values.size(), values.begin()); }))
    for (size_t i = 0; i < values.size(); ++i) values[i] = indices.getInt(static_cast<int64_t>(i));
  size_t rank = m.operandShape.size();
  int64_t batches = m.numBatches(), length = m.vectorLength(), inner = m.innerSize();
  std::vector<int64_t> batchShape;
  for (int64_t d : m.batchDims) batchShape.push_back(m.windowedShape[d]);
  std::vector<int64_t> starts(static_cast<size_t>(batches) * rank, 0), batchIndex(batchShape.size(), 0);
  size_t used = std::min<size_t>(m.startIndexMap.size(), static_cast<size_t>(length));
  bool batching = !m.operandBatchingDims.empty();
  for (int64_t b = 0, outer = 0, within = 0; b < batches; ++b) {
    int64_t* start = starts.data() + b * rank;
    for (size_t k = 0; k < used; ++k) {
      int64_t v = values[(outer * length + int64_t(k)) * inner + within];
      int64_t d = m.startIndexMap[k];
      start[d] = sliceSizes.empty() ? v : std::clamp(v, int64_t{0}, m.operandShape[d] - sliceSizes[d]);
    }
    if (++within == inner) within = 0, ++outer;
    if (!batching) continue;
    for (size_t k = 0; k < m.operandBatchingDims.size(); ++k) {
      int64_t d = m.indicesBatchingDims[k];
      start[m.operandBatchingDims[k]] += batchIndex[d < m.indexVectorDim ? d : d - 1];
    }
    nextIndex(batchIndex, batchShape);
  }
  return starts;
}

// A block for one int64 per batch position, from the allocator's recycled
// blocks: fresh, its page faults cost as much as a gather or scatter of
// single elements (a binary search step of jnp.searchsorted).
Tensor offsetsBlock(int64_t count) {
  int64_t shape[] = {count};
  return Tensor::uninitialized(Type::tensor(shape, Type::si64()));
}

// The operand offset where each batch position's slice starts, straight
// from the typed indices (no table of starts): index component k moves
// along operand dim startIndexMap[k], an operand batching dim starts at the
// position's coordinate along its indices batching dim (take_along_axis),
// the other dims at 0. With `sliceSizes` (gather) each start is clamped into
// [0, size - slice]; without (a scatter of single elements) a position out
// of bounds gets -1.
template <typename I>
void sliceOffsets(const Mapping& m, const I* indices, std::span<const int64_t> sliceSizes, int64_t* out) {
  bool clamp = !sliceSizes.empty();
  int64_t batches = m.numBatches(), length = m.vectorLength(), inner = m.innerSize();
  std::vector<int64_t> operandStrides = rowMajorStrides(m.operandShape);
  size_t used = std::min<size_t>(m.startIndexMap.size(), static_cast<size_t>(length));
  std::vector<int64_t> strideOf(used), bound(used);  // bound: the largest start (clamp), else the size
  for (size_t k = 0; k < used; ++k) {
    int64_t d = m.startIndexMap[k];
    strideOf[k] = operandStrides[d];
    bound[k] = clamp ? m.operandShape[d] - sliceSizes[d] : m.operandShape[d];
  }
  // A batching coordinate is (b / divisor) % size over the batch positions' shape.
  std::vector<int64_t> batchShape;
  for (size_t d = 0; d < m.indicesShape.size(); ++d)
    if (int64_t(d) != m.indexVectorDim) batchShape.push_back(m.indicesShape[d]);
  std::vector<int64_t> batchStrides = rowMajorStrides(batchShape);
  size_t numBatching = m.operandBatchingDims.size();
  std::vector<int64_t> divisor(numBatching), size(numBatching), batchingStride(numBatching);
  for (size_t k = 0; k < numBatching; ++k) {
    int64_t d = m.indicesBatchingDims[k], p = d < m.indexVectorDim ? d : d - 1;
    divisor[k] = batchStrides[p];
    size[k] = batchShape[p];
    batchingStride[k] = operandStrides[m.operandBatchingDims[k]];
  }
  if (!clamp && std::any_of(m.operandShape.begin(), m.operandShape.end(), [](int64_t n) { return n == 0; })) {
    std::fill_n(out, batches, int64_t{-1});  // no element to land on
    return;
  }
  if (used == 1 && length == 1 && inner == 1 && numBatching == 0) {
    // One index per position (x[i], x.at[i].add(u), bincount): loops the compiler vectorizes.
    int64_t stride = strideOf[0], last = bound[0];
    if (clamp)
      for (int64_t b = 0; b < batches; ++b) out[b] = std::clamp(static_cast<int64_t>(indices[b]), int64_t{0}, last) * stride;
    else
      for (int64_t b = 0; b < batches; ++b) {
        int64_t v = static_cast<int64_t>(indices[b]);
        out[b] = static_cast<uint64_t>(v) < static_cast<uint64_t>(last) ? v * stride : -1;
      }
    return;
  }
  // Each batching coordinate counted as b advances (a division per element
  // cost ~8 ns, the whole of a batched scatter of single elements).
  std::vector<int64_t> coordinate(numBatching, 0), sinceStep(numBatching, 0);
  for (int64_t b = 0, outer = 0, within = 0; b < batches; ++b) {
    const I* vector = indices + outer * length * inner + within;
    int64_t base = 0;
    bool inBounds = true;
    for (size_t k = 0; k < used; ++k) {
      int64_t v = static_cast<int64_t>(vector[int64_t(k) * inner]);
      if (clamp) v = std::clamp(v, int64_t{0}, bound[k]);
      else inBounds = inBounds && static_cast<uint64_t>(v) < static_cast<uint64_t>(bound[k]);
      base += v * strideOf[k];
    }
    for (size_t k = 0; k < numBatching; ++k) {
      base += coordinate[k] * batchingStride[k];  // (b / divisor[k]) % size[k]
      if (++sinceStep[k] == divisor[k]) {
        sinceStep[k] = 0;
        if (++coordinate[k] == size[k]) coordinate[k] = 0;
      }
    }
    out[b] = inBounds ? base : -1;
    if (++within == inner) within = 0, ++outer;
  }
}

// The hand-vectorized loops below are built for the host's widest vectors
// (hostLanes; this file is built for any x86-64).

// A gather of single 4-byte elements by one 32-bit index each (a binary
// search step of jnp.searchsorted, x[i] on a vector): out[b] =
// in[clamp(idx[b], 0, last) * stride] in one pass with the host's vector
// gathers, where the two-pass form (starts into a block, then the copy)
// took 1.2 ns an element. last * stride < 2^31, so every offset is an i32.
// Elements [from, count) one at a time: the vector loops' remainder.
template <bool Signed>
void gatherWordsFrom(int64_t from, const uint32_t* in, const uint32_t* indices, int64_t count, int32_t last,
                     int32_t stride, uint32_t* out) {
  for (int64_t b = from; b < count; ++b) {
    int64_t v = Signed ? int64_t(int32_t(indices[b])) : int64_t(indices[b]);
    out[b] = in[std::clamp<int64_t>(v, 0, last) * stride];
  }
}

template <bool Signed>
[[gnu::target("avx512f")]] void gatherWordsAvx512(const uint32_t* in, const uint32_t* indices, int64_t count,
                                                   int32_t last, int32_t stride, uint32_t* out) {
  const __m512i high = _mm512_set1_epi32(last), step = _mm512_set1_epi32(stride), zero = _mm512_setzero_si512();
  // The all-lanes masked forms with a zero source: GCC 12's unmasked ones
  // start from an undefined register and warn that it may be uninitialized.
  constexpr __mmask16 all = 0xFFFF;
  int64_t b = 0;
  for (; b + 16 <= count; b += 16) {
    __m512i v = _mm512_loadu_si512(indices + b);
    v = Signed ? _mm512_maskz_min_epi32(all, _mm512_maskz_max_epi32(all, v, zero), high)
               : _mm512_maskz_min_epu32(all, v, high);
    _mm512_storeu_si512(out + b, _mm512_mask_i32gather_epi32(zero, all, _mm512_mullo_epi32(v, step), in, 4));
  }
  gatherWordsFrom<Signed>(b, in, indices, count, last, stride, out);
}

template <bool Signed>
[[gnu::target("avx2")]] void gatherWordsAvx2(const uint32_t* in, const uint32_t* indices, int64_t count, int32_t last,
                                             int32_t stride, uint32_t* out) {
  const __m256i high = _mm256_set1_epi32(last), step = _mm256_set1_epi32(stride), zero = _mm256_setzero_si256();
  int64_t b = 0;
  for (; b + 8 <= count; b += 8) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(indices + b));
    v = Signed ? _mm256_min_epi32(_mm256_max_epi32(v, zero), high) : _mm256_min_epu32(v, high);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + b),
                        _mm256_i32gather_epi32(reinterpret_cast<const int*>(in), _mm256_mullo_epi32(v, step), 4));
  }
  gatherWordsFrom<Signed>(b, in, indices, count, last, stride, out);
}

// Runs a gather of single 4-byte elements, one 32-bit index per element and
// no batching dims, through gatherWords*; false for any other gather or host.
bool gatherWords(const Mapping& m, const Tensor& indices, std::span<const int64_t> sliceSizes, const Tensor& operand,
                 Tensor& result) {
  int width = hostLanes();
  TypeKind kind = indices.elementType().kind();
  int64_t batches = m.numBatches();
  if (width == 0 || operand.elementType().storageBytes() != 4 || (kind != TypeKind::SI32 && kind != TypeKind::UI32) ||
      m.vectorLength() != 1 || m.startIndexMap.size() != 1 || m.innerSize() != 1 || !m.operandBatchingDims.empty() ||
      result.numElements() != batches)
    return false;
  int64_t d = m.startIndexMap[0];
  int64_t last = m.operandShape[d] - sliceSizes[d];
  int64_t stride = rowMajorStrides(m.operandShape)[d];
  if (last < 0 || last * stride >= std::numeric_limits<int32_t>::max()) return false;
  const auto* in = reinterpret_cast<const uint32_t*>(operand.bytes());
  const auto* idx = reinterpret_cast<const uint32_t*>(indices.bytes());
  auto* out = reinterpret_cast<uint32_t*>(result.bytes());
  bool isSigned = kind == TypeKind::SI32;
  if (width == 16)
    (isSigned ? gatherWordsAvx512<true> : gatherWordsAvx512<false>)(in, idx, batches, int32_t(last), int32_t(stride), out);
  else
    (isSigned ? gatherWordsAvx2<true> : gatherWordsAvx2<false>)(in, idx, batches, int32_t(last), int32_t(stride), out);
  return true;
}

template <size_t N> struct Element {
  uint8_t bytes[N];
};

// Copies gathered elements of N bytes; false if a slice leaves the operand.
template <size_t N>
bool gatherElements(const Mapping& m, const Tensor& indices, std::span<const int64_t> sliceSizes,
                    const Tensor& operand, Tensor& result) {
  using T = Element<N>;
  const T* in = reinterpret_cast<const T*>(operand.bytes());
  T* out = reinterpret_cast<T*>(result.bytes());
  size_t rank = m.operandShape.size(), outRank = m.windowedShape.size();
  std::vector<int64_t> operandStrides = rowMajorStrides(m.operandShape);
  // Each result dimension steps the batch position or the operand offset.
  std::vector<int64_t> batchStride(outRank, 0), offsetStride(outRank, 0), windowExtent(rank, 1);
  int64_t stride = 1;
  for (size_t k = m.batchDims.size(); k-- > 0;) {
    batchStride[m.batchDims[k]] = stride;
    stride *= m.windowedShape[m.batchDims[k]];
  }
  for (size_t k = 0; k < m.offsetDims.size(); ++k) {
    offsetStride[m.offsetDims[k]] = operandStrides[m.windowDims[k]];
    windowExtent[m.windowDims[k]] = m.windowedShape[m.offsetDims[k]];
  }
  // Where each batch position's slice starts in the operand. Every slice
  // must lie inside it (the reference's error case): with starts clamped
  // into [0, size - slice], when the window does not outgrow the slice (or
  // the operand, along dims no index moves).
  int64_t batches = m.numBatches();
  Tensor basesBlock = offsetsBlock(batches);
  int64_t* bases = reinterpret_cast<int64_t*>(basesBlock.bytes());
  std::vector<int64_t> limit = m.operandShape;
  for (size_t k = 0; k < std::min<size_t>(m.startIndexMap.size(), size_t(m.vectorLength())); ++k)
    limit[m.startIndexMap[k]] = sliceSizes[m.startIndexMap[k]];
  bool fits = true;
  for (size_t d = 0; d < rank; ++d) fits = fits && windowExtent[d] <= limit[d];
  bool direct = fits && withIndexType(indices, [&](const auto* typed) { sliceOffsets(m, typed, sliceSizes, bases); });
  if (!fits) return false;
  if (!direct) {
    std::vector<int64_t> starts = batchStarts(m, indices, sliceSizes);
    for (int64_t b = 0; b < batches; ++b) {
      int64_t base = 0;
      for (size_t d = 0; d < rank; ++d) {
        int64_t s = starts[b * rank + d];
        if (s < 0 || s + windowExtent[d] > m.operandShape[d]) return false;
        base += s * operandStrides[d];
      }
      bases[b] = base;
    }
  }
  if (result.numElements() == 0) return true;
  // Row-major over the result; the last dimension longer than 1 is the
  // inner loop (those after it only ever have index 0: a gather JAX writes
  // for x[:, perm] ends in one).
  size_t inner = outRank;
  while (inner > 1 && m.windowedShape[inner - 1] == 1) --inner;
  int64_t innerLen = inner ? m.windowedShape[inner - 1] : 1;
  int64_t innerBatch = inner ? batchStride[inner - 1] : 0, innerOffset = inner ? offsetStride[inner - 1] : 0;
  std::vector<int64_t> outerShape(m.windowedShape.begin(), m.windowedShape.begin() + (inner ? inner - 1 : 0));
  std::vector<int64_t> index(outerShape.size(), 0);
  auto runStart = [&](int64_t& b, int64_t& offset) {
    b = 0, offset = 0;
    for (size_t d = 0; d < index.size(); ++d) b += index[d] * batchStride[d], offset += index[d] * offsetStride[d];
  };
  int64_t r = 0;
  if (innerBatch == 0 && innerOffset == 1) {
    // Contiguous runs of the operand (embedding rows, say), copied whole.
    // Rows scattered over a large table each start with a cache miss the
    // hardware prefetcher cannot foresee, so the rows a few runs ahead are
    // fetched while this one is copied.
    std::vector<const T*> runs;
    do {
      int64_t b, offset;
      runStart(b, offset);
      runs.push_back(in + bases[b] + offset);
    } while (nextIndex(index, outerShape));
    size_t runBytes = static_cast<size_t>(innerLen) * N;
    constexpr size_t kAhead = 4, kLine = 64, kMaxPrefetchBytes = 4096;
    for (size_t k = 0; k < runs.size(); ++k, r += innerLen) {
      if (k + kAhead < runs.size())
        for (size_t line = 0; line < std::min(runBytes, kMaxPrefetchBytes); line += kLine)
          __builtin_prefetch(reinterpret_cast<const uint8_t*>(runs[k + kAhead]) + line);
      std::memcpy(out + r, runs[k], runBytes);
    }
    return true;
  }
  do {
    int64_t b, offset;
    runStart(b, offset);
    for (int64_t i = 0; i < innerLen; ++i) out[r++] = in[bases[b + i * innerBatch] + offset + i * innerOffset];
  } while (nextIndex(index, outerShape));
  return true;
}

// out[i] = a + b or a * b over a run of floats with apply's two-NaN rule
// (both NaN: a, quieted) as a select in bits -- GCC turns a select of floats
// into a branch and gives up vectorizing. The same bits as apply: rounding
// twice through double is harmless for + and *.
template <typename S, bool Multiply>
[[gnu::always_inline]] inline void foldFloats(S* __restrict out, const S* __restrict in, int64_t n) {
  using Bits = std::conditional_t<std::is_same_v<S, float>, uint32_t, uint64_t>;
  constexpr Bits kQuiet = Bits{1} << (std::numeric_limits<S>::digits - 2);
  for (int64_t i = 0; i < n; ++i) {
    S a = out[i], b = in[i];
    S r = Multiply ? a * b : a + b;
    Bits both = Bits(0) - Bits((a != a) & (b != b));
    out[i] = std::bit_cast<S>(Bits((std::bit_cast<Bits>(r) & ~both) | ((std::bit_cast<Bits>(a) | kQuiet) & both)));
  }
}

// The same loop for the host's widest vectors (hostLanes): a segment sum's
// rows of 64 floats are 16 SSE iterations, 4 AVX-512 ones.
template <typename S, bool Multiply>
[[gnu::target("avx512f,avx512dq,avx512vl")]] void foldFloatsAvx512(S* __restrict out, const S* __restrict in,
                                                                    int64_t n) {
  foldFloats<S, Multiply>(out, in, n);
}
template <typename S, bool Multiply>
[[gnu::target("avx2")]] void foldFloatsAvx2(S* __restrict out, const S* __restrict in, int64_t n) {
  foldFloats<S, Multiply>(out, in, n);
}
template <typename S, bool Multiply>
void foldFloatsPlain(S* __restrict out, const S* __restrict in, int64_t n) {
  foldFloats<S, Multiply>(out, in, n);
}

template <typename S, bool Multiply>
using FoldFloatsFn = void (*)(S* __restrict, const S* __restrict, int64_t);

template <typename S, bool Multiply>
FoldFloatsFn<S, Multiply> hostFoldFloats() {
  int lanes = hostLanes();
  return lanes == 16 ? &foldFloatsAvx512<S, Multiply>
         : lanes == 8 ? &foldFloatsAvx2<S, Multiply>
                      : &foldFloatsPlain<S, Multiply>;
}

// out[i] = fn(...fn(fn(out[i], in[i]), in[n + i])..., in[(rows - 1) * n + i])
// for i < n: `rows` consecutive update rows of n elements folded into one
// operand row (a run of equal segment ids), in order, with foldFloats' rule,
// so bit for bit `rows` calls of foldFloats. With AVX-512, columns in blocks
// of four vectors held in registers across the rows: one load and store of
// the operand row per block instead of per update row, whose store-to-load
// chain bound the loop (a 65536x64 segment sum into 1024 rows, stand-alone:
// 0.88 -> 0.28 ms). Columns past the last whole block, and other hosts, go
// row by row through foldFloats. (GCC's generic vectors compared floats lane
// by lane in scalar code here: intrinsics instead.)
template <bool Multiply>
[[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline __m512 foldVector(__m512 a, __m512 b) {
  __m512 r = Multiply ? _mm512_mul_ps(a, b) : _mm512_add_ps(a, b);
  __mmask16 both = _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(b, b, _CMP_UNORD_Q);
  __m512 quiet = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(a), _mm512_set1_epi32(1 << 22)));
  return _mm512_mask_mov_ps(r, both, quiet);
}
template <bool Multiply>
[[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline __m512d foldVector(__m512d a, __m512d b) {
  __m512d r = Multiply ? _mm512_mul_pd(a, b) : _mm512_add_pd(a, b);
  __mmask8 both = _mm512_cmp_pd_mask(a, a, _CMP_UNORD_Q) & _mm512_cmp_pd_mask(b, b, _CMP_UNORD_Q);
  __m512d quiet = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(a), _mm512_set1_epi64(int64_t{1} << 51)));
  return _mm512_mask_mov_pd(r, both, quiet);
}

[[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline __m512 loadVector(const float* p) {
  return _mm512_loadu_ps(p);
}
[[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline __m512d loadVector(const double* p) {
  return _mm512_loadu_pd(p);
}
[[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline void storeVector(float* p, __m512 v) {
  _mm512_storeu_ps(p, v);
}
[[gnu::target("avx512f,avx512dq,avx512vl"), gnu::always_inline]] inline void storeVector(double* p, __m512d v) {
  _mm512_storeu_pd(p, v);
}

template <typename S, bool Multiply>
[[gnu::target("avx512f,avx512dq,avx512vl")]] void foldFloatRowsAvx512(S* __restrict out, const S* __restrict in,
                                                                       int64_t rows, int64_t n) {
  constexpr int64_t kLanes = 64 / int64_t(sizeof(S)), kBlock = 4 * kLanes;
  int64_t c = 0;
  for (; c + kBlock <= n; c += kBlock) {
    auto a0 = loadVector(out + c), a1 = loadVector(out + c + kLanes), a2 = loadVector(out + c + 2 * kLanes),
         a3 = loadVector(out + c + 3 * kLanes);
    for (int64_t r = 0; r < rows; ++r) {
      const S* x = in + r * n + c;
      a0 = foldVector<Multiply>(a0, loadVector(x));
      a1 = foldVector<Multiply>(a1, loadVector(x + kLanes));
      a2 = foldVector<Multiply>(a2, loadVector(x + 2 * kLanes));
      a3 = foldVector<Multiply>(a3, loadVector(x + 3 * kLanes));
    }
    storeVector(out + c, a0);
    storeVector(out + c + kLanes, a1);
    storeVector(out + c + 2 * kLanes, a2);
    storeVector(out + c + 3 * kLanes, a3);
  }
  if (c < n)
    for (int64_t r = 0; r < rows; ++r) foldFloatsAvx512<S, Multiply>(out + c, in + r * n + c, n - c);
}

template <typename S, bool Multiply>
void foldFloatRowsByRow(S* __restrict out, const S* __restrict in, int64_t rows, int64_t n) {
  static const FoldFloatsFn<S, Multiply> fold = hostFoldFloats<S, Multiply>();
  for (int64_t r = 0; r < rows; ++r) fold(out, in + r * n, n);
}

template <typename S, bool Multiply>
using FoldFloatRowsFn = void (*)(S* __restrict, const S* __restrict, int64_t, int64_t);

template <typename S, bool Multiply>
FoldFloatRowsFn<S, Multiply> hostFoldFloatRows() {
  return hostLanes() == 16 ? &foldFloatRowsAvx512<S, Multiply> : &foldFloatRowsByRow<S, Multiply>;
}


// out[i] = fn(out[i], in[i]) over a run, as apply computes it; float sums
// and products vectorized (foldFloats).
template <typename E, BinaryFn Fn>
void foldRun(typename E::Storage* __restrict out, const typename E::Storage* __restrict in, int64_t n) {
  using S = typename E::Storage;
  if constexpr ((std::is_same_v<E, F32> || std::is_same_v<E, F64>) && (Fn == BinaryFn::Add || Fn == BinaryFn::Multiply)) {
    static const FoldFloatsFn<S, Fn == BinaryFn::Multiply> fold = hostFoldFloats<S, Fn == BinaryFn::Multiply>();
    fold(out, in, n);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = E::store(apply<E, Fn>(E::load(out[i]), E::load(in[i])));
  }
}

// foldRun over `rows` consecutive update rows of n elements, in order, into
// one operand row of n elements.
template <typename E, BinaryFn Fn>
void foldRows(typename E::Storage* __restrict out, const typename E::Storage* __restrict in, int64_t rows, int64_t n) {
  using S = typename E::Storage;
  if constexpr ((std::is_same_v<E, F32> || std::is_same_v<E, F64>) && (Fn == BinaryFn::Add || Fn == BinaryFn::Multiply)) {
    static const FoldFloatRowsFn<S, Fn == BinaryFn::Multiply> fold = hostFoldFloatRows<S, Fn == BinaryFn::Multiply>();
    fold(out, in, rows, n);
  } else {
    for (int64_t r = 0; r < rows; ++r) foldRun<E, Fn>(out, in + r * n, n);
  }
}

// The update region of scatter: replace (`return update`) or one binary op.
struct UpdateBody {
  bool replace = false;
  BinaryFn fn = BinaryFn::None;
};

UpdateBody updateBodyOf(const Operation& op, Type scalar) {
  if (op.numRegions() != 1 || op.region(0).numBlocks() != 1) return {};
  const Block& body = op.region(0).front();
  if (body.numArguments() != 2 || body.argument(0)->type() != scalar || body.argument(1)->type() != scalar) return {};
  const Operation& ret = *body.back();
  if (body.size() == 1 && ret.name() == "stablehlo.return" && ret.numOperands() == 1 && ret.operand(0) == body.argument(1))
    return {true, BinaryFn::None};
  return {false, interp::recognizeBinaryBody(op, 0)};
}

// A scatter whose every update lands at one operand offset or nowhere: one
// element per index vector (x.at[i].add(u) on a vector), or a whole row
// (updatesAreWholeRows). All the targets first (sliceOffsets, -1 out of
// bounds), then `fold(target, b)` for each batch position b that lands: a
// loop short enough for many cache misses on the operand to be in flight at
// once (one loop doing both ran 2.4x slower), with no per-row walk of the
// dimension numbers.
template <typename I, typename Fold>
void scatterToTargets(const Mapping& m, const I* indices, Fold&& fold) {
  Tensor block = offsetsBlock(m.numBatches());
  int64_t* targets = reinterpret_cast<int64_t*>(block.bytes());
  sliceOffsets(m, indices, {}, targets);
  for (int64_t b = 0, n = m.numBatches(); b < n; ++b)
    if (targets[b] >= 0) fold(targets[b], b);
}

// Scatter of whole rows (jax.ops.segment_sum, x.at[i].add(rows)): the
// updates' last dim walks the operand's last dim from 0, which no index
// moves, so each update row lands inside one operand row or nowhere.
bool updatesAreWholeRows(const Mapping& m) {
  int64_t updateRank = int64_t(m.windowedShape.size()), rank = int64_t(m.operandShape.size());
  return m.offsetDims.size() == 1 && m.offsetDims[0] == updateRank - 1 && m.windowDims[0] == rank - 1 &&
         std::find(m.startIndexMap.begin(), m.startIndexMap.end(), rank - 1) == m.startIndexMap.end() &&
         m.windowedShape.back() <= m.operandShape.back();
}

// Update elements from which a scatter of whole rows is split across the
// routine's threads (RoutineThreads): half a million f32 adds, ~0.1 ms on
// one core, several times a hand-off to a woken worker.
constexpr int64_t kParallelRowElements = int64_t{1} << 19;

// Scatter of whole rows of `n` elements (updatesAreWholeRows): each run of
// consecutive update rows b, b + 1, ..., b + rows - 1 with one target is
// folded, in order, by combineRows(target, b * n, rows, n). With the routine's threads
// and enough rows, the rows are split so that no two threads write one
// operand row and each operand element sees the same updates in the same
// order as on one thread, bit for bit. (A split of the columns instead had
// every thread walk every row: slower than one thread.) Targets are
// multiples of the operand's row length, so two update rows overlap exactly
// when their targets are equal.
// - Nondecreasing targets (segment ids sorted, all in bounds: the common
//   jax.ops.segment_sum): four runs of consecutive update rows per thread,
//   each boundary moved forward past equal targets.
// - Otherwise the operand's rows in ranges, four per thread, and every
//   update row sorted stably (in b's order) into its target's range.
// A thread takes a run or range at a time and folds its rows in order.
template <typename I, typename CombineRows>
void scatterRowsToTargets(const Mapping& m, const I* indices, int64_t n, CombineRows&& combineRows) {
  Tensor block = offsetsBlock(m.numBatches());
  int64_t* targets = reinterpret_cast<int64_t*>(block.bytes());
  sliceOffsets(m, indices, {}, targets);
  int64_t count = m.numBatches(), rowLength = m.operandShape.back();
  int64_t operandRows = 1;
  for (size_t d = 0; d + 1 < m.operandShape.size(); ++d) operandRows *= m.operandShape[d];
  ThreadPool* pool = RoutineThreads::current();
  int threads = pool ? pool->numThreads() : 1;
  // The runs of equal targets among the update rows [first, last).
  auto foldRuns = [&](int64_t first, int64_t last) {
    for (int64_t b = first; b < last;) {
      int64_t target = targets[b], end = b + 1;
      while (end < last && targets[end] == target) ++end;
      if (target >= 0) combineRows(target, b * n, end - b, n);
      b = end;
    }
  };
  if (threads <= 1 || count * n < kParallelRowElements || operandRows < 2 || rowLength <= 0) {
    foldRuns(0, count);
    return;
  }
  RoutineThreads inner(nullptr);
  int64_t pieces = std::min<int64_t>(4 * int64_t(threads), 1 << 16);
  bool sorted = targets[0] >= 0;
  for (int64_t b = 1; b < count; ++b) sorted &= targets[b - 1] <= targets[b];
  if (sorted) {
    std::vector<int64_t> begin(static_cast<size_t>(pieces) + 1, count);
    begin[0] = 0;
    for (int64_t p = 1; p < pieces; ++p) {
      int64_t b = std::max(begin[p - 1], count * p / pieces);
      while (b > 0 && b < count && targets[b] == targets[b - 1]) ++b;
      begin[p] = b;
    }
    pool->parallelFor(pieces, [&](int64_t first, int64_t last) {
      RoutineThreads worker(nullptr);
      foldRuns(begin[first], begin[last]);
    }, static_cast<int>(pieces));
    return;
  }
  // Range r holds the operand rows [r * rowsPerRange, (r + 1) * rowsPerRange):
  // the elements [r * span, (r + 1) * span). Its number from a target by a
  // double multiply, corrected by one step either way (an exact quotient).
  int64_t ranges = std::min(operandRows, pieces);
  int64_t rowsPerRange = (operandRows + ranges - 1) / ranges;
  ranges = (operandRows + rowsPerRange - 1) / rowsPerRange;
  int64_t span = rowsPerRange * rowLength;
  double inverse = 1.0 / double(span);
  auto rangeOf = [&](int64_t target) {
    int64_t r = static_cast<int64_t>(double(target) * inverse);
    if (r * span > target) --r;
    else if ((r + 1) * span <= target) ++r;
    return r;
  };
  std::vector<int64_t> begin(static_cast<size_t>(ranges) + 1, 0);
  std::vector<uint16_t> rangeOfRow(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    if (targets[b] < 0) continue;
    int64_t r = rangeOf(targets[b]);
    rangeOfRow[b] = static_cast<uint16_t>(r);
    ++begin[r + 1];
  }
  for (int64_t r = 0; r < ranges; ++r) begin[r + 1] += begin[r];
  std::vector<int64_t> next(begin.begin(), begin.end() - 1);
  Tensor orderBlock = offsetsBlock(std::max<int64_t>(begin[ranges], 1));
  int64_t* order = reinterpret_cast<int64_t*>(orderBlock.bytes());
  for (int64_t b = 0; b < count; ++b)
    if (targets[b] >= 0) order[next[rangeOfRow[b]]++] = b;
  pool->parallelFor(ranges, [&](int64_t first, int64_t last) {
    RoutineThreads worker(nullptr);
    for (int64_t i = begin[first], end = begin[last]; i < end;) {
      int64_t b = order[i], rows = 1;
      while (i + rows < end && order[i + rows] == b + rows && targets[b + rows] == targets[b]) ++rows;
      combineRows(targets[b], b * n, rows, n);
      i += rows;
    }
  }, static_cast<int>(ranges));
}

// Folds every update whose operand index is in bounds into `result`, in
// row-major order of the updates. `combine(dst, src)` does one element,
// `combineRun(dst, src, n)` n consecutive ones, `combineRows(dst, src, rows, n)`
// `rows` consecutive update rows of n elements from src, in order, into the
// n elements at dst (a run of equal targets of a scatter of whole rows).
template <typename Combine, typename CombineRun, typename CombineRows>
void scatterUpdates(const Mapping& m, const Tensor& indices, const Tensor& updates, Combine&& combine,
                    CombineRun&& combineRun, CombineRows&& combineRows) {
  if (updates.numElements() == 0) return;
  if (m.offsetDims.empty()) {
    if (withIndexType(indices, [&](const auto* typed) { scatterToTargets(m, typed, combine); })) return;
  }
  if (updatesAreWholeRows(m)) {
    int64_t n = m.windowedShape.back();
    if (withIndexType(indices, [&](const auto* typed) { scatterRowsToTargets(m, typed, n, combineRows); })) return;
  }
  std::vector<int64_t> starts = batchStarts(m, indices, {});
  size_t rank = m.operandShape.size(), updateRank = m.windowedShape.size();
  std::vector<int64_t> operandStrides = rowMajorStrides(m.operandShape);
  std::vector<int64_t> batchStride(updateRank, 0), windowOf(updateRank, -1);
  int64_t stride = 1;
  for (size_t k = m.batchDims.size(); k-- > 0;) {
    batchStride[m.batchDims[k]] = stride;
    stride *= m.windowedShape[m.batchDims[k]];
  }
  for (size_t k = 0; k < m.offsetDims.size(); ++k) windowOf[m.offsetDims[k]] = m.windowDims[k];
  // Row by row when the updates' last dimension walks a window dimension:
  // one bounds check per row gives the run of it that lands in the operand.
  bool rows = updateRank > 0 && windowOf.back() >= 0;
  int64_t rowLength = rows ? m.windowedShape.back() : 1, rowDim = rows ? windowOf.back() : -1;
  int64_t rowStride = rows ? operandStrides[rowDim] : 0;
  std::vector<int64_t> outerShape(m.windowedShape.begin(), m.windowedShape.end() - (rows ? 1 : 0));
  std::vector<int64_t> index(outerShape.size(), 0), position(rank);
  int64_t u = 0;
  do {
    int64_t b = 0;
    for (size_t d = 0; d < index.size(); ++d) b += index[d] * batchStride[d];
    std::copy_n(starts.begin() + b * rank, rank, position.begin());
    for (size_t d = 0; d < index.size(); ++d)
      if (windowOf[d] >= 0) position[windowOf[d]] += index[d];
    int64_t linear = 0;
    bool inBounds = true;
    for (size_t d = 0; d < rank; ++d) {
      if (int64_t(d) != rowDim) inBounds = inBounds && position[d] >= 0 && position[d] < m.operandShape[d];
      linear += position[d] * operandStrides[d];
    }
    if (inBounds) {
      int64_t lo = rows ? std::max<int64_t>(0, -position[rowDim]) : 0;
      int64_t hi = rows ? std::min(rowLength, m.operandShape[rowDim] - position[rowDim]) : 1;
      if (rowStride == 1 && hi > lo) combineRun(linear + lo, u + lo, hi - lo);
      else
        for (int64_t i = lo; i < hi; ++i) combine(linear + i * rowStride, u + i);
    }
    u += rowLength;
  } while (nextIndex(index, outerShape));
}

void fillWith(Tensor& t, const std::vector<uint8_t>& element) {
  uint8_t* out = t.bytes();
  size_t size = t.byteSize(), n = element.size();
  if (std::all_of(element.begin(), element.end(), [](uint8_t x) { return x == 0; })) {
    std::memset(out, 0, size);
    return;
  }
  if (size < n) return;
  std::memcpy(out, element.data(), n);
  for (size_t done = n; done < size; done *= 2) std::memcpy(out + done, out, std::min(done, size - done));
}

}  // namespace

std::optional<NativeRoutine> nativeGather(const Operation& op) {
  if (op.name() != "stablehlo.gather" || op.numOperands() != 2 || op.numResults() != 1) return std::nullopt;
  Type operand = op.operand(0)->type(), indices = op.operand(1)->type(), output = op.result(0)->type();
  if (!isStaticTensor(operand) || !isStaticTensor(indices) || !isStaticTensor(output) ||
      !indices.elementType().isInteger() || output.elementType() != operand.elementType())
    return std::nullopt;
  std::vector<int64_t> sliceSizes = intListAttr(op, "slice_sizes");
  if (int64_t(sliceSizes.size()) != operand.rank()) return std::nullopt;
  for (int64_t d = 0; d < operand.rank(); ++d)
    if (sliceSizes[d] < 0 || sliceSizes[d] > operand.shape()[d]) return std::nullopt;
  std::shared_ptr<Mapping> m = readMapping(op, operand, indices, output);
  size_t bytes = operand.elementType().storageBytes();
  if (!m || (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)) return std::nullopt;
  NativeRoutine routine{"native gather", {}};
  routine.run = [m, sliceSizes, output, bytes](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    Tensor result = Tensor::uninitialized(output);  // every element is written
    const Tensor& indices = operands[1];
    bool ok = gatherWords(*m, indices, sliceSizes, operands[0], result) ? true
              : bytes == 1   ? gatherElements<1>(*m, indices, sliceSizes, operands[0], result)
              : bytes == 2 ? gatherElements<2>(*m, indices, sliceSizes, operands[0], result)
              : bytes == 4 ? gatherElements<4>(*m, indices, sliceSizes, operands[0], result)
              : bytes == 8 ? gatherElements<8>(*m, indices, sliceSizes, operands[0], result)
                           : gatherElements<16>(*m, indices, sliceSizes, operands[0], result);
    if (!ok) return std::nullopt;
    return std::vector<Tensor>{result};
  };
  return routine;
}

std::optional<NativeRoutine> nativeScatter(const Operation& op) {
  if (op.numOperands() != 3 || op.numResults() != 1) return std::nullopt;
  Type input = op.operand(0)->type(), indices = op.operand(1)->type(), updates = op.operand(2)->type();
  Type output = op.result(0)->type(), elementType = input.elementType();
  if (!isStaticTensor(input) || !isStaticTensor(indices) || !isStaticTensor(updates) || output != input ||
      !indices.elementType().isInteger() || updates.elementType() != elementType)
    return std::nullopt;
  UpdateBody body = updateBodyOf(op, Type::tensor({}, elementType));
  if (!body.replace && (body.fn == BinaryFn::None || !hasArithmetic(elementType))) return std::nullopt;
  std::shared_ptr<Mapping> m = readMapping(op, input, indices, updates);
  if (!m) return std::nullopt;
  std::vector<uint8_t> splat = splatElement(*op.operand(0));
  NativeRoutine routine{std::string("native scatter ") + (body.replace ? "replace" : fnName(body.fn)), {}};
  routine.run = [m, body, output, elementType, splat](const std::vector<Tensor>& operands) {
    Tensor result = Tensor::uninitialized(output);
    if (splat.empty()) std::memcpy(result.bytes(), operands[0].bytes(), result.byteSize());
    else fillWith(result, splat);
    const Tensor& updates = operands[2];
    if (body.replace) {
      size_t n = elementType.storageBytes();
      scatterUpdates(
          *m, operands[1], updates,
          [&](int64_t dst, int64_t src) { std::memcpy(result.bytes() + dst * n, updates.bytes() + src * n, n); },
          [&](int64_t dst, int64_t src, int64_t count) {
            std::memcpy(result.bytes() + dst * n, updates.bytes() + src * n, count * n);
          },
          // Of a run of rows into one operand row, the last one stays.
          [&](int64_t dst, int64_t src, int64_t rows, int64_t count) {
            std::memcpy(result.bytes() + dst * n, updates.bytes() + (src + (rows - 1) * count) * n, count * n);
          });
    } else {
      visitArithmetic(elementType, [&](auto e) {
        using E = decltype(e);
        withFn(body.fn, [&](auto f) {
          auto* out = dataOf<E>(result);
          const auto* in = dataOf<E>(updates);
          scatterUpdates(
              *m, operands[1], updates,
              [&](int64_t dst, int64_t src) {
                out[dst] = E::store(apply<E, decltype(f)::value>(E::load(out[dst]), E::load(in[src])));
              },
              [&](int64_t dst, int64_t src, int64_t count) { foldRun<E, decltype(f)::value>(out + dst, in + src, count); },
              [&](int64_t dst, int64_t src, int64_t rows, int64_t count) {
                foldRows<E, decltype(f)::value>(out + dst, in + src, rows, count);
              });
        });
      });
    }
    return std::optional<std::vector<Tensor>>(std::vector<Tensor>{result});
  };
  return routine;
}

int hostLanes() {
  switch (cpuIsa()) {
    case CpuIsa::Sse42: return 0;
    case CpuIsa::Avx2: return 8;
    case CpuIsa::Avx512:
    case CpuIsa::Native: break;
  }
  return 16;
}

}  // namespace kiln::cpu
