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

class OnednnConvolution final : public OnednnDot {
 public:
  // Kiln's layout of each operand, the primitive's, and the reorders between.
  dnnl::memory::desc userSrc, userWeights, userDst;
  dnnl::memory::desc srcMd, weightsMd, dstMd, scratchpadMd;  // the primitive's
  dnnl::primitive primitive;  // a convolution_forward, deconvolution_forward or convolution_backward_weights
  // The primitive's arguments that the rhs and the result are: a backward-
  // weights convolution reads the rhs as the gradient of its dst and writes
  // the gradient of its weights (see backwardWeightsOf).
  int weightsArg = DNNL_ARG_WEIGHTS, dstArg = DNNL_ARG_DST;
  std::optional<dnnl::reorder> toSrc, toWeights, fromDst;
  // lhs_dilation (the input gradient of a strided convolution, a transposed
  // convolution) with window strides 1 is oneDNN's deconvolution, strided by
  // the dilation, with the kernel's spatial dims flipped (`flipWeights`, in
  // kiln's layout, before the weights' reorder) -- it never reads the
  // dilation's zeros. Otherwise the input is first spread into a zero-filled
  // buffer of the dilated shape (`dilatedSrc`, plain layout) by a reorder into
  // `dilatedView`, the same buffer seen with the input's dims and the
  // dilated strides times the dilation.
  std::optional<dnnl::reorder> dilate;
  dnnl::memory::desc dilatedSrc, dilatedView;
  bool flipWeights = false;
  bool backwardWeights = false;  // the primitive is a convolution_backward_weights
  std::vector<int64_t> weightsShape, weightsSpatial;  // kiln's weights dims, and which to flip
  size_t elementBytes = 4;
  // In an output fusion: which fusion operands are the convolution's, and
  // the bias of its epilogue (an operand, or constant bytes), if any.
  int srcInput = 0, weightsInput = 1, biasInput = -1;
  std::vector<uint8_t> biasBytes;
  dnnl::memory::desc biasMd;

  void run(const uint8_t* const* inputs, uint8_t* output) const override {
    dnnl::engine& engine = cpuEngine();
    dnnl::stream stream(engine);
    // Each run has its own temporaries, so runs on several threads never share one.
    auto place = [&](const dnnl::memory::desc& user, const dnnl::memory::desc& wanted,
                     const std::optional<dnnl::reorder>& reorder, uint8_t* data) {
      dnnl::memory userMemory(user, engine, data);
      if (!reorder) return userMemory;
      dnnl::memory packed(wanted, engine);
      reorder->execute(stream, userMemory, packed);
      return packed;
    };
    const uint8_t* input = inputs[srcInput];
    dnnl::memory dilated;
    if (dilate) {
      dilated = dnnl::memory(dilatedSrc, engine);
      std::memset(dilated.get_data_handle(), 0, dilatedSrc.get_size());
      dnnl::memory compact(userSrc, engine, const_cast<uint8_t*>(input));
      dnnl::memory view(dilatedView, engine, dilated.get_data_handle());
      dilate->execute(stream, compact, view);
      input = static_cast<const uint8_t*>(dilated.get_data_handle());
    }
    dnnl::memory src = place(dilate ? dilatedSrc : userSrc, srcMd, toSrc, const_cast<uint8_t*>(input));
    const uint8_t* weightsData = inputs[weightsInput];
    std::vector<uint8_t> flipped;
    if (flipWeights) {
      flipped.resize(userWeights.get_size());
      reverseDims(weightsData, flipped.data(), weightsShape, weightsSpatial, elementBytes);
      weightsData = flipped.data();
    }
    dnnl::memory weights = place(userWeights, weightsMd, toWeights, const_cast<uint8_t*>(weightsData));
    dnnl::memory userDstMemory(userDst, engine, output);
    dnnl::memory dst = fromDst ? dnnl::memory(dstMd, engine) : userDstMemory;
    interp::Tensor scratchpad;
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, src},
                                                  {weightsArg, weights},
                                                  {dstArg, dst},
                                                  {DNNL_ARG_SCRATCHPAD, scratchpadFor(scratchpadMd, scratchpad)}};
    if (biasInput >= 0 || !biasBytes.empty()) {
      const uint8_t* bias = biasInput >= 0 ? inputs[biasInput] : biasBytes.data();
      args.emplace(DNNL_ARG_BIAS, dnnl::memory(biasMd, engine, const_cast<uint8_t*>(bias)));
    }
    primitive.execute(stream, args);
    if (fromDst) fromDst->execute(stream, dst, userDstMemory);
    stream.wait();
  }
};

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
        out.biasMd = *bias;
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

