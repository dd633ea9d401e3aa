// Native linear algebra for f32 matrices: Cholesky (stablehlo.cholesky,
// lapack_spotrf_ffi), triangular solves (stablehlo.triangular_solve,
// lapack_strsm_ffi) and LU with partial pivoting (lapack_sgetrf_ffi), by
// blocked algorithms whose O(n^3) part is oneDNN's sgemm: panels of kBlock
// columns are factored or solved element by element, and the rest of the
// matrix is updated by one matrix product per panel.
//
// The reference (interp/linalg.h) substitutes element by element in double
// and rounds once; these work in f32 as LAPACK's s-routines do (what XLA:CPU
// calls), so they are not bit for bit (see native_routine.h): their error is
// LAPACK's, a small multiple of f32's epsilon times the condition of the
// problem, tested against the reference in cpu_routines_test. Matrices the
// reference reports on (a Cholesky pivot that is not positive, an exactly
// zero LU pivot) go to the reference, whose NaN and info it defines.
#include <dnnl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "kiln/backends/cpu/native_routine.h"
#include "kiln/backends/cpu/openmp_threads.h"
#include "kiln/support/thread_pool.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"
#include "kiln/ir/attribute_readers.h"

namespace kiln::cpu {
namespace {

using interp::Tensor;

// Columns per panel: a panel's element-by-element work is O(n^2 kBlock),
// the rest one sgemm of depth kBlock per panel.
constexpr int64_t kBlock = 64;

// A row-major matrix view: element (i, j) at data[i * stride + j].
struct Matrix {
  float* data;
  int64_t stride;
  float& operator()(int64_t i, int64_t j) const { return data[i * stride + j]; }
  float* at(int64_t i, int64_t j) const { return data + i * stride + j; }
};

// Multiply-adds from which a routine's work is split across the
// executable's threads (RoutineThreads): below, handing it over costs more
// than it saves (the same bound as a oneDNN dot's, kParallelLibraryWork).
constexpr int64_t kParallelWork = 1 << 20;

// Runs body(i) for i in [0, count), across the routine's threads when the
// items' `workPerItem` multiply-adds add up to kParallelWork, taken one at
// a time as threads finish (items may differ in size). False if any body was.
template <typename Body>
bool forEach(int64_t count, int64_t workPerItem, const Body& body) {
  ThreadPool* pool = RoutineThreads::current();
  if (count <= 1 || count * workPerItem < kParallelWork || !pool || pool->numThreads() <= 1) {
    for (int64_t i = 0; i < count; ++i)
      if (!body(i)) return false;
    return true;
  }
  // Items are claimed one at a time, so nested calls run on their thread.
  RoutineThreads inner(nullptr);
  std::atomic<bool> ok{true};
  pool->parallelFor(count, [&](int64_t begin, int64_t end) {
    RoutineThreads worker(nullptr);
    // A pool worker's sgemm would otherwise fork an OpenMP team of every
    // core (the caller's is set to one thread, a worker's is the default).
    OpenMpThreads one(1);
    for (int64_t i = begin; i < end; ++i)
      if (ok.load(std::memory_order_relaxed) && !body(i)) ok = false;
  }, static_cast<int>(std::min<int64_t>(count, 1 << 30)));
  return ok;
}

// Runs body(begin, end) over ranges covering [0, count): the calling thread
// takes all of it, or, when the items' `workPerItem` multiply-adds add up to
// kParallelWork, four ranges per thread of the routine's. For batches of
// matrices, whose scratch is allocated once per range. False if any body was.
template <typename Body>
bool forBatches(int64_t count, int64_t workPerItem, const Body& body) {
  ThreadPool* pool = RoutineThreads::current();
  if (count <= 1 || count * workPerItem < kParallelWork || !pool || pool->numThreads() <= 1) return body(int64_t{0}, count);
  RoutineThreads inner(nullptr);
  std::atomic<bool> ok{true};
  pool->parallelFor(count, [&](int64_t begin, int64_t end) {
    RoutineThreads worker(nullptr);
    OpenMpThreads one(1);  // as in forEach
    if (ok.load(std::memory_order_relaxed) && !body(begin, end)) ok = false;
  }, 4 * pool->numThreads());
  return ok;
}

// Runs body(begin, end) over [0, n) in chunks, across the routine's threads
// when n items of `workPerItem` multiply-adds add up to kParallelWork: four
// chunks per thread, chunk starts a multiple of 16 (whole cache lines of
// f32 columns).
template <typename Body>
void forRanges(int64_t n, int64_t workPerItem, const Body& body) {
  ThreadPool* pool = RoutineThreads::current();
  int threads = pool ? pool->numThreads() : 1;
  if (threads <= 1 || n * workPerItem < kParallelWork) {
    body(int64_t{0}, n);
    return;
  }
  int64_t chunk = std::max<int64_t>(16, (n / (4 * threads) + 15) / 16 * 16);
  forEach((n + chunk - 1) / chunk, kParallelWork, [&](int64_t c) {
    body(c * chunk, std::min(n, (c + 1) * chunk));
    return true;
  });
}

// c (m x n) -= a (m x k) * b (k x n), or * b^T with b stored n x k: one
// sgemm on one thread, or blocks of rows across the routine's threads.
bool subtractProduct(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                     bool bTransposed, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return true;
  // Blocks of at least 128 rows, two per thread: thinner sgemms run
  // slower per multiply-add than the hand-off saves.
  ThreadPool* pool = RoutineThreads::current();
  int threads = pool ? pool->numThreads() : 1;
  int64_t rowsPerBlock = threads > 1 ? std::max<int64_t>(2 * kBlock, (m / (2 * threads) + 15) / 16 * 16) : m;
  return forEach((m + rowsPerBlock - 1) / rowsPerBlock, rowsPerBlock * n * k, [&](int64_t r) {
    int64_t r0 = r * rowsPerBlock, rows = std::min(m, r0 + rowsPerBlock) - r0;
    return dnnl_sgemm('N', bTransposed ? 'T' : 'N', rows, n, k, -1.0f, a + r0 * lda, lda, b, ldb, 1.0f, c + r0 * ldc,
                      ldc) == dnnl_success;
  });
}

// The inner loops are built once per ISA tier (KILN_PER_TIER): this file is
// otherwise built for the baseline x86-64, whose 4-wide vectors without FMA
// held small factorizations at a third of what LAPACK reaches.

// dst[i] -= src[i] * c for i in [0, n): the inner loop of the panels. The
// inline forms are for loops inside functions cloned per ISA, the others
// for calls from elsewhere.
template <typename T>
inline __attribute__((always_inline)) void subtractScaledInline(T* __restrict dst, const T* __restrict src, T c,
                                                                int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] -= src[i] * c;
}

KILN_PER_TIER(void, subtractScaled, subtractScaledInline,
              (float* __restrict dst, const float* __restrict src, float c, int64_t n), (dst, src, c, n))

// Substitution in a diagonal block: solves t x = b in place of b (rows x
// cols, row stride ldb), t (rows x rows, row stride ldt) lower (forward) or
// upper (backward) triangular, with a unit diagonal when asked; only t's
// strict triangle (and its diagonal unless unit) is read. Row k of x is
// b's row k less t[k, j] times each solved row j, in the order of j, then
// divided by t[k, k]: what one subtractScaled per (k, j) computes, but by
// strips of kSubstituteStrip columns whose running row stays in registers,
// so that each multiply-add loads one solved element instead of loading
// and storing the row being solved as well.
constexpr int64_t kSubstituteStrip = 64;

template <typename T, int64_t Width>
inline __attribute__((always_inline)) void substituteStrip(const T* t, int64_t ldt, T* b, int64_t ldb, int64_t rows,
                                                           int64_t width, bool lower, bool unitDiagonal) {
  int64_t w = Width > 0 ? Width : width;
  // The strip is substituted in a packed copy: rows of a power-of-two
  // stride (b of 1024 columns: 4 KiB) all fall in the same few sets of the
  // L1 cache, which then holds 8 of the 64 rows and reads the rest from L2.
  T packed[kBlock * kSubstituteStrip];
  T* source = b;
  int64_t sourceStride = ldb;
  if (rows <= kBlock) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t q = 0; q < w; ++q) packed[r * kSubstituteStrip + q] = b[r * ldb + q];
    b = packed;
    ldb = kSubstituteStrip;
  }
  for (int64_t r = 0; r < rows; ++r) {
    int64_t k = lower ? r : rows - 1 - r;
    T acc[Width > 0 ? Width : kSubstituteStrip];
    T* dst = b + k * ldb;
    for (int64_t q = 0; q < w; ++q) acc[q] = dst[q];
    for (int64_t j = lower ? 0 : k + 1; j < (lower ? k : rows); ++j) {
      T f = t[k * ldt + j];
      const T* src = b + j * ldb;
      for (int64_t q = 0; q < w; ++q) acc[q] -= src[q] * f;
    }
    if (!unitDiagonal) {
      T d = t[k * ldt + k];
      for (int64_t q = 0; q < w; ++q) acc[q] /= d;
    }
    for (int64_t q = 0; q < w; ++q) dst[q] = acc[q];
  }
  if (b == packed)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t q = 0; q < w; ++q) source[r * sourceStride + q] = packed[r * kSubstituteStrip + q];
}

