// Kernels of the linear-algebra ops: dot_general, dot, convolution,
// dynamic_conv, fft, triangular_solve, cholesky and batch normalization.
//
// Arithmetic happens in a wide carrier (kernel_util.h): every float type
// accumulates in double and is rounded once into the result type, integers
// accumulate with wrap-around in 64 bits and are truncated on store, i1 uses
// or/and. This is at least as accurate as accumulating in the result type, so
// float results may differ from XLA's (which sums in the result type) in the
// last bits. precision_config is accepted and ignored: the interpreter always
// computes at full precision.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;
using Complex = std::complex<double>;

// Checks that `type`'s elements are floats (or complex, if allowed).
Status checkFloatResult(const OpEval& eval, Type type, bool allowComplex) {
  Type et = type.isTensor() ? type.elementType() : Type();
  if (et && (et.isFloat() || (allowComplex && et.isComplex()))) return Status::ok();
  return eval.error(std::string("needs a float") + (allowComplex ? " or complex" : "") + " result, not " +
                    type.str());
}

Status rejectQuantized(const OpEval& eval) {
  for (const Tensor& t : eval.operands)
    if (t.type().isTensor() && t.elementType().isQuantized())
      return eval.error("on quantized tensors is not supported by the interpreter");
  return Status::ok();
}

// Linear offsets of every index combination of `dims` of a tensor with
// `strides`, in row-major order of those dims.
std::vector<int64_t> offsetsOver(std::span<const int64_t> shape, std::span<const int64_t> strides,
                                 std::span<const int64_t> dims) {
  std::vector<int64_t> sizes;
  for (int64_t d : dims) sizes.push_back(shape[d]);
  std::vector<int64_t> offsets, index(dims.size(), 0);
  for (int64_t i = 0; i < numElementsOf(sizes); ++i, advanceIndex(index, sizes)) {
    int64_t offset = 0;
    for (size_t k = 0; k < dims.size(); ++k) offset += index[k] * strides[dims[k]];
    offsets.push_back(offset);
  }
  return offsets;
}

// ---- dot_general / dot -----------------------------------------------------------

struct DotDims {
  std::vector<int64_t> lhsBatching, rhsBatching, lhsContracting, rhsContracting;
};

// The dimensions of a rank-`rank` tensor in neither list, ascending.
std::vector<int64_t> freeDims(int64_t rank, std::span<const int64_t> a, std::span<const int64_t> b) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      dims.push_back(d);
  return dims;
}

// result[batch, lhsFree, rhsFree] = sum over contracting positions of
// lhs * rhs, in carrier T. The result's dimensions are the batch dimensions,
// then lhs's free dimensions, then rhs's, each in order.
template <typename T>
Tensor dotGeneralIn(const Tensor& lhs, const Tensor& rhs, Type type, const DotDims& dims) {
  std::vector<T> l = loadAs<T>(lhs), r = loadAs<T>(rhs);
  std::vector<int64_t> ls = rowMajorStrides(lhs.shape()), rs = rowMajorStrides(rhs.shape());
  std::vector<int64_t> lhsBatch = offsetsOver(lhs.shape(), ls, dims.lhsBatching);
  std::vector<int64_t> rhsBatch = offsetsOver(rhs.shape(), rs, dims.rhsBatching);
  std::vector<int64_t> lhsContract = offsetsOver(lhs.shape(), ls, dims.lhsContracting);
  std::vector<int64_t> rhsContract = offsetsOver(rhs.shape(), rs, dims.rhsContracting);
  std::vector<int64_t> lhsFree =
      offsetsOver(lhs.shape(), ls, freeDims(lhs.rank(), dims.lhsBatching, dims.lhsContracting));
  std::vector<int64_t> rhsFree =
      offsetsOver(rhs.shape(), rs, freeDims(rhs.rank(), dims.rhsBatching, dims.rhsContracting));

  Tensor result(type);
  int64_t out = 0;
  for (size_t b = 0; b < lhsBatch.size(); ++b)
    for (int64_t lf : lhsFree)
      for (int64_t rf : rhsFree) {
        const T* lp = l.data() + lhsBatch[b] + lf;
        const T* rp = r.data() + rhsBatch[b] + rf;
        T acc{};
        for (size_t k = 0; k < lhsContract.size(); ++k) acc = mulAdd(acc, lp[lhsContract[k]], rp[rhsContract[k]]);
        storeAs(result, out++, acc);
      }
  return result;
}

