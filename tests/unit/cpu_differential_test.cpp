// Differential test of the cpu back end against the interpreter (the oracle).
//
// Every JAX corpus program (tests/corpus/jax/*.mlir, entry @main) and every
// public function of examples/mlp.mlir must compile for the cpu back end
// (every op is an emitted kernel, a oneDNN call, a routine or control flow);
// each runs on both back ends on the same deterministic pseudo-random inputs
// and the results must agree:
//   - integers and predicates bitwise;
//   - floats within kMaxUlp ULP of their own format (f16, bf16, f32, f64;
//     complex numbers part by part): the back end rounds each elementwise op
//     and each reduction step to the element type,
//     transcendentals go through libm in double on both sides, and routines
//     compute what the interpreter's kernels compute;
//   - in programs containing a dot, a convolution, a reduce, an fft or
//     linear algebra (triangular_solve, cholesky, LAPACK calls), floats may
//     also differ by kSumRelativeTolerance times the largest magnitude of the
//     result (at least 1), since oneDNN reorders the sums of dots, the back
//     end vectorizes float sums into partial sums, its FFT adds in another
//     order than the direct DFT, and its f32 linear algebra works in f32
//     around sgemm where the reference substitutes in double.
// A few programs written here (softmax, layernorm, an MLP layer, integer and
// predicate arithmetic) are compared too. The test prints, per program, how
// many kernels, library calls, routines and control-flow steps it became.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kiln/backends/cpu/cpu_executable.h"
#include "tests/unit/float_compare.h"
#include "kiln/interp/interpreter.h"
#include "kiln/parse/parser.h"

