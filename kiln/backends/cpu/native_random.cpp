// Native rng_bit_generator: the reference's streams (THREE_FRY, PHILOX and
// DEFAULT = PHILOX, laid out as XLA lays them out; kiln/interp/ops_misc.cpp)
// generated a block of counters at a time, so the generators' rounds run
// on vectors, and written straight into the output's bytes: each Threefry
// counter is computed once for the two elements it feeds (the reference
// computes it per element). Taken for element types whose bits are the low
// bytes of the generated word (8- to 64-bit integers, f16, bf16, f32, f64);
// booleans, sub-byte and f8 types stay with the reference.
#include <algorithm>
#include <cstring>

#include "kiln/backends/cpu/native_routine.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/random_bits.h"
#include "kiln/ir/attribute_readers.h"

namespace kiln::cpu {
namespace {

using interp::Pair32;
using interp::Quad32;
using interp::Tensor;

constexpr int kBlock = 64;  // counters per block

// The block functions' loops vectorize across counters, once per tier
// (KILN_PER_TIER).

// The words of Threefry for counters first, first + 1, ... (mod 2^64).
[[gnu::always_inline]] inline void threefryBlockLoop(Pair32 key, uint64_t first, int count, uint32_t* w0,
                                                     uint32_t* w1) {
  for (int k = 0; k < count; ++k) {
    Pair32 r = interp::threefry2x32(key, interp::split64(first + uint64_t(k)));
    w0[k] = r[0];
    w1[k] = r[1];
  }
}
KILN_PER_TIER(void, threefryBlock, threefryBlockLoop,
              (Pair32 key, uint64_t first, int count, uint32_t* w0, uint32_t* w1), (key, first, count, w0, w1))

// Philox's four words of blocks first, first + 1, ... of the 128-bit
// counter (high, low) -- the high half carries when the low one wraps.
[[gnu::always_inline]] inline void philoxBlockLoop(Pair32 key, uint64_t low, uint64_t high, int count,
                                                   uint32_t* words) {
  for (int k = 0; k < count; ++k) {
    uint64_t lo = low + uint64_t(k);
    uint64_t hi = high + (lo < low ? 1 : 0);
    Pair32 l = interp::split64(lo), h = interp::split64(hi);
    Quad32 r = interp::philox4x32(key, {l[0], l[1], h[0], h[1]});
    for (int w = 0; w < 4; ++w) words[4 * k + w] = r[w];
  }
}
KILN_PER_TIER(void, philoxBlock, philoxBlockLoop,
              (Pair32 key, uint64_t low, uint64_t high, int count, uint32_t* words), (key, low, high, count, words))

template <int Bytes> void store(uint8_t* out, int64_t i, uint64_t value) {
  std::memcpy(out + i * Bytes, &value, Bytes);  // little-endian host: the low bytes
}

// Threefry: for 64-bit elements, element j is counter j's two words; for
// narrower ones the shape halves along its first even dim (else its
// largest), and counter j (row-major in the halved shape) gives word 0 to
// element 2h and word 1 to element 2h + 1 of that dim.
template <int Bytes>
uint64_t threefry(uint64_t key, uint64_t counter, std::span<const int64_t> shape, uint8_t* out) {
  Pair32 k = interp::split64(key);
  uint32_t w0[kBlock], w1[kBlock];
  if constexpr (Bytes == 8) {
    int64_t n = interp::numElementsOf(shape);
    for (int64_t j = 0; j < n; j += kBlock) {
      int count = int(std::min<int64_t>(kBlock, n - j));
      threefryBlock(k, counter + uint64_t(j), count, w0, w1);
      for (int c = 0; c < count; ++c) store<8>(out, j + c, interp::join32(w0[c], w1[c]));
    }
    return counter + uint64_t(n);
  }
  std::vector<int64_t> dims(shape.begin(), shape.end());
  if (dims.empty()) dims = {1};  // a scalar is generated as one element
  auto even = std::find_if(dims.begin(), dims.end(), [](int64_t d) { return d % 2 == 0; });
  size_t split = (even != dims.end() ? even : std::max_element(dims.begin(), dims.end())) - dims.begin();
  int64_t outer = interp::numElementsOf(std::span(dims).subspan(0, split)), extent = dims[split];
  int64_t inner = interp::numElementsOf(std::span(dims).subspan(split + 1)), half = (extent + 1) / 2;
  int64_t counters = outer * half * inner;
  // Counters (o, h, 0..inner) feed rows 2h and 2h + 1 of block o, element by element.
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t h = 0; h < half; ++h) {
      int64_t row = (o * half + h) * inner, first = (o * extent + 2 * h) * inner;
      bool second = 2 * h + 1 < extent;
      for (int64_t i = 0; i < inner; i += kBlock) {
        int count = int(std::min<int64_t>(kBlock, inner - i));
        threefryBlock(k, counter + uint64_t(row + i), count, w0, w1);
        for (int c = 0; c < count; ++c) store<Bytes>(out, first + i + c, w0[c]);
        if (second)
          for (int c = 0; c < count; ++c) store<Bytes>(out, first + inner + i + c, w1[c]);
      }
    }
  return counter + uint64_t(counters);
}

// Philox: the word stream fills the output in row-major order, two words
// (low first) per 64-bit element. Returns the advanced 128-bit counter.
template <int Bytes>
std::pair<uint64_t, uint64_t> philox(uint64_t key, uint64_t low, uint64_t high, int64_t n, uint8_t* out) {
  Pair32 k = interp::split64(key);
  int64_t wordsPerElement = Bytes == 8 ? 2 : 1, numWords = n * wordsPerElement, blocks = (numWords + 3) / 4;
  uint32_t words[4 * kBlock];
  for (int64_t b = 0; b < blocks; b += kBlock) {
    int count = int(std::min<int64_t>(kBlock, blocks - b));
    uint64_t lo = low + uint64_t(b);
    philoxBlock(k, lo, high + (lo < low ? 1 : 0), count, words);
    int64_t firstWord = 4 * b, lastWord = std::min(numWords, firstWord + 4 * count);
    for (int64_t w = firstWord; w < lastWord; w += wordsPerElement) {
      uint32_t x = words[w - firstWord];
      store<Bytes>(out, w / wordsPerElement, Bytes == 8 ? interp::join32(x, words[w - firstWord + 1]) : x);
    }
  }
  uint64_t advanced = low + uint64_t(blocks);
  return {advanced, high + (advanced < low ? 1 : 0)};
}

bool bytesAreLowBits(Type element) {
  if (element.isInteger()) return element.bitWidth() == 8 * element.storageBytes() && element.bitWidth() >= 8;
  TypeKind kind = element.kind();
  return kind == TypeKind::F16 || kind == TypeKind::BF16 || kind == TypeKind::F32 || kind == TypeKind::F64;
}

}  // namespace