// `op` as a backward-weights convolution (see backwardWeightsOf), or null
// where oneDNN has no such primitive for it or only its reference code.
// First with the src and diffDst in kiln's layouts: oneDNN's direct kernels
// read channels-last data in place (no reorders of the two large operands:
// 19.8 against 21.2 ms on the bench's 8x56x56x64 3x3 weight gradient);
// other layouts only its im2col-and-gemm code takes, 1.7x slower than
// reordering them into the direct kernels' blocked layouts, which is the
// second try.
std::unique_ptr<OnednnConvolution> compileBackwardWeights(const BackwardWeights& w, dt type) {
  auto any = [&](const dims& shape) { return dnnl::memory::desc(shape, type, dnnl::memory::format_tag::any); };
  auto reorder = [](const dnnl::memory::desc& from, const dnnl::memory::desc& to) -> std::optional<dnnl::reorder> {
    if (from == to) return std::nullopt;
    return dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
  };
  for (bool inPlace : {true, false}) {
    auto conv = std::make_unique<OnednnConvolution>();
    try {
      conv->userSrc = dnnl::memory::desc(w.src, type, w.srcStrides);
      conv->userWeights = dnnl::memory::desc(w.diffDst, type, w.diffDstStrides);
      conv->userDst = dnnl::memory::desc(w.diffWeights, type, w.diffWeightsStrides);
      dnnl::memory::desc src = inPlace ? conv->userSrc : any(w.src), diffDst = inPlace ? conv->userWeights : any(w.diffDst);
      dnnl::convolution_forward::primitive_desc hint(
          dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, src,
                                          any(w.diffWeights), diffDst, w.strides, w.dilates, w.padL, w.padR),
          cpuEngine());
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per run: runs may be concurrent
      dnnl::convolution_backward_weights::primitive_desc pd(
          dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, src, any(w.diffWeights),
                                                   diffDst, w.strides, w.dilates, w.padL, w.padR),
          attr, cpuEngine(), hint);
      std::string_view impl = pd.impl_info_str();
      if (impl.find("ref") != std::string_view::npos || (inPlace && impl.find("gemm") != std::string_view::npos))
        continue;
      conv->srcMd = pd.src_desc();
      conv->weightsMd = pd.diff_dst_desc();
      conv->dstMd = pd.diff_weights_desc();
      conv->scratchpadMd = pd.scratchpad_desc();
      conv->primitive = dnnl::convolution_backward_weights(pd);
      conv->toSrc = reorder(conv->userSrc, conv->srcMd);
      conv->toWeights = reorder(conv->userWeights, conv->weightsMd);
      conv->fromDst = reorder(conv->dstMd, conv->userDst);
    } catch (const dnnl::error&) {
      continue;  // no such primitive for these layouts
    }
    conv->weightsArg = DNNL_ARG_DIFF_DST;
    conv->dstArg = DNNL_ARG_DIFF_WEIGHTS;
    conv->backwardWeights = true;
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
  if (std::optional<BackwardWeights> w = &op == &fused ? backwardWeightsOf(op, c) : std::nullopt)
    if (std::unique_ptr<OnednnConvolution> conv = compileBackwardWeights(*w, type))
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
  conv->userSrc = dnnl::memory::desc(srcDims, type, srcStrides);
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
  auto any = [&](const dims& shape) { return dnnl::memory::desc(shape, type, dnnl::memory::format_tag::any); };
  dnnl::primitive_attr attr;
  std::optional<dnnl::deconvolution_forward::primitive_desc> deconvolutionPd;
  try {
    attr.set_post_ops(postOps);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // one per run: runs may be concurrent
    if (deconvolution) {
      dims lhsDilation(c.lhsDilation.begin(), c.lhsDilation.end());
      auto desc = bias ? dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                           dnnl::algorithm::deconvolution_direct, any(srcDims),
                                                           any(weiDims), *bias, any(dstDims), lhsDilation, dilates,
                                                           deconvPadL, deconvPadR)
                       : dnnl::deconvolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                           dnnl::algorithm::deconvolution_direct, any(srcDims),
                                                           any(weiDims), any(dstDims), lhsDilation, dilates,
                                                           deconvPadL, deconvPadR);
      deconvolutionPd.emplace(desc, attr, cpuEngine());
    }
  } catch (const dnnl::error&) {
    // No deconvolution for this shape (oneDNN 2.6 has none with a dilated
    // kernel): the dilated input is spread out instead.
  }
  if (dilating && !deconvolutionPd) {
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
      conv->dilatedSrc = dnnl::memory::desc(dilatedDims, type, plain);
      conv->dilatedView = dnnl::memory::desc(srcDims, type, spread);
    } catch (const dnnl::error& e) {
      return unsupported(op, std::string("with this lhs_dilation through oneDNN (") + e.what() + ")");
    }
    srcDims = dilatedDims;
  }
  conv->userWeights = dnnl::memory::desc(weiDims, type, weiStrides);
  conv->userDst = dnnl::memory::desc(dstDims, type, dstStrides);

  dims strides(c.strides.begin(), c.strides.end()), padL(c.padLow.begin(), c.padLow.end()),
      padR(c.padHigh.begin(), c.padHigh.end());
  try {
    auto keep = [&](const auto& pd) {
      conv->srcMd = pd.src_desc();
      conv->weightsMd = pd.weights_desc();
      conv->dstMd = pd.dst_desc();
      conv->scratchpadMd = pd.scratchpad_desc();
    };
    if (deconvolutionPd) {
      keep(*deconvolutionPd);
      conv->primitive = dnnl::deconvolution_forward(*deconvolutionPd);
      conv->flipWeights = true;
      conv->weightsShape.assign(rhs.shape().begin(), rhs.shape().end());
      conv->weightsSpatial = c.kernelSpatial;
      conv->elementBytes = rhs.elementType().storageBytes();
    } else {
      auto desc = bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                         dnnl::algorithm::convolution_direct, any(srcDims),
                                                         any(weiDims), *bias, any(dstDims), strides, dilates, padL, padR)
                       : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                         dnnl::algorithm::convolution_direct, any(srcDims),
                                                         any(weiDims), any(dstDims), strides, dilates, padL, padR);
      dnnl::convolution_forward::primitive_desc pd(desc, attr, cpuEngine());
      keep(pd);
      conv->primitive = dnnl::convolution_forward(pd);
    }
    auto reorder = [](const dnnl::memory::desc& from, const dnnl::memory::desc& to) -> std::optional<dnnl::reorder> {
      if (from == to) return std::nullopt;
      return dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), from, cpuEngine(), to));
    };
    bool spread = dilating && !deconvolutionPd;
    if (spread) conv->dilate = dnnl::reorder(dnnl::reorder::primitive_desc(cpuEngine(), conv->userSrc, cpuEngine(), conv->dilatedView));
    conv->toSrc = reorder(spread ? conv->dilatedSrc : conv->userSrc, conv->srcMd);
    conv->toWeights = reorder(conv->userWeights, conv->weightsMd);
    conv->fromDst = reorder(conv->dstMd, conv->userDst);
  } catch (const dnnl::error& e) {
    return unsupported(op, std::string("as a oneDNN convolution (") + e.what() + ")");
  }
  return std::unique_ptr<const OnednnDot>(std::move(conv));
}

}  // namespace kiln::cpu
