// The one classification of a kernel's loop nest (see kernel_form.h).
#include "kiln/codegen/kernel_form.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <span>
#include <string>

#include "kiln/codegen/dot_dims.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"

namespace kiln::codegen {
namespace {

bool sameShape(std::span<const int64_t> a, std::span<const int64_t> b) { return std::ranges::equal(a, b); }

// An integer-list attribute of `op` with one entry per dim of `rank`.
std::optional<std::vector<int64_t>> dimsOf(const Operation& op, const char* name, size_t rank) {
  std::optional<std::vector<int64_t>> list = op.attr(name).asIntList();
  if (!list || list->size() != rank) return std::nullopt;
  return list;
}

// Finds the row form of `root`, if it has one: every path from `root` to a
// reduce must keep the row, i.e. read the reduce at element `index / (row
// length)` of a value whose shape starts with `rows` -- elementwise ops,
// reshapes, and broadcast_in_dim of a value with one element per row
// (shape `rows` followed by 1s) along the leading dims. The analysis stops at
// the kernel's parameters: what produced them is another step's business.
class RowAnalysis {
 public:
  explicit RowAnalysis(const std::vector<const Value*>& params) : params_(params.begin(), params.end()) {}

  bool usesReduce(const Value* root) {
    collectReduces(root);
    return !reduces_.empty();
  }

  std::optional<RowsForm> of(const Value* root) {
    if (!usesReduce(root)) return std::nullopt;
    std::span<const int64_t> rows = reduces_.front()->result()->type().shape();
    form_.rows.assign(rows.begin(), rows.end());
    if (!keepsRow(root)) return std::nullopt;
    std::set<const Value*> seen;
    orderRowValues(root, seen);
    return std::move(form_);
  }

 private:
  // The op computing `v` inside the kernel; null for parameters.
  const Operation* producer(const Value* v) const { return params_.count(v) ? nullptr : v->definingOp(); }

  // Post-order, so each reduce comes after those it depends on.
  void collectReduces(const Value* v) {
    const Operation* op = producer(v);
    if (!op || !visited_.insert(op).second) return;
    for (const Value* operand : op->operands()) collectReduces(operand);
    if (op->name() == "stablehlo.reduce") reduces_.push_back(op);
  }

  // The reduces and per-row values in post-order (each after what it reads).
  void orderRowValues(const Value* v, std::set<const Value*>& seen) {
    const Operation* op = producer(v);
    if (!op || !seen.insert(v).second) return;
    for (const Value* operand : op->operands()) orderRowValues(operand, seen);
    if (op->name() == "stablehlo.reduce" || perRow_.count(v)) form_.rowValues.push_back(v);
  }

  bool dependsOnReduce(const Value* v) {
    const Operation* op = producer(v);
    if (!op) return false;
    if (auto it = dependsOnReduce_.find(v); it != dependsOnReduce_.end()) return it->second;
    bool depends = op->name() == "stablehlo.reduce";
    for (const Value* operand : op->operands()) depends = depends || dependsOnReduce(operand);
    return dependsOnReduce_[v] = depends;
  }

  bool startsWithRows(const Value* v) {
    std::span<const int64_t> shape = v->type().shape();
    const std::vector<int64_t>& rows = form_.rows;
    return shape.size() >= rows.size() && std::equal(rows.begin(), rows.end(), shape.begin());
  }
  bool isRows(const Value* v) { return startsWithRows(v) && v->type().rank() == int64_t(form_.rows.size()); }
  // Shape `rows` followed by size-1 dims: element r is row r's.
  bool isOnePerRow(const Value* v) {
    if (!startsWithRows(v)) return false;
    std::span<const int64_t> shape = v->type().shape();
    return std::all_of(shape.begin() + form_.rows.size(), shape.end(), [](int64_t n) { return n == 1; });
  }

  // Whether element i of `v` reads every reduce it depends on at its row.
  bool keepsRow(const Value* v) {
    if (!dependsOnReduce(v)) return true;
    if (auto it = keepsRow_.find(v); it != keepsRow_.end()) return it->second;
    return keepsRow_[v] = v->type().isTensor() && startsWithRows(v) && opKeepsRow(*producer(v), v);
  }

