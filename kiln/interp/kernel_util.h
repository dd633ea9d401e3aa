// Helpers shared by the interpreter's kernels: multi-index iteration, checks
// of index lists, attribute access, bulk loads of tensor elements into an
// arithmetic carrier, and folding values with a region body (BodyFolder),
// which applies a body that is a single binary op directly so hot loops can
// skip running the region; and the spec's quantize / dequantize of single
// elements.
#pragma once

#include <bit>
#include <complex>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "kiln/interp/interpreter.h"
#include "kiln/interp/tensor.h"
#include "kiln/ir/attribute_readers.h"
#include "kiln/ir/shape.h"

namespace kiln::interp {

// ---- Indices, scalars and checks ----------------------------------------------

// Advances `index` to the next multi-index of `shape` in row-major order.
// Returns false (leaving `index` all zeros) after the last one.
bool advanceIndex(std::vector<int64_t>& index, std::span<const int64_t> shape);

// Number of elements of `shape`.
int64_t numElementsOf(std::span<const int64_t> shape);

// True if 0 <= index[d] < shape[d] for every d.
bool inBounds(std::span<const int64_t> index, std::span<const int64_t> shape);

// A 0-d tensor holding element `i` of `t` (for region arguments).
Tensor scalarAt(const Tensor& t, int64_t i);
// `scalar` (0-d) converted to 0-d tensor type `type` by value, the way the
// spec's to_destination_type does; `scalar` itself when the types agree.
Tensor convertScalar(const Tensor& scalar, Type type);

// Checks that every entry of `dims` names a dimension of a rank-`rank`
// tensor and none repeats; the error names the list as `what`. Kernels check
// the lists they index with, so an unverified program fails instead of
// reading out of bounds.
Status checkDimensionList(const OpEval& eval, std::string_view what, std::span<const int64_t> dims, int64_t rank);

// Checks that every entry of `values` (strides, dilations) is at least 1.
Status checkPositive(const OpEval& eval, std::string_view what, std::span<const int64_t> values);

// ---- Attributes and result types -------------------------------------------------------------

// The type of result `i` of the op being evaluated.
inline Type resultType(const OpEval& eval, unsigned i = 0) { return eval.op.result(i)->type(); }

// The `padding` attribute (a [n, 2] integer tensor) of reduce_window,
// select_and_scatter and convolution; a null Tensor when absent.
Tensor paddingAttr(const Operation& op);

// chlo.erf_inv in double, as the interpreter evaluates it (ops_chlo.cpp).
double erfInv(double y);
// Element `i` of `t` as chlo.top_k orders it (ops_chlo.cpp): a key whose
// signed order is the IEEE total order for floats (totalOrderKey of the
// value as a double), the value for integers.
int64_t topKKey(const Tensor& t, int64_t i);
inline int64_t totalOrderKey(double x) {
  int64_t bits = std::bit_cast<int64_t>(x);
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}
// Reads a [n, 2] padding tensor into its low and high columns; a null
// `padding` means no padding.
Status readPadding(const OpEval& eval, const Tensor& padding, size_t n, std::vector<int64_t>& low,
                   std::vector<int64_t>& high);
// All elements of an integer tensor, as int64.
std::vector<int64_t> intsOf(const Tensor& t);

// ---- Arithmetic carriers ----------------------------------------------------
//
// Kernels that compute (dot, convolution, fft, solvers, normalization) load
// their operands once into a vector of a wide carrier type, compute there and
// store the result once, rounding to the result element type:
//   uint64_t             for integers and i1 (wrap-around arithmetic,
//                        truncated to the element width on store, as two's
//                        complement requires),
//   double               for every float type (f4 ... f64),
//   std::complex<double> for complex types.

// The family of an element type, which decides its carrier and accessors.
enum class Carrier { Bool, Int, Float, Complex };
Carrier carrierOf(Type elementType);

template <typename T> std::vector<T> loadAs(const Tensor& t);
template <> std::vector<uint64_t> loadAs<uint64_t>(const Tensor& t);
template <> std::vector<double> loadAs<double>(const Tensor& t);
template <> std::vector<std::complex<double>> loadAs<std::complex<double>>(const Tensor& t);

// Stores element `i` of `t` from a carrier value.
inline void storeAs(Tensor& t, int64_t i, uint64_t v) { t.setInt(i, static_cast<int64_t>(v)); }
inline void storeAs(Tensor& t, int64_t i, double v) { t.setFloat(i, v); }
inline void storeAs(Tensor& t, int64_t i, std::complex<double> v) { t.setComplex(i, v); }

// A tensor of float or complex `type` from complex carriers in row-major
// order (a real type keeps their real parts).
Tensor tensorFromComplex(Type type, const std::vector<std::complex<double>>& values);

// acc + a * b in the carrier's ring.
template <typename T> T mulAdd(T acc, T a, T b) { return acc + a * b; }

// ---- Region bodies ----------------------------------------------------------

// A binary op that a reduction body may consist of.
enum class BinaryFn { None, Add, Multiply, Maximum, Minimum };

// If region `i` of `op` has two scalar arguments of one type and computes
// exactly `return x(arg0, arg1)` (or `x(arg1, arg0)`) with one op x of that
// result type, returns x; otherwise null.
const Operation* binaryBodyOp(const Operation& op, unsigned regionIndex);

// If region `i` of `op` is such a body with one of the ops above, on a float
// or integer element type, returns that fn; otherwise None.
BinaryFn recognizeBinaryBody(const Operation& op, unsigned regionIndex);

// `fn(a, b)` computed exactly as the StableHLO op would on element type `type`
// (a float or integer type), with a and b already values of that type:
// floats are rounded back to `type`, integers wrap to its width; maximum and
// minimum propagate NaN and order -0 below +0.
double applyBinary(BinaryFn fn, Type type, double a, double b);
int64_t applyBinary(BinaryFn fn, Type type, int64_t a, int64_t b);

// Checks that region `i` of the op exists and its body takes `numArgs` arguments.
Status checkBody(const OpEval& eval, unsigned i, size_t numArgs);

// Folds values into accumulators with a region whose body takes
// (acc_0..acc_{N-1}, value_0..value_{N-1}) and returns the new accumulators:
// the body of reduce, reduce_window, the update computation of scatter and
// the scatter region of select_and_scatter. Arguments are converted to the
// body's argument types (the spec's to_destination_type). When the body is
// one add / multiply / maximum / minimum on the accumulators' own element
// type, the op is applied directly instead of running the region.
class BodyFolder {
 public:
  // The region must exist and take 2 * accumulators.size() arguments.
  BodyFolder(OpEval& eval, unsigned regionIndex, std::vector<Tensor>& accumulators,
             std::span<const Tensor> valueSources);

  // accumulators[k][acc] = body(accumulators[k][acc], values[k][i]) for every k.
  Status fold(int64_t acc, std::span<const Tensor> values, int64_t i);

 private:
  OpEval& eval_;
  unsigned region_;
  std::vector<Tensor>& accs_;
  BinaryFn fastFn_ = BinaryFn::None;
};

// Rounds a double to the nearest value of float element type `type`.
double roundToFloatType(Type type, double v);

// ---- Quantized values ---------------------------------------------------------

// The spec's dequantize of element `i` of quantized tensor `x`,
// f = (q - zero_point) * scale: the difference is taken exactly (the spec's
// pseudocode subtracts in the storage type, where e.g. 127 - (-1) would wrap
// in i8; the type definition and XLA do not), then converted to the
// expressed type and scaled there.
double dequantizeAt(const Tensor& x, int64_t i);

// The spec's quantize of `x` into element `i` of a tensor of quantized type
// `resultType`: x / scale + zero_point in the expressed type, clamped to
// [storage_min, storage_max], rounded to nearest even. NaN (unspecified by
// the spec) becomes storage_min.
int64_t quantizeValue(double x, Type resultType, int64_t i);

}  // namespace kiln::interp
