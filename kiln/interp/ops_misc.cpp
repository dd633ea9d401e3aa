// Kernels of the remaining ops: random numbers (rng_bit_generator, rng),
// quantization (uniform_quantize, uniform_dequantize), custom_call with its
// registry of targets, and the host-communication ops infeed and outfeed
// (between the programs of one run; send and recv are in ops_collectives.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <numbers>
#include <string>

#include "kiln/interp/check_kernels.h"
#include "kiln/interp/evaluate_op.h"
#include "kiln/interp/interpreter.h"
#include "kiln/interp/interpreter_impl.h"
#include "kiln/interp/kernel_util.h"
#include "kiln/interp/linalg.h"
#include "kiln/interp/random_bits.h"

namespace kiln::interp {
namespace {

using Results = Expected<std::vector<Tensor>>;

// ---- Counter-based bit generators -------------------------------------------------
//
// Threefry and Philox (random_bits.h) arranged over the output exactly as
// XLA's RngBitGenerator expansion does (xla/hlo/builder/lib/prng.cc), so
// results match jax.lax.rng_bit_generator on XLA bit for bit.

// The generated bits of every output element (low `bits` bits meaningful)
// and the counter after generation.
struct RandomBits {
  std::vector<uint64_t> values;
  uint64_t counterLow = 0, counterHigh = 0;
};

// Threefry: a 64-bit counter per pair of 32-bit outputs. For 64-bit elements
// each counter yields one element (low word first). For narrower elements
// (generated as 32 bits, then truncated) XLA halves the shape along its first
// even dimension (else its largest), generating the two words of counter j
// for elements 2h and 2h+1 of that dimension.
RandomBits threefryBits(uint64_t key, uint64_t counter, std::span<const int64_t> shape, unsigned bits) {
  RandomBits out;
  int64_t n = numElementsOf(shape);
  out.values.resize(n);
  if (bits == 64) {
    for (int64_t j = 0; j < n; ++j) {
      Pair32 r = threefry2x32(split64(key), split64(counter + j));
      out.values[j] = join32(r[0], r[1]);
    }
    out.counterLow = counter + n;
    return out;
  }
  // A scalar is generated as a 1-element vector.
  std::vector<int64_t> dims(shape.begin(), shape.end());
  if (dims.empty()) dims = {1};
  auto even = std::find_if(dims.begin(), dims.end(), [](int64_t d) { return d % 2 == 0; });
  int64_t splitDim = (even != dims.end() ? even : std::max_element(dims.begin(), dims.end())) - dims.begin();
  std::vector<int64_t> halfShape = dims;
  halfShape[splitDim] = (dims[splitDim] + 1) / 2;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i, advanceIndex(index, dims)) {
    int64_t j = 0;  // the element's counter offset: its row-major index in halfShape
    for (size_t d = 0; d < dims.size(); ++d)
      j = j * halfShape[d] + (static_cast<int64_t>(d) == splitDim ? index[d] / 2 : index[d]);
    out.values[i] = threefry2x32(split64(key), split64(counter + j))[index[splitDim] % 2];
  }
  out.counterLow = counter + numElementsOf(halfShape);
  return out;
}

// Philox: a 128-bit counter per four 32-bit words; the word stream fills the
// output in row-major order (two words, low first, per 64-bit element).
RandomBits philoxBits(uint64_t key, uint64_t counterLow, uint64_t counterHigh, int64_t n, unsigned bits) {
  int64_t numWords = bits == 64 ? 2 * n : n;
  int64_t numBlocks = (numWords + 3) / 4;
  std::vector<uint32_t> words(numBlocks * 4);
  for (int64_t b = 0; b < numBlocks; ++b) {
    uint64_t lo = counterLow + static_cast<uint64_t>(b);
    uint64_t hi = counterHigh + (lo < counterLow ? 1 : 0);
    Pair32 l = split64(lo), h = split64(hi);
    Quad32 r = philox4x32(split64(key), {l[0], l[1], h[0], h[1]});
    std::copy(r.begin(), r.end(), words.begin() + 4 * b);
  }
  RandomBits out;
  out.values.resize(n);
  for (int64_t i = 0; i < n; ++i) out.values[i] = bits == 64 ? join32(words[2 * i], words[2 * i + 1]) : words[i];
  out.counterLow = counterLow + static_cast<uint64_t>(numBlocks);
  out.counterHigh = counterHigh + (out.counterLow < counterLow ? 1 : 0);
  return out;
}

// Stores the low bits of `raw` as the bit pattern of element `i`.
void storeBits(Tensor& t, int64_t i, uint64_t raw) {
  Type et = t.elementType();
  if (et.isBool()) return t.setBool(i, raw & 1);
  if (!et.isFloat()) return t.setInt(i, static_cast<int64_t>(raw));
  unsigned bits = et.bitWidth();
  if (bits < 64) raw &= (uint64_t{1} << bits) - 1;
  std::memcpy(t.bytes() + i * et.storageBytes(), &raw, et.storageBytes());  // little-endian host
}

Results rngBitGenerator(OpEval& eval) {
  const Tensor& state = eval.operands[0];
  std::string algorithm = enumAttr(eval.op, "rng_algorithm", "DEFAULT");
  // XLA's CPU and GPU compilers implement DEFAULT as PHILOX.
  if (algorithm == "DEFAULT") algorithm = "PHILOX";
  Tensor newState(resultType(eval, 0));
  Tensor output(resultType(eval, 1));
  if (!state.elementType().isInteger() || state.rank() != 1 || state.numElements() < 2)
    return eval.error("initial_state must be a 1-d integer tensor of at least 2 elements");
  uint64_t key = state.getUInt(0);
  unsigned bits = output.elementType().bitWidth() > 32 ? 64 : 32;

  RandomBits generated;
  if (algorithm == "THREE_FRY") {
    generated = threefryBits(key, state.getUInt(1), output.shape(), bits);
  } else if (algorithm == "PHILOX") {
    // The 128-bit counter is state[1..2]; XLA makes a 2-element state into
    // the counter (low = state[1], high = state[0]), and keeps only the low
    // half of the advanced counter.
    uint64_t high = state.numElements() > 2 ? state.getUInt(2) : key;
    generated = philoxBits(key, state.getUInt(1), high, output.numElements(), bits);
  } else {
    return eval.error("unknown rng_algorithm " + algorithm);
  }
  for (int64_t i = 0; i < output.numElements(); ++i) storeBits(output, i, generated.values[i]);
  // The key stays; the counter advances past the words used.
  newState.copyElement(0, state, 0);
  newState.setInt(1, static_cast<int64_t>(generated.counterLow));
  if (newState.numElements() > 2) newState.setInt(2, static_cast<int64_t>(generated.counterHigh));
  return std::vector<Tensor>{newState, output};
}

// ---- rng -----------------------------------------------------------------------------
//
// The spec leaves rng's numbers implementation-defined. Every evaluation
// uses the same documented stream: Philox-4x32 with key 0 and counter 0; each
// element takes two 32-bit words as a 64-bit value u (low word first).
//   UNIFORM, float: a + (b - a) * (u >> 11) * 2^-53, rounded (so in [a, b)
//                   up to rounding); integer: a + u mod (b - a), a if b <= a.
//   NORMAL:         a + b * z, z by Box-Muller from two such uniforms.

double unitInterval(uint64_t u) { return static_cast<double>(u >> 11) * 0x1p-53; }

Results rng(OpEval& eval) {
  if (eval.operands.size() != 3) return eval.error("expects a, b and shape");
  const Tensor& a = eval.operands[0];
  const Tensor& b = eval.operands[1];
  std::string distribution = enumAttr(eval.op, "rng_distribution", "UNIFORM");
  Tensor result(resultType(eval));
  int64_t n = result.numElements();
  Type et = result.elementType();
  bool normal = distribution == "NORMAL";
  if (!normal && distribution != "UNIFORM") return eval.error("unknown rng_distribution " + distribution);
  if (normal && !et.isFloat()) return eval.error("NORMAL needs a float result");
  if (a.numElements() != 1 || b.numElements() != 1) return eval.error("a and b must be scalars");
  std::vector<uint64_t> u = philoxBits(0, 0, 0, normal ? 2 * n : n, 64).values;
  for (int64_t i = 0; i < n; ++i) {
    if (normal) {
      double u1 = 1.0 - unitInterval(u[2 * i]);  // in (0, 1]: log is finite
      double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * unitInterval(u[2 * i + 1]));
      result.setFloat(i, a.getFloat(0) + b.getFloat(0) * z);
    } else if (et.isFloat()) {
      result.setFloat(i, a.getFloat(0) + (b.getFloat(0) - a.getFloat(0)) * unitInterval(u[i]));
    } else {
      int64_t lo = et.isBool() ? a.getBool(0) : a.getInt(0), hi = et.isBool() ? b.getBool(0) : b.getInt(0);
      uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
      int64_t v = hi <= lo ? lo : static_cast<int64_t>(static_cast<uint64_t>(lo) + u[i] % range);
      if (et.isBool()) result.setBool(i, v != 0);
      else result.setInt(i, v);
    }
  }
  return std::vector<Tensor>{result};
}

