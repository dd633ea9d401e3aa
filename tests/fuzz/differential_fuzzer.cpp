// Differential fuzzer: the fuzzer's bytes -> a valid random StableHLO
// program (tests/fuzz/random_program.h) -> the verifier -> run on the cpu
// back end and on the interpreter (the oracle) on the same deterministic
// inputs -> the results must agree:
//   - integers and predicates bitwise;
//   - floats: NaN at the same positions, infinities equal, finite values
//     within a relative tolerance of the oracle plus the same tolerance times
//     the largest finite magnitude of the result (at least 1); the tolerance
//     is 1e-4, or 8 ULP of 1 for formats coarser than that (bf16: 2^-4, as
//     the back end may round a fused chain once where the interpreter rounds
//     each op). The cpu back end's transcendentals
//     are vectorized approximations within 1 to 5 ULP (docs/cpu_backend.md),
//     it reorders float sums (partial sums, oneDNN dots), and those errors
//     grow through the arithmetic after them; the generator keeps them away
//     from ops that would turn them into different answers (float compare,
//     float -> integer convert).
// A verifier failure (a generator bug), a compile or run failure of either
// back end, or a disagreement aborts with the program printed (every
// program is printed when KILN_FUZZ_PRINT is set).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "kiln/backends/backend.h"
#include "kiln/interp/host_buffers.h"
#include "kiln/ir/printer.h"
#include "kiln/ir/verifier.h"
#include "tests/fuzz/random_program.h"

namespace kiln::fuzz {
namespace {

using interp::Tensor;

// See the top of the file.
double tolerance(Type element) {
  int mantissaBits = element.kind() == TypeKind::BF16 ? 7 : element.kind() == TypeKind::F16 ? 10 : 52;
  return std::max(1e-4, std::ldexp(8.0, -mantissaBits));
}

[[noreturn]] void finding(const Module& module, const std::string& what) {
  std::fprintf(stderr, "differential fuzzer finding: %s\n%s\n", what.c_str(), printModule(module).c_str());
  std::abort();
}

// Floats in [-2, 2], integers in [-8, 8], random predicates; seeded from the
// program's bytes, so a finding replays from its input alone.
std::vector<Tensor> randomArguments(const Operation& fn, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> floats(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> ints(-8, 8);
  std::vector<Tensor> args;
  for (Type type : func::type(fn).inputs()) {
    Tensor arg(type);
    for (int64_t i = 0; i < arg.numElements(); ++i) {
      if (type.elementType().isFloat()) arg.setFloat(i, floats(rng));
      else if (type.elementType().isBool()) arg.setBool(i, rng() & 1);
      else arg.setInt(i, ints(rng));
    }
    args.push_back(std::move(arg));
  }
  return args;
}

// Why `got` (cpu) disagrees with `want` (interpreter); empty when they agree.
std::string disagreement(const Tensor& got, const Tensor& want) {
  if (got.type() != want.type()) return "cpu type " + got.type().str() + " vs interpreter " + want.type().str();
  if (!got.elementType().isFloat()) {
    for (int64_t i = 0; i < got.numElements(); ++i)
      if (got.getUInt(i) != want.getUInt(i))
        return "element " + std::to_string(i) + ": cpu " + std::to_string(got.getInt(i)) + " vs interpreter " +
               std::to_string(want.getInt(i));
    return "";
  }
  double tol = tolerance(got.elementType()), scale = 1.0;
  for (int64_t i = 0; i < want.numElements(); ++i)
    if (std::isfinite(want.getFloat(i))) scale = std::max(scale, std::abs(want.getFloat(i)));
  for (int64_t i = 0; i < got.numElements(); ++i) {
    double g = got.getFloat(i), w = want.getFloat(i);
    bool agree = std::isnan(g) || std::isnan(w) ? std::isnan(g) && std::isnan(w)
                 : std::isinf(g) || std::isinf(w) ? g == w
                                                  : std::abs(g - w) <= tol * (std::abs(w) + scale);
    if (!agree) return "element " + std::to_string(i) + ": cpu " + std::to_string(g) + " vs interpreter " + std::to_string(w);
  }
  return "";
}

// Compiles and runs @main of `module` on back end `name`.
std::vector<Tensor> runOn(const Module& module, const char* name, const std::vector<Tensor>& args) {
  auto backend = backend::findBackend(name);
  if (!backend.isOk()) finding(module, std::string("no back end ") + name);
  backend::CompileOptions options;
  options.numThreads = 1;
  auto program = (*backend)->compile(module, "main", options);
  if (!program.isOk()) finding(module, std::string(name) + " compile failed: " + program.status().diag().str());
  auto results = (*program)->run(interp::toDeviceBuffers(args));
  if (!results.isOk()) finding(module, std::string(name) + " run failed: " + results.status().diag().str());
  auto tensors = interp::toTensors(*results);
  if (!tensors.isOk()) finding(module, std::string(name) + " results unreadable: " + tensors.status().diag().str());
  return std::move(*tensors);
}

}  // namespace
}  // namespace kiln::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kiln;
  fuzz::Choices choices(data, size);
  std::unique_ptr<Module> module = fuzz::randomProgram(choices);
  if (Status s = verifyModule(*module); !s.isOk()) fuzz::finding(*module, "generator bug, verifier: " + s.diag().str());
  if (std::getenv("KILN_FUZZ_PRINT")) std::fprintf(stderr, "%s\n", printModule(*module).c_str());
  uint64_t seed = std::hash<std::string_view>{}({reinterpret_cast<const char*>(data), size});
  std::vector<interp::Tensor> args = fuzz::randomArguments(*module->lookupFunction("main"), seed);
  std::vector<interp::Tensor> oracle = fuzz::runOn(*module, "interpreter", args);
  std::vector<interp::Tensor> cpu = fuzz::runOn(*module, "cpu", args);
  if (cpu.size() != oracle.size()) fuzz::finding(*module, "cpu and interpreter give different numbers of results");
  for (size_t r = 0; r < cpu.size(); ++r)
    if (std::string why = fuzz::disagreement(cpu[r], oracle[r]); !why.empty())
      fuzz::finding(*module, "result " + std::to_string(r) + " " + why);
  return 0;
}