Results dotWith(const OpEval& eval, const DotDims& dims) {
  KILN_RETURN_IF_ERROR(rejectQuantized(eval));
  const Tensor& lhs = eval.operands[0];
  const Tensor& rhs = eval.operands[1];
  if (dims.lhsBatching.size() != dims.rhsBatching.size() || dims.lhsContracting.size() != dims.rhsContracting.size())
    return eval.error("batching and contracting dimensions must pair up");
  std::vector<int64_t> lhsDims = dims.lhsBatching, rhsDims = dims.rhsBatching;
  lhsDims.insert(lhsDims.end(), dims.lhsContracting.begin(), dims.lhsContracting.end());
  rhsDims.insert(rhsDims.end(), dims.rhsContracting.begin(), dims.rhsContracting.end());
  KILN_RETURN_IF_ERROR(checkDimensionList(eval, "lhs batching and contracting dimensions", lhsDims, lhs.rank()));
  KILN_RETURN_IF_ERROR(checkDimensionList(eval, "rhs batching and contracting dimensions", rhsDims, rhs.rank()));
  for (size_t k = 0; k < dims.lhsBatching.size(); ++k)
    if (lhs.shape()[dims.lhsBatching[k]] != rhs.shape()[dims.rhsBatching[k]])
      return eval.error("batching dimensions differ in size");
  for (size_t k = 0; k < dims.lhsContracting.size(); ++k)
    if (lhs.shape()[dims.lhsContracting[k]] != rhs.shape()[dims.rhsContracting[k]])
      return eval.error("contracting dimensions differ in size");
  Type type = resultType(eval);
  switch (carrierOf(type.elementType())) {
    case Carrier::Bool: {
      // An i1 dot is an or of ands: true iff some product is nonzero, which
      // the integer sum of the 0/1 products tells.
      Tensor counts = dotGeneralIn<uint64_t>(lhs, rhs, type.withElementType(Type::si64()), dims);
      Tensor result(type);
      for (int64_t i = 0; i < result.numElements(); ++i) result.setBool(i, counts.getInt(i) != 0);
      return std::vector<Tensor>{result};
    }
    case Carrier::Int: return std::vector<Tensor>{dotGeneralIn<uint64_t>(lhs, rhs, type, dims)};
    case Carrier::Float: return std::vector<Tensor>{dotGeneralIn<double>(lhs, rhs, type, dims)};
    case Carrier::Complex: return std::vector<Tensor>{dotGeneralIn<Complex>(lhs, rhs, type, dims)};
  }
  return eval.error("unsupported element type");
}

Results dotGeneral(OpEval& eval) {
  Attribute dn = eval.op.attr("dot_dimension_numbers");
  if (!dn || !dn.is(AttrKind::Struct)) return eval.error("needs `dot_dimension_numbers`");
  DotDims dims{intListField(dn, "lhs_batching_dimensions"), intListField(dn, "rhs_batching_dimensions"),
               intListField(dn, "lhs_contracting_dimensions"), intListField(dn, "rhs_contracting_dimensions")};
  return dotWith(eval, dims);
}

// ---- convolution / dynamic_conv --------------------------------------------------------

struct ConvDims {
  int64_t inputBatch, inputFeature, kernelInputFeature, kernelOutputFeature, outputBatch, outputFeature;
  std::vector<int64_t> inputSpatial, kernelSpatial, outputSpatial;
};

template <typename T>
Tensor convolutionIn(const Tensor& lhs, const Tensor& rhs, Type type, const ConvDims& dn,
                     std::span<const int64_t> strides, std::span<const int64_t> padLow,
                     std::span<const int64_t> lhsDilation, std::span<const int64_t> rhsDilation,
                     std::span<const int64_t> reversal, int64_t featureGroups, int64_t batchGroups) {
  std::vector<T> l = loadAs<T>(lhs), r = loadAs<T>(rhs);
  std::vector<int64_t> ls = rowMajorStrides(lhs.shape()), rs = rowMajorStrides(rhs.shape());
  Tensor result(type);
  size_t numSpatial = dn.inputSpatial.size();
  int64_t outputFeatures = result.shape()[dn.outputFeature];
  int64_t kernelInputFeatures = rhs.shape()[dn.kernelInputFeature];
  int64_t batchesPerGroup = lhs.shape()[dn.inputBatch] / batchGroups;
  std::vector<int64_t> windowShape;
  for (int64_t d : dn.kernelSpatial) windowShape.push_back(rhs.shape()[d]);

  std::vector<int64_t> outIndex(result.rank(), 0), window(numSpatial, 0);
  for (int64_t o = 0; o < result.numElements(); ++o, advanceIndex(outIndex, result.shape())) {
    int64_t outFeature = outIndex[dn.outputFeature];
    // Feature groups split lhs features and rhs output features alike; batch
    // groups split lhs batches and rhs output features.
    int64_t featureGroup = outFeature / (outputFeatures / featureGroups);
    int64_t batchGroup = outFeature / (outputFeatures / batchGroups);
    int64_t lhsBase = (batchGroup * batchesPerGroup + outIndex[dn.outputBatch]) * ls[dn.inputBatch] +
                      featureGroup * kernelInputFeatures * ls[dn.inputFeature];
    int64_t rhsBase = outFeature * rs[dn.kernelOutputFeature];
    T acc{};
    for (int64_t w = 0; w < numElementsOf(windowShape); ++w, advanceIndex(window, windowShape)) {
      // Window position w lands at out * stride + w * rhs_dilation in the
      // padded, lhs-dilated input; holes and padding contribute zero.
      int64_t lhsOffset = lhsBase, rhsOffset = rhsBase;
      bool inside = true;
      for (size_t s = 0; s < numSpatial && inside; ++s) {
        int64_t q = outIndex[dn.outputSpatial[s]] * strides[s] + window[s] * rhsDilation[s] - padLow[s];
        int64_t inSize = lhs.shape()[dn.inputSpatial[s]];
        inside = q >= 0 && q % lhsDilation[s] == 0 && q / lhsDilation[s] < inSize;
        lhsOffset += q / lhsDilation[s] * ls[dn.inputSpatial[s]];
        int64_t k = reversal[s] ? windowShape[s] - 1 - window[s] : window[s];
        rhsOffset += k * rs[dn.kernelSpatial[s]];
      }
      if (!inside) continue;
      for (int64_t f = 0; f < kernelInputFeatures; ++f)
        acc = mulAdd(acc, l[lhsOffset + f * ls[dn.inputFeature]], T(r[rhsOffset + f * rs[dn.kernelInputFeature]]));
    }
    storeAs(result, o, acc);
  }
  return result;
}