  bool opKeepsRow(const Operation& op, const Value* v) {
    const std::string& name = op.name();
    size_t rank = form_.rows.size();
    std::optional<std::vector<int64_t>> dims;
    if (name == "stablehlo.reduce") {
      // Reduces exactly the trailing dims: its element `row` folds row `row`.
      dims = op.attr("dimensions").asIntList();
      if (!dims || op.numOperands() != 2 || !isRows(v) || dependsOnReduce(op.operand(1))) return false;
      std::sort(dims->begin(), dims->end());
      for (size_t j = 0; j < dims->size(); ++j)
        if ((*dims)[j] != int64_t(rank + j)) return false;
      return int64_t(rank + dims->size()) == op.operand(0)->type().rank() && keepsRow(op.operand(0));
    }
    if (name == "stablehlo.broadcast_in_dim") {
      const Value* operand = op.operand(0);
      dims = op.attr("broadcast_dimensions").asIntList();
      if (!dims || dims->size() != size_t(operand->type().rank()) || !isOnePerRow(operand)) return false;
      for (size_t j = 0; j < rank; ++j)
        if ((*dims)[j] != int64_t(j)) return false;
      // Spread over the row: computed once per row.
      if (v->type().numElements() != operand->type().numElements()) perRow_.insert(operand);
      return keepsRow(operand);
    }
    // Row-major reshape keeps each element's flat index, so its row too.
    if (name == "stablehlo.reshape") return keepsRow(op.operand(0));
    if (!isElementwiseOp(name)) return false;
    for (const Value* operand : op.operands()) {
      bool scalarForAll = operand->type().rank() == 0 && v->type().rank() != 0;  // read at index 0
      if (scalarForAll ? dependsOnReduce(operand) : !keepsRow(operand)) return false;
    }
    return true;
  }