// ---- uniform_quantize / uniform_dequantize ---------------------------------------------

Results uniformQuantize(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  Tensor result(resultType(eval));
  if (!result.elementType().isQuantized()) return eval.error("result must have a quantized element type");
  bool requantize = operand.elementType().isQuantized();
  if (!requantize && !operand.elementType().isFloat()) return eval.error("operand must be float or quantized");
  for (int64_t i = 0; i < result.numElements(); ++i) {
    double x = requantize ? dequantizeAt(operand, i) : operand.getFloat(i);
    result.setInt(i, quantizeValue(x, result.type(), i));
  }
  return std::vector<Tensor>{result};
}

Results uniformDequantize(OpEval& eval) {
  const Tensor& operand = eval.operands[0];
  if (!operand.elementType().isQuantized()) return eval.error("operand must have a quantized element type");
  Tensor result(resultType(eval));
  if (!result.elementType().isFloat()) return eval.error("result must have a float element type");
  for (int64_t i = 0; i < result.numElements(); ++i) result.setFloat(i, dequantizeAt(operand, i));
  return std::vector<Tensor>{result};
}

// ---- custom_call -------------------------------------------------------------------------
//
// The registry of custom_call targets the interpreter knows:
//   - @check.* (the test assertions; ops_check.cpp implements them);
//   - annotations JAX exports that do not change values on one device:
//     Sharding, SPMDFullToShardShape, SPMDShardToFullShape,
//     annotate_device_placement, MoveToHost, MoveToDevice: each returns its
//     operands unchanged (shapes must agree);
//   - the LAPACK routines JAX's CPU lowering calls (for f32, f64, c64, c128,
//     with leading batch dimensions): lapack_{s,d,c,z}trsm_ffi (triangular
//     solve), lapack_{s,d,c,z}potrf_ffi (Cholesky, with info) and
//     lapack_{s,d,c,z}getrf_ffi (LU with partial pivoting, with pivots and
//     info); for real matrices lapack_{s,d}geqrf_ffi and _orgqr_ffi (QR),
//     _syevd_ffi (symmetric eigendecomposition) and _gesdd_ffi (SVD), whose
//     complex versions are reported as not supported yet. Their options come
//     as characters in `mhlo.backend_config`.
// Any other target is an error naming it.

