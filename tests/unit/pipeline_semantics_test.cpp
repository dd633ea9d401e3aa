// Semantic preservation of the simplification pipeline: every program of the
// JAX corpus and of the conformance corpus gives the same interpreter results
// before and after the passes, bit for bit up to NaN payloads (every rewrite of these passes is
// bit-exact but two expanders': batch_norm_* below f64 appears in no corpus
// program since JAX expands batch norm itself, and is checked on its own at
// the end of this file; a complex dot or convolution becomes four real ones,
// each summed on its own where the interpreter sums complex doubles, so
// functions holding one are compared within kComplexSplitTolerance of their
// largest magnitude, on finite arguments).
//
// Functions are compared one by one. So that the passes also see functions
// with non-constant arguments (and the conformance `_compute` functions are
// not just folded away into their callers' constants), every function is made
// public first: calls are still inlined, but each callee stays and is checked
// on its own with deterministic pseudo-random arguments. The conformance
// cases' own checks (`check.expect_*` against XLA's results) must keep
// passing after the pipeline too.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>

#include "kiln/interp/interpreter.h"
#include "kiln/ir/verifier.h"
#include "kiln/parse/parser.h"
#include "kiln/passes/pass.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using interp::Tensor;

const fs::path kTestsDir = fs::path(__FILE__).parent_path().parent_path();

// The pipeline the cpu back end runs (kiln.fusion ops run in the interpreter too).
constexpr std::string_view kPipeline = "cpu";

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A float argument: mostly uniform in [-4, 4), one time in eight a value
// where bit-exactness is easy to lose (signed zeros, infinities, NaN, +-1).
double randomFloat(std::mt19937_64& rng, bool withSpecials) {
  static constexpr double kSpecials[] = {0.0, -0.0, 1.0, -1.0, std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::quiet_NaN()};
  if (withSpecials && rng() % 8 == 0) return kSpecials[rng() % std::size(kSpecials)];
  return std::uniform_real_distribution<double>(-4.0, 4.0)(rng);
}

// Deterministic arguments: small integers (so loop bounds and indices stay
// small), booleans, and floats (randomFloat).
Tensor randomTensor(Type type, std::mt19937_64& rng, bool withSpecials) {
  Tensor t(type);
  if (!type.isTensor()) return t;
  Type et = type.elementType();
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (et.isBool()) t.setBool(i, rng() & 1);
    else if (et.isInteger()) t.setInt(i, static_cast<int64_t>(rng() % 8) - (et.isSignedInteger() ? 2 : 0));
    else if (et.isFloat()) t.setFloat(i, randomFloat(rng, withSpecials));
    else if (et.isComplex()) t.setComplex(i, {randomFloat(rng, withSpecials), randomFloat(rng, withSpecials)});
  }
  return t;
}

std::vector<Tensor> argumentsFor(const Operation& fn, const std::string& seedText, bool withSpecials = true) {
  std::mt19937_64 rng(std::hash<std::string>()(seedText));
  std::vector<Tensor> args;
  for (Type t : func::type(fn).inputs()) args.push_back(randomTensor(t, rng, withSpecials));
  return args;
}

void makeAllFunctionsPublic(Module& module) {
  for (Operation* fn : module.functions()) fn->attrs().erase("sym_visibility");
}

// "" when `after` holds the same values as `before` bit for bit, except that
// any NaN matches any NaN: StableHLO leaves a NaN's sign and payload
// unspecified, and x86 propagates the first operand's NaN, so a rewrite that
// swaps the operands of a product (transpose(dot(a, b)) -> dot(b', a')) may
// change which NaN comes out. Otherwise names the first element that differs.
// With a `tolerance`, parts may also differ by that much times the largest
// magnitude of `before` (at least 1).
std::string firstDifference(const Tensor& before, const Tensor& after, double tolerance = 0) {
  if (before == after) return "";
  Type type = before.type();
  if (type != after.type() || !type.isTensor() || !(type.elementType().isFloat() || type.elementType().isComplex()))
    return "differs";
  auto at = [&](const Tensor& t, int64_t i) {
    return type.elementType().isComplex() ? t.getComplex(i) : std::complex<double>(t.getFloat(i));
  };
  double scale = 1;
  for (int64_t i = 0; i < before.numElements(); ++i)
    scale = std::max({scale, std::abs(at(before, i).real()), std::abs(at(before, i).imag())});
  auto same = [&](double x, double y) {
    return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0 ||
           std::abs(x - y) <= tolerance * scale;
  };
  for (int64_t i = 0; i < before.numElements(); ++i) {
    std::complex<double> x = at(before, i), y = at(after, i);
    if (!same(x.real(), y.real()) || !same(x.imag(), y.imag())) {
      std::ostringstream out;
      out.precision(17);
      out << "differs at element " << i << ": " << x << " before, " << y << " after";
      return out.str();
    }
  }
  return "";
}