  std::set<const Value*> params_;
  std::vector<const Operation*> reduces_;
  RowsForm form_;
  std::set<const Operation*> visited_;
  std::set<const Value*> perRow_;
  std::map<const Value*, bool> dependsOnReduce_, keepsRow_;
};


// The row form of `plan`'s kernel, if it has one: every root that uses a
// reduce has a row form, all with the same rows, and their reduces are
// computed once per row (each after those it reads). Roots without reduces
// just take their elements in the row loop's order.
std::optional<RowsForm> rowFormOf(const KernelPlan& plan) {
  std::optional<RowsForm> merged;
  for (const Value* root : plan.roots) {
    std::optional<RowsForm> form = RowAnalysis(plan.params).of(root);
    if (!form) {
      if (RowAnalysis(plan.params).usesReduce(root)) return std::nullopt;
      continue;
    }
    if (!merged) {
      merged = std::move(form);
      continue;
    }
    if (form->rows != merged->rows) return std::nullopt;
    for (const Value* v : form->rowValues)
      if (std::find(merged->rowValues.begin(), merged->rowValues.end(), v) == merged->rowValues.end())
        merged->rowValues.push_back(v);
  }
  return merged;
}

// Whether `v` is computed from `reduce`'s result element by element, at the
// same index: through elementwise ops on values of `v`'s shape, other
// operands being kernel parameters of that shape, constants or scalars.
bool elementwiseOver(const Value* v, const Value* reduce, const KernelPlan& plan) {
  if (v == reduce) return true;
  if (std::find(plan.params.begin(), plan.params.end(), v) != plan.params.end()) return true;
  const Operation* op = v->definingOp();
  if (!op) return false;
  if (op->name() == "stablehlo.constant") return true;
  if (op->name() == "stablehlo.broadcast_in_dim") return op->operand(0)->type().rank() == 0 &&
                                                        !std::ranges::count(op->operands(), reduce);
  if (!isElementwiseOp(op->name())) return false;
  for (const Value* operand : op->operands()) {
    bool scalarForAll = operand->type().rank() == 0 && v->type().rank() != 0;
    if (!scalarForAll && !sameShape(operand->type().shape(), v->type().shape())) return false;
    if (!elementwiseOver(operand, reduce, plan)) return false;
  }
  return true;
}

// The single-input reduce of `op`'s leading dims that `v` reads, if `v` is
// one (or, with `throughEpilogue`, the one reduce an elementwise epilogue
// computing `v` reads).
const Operation* leadingDimsReduce(const Value* v, const KernelPlan& plan, bool throughEpilogue) {
  if (std::find(plan.params.begin(), plan.params.end(), v) != plan.params.end()) return nullptr;
  const Operation* op = v->definingOp();
  if (!op) return nullptr;
  if (op->name() != "stablehlo.reduce") {
    if (!throughEpilogue) return nullptr;
    // The one reduce the epilogue's ops read.
    const Operation* found = nullptr;
    std::vector<const Value*> stack = {v};
    std::set<const Value*> seen;
    while (!stack.empty()) {
      const Value* x = stack.back();
      stack.pop_back();
      if (!seen.insert(x).second || std::find(plan.params.begin(), plan.params.end(), x) != plan.params.end()) continue;
      const Operation* def = x->definingOp();
      if (!def) continue;
      if (def->name() == "stablehlo.reduce") {
        if (found && found != def) return nullptr;
        found = def;
        continue;
      }
      for (const Value* operand : def->operands()) stack.push_back(operand);
    }
    if (!found || !elementwiseOver(v, found->result(0), plan)) return nullptr;
    return leadingDimsReduce(found->result(0), plan, false);
  }
  if (op->numOperands() != 2 || op->numResults() != 1) return nullptr;
  std::optional<std::vector<int64_t>> dims = op->attr("dimensions").asIntList();
  int64_t rank = op->operand(0)->type().rank();
  if (!dims || dims->empty() || int64_t(dims->size()) >= rank) return nullptr;
  std::sort(dims->begin(), dims->end());
  for (size_t j = 0; j < dims->size(); ++j)
    if ((*dims)[j] != int64_t(j)) return nullptr;
  return op;
}

// A kernel whose outputs are all single-input reduces of the same leading
// dims of their inputs (column sums, bias gradients; siblings share the
// kernel) is emitted as a fold over the reduced positions, each pass running
// over the kernel's output elements: out[j] = body(out[j], input[r * n + j]).
// The same order of accumulation per element as the per-element loop (the
// reduced positions in row-major order), but the inner loop walks the inputs
// with unit stride and vectorizes. An output may also be an elementwise
// epilogue of one such reduce (an SGD update of a bias: b - lr * sum(g); a
// training step's six bias and norm updates share one kernel): the reduce
// folds into the output, and a last pass applies the epilogue in place.
// (Outputs of such kernels never share memory with their inputs: buffer
// assignment updates in place through loop fusions only.) Empty when the
// kernel is not of this form.
std::vector<const Operation*> columnReducesOf(const KernelPlan& plan) {
  std::vector<const Operation*> reduces;
  int64_t inputCount = -1;
  for (const Value* root : plan.roots) {
    const Operation* op = leadingDimsReduce(root, plan, /*throughEpilogue=*/true);
    if (!op || op->result(0)->type() != root->type()) return {};  // the output holds the reduce while it folds
    int64_t count = op->operand(0)->type().numElements();
    if (inputCount >= 0 && count != inputCount) return {};
    inputCount = count;
    reduces.push_back(op);
  }
  return reduces;
}


// Runs shorter than this are not worth a loop each.
constexpr int64_t kMinSlab = 16;

std::optional<SlabsForm> slabsOf(const KernelPlan& plan) {
  if (plan.roots.size() != 1) return std::nullopt;
  const Value* v = plan.roots[0];
  while (v->definingOp() && v->definingOp()->name() == "stablehlo.reshape") v = v->definingOp()->operand(0);
  const Operation* concat = v->definingOp();
  if (!concat || concat->name() != "stablehlo.concatenate" || concat->numOperands() < 2) return std::nullopt;
  int64_t dim = concat->attr("dimension").intValue();
  std::span<const int64_t> shape = v->type().shape();
  if (dim < 0 || dim >= int64_t(shape.size())) return std::nullopt;
  SlabsForm slabs{concat, 1, {}};
  int64_t inner = 1;
  for (int64_t d = 0; d < dim; ++d) slabs.outer *= shape[d];
  for (int64_t d = dim + 1; d < int64_t(shape.size()); ++d) inner *= shape[d];
  for (const Value* operand : concat->operands()) {
    slabs.lengths.push_back(operand->type().shape()[dim] * inner);
    if (slabs.lengths.back() < kMinSlab) return std::nullopt;
  }
  return slabs;
}

std::optional<PadRowsForm> padRowsOf(const KernelPlan& plan) {
  if (plan.roots.size() != 1) return std::nullopt;
  const Value* v = plan.roots[0];
  while (v->definingOp() && v->definingOp()->name() == "stablehlo.reshape") v = v->definingOp()->operand(0);
  const Operation* pad = v->definingOp();
  if (!pad || pad->name() != "stablehlo.pad" || pad->numOperands() != 2) return std::nullopt;
  Type in = pad->operand(0)->type(), out = v->type();
  if (!in.isTensor() || in.rank() < 1 || in.rank() != out.rank() || in.numElements() == 0) return std::nullopt;
  size_t rank = size_t(in.rank());
  std::vector<int64_t> low = intListAttr(*pad, "edge_padding_low");
  std::vector<int64_t> high = intListAttr(*pad, "edge_padding_high");
  std::vector<int64_t> interior = intListAttr(*pad, "interior_padding");
  if (low.size() != rank || high.size() != rank || interior.size() != rank) return std::nullopt;
  for (size_t d = 0; d < rank; ++d)
    if (low[d] < 0 || high[d] < 0 || interior[d] != 0) return std::nullopt;
  PadRowsForm rows{pad, low, {in.shape().begin(), in.shape().end()}, {out.shape().begin(), out.shape().end()}, 1};
  if (rows.inShape.back() < kMinSlab) return std::nullopt;
  for (size_t d = 0; d + 1 < rank; ++d) rows.rows *= rows.outShape[d];
  return rows;
}

// The one dot_general `root` is computed from (through ops of the kernel,
// not its parameters), or null.
const Operation* dotUnder(const Value* root, const KernelPlan& plan) {
  const Operation* dot = nullptr;
  std::vector<const Value*> work = {root};
  std::set<const Value*> seen;
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    const Operation* op = v->definingOp();
    if (!seen.insert(v).second || !op || std::ranges::count(plan.params, v)) continue;
    if (op->name() == "stablehlo.dot_general") {
      if (dot && dot != op) return nullptr;
      dot = op;
      continue;
    }
    for (const Value* operand : op->operands()) work.push_back(operand);
  }
  return dot;
}

std::optional<DotForm> dotFormOf(const KernelPlan& plan) {
  if (plan.roots.size() != 1) return std::nullopt;
  const Operation* dot = dotUnder(plan.roots[0], plan);
  if (!dot || dot->numOperands() != 2 || plan.roots[0]->type().elementType() != dot->result()->type().elementType() ||
      plan.roots[0]->type().numElements() != dot->result()->type().numElements())
    return std::nullopt;
  const Value* lhs = dot->operand(0);
  const Value* rhs = dot->operand(1);
  if (std::find(plan.params.begin(), plan.params.end(), lhs) == plan.params.end() ||
      std::find(plan.params.begin(), plan.params.end(), rhs) == plan.params.end() || !lhs->type().isTensor() ||
      !rhs->type().isTensor())
    return std::nullopt;
  Type element = dot->result()->type().elementType();
  if (lhs->type().elementType() != element || rhs->type().elementType() != element ||
      !(element.isInteger() || element.kind() == TypeKind::F64 || element.kind() == TypeKind::F32))
    return std::nullopt;
  Expected<DotDims> dims = dotDims(*dot);
  if (!dims.isOk()) return std::nullopt;
  const std::vector<int64_t>&lb = dims->lhsBatch, &rb = dims->rhsBatch, &lc = dims->lhsContracting,
                         &rc = dims->rhsContracting;
  int64_t lhsRank = lhs->type().rank(), rhsRank = rhs->type().rank();
  if (lb.size() > 1 || lb.size() != rb.size() || lc.size() != 1 || rc.size() != 1) return std::nullopt;
  auto inRange = [](const std::vector<int64_t>& list, int64_t rank) {
    return std::all_of(list.begin(), list.end(), [&](int64_t d) { return d >= 0 && d < rank; });
  };
  if (!inRange(lb, lhsRank) || !inRange(rb, rhsRank) || !inRange(lc, lhsRank) || !inRange(rc, rhsRank) ||
      (!lb.empty() && (lb[0] == lc[0] || rb[0] == rc[0])))
    return std::nullopt;
  // The one free dim of each side, if any (-1: none).
  std::vector<int64_t> lhsFree = freeDims(lhsRank, lb, lc), rhsFree = freeDims(rhsRank, rb, rc);
  if (lhsFree.size() > 1 || rhsFree.size() > 1) return std::nullopt;
  int64_t lf = lhsFree.empty() ? -1 : lhsFree[0], rf = rhsFree.empty() ? -1 : rhsFree[0];
  std::span<const int64_t> ls = lhs->type().shape(), rs = rhs->type().shape();
  std::vector<int64_t> lStrides = rowMajorStrides(ls), rStrides = rowMajorStrides(rs);
  DotForm loops{dot, plan.roots[0]};
  if (!lb.empty()) {
    if (ls[lb[0]] != rs[rb[0]]) return std::nullopt;
    loops.batch = ls[lb[0]];
    loops.lhsBatchStride = lStrides[lb[0]];
    loops.rhsBatchStride = rStrides[rb[0]];
  }
  if (ls[lc[0]] != rs[rc[0]]) return std::nullopt;
  loops.k = ls[lc[0]];
  loops.lhsKStride = lStrides[lc[0]];
  loops.rhsKStride = rStrides[rc[0]];
  if (lf >= 0) loops.m = ls[lf], loops.lhsRowStride = lStrides[lf];
  if (rf >= 0) loops.n = rs[rf], loops.rhsColumnStride = rStrides[rf];
  if (dot->result()->type().numElements() != loops.batch * loops.m * loops.n) return std::nullopt;
  loops.rowBlocks = (std::max<int64_t>(loops.m, 1) + kDotTileRows - 1) / kDotTileRows;
  return loops;
}

// Shortest output row worth nesting an element loop for (elementRowLength).
constexpr int64_t kMinElementRow = 16;

// How a kernel's roots read through index mappings that reorder elements.
struct Reindexing {
  // A transpose, slice, pad or reverse: its source coordinates, row by row,
  // cost divisions per row instead of per element (a transpose that keeps
  // the last dim -- attention's heads split -- then reads rows with vector
  // loads).
  bool any = false;
  // A transpose that moves the last dim: consecutive output elements are a
  // source row apart, so the rows run in tiles (ElementsForm::tiled).
  bool movesLastDim = false;
  // Columns where a concatenate along the output's last dim passes from one
  // operand to the next: each row runs as one loop per stretch between
  // them, where LLVM folds the concatenate's compares of the column and
  // reads one operand with plain vector loads (jnp.pad's edge mode is such
  // concatenates). Ascending, inside (0, row length).
  std::vector<int64_t> columnBreaks;
};

Reindexing reindexingOf(const KernelPlan& plan) {
  static const std::set<std::string_view> kReindexing = {"stablehlo.transpose", "stablehlo.slice", "stablehlo.pad",
                                                         "stablehlo.reverse"};
  Reindexing found;
  std::set<const Value*> params(plan.params.begin(), plan.params.end()), seen;
  // Values read at the kernel's own column (through elementwise ops and
  // concatenates along other dims): where a concatenate among them joins
  // along the last dim, its operands' boundaries are column breaks.
  std::set<const Value*> atOwnColumn(plan.roots.begin(), plan.roots.end());
  std::span<const int64_t> rootShape = plan.roots[0]->type().shape();
  std::vector<const Value*> work(plan.roots.begin(), plan.roots.end());
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (params.count(v) || !seen.insert(v).second) continue;
    const Operation* op = v->definingOp();
    if (!op) continue;
    if (kReindexing.count(op->name())) found.any = true;
    if (op->name() == "stablehlo.concatenate" && atOwnColumn.count(v) && !rootShape.empty()) {
      int64_t rank = v->type().rank();
      Attribute dimAttr = op->attr("dimension");
      std::optional<int64_t> dim = dimAttr ? std::optional<int64_t>(dimAttr.intValue()) : std::nullopt;
      if (dim && *dim == rank - 1 && rank == int64_t(rootShape.size()) && v->type().shape().back() == rootShape.back()) {
        int64_t at = 0;
        for (const Value* operand : op->operands())
          if ((at += operand->type().shape().back()) < rootShape.back()) found.columnBreaks.push_back(at);
        found.any = true;
      } else if (dim && *dim != rank - 1) {
        for (const Value* operand : op->operands()) atOwnColumn.insert(operand);
      }
    } else if (atOwnColumn.count(v) && isElementwiseOp(op->name())) {
      for (const Value* operand : op->operands())
        if (std::ranges::equal(operand->type().shape(), v->type().shape())) atOwnColumn.insert(operand);
    }
    if (op->name() == "stablehlo.transpose") {
      std::optional<std::vector<int64_t>> permutation = dimsOf(*op, "permutation", v->type().rank());
      if (permutation && !permutation->empty() && permutation->back() != int64_t(permutation->size()) - 1)
        found.movesLastDim = true;
    }
    for (const Value* operand : op->operands()) work.push_back(operand);
  }
  return found;
}

