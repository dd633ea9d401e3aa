// What one emitted kernel computes (KernelPlan) and the loop nest it runs
// as (KernelForm), decided once, from the IR alone: kernelFormOf is the one
// place that chooses a kernel's loops; the emitter switches on its answer
// and the planner reads its outer iterations and work from it. Free of LLVM
// headers: target-neutral, so the cuda back end chooses its thread
// structures from the same analysis (some forms, the dot form and the plan's
// step and streamOutputs, only the cpu back end reads).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "kiln/codegen/element_ops.h"
#include "kiln/ir/ir.h"

namespace kiln::codegen {

// What one kernel computes: each of `roots` per element, from `params`
// (values inside the kernel) bound to the top-level values `inputs`; root i
// is stored to top-level value `outputs[i]`.
struct KernelPlan {
  std::vector<const Value*> params;
  std::vector<const Value*> roots;
  std::vector<const Value*> inputs;
  std::vector<const Value*> outputs;
  size_t step = 0;  // the executable's step that launches it
  // Write the outputs around the cache (non-temporal stores, where they are
  // aligned): the planner's choice for kernels that move more bytes than the
  // host's last-level cache holds, whose first output lines would be evicted
  // before anything read them. Saves the read of each output line that a
  // plain store makes (about a third of a streaming kernel's traffic).
  bool streamOutputs = false;
};

// A kernel that is one transpose of a parameter swapping its last two
// groups of dims, the groups before them in any order: output [batch, rows,
// columns] of input [batch', columns, rows] (dims merged where the
// permutation keeps them adjacent; batch' the batch groups in source order).
// Such a kernel moves square tiles of `lanes` x `lanes` elements, a cache
// line per tile row, through registers.
struct PureTranspose {
  size_t param = 0;     // which of the plan's params is transposed
  int64_t rows = 0;     // of each batch's output (the input's last group)
  int64_t columns = 0;  // of each output row (the input's second-to-last group)
  int64_t lanes = 0;    // elements per 64-byte line
  // The batch groups in output order: {extent, source stride in elements}.
  std::vector<std::pair<int64_t, int64_t>> batch;
};

// One iteration per output element (`count` of them; every root has that
// many). Within it, the elements run as:
//   - `transpose`: whole tiles of a pure transpose through registers, the
//     rest element by element;
//   - else, with `rowLength` (the output's last dim, or its trailing dims
//     together where the last is short and only broadcasts need rows), row by row: the
//     range's partial first and last rows flat, whole rows as nested loops
//     whose inner counter is the column, so operands broadcast along the rows
//     (or read through a reindexing: transpose, slice, pad, reverse) are read
//     at the column, unit-stride. `tiled`: a transpose moving the last dim is
//     read, so rows advance kTileRows at a time over kTileColumns columns.
//     Else each row runs as one loop per stretch between `columnBreaks`
//     (ascending, starting at 0, ending at rowLength), where a concatenate
//     along the last dim passes from one operand to the next;
//   - else as one flat loop.
struct ElementsForm {
  int64_t count = 0;
  std::optional<PureTranspose> transpose;
  int64_t rowLength = 0;
  bool tiled = false;
  std::vector<int64_t> columnBreaks;
};

// One iteration per row: every reduce the kernel uses reduces the trailing
// dims of its input to one shape `rows`, and every path from an output to a
// reduce keeps the row (softmax, layernorm). Each of `rowValues` -- a
// reduce's result or a per-row operand of a broadcast, each after every row
// value it reads -- is computed once per row into a register; then an inner
// loop writes the row's `rowLength` elements. Outputs with one element per
// row (a softmax's saved max) are stored once per row.
struct RowsForm {
  std::vector<int64_t> rows;
  std::vector<const Value*> rowValues;
  int64_t numRows = 1;    // the product of `rows`
  int64_t count = 0;      // elements of the largest output
  int64_t rowLength = 0;  // count / numRows
};

// Result rows of a dot_general a register tile covers: the dot form's outer
// iteration is a block of this many rows.
inline constexpr int64_t kDotTileRows = 4;

// A dot_general oneDNN has no matmul for (integers, f64; f32 where too small
// for a library call): result[b, i, j] = sum over k of lhs[b, i, k] *
// rhs[b, k, j], each group of dims at most one dim (one contracting dim),
// both operands kernel parameters, one element type -- an integer type
// (wrapping, so any order gives the interpreter's bits), f64 (a multiply
// then an add per step, k ascending: the interpreter's order and roundings)
// or f32 (the same steps, rounded to f32 where the interpreter sums in
// double: within the dot tolerance, as oneDNN is) -- and maybe an
// elementwise epilogue (an output fusion's), of the same element type,
// applied to the finished rows. One iteration per block of kDotTileRows
// result rows of one batch.
struct DotForm {
  const Operation* dot = nullptr;
  const Value* root = nullptr;  // the dot's result, or an elementwise epilogue of it (output fusion)
  int64_t batch = 1, m = 1, n = 1, k = 1;
  int64_t lhsBatchStride = 0, lhsRowStride = 0, lhsKStride = 0;
  int64_t rhsBatchStride = 0, rhsKStride = 0, rhsColumnStride = 0;
  int64_t rowBlocks = 0;  // per batch: m / kDotTileRows rounded up
};

// Every output is a single-input reduce of the same leading dims of its
// input (column sums, bias gradients; siblings share the kernel), or an
// elementwise epilogue of one such reduce (an SGD update of a bias: b - lr *
// sum(g)): a fold over the reduced positions, each pass running over the
// kernel's output elements, out[j] = body(out[j], input[r * n + j]) --
// unit-stride, vectorized, each element accumulated in the per-element
// order -- then the epilogues applied in place. One iteration per output
// element. (Outputs of such kernels never share memory with their inputs:
// buffer assignment updates in place through loop fusions only.)
struct ColumnFoldForm {
  std::vector<const Operation*> reduces;  // reduces[i] is output i's
};

// One pad (maybe of fused work, maybe reshaped after) with edge padding
// only: each output row is the padding value, or the padding value, one
// input row (read unit-stride, where element by element its index would be
// clamped and LLVM would gather) and the padding value again. One iteration
// per output row.
struct PadRowsForm {
  const Operation* pad = nullptr;
  std::vector<int64_t> low, inShape, outShape;
  int64_t rows = 0;  // output rows: the product of the dims before the last
};

// One concatenation (maybe reshaped: the same flat order), slab by slab: for
// each index of the dims before the concatenated one, each operand's
// contiguous run of the output is a loop of its own that computes that
// operand only, instead of every operand at every element and a select.
// One iteration per index of the dims before the concatenated one.
struct SlabsForm {
  const Operation* concat = nullptr;
  int64_t outer = 0;             // the product of the dims before the concatenated one
  std::vector<int64_t> lengths;  // of each operand's run: its extent times the dims after
};

using KernelForm = std::variant<ElementsForm, RowsForm, DotForm, ColumnFoldForm, PadRowsForm, SlabsForm>;

// The loop nest of `plan`'s kernel: the first of rows, dot, column fold, pad
// rows and slabs whose conditions hold, else elements.
KernelForm kernelFormOf(const KernelPlan& plan);

// The number of outer iterations of a kernel of form `form`: what the
// kernel's [begin, end) ranges over.
int64_t kernelIterations(const KernelForm& form);

// The multiply-adds of a dot form (0 for other forms).
int64_t dotMultiplyAdds(const KernelForm& form);

}  // namespace kiln::codegen
