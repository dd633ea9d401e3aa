// Counter-based bit generators: Threefry-2x32 (20 rounds) and Philox-4x32
// (10 rounds) from Salmon et al., "Parallel random numbers: as easy as 1,
// 2, 3" (SC'11). Shared by the interpreter's rng_bit_generator and rng
// (ops_misc.cpp) and the cpu back end's native rng_bit_generator, which must
// give the same bits; inline so that a loop over counters can vectorize.
#pragma once

#include <array>
#include <cstdint>

namespace kiln::interp {

using Pair32 = std::array<uint32_t, 2>;
using Quad32 = std::array<uint32_t, 4>;

inline uint32_t rotl32(uint32_t v, int r) { return (v << r) | (v >> (32 - r)); }
inline Pair32 split64(uint64_t v) { return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)}; }
inline uint64_t join32(uint32_t lo, uint32_t hi) { return (static_cast<uint64_t>(hi) << 32) | lo; }

inline Pair32 threefry2x32(Pair32 key, Pair32 x) {
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  x[0] += ks[0];
  x[1] += ks[1];
  for (uint32_t group = 0; group < 5; ++group) {
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = rotl32(x[1], kRotations[(group % 2) * 4 + r]);
      x[1] ^= x[0];
    }
    // Key injection after every 4 rounds.
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + group + 1;
  }
  return x;
}

inline Quad32 philox4x32(Pair32 key, Quad32 x) {
  constexpr uint64_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57;
  constexpr uint32_t kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = kM0 * x[0], p1 = kM1 * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += kW0;
    key[1] += kW1;
  }
  return x;
}

}  // namespace kiln::interp
