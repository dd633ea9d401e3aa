#include "kiln/backends/cpu/routines.h"

#include <array>
#include <optional>

#include "kiln/backends/cpu/native_routine.h"
#include "kiln/interp/evaluate_op.h"

namespace kiln::cpu {
namespace {

using enum RoutineUse;

// Every op the cpu back end runs as a routine, and why. `IfNotCompiled`
// entries are ops the emitter or oneDNN normally take; the routine covers
// the instances they reject (an element type or form not emitted yet).
constexpr auto kRoutines = std::to_array<RoutineEntry>({
    // Data-dependent or index-driven data movement.
    {"stablehlo.sort", Always, "comparator region and a data-dependent permutation"},
    {"stablehlo.gather", IfNotCompiled, "results of more than 4096 elements (the routine copies whole slices)"},
    {"stablehlo.dynamic_gather", Always, "reads at run-time indices and sizes"},
    {"stablehlo.scatter", IfNotCompiled, "results of more than 4096 elements, several inputs, or several updates per element"},
    {"stablehlo.dynamic_slice", IfNotCompiled, "run-time start indices"},
    {"stablehlo.dynamic_update_slice", IfNotCompiled, "run-time start indices"},
    {"chlo.top_k", Always, "a selection (partial sort) per row"},
    // Windows and regions applied per element.
    {"stablehlo.reduce_window", IfNotCompiled, "windows of more than 64 positions (cumulative ones as running folds), variadic or complex ones"},
    {"stablehlo.select_and_scatter", Always, "two regions over windows, not emitted yet"},
    {"stablehlo.map", Always, "applies a region per element, not emitted yet"},
    {"stablehlo.reduce", IfNotCompiled, "bodies and types the emitter does not take (variadic, complex, ...)"},
    // Linear algebra and transforms.
    {"stablehlo.convolution", IfNotCompiled, "forms neither oneDNN nor the expand pass's dot take (padded f64, grouped integer, negative padding, ...)"},
    {"stablehlo.dynamic_conv", Always, "run-time padding"},
    {"stablehlo.dot_general", IfNotCompiled, "forms neither oneDNN nor the emitted dot loops take (complex, i1, mixed types, several contracting dims, ...)"},
    {"stablehlo.triangular_solve", Always, "f32: blocked around oneDNN's sgemm; f64 with few right-hand sides: per-column substitution; others: substitution in double"},
    {"stablehlo.cholesky", Always, "f32 and f64 to order 128: blocks of 8 rows; larger f32: blocked around oneDNN's sgemm; others: column by column in double"},
    {"stablehlo.fft", Always, "native FFT in double: radix 2, Bluestein for other lengths"},
    {"stablehlo.batch_norm_training", Always, "statistics over several dims (usually expanded before)"},
    {"stablehlo.batch_norm_inference", Always, "usually expanded before"},
    {"stablehlo.batch_norm_grad", Always, "usually expanded before"},
    // Random numbers.
    {"stablehlo.rng", Always, "random numbers from the interpreter's generator"},
    {"stablehlo.rng_bit_generator", Always, "counter-based generators, a block of counters at a time"},
    // Quantization.
    {"stablehlo.uniform_quantize", Always, "quantized element types are not emitted"},
    {"stablehlo.uniform_dequantize", Always, "quantized element types are not emitted"},
    // Calls out of the program, dynamic shapes, host I/O.
    {"stablehlo.custom_call", Always, "the interpreter's kernel for its target (check.*, identities, LAPACK, ApproxTopK); an unknown target fails at compile time"},
    {"stablehlo.get_dimension_size", Always, "a shape query (constant for static shapes)"},
    {"stablehlo.dynamic_iota", Always, "run-time shape operand"},
    {"stablehlo.dynamic_pad", Always, "run-time padding"},
    {"stablehlo.dynamic_reshape", Always, "run-time shape operand"},
    {"stablehlo.dynamic_broadcast_in_dim", Always, "run-time shape operand"},
    {"stablehlo.real_dynamic_slice", Always, "run-time bounds (static ones become a slice in refine_shapes)"},
    {"stablehlo.set_dimension_size", Always, "a dynamic size on a static shape: the operand itself"},
    {"stablehlo.infeed", Always, "the next element of the run's infeed queue (interpreter.run_parallel's `infeed`), at the rendezvous"},
    {"stablehlo.outfeed", Always, "appended to the run's outfeed, at the rendezvous"},
    {"stablehlo.send", Always, "to another instance of the run, by channel, at the rendezvous (no host transfers)"},
    {"stablehlo.recv", Always, "from another instance of the run, by channel, at the rendezvous (no host transfers)"},
    // Distribution: each replica x partition runs the program on a thread of
    // its own; collectives move data through the run's communicator (shared
    // memory, native_collectives.cpp), the rest at the run's rendezvous.
    {"stablehlo.replica_id", Always, "reads the running instance"},
    {"stablehlo.partition_id", Always, "reads the running instance"},
    {"stablehlo.all_reduce", Always, "between instances: native for a body of one add/multiply/min/max/and/or/xor, else the rendezvous"},
    {"stablehlo.all_gather", Always, "between instances (native)"},
    {"stablehlo.all_to_all", Always, "between instances (native)"},
    {"stablehlo.reduce_scatter", Always, "between instances: native for a body of one add/multiply/min/max/and/or/xor, else the rendezvous"},
    {"stablehlo.collective_permute", Always, "between instances (native; quantized ones at the rendezvous)"},
    {"stablehlo.collective_broadcast", Always, "between instances (native; quantized ones at the rendezvous)"},
    // Sharding annotations: identities on one device, which the pipeline's
    // drop_sharding pass removes; the routine covers programs run without it.
    {"sdy.sharding_constraint", Always, "identity on one device (normally removed by drop_sharding)"},
    {"sdy.reshard", Always, "identity on one device (normally removed by drop_sharding)"},
    // Test assertions (kiln test).
    {"check.expect_eq", Always, "test assertion: compares and reports like the interpreter"},
    {"check.expect_eq_const", Always, "test assertion"},
    {"check.expect_almost_eq", Always, "test assertion"},
    {"check.expect_almost_eq_const", Always, "test assertion"},
    {"check.expect_close", Always, "test assertion"},
    {"check.expect_serialized_eq", Always, "test assertion"},
    {"interpreter.print", Always, "debugging: prints its operand"},
    {"interpreter.probe", Always, "debugging: passes its operand through"},
    // Element-wise and layout ops the emitter normally compiles; the routine
    // takes the element types it does not (complex, quantized, narrow floats
    // and integers, ...) and the math it has no expression for yet.
    {"stablehlo.abs", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.add", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.and", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.atan2", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.bitcast_convert", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.broadcast_in_dim", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.cbrt", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.ceil", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.clamp", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.compare", IfNotCompiled, "element type or form not emitted (e.g. TOTALORDER)"},
    {"stablehlo.complex", IfNotCompiled, "complex results are not emitted"},
    {"stablehlo.concatenate", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.convert", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.cosine", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.count_leading_zeros", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.divide", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.exponential", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.exponential_minus_one", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.floor", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.imag", IfNotCompiled, "complex operands are not emitted"},
    {"stablehlo.iota", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.is_finite", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.log", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.log_plus_one", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.logistic", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.maximum", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.minimum", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.multiply", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.negate", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.not", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.or", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.pad", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.popcnt", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.power", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.real", IfNotCompiled, "complex operands are not emitted"},
    {"stablehlo.reduce_precision", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.remainder", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.reshape", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.reverse", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.round_nearest_afz", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.round_nearest_even", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.rsqrt", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.select", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.shift_left", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.shift_right_arithmetic", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.shift_right_logical", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.sign", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.sine", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.slice", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.sqrt", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.subtract", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.tan", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.tanh", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.transpose", IfNotCompiled, "element type or form not emitted"},
    {"stablehlo.xor", IfNotCompiled, "element type or form not emitted"},
    // The chlo math JAX exports (often expanded before; the rest here).
    {"chlo.acos", IfNotCompiled, "chlo math not emitted"},
    {"chlo.acosh", IfNotCompiled, "chlo math not emitted"},
    {"chlo.asin", IfNotCompiled, "chlo math not emitted"},
    {"chlo.asinh", IfNotCompiled, "chlo math not emitted"},
    {"chlo.atan", IfNotCompiled, "chlo math not emitted"},
    {"chlo.atanh", IfNotCompiled, "chlo math not emitted"},
    {"chlo.cosh", IfNotCompiled, "chlo math not emitted"},
    {"chlo.sinh", IfNotCompiled, "chlo math not emitted"},
    {"chlo.erf", IfNotCompiled, "chlo math not emitted"},
    {"chlo.erfc", IfNotCompiled, "chlo math not emitted"},
    {"chlo.erf_inv", IfNotCompiled, "chlo math not emitted"},
    {"chlo.lgamma", IfNotCompiled, "chlo math not emitted"},
    {"chlo.digamma", IfNotCompiled, "chlo math not emitted"},
    {"chlo.polygamma", IfNotCompiled, "chlo math not emitted"},
    {"chlo.zeta", IfNotCompiled, "chlo math not emitted"},
    {"chlo.bessel_i1e", IfNotCompiled, "chlo math not emitted"},
    {"chlo.next_after", IfNotCompiled, "chlo math not emitted"},
    {"chlo.square", IfNotCompiled, "complex chlo.square (floats are emitted)"},
});

}  // namespace

std::span<const RoutineEntry> routineTable() { return kRoutines; }

const RoutineEntry* findRoutine(std::string_view op) {
  for (const RoutineEntry& entry : kRoutines)
    if (entry.op == op) return &entry;
  return nullptr;
}

namespace {

std::optional<NativeRoutine> nativeRoutineFor(const Operation& op) {
  std::string_view name = op.name();
  if (name == "stablehlo.reduce_window") return nativeReduceWindow(op);
  if (name == "stablehlo.select_and_scatter") return nativeSelectAndScatter(op);
  if (name == "stablehlo.gather") return nativeGather(op);
  if (name == "stablehlo.scatter") return nativeScatter(op);
  if (name == "stablehlo.sort") return nativeSort(op);
  if (name == "chlo.top_k") return nativeTopK(op);
  if (name == "stablehlo.fft") return nativeFft(op);
  if (name == "stablehlo.rng_bit_generator") return nativeRngBitGenerator(op);
  if (name == "stablehlo.cholesky" || name == "stablehlo.triangular_solve" || name == "stablehlo.custom_call")
    return nativeLinearAlgebra(op);
  return std::nullopt;
}

}  // namespace

PreparedRoutine::PreparedRoutine(const Operation& op) : op_(&op), kind_("reference") {
  if (std::optional<NativeRoutine> native = nativeRoutineFor(op)) {
    kind_ = native->name;
    native_ = std::make_shared<const NativeRoutine>(std::move(*native));
  } else if (std::optional<NativeCollective> collective = nativeCollective(op)) {
    kind_ = collective->name;
    collective_ = std::make_shared<const NativeCollective>(std::move(*collective));
  }
}

Expected<std::vector<interp::Tensor>> PreparedRoutine::run(std::vector<interp::Tensor> operands,
                                                           const interp::Instance& instance,
                                                           int64_t occurrence) const {
  if (collective_ && instance.communicator) return collective_->run(std::move(operands), instance);
  bool typesMatch = native_ && operands.size() == op_->numOperands();
  for (unsigned i = 0; typesMatch && i < operands.size(); ++i)
    typesMatch = operands[i].type() == op_->operand(i)->type() && operands[i].bytes() != nullptr;
  if (typesMatch)
    if (std::optional<std::vector<interp::Tensor>> results = native_->run(operands)) return std::move(*results);
  return interp::evaluateOp(*op_, std::move(operands), instance, occurrence);
}

Expected<std::vector<interp::Tensor>> runRoutine(const Operation& op, std::vector<interp::Tensor> operands) {
  return PreparedRoutine(op).run(std::move(operands));
}

}  // namespace kiln::cpu
