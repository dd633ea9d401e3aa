// Random valid StableHLO programs for the differential fuzzer
// (tests/fuzz/differential_fuzzer.cpp): every choice is read from a byte
// string, so libFuzzer's mutations and a seeded driver both steer it, and the
// same bytes always give the same program.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "kiln/ir/ir.h"

namespace kiln::fuzz {

// The fuzzer's bytes as a stream of choices; past the end every choice is 0.
class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // A number in [0, n).
  uint32_t below(uint32_t n) {
    uint32_t raw = next() | (uint32_t(next()) << 8);
    return n ? raw % n : 0;
  }
  bool coin() { return below(2) == 1; }

 private:
  uint8_t next() { return pos_ < size_ ? data_[pos_++] : 0; }
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// A module with one function @main of 1 to 3 parameters (f32, si32, i1,
// f64, bf16, si64;
// rank <= 4, dims <= 5) and up to 16 ops chosen so that the verifier accepts
// them: elementwise unary and binary ops, compare, select, clamp, convert,
// broadcast_in_dim, transpose, reshape, slice, concatenate, pad, reduce
// (add, max, min, mul bodies), dot_general, iota and constant. Ops whose
// result both back ends need not compute bit for bit (transcendentals,
// arithmetic, sums) are never fed to ops that amplify a last-bit difference
// into a different answer (float compare, float -> integer convert).
std::unique_ptr<Module> randomProgram(Choices& choices);

}  // namespace kiln::fuzz
