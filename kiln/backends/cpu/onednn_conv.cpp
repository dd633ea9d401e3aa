// Convolution through oneDNN. oneDNN names a convolution's dims logically
// (src [N, C, spatial...], weights [O, I, spatial...] or [G, O/G, I,
// spatial...] with feature groups, dst [N, O, spatial...]); kiln's tensors
// are row-major in whatever dim order the dimension numbers give, so each
// operand is described to oneDNN by its logical dims with kiln's strides.
// The primitive itself picks its preferred (blocked) layouts; reorders
// created at compile time move data between the two on every run.
#include "kiln/backends/cpu/onednn_conv.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kiln/backends/cpu/emitter.h"
#include "kiln/backends/cpu/onednn_common.h"
#include "kiln/backends/cpu/openmp_threads.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"
#include "kiln/support/thread_pool.h"
#include "kiln/support/trace.h"

namespace kiln::cpu {
namespace {

using dims = dnnl::memory::dims;
using dt = dnnl::memory::data_type;

// The convolution's attributes, read and checked once.
struct ConvShape {
  int64_t inputBatch, inputFeature, kernelInputFeature, kernelOutputFeature, outputBatch, outputFeature;
  std::vector<int64_t> inputSpatial, kernelSpatial, outputSpatial;
  std::vector<int64_t> strides, padLow, padHigh, rhsDilation, lhsDilation;
  int64_t featureGroups = 1;
};

// The shape oneDNN can run, or why not.
Expected<ConvShape> readConv(const Operation& op) {
  if (op.name() != "stablehlo.convolution" || op.numOperands() != 2 || op.numResults() != 1)
    return unsupported(op, "through oneDNN");
  Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(), out = op.result()->type();
  std::optional<dt> type = dnnlType(lhs.elementType());
  if (!type || rhs.elementType() != lhs.elementType() || out.elementType() != lhs.elementType())
    return unsupported(op, "on " + lhs.str() + " x " + rhs.str() + " -> " + out.str() + " through oneDNN");
  Attribute dn = op.attr("dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return unsupported(op, "without dimension_numbers");
  ConvShape c{.inputBatch = intField(dn, "input_batch_dimension", 0),
              .inputFeature = intField(dn, "input_feature_dimension", 1),
              .kernelInputFeature = intField(dn, "kernel_input_feature_dimension", 0),
              .kernelOutputFeature = intField(dn, "kernel_output_feature_dimension", 1),
              .outputBatch = intField(dn, "output_batch_dimension", 0),
              .outputFeature = intField(dn, "output_feature_dimension", 1),
              .inputSpatial = intListField(dn, "input_spatial_dimensions"),
              .kernelSpatial = intListField(dn, "kernel_spatial_dimensions"),
              .outputSpatial = intListField(dn, "output_spatial_dimensions")};
  size_t n = c.inputSpatial.size();
  if (n < 1 || n > 3) return unsupported(op, "with " + std::to_string(n) + " spatial dims through oneDNN");
  c.strides = intListAttrOr(op, "window_strides", n, 1);
  c.rhsDilation = intListAttrOr(op, "rhs_dilation", n, 1);
  c.lhsDilation = intListAttrOr(op, "lhs_dilation", n, 1);
  for (size_t s = 0; s < n; ++s)
    if (c.lhsDilation[s] < 1 || (c.lhsDilation[s] > 1 && lhs.shape()[c.inputSpatial[s]] == 0))
      return unsupported(op, "with this lhs_dilation through oneDNN");
  for (int64_t r : intListAttrOr(op, "window_reversal", n, 0))
    if (r != 0) return unsupported(op, "with window_reversal through oneDNN");
  c.padLow.assign(n, 0);
  c.padHigh.assign(n, 0);
  if (interp::Tensor padding = interp::paddingAttr(op)) {  // [spatial dims, 2]: low, high
    if (padding.numElements() != int64_t(2 * n) || !padding.elementType().isInteger())
      return unsupported(op, "with this padding");
    for (size_t s = 0; s < n; ++s) {
      c.padLow[s] = padding.getInt(2 * s);
      c.padHigh[s] = padding.getInt(2 * s + 1);
      // The weight gradient of a strided convolution may pad its high side
      // negatively; backwardWeightsOf takes that.
      if (c.padLow[s] < 0) return unsupported(op, "with negative padding through oneDNN");
    }
  }
  Attribute fg = op.attr("feature_group_count"), bg = op.attr("batch_group_count");
  c.featureGroups = fg ? fg.intValue() : 1;
  if (bg && bg.intValue() != 1) return unsupported(op, "with batch_group_count through oneDNN");
  if (c.featureGroups < 1 || out.shape()[c.outputFeature] % c.featureGroups != 0)
    return unsupported(op, "with this feature_group_count");
  return c;
}

// Copies a tensor of `shape` (row-major, `elementBytes` each) with the dims
// in `reversed` reversed: a kernel's spatial dims, flipped.
void reverseDims(const uint8_t* in, uint8_t* out, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& reversed, size_t elementBytes) {
  // The dims after the last reversed one are copied as one block.
  size_t last = 0;
  for (int64_t d : reversed) last = std::max(last, size_t(d));
  size_t block = elementBytes;
  for (size_t d = last + 1; d < shape.size(); ++d) block *= size_t(shape[d]);
  std::vector<int64_t> outer(shape.begin(), shape.begin() + last + 1), index(last + 1, 0);
  std::vector<bool> flip(last + 1, false);
  for (int64_t d : reversed) flip[d] = true;
  if (std::any_of(shape.begin(), shape.end(), [](int64_t n) { return n == 0; })) return;
  for (size_t at = 0;; at += block) {
    size_t from = 0;
    for (size_t d = 0; d <= last; ++d) from = from * size_t(outer[d]) + size_t(flip[d] ? outer[d] - 1 - index[d] : index[d]);
    std::memcpy(out + at, in + from * block, block);
    size_t d = last + 1;
    while (d-- > 0 && ++index[d] == outer[d]) index[d] = 0;
    if (d == size_t(-1)) break;
  }
}

// The strides of descriptor `md` (a plain one: kiln's layout).
dims stridesOf(const dnnl::memory::desc& md) {
  const auto& strides = md.data.format_desc.blocking.strides;
  return dims(strides, strides + md.data.ndims);
}

// Descriptor `md` with dim `dim` cut to `extent` (the same strides): a tile.
dnnl::memory::desc cutDim(const dnnl::memory::desc& md, int dim, int64_t extent) {
  dims shape = md.dims();
  shape[size_t(dim)] = extent;
  return dnnl::memory::desc(shape, md.data_type(), stridesOf(md));
}

// The byte offset of index `at` along dim `dim` of plain descriptor `md`.
int64_t offsetAlong(const dnnl::memory::desc& md, int dim, int64_t at) {
  return at * stridesOf(md)[size_t(dim)] * int64_t(dnnl::memory::data_type_size(md.data_type()));
}

// One call of a oneDNN convolution primitive: kiln's layout of each operand
// (`userSrc`: the input as the primitive reads it, after any spreading), the
// primitive's, and the reorders between.
struct ConvCall {
  dnnl::memory::desc userSrc, userWeights, userDst;
  dnnl::memory::desc srcMd, weightsMd, dstMd, scratchpadMd;  // the primitive's
  dnnl::primitive primitive;  // a convolution_forward, deconvolution_forward or convolution_backward_weights
  std::optional<dnnl::reorder> toSrc, toWeights, fromDst;
  dnnl::memory::desc biasMd;  // with a bias
  std::string impl;           // oneDNN's name of the primitive's implementation
};

// Where each operand of a tile starts (bytes from the whole operand's start).
struct ConvTile {
  size_t call;  // into OnednnConvolution::tileCalls
  int64_t srcOffset = 0, weightsOffset = 0, dstOffset = 0, biasOffset = 0;
};

class OnednnConvolution final : public OnednnDot {
 public:
  ConvCall whole;  // the convolution in one call, on oneDNN's OpenMP team
  // The primitive's arguments that the rhs and the result are: a backward-
  // weights convolution reads the rhs as the gradient of its dst and writes
  // the gradient of its weights (see backwardWeightsOf).
  int weightsArg = DNNL_ARG_WEIGHTS, dstArg = DNNL_ARG_DST;
  // lhs_dilation (the input gradient of a strided convolution, a transposed
  // convolution) with window strides 1 is oneDNN's deconvolution, strided by
  // the dilation, with the kernel's spatial dims flipped (`flipWeights`, in
  // kiln's layout, before the weights' reorder) -- it never reads the
  // dilation's zeros. Otherwise the input (`compactSrc`) is first spread into
  // a zero-filled buffer of the dilated shape (`dilatedSrc`, plain layout,
  // the calls' userSrc) by a reorder into `dilatedView`, the same buffer seen
  // with the input's dims and the dilated strides times the dilation.
  std::optional<dnnl::reorder> dilate;
  dnnl::memory::desc compactSrc, dilatedSrc, dilatedView;
  bool flipWeights = false;
  bool backwardWeights = false;  // the primitive is a convolution_backward_weights
  std::vector<int64_t> weightsShape, weightsSpatial;  // kiln's weights dims, and which to flip
  size_t elementBytes = 4;
  // In an output fusion: which fusion operands are the convolution's, and
  // the bias of its epilogue (an operand, or constant bytes), if any.
  int srcInput = 0, weightsInput = 1, biasInput = -1;
  std::vector<uint8_t> biasBytes;
  // The result in tiles for runOn (empty: not split), each computed by a
  // single-threaded primitive of its shape (at most two: the regular one and
  // the remainder); see planConvTiles. `packWeightsOnce`: every tile reads
  // the whole weights in one packed layout, reordered once per run.
  // `sumTiles`: each tile computes the whole result over its part of the
  // batch (a weight gradient's sum), into a buffer of its own but the first,
  // and the buffers are then added into the result in tile order.
  std::vector<ConvCall> tileCalls;
  std::vector<ConvTile> tiles;
  bool packWeightsOnce = false, sumTiles = false;

  size_t numTiles() const override { return tiles.size(); }

  void run(const uint8_t* const* inputs, uint8_t* output) const override {
    Prepared in = prepare(inputs);
    execute(whole, in.src, in.weights, output, in.bias, nullptr);
  }

  void runOn(const uint8_t* const* inputs, uint8_t* output, ThreadPool& pool) const override {
    if (tiles.empty() || pool.numThreads() == 1) return OnednnDot::runOn(inputs, output, pool);
    OpenMpThreads one(1);  // the spreading and packing below stay on this thread
    Prepared in = prepare(inputs);
    std::optional<dnnl::memory> packed;
    if (packWeightsOnce && tileCalls[0].toWeights) {
      dnnl::stream stream(cpuEngine());
      packed.emplace(tileCalls[0].weightsMd, cpuEngine());
      dnnl::memory user(tileCalls[0].userWeights, cpuEngine(), const_cast<uint8_t*>(in.weights));
      tileCalls[0].toWeights->execute(stream, user, *packed);
      stream.wait();
    }
    std::vector<dnnl::memory> partials;
    if (sumTiles)
      for (size_t t = 1; t < tiles.size(); ++t) partials.emplace_back(whole.userDst, cpuEngine());
    // oneDNN throws what it cannot run; a worker thread must not, so the
    // first error is thrown again here, on the caller's.
    std::mutex failureMutex;
    std::exception_ptr failure;
    pool.parallelFor(int64_t(tiles.size()), [&](int64_t begin, int64_t end) {
      OpenMpThreads single(1);  // any other oneDNN call on this thread stays on it too
      for (int64_t t = begin; t < end; ++t) try {
        trace::Scope slice("library", [&] { return "tile " + std::to_string(t) + " of " + std::to_string(tiles.size()); });
        const ConvTile& tile = tiles[size_t(t)];
        uint8_t* into = sumTiles && t > 0 ? static_cast<uint8_t*>(partials[size_t(t) - 1].get_data_handle())
                                          : output + tile.dstOffset;
        execute(tileCalls[tile.call], in.src + tile.srcOffset, in.weights + tile.weightsOffset, into,
                in.bias ? in.bias + tile.biasOffset : nullptr, packed ? &*packed : nullptr);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = std::current_exception();
      }
    }, int(tiles.size()));
    if (failure) std::rethrow_exception(failure);
    if (!sumTiles) return;
    // f32 only (see compileBackwardWeights); a weight gradient is small.
    auto* sum = reinterpret_cast<float*>(output);
    size_t count = whole.userDst.get_size() / sizeof(float);
    for (const dnnl::memory& partial : partials) {
      const auto* part = static_cast<const float*>(partial.get_data_handle());
      for (size_t i = 0; i < count; ++i) sum[i] += part[i];
    }
  }

 private:
  // The operands as the calls read them: the input spread out where it is
  // lhs-dilated, the weights flipped where a deconvolution reads them.
  struct Prepared {
    const uint8_t* src;
    const uint8_t* weights;
    const uint8_t* bias;
    dnnl::memory dilated;
    std::vector<uint8_t> flipped;
  };

  Prepared prepare(const uint8_t* const* inputs) const {
    Prepared in{inputs[srcInput], inputs[weightsInput], nullptr, {}, {}};
    if (biasInput >= 0) in.bias = inputs[biasInput];
    if (!biasBytes.empty()) in.bias = biasBytes.data();
    if (dilate) {
      dnnl::engine& engine = cpuEngine();
      dnnl::stream stream(engine);
      in.dilated = dnnl::memory(dilatedSrc, engine);
      std::memset(in.dilated.get_data_handle(), 0, dilatedSrc.get_size());
      dnnl::memory compact(compactSrc, engine, const_cast<uint8_t*>(in.src));
      dnnl::memory view(dilatedView, engine, in.dilated.get_data_handle());
      dilate->execute(stream, compact, view);
      stream.wait();
      in.src = static_cast<const uint8_t*>(in.dilated.get_data_handle());
    }
    if (flipWeights) {
      in.flipped.resize(whole.userWeights.get_size());
      reverseDims(in.weights, in.flipped.data(), weightsShape, weightsSpatial, elementBytes);
      in.weights = in.flipped.data();
    }
    return in;
  }

  // One call: `packedWeights`, where given, already in the call's layout.
  void execute(const ConvCall& call, const uint8_t* srcData, const uint8_t* weightsData, uint8_t* output,
               const uint8_t* bias, const dnnl::memory* packedWeights) const {
    dnnl::engine& engine = cpuEngine();
    dnnl::stream stream(engine);
    // Each run has its own temporaries, so runs on several threads never share one.
    auto place = [&](const dnnl::memory::desc& user, const dnnl::memory::desc& wanted,
                     const std::optional<dnnl::reorder>& reorder, const uint8_t* data) {
      dnnl::memory userMemory(user, engine, const_cast<uint8_t*>(data));
      if (!reorder) return userMemory;
      dnnl::memory packed(wanted, engine);
      reorder->execute(stream, userMemory, packed);
      return packed;
    };
    dnnl::memory src = place(call.userSrc, call.srcMd, call.toSrc, srcData);
    dnnl::memory weights = packedWeights ? *packedWeights : place(call.userWeights, call.weightsMd, call.toWeights, weightsData);
    dnnl::memory userDstMemory(call.userDst, engine, output);
    dnnl::memory dst = call.fromDst ? dnnl::memory(call.dstMd, engine) : userDstMemory;
    interp::Tensor scratchpad;
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src},
                                                  {weightsArg, weights},
                                                  {dstArg, dst},
                                                  {DNNL_ARG_SCRATCHPAD, scratchpadFor(call.scratchpadMd, scratchpad)}};
    if (bias) args.emplace(DNNL_ARG_BIAS, dnnl::memory(call.biasMd, engine, const_cast<uint8_t*>(bias)));
    call.primitive.execute(stream, args);
    if (call.fromDst) call.fromDst->execute(stream, dst, userDstMemory);
    stream.wait();
  }
};

// Which dim of each operand a tiling cuts (-1: each tile reads it whole).
// A bias is cut with the output features. A result not cut (dst -1) is a
// sum over the batch, which the src and weights (a weight gradient's
// diffDst) are cut by: each tile computes all of it over its part of the
// batch, and the tiles' results are added (OnednnConvolution::sumTiles).
struct TileAxis {
  int src, weights, dst, bias;
  // The extent the tiling cuts.
  int64_t extentOf(const ConvCall& whole) const {
    return dst >= 0 ? whole.userDst.dims()[size_t(dst)] : whole.userSrc.dims()[size_t(src)];
  }
};

// Multiply-adds from which a convolution split into tiles gets two per
// thread rather than one (as a dot's, kTwoTilesPerThreadWork there).
constexpr int64_t kTwoConvTilesPerThreadWork = int64_t{1} << 24;

// Splits `conv`'s result along `axis` into `parts` tiles (of `multiple`
// elements of the cut dim each, but the last), each made by `make` (a
// single-threaded call of the same kind, or nothing where oneDNN offers
// only its reference code for it: then no tiles at all).
template <typename Make>
void cutIntoTiles(OnednnConvolution& conv, const TileAxis& axis, int64_t parts, int64_t multiple, Make make) {
  const ConvCall& whole = conv.whole;
  int64_t extent = axis.extentOf(whole);
  int64_t size = ((extent + parts - 1) / parts + multiple - 1) / multiple * multiple;
  if (size >= extent) return;
  OpenMpThreads one(1);  // oneDNN sizes a primitive's team when it is made
  std::vector<ConvCall> calls;
  std::vector<ConvTile> tiles;
  std::vector<int64_t> sizes;
  try {
    for (int64_t at = 0; at < extent; at += size) {
      int64_t n = std::min(size, extent - at);
      ConvTile tile;
      auto found = std::find(sizes.begin(), sizes.end(), n);
      tile.call = size_t(found - sizes.begin());
      if (found == sizes.end()) {
        auto cut = [&](const dnnl::memory::desc& md, int dim) { return dim < 0 ? md : cutDim(md, dim, n); };
        std::optional<ConvCall> call = make(cut(whole.userSrc, axis.src), cut(whole.userWeights, axis.weights),
                                            cut(whole.userDst, axis.dst),
                                            whole.biasMd.is_zero() ? whole.biasMd : cut(whole.biasMd, axis.bias));
        if (!call) return;
        calls.push_back(std::move(*call));
        sizes.push_back(n);
      }
      if (axis.src >= 0) tile.srcOffset = offsetAlong(whole.userSrc, axis.src, at);
      if (axis.weights >= 0) tile.weightsOffset = offsetAlong(whole.userWeights, axis.weights, at);
      if (axis.dst >= 0) tile.dstOffset = offsetAlong(whole.userDst, axis.dst, at);
      if (axis.bias >= 0 && !whole.biasMd.is_zero()) tile.biasOffset = offsetAlong(whole.biasMd, axis.bias, at);
      tiles.push_back(tile);
    }
  } catch (const dnnl::error&) {
    return;  // no primitive for a tile: the convolution runs whole
  }
  conv.packWeightsOnce =
      axis.weights < 0 && std::all_of(calls.begin(), calls.end(), [&](const ConvCall& c) {
        return c.weightsMd == calls[0].weightsMd && c.userWeights == calls[0].userWeights;
      });
  conv.sumTiles = axis.dst < 0;
  conv.tileCalls = std::move(calls);
  conv.tiles = std::move(tiles);
}

// The tilings to try for `threads` threads, in order: each cuts a dim whose
// extent reaches `parts` tiles of at least `minimum` (rounded to
// `multiple`). The first that makes tiles wins.
struct TileChoice {
  TileAxis axis;
  int64_t minimum, multiple;
};

template <typename Make>
void planConvTiles(OnednnConvolution& conv, int threads, int64_t multiplyAdds,
                   const std::vector<TileChoice>& choices, Make make) {
  if (threads <= 1) return;
  for (int64_t parts : {multiplyAdds >= kTwoConvTilesPerThreadWork ? 2 * int64_t(threads) : int64_t(threads),
                        int64_t(threads)})
    for (const TileChoice& choice : choices) {
      if (choice.axis.extentOf(conv.whole) < parts * choice.minimum) continue;
      cutIntoTiles(conv, choice.axis, parts, choice.multiple, make);
      if (!conv.tiles.empty()) return;
    }
}

// The convolution `op` computes: itself, or the one convolution of an
// output fusion (and no dot); null otherwise.
const Operation* convolutionOf(const Operation& op) {
  if (op.name() == "stablehlo.convolution") return &op;
  Attribute kind = op.attr("kind");
  if (op.name() != "kiln.fusion" || !kind || kind.stringValue() != "output" || op.numResults() != 1) return nullptr;
  const Operation* conv = nullptr;
  for (const Operation& inner : op.region(0).front()) {
    if (inner.name() == "stablehlo.dot_general" || inner.name() == "stablehlo.dot") return nullptr;
    if (inner.name() == "stablehlo.convolution") {
      if (conv) return nullptr;
      conv = &inner;
    }
  }
  return conv;
}

// An output fusion's epilogue as the convolution's bias and post-ops: a
// per-output-feature vector added first (the bias), maximum with 0 (relu),
// tanh/logistic/exponential/abs/sqrt, and one add/subtract/multiply by a
// splat constant (oneDNN 2.6 applies a chain's linear post-ops with the
// first one's factors; see onednn_dot.cpp). Anything else runs the fusion op
// by op.
Status mapEpilogue(const Operation& fusion, const Operation& conv, const ConvShape& c, OnednnConvolution& out,
                   dnnl::post_ops& postOps, std::optional<dnnl::memory::desc>& bias) {
  const Block& body = fusion.region(0).front();
  // A vector along the output feature dim: broadcast_in_dim of a rank-1 f32
  // fusion operand or non-splat constant.
  auto featureVector = [&](const Value* v) -> const Value* {
    const Operation* def = v->definingOp();
    if (!def || def->name() != "stablehlo.broadcast_in_dim") return nullptr;
    const Value* vector = def->operand(0);
    std::optional<std::vector<int64_t>> dims = def->attr("broadcast_dimensions").asIntList();
    if (vector->type().rank() != 1 || !dims || *dims != std::vector<int64_t>{c.outputFeature} ||
        vector->type().elementType().kind() != TypeKind::F32)
      return nullptr;
    if (vector->isBlockArgument() && vector->ownerBlock() == &body) return vector;
    const Operation* constant = vector->definingOp();
    if (constant && constant->name() == "stablehlo.constant" && !constant->attr("value").denseIsSplat()) return vector;
    return nullptr;
  };
  bool linear = false;
  const Value* chain = conv.result();
  const Value* root = body.terminator()->operand(0);
  while (chain != root) {
    if (chain->uses().size() != 1) return unsupported(conv, "whose result feeds several fusion ops");
    const Operation& op = *chain->uses().begin()->user;
    const std::string& name = op.name();
    if (op.numResults() != 1 || op.result()->type() != chain->type())
      return unsupported(op, "in a convolution epilogue");
    if (std::optional<dnnl::algorithm> eltwise = eltwisePostOp(name)) {
      postOps.append_eltwise(1.0f, *eltwise, 0, 0);
    } else if (op.numOperands() == 2 && (name == "stablehlo.maximum" || name == "stablehlo.add" ||
                                         name == "stablehlo.multiply" ||
                                         (name == "stablehlo.subtract" && op.operand(0) == chain))) {
      const Value* other = op.operand(op.operand(0) == chain ? 1 : 0);
      std::optional<float> k = splatValue(other);
      const Value* vector = featureVector(other);
      if (name == "stablehlo.maximum" && k && *k == 0.0f) {
        postOps.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0, 0);
      } else if (name == "stablehlo.add" && vector && !bias && postOps.len() == 0) {
        int64_t features = vector->type().shape()[0];
        bias = dnnl::memory::desc(dims{features}, dt::f32, dnnl::memory::format_tag::a);
        if (vector->isBlockArgument()) {
          out.biasInput = int(vector->index());
        } else {
          std::span<const uint8_t> data = vector->definingOp()->attr("value").denseData();
          out.biasBytes.assign(data.begin(), data.end());
        }
      } else if (k && name != "stablehlo.maximum" && !linear) {
        linear = true;
        float alpha = name == "stablehlo.multiply" ? *k : 1.0f;
        float beta = name == "stablehlo.add" ? *k : name == "stablehlo.subtract" ? -*k : 0.0f;
        postOps.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, alpha, beta);
      } else {
        return unsupported(op, "in a convolution epilogue");
      }
    } else {
      return unsupported(op, "in a convolution epilogue");
    }
    chain = op.result();
  }
  return Status::ok();
}

