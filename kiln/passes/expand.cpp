// Expanders: ops that back ends need not implement natively, rewritten into
// primitive StableHLO ops (as XLA's BatchNormExpander, RngExpander and
// DotDecomposer do).
//
//   batch_norm_inference, batch_norm_training, batch_norm_grad
//       -> broadcast_in_dim, reduce (add), subtract, multiply, divide, sqrt.
//       The formulas are the spec's, evaluated in the same order as the
//       interpreter, but in the operand's element type where the interpreter
//       carries doubles: f64 programs keep their bits, f32 and narrower ones
//       may differ by rounding (a few ULP).
//   rng (float results) -> rng_bit_generator + arithmetic in f64 + convert.
//       The mapping is the interpreter's documented stream (ops_misc.cpp):
//       PHILOX with key 0 and counter 0 (state ui64[0, 0, 0]), one 64-bit
//       word u per element; UNIFORM is a + (b - a) * (u >> 11) * 2^-53,
//       NORMAL is a + b * sqrt(-2 log(1 - U1)) * cos(2 pi U2) from the two
//       words (U1, U2) of each element. Computed in f64 like the interpreter,
//       so the expansion is bit-exact. Integer rng stays as it is.
//   convolution with window_reversal or batch_group_count > 1
//       -> reverse of the rhs; the lhs's batch groups moved into its
//       features (transpose, reshape) and feature_group_count. Same
//       products in the same order: bit-exact.
//   dot, dot_general or convolution of two complex operands -> four of the real
//       parts' products: re = ar*br - ai*bi, im = ar*bi + ai*br. Both are
//       bilinear, so this is exact algebra; what changes is rounding (each
//       real product sums on its own, in the part type, where the
//       interpreter carries complex doubles): the libraries and loops that
//       compute real products fast then compute complex ones, with the same
//       multiplications a complex multiply-add does.
//   reduce(add) of complex values -> reduces of the real and imaginary
//       parts, put back together: the interpreter's part-by-part additions
//       in its order, bit-exact.
//   convolution of integers, or of f64 without padding -> window slices of
//       the input, concatenated, times the flattened kernel (one
//       dot_general): the interpreter's products in its order, bit-exact
//       (see convolutionAsDot).
#include <algorithm>
#include <map>
#include <numbers>
#include <optional>
#include <span>

#include "kiln/interp/kernel_util.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/op_registry.h"
#include "kiln/passes/pass.h"
#include "kiln/passes/pass_util.h"
#include "kiln/passes/op_builder.h"
#include "kiln/ir/float_formats.h"