// `padding` comes from the attribute (convolution) or the third operand
// (dynamic_conv); either is a [spatial rank, 2] integer tensor.
Results convolutionWith(const OpEval& eval, const Tensor* paddingTensor) {
  KILN_RETURN_IF_ERROR(rejectQuantized(eval));
  const Tensor& lhs = eval.operands[0];
  const Tensor& rhs = eval.operands[1];
  Attribute dnAttr = eval.op.attr("dimension_numbers");
  if (!dnAttr || !dnAttr.is(AttrKind::Struct)) return eval.error("needs `dimension_numbers`");
  ConvDims dn{intField(dnAttr, "input_batch_dimension", 0),        intField(dnAttr, "input_feature_dimension", 1),
              intField(dnAttr, "kernel_input_feature_dimension", 0), intField(dnAttr, "kernel_output_feature_dimension", 1),
              intField(dnAttr, "output_batch_dimension", 0),         intField(dnAttr, "output_feature_dimension", 1),
              intListField(dnAttr, "input_spatial_dimensions"),      intListField(dnAttr, "kernel_spatial_dimensions"),
              intListField(dnAttr, "output_spatial_dimensions")};
  size_t n = dn.inputSpatial.size();
  if (dn.kernelSpatial.size() != n || dn.outputSpatial.size() != n)
    return eval.error("spatial dimension lists differ in length");
  auto withSpatial = [](std::vector<int64_t> dims, const std::vector<int64_t>& spatial) {
    dims.insert(dims.end(), spatial.begin(), spatial.end());
    return dims;
  };
  Type type = resultType(eval);
  KILN_RETURN_IF_ERROR(checkDimensionList(eval, "input dimensions",
                                          withSpatial({dn.inputBatch, dn.inputFeature}, dn.inputSpatial), lhs.rank()));
  KILN_RETURN_IF_ERROR(checkDimensionList(
      eval, "kernel dimensions", withSpatial({dn.kernelInputFeature, dn.kernelOutputFeature}, dn.kernelSpatial),
      rhs.rank()));
  KILN_RETURN_IF_ERROR(checkDimensionList(
      eval, "output dimensions", withSpatial({dn.outputBatch, dn.outputFeature}, dn.outputSpatial), type.rank()));

  std::vector<int64_t> strides = intListAttrOr(eval.op, "window_strides", n, 1);
  std::vector<int64_t> lhsDilation = intListAttrOr(eval.op, "lhs_dilation", n, 1);
  std::vector<int64_t> rhsDilation = intListAttrOr(eval.op, "rhs_dilation", n, 1);
  std::vector<int64_t> reversal = intListAttrOr(eval.op, "window_reversal", n, 0);
  std::vector<int64_t> padLow, padHigh;
  KILN_RETURN_IF_ERROR(
      readPadding(eval, paddingTensor ? *paddingTensor : paddingAttr(eval.op), n, padLow, padHigh));
  for (const auto* list : {&strides, &lhsDilation, &rhsDilation, &reversal})
    if (list->size() != n) return eval.error("window attributes must have one entry per spatial dimension");
  KILN_RETURN_IF_ERROR(checkPositive(eval, "window_strides", strides));
  KILN_RETURN_IF_ERROR(checkPositive(eval, "lhs_dilation", lhsDilation));
  KILN_RETURN_IF_ERROR(checkPositive(eval, "rhs_dilation", rhsDilation));

  Attribute fg = eval.op.attr("feature_group_count"), bg = eval.op.attr("batch_group_count");
  int64_t featureGroups = fg ? fg.intValue() : 1, batchGroups = bg ? bg.intValue() : 1;
  if (featureGroups < 1 || batchGroups < 1 || type.shape()[dn.outputFeature] % (featureGroups * batchGroups) != 0 ||
      lhs.shape()[dn.inputBatch] % batchGroups != 0 ||
      lhs.shape()[dn.inputFeature] != rhs.shape()[dn.kernelInputFeature] * featureGroups)
    return eval.error("group counts do not divide the feature and batch dimensions");

  std::span<const int64_t> rev(reversal);
  switch (carrierOf(type.elementType())) {
    case Carrier::Float:
      return std::vector<Tensor>{convolutionIn<double>(lhs, rhs, type, dn, strides, padLow, lhsDilation, rhsDilation,
                                                       rev, featureGroups, batchGroups)};
    case Carrier::Int:
      return std::vector<Tensor>{convolutionIn<uint64_t>(lhs, rhs, type, dn, strides, padLow, lhsDilation,
                                                         rhsDilation, rev, featureGroups, batchGroups)};
    case Carrier::Complex:
      return std::vector<Tensor>{convolutionIn<Complex>(lhs, rhs, type, dn, strides, padLow, lhsDilation,
                                                        rhsDilation, rev, featureGroups, batchGroups)};
    case Carrier::Bool: break;
  }
  return eval.error("on i1 is not supported");
}