constexpr std::string_view kIdentityTargets[] = {"Sharding",     "SPMDFullToShardShape", "SPMDShardToFullShape",
                                                 "annotate_device_placement", "MoveToHost", "MoveToDevice"};

Results identityCall(OpEval& eval, std::string_view target) {
  if (eval.operands.size() != eval.op.numResults())
    return eval.error("@" + std::string(target) + " must have as many results as operands");
  for (size_t i = 0; i < eval.operands.size(); ++i)
    if (eval.operands[i].type() != resultType(eval, i))
      return eval.error("@" + std::string(target) + " changes a type, which needs several partitions");
  return eval.operands;
}

// Checks that `t` is a batch of matrices (rank >= 2), square if asked.
Status checkMatrices(const OpEval& eval, const Tensor& t, bool square) {
  if (t.rank() < 2 || !(t.elementType().isFloat() || t.elementType().isComplex()))
    return eval.error("expects float or complex matrices");
  if (square && t.shape()[t.rank() - 1] != t.shape()[t.rank() - 2]) return eval.error("expects square matrices");
  return Status::ok();
}

// A tensor of integer type `type` holding `values` in row-major order.
Tensor intTensor(Type type, const std::vector<int64_t>& values) {
  Tensor t(type);
  for (int64_t i = 0; i < t.numElements() && i < static_cast<int64_t>(values.size()); ++i) t.setInt(i, values[i]);
  return t;
}

Results lapackTrsm(OpEval& eval) {
  if (eval.operands.size() != 2) return eval.error("trsm expects a and b");
  const Tensor& a = eval.operands[0];
  const Tensor& b = eval.operands[1];
  KILN_RETURN_IF_ERROR(checkMatrices(eval, a, true));
  KILN_RETURN_IF_ERROR(checkMatrices(eval, b, false));
  TriangularSolveSpec spec = triangularSolveSpecOf(eval.op);
  int64_t m = a.shape()[a.rank() - 1];
  if (b.rank() != a.rank() || b.shape()[b.rank() - (spec.leftSide ? 2 : 1)] != m ||
      !std::equal(a.shape().begin(), a.shape().end() - 2, b.shape().begin()))
    return eval.error("trsm: a and b do not match");
  return std::vector<Tensor>{solveTriangular(a, b, resultType(eval), spec)};
}