namespace kiln {
namespace {


// Views of a batch_norm_* op's operand: its type, the feature dimension,
// and helpers that spread per-feature vectors over the operand's shape.
struct FeatureShape {
  Type type;
  int64_t featureIndex;
  Value* spread(Builder& b, Value* perFeature) const { return b.broadcast(perFeature, type, {featureIndex}); }
  std::vector<int64_t> nonFeatureDims() const {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < type.rank(); ++d)
      if (d != featureIndex) dims.push_back(d);
    return dims;
  }
  double elementsPerFeature() const {
    int64_t f = type.shape()[featureIndex];
    return f ? static_cast<double>(type.numElements() / f) : 0.0;
  }
};

FeatureShape featureShapeOf(const Operation& op) {
  return {op.operand(0)->type(), op.attr("feature_index").intValue()};
}

// sqrt(variance + epsilon), per feature.
Value* stddev(Builder& b, const Operation& op, Value* variance) {
  Value* epsilon = b.constant(variance->type(), op.attr("epsilon").floatValue());
  return b.unary("sqrt", b.binary("add", variance, epsilon));
}

// (x - mean) / stddev * scale + offset, the per-feature vectors spread.
Value* normalize(Builder& b, const FeatureShape& fs, Value* centered, Value* stddev, Value* scale, Value* offset) {
  Value* y = b.binary("divide", centered, fs.spread(b, stddev));
  Value* scaled = b.binary("multiply", y, fs.spread(b, scale));
  return b.binary("add", scaled, fs.spread(b, offset));
}

bool expandBatchNormInference(Operation& op) {
  Builder b(op);
  FeatureShape fs = featureShapeOf(op);
  Value* centered = b.binary("subtract", op.operand(0), fs.spread(b, op.operand(3)));
  Value* y = normalize(b, fs, centered, stddev(b, op, op.operand(4)), op.operand(1), op.operand(2));
  op.replaceWith(std::vector<Value*>{y});
  return true;
}

bool expandBatchNormTraining(Operation& op) {
  Builder b(op);
  FeatureShape fs = featureShapeOf(op);
  Value* x = op.operand(0);
  Value* count = b.constant(op.operand(1)->type(), fs.elementsPerFeature());
  Value* mean = b.binary("divide", b.sum(x, fs.nonFeatureDims()), count);
  Value* centered = b.binary("subtract", x, fs.spread(b, mean));
  Value* variance = b.binary("divide", b.sum(b.binary("multiply", centered, centered), fs.nonFeatureDims()), count);
  Value* y = normalize(b, fs, centered, stddev(b, op, variance), op.operand(1), op.operand(2));
  op.replaceWith(std::vector<Value*>{y, mean, variance});
  return true;
}

// The spec's gradients: grad_offset = sum(dy), grad_scale = sum(dy * (x -
// mean)) / stddev, grad_operand = scale / stddev / N * (N dy - grad_offset -
// (x - mean) * sum(dy * (x - mean)) / (variance + epsilon)).
bool expandBatchNormGrad(Operation& op) {
  Builder b(op);
  FeatureShape fs = featureShapeOf(op);
  Value *x = op.operand(0), *scale = op.operand(1), *mean = op.operand(2), *variance = op.operand(3),
        *dy = op.operand(4);
  Type perFeature = scale->type();
  Value* varianceEps = b.binary("add", variance, b.constant(perFeature, op.attr("epsilon").floatValue()));
  Value* sd = b.unary("sqrt", varianceEps);
  Value* gradOffset = b.sum(dy, fs.nonFeatureDims());
  Value* centered = b.binary("subtract", x, fs.spread(b, mean));
  Value* sumDyCentered = b.sum(b.binary("multiply", dy, centered), fs.nonFeatureDims());
  Value* gradScale = b.binary("divide", sumDyCentered, sd);
  Value* count = b.constant(perFeature, fs.elementsPerFeature());
  Value* factor = b.binary("divide", b.binary("divide", scale, sd), count);
  Value* centeredSum = b.binary("multiply", centered, fs.spread(b, sumDyCentered));
  Value* correction = b.binary("divide", centeredSum, fs.spread(b, varianceEps));
  Value* countDy = b.binary("multiply", fs.spread(b, count), dy);
  Value* inner = b.binary("subtract", b.binary("subtract", countDy, fs.spread(b, gradOffset)), correction);
  Value* gradOperand = b.binary("multiply", fs.spread(b, factor), inner);
  op.replaceWith(std::vector<Value*>{gradOperand, gradScale, gradOffset});
  return true;
}

// (u >> 11) * 2^-53 in f64: a uniform double in [0, 1) from 64 random bits.
Value* unitInterval(Builder& b, Value* bits) {
  Type u64 = bits->type();
  Value* top53 = b.binary("shift_right_logical", bits, b.constant(u64, 11));
  Value* asDouble = b.convert(top53, Type::f64());
  return b.binary("multiply", asDouble, b.constant(asDouble->type(), 0x1p-53));
}

bool expandRng(Operation& op) {
  Type resultType = op.result()->type();
  if (!resultType.elementType().isFloat()) return false;
  bool normal = op.attr("rng_distribution").stringValue() == "NORMAL";
  Builder b(op);
  Type f64 = resultType.withElementType(Type::f64());
  auto spread = [&](Value* scalar) { return b.broadcast(b.convert(scalar, Type::f64()), f64, {}); };
  Value *a = spread(op.operand(0)), *bound = spread(op.operand(1));

  // One 64-bit word per element, two for NORMAL (as a trailing dimension).
  std::vector<int64_t> bitsShape(resultType.shape().begin(), resultType.shape().end());
  if (normal) bitsShape.push_back(2);
  Type u64 = Type::integer(64, /*isUnsigned=*/true);
  Type stateType = Type::tensor({3}, u64);
  OperationState gen("stablehlo.rng_bit_generator", op.loc());
  gen.operands = {b.constant(stateType, 0)};
  gen.attributes.set("rng_algorithm", Attribute::enumAttr("rng_algorithm", "PHILOX"));
  gen.resultTypes = {stateType, Type::tensor(bitsShape, u64)};
  Value* bits = insertBefore(&op, std::move(gen))->result(1);

  Value* value;
  if (!normal) {
    Value* width = b.binary("subtract", bound, a);
    value = b.binary("add", a, b.binary("multiply", width, unitInterval(b, bits)));
  } else {
    int64_t rank = resultType.rank();
    auto word = [&](int64_t k) {
      Value* slice = b.sliceAlong(bits, rank, k, k + 1);
      return unitInterval(b, b.op("stablehlo.reshape", {slice}, {}, resultType.withElementType(u64)));
    };
    Value* one = b.constant(f64, 1.0);
    Value* u1 = b.binary("subtract", one, word(0));  // in (0, 1]: log is finite
    Value* minusTwo = b.constant(f64, -2.0);
    Value* radius = b.unary("sqrt", b.binary("multiply", minusTwo, b.unary("log", u1)));
    Value* twoPi = b.constant(f64, 2.0 * std::numbers::pi);
    Value* angle = b.binary("multiply", twoPi, word(1));
    Value* z = b.binary("multiply", radius, b.unary("cosine", angle));
    value = b.binary("add", a, b.binary("multiply", bound, z));
  }
  op.replaceWith(std::vector<Value*>{b.convert(value, resultType.elementType())});
  return true;
}

// A conv dimension_numbers field as a list (one entry for the scalar ones).
std::vector<int64_t> convField(const Attribute& dn, std::string_view name) {
  Attribute f = dn.get(name);
  if (f.is(AttrKind::Integer)) return {f.intValue()};
  return intListField(dn, name);
}

// convolution's window_reversal -> the rhs reversed along those spatial
// dims; batch_group_count G > 1 (the weight gradient of a grouped or
// depthwise convolution) -> the lhs's batch groups moved into its features
// and feature_group_count G. The batch dim N splits into (G, N/G) where it
// is, G moves to just before the feature dim C (one transpose, the other
// dims keep their order), and (G, C) merge into one feature dim of G*C.
// Output feature o of group g = o / (O/G) read lhs batch g * N/G + b; now it
// reads features [g*C, (g+1)*C) of batch b: the same elements, multiplied
// and summed in the same order. Back ends with a grouped convolution
// (oneDNN) then take both.
bool expandConvolution(Operation& op) {
  Attribute dn = op.attr("dimension_numbers");
  Value* lhs = op.operand(0);
  Value* rhs = op.operand(1);
  std::vector<int64_t> inputSpatial = convField(dn, "input_spatial_dimensions");
  std::vector<int64_t> kernelSpatial = convField(dn, "kernel_spatial_dimensions");
  std::vector<int64_t> batchDim = convField(dn, "input_batch_dimension"), featureDim = convField(dn, "input_feature_dimension");
  size_t n = inputSpatial.size();
  int64_t rank = int64_t(n + 2);
  if (batchDim.size() != 1 || featureDim.size() != 1 || kernelSpatial.size() != n || !lhs->type().isTensor() ||
      lhs->type().rank() != rank || !rhs->type().isTensor())
    return false;
  Builder b(op);
  bool changed = false;

  std::optional<std::vector<int64_t>> reversal = op.attr("window_reversal").asIntList();
  std::vector<int64_t> reversed;
  for (size_t s = 0; reversal && s < reversal->size() && s < n; ++s)
    if ((*reversal)[s]) reversed.push_back(kernelSpatial[s]);
  if (!reversed.empty()) {
    op.setOperand(1, b.op("stablehlo.reverse", {rhs}, AttrDict({{"dimensions", Attribute::denseI64Array(reversed)}}),
                          rhs->type()));
    op.setAttr("window_reversal", Attribute::denseBoolArray(std::vector<bool>(n, false)));
    changed = true;
  }

  Attribute fg = op.attr("feature_group_count"), bg = op.attr("batch_group_count");
  int64_t groups = bg ? bg.intValue() : 1;
  std::span<const int64_t> shape = lhs->type().shape();
  int64_t batch = batchDim[0], feature = featureDim[0];
  if (groups <= 1 || (fg && fg.intValue() != 1) || shape[batch] % groups != 0) return changed;
  Type element = lhs->type().elementType();

  // Dims of the split lhs: d < batch as they are, G at `batch`, N/G at
  // batch + 1, the rest one further on.
  auto splitDim = [&](int64_t d) { return d <= batch ? d : d + 1; };
  std::vector<int64_t> split(shape.begin(), shape.end());
  split[batch] = shape[batch] / groups;
  split.insert(split.begin() + batch, groups);
  Value* x = b.op("stablehlo.reshape", {lhs}, {}, Type::tensor(split, element));
  std::vector<int64_t> order;  // the split dims with G moved to just before the feature dim
  for (int64_t d = 0; d < rank + 1; ++d) {
    if (d == batch) continue;
    if (d == splitDim(feature)) order.push_back(batch);
    order.push_back(d);
  }
  std::vector<int64_t> moved;
  for (int64_t d : order) moved.push_back(split[d]);
  x = b.op("stablehlo.transpose", {x}, AttrDict({{"permutation", Attribute::denseI64Array(order)}}),
           Type::tensor(moved, element));
  // Merge G into the feature dim; where every original dim ends up.
  std::vector<int64_t> merged, position(rank);
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k] == batch) continue;
    int64_t original = order[k] <= batch ? order[k] : order[k] - 1;  // batch + 1 (N/G) is the batch dim
    position[original] = int64_t(merged.size());
    merged.push_back(original == feature ? groups * shape[feature] : moved[k]);
  }
  op.setOperand(0, b.op("stablehlo.reshape", {x}, {}, Type::tensor(merged, element)));

  std::vector<NamedAttribute> fields;
  std::vector<Attribute> spatial;
  for (int64_t d : inputSpatial) spatial.push_back(Attribute::integer(position[d]));
  for (const NamedAttribute& f : dn.entries()) {
    if (f.first == "input_batch_dimension") fields.emplace_back(f.first, Attribute::integer(position[batch]));
    else if (f.first == "input_feature_dimension") fields.emplace_back(f.first, Attribute::integer(position[feature]));
    else if (f.first == "input_spatial_dimensions") fields.emplace_back(f.first, Attribute::array(spatial));
    else fields.push_back(f);
  }
  op.setAttr("dimension_numbers", Attribute::structAttr(dn.attrName(), std::move(fields), dn.dialect()));
  op.setAttr("feature_group_count", Attribute::integer(groups));
  op.setAttr("batch_group_count", Attribute::integer(1));
  return true;
}