std::optional<PureTranspose> pureTransposeOf(const KernelPlan& plan) {
  if (plan.roots.size() != 1) return std::nullopt;
  // Reshapes after the transpose (JAX adds and drops unit dims around it)
  // keep the elements' order: the output is the transpose's, bit for bit.
  const Operation* op = plan.roots[0]->definingOp();
  while (op && op->numOperands() == 1 && op->operand(0)->type().numElements() == op->result(0)->type().numElements() &&
         (op->name() == "stablehlo.reshape" || op->name() == "stablehlo.broadcast_in_dim")) {
    if (op->name() == "stablehlo.broadcast_in_dim") {
      std::optional<std::vector<int64_t>> dims = dimsOf(*op, "broadcast_dimensions", op->result(0)->type().rank());
      if (!dims || !std::is_sorted(dims->begin(), dims->end())) return std::nullopt;
    }
    op = op->operand(0)->definingOp();
  }
  if (!op || op->name() != "stablehlo.transpose") return std::nullopt;
  auto param = std::find(plan.params.begin(), plan.params.end(), op->operand(0));
  if (param == plan.params.end()) return std::nullopt;
  Type element = op->operand(0)->type().elementType();
  unsigned bits = element.isComplex() ? 0 : element.bitWidth();
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return std::nullopt;
  if (element.storageBytes() * 8 != bits) return std::nullopt;  // sub-byte and padded types
  std::span<const int64_t> shape = op->operand(0)->type().shape();
  std::optional<std::vector<int64_t>> perm = dimsOf(*op, "permutation", shape.size());
  if (!perm || perm->empty()) return std::nullopt;
  // Output dims in groups of consecutive source dims: {first source dim, extent}.
  std::vector<std::pair<int64_t, int64_t>> groups;
  for (size_t k = 0; k < perm->size(); ++k) {
    int64_t d = (*perm)[k];
    if (!groups.empty() && d == (*perm)[k - 1] + 1) groups.back().second *= shape[d];
    else groups.push_back({d, shape[d]});
  }
  size_t m = groups.size();
  if (m < 2) return std::nullopt;
  // Leading groups in any order, then the source's last group, then the one before it.
  std::vector<int64_t> sourceOrder;
  for (const auto& group : groups) sourceOrder.push_back(group.first);
  std::vector<int64_t> sorted = sourceOrder;
  std::sort(sorted.begin(), sorted.end());
  if (sourceOrder[m - 2] != sorted[m - 1] || sourceOrder[m - 1] != sorted[m - 2]) return std::nullopt;
  PureTranspose t;
  t.param = size_t(param - plan.params.begin());
  t.rows = groups[m - 2].second;
  t.columns = groups[m - 1].second;
  t.lanes = 512 / bits;
  if (t.rows % t.lanes != 0 || t.columns < t.lanes) return std::nullopt;
  // A group's source stride: the elements of the source dims after its last.
  for (size_t k = 0; k + 2 < m; ++k) {
    int64_t fromFirst = 1;
    for (int64_t d = groups[k].first; d < int64_t(shape.size()); ++d) fromFirst *= shape[d];
    t.batch.push_back({groups[k].second, fromFirst / groups[k].second});
  }
  return t;
}