Results lapackPotrf(OpEval& eval) {
  if (eval.operands.size() != 1 || eval.op.numResults() != 2) return eval.error("potrf expects a -> (factor, info)");
  KILN_RETURN_IF_ERROR(checkMatrices(eval, eval.operands[0], true));
  std::vector<int64_t> info;
  Tensor factor = choleskyFactor(eval.operands[0], resultType(eval, 0), lapackOption(eval.op, "uplo", 'L') == 'L',
                                 /*keepOtherTriangle=*/true, info);
  return std::vector<Tensor>{factor, intTensor(resultType(eval, 1), info)};
}

Results lapackGetrf(OpEval& eval) {
  if (eval.operands.size() != 1 || eval.op.numResults() != 3)
    return eval.error("getrf expects a -> (lu, pivots, info)");
  KILN_RETURN_IF_ERROR(checkMatrices(eval, eval.operands[0], false));
  std::vector<int64_t> pivots, info;
  Tensor lu = luFactor(eval.operands[0], resultType(eval, 0), pivots, info);
  return std::vector<Tensor>{lu, intTensor(resultType(eval, 1), pivots), intTensor(resultType(eval, 2), info)};
}

// The decompositions (decompositions.cpp) take real matrices only.
Status checkRealMatrices(const OpEval& eval, const Tensor& t, bool square) {
  KILN_RETURN_IF_ERROR(checkMatrices(eval, t, square));
  if (t.elementType().isComplex()) return eval.error("complex matrices are not supported by this decomposition yet");
  return Status::ok();
}

Results lapackGeqrf(OpEval& eval) {
  if (eval.operands.size() != 1 || eval.op.numResults() != 2) return eval.error("geqrf expects a -> (a, tau)");
  KILN_RETURN_IF_ERROR(checkRealMatrices(eval, eval.operands[0], false));
  Tensor tau;
  Tensor qr = householderQr(eval.operands[0], resultType(eval, 0), resultType(eval, 1), tau);
  return std::vector<Tensor>{qr, tau};
}

Results lapackOrgqr(OpEval& eval) {
  if (eval.operands.size() != 2 || eval.op.numResults() != 1) return eval.error("orgqr expects (a, tau) -> q");
  KILN_RETURN_IF_ERROR(checkRealMatrices(eval, eval.operands[0], false));
  const Tensor& a = eval.operands[0];
  if (eval.operands[1].rank() != a.rank() - 1 || eval.operands[1].shape().back() > a.shape().back())
    return eval.error("orgqr: tau does not match a");
  return std::vector<Tensor>{householderProduct(a, eval.operands[1], resultType(eval, 0))};
}

Results lapackSyevd(OpEval& eval) {
  if (eval.operands.size() != 1 || eval.op.numResults() != 3) return eval.error("syevd expects a -> (v, w, info)");
  KILN_RETURN_IF_ERROR(checkRealMatrices(eval, eval.operands[0], true));
  Tensor vectors, values;
  std::vector<int64_t> info;
  symmetricEigen(eval.operands[0], lapackOption(eval.op, "uplo", 'L') == 'L', resultType(eval, 0), resultType(eval, 1),
                 vectors, values, info);
  return std::vector<Tensor>{vectors, values, intTensor(resultType(eval, 2), info)};
}

Results lapackGesdd(OpEval& eval) {
  if (eval.operands.size() != 1 || eval.op.numResults() != 5) return eval.error("gesdd expects a -> (a, s, u, vt, info)");
  KILN_RETURN_IF_ERROR(checkRealMatrices(eval, eval.operands[0], false));
  for (unsigned i : {2u, 3u})
    if (resultType(eval, i).rank() != eval.operands[0].rank()) return eval.error("gesdd: u and vt must be matrices");
  Tensor values, u, vt;
  singularValueDecomposition(eval.operands[0], resultType(eval, 1), resultType(eval, 2), resultType(eval, 3), values, u, vt);
  // LAPACK leaves a overwritten; it is returned unchanged here.
  return std::vector<Tensor>{eval.operands[0], values, u, vt, Tensor(resultType(eval, 4))};
}

