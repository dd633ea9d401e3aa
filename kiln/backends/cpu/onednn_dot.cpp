// dot_general through oneDNN's matmul. Every dot_general is a batched matrix
// product [B, M, K] x [B, K, N] -> [B, M, N] once its dimensions are grouped
// (batch dims, lhs free dims, contracting dims, rhs free dims), and its result
// is already [B, M, N] row-major. An operand whose dims come in one of the two
// orders a strided matrix can describe (batch, free, contracting or batch,
// contracting, free) is read in place through oneDNN strides; any other order
// is first copied into a packed temporary.
//
// bf16 dots run on oneDNN's bf16 primitive where it is the faster one (AMX,
// or AVX512-BF16 on some cores: nativeBf16IsFaster); elsewhere they are
// widened: the operands converted to f32 (exact), multiplied by the f32
// primitive and the result rounded to bf16 once -- the arithmetic of the bf16
// primitive (exact products, f32 sums, one rounding) up to the order of the
// sums. f16 dots are always widened the same way:
// oneDNN's f16 matmul needs AVX512-FP16, which the hosts kiln runs on
// usually lack. A bf16 or f16 dot with an f32 result (mixed precision) is
// the same primitive with an f32 destination, its sums never narrowed.
//
// An output fusion's epilogue (the elementwise ops after the dot) becomes
// oneDNN post-ops: a vector added along the last dim is the matmul bias (when
// it comes first), maximum with 0 is relu, tanh/logistic/exp/abs/sqrt are
// eltwise ops, a splat constant is an eltwise linear, and a tensor of the
// result's shape (or a last-dim vector later in the chain) is a binary op;
// `w - chain` (an SGD update) is a negation then an add. On bf16 and f16
// dots the post-ops run on the f32 sums and the result is rounded once (as
// oneDNN's bf16 primitive does), where op by op each epilogue op would round
// to the narrow type: the fused result can differ from that in the last bit.
#include "kiln/backends/cpu/onednn_dot.h"

#include <algorithm>
#include <cstring>
#include <ctime>
#include <exception>
#include <immintrin.h>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/backends/cpu/emitter.h"
#include "kiln/backends/cpu/host_isa.h"
#include "kiln/backends/cpu/native_arith.h"
#include "kiln/backends/cpu/onednn_common.h"
#include "kiln/codegen/dot_dims.h"
#include "kiln/interp/tensor.h"
#include "kiln/backends/cpu/openmp_threads.h"
#include "kiln/ir/float_formats.h"
#include "kiln/ir/shape.h"
#include "kiln/support/thread_pool.h"
#include "kiln/support/trace.h"