Results convolution(OpEval& eval) { return convolutionWith(eval, nullptr); }

Results dynamicConv(OpEval& eval) {
  if (eval.operands.size() != 3) return eval.error("expects lhs, rhs and padding");
  return convolutionWith(eval, &eval.operands[2]);
}

// ---- fft -------------------------------------------------------------------------------

Results fft(OpEval& eval) {
  std::string fftType = enumAttr(eval.op, "fft_type", "FFT");
  std::vector<int64_t> fftLength = intListAttr(eval.op, "fft_length");
  const Tensor& operand = eval.operands[0];
  if (std::optional<std::string> problem = fourierTransformProblem(operand.type(), resultType(eval), fftType, fftLength))
    return eval.error(*problem);
  return std::vector<Tensor>{fourierTransform(operand, resultType(eval), fftType, fftLength, directDft)};
}

// ---- triangular_solve / cholesky -------------------------------------------------------
//
// The routines are shared with the LAPACK-style custom calls (linalg.h); they
// live outside the anonymous namespace, after it.

Results triangularSolve(OpEval& eval) {
  const Tensor& a = eval.operands[0];
  const Tensor& b = eval.operands[1];
  TriangularSolveSpec spec = triangularSolveSpecOf(eval.op);
  KILN_RETURN_IF_ERROR(checkFloatResult(eval, resultType(eval), /*allowComplex=*/true));
  if (a.rank() < 2 || b.rank() != a.rank()) return eval.error("expects batched matrices of equal rank");
  int64_t m = a.shape()[a.rank() - 1];
  int64_t rows = b.shape()[b.rank() - 2], cols = b.shape()[b.rank() - 1];
  if (a.shape()[a.rank() - 2] != m || (spec.leftSide ? rows : cols) != m)
    return eval.error("a must be square and match b");
  if (!std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin()))
    return eval.error("a and b must have the same batch dimensions");
  return std::vector<Tensor>{solveTriangular(a, b, resultType(eval), spec)};
}

Results cholesky(OpEval& eval) {
  const Tensor& a = eval.operands[0];
  KILN_RETURN_IF_ERROR(checkFloatResult(eval, resultType(eval), /*allowComplex=*/true));
  if (a.rank() < 2 || a.shape()[a.rank() - 1] != a.shape()[a.rank() - 2]) return eval.error("expects square matrices");
  std::vector<int64_t> info;
  return std::vector<Tensor>{
      choleskyFactor(a, resultType(eval), boolAttr(eval.op, "lower", false), /*keepOtherTriangle=*/false, info)};
}

// ---- batch_norm_training / batch_norm_inference / batch_norm_grad -----------------------

// Per-feature statistics of a tensor with a feature dimension: which feature
// each element belongs to and how many elements each feature has.
struct FeatureLayout {
  int64_t numFeatures, elementsPerFeature, featureStride;
  int64_t featureOf(int64_t i) const { return (i / featureStride) % numFeatures; }
};

Expected<FeatureLayout> featureLayout(const OpEval& eval, const Tensor& operand) {
  Attribute fi = eval.op.attr("feature_index");
  if (!fi || fi.intValue() < 0 || fi.intValue() >= operand.rank())
    return eval.error("needs a `feature_index` within the operand's rank");
  for (unsigned i = 0; i < eval.op.numResults(); ++i)
    KILN_RETURN_IF_ERROR(checkFloatResult(eval, resultType(eval, i), /*allowComplex=*/false));
  int64_t numFeatures = operand.shape()[fi.intValue()];
  return FeatureLayout{numFeatures, numFeatures ? operand.numElements() / numFeatures : 0,
                       rowMajorStrides(operand.shape())[fi.intValue()]};
}

double epsilonOf(const OpEval& eval) {
  Attribute e = eval.op.attr("epsilon");
  return e && e.is(AttrKind::Float) ? e.floatValue() : 0.0;
}

// Sum over each feature of f(i) for every element i.
template <typename Fn>
std::vector<double> sumPerFeature(const FeatureLayout& layout, int64_t numElements, Fn&& f) {
  std::vector<double> sums(layout.numFeatures, 0.0);
  for (int64_t i = 0; i < numElements; ++i) sums[layout.featureOf(i)] += f(i);
  return sums;
}