template <typename T>
inline __attribute__((always_inline)) void substituteBlockOf(const T* t, int64_t ldt, T* b, int64_t ldb, int64_t rows,
                                                             int64_t cols, bool lower, bool unitDiagonal) {
  int64_t c0 = 0;
  for (; c0 + kSubstituteStrip <= cols; c0 += kSubstituteStrip)
    substituteStrip<T, kSubstituteStrip>(t, ldt, b + c0, ldb, rows, kSubstituteStrip, lower, unitDiagonal);
  if (c0 < cols) substituteStrip<T, 0>(t, ldt, b + c0, ldb, rows, cols - c0, lower, unitDiagonal);
}

KILN_PER_TIER(void, substituteBlock, substituteBlockOf,
              (const float* t, int64_t ldt, float* b, int64_t ldb, int64_t rows, int64_t cols, bool lower,
               bool unitDiagonal),
              (t, ldt, b, ldb, rows, cols, lower, unitDiagonal))

// Eight partial sums, so that the loop vectorizes without reassociating
// floating-point addition behind the compiler's back; short products (the
// 4x4 Cholesky's) take the plain loop alone.
template <typename T>
inline __attribute__((always_inline)) T dotProduct(const T* __restrict a, const T* __restrict b, int64_t n) {
  T sum = 0;
  int64_t i = 0;
  if (n >= 8) {
    T partial[8] = {};
    for (; i + 8 <= n; i += 8)
      for (int lane = 0; lane < 8; ++lane) partial[lane] += a[i + lane] * b[i + lane];
    for (T p : partial) sum += p;
  }
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// ---- Small matrices, whole in cache: one pass per block of kSmallPanel rows ----------------

// Rows per block of the small factorization: its trailing update subtracts
// kSmallPanel rank-one products in one pass over each row, loading and
// storing the row once for kSmallPanel multiply-adds per element.
constexpr int64_t kSmallPanel = 8;

// Largest order factored by choleskyUpperSmall (its matrix, 64 KiB, in L2);
// above, the blocked sgemm path. f32 matrices up to kElementwiseCholesky
// take that path's element-by-element diagonal block alone, which costs
// less per matrix than the small path's copies (1 thread, 4096 4x4: 270 us
// against 350; 256 16x16: 186 against 200; 256 24x24: 296 against 248).
constexpr int64_t kSmallCholesky = 128;
constexpr int64_t kElementwiseCholesky = 16;

// dst[k] -= sum over p < kSmallPanel of c[p] * src[p * ld + k], k in [0, n).
template <typename T>
inline __attribute__((always_inline)) void subtractPanelProduct(T* __restrict dst, const T* __restrict src, int64_t ld,
                                                                const T* __restrict c, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    T sum = dst[k];
    for (int64_t p = 0; p < kSmallPanel; ++p) sum -= c[p] * src[p * ld + k];
    dst[k] = sum;
  }
}

