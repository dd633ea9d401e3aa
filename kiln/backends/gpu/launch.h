// Launch dimensions of the cuda back end's kernels, from a cost model small
// enough to read in one sitting. Every kernel loops (grid-stride), so any
// grid is correct; the model only picks one that keeps an H100 busy without
// launching more blocks than can be resident. Free of LLVM headers.
// Internal to kiln/backends/gpu.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::gpu {

// Elements a loop kernel's thread handles per iteration: four adjacent
// elements, so that its loads and stores of 32-bit elements become one
// 16-byte vector access (ld.global.v4.f32).
inline constexpr int64_t kElementsPerThread = 4;

// A one-dimensional launch.
struct LaunchDims {
  int64_t blocks = 1;
  int64_t threadsPerBlock = 32;
  int64_t sharedBytes = 0;  // static shared memory, for the record (the kernel declares it)
  std::string reason;       // how the model chose them, for dumps

  // "grid 1056 x block 256, 128 B shared: ..." (dumps and .ptx comments).
  std::string str() const;
};

// A loop kernel over `count` elements, `perThread` adjacent ones per thread
// and step.
LaunchDims loopLaunch(int64_t count, int64_t perThread);

// Rows up to this long take a warp each (reductions by shuffles alone, no
// shared memory or barriers, 8 rows to a block); longer ones a block each.
inline constexpr int64_t kWarpRowMax = 256;
inline bool warpPerRow(int64_t rowLength) { return rowLength <= kWarpRowMax; }

// A row kernel: a warp or a block per row (see warpPerRow; they loop over
// rows), its threads striding over the row's `rowLength` elements;
// its block-wide reductions take a slot per warp of shared memory, one
// lane's slots together `wordsPerLane` 4-byte words (1 for each real
// reduction, 2 or 4 for each complex<f32> or complex<f64> one).
LaunchDims rowLaunch(int64_t numRows, int64_t rowLength, int64_t wordsPerLane);

// A transpose through shared memory: kTransposeTile x kTransposeTile tiles,
// a block of kTransposeThreads per tile (blocks loop over tiles), each tile
// padded by a column in shared memory (`elementBytes` each) so that neither
// its row nor its column accesses conflict on banks.
inline constexpr int64_t kTransposeTile = 32;
inline constexpr int64_t kTransposeThreads = 256;
LaunchDims transposeLaunch(int64_t tiles, int64_t elementBytes);

// A sort along rows of at most kSortRowMax elements: a block per row
// (blocks loop over rows), the row's order -- `paddedLength` 32-bit
// positions, the row length rounded up to a power of two -- in shared
// memory, a thread per compare-exchange pair (up to kSortThreads, which then
// loop over pairs).
inline constexpr int64_t kSortRowMax = 8192;  // 32 KiB of positions: within the 48 KiB of static shared memory
inline constexpr int64_t kSortThreads = 512;
LaunchDims sortLaunch(int64_t numRows, int64_t rowLength, int64_t paddedLength);

// Triangular solves (stablehlo.triangular_solve, lapack_?trsm_ffi): a
// thread per system (a column of b, or a row for the right side), each
// holding its `length` unknowns in shared memory (`elementBytes` each: 8,
// or 16 for complex, the interpreter's double carrier), at most
// kSolveThreads to a block and kLinalgSharedBytes in all.
inline constexpr int64_t kLinalgSharedBytes = 48 * 1024;  // static shared memory a block may declare
inline constexpr int64_t kSolveThreads = 128;
// Threads per block of a solve of `systems` systems of `length` unknowns.
int64_t solveThreads(int64_t systems, int64_t length, int64_t elementBytes);
LaunchDims solveLaunch(int64_t systems, int64_t length, int64_t elementBytes);

// Cholesky factorizations (stablehlo.cholesky, lapack_?potrf_ffi): a block
// per matrix (blocks loop over matrices), its factor -- order x order
// carriers of `elementBytes` -- in shared memory, the threads striding over
// each column's rows.
LaunchDims choleskyLaunch(int64_t matrices, int64_t order, int64_t elementBytes);

// LU factorizations with partial pivoting (lapack_?getrf_ffi): a block per
// matrix (blocks loop over matrices), the rows x cols matrix in shared
// memory, the threads striding over the rows below each pivot.
LaunchDims luLaunch(int64_t matrices, int64_t rows, int64_t cols, int64_t elementBytes);

}  // namespace kiln::gpu