Tensor tensorOf(Type type, const std::vector<double>& values) {
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements(); ++i) t.setFloat(i, values[i]);
  return t;
}

// (x - mean) / sqrt(variance + epsilon) * scale + offset, per feature.
Tensor normalize(Type type, const std::vector<double>& x, const FeatureLayout& layout,
                 const std::vector<double>& mean, const std::vector<double>& variance,
                 const std::vector<double>& scale, const std::vector<double>& offset, double epsilon) {
  std::vector<double> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t f = layout.featureOf(i);
    y[i] = (x[i] - mean[f]) / std::sqrt(variance[f] + epsilon) * scale[f] + offset[f];
  }
  return tensorOf(type, y);
}

Results batchNormTraining(OpEval& eval) {
  if (eval.operands.size() != 3) return eval.error("expects operand, scale and offset");
  KILN_ASSIGN_OR_RETURN(FeatureLayout layout, featureLayout(eval, eval.operands[0]));
  std::vector<double> x = loadAs<double>(eval.operands[0]);
  double count = static_cast<double>(layout.elementsPerFeature);
  std::vector<double> mean = sumPerFeature(layout, x.size(), [&](int64_t i) { return x[i]; });
  for (double& m : mean) m /= count;
  std::vector<double> variance = sumPerFeature(layout, x.size(), [&](int64_t i) {
    double c = x[i] - mean[layout.featureOf(i)];
    return c * c;
  });
  for (double& v : variance) v /= count;
  Tensor output = normalize(resultType(eval, 0), x, layout, mean, variance, loadAs<double>(eval.operands[1]),
                            loadAs<double>(eval.operands[2]), epsilonOf(eval));
  return std::vector<Tensor>{output, tensorOf(resultType(eval, 1), mean), tensorOf(resultType(eval, 2), variance)};
}

Results batchNormInference(OpEval& eval) {
  if (eval.operands.size() != 5) return eval.error("expects operand, scale, offset, mean and variance");
  KILN_ASSIGN_OR_RETURN(FeatureLayout layout, featureLayout(eval, eval.operands[0]));
  return std::vector<Tensor>{normalize(resultType(eval), loadAs<double>(eval.operands[0]), layout,
                                       loadAs<double>(eval.operands[3]), loadAs<double>(eval.operands[4]),
                                       loadAs<double>(eval.operands[1]), loadAs<double>(eval.operands[2]),
                                       epsilonOf(eval))};
}

Results batchNormGrad(OpEval& eval) {
  if (eval.operands.size() != 5) return eval.error("expects operand, scale, mean, variance and grad_output");
  KILN_ASSIGN_OR_RETURN(FeatureLayout layout, featureLayout(eval, eval.operands[0]));
  std::vector<double> x = loadAs<double>(eval.operands[0]), scale = loadAs<double>(eval.operands[1]);
  std::vector<double> mean = loadAs<double>(eval.operands[2]), variance = loadAs<double>(eval.operands[3]);
  std::vector<double> dy = loadAs<double>(eval.operands[4]);
  double epsilon = epsilonOf(eval), count = static_cast<double>(layout.elementsPerFeature);
  auto centered = [&](int64_t i) { return x[i] - mean[layout.featureOf(i)]; };
  auto stddev = [&](int64_t f) { return std::sqrt(variance[f] + epsilon); };

  std::vector<double> gradOffset = sumPerFeature(layout, x.size(), [&](int64_t i) { return dy[i]; });
  std::vector<double> sumDyCentered = sumPerFeature(layout, x.size(), [&](int64_t i) { return dy[i] * centered(i); });
  std::vector<double> gradScale(layout.numFeatures);
  for (int64_t f = 0; f < layout.numFeatures; ++f) gradScale[f] = sumDyCentered[f] / stddev(f);
  // The spec's formula: scale / stddev / N * (N dy - sum(dy) - centered *
  // sum(dy * centered) / (variance + epsilon)).
  std::vector<double> gradOperand(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t f = layout.featureOf(i);
    gradOperand[i] = scale[f] / stddev(f) / count *
                     (count * dy[i] - gradOffset[f] - centered(i) * sumDyCentered[f] / (variance[f] + epsilon));
  }
  return std::vector<Tensor>{tensorOf(resultType(eval, 0), gradOperand), tensorOf(resultType(eval, 1), gradScale),
                             tensorOf(resultType(eval, 2), gradOffset)};
}

}  // namespace

// ---- Shared matrix routines (linalg.h) -----------------------------------------------------

int64_t matrixBatchCount(std::span<const int64_t> shape) { return numElementsOf(shape.subspan(0, shape.size() - 2)); }