// The four real products that replace complex product `op`, or none.
std::vector<Operation*> splitComplexProduct(Operation& op) {
  if (op.numOperands() != 2 || op.numResults() != 1) return {};
  Value* lhs = op.operand(0);
  Value* rhs = op.operand(1);
  Type result = op.result()->type();
  if (!result.isTensor() || !lhs->type().isTensor() || !rhs->type().isTensor()) return {};
  Type element = result.elementType();
  if (!element.isComplex() || lhs->type().elementType() != element || rhs->type().elementType() != element)
    return {};
  Type part = element.complexElement();
  Builder b(op);
  auto take = [&](std::string_view which, Value* v) {
    return b.op("stablehlo." + std::string(which), {v}, {}, v->type().withElementType(part));
  };
  auto product = [&](Value* x, Value* y) { return b.op(op.name(), {x, y}, op.attrs(), result.withElementType(part)); };
  Value* lhsReal = take("real", lhs);
  Value* lhsImag = take("imag", lhs);
  Value* rhsReal = take("real", rhs);
  Value* rhsImag = take("imag", rhs);
  Value* realReal = product(lhsReal, rhsReal);
  Value* imagImag = product(lhsImag, rhsImag);
  Value* realImag = product(lhsReal, rhsImag);
  Value* imagReal = product(lhsImag, rhsReal);
  Value* real = b.binary("subtract", realReal, imagImag);
  Value* imag = b.binary("add", realImag, imagReal);
  op.replaceWith(std::vector<Value*>{b.op("stablehlo.complex", {real, imag}, {}, result)});
  return {realReal->definingOp(), imagImag->definingOp(), realImag->definingOp(), imagReal->definingOp()};
}