// Row updates of choleskyUpperSmall start at a multiple of this many
// bytes' worth of columns (a 64-byte vector), so that they run in whole
// vectors rather than ending in a scalar remainder.
constexpr int64_t kRowAlignmentBytes = 64;

// U with a = U^T U in the upper triangle of a (n x n, row stride ld, in
// place). Right-looking by blocks of kSmallPanel rows: a block's rows are
// factored one by one, then every row below loses the block's contribution
// in one pass. Each step runs along a contiguous row, so every loop
// vectorizes. The strict lower triangle is scratch: row updates start at a
// multiple of kRowAlignment, left of the diagonal, so it must hold finite
// values on entry. False at a pivot that is not positive.
template <typename T>
inline __attribute__((always_inline)) bool choleskyUpperSmall(T* a, int64_t ld, int64_t n) {
  constexpr int64_t kRowAlignment = kRowAlignmentBytes / sizeof(T);
  for (int64_t j0 = 0; j0 < n; j0 += kSmallPanel) {
    int64_t j1 = std::min(n, j0 + kSmallPanel);
    for (int64_t j = j0; j < j1; ++j) {
      T* row = a + j * ld;
      if (!(row[j] > 0)) return false;
      T pivot = std::sqrt(row[j]), inverse = T(1) / pivot;
      row[j] = pivot;
      for (int64_t k = j + 1; k < n; ++k) row[k] *= inverse;
      for (int64_t i = j + 1; i < j1; ++i) {
        int64_t from = i / kRowAlignment * kRowAlignment;
        subtractScaledInline(a + i * ld + from, row + from, row[i], n - from);
      }
    }
    if (j1 - j0 < kSmallPanel) break;  // the last block: nothing below
    for (int64_t i = j1; i < n; ++i) {
      T c[kSmallPanel];
      for (int64_t p = 0; p < kSmallPanel; ++p) c[p] = a[(j0 + p) * ld + i];
      int64_t from = i / kRowAlignment * kRowAlignment;
      subtractPanelProduct(a + i * ld + from, a + j0 * ld + from, ld, c, n - from);
    }
  }
  return true;
}

// Columns [k0, k0 + kBlock) of L, once they hold every earlier panel's
// update: the diagonal block (element by element) and the panel below it.
// `panel`: scratch. False at a pivot that is not positive.
bool factorCholeskyPanel(Matrix a, int64_t n, int64_t k0, std::vector<float>& panel) {
  int64_t k1 = std::min(n, k0 + kBlock);
  // The diagonal block, column by column.
  for (int64_t j = k0; j < k1; ++j) {
    float diag = a(j, j) - dotProduct(a.at(j, k0), a.at(j, k0), j - k0);
    if (!(diag > 0)) return false;
    float pivot = a(j, j) = std::sqrt(diag);
    for (int64_t i = j + 1; i < k1; ++i) a(i, j) = (a(i, j) - dotProduct(a.at(i, k0), a.at(j, k0), j - k0)) / pivot;
  }
  if (k1 == n) return true;  // the last diagonal block: nothing below
  // The panel below it: x L11^T = a21, i.e. L11 x^T = a21^T, solved on
  // the transpose so that each step is one contiguous row operation.
  int64_t below = n - k1, width = k1 - k0;
  panel.resize(width * below);
  for (int64_t i = 0; i < below; ++i)
    for (int64_t j = 0; j < width; ++j) panel[j * below + i] = a(k1 + i, k0 + j);
  forRanges(below, width * width / 2, [&](int64_t begin, int64_t end) {
    for (int64_t j = 0; j < width; ++j) {
      float* row = panel.data() + j * below;
      for (int64_t p = 0; p < j; ++p)
        subtractScaled(row + begin, panel.data() + p * below + begin, a(k0 + j, k0 + p), end - begin);
      float pivot = a(k0 + j, k0 + j);
      for (int64_t i = begin; i < end; ++i) row[i] /= pivot;
    }
  });
  for (int64_t i = 0; i < below; ++i)
    for (int64_t j = 0; j < width; ++j) a(k1 + i, k0 + j) = panel[j * below + i];
  return true;
}