// Checks that result `i` has `shape` (and a complex element type if asked):
// the kernels below write results by index.
Status checkResultShape(const OpEval& eval, unsigned i, std::span<const int64_t> shape, bool complex = false) {
  Type t = resultType(eval, i);
  if (!t.isTensor() || !std::ranges::equal(t.shape(), shape) || (complex && !t.elementType().isComplex()))
    return eval.error("result #" + std::to_string(i) + " has type " + t.str() + ", which does not match the operands");
  return Status::ok();
}

// geev (jnp.linalg.eig): a -> (wr, wi, vl, vr, info) for real a, (w, vl, vr,
// info) for complex a; vl and vr are complex either way (JAX's FFI unpacks
// real geev's vectors). compute_left / compute_right are 'V' or 'N'.
Results lapackGeev(OpEval& eval) {
  if (eval.operands.size() != 1) return eval.error("geev expects one operand");
  const Tensor& a = eval.operands[0];
  KILN_RETURN_IF_ERROR(checkMatrices(eval, a, true));
  unsigned valueCount = a.elementType().isComplex() ? 1 : 2;
  if (eval.op.numResults() != valueCount + 3)
    return eval.error(valueCount == 2 ? "real geev expects a -> (wr, wi, vl, vr, info)"
                                      : "complex geev expects a -> (w, vl, vr, info)");
  std::vector<int64_t> matrices(a.shape().begin(), a.shape().end());
  std::vector<int64_t> values(matrices.begin(), matrices.end() - 1), batch(matrices.begin(), matrices.end() - 2);
  std::vector<Type> valueTypes;
  for (unsigned i = 0; i < valueCount; ++i) {
    KILN_RETURN_IF_ERROR(checkResultShape(eval, i, values, valueCount == 1));
    valueTypes.push_back(resultType(eval, i));
  }
  KILN_RETURN_IF_ERROR(checkResultShape(eval, valueCount, matrices, true));
  KILN_RETURN_IF_ERROR(checkResultShape(eval, valueCount + 1, matrices, true));
  KILN_RETURN_IF_ERROR(checkResultShape(eval, valueCount + 2, batch));
  GeneralEigenResults out;
  generalEigen(a, lapackOption(eval.op, "compute_left", 'N') == 'V', lapackOption(eval.op, "compute_right", 'N') == 'V',
               valueTypes, resultType(eval, valueCount), resultType(eval, valueCount + 1),
               resultType(eval, valueCount + 2), out);
  std::vector<Tensor> results = std::move(out.values);
  for (Tensor* t : {&out.left, &out.right, &out.info}) results.push_back(std::move(*t));
  return results;
}

// The operands of a tridiagonal solve, JAX's (dl, d, du, b): diagonals of
// shape [..., n] and b of shape [..., n, nrhs], of one element type.
Status checkTridiagonalOperands(const OpEval& eval) {
  if (eval.operands.size() != 4) return eval.error("a tridiagonal solve expects (dl, d, du, b)");
  const Tensor& d = eval.operands[1];
  const Tensor& b = eval.operands[3];
  KILN_RETURN_IF_ERROR(checkMatrices(eval, b, false));
  std::span<const int64_t> diagonal = d.shape();
  if (b.rank() != d.rank() + 1 || !std::equal(diagonal.begin(), diagonal.end(), b.shape().begin()))
    return eval.error("a tridiagonal solve's b must be [..., n, nrhs] for diagonals of shape [..., n]");
  for (unsigned i = 0; i < 3; ++i)
    if (!std::ranges::equal(eval.operands[i].shape(), diagonal) || eval.operands[i].elementType() != b.elementType())
      return eval.error("a tridiagonal solve's dl, d, du and b must agree in batch shape, n and element type");
  return Status::ok();
}

// gtsv (lax.linalg.tridiagonal_solve): (dl, d, du, b) -> (dl, d, du, x, info).
Results lapackGtsv(OpEval& eval) {
  if (eval.op.numResults() != 5) return eval.error("gtsv expects (dl, d, du, b) -> (dl, d, du, x, info)");
  KILN_RETURN_IF_ERROR(checkTridiagonalOperands(eval));
  std::span<const int64_t> diagonal = eval.operands[1].shape();
  for (unsigned i = 0; i < 3; ++i) KILN_RETURN_IF_ERROR(checkResultShape(eval, i, diagonal));
  KILN_RETURN_IF_ERROR(checkResultShape(eval, 3, eval.operands[3].shape()));
  KILN_RETURN_IF_ERROR(checkResultShape(eval, 4, diagonal.subspan(0, diagonal.size() - 1)));
  return tridiagonalSolve(eval.operands[0], eval.operands[1], eval.operands[2], eval.operands[3], resultType(eval, 4));
}

