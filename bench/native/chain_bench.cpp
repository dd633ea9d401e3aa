// The arithmetic roof of bench/run's elementwise_chain10: the same ten ops
// (tanh(x*x + x), exp, subtract, abs, sqrt, maximum, negate, logistic) with
// the same formulas, coefficients and NaN rules as kiln's f32 math
// (kiln/backends/cpu/math_approx.cpp), written by hand with AVX-512
// intrinsics and timed on N threads over arrays of any size. With arrays
// that stay in cache it says how fast this core runs the chain's arithmetic
// at kiln's accuracy; bench/run reads the chain workloads against it
// (bench/README.md). No kiln code is measured. Its results are checked
// against the chain in double before it prints anything.
//
//   kiln_chain_bench [--threads N] [--elements N] [--runs N]
// prints one line: {"gbps": best, "threads": N, "elements": N, "max_rel_error": e}
// (bytes counted as the workload counts them: 8 per element, in and out),
// or {"gbps": null, "reason": ...} on a host built without AVX-512F.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "parallel_runs.h"

#ifdef __AVX512F__
#include <immintrin.h>

namespace {

[[gnu::always_inline]] inline __m512 splat(float v) { return _mm512_set1_ps(v); }

// e^x - 1 = r + r^2 P(r) with x = n ln2 + r (kiln's expm1Reduced).
[[gnu::always_inline]] inline __m512 expm1Reduced(__m512 x, __m512& n) {
  n = _mm512_roundscale_ps(_mm512_mul_ps(x, splat(1.4426950408889634f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, splat(0.693145751953125f), x);
  r = _mm512_fnmadd_ps(n, splat(1.42860682030941723212e-6f), r);
  __m512 p = splat(0.001385816023685038f);
  for (float c : {0.00836667325347662f, 0.041667595505714417f, 0.16666541993618011f, 0.4999999701976776f})
    p = _mm512_fmadd_ps(p, r, splat(c));
  return _mm512_fmadd_ps(_mm512_mul_ps(r, r), p, r);
}

[[gnu::always_inline]] inline __m512 exp(__m512 x) {
  x = _mm512_max_ps(_mm512_min_ps(x, splat(89.0f)), splat(-104.0f));
  __m512 n;
  __m512 m = expm1Reduced(x, n);
  return _mm512_scalef_ps(_mm512_add_ps(m, splat(1.0f)), n);
}

[[gnu::always_inline]] inline __m512 copySign(__m512 magnitude, __m512 sign) {
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_castps_si512(magnitude), _mm512_castps_si512(sign),
                                                       _mm512_set1_epi32(0x7FFFFFFF), 0xE4));
}

// sign(x) e / (e + 2) with e = e^(2|x|) - 1 (kiln's tanh).
[[gnu::always_inline]] inline __m512 tanh(__m512 x) {
  __m512 a = _mm512_min_ps(_mm512_abs_ps(x), splat(10.0f));
  __m512 n;
  __m512 m = expm1Reduced(_mm512_add_ps(a, a), n);
  __m512 scale = _mm512_scalef_ps(splat(1.0f), n);
  __m512 e = _mm512_fmadd_ps(scale, m, _mm512_sub_ps(scale, splat(1.0f)));
  return copySign(_mm512_div_ps(e, _mm512_add_ps(e, splat(2.0f))), x);
}

// (x >= 0 ? 1 : e) / (1 + e) with e = e^-|x|; NaN stays (kiln's logistic).
[[gnu::always_inline]] inline __m512 logistic(__m512 x) {
  __m512 e = exp(_mm512_or_ps(x, splat(-0.0f)));
  __mmask16 nonNegative = _mm512_cmp_ps_mask(x, splat(0.0f), _CMP_GE_OQ);
  __m512 r = _mm512_div_ps(_mm512_mask_blend_ps(nonNegative, e, splat(1.0f)), _mm512_add_ps(splat(1.0f), e));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), r, x);
}

// IEEE maximum: NaN wins, -0 < +0.
[[gnu::always_inline]] inline __m512 maximum(__m512 a, __m512 b) {
  __mmask16 aNegative = _mm512_movepi32_mask(_mm512_castps_si512(a));
  __m512 r = _mm512_max_ps(_mm512_mask_blend_ps(aNegative, a, b), _mm512_mask_blend_ps(aNegative, b, a));
  __mmask16 nan = _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q);
  return _mm512_mask_blend_ps(nan, r, _mm512_add_ps(a, b));
}