// L with a = L L^T in a's lower triangle (n x n, in place; the strict upper
// triangle is scratch). False at a pivot that is not positive.
//
// Right-looking by panels of kBlock columns, with a look-ahead of one
// panel: once panel k is factored, the lower triangle of the rest loses
// L21 L21^T in pieces, the first the columns of panel k + 1 (factored as
// soon as they are updated), then a block row at a time to the right of
// them (up to the block's own diagonal). On two threads one factors the
// next panel while the other updates the rest, rather than the pool's
// worker waiting (and falling asleep) through each panel.
bool choleskyLower(Matrix a, int64_t n) {
  std::vector<float> panel;  // the rows below a diagonal block, transposed
  if (!factorCholeskyPanel(a, n, 0, panel)) return false;
  for (int64_t k0 = 0; k0 < n; k0 += kBlock) {
    int64_t k1 = std::min(n, k0 + kBlock);
    if (k1 == n) break;  // the last panel: nothing below
    int64_t k2 = std::min(n, k1 + kBlock), width = k1 - k0;
    int64_t blockRows = (n - k2 + kBlock - 1) / kBlock;
    std::atomic<bool> nextFactored{true};
    bool updated = forEach(1 + blockRows, kBlock * width * (n - k1) / 2, [&](int64_t r) {
      if (r == 0) {
        // Panel k + 1's columns (their strict upper triangle is scratch).
        if (!subtractProduct(n - k1, k2 - k1, width, a.at(k1, k0), a.stride, a.at(k1, k0), a.stride, true,
                             a.at(k1, k1), a.stride))
          return false;
        if (!factorCholeskyPanel(a, n, k1, panel)) nextFactored = false;
        return true;
      }
      int64_t i0 = k2 + (r - 1) * kBlock, i1 = std::min(n, i0 + kBlock);
      return subtractProduct(i1 - i0, i1 - k2, width, a.at(i0, k0), a.stride, a.at(k2, k0), a.stride, true,
                             a.at(i0, k2), a.stride);
    });
    if (!updated || !nextFactored) return false;
  }
  return true;
}

// Most right-hand sides and largest order that solveFewSystems takes; with
// more, substitution along b's rows (solveInPlace) runs longer vectors.
constexpr int64_t kFewSystems = 16;
constexpr int64_t kFewSystemsOrder = 256;

// The factor of a (n x n, n <= kSmallCholesky) into o, its other triangle
// zero or a's (keepOtherTriangle), by choleskyUpperSmall: in o itself for
// the upper factor, for the lower one as U = L^T in work (n x n, finite
// values), copied out transposed. Only the factor's triangle of a is read.
template <typename T>
inline __attribute__((always_inline)) bool choleskySmallOf(const T* a, T* o, T* work, int64_t n, bool lower,
                                                           bool keepOtherTriangle) {
  T* u = lower ? work : o;
  if (lower) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) work[j * n + i] = a[i * n + j];
  } else {
    for (int64_t i = 0; i < n; ++i) {
      std::fill(o + i * n, o + i * n + i, T(0));  // scratch for choleskyUpperSmall
      std::copy(a + i * n + i, a + (i + 1) * n, o + i * n + i);
    }
  }
  if (!choleskyUpperSmall(u, n, n)) return false;
  for (int64_t i = 0; i < n; ++i) {
    T* row = o + i * n;
    const T* given = a + i * n;
    if (lower) {
      for (int64_t j = 0; j <= i; ++j) row[j] = work[j * n + i];
      if (keepOtherTriangle) std::copy(given + i + 1, given + n, row + i + 1);
      else std::fill(row + i + 1, row + n, T(0));
    } else if (keepOtherTriangle) {
      std::copy(given, given + i, row);
    } else {
      std::fill(row, row + i, T(0));
    }
  }
  return true;
}

// The element types' instances, each built per ISA tier.
KILN_PER_TIER(bool, choleskySmall, choleskySmallOf,
              (const float* a, float* o, float* work, int64_t n, bool lower, bool keepOtherTriangle),
              (a, o, work, n, lower, keepOtherTriangle))
KILN_PER_TIER(bool, choleskySmall, choleskySmallOf,
              (const double* a, double* o, double* work, int64_t n, bool lower, bool keepOtherTriangle),
              (a, o, work, n, lower, keepOtherTriangle))

// Solves t x = y for each of `systems` right-hand sides y, each contiguous
// (m elements at x + q * m), in place, with t = a or a^T (`transposed`) for
// a (m x m, row-major) lower or upper triangular (`aLower`); only that
// triangle of a is read. a's rows are t's rows (each step a dot product) or
// its columns (each step one multiply-subtract along y), so neither a copy
// of a nor a strided access is needed.
template <typename T>
inline __attribute__((always_inline)) void solveFewSystemsOf(const T* a, int64_t m, T* x, int64_t systems, bool aLower,
                                                             bool transposed, bool unitDiagonal) {
  bool lower = aLower != transposed;  // t's triangle
  for (int64_t q = 0; q < systems; ++q) {
    T* y = x + q * m;
    for (int64_t step = 0; step < m; ++step) {
      int64_t k = lower ? step : m - 1 - step;
      const T* row = a + k * m;
      if (!transposed) {  // row k of t: y[k] = (y[k] - t[k, solved] . y[solved]) / t[k, k]
        y[k] -= lower ? dotProduct(row, y, k) : dotProduct(row + k + 1, y + k + 1, m - k - 1);
        if (!unitDiagonal) y[k] /= row[k];
      } else {  // column k of t: y[unsolved] -= t[unsolved, k] y[k]
        if (!unitDiagonal) y[k] /= row[k];
        if (lower) subtractScaledInline(y + k + 1, row + k + 1, y[k], m - k - 1);
        else subtractScaledInline(y, row, y[k], k);
      }
    }
  }
}

KILN_PER_TIER(void, solveFewSystems, solveFewSystemsOf,
              (const float* a, int64_t m, float* x, int64_t systems, bool aLower, bool transposed, bool unitDiagonal),
              (a, m, x, systems, aLower, transposed, unitDiagonal))
KILN_PER_TIER(void, solveFewSystems, solveFewSystemsOf,
              (const double* a, int64_t m, double* x, int64_t systems, bool aLower, bool transposed, bool unitDiagonal),
              (a, m, x, systems, aLower, transposed, unitDiagonal))