bool splitComplexDot(Operation& op) { return !splitComplexProduct(op).empty(); }

// Whether `op`'s region is `return arg0 + arg1` (either order).
bool bodyAdds(const Operation& op) {
  if (op.numRegions() != 1 || op.region(0).numBlocks() != 1) return false;
  const Block& body = op.region(0).front();
  if (body.numArguments() != 2 || body.size() != 2) return false;
  const Operation& add = *body.front();
  const Operation& ret = *body.back();
  if (add.name() != "stablehlo.add" || add.numOperands() != 2 || ret.name() != "stablehlo.return" ||
      ret.numOperands() != 1 || ret.operand(0) != add.result())
    return false;
  const Value *a = add.operand(0), *b = add.operand(1);
  return (a == body.argument(0) && b == body.argument(1)) || (a == body.argument(1) && b == body.argument(0));
}

// A sum of complex values is the sums of its parts: reduce(add) of one
// complex input -> reduces of its real and imaginary parts from the init's.
// The interpreter adds complex values part by part in the part type, in the
// same order as real ones, so this is exact.
bool splitComplexSum(Operation& op) {
  if (op.numOperands() != 2 || op.numResults() != 1 || !bodyAdds(op)) return false;
  Value* input = op.operand(0);
  Value* init = op.operand(1);
  Type result = op.result()->type();
  if (!input->type().isTensor() || !result.isTensor() || !input->type().elementType().isComplex() ||
      init->type() != Type::tensor({}, input->type().elementType()))
    return false;
  Type part = input->type().elementType().complexElement();
  Builder b(op);
  std::vector<int64_t> dims = intListAttr(op, "dimensions");
  auto take = [&](std::string_view which, Value* v) {
    return b.op("stablehlo." + std::string(which), {v}, {}, v->type().withElementType(part));
  };
  Value* realInput = take("real", input);
  Value* realInit = take("real", init);
  Value* real = b.sum(realInput, dims, realInit);
  Value* imagInput = take("imag", input);
  Value* imagInit = take("imag", init);
  Value* imag = b.sum(imagInput, dims, imagInit);
  if (real->type() != result.withElementType(part)) return false;  // (unreachable for a verified op) dce takes the parts
  op.replaceWith(std::vector<Value*>{b.op("stablehlo.complex", {real, imag}, {}, result)});
  return true;
}