TriangularSolveSpec triangularSolveSpecOf(const Operation& op) {
  TriangularSolveSpec spec;
  if (op.name() == "stablehlo.custom_call") {
    spec.leftSide = lapackOption(op, "side", 'L') == 'L';
    spec.lower = lapackOption(op, "uplo", 'L') == 'L';
    spec.unitDiagonal = lapackOption(op, "diag", 'N') == 'U';
    char trans = lapackOption(op, "trans_x", 'N');
    spec.transpose = trans != 'N';
    spec.conjugate = trans == 'C';
    return spec;
  }
  spec.leftSide = boolAttr(op, "left_side", false);
  spec.lower = boolAttr(op, "lower", false);
  spec.unitDiagonal = boolAttr(op, "unit_diagonal", false);
  std::string transposeA = enumAttr(op, "transpose_a", "NO_TRANSPOSE");
  spec.transpose = transposeA != "NO_TRANSPOSE";
  spec.conjugate = transposeA == "ADJOINT";
  return spec;
}

namespace {

Tensor storeAll(Type type, const std::vector<Complex>& values) { return tensorFromComplex(type, values); }

}  // namespace

namespace {

// The matrix routines below run in double for real element types and in
// complex<double> for complex ones: the same algorithm, but real inputs skip
// complex arithmetic (four multiplies per product, library division) and
// its NaN-producing cross terms with infinities.
double conjugate(double v) { return v; }
Complex conjugate(Complex v) { return std::conj(v); }
double squaredMagnitude(double v) { return v * v; }
double squaredMagnitude(Complex v) { return std::norm(v); }

Tensor storeAll(Type type, const std::vector<double>& values) { return tensorOf(type, values); }

// dst[i] -= src[i] * c for i in [0, n): the innermost loop of both routines,
// on distinct rows (restrict), so it vectorizes.
template <typename T>
void subtractScaled(T* __restrict dst, const T* __restrict src, T c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] -= src[i] * c;
}

template <typename T>
Tensor solveTriangularIn(const Tensor& a, const Tensor& b, Type resultType, const TriangularSolveSpec& spec) {
  int64_t m = a.shape()[a.rank() - 1];
  int64_t rows = b.shape()[b.rank() - 2], cols = b.shape()[b.rank() - 1];
  std::vector<T> av = loadAs<T>(a), x = loadAs<T>(b);
  // op(a) is lower triangular iff a's used triangle is lower xor a is transposed.
  bool opLower = spec.lower != spec.transpose;
  std::vector<T> t(m * m);  // op(a), only its triangle filled
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
    const T* am = av.data() + batch * m * m;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < m; ++j) {
        // Element (i, j) of op(a) is a[j][i] (conjugated for the adjoint) when transposed.
        int64_t ai = spec.transpose ? j : i, aj = spec.transpose ? i : j;
        bool inTriangle = spec.lower ? aj <= ai : aj >= ai;
        T v = inTriangle ? am[ai * m + aj] : T(0);
        if (spec.conjugate) v = conjugate(v);
        if (i == j && spec.unitDiagonal) v = 1;
        t[i * m + j] = v;
      }
    // Solve op(a) X = B column by column, or X op(a) = B row by row, by
    // substitution. Left: forward if op(a) is lower. Right (x t = b, i.e.
    // t^T x^T = b^T): t^T is upper when t is lower, so backward. All the
    // systems advance together, one unknown at a time (each system's sums
    // in the same order as alone), so the innermost loop runs across
    // systems, contiguous in `s` (x itself, or x transposed for the right side).
    T* xm = x.data() + batch * rows * cols;
    bool forward = spec.leftSide == opLower;
    int64_t systems = spec.leftSide ? cols : rows;
    std::vector<T> transposed;
    if (!spec.leftSide) {
      transposed.resize(rows * cols);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) transposed[c * rows + r] = xm[r * cols + c];
    }
    T* sm = spec.leftSide ? xm : transposed.data();  // unknown k of system q at sm[k * systems + q]
    for (int64_t step = 0; step < m; ++step) {
      int64_t k = forward ? step : m - 1 - step;
      T* sk = sm + k * systems;
      for (int64_t j = forward ? 0 : k + 1; j < (forward ? k : m); ++j) {
        subtractScaled(sk, sm + j * systems, spec.leftSide ? t[k * m + j] : t[j * m + k], systems);
      }
      for (int64_t q = 0; q < systems; ++q) sk[q] = sk[q] / t[k * m + k];
    }
    if (!spec.leftSide)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) xm[r * cols + c] = transposed[c * rows + r];
  }
  return storeAll(resultType, x);
}

