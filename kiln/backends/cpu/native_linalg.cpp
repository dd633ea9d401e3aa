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

// dst[i] -= src[i] * c for i in [0, n): the inner loop of the panels.
void subtractScaled(float* __restrict dst, const float* __restrict src, float c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] -= src[i] * c;
}

float dotProduct(const float* __restrict a, const float* __restrict b, int64_t n) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

// L with a = L L^T in a's lower triangle (n x n, in place; the strict upper
// triangle is scratch). False at a pivot that is not positive.
bool choleskyLower(Matrix a, int64_t n) {
  std::vector<float> panel;  // the rows below a diagonal block, transposed
  for (int64_t k0 = 0; k0 < n; k0 += kBlock) {
    int64_t k1 = std::min(n, k0 + kBlock);
    // The diagonal block, column by column (earlier panels already
    // subtracted by the updates below).
    for (int64_t j = k0; j < k1; ++j) {
      float diag = a(j, j) - dotProduct(a.at(j, k0), a.at(j, k0), j - k0);
      if (!(diag > 0)) return false;
      float pivot = a(j, j) = std::sqrt(diag);
      for (int64_t i = j + 1; i < k1; ++i) a(i, j) = (a(i, j) - dotProduct(a.at(i, k0), a.at(j, k0), j - k0)) / pivot;
    }
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
    // The lower triangle of the rest: a22 -= L21 L21^T, a block row at a time
    // (up to the block's own diagonal), the block rows on every thread.
    int64_t blockRows = (below + kBlock - 1) / kBlock;
    bool updated = forEach(blockRows, kBlock * width * below / 2, [&](int64_t r) {
      int64_t i0 = k1 + r * kBlock, i1 = std::min(n, i0 + kBlock);
      return subtractProduct(i1 - i0, i1 - k1, k1 - k0, a.at(i0, k0), a.stride, a.at(k1, k0), a.stride, true,
                             a.at(i0, k1), a.stride);
    });
    if (!updated) return false;
  }
  return true;
}

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
      for (int64_t r = 0; r < k1 - k0; ++r) {
        int64_t k = lower ? k0 + r : k1 - 1 - r;
        for (int64_t j = lower ? k0 : k + 1; j < (lower ? k : k1); ++j)
          subtractScaled(b.at(k, c0), b.at(j, c0), t(k, j), c1 - c0);
        if (!unitDiagonal)
          for (int64_t q = c0; q < c1; ++q) b(k, q) /= t(k, k);
      }
    });
  }
  return true;
}

// LU with partial pivoting of a (m x n) in place, as getrf: the pivot of
// largest magnitude (the first on ties), rows swapped across the whole
// matrix. False at an exactly zero pivot.
bool luInPlace(Matrix a, int64_t m, int64_t n, int64_t* pivots) {
  int64_t steps = std::min(m, n);
  for (int64_t k0 = 0; k0 < steps; k0 += kBlock) {
    int64_t k1 = std::min(steps, k0 + kBlock);
    // The panel: columns [k0, k1) of rows [k0, m), column by column.
    for (int64_t j = k0; j < k1; ++j) {
      int64_t p = j;
      for (int64_t i = j + 1; i < m; ++i)
        if (std::abs(a(i, j)) > std::abs(a(p, j))) p = i;
      pivots[j] = p + 1;
      if (p != j) std::swap_ranges(a.at(j, 0), a.at(j, n), a.at(p, 0));
      if (a(j, j) == 0) return false;
      for (int64_t i = j + 1; i < m; ++i) {
        float factor = a(i, j) /= a(j, j);
        subtractScaled(a.at(i, j + 1), a.at(j, j + 1), factor, k1 - j - 1);
      }
    }
    // The panel's rows of U to its right: L11 u12 = a12 (L11 unit lower).
    forRanges(n - k1, (k1 - k0) * (k1 - k0) / 2, [&](int64_t c0, int64_t c1) {
      for (int64_t i = k0 + 1; i < k1; ++i)
        for (int64_t j = k0; j < i; ++j) subtractScaled(a.at(i, k1 + c0), a.at(j, k1 + c0), a(i, j), c1 - c0);
    });
    // The rest: a22 -= L21 u12.
    if (!subtractProduct(m - k1, n - k1, k1 - k0, a.at(k1, k0), a.stride, a.at(k0, k1), a.stride, false,
                         a.at(k1, k1), a.stride))
      return false;
  }
  return true;
}