// `v` with its dims permuted (itself for the identity).
Value* transposed(Builder& b, Value* v, const std::vector<int64_t>& permutation) {
  bool identity = true;
  for (size_t d = 0; d < permutation.size(); ++d) identity &= permutation[d] == int64_t(d);
  if (identity) return v;
  return b.op("stablehlo.transpose", {v}, AttrDict({{"permutation", Attribute::denseI64Array(permutation)}}));
}

// A convolution of integers, or of f64 without padding or lhs dilation, as
// a dot_general over its input's windows (im2col): the input, moved to
// [batch, spatial..., feature] and padded, is sliced once per window
// position (strided by the window stride, offset by the rhs dilation), the
// slices concatenated along the features -- window position major, feature
// minor, the interpreter's order of products -- and contracted with the
// kernel moved to [spatial..., in, out] and flattened the same way. Integer
// sums wrap, so any order gives the same bits; an f64 window adds its
// products in that order as the interpreter does (it skips a padded
// position where the product with padding would add a zero, or a NaN for an
// infinite weight: hence no padding for f64). No library convolves these
// types; the dot_general runs as the cpu back end's tiled dot loops.
bool convolutionAsDot(Operation& op) {
  Value* lhs = op.operand(0);
  Value* rhs = op.operand(1);
  Type resultType = op.result()->type();
  Type element = resultType.elementType();
  if (!resultType.isTensor() || lhs->type().elementType() != element || rhs->type().elementType() != element ||
      !((element.isInteger() && element.bitWidth() >= 8) || element.kind() == TypeKind::F64))
    return false;
  Attribute dn = op.attr("dimension_numbers");
  std::vector<int64_t> inSpatial = convField(dn, "input_spatial_dimensions"),
                       kernelSpatial = convField(dn, "kernel_spatial_dimensions"),
                       outSpatial = convField(dn, "output_spatial_dimensions");
  std::vector<int64_t> inBatch = convField(dn, "input_batch_dimension"), inFeature = convField(dn, "input_feature_dimension"),
                       kernelIn = convField(dn, "kernel_input_feature_dimension"),
                       kernelOut = convField(dn, "kernel_output_feature_dimension"),
                       outBatch = convField(dn, "output_batch_dimension"),
                       outFeature = convField(dn, "output_feature_dimension");
  size_t n = inSpatial.size();
  Attribute fg = op.attr("feature_group_count"), bg = op.attr("batch_group_count");
  if (kernelSpatial.size() != n || outSpatial.size() != n || inBatch.size() != 1 || inFeature.size() != 1 ||
      kernelIn.size() != 1 || kernelOut.size() != 1 || outBatch.size() != 1 || outFeature.size() != 1 ||
      (fg && fg.intValue() != 1) || (bg && bg.intValue() != 1))
    return false;
  if (std::optional<std::vector<int64_t>> reversal = op.attr("window_reversal").asIntList())
    if (std::ranges::any_of(*reversal, [](int64_t r) { return r != 0; })) return false;
  std::vector<int64_t> strides = intListAttrOr(op, "window_strides", n, 1),
                       lhsDilation = intListAttrOr(op, "lhs_dilation", n, 1),
                       rhsDilation = intListAttrOr(op, "rhs_dilation", n, 1);
  if (strides.size() != n || lhsDilation.size() != n || rhsDilation.size() != n) return false;
  std::vector<int64_t> padLow(n, 0), padHigh(n, 0);
  if (interp::Tensor padding = interp::paddingAttr(op)) {  // [spatial dims, 2]: low, high
    if (padding.numElements() != int64_t(2 * n) || !padding.elementType().isInteger()) return false;
    for (size_t s = 0; s < n; ++s) padLow[s] = padding.getInt(2 * s), padHigh[s] = padding.getInt(2 * s + 1);
  }
  bool padded = std::ranges::any_of(padLow, [](int64_t p) { return p != 0; }) ||
                std::ranges::any_of(padHigh, [](int64_t p) { return p != 0; }) ||
                std::ranges::any_of(lhsDilation, [](int64_t d) { return d != 1; });
  if (padded && element.isFloat()) return false;

  Builder b(op);
  // The input as [batch, spatial..., feature], padded and dilated.
  std::vector<int64_t> inOrder = {inBatch[0]};
  inOrder.insert(inOrder.end(), inSpatial.begin(), inSpatial.end());
  inOrder.push_back(inFeature[0]);
  Value* x = transposed(b, lhs, inOrder);
  if (padded) {
    std::vector<int64_t> low = {0}, high = {0}, interior = {0};
    for (size_t s = 0; s < n; ++s) {
      low.push_back(padLow[s]);
      high.push_back(padHigh[s]);
      interior.push_back(lhsDilation[s] - 1);
    }
    low.push_back(0), high.push_back(0), interior.push_back(0);
    Value* zero = b.constant(Type::tensor({}, element), 0.0);
    x = b.op("stablehlo.pad", {x, zero},
             AttrDict({{"edge_padding_low", Attribute::denseI64Array(low)},
                       {"edge_padding_high", Attribute::denseI64Array(high)},
                       {"interior_padding", Attribute::denseI64Array(interior)}}));
  }
  std::span<const int64_t> xShape = x->type().shape(), resultShape = resultType.shape(),
                           kernelShape = rhs->type().shape();
  std::vector<int64_t> window, outSizes;
  int64_t positions = 1;
  for (size_t s = 0; s < n; ++s) {
    window.push_back(kernelShape[kernelSpatial[s]]);
    outSizes.push_back(resultShape[outSpatial[s]]);
    positions *= window.back();
  }
  if (positions == 0 || std::ranges::count(outSizes, 0)) return false;  // nothing to slice
  // One strided slice per window position, row-major over the window.
  std::vector<Value*> slices;
  std::vector<int64_t> position(n, 0);
  for (int64_t p = 0; p < positions; ++p) {
    std::vector<int64_t> start = {0}, limit = {xShape[0]}, step = {1};
    for (size_t s = 0; s < n; ++s) {
      start.push_back(position[s] * rhsDilation[s]);
      limit.push_back(start.back() + (outSizes[s] - 1) * strides[s] + 1);
      step.push_back(strides[s]);
    }
    start.push_back(0), limit.push_back(xShape[n + 1]), step.push_back(1);
    slices.push_back(b.slice(x, start, limit, step));
    for (int64_t s = int64_t(n) - 1; s >= 0 && ++position[s] == window[s]; --s) position[s] = 0;
  }
  Value* patches = slices.size() == 1 ? slices[0]
                                      : b.op("stablehlo.concatenate", slices,
                                             AttrDict({{"dimension", Attribute::integer(int64_t(n + 1))}}));
  // The kernel as [spatial..., in, out], then [positions * in, out].
  std::vector<int64_t> kernelOrder(kernelSpatial.begin(), kernelSpatial.end());
  kernelOrder.push_back(kernelIn[0]);
  kernelOrder.push_back(kernelOut[0]);
  Value* w = transposed(b, rhs, kernelOrder);
  int64_t outFeatures = kernelShape[kernelOut[0]];
  w = b.op("stablehlo.reshape", {w}, {},
           Type::tensor({positions * kernelShape[kernelIn[0]], outFeatures}, element));
  // One matrix product: [batch * spatial..., positions * in] x [positions * in, out].
  std::vector<int64_t> patchesShape(patches->type().shape().begin(), patches->type().shape().end());
  int64_t rows = patches->type().numElements() / patchesShape.back();
  patches = b.op("stablehlo.reshape", {patches}, {}, Type::tensor({rows, patchesShape.back()}, element));
  Value* y = b.op("stablehlo.dot_general", {patches, w},
                  AttrDict({{"dot_dimension_numbers",
                             Attribute::structAttr("dot", {{"lhs_batching_dimensions", intArrayAttribute({})},
                                                           {"rhs_batching_dimensions", intArrayAttribute({})},
                                                           {"lhs_contracting_dimensions", intArrayAttribute(std::vector<int64_t>{1})},
                                                           {"rhs_contracting_dimensions", intArrayAttribute(std::vector<int64_t>{0})}})}}));
  patchesShape.back() = outFeatures;
  y = b.op("stablehlo.reshape", {y}, {}, Type::tensor(patchesShape, element));
  // [batch, spatial..., out] to the result's layout.
  std::vector<int64_t> outOrder(resultType.rank());
  outOrder[outBatch[0]] = 0;
  for (size_t s = 0; s < n; ++s) outOrder[outSpatial[s]] = int64_t(s + 1);
  outOrder[outFeature[0]] = int64_t(n + 1);
  y = transposed(b, y, outOrder);
  if (y->type() != resultType) return false;  // (unreachable for a verified op) leaves the dead ops to dce
  op.replaceWith(std::vector<Value*>{y});
  return true;
}

