// Native fft: the shared stablehlo.fft driver (interp::fourierTransform)
// with O(n log n) line transforms in place of the reference's direct
// O(n^2) DFT -- radix 2 for powers of two, Bluestein's chirp z-transform
// (a convolution done by power-of-two FFTs) for other lengths above
// kDirectMax, the direct sum below. Like the reference it computes in
// complex<double> with twiddles from exact angles and rounds once at the
// end, so its f32 results rarely differ from the reference's, but it adds in
// another order: this is the one native routine that is not bit for bit
// (see native_routine.h); its error is a few double ULPs of the largest
// output, tested against the reference in cpu_routines_test.
#include <bit>
#include <map>
#include <memory>
#include <numbers>

#include "kiln/backends/cpu/native_routine.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"

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

// Iterative radix-2 decimation in time: the bit-reversal permutation, then
// log2(n) passes of butterflies.
class PowerOfTwoFft final : public LineFft {
 public:
  explicit PowerOfTwoFft(int64_t n) : reversed_(n), twiddle_(n / 2) {
    int bits = std::countr_zero(static_cast<uint64_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      uint64_t r = 0;
      for (int b = 0; b < bits; ++b) r |= ((static_cast<uint64_t>(i) >> b) & 1) << (bits - 1 - b);
      reversed_[i] = static_cast<int64_t>(r);
    }
    for (int64_t k = 0; k < n / 2; ++k) twiddle_[k] = rootOfUnity(2 * k, n);
  }
  void run(std::span<Complex> x, bool inverse) const override {
    int64_t n = static_cast<int64_t>(x.size());
    for (int64_t i = 0; i < n; ++i)
      if (i < reversed_[i]) std::swap(x[i], x[reversed_[i]]);
    for (int64_t half = 1; half < n; half *= 2) {
      int64_t step = n / (2 * half);
      for (int64_t start = 0; start < n; start += 2 * half)
        for (int64_t j = 0; j < half; ++j) {
          Complex w = twiddle_[j * step];
          Complex t = times(x[start + j + half], inverse ? std::conj(w) : w);
          x[start + j + half] = x[start + j] - t;
          x[start + j] += t;
        }
    }
  }

 private:
  std::vector<int64_t> reversed_;
  std::vector<Complex> twiddle_;
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

}  // namespace

std::optional<NativeRoutine> nativeFft(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 1) return std::nullopt;
  Type operandType = op.operand(0)->type(), resultType = op.result()->type();
  std::string fftType = interp::enumAttr(op, "fft_type", "FFT");
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
  auto transform = [plans](std::span<Complex> line, bool inverse) {
    auto it = plans.find(int64_t(line.size()));
    if (it != plans.end() && it->second) it->second->run(line, inverse);
    else interp::directDft(line, inverse);
  };
  return NativeRoutine{"native fft", [=, length = *fftLength](const std::vector<interp::Tensor>& operands)
                                         -> std::optional<std::vector<interp::Tensor>> {
                         return std::vector<interp::Tensor>{
                             interp::fourierTransform(operands[0], resultType, fftType, length, transform)};
                       }};
}

}  // namespace kiln::cpu