// ---- Op instances -------------------------------------------------------------------------

bool isF32Matrices(const Type& type) {
  return type.isTensor() && type.rank() >= 2 && type.elementType().kind() == TypeKind::F32;
}

std::optional<NativeRoutine> cholesky(const Operation& op, bool lower, bool keepOtherTriangle, bool withInfo) {
  Type type = op.operand(0)->type();
  if (!isF32Matrices(type) || op.result(0)->type() != type || type.shape().back() != type.shape()[type.rank() - 2])
    return std::nullopt;
  Type infoType = withInfo ? op.result(1)->type() : Type();
  NativeRoutine routine{"native cholesky (blocked, f32 sgemm)", {}};
  routine.run = [type, infoType, lower, keepOtherTriangle,
                 withInfo](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    int64_t n = type.shape().back();
    const float* in = reinterpret_cast<const float*>(operands[0].bytes());
    Tensor result = Tensor::uninitialized(type);
    float* out = reinterpret_cast<float*>(result.bytes());
    // Matrices of a batch on every thread, each factored on its own.
    bool factored = forBatches(interp::matrixBatchCount(type.shape()), n * n * n / 3, [&](int64_t first, int64_t last) {
      std::vector<float> work(n * n);
      for (int64_t batch = first; batch < last; ++batch) {
        const float* a = in + batch * n * n;
        float* o = out + batch * n * n;
        // The upper case factors a^T's lower triangle: U = L^T.
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) work[i * n + j] = lower ? a[i * n + j] : a[j * n + i];
        if (!choleskyLower({work.data(), n}, n)) return false;
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < n; ++j) {
            bool inFactor = lower ? j <= i : j >= i;
            o[i * n + j] = inFactor ? (lower ? work[i * n + j] : work[j * n + i]) : keepOtherTriangle ? a[i * n + j] : 0.0f;
          }
      }
      return true;
    });
    if (!factored) return std::nullopt;
    std::vector<Tensor> results{std::move(result)};
    if (withInfo) results.push_back(Tensor(infoType));  // all zero: every matrix factored
    return results;
  };
  return routine;
}

std::optional<NativeRoutine> triangularSolve(const Operation& op, interp::TriangularSolveSpec spec) {
  Type aType = op.operand(0)->type(), bType = op.operand(1)->type();
  if (!isF32Matrices(aType) || !isF32Matrices(bType) || op.result(0)->type() != bType || bType.rank() != aType.rank())
    return std::nullopt;
  int64_t m = aType.shape().back(), rows = bType.shape()[bType.rank() - 2], cols = bType.shape().back();
  if (aType.shape()[aType.rank() - 2] != m || (spec.leftSide ? rows : cols) != m ||
      !std::equal(aType.shape().begin(), aType.shape().end() - 2, bType.shape().begin()))
    return std::nullopt;
  NativeRoutine routine{"native triangular solve (blocked, f32 sgemm)", {}};
  routine.run = [aType, bType, spec, m, rows, cols](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    const float* aIn = reinterpret_cast<const float*>(operands[0].bytes());
    const float* bIn = reinterpret_cast<const float*>(operands[1].bytes());
    Tensor result = Tensor::uninitialized(bType);
    float* out = reinterpret_cast<float*>(result.bytes());
    // Everything becomes t x = c on the left: t = op(a) for a left-side
    // solve; x op(a) = b is op(a)^T x^T = b^T. t is lower iff an odd number
    // of (upper triangle read, a transposed, right side) hold.
    bool transposeA = spec.transpose != !spec.leftSide;
    bool lower = spec.lower != transposeA;
    int64_t systems = spec.leftSide ? cols : rows;
    bool solved = forBatches(interp::matrixBatchCount(aType.shape()), m * m * systems, [&](int64_t first, int64_t last) {
      std::vector<float> t(m * m), x(m * systems);
      for (int64_t batch = first; batch < last; ++batch) {
        const float* a = aIn + batch * m * m;
        const float* b = bIn + batch * rows * cols;
        float* o = out + batch * rows * cols;
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < m; ++j) {
            int64_t ai = transposeA ? j : i, aj = transposeA ? i : j;
            bool inTriangle = spec.lower ? aj <= ai : aj >= ai;
            t[i * m + j] = i == j && spec.unitDiagonal ? 1.0f : inTriangle ? a[ai * m + aj] : 0.0f;
          }
        if (spec.leftSide) std::memcpy(x.data(), b, sizeof(float) * m * systems);
        else
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) x[c * rows + r] = b[r * cols + c];
        if (!solveInPlace({t.data(), m}, {x.data(), systems}, m, systems, lower, spec.unitDiagonal, 4 * 4 * kBlock))
          return false;
        if (spec.leftSide) std::memcpy(o, x.data(), sizeof(float) * m * systems);
        else
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) o[r * cols + c] = x[c * rows + r];
      }
      return true;
    });
    if (!solved) return std::nullopt;
    return std::vector<Tensor>{std::move(result)};
  };
  return routine;
}