// How far a function with a complex product may move under the split, in
// units of its result's largest magnitude: f32 sums of the few dozen terms
// the corpus programs add.
constexpr double kComplexSplitTolerance = 1e-5;

bool hasComplexProduct(Operation& fn) {
  bool found = false;
  fn.walk([&](Operation& op) {
    bool product = op.name() == "stablehlo.dot_general" || op.name() == "stablehlo.dot" ||
                   op.name() == "stablehlo.convolution";
    found |= product && op.numResults() == 1 && op.result()->type().isTensor() &&
             op.result()->type().elementType().isComplex();
  });
  return found;
}

struct Totals {
  int compared = 0;
  int skipped = 0;      // the original program fails to run (unsupported op, bad input)
  int unparsable = 0;   // the parser rejects the file: nothing to compare (the parser's tests own that)
  void print() const {
    std::cout << "compared " << compared << " functions; skipped " << skipped << " that do not run and "
              << unparsable << " modules that do not parse\n";
  }
};

// Checks one module (a whole file or one `// -----` chunk).
void checkModule(std::string_view text, const std::string& where, Totals& totals) {
  ParseOptions parseOptions;
  auto original = parseModule(text, where, parseOptions);
  if (!original) {
    ++totals.unparsable;
    return;
  }
  auto optimized = parseModule(text, where, parseOptions);
  ASSERT_TRUE(optimized);
  makeAllFunctionsPublic(**original);
  makeAllFunctionsPublic(**optimized);
  PassManagerOptions options;
  options.verifyEach = true;
  auto pm = namedPipeline(kPipeline, options);
  ASSERT_TRUE(pm) << pm.status().message();
  Status run = pm->run(**optimized);
  ASSERT_TRUE(run.isOk()) << where << ": pipeline failed: " << run.message();

  for (Operation* fn : (*original)->functions()) {
    std::string name(func::name(*fn));
    bool split = hasComplexProduct(*fn);
    std::vector<Tensor> args = argumentsFor(*fn, where + "@" + name, /*withSpecials=*/!split);
    auto before = interp::runFunction(**original, name, args);
    if (!before) {
      ++totals.skipped;
      continue;
    }
    auto after = interp::runFunction(**optimized, name, args);
    ASSERT_TRUE(after) << where << " @" << name << ": fails after the pipeline: " << after.status().message();
    ASSERT_EQ(before->size(), after->size()) << where << " @" << name;
    for (size_t i = 0; i < before->size(); ++i)
      EXPECT_EQ(firstDifference((*before)[i], (*after)[i], split ? kComplexSplitTolerance : 0), "")
          << where << " @" << name << ": result #" << i;
    ++totals.compared;
  }
}

std::vector<fs::path> mlirFilesUnder(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".mlir") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PipelineSemantics, JaxCorpus) {
  Totals totals;
  for (const fs::path& file : mlirFilesUnder(kTestsDir / "corpus" / "jax"))
    checkModule(readFile(file), file.filename().string(), totals);
  totals.print();
  EXPECT_GT(totals.compared, 30);
}

TEST(PipelineSemantics, ConformanceCorpus) {
  Totals totals;
  for (const fs::path& file : mlirFilesUnder(kTestsDir / "conformance")) {
    std::string text = readFile(file);
    std::string rel = fs::relative(file, kTestsDir).string();
    for (const SourceChunk& chunk : splitInputFile(text))
      checkModule(chunk.text, rel + ":" + std::to_string(chunk.firstLine), totals);
  }
  totals.print();
  EXPECT_GT(totals.compared, 5000);
}