// Window reversal and batch groups first: the complex parts' convolutions
// and the dots are then made of the expanded attributes.
bool expandConvolutionAndParts(Operation& op) {
  bool changed = expandConvolution(op);
  std::vector<Operation*> parts = splitComplexProduct(op);
  if (parts.empty()) return convolutionAsDot(op) || changed;
  for (Operation* part : parts) convolutionAsDot(*part);
  return true;
}

using Expander = bool (*)(Operation& op);

const std::map<std::string_view, Expander>& expanders() {
  static const std::map<std::string_view, Expander> table = {
      {"stablehlo.batch_norm_inference", expandBatchNormInference},
      {"stablehlo.batch_norm_training", expandBatchNormTraining},
      {"stablehlo.batch_norm_grad", expandBatchNormGrad},
      {"stablehlo.rng", expandRng},
      {"stablehlo.convolution", expandConvolutionAndParts},
      {"stablehlo.dot", splitComplexDot},
      {"stablehlo.dot_general", splitComplexDot},
      {"stablehlo.reduce", splitComplexSum},
  };
  return table;
}

// The verifier requires these; an unverified module is left as it is.
bool hasRequiredAttributes(const Operation& op) {
  if (op.name() == "stablehlo.rng") return static_cast<bool>(op.attr("rng_distribution"));
  if (op.name() == "stablehlo.convolution") return op.attr("dimension_numbers").is(AttrKind::Struct);
  if (op.name() == "stablehlo.dot_general") return op.attr("dot_dimension_numbers").is(AttrKind::Struct);
  if (op.name() == "stablehlo.dot") return true;
  if (op.name() == "stablehlo.reduce") return op.attr("dimensions").is(AttrKind::DenseArray);
  return op.attr("feature_index").is(AttrKind::Integer) && op.attr("epsilon").is(AttrKind::Float);
}

bool expandBlock(Block& block) {
  bool changed = false;
  for (Operation* op : block.ops()) {
    for (auto& region : op->regions())
      for (auto& nested : region->blocks()) changed |= expandBlock(*nested);
    auto it = expanders().find(op->name());
    if (it != expanders().end() && hasRequiredAttributes(*op)) changed |= it->second(*op);
  }
  return changed;
}

class ExpandPass : public FunctionPass {
 public:
  std::string_view name() const override { return "expand"; }

 private:
  bool runOnBody(Block& body) override { return expandBlock(body); }
};

}  // namespace

std::unique_ptr<Pass> createExpandPass() { return std::make_unique<ExpandPass>(); }

}  // namespace kiln