// Solves t x = b in place of b (m x s), t lower (forward) or upper (backward)
// triangular m x m; with a unit diagonal when asked. Blocks of `block` rows
// in substitution order: what the rows solved so far contribute is one
// sgemm, then the block's own triangle is solved the same way with blocks a
// quarter the size, down to kBlock rows solved row by row.
bool solveInPlace(Matrix t, Matrix b, int64_t m, int64_t s, bool lower, bool unitDiagonal, int64_t block) {
  for (int64_t step = 0; step < m; step += block) {
    int64_t k0 = lower ? step : std::max<int64_t>(0, m - step - block);
    int64_t k1 = lower ? std::min(m, step + block) : m - step;
    bool ok = lower ? subtractProduct(k1 - k0, s, k0, t.at(k0, 0), t.stride, b.at(0, 0), b.stride, false,
                                      b.at(k0, 0), b.stride)
                    : subtractProduct(k1 - k0, s, m - k1, t.at(k0, k1), t.stride, b.at(k1, 0), b.stride, false,
                                      b.at(k0, 0), b.stride);
    if (!ok) return false;
    if (block > kBlock) {
      if (!solveInPlace({t.at(k0, k0), t.stride}, {b.at(k0, 0), b.stride}, k1 - k0, s, lower, unitDiagonal,
                        std::max(kBlock, block / 4)))
        return false;
      continue;
    }
    // The block's rows one by one, the columns of b (independent systems)
    // split across threads.
    forRanges(s, (k1 - k0) * (k1 - k0) / 2, [&](int64_t c0, int64_t c1) {
      substituteBlock(t.at(k0, k0), t.stride, b.at(k0, c0), b.stride, k1 - k0, c1 - c0, lower, unitDiagonal);
    });
  }
  return true;
}

// solveInPlace with b's columns (independent systems) split across the
// routine's threads, each range solved whole on one thread: a hand-off per
// range instead of one per block's sgemm and row-by-row step, which at 2
// threads left the f32[1024,1024] solve slower than at 1. Two ranges per
// thread, so that a worker starting late leaves the caller less to wait for.
bool solveInPlaceAcrossThreads(Matrix t, Matrix b, int64_t m, int64_t s, bool lower, bool unitDiagonal) {
  constexpr int64_t kBlockRows = 4 * 4 * kBlock;  // solveInPlace's first blocks
  ThreadPool* pool = RoutineThreads::current();
  int threads = pool ? pool->numThreads() : 1;
  // Ranges of at least 2 kBlock columns (sgemms narrower than that run
  // slower per multiply-add), starting on whole cache lines.
  int64_t parts = std::min<int64_t>(2 * threads, s / (2 * kBlock));
  if (parts <= 1) return solveInPlace(t, b, m, s, lower, unitDiagonal, kBlockRows);
  int64_t chunk = (s / parts + 15) / 16 * 16;
  return forEach((s + chunk - 1) / chunk, m * m * chunk / 2, [&](int64_t part) {
    int64_t c0 = part * chunk, c1 = std::min(s, c0 + chunk);
    return solveInPlace(t, {b.at(0, c0), b.stride}, m, c1 - c0, lower, unitDiagonal, kBlockRows);
  });
}

// The pivot of column[begin, end): the first index of the largest
// magnitude, NaN never taken unless at begin -- what a scan keeping the
// first strictly larger magnitude picks. That scan is a chain of compares
// and conditional moves, one per element; here the largest magnitude comes
// from 16 running maxima (vectorized), then its first index from a second
// pass that stops there.
template <typename T>
inline __attribute__((always_inline)) int64_t largestMagnitudeAt(const T* column, int64_t begin, int64_t end) {
  T first = std::abs(column[begin]);
  if (first != first) return begin;  // NaN: the scan keeps it
  T lanes[16];
  for (T& lane : lanes) lane = first;
  int64_t r = begin + 1;
  for (; r + 16 <= end; r += 16)
    for (int lane = 0; lane < 16; ++lane) {
      T x = std::abs(column[r + lane]);
      lanes[lane] = x > lanes[lane] ? x : lanes[lane];  // a NaN x leaves the lane
    }
  T largest = first;
  for (T lane : lanes) largest = lane > largest ? lane : largest;
  for (; r < end; ++r) largest = std::abs(column[r]) > largest ? std::abs(column[r]) : largest;
  if (largest == first) return begin;
  for (r = begin + 1; std::abs(column[r]) != largest; ++r) {
  }
  return r;
}