// The length of the output's rows (its last dim) if an element loop should
// run row by row: some parameter has fewer elements than the output (it is
// read through a broadcast, so its index wraps around along the rows) or is
// read through a reindexing (reindexingOf), and the rows are long
// enough to vectorize; else 0. Where only broadcasts ask for rows and the
// last dim is shorter than kMinElementRow, a row is the trailing dims
// together, up to that length: a value per matrix of a batch of 4x4 ones
// (the NaN select after a batched Cholesky) is then read once per row,
// where a flat loop gathered it per element. (A reindexing's tiles and
// column breaks count columns of the last dim, a window's reads step along
// it: those keep rows of the last dim.)
// The greatest common divisor of the last dims of the kernel's values that
// have `count` elements (every one, from the roots back to the params).
int64_t commonRowLength(const KernelPlan& plan, int64_t count) {
  std::set<const Value*> params(plan.params.begin(), plan.params.end()), seen;
  std::vector<const Value*> pending(plan.roots.begin(), plan.roots.end());
  int64_t common = 0;
  while (!pending.empty()) {
    const Value* v = pending.back();
    pending.pop_back();
    if (!seen.insert(v).second || !v->type().isTensor()) continue;
    if (v->type().rank() > 0 && v->type().numElements() == count) common = std::gcd(common, v->type().shape().back());
    const Operation* op = params.count(v) ? nullptr : v->definingOp();
    if (op) pending.insert(pending.end(), op->operands().begin(), op->operands().end());
  }
  return common;
}