namespace kiln {
namespace {

using interp::Tensor;

constexpr uint64_t kMaxUlp = 4;
constexpr double kSumRelativeTolerance = 1e-5;

// One function of one module, named for messages ("softmax.mlir @main").
struct Program {
  std::string name;
  std::string text;
  std::string entry;
};

// Pseudo-random arguments for `fn`'s parameters: small integers, floats in
// [-2, 2], random predicates. Seeded by the caller, so reruns are identical.
std::vector<Tensor> randomArguments(const Operation& fn, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> floats(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> signedInts(-8, 8);
  std::uniform_int_distribution<int64_t> unsignedInts(0, 8);
  std::bernoulli_distribution bools(0.5);
  std::vector<Tensor> args;
  for (Type type : func::type(fn).inputs()) {
    Tensor arg(type);
    Type element = type.elementType();
    for (int64_t i = 0; i < arg.numElements(); ++i) {
      if (element.isFloat()) arg.setFloat(i, floats(rng));
      else if (element.isBool()) arg.setBool(i, bools(rng));
      else if (element.isComplex()) arg.setComplex(i, {floats(rng), floats(rng)});
      else if (element.isUnsignedInteger()) arg.setInt(i, unsignedInts(rng));
      else arg.setInt(i, signedInts(rng));
    }
    args.push_back(std::move(arg));
  }
  return args;
}

using testing::ulpDistance;

// ULP distance between element i of two float tensors in their own format
// (f16, bf16, f32, ...): kiln stores a float's bits zero-extended, and
// sign-magnitude bits map monotonically onto integers. Two NaNs are 0 apart.
uint64_t formatUlpDistance(const Tensor& x, const Tensor& y, int64_t i) {
  double a = x.getFloat(i), b = y.getFloat(i);
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : UINT64_MAX;
  unsigned width = x.elementType().bitWidth();
  uint64_t signBit = uint64_t(1) << (width - 1);
  uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  auto ordered = [&](uint64_t bits) -> int64_t {
    bits &= mask;
    int64_t magnitude = static_cast<int64_t>(bits & ~signBit);
    return (bits & signBit) ? -magnitude : magnitude;
  };
  int64_t d = ordered(x.getUInt(i)) - ordered(y.getUInt(i));
  return d < 0 ? uint64_t(-d) : uint64_t(d);
}

// Compares one result; reports the first mismatching element (the others
// usually follow from it) and returns whether all agree.
bool resultsAgree(const Tensor& cpu, const Tensor& oracle, bool reordersSums, const std::string& what) {
  if (cpu.type() != oracle.type()) {
    ADD_FAILURE() << what << ": cpu type " << cpu.type().str() << " vs interpreter " << oracle.type().str();
    return false;
  }
  Type element = cpu.elementType();
  if (!element.isFloat() && !element.isComplex()) {
    for (int64_t i = 0; i < cpu.numElements(); ++i) {
      if (cpu.getUInt(i) == oracle.getUInt(i)) continue;
      ADD_FAILURE() << what << " element " << i << ": cpu " << cpu.getInt(i) << " vs interpreter "
                    << oracle.getInt(i) << " (integers and predicates must match bitwise)";
      return false;
    }
    return true;
  }
  if (element.isComplex()) {
    bool isC64 = element.complexElement().kind() == TypeKind::F32;
    double scale = 1.0;
    for (int64_t i = 0; i < oracle.numElements(); ++i)
      for (double part : {oracle.getComplex(i).real(), oracle.getComplex(i).imag()})
        if (std::isfinite(part)) scale = std::max(scale, std::abs(part));
    auto partsAgree = [&](double got, double want) {
      return ulpDistance(got, want, isC64) <= kMaxUlp ||
             (reordersSums && std::abs(got - want) <= kSumRelativeTolerance * scale);
    };
    for (int64_t i = 0; i < cpu.numElements(); ++i) {
      std::complex<double> got = cpu.getComplex(i), want = oracle.getComplex(i);
      if (partsAgree(got.real(), want.real()) && partsAgree(got.imag(), want.imag())) continue;
      ADD_FAILURE() << what << " element " << i << ": cpu (" << got.real() << ", " << got.imag()
                    << ") vs interpreter (" << want.real() << ", " << want.imag() << ")";
      return false;
    }
    return true;
  }
  double scale = 1.0;
  for (int64_t i = 0; i < oracle.numElements(); ++i)
    if (std::isfinite(oracle.getFloat(i))) scale = std::max(scale, std::abs(oracle.getFloat(i)));
  for (int64_t i = 0; i < cpu.numElements(); ++i) {
    uint64_t ulps = formatUlpDistance(cpu, oracle, i);
    if (ulps <= kMaxUlp) continue;
    double got = cpu.getFloat(i), want = oracle.getFloat(i);
    if (reordersSums && std::abs(got - want) <= kSumRelativeTolerance * scale) continue;
    ADD_FAILURE() << what << " element " << i << ": cpu " << got << " vs interpreter " << want << " ("
                  << ulps << " ULP of " << element.str() << " apart)";
    return false;
  }
  return true;
}

bool runOnBoth(const Program& program, const Module& module, cpu::CpuExecutable& executable, uint64_t seed);

// Runs `program` on both back ends and compares, on the arguments of
// `rounds` seeds from `seed` on; false (with a test failure) if it does not
// compile, fails to run, or disagrees. `statsOut`: its compile stats.
bool runDifferential(const Program& program, uint64_t seed, int rounds = 1,
                     cpu::CpuCompileStats* statsOut = nullptr) {
  auto module = parseModule(program.text, program.name);
  if (!module.isOk()) {
    ADD_FAILURE() << program.name << ": " << module.status().diag().str();
    return false;
  }
  auto executable = cpu::compileForCpu(**module, program.entry);
  if (!executable.isOk()) {
    ADD_FAILURE() << program.name << ": cpu compilation failed: " << executable.status().diag().str();
    return false;
  }
  const cpu::CpuCompileStats& stats = (*executable)->stats();
  std::printf("  %-44s %3d kernels %3d library %3d routines %3d control flow %3d fusions op by op\n",
              program.name.c_str(), stats.kernels, stats.libraryCalls, stats.routines, stats.controlFlow,
              stats.fusionsRunOpByOp);
  for (const std::string& routine : stats.routineOps) std::printf("      routine: %s\n", routine.c_str());
  if (statsOut) *statsOut = stats;
  bool agree = true;
  for (int round = 0; round < rounds; ++round) agree &= runOnBoth(program, **module, **executable, seed + round);
  return agree;
}

// One round of runDifferential: `program`'s arguments from `seed`.
bool runOnBoth(const Program& program, const Module& module, cpu::CpuExecutable& executable, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Tensor> args = randomArguments(*module.lookupFunction(program.entry), rng);
  auto oracle = interp::runFunction(module, program.entry, args);
  if (!oracle.isOk()) {
    ADD_FAILURE() << program.name << ": interpreter failed: " << oracle.status().diag().str();
    return false;
  }
  auto results = executable.run(args);
  if (!results.isOk()) {
    ADD_FAILURE() << program.name << ": cpu run failed: " << results.status().diag().str();
    return false;
  }
  if (results->size() != oracle->size()) {
    ADD_FAILURE() << program.name << ": cpu gives " << results->size() << " results, interpreter "
                  << oracle->size();
    return false;
  }
  bool reordersSums = program.text.find("stablehlo.dot") != std::string::npos ||
                      program.text.find("stablehlo.convolution") != std::string::npos ||
                      program.text.find("stablehlo.reduce") != std::string::npos ||
                      program.text.find("stablehlo.fft") != std::string::npos ||
                      program.text.find("stablehlo.triangular_solve") != std::string::npos ||
                      program.text.find("stablehlo.cholesky") != std::string::npos ||
                      program.text.find("@lapack_") != std::string::npos;
  bool agree = true;
  for (size_t r = 0; r < results->size(); ++r)
    agree &= resultsAgree((*results)[r], (*oracle)[r], reordersSums, program.name + " result " + std::to_string(r));
  return agree;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// CMake compiles this file by its absolute path, so __FILE__ locates the repository.
std::filesystem::path repositoryRoot() { return std::filesystem::path(__FILE__).parent_path() / "../.."; }

// The JAX corpus (entry @main) and every public function of examples/mlp.mlir.
std::vector<Program> corpusPrograms() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(repositoryRoot() / "tests/corpus/jax"))
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Program> programs;
  for (const auto& file : files) programs.push_back({file.filename().string(), readFile(file), "main"});

  std::string mlp = readFile(repositoryRoot() / "examples/mlp.mlir");
  auto module = parseModule(mlp, "mlp.mlir");
  EXPECT_TRUE(module.isOk()) << module.status().diag().str();
  if (module.isOk())
    for (Operation* fn : (*module)->definedFunctions())
      if (func::isPublic(*fn))
        programs.push_back({"mlp.mlir @" + std::string(func::name(*fn)), mlp, std::string(func::name(*fn))});
  return programs;
}

TEST(CpuDifferential, CorpusAgreesWithInterpreter) {
  std::vector<Program> programs = corpusPrograms();
  ASSERT_GE(programs.size(), 40u);
  int agreed = 0;
  for (size_t i = 0; i < programs.size(); ++i) agreed += runDifferential(programs[i], /*seed=*/1000 + i);
  std::printf("%d of %zu corpus programs compiled and agree with the interpreter\n", agreed, programs.size());
}

// Small programs of the emitter's core coverage (kernels, a oneDNN dot).
const Program kSupportedPrograms[] = {
    {"softmax f32[4,64]", R"(
func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %max = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x64xf32>, tensor<f32>) -> tensor<4xf32>
  %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<4xf32>) -> tensor<4x64xf32>
  %shifted = stablehlo.subtract %x, %maxb : tensor<4x64xf32>
  %e = stablehlo.exponential %shifted : tensor<4x64xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x64xf32>, tensor<f32>) -> tensor<4xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x64xf32>
  %y = stablehlo.divide %e, %sumb : tensor<4x64xf32>
  return %y : tensor<4x64xf32>
})", "main"},
    {"layernorm f32[4,64]", R"(
func.func @main(%x: tensor<4x64xf32>, %gamma: tensor<64xf32>) -> tensor<4x64xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<64.0> : tensor<4xf32>
  %eps = stablehlo.constant dense<1.0e-5> : tensor<4xf32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x64xf32>, tensor<f32>) -> tensor<4xf32>
  %mean = stablehlo.divide %sum, %n : tensor<4xf32>
  %meanb = stablehlo.broadcast_in_dim %mean, dims = [0] : (tensor<4xf32>) -> tensor<4x64xf32>
  %centered = stablehlo.subtract %x, %meanb : tensor<4x64xf32>
  %sq = stablehlo.multiply %centered, %centered : tensor<4x64xf32>
  %sqsum = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x64xf32>, tensor<f32>) -> tensor<4xf32>
  %var = stablehlo.divide %sqsum, %n : tensor<4xf32>
  %vareps = stablehlo.add %var, %eps : tensor<4xf32>
  %inv = stablehlo.rsqrt %vareps : tensor<4xf32>
  %invb = stablehlo.broadcast_in_dim %inv, dims = [0] : (tensor<4xf32>) -> tensor<4x64xf32>
  %gammab = stablehlo.broadcast_in_dim %gamma, dims = [1] : (tensor<64xf32>) -> tensor<4x64xf32>
  %normed = stablehlo.multiply %centered, %invb : tensor<4x64xf32>
  %y = stablehlo.multiply %normed, %gammab : tensor<4x64xf32>
  return %y : tensor<4x64xf32>
})", "main"},
    {"mlp layer f32[8,32]x[32,16]", R"(
func.func @main(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<8x16xf32>
  %mm = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x16xf32>) -> tensor<8x16xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
  %biased = stablehlo.add %mm, %bb : tensor<8x16xf32>
  %y = stablehlo.maximum %biased, %zero : tensor<8x16xf32>
  %t = stablehlo.tanh %y : tensor<8x16xf32>
  return %t : tensor<8x16xf32>
})", "main"},
    {"integer and predicate ops i32[16]", R"(
func.func @main(%a: tensor<16xi32>, %b: tensor<16xi32>, %p: tensor<16xi1>) -> (tensor<16xi32>, tensor<16xi1>, tensor<i64>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %q = stablehlo.divide %a, %b : tensor<16xi32>
  %lt = stablehlo.compare LT, %a, %b, SIGNED : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
  %sel = stablehlo.select %p, %q, %a : tensor<16xi1>, tensor<16xi32>
  %wide = stablehlo.convert %sel : (tensor<16xi32>) -> tensor<16xi64>
  %sum = stablehlo.reduce(%wide init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<16xi64>, tensor<i64>) -> tensor<i64>
  return %sel, %lt, %sum : tensor<16xi32>, tensor<16xi1>, tensor<i64>
})", "main"},
    // bench/'s vocab_loss_grad at 2x9000 as JAX lowers it: take_along_axis
    // (an emitted gather), its gradient (a scatter-add along batching dims,
    // a routine at this size), and a
    // logsumexp whose rows (36 KB) are too long to fuse its max with its
    // sum: the sum reads the max of another kernel through a broadcast, once
    // per row (ElementalEmitter::reducedOffset).
    {"vocab loss and gradient f32[2,9000]", R"(
func.func public @main(%arg0: tensor<2x9000xf32>, %arg1: tensor<2xi32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x9000xf32> {jax.result_info = "result[1]"}) {
  %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
  %1:2 = call @take_along_axis(%arg0, %0) : (tensor<2x9000xf32>, tensor<2x1xi32>) -> (tensor<2x1xf32>, tensor<2x1x1xi32>)
  %2 = stablehlo.reshape %1#0 : (tensor<2x1xf32>) -> tensor<2xf32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %3 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<2x9000xf32>, tensor<f32>) -> tensor<2xf32>
  %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %5 = stablehlo.maximum %4, %3 : tensor<2xf32>
  %6 = stablehlo.is_finite %5 : (tensor<2xf32>) -> tensor<2xi1>
  %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %8 = stablehlo.select %6, %5, %7 : tensor<2xi1>, tensor<2xf32>
  %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
  %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x9000xf32>
  %11 = stablehlo.subtract %arg0, %10 : tensor<2x9000xf32>
  %12 = stablehlo.exponential %11 : tensor<2x9000xf32>
  %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %13 = stablehlo.reduce(%12 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<2x9000xf32>, tensor<f32>) -> tensor<2xf32>
  %14 = stablehlo.abs %13 : tensor<2xf32>
  %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %16 = stablehlo.compare GE, %13, %15, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %17 = stablehlo.log %14 : tensor<2xf32>
  %18 = stablehlo.add %17, %8 : tensor<2xf32>
  %19 = stablehlo.subtract %18, %2 : tensor<2xf32>
  %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %20 = stablehlo.reduce(%19 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
  %21 = stablehlo.divide %20, %cst_5 : tensor<f32>
  %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
  %22 = stablehlo.divide %cst_6, %cst_7 : tensor<f32>
  %23 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %24 = stablehlo.negate %23 : tensor<2xf32>
  %25 = stablehlo.divide %23, %14 : tensor<2xf32>
  %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %26 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2xf32>
  %27 = stablehlo.select %16, %26, %25 : tensor<2xi1>, tensor<2xf32>
  %28 = stablehlo.select %16, %25, %26 : tensor<2xi1>, tensor<2xf32>
  %29 = stablehlo.negate %27 : tensor<2xf32>
  %30 = stablehlo.add %28, %29 : tensor<2xf32>
  %31 = stablehlo.broadcast_in_dim %30, dims = [0] : (tensor<2xf32>) -> tensor<2x9000xf32>
  %32 = stablehlo.multiply %31, %12 : tensor<2x9000xf32>
  %33 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
  %34 = call @take_along_axis_0(%1#1, %33) : (tensor<2x1x1xi32>, tensor<2x1xf32>) -> tensor<2x9000xf32>
  %35 = stablehlo.add %32, %34 : tensor<2x9000xf32>
  return %21, %35 : tensor<f32>, tensor<2x9000xf32>
}
func.func private @take_along_axis(%arg0: tensor<2x9000xf32>, %arg1: tensor<2x1xi32>) -> (tensor<2x1xf32>, tensor<2x1x1xi32>) {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
  %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<2x1xi32>, tensor<2x1xi32>) -> tensor<2x1xi1>
  %c_0 = stablehlo.constant dense<9000> : tensor<i32>
  %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x1xi32>
  %3 = stablehlo.add %arg1, %2 : tensor<2x1xi32>
  %4 = stablehlo.select %1, %3, %arg1 : tensor<2x1xi1>, tensor<2x1xi32>
  %5 = stablehlo.reshape %4 : (tensor<2x1xi32>) -> tensor<2x1x1xi32>
  %c_1 = stablehlo.constant dense<8999> : tensor<1xi32>
  %c_2 = stablehlo.constant dense<0> : tensor<i32>
  %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2x1x1xi32>
  %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<2x1x1xi32>, tensor<2x1x1xi32>) -> tensor<2x1x1xi1>
  %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
  %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<2x1x1xi32>
  %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<2x1x1xi32>, tensor<2x1x1xi32>) -> tensor<2x1x1xi1>
  %11 = stablehlo.and %7, %10 : tensor<2x1x1xi1>
  %c_3 = stablehlo.constant dense<true> : tensor<i1>
  %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<2x1x1xi1>, tensor<i1>) -> tensor<2x1xi1>
  %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<2x9000xf32>, tensor<2x1x1xi32>) -> tensor<2x1xf32>
  %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x1xf32>
  %15 = stablehlo.select %12, %13, %14 : tensor<2x1xi1>, tensor<2x1xf32>
  return %15, %5 : tensor<2x1xf32>, tensor<2x1x1xi32>
}
func.func private @take_along_axis_0(%arg0: tensor<2x1x1xi32>, %arg1: tensor<2x1xf32>) -> tensor<2x9000xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x9000xf32>
  %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
  ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
    %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
    stablehlo.return %2 : tensor<f32>
  }) : (tensor<2x9000xf32>, tensor<2x1x1xi32>, tensor<2x1xf32>) -> tensor<2x9000xf32>
  return %1 : tensor<2x9000xf32>
}
)", "main"},
    // A value per matrix and a mask per position over a batch of small
    // matrices (JAX's NaN select and triangle after a batched Cholesky):
    // short rows, and 4x4 matrices as rows of 16 (elementRowLength).
    {"per-matrix select over f32[8,16,16] and f32[8,4,4]", R"(
func.func @main(%ok: tensor<8xi32>, %x: tensor<8x16x16xf32>, %m: tensor<16x16xi1>, %y: tensor<8x4x4xf32>, %n: tensor<4x4xi1>) -> (tensor<8x16x16xf32>, tensor<8x4x4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<8xi32>
  %nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %ok1 = stablehlo.compare GE, %ok, %zero, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
  %b = stablehlo.broadcast_in_dim %ok1, dims = [0] : (tensor<8xi1>) -> tensor<8x16x16xi1>
  %mb = stablehlo.broadcast_in_dim %m, dims = [1, 2] : (tensor<16x16xi1>) -> tensor<8x16x16xi1>
  %nanb = stablehlo.broadcast_in_dim %nan, dims = [] : (tensor<f32>) -> tensor<8x16x16xf32>
  %s = stablehlo.select %b, %x, %nanb : tensor<8x16x16xi1>, tensor<8x16x16xf32>
  %t = stablehlo.select %mb, %s, %x : tensor<8x16x16xi1>, tensor<8x16x16xf32>
  %c = stablehlo.broadcast_in_dim %ok1, dims = [0] : (tensor<8xi1>) -> tensor<8x4x4xi1>
  %nb = stablehlo.broadcast_in_dim %n, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<8x4x4xi1>
  %nan4 = stablehlo.broadcast_in_dim %nan, dims = [] : (tensor<f32>) -> tensor<8x4x4xf32>
  %u = stablehlo.select %c, %y, %nan4 : tensor<8x4x4xi1>, tensor<8x4x4xf32>
  %v = stablehlo.select %nb, %u, %y : tensor<8x4x4xi1>, tensor<8x4x4xf32>
  return %t, %v : tensor<8x16x16xf32>, tensor<8x4x4xf32>
})", "main"},
};