// LU with partial pivoting of the m x w panel at a (row stride ld), as
// getrf on it alone: pivots[j] is 1 + the row swapped with row j, rows
// swapped within the panel's columns. By blocks of kSmallPanel columns: a
// block is factored on a column-major copy (the pivot search and the
// updates run along contiguous columns), its swaps are applied to the
// panel's other columns, its rows of U to the right solved, and each row
// below updated in one pass. `block` holds kSmallPanel * m floats. False
// at an exactly zero pivot.
template <typename T>
inline __attribute__((always_inline)) bool factorLuPanelOf(T* a, int64_t ld, int64_t m, int64_t w, int64_t* pivots,
                                                           T* block) {
  int64_t steps = std::min(m, w);
  for (int64_t j0 = 0; j0 < steps; j0 += kSmallPanel) {
    int64_t j1 = std::min(steps, j0 + kSmallPanel), width = j1 - j0, height = m - j0;
    T* columns = block;  // (j0 + r, j0 + c) at columns[c * height + r]
    for (int64_t r = 0; r < height; ++r)
      for (int64_t c = 0; c < width; ++c) columns[c * height + r] = a[(j0 + r) * ld + j0 + c];
    for (int64_t c = 0; c < width; ++c) {
      T* column = columns + c * height;
      int64_t p = largestMagnitudeAt(column, c, height);
      pivots[j0 + c] = j0 + p + 1;
      if (column[p] == 0) return false;
      if (p != c)
        for (int64_t q = 0; q < width; ++q) std::swap(columns[q * height + c], columns[q * height + p]);
      T pivot = column[c];
      for (int64_t r = c + 1; r < height; ++r) column[r] /= pivot;
      for (int64_t q = c + 1; q < width; ++q)
        subtractScaledInline(columns + q * height + c + 1, column + c + 1, columns[q * height + c], height - c - 1);
    }
    for (int64_t r = 0; r < height; ++r)
      for (int64_t c = 0; c < width; ++c) a[(j0 + r) * ld + j0 + c] = columns[c * height + r];
    for (int64_t j = j0; j < j1; ++j) {
      T *row = a + j * ld, *other = a + (pivots[j] - 1) * ld;
      if (row == other) continue;
      std::swap_ranges(row, row + j0, other);
      std::swap_ranges(row + j1, row + w, other + j1);
    }
    // Rows j0..j1 of U right of the block: L11 u12 = a12 (L11 unit lower).
    for (int64_t i = j0 + 1; i < j1; ++i)
      for (int64_t p = j0; p < i; ++p) subtractScaledInline(a + i * ld + j1, a + p * ld + j1, a[i * ld + p], w - j1);
    // The rows below: a22 -= L21 u12. A block narrower than kSmallPanel is
    // the last, with no columns to its right or no rows below.
    if (width < kSmallPanel) break;
    for (int64_t i = j1; i < m; ++i) {
      T factors[kSmallPanel];
      for (int64_t p = 0; p < kSmallPanel; ++p) factors[p] = a[i * ld + j0 + p];
      subtractPanelProduct(a + i * ld + j1, a + j0 * ld + j1, ld, factors, w - j1);
    }
  }
  return true;
}

KILN_PER_TIER(bool, factorLuPanel, factorLuPanelOf,
              (float* a, int64_t ld, int64_t m, int64_t w, int64_t* pivots, float* block),
              (a, ld, m, w, pivots, block))
KILN_PER_TIER(bool, factorLuPanel, factorLuPanelOf,
              (double* a, int64_t ld, int64_t m, int64_t w, int64_t* pivots, double* block),
              (a, ld, m, w, pivots, block))

// LU with partial pivoting of a (m x n) in place, as getrf: the pivot of
// largest magnitude (the first on ties), rows swapped across the whole
// matrix. `block`: factorLuPanel's scratch, kSmallPanel * m floats. False
// at an exactly zero pivot.
bool luInPlace(Matrix a, int64_t m, int64_t n, int64_t* pivots, float* block) {
  int64_t steps = std::min(m, n);
  for (int64_t k0 = 0; k0 < steps; k0 += kBlock) {
    int64_t k1 = std::min(steps, k0 + kBlock);
    // The panel: columns [k0, k1) of rows [k0, m), its row swaps then
    // applied across the whole matrix (right of the panel below).
    if (!factorLuPanel(a.at(k0, k0), a.stride, m - k0, k1 - k0, pivots + k0, block)) return false;
    for (int64_t j = k0; j < k1; ++j) {
      pivots[j] += k0;
      int64_t p = pivots[j] - 1;
      if (p != j) std::swap_ranges(a.at(j, 0), a.at(j, k0), a.at(p, 0));
    }
    if (k1 == n) break;  // the panel ends at the last column: nothing to its right
    // Right of the panel, by column ranges across threads: the panel's row
    // swaps, then its rows of U, L11 u12 = a12 (L11 unit lower).
    forRanges(n - k1, (k1 - k0) * (k1 - k0) / 2, [&](int64_t c0, int64_t c1) {
      for (int64_t j = k0; j < k1; ++j)
        if (int64_t p = pivots[j] - 1; p != j) std::swap_ranges(a.at(j, k1 + c0), a.at(j, k1 + c1), a.at(p, k1 + c0));
      substituteBlock(a.at(k0, k0), a.stride, a.at(k0, k1 + c0), a.stride, k1 - k0, c1 - c0, /*lower=*/true,
                      /*unitDiagonal=*/true);
    });
    // The rest: a22 -= L21 u12.
    if (!subtractProduct(m - k1, n - k1, k1 - k0, a.at(k1, k0), a.stride, a.at(k0, k1), a.stride, false,
                         a.at(k1, k1), a.stride))
      return false;
  }
  return true;
}

// ---- Op instances -------------------------------------------------------------------------

// f32 or f64 matrices (a batch of them when the rank is above 2).
bool isRealMatrices(const Type& type) {
  return type.isTensor() && type.rank() >= 2 &&
         (type.elementType().kind() == TypeKind::F32 || type.elementType().kind() == TypeKind::F64);
}

bool isF64(const Type& type) { return type.elementType().kind() == TypeKind::F64; }

// The routines' element type T (float or double) and its names.
template <typename T>
const char* describe(const char* f32Form) {
  return std::is_same_v<T, float> ? f32Form : "small-matrix loops in f64";
}