int64_t elementRowLength(const KernelPlan& plan, int64_t count, const Reindexing& reindexing) {
  std::span<const int64_t> shape = plan.roots[0]->type().shape();
  bool broadcasts = std::any_of(plan.params.begin(), plan.params.end(), [&](const Value* p) {
    return p->type().isTensor() && p->type().numElements() > 1 && p->type().numElements() < count;
  });
  // A window's reads are a row apart only along the last dim (a pool over
  // NHWC: channels run contiguously in and out).
  bool windows = std::ranges::any_of(plan.roots, [](const Value* root) {
    return root->definingOp() && root->definingOp()->name() == "stablehlo.reduce_window";
  });
  int64_t n = shape.empty() ? 0 : shape.back();
  // A reshape inside the kernel: a row of the output's last dim may hold
  // several rows of a value it reshapes (a conv's f32[32,4,4,32] plus a bias,
  // then reshaped to [32,512] for a dense layer), whose broadcast operands
  // the row then read at column % 32, element by element (6.3 us where the
  // same kernel without the reshape took 1.3). Rows as long as the greatest
  // common divisor of every full-size value's last dim lie inside one row of
  // each, so those reads are at the column again.
  if (!windows && !reindexing.any)
    if (int64_t common = commonRowLength(plan, count); common < n && common >= kMinElementRow) return common;
  if (broadcasts && !windows && !reindexing.any)
    for (size_t d = shape.size() - 1; n > 0 && n < kMinElementRow && d-- > 0;) n *= shape[d];
  if (n < kMinElementRow || n >= count) return 0;
  return broadcasts || windows || reindexing.any ? n : 0;
}

}  // namespace

