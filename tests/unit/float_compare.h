// Float comparison helpers shared by the back-end tests.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kiln::testing {

// Distance in units in the last place between two values of one float format
// (f32 when `isF32`, else f64): 0 for equal values and for two NaNs.
inline uint64_t ulpDistance(double a, double b, bool isF32) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
  auto ordered = [&](double x) -> int64_t {
    int64_t bits = isF32 ? std::bit_cast<int32_t>(static_cast<float>(x)) : std::bit_cast<int64_t>(x);
    return bits < 0 ? std::numeric_limits<int64_t>::min() - bits : bits;  // monotonic in x
  };
  int64_t d = ordered(a) - ordered(b);
  return d < 0 ? uint64_t(-d) : uint64_t(d);
}

}  // namespace kiln::testing