// The expanders on programs JAX never writes: bit-exact where the expansion
// computes in the interpreter's precision (f64 batch norm, rng), within a few
// ULP where it computes in f32 and the interpreter in double.
constexpr std::string_view kExpanderPrograms = R"mlir(
func.func @bn_f64(%x: tensor<4x3x5xf64>, %s: tensor<3xf64>, %o: tensor<3xf64>, %m: tensor<3xf64>, %v: tensor<3xf64>, %dy: tensor<4x3x5xf64>) -> (tensor<4x3x5xf64>, tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>, tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>) {
  %vp = stablehlo.abs %v : tensor<3xf64>
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %vp) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<4x3x5xf64>
  %1:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>)
  %2:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %vp, %dy) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<4x3x5xf64>) -> (tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>)
  return %0, %1#0, %1#1, %1#2, %2#0, %2#1, %2#2 : tensor<4x3x5xf64>, tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>, tensor<4x3x5xf64>, tensor<3xf64>, tensor<3xf64>
}
func.func @bn_f32(%x: tensor<4x3x5xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>, %dy: tensor<4x3x5xf32>) -> (tensor<4x3x5xf32>, tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %vp = stablehlo.abs %v : tensor<3xf32>
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %vp) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<4x3x5xf32>
  %1:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  %2:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %vp, %dy) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x5xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0, %1#0, %1#1, %1#2, %2#0, %2#1, %2#2 : tensor<4x3x5xf32>, tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>
}
func.func @rng(%a: tensor<f32>, %b: tensor<f32>) -> (tensor<7x3xf32>, tensor<5xf32>, tensor<4xf64>) {
  %s2 = stablehlo.constant dense<[7, 3]> : tensor<2xi64>
  %s1 = stablehlo.constant dense<[5]> : tensor<1xi64>
  %s4 = stablehlo.constant dense<[4]> : tensor<1xi64>
  %0 = stablehlo.rng %a, %b, %s2, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<7x3xf32>
  %1 = stablehlo.rng %a, %b, %s1, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<5xf32>
  %a64 = stablehlo.convert %a : (tensor<f32>) -> tensor<f64>
  %b64 = stablehlo.convert %b : (tensor<f32>) -> tensor<f64>
  %2 = stablehlo.rng %a64, %b64, %s4, distribution = NORMAL : (tensor<f64>, tensor<f64>, tensor<1xi64>) -> tensor<4xf64>
  return %0, %1, %2 : tensor<7x3xf32>, tensor<5xf32>, tensor<4xf64>
}
func.func @complex_products(%a: tensor<2x3x5xcomplex<f32>>, %b: tensor<2x5x4xcomplex<f32>>, %x: tensor<1x6x6x2xcomplex<f64>>, %w: tensor<3x3x2x4xcomplex<f64>>) -> (tensor<2x3x4xcomplex<f32>>, tensor<1x4x4x4xcomplex<f64>>) {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x5xcomplex<f32>>, tensor<2x5x4xcomplex<f32>>) -> tensor<2x3x4xcomplex<f32>>
  %1 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [true, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x2xcomplex<f64>>, tensor<3x3x2x4xcomplex<f64>>) -> tensor<1x4x4x4xcomplex<f64>>
  return %0, %1 : tensor<2x3x4xcomplex<f32>>, tensor<1x4x4x4xcomplex<f64>>
}
)mlir";

// How far the f32 batch norm expansion may be off, in f32 ULPs of the
// result's largest magnitude (at least 1): it rounds every step to f32 where
// the interpreter rounds once from double, and the gradient subtracts nearly
// equal terms, so the error is measured against the magnitudes involved.
constexpr double kBatchNormF32MaxUlp = 16;

double maxMagnitude(const Tensor& t) {
  double m = 1.0;
  for (int64_t k = 0; k < t.numElements(); ++k) m = std::max(m, std::abs(t.getFloat(k)));
  return m;
}

TEST(PipelineSemantics, Expanders) {
  auto original = parseModule(kExpanderPrograms, "expanders.mlir");
  ASSERT_TRUE(original) << original.status().message();
  auto expanded = parseModule(kExpanderPrograms, "expanders.mlir");
  auto pm = parsePassList("expand");
  ASSERT_TRUE(pm);
  ASSERT_TRUE(pm->run(**expanded).isOk());
  ASSERT_TRUE(verifyModule(**expanded).isOk());
  for (Operation* fn : (*expanded)->functions())
    fn->walk([&](Operation& op) {
      EXPECT_TRUE(op.name().find("batch_norm") == std::string::npos && op.name() != "stablehlo.rng")
          << op.name() << " left in @" << func::name(*fn);
    });
  for (Operation* fn : (*expanded)->functions()) EXPECT_FALSE(hasComplexProduct(*fn)) << "@" << func::name(*fn);
  for (std::string name : {"bn_f64", "bn_f32", "rng", "complex_products"}) {
    // Plain finite arguments: batch norm of NaN or infinity says nothing.
    std::vector<Tensor> args = argumentsFor(*(*original)->lookupFunction(name), name, /*withSpecials=*/false);
    auto before = interp::runFunction(**original, name, args);
    ASSERT_TRUE(before) << before.status().message();
    auto after = interp::runFunction(**expanded, name, args);
    ASSERT_TRUE(after) << after.status().message();
    for (size_t i = 0; i < before->size(); ++i) {
      const Tensor &want = (*before)[i], &got = (*after)[i];
      if (name == "complex_products") {
        EXPECT_EQ(firstDifference(want, got, kComplexSplitTolerance), "") << "@complex_products result #" << i;
        EXPECT_FALSE(want == got) << "@complex_products result #" << i << ": the split is not expected to be bit-exact";
        continue;
      }
      if (name != "bn_f32") {
        EXPECT_TRUE(want == got) << "@" << name << " result #" << i;
        continue;
      }
      double tolerance = kBatchNormF32MaxUlp * std::ldexp(maxMagnitude(want), -23);
      for (int64_t k = 0; k < want.numElements(); ++k)
        EXPECT_NEAR(got.getFloat(k), want.getFloat(k), tolerance) << "@bn_f32 result #" << i << " element " << k;
    }
  }
}

}  // namespace
}  // namespace kiln