// A convolution in the shape of a weight gradient -- its kernel spans more
// positions than its output has -- as oneDNN's backward-weights
// convolution, whose kernels are made for that reduction (over the batch and
// every output position); as a forward convolution with a 56x56 "kernel" it
// ran 1.2-1.4x slower. Convolution
//   out[b, f, k] = sum_{i, t} lhs[b, i, k S + t D - low] rhs[i, f, t]
// (window stride S, rhs dilation D) is the weights gradient
//   dW[co, ci, k] = sum_{n, o} src[n, ci, o s + k d - pL] diffDst[n, co, o]
// of the forward convolution with stride s = D, dilation d = S, pL = low, with
// src = lhs read with its feature dim as the batch n and its batch dim as the
// features ci, diffDst = rhs (kernel input feature n, output feature co) and
// dW = out (output feature co, output batch ci): JAX's transpose of a
// convolution's kernel, whose dimension numbers swap batch and feature, maps
// back onto the convolution it came from. oneDNN derives the forward output
// size from its padding, so the src is described up to the last position
// the sums read, (O - 1) s + (K - 1) d - pL, padded beyond its end (pR) or
// cut short of it (the high padding of `op`, even a negative one, only sized
// its result).
struct BackwardWeights {
  dims src, srcStrides, diffDst, diffDstStrides, diffWeights, diffWeightsStrides;
  dims strides, dilates, padL, padR;
};

