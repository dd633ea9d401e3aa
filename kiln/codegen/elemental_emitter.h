// The elemental emitter: LLVM IR computing one element of a value,
// composed over a kernel's body, for any back end that emits LLVM IR. Each
// op's per-element expression lives in elementwise.cpp; this class maps
// indices (data movement, broadcasts), folds reductions and caches what it
// computed. What depends on the target (vector widths, prefetches, its
// math) comes from the back end's TargetHooks; the loop nests around it are
// the back end's (the cpu's: kiln/backends/cpu/emitter.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "kiln/codegen/target_hooks.h"
#include "kiln/ir/ir.h"
#include "kiln/support/diagnostic.h"

namespace kiln::codegen {

// Computes values one element at a time: emit(v, i) is the LLVM value of
// element i (row-major) of `v`, built from the elements of the kernel's
// parameters it depends on. Each op's per-element expression is written once
// and composes over whatever the kernel body holds. Every emitted element
// computation is free of side effects and reads in bounds for any index in
// range, so a data-movement op may compute several candidates and select
// (concatenate, pad, dynamic_update_slice): no branches, loops stay
// vectorizable, and the emitter's cache stays valid.
class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilder<>& b, llvm::Module& m, const TargetHooks& target,
                   std::map<const Value*, llvm::Value*> params)
      : b_(b), m_(m), target_(target), params_(std::move(params)) {}

  Expected<llvm::Value*> emit(const Value* v, llvm::Value* index);

  // One step of single-input reduce `op`'s fold: its body applied to `acc`
  // and the input element at `index` (the column form, emitKernel).
  Expected<llvm::Value*> emitFoldStep(const Operation& op, llvm::Value* acc, llvm::Value* index);

  // The results of `op`'s body region applied to the scalar register values
  // `args`: its ops must be elementwise ops (or constants, reshapes and
  // broadcasts) on rank-0 values; each is emitted by emitElementwise. A
  // fold's body returns one value per result of `op`; a sort's comparator
  // (the cuda back end's sort kernel) returns one i1. `region`: which of
  // op's regions (select_and_scatter's scatter body is its second).
  Expected<std::vector<llvm::Value*>> emitScalarBody(const Operation& op, std::span<llvm::Value* const> args,
                                                     unsigned region = 0);

  // Computes `v` (a reduce's result, or a value with one element per row)
  // for element `row` and makes every later use of it read that scalar.
  Status emitRowScalar(const Value* v, llvm::Value* row);

  // Elements of ops the shared emitter has no expression for: the cuda back
  // end's dots, convolutions and ffts, each element a loop of its own. The
  // provider returns the element of `op`'s result at `index`, or nullptr
  // where `op` is not its either (then the op is refused as before).
  using ElementProvider = std::function<Expected<llvm::Value*>(const Operation& op, llvm::Value* index)>;
  void setElementProvider(ElementProvider provider) { provider_ = std::move(provider); }

  // Records that register value `x` (a bf16 or f16 element) was decoded
  // from the bits `bits`, so that a TOTALORDER compare of it compares the
  // bits (emitTotalOrderCompareBits): the register has lost a NaN's
  // payload. Parameters the emitter loads are recorded by it; a back end
  // loading elements itself (the cuda sort kernel) records them.
  void knowNarrowBits(llvm::Value* x, llvm::Value* bits) { narrowBits_[x] = bits; }

  // Makes every later use of `v` (a value with one element per row) read
  // `scalar`, a row's value the back end computed its own way (the cuda
  // back end's block-wide reductions).
  void setRowScalar(const Value* v, llvm::Value* scalar) { rowScalars_[v] = scalar; }

  // Rows of at most this many elements of a staged reduce's input may be
  // kept whole (keepStagedRows): 256 KiB of f32, the cpu fusion policy's
  // largest row (maxRowBytes), held in L2 next to the input's row.
  static constexpr int64_t kKeptRowMax = 65536;

  // Makes a staged reduce of `v` (emitStagedReduce) keep all of the current
  // row of `v` in a scratch row, instead of one chunk at a time, so that the
  // element loop reads `v` back (seedFromKeptRows) rather than computing it
  // again: a softmax's exp(x - max) runs once per element, not twice. Only
  // for `v` whose rows are the kernel's rows (element `column` of the
  // scratch is element row * rowLength + column of `v`).
  void keepStagedRows(const Value* v) { rowsToKeep_.insert(v); }

  // Makes seedFromKeptRows seed `v` too with kept value `kept`'s element
  // (the two hold the same register value: `kept` widens `v` exactly).
  void seedAlsoFromKeptRows(const Value* v, const Value* kept) { keptAliases_[v] = kept; }

  // Makes emit(v, index) return `element`.
  void seed(const Value* v, llvm::Value* index, llvm::Value* element) { cache_[{v, index}] = element; }

  // Emitted elements by (value, index); the coordinates of flat indices by index.
  using Cache = std::map<std::pair<const Value*, llvm::Value*>, llvm::Value*>;
  using KnownCoords = std::map<llvm::Value*, std::pair<std::vector<int64_t>, std::vector<llvm::Value*>>>;

  // A guarded loop's cache: while a CacheScope lives, the emitter's cache
  // -- elements, and the coordinates of indices -- holds only what was
  // emitted since it began; when it ends, the cache is what it was before.
  // Each loop behind a trip check of its own (sibling loops) is emitted in
  // one, so nothing computed inside it -- a scalar read at index 0, say, or
  // the coordinates of a row-invariant index -- is used after it, where it
  // would not dominate its uses. (Inside, the loop computes every element it
  // reads itself, as it always has: reusing values from before it would
  // change the generated code.)
  class CacheScope {
   public:
    explicit CacheScope(ElementalEmitter& emitter)
        : emitter_(emitter), cache_(std::exchange(emitter.cache_, {})),
          knownCoords_(std::exchange(emitter.knownCoords_, {})) {}
    ~CacheScope() {
      emitter_.cache_ = std::move(cache_);
      emitter_.knownCoords_ = std::move(knownCoords_);
    }
    CacheScope(const CacheScope&) = delete;
    CacheScope& operator=(const CacheScope&) = delete;

   private:
    ElementalEmitter& emitter_;
    Cache cache_;
    KnownCoords knownCoords_;
  };

  // In the element loop at `index` == row * rowLength + column: makes
  // emit(v, index) of every kept value load scratch element `column`.
  // Loads nobody uses are removed by LLVM.
  void seedFromKeptRows(llvm::Value* index, llvm::Value* column);

 private:
  // Every operand and result of `op` must be a tensor of an element type
  // with a register type (the users of a value check it, so kernel
  // parameters are checked where they are read).
  Status checkTypes(const Operation& op);

  Expected<llvm::Value*> emitUncached(const Value* v, llvm::Value* index);

  // emitElementwise, but a TOTALORDER compare of bf16/f16 elements whose
  // bits are known compares the bits.
  Expected<llvm::Value*> emitElementwiseOp(const Operation& op, std::span<llvm::Value* const> xs);

  Expected<llvm::Value*> emitConstant(const Operation& op, Type element, llvm::Value* index);

  // --- Index mapping ----------------------------------------------------------

  // The coordinates of flat index `index` in `shape` (row-major).
  std::vector<llvm::Value*> coordinates(llvm::Value* index, std::span<const int64_t> shape);

  // Remembers `coords` as the coordinates of the index it returns, so that
  // the next index mapping in a chain (pad of a slice, slice of a
  // transpose) starts from them instead of dividing the flat index again:
  // with the divisions, a pad read through nine strided slices (a
  // convolution's windows) took 47 of its 50 ms. The coordinates are the
  // index's operands, so they are valid wherever it is.
  llvm::Value* flatIndex(std::span<llvm::Value* const> coords, std::span<const int64_t> shape);

  // sum + x * scale, without the no-op instructions (so the index a loop
  // counter becomes stays recognizable to coordinate()); a null sum is 0.
  llvm::Value* addScaled(llvm::Value* sum, llvm::Value* x, int64_t scale);

  llvm::Value* clampIndex(llvm::Value* x, int64_t lo, int64_t hi);

  // Element `index` of the result of data-movement op `op`.
  Expected<llvm::Value*> emitIndexMapping(const Operation& op, llvm::Value* index);

  // broadcast_in_dim: output dim broadcast_dimensions[j] feeds operand dim j
  // (size-1 operand dims read index 0).
  Expected<llvm::Value*> broadcastOperandIndex(const Operation& op, llvm::Value* index);

  // Each operand is read at its clamped position and the one that holds the
  // element is selected.
  Expected<llvm::Value*> emitConcatenate(const Operation& op, std::vector<llvm::Value*> out);

  // Operand element j lands at low + j * (interior + 1) along each dim
  // (negative low/high padding cuts elements off); every other element is the
  // padding value.
  Expected<llvm::Value*> emitPad(const Operation& op, std::vector<llvm::Value*> out);

  // Element `index` of reduce_window `op`'s result: its init value folded
  // with the window's elements in row-major window order, body(acc, x), a
  // padding position or base-dilation hole folding the init value -- the
  // interpreter's order, so the same bits. Windows are unrolled, so at most
  // kMaxWindow positions (pools); longer ones (cumulative sums) are routines.
  Expected<llvm::Value*> emitReduceWindow(const Operation& op, llvm::Value* index);

  // The start indices operands[first...] (scalars of any integer type) read
  // and clamped to [0, dim - sizes[d]], as the spec says.
  Expected<std::vector<llvm::Value*>> clampedStarts(const Operation& op, unsigned first, std::span<const int64_t> sizes);

  Expected<llvm::Value*> emitDynamicUpdateSlice(const Operation& op, std::vector<llvm::Value*> out, llvm::Value* index);

  // gather: the operand element at the clamped start indices read for the
  // result element's batch position, plus its batching and offset
  // coordinates (the interpreter's mapping, so the same element).
  Expected<llvm::Value*> emitGather(const Operation& op, llvm::Value* index);

  // scatter of one input where at most one update reaches each result
  // element: every dim of the indices but index_vector_dim is a batching dim
  // or has one element (JAX's row-wise updates, take_along_axis's gradient).
  // Computed from the result's side: the one candidate update's window is
  // tested to cover the element, which is then body(input, update), else
  // the input element. Updates landing out of bounds cover nothing, as the
  // spec skips them. Other scatters are routines.
  Expected<llvm::Value*> emitScatter(const Operation& op, llvm::Value* index);

  // --- Reductions -------------------------------------------------------------

  // reduce (any number of inputs, a body of elementwise ops on scalars): a
  // loop over the input elements that fold into output element `index`, in
  // row-major order of the reduced positions, each step applying the body to
  // (accumulators..., elements...) in the element types -- as the interpreter
  // folds them, except that float sums may be reassociated (letSumReassociate).
  // The loop runs at least
  // once (an empty reduction is its init values), so every block it adds
  // dominates the code after it and the emitter's cache stays valid across
  // it. All results are computed together and cached; result `k` is returned.
  Expected<llvm::Value*> emitReduce(const Operation& op, unsigned k, llvm::Value* index);

  // A fold that is one float add onto the accumulator -- a sum -- may be
  // reassociated: LLVM's vectorizer then keeps interleaved partial sums (on
  // AVX-512, 16 lanes times 4) and adds them up in a tree at the end. Faster
  // than one running sum (which waits for each add) and more accurate on long
  // rows, but not the interpreter's order: floats sums agree within rounding,
  // not bitwise. Other folds (max, min, products, integers) keep the order.
  static void letSumReassociate(llvm::Value* folded, llvm::Value* acc);

  // Reductions of at least this many elements whose input is computed are
  // staged (emitStagedReduce); shorter ones fold as they compute.
  static constexpr int64_t kStagedReduceMin = 32;
  // Float maximums and minimums of at least this many elements fold by
  // select (emitMinMaxFold), and staged reduces whose input the row kernel
  // keeps for its outputs (a softmax's exp) start at this many too.
  static constexpr int64_t kShortRowReduceMin = 12;
  // Elements staged at a time: the scratch row stays in L1.
  static constexpr int64_t kStageChunk = 512;

  // The positions one output element of a reduce folds: `count` of them, in
  // row-major order over the reduced dims `shape` (`strides` in that
  // order), at input offset rowOffset + sum of coordinate * inStrides.
  // When the reduced dims are the input's trailing ones, `row` is the output
  // element's flat index: input offset row * count + r.
  struct Reduced {
    std::vector<int64_t> shape, strides, inStrides;
    int64_t count;
    llvm::Value* rowOffset;
    llvm::Value* row = nullptr;
  };

  // The input offset of reduced position `r`. Over trailing dims it is known
  // as row * count + r (knowSplit), so a value the input reads through a
  // broadcast along the row (logsumexp's max from another kernel) is read
  // at the row: once per row, not gathered per element.
  llvm::Value* reducedOffset(const Reduced& p, llvm::Value* r);

  // 1 if single-input reduce `op`'s body is maximum of its two arguments, 0
  // if minimum, -1 otherwise.
  static int isFloatMinMax(const Operation& op);

  // A float max (or min) fold, which maximum's rules -- NaN wins, -0 < +0 --
  // would make several vector instructions per step (six on x86), where the
  // target says so (TargetHooks::foldMinMaxBySelect). Instead: a plain max
  // (a compare and select without NaNs or signed zeros: one instruction on
  // x86), the largest magnitude bit pattern seen (two: a NaN's is above
  // infinity's), and, when the result is zero, a second pass that looks for
  // the zero of the winning sign. A NaN result is the default quiet NaN.
  // The loop is vectorized as the target says (TargetHooks::vectorizeFold):
  // LLVM's cost model would not.
  Expected<llvm::Value*> emitMinMaxFold(const Operation& op, llvm::Value* init, const Reduced& positions, bool isMax);

  // Whether single-input reduce `op` sums floats: its body is one add of its
  // two arguments.
  static bool isFloatSum(const Operation& op);

  // A single-input reduce whose input is computed (softmax's exp(x - max),
  // layernorm's squares), chunk by chunk. A sum folds in the loop that
  // computes the inputs (vectorized as partial sums, see letSumReassociate);
  // other folds are staged: one loop computes a chunk of inputs into a
  // scratch row -- no loop-carried dependence, so it vectorizes (the exp
  // polynomial runs on vectors) -- and one folds them into the accumulator.
  Expected<llvm::Value*> emitStagedReduce(const Operation& op, llvm::Value* init, const Reduced& positions);

  // Coordinate of flat `index` along a dim of `extent` elements (0: no
  // bound, the outermost dim) and `stride`. An index the kernel's loops
  // built as outer * n + inner (see knowSplit) takes the coordinate from the
  // part that holds it, so a row loop's element reads its broadcast operands
  // at the column counter itself: no division in the inner loop, and
  // unit-stride loads the vectorizer sees.
  llvm::Value* coordinate(llvm::Value* index, int64_t stride, int64_t extent);

  // (x / stride) % extent for 0 <= x < bound (0: unknown), without the
  // operations that cannot change x.
  llvm::Value* digit(llvm::Value* x, int64_t stride, int64_t extent, int64_t bound);

 public:
  // In a row kernel, makes each chunk of a staged reduce over the whole row
  // prefetch the same chunk of the next row of `params` (each a kernel
  // parameter with rows of `rowLength` elements), where the target
  // prefetches: that row's memory traffic then overlaps this row's
  // computation (exp, squares) instead of waiting for the next row's first
  // pass.
  void prefetchNextRows(llvm::Value* row, int64_t rowLength, std::vector<const Value*> params);

  // Records that `index` == outer * n + inner with 0 <= inner < n.
  void knowSplit(llvm::Value* index, llvm::Value* outer, llvm::Value* inner, int64_t n);

 private:
  struct Split {
    llvm::Value* outer;
    llvm::Value* inner;
    int64_t n;
  };
  std::map<llvm::Value*, Split> splits_;
  KnownCoords knownCoords_;

  struct NextRow {
    llvm::Value* row = nullptr;
    int64_t rowLength = 0;
    std::vector<const Value*> params;
  };
  NextRow nextRow_;

  // Prefetches elements [first, first + length) of the next row of every
  // nextRow_ parameter, one prefetch (TargetHooks::prefetchBytes) at a time. After the last row the
  // addresses lie past the buffer: a prefetch there is a hint, not a read.
  Status emitPrefetchNextRow(llvm::Value* first, llvm::Value* length);

  llvm::IRBuilder<>& b_;
  llvm::Module& m_;
  const TargetHooks& target_;
  std::map<const Value*, llvm::Value*> params_;  // kernel parameter -> its buffer
  Cache cache_;
  std::map<const Value*, llvm::Value*> rowScalars_;  // reduce -> its value for the current row
  std::set<const Value*> rowsToKeep_;                // keepStagedRows
  std::map<const Value*, llvm::Value*> keptRows_;    // kept value -> its scratch row (an alloca)
  std::map<const Value*, const Value*> keptAliases_;  // seedAlsoFromKeptRows: value -> kept value
  ElementProvider provider_;
  std::map<llvm::Value*, llvm::Value*> narrowBits_;  // knowNarrowBits
};

}  // namespace kiln::codegen