TEST(CpuDifferential, SupportedProgramsCompileAndAgree) {
  for (size_t i = 0; i < std::size(kSupportedPrograms); ++i)
    runDifferential(kSupportedPrograms[i], /*seed=*/100 * i, /*rounds=*/5);
}

// Small gathers and scatters, which the cpu back end emits as kernels
// (ElementalEmitter::emitGather, emitScatter), against the interpreter's
// routines. The random arguments' integers lie in [-8, 8]: indices below 0
// and past the operand's end, which gather clamps and scatter skips.
const Program kGatherScatterPrograms[] = {
    {"gather rows f32[10,6] at i32[5,1]", R"(
func.func @main(%x: tensor<10x6xf32>, %i: tensor<5x1xi32>) -> tensor<5x6xf32> {
  %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6>}> : (tensor<10x6xf32>, tensor<5x1xi32>) -> tensor<5x6xf32>
  return %g : tensor<5x6xf32>
})", "main"},
    {"gather 2x3 windows f32[6,7] at ui8[3,2], implicit index vector i64[4]", R"(
func.func @main(%x: tensor<6x7xf32>, %i: tensor<3x2xui8>, %j: tensor<4xi64>) -> (tensor<3x2x3xf32>, tensor<4x7xf32>) {
  %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 3>}> : (tensor<6x7xf32>, tensor<3x2xui8>) -> tensor<3x2x3xf32>
  %h = "stablehlo.gather"(%x, %j) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 7>}> : (tensor<6x7xf32>, tensor<4xi64>) -> tensor<4x7xf32>
  return %g, %h : tensor<3x2x3xf32>, tensor<4x7xf32>
})", "main"},
    {"gather with batching dims i32[3,4,8] at i32[3,5,1]", R"(
func.func @main(%x: tensor<3x4x8xi32>, %i: tensor<3x5x1xi32>) -> tensor<3x5x4xi32> {
  %g = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4, 1>}> : (tensor<3x4x8xi32>, tensor<3x5x1xi32>) -> tensor<3x5x4xi32>
  return %g : tensor<3x5x4xi32>
})", "main"},
    {"scatter a column and a window", R"(
func.func @main(%x: tensor<4x8xi32>, %i: tensor<1xi32>, %u: tensor<4xi32>, %y: tensor<6x7xf32>, %j: tensor<2xi32>, %v: tensor<2x3xf32>) -> (tensor<4x8xi32>, tensor<6x7xf32>) {
  %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    stablehlo.return %b : tensor<i32>
  }) : (tensor<4x8xi32>, tensor<1xi32>, tensor<4xi32>) -> tensor<4x8xi32>
  %t = "stablehlo.scatter"(%y, %j, %v) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.multiply %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<6x7xf32>, tensor<2xi32>, tensor<2x3xf32>) -> tensor<6x7xf32>
  return %s, %t : tensor<4x8xi32>, tensor<6x7xf32>
})", "main"},
    {"scatter-add along batching dims f32[4,8] (take_along_axis's gradient)", R"(
func.func @main(%x: tensor<4x8xf32>, %i: tensor<4x1xui16>, %u: tensor<4xf32>) -> tensor<4x8xf32> {
  %s = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<4x1xui16>, tensor<4xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
})", "main"},
    // Scatters into splat constants with one update per batch, which
    // canonicalize turns into selects on an iota (the interpreter runs the
    // scatters): take_along_axis's gradient (the update's -0.0 added to
    // +0.0 gives +0.0, which 1 / x tells from -0.0), a product with
    // unsigned indices, x.at[i, j].set(v) (two indexed dims), a max whose
    // batching dim is the operand's second, and an add whose second inserted
    // dim no index names (it starts at 0: one element written, not a row;
    // canonicalize keeps that one a scatter).
    {"scatters of one update per batch into splats", R"(
func.func @main(%i: tensor<4x1x1xi32>, %u: tensor<4x1xf32>, %j: tensor<4x1xui8>, %w: tensor<4xf32>, %k: tensor<2xi64>, %v: tensor<f32>, %m: tensor<5x1xi16>, %y: tensor<5xf32>, %n: tensor<1x1xi32>, %t: tensor<1xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x6xf32>, tensor<3x5xf32>, tensor<7x5xf32>, tensor<4x5xf32>) {
  %zero = stablehlo.constant dense<0.0> : tensor<4x8xf32>
  %nought = stablehlo.constant dense<0.0> : tensor<4x1xf32>
  %one = stablehlo.constant dense<1.0> : tensor<4x8xf32>
  %ones = stablehlo.constant dense<1.0> : tensor<4x6xf32>
  %two = stablehlo.constant dense<2.0> : tensor<3x5xf32>
  %low = stablehlo.constant dense<-1.0> : tensor<7x5xf32>
  %signed = stablehlo.multiply %u, %nought : tensor<4x1xf32>
  %a = "stablehlo.scatter"(%zero, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %b = "stablehlo.scatter"(%zero, %i, %signed) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<4x1x1xi32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %inv = stablehlo.divide %one, %b : tensor<4x8xf32>
  %c = "stablehlo.scatter"(%ones, %j, %w) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.multiply %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x6xf32>, tensor<4x1xui8>, tensor<4xf32>) -> tensor<4x6xf32>
  %d = "stablehlo.scatter"(%two, %k, %v) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 0>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    stablehlo.return %q : tensor<f32>
  }) : (tensor<3x5xf32>, tensor<2xi64>, tensor<f32>) -> tensor<3x5xf32>
  %e = "stablehlo.scatter"(%low, %m, %y) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], input_batching_dims = [1], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.maximum %q, %p : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<7x5xf32>, tensor<5x1xi16>, tensor<5xf32>) -> tensor<7x5xf32>
  %zeros = stablehlo.constant dense<0.0> : tensor<4x5xf32>
  %f = "stablehlo.scatter"(%zeros, %n, %t) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x5xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<4x5xf32>
  return %a, %inv, %c, %d, %e, %f : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x6xf32>, tensor<3x5xf32>, tensor<7x5xf32>, tensor<4x5xf32>
})", "main"},
    // jax.lax.linalg.lu_pivots_to_permutation(pivots, 8) as JAX lowers it:
    // the loop every batched jnp.linalg.solve runs after its LU.
    {"lu_pivots_to_permutation i32[4,8]", R"(
func.func public @main(%arg0: tensor<4x8xi32>) -> (tensor<4x8xi32> {jax.result_info = "result"}) {
  %0 = stablehlo.iota dim = 1 : tensor<4x8xi32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %c_0 = stablehlo.constant dense<0> : tensor<i32>
  %1:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c_0, %iterArg_2 = %c, %iterArg_3 = %0) : tensor<4x8xi32>, tensor<i32>, tensor<i32>, tensor<4x8xi32>
  cond {
    %c_4 = stablehlo.constant dense<8> : tensor<i32>
    %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %2 : tensor<i1>
  } do {
    %2:2 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_3) : (tensor<4x8xi32>, tensor<i32>, tensor<4x8xi32>) -> (tensor<i32>, tensor<4x8xi32>)
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %3 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
    stablehlo.return %iterArg, %3, %2#0, %2#1 : tensor<4x8xi32>, tensor<i32>, tensor<i32>, tensor<4x8xi32>
  }
  return %1#3 : tensor<4x8xi32>
}
func.func private @closed_call(%arg0: tensor<4x8xi32>, %arg1: tensor<i32>, %arg2: tensor<4x8xi32>) -> (tensor<i32>, tensor<4x8xi32>) {
  %c = stablehlo.constant dense<1> : tensor<i32>
  %0 = stablehlo.add %arg1, %c : tensor<i32>
  %c_0 = stablehlo.constant dense<0> : tensor<i32>
  %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %2 = stablehlo.convert %arg1 : tensor<i32>
  %c_1 = stablehlo.constant dense<8> : tensor<i32>
  %3 = stablehlo.add %2, %c_1 : tensor<i32>
  %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i32>
  %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<1xi32>
  %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [1]>, indices_are_sorted = true, slice_sizes = array<i64: 4, 1>}> : (tensor<4x8xi32>, tensor<1xi32>) -> tensor<4x1xi32>
  %7 = stablehlo.reshape %6 : (tensor<4x1xi32>) -> tensor<4xi32>
  %c_2 = stablehlo.constant dense<0> : tensor<i32>
  %8 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %9 = stablehlo.convert %arg1 : tensor<i32>
  %c_3 = stablehlo.constant dense<8> : tensor<i32>
  %10 = stablehlo.add %9, %c_3 : tensor<i32>
  %11 = stablehlo.select %8, %10, %arg1 : tensor<i1>, tensor<i32>
  %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<i32>) -> tensor<1xi32>
  %13 = "stablehlo.gather"(%arg2, %12) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [1]>, indices_are_sorted = true, slice_sizes = array<i64: 4, 1>}> : (tensor<4x8xi32>, tensor<1xi32>) -> tensor<4x1xi32>
  %14 = stablehlo.reshape %13 : (tensor<4x1xi32>) -> tensor<4xi32>
  %c_4 = stablehlo.constant dense<0> : tensor<i32>
  %15 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
  %16 = stablehlo.compare LT, %7, %15, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %c_5 = stablehlo.constant dense<8> : tensor<i32>
  %17 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4xi32>
  %18 = stablehlo.add %7, %17 : tensor<4xi32>
  %19 = stablehlo.select %16, %18, %7 : tensor<4xi1>, tensor<4xi32>
  %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
  %21 = "stablehlo.gather"(%arg2, %20) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = true, slice_sizes = array<i64: 1, 1>}> : (tensor<4x8xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
  %22 = stablehlo.reshape %21 : (tensor<4x1xi32>) -> tensor<4xi32>
  %c_6 = stablehlo.constant dense<0> : tensor<i32>
  %23 = stablehlo.compare LT, %arg1, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %c_7 = stablehlo.constant dense<8> : tensor<i32>
  %24 = stablehlo.add %arg1, %c_7 : tensor<i32>
  %25 = stablehlo.select %23, %24, %arg1 : tensor<i1>, tensor<i32>
  %26 = stablehlo.convert %25 : tensor<i32>
  %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
  %28 = "stablehlo.scatter"(%arg2, %27, %22) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>, unique_indices = true}> ({
  ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
    stablehlo.return %arg4 : tensor<i32>
  }) : (tensor<4x8xi32>, tensor<1xi32>, tensor<4xi32>) -> tensor<4x8xi32>
  %c_8 = stablehlo.constant dense<0> : tensor<i32>
  %29 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
  %30 = stablehlo.compare LT, %7, %29, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %c_9 = stablehlo.constant dense<8> : tensor<i32>
  %31 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<4xi32>
  %32 = stablehlo.add %7, %31 : tensor<4xi32>
  %33 = stablehlo.select %30, %32, %7 : tensor<4xi1>, tensor<4xi32>
  %34 = stablehlo.broadcast_in_dim %33, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
  %35 = "stablehlo.scatter"(%28, %34, %14) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, unique_indices = true}> ({
  ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
    stablehlo.return %arg4 : tensor<i32>
  }) : (tensor<4x8xi32>, tensor<4x1xi32>, tensor<4xi32>) -> tensor<4x8xi32>
  return %0, %35 : tensor<i32>, tensor<4x8xi32>
}
)", "main"},
};