std::optional<BackwardWeights> backwardWeightsOf(const Operation& op, const ConvShape& c) {
  if (c.featureGroups != 1) return std::nullopt;
  Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(), out = op.result()->type();
  int64_t kernelPositions = 1, outputPositions = 1;
  for (size_t s = 0; s < c.inputSpatial.size(); ++s) {
    if (c.lhsDilation[s] != 1) return std::nullopt;
    kernelPositions *= rhs.shape()[c.kernelSpatial[s]];
    outputPositions *= out.shape()[c.outputSpatial[s]];
  }
  if (kernelPositions <= outputPositions || lhs.numElements() == 0 || rhs.numElements() == 0)
    return std::nullopt;
  std::vector<int64_t> ls = rowMajorStrides(lhs.shape()), rs = rowMajorStrides(rhs.shape()),
                       os = rowMajorStrides(out.shape());
  BackwardWeights w{.src = {lhs.shape()[c.inputFeature], lhs.shape()[c.inputBatch]},
                    .srcStrides = {ls[c.inputFeature], ls[c.inputBatch]},
                    .diffDst = {rhs.shape()[c.kernelInputFeature], rhs.shape()[c.kernelOutputFeature]},
                    .diffDstStrides = {rs[c.kernelInputFeature], rs[c.kernelOutputFeature]},
                    .diffWeights = {out.shape()[c.outputFeature], out.shape()[c.outputBatch]},
                    .diffWeightsStrides = {os[c.outputFeature], os[c.outputBatch]}};
  for (size_t s = 0; s < c.inputSpatial.size(); ++s) {
    int64_t stride = c.rhsDilation[s], dilation = c.strides[s];
    int64_t outputs = rhs.shape()[c.kernelSpatial[s]], taps = out.shape()[c.outputSpatial[s]];
    int64_t reach = (outputs - 1) * stride + (taps - 1) * dilation + 1 - c.padLow[s];  // src positions read
    int64_t extent = lhs.shape()[c.inputSpatial[s]];
    if (reach < 1) return std::nullopt;
    w.src.push_back(std::min(extent, reach));
    w.srcStrides.push_back(ls[c.inputSpatial[s]]);
    w.diffDst.push_back(outputs);
    w.diffDstStrides.push_back(rs[c.kernelSpatial[s]]);
    w.diffWeights.push_back(taps);
    w.diffWeightsStrides.push_back(os[c.outputSpatial[s]]);
    w.strides.push_back(stride);
    w.dilates.push_back(dilation - 1);  // oneDNN counts the holes
    w.padL.push_back(c.padLow[s]);
    w.padR.push_back(std::max<int64_t>(0, reach - extent));
  }
  return w;
}