namespace kiln::cpu {
namespace {

using dims = dnnl::memory::dims;
using dt = dnnl::memory::data_type;

int64_t product(const std::vector<int64_t>& shape, const std::vector<int64_t>& which) {
  int64_t n = 1;
  for (int64_t d : which) n *= shape[d];
  return n;
}

std::vector<int64_t> concat(std::initializer_list<const std::vector<int64_t>*> parts) {
  std::vector<int64_t> all;
  for (const auto* p : parts) all.insert(all.end(), p->begin(), p->end());
  return all;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != int64_t(i)) return false;
  return true;
}

// How one matmul operand is read: in place with `md`'s strides, or after a
// copy of its dims permuted by `packPermutation` into a packed buffer.
struct OperandLayout {
  dnnl::memory::desc md;
  std::vector<int64_t> shape;            // the operand's own shape
  std::vector<int64_t> packPermutation;  // empty: read in place
  size_t packedBytes = 0;
};

// The stride of `group`'s dims read as one dim, if they are consecutive in
// memory (each dim's stride is the next one's times its extent).
std::optional<int64_t> groupStride(const std::vector<int64_t>& shape, const std::vector<int64_t>& group) {
  if (group.empty()) return std::nullopt;
  std::vector<int64_t> strides = rowMajorStrides(shape);
  for (size_t i = 0; i + 1 < group.size(); ++i)
    if (strides[group[i]] != strides[group[i + 1]] * shape[group[i + 1]]) return std::nullopt;
  return strides[group.back()];
}

// Gives each dim of extent 1 the stride of the whole span of the others.
// Such a dim's stride is never used, but its row-major stride can be smaller
// than another dim's span (the contracting dim of [2, 1, 2] contracting dim
// 1: rows stride 1 over 4, cols stride 2), which oneDNN reads as overlapping
// memory and refuses to execute.
void spanExtentOneDims(const dims& mdDims, dims& mdStrides) {
  int64_t span = 1;
  for (size_t i = 0; i < mdDims.size(); ++i)
    if (mdDims[i] != 1) span = std::max(span, mdStrides[i] * mdDims[i]);
  for (size_t i = 0; i < mdDims.size(); ++i)
    if (mdDims[i] == 1) mdStrides[i] = span;
}

// How one operand is read as `rows` x `cols` matrices: md dims [batch,
// rows, cols] -- or, with `separateBatch`, one dim per batch dim, [b1, ...,
// bn, rows, cols] -- where `batchDims`, `rowDims` and `colDims` are its dims
// of each group. In place when the layout allows: the two dense orders
// [batch, rows, cols] and [batch, cols, rows], or any order in which each
// group is consecutive in memory (a transpose folded into the dot, as in
// attention's [batch, seq, heads, dim] operands), read through strides;
// otherwise after a copy packing it as [batch, rows, cols].
OperandLayout layoutFor(const std::vector<int64_t>& shape, dt type, size_t elementBytes,
                        const std::vector<int64_t>& batchDims, const std::vector<int64_t>& rowDims,
                        const std::vector<int64_t>& colDims, int64_t rows, int64_t cols, bool separateBatch) {
  OperandLayout layout;
  layout.shape = shape;
  std::vector<int64_t> rowsFirst = concat({&batchDims, &rowDims, &colDims});
  std::vector<int64_t> colsFirst = concat({&batchDims, &colDims, &rowDims});
  int64_t batch = product(shape, batchDims);
  dims logical = {batch, rows, cols};
  if (!separateBatch && isIdentity(rowsFirst)) {
    layout.md = dnnl::memory::desc(logical, type, dims{rows * cols, cols, 1});
    return layout;
  }
  if (!separateBatch && isIdentity(colsFirst)) {
    layout.md = dnnl::memory::desc(logical, type, dims{rows * cols, 1, rows});
    return layout;
  }
  std::optional<int64_t> rowStride = groupStride(shape, rowDims), colStride = groupStride(shape, colDims);
  if (rowStride && colStride) {
    dims mdDims, mdStrides;
    std::vector<int64_t> strides = rowMajorStrides(shape);
    if (separateBatch) {
      for (int64_t d : batchDims) {
        mdDims.push_back(shape[d]);
        mdStrides.push_back(strides[d]);
      }
    } else if (std::optional<int64_t> batchStride = groupStride(shape, batchDims)) {
      mdDims.push_back(batch);
      mdStrides.push_back(*batchStride);
    } else if (batchDims.empty()) {
      mdDims.push_back(1);
      mdStrides.push_back(product(shape, rowDims) * product(shape, colDims));
    }
    if (!mdDims.empty()) {
      mdDims.insert(mdDims.end(), {rows, cols});
      mdStrides.insert(mdStrides.end(), {*rowStride, *colStride});
      spanExtentOneDims(mdDims, mdStrides);
      layout.md = dnnl::memory::desc(mdDims, type, mdStrides);
      return layout;
    }
  }
  layout.md = dnnl::memory::desc(logical, type, dims{rows * cols, cols, 1});
  layout.packPermutation = rowsFirst;
  layout.packedBytes = size_t(batch * rows * cols) * elementBytes;
  return layout;
}

// Whether `batchDims` of `shape` can be read as one batch dim (consecutive in
// memory, or none).
bool batchCollapses(const std::vector<int64_t>& shape, const std::vector<int64_t>& batchDims) {
  return batchDims.empty() || groupStride(shape, batchDims).has_value();
}

// `count` elements `stride` apart from `in` to consecutive ones at `out`.
template <typename Word>
void gatherRun(const uint8_t* in, uint8_t* out, int64_t count, int64_t stride) {
  const Word* from = reinterpret_cast<const Word*>(in);
  Word* to = reinterpret_cast<Word*>(out);
  for (int64_t k = 0; k < count; ++k) to[k] = from[k * stride];
}

// Copies `in` (row-major `shape`) to `out` with its dims reordered so that
// out dim i is in dim perm[i]: one run of the output's last dim at a time,
// a memcpy where that dim is the input's last too, else a strided copy of
// words of the element's width.
void permute(const uint8_t* in, uint8_t* out, const std::vector<int64_t>& shape,
             const std::vector<int64_t>& perm, size_t elementBytes) {
  size_t rank = shape.size();
  std::vector<int64_t> inStrides(rank, 1);
  for (size_t d = rank; d-- > 1;) inStrides[d - 1] = inStrides[d] * shape[d];
  std::vector<int64_t> outShape(rank), strideOfOut(rank), counter(rank, 0);
  int64_t total = 1;
  for (size_t i = 0; i < rank; ++i) {
    outShape[i] = shape[perm[i]];
    strideOfOut[i] = inStrides[perm[i]];
    total *= outShape[i];
  }
  if (total == 0) return;
  int64_t run = outShape[rank - 1], stride = strideOfOut[rank - 1];
  int64_t offset = 0;
  for (int64_t n = 0; n < total; n += run) {
    const uint8_t* from = in + offset * elementBytes;
    uint8_t* to = out + n * elementBytes;
    if (stride == 1) std::memcpy(to, from, size_t(run) * elementBytes);
    else if (elementBytes == 4) gatherRun<uint32_t>(from, to, run, stride);
    else if (elementBytes == 2) gatherRun<uint16_t>(from, to, run, stride);
    else if (elementBytes == 8) gatherRun<uint64_t>(from, to, run, stride);
    else if (elementBytes == 1) gatherRun<uint8_t>(from, to, run, stride);
    else
      for (int64_t k = 0; k < run; ++k)
        std::memcpy(to + k * elementBytes, from + k * stride * elementBytes, elementBytes);
    for (size_t i = rank - 1; i-- > 0;) {  // odometer over the output index, past its last dim
      offset += strideOfOut[i];
      if (++counter[i] < outShape[i]) break;
      offset -= strideOfOut[i] * outShape[i];
      counter[i] = 0;
    }
  }
}

// Whether bf16 matmuls run on oneDNN's bf16 primitive here rather than
// widened to f32. With AMX tiles, always. With AVX512-BF16 (vdpbf16ps) it
// depends on the core: about 60% of the f32 primitive's speed on the Intel
// host of this pool, twice it on AMD Zen 4. So it is measured, once per
// process: a 256^3 matmul each way (about a millisecond), and the bf16
// primitive is taken only when clearly faster (1.3x). The matmuls run on
// this thread alone and are timed by its CPU time, best of five: by the
// wall clock, on a loaded host, preemption flipped the choice from one
// process to the next (gemm_bf16_256 moved 2x). Without either instruction
// set oneDNN would emulate bf16: widened.
bool nativeBf16IsFaster() {
  static const bool faster = [] {
    cpuIsa();
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    auto has = [&](dnnl::cpu_isa wanted) { return (isa & unsigned(wanted)) == unsigned(wanted); };
    if (has(dnnl::cpu_isa::avx512_core_amx)) return true;
    if (!has(dnnl::cpu_isa::avx512_core_bf16)) return false;
    using dt = dnnl::memory::data_type;
    constexpr int64_t n = 256;
    OpenMpThreads one(1);  // oneDNN sizes a primitive's team when it is made
    auto threadSeconds = [] {
      timespec t;
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
    };
    auto secondsFor = [&](dt type) {
      dnnl::memory::desc desc({n, n}, type, dnnl::memory::format_tag::ab);
      dnnl::memory::desc out({n, n}, dt::f32, dnnl::memory::format_tag::ab);
      dnnl::matmul matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(desc, desc, out), cpuEngine()));
      dnnl::memory a(desc, cpuEngine()), b(desc, cpuEngine()), c(out, cpuEngine());
      std::memset(a.get_data_handle(), 0, desc.get_size());
      std::memset(b.get_data_handle(), 0, desc.get_size());
      dnnl::stream stream(cpuEngine());
      double best = 1e9;
      for (int round = 0; round < 6; ++round) {  // the first warms up
        double start = threadSeconds();
        matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
        stream.wait();
        if (round > 0) best = std::min(best, threadSeconds() - start);
      }
      return best;
    };
    try {
      return secondsFor(dt::f32) >= 1.3 * secondsFor(dt::bf16);
    } catch (const dnnl::error&) {
      return false;  // a primitive oneDNN will not make here: the widened path
    }
  }();
  return faster;
}

}  // namespace

bool int8DotsAreNative() {
  static const bool native = [] {
    cpuIsa();
    auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    auto vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
    return (isa & vnni) == vnni;
  }();
  return native;
}

namespace {

size_t elementCount(const std::vector<int64_t>& shape) {
  size_t n = 1;
  for (int64_t d : shape) n *= size_t(d);
  return n;
}

// f32 scratch of `count` elements from the recycled-buffer pool that tensors
// use (a fresh large allocation page-faults on every call), not zero-filled.
interp::Tensor f32Scratch(size_t count) {
  int64_t shape[] = {int64_t(count)};
  return interp::Tensor::uninitialized(Type::tensor(shape, Type::f32()));
}

// f16 <-> f32 with the F16C instructions, 8 at a time (oneDNN's reorder
// converts f16 one element at a time: 7x the f32 matmul's time at 1024^3).
// f32 -> f16 rounds to nearest even, as the emitter's convert does.
__attribute__((target("avx,f16c"))) void f16ToF32(const uint8_t* in, uint8_t* out, size_t count) {
  auto* from = reinterpret_cast<const uint16_t*>(in);
  auto* to = reinterpret_cast<float*>(out);
  size_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(to + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i))));
  for (; i < count; ++i) to[i] = _cvtsh_ss(from[i]);
}

