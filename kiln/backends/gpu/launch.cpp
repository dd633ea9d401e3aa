// The cuda back end's launch cost model (see launch.h).
#include "kiln/backends/gpu/launch.h"

#include <algorithm>

namespace kiln::gpu {
namespace {

// Blocks that fill an H100 (132 SMs) eight times over at 256 threads: with
// grid-stride loops, more blocks only add scheduling.
constexpr int64_t kMaxBlocks = 132 * 8;
constexpr int64_t kWarp = 32;
// Enough warps per block to hide memory latency, few enough that small
// tensors still spread over several SMs.
constexpr int64_t kLoopThreads = 256;
// A row's threads: at least 4 elements each, so a short row wastes few lanes.
constexpr int64_t kMaxRowThreads = 256;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUpToWarp(int64_t n) { return std::max<int64_t>(kWarp, ceilDiv(n, kWarp) * kWarp); }

}  // namespace

std::string LaunchDims::str() const {
  return "grid " + std::to_string(blocks) + " x block " + std::to_string(threadsPerBlock) + ", " +
         std::to_string(sharedBytes) + " B shared: " + reason;
}

LaunchDims loopLaunch(int64_t count, int64_t perThread) {
  int64_t work = ceilDiv(std::max<int64_t>(count, 1), perThread);
  LaunchDims dims;
  dims.threadsPerBlock = std::min(kLoopThreads, roundUpToWarp(work));
  dims.blocks = std::clamp<int64_t>(ceilDiv(work, dims.threadsPerBlock), 1, kMaxBlocks);
  dims.reason = std::to_string(count) + " elements, " + std::to_string(perThread) + " per thread" +
                (dims.blocks == kMaxBlocks ? ", grid-stride beyond " + std::to_string(kMaxBlocks) + " blocks" : "");
  return dims;
}

LaunchDims rowLaunch(int64_t numRows, int64_t rowLength, int64_t wordsPerLane) {
  LaunchDims dims;
  if (warpPerRow(rowLength)) {
    int64_t warps = std::clamp<int64_t>(numRows, 1, kMaxRowThreads / kWarp);
    dims.threadsPerBlock = warps * kWarp;
    dims.blocks = std::clamp<int64_t>(ceilDiv(numRows, warps), 1, kMaxBlocks);
    dims.reason = std::to_string(numRows) + " rows of " + std::to_string(rowLength) + ", a warp per row" +
                  (ceilDiv(numRows, warps) > kMaxBlocks ? " (warps loop over rows)" : "");
    return dims;
  }
  dims.threadsPerBlock = std::min(kMaxRowThreads, roundUpToWarp(ceilDiv(rowLength, 4)));
  dims.blocks = std::clamp<int64_t>(numRows, 1, kMaxBlocks);
  dims.sharedBytes = wordsPerLane * kWarp * 4;
  dims.reason = std::to_string(numRows) + " rows of " + std::to_string(rowLength) + ", a block per row" +
                (numRows > kMaxBlocks ? " (blocks loop over rows)" : "");
  return dims;
}

LaunchDims transposeLaunch(int64_t tiles, int64_t elementBytes) {
  LaunchDims dims;
  dims.threadsPerBlock = kTransposeThreads;
  dims.blocks = std::clamp<int64_t>(tiles, 1, kMaxBlocks);
  dims.sharedBytes = kTransposeTile * (kTransposeTile + 1) * elementBytes;
  dims.reason = std::to_string(tiles) + " tiles of " + std::to_string(kTransposeTile) + "x" +
                std::to_string(kTransposeTile) + ", a block per tile" + (tiles > kMaxBlocks ? " (blocks loop over tiles)" : "");
  return dims;
}

LaunchDims sortLaunch(int64_t numRows, int64_t rowLength, int64_t paddedLength) {
  LaunchDims dims;
  dims.threadsPerBlock = std::min(kSortThreads, roundUpToWarp(paddedLength / 2));
  dims.blocks = std::clamp<int64_t>(numRows, 1, kMaxBlocks);
  dims.sharedBytes = paddedLength * 4;
  dims.reason = std::to_string(numRows) + " rows of " + std::to_string(rowLength) + ", bitonic over " +
                std::to_string(paddedLength) + " positions, a block per row" +
                (numRows > kMaxBlocks ? " (blocks loop over rows)" : "");
  return dims;
}

int64_t solveThreads(int64_t systems, int64_t length, int64_t elementBytes) {
  int64_t fit = kLinalgSharedBytes / std::max<int64_t>(1, length * elementBytes);
  int64_t threads = std::min({kSolveThreads, roundUpToWarp(systems), std::max<int64_t>(fit, 1)});
  return threads >= kWarp ? threads / kWarp * kWarp : threads;
}

LaunchDims solveLaunch(int64_t systems, int64_t length, int64_t elementBytes) {
  LaunchDims dims;
  dims.threadsPerBlock = solveThreads(systems, length, elementBytes);
  dims.blocks = std::clamp<int64_t>(ceilDiv(systems, dims.threadsPerBlock), 1, kMaxBlocks);
  dims.sharedBytes = dims.threadsPerBlock * length * elementBytes;
  dims.reason = std::to_string(systems) + " systems of " + std::to_string(length) + " unknowns, a thread per system" +
                (ceilDiv(systems, dims.threadsPerBlock) > kMaxBlocks ? " (threads loop over systems)" : "");
  return dims;
}

LaunchDims choleskyLaunch(int64_t matrices, int64_t order, int64_t elementBytes) {
  LaunchDims dims;
  dims.threadsPerBlock = std::min<int64_t>(kLoopThreads, roundUpToWarp(order));
  dims.blocks = std::clamp<int64_t>(matrices, 1, kMaxBlocks);
  dims.sharedBytes = order * order * elementBytes;
  dims.reason = std::to_string(matrices) + " matrices of order " + std::to_string(order) + ", a block per matrix" +
                (matrices > kMaxBlocks ? " (blocks loop over matrices)" : "");
  return dims;
}

LaunchDims luLaunch(int64_t matrices, int64_t rows, int64_t cols, int64_t elementBytes) {
  LaunchDims dims;
  dims.threadsPerBlock = std::min<int64_t>(kLoopThreads, roundUpToWarp(std::max(rows, cols)));
  dims.blocks = std::clamp<int64_t>(matrices, 1, kMaxBlocks);
  dims.sharedBytes = rows * cols * elementBytes + 8;
  dims.reason = std::to_string(matrices) + " matrices of " + std::to_string(rows) + " x " + std::to_string(cols) +
                ", a block per matrix" + (matrices > kMaxBlocks ? " (blocks loop over matrices)" : "");
  return dims;
}

}  // namespace kiln::gpu
