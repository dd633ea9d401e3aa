#include "kiln/interp/kernel_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "kiln/ir/float_formats.h"

namespace kiln::interp {

bool advanceIndex(std::vector<int64_t>& index, std::span<const int64_t> shape) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d]) return true;
    index[d] = 0;
  }
  return false;
}

int64_t numElementsOf(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

bool inBounds(std::span<const int64_t> index, std::span<const int64_t> shape) {
  for (size_t d = 0; d < shape.size(); ++d)
    if (index[d] < 0 || index[d] >= shape[d]) return false;
  return true;
}

Status checkDimensionList(const OpEval& eval, std::string_view what, std::span<const int64_t> dims, int64_t rank) {
  std::vector<bool> seen(rank > 0 ? rank : 0, false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return eval.error(std::string(what) + " names dimension " + std::to_string(d) + " of a rank-" + std::to_string(rank) + " tensor");
    if (seen[d]) return eval.error(std::string(what) + " repeats dimension " + std::to_string(d));
    seen[d] = true;
  }
  return Status::ok();
}

Status checkPositive(const OpEval& eval, std::string_view what, std::span<const int64_t> values) {
  for (int64_t v : values)
    if (v < 1) return eval.error(std::string(what) + " must be at least 1, got " + std::to_string(v));
  return Status::ok();
}

Tensor scalarAt(const Tensor& t, int64_t i) {
  Tensor s(Type::tensor({}, t.elementType()));
  s.copyElement(0, t, i);
  return s;
}

Tensor convertScalar(const Tensor& scalar, Type type) {
  if (scalar.type() == type || !type.isTensor()) return scalar;
  Tensor converted(type);
  switch (carrierOf(type.elementType())) {
    case Carrier::Bool: converted.setBool(0, scalar.getBool(0)); break;
    case Carrier::Int: converted.setInt(0, scalar.getInt(0)); break;
    case Carrier::Float: converted.setFloat(0, scalar.getFloat(0)); break;
    case Carrier::Complex: converted.setComplex(0, scalar.getComplex(0)); break;
  }
  return converted;
}

Tensor paddingAttr(const Operation& op) {
  Attribute a = op.attr("padding");
  return a && a.is(AttrKind::DenseElements) ? Tensor::fromDense(a) : Tensor();
}

Status readPadding(const OpEval& eval, const Tensor& padding, size_t n, std::vector<int64_t>& low,
                   std::vector<int64_t>& high) {
  low.assign(n, 0);
  high.assign(n, 0);
  if (!padding) return Status::ok();
  if (padding.numElements() != static_cast<int64_t>(2 * n))
    return eval.error("padding must have shape [" + std::to_string(n) + ", 2], got " + padding.type().str());
  for (size_t d = 0; d < n; ++d) {
    low[d] = padding.getInt(2 * d);
    high[d] = padding.getInt(2 * d + 1);
  }
  return Status::ok();
}

std::vector<int64_t> intsOf(const Tensor& t) {
  std::vector<int64_t> v(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i) v[i] = t.getInt(i);
  return v;
}

Carrier carrierOf(Type elementType) {
  if (elementType.isBool()) return Carrier::Bool;
  if (elementType.isComplex()) return Carrier::Complex;
  if (elementType.isFloat()) return Carrier::Float;
  return Carrier::Int;
}

template <>
std::vector<uint64_t> loadAs<uint64_t>(const Tensor& t) {
  std::vector<uint64_t> v(t.numElements());
  bool isBool = t.elementType().isBool();
  for (int64_t i = 0; i < t.numElements(); ++i)
    v[i] = isBool ? t.getBool(i) : static_cast<uint64_t>(t.getInt(i));
  return v;
}

template <>
std::vector<double> loadAs<double>(const Tensor& t) {
  std::vector<double> v(t.numElements());
  Type et = t.elementType();
  // f32 and f64 are read directly: these loads feed the hot loops of dot and
  // convolution, and going through the generic accessor costs a type switch
  // per element.
  if (et.kind() == TypeKind::F32) {
    const float* p = reinterpret_cast<const float*>(t.bytes());
    for (int64_t i = 0; i < t.numElements(); ++i) v[i] = p[i];
  } else if (et.kind() == TypeKind::F64) {
    const double* p = reinterpret_cast<const double*>(t.bytes());
    v.assign(p, p + t.numElements());
  } else if (et.isFloat()) {
    for (int64_t i = 0; i < t.numElements(); ++i) v[i] = t.getFloat(i);
  } else if (et.isBool()) {
    for (int64_t i = 0; i < t.numElements(); ++i) v[i] = t.getBool(i);
  } else if (et.isUnsignedInteger()) {
    for (int64_t i = 0; i < t.numElements(); ++i) v[i] = static_cast<double>(t.getUInt(i));
  } else {
    for (int64_t i = 0; i < t.numElements(); ++i) v[i] = static_cast<double>(t.getInt(i));
  }
  return v;
}

template <>
std::vector<std::complex<double>> loadAs<std::complex<double>>(const Tensor& t) {
  std::vector<std::complex<double>> v(t.numElements());
  if (t.elementType().isComplex()) {
    for (int64_t i = 0; i < t.numElements(); ++i) v[i] = t.getComplex(i);
  } else {
    std::vector<double> re = loadAs<double>(t);
    for (size_t i = 0; i < re.size(); ++i) v[i] = re[i];
  }
  return v;
}

Tensor tensorFromComplex(Type type, const std::vector<std::complex<double>>& values) {
  Tensor t(type);
  bool isComplex = t.elementType().isComplex();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (isComplex) t.setComplex(i, values[i]);
    else t.setFloat(i, values[i].real());
  }
  return t;
}