template <typename T>
std::optional<std::vector<Tensor>> runCholesky(const Type& type, const Type& infoType, bool lower,
                                               bool keepOtherTriangle, bool withInfo,
                                               const std::vector<Tensor>& operands) {
  int64_t n = type.shape().back();
  const T* in = reinterpret_cast<const T*>(operands[0].bytes());
  Tensor result = Tensor::uninitialized(type);
  T* out = reinterpret_cast<T*>(result.bytes());
  // Matrices of a batch on every thread, each factored on its own.
  bool factored = forBatches(interp::matrixBatchCount(type.shape()), n * n * n / 3, [&](int64_t first, int64_t last) {
    std::vector<T> work(n * n);
    for (int64_t batch = first; batch < last; ++batch) {
      const T* a = in + batch * n * n;
      T* o = out + batch * n * n;
      if constexpr (std::is_same_v<T, float>) {
        if (n <= kElementwiseCholesky || n > kSmallCholesky) {
          // The upper case factors a^T's lower triangle: U = L^T.
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) work[i * n + j] = lower ? a[i * n + j] : a[j * n + i];
          if (!choleskyLower({work.data(), n}, n)) return false;
          for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
              bool inFactor = lower ? j <= i : j >= i;
              o[i * n + j] = inFactor ? (lower ? work[i * n + j] : work[j * n + i]) : keepOtherTriangle ? a[i * n + j] : 0.0f;
            }
          continue;
        }
      }
      if (!choleskySmall(a, o, work.data(), n, lower, keepOtherTriangle)) return false;
    }
    return true;
  });
  if (!factored) return std::nullopt;
  std::vector<Tensor> results{std::move(result)};
  if (withInfo) results.push_back(Tensor(infoType));  // all zero: every matrix factored
  return results;
}

// f32 at every order (blocked around sgemm above kSmallCholesky); f64 up
// to kSmallCholesky (no dgemm here: larger ones stay with the reference).
std::optional<NativeRoutine> cholesky(const Operation& op, bool lower, bool keepOtherTriangle, bool withInfo) {
  Type type = op.operand(0)->type();
  if (!isRealMatrices(type) || op.result(0)->type() != type || type.shape().back() != type.shape()[type.rank() - 2])
    return std::nullopt;
  bool f64 = isF64(type);
  if (f64 && type.shape().back() > kSmallCholesky) return std::nullopt;
  Type infoType = withInfo ? op.result(1)->type() : Type();
  NativeRoutine routine{std::string("native cholesky (") + (f64 ? describe<double>("") : describe<float>("blocked, f32 sgemm")) + ")", {}};
  routine.run = [type, infoType, lower, keepOtherTriangle, withInfo,
                 f64](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    return f64 ? runCholesky<double>(type, infoType, lower, keepOtherTriangle, withInfo, operands)
               : runCholesky<float>(type, infoType, lower, keepOtherTriangle, withInfo, operands);
  };
  return routine;
}

template <typename T>
std::optional<std::vector<Tensor>> runTriangularSolve(const Type& aType, const Type& bType,
                                                      const interp::TriangularSolveSpec& spec,
                                                      const std::vector<Tensor>& operands) {
  int64_t m = aType.shape().back(), rows = bType.shape()[bType.rank() - 2], cols = bType.shape().back();
  const T* aIn = reinterpret_cast<const T*>(operands[0].bytes());
  const T* bIn = reinterpret_cast<const T*>(operands[1].bytes());
  Tensor result = Tensor::uninitialized(bType);
  T* out = reinterpret_cast<T*>(result.bytes());
  // Everything becomes t x = c on the left: t = op(a) for a left-side
  // solve; x op(a) = b is op(a)^T x^T = b^T. t is lower iff an odd number
  // of (upper triangle read, a transposed, right side) hold.
  bool transposeA = spec.transpose != !spec.leftSide;
  bool lower = spec.lower != transposeA;
  int64_t systems = spec.leftSide ? cols : rows;
  bool fewSystems = systems <= kFewSystems && m <= kFewSystemsOrder;
  bool solved = forBatches(interp::matrixBatchCount(aType.shape()), m * m * systems, [&](int64_t first, int64_t last) {
    // Scratch: a's transpose when the solve reads it transposed (else a
    // itself is read: only t's triangle is, see solveInPlace), and the
    // transposed right-hand sides of a right-side solve (a left-side one
    // is solved in place of the result).
    bool copyA = !fewSystems && transposeA, copyB = fewSystems || !spec.leftSide;
    std::vector<T> t(copyA ? m * m : 0), x(copyB ? m * systems : 0);
    for (int64_t batch = first; batch < last; ++batch) {
      const T* a = aIn + batch * m * m;
      const T* b = bIn + batch * rows * cols;
      T* o = out + batch * rows * cols;
      if (fewSystems) {
        // Each right-hand side contiguous: b's columns on the left, its rows
        // on the right.
        if (!spec.leftSide) std::memcpy(x.data(), b, sizeof(T) * m * systems);
        else
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) x[c * rows + r] = b[r * cols + c];
        solveFewSystems(a, m, x.data(), systems, spec.lower, transposeA, spec.unitDiagonal);
        if (!spec.leftSide) std::memcpy(o, x.data(), sizeof(T) * m * systems);
        else
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) o[r * cols + c] = x[c * rows + r];
        continue;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (copyA)
          forRanges(m, m, [&](int64_t i0, int64_t i1) {
            for (int64_t i = i0; i < i1; ++i)
              for (int64_t j = 0; j < m; ++j) {
                bool inTriangle = spec.lower ? i <= j : i >= j;  // a[j, i] in a's triangle
                t[i * m + j] = i == j && spec.unitDiagonal ? 1.0f : inTriangle ? a[j * m + i] : 0.0f;
              }
          });
        Matrix tm{copyA ? t.data() : const_cast<float*>(a), m};
        Matrix xm{copyB ? x.data() : o, systems};
        if (spec.leftSide) std::memcpy(o, b, sizeof(float) * m * systems);
        else
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) x[c * rows + r] = b[r * cols + c];
        if (!solveInPlaceAcrossThreads(tm, xm, m, systems, lower, spec.unitDiagonal)) return false;
        if (!spec.leftSide)
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) o[r * cols + c] = x[c * rows + r];
      } else {
        return false;  // not taken: the routine refuses f64 with many systems
      }
    }
    return true;
  });
  if (!solved) return std::nullopt;
  return std::vector<Tensor>{std::move(result)};
}