// A plain layout of `md`'s dims in the same order of strides, dense (a
// channels-last tile cut by its channels, copied out of the whole).
dnnl::memory::desc denseLike(const dnnl::memory::desc& md) {
  dims shape = md.dims(), strides = stridesOf(md), dense(shape.size());
  std::vector<size_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] > strides[b]; });
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    dense[order[i]] = stride;
    stride *= shape[order[i]];
  }
  return dnnl::memory::desc(shape, md.data_type(), dense);
}

// One call of the backward-weights convolution `w` describes, on the given
// descriptors of kiln's layouts (the whole operands or a tile's), its src
// and diffDst read as `src` and `diffDst` say: the user's descriptor (in
// place), another plain one or format `any` (the primitive's choice),
// reordered into; nothing where oneDNN has only its reference code (or,
// reading a plain layout, only its im2col-and-gemm code) for it.
std::optional<ConvCall> backwardWeightsCall(const BackwardWeights& w, const dnnl::memory::desc& src,
                                            const dnnl::memory::desc& diffDst, const dnnl::memory::desc& userSrc,
                                            const dnnl::memory::desc& userDiffDst,
                                            const dnnl::memory::desc& userDiffWeights) {
  auto any = [](const dnnl::memory::desc& md) {
    return dnnl::memory::desc(md.dims(), md.data_type(), dnnl::memory::format_tag::any);
  };
  auto reorder = [](const dnnl::memory::desc& from, const dnnl::memory::desc& to) -> std::optional<dnnl::reorder> {
    if (from == to) return std::nullopt;
    return dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
  };
  ConvCall call{.userSrc = userSrc, .userWeights = userDiffDst, .userDst = userDiffWeights};
  dnnl::convolution_forward::primitive_desc hint(
      dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, src,
                                      any(userDiffWeights), diffDst, w.strides, w.dilates, w.padL, w.padR),
      cpuEngine());
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per run: runs may be concurrent
  dnnl::convolution_backward_weights::primitive_desc pd(
      dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src, any(userDiffWeights),
                                               diffDst, w.strides, w.dilates, w.padL, w.padR),
      attr, cpuEngine(), hint);
  std::string_view impl = pd.impl_info_str();
  bool plain = src.data.format_kind != dnnl_format_kind_any || diffDst.data.format_kind != dnnl_format_kind_any;
  if (impl.find("ref") != std::string_view::npos || (plain && impl.find("gemm") != std::string_view::npos))
    return std::nullopt;
  call.impl = impl;
  call.srcMd = pd.src_desc();
  call.weightsMd = pd.diff_dst_desc();
  call.dstMd = pd.diff_weights_desc();
  call.scratchpadMd = pd.scratchpad_desc();
  call.primitive = dnnl::convolution_backward_weights(pd);
  call.toSrc = reorder(userSrc, call.srcMd);
  call.toWeights = reorder(userDiffDst, call.weightsMd);
  call.fromDst = reorder(call.dstMd, userDiffWeights);
  return call;
}