namespace {

BinaryFn binaryFnOf(std::string_view opName) {
  if (opName == "stablehlo.add") return BinaryFn::Add;
  if (opName == "stablehlo.multiply") return BinaryFn::Multiply;
  if (opName == "stablehlo.maximum") return BinaryFn::Maximum;
  if (opName == "stablehlo.minimum") return BinaryFn::Minimum;
  return BinaryFn::None;
}

// Sign- or zero-extends the low `bits` bits of `v`, as a store to an integer
// type of that width would.
int64_t wrapToWidth(uint64_t v, unsigned bits, bool isUnsigned) {
  if (bits >= 64) return static_cast<int64_t>(v);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  v &= mask;
  if (!isUnsigned && (v >> (bits - 1)) & 1) v |= ~mask;
  return static_cast<int64_t>(v);
}

}  // namespace

const Operation* binaryBodyOp(const Operation& op, unsigned regionIndex) {
  if (regionIndex >= op.numRegions() || op.region(regionIndex).numBlocks() != 1) return nullptr;
  const Block& body = op.region(regionIndex).front();
  if (body.numArguments() != 2 || body.size() != 2) return nullptr;
  Type argType = body.argument(0)->type();
  if (!argType.isTensor() || argType.rank() != 0 || body.argument(1)->type() != argType) return nullptr;
  const Operation& compute = *body.front();
  const Operation& ret = *body.back();
  if (compute.numOperands() != 2 || compute.numResults() != 1) return nullptr;
  bool usesBothArgs = (compute.operand(0) == body.argument(0) && compute.operand(1) == body.argument(1)) ||
                      (compute.operand(0) == body.argument(1) && compute.operand(1) == body.argument(0));
  if (!usesBothArgs || compute.result(0)->type() != argType) return nullptr;
  if (ret.name() != "stablehlo.return" || ret.numOperands() != 1 || ret.operand(0) != compute.result(0))
    return nullptr;
  return &compute;
}

BinaryFn recognizeBinaryBody(const Operation& op, unsigned regionIndex) {
  const Operation* compute = binaryBodyOp(op, regionIndex);
  if (!compute) return BinaryFn::None;
  Type et = compute->result(0)->type().elementType();
  if (!et.isFloat() && !et.isInteger()) return BinaryFn::None;
  return binaryFnOf(compute->name());
}

Status checkBody(const OpEval& eval, unsigned i, size_t numArgs) {
  if (eval.op.numRegions() > i && !eval.op.region(i).empty() &&
      eval.op.region(i).front().numArguments() == numArgs)
    return Status::ok();
  return eval.error("region " + std::to_string(i) + " must take " + std::to_string(numArgs) + " arguments");
}

BodyFolder::BodyFolder(OpEval& eval, unsigned regionIndex, std::vector<Tensor>& accumulators,
                       std::span<const Tensor> valueSources)
    : eval_(eval), region_(regionIndex), accs_(accumulators) {
  Type accType = accs_[0].elementType();
  bool sameTypes = accs_.size() == 1;
  for (const Tensor& source : valueSources) sameTypes = sameTypes && source.elementType() == accType;
  if (sameTypes && eval.op.region(regionIndex).front().argument(0)->type().elementType() == accType)
    fastFn_ = recognizeBinaryBody(eval.op, regionIndex);
}