// tridiagonal_solve(perturb_singular=True): (dl, d, du, b) -> x.
Results tridiagonalSolvePerturbedCall(OpEval& eval) {
  if (eval.op.numResults() != 1) return eval.error("@tridiagonal_solve_perturbed_ffi expects (dl, d, du, b) -> x");
  KILN_RETURN_IF_ERROR(checkTridiagonalOperands(eval));
  if (resultType(eval) != eval.operands[3].type()) return eval.error("@tridiagonal_solve_perturbed_ffi: x must have b's type");
  return std::vector<Tensor>{
      tridiagonalSolvePerturbed(eval.operands[0], eval.operands[1], eval.operands[2], eval.operands[3])};
}

// The LAPACK kernel for `target`, if it is lapack_<s|d|c|z><routine>_ffi.
std::optional<Kernel> lapackKernel(std::string_view target) {
  std::string_view routine = lapackRoutine(target);
  if (routine == "trsm") return Kernel(lapackTrsm);
  if (routine == "potrf") return Kernel(lapackPotrf);
  if (routine == "getrf") return Kernel(lapackGetrf);
  if (routine == "geqrf") return Kernel(lapackGeqrf);
  if (routine == "orgqr" || routine == "ungqr") return Kernel(lapackOrgqr);
  if (routine == "syevd" || routine == "heevd") return Kernel(lapackSyevd);
  if (routine == "gesdd") return Kernel(lapackGesdd);
  if (routine == "geev") return Kernel(lapackGeev);
  if (routine == "gtsv") return Kernel(lapackGtsv);
  return std::nullopt;
}

// The function named `name` in the module around `op`, if any.
const Operation* enclosingFunction(const Operation& op, std::string_view name) {
  const Operation* top = &op;
  while (top->parentOp()) top = top->parentOp();
  if (top->numRegions() != 1 || top->region(0).numBlocks() != 1) return nullptr;
  for (const Operation* fn : top->region(0).front().ops())
    if (fn->name() == "func.func" && func::name(*fn) == name && fn->region(0).numBlocks() == 1) return fn;
  return nullptr;
}

// ApproxTopK (lax.approx_max_k, approx_min_k): on CPU XLA computes it
// exactly -- each slice along reduction_dim stably sorted by the comparator
// function (called_computations), its first entries kept -- and so does this.
// Operands: N inputs, then N init values (unused by the exact form).
Results approxTopK(OpEval& eval) {
  size_t n = eval.operands.size() / 2;
  if (n == 0 || eval.operands.size() != 2 * n || eval.op.numResults() != n)
    return eval.error("@ApproxTopK expects N inputs, N init values and N results");
  Attribute config = eval.op.attr("mhlo.backend_config");
  Attribute dimAttr = config && config.is(AttrKind::Dictionary) ? config.get("reduction_dim") : Attribute();
  Attribute called = eval.op.attr("called_computations");
  if (!dimAttr || !dimAttr.is(AttrKind::Integer) || !called || !called.is(AttrKind::Array) || called.arrayValue().size() != 1 ||
      !called.arrayValue()[0].is(AttrKind::SymbolRef))
    return eval.error("@ApproxTopK needs reduction_dim and one comparator in called_computations");
  const Operation* comparator = enclosingFunction(eval.op, called.arrayValue()[0].symbolPath().back());
  if (!comparator) return eval.error("@ApproxTopK's comparator function is not in the module");
  const Tensor& keys = eval.operands[0];
  int64_t dim = dimAttr.intValue(), rank = keys.rank();
  if (dim < 0 || dim >= rank) return eval.error("@ApproxTopK's reduction_dim is out of range");
  int64_t length = keys.shape()[dim], kept = resultType(eval, 0).shape()[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < rank; ++d) inner *= keys.shape()[d];
  for (size_t i = 0; i < n; ++i)
    if (!std::ranges::equal(eval.operands[i].shape(), keys.shape()) || resultType(eval, i).shape()[dim] != kept || kept > length)
      return eval.error("@ApproxTopK's inputs and results do not match");
  // less(a, b): the comparator on elements a and b of the slice, its ops
  // evaluated one by one on scalars.
  const Block& body = comparator->region(0).front();
  if (body.numArguments() != 2 * n) return eval.error("@ApproxTopK's comparator takes 2N scalars");
  Status failure;
  auto less = [&](int64_t a, int64_t b) {
    std::map<const Value*, Tensor> values;
    for (size_t i = 0; i < n; ++i) {
      Type scalar = Type::tensor({}, eval.operands[i].elementType());
      Tensor x(scalar), y(scalar);
      x.copyElement(0, eval.operands[i], a);
      y.copyElement(0, eval.operands[i], b);
      values[body.argument(2 * i)] = x;
      values[body.argument(2 * i + 1)] = y;
    }
    for (const Operation* op : body.ops()) {
      if (op->name() == "func.return") return values.at(op->operand(0)).getBool(0);
      std::vector<Tensor> operands;
      for (const Value* v : op->operands()) operands.push_back(values.at(v));
      auto results = evaluateOp(*op, std::move(operands));
      if (!results) {
        if (failure.isOk()) failure = results.takeStatus();
        return false;
      }
      for (unsigned r = 0; r < op->numResults(); ++r) values[op->result(r)] = (*results)[r];
    }
    return false;
  };
  std::vector<Tensor> outputs;
  for (size_t i = 0; i < n; ++i) outputs.push_back(Tensor(resultType(eval, i)));
  std::vector<int64_t> order(length);
  int64_t outer = keys.numElements() / std::max<int64_t>(1, length * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      int64_t base = o * length * inner + in;
      for (int64_t j = 0; j < length; ++j) order[j] = base + j * inner;
      std::stable_sort(order.begin(), order.end(), less);
      if (!failure.isOk()) return failure;
      for (size_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < kept; ++j) outputs[i].copyElement(o * kept * inner + j * inner + in, eval.operands[i], order[j]);
    }
  return outputs;
}

