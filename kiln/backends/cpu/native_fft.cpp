// Native fft: the shared stablehlo.fft driver (interp::fourierTransform),
// or a row-at-a-time path for transforms of the last dim alone, with
// O(n log n) line transforms in place of the reference's direct O(n^2)
// DFT -- radix 2 (vectorized) for powers of two, Bluestein's chirp z-transform
// (a convolution done by power-of-two FFTs) for other lengths above
// kDirectMax, the direct sum below. Like the reference it computes in
// complex<double> with twiddles from exact angles and rounds once at the
// end, so its f32 results rarely differ from the reference's, but it adds in
// another order: this is the one native routine that is not bit for bit
// (see native_routine.h); its error is a few double ULPs of the largest
// output, tested against the reference in cpu_routines_test.
#include <immintrin.h>

#include <bit>
#include <map>
#include <memory>
#include <numbers>

#include "kiln/backends/cpu/native_routine.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"
#include "kiln/ir/attribute_readers.h"

namespace kiln::cpu {
namespace {

using Complex = std::complex<double>;

// Plain complex product: std::complex's operator* goes through a library
// call (C's Annex G infinity recovery) that would cost more than the FFT.
inline Complex times(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// e^(-i pi numerator / denominator), the angle reduced to exact integers first.
Complex rootOfUnity(int64_t numerator, int64_t denominator) {
  return std::polar(1.0, -std::numbers::pi * static_cast<double>(numerator) / static_cast<double>(denominator));
}

// Lines of at most this many elements whose length is not a power of two
// take the reference's direct sum (the same bits as the interpreter):
// cheaper than Bluestein's three FFTs of at least 2n.
constexpr int64_t kDirectMax = 64;

class LineFft {
 public:
  virtual ~LineFft() = default;
  virtual void run(std::span<Complex> x, bool inverse) const = 0;
};

// One pass of radix-2 butterflies over x (n complex numbers as 2n doubles):
// in every block of 2 half, x[j] +- w[j] x[half + j] for j < half, with
// w this pass's twiddles, consecutive (conjugated first for an inverse).
// Vector forms for the host's widest vectors (hostLanes), 4 and 2 complex
// numbers at a time: the product by fmaddsub of x and w's real parts with x
// swapped times w's imaginary parts. Their fused steps round differently
// from the plain form's; the FFT is not bitwise the reference's anyway.
void butterflies(double* x, const double* w, int64_t n, int64_t half, bool inverse) {
  for (int64_t start = 0; start < n; start += 2 * half)
    for (int64_t j = 0; j < half; ++j) {
      double* a = x + 2 * (start + j);
      double* b = a + 2 * half;
      double wr = w[2 * j], wi = inverse ? -w[2 * j + 1] : w[2 * j + 1];
      double tr = b[0] * wr - b[1] * wi, ti = b[0] * wi + b[1] * wr;
      b[0] = a[0] - tr, b[1] = a[1] - ti;
      a[0] += tr, a[1] += ti;
    }
}

[[gnu::target("avx512f")]] void butterflies512(double* x, const double* w, int64_t n, int64_t half, bool inverse) {
  double s = inverse ? -0.0 : 0.0;  // the sign bit of the imaginary parts, flipped for an inverse
  const __m512i flip = _mm512_castpd_si512(_mm512_set_pd(s, 0.0, s, 0.0, s, 0.0, s, 0.0));
  for (int64_t start = 0; start < n; start += 2 * half)
    for (int64_t j = 0; j < half; j += 4) {
      double* a = x + 2 * (start + j);
      double* b = a + 2 * half;
      __m512d wv = _mm512_castsi512_pd(_mm512_xor_si512(_mm512_castpd_si512(_mm512_loadu_pd(w + 2 * j)), flip));
      __m512d bv = _mm512_loadu_pd(b), av = _mm512_loadu_pd(a);
      __m512d t = _mm512_fmaddsub_pd(bv, _mm512_shuffle_pd(wv, wv, 0x00),
                                     _mm512_mul_pd(_mm512_shuffle_pd(bv, bv, 0x55), _mm512_shuffle_pd(wv, wv, 0xFF)));
      _mm512_storeu_pd(b, _mm512_sub_pd(av, t));
      _mm512_storeu_pd(a, _mm512_add_pd(av, t));
    }
}

[[gnu::target("avx2,fma")]] void butterflies256(double* x, const double* w, int64_t n, int64_t half, bool inverse) {
  const __m256d flip = _mm256_set_pd(inverse ? -0.0 : 0.0, 0.0, inverse ? -0.0 : 0.0, 0.0);
  for (int64_t start = 0; start < n; start += 2 * half)
    for (int64_t j = 0; j < half; j += 2) {
      double* a = x + 2 * (start + j);
      double* b = a + 2 * half;
      __m256d wv = _mm256_xor_pd(_mm256_loadu_pd(w + 2 * j), flip);
      __m256d bv = _mm256_loadu_pd(b), av = _mm256_loadu_pd(a);
      __m256d t = _mm256_fmaddsub_pd(bv, _mm256_movedup_pd(wv),
                                     _mm256_mul_pd(_mm256_permute_pd(bv, 0x5), _mm256_permute_pd(wv, 0xF)));
      _mm256_storeu_pd(b, _mm256_sub_pd(av, t));
      _mm256_storeu_pd(a, _mm256_add_pd(av, t));
    }
}

// Complex numbers in a part of a line whose passes run together (128 KB).
constexpr int64_t kCachedPart = 8192;

// Iterative radix-2 decimation in time: the bit-reversal permutation, then
// log2(n) passes of butterflies, each with its own consecutive twiddles
// (pass `half` reads w_(2 half)^j for j < half).
class PowerOfTwoFft final : public LineFft {
 public:
  explicit PowerOfTwoFft(int64_t n) : reversed_(n), twiddles_(std::max<int64_t>(n - 1, 0)) {
    int bits = std::countr_zero(static_cast<uint64_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      uint64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((static_cast<uint64_t>(i) >> b) & 1) << (bits - 1 - b);
      reversed_[i] = static_cast<int64_t>(r);
    }
    // Pass `half` starts at twiddles_[half - 1].
    for (int64_t half = 1; half < n; half *= 2)
      for (int64_t j = 0; j < half; ++j) twiddles_[half - 1 + j] = rootOfUnity(j, half);
  }
  void run(std::span<Complex> x, bool inverse) const override {
    int64_t n = static_cast<int64_t>(x.size());
    for (int64_t i = 0; i < n; ++i)
      if (i < reversed_[i]) std::swap(x[i], x[reversed_[i]]);
    auto* data = reinterpret_cast<double*>(x.data());
    int lanes = hostLanes();
    auto pass = [&](double* part, int64_t length, int64_t half) {
      const auto* w = reinterpret_cast<const double*>(twiddles_.data() + half - 1);
      if (lanes == 16 && half % 4 == 0) butterflies512(part, w, length, half, inverse);
      else if (lanes >= 8 && half % 2 == 0) butterflies256(part, w, length, half, inverse);
      else butterflies(part, w, length, half, inverse);
    };
    // The passes whose blocks fit in a cache-sized part run part by part
    // (a 1M-point line: 13 of its 20 passes in L2), the rest over the line.
    int64_t part = std::min(n, kCachedPart);
    for (int64_t start = 0; start < n; start += part)
      for (int64_t half = 1; half < part; half *= 2) pass(data + 2 * start, part, half);
    for (int64_t half = part; half < n; half *= 2) pass(data, n, half);
  }

 private:
  std::vector<int64_t> reversed_;
  std::vector<Complex> twiddles_;
};

// Bluestein: with jk = (j^2 + k^2 - (k - j)^2) / 2, X[k] = w[k] sum_j
// (x[j] w[j]) conj(w[k - j]) for the chirp w[t] = e^(-i pi t^2 / n): a
// convolution, done circularly in a power-of-two length m >= 2n - 1. The
// inverse is the conjugate of the forward transform of the conjugate.
class BluesteinFft final : public LineFft {
 public:
  explicit BluesteinFft(int64_t n) : m_(int64_t(std::bit_ceil(uint64_t(2 * n - 1)))), fft_(m_), chirp_(n), kernel_(m_) {
    for (int64_t t = 0; t < n; ++t) chirp_[t] = rootOfUnity((t * t) % (2 * n), n);  // period 2n in t^2
    kernel_[0] = std::conj(chirp_[0]);
    for (int64_t t = 1; t < n; ++t) kernel_[t] = kernel_[m_ - t] = std::conj(chirp_[t]);
    fft_.run(kernel_, /*inverse=*/false);
  }
  void run(std::span<Complex> x, bool inverse) const override {
    int64_t n = static_cast<int64_t>(x.size());
    std::vector<Complex> a(m_);
    for (int64_t j = 0; j < n; ++j) a[j] = times(inverse ? std::conj(x[j]) : x[j], chirp_[j]);
    fft_.run(a, /*inverse=*/false);
    for (int64_t i = 0; i < m_; ++i) a[i] = times(a[i], kernel_[i]);
    fft_.run(a, /*inverse=*/true);
    for (int64_t k = 0; k < n; ++k) {
      Complex y = times(a[k], chirp_[k]) / static_cast<double>(m_);
      x[k] = inverse ? std::conj(y) : y;
    }
  }

 private:
  int64_t m_;
  PowerOfTwoFft fft_;
  std::vector<Complex> chirp_, kernel_;
};

// The transform for lines of `n` elements; null: the reference's direct sum.
std::shared_ptr<const LineFft> lineFftFor(int64_t n) {
  if (std::has_single_bit(static_cast<uint64_t>(n))) return std::make_shared<PowerOfTwoFft>(n);
  if (n <= kDirectMax) return nullptr;
  return std::make_shared<BluesteinFft>(n);
}

// An FFT, IFFT or RFFT over the last dim alone (the common case: jnp.fft's
// defaults) straight from and to the tensors' bytes, a row at a time through
// one line of complex<double> -- the shared driver's element-wise loads,
// stores and whole-tensor copies took a third of a 1M-point RFFT. The same
// arithmetic: the line's transform, IFFT's division by n, one rounding to
// the result type. Null for other forms (the driver runs them).
template <typename In, typename Out>
void rowsFft(const uint8_t* in, uint8_t* out, int64_t rows, int64_t n, int64_t kept, bool inverse,
             const std::function<void(std::span<Complex>, bool)>& transform) {
  std::vector<Complex> line(n);
  const In* from = reinterpret_cast<const In*>(in);
  auto* to = reinterpret_cast<std::complex<Out>*>(out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < n; ++k) line[k] = Complex(from[r * n + k]);
    transform(line, inverse);
    for (int64_t k = 0; k < kept; ++k) {
      Complex v = inverse ? line[k] / static_cast<double>(n) : line[k];
      to[r * kept + k] = {static_cast<Out>(v.real()), static_cast<Out>(v.imag())};
    }
  }
}

// RFFT rows of even length n by one complex transform of n/2: z[k] =
// x[2k] + i x[2k+1], Z its transform, then X[k] = (Z[k] + conj Z[n/2-k]) / 2
// - i e^(-2 pi i k / n) (Z[k] - conj Z[n/2-k]) / 2 for k <= n/2 (Z[n/2] is
// Z[0]), with roots[k] = e^(-2 pi i k / n) (exact angles): half the
// butterflies.
template <typename In, typename Out>
void rowsRfft(const uint8_t* in, uint8_t* out, int64_t rows, int64_t n, const std::vector<Complex>& roots,
              const std::function<void(std::span<Complex>, bool)>& transform) {
  int64_t m = n / 2;
  std::vector<Complex> z(m);
  const In* from = reinterpret_cast<const In*>(in);
  auto* to = reinterpret_cast<std::complex<Out>*>(out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t k = 0; k < m; ++k) z[k] = Complex(from[r * n + 2 * k], from[r * n + 2 * k + 1]);
    transform(z, false);
    for (int64_t k = 0; k <= m; ++k) {
      Complex a = z[k == m ? 0 : k], b = std::conj(z[k == 0 ? 0 : m - k]);
      Complex even = (a + b) * 0.5, odd = times(a - b, Complex(0, -0.5));
      Complex v = even + times(roots[k], odd);
      to[r * (m + 1) + k] = {static_cast<Out>(v.real()), static_cast<Out>(v.imag())};
    }
  }
}

std::optional<NativeRoutine> lastDimFft(Type operandType, Type resultType, const std::string& fftType,
                                        const std::vector<int64_t>& fftLength,
                                        const std::function<void(std::span<Complex>, bool)>& transform) {
  if (fftLength.size() != 1 || fftType == "IRFFT" || operandType.rank() == 0) return std::nullopt;
  int64_t n = fftLength[0];
  if (n <= 0 || operandType.shape().back() != n) return std::nullopt;
  int64_t kept = resultType.shape().back(), rows = operandType.numElements() / n;
  if (kept != (fftType == "RFFT" ? n / 2 + 1 : n)) return std::nullopt;
  Type in = operandType.elementType(), out = resultType.elementType();
  Type f32 = Type::f32(), f64 = Type::f64(), c64 = Type::complex(f32), c128 = Type::complex(f64);
  bool inverse = fftType == "IFFT";
  // All rows of one tensor into another.
  std::function<void(const uint8_t*, uint8_t*)> rowsOf;
  if (fftType == "RFFT" && n % 2 == 0 && n >= 4 && (in == f32 || in == f64)) {
    auto roots = std::make_shared<std::vector<Complex>>(n / 2 + 1);
    for (int64_t k = 0; k <= n / 2; ++k) (*roots)[k] = rootOfUnity(2 * k, n);
    rowsOf = [=](const uint8_t* from, uint8_t* to) {
      if (in == f32) rowsRfft<float, float>(from, to, rows, n, *roots, transform);
      else rowsRfft<double, double>(from, to, rows, n, *roots, transform);
    };
  } else {
    using Rows = void (*)(const uint8_t*, uint8_t*, int64_t, int64_t, int64_t, bool,
                          const std::function<void(std::span<Complex>, bool)>&);
    Rows run = nullptr;
    if (in == f32 && out == c64) run = rowsFft<float, float>;
    if (in == f64 && out == c128) run = rowsFft<double, double>;
    if (in == c64 && out == c64) run = rowsFft<std::complex<float>, float>;
    if (in == c128 && out == c128) run = rowsFft<Complex, double>;
    if (!run) return std::nullopt;
    rowsOf = [=](const uint8_t* from, uint8_t* to) { run(from, to, rows, n, kept, inverse, transform); };
  }
  return NativeRoutine{"native fft", [=](const std::vector<interp::Tensor>& operands)
                                         -> std::optional<std::vector<interp::Tensor>> {
                         interp::Tensor result = interp::Tensor::uninitialized(resultType);
                         rowsOf(operands[0].bytes(), result.bytes());
                         return std::vector<interp::Tensor>{std::move(result)};
                       }};
}

}  // namespace