__attribute__((target("avx,f16c"))) void f32ToF16(const uint8_t* in, uint8_t* out, size_t count) {
  auto* from = reinterpret_cast<const float*>(in);
  auto* to = reinterpret_cast<uint16_t*>(out);
  size_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(from + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  for (; i < count; ++i) to[i] = _cvtss_sh(from[i], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// Converts `count` elements from `from` to `to`: a oneDNN reorder
// (vectorized by oneDNN; f32 -> bf16 rounds to nearest even), or F16C for
// f16 where the host has it.
struct Conversion {
  dnnl::memory::desc fromMd, toMd;
  dnnl::reorder primitive;
  void (*f16c)(const uint8_t*, uint8_t*, size_t) = nullptr;
  size_t count = 0;

  Conversion() = default;
  Conversion(size_t count, dt from, dt to)
      : fromMd(dims{int64_t(count)}, from, dnnl::memory::format_tag::a),
        toMd(dims{int64_t(count)}, to, dnnl::memory::format_tag::a),
        primitive(dnnl::reorder::primitive_desc(cpuEngine(), fromMd, cpuEngine(), toMd)),
        count(count) {
    if (cpuIsa() >= CpuIsa::Avx2) {
      if (from == dt::f16 && to == dt::f32) f16c = f16ToF32;
      if (from == dt::f32 && to == dt::f16) f16c = f32ToF16;
    }
  }

  void run(const uint8_t* in, uint8_t* out) const {
    if (f16c) return f16c(in, out, count);
    dnnl::engine& engine = cpuEngine();
    dnnl::stream stream(engine);
    dnnl::memory from(fromMd, engine, const_cast<uint8_t*>(in)), to(toMd, engine, out);
    primitive.execute(stream, from, to);
    stream.wait();
  }
};

// Where a post-op's or the bias's tensor comes from at run time.
struct ExtraInput {
  int arg;                     // DNNL_ARG_BIAS or a post-op's SRC_1
  dnnl::memory::desc md;
  int input = -1;              // index into run()'s inputs, or
  std::vector<uint8_t> bytes;  // the data of a constant
  // An f16 input, converted to f32 (`md`) before each run: oneDNN 2.7 reads
  // an f16 post-op operand wrongly on hosts without AVX512-FP16. (An f16
  // constant is converted when the primitive is made.)
  std::optional<Conversion> widen;
};

int64_t dataTypeBytes(dt type) {
  switch (type) {
    case dt::bf16:
    case dt::f16: return 2;
    case dt::s8:
    case dt::u8: return 1;
    default: return 4;
  }
}

dims stridesOf(const dnnl::memory::desc& md) {
  const auto& strides = md.data.format_desc.blocking.strides;
  return dims(strides, strides + md.data.ndims);
}

// The part of [batch, rows, cols] descriptor `md` of extent `extent` (dims
// of extent 1 in `md` stay 1: a broadcast bias or row), with md's strides.
dnnl::memory::desc tileOf(const dnnl::memory::desc& md, const dims& extent) {
  dims whole = md.dims(), part(whole.size());
  for (size_t i = 0; i < whole.size(); ++i) part[i] = whole[i] == 1 ? 1 : extent[i];
  return dnnl::memory::desc(part, md.data_type(), stridesOf(md));
}

// The first `count` post-ops of `from`, each binary one reading the operand
// `binaryMd` makes of its descriptor (the same, or a tile of it).
template <typename MapMd>
dnnl::post_ops copyPostOps(const dnnl::post_ops& from, int count, MapMd binaryMd) {
  dnnl::post_ops copy;
  for (int i = 0; i < count; ++i) {
    if (from.kind(i) == dnnl::primitive::kind::eltwise) {
      float scale, alpha, beta;
      dnnl::algorithm algorithm;
      from.get_params_eltwise(i, scale, algorithm, alpha, beta);
      copy.append_eltwise(scale, algorithm, alpha, beta);
    } else {
      dnnl::algorithm algorithm;
      dnnl::memory::desc md;
      from.get_params_binary(i, algorithm, md);
      copy.append_binary(algorithm, binaryMd(md));
    }
  }
  return copy;
}

// The byte offset of element `origin` of [batch, rows, cols] descriptor
// `md` (dims of extent 1 broadcast: index 0).
int64_t offsetOf(const dnnl::memory::desc& md, const dims& origin) {
  dims whole = md.dims(), strides = stridesOf(md);
  int64_t offset = 0;
  for (size_t i = 0; i < whole.size(); ++i)
    if (whole[i] != 1) offset += origin[i] * strides[i];
  return offset * dataTypeBytes(md.data_type());
}

class MatmulDot final : public OnednnDot {
 public:
  OperandLayout lhs, rhs;
  int lhsInput = 0, rhsInput = 1;
  dnnl::memory::desc dstMd;
  std::vector<ExtraInput> extras;
  dnnl::matmul primitive;
  dnnl::memory::desc scratchpadMd;  // each run brings its own (see compileOnednnDot)
  size_t elementBytes = 4;          // of the operands as the primitive reads them
  bool widened = false;             // bf16/f16 (or 8-bit integer) operands, f32 primitive:
  bool narrowResult = true;         // and a bf16/f16 (i32) result (else f32, written directly)
  Conversion lhsWiden, rhsWiden, dstNarrow;

  // The result in tiles for runOn (empty: not split). A tile's origin is
  // its first element in [batch, m, n]; each tile shape has a
  // single-threaded primitive of its own (there are at most two: the
  // regular one and the remainder).
  struct TileShape {
    dims extent;  // [batch, rows, cols]
    dnnl::matmul primitive;
    dnnl::memory::desc lhsMd, rhsMd, dstMd, scratchpadMd;
    std::vector<dnnl::memory::desc> extraMds;  // as `extras`
  };
  struct Tile {
    size_t shape;  // into tileShapes
    dims origin;
  };
  std::vector<TileShape> tileShapes;
  std::vector<Tile> tiles;

  // The epilogue, kept to make the packed-weights primitives from.
  dnnl::post_ops postOps;
  std::optional<dnnl::memory::desc> biasMd;

  // Primitives reading the weights packed in oneDNN's own layout (OnednnDot's
  // packedWeightsBytes), made on first request, on 2-D descriptors: the
  // batch of 1 dropped (given [1, k, n] weights, oneDNN keeps them plain).
  struct PackedMatmul {
    dnnl::memory::desc lhsMd, dstMd, scratchpadMd;
    std::vector<dnnl::memory::desc> extraMds;  // as `extras`
    dnnl::matmul primitive;
    size_t layout = 0;  // into Packing::layouts
  };
  // One packed form of the weights (the tiles' may differ from the whole
  // dot's), at byte `offset` of the packed buffer.
  struct PackedLayout {
    dnnl::memory::desc md;
    dnnl::reorder pack;  // from the weights as run() reads them
    size_t offset = 0;
  };
  struct Packing {
    size_t bytes = 0;          // of every layout together; 0: not offered
    bool offeredTiled = false;
    dnnl::memory::desc plainMd;  // the weights as run() reads them, 2-D
    std::vector<PackedLayout> layouts;
    PackedMatmul whole;
    // Runs on several threads split the rows, not the columns as `tiles`
    // do: oneDNN 2.6's kernels for packed weights (brgemm) write only dense
    // rows of the result and read only dense post-op operands, and a
    // column tile's rows are strided. Every tile reads all the weights.
    std::vector<PackedMatmul> tileShapes;
    std::vector<std::pair<size_t, int64_t>> tiles;  // (tile shape, first row)
  };
  mutable std::once_flag packingMade;
  mutable Packing packing;

  void run(const uint8_t* const* inputs, uint8_t* output) const override { runWith(inputs, output, nullptr, nullptr); }
  size_t numTiles() const override { return tiles.size(); }

  void runOn(const uint8_t* const* inputs, uint8_t* output, ThreadPool& pool) const override {
    if (tiles.empty() || pool.numThreads() == 1) return OnednnDot::runOn(inputs, output, pool);
    runWith(inputs, output, nullptr, &pool);
  }

  int weightsInput() const override { return rhsInput; }

  size_t packedWeightsBytes(bool tiled) const override {
    std::call_once(packingMade, [this] { makePacking(); });
    return tiled && !packing.offeredTiled ? 0 : packing.bytes;
  }

  void packWeights(const uint8_t* weights, uint8_t* packed, bool tiled) const override {
    interp::Tensor wide, permuted;
    const uint8_t* source = weights;
    if (widened) {
      wide = f32Scratch(elementCount(rhs.shape));
      rhsWiden.run(weights, wide.bytes());
      source = wide.bytes();
    }
    if (!rhs.packPermutation.empty()) {
      permuted = f32Scratch((rhs.packedBytes + 3) / 4);
      permute(source, permuted.bytes(), rhs.shape, rhs.packPermutation, elementBytes);
      source = permuted.bytes();
    }
    dnnl::engine& engine = cpuEngine();
    dnnl::stream stream(engine);
    dnnl::memory in(packing.plainMd, engine, const_cast<uint8_t*>(source));
    std::vector<bool> used(packing.layouts.size(), false);
    if (tiled)
      for (const PackedMatmul& shape : packing.tileShapes) used[shape.layout] = true;
    else
      used[packing.whole.layout] = true;
    OpenMpThreads one(1);  // on the calling thread, as the loop's other steps between trips
    for (size_t i = 0; i < packing.layouts.size(); ++i) {
      if (!used[i]) continue;
      const PackedLayout& layout = packing.layouts[i];
      dnnl::memory out(layout.md, engine, packed + layout.offset);
      layout.pack.execute(stream, in, out);
    }
    stream.wait();
  }

  void runPacked(const uint8_t* const* inputs, const uint8_t* packed, uint8_t* output,
                 ThreadPool* pool) const override {
    runWith(inputs, output, packed, pool);
  }

 private:
  // The packed primitives, for the whole dot and for each tile shape, or
  // none (bytes 0) where oneDNN reads the plain weights as they are or
  // offers only its reference code.
  void makePacking() const {
    // Floating-point weights of one batch only: oneDNN's packed int8
    // weights carry compensation terms of their own.
    if (rhs.md.data.ndims != 3 || rhs.md.dims()[0] != 1 || lhs.md.data.ndims != 3 || dstMd.data.ndims != 3 ||
        rhs.md.data.format_kind != dnnl_blocked || (rhs.md.data_type() != dt::f32 && rhs.md.data_type() != dt::bf16))
      return;
    // The 2-D descriptor of a [1, rows, cols] one (a broadcast [1, 1, cols] too).
    auto drop = [](const dnnl::memory::desc& md) {
      dims whole = md.dims(), strides = stridesOf(md);
      return dnnl::memory::desc(dims(whole.begin() + 1, whole.end()), md.data_type(),
                                dims(strides.begin() + 1, strides.end()));
    };
    Packing made;
    made.plainMd = drop(rhs.md);
    // The matmul of `rows` rows of the result on packed weights (false:
    // oneDNN would read the weights as they are, or has only its reference
    // code for them).
    auto make = [&](int64_t rows, PackedMatmul& matmul) {
      int64_t k = rhs.md.dims()[1], n = rhs.md.dims()[2];
      auto part = [&](const dnnl::memory::desc& md) { return drop(tileOf(md, {1, rows, n})); };
      matmul.lhsMd = drop(tileOf(lhs.md, {1, rows, k}));
      matmul.dstMd = part(dstMd);
      for (const ExtraInput& extra : extras) matmul.extraMds.push_back(part(extra.md));
      dnnl::memory::desc any(made.plainMd.dims(), made.plainMd.data_type(), dnnl::memory::format_tag::any);
      dnnl::primitive_attr attr;
      attr.set_post_ops(copyPostOps(postOps, postOps.len(), part));
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      auto desc = biasMd ? dnnl::matmul::desc(matmul.lhsMd, any, part(*biasMd), matmul.dstMd)
                         : dnnl::matmul::desc(matmul.lhsMd, any, matmul.dstMd);
      dnnl::matmul::primitive_desc pd(desc, attr, cpuEngine());
      dnnl::memory::desc packedMd = pd.weights_desc();
      if (std::string_view(pd.impl_info_str()).find("ref") != std::string_view::npos || packedMd == made.plainMd)
        return false;
      matmul.primitive = dnnl::matmul(pd);
      matmul.scratchpadMd = pd.scratchpad_desc();
      auto same = std::ranges::find_if(made.layouts, [&](const PackedLayout& l) { return l.md == packedMd; });
      matmul.layout = size_t(same - made.layouts.begin());
      if (same == made.layouts.end()) {
        OpenMpThreads one(1);  // packWeights runs it on the calling thread alone
        made.layouts.push_back({packedMd, dnnl::reorder(dnnl::reorder::primitive_desc(
                                              cpuEngine(), made.plainMd, cpuEngine(), packedMd)),
                                (made.bytes + 63) / 64 * 64});
        made.bytes = made.layouts.back().offset + packedMd.get_size();
      }
      return true;
    };
    try {
      // The whole dot's primitive with oneDNN's default team, as `primitive`.
      int64_t m = dstMd.dims()[1];
      if (!make(m, made.whole)) return;
      // Row tiles of at least 8 rows, as many as `tiles` has tiles.
      int64_t parts = std::min<int64_t>(int64_t(tiles.size()), m / 8);
      if (parts >= 2) {
        OpenMpThreads one(1);  // as planTiles' primitives
        int64_t rows = (m + parts - 1) / parts;
        std::map<int64_t, size_t> shapeOf;  // by rows
        bool made_all = true;
        for (int64_t row = 0; row < m && made_all; row += rows) {
          int64_t extent = std::min(rows, m - row);
          auto [it, added] = shapeOf.emplace(extent, made.tileShapes.size());
          made.tiles.push_back({it->second, row});
          if (!added) continue;
          made.tileShapes.emplace_back();
          made_all = make(extent, made.tileShapes.back());
        }
        made.offeredTiled = made_all;
      }
    } catch (const dnnl::error&) {
      return;  // not offered: the plain runs stay
    }
    packing = std::move(made);
  }

  // With `pool`, tile by tile on its threads; else in one call on oneDNN's.
  // With `packed`, the weights are read from there (packWeights' layout).
  void runWith(const uint8_t* const* inputs, uint8_t* output, const uint8_t* packed, ThreadPool* pool) const {
    if (!widened) return runPrimitive(inputs[lhsInput], inputs[rhsInput], packed, inputs, output, pool);
    interp::Tensor lhsWide = f32Scratch(elementCount(lhs.shape));
    interp::Tensor rhsWide;
    lhsWiden.run(inputs[lhsInput], lhsWide.bytes());
    if (!packed) {
      rhsWide = f32Scratch(elementCount(rhs.shape));
      rhsWiden.run(inputs[rhsInput], rhsWide.bytes());
    }
    if (!narrowResult) return runPrimitive(lhsWide.bytes(), rhsWide.bytes(), packed, inputs, output, pool);
    interp::Tensor dstWide = f32Scratch(dstMd.get_size() / 4);
    runPrimitive(lhsWide.bytes(), rhsWide.bytes(), packed, inputs, dstWide.bytes(), pool);
    dstNarrow.run(dstWide.bytes(), output);
  }

  void runPrimitive(const uint8_t* lhsData, const uint8_t* rhsData, const uint8_t* packedWeights,
                    const uint8_t* const* inputs, uint8_t* output, ThreadPool* pool) const {
    interp::Tensor lhsPacked, rhsPacked;  // recycled blocks, as f32Scratch's
    auto source = [&](const OperandLayout& layout, const uint8_t* data, interp::Tensor& packed) {
      if (layout.packPermutation.empty()) return const_cast<uint8_t*>(data);
      packed = f32Scratch((layout.packedBytes + 3) / 4);
      permute(data, packed.bytes(), layout.shape, layout.packPermutation, elementBytes);
      return packed.bytes();
    };
    uint8_t* lhsSource = source(lhs, lhsData, lhsPacked);
    uint8_t* rhsSource = packedWeights ? const_cast<uint8_t*>(packedWeights) : source(rhs, rhsData, rhsPacked);
    std::vector<interp::Tensor> widened;
    widened.reserve(extras.size());
    std::vector<uint8_t*> extraData;
    for (const ExtraInput& extra : extras) {
      const uint8_t* data = extra.input >= 0 ? inputs[extra.input] : extra.bytes.data();
      if (extra.widen) {
        widened.push_back(f32Scratch(extra.widen->count));
        extra.widen->run(data, widened.back().bytes());
        data = widened.back().bytes();
      }
      extraData.push_back(const_cast<uint8_t*>(data));
    }
    if (!pool) {
      std::vector<dnnl::memory::desc> extraMds;
      for (const ExtraInput& extra : extras) extraMds.push_back(extra.md);
      if (const PackedMatmul& whole = packing.whole; packedWeights)
        return execute(whole.primitive, whole.scratchpadMd, whole.lhsMd, lhsSource,
                       packing.layouts[whole.layout].md, rhsSource + packing.layouts[whole.layout].offset,
                       whole.dstMd, output, whole.extraMds, extraData);
      return execute(primitive, scratchpadMd, lhs.md, lhsSource, rhs.md, rhsSource, dstMd, output, extraMds,
                     extraData);
    }
    // oneDNN throws what it cannot run; a worker thread must not, so the
    // first error is thrown again here, on the caller's.
    std::mutex failureMutex;
    std::exception_ptr failure;
    size_t count = packedWeights ? packing.tiles.size() : tiles.size();
    pool->parallelFor(int64_t(count), [&](int64_t begin, int64_t end) {
      OpenMpThreads one(1);  // any other oneDNN call on this thread stays on it too
      for (int64_t t = begin; t < end; ++t) try {
        // Each tile on the track of the thread that ran it: which thread
        // started late or ran slow (docs/performance.md).
        trace::Scope slice("library", [&] { return "tile " + std::to_string(t) + " of " + std::to_string(count); });
        dims at = packedWeights ? dims{0, packing.tiles[size_t(t)].second, 0} : tiles[size_t(t)].origin;
        std::vector<uint8_t*> tileExtras;
        for (size_t i = 0; i < extras.size(); ++i)
          tileExtras.push_back(extraData[i] + offsetOf(extras[i].md, at));
        uint8_t* lhsAt = lhsSource + offsetOf(lhs.md, {at[0], at[1], 0});
        uint8_t* outAt = output + offsetOf(dstMd, at);
        if (packedWeights) {
          const PackedMatmul& shape = packing.tileShapes[packing.tiles[size_t(t)].first];
          const PackedLayout& layout = packing.layouts[shape.layout];
          execute(shape.primitive, shape.scratchpadMd, shape.lhsMd, lhsAt, layout.md, rhsSource + layout.offset,
                  shape.dstMd, outAt, shape.extraMds, tileExtras);
        } else {
          const TileShape& shape = tileShapes[tiles[size_t(t)].shape];
          execute(shape.primitive, shape.scratchpadMd, shape.lhsMd, lhsAt, shape.rhsMd,
                  rhsSource + offsetOf(rhs.md, {at[0], 0, at[2]}), shape.dstMd, outAt, shape.extraMds, tileExtras);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = std::current_exception();
      }
    }, int(count));
    if (failure) std::rethrow_exception(failure);
  }

  void execute(const dnnl::matmul& matmul, const dnnl::memory::desc& scratchMd, const dnnl::memory::desc& lhsMd,
               uint8_t* lhsAt, const dnnl::memory::desc& rhsMd, uint8_t* rhsAt, const dnnl::memory::desc& outMd,
               uint8_t* outAt, const std::vector<dnnl::memory::desc>& extraMds,
               const std::vector<uint8_t*>& extraAt) const {
    dnnl::engine& engine = cpuEngine();
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(lhsMd, engine, lhsAt)},
                                                  {DNNL_ARG_WEIGHTS, dnnl::memory(rhsMd, engine, rhsAt)},
                                                  {DNNL_ARG_DST, dnnl::memory(outMd, engine, outAt)}};
    interp::Tensor scratchpad;
    args.emplace(DNNL_ARG_SCRATCHPAD, scratchpadFor(scratchMd, scratchpad));
    for (size_t i = 0; i < extras.size(); ++i)
      args.emplace(extras[i].arg, dnnl::memory(extraMds[i], engine, extraAt[i]));
    dnnl::stream stream(engine);
    matmul.execute(stream, args);
    stream.wait();
  }
};


// Builds the post-ops (and bias) of an output fusion's epilogue: the ops on
// the path from the dot's result to the fusion's result.
class EpilogueMapper {
 public:
  EpilogueMapper(const Block* body, MatmulDot& dot, int64_t batch, int64_t m, int64_t n)
      : body_(body), dot_(dot), batch_(batch), m_(m), n_(n) {}

  dnnl::post_ops postOps;
  std::optional<dnnl::memory::desc> biasMd;

  Status map(const Operation& op, const Value* chain) {
    const std::string& name = op.name();
    if (std::optional<dnnl::algorithm> eltwise = eltwisePostOp(name)) return appendEltwise(*eltwise, 0, 0);
    if (name == "stablehlo.negate") return appendNegation(op);
    static const std::map<std::string, dnnl::algorithm, std::less<>> kBinary = {
        {"stablehlo.add", dnnl::algorithm::binary_add},
        {"stablehlo.subtract", dnnl::algorithm::binary_sub},
        {"stablehlo.multiply", dnnl::algorithm::binary_mul},
        {"stablehlo.divide", dnnl::algorithm::binary_div},
        {"stablehlo.maximum", dnnl::algorithm::binary_max},
        {"stablehlo.minimum", dnnl::algorithm::binary_min}};
    auto binary = kBinary.find(name);
    if (binary == kBinary.end() || op.numOperands() != 2) return unsupported(op, "in a dot epilogue");
    bool chainFirst = op.operand(0) == chain;
    const Value* other = op.operand(chainFirst ? 1 : 0);
    bool commutes = name != "stablehlo.subtract" && name != "stablehlo.divide";
    if (!chainFirst && name == "stablehlo.subtract") {
      // other - chain = (-chain) + other (an SGD update, w - lr * grad): the
      // negation is exact, so the rounding is the subtraction's.
      KILN_RETURN_IF_ERROR(appendNegation(op));
      if (std::optional<float> c = splatValue(other)) return appendLinear(op, 1, *c);
      return appendBinary(op, other, dnnl::algorithm::binary_add, "stablehlo.add");
    }
    if (!chainFirst && !commutes) return unsupported(op, "with the dot on its right in a dot epilogue");

    if (std::optional<float> c = splatValue(other)) {
      if (name == "stablehlo.maximum" && *c == 0.0f) return appendEltwise(dnnl::algorithm::eltwise_relu, 0, 0);
      if (name == "stablehlo.add") return appendLinear(op, 1, *c);
      if (name == "stablehlo.subtract") return appendLinear(op, 1, -*c);
      if (name == "stablehlo.multiply") return appendLinear(op, *c, 0);
    }
    return appendBinary(op, other, binary->second, name);
  }

 private:
  // The fusion parameter `other` reads, element for element, when it has
  // type `type` (the result's): the parameter itself, or a parameter of as
  // many elements of the same type behind reshapes (which keep the row-major
  // order: a scan body's [1, m, n] slice of the inputs' projection, read as
  // [m, n]). Null otherwise.
  const Value* wholeOperand(const Value* other, Type type) const {
    if (other->type() != type) return nullptr;
    while (other->definingOp() && other->definingOp()->name() == "stablehlo.reshape" &&
           other->definingOp()->parentBlock() == body_)
      other = other->definingOp()->operand(0);
    bool same = other->type().isTensor() && other->type().elementType() == type.elementType() &&
                other->type().numElements() == type.numElements();
    return other->isBlockArgument() && other->ownerBlock() == body_ && same ? other : nullptr;
  }

  // A binary post-op `algorithm` with `other`: a fusion parameter of the
  // result's shape (residual add, scaling) or a vector along the last dim
  // (bias; the matmul's own bias when it is the first add).
  Status appendBinary(const Operation& op, const Value* other, dnnl::algorithm algorithm, std::string_view name) {
    ExtraInput extra;
    dims shape;
    bool lastDimOnly = false;
    if (const Value* whole = wholeOperand(other, op.result()->type())) {
      extra.input = int(whole->index());
      shape = {batch_, m_, n_};
    } else if (const Value* vector = lastDimVector(other)) {
      if (vector->isBlockArgument()) {
        extra.input = int(vector->index());
      } else {
        std::span<const uint8_t> data = vector->definingOp()->attr("value").denseData();
        if (vector->definingOp()->attr("value").denseIsSplat()) return unsupported(op, "with this operand in a dot epilogue");
        extra.bytes.assign(data.begin(), data.end());
      }
      shape = {1, 1, n_};
      lastDimOnly = true;
    } else {
      return unsupported(op, "with this operand in a dot epilogue");
    }
    // bf16 operands are read as they are (the post-ops compute in f32), f16
    // ones converted; only an f32 vector can be the bias of every primitive.
    dt type = dnnlType(other->type().elementType()).value_or(dt::f32);
    if (other->type().elementType().kind() == TypeKind::F16) {
      if (extra.input >= 0) {
        extra.widen = Conversion(size_t(shape[0] * shape[1] * shape[2]), dt::f16, dt::f32);
      } else {  // a constant: converted once, here
        std::vector<uint8_t> wide(extra.bytes.size() * 2);
        for (size_t i = 0; i < extra.bytes.size() / 2; ++i) {
          float x = float(decodeFloat(TypeKind::F16, uint64_t(extra.bytes[2 * i]) | uint64_t(extra.bytes[2 * i + 1]) << 8));
          std::memcpy(wide.data() + 4 * i, &x, 4);
        }
        extra.bytes = std::move(wide);
      }
    }
    extra.md = dnnl::memory::desc(shape, type, dnnl::memory::format_tag::abc);
    if (name == "stablehlo.add" && lastDimOnly && !biasMd && postOps.len() == 0 && type == dt::f32) {
      extra.arg = DNNL_ARG_BIAS;
      biasMd = extra.md;
    } else {
      extra.arg = DNNL_ARG_ATTR_MULTIPLE_POST_OP(postOps.len()) | DNNL_ARG_SRC_1;
      postOps.append_binary(algorithm, extra.md);
    }
    dot_.extras.push_back(std::move(extra));
    return Status::ok();
  }

  Status appendEltwise(dnnl::algorithm algorithm, float alpha, float beta) {
    postOps.append_eltwise(1.0f, algorithm, alpha, beta);
    return Status::ok();
  }

  // alpha x + beta. oneDNN 2.6's matmul applies every linear post-op of a
  // chain with the first one's alpha and beta (x * 0.5 * 3 came out x * 0.25),
  // so a chain holds one at most; another makes the fusion run op by op.
  Status appendLinear(const Operation& op, float alpha, float beta) {
    if (linearIndex_ >= 0) return unsupported(op, "as a second scaling in a dot epilogue");
    linearIndex_ = postOps.len();
    return appendEltwise(dnnl::algorithm::eltwise_linear, alpha, beta);
  }

  // -x: folded into a linear post-op just before it (-(a x + b) = -a x - b,
  // exactly), else a linear of its own.
  Status appendNegation(const Operation& op) {
    if (linearIndex_ < 0 || linearIndex_ != postOps.len() - 1) return appendLinear(op, -1, 0);
    float scale, alpha, beta;
    dnnl::algorithm algorithm;
    postOps.get_params_eltwise(linearIndex_, scale, algorithm, alpha, beta);
    dnnl::post_ops rebuilt = copyPostOps(postOps, linearIndex_, [](const dnnl::memory::desc& md) { return md; });
    rebuilt.append_eltwise(scale, algorithm, -alpha, -beta);
    postOps = rebuilt;
    return Status::ok();
  }

  int linearIndex_ = -1;  // the chain's linear post-op, if any

  // The f32[N] parameter or constant that `v` broadcasts along its last dim
  // (through one or more broadcast_in_dim ops, each keeping the N elements
  // on the last dim), or null.
  const Value* lastDimVector(const Value* v) {
    const Value* current = v;
    while (const Operation* op = current->definingOp()) {
      if (op->name() != "stablehlo.broadcast_in_dim") break;
      const Value* in = op->operand(0);
      std::optional<std::vector<int64_t>> dimsAttr = op->attr("broadcast_dimensions").asIntList();
      if (!dimsAttr || in->type().numElements() != n_) return nullptr;
      int64_t last = current->type().rank() - 1;
      for (size_t j = 0; j < dimsAttr->size(); ++j)
        if (in->type().shape()[j] != 1 && (*dimsAttr)[j] != last) return nullptr;
      current = in;
    }
    if (current == v) return nullptr;
    if (current->isBlockArgument()) return current->ownerBlock() == body_ ? current : nullptr;
    return current->definingOp()->name() == "stablehlo.constant" ? current : nullptr;
  }

  const Block* body_;  // the fusion body (null for a bare dot)
  MatmulDot& dot_;
  int64_t batch_, m_, n_;
};

// A dot split into tiles gets two per thread rather than one from
// kTwoTilesPerThreadWork multiply-adds up to kLongTilesWork: a thread that
// starts late (a scheduler tick, ~2 ms, on a loaded host) then leaves half
// its share to the others. Below, one per thread: each oneDNN call costs a
// few microseconds, and a 1M multiply-add dot takes about 10 on one core.
// From kLongTilesWork, one per thread again: a tile of 2^27 multiply-adds
// takes over a millisecond, so a late start costs less next to it, and
// narrower tiles cost more arithmetic -- each strided column tile packs the
// whole lhs again: four column tiles of 1024^3 took 22.5-23.0 ms of CPU
// against 20.8-21.4 for two, of 2048^3 171 against 164 ms (oneDNN alone,
// one core of the AMD host; docs/performance.md).
constexpr int64_t kTwoTilesPerThreadWork = int64_t{1} << 24;
constexpr int64_t kLongTilesWork = int64_t{1} << 28;

// Splits `dot`'s [batch, m, n] result into tiles for `threads` threads (see
// compileOnednnDot): runs of batch elements where there are enough, else of
// columns (at least 64, in multiples of 16, which the kernels' vectors
// divide), else of rows. No tiles where the result is too narrow to split
// or where oneDNN offers only its reference code for the tiles' strides.
void planTiles(MatmulDot& dot, const dnnl::post_ops& postOps, const std::optional<dnnl::memory::desc>& biasMd,
               int threads, int64_t batch, int64_t m, int64_t k, int64_t n) {
  if (threads <= 1 || dot.lhs.md.data.ndims != 3 || dot.rhs.md.data.ndims != 3 || dot.dstMd.data.ndims != 3)
    return;
  int64_t work = batch * m * k * n;
  int64_t parts = work >= kTwoTilesPerThreadWork && work < kLongTilesWork ? 2 * threads : threads;
  int64_t batchTile = batch, rowTile = m, colTile = n;
  for (;; parts = threads) {
    if (batch >= parts) {
      batchTile = (batch + parts - 1) / parts;
      break;
    }
    if (n >= 64 * parts) {
      colTile = ((n + parts - 1) / parts + 15) / 16 * 16;
      break;
    }
    if (m >= 16 * parts) {
      rowTile = (m + parts - 1) / parts;
      break;
    }
    if (parts == threads) return;
  }
  OpenMpThreads one(1);  // oneDNN sizes a primitive's team when it is made
  std::map<dims, size_t> shapeIndex;
  std::vector<MatmulDot::TileShape> shapes;
  std::vector<MatmulDot::Tile> tiles;
  for (int64_t b = 0; b < batch; b += batchTile)
    for (int64_t row = 0; row < m; row += rowTile)
      for (int64_t col = 0; col < n; col += colTile) {
        dims extent = {std::min(batchTile, batch - b), std::min(rowTile, m - row), std::min(colTile, n - col)};
        auto [it, added] = shapeIndex.emplace(extent, shapes.size());
        tiles.push_back({it->second, {b, row, col}});
        if (!added) continue;
        MatmulDot::TileShape shape;
        shape.extent = extent;
        shape.lhsMd = tileOf(dot.lhs.md, {extent[0], extent[1], k});
        shape.rhsMd = tileOf(dot.rhs.md, {extent[0], k, extent[2]});
        shape.dstMd = tileOf(dot.dstMd, extent);
        for (const ExtraInput& extra : dot.extras) shape.extraMds.push_back(tileOf(extra.md, extent));
        dnnl::post_ops tilePostOps =
            copyPostOps(postOps, postOps.len(), [&](const dnnl::memory::desc& md) { return tileOf(md, extent); });
        dnnl::primitive_attr attr;
        attr.set_post_ops(tilePostOps);
        attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
        auto desc = biasMd ? dnnl::matmul::desc(shape.lhsMd, shape.rhsMd, tileOf(*biasMd, extent), shape.dstMd)
                           : dnnl::matmul::desc(shape.lhsMd, shape.rhsMd, shape.dstMd);
        dnnl::matmul::primitive_desc pd(desc, attr, cpuEngine());
        if (std::string_view(pd.impl_info_str()).find("ref") != std::string_view::npos) return;
        shape.scratchpadMd = pd.scratchpad_desc();
        shape.primitive = dnnl::matmul(pd);
        shapes.push_back(std::move(shape));
      }
  if (tiles.size() < 2) return;
  dot.tileShapes = std::move(shapes);
  dot.tiles = std::move(tiles);
}

// The op on the single use path from `v` towards the fusion's result.
const Operation* soleUser(const Value* v) {
  return v->hasOneUse() ? v->uses().front().user : nullptr;
}

}  // namespace

dnnl::engine& cpuEngine() {
  cpuIsa();  // oneDNN's cap is set before its first use
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory scratchpadFor(const dnnl::memory::desc& md, interp::Tensor& block) {
  size_t bytes = md.get_size();
  if (bytes == 0) return dnnl::memory(md, cpuEngine(), nullptr);
  // oneDNN asks 64-byte alignment of a scratchpad; the recycled blocks are
  // page-aligned when large and malloc-aligned (16) when small, so 64 more.
  block = f32Scratch((bytes + 64 + 3) / 4);
  auto address = reinterpret_cast<uintptr_t>(block.bytes());
  return dnnl::memory(md, cpuEngine(), reinterpret_cast<void*>((address + 63) & ~uintptr_t{63}));
}

std::optional<float> splatValue(const Value* v) {
  const Operation* op = v->definingOp();
  if (!op) return std::nullopt;
  if (op->name() == "stablehlo.broadcast_in_dim") return splatValue(op->operand(0));
  TypeKind kind = v->type().elementType().kind();
  if (op->name() != "stablehlo.constant" || (kind != TypeKind::F32 && kind != TypeKind::BF16 && kind != TypeKind::F16))
    return std::nullopt;
  std::vector<uint8_t> element = native::splatElement(*v);
  if (element.empty()) return std::nullopt;
  uint64_t bits = 0;
  std::memcpy(&bits, element.data(), element.size());  // little-endian host
  return float(decodeFloat(kind, bits));
}

std::optional<dnnl::algorithm> eltwisePostOp(std::string_view opName) {
  static const std::map<std::string, dnnl::algorithm, std::less<>> kUnary = {
      {"stablehlo.tanh", dnnl::algorithm::eltwise_tanh},
      {"stablehlo.logistic", dnnl::algorithm::eltwise_logistic},
      {"stablehlo.exponential", dnnl::algorithm::eltwise_exp},
      {"stablehlo.abs", dnnl::algorithm::eltwise_abs},
      {"stablehlo.sqrt", dnnl::algorithm::eltwise_sqrt}};
  auto it = kUnary.find(opName);
  return it == kUnary.end() ? std::nullopt : std::optional(it->second);
}

std::optional<dnnl::memory::data_type> dnnlType(Type element) {
  if (element.kind() == TypeKind::F32) return dnnl::memory::data_type::f32;
  if (element.kind() == TypeKind::BF16) return dnnl::memory::data_type::bf16;
  return std::nullopt;
}

bool isOnednnDot(const Operation& op) {
  if (op.name() == "stablehlo.dot_general" || op.name() == "stablehlo.dot") return true;
  Attribute kind = op.attr("kind");
  return op.name() == "kiln.fusion" && kind && kind.stringValue() == "output";
}

void OnednnDot::runOn(const uint8_t* const* inputs, uint8_t* output, ThreadPool& pool) const {
  OpenMpThreads threads(pool.numThreads());
  run(inputs, output);
}

Expected<std::unique_ptr<const OnednnDot>> compileOnednnDot(const Operation& op, int threads) {
  // Find the dot (the op itself, or the one dot inside an output fusion).
  const Operation* dot = &op;
  const Block* body = nullptr;
  if (op.name() == "kiln.fusion") {
    body = &op.region(0).front();
    dot = nullptr;
    for (const Operation& inner : *body)
      if (inner.name() == "stablehlo.dot_general" || inner.name() == "stablehlo.dot") {
        if (dot) return unsupported(op, "holding more than one dot");
        dot = &inner;
      }
    if (!dot) return unsupported(op, "of kind 'output' without a dot");
    if (op.numResults() != 1) return unsupported(op, "with several results");
  }
  Type lhsType = dot->operand(0)->type(), rhsType = dot->operand(1)->type(), outType = dot->result()->type();
  KILN_ASSIGN_OR_RETURN(DotDims d, dotDims(*dot));
  std::vector<int64_t> lhsShape(lhsType.shape().begin(), lhsType.shape().end());
  std::vector<int64_t> rhsShape(rhsType.shape().begin(), rhsType.shape().end());
  std::vector<int64_t> lhsFree = freeDims(lhsType.rank(), d.lhsBatch, d.lhsContracting);
  std::vector<int64_t> rhsFree = freeDims(rhsType.rank(), d.rhsBatch, d.rhsContracting);
  int64_t batch = product(lhsShape, d.lhsBatch), m = product(lhsShape, lhsFree);
  int64_t k = product(lhsShape, d.lhsContracting), n = product(rhsShape, rhsFree);

  // An 8-bit integer dot summing into i32 (quantized inference; JAX's
  // preferred_element_type=int32). Where the host has VNNI (vpdpbusd, or AMX
  // tiles) oneDNN's own int8 kernels add 32-bit products without saturating
  // 16-bit intermediates: exact while no partial sum leaves i32, which its
  // s8-source compensation (the source shifted by 128) bounds by
  // K * 255 * 128. u8 x s8 and s8 x s8 only: oneDNN's int8 weights are s8.
  // Elsewhere the f32 primitive runs on operands widened exactly: when
  // K * max|lhs| * max|rhs| <= 2^24 every product and every partial sum, in
  // whatever order oneDNN adds them, is an integer f32 holds exactly, so the
  // i32 result is the exact sum.
  auto int8Type = [](Type t) -> std::optional<std::pair<dt, int64_t>> {
    if (t.kind() == TypeKind::SI8) return std::pair{dt::s8, int64_t{128}};
    if (t.kind() == TypeKind::UI8) return std::pair{dt::u8, int64_t{255}};
    return std::nullopt;
  };
  auto lhsInt8 = int8Type(lhsType.elementType()), rhsInt8 = int8Type(rhsType.elementType());
  bool int8ToI32 = !body && lhsInt8 && rhsInt8 && outType.elementType().kind() == TypeKind::SI32;
  bool nativeInt8 = int8ToI32 && int8DotsAreNative() && rhsInt8->first == dt::s8 &&
                    k * 255 * 128 <= std::numeric_limits<int32_t>::max();
  bool exactInt8 = int8ToI32 && !nativeInt8 && k * lhsInt8->second * rhsInt8->second <= (int64_t{1} << 24);

  std::optional<dt> type = lhsType.elementType().kind() == TypeKind::F16 ? dt::f16 : dnnlType(lhsType.elementType());
  // A narrow dot may sum into f32 (JAX's preferred_element_type, mixed
  // precision): the primitive's own f32 sums, never rounded to the operands' type.
  bool f32Result = outType.elementType().kind() == TypeKind::F32 && (type == dt::bf16 || type == dt::f16);
  if (!nativeInt8 && !exactInt8 &&
      (!type || rhsType.elementType() != lhsType.elementType() ||
       (outType.elementType() != lhsType.elementType() && !f32Result)))
    return unsupported(*dot, "on " + lhsType.str() + " x " + rhsType.str() + " -> " + outType.str());

  auto result = std::make_unique<MatmulDot>();
  dt narrow = int8ToI32 ? dt::s32 : *type;  // the result's type
  dt lhsNarrow = int8ToI32 ? lhsInt8->first : narrow, rhsNarrow = int8ToI32 ? rhsInt8->first : narrow;
  if (exactInt8 || (narrow == dt::bf16 && !nativeBf16IsFaster()) || narrow == dt::f16) {
    result->widened = true;
    result->narrowResult = !f32Result;
    type = dt::f32;
  }
  // The types the primitive reads and writes.
  dt lhsOperand = nativeInt8 ? lhsNarrow : *type, rhsOperand = nativeInt8 ? rhsNarrow : *type;
  dt resultType = nativeInt8 ? dt::s32 : f32Result ? dt::f32 : *type;
  result->elementBytes = result->widened ? 4 : lhsType.elementType().storageBytes();
  // Batch dims that are not consecutive in memory (a transpose folded into
  // the dot) stay separate dims of the matmul, so that operands are read in
  // place; the epilogue's post-ops are built for [batch, m, n], so only a
  // plain dot does this.
  bool separateBatch = !body && d.lhsBatch.size() <= 9 &&
                       !(batchCollapses(lhsShape, d.lhsBatch) && batchCollapses(rhsShape, d.rhsBatch));
  auto layOut = [&] {
    result->lhs = layoutFor(lhsShape, lhsOperand, result->elementBytes, d.lhsBatch, lhsFree, d.lhsContracting, m, k,
                            separateBatch);
    result->rhs = layoutFor(rhsShape, rhsOperand, result->elementBytes, d.rhsBatch, d.rhsContracting, rhsFree, k, n,
                            separateBatch);
  };
  layOut();
  // Separate batch dims only pay when both operands are then read in place.
  if (separateBatch && (!result->lhs.packPermutation.empty() || !result->rhs.packPermutation.empty())) {
    separateBatch = false;
    layOut();
  }
  if (separateBatch) {
    dims dstDims;
    for (int64_t dim : d.lhsBatch) dstDims.push_back(lhsShape[dim]);
    dstDims.insert(dstDims.end(), {m, n});
    std::vector<int64_t> dstStrides = rowMajorStrides(dstDims);
    result->dstMd = dnnl::memory::desc(dstDims, resultType, dims(dstStrides.begin(), dstStrides.end()));
  } else {
    result->dstMd = dnnl::memory::desc(dims{batch, m, n}, resultType, dnnl::memory::format_tag::abc);
  }

  EpilogueMapper epilogue(body, *result, batch, m, n);
  if (body) {
    // The dot's operands must be fusion parameters (run() reads them directly).
    for (int i = 0; i < 2; ++i)
      if (!dot->operand(i)->isBlockArgument() || dot->operand(i)->ownerBlock() != body)
        return unsupported(*dot, "on a value computed inside its fusion");
    result->lhsInput = int(dot->operand(0)->index());
    result->rhsInput = int(dot->operand(1)->index());
    const Value* chain = dot->result();
    const Value* root = body->terminator()->operand(0);
    while (chain != root) {
      const Operation* next = soleUser(chain);
      if (!next || next->numResults() != 1) return unsupported(*dot, "whose result feeds several fusion ops");
      KILN_RETURN_IF_ERROR(epilogue.map(*next, chain));
      chain = next->result();
    }
  }

  try {
    dnnl::primitive_attr attr;
    attr.set_post_ops(epilogue.postOps);
    // oneDNN's own scratchpad is shared by every run of a primitive, so two
    // threads running one executable would overwrite each other's: each run
    // gets its own instead.
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    auto desc = epilogue.biasMd ? dnnl::matmul::desc(result->lhs.md, result->rhs.md, *epilogue.biasMd, result->dstMd)
                                : dnnl::matmul::desc(result->lhs.md, result->rhs.md, result->dstMd);
    dnnl::matmul::primitive_desc pd(desc, attr, cpuEngine());
    result->scratchpadMd = pd.scratchpad_desc();
    result->primitive = dnnl::matmul(pd);
    planTiles(*result, epilogue.postOps, epilogue.biasMd, threads, batch, m, k, n);
    result->postOps = epilogue.postOps;
    result->biasMd = epilogue.biasMd;
    if (result->widened) {
      result->lhsWiden = Conversion(elementCount(lhsShape), lhsNarrow, dt::f32);
      result->rhsWiden = Conversion(elementCount(rhsShape), rhsNarrow, dt::f32);
      if (result->narrowResult) result->dstNarrow = Conversion(size_t(batch * m * n), dt::f32, narrow);
    }
  } catch (const dnnl::error& e) {
    return unsupported(op, std::string("as a oneDNN matmul (") + e.what() + ")");
  }
  return std::unique_ptr<const OnednnDot>(std::move(result));
}

}  // namespace kiln::cpu