template <typename T>
Tensor choleskyFactorIn(const Tensor& a, Type resultType, bool lower, bool keepOtherTriangle,
                        std::vector<int64_t>& info) {
  int64_t n = a.shape()[a.rank() - 1];
  std::vector<T> av = loadAs<T>(a), out(av.size());
  std::vector<T> lt(n * n);  // L column-major: lt[k * n + i] = L(i, k)
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
    const T* am = av.data() + batch * n * n;
    // L with A = L L^H from A's lower triangle; for the upper case A's upper
    // triangle is read as the lower one of A^H, and U = L^H returned.
    auto aAt = [&](int64_t i, int64_t j) { return lower ? am[i * n + j] : conjugate(am[j * n + i]); };  // i >= j
    int64_t failedAt = 0;
    // Column by column; the column's entries below the diagonal advance
    // together through k (each in the same order as alone), reading L
    // column-major so the innermost loop is contiguous.
    std::fill(lt.begin(), lt.end(), T(0));
    for (int64_t j = 0; j < n; ++j) {
      double diag = std::real(aAt(j, j));
      for (int64_t k = 0; k < j; ++k) diag -= squaredMagnitude(lt[k * n + j]);
      // Not positive definite: the sqrt yields NaN, which spreads onwards.
      if (!(diag > 0) && failedAt == 0) failedAt = j + 1;
      double pivot = std::sqrt(diag);
      T* column = lt.data() + j * n;
      column[j] = pivot;
      for (int64_t i = j + 1; i < n; ++i) column[i] = aAt(i, j);
      for (int64_t k = 0; k < j; ++k) {
        const T* lk = lt.data() + k * n;
        subtractScaled(column + j + 1, lk + j + 1, conjugate(lk[j]), n - j - 1);
      }
      for (int64_t i = j + 1; i < n; ++i) column[i] = column[i] / pivot;
    }
    info.push_back(failedAt);
    T* om = out.data() + batch * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        bool inFactor = lower ? j <= i : j >= i;
        if (inFactor) om[i * n + j] = lower ? lt[j * n + i] : conjugate(lt[i * n + j]);
        else om[i * n + j] = keepOtherTriangle ? am[i * n + j] : T(0);
      }
  }
  return storeAll(resultType, out);
}

// Transforms every line along dimension `dim` of a row-major complex array
// of `shape` in place; the inverse includes the 1/n factor.
void transformAlong(std::vector<Complex>& data, std::span<const int64_t> shape, int64_t dim, bool inverse,
                    const LineTransform& transform) {
  int64_t n = shape[dim];
  int64_t stride = rowMajorStrides(shape)[dim];
  int64_t outer = numElementsOf(shape.subspan(0, dim));
  std::vector<Complex> line(n);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < stride; ++i) {
      Complex* base = data.data() + o * n * stride + i;
      for (int64_t k = 0; k < n; ++k) line[k] = base[k * stride];
      transform(line, inverse);
      for (int64_t k = 0; k < n; ++k) base[k * stride] = inverse ? line[k] / static_cast<double>(n) : line[k];
    }
}

// The elements of `t` (row-major, `shape`) copied into a zero-filled array of
// `newShape`, index by index where both have them (truncates or zero-pads).
std::vector<Complex> resized(const std::vector<Complex>& t, std::span<const int64_t> shape,
                             std::span<const int64_t> newShape) {
  std::vector<Complex> out(numElementsOf(newShape));
  std::vector<int64_t> index(newShape.size(), 0);
  std::vector<int64_t> strides = rowMajorStrides(shape);
  for (size_t i = 0; i < out.size(); ++i, advanceIndex(index, newShape)) {
    if (!inBounds(index, shape)) continue;
    int64_t src = 0;
    for (size_t d = 0; d < shape.size(); ++d) src += index[d] * strides[d];
    out[i] = t[src];
  }
  return out;
}

}  // namespace

void directDft(std::span<Complex> line, bool inverse) {
  int64_t n = static_cast<int64_t>(line.size());
  double sign = inverse ? 1.0 : -1.0;
  std::vector<Complex> twiddle(n), out(n);
  for (int64_t k = 0; k < n; ++k)
    twiddle[k] = std::polar(1.0, sign * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n));
  for (int64_t k = 0; k < n; ++k) {
    Complex sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += line[j] * twiddle[(j * k) % n];
    out[k] = sum;
  }
  std::copy(out.begin(), out.end(), line.begin());
}

std::optional<std::string> fourierTransformProblem(Type operandType, Type resultType, std::string_view fftType,
                                                  std::span<const int64_t> fftLength) {
  std::string type(fftType);
  if (type != "FFT" && type != "IFFT" && type != "RFFT" && type != "IRFFT") return "unknown fft_type " + type;
  int64_t rank = operandType.rank();
  if (fftLength.empty() || static_cast<int64_t>(fftLength.size()) > rank)
    return "fft_length must name 1 to rank dimensions";
  if (resultType.rank() != rank) return "result rank differs from the operand's";
  bool realResult = type == "IRFFT";
  Type et = resultType.elementType();
  if (realResult ? !et.isFloat() : !et.isComplex())
    return type + " needs a " + (realResult ? "float" : "complex") + " result, not " + resultType.str();
  if (realResult) {
    std::vector<int64_t> fullShape(operandType.shape().begin(), operandType.shape().end());
    fullShape.back() = fftLength.back();
    if (!std::ranges::equal(fullShape, resultType.shape())) return "IRFFT result shape must end in fft_length";
  }
  return std::nullopt;
}