// `op` as a backward-weights convolution (see backwardWeightsOf), or null
// where oneDNN has no such primitive for it or only its reference code.
// First with the src and diffDst in kiln's layouts: oneDNN's direct kernels
// read channels-last data in place (no reorders of the two large operands:
// 19.8 against 21.2 ms on the bench's 8x56x56x64 3x3 weight gradient);
// other layouts only its im2col-and-gemm code takes, 1.7x slower than
// reordering them into the direct kernels' blocked layouts, which is the
// second try.
//
// With several threads the result is split by its output features (the
// diffDst's channels), else by its input features (the src's), into tiles
// of whole multiples of 16 (a vector of f32) that single-threaded
// primitives compute on the pool's threads: each element of the result is
// the same sum over the batch and the positions as on one thread. A
// channels-last operand cut by its channels is no longer dense, which
// oneDNN's direct kernels do not read in place: such a tile's part is
// copied dense. Where neither has 16 per thread (a small layer's 16
// features), an f32 gradient is split by the batch it sums over, each tile
// summing its images into a result of its own, added up after: the sums
// then round differently from one thread's (by the tile count, which the
// thread count sets).
std::unique_ptr<OnednnConvolution> compileBackwardWeights(const BackwardWeights& w, dt type, int threads,
                                                          int64_t multiplyAdds) {
  dnnl::memory::desc userSrc(w.src, type, w.srcStrides), userDiffDst(w.diffDst, type, w.diffDstStrides),
      userDiffWeights(w.diffWeights, type, w.diffWeightsStrides);
  auto any = [](const dnnl::memory::desc& md) {
    return dnnl::memory::desc(md.dims(), md.data_type(), dnnl::memory::format_tag::any);
  };
  for (bool inPlace : {true, false}) {
    auto conv = std::make_unique<OnednnConvolution>();
    try {
      std::optional<ConvCall> call =
          inPlace ? backwardWeightsCall(w, userSrc, userDiffDst, userSrc, userDiffDst, userDiffWeights)
                  : backwardWeightsCall(w, any(userSrc), any(userDiffDst), userSrc, userDiffDst, userDiffWeights);
      if (!call) continue;
      conv->whole = std::move(*call);
    } catch (const dnnl::error&) {
      continue;  // no such primitive for these layouts
    }
    conv->weightsArg = DNNL_ARG_DIFF_DST;
    conv->dstArg = DNNL_ARG_DIFF_WEIGHTS;
    conv->backwardWeights = true;
    // src [N, ci, ...], diffDst [N, co, ...], diffWeights [co, ci, ...].
    std::vector<TileChoice> choices = {{{.src = -1, .weights = 1, .dst = 0, .bias = -1}, 16, 16},
                                       {{.src = 1, .weights = -1, .dst = 1, .bias = -1}, 16, 16}};
    if (type == dt::f32) choices.push_back({{.src = 0, .weights = 0, .dst = -1, .bias = -1}, 1, 1});
    planConvTiles(*conv, threads, multiplyAdds, choices,
                  [&](const dnnl::memory::desc& src, const dnnl::memory::desc& diffDst,
                      const dnnl::memory::desc& diffWeights, const dnnl::memory::desc&) -> std::optional<ConvCall> {
                    // In place, the cut operand is copied dense, else as the whole.
                    auto read = [&](const dnnl::memory::desc& md, const dnnl::memory::desc& whole) {
                      return !inPlace ? any(md) : md.dims() == whole.dims() ? md : denseLike(md);
                    };
                    return backwardWeightsCall(w, read(src, userSrc), read(diffDst, userDiffDst), src, diffDst,
                                               diffWeights);
                  });
    return conv;
  }
  return nullptr;
}