Status BodyFolder::fold(int64_t acc, std::span<const Tensor> values, int64_t i) {
  Tensor& acc0 = accs_[0];
  Type type = acc0.elementType();
  if (fastFn_ != BinaryFn::None && type.isFloat()) {
    acc0.setFloat(acc, applyBinary(fastFn_, type, acc0.getFloat(acc), values[0].getFloat(i)));
    return Status::ok();
  }
  if (fastFn_ != BinaryFn::None) {
    acc0.setInt(acc, applyBinary(fastFn_, type, acc0.getInt(acc), values[0].getInt(i)));
    return Status::ok();
  }
  const Block& body = eval_.op.region(region_).front();
  size_t n = accs_.size();
  std::vector<Tensor> args;
  for (size_t k = 0; k < n; ++k) args.push_back(convertScalar(scalarAt(accs_[k], acc), body.argument(k)->type()));
  for (size_t k = 0; k < n; ++k) args.push_back(convertScalar(scalarAt(values[k], i), body.argument(n + k)->type()));
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> combined, eval_.runRegion(region_, std::move(args)));
  if (combined.size() != n) return eval_.error("body must return " + std::to_string(n) + " values");
  for (size_t k = 0; k < n; ++k)
    accs_[k].copyElement(acc, convertScalar(combined[k], Type::tensor({}, accs_[k].elementType())), 0);
  return Status::ok();
}

double roundToFloatType(Type type, double v) {
  switch (type.kind()) {
    case TypeKind::F64: return v;
    case TypeKind::F32: return static_cast<double>(static_cast<float>(v));
    default: return decodeFloat(type.kind(), encodeFloat(type.kind(), v));
  }
}

double applyBinary(BinaryFn fn, Type type, double a, double b) {
  // Each op is computed exactly in double and rounded once; for + and * of
  // values of a narrower format this equals the correctly rounded result in
  // that format (double has more than twice the precision of f32).
  switch (fn) {
    case BinaryFn::Add: return roundToFloatType(type, a + b);
    case BinaryFn::Multiply: return roundToFloatType(type, a * b);
    case BinaryFn::Maximum:
    case BinaryFn::Minimum: {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      bool aBelowB = a < b || (a == b && std::signbit(a) && !std::signbit(b));
      return (fn == BinaryFn::Maximum) == aBelowB ? b : a;
    }
    case BinaryFn::None: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

int64_t applyBinary(BinaryFn fn, Type type, int64_t a, int64_t b) {
  bool isUnsigned = type.isUnsignedInteger();
  auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  bool aBelowB = isUnsigned ? ua < ub : a < b;
  switch (fn) {
    case BinaryFn::Add: return wrapToWidth(ua + ub, type.bitWidth(), isUnsigned);
    case BinaryFn::Multiply: return wrapToWidth(ua * ub, type.bitWidth(), isUnsigned);
    case BinaryFn::Maximum: return aBelowB ? b : a;
    case BinaryFn::Minimum: return aBelowB ? a : b;
    case BinaryFn::None: break;
  }
  return 0;
}

// ---- Quantized values ---------------------------------------------------------

namespace {

// The scale and zero point of element `i` of a tensor of `type` (per-tensor,
// or per slice of the quantized dimension).
std::pair<double, int64_t> quantParamsAt(Type type, int64_t i) {
  const QuantParams& q = type.elementType().quant();
  size_t k = 0;
  if (q.quantizedDimension) {
    int64_t d = *q.quantizedDimension;
    k = static_cast<size_t>((i / rowMajorStrides(type.shape())[d]) % type.shape()[d]);
  }
  return {q.scales[k], q.zeroPoints[k]};
}

}  // namespace

double dequantizeAt(const Tensor& x, int64_t i) {
  const QuantParams& q = x.elementType().quant();
  auto [scale, zeroPoint] = quantParamsAt(x.type(), i);
  double difference = roundToFloatType(q.expressedType, static_cast<double>(x.getInt(i) - zeroPoint));
  return roundToFloatType(q.expressedType, difference * roundToFloatType(q.expressedType, scale));
}

int64_t quantizeValue(double x, Type resultType, int64_t i) {
  const QuantParams& q = resultType.elementType().quant();
  Type expressed = q.expressedType;
  auto [scale, zeroPoint] = quantParamsAt(resultType, i);
  double scaled = roundToFloatType(expressed, x / roundToFloatType(expressed, scale));
  double shifted = roundToFloatType(expressed, scaled + roundToFloatType(expressed, static_cast<double>(zeroPoint)));
  double lo = roundToFloatType(expressed, static_cast<double>(q.storageMin));
  double hi = roundToFloatType(expressed, static_cast<double>(q.storageMax));
  if (std::isnan(shifted)) shifted = lo;  // unspecified by the spec; pick the minimum
  return static_cast<int64_t>(std::nearbyint(std::clamp(shifted, lo, hi)));  // default rounding: to even
}

}  // namespace kiln::interp