[[gnu::always_inline]] inline __m512 chain(__m512 x) {
  __m512 y = tanh(_mm512_add_ps(_mm512_mul_ps(x, x), x));
  y = _mm512_sqrt_ps(_mm512_abs_ps(_mm512_sub_ps(exp(y), x)));
  return logistic(_mm512_xor_ps(maximum(y, x), splat(-0.0f)));
}

// Four vectors a step (as kiln's loop; clang schedules it best), then one, and the
// lanes past a multiple of 16 through a masked load and store.
void chainRange(const float* in, float* out, size_t lo, size_t hi) {
  size_t i = lo;
  for (; i + 64 <= hi; i += 64) {
    __m512 a = _mm512_loadu_ps(in + i), b = _mm512_loadu_ps(in + i + 16);
    __m512 c = _mm512_loadu_ps(in + i + 32), d = _mm512_loadu_ps(in + i + 48);
    _mm512_storeu_ps(out + i, chain(a));
    _mm512_storeu_ps(out + i + 16, chain(b));
    _mm512_storeu_ps(out + i + 32, chain(c));
    _mm512_storeu_ps(out + i + 48, chain(d));
  }
  for (; i + 16 <= hi; i += 16) _mm512_storeu_ps(out + i, chain(_mm512_loadu_ps(in + i)));
  if (i < hi) {
    __mmask16 tail = __mmask16((1u << (hi - i)) - 1);
    _mm512_mask_storeu_ps(out + i, tail, chain(_mm512_maskz_loadu_ps(tail, in + i)));
  }
}

}  // namespace
#endif

using namespace kiln::bench;

int main(int argc, char** argv) {
  if (wantsHelp(argc, argv)) {
    std::printf("usage: kiln_chain_bench [--threads N] [--elements N] [--runs N]\n\n"
                "elementwise_chain10's ten ops with kiln's f32 formulas, by hand in AVX-512, over N\n"
                "f32 elements on N threads; checks the results against the chain in double, then\n"
                "prints the best run's rate as JSON (8 bytes per element, as bench/run counts it).\n");
    return 0;
  }
  std::optional<RunOptions> options = runOptions(argc, argv, "kiln_chain_bench", 1L << 16, 200);
  if (!options) return 2;
  auto [threads, n, runs] = *options;
#ifndef __AVX512F__
  std::printf("{\"gbps\": null, \"reason\": \"built for a host without AVX-512F\"}\n");
  return 0;
#else
  Array in = allocate(n), out = allocate(n);
  if (!in || !out) {
    std::fprintf(stderr, "kiln_chain_bench: cannot allocate 2 x %zu floats\n", n);
    return 1;
  }
  float *pin = in.get(), *pout = out.get();
  // Inputs in [-3, 3) from a hash of the index (the chain has no branches:
  // its speed does not depend on the values).
  auto input = [](size_t i) {
    uint32_t h = uint32_t(i) * 2654435761u;
    h ^= h >> 15;
    return (float(h >> 8) * 0x1p-24f - 0.5f) * 6.0f;
  };
  double best = bestSeconds(
      n, threads, runs,
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) pin[i] = input(i), pout[i] = 0.0f;
      },
      [&](size_t lo, size_t hi) { chainRange(pin, pout, lo, hi); });
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double x = pin[i], y = std::tanh(x * x + x);
    y = std::sqrt(std::fabs(std::exp(y) - x));
    double want = 1.0 / (1.0 + std::exp(std::max(y, x)));
    worst = std::max(worst, std::fabs(pout[i] - want) / std::fabs(want));
  }
  if (!(worst < 1e-5)) {
    std::fprintf(stderr, "kiln_chain_bench: results off the chain in double by %g (relative)\n", worst);
    return 3;
  }
  std::printf("{\"gbps\": %.3f, \"threads\": %d, \"elements\": %zu, \"max_rel_error\": %.3g}\n", 8.0 * n / best / 1e9,
              threads, n, worst);
  return 0;
#endif
}