TEST(CpuDifferential, SmallGathersAndScattersAreKernelsAndAgree) {
  for (size_t i = 0; i < std::size(kGatherScatterPrograms); ++i) {
    const Program& program = kGatherScatterPrograms[i];
    cpu::CpuCompileStats stats;
    // Twenty seeds: indices in and out of bounds in many places.
    runDifferential(program, /*seed=*/100 * i, /*rounds=*/20, &stats);
    EXPECT_EQ(stats.routines, 0) << program.name;
    if (program.text.find("stablehlo.while") != std::string::npos) {
      // Without routines its loop runs flat (its variables copied back:
      // flattenLoop's copiesOnly).
      EXPECT_EQ(stats.flatLoops, 1) << program.name;
    }
  }
}


// Emitted scatters and dynamic_update_slices over an operand that holds
// memory of its own (a while loop's result, a loop variable) compute their
// result over that memory when the operand dies there (Step::inPlaceInputs,
// buffer assignment's rule); where the operand is still read later, or is
// also the update, they must not. `inPlace` is how many kernel outputs the
// planner lets take a dying input at least (the elementwise ops' included).
struct InPlaceProgram {
  Program program;
  int inPlace;
  int flatLoops;
  int loopVariablesInPlace;  // of the flat loop
};

const InPlaceProgram kInPlacePrograms[] = {
    {{"scatter and dynamic_update_slice over loop results that die there", R"(
func.func @main(%x: tensor<8x16xf32>, %y: tensor<6x7xi32>, %i: tensor<1xi32>, %u: tensor<8xf32>, %j: tensor<i32>, %v: tensor<2x3xi32>) -> (tensor<8x16xf32>, tensor<6x7xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%a = %x, %b = %y, %n = %c0) : tensor<8x16xf32>, tensor<6x7xi32>, tensor<i32>
  cond {
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %n, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a2 = stablehlo.add %a, %a : tensor<8x16xf32>
    %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<i32>) -> tensor<6x7xi32>
    %b2 = stablehlo.subtract %b, %nb : tensor<6x7xi32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n2 = stablehlo.add %n, %c1 : tensor<i32>
    stablehlo.return %a2, %b2, %n2 : tensor<8x16xf32>, tensor<6x7xi32>, tensor<i32>
  }
  %s = "stablehlo.scatter"(%w#0, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<8x16xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<8x16xf32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %t = stablehlo.dynamic_update_slice %w#1, %v, %j, %c2 : (tensor<6x7xi32>, tensor<2x3xi32>, tensor<i32>, tensor<i32>) -> tensor<6x7xi32>
  return %s, %t : tensor<8x16xf32>, tensor<6x7xi32>
})", "main"}, 2, 1, -1},
    {{"scatter and dynamic_update_slice over loop results read again later", R"(
func.func @main(%x: tensor<8x16xf32>, %y: tensor<6x7xi32>, %i: tensor<1xi32>, %u: tensor<8xf32>, %j: tensor<i32>, %v: tensor<2x3xi32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<6x7xi32>, tensor<6x7xi32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%a = %x, %b = %y, %n = %c0) : tensor<8x16xf32>, tensor<6x7xi32>, tensor<i32>
  cond {
    %c3 = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %n, %c3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a2 = stablehlo.add %a, %a : tensor<8x16xf32>
    %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<i32>) -> tensor<6x7xi32>
    %b2 = stablehlo.subtract %b, %nb : tensor<6x7xi32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n2 = stablehlo.add %n, %c1 : tensor<i32>
    stablehlo.return %a2, %b2, %n2 : tensor<8x16xf32>, tensor<6x7xi32>, tensor<i32>
  }
  %s = "stablehlo.scatter"(%w#0, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    stablehlo.return %q : tensor<f32>
  }) : (tensor<8x16xf32>, tensor<1xi32>, tensor<8xf32>) -> tensor<8x16xf32>
  %d = stablehlo.subtract %s, %w#0 : tensor<8x16xf32>
  %c2 = stablehlo.constant dense<2> : tensor<i32>
  %t = stablehlo.dynamic_update_slice %w#1, %v, %j, %c2 : (tensor<6x7xi32>, tensor<2x3xi32>, tensor<i32>, tensor<i32>) -> tensor<6x7xi32>
  %e = stablehlo.subtract %t, %w#1 : tensor<6x7xi32>
  return %s, %d, %t, %e : tensor<8x16xf32>, tensor<8x16xf32>, tensor<6x7xi32>, tensor<6x7xi32>
})", "main"}, 2, 1, -1},
    // The dying operand is read again through a view made after the scatter.
    {{"scatter over a loop result read later through a reshape", R"(
func.func @main(%x: tensor<4x8xf32>, %i: tensor<1xi32>, %u: tensor<4xf32>) -> (tensor<4x8xf32>, tensor<32xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%a = %x, %n = %c0) : tensor<4x8xf32>, tensor<i32>
  cond {
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %n, %c2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %a2 = stablehlo.multiply %a, %a : tensor<4x8xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n2 = stablehlo.add %n, %c1 : tensor<i32>
    stablehlo.return %a2, %n2 : tensor<4x8xf32>, tensor<i32>
  }
  %s = "stablehlo.scatter"(%w#0, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %r = stablehlo.multiply %p, %q : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) : (tensor<4x8xf32>, tensor<1xi32>, tensor<4xf32>) -> tensor<4x8xf32>
  %flat = stablehlo.reshape %w#0 : (tensor<4x8xf32>) -> tensor<32xf32>
  %e = stablehlo.negate %flat : tensor<32xf32>
  return %s, %e : tensor<4x8xf32>, tensor<32xf32>
})", "main"}, 1, 1, -1},
    // A loop whose body updates its variables by dynamic_update_slice (at
    // the trip number) and scatter (a column at the trip number): run flat,
    // both written into the variables' own memory; the old value of %acc is
    // read again after its update (%diff), so that one is not. Three
    // variables in place: %a, %b and %old (before this rule, the scatter's
    // %b was copied back each trip: two).
    {{"flat loop: variables updated by dynamic_update_slice and scatter", R"(
func.func @main(%x: tensor<5x16xf32>, %y: tensor<6x7xi32>, %u: tensor<1x16xf32>, %v: tensor<6xi32>, %z: tensor<5x16xf32>) -> (tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:5 = stablehlo.while(%a = %x, %b = %y, %acc = %z, %old = %z, %n = %c0) : tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<i32>
  cond {
    %c5 = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %n, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %a2 = stablehlo.dynamic_update_slice %a, %u, %n, %zero : (tensor<5x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<5x16xf32>
    %idx = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
    %b2 = "stablehlo.scatter"(%b, %idx, %v) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
    ^bb0(%p: tensor<i32>, %q: tensor<i32>):
      %r = stablehlo.add %p, %q : tensor<i32>
      stablehlo.return %r : tensor<i32>
    }) : (tensor<6x7xi32>, tensor<1xi32>, tensor<6xi32>) -> tensor<6x7xi32>
    %row = stablehlo.slice %a2 [0:1, 0:16] : (tensor<5x16xf32>) -> tensor<1x16xf32>
    %acc2 = stablehlo.dynamic_update_slice %acc, %row, %n, %zero : (tensor<5x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<5x16xf32>
    %diff = stablehlo.subtract %acc2, %acc : tensor<5x16xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n2 = stablehlo.add %n, %c1 : tensor<i32>
    stablehlo.return %a2, %b2, %acc2, %diff, %n2 : tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<i32>
  }
  return %w#0, %w#1, %w#2, %w#3 : tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>
})", "main"}, 2, 1, 3},
    // The same body with a sort (a routine) in it: the loop runs step by
    // step, each trip's body taking its variables (moved in, held by
    // nothing else after the first trip) for the updates.
    {{"generic loop: variables updated by dynamic_update_slice and scatter", R"(
func.func @main(%x: tensor<5x16xf32>, %y: tensor<6x7xi32>, %u: tensor<1x16xf32>, %v: tensor<6xi32>, %z: tensor<5x16xf32>) -> (tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:5 = stablehlo.while(%a = %x, %b = %y, %acc = %z, %old = %z, %n = %c0) : tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<i32>
  cond {
    %c5 = stablehlo.constant dense<5> : tensor<i32>
    %p = stablehlo.compare LT, %n, %c5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %a2 = stablehlo.dynamic_update_slice %a, %u, %n, %zero : (tensor<5x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<5x16xf32>
    %idx = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
    %b2 = "stablehlo.scatter"(%b, %idx, %v) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], inserted_window_dims = [1], scatter_dims_to_operand_dims = [1]>}> ({
    ^bb0(%p: tensor<i32>, %q: tensor<i32>):
      %r = stablehlo.add %p, %q : tensor<i32>
      stablehlo.return %r : tensor<i32>
    }) : (tensor<6x7xi32>, tensor<1xi32>, tensor<6xi32>) -> tensor<6x7xi32>
    %b3 = "stablehlo.sort"(%b2) ({
    ^bb0(%p: tensor<i32>, %q: tensor<i32>):
      %lt = stablehlo.compare LT, %p, %q, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) {dimension = 1 : i64, is_stable = true} : (tensor<6x7xi32>) -> tensor<6x7xi32>
    %row = stablehlo.slice %a2 [0:1, 0:16] : (tensor<5x16xf32>) -> tensor<1x16xf32>
    %acc2 = stablehlo.dynamic_update_slice %acc, %row, %n, %zero : (tensor<5x16xf32>, tensor<1x16xf32>, tensor<i32>, tensor<i32>) -> tensor<5x16xf32>
    %diff = stablehlo.subtract %acc2, %acc : tensor<5x16xf32>
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n2 = stablehlo.add %n, %c1 : tensor<i32>
    stablehlo.return %a2, %b3, %acc2, %diff, %n2 : tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>, tensor<i32>
  }
  return %w#0, %w#1, %w#2, %w#3 : tensor<5x16xf32>, tensor<6x7xi32>, tensor<5x16xf32>, tensor<5x16xf32>
})", "main"}, 2, 0, 0},
};

TEST(CpuDifferential, ScattersAndSliceUpdatesOverDyingOperandsAgree) {
  for (size_t i = 0; i < std::size(kInPlacePrograms); ++i) {
    const InPlaceProgram& p = kInPlacePrograms[i];
    cpu::CpuCompileStats stats;
    // Twenty seeds: indices in and out of bounds.
    EXPECT_TRUE(runDifferential(p.program, /*seed=*/700 + 100 * i, /*rounds=*/20, &stats)) << p.program.name;
    EXPECT_GE(stats.inPlaceKernelOutputs, p.inPlace) << p.program.name;
    EXPECT_EQ(stats.flatLoops, p.flatLoops) << p.program.name;
    if (p.loopVariablesInPlace >= 0) EXPECT_EQ(stats.loopVariablesInPlace, p.loopVariablesInPlace) << p.program.name;
  }
}

// bitcast_convert between element types of whole bytes is a view of its
// operand's bytes, a width-changing one too (little-endian: a wider
// element's bytes are its narrower elements, least significant first); one
// of a sub-byte type is not (its elements are stored a byte each, signed ones
// sign-extended, unsigned ones not), so i4 -> ui4 is a kernel writing ui4's
// bytes. Before, the two across widths were routines.
TEST(CpuDifferential, BitcastConvertViewsAgree) {
  const Program program{"bitcast_convert across widths and of i4", R"(
func.func @main(%x: tensor<8xf32>, %y: tensor<4x4xui8>, %z: tensor<8xi8>) -> (tensor<8x4xui8>, tensor<4xi32>, tensor<8xui4>, tensor<8xi8>) {
  %a = stablehlo.add %x, %x : tensor<8xf32>
  %b = stablehlo.bitcast_convert %a : (tensor<8xf32>) -> tensor<8x4xui8>
  %m = stablehlo.multiply %b, %b : tensor<8x4xui8>
  %y2 = stablehlo.add %y, %y : tensor<4x4xui8>
  %c = stablehlo.bitcast_convert %y2 : (tensor<4x4xui8>) -> tensor<4xi32>
  %n = stablehlo.convert %z : (tensor<8xi8>) -> tensor<8xi4>
  %u = stablehlo.bitcast_convert %n : (tensor<8xi4>) -> tensor<8xui4>
  %back = stablehlo.convert %n : (tensor<8xi4>) -> tensor<8xi8>
  %twice = stablehlo.add %back, %back : tensor<8xi8>
  return %m, %c, %u, %twice : tensor<8x4xui8>, tensor<4xi32>, tensor<8xui4>, tensor<8xi8>
})", "main"};
  cpu::CpuCompileStats stats;
  EXPECT_TRUE(runDifferential(program, /*seed=*/31, /*rounds=*/10, &stats));
  EXPECT_EQ(stats.routines, 0);
}

}  // namespace
}  // namespace kiln