// Whether oneDNN's forward convolution (or deconvolution) takes `c`'s padding.
bool forwardPadding(const ConvShape& c) {
  return std::all_of(c.padHigh.begin(), c.padHigh.end(), [](int64_t p) { return p >= 0; });
}

}  // namespace

bool isOnednnConvolution(const Operation& op) {
  const Operation* conv = convolutionOf(op);
  if (!conv) return false;
  Expected<ConvShape> c = readConv(*conv);
  return c && (forwardPadding(*c) || (conv == &op && backwardWeightsOf(*conv, *c)));
}

bool runsAsBackwardWeights(const OnednnDot& compiled) {
  auto* conv = dynamic_cast<const OnednnConvolution*>(&compiled);
  return conv && conv->backwardWeights;
}

Expected<std::unique_ptr<const OnednnDot>> compileOnednnConvolution(const Operation& fused, int threads) {
  OpenMpThreads team(threads);  // the team the primitives are made for
  const Operation* found = convolutionOf(fused);
  if (!found) return unsupported(fused, "through oneDNN");
  const Operation& op = *found;
  KILN_ASSIGN_OR_RETURN(ConvShape c, readConv(op));
  Type lhs = op.operand(0)->type(), rhs = op.operand(1)->type(), out = op.result()->type();
  dt type = *dnnlType(lhs.elementType());
  // Each output element sums (kernel elements / output features) products.
  int64_t multiplyAdds = out.numElements() * (rhs.numElements() / std::max<int64_t>(1, rhs.shape()[c.kernelOutputFeature]));
  if (std::optional<BackwardWeights> w = &op == &fused ? backwardWeightsOf(op, c) : std::nullopt)
    if (std::unique_ptr<OnednnConvolution> conv = compileBackwardWeights(*w, type, threads, multiplyAdds))
      return std::unique_ptr<const OnednnDot>(std::move(conv));
  if (!forwardPadding(c)) return unsupported(op, "with negative padding through oneDNN");
  std::vector<int64_t> ls = rowMajorStrides(lhs.shape()), rs = rowMajorStrides(rhs.shape()),
                       os = rowMajorStrides(out.shape());
  auto logical = [](Type t, const std::vector<int64_t>& strides, std::vector<int64_t> order) {
    dims shape, stride;
    for (int64_t d : order) {
      shape.push_back(t.shape()[d]);
      stride.push_back(strides[d]);
    }
    return std::make_pair(shape, stride);
  };
  auto withSpatial = [](std::vector<int64_t> first, const std::vector<int64_t>& spatial) {
    first.insert(first.end(), spatial.begin(), spatial.end());
    return first;
  };

  auto conv = std::make_unique<OnednnConvolution>();
  dnnl::post_ops postOps;
  std::optional<dnnl::memory::desc> bias;
  if (&op != &fused) {
    // The convolution's operands must be fusion parameters (run() reads them directly).
    const Block& body = fused.region(0).front();
    for (int i = 0; i < 2; ++i)
      if (!op.operand(i)->isBlockArgument() || op.operand(i)->ownerBlock() != &body)
        return unsupported(op, "on a value computed inside its fusion");
    if (out.elementType().kind() != TypeKind::F32) return unsupported(op, "with an epilogue on " + out.str());
    conv->srcInput = int(op.operand(0)->index());
    conv->weightsInput = int(op.operand(1)->index());
    KILN_RETURN_IF_ERROR(mapEpilogue(fused, op, c, *conv, postOps, bias));
  }
  auto [srcDims, srcStrides] = logical(lhs, ls, withSpatial({c.inputBatch, c.inputFeature}, c.inputSpatial));
  auto [dstDims, dstStrides] = logical(out, os, withSpatial({c.outputBatch, c.outputFeature}, c.outputSpatial));
  auto [weiDims, weiStrides] =
      logical(rhs, rs, withSpatial({c.kernelOutputFeature, c.kernelInputFeature}, c.kernelSpatial));
  if (c.featureGroups > 1) {
    // [O, I, ...] becomes [G, O/G, I, ...]: output feature o is group o / (O/G).
    int64_t perGroup = weiDims[0] / c.featureGroups;
    weiDims.insert(weiDims.begin(), c.featureGroups);
    weiDims[1] = perGroup;
    weiStrides.insert(weiStrides.begin(), perGroup * weiStrides[0]);
  }
  dnnl::memory::desc userSrc(srcDims, type, srcStrides), userWeights(weiDims, type, weiStrides),
      userDst(dstDims, type, dstStrides);
  bool dilating = false, unitStrides = true;
  for (int64_t d : c.lhsDilation) dilating |= d != 1;
  for (int64_t d : c.strides) unitStrides &= d == 1;
  // As a deconvolution (see OnednnConvolution): output o of the dilated
  // convolution sums input i at kernel tap k where o = i * dilation - k * r +
  // low; with the kernel flipped, k' = K - 1 - k, that is the deconvolution's
  // o = i * stride + k' * r - padL with padL = (K - 1) r - low (and padR =
  // (K - 1) r - high), which oneDNN needs non-negative.
  dims deconvPadL, deconvPadR;
  bool deconvolution = dilating && unitStrides;
  for (size_t s = 0; s < c.inputSpatial.size() && deconvolution; ++s) {
    int64_t reach = (rhs.shape()[c.kernelSpatial[s]] - 1) * c.rhsDilation[s];
    deconvPadL.push_back(reach - c.padLow[s]);
    deconvPadR.push_back(reach - c.padHigh[s]);
    deconvolution = deconvPadL.back() >= 0 && deconvPadR.back() >= 0;
  }
  dims dilates;
  for (int64_t d : c.rhsDilation) dilates.push_back(d - 1);  // oneDNN counts the holes
  dims lhsDilation(c.lhsDilation.begin(), c.lhsDilation.end());
  dims strides(c.strides.begin(), c.strides.end()), padL(c.padLow.begin(), c.padLow.end()),
      padR(c.padHigh.begin(), c.padHigh.end());
  dnnl::primitive_attr attr;
  try {
    attr.set_post_ops(postOps);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per run: runs may be concurrent
  } catch (const dnnl::error& e) {
    return unsupported(op, std::string("as a oneDNN convolution (") + e.what() + ")");
  }
  // One call on descriptors of kiln's layouts (the whole operands or a
  // tile's) as a deconvolution or a convolution; throws where oneDNN has none.
  auto makeCall = [&](bool asDeconvolution, const dnnl::memory::desc& src, const dnnl::memory::desc& weights,
                      const dnnl::memory::desc& dst, const dnnl::memory::desc& biasMd) {
    auto any = [](const dnnl::memory::desc& md) {
      return dnnl::memory::desc(md.dims(), md.data_type(), dnnl::memory::format_tag::any);
    };
    auto reorder = [](const dnnl::memory::desc& from, const dnnl::memory::desc& to) -> std::optional<dnnl::reorder> {
      if (from == to) return std::nullopt;
      return dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
    };
    ConvCall call{.userSrc = src, .userWeights = weights, .userDst = dst, .biasMd = biasMd};
    auto keep = [&](const auto& pd) {
      call.srcMd = pd.src_desc();
      call.weightsMd = pd.weights_desc();
      call.dstMd = pd.dst_desc();
      call.scratchpadMd = pd.scratchpad_desc();
    };
    bool withBias = !biasMd.is_zero();
    if (asDeconvolution) {
      auto desc = withBias ? dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                               dnnl::algorithm::deconvolution_direct, any(src),
                                                               any(weights), biasMd, any(dst), lhsDilation, dilates,
                                                               deconvPadL, deconvPadR)
                           : dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                               dnnl::algorithm::deconvolution_direct, any(src),
                                                               any(weights), any(dst), lhsDilation, dilates,
                                                               deconvPadL, deconvPadR);
      dnnl::deconvolution_forward::primitive_desc pd(desc, attr, cpuEngine());
      keep(pd);
      call.impl = pd.impl_info_str();
      call.primitive = dnnl::deconvolution_forward(pd);
    } else {
      auto desc = withBias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                             dnnl::algorithm::convolution_direct, any(src),
                                                             any(weights), biasMd, any(dst), strides, dilates, padL, padR)
                           : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                             dnnl::algorithm::convolution_direct, any(src),
                                                             any(weights), any(dst), strides, dilates, padL, padR);
      dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
      keep(pd);
      call.impl = pd.impl_info_str();
      call.primitive = dnnl::convolution_forward(pd);
    }
    call.toSrc = reorder(src, call.srcMd);
    call.toWeights = reorder(weights, call.weightsMd);
    call.fromDst = reorder(call.dstMd, dst);
    return call;
  };
  dnnl::memory::desc biasMd = bias ? *bias : dnnl::memory::desc();
  bool asDeconvolution = false;
  if (deconvolution) {
    try {
      conv->whole = makeCall(true, userSrc, userWeights, userDst, biasMd);
      asDeconvolution = true;
    } catch (const dnnl::error&) {
      // No deconvolution for this shape (oneDNN 2.6 has none with a dilated
      // kernel): the dilated input is spread out instead.
    }
  }
  if (asDeconvolution) {
    conv->flipWeights = true;
    conv->weightsShape.assign(rhs.shape().begin(), rhs.shape().end());
    conv->weightsSpatial = c.kernelSpatial;
    conv->elementBytes = rhs.elementType().storageBytes();
  } else {
    dnnl::memory::desc callSrc = userSrc;
    if (dilating) {
      dims dilatedDims = srcDims;
      for (size_t s = 0; s < c.inputSpatial.size(); ++s) dilatedDims[2 + s] = (srcDims[2 + s] - 1) * c.lhsDilation[s] + 1;
      // Strides of a buffer with spatial extents size * dilation (a little
      // longer than the dilated extents), so that oneDNN sees the view's
      // dims as non-overlapping.
      dims extents = srcDims;
      for (size_t s = 0; s < c.inputSpatial.size(); ++s) extents[2 + s] *= c.lhsDilation[s];
      dims plain(extents.size(), 1), spread(extents.size());
      for (size_t i = extents.size() - 1; i-- > 0;) plain[i] = plain[i + 1] * extents[i + 1];
      for (size_t i = 0; i < plain.size(); ++i) spread[i] = plain[i] * (i >= 2 ? c.lhsDilation[i - 2] : 1);
      try {
        conv->compactSrc = userSrc;
        conv->dilatedSrc = dnnl::memory::desc(dilatedDims, type, plain);
        conv->dilatedView = dnnl::memory::desc(srcDims, type, spread);
        conv->dilate = dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), userSrc, cpuEngine(), conv->dilatedView));
      } catch (const dnnl::error& e) {
        return unsupported(op, std::string("with this lhs_dilation through oneDNN (") + e.what() + ")");
      }
      callSrc = conv->dilatedSrc;
    }
    try {
      conv->whole = makeCall(false, callSrc, userWeights, userDst, biasMd);
    } catch (const dnnl::error& e) {
      return unsupported(op, std::string("as a oneDNN convolution (") + e.what() + ")");
    }
  }
  // Tiles of the batch (src [N, C, ...], dst [N, O, ...]), else, ungrouped,
  // of the output features (weights [O, I, ...], dst's dim 1, the bias) in
  // multiples of 16: each output element is the same sum as on one thread.
  std::vector<TileChoice> choices = {{{.src = 0, .weights = -1, .dst = 0, .bias = -1}, 1, 1}};
  if (c.featureGroups == 1) choices.push_back({{.src = -1, .weights = 0, .dst = 1, .bias = 0}, 16, 16});
  planConvTiles(*conv, threads, multiplyAdds, choices,
                [&](const dnnl::memory::desc& src, const dnnl::memory::desc& weights, const dnnl::memory::desc& dst,
                    const dnnl::memory::desc& tileBias) -> std::optional<ConvCall> {
                  ConvCall call = makeCall(asDeconvolution, src, weights, dst, tileBias);
                  if (call.impl.find("ref") != std::string::npos) return std::nullopt;
                  return call;
                });
  return std::unique_ptr<const OnednnDot>(std::move(conv));
}

}  // namespace kiln::cpu