std::optional<NativeRoutine> nativeRngBitGenerator(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 2) return std::nullopt;
  Type state = op.operand(0)->type(), newState = op.result(0)->type(), output = op.result(1)->type();
  std::string algorithm = enumAttr(op, "rng_algorithm", "DEFAULT");
  if (algorithm == "DEFAULT") algorithm = "PHILOX";  // as XLA's CPU and GPU compilers
  if ((algorithm != "PHILOX" && algorithm != "THREE_FRY") || !state.isTensor() || state.rank() != 1 ||
      state.numElements() < 2 || !state.elementType().isInteger() || newState != state || !output.isTensor() ||
      !bytesAreLowBits(output.elementType()))
    return std::nullopt;
  bool threefryStream = algorithm == "THREE_FRY";
  return NativeRoutine{"native rng_bit_generator " + algorithm,
                       [=](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
                         const Tensor& in = operands[0];
                         Tensor advanced(newState), bits(output);  // the key stays; the counter advances
                         advanced.copyElement(0, in, 0);
                         uint64_t key = in.getUInt(0);
                         // XLA makes a 2-element state into Philox's counter (low = state[1], high = state[0]).
                         uint64_t high = in.numElements() > 2 ? in.getUInt(2) : key;
                         auto generate = [&]<int Bytes>() {
                           if (threefryStream) {
                             advanced.setInt(1, int64_t(threefry<Bytes>(key, in.getUInt(1), output.shape(), bits.bytes())));
                             return;
                           }
                           auto [low, carried] = philox<Bytes>(key, in.getUInt(1), high, output.numElements(), bits.bytes());
                           advanced.setInt(1, int64_t(low));
                           if (in.numElements() > 2) advanced.setInt(2, int64_t(carried));
                         };
                         switch (output.elementType().storageBytes()) {
                           case 1: generate.operator()<1>(); break;
                           case 2: generate.operator()<2>(); break;
                           case 4: generate.operator()<4>(); break;
                           default: generate.operator()<8>(); break;
                         }
                         return std::vector<Tensor>{std::move(advanced), std::move(bits)};
                       }};
}

}  // namespace kiln::cpu