std::optional<NativeRoutine> nativeFft(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 1) return std::nullopt;
  Type operandType = op.operand(0)->type(), resultType = op.result()->type();
  std::string fftType = enumAttr(op, "fft_type", "FFT");
  std::optional<std::vector<int64_t>> fftLength = op.attr("fft_length").asIntList();
  if (!operandType.isTensor() || !resultType.isTensor() || !fftLength ||
      interp::fourierTransformProblem(operandType, resultType, fftType, *fftLength))
    return std::nullopt;  // the reference reports what is wrong
  // Every line a transform runs on is one of these lengths (the operand's
  // trailing dims; IRFFT's last one is fft_length's).
  std::map<int64_t, std::shared_ptr<const LineFft>> plans;
  for (int64_t n : *fftLength)
    if (n > 0) plans.emplace(n, lineFftFor(n));
  for (int64_t d = operandType.rank() - int64_t(fftLength->size()); d < operandType.rank(); ++d)
    if (int64_t n = operandType.shape()[d]; n > 0) plans.emplace(n, lineFftFor(n));
  if (fftType == "RFFT" && fftLength->back() % 2 == 0 && fftLength->back() >= 4)  // its half-length transform
    plans.emplace(fftLength->back() / 2, lineFftFor(fftLength->back() / 2));
  auto transform = [plans](std::span<Complex> line, bool inverse) {
    auto it = plans.find(int64_t(line.size()));
    if (it != plans.end() && it->second) it->second->run(line, inverse);
    else interp::directDft(line, inverse);
  };
  if (std::optional<NativeRoutine> rows = lastDimFft(operandType, resultType, fftType, *fftLength, transform))
    return rows;
  return NativeRoutine{"native fft", [=, length = *fftLength](const std::vector<interp::Tensor>& operands)
                                         -> std::optional<std::vector<interp::Tensor>> {
                         return std::vector<interp::Tensor>{
                             interp::fourierTransform(operands[0], resultType, fftType, length, transform)};
                       }};
}

}  // namespace kiln::cpu