KernelForm kernelFormOf(const KernelPlan& plan) {
  if (plan.roots.empty()) return ElementsForm{};
  int64_t count = 0;
  for (const Value* root : plan.roots) count = std::max(count, root->type().numElements());
  if (std::optional<RowsForm> rows = rowFormOf(plan)) {
    for (int64_t n : rows->rows) rows->numRows *= n;
    rows->count = count;
    rows->rowLength = rows->numRows == 0 ? 0 : count / rows->numRows;
    return std::move(*rows);
  }
  if (std::optional<DotForm> dot = dotFormOf(plan)) return *dot;
  if (std::vector<const Operation*> reduces = columnReducesOf(plan); !reduces.empty())
    return ColumnFoldForm{std::move(reduces)};
  if (std::optional<PadRowsForm> pad = padRowsOf(plan)) return std::move(*pad);
  if (std::optional<SlabsForm> slabs = slabsOf(plan)) return std::move(*slabs);

  ElementsForm elements{count};
  Reindexing reindexing = reindexingOf(plan);
  if ((elements.transpose = pureTransposeOf(plan))) return elements;
  elements.rowLength = elementRowLength(plan, count, reindexing);
  if (elements.rowLength == 0) return elements;
  elements.tiled = reindexing.movesLastDim;
  if (elements.tiled) return elements;
  std::vector<int64_t>& breaks = elements.columnBreaks;
  breaks = {0};
  breaks.insert(breaks.end(), reindexing.columnBreaks.begin(), reindexing.columnBreaks.end());
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  breaks.push_back(elements.rowLength);
  return elements;
}

int64_t kernelIterations(const KernelForm& form) {
  struct {
    int64_t operator()(const ElementsForm& f) const { return f.count; }
    int64_t operator()(const RowsForm& f) const { return f.numRows; }
    int64_t operator()(const DotForm& f) const { return f.batch * f.rowBlocks; }
    int64_t operator()(const ColumnFoldForm& f) const { return f.reduces.front()->result(0)->type().numElements(); }
    int64_t operator()(const PadRowsForm& f) const { return f.rows; }
    int64_t operator()(const SlabsForm& f) const { return f.outer; }
  } iterations;
  return std::visit(iterations, form);
}

int64_t dotMultiplyAdds(const KernelForm& form) {
  const DotForm* dot = std::get_if<DotForm>(&form);
  return dot ? dot->batch * dot->m * dot->n * dot->k : 0;
}

}  // namespace kiln::codegen