// JAX's host callbacks (jax.debug.print, jax.pure_callback,
// jax.experimental.io_callback) lower to these targets with an opaque index
// into jaxlib's table of Python callables, which only jaxlib can call.
bool isJaxHostCallback(std::string_view target) {
  return target.find("python") != std::string_view::npos && target.find("callback") != std::string_view::npos;
}

// The kernel of custom_call target `target`, if the interpreter has one.
std::optional<Kernel> customCallKernel(const std::string& target) {
  if (std::optional<Kernel> check = checkCustomCallKernel(target)) return check;
  if (std::optional<Kernel> lapack = lapackKernel(target)) return lapack;
  if (target == "ApproxTopK") return Kernel(approxTopK);
  if (target == "tridiagonal_solve_perturbed_ffi") return Kernel(tridiagonalSolvePerturbedCall);
  for (std::string_view identity : kIdentityTargets)
    if (target == identity) return Kernel([target](OpEval& eval) { return identityCall(eval, target); });
  return std::nullopt;
}

// Why the interpreter cannot run custom_call target `target`.
std::string unsupportedTargetMessage(const std::string& target) {
  if (isJaxHostCallback(target))
    return "target @" + target +
           " is a JAX host callback (jax.debug.print, jax.pure_callback or io_callback): kiln cannot call back "
           "into Python yet; remove the callback from the jitted function or run it under jax.jit";
  return "target @" + target + " is not supported by kiln (interpreter or cpu back end)";
}

Results customCall(OpEval& eval) {
  Attribute targetAttr = eval.op.attr("call_target_name");
  if (!targetAttr || !targetAttr.is(AttrKind::String)) return eval.error("needs a `call_target_name`");
  const std::string& target = targetAttr.stringValue();
  if (std::optional<Kernel> kernel = customCallKernel(target)) return (*kernel)(eval);
  return eval.error(unsupportedTargetMessage(target));
}

// ---- infeed / outfeed -----------------------------------------------------------------------

// They exchange data with the host. A lone program has none; the programs of
// one run (interpreter.run_parallel's) share its queues, kept at the run's
// rendezvous (instance.h): an infeed takes the next element queued by
// run_parallel's `infeed`, an outfeed appends its operands to the run's
// outfeed.
Status requireRun(OpEval& eval) {
  Rendezvous* rendezvous = eval.interp.instance().rendezvous;
  if (rendezvous && rendezvous->hasHostQueues()) return Status::ok();
  return eval.error("has no host queue to talk to: infeed and outfeed run in the programs of "
                    "interpreter.run_parallel, whose `infeed` fills the queue");
}

Results infeed(OpEval& eval) {
  KILN_RETURN_IF_ERROR(requireRun(eval));
  KILN_ASSIGN_OR_RETURN(std::vector<Tensor> values, eval.interp.instance().rendezvous->infeed(eval.op));
  std::string queued, wanted;
  for (const Tensor& t : values) queued += (queued.empty() ? "" : ", ") + t.type().str();
  for (unsigned i = 0; i + 1 < eval.op.numResults(); ++i)
    wanted += (wanted.empty() ? "" : ", ") + eval.op.result(i)->type().str();
  if (queued != wanted)
    return eval.error("reads (" + wanted + "), but the infeed queue's next element is (" + queued + ")");
  values.emplace_back(Type::token());
  return values;
}