Tensor fourierTransform(const Tensor& operand, Type resultType, std::string_view fftType,
                        std::span<const int64_t> fftLength, const LineTransform& transform) {
  std::vector<Complex> data = loadAs<Complex>(operand);
  std::vector<int64_t> shape(operand.shape().begin(), operand.shape().end());
  int64_t rank = operand.rank();
  int64_t firstFftDim = rank - static_cast<int64_t>(fftLength.size());
  if (fftType != "IRFFT") {
    for (int64_t d = firstFftDim; d < rank; ++d) transformAlong(data, shape, d, fftType == "IFFT", transform);
    // RFFT keeps the non-redundant half of the last dimension.
    return storeAll(resultType, resized(data, shape, resultType.shape()));
  }
  // IRFFT: the inverse over the leading fft dimensions, then a
  // complex-to-real inverse over the last: its missing upper half is the
  // conjugate mirror image.
  for (int64_t d = firstFftDim; d < rank - 1; ++d) transformAlong(data, shape, d, /*inverse=*/true, transform);
  std::vector<int64_t> fullShape = shape;
  int64_t n = fftLength.back();
  fullShape.back() = n;
  int64_t half = shape.back();
  std::vector<Complex> full(numElementsOf(fullShape));
  for (int64_t row = 0; row < numElementsOf(fullShape) / std::max<int64_t>(n, 1); ++row)
    for (int64_t k = 0; k < n; ++k) {
      int64_t mirror = n - k;
      if (k < half && k <= n / 2) full[row * n + k] = data[row * half + k];
      else if (mirror < half) full[row * n + k] = std::conj(data[row * half + mirror]);
    }
  transformAlong(full, fullShape, rank - 1, /*inverse=*/true, transform);
  return storeAll(resultType, full);
}

Tensor solveTriangular(const Tensor& a, const Tensor& b, Type resultType, const TriangularSolveSpec& spec) {
  if (resultType.elementType().isComplex()) return solveTriangularIn<Complex>(a, b, resultType, spec);
  return solveTriangularIn<double>(a, b, resultType, spec);
}

Tensor choleskyFactor(const Tensor& a, Type resultType, bool lower, bool keepOtherTriangle,
                      std::vector<int64_t>& info) {
  if (resultType.elementType().isComplex()) return choleskyFactorIn<Complex>(a, resultType, lower, keepOtherTriangle, info);
  return choleskyFactorIn<double>(a, resultType, lower, keepOtherTriangle, info);
}

namespace {

// LAPACK picks the pivot of largest |re| + |im| (the first one on ties).
double pivotMagnitude(double v) { return std::abs(v); }
double pivotMagnitude(Complex v) { return std::abs(v.real()) + std::abs(v.imag()); }

template <typename T>
Tensor luFactorIn(const Tensor& a, Type resultType, std::vector<int64_t>& pivots, std::vector<int64_t>& info) {
  int64_t m = a.shape()[a.rank() - 2], n = a.shape()[a.rank() - 1];
  std::vector<T> lu = loadAs<T>(a);
  for (int64_t batch = 0; batch < matrixBatchCount(a.shape()); ++batch) {
    T* x = lu.data() + batch * m * n;
    int64_t firstZero = 0;
    for (int64_t j = 0; j < std::min(m, n); ++j) {
      int64_t p = j;
      for (int64_t i = j + 1; i < m; ++i)
        if (pivotMagnitude(x[i * n + j]) > pivotMagnitude(x[p * n + j])) p = i;
      pivots.push_back(p + 1);
      if (p != j)
        for (int64_t k = 0; k < n; ++k) std::swap(x[j * n + k], x[p * n + k]);
      if (x[j * n + j] == T(0)) {
        if (firstZero == 0) firstZero = j + 1;
        continue;  // as LAPACK: leave this column's multipliers alone
      }
      for (int64_t i = j + 1; i < m; ++i) {
        T factor = x[i * n + j] /= x[j * n + j];
        subtractScaled(x + i * n + j + 1, x + j * n + j + 1, factor, n - j - 1);
      }
    }
    info.push_back(firstZero);
  }
  return storeAll(resultType, lu);
}

}  // namespace

Tensor luFactor(const Tensor& a, Type resultType, std::vector<int64_t>& pivots, std::vector<int64_t>& info) {
  if (resultType.elementType().isComplex()) return luFactorIn<Complex>(a, resultType, pivots, info);
  return luFactorIn<double>(a, resultType, pivots, info);
}

void registerLinalgKernels(KernelTable& t) {
  t["stablehlo.dot_general"] = dotGeneral;
  t["stablehlo.convolution"] = convolution;
  t["stablehlo.dynamic_conv"] = dynamicConv;
  t["stablehlo.fft"] = fft;
  t["stablehlo.triangular_solve"] = triangularSolve;
  t["stablehlo.cholesky"] = cholesky;
  t["stablehlo.batch_norm_training"] = batchNormTraining;
  t["stablehlo.batch_norm_inference"] = batchNormInference;
  t["stablehlo.batch_norm_grad"] = batchNormGrad;
}

}  // namespace kiln::interp