// f32 always; f64 with few right-hand sides (solveFewSystems) only.
std::optional<NativeRoutine> triangularSolve(const Operation& op, interp::TriangularSolveSpec spec) {
  Type aType = op.operand(0)->type(), bType = op.operand(1)->type();
  if (!isRealMatrices(aType) || bType.elementType() != aType.elementType() || !isRealMatrices(bType) ||
      op.result(0)->type() != bType || bType.rank() != aType.rank())
    return std::nullopt;
  int64_t m = aType.shape().back(), rows = bType.shape()[bType.rank() - 2], cols = bType.shape().back();
  if (aType.shape()[aType.rank() - 2] != m || (spec.leftSide ? rows : cols) != m ||
      !std::equal(aType.shape().begin(), aType.shape().end() - 2, bType.shape().begin()))
    return std::nullopt;
  bool f64 = isF64(aType);
  if (f64 && ((spec.leftSide ? cols : rows) > kFewSystems || m > kFewSystemsOrder)) return std::nullopt;
  NativeRoutine routine{std::string("native triangular solve (") + (f64 ? describe<double>("") : describe<float>("blocked, f32 sgemm")) + ")", {}};
  routine.run = [aType, bType, spec, f64](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    return f64 ? runTriangularSolve<double>(aType, bType, spec, operands)
               : runTriangularSolve<float>(aType, bType, spec, operands);
  };
  return routine;
}

template <typename T>
std::optional<std::vector<Tensor>> runLu(const Type& type, const Type& pivotsType, const Type& infoType,
                                         const std::vector<Tensor>& operands) {
  int64_t m = type.shape()[type.rank() - 2], n = type.shape().back(), steps = std::min(m, n);
  Tensor lu = Tensor::uninitialized(type);
  std::memcpy(lu.bytes(), operands[0].bytes(), lu.byteSize());
  Tensor pivots(pivotsType);
  if (pivots.numElements() != interp::matrixBatchCount(type.shape()) * steps) return std::nullopt;
  std::vector<int64_t> allPivots(interp::matrixBatchCount(type.shape()) * steps);
  bool factored = forBatches(interp::matrixBatchCount(type.shape()), m * n * steps, [&](int64_t first, int64_t last) {
    std::vector<T> block(kSmallPanel * m);
    for (int64_t batch = first; batch < last; ++batch) {
      T* a = reinterpret_cast<T*>(lu.bytes()) + batch * m * n;
      int64_t* p = allPivots.data() + batch * steps;
      if constexpr (std::is_same_v<T, float>) {
        if (!luInPlace({a, n}, m, n, p, block.data())) return false;
      } else if (!factorLuPanel(a, n, m, n, p, block.data())) {  // one panel: at most kBlock columns (luFactor)
        return false;
      }
    }
    return true;
  });
  if (!factored) return std::nullopt;
  if (pivotsType.elementType().kind() == TypeKind::SI32)  // getrf's: setInt costs ~5 ns an element
    std::copy(allPivots.begin(), allPivots.end(), reinterpret_cast<int32_t*>(pivots.bytes()));
  else
    for (size_t i = 0; i < allPivots.size(); ++i) pivots.setInt(static_cast<int64_t>(i), allPivots[i]);
  return std::vector<Tensor>{std::move(lu), std::move(pivots), Tensor(infoType)};  // info all zero
}

// f32 at every size; f64 up to kBlock columns, one factorLuPanel.
std::optional<NativeRoutine> luFactor(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 3) return std::nullopt;
  Type type = op.operand(0)->type();
  if (!isRealMatrices(type) || op.result(0)->type() != type) return std::nullopt;
  bool f64 = isF64(type);
  if (f64 && type.shape().back() > kBlock) return std::nullopt;
  Type pivotsType = op.result(1)->type(), infoType = op.result(2)->type();
  NativeRoutine routine{std::string("native LU (") + (f64 ? describe<double>("") : describe<float>("blocked, f32 sgemm")) + ")", {}};
  routine.run = [type, pivotsType, infoType, f64](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    return f64 ? runLu<double>(type, pivotsType, infoType, operands) : runLu<float>(type, pivotsType, infoType, operands);
  };
  return routine;
}

}  // namespace

std::optional<NativeRoutine> nativeLinearAlgebra(const Operation& op) {
  std::string_view name = op.name();
  if (name == "stablehlo.cholesky" && op.numOperands() == 1 && op.numResults() == 1)
    return cholesky(op, boolAttr(op, "lower", false), /*keepOtherTriangle=*/false, /*withInfo=*/false);
  if (name == "stablehlo.triangular_solve" && op.numOperands() == 2 && op.numResults() == 1)
    return triangularSolve(op, interp::triangularSolveSpecOf(op));  // an adjoint is a transpose for real types
  if (name != "stablehlo.custom_call") return std::nullopt;
  Attribute target = op.attr("call_target_name");
  if (!target || !target.is(AttrKind::String)) return std::nullopt;
  const std::string& call = target.stringValue();
  // The s (f32) and d (f64) calls; the routines check the element type.
  if ((call == "lapack_spotrf_ffi" || call == "lapack_dpotrf_ffi") && op.numOperands() == 1 && op.numResults() == 2)
    return cholesky(op, interp::lapackOption(op, "uplo", 'L') == 'L', /*keepOtherTriangle=*/true, /*withInfo=*/true);
  if ((call == "lapack_strsm_ffi" || call == "lapack_dtrsm_ffi") && op.numOperands() == 2 && op.numResults() == 1)
    return triangularSolve(op, interp::triangularSolveSpecOf(op));
  if (call == "lapack_sgetrf_ffi" || call == "lapack_dgetrf_ffi") return luFactor(op);
  return std::nullopt;
}

}  // namespace kiln::cpu