Results outfeed(OpEval& eval) {
  KILN_RETURN_IF_ERROR(requireRun(eval));
  const Interpreter::Instance& self = eval.interp.instance();
  self.rendezvous->outfeed(self.index(), std::vector<Tensor>(eval.operands.begin(), eval.operands.end() - 1));
  return std::vector<Tensor>{Tensor(Type::token())};
}

}  // namespace

void registerMiscKernels(KernelTable& t) {
  t["stablehlo.rng_bit_generator"] = rngBitGenerator;
  t["stablehlo.rng"] = rng;
  t["stablehlo.uniform_quantize"] = uniformQuantize;
  t["stablehlo.uniform_dequantize"] = uniformDequantize;
  t["stablehlo.custom_call"] = customCall;
  // Sharding annotations: identities on one device (ops/sdy_ops.cpp).
  for (const char* name : {"sdy.sharding_constraint", "sdy.reshard", "sdy.propagation_barrier"})
    t[name] = [](OpEval& eval) -> Results { return eval.operands; };
  t["sdy.sharding_group"] = [](OpEval&) -> Results { return std::vector<Tensor>{}; };  // no result
  t["stablehlo.infeed"] = infeed;
  t["stablehlo.outfeed"] = outfeed;
}

namespace {

// The functions `attr` names (a symbol, or an array holding symbols, as
// callee, decomposition and called_computations do).
void collectCallees(const Module& module, const Attribute& attr, std::vector<const Operation*>& out) {
  if (attr.is(AttrKind::SymbolRef) && !attr.symbolPath().empty()) {
    if (const Operation* fn = module.lookupFunction(attr.symbolPath().back())) out.push_back(fn);
  } else if (attr.is(AttrKind::Array)) {
    for (const Attribute& element : attr.arrayValue()) collectCallees(module, element, out);
  }
}

}  // namespace

Status checkCustomCallTargets(const Module& module, std::string_view entry) {
  // Only what `entry` can reach: a test file may hold other functions with
  // calls this one never makes.
  std::vector<const Operation*> pending;
  if (const Operation* fn = module.lookupFunction(entry)) pending.push_back(fn);
  std::set<const Operation*> seen;
  Status status;
  while (!pending.empty() && status.isOk()) {
    const Operation* fn = pending.back();
    pending.pop_back();
    if (!seen.insert(fn).second) continue;
    const_cast<Operation*>(fn)->walk([&](Operation& op) {
      for (const auto& [name, attr] : op.attrs().entries()) collectCallees(module, attr, pending);
      if (!status.isOk() || op.name() != "stablehlo.custom_call") return;
      Attribute target = op.attr("call_target_name");
      if (!target || !target.is(AttrKind::String) || customCallKernel(target.stringValue())) return;
      status = error(op.loc(), "'stablehlo.custom_call' op " + unsupportedTargetMessage(target.stringValue()));
      status.diag().code = ErrorCode::Unimplemented;
    });
  }
  return status;
}

// (linalg.h)
std::string_view lapackRoutine(std::string_view callTarget) {
  constexpr std::string_view prefix = "lapack_", suffix = "_ffi";
  if (!callTarget.starts_with(prefix) || !callTarget.ends_with(suffix) ||
      callTarget.size() <= prefix.size() + suffix.size() + 1)
    return {};
  std::string_view routine = callTarget.substr(prefix.size(), callTarget.size() - prefix.size() - suffix.size());
  if (std::string_view("sdcz").find(routine[0]) == std::string_view::npos) return {};
  return routine.substr(1);
}

std::string_view lapackRoutineOf(const Operation& op) {
  Attribute target = op.name() == "stablehlo.custom_call" ? op.attr("call_target_name") : Attribute();
  return target && target.is(AttrKind::String) ? lapackRoutine(target.stringValue()) : std::string_view();
}

char lapackOption(const Operation& op, std::string_view name, char fallback) {
  Attribute config = op.attr("mhlo.backend_config");
  Attribute option = config && config.is(AttrKind::Dictionary) ? config.get(name) : Attribute();
  return option && option.is(AttrKind::Integer) ? static_cast<char>(option.intValue()) : fallback;
}

}  // namespace kiln::interp