std::optional<NativeRoutine> luFactor(const Operation& op) {
  if (op.numOperands() != 1 || op.numResults() != 3) return std::nullopt;
  Type type = op.operand(0)->type();
  if (!isF32Matrices(type) || op.result(0)->type() != type) return std::nullopt;
  Type pivotsType = op.result(1)->type(), infoType = op.result(2)->type();
  NativeRoutine routine{"native LU (blocked, f32 sgemm)", {}};
  routine.run = [type, pivotsType, infoType](const std::vector<Tensor>& operands) -> std::optional<std::vector<Tensor>> {
    int64_t m = type.shape()[type.rank() - 2], n = type.shape().back(), steps = std::min(m, n);
    Tensor lu = Tensor::uninitialized(type);
    std::memcpy(lu.bytes(), operands[0].bytes(), lu.byteSize());
    Tensor pivots(pivotsType);
    if (pivots.numElements() != interp::matrixBatchCount(type.shape()) * steps) return std::nullopt;
    std::vector<int64_t> allPivots(interp::matrixBatchCount(type.shape()) * steps);
    bool factored = forEach(interp::matrixBatchCount(type.shape()), m * n * steps, [&](int64_t batch) {
      float* a = reinterpret_cast<float*>(lu.bytes()) + batch * m * n;
      return luInPlace({a, n}, m, n, allPivots.data() + batch * steps);
    });
    if (!factored) return std::nullopt;
    for (size_t i = 0; i < allPivots.size(); ++i) pivots.setInt(static_cast<int64_t>(i), allPivots[i]);
    return std::vector<Tensor>{std::move(lu), std::move(pivots), Tensor(infoType)};  // info all zero
  };
  return routine;
}

}  // namespace

std::optional<NativeRoutine> nativeLinearAlgebra(const Operation& op) {
  std::string_view name = op.name();
  if (name == "stablehlo.cholesky" && op.numOperands() == 1 && op.numResults() == 1)
    return cholesky(op, boolAttr(op, "lower", false), /*keepOtherTriangle=*/false, /*withInfo=*/false);
  if (name == "stablehlo.triangular_solve" && op.numOperands() == 2 && op.numResults() == 1)
    return triangularSolve(op, interp::triangularSolveSpecOf(op));  // an adjoint is a transpose in f32
  if (name != "stablehlo.custom_call") return std::nullopt;
  Attribute target = op.attr("call_target_name");
  if (!target || !target.is(AttrKind::String)) return std::nullopt;
  const std::string& call = target.stringValue();
  if (call == "lapack_spotrf_ffi" && op.numOperands() == 1 && op.numResults() == 2)
    return cholesky(op, interp::lapackOption(op, "uplo", 'L') == 'L', /*keepOtherTriangle=*/true, /*withInfo=*/true);
  if (call == "lapack_strsm_ffi" && op.numOperands() == 2 && op.numResults() == 1)
    return triangularSolve(op, interp::triangularSolveSpecOf(op));
  if (call == "lapack_sgetrf_ffi") return luFactor(op);
  return std::nullopt;
}

}  // namespace kiln::cpu
